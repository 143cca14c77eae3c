"""`beliefs(asOf: N)`, `beliefUpstream`/`beliefDependents(asOf: N)` and `fingerprint(asOf: N)` on every
backend (issue 11): answered from the graph's history, each equals the same read on the journal replayed
up to N, at random positions of a random history of the realistic mix, with the writes the mix lacks
beside it (evidence added and retracted, observations marked inaccurate, a belief rejected, evidence
resting on observations and on beliefs)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import Any

from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.beliefs.fingerprint import fingerprint_of
from graph_service.beliefs.state import BeliefState
from graph_service.beliefs.vocabulary import ROOT_LABELS
from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.fingerprint_as_of import fingerprints_kept
from graph_service.journal.notes import plan_note
from graph_service.service import Service
from graph_service.state import StoreState, replay
from graph_service.statements import OP_SAY, message_observation_id
from tests.backends import Backend
from tests.integration.graphql_client import gql

PAGE = """query($n: Long, $first: Int, $after: String, $order: BeliefOrder!, $filter: BeliefFilter) {
  beliefs(asOf: $n, first: $first, after: $after, orderBy: $order, filter: $filter) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { cursor node { id status confidence epistemicKind subject version } } } }"""

DETAIL = """query($n: Long, $filter: BeliefFilter) { beliefs(asOf: $n, first: 3, filter: $filter) {
  edges { node { id version evidence { id retracted } versions { version } families { id liveRows } } } } }"""

STEP = "id label depth via edge status summary confidence gone"
WALKS = f"""query($b: String!, $root: String!, $n: Long) {{
  up: beliefUpstream(id: $b, asOf: $n) {{ {STEP} }}
  down: beliefDependents(id: $root, asOf: $n) {{ {STEP} }} }}"""

FINGERPRINT = "query($n: Long) { fingerprint(asOf: $n) { store knowledge beliefs position } }"


def extra_writes(service: Service, rng: random.Random, observations: list[str]) -> Iterator[Callable[[], Draft]]:
    """Belief-layer writes the mix lacks, each planned against the state the writes before it made."""
    beliefs: BeliefState = service.state.beliefs

    def add_evidence() -> Draft:
        belief = rng.choice(sorted(beliefs.beliefs))
        row: dict[str, Any] = {"belief": belief, "weight": round(rng.uniform(0.2, 0.9), 3),
                               "family": f"family-{rng.randrange(12)}", "direction": rng.choice(("for", "against"))}
        live_obs = [o for o in observations if ("observation", o) not in beliefs.inaccurate_roots]
        others = [b for b in sorted(beliefs.beliefs) if b != belief and beliefs.beliefs[b].status != "rejected"]
        roll = rng.random()
        if roll < 0.4 and live_obs:
            row.update(root_kind="observation", root_ids=[rng.choice(live_obs[-10:])])
        elif roll < 0.7 and others:
            other = rng.choice(others)
            row.update(root_kind="belief", root_ids=[other], family=f"belief:{other}", derivation="inference")
        return beliefs.plan("evidence.add", row)

    def retract_evidence() -> Draft:
        live = sorted(r.id for r in beliefs.rows.values() if not r.retracted)
        return beliefs.plan("evidence.retract", {"evidence": rng.choice(live), "reason": "checked"})

    def inaccurate() -> Draft:
        fresh = [o for o in observations if ("observation", o) not in beliefs.inaccurate_roots]
        return beliefs.plan("belief.correct", {"kind": "inaccurate", "root_kind": "observation",
                                               "root_id": rng.choice(fresh), "reason": "misheard"})

    def wrong() -> Draft:
        return beliefs.plan("belief.correct", {"kind": "wrong", "belief": rng.choice(sorted(beliefs.beliefs)),
                                               "reason": "operator"})

    while True:
        roll = rng.random()
        if not beliefs.beliefs:
            yield lambda: beliefs.plan("belief.create", {"proposition": "the first claim",
                                                         "evidence": [{"weight": 0.5, "family": "seed"}]})
        elif roll < 0.55:
            yield add_evidence
        elif roll < 0.8:
            yield retract_evidence
        elif roll < 0.93 and observations:
            yield inaccurate
        else:
            yield wrong


def written_history(service: Service, n: int, seed: int) -> None:
    """The mix of n plans with a belief-layer write of our own after about every fourth, loaded in batches
    (one projection statement per batch, as a bulk load writes; each node's history is the same)."""
    from benchmarks.service_shape import mix

    rng = random.Random(seed)
    observations: list[str] = []  # the message observations statements wrote: evidence roots
    ours = extra_writes(service, rng, observations)

    def ours_or_note() -> Draft:
        try:
            return next(ours)()
        except (UserError, IndexError) as refused:  # refused (e.g. pinned already), or nothing to choose from
            return plan_note(f"refused: {refused}")

    def plans() -> Iterator[Callable[[], Draft]]:
        for plan in mix(service, n, seed):
            def theirs(plan: Callable[[], Draft] = plan) -> Draft:
                draft = plan()
                if draft.op == OP_SAY:  # planned for the next position (write_batch seals it there)
                    observations.append(message_observation_id(service.journal.seq + 1))
                return draft

            yield theirs
            if rng.random() < 0.25:
                yield ours_or_note

    service.journal.write_batch("loader", plans(), batch_size=500)


def expected_page_order(then: StoreState, descending: bool, where: Callable[[dict[str, Any]], bool]
                        ) -> list[dict[str, Any]]:
    """The replay's beliefs passing `where`, by confidence (units of 1e-9) either way, ties by id."""
    every = [b.node_props() for b in then.beliefs.beliefs.values()]
    sign = -1 if descending else 1
    return sorted((p for p in every if where(p)), key=lambda p: (sign * round(p["confidence"] * 1e9), p["id"]))


def read_pages(client: TestClient, position: int | None, order: str, filter: dict[str, Any] | None,
               first: int) -> tuple[list[dict[str, Any]], int]:
    """Every page of `beliefs` as of the position, following the cursors; (the nodes in order, totalCount)."""
    nodes: list[dict[str, Any]] = []
    after, total, pages = None, None, 0
    while True:
        got = gql(client, PAGE, {"n": position, "first": first, "after": after, "order": order, "filter": filter})
        assert "errors" not in got, got
        page = got["data"]["beliefs"]
        assert total is None or page["totalCount"] == total  # every page counts every match
        total = page["totalCount"]
        assert page["pageInfo"]["hasPreviousPage"] == (after is not None)
        nodes.extend(e["node"] for e in page["edges"])
        pages += 1
        if not page["pageInfo"]["hasNextPage"]:
            return nodes, total
        after = page["pageInfo"]["endCursor"]
        assert after == page["edges"][-1]["cursor"]


def same_belief(got: dict[str, Any], props: dict[str, Any]) -> bool:
    return (got["id"], got["status"], got["epistemicKind"], got["subject"], got["version"]) == \
        (props["id"], props["status"], props["epistemic_kind"], props["subject"], props["version"]) \
        and math.isclose(got["confidence"], props["confidence"], rel_tol=1e-12)


def alike(a: Any, b: Any) -> bool:
    """Equal, but for floats within 1e-12 of each other: FalkorDB answers a node's double property to 15
    significant digits, while a history keeps it as written (canonical JSON, every digit)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(alike(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(alike(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def reference_walk(then: StoreState, start: str, upstream: bool) -> dict[str, tuple[str, int]]:
    """{id: (label, depth)} of a belief walk over what the replay holds: upstream, a belief's live evidence,
    a row's roots (observations, items, beliefs) and items' premises; downstream, the live rows rooted in
    a node, the belief a row bears on and the items derived from an item."""
    beliefs, items = then.beliefs, then.knowledge.items
    live_by_belief: dict[str, list[str]] = {}
    live_by_root: dict[str, list[str]] = {}
    roots: dict[str, list[tuple[str, str]]] = {}
    for row in beliefs.rows.values():
        label = ROOT_LABELS.get(row.root_kind or "")
        roots[row.id] = [(r, label) for r in row.root_ids] if label else []
        if not row.retracted:
            live_by_belief.setdefault(row.belief, []).append(row.id)
            for r, _ in roots[row.id]:
                live_by_root.setdefault(r, []).append(row.id)
    premises = {i: [p for p in rec.premises(live_only=False) if p in items] for i, rec in items.items()}
    derived: dict[str, list[str]] = {}
    for i, ps in premises.items():
        for p in ps:
            derived.setdefault(p, []).append(i)

    def near(node: str) -> list[tuple[str, str]]:
        if upstream:
            return ([(e, "Evidence") for e in live_by_belief.get(node, [])] + roots.get(node, [])
                    + [(p, "Item") for p in premises.get(node, [])])
        bears = [(beliefs.rows[node].belief, "Belief")] if node in beliefs.rows else []
        return [(e, "Evidence") for e in live_by_root.get(node, [])] + bears + [(d, "Item") for d in
                                                                                 derived.get(node, [])]

    found: dict[str, tuple[str, int]] = {}
    seen, frontier, depth = {start}, [start], 0
    while frontier:
        depth += 1
        following = []
        for node in frontier:
            for other, label in near(node):
                if other not in seen:
                    seen.add(other)
                    following.append(other)
                    found[other] = (label, depth)
        frontier = following
    return found


def check_step(then: StoreState, step: dict[str, Any]) -> None:
    """A walk step describes its node as the replay holds it at that position."""
    beliefs, node = then.beliefs, step["id"]
    if step["label"] == "Belief":
        b = beliefs.beliefs[node]
        assert (step["status"], step["summary"]) == (b.status, b.proposition), step
        assert math.isclose(step["confidence"], b.confidence, rel_tol=1e-12), step
    elif step["label"] == "Evidence":
        row = beliefs.rows[node]
        assert (step["status"], step["summary"], step["gone"]) == (row.direction, row.family, row.retracted), step
    elif step["label"] == "Item":
        assert step["status"] == then.knowledge.items[node].status, step
    else:
        assert step["gone"] == (("observation", node) in beliefs.inaccurate_roots), step


def test_beliefs_walks_and_fingerprint_as_of_any_position_are_the_replay_s(backend: Backend) -> None:
    service = Service.open(backend.whole_state_settings())
    try:
        written_history(service, 170, 11)
        entries = list(service.journal.entries_after(0))
        head = service.journal.seq
        client = TestClient(create_app(service.settings, service=service))
        rng = random.Random(20261203)
        paged = walked = retracted_since = 0
        statuses: set[str] = set()
        for position in [*sorted(rng.sample(range(20, head), 4)), head]:
            then = replay(entries, upto=position)
            # The fingerprint of what was believed then.
            got = gql(client, FINGERPRINT, {"n": position})
            assert "errors" not in got, got
            assert got["data"]["fingerprint"] == then.fingerprints(), position
            # The running sums the graph keeps give it too, and the beliefs' sum is every belief's rows.
            assert fingerprints_kept(service.graph, position) == then.fingerprints(), position
            assert then.beliefs_fingerprint() == fingerprint_of(then.beliefs.fingerprint_rows()), position

            # Pages by confidence, either way, with and without filters, following the cursors.
            props = [b.node_props() for b in then.beliefs.beliefs.values()]
            some = rng.choice([p for p in props if p["subject"] is not None])
            filters: list[tuple[dict[str, Any] | None, Callable[[dict[str, Any]], bool]]] = [
                (None, lambda p: True),
                ({"status": some["status"]}, lambda p, s=some["status"]: p["status"] == s),
                ({"subject": some["subject"], "kind": some["epistemic_kind"]},
                 lambda p, s=some: (p["subject"], p["epistemic_kind"]) == (s["subject"], s["epistemic_kind"])),
            ]
            for filter, where in filters:
                for order, descending in (("CONFIDENCE_DESC", True), ("CONFIDENCE_ASC", False)):
                    nodes, total = read_pages(client, position, order, filter, 7)
                    expected = expected_page_order(then, descending, where)
                    assert total == len(expected) == len(nodes), (position, filter, order)
                    assert all(same_belief(g, e) for g, e in zip(nodes, expected, strict=True)), \
                        (position, filter, order)
                    paged += len(nodes)
            statuses |= {p["status"] for p in props}
            # A page's beliefs answer their evidence, versions and families as of the position too.
            detail = gql(client, DETAIL, {"n": position, "filter": None})
            assert "errors" not in detail, detail
            for edge in detail["data"]["beliefs"]["edges"]:
                b = edge["node"]
                rows = sorted((r for r in then.beliefs.rows.values() if r.belief == b["id"]), key=lambda r: r.id)
                assert sorted((e["id"], e["retracted"]) for e in b["evidence"]) == [(r.id, r.retracted) for r in rows]
                assert [v["version"] for v in b["versions"]] == list(range(1, b["version"] + 1))
                assert sum(f["liveRows"] for f in b["families"]) == sum(not r.retracted for r in rows)

            # Walks from random beliefs and roots, against a walk over the replay.
            rooted = sorted({r for row in then.beliefs.rows.values() if ROOT_LABELS.get(row.root_kind or "")
                             for r in row.root_ids})
            for start in rng.sample(sorted(then.beliefs.beliefs), min(6, len(then.beliefs.beliefs))):
                root = rng.choice([*rooted, start])
                got = gql(client, WALKS, {"b": start, "root": root, "n": position})
                assert "errors" not in got, (position, start, root, got)
                up, down = got["data"]["up"], got["data"]["down"]
                assert {s["id"]: (s["label"], s["depth"]) for s in up} == reference_walk(then, start, True), \
                    (position, start)
                assert {s["id"]: (s["label"], s["depth"]) for s in down} == reference_walk(then, root, False), \
                    (position, root)
                for step in up + down:
                    check_step(then, step)
                    # Walked through as live then, retracted by now: the head's liveness would not do.
                    retracted_since += step["label"] == "Evidence" and service.state.beliefs.rows[step["id"]].retracted
                walked += len(up) + len(down)
        assert paged > 200 and walked > 100 and retracted_since > 0 and len(statuses) >= 3, \
            (paged, walked, retracted_since, statuses)

        # At the head, each read as of the head is the head read, to the letter (order, via, edge, cursors).
        for order in ("CONFIDENCE_DESC", "CONFIDENCE_ASC"):
            assert alike(read_pages(client, head, order, None, 9), read_pages(client, None, order, None, 9))
        now = gql(client, FINGERPRINT, {"n": None})["data"]["fingerprint"]
        assert gql(client, FINGERPRINT, {"n": head})["data"]["fingerprint"] == now
        for start in sorted(then.beliefs.beliefs)[:5]:
            variables = {"b": start, "root": start}
            assert alike(gql(client, WALKS, {**variables, "n": head}), gql(client, WALKS, {**variables, "n": None}))

        # Position 0: nothing was believed; past the head: refused, naming asOf.
        empty = gql(client, PAGE, {"n": 0, "first": 5, "after": None, "order": "CONFIDENCE_DESC", "filter": None})
        assert empty["data"]["beliefs"]["totalCount"] == 0 and empty["data"]["beliefs"]["edges"] == []
        assert gql(client, FINGERPRINT, {"n": 0})["data"]["fingerprint"] == replay(entries, upto=0).fingerprints()
        first = sorted(then.beliefs.beliefs)[0]
        created = then.beliefs.beliefs[first].created_seq
        before = gql(client, WALKS, {"b": first, "root": first, "n": created - 1})
        assert before["data"] is None or before["data"].get("up") is None
        assert "at position" in before["errors"][0]["message"] and before["errors"][0]["extensions"]["field"] == "id"
        for query, variables in ((PAGE, {"n": head + 1, "first": 5, "after": None, "order": "CONFIDENCE_DESC",
                                         "filter": None}),
                                 (WALKS, {"b": first, "root": first, "n": head + 1}),
                                 (FINGERPRINT, {"n": head + 1})):
            refused = gql(client, query, variables)
            assert refused["errors"], refused
            for error in refused["errors"]:
                assert "is not in the journal" in error["message"], error
                assert error["extensions"]["field"] == "asOf", error
    finally:
        service.close()
