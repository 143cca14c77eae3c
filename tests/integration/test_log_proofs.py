"""The tamper-evident log over GraphQL and the command line, on each backend: every proof the service
gives is checked by the standalone verifier; a kept checkpoint finds a rollback and a rewrite; a
broken chain stops writes; a format-1 store is refused and migrated by export and load."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.journal.chain import GENESIS, Entry, legacy_entry_hash
from graph_service.tlog.verifier import (
    CheckpointError,
    ProofError,
    open_checkpoint,
    verify_consistency,
    verify_inclusion,
)
from tests.backends import Backend
from tests.integration.graphql_client import data, gql

ROOT = Path(__file__).resolve().parents[2]
NOTE = 'mutation($t: String!) { note(text: $t) { seq hash } }'


def unb64(text: str) -> bytes:
    return base64.b64decode(text)



def test_every_proof_verifies_against_the_signed_checkpoint(backend: Backend) -> None:
    import pytest

    with TestClient(create_app(backend.settings())) as client:
        for i in range(11):
            data(client, NOTE, {"t": f"n{i}"})
        cp = data(client, "{ checkpoint { size root note verifierKey origin } }")["checkpoint"]
        opened = open_checkpoint(cp["note"], cp["verifierKey"])
        assert (opened.size, opened.root, opened.origin) == (11, unb64(cp["root"]), cp["origin"])
        for seq in range(1, 12):
            for size in (seq, 11):
                proof = data(client, "query($s: Int!, $n: Int) { inclusionProof(seq: $s, size: $n) "
                                     "{ leafHash hashes root treeSize } }", {"s": seq, "n": size})["inclusionProof"]
                verify_inclusion(unb64(proof["leafHash"]), seq - 1, size, [unb64(h) for h in proof["hashes"]],
                                 unb64(proof["root"]))
        with pytest.raises(ProofError):  # the proof of entry 3 does not prove entry 4
            p3 = data(client, "{ inclusionProof(seq: 3) { hashes root } }")["inclusionProof"]
            p4 = data(client, "{ inclusionProof(seq: 4) { leafHash } }")["inclusionProof"]
            verify_inclusion(unb64(p4["leafHash"]), 2, 11, [unb64(h) for h in p3["hashes"]], unb64(p3["root"]))
        for first in range(1, 12):
            proof = data(client, "query($m: Int!) { consistencyProof(from: $m) { hashes fromRoot toRoot toSize } }",
                         {"m": first})["consistencyProof"]
            assert unb64(proof["toRoot"]) == opened.root and proof["toSize"] == 11
            verify_consistency(first, 11, [unb64(h) for h in proof["hashes"]], unb64(proof["fromRoot"]),
                               opened.root)
        bad = gql(client, "{ inclusionProof(seq: 5, size: 12) { root } }")["errors"][0]
        assert bad["extensions"]["field"] == "size" and "1..11" in bad["message"]
        bad = gql(client, "{ consistencyProof(from: 0) { toRoot } }")["errors"][0]
        assert bad["extensions"]["field"] == "from"
        with pytest.raises(CheckpointError):  # the note does not open with another key
            from graph_service.tlog.checkpoint import Signer

            open_checkpoint(cp["note"], Signer.generate("graph_service").verifier_key())


def cli(store: Backend, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    return subprocess.run([sys.executable, "-m", "graph_service", *args], cwd=ROOT, env={**env, **store.env()},
                          capture_output=True, text=True, timeout=180)


def test_a_kept_checkpoint_finds_a_rewrite_and_a_rollback(backend: Backend, tmp_path: Path) -> None:
    with TestClient(create_app(backend.settings())) as client:
        for i in range(6):
            data(client, NOTE, {"t": f"n{i}"})
        served = data(client, "{ checkpoint { size root verifierKey } }")["checkpoint"]
    kept = tmp_path / "checkpoint.txt"
    made = cli(backend, "checkpoint")  # from a check of the chain, not a replay: the same tree head
    assert made.returncode == 0, made.stderr
    opened = open_checkpoint(made.stdout, served["verifierKey"])
    assert (opened.size, opened.root) == (served["size"], unb64(served["root"])) and opened.size == 6
    kept.write_text(made.stdout)
    fine = cli(backend, "verify", "--against", str(kept))
    assert fine.returncode == 0 and json.loads(fine.stdout)["against_checkpoint"]["ok"] is True, fine.stdout
    graph = backend.open_graph()
    try:  # an older copy restored: entries 5 and 6 gone, the head at 4, all consistent inside the store
        backend.raw(graph, "MATCH (e:Entry) WHERE e.seq > 4 DETACH DELETE e")
        backend.raw(graph, "MATCH (h:Head), (e:Entry {seq: 4}) SET h.seq = 4, h.hash = e.hash, h.projected = 4")
    finally:
        graph.close()
    inside = cli(backend, "verify")
    assert inside.returncode == 0, inside.stdout  # no check inside the database can see it ...
    rolled = cli(backend, "verify", "--against", str(kept))
    verdict = json.loads(rolled.stdout)
    assert rolled.returncode == 1 and verdict["ok"] is False  # ... a kept checkpoint does
    assert verdict["against_checkpoint"]["reason"].startswith("rolled back: the journal holds 4 entries")
    bad_usage = cli(backend, "verify", "--against", str(tmp_path / "absent.txt"))
    assert bad_usage.returncode == 2 and "cannot read" in bad_usage.stderr
    other = tmp_path / "other.txt"
    other.write_text(made.stdout.replace("\n6\n", "\n7\n"))
    forged = cli(backend, "verify", "--against", str(other))
    assert forged.returncode == 2 and "not a checkpoint signed by that key" in forged.stderr


def notes_with_one_rewritten(backend: Backend, notes: int, rewritten: int) -> None:
    """A store of `notes` notes, the one at position `rewritten` then rewritten inside the database."""
    with TestClient(create_app(backend.settings())) as client:
        for i in range(notes):
            data(client, NOTE, {"t": f"n{i}"})
    graph = backend.open_graph()
    try:
        backend.raw(graph, "MATCH (e:Entry {seq: $seq}) SET e.payload = '{\"text\":\"rewritten\"}'",
                    {"seq": rewritten})
    finally:
        graph.close()


def test_a_checkpoint_of_a_broken_chain_is_refused_on_the_command_line(backend: Backend) -> None:
    notes_with_one_rewritten(backend, 3, 2)
    refused = cli(backend, "checkpoint")
    assert refused.returncode == 1 and refused.stdout == "", refused.stdout
    assert "position 2" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr


@pytest.mark.parametrize("held", ["whole state", "nothing"])
def test_while_the_chain_is_broken_writes_are_refused_and_readiness_says_why(backend: Backend, held: str) -> None:
    notes_with_one_rewritten(backend, 4, 3)
    # Holding the whole state, the start's replay finds the break; holding nothing (the default), the start replays
    # nothing and the chain is checked in the background: its verdict comes once that check is done.
    settings = backend.whole_state_settings() if held == "whole state" else backend.settings()
    with TestClient(create_app(settings)) as client:
        ready = client.get("/readyz")
        deadline = time.monotonic() + 120
        while held == "nothing" and ready.json().get("status") != "journal broken" and time.monotonic() < deadline:
            assert ready.json().get("chain_check", {}).get("done") is not True, ready.json()  # done, yet no break
            time.sleep(0.1)
            ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["first_bad"] == 3
        error = gql(client, NOTE, {"t": "more"})["errors"][0]
        assert error["extensions"]["code"] == "JOURNAL_BROKEN" and "position 3" in error["message"]
        verdict = data(client, "{ verify { ok firstBad reason } head { seq } }")
        assert verdict["verify"] == {"ok": False, "firstBad": 3,
                                     "reason": "entry 3: its content does not match its hash"}
        assert verdict["head"]["seq"] == 4
    assert cli(backend, "verify").returncode == 1


def test_a_format_1_store_is_refused_and_migrated_by_export_and_load(backend: Backend, tmp_path: Path) -> None:
    # A store written before formats: entries hashed over Python's JSON, a head without a format.
    entries, prev = [], GENESIS
    for seq, payload in enumerate([{"text": "one"}, {"text": "two", "x": 1.0}], start=1):
        body = Entry(seq=seq, op="note", by="ann", at=10 * seq, payload=payload).body()
        digest = legacy_entry_hash(prev, body)
        entries.append({**body, "payload": json.dumps(payload), "prev": prev, "hash": digest})
        prev = digest
    graph = backend.open_graph()
    try:
        graph.setup_schema()
        backend.raw(graph, "UNWIND $rows AS r CREATE (e:Entry) SET e = r", {"rows": entries})
        backend.raw(graph, "MATCH (b:Entry {seq: 2}), (a:Entry {seq: 1}) CREATE (b)-[:PREV]->(a)")
        backend.raw(graph, "CREATE (h:Head {id: 'journal', seq: 2, hash: $h, projected: 2})", {"h": prev})
    finally:
        graph.close()
    refused = cli(backend, "verify")
    assert refused.returncode == 2 and "format 1" in refused.stderr and "load --from-format 1" in refused.stderr
    exported = tmp_path / "old.jsonl"
    assert cli(backend, "export", "--output", str(exported)).returncode == 0
    target = Backend("falkordb", tmp_path / "migrated")
    wrong = cli(target, "load", str(exported))
    # Entry 1 reads the same in both formats; entry 2 holds 1.0, which RFC 8785 writes as 1.
    assert wrong.returncode == 2 and "entry 2: content does not match its hash" in wrong.stderr
    assert json.loads(cli(target, "verify").stdout)["head_seq"] == 0  # the refused load wrote nothing
    loaded = cli(target, "load", "--from-format", "1", str(exported))
    assert loaded.returncode == 0 and json.loads(loaded.stdout) == {"loaded": 2, "head": 2}, loaded.stderr
    assert json.loads(cli(target, "verify").stdout)["ok"] is True
    with TestClient(create_app(target.settings())) as client:
        nodes = [e["node"] for e in data(client, "{ journal { edges { node { seq by payload } } } }")
                 ["journal"]["edges"]]
        assert nodes == [{"seq": 1, "by": "ann", "payload": '{"text":"one"}'},
                         {"seq": 2, "by": "ann", "payload": '{"text":"two","x":1.0}'}]
