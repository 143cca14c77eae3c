"""Child processes that never outlive the process that started them (Linux)."""

from __future__ import annotations

import ctypes
import os
import signal
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask the kernel to send this process `sig` when its parent ends, even by kill -9: an embedded
    server, a test's Neo4j or a worker left running would hold data files or a port nobody supervises.
    Linux sends it when the parent's *thread* that forked this process ends (see
    storage.falkordb_server._spawn_from_lasting_thread). Safe in a `preexec_fn`."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)


def killed_with_parent() -> None:
    """die_with_parent with SIGKILL: for a child that may be stuck where it never handles SIGTERM."""
    die_with_parent(signal.SIGKILL)


def cpu_seconds(pid: int) -> float | None:
    """User + system processor time the process has used so far, or None once it is gone (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
