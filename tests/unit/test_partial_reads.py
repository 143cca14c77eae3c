"""Partial maps read a key they lack through their source, and every key only when iterated: a key a request
gives is read as a key, whatever its text (regression: the key that stands for every key was a string, and an
item id of that text read as a read of every item)."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.partial_reads import WHOLE, Fetched, NeedMore, PartialMap, Reader, read_ahead


def test_a_key_of_any_text_is_read_as_a_key_and_every_key_only_when_iterated() -> None:
    asked: list[Any] = []
    store = {"a": 1, "b": 2}

    def answer(part: str, key: Any) -> dict[str, dict[Any, Any]]:
        asked.append(key)
        if key is WHOLE:
            return {part: {WHOLE: None, **store}}
        return {part: {key: store.get(key)}}

    reader = Reader(answer, Fetched())
    items = PartialMap("items", reader)
    reader.register({"items": items})
    assert items.get(repr(WHOLE)) is None and items.get("a") == 1  # read as keys (nothing at the first)
    assert asked == ["<every key>", "a"]
    assert sorted(items) == ["a", "b"] and asked[-1] is WHOLE  # iterating reads every key, once
    assert items.get("b") == 2 and len(asked) == 3


def test_iterating_a_map_whose_source_does_not_give_every_key_says_so() -> None:
    items = PartialMap("items", Reader(lambda part, key: {}, Fetched()))
    with pytest.raises(NeedMore, match=r"items\[<every key>\] was not fetched"):
        list(items)


def test_a_read_ahead_reads_the_keys_not_known_in_one_round_and_a_key_left_out_when_asked() -> None:
    store = {"a": 1, "b": 2, "c": 3}
    asked: list[Any] = []

    def answer(part: str, key: Any) -> dict[str, dict[Any, Any]]:
        asked.append(key)
        return {part: {key: store.get(key)}}

    def answer_many(part: str, keys: list[Any]) -> dict[str, dict[Any, Any]]:
        asked.append(tuple(keys))
        return {part: {k: store.get(k) for k in keys if k != "c"}}  # a source may leave a key out

    reader = Reader(answer, Fetched(), answer_many)
    items = PartialMap("items", reader)
    reader.register({"items": items})
    assert items.get("a") == 1
    read_ahead(items, ["a", "b", "c", "b", "z"])  # "a" is known; the rest once each, in one round
    assert asked == ["a", ("b", "c", "z")] and reader.reads == 2
    assert items.get("b") == 2 and items.get("z") is None and asked[-1] == ("b", "c", "z")  # no more rounds
    assert items.get("c") == 3 and asked[-1] == "c"  # left out: read when asked
    read_ahead(items, ["d"])  # one key is read when it is asked for, in the same one round
    assert asked[-1] == "c"
    whole = {"a": 1}
    read_ahead(whole, ["a", "x"])  # a map that holds every key has nothing to do
    assert whole == {"a": 1}


def test_a_read_ahead_from_a_source_that_answers_one_key_at_a_time_reads_nothing_then() -> None:
    asked: list[Any] = []
    reader = Reader(lambda part, key: asked.append(key) or {part: {key: None}}, Fetched())
    items = PartialMap("items", reader)
    reader.register({"items": items})
    read_ahead(items, ["a", "b"])
    assert asked == [] and reader.reads == 0
    assert items.get("a") is None and asked == ["a"]
