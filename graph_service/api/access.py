"""Who may do what: a bearer token names a principal and its role, and each root field needs a
minimum role. Every entry a request writes is journalled under its principal (see api/context.py).

Tokens come from a JSON object in the file named by GRAPH_SERVICE_TOKENS and/or inline in
GRAPH_SERVICE_TOKENS_JSON: `{token: {"principal": "ann", "role": "writer"}}`, or `{token: role}`,
whose principal is then `token-` and the first 8 hex digits of the token's SHA-256. With neither set
the service runs open: every request is `anonymous` with the admin role, and a warning says so.
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cachetools import LRUCache
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
)
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from strawberry.types.graphql import OperationType

from graph_service.actors import actor_key
from graph_service.api.validating import REQUEST_RULES, operation_validated
from graph_service.config import Settings

log = logging.getLogger(__name__)

TOKENS_JSON_ENV = "GRAPH_SERVICE_TOKENS_JSON"
PROTECTED_PATHS = frozenset({"/graphql"})
ROLE_SCOPE_KEY = "graph_service.role"
PRINCIPAL_SCOPE_KEY = "graph_service.principal"
MAX_PRINCIPAL_CHARACTERS = 200


class Role(enum.IntEnum):
    """Ordered: each role may do everything the roles below it may."""

    READER = 1
    WRITER = 2
    OPERATOR = 3
    ADMIN = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: object) -> Role:
        """The role a configuration names; ValueError for anything else (including no role at all)."""
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        raise ValueError(f"{value!r} is not a role; expected one of {', '.join(r.label for r in cls)}")


@dataclass(frozen=True)
class Principal:
    """Who a request authenticated as: the name its entries are journalled under, and its role.

    `authenticated` is False only for the open service's `anonymous`, whose role nobody vouched for."""

    name: str
    role: Role
    authenticated: bool = True

    @property
    def recorded_role(self) -> str | None:
        """The role the journal records with each entry (none for the unauthenticated anonymous)."""
        return self.role.label if self.authenticated else None


ANONYMOUS = Principal("anonymous", Role.ADMIN, authenticated=False)


def _principal(token: str, value: object) -> Principal:
    """The principal one token's configuration names; ValueError for anything else."""
    if isinstance(value, dict):
        if set(value) != {"principal", "role"}:
            raise ValueError("expected {\"principal\": <name>, \"role\": <role>}")
        name = value["principal"]
        if not isinstance(name, str) or not actor_key(name) or len(name) > MAX_PRINCIPAL_CHARACTERS \
                or any(not c.isprintable() for c in name):
            raise ValueError(f"a principal is a name of 1 to {MAX_PRINCIPAL_CHARACTERS} printable characters "
                             "with a letter or digit")
        # Spelt as every actor is (graph_service.actors): the principal "Ann" and the speaker "ann" are one.
        return Principal(actor_key(name), Role.parse(value["role"]))
    return Principal(f"token-{_digest(token).hex()[:8]}", Role.parse(value))


# --- the policy ---------------------------------------------------------------------------------

DEFAULT_ROLE: Mapping[OperationType, Role] = {
    OperationType.QUERY: Role.READER,
    OperationType.SUBSCRIPTION: Role.READER,
    OperationType.MUTATION: Role.WRITER,
}

# Root fields that need more than their operation's default. The table only ever raises the bar.
FIELD_ROLES: Mapping[str, Role] = {
    "correctBelief": Role.OPERATOR,
    "markInaccurate": Role.OPERATOR,
    "doNotInfer": Role.OPERATOR,
    "sameEntity": Role.OPERATOR,
    "differentEntity": Role.OPERATOR,
    "pinBelief": Role.OPERATOR,  # SPEC 3.4: a status is pinned by an operator
    "resolve": Role.OPERATOR,
    "resolveDispute": Role.OPERATOR,
    "answerQuestion": Role.OPERATOR,
    "rebuild": Role.ADMIN,
    "export": Role.ADMIN,
    # whole-journal work: a reader must not be able to keep the store busy with it
    "verify": Role.ADMIN,
    "redecide": Role.ADMIN,
    "provDocument": Role.ADMIN,
    "longWork": Role.ADMIN,  # what admins started, and how far it has come
    "startVerify": Role.ADMIN,
    "verifyRun": Role.ADMIN,
}


def required_role(operation_type: OperationType | str, field_name: str) -> Role:
    """The least role that may select `field_name` at the root of an operation of this type."""
    default = DEFAULT_ROLE[OperationType(operation_type)]
    return max(default, FIELD_ROLES.get(field_name, Role.READER))


# --- tokens -------------------------------------------------------------------------------------


def _digest(token: str) -> bytes:
    # Tokens are held and looked up by digest, so the table never holds them and lookup time
    # does not depend on how much of a guess matches a real token.
    return hashlib.sha256(token.encode()).digest()


@dataclass(frozen=True)
class TokenTable:
    """Token digests to principals; empty means the service runs open."""

    principals: Mapping[bytes, Principal]

    @property
    def open(self) -> bool:
        return not self.principals

    def principal_for(self, authorization: str | None) -> Principal | None:
        """Who an `Authorization` header authenticates: anonymous (admin) when open, None when refused."""
        if self.open:
            return ANONYMOUS
        if not authorization:
            return None
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        return self.principals.get(_digest(token))

    def role_for(self, authorization: str | None) -> Role | None:
        """The role an `Authorization` header grants: admin when open, None when refused."""
        principal = self.principal_for(authorization)
        return None if principal is None else principal.role

    @classmethod
    def parse(cls, text: str, source: str) -> dict[bytes, Principal]:
        """Digests and principals from one JSON source; ValueError naming the source (never a token)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected a JSON object mapping token to a role or to a principal and role")
        principals: dict[bytes, Principal] = {}
        for position, (token, value) in enumerate(data.items(), start=1):
            if not token.strip():
                raise ValueError(f"{source}: entry {position} has an empty token")
            try:
                principals[_digest(token.strip())] = _principal(token.strip(), value)
            except ValueError as exc:
                raise ValueError(f"{source}: entry {position}: {exc}") from None
        if not principals:
            raise ValueError(f"{source}: names no tokens; unset it to run the service open")
        return principals

    @classmethod
    def load(cls, settings: Settings, environ: Mapping[str, str] | None = None) -> TokenTable:
        """The tokens from the file in `settings.tokens_file` and from GRAPH_SERVICE_TOKENS_JSON.

        Fails at start-up on anything malformed: a mistyped role must not become an open service.
        """
        environ = os.environ if environ is None else environ
        principals: dict[bytes, Principal] = {}
        sources: list[tuple[str, str]] = []
        if settings.tokens_file is not None:
            path = Path(settings.tokens_file)
            try:
                sources.append((path.read_text(encoding="utf-8"), f"GRAPH_SERVICE_TOKENS file {path}"))
            except OSError as exc:
                raise ValueError(f"GRAPH_SERVICE_TOKENS file {path}: cannot read it ({exc.strerror})") from None
        inline = environ.get(TOKENS_JSON_ENV)
        if inline is not None and inline.strip():
            sources.append((inline, TOKENS_JSON_ENV))
        for text, source in sources:
            for digest, principal in cls.parse(text, source).items():
                known = principals.setdefault(digest, principal)
                if known.role != principal.role:
                    raise ValueError(f"{source}: a token is given two different roles")
                if known != principal:
                    raise ValueError(f"{source}: a token is given two different principals")
        return cls(principals)


# --- the HTTP and websocket gate ----------------------------------------------------------------


def role_of(request: Any) -> Role | None:
    """The role the gate admitted this request (or websocket) with; None if it did not pass the gate."""
    return request.scope.get(ROLE_SCOPE_KEY)


def principal_of_scope(scope: Mapping[str, Any]) -> Principal | None:
    """Who the gate admitted this request (or websocket) as; None if it did not pass the gate."""
    return scope.get(PRINCIPAL_SCOPE_KEY)


def _authorization(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name.lower() == b"authorization":
            return value.decode("latin-1")
    return None


class BearerAuth:
    """ASGI middleware: requests to the GraphQL endpoint need a valid bearer token (unless open).

    A refused HTTP request or websocket handshake gets 401 with a JSON body and nothing runs. A request
    `public` says yes to (a static page on a protected path) passes without a role, which FieldAccessRule
    refuses should it ever reach GraphQL.
    """

    def __init__(self, app: ASGIApp, *, tokens: TokenTable, paths: frozenset[str] = PROTECTED_PATHS,
                 public: Callable[[Scope], bool] | None = None) -> None:
        self.app = app
        self.tokens = tokens
        self.paths = paths
        self.public = public
        if tokens.open:
            log.warning("no API tokens configured (GRAPH_SERVICE_TOKENS, %s): the API is open, "
                        "every request acts as admin and is journalled as anonymous", TOKENS_JSON_ENV)
        else:
            log.info("API tokens configured: %d", len(tokens.principals))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"] not in self.paths:
            await self.app(scope, receive, send)
            return
        principal = self.tokens.principal_for(_authorization(scope))
        if principal is None and self.public is not None and self.public(scope):
            await self.app(scope, receive, send)
            return
        if principal is None:
            await self._refuse(scope, receive, send)
            return
        scope[ROLE_SCOPE_KEY] = principal.role
        scope[PRINCIPAL_SCOPE_KEY] = principal
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = {"errors": [{"message": "A valid bearer token is required (Authorization: Bearer <token>).",
                            "extensions": {"code": "UNAUTHENTICATED"}}]}
        response = JSONResponse(body, status_code=401, headers={"WWW-Authenticate": "Bearer"})
        if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
            # A server that cannot send an HTTP denial gets a close before accept (HTTP 403 on the wire).
            await receive()
            await send({"type": "websocket.close", "code": 1008, "reason": "unauthenticated"})
            return
        await response(scope, receive, send)


# --- the field policy, enforced before execution ------------------------------------------------


def _root_fields(selection_set: SelectionSetNode, fragments: Mapping[str, FragmentDefinitionNode],
                 seen: frozenset[str] = frozenset()) -> Iterator[str]:
    # Root field names as the executor will see them: aliases ignored, fragments followed.
    for selection in selection_set.selections:
        if isinstance(selection, FieldNode):
            yield selection.name.value
        elif isinstance(selection, InlineFragmentNode):
            yield from _root_fields(selection.selection_set, fragments, seen)
        elif isinstance(selection, FragmentSpreadNode):
            name = selection.name.value
            fragment = fragments.get(name)
            if fragment is not None and name not in seen:
                yield from _root_fields(fragment.selection_set, fragments, seen | {name})


def forbidden_error(field: str, needed: Role, role: Role | None) -> GraphQLError:
    held = f"the request's role is {role.label}" if role is not None else "the request carries no role"
    return GraphQLError(f"Field '{field}' needs the {needed.label} role; {held}.",
                        extensions={"code": "FORBIDDEN", "field": field, "requiredRole": needed.label})


class FieldAccessRule(ValidationRule):
    """Refuses, during validation and so before any resolver runs, an operation whose root selects a
    field the request's role may not use: reports each such field. The role is `context["role"]`; none at
    all is refused. A request rule (api/validating.Validation)."""

    def __init__(self, validation_context: ValidationContext) -> None:
        super().__init__(validation_context)
        execution_context = operation_validated()
        context = execution_context.context
        role = context.get("role") if isinstance(context, Mapping) else getattr(context, "role", None)
        refused: set[str] = set()
        for field, needed in root_field_needs(validation_context.document, execution_context.operation_name):
            if (role is None or role < needed) and field not in refused:
                refused.add(field)
                validation_context.report_error(forbidden_error(field, needed, role))


def root_field_needs(document: DocumentNode, name: str | None) -> tuple[tuple[str, Role], ...]:
    """Each root field the operation named `name` selects (every operation's when None: the executor itself
    refuses an unnamed choice among several), in document order, with the role it needs. Kept per parsed
    document (the same object for the same text: api/schema.py's parser cache) and name, for the next request."""
    key = (id(document), name)
    kept = _ROOT_FIELD_NEEDS.get(key)
    if kept is not None and kept[0] is document:
        return kept[1]
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    needs: list[tuple[str, Role]] = []
    for operation in document.definitions:
        if isinstance(operation, OperationDefinitionNode) and (
                name is None or (operation.name is not None and operation.name.value == name)):
            operation_type = OperationType(operation.operation.value)
            needs += [(field, required_role(operation_type, field))
                      for field in _root_fields(operation.selection_set, fragments)]
    # The document is kept with its answer, so its id cannot name another document while the answer is kept.
    _ROOT_FIELD_NEEDS[key] = (document, tuple(needs))
    return tuple(needs)


ROOT_FIELD_NEEDS_KEPT = 64  # as many as the parsed documents kept (api/schema.py PARSED_DOCUMENTS)
# Least recently used first out (cachetools.LRUCache: a read counts as a use).
_ROOT_FIELD_NEEDS: LRUCache[tuple[int, str | None], tuple[DocumentNode, tuple[tuple[str, Role], ...]]] = \
    LRUCache(maxsize=ROOT_FIELD_NEEDS_KEPT)


REQUEST_RULES.add(FieldAccessRule)
