"""Partial maps read a key they lack through their source, and every key only when iterated: a key a request
gives is read as a key, whatever its text (regression: the key that stands for every key was a string, and an
item id of that text read as a read of every item)."""

from __future__ import annotations

from typing import Any

import pytest

from graph_service.partial_reads import WHOLE, Fetched, NeedMore, PartialMap, Reader


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
