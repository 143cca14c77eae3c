"""Our tree, proofs and notes against Go's golang.org/x/mod/sumdb/tlog and note (tools/tlogcheck), both ways."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graph_service.tlog import tree
from graph_service.tlog.checkpoint import Signer, sign_checkpoint
from graph_service.tlog.verifier import CheckpointError, open_checkpoint
from tests.unit.tlog import Store

TLOGCHECK = Path(__file__).resolve().parents[3] / "tools" / "tlogcheck"
LEAVES = 40
SIZES = [1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, 32, 33, 40]
ORIGIN = "graph-service.test/log"
GO_SIGN = {"key_name": "tlogcheck.test/go", "origin": "tlogcheck.test/go", "size": 31, "time_ms": 1_700_000_000_456}

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="the Go toolchain (`go`) is not on PATH")


def go_env() -> dict[str, str]:
    # The toolchain on the machine builds it: never a download of another Go release.
    return {**os.environ, "GOTOOLCHAIN": "local"}


@pytest.fixture(scope="module")
def tlogcheck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tools/tlogcheck built once into a temporary directory."""
    binary = tmp_path_factory.mktemp("tlogcheck") / "tlogcheck"
    build = subprocess.run(
        ["go", "build", "-buildvcs=false", "-o", str(binary), "."],
        cwd=TLOGCHECK, env=go_env(), capture_output=True, text=True, timeout=540, check=False,
    )
    assert build.returncode == 0, f"go build failed:\n{build.stdout}\n{build.stderr}"
    return binary


def make_fixture(store: Store, signer: Signer) -> dict[str, Any]:
    trees = []
    for size in SIZES:
        trees.append({
            "size": size,
            "root": tree.root_hash(size, store.get).hex(),
            "inclusion": [
                {"index": index, "proof": [h.hex() for h in tree.inclusion_proof(index, size, store.get)]}
                for index in range(size)
            ],
            "consistency": [
                {
                    "m": m,
                    "root_m": tree.root_hash(m, store.get).hex(),
                    "proof": [h.hex() for h in tree.consistency_proof(m, size, store.get)],
                }
                for m in range(1, size + 1)
            ],
        })
    root = tree.root_hash(LEAVES, store.get)
    return {
        "leaves": [leaf.hex() for leaf in store.leaves],
        "stored": [
            [store.hashes[(seq, level)].hex() for level in range((seq & -seq).bit_length())]
            for seq in range(1, LEAVES + 1)
        ],
        "trees": trees,
        "checkpoint": {
            "note": sign_checkpoint(signer, ORIGIN, LEAVES, root, 1_700_000_000_123),
            "verifier_key": signer.verifier_key(),
            "signer_key": signer.private_key_text(),
            "origin": ORIGIN,
            "size": LEAVES,
            "root": root.hex(),
            "time_ms": 1_700_000_000_123,
        },
        "sign": GO_SIGN,
    }


@pytest.fixture(scope="module")
def store() -> Store:
    return Store.of_size(LEAVES)


@pytest.fixture(scope="module")
def signer() -> Signer:
    return Signer.generate(ORIGIN)


@pytest.fixture(scope="module")
def go_report(
    tlogcheck: Path, store: Store, signer: Signer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """What tools/tlogcheck says about our fixture: its JSON report, with the process's exit code."""
    path = tmp_path_factory.mktemp("fixture") / "fixture.json"
    path.write_text(json.dumps(make_fixture(store, signer)), encoding="utf-8")
    run = subprocess.run(
        [str(tlogcheck), str(path)], env=go_env(), capture_output=True, text=True, timeout=120, check=False
    )
    report = json.loads(run.stdout) if run.stdout.strip() else {"stderr": run.stderr}
    yield {**report, "returncode": run.returncode}


def test_go_agrees_with_every_stored_hash_root_and_proof(go_report: dict[str, Any]) -> None:
    assert go_report["failures"] == [], go_report["failures"]
    assert go_report["ok"] is True and go_report["returncode"] == 0
    checked = go_report["checked"]
    assert checked["stored"] == sum((seq & -seq).bit_length() for seq in range(1, LEAVES + 1))
    assert checked["roots"] == len(SIZES)
    assert checked["inclusion"] == sum(SIZES)
    assert checked["consistency"] == sum(SIZES)
    assert checked["checkpoints"] == 1


def test_go_reads_our_signer_key_as_the_same_key(go_report: dict[str, Any], signer: Signer, store: Store) -> None:
    root = tree.root_hash(LEAVES, store.get)
    opened = open_checkpoint(go_report["resigned"], signer.verifier_key())
    assert (opened.origin, opened.size, opened.root) == (ORIGIN, LEAVES, root)
    # Ed25519 is deterministic: Go, given our key, writes our note byte for byte.
    assert go_report["resigned"] == sign_checkpoint(signer, ORIGIN, LEAVES, root, 1_700_000_000_123)


def test_go_refuses_the_forgeries_it_makes_of_ours(go_report: dict[str, Any]) -> None:
    # Flipped hashes in every non-empty proof, plus our note altered and under another key.
    non_empty_inclusion = sum(size for size in SIZES if size > 1)
    non_empty_consistency = sum(size - 1 for size in SIZES)
    assert go_report["checked"]["refusals"] == non_empty_inclusion + non_empty_consistency + 2


def test_a_note_go_signed_opens_with_our_verifier(go_report: dict[str, Any], store: Store) -> None:
    note = go_report["note"]
    opened = open_checkpoint(note["text"], note["verifier_key"])
    assert opened.origin == GO_SIGN["origin"] and opened.size == GO_SIGN["size"]
    assert opened.time_ms == GO_SIGN["time_ms"]
    assert opened.root == bytes.fromhex(note["root"]) == tree.root_hash(GO_SIGN["size"], store.get)


@pytest.mark.parametrize(
    "alter",
    [
        lambda text: text.replace("\n31\n", "\n30\n", 1),
        lambda text: text.replace("time 1700000000456", "time 1700000000457"),
        lambda text: text.replace("tlogcheck.test/go\n", "tlogcheck.test/gx\n", 1),
        lambda text: text[:-20] + ("A" if text[-20] != "A" else "g") + text[-19:],
    ],
    ids=["size", "time", "origin", "signature"],
)
def test_a_note_go_signed_is_refused_once_altered(go_report: dict[str, Any], alter: Any) -> None:
    note = go_report["note"]
    altered = alter(note["text"])
    assert altered != note["text"]
    with pytest.raises(CheckpointError):
        open_checkpoint(altered, note["verifier_key"])


def test_a_note_go_signed_is_refused_under_our_key(go_report: dict[str, Any]) -> None:
    with pytest.raises(CheckpointError, match="no signature by"):
        open_checkpoint(go_report["note"]["text"], Signer.generate("tlogcheck.test/go").verifier_key())
