"""A Python client for graph_service, on `gql`: typed calls for the main operations, sync and async,
and the journal's subscription over graphql-transport-ws.

    from graph_service.client import Client
    with Client("http://127.0.0.1:8000/graphql", token="...") as gs:
        fact = gs.add_item("fact", {"s": "door", "r": "colour", "o": "blue"}, source="person")
        gs.retract_item(fact.id, why="repainted", idempotency_key="retract-door-1")

Every call is one operation of the schema (`schema.graphql`); a GraphQL error the service answers
becomes `ServiceError` with its code and field. `idempotency_key` sends the Idempotency-Key header,
so a retried write returns its first answer and writes nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Generic, TypeVar

from gql import Client as GqlClient
from gql import GraphQLRequest
from gql.transport.exceptions import TransportQueryError, TransportServerError
from gql.transport.httpx import HTTPXAsyncTransport, HTTPXTransport
from gql.transport.websockets import WebsocketsTransport

T = TypeVar("T")
TIMEOUT_SECONDS = 30.0


class ServiceError(Exception):
    """An error the service answered: its message, `code` (extensions.code) and `field`, if it named one."""

    def __init__(self, message: str, code: str | None = None, field: str | None = None,
                 errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        self.errors = list(errors)


# ---- what the calls return ---------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One journal entry: its position, operation, author, time (ISO 8601), hash and payload (JSON text)."""

    seq: int
    op: str
    by: str
    at: str
    hash: str
    payload: str

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Entry:
        return cls(raw["seq"], raw["op"], raw["by"], raw["at"], raw["hash"], raw["payload"])


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str


@dataclass(frozen=True)
class StatusChange:
    id: str
    before: str | None
    after: str


@dataclass(frozen=True)
class ItemWrite:
    """What a knowledge write did: the entry's position, the item it names and every status change."""

    seq: int
    id: str | None
    status: str | None
    changes: tuple[StatusChange, ...]


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    status: str
    summary: str
    source: str
    by: str


@dataclass(frozen=True)
class BeliefWrite:
    """What a belief write did: the entry's position, the belief it is about and its confidence now."""

    seq: int
    belief: str | None
    status: str | None
    confidence: float | None


@dataclass(frozen=True)
class Belief:
    id: str
    proposition: str
    status: str
    confidence: float
    families: tuple[str, ...]


@dataclass(frozen=True)
class Verification:
    ok: bool
    projection_ok: bool
    first_bad: int | None


def _changes(raw: Sequence[Mapping[str, Any]]) -> tuple[StatusChange, ...]:
    return tuple(StatusChange(c["id"], c.get("before"), c["after"]) for c in raw)


def _belief_write(raw: Mapping[str, Any]) -> BeliefWrite:
    belief = raw.get("belief") or {}
    return BeliefWrite(raw["seq"], belief.get("id"), belief.get("status"), belief.get("confidence"))


# ---- the operations, once for both clients -----------------------------------------------------


@dataclass(frozen=True)
class Operation(Generic[T]):
    """One GraphQL document, the root field it selects and how its answer becomes a typed value."""

    document: str
    field: str
    parse: Callable[[Any], T]
    absent_is_none: bool = False  # a lookup: NOT_FOUND is None, not an error


ENTRY = "seq op by at hash payload"
BELIEF_WRITE = "seq belief { id status confidence }"
NOTE = Operation(f"mutation($text: String!) {{ note(text: $text) {{ {ENTRY} }} }}", "note", Entry.of)
HEAD = Operation("{ head { seq hash } }", "head", lambda r: Head(r["seq"], r["hash"]))
JOURNAL = Operation(f"query($first: Int!, $after: String) {{ journal(first: $first, after: $after) {{ "
                    f"edges {{ node {{ {ENTRY} }} }} pageInfo {{ hasNextPage endCursor }} }} }}", "journal",
                    lambda r: ([Entry.of(e["node"]) for e in r["edges"]], r["pageInfo"]))
VERIFY = Operation("{ verify { ok projectionOk firstBad } }", "verify",
                   lambda r: Verification(r["ok"], r["projectionOk"], r.get("firstBad")))
ADD_ITEM = Operation("mutation($item: ItemInput!) { addItem(item: $item) { seq id status changes "
                     "{ id before after } } }", "addItem",
                     lambda r: ItemWrite(r["seq"], r["id"], r["status"], _changes(r["changes"])))
RETRACT_ITEM = Operation("mutation($id: String!, $why: String) { retractItem(id: $id, why: $why) "
                         "{ seq changes { id before after } } }", "retractItem",
                         lambda r: ItemWrite(r["seq"], None, None, _changes(r["changes"])))
ITEM = Operation("query($id: String!) { item(id: $id) { id kind status summary source by } }", "item",
                 lambda r: None if r is None else Item(r["id"], r["kind"], r["status"], r["summary"], r["source"],
                                                       r["by"]), absent_is_none=True)
CREATE_BELIEF = Operation("mutation($p: String!, $s: String, $ev: [EvidenceInput!]) { createBelief(proposition: "
                          f"$p, subject: $s, evidence: $ev) {{ {BELIEF_WRITE} }} }}", "createBelief", _belief_write)
ADD_EVIDENCE = Operation("mutation($b: String!, $ev: EvidenceInput!) { addEvidence(belief: $b, evidence: $ev) "
                         f"{{ {BELIEF_WRITE} }} }}", "addEvidence", _belief_write)
BELIEF = Operation("query($id: String!) { belief(id: $id) { id proposition status confidence families { name } } }",
                   "belief", lambda r: None if r is None else Belief(r["id"], r["proposition"], r["status"],
                                                                     r["confidence"],
                                                                     tuple(f["name"] for f in r["families"])),
                   absent_is_none=True)
SAY = Operation("mutation($text: String!, $speaker: String!, $tick: Long!) { say(text: $text, speaker: $speaker, "
                "tick: $tick) { seq assertions { proposition actor belief } } }", "say", lambda r: r)
SUBSCRIBE = f"subscription($after: Int!) {{ journalEntries(after: $after) {{ {ENTRY} }} }}"


def _item_input(kind: str, body: Mapping[str, Any], source: str, derived_from: Sequence[str],
                scope: Mapping[str, Any] | None) -> dict[str, Any]:
    item: dict[str, Any] = {"kind": kind, "body": dict(body), "source": source}
    if derived_from:
        item["derivedFrom"] = list(derived_from)
    if scope:
        item["scope"] = dict(scope)
    return item


def _evidence(weight: float, actor: str | None, family: str | None, **more: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"weight": weight, **{k: v for k, v in more.items() if v is not None}}
    if actor is not None:
        row["actor"] = actor
    if family is not None:
        row["family"] = family
    return row


def _headers(token: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"} if token else {}


def _service_error(exc: TransportQueryError | TransportServerError) -> ServiceError:
    """The service's answer as ServiceError: the first GraphQL error's message, code and field, or the
    HTTP status."""
    if isinstance(exc, TransportServerError):
        return ServiceError(f"the service answered HTTP {exc.code}: {exc}", code=f"HTTP_{exc.code}")
    errors = exc.errors or []
    first = errors[0] if errors else {}
    extensions = first.get("extensions") or {}
    return ServiceError(first.get("message", str(exc)), extensions.get("code"), extensions.get("field"), errors)


def _refused(operation: Operation[T], exc: TransportQueryError | TransportServerError) -> T:
    """A refused request's answer: None-parsed where the operation reads NOT_FOUND as absent;
    otherwise raises the service's error as ServiceError."""
    error = _service_error(exc)
    if operation.absent_is_none and error.code == "NOT_FOUND":
        return operation.parse(None)
    raise error from None


def _request(operation: Operation[Any], variables: dict[str, Any], key: str | None) -> tuple[GraphQLRequest, Any]:
    """The request and the transport's extra arguments (the Idempotency-Key header, if a key is given)."""
    extra = {"headers": {"Idempotency-Key": f'"{key}"'}} if key else None
    return GraphQLRequest(operation.document, variable_values=variables), extra


class _Calls(ABC):
    """The typed calls, written once over `_run` (sync in Client; AsyncClient's `_run` returns awaitables)."""

    @abstractmethod
    def _run(self, operation: Operation[Any], variables: dict[str, Any], key: str | None) -> Any:
        """Run one operation and return its parsed answer (or an awaitable of it)."""

    def note(self, text: str, *, idempotency_key: str | None = None) -> Any:
        """Journal a note; the entry it wrote."""
        return self._run(NOTE, {"text": text}, idempotency_key)

    def head(self) -> Any:
        return self._run(HEAD, {}, None)

    def journal(self, first: int = 100, after: str | None = None) -> Any:
        """(entries, pageInfo) of one page of the journal."""
        return self._run(JOURNAL, {"first": first, "after": after}, None)

    def verify(self) -> Any:
        """The chain check and whether the graph equals the journal's replay (admin)."""
        return self._run(VERIFY, {}, None)

    def add_item(self, kind: str, body: Mapping[str, Any], *, source: str, derived_from: Sequence[str] = (),
                 scope: Mapping[str, Any] | None = None, idempotency_key: str | None = None) -> Any:
        return self._run(ADD_ITEM, {"item": _item_input(kind, body, source, derived_from, scope)}, idempotency_key)

    def retract_item(self, id: str, *, why: str | None = None, idempotency_key: str | None = None) -> Any:
        """Retract an item; every item whose status changed (the cascade)."""
        return self._run(RETRACT_ITEM, {"id": id, "why": why}, idempotency_key)

    def item(self, id: str) -> Any:
        """The item, or None if there is none with this id."""
        return self._run(ITEM, {"id": id}, None)

    def create_belief(self, proposition: str, *, subject: str | None = None,
                      evidence: Sequence[Mapping[str, Any]] = (), idempotency_key: str | None = None) -> Any:
        return self._run(CREATE_BELIEF, {"p": proposition, "s": subject, "ev": [dict(e) for e in evidence]},
                         idempotency_key)

    def add_evidence(self, belief: str, weight: float, *, actor: str | None = None, family: str | None = None,
                     direction: str | None = None, idempotency_key: str | None = None) -> Any:
        row = _evidence(weight, actor, family, direction=direction)
        return self._run(ADD_EVIDENCE, {"b": belief, "ev": row}, idempotency_key)

    def belief(self, id: str) -> Any:
        """The belief, or None if there is none with this id."""
        return self._run(BELIEF, {"id": id}, None)

    def say(self, text: str, *, speaker: str, tick: int, idempotency_key: str | None = None) -> Any:
        """Journal what someone said; the assertions it was read into (each with its belief, if factual)."""
        return self._run(SAY, {"text": text, "speaker": speaker, "tick": tick}, idempotency_key)


class Client(_Calls):
    """The synchronous client (over httpx); a context manager, or call `close()`."""

    def __init__(self, url: str, *, token: str | None = None, timeout: float = TIMEOUT_SECONDS) -> None:
        self.url = url
        self._client = GqlClient(transport=HTTPXTransport(url, headers=_headers(token), timeout=timeout),
                                 execute_timeout=timeout)
        self._session = self._client.connect_sync()

    def _run(self, operation: Operation[T], variables: dict[str, Any], key: str | None) -> T:
        request, extra = _request(operation, variables, key)
        try:
            data = self._session.execute(request, extra_args=extra)
        except (TransportQueryError, TransportServerError) as exc:
            return _refused(operation, exc)
        return operation.parse(data[operation.field])

    def close(self) -> None:
        self._client.close_sync()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class AsyncClient(_Calls):
    """The asynchronous client (over httpx), with the journal subscription (over websockets):

        async with AsyncClient(url) as gs:
            await gs.note("hello")
            async for entry in gs.journal_entries(after=0): ...
    """

    def __init__(self, url: str, *, token: str | None = None, timeout: float = TIMEOUT_SECONDS) -> None:
        self.url = url
        self.token = token
        self.timeout = timeout
        self._client = GqlClient(transport=HTTPXAsyncTransport(url, headers=_headers(token), timeout=timeout),
                                 execute_timeout=timeout)
        self._session: Any = None

    async def _execute(self, operation: Operation[T], variables: dict[str, Any], key: str | None) -> T:
        request, extra = _request(operation, variables, key)
        try:
            data = await self._session.execute(request, extra_args=extra)
        except (TransportQueryError, TransportServerError) as exc:
            return _refused(operation, exc)
        return operation.parse(data[operation.field])

    def _run(self, operation: Operation[T], variables: dict[str, Any], key: str | None) -> Any:
        return self._execute(operation, variables, key)

    async def journal_entries(self, after: int = 0) -> AsyncIterator[Entry]:
        """Every entry after position `after`, then each new one as it is written (graphql-transport-ws)."""
        ws_url = "ws" + self.url[len("http"):] if self.url.startswith("http") else self.url
        transport = WebsocketsTransport(url=ws_url, headers=_headers(self.token),
                                        subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL])
        async with GqlClient(transport=transport, execute_timeout=self.timeout) as session:
            request = GraphQLRequest(SUBSCRIBE, variable_values={"after": after})
            async for data in session.subscribe(request):
                yield Entry.of(data["journalEntries"])

    async def __aenter__(self) -> AsyncClient:
        self._session = await self._client.connect_async()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self._client.close_async()

