"""The Neo4j adapter: the only module that imports the official `neo4j` driver."""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable
from typing import TypeVar

from neo4j import GraphDatabase
from neo4j.exceptions import ClientError, ConstraintError, DriverError, Neo4jError

from graph_service.storage import queries
from graph_service.storage.port import ConstraintViolation
from graph_service.types import Params, Row

log = logging.getLogger(__name__)
T = TypeVar("T")

# The driver's own retry budget for a transaction (its max_transaction_retry_time), with a shorter first delay: what
# is retried here is mostly a lock wait that lost a deadlock, which clears in milliseconds.
RETRY_SECONDS = 30.0
FIRST_DELAY, MAX_DELAY = 0.05, 1.0


def retried(attempt: Callable[[], T], *, seconds: float = RETRY_SECONDS) -> T:
    """`attempt()`, tried again while it fails with an error the server or driver calls retryable (a deadlock, a
    database still starting, a lost connection) and `seconds` have not passed since the first failure; then that
    error. Each attempt is one statement, which the server rolls back whole when it fails: every one this service
    runs is guarded (a compare-and-set on the head, an idempotent MERGE), so running one again that did land (a
    connection lost as it committed) changes nothing, as with the driver's managed transactions."""
    delay, first_failure = FIRST_DELAY, None
    while True:
        try:
            return attempt()
        except (Neo4jError, DriverError) as exc:
            if not exc.is_retryable():
                raise
            now = time.monotonic()
            first_failure = now if first_failure is None else first_failure
            if now - first_failure > seconds:
                raise
            log.warning("a Neo4j statement failed and is tried again in %.2f s: %s", delay, exc)
            time.sleep(delay * random.uniform(0.8, 1.2))
            delay = min(delay * 2, MAX_DELAY)

_DECLARED = re.compile(r"^CREATE (?:CONSTRAINT|INDEX) (\w+) IF NOT EXISTS ")


def declared_schema_names() -> list[str]:
    """The name of each constraint and index `schema_neo4j` declares. Every statement there must name what it makes
    (a uniqueness constraint's index takes its name): ValueError names one that does not, since a check by name
    could not see it."""
    names = []
    for statement in queries.statements("schema_neo4j"):
        found = _DECLARED.match(statement)
        if found is None:
            raise ValueError(f"schema_neo4j: a statement that names nothing it creates: {statement[:80]!r}")
        names.append(found.group(1))
    return names


_ALREADY_THERE = {
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
}


class Neo4jGraph:
    """The graph port on Neo4j 5: each named query is one auto-committed transaction.

    Auto-committed (`Session.run`), not the driver's managed transaction (`execute_query`): that one commits in a
    round trip of its own after the statement's, so every statement cost two (`benchmarks/round_trips.py`
    measures both). The driver retries only managed transactions; `retried` does it here, on the same errors."""

    backend = "neo4j"

    def __init__(self, uri: str, user: str, password: str, database: str = "neo4j") -> None:
        # "Property key does not exist" (UNRECOGNIZED) is what a young store answers to every read
        # of a property no node has yet, and "already exists" (INFORMATION) what every start's
        # schema set-up hears: neither is worth a log line per query.
        self._driver = GraphDatabase.driver(uri, auth=(user, password), notifications_min_severity="WARNING",
                                            notifications_disabled_classifications=["UNRECOGNIZED"])
        self._database = database
        self._connection = {"backend": self.backend, "uri": uri, "user": user, "password": password,
                            "database": database}
        self._driver.verify_connectivity()

    def connection(self) -> dict[str, str]:
        return dict(self._connection)

    def run(self, name: str, params: Params | None = None) -> list[Row]:
        query, given = queries.load(name), params or {}

        def attempt() -> list[Row]:
            with self._driver.session(database=self._database) as session:
                return session.run(query, given).data()

        try:
            return retried(attempt)
        except ConstraintError as exc:
            raise ConstraintViolation(str(exc)) from exc

    def setup_schema(self, timeout: float = 120.0) -> None:
        """Create the constraints and indexes (idempotent) and wait until they are online; on a store that has every
        one of them online already, only check that (one statement).

        Why the check: asking for each of the 44 again cost a start 0.4 to 1.3 s on a warm server, where the
        check costs tens of milliseconds. Schema statements run in auto-commit transactions, which the driver does
        not retry: two services starting at once on a new store deadlock on the schema locks (found on Neo4j
        5.26), so a transient failure is retried here until `timeout`.
        """
        try:
            if self.schema_online():
                return
        except ClientError as exc:  # a user who may not list indexes (SHOW INDEX privilege): set it up as before
            log.info("the schema could not be checked (%s); setting it up", exc.code)
        with self._driver.session(database=self._database) as session:
            for statement in queries.statements("schema_neo4j"):
                try:
                    retried(lambda statement=statement: session.run(statement).consume(), seconds=timeout)
                except ClientError as exc:
                    # IF NOT EXISTS is checked before the lock: a concurrent creator may win.
                    if exc.code not in _ALREADY_THERE:
                        raise
        self.run("await_indexes_neo4j")

    def schema_online(self) -> bool:
        """Is every index and constraint `schema_neo4j` declares there and online (by name)?"""
        states = {row["name"]: row["state"] for row in self.run("schema_online_neo4j")}
        return all(states.get(name) == "ONLINE" for name in declared_schema_names())

    def health(self) -> dict[str, object]:
        """The backend's liveness for /healthz: the driver reaches the server."""
        self._driver.verify_connectivity()
        return {"backend": self.backend}

    def close(self) -> None:
        self._driver.close()
