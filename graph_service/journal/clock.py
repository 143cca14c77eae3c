"""The store clock: a count that only `clock.tick` entries advance, each by its `k` (SPEC 3.2). Pure.

Every stored entry keeps the clock as it stands after it (`clock` on its Entry node, beside its hash and
outside it, checked by the audit), so a reader finds the clock at any position with one indexed lookup
instead of summing every tick before it: a write that holds no copy of the store reads the clock its
rules run at, and the clock each assertion it reads was made at, at a cost that does not grow with the
store's ticks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TICK = "clock.tick"


def clock_after(clock: int, op: str, payload: Mapping[str, Any]) -> int:
    """The store clock after an entry of operation `op` with this payload, the clock before it being `clock`."""
    return clock + int(payload.get("k", 0)) if op == TICK else clock
