"""The journal's hashing and verification, pure: no database."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

from graph_service.journal.audit import JournalAudit
from graph_service.journal.chain import GENESIS, Entry, canonical_json, entry_hash, legacy_entry_hash, seal
from graph_service.journal.frontier import Frontier
from graph_service.tlog.verifier import canonical_bytes


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


def rows(entries: list[Entry]) -> list[dict]:
    """The entries as the store returns them, with their Merkle hashes and PREV links."""
    frontier, out = Frontier(), []
    for e in entries:
        tree = frontier.tree_for(e.seq, canonical_bytes(e.body()))
        frontier.advance(e.seq, tree)
        out.append({"seq": e.seq, "op": e.op, "by": e.by, "at": e.at, "payload": json.dumps(e.payload),
                    "prev": e.prev, "hash": e.hash, "tree": [h.hex() for h in tree],
                    "prev_links": [] if e.seq == 1 else [e.seq - 1]})
    return out


def audit(stored: list[dict]) -> JournalAudit:
    checker = JournalAudit()
    for row in stored:
        checker.feed(row)
    return checker


def test_a_whole_chain_verifies() -> None:
    checker = audit(rows(chain(["a", "b", "c"])))
    assert checker.finding is None and checker.checked == 3


def test_an_edited_payload_is_named_by_position() -> None:
    stored = rows(chain(["a", "b", "c", "d"]))
    stored[2]["payload"] = '{"text": "tampered"}'
    finding = audit(stored).finding
    assert finding is not None and finding.position == 3 and "hash" in finding.reason


def test_a_gap_and_a_duplicate_are_found() -> None:
    stored = rows(chain(["a", "b", "c"]))
    gap = audit([stored[0], stored[2]]).finding
    assert gap is not None and gap.position == 2 and "missing" in gap.reason
    duplicate = audit([stored[0], stored[1], stored[1], stored[2]]).finding
    assert duplicate is not None and duplicate.position == 2 and "twice" in duplicate.reason


def test_a_relinked_entry_is_found() -> None:
    stored = rows(chain(["a", "b", "c"]))
    stored[1]["prev"] = "f" * 64
    finding = audit(stored).finding
    assert finding is not None and finding.position == 2


def test_entries_hash_as_rfc_8785_not_as_python_json() -> None:
    # RFC 8785 writes 1.0 as 1 and orders keys by UTF-16 code units; Python's JSON does neither.
    body = {"seq": 1, "op": "note", "by": "ann", "at": 5, "payload": {"x": 1.0, "\U0001f600": 1, "\uffff": 2}}
    jcs = '{"at":5,"by":"ann","op":"note","payload":{"x":1,"\U0001f600":1,"\uffff":2},"seq":1}'
    assert entry_hash(GENESIS, body) == hashlib.sha256((GENESIS + jcs).encode()).hexdigest()
    assert legacy_entry_hash(GENESIS, body) != entry_hash(GENESIS, body)


@given(st.lists(st.text(max_size=20), min_size=1, max_size=30), st.data())
def test_any_single_edit_is_detected_at_its_position(texts: list[str], data: st.DataObject) -> None:
    stored = rows(chain(texts))
    assert audit(stored).finding is None
    i = data.draw(st.integers(0, len(stored) - 1))
    field = data.draw(st.sampled_from(["by", "op", "payload", "hash", "prev", "tree"]))
    stored[i][field] = {"by": "x", "op": "y", "payload": '{"t": 0}', "hash": "1" * 64, "prev": "2" * 64,
                        "tree": ["3" * 64]}[field]
    finding = audit(stored).finding
    assert finding is not None and finding.position == i + 1, (field, finding)


def ticked_chain(steps: list[int | None]) -> list[Entry]:
    """Notes (None) and ticks of k clock units, chained."""
    entries, prev = [], GENESIS
    for i, k in enumerate(steps, start=1):
        op, payload = ("note", {"text": str(i)}) if k is None else ("clock.tick", {"k": k})
        entry = seal(prev, i, op, "ann", 1_700_000_000_000 + i, payload)
        entries.append(entry)
        prev = entry.hash
    return entries


def test_the_store_clock_stored_with_each_entry_is_checked() -> None:
    stored = rows(ticked_chain([None, 3, None, 4, None]))
    for row, clock in zip(stored, [0, 3, 3, 7, 7], strict=True):
        row["clock"] = clock
    checker = audit(stored)
    assert checker.finding is None and checker.clock == 7
    stored[2]["clock"] = 4  # outside the hash, so only the audit's own sum of the ticks can catch it
    finding = audit(stored).finding
    assert finding is not None and finding.position == 3 and "store clock" in finding.reason


def test_entries_stored_before_the_clock_was_kept_have_none_and_pass() -> None:
    stored = rows(ticked_chain([2, None, 5]))
    stored[2]["clock"] = 7  # a later entry keeps it; the earlier ones, from an older version, do not
    checker = audit(stored)
    assert checker.finding is None and checker.clock == 7


def test_a_tick_that_is_no_whole_number_is_a_finding_not_an_exception() -> None:
    first = ticked_chain([None])[0]
    stored = rows([first, seal(first.hash, 2, "clock.tick", "ann", 1, {"k": "x"})])
    finding = audit(stored).finding
    assert finding is not None and finding.position == 2 and "whole number" in finding.reason
