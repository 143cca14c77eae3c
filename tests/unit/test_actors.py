"""One spelling of an actor (graph_service.actors), and every place a name becomes an actor uses it."""

from __future__ import annotations

import pytest

from graph_service.actors import actor_key
from graph_service.beliefs.from_statements import actor_family
from graph_service.statements import interpret


@pytest.mark.parametrize(("name", "key"), [
    ("Ann", "ann"), ("ANN", "ann"), ("\uff21\uff4e\uff4e", "ann"), ("  Bob   Smith ", "bob-smith"), ("José", "josé"),
    ("Stra\u00dfe", "strasse"), ("O'Brien", "obrien"), ("O\u2019Brien", "obrien"), ("ann/Boss", "ann/boss"),
    ("sensor_7", "sensor-7"), ("!!!", ""), ("Ελένη", "ελένη"),
])
def test_actor_key(name: str, key: str) -> None:
    assert actor_key(name) == key
    assert actor_key(key) == key  # a key is its own key


def test_speakers_reported_speakers_and_families_agree() -> None:
    relayed = interpret("Ann said that the deploy failed", "Bob")
    own = interpret("the deploy failed", "ANN")
    boss = interpret("My Boss said the deploy failed", "Bob")
    assert [a.actor for a in relayed] == [a.actor for a in own] == ["ann"]
    assert [a.actor for a in boss] == ["bob/boss"]
    assert actor_family("Ann") == actor_family("ann") == "actor:ann"


def test_a_speaker_without_a_letter_or_digit_is_refused() -> None:
    from graph_service.errors import UserError

    with pytest.raises(UserError, match="speaker must name someone"):
        interpret("it rained", "!!!")
