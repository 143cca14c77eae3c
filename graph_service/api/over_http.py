"""GraphQL over HTTP: strawberry's ASGI view with the rules of the GraphQL-over-HTTP spec it lacks.

- Media types: `application/graphql-response+json` when the client's Accept names it (at least as
  highly as `application/json`), with its status codes: a request that fails before execution
  (parse, validation, variable coercion) is 400 and carries no `data`. `application/json` stays the
  default (no Accept, `*/*`) and answers 200 for every well-formed request, as the spec asks.
- Every refusal of the HTTP layer is a GraphQL error body (`{"errors": [{"message": ...}]}`),
  never strawberry's plain text, and a malformed body of any kind is a 400, never a 500: not UTF-8,
  not a JSON object, nested past what the parser can hold, or variables nested past MAX_INPUT_DEPTH.
- GraphiQL is the page the package ships (graphiql_static/, vendored from npm), not strawberry's
  CDN page.
"""

from __future__ import annotations

import json
from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse, GraphQLRequestData
from strawberry.types import ExecutionResult

from graph_service.api.access import role_of
from graph_service.api.graphiql import GRAPHIQL_PAGE
from graph_service.api.input_limits import MAX_INPUT_DEPTH, depth_beyond
from graph_service.service import Service

JSON_MEDIA = "application/json"
GRAPHQL_RESPONSE_MEDIA = "application/graphql-response+json"


def negotiate(accept: str | None) -> str:
    """The response's media type for an Accept header: graphql-response+json if named at least as highly
    as application/json (wildcards count for application/json only), else application/json."""
    quality = {GRAPHQL_RESPONSE_MEDIA: 0.0, JSON_MEDIA: 0.0}
    for part in (accept or "").split(","):
        media, *params = (piece.strip().lower() for piece in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media in (GRAPHQL_RESPONSE_MEDIA, JSON_MEDIA):
            quality[media] = max(quality[media], q)
        elif media in ("*/*", "application/*"):
            quality[JSON_MEDIA] = max(quality[JSON_MEDIA], q)
    if quality[GRAPHQL_RESPONSE_MEDIA] > 0 and quality[GRAPHQL_RESPONSE_MEDIA] >= quality[JSON_MEDIA]:
        return GRAPHQL_RESPONSE_MEDIA
    return JSON_MEDIA


def error_response(message: str, status: int, media: str, code: str = "BAD_REQUEST") -> JSONResponse:
    """A refusal as GraphQL clients read one: an errors list, in the negotiated media type."""
    body = {"errors": [{"message": message, "extensions": {"code": code}}]}
    return JSONResponse(body, status_code=status, media_type=media)


def is_request_error(result: ExecutionResult) -> bool:
    """Did the request fail before execution? Then there is no data and no error has a path: parse,
    validation and variable coercion errors never do, a field error always does."""
    return result.data is None and bool(result.errors) and all(error.path is None for error in result.errors)


def is_graphiql_page(scope: Scope) -> bool:
    """A browser asking for the GraphiQL page (GET, HTML, no query): static, so it needs no token;
    the page's API calls do. The same test strawberry makes before it renders the IDE, never looser."""
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    request = Request(scope)
    return "query" not in request.query_params and "text/html" in request.headers.get("accept", "")


class ServiceGraphQL(GraphQL):
    """strawberry's ASGI view with the service in every request's context and the HTTP rules above."""

    def __init__(self, service_holder: dict[str, Service], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._holder = service_holder

    async def get_context(self, request: Any, response: Any = None) -> dict[str, Any]:
        return {"service": self._holder["service"], "request": request, "response": response,
                "role": role_of(request)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope, receive)
        media = negotiate(request.headers.get("accept"))
        request.state.graphql_media = media
        response: Response
        try:
            response = await self.run(request)
        except HTTPException as exc:
            response = error_response(exc.reason, exc.status_code, media)
        else:
            if response.media_type == JSON_MEDIA and media == GRAPHQL_RESPONSE_MEDIA:
                response.headers["content-type"] = f"{GRAPHQL_RESPONSE_MEDIA}; charset=utf-8"
                if getattr(request.state, "graphql_request_error", False):
                    response.status_code = 400
        await response(scope, receive, send)

    async def render_graphql_ide(self, request: Request) -> Response:
        return FileResponse(GRAPHIQL_PAGE, media_type="text/html")

    def decode_json(self, data: str | bytes) -> object:
        """The body (or a GET parameter) as a JSON object; a clear 400 for anything else."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise HTTPException(400, f"The request is not valid UTF-8 (byte {exc.start}).") from None
        try:
            value = json.loads(data)
        except json.JSONDecodeError as exc:
            raise HTTPException(400, f"The request is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}).")\
                from None
        except RecursionError:
            # json.loads recurses once a level: past Python's limit it raises RecursionError, not a decode error.
            raise HTTPException(400, f"The request's JSON is nested too deeply (the limit is {MAX_INPUT_DEPTH} "
                                     "levels inside a variable).") from None
        except ValueError as exc:  # what the decoder refuses beyond syntax: an integer of over 4,300 digits
            raise HTTPException(400, f"The request's JSON holds a value that cannot be read: {exc}"[:300]) from None
        if not isinstance(value, dict):
            raise HTTPException(400, f"The request's JSON must be an object, not {_json_kind(value)}.")
        return value

    async def parse_http_body(self, request: Any) -> GraphQLRequestData | list[GraphQLRequestData]:
        parsed = await super().parse_http_body(request)
        if isinstance(parsed, GraphQLRequestData):
            # A request nesting deeper than any argument may is malformed as a whole: 400 whatever the media
            # type (literals in the document are held to the same limit by input_limits, naming the argument).
            for name, value in (parsed.variables or {}).items():
                if depth_beyond(value, MAX_INPUT_DEPTH):
                    raise HTTPException(400, f"Variable ${name} is nested deeper than {MAX_INPUT_DEPTH} levels.")
            if depth_beyond(parsed.extensions, MAX_INPUT_DEPTH):
                raise HTTPException(400, f"The request's extensions nest deeper than {MAX_INPUT_DEPTH} levels.")
            if parsed.operation_name is not None and not isinstance(parsed.operation_name, str):
                raise HTTPException(400, "The GraphQL operation's `operationName` must be a string or null.")
        return parsed

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        processed = await super().process_result(request, result)
        if is_request_error(result):
            request.state.graphql_request_error = True
            if getattr(request.state, "graphql_media", JSON_MEDIA) == GRAPHQL_RESPONSE_MEDIA:
                # The spec: a response to a request that never executed has no data entry at all.
                processed.pop("data", None)
        return processed


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), type(value).__name__)
