"""The journal's hashing and verification, pure: no database."""

from __future__ import annotations

import hashlib
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from graph_service.journal.chain import GENESIS, Entry, canonical_json, entry_hash, seal, verify_chain


def chain(texts: list[str]) -> list[Entry]:
    entries, prev = [], GENESIS
    for i, text in enumerate(texts, start=1):
        entry = seal(prev, i, "note", "ann", 1_700_000_000_000 + i, {"text": text})
        entries.append(entry)
        prev = entry.hash
    return entries


def test_canonical_json_sorts_keys_without_spaces_in_utf8() -> None:
    assert canonical_json({"b": 1, "a": {"d": [1, 2], "c": "é"}}) == '{"a":{"c":"é","d":[1,2]},"b":1}'


def test_hash_is_sha256_of_prev_then_canonical_entry() -> None:
    body = {"seq": 1, "op": "note", "by": "ann", "at": 5, "payload": {"text": "hi"}}
    expected = hashlib.sha256(
        (GENESIS + '{"at":5,"by":"ann","op":"note","payload":{"text":"hi"},"seq":1}').encode()
    ).hexdigest()
    assert entry_hash(GENESIS, body) == expected


def test_a_whole_chain_verifies() -> None:
    report = verify_chain(chain(["a", "b", "c"]))
    assert report.ok and report.checked == 3 and report.first_bad is None


def test_an_edited_payload_is_named_by_position() -> None:
    entries = chain(["a", "b", "c", "d"])
    entries[2] = replace(entries[2], payload={"text": "tampered"})
    report = verify_chain(entries)
    assert not report.ok and report.first_bad == 3 and "hash" in (report.reason or "")


def test_a_gap_and_a_duplicate_are_found() -> None:
    entries = chain(["a", "b", "c"])
    gap = verify_chain([entries[0], entries[2]])
    assert (gap.ok, gap.first_bad) == (False, 2)
    duplicate = verify_chain([entries[0], entries[1], entries[1], entries[2]])
    assert (duplicate.ok, duplicate.first_bad) == (False, 3)


def test_a_relinked_entry_is_found() -> None:
    entries = chain(["a", "b", "c"])
    entries[1] = replace(entries[1], prev="f" * 64)
    assert verify_chain(entries).first_bad == 2


@given(st.lists(st.text(max_size=20), min_size=1, max_size=30), st.data())
def test_any_single_edit_is_detected_at_its_position(texts: list[str], data: st.DataObject) -> None:
    entries = chain(texts)
    assert verify_chain(entries).ok
    i = data.draw(st.integers(0, len(entries) - 1))
    edited = replace(entries[i], by=entries[i].by + "x")
    entries[i] = edited
    assert verify_chain(entries).first_bad == i + 1
