"""graph_service.client (on gql) end to end: a real `graph_service serve` on a loopback port, both backends,
sync and async, with the journal subscription over graphql-transport-ws."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph_service.client import AsyncClient, Client, Entry, ServiceError
from tests.backends import Backend
from tests.integration.test_explorer import serve

TOKENS = {"t-ann": "writer", "t-admin": "admin"}


@pytest.fixture(scope="module")
def url(module_backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(module_backend, tmp_path_factory.mktemp("served"), tokens=TOKENS) as base:
        yield f"{base}/graphql"


def test_the_sync_client_writes_reads_and_retracts(url: str) -> None:
    with Client(url, token="t-ann") as gs, Client(url, token="t-admin") as admin:
        start = gs.head().seq
        door = gs.add_item("fact", {"s": "door", "r": "colour", "o": "blue"}, source="person")
        label = gs.add_item("fact", {"s": "door", "r": "label", "o": "front"}, source="outcome",
                            derived_from=[door.id])
        assert door.status == label.status == "active" and door.seq == start + 1
        retracted = gs.retract_item(door.id, why="repainted")
        assert {c.id: c.after for c in retracted.changes} == {door.id: "retracted", label.id: "retracted"}
        item = gs.item(label.id)
        assert item is not None and item.status == "retracted" and item.by.startswith("token-")
        assert gs.item("no-such-item") is None
        assert admin.verify().ok


def test_beliefs_and_statements(url: str) -> None:
    with Client(url, token="t-ann") as gs:
        made = gs.create_belief("the pump is on", subject="pump", evidence=[{"weight": 0.6, "actor": "ann"}])
        assert made.belief is not None and made.confidence is not None and 0 < made.confidence < 1
        more = gs.add_evidence(made.belief, 0.5, actor="bob")
        assert more.confidence is not None and more.confidence > made.confidence
        belief = gs.belief(made.belief)
        assert belief is not None and sorted(belief.families) == ["ann", "bob"]
        said = gs.say("the deploy failed", speaker="Carol", tick=1)
        assert [a["actor"] for a in said["assertions"]] == ["carol"]


def test_errors_carry_the_services_code_and_field(url: str) -> None:
    with Client(url, token="t-ann") as gs:
        with pytest.raises(ServiceError) as missing:
            gs.retract_item("no-such-item")
        assert missing.value.code == "NOT_FOUND" and missing.value.field == "id"
        with pytest.raises(ServiceError) as forbidden:
            gs.verify()
        assert forbidden.value.code == "FORBIDDEN"
    with Client(url, token="wrong") as stranger, pytest.raises(ServiceError) as refused:
        stranger.head()
    assert refused.value.code == "UNAUTHENTICATED"


def test_a_keyed_write_retried_writes_once(url: str) -> None:
    with Client(url, token="t-ann") as gs:
        first = gs.note("paid", idempotency_key="order-17")
        again = gs.note("paid", idempotency_key="order-17")
        assert again == first and gs.head().seq == first.seq


def test_the_async_client_and_the_journal_subscription(url: str) -> None:
    async def run() -> tuple[list[Entry], list[Entry]]:
        async with AsyncClient(url, token="t-ann") as gs:
            start = (await gs.head()).seq
            written = [await gs.note(f"async {i}") for i in range(3)]
            seen: list[Entry] = []
            async for entry in gs.journal_entries(after=start):
                seen.append(entry)
                if len(seen) == 3:
                    break
            return written, seen

    written, seen = asyncio.run(asyncio.wait_for(run(), timeout=120))
    assert seen == written and [e.op for e in seen] == ["note"] * 3


def test_the_readme_example_runs(url: str, tmp_path: Path) -> None:
    """The README's client example, as it is written there, against this service."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    example = readme.split("```python\n# the client\n", 1)[1].split("```", 1)[0]
    exec(compile(example.replace("http://127.0.0.1:8000/graphql", url).replace('"<token>"', '"t-ann"'),
                 "README.md", "exec"), {})
