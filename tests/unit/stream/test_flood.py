"""The every-tick counterfactual: writing a presence row at every boundary floods recall.

Half-life 50, weights 1 and 1, k 5, now 119. Rows: bodies 5, 6, 8 come into view at tick 90,
body 7 gives 10 at tick 95 (5 + 1 first + 1 band = 7), body 4 stays in view from tick 100 to 119.
Hand-worked scores: seen@90 (age 29) 0.5^0.58 + 0.3 = 0.9690; given@95 (age 24) 0.5^0.48 + 0.7 =
1.4170; seen 4 @100 (age 19) 0.5^0.38 + 0.3 = 1.0684; flood rows @119..116 (weight 2)
1.2, 1.1862, 1.1727, 1.1593.
"""

from __future__ import annotations

from graph_service.stream import OP_DECLARE, OP_PRESENCE, StreamState

from .helpers import Harness


def _run(every_tick: bool) -> Harness:
    h = Harness(StreamState(every_tick=every_tick))
    h.write(OP_DECLARE, observer="o", wordless=True)
    h.write(OP_PRESENCE, observer="o", tick=90, in_view=[5, 6, 8])
    h.write(
        OP_PRESENCE,
        observer="o",
        tick=95,
        in_view=[5, 6, 8],
        transfers=[{"kind": "given", "subject": 7, "magnitude": 10}],
    )
    for tick in range(100, 120):
        h.write(OP_PRESENCE, observer="o", tick=tick, in_view=[4])
    return h


def test_coming_into_view_keeps_recall_varied() -> None:
    h = _run(every_tick=False)
    stretch = [r for r in h.state.observations("o") if r.tick >= 100]
    assert len(stretch) == 1
    ranked = h.state.recall("o", now=119, k=5, half_life=50)
    assert [(r.observation.subject, round(r.score, 4)) for r in ranked] == [
        ("7", 1.417),
        ("4", 1.0684),
        ("5", 0.969),
        ("6", 0.969),
        ("8", 0.969),
    ]


def test_every_tick_writes_twenty_rows_and_crowds_out_the_top_k() -> None:
    h = _run(every_tick=True)
    stretch = [r for r in h.state.observations("o") if r.tick >= 100]
    assert len(stretch) == 20
    assert [r.weight for r in stretch] == [3] + [2] * 19  # only the first sighting earns the bonus
    ranked = h.state.recall("o", now=119, k=5, half_life=50)
    assert [(r.observation.subject, round(r.score, 4)) for r in ranked] == [
        ("7", 1.417),
        ("4", 1.2),
        ("4", 1.1862),
        ("4", 1.1727),
        ("4", 1.1593),
    ]
    assert not {"5", "6", "8"} & {r.observation.subject for r in ranked}
