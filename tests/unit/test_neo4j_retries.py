"""The Neo4j adapter's retries (`retried`): each statement is one auto-committed transaction, which the driver
never retries, so the adapter tries one again on the errors the driver would retry a managed transaction on."""

from __future__ import annotations

import pytest
from neo4j.exceptions import ConfigurationError, ServiceUnavailable

from graph_service.storage import neo4j_adapter
from graph_service.storage.neo4j_adapter import retried


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(neo4j_adapter.time, "sleep", slept.append)
    return slept


def failing(times: int, error: Exception, answer: str = "done") -> tuple[list[int], object]:
    calls: list[int] = []

    def attempt() -> str:
        calls.append(len(calls))
        if len(calls) <= times:
            raise error
        return answer

    return calls, attempt


def test_a_retryable_failure_is_tried_again_with_growing_delays(no_waiting: list[float]) -> None:
    calls, attempt = failing(3, ServiceUnavailable("the connection went away"))
    assert retried(attempt) == "done"  # type: ignore[arg-type]
    assert len(calls) == 4 and len(no_waiting) == 3
    assert no_waiting[0] < no_waiting[1] < no_waiting[2] <= neo4j_adapter.MAX_DELAY * 1.2


def test_an_error_that_is_not_retryable_is_raised_at_once(no_waiting: list[float]) -> None:
    calls, attempt = failing(1, ConfigurationError("not a retryable error"))
    with pytest.raises(ConfigurationError):
        retried(attempt)  # type: ignore[arg-type]
    assert len(calls) == 1 and no_waiting == []


def test_retries_stop_once_the_budget_has_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(range(0, 1000, 10))  # each reading of the clock is 10 s after the one before
    monkeypatch.setattr(neo4j_adapter.time, "monotonic", lambda: float(next(clock)))
    calls, attempt = failing(100, ServiceUnavailable("down for good"))
    with pytest.raises(ServiceUnavailable, match="down for good"):
        retried(attempt, seconds=25)  # type: ignore[arg-type]
    assert len(calls) == 4  # failures at 0, 10 and 20 s are tried again; the one at 30 s is past the budget
