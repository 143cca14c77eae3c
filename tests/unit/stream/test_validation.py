"""Bad rows and bad requests are refused with the field named, and nothing changes."""

from __future__ import annotations

import pytest

from graph_service.errors import Conflict, NotFound, UserError
from graph_service.stream import (
    OP_DECLARE,
    OP_OBSERVE,
    OP_PRESENCE,
    KindRule,
    Observation,
    StreamState,
    WeightTable,
    recall,
)

from .helpers import Harness


@pytest.fixture
def h() -> Harness:
    h = Harness()
    h.write(OP_DECLARE, observer="o")
    h.write(OP_PRESENCE, observer="o", tick=10, in_view=[1])
    return h


BAD_OBSERVES = [
    ({"kind": "smelled"}, "kind"),
    ({"kind": "seen", "magnitude": 3}, "magnitude"),
    ({"kind": "given", "magnitude": 0}, "magnitude"),
    ({"kind": "taken", "magnitude": -2}, "magnitude"),
    ({"kind": "given", "magnitude": 2.5}, "magnitude"),
    ({"tick": -1}, "tick"),
    ({"tick": True}, "tick"),
    ({"weight": 11}, "weight"),
    ({"weight": 0}, "weight"),
    ({"subject": ""}, "subject"),
    ({"subject": -4}, "subject"),
    ({"observer": ""}, "observer"),
]


@pytest.mark.parametrize(("change", "field"), BAD_OBSERVES)
def test_bad_observe_is_refused_naming_the_field(h: Harness, change: dict, field: str) -> None:
    before = (h.state.observations(), h.state.in_view("o"))
    payload = {"observer": "o", "tick": 12, "kind": "given", "subject": 2, "magnitude": 4, **change}
    with pytest.raises(UserError) as err:
        h.write(OP_OBSERVE, **payload)
    assert err.value.field == field
    assert field in str(err.value) or field == "observer"
    assert (h.state.observations(), h.state.in_view("o")) == before


BAD_PRESENCES = [
    ({"tick": 9}, "tick"),  # before the last boundary
    ({"in_view": "1,2"}, "in_view"),
    ({"in_view": [1, 0]}, "in_view[1]"),
    ({"transfers": [{"kind": "seen", "subject": 1, "magnitude": 0}]}, "transfers[0].kind"),
    ({"transfers": [{"kind": "given", "subject": 1, "magnitude": 0}]}, "transfers[0].magnitude"),
    ({"transfers": [{"kind": "given", "subject": 1, "magnitude": 2}, "x"]}, "transfers[1]"),
    ({"observer": "nobody"}, "observer"),
]


@pytest.mark.parametrize(("change", "field"), BAD_PRESENCES)
def test_bad_presence_is_refused_naming_the_field(h: Harness, change: dict, field: str) -> None:
    before = (h.state.observations(), h.state.in_view("o"), len(h.entries))
    with pytest.raises(UserError) as err:
        h.write(OP_PRESENCE, **{"observer": "o", "tick": 11, "in_view": [1, 2], **change})
    assert err.value.field == field
    assert (h.state.observations(), h.state.in_view("o"), len(h.entries)) == before


def test_unknown_observer_is_refused_unless_declaration_is_optional() -> None:
    with pytest.raises(NotFound) as err:
        StreamState().plan_observe("ghost", 1, "seen", 3)
    assert err.value.field == "observer"
    loose = Harness(StreamState(require_declared=False))
    applied = loose.write(OP_OBSERVE, observer="ghost", tick=1, kind="seen", subject=3)
    assert (applied.projection.nodes[0].label, applied.projection.nodes[0].id) == ("Actor", "ghost")
    assert loose.state.observer("ghost").declared is False
    loose.write(OP_DECLARE, observer="ghost", wordless=True)  # may still be declared once
    assert loose.state.is_wordless("ghost")


def test_declaring_twice_is_a_conflict(h: Harness) -> None:
    with pytest.raises(Conflict):
        h.write(OP_DECLARE, observer="o", wordless=True)
    with pytest.raises(UserError) as err:
        h.write(OP_DECLARE, observer="p", wordless="yes")
    assert err.value.field == "wordless"


def test_a_wordless_observer_refuses_words() -> None:
    h = Harness()
    h.write(OP_DECLARE, observer="browser-00", wordless=True)
    h.write(OP_DECLARE, observer="villager")
    with pytest.raises(UserError) as err:
        h.state.require_can_speak("browser-00")
    assert err.value.field == "observer" and "wordless" in str(err.value)
    h.state.require_can_speak("villager")
    h.state.require_can_speak("undeclared-person")


def test_explicit_weight_and_unknown_op(h: Harness) -> None:
    applied = h.write(OP_OBSERVE, observer="o", tick=12, kind="given", subject=2, magnitude=4, weight=10)
    assert applied.result["rows"][0]["weight"] == 10
    with pytest.raises(UserError) as err:
        h.state.plan("stream.forget", {})
    assert err.value.field == "op"


def test_recall_refuses_a_row_from_the_future_and_bad_parameters(h: Harness) -> None:
    with pytest.raises(UserError) as err:
        h.state.recall("o", now=9)
    assert err.value.field == "now" and "after tick 9" in str(err.value)
    for params, field in [
        ({"half_life": 0}, "half_life"),
        ({"k": -1}, "k"),
        ({"w_recency": -1}, "w_recency"),
        ({"w_importance": float("nan")}, "w_importance"),
        ({"now": -3}, "now"),
    ]:
        with pytest.raises(UserError) as err:
            h.state.recall("o", **{"now": 20, **params})
        assert err.value.field == field
    with pytest.raises(NotFound):
        h.state.recall("ghost", now=20)
    assert h.state.recall("o", now=20, k=0) == ()


def test_recall_refuses_a_hand_made_bad_row() -> None:
    bad = Observation(id="x", observer="o", tick=1, kind="seen", subject="1", magnitude=0, weight=12, seq=1)
    with pytest.raises(UserError) as err:
        recall([bad], now=5)
    assert err.value.field == "weight"


def test_weight_table_is_configurable_and_clamped() -> None:
    table = WeightTable(
        kinds={"seen": KindRule(1, "zero"), "fed": KindRule(9, "positive")},
        first_bonus=2,
        bands=((10, 1), (100, 3)),
    )
    assert table.weigh("fed", 500, first=True).weight == 10  # 9 + 2 + 3, clamped
    assert table.weigh("fed", 10, first=False).weight == 9  # 10 is not over 10
    assert table.weigh("seen", 0, first=False).weight == 1
    harsh = WeightTable(kinds={"seen": KindRule(-5, "zero")})
    assert harsh.weigh("seen", 0, first=True).weight == 1
    h = Harness(StreamState(table))
    h.write(OP_DECLARE, observer="o")
    with pytest.raises(UserError) as err:
        h.write(OP_OBSERVE, observer="o", tick=1, kind="given", subject=1, magnitude=1)
    assert err.value.field == "kind" and "fed" in str(err.value)
    with pytest.raises(ValueError):
        WeightTable(kinds={"given": KindRule(5, "positive")})  # no presence kind


def test_default_bands_are_not_cumulative() -> None:
    table = WeightTable()
    assert [table.band_bonus(m) for m in (0, 5, 6, 30, 31)] == [0, 0, 1, 1, 2]
