"""Transport limits in front of GraphQL: a cap on request bodies.

The other limits live where they act: depth, alias and token limits are schema extensions
(schema.py), argument nesting and string lengths too (input_limits.py), page sizes are checked per
field, malformed bodies are refused by the view (over_http.py), mutations over GET are refused by
strawberry's view (GET allows queries only), and introspection and GraphiQL follow Settings.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 256 * 1024


class BodySizeLimit:
    """ASGI middleware: an HTTP request body over `max_bytes` gets 413 and never reaches the app.

    The body is read here (it is small by construction) and replayed to the app, so a chunked
    body without Content-Length is held to the same cap.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = self._content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away; let the app see it
                await self.app(scope, replay_messages([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, replay_messages([body], receive), send)

    @staticmethod
    def _content_length(scope: Scope) -> int | None:
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return None
        return None

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = {"errors": [{"message": f"Request body is larger than {self.max_bytes} bytes.",
                            "extensions": {"code": "PAYLOAD_TOO_LARGE"}}]}
        await JSONResponse(body, status_code=413)(scope, receive, send)


def replay_messages(messages: list[Message], receive: Receive) -> Receive:
    """A receive channel that hands back what was already read, then defers to the real one (disconnects)."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
