"""Two service processes on one Neo4j store, written to concurrently over HTTP: one chain, no gap or
duplicate, each process reads the other's writes, and verify is ok (the design's scale-out, SPEC 1.2)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from tests.backends import Backend
from tests.integration.test_explorer import gql, serve

WRITES = 1_000
NOTE = 'mutation($t: String!) { note(text: $t) { seq } }'


@pytest.mark.neo4j
def test_two_service_processes_on_one_neo4j_store_make_one_chain(neo4j_backend: Backend, tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with serve(neo4j_backend, tmp_path / "one") as one, serve(neo4j_backend, tmp_path / "two") as two:
        acknowledged: dict[str, int] = {}
        errors: list[BaseException] = []

        def write(base: str, name: str) -> None:
            try:
                for i in range(WRITES):
                    text = f"{name}-{i}"
                    acknowledged[text] = gql(base, NOTE, {"t": text})["note"]["seq"]
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(base, name)) for base, name in ((one, "one"), (two, "two"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=900)
        assert errors == [], [str(e)[:300] for e in errors]
        assert sorted(acknowledged.values()) == list(range(1, 2 * WRITES + 1))  # no gap, no duplicate
        for base in (one, two):  # each process reads every write, its own and the other's
            assert gql(base, "{ head { seq projected } }")["head"] == {"seq": 2 * WRITES, "projected": 2 * WRITES}
            last = gql(base, 'query($a: String) { journal(first: 500, after: $a) { edges { node { seq payload } } } }',
                       {"a": None})["journal"]["edges"]
            assert [e["node"]["seq"] for e in last] == list(range(1, 501))
        stored: dict[str, int] = {}
        after = None
        while True:
            page = gql(one, "query($a: String) { journal(first: 500, after: $a) { edges { cursor node { seq payload } }"
                            " pageInfo { hasNextPage } } }", {"a": after})["journal"]
            for edge in page["edges"]:
                stored[json.loads(edge["node"]["payload"])["text"]] = edge["node"]["seq"]
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["edges"][-1]["cursor"]
        assert stored == acknowledged  # every acknowledged write is stored where it was acknowledged
        assert gql(two, "{ verify { ok checked projectionOk } }")["verify"] == {"ok": True, "checked": 2 * WRITES,
                                                                                "projectionOk": True}
