"""The worked example of SPEC 3.6: five boundary rows weighing 3, 3, 8, 3, 9 and their recall.

Expected scores are worked by hand from score = 0.5^(age/50) + weight/10 at tick 470:
  age 10: 0.5^0.2  = 0.870551 ; age 48: 0.5^0.96 = 0.514050 ; age 50: 0.5^1 = 0.5
"""

from __future__ import annotations

from graph_service.stream import OP_DECLARE, OP_PRESENCE, StreamState, replay

from .helpers import Harness


def _seed_stream(with_body_nine: bool = True) -> Harness:
    h = Harness()
    h.write(OP_DECLARE, observer="browser-300", wordless=True)
    h.write(OP_PRESENCE, observer="browser-300", tick=420, in_view=[4, 7])
    # The second boundary sees the same two bodies: nothing comes into view, nothing is written.
    h.write(OP_PRESENCE, observer="browser-300", tick=421, in_view=[7, 4])
    h.write(
        OP_PRESENCE,
        observer="browser-300",
        tick=422,
        in_view=[4, 7],
        transfers=[{"kind": "given", "subject": 4, "magnitude": 32}],
    )
    view = [4, 7, 9] if with_body_nine else [4, 7]
    h.write(
        OP_PRESENCE,
        observer="browser-300",
        tick=460,
        in_view=view,
        transfers=[{"kind": "taken", "subject": 7, "magnitude": 6}],
    )
    return h


def test_boundary_writes_give_the_seed_rows_and_weights() -> None:
    h = _seed_stream()
    rows = h.state.observations("browser-300")
    assert [(r.tick, r.kind, r.subject, r.magnitude, r.weight) for r in rows] == [
        (420, "seen", "4", 0, 3),
        (420, "seen", "7", 0, 3),
        (422, "given", "4", 32, 8),  # 5 + 1 (first given by 4) + 2 (over 30)
        (460, "seen", "9", 0, 3),
        (460, "taken", "7", 6, 9),  # 7 + 1 (first taken) + 1 (over 5)
    ]
    assert all(r.first for r in rows)
    assert len({r.id for r in rows}) == 5


def test_second_boundary_with_the_same_bodies_writes_nothing() -> None:
    h = Harness()
    h.write(OP_DECLARE, observer="o", wordless=True)
    h.write(OP_PRESENCE, observer="o", tick=420, in_view=[4, 7])
    applied = h.write(OP_PRESENCE, observer="o", tick=421, in_view=[4, 7])
    assert applied.result["rows"] == []
    # No row and no edge: only the observer's Actor node takes the boundary (its view and tick, which the next
    # boundary is checked against, as the graph holds them for a service that holds no stream state).
    assert applied.projection.edges == []
    assert [(n.label, n.id, n.props) for n in applied.projection.nodes] == [
        ("Actor", "o", {"view": ["4", "7"], "boundary_tick": 421, "name": "o"})]
    assert len(h.state.observations("o")) == 2


def test_recall_at_tick_470_ranks_the_five_rows() -> None:
    h = _seed_stream()
    ranked = h.state.recall("browser-300", now=470, k=5, half_life=50, w_recency=1, w_importance=1)
    table = [
        (
            r.observation.kind,
            r.observation.subject,
            r.age,
            round(r.recency, 4),
            r.importance,
            round(r.score, 4),
        )
        for r in ranked
    ]
    assert table == [
        ("taken", "7", 10, 0.8706, 0.9, 1.7706),
        ("given", "4", 48, 0.5141, 0.8, 1.3141),
        ("seen", "9", 10, 0.8706, 0.3, 1.1706),
        ("seen", "4", 50, 0.5, 0.3, 0.8),
        ("seen", "7", 50, 0.5, 0.3, 0.8),
    ]
    # The two 0.8 rows tie exactly; the one written first comes first.
    assert ranked[3].score == ranked[4].score
    assert ranked[3].observation.order < ranked[4].observation.order
    assert [r.rank for r in ranked] == [1, 2, 3, 4, 5]


def test_recall_without_body_nine_gives_the_seed_four_row_table() -> None:
    h = _seed_stream(with_body_nine=False)
    ranked = h.state.recall("browser-300", now=470)
    assert [(r.observation.subject, r.observation.kind, r.age, round(r.score, 4)) for r in ranked] == [
        ("7", "taken", 10, 1.7706),
        ("4", "given", 48, 1.3141),
        ("4", "seen", 50, 0.8),
        ("7", "seen", 50, 0.8),
    ]
    assert [r.observation.id for r in ranked] == ["obs-5-0", "obs-4-0", "obs-2-0", "obs-2-1"]


def test_recall_row_shows_every_term() -> None:
    h = _seed_stream()
    top = h.state.recall("browser-300", now=470, k=1)[0].as_dict()
    assert {"age", "recency", "importance", "score", "id", "kind", "subject", "weight", "rank"} <= set(top)
    assert top["weight"] == 9 and top["age"] == 10


def test_replay_of_the_journal_gives_the_same_state_and_projections() -> None:
    h = _seed_stream()
    again = replay(StreamState(), h.entries)
    assert again.observations() == h.state.observations()
    assert again.in_view("browser-300") == frozenset({"4", "7", "9"})
    first = [StreamState().apply(h.entries[0]).projection]
    assert first[0].nodes[0].props == {"wordless": True, "observer": True, "declared": True,
                                       "name": "browser-300"}  # name: its caption


def test_a_subject_that_leaves_and_returns_comes_into_view_again() -> None:
    h = Harness()
    h.write(OP_DECLARE, observer="o")
    h.write(OP_PRESENCE, observer="o", tick=1, in_view=[4, 7])
    assert h.write(OP_PRESENCE, observer="o", tick=2, in_view=[4]).result["rows"] == []
    back = h.write(OP_PRESENCE, observer="o", tick=3, in_view=[4, 7]).result["rows"]
    assert [(r["subject"], r["weight"], r["first"]) for r in back] == [("7", 2, False)]


def test_projection_of_a_boundary() -> None:
    h = Harness()
    h.write(OP_DECLARE, observer="o")
    applied = h.write(
        OP_PRESENCE,
        observer="o",
        tick=5,
        in_view=[4],
        transfers=[{"kind": "given", "subject": 4, "magnitude": 3}],
    )
    labels = [(n.label, n.id) for n in applied.projection.nodes]
    assert labels == [("Actor", "o"), ("Observation", "obs-2-0"), ("Observation", "obs-2-1")]
    assert applied.projection.nodes[0].props == {"view": ["4"], "boundary_tick": 5, "name": "o"}
    props = applied.projection.nodes[2].props
    assert props == {
        "observer": "o",
        "tick": 5,
        "kind": "given",
        "subject": "4",
        "magnitude": 3,
        "weight": 6,
        "first": True,
        "entry": 2,
        "first_of": '["o","given","4"]',  # its observer's first row of the pair: the key a write finds it by
        "name": "given 4",  # Neo4j Browser's caption
    }
    assert [(e.rel, e.src, e.dst) for e in applied.projection.edges] == [
        ("OBSERVED_BY", "obs-2-0", "o"),
        ("OBSERVED_BY", "obs-2-1", "o"),
    ]
    applied.projection.as_params()  # every label and edge is in the allow-list
