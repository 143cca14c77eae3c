"""Safe retries: an `Idempotency-Key` request header (IETF httpapi draft) makes a mutation write once.

A keyed POST to /graphql whose operation is a mutation is looked up before it runs: a key already
stored with an entry answers with the first request's answer (`Idempotent-Replayed: true`) and
writes nothing; the same key with another request is 422; a key whose entry is written but whose
answer is not kept (the first request is still in flight elsewhere, or its service stopped before
answering) is 409. Keys are scoped to the caller's bearer token (all callers share one scope when
the service runs without tokens) and kept, as digests, with the entry they wrote. Requests with one
key queue in this process, so a retry sent while the first is running gets the first's answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import weakref
from typing import Any

import anyio.to_thread
import graphql
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph_service.api.limits import replay_messages
from graph_service.journal.chain import canonical_json
from graph_service.journal.once import WriteOnce

HEADER = b"idempotency-key"
REPLAYED_HEADER = "idempotent-replayed"
SCOPE_KEY = "graph_service.once"
MAX_KEY_CHARACTERS = 255
# The draft makes the field a Structured Field string ("..."); a bare token is accepted too.
_KEY_TEXT = rf"[\x20-\x21\x23-\x5b\x5d-\x7e]{{1,{MAX_KEY_CHARACTERS}}}"
_KEY = re.compile(rf'"({_KEY_TEXT})"|({_KEY_TEXT})')


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message, "extensions": {"code": code, "field": "Idempotency-Key"}}]},
                        status_code=status)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _is_one_mutation_field(body: dict[str, Any]) -> bool | None:
    """True: the operation is a mutation of one root field; False: a mutation of several; None: not a
    mutation, or not a document this layer can read (GraphQL answers those itself)."""
    try:
        document = graphql.parse(body["query"])
    except (graphql.GraphQLError, KeyError, TypeError):
        return None
    operations = [d for d in document.definitions if isinstance(d, graphql.OperationDefinitionNode)]
    name = body.get("operationName")
    chosen = [o for o in operations if name is None or (o.name is not None and o.name.value == name)]
    if len(chosen) != 1 or chosen[0].operation != graphql.OperationType.MUTATION:
        return None
    return len(chosen[0].selection_set.selections) == 1


class IdempotencyKeys:
    """ASGI middleware in front of GraphQL; needs the running Service in `holder["service"]`."""

    def __init__(self, app: ASGIApp, *, holder: dict[str, Any]) -> None:
        self.app = app
        self.holder = holder
        self._queues: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw_key = _header(scope, HEADER) if scope["type"] == "http" and scope.get("method") == "POST" else None
        if raw_key is None or scope.get("path") != "/graphql":
            await self.app(scope, receive, send)
            return
        match = _KEY.fullmatch(raw_key.strip())
        if match is None:
            await _error(400, "BAD_IDEMPOTENCY_KEY", "the Idempotency-Key header must be 1 to "
                         f"{MAX_KEY_CHARACTERS} printable ASCII characters, as a quoted string")(scope, receive, send)
            return
        body_bytes = await _read_body(receive)
        replay = replay_messages([{"type": "http.request", "body": body_bytes, "more_body": False}], receive)
        try:
            body = json.loads(body_bytes)
        except (ValueError, RecursionError):  # GraphQL's own layer answers what this one cannot read
            body = None
        one = _is_one_mutation_field(body) if isinstance(body, dict) else None
        if one is None:  # not a mutation: nothing to write twice; GraphQL answers as for any request
            await self.app(scope, replay, send)
            return
        if not one:
            await _error(400, "BAD_IDEMPOTENCY_KEY", "an Idempotency-Key covers one write: send one mutation "
                         "field per keyed request")(scope, replay, send)
            return
        service = self.holder.get("service")
        if service is None:
            await _error(503, "STARTING", "the service is starting")(scope, replay, send)
            return
        request_text = _request_text(body)
        token = _header(scope, b"authorization") or ""
        principal = hashlib.sha256(token.encode("latin-1")).hexdigest() if token else "anonymous"
        once = WriteOnce.of(principal, match.group(1) or match.group(2), request_text)
        queue = self._queues.setdefault(once.key, asyncio.Lock())
        async with queue:
            stored = await anyio.to_thread.run_sync(service.journal.stored_once, once.key)
            if stored is not None:
                await self._answer_stored(once, stored, scope, replay, send)
                return
            body: list[bytes] = []

            async def keep_then_send(message: Message) -> None:
                # The answer is kept before the client sees its end: an answer a client got is never lost.
                if message["type"] == "http.response.body":
                    body.append(message.get("body", b""))
                    if message.get("more_body", False):
                        return
                    if once.written is not None:
                        answer = b"".join(body).decode("utf-8")
                        await anyio.to_thread.run_sync(service.journal.keep_answer, once, answer)
                    message = {**message, "body": b"".join(body)}
                await send(message)

            await self.app({**scope, SCOPE_KEY: once}, replay, keep_then_send)

    @staticmethod
    async def _answer_stored(once: WriteOnce, stored: dict[str, Any], scope: Scope, receive: Receive,
                             send: Send) -> None:
        if stored.get("request") != once.request:
            await _error(422, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was first sent with a different "
                         f"request (written as journal entry {stored['seq']}); a key names one request"
                         )(scope, receive, send)
        elif stored.get("answer") is None:
            await _error(409, "ALREADY_WRITTEN", f"this Idempotency-Key's request was already written as journal "
                         f"entry {stored['seq']} and is not written again; its answer is not kept yet (if that "
                         "request is still in flight, retry shortly)")(scope, receive, send)
        else:
            headers = {REPLAYED_HEADER: "true", "content-type": "application/json"}
            await JSONResponse(json.loads(stored["answer"]), headers=headers)(scope, receive, send)


def _request_text(body: dict[str, Any]) -> str:
    """What the request asks, canonically: the same key with this text again is the same request."""
    asked = {"query": body.get("query"), "operationName": body.get("operationName"),
             "variables": body.get("variables") or {}}
    try:
        return canonical_json(asked)
    except Exception:  # a value RFC 8785 cannot write (the request then fails in GraphQL anyway)
        return json.dumps(asked, sort_keys=True, default=repr)


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)

