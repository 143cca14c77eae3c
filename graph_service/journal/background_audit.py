"""A start that replays nothing checks the stored chain up to where it started in the background, in a process of
its own (graph_service.jobs.apart's chain_audit job), while the service serves; a break it finds is the journal's
verdict."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from graph_service.journal.audit import Finding

if TYPE_CHECKING:
    from graph_service.journal.store import Journal

log = logging.getLogger(__name__)


class BackgroundAudit(threading.Thread):
    """A stateless start's check of the stored chain up to the position it started from (the same audit as
    Journal.verify's, a page at a time), run by a process of its own (graph_service.jobs.apart's chain_audit job: in a
    thread of this one, its hashing would hold the interpreter lock against every request) and waited on in a
    daemon thread: the start does not wait for it. What it finds is the journal's verdict (a break refuses writes).
    `done` is set when it has finished; `status()` says how far it has come.

    It checks on from `after`, where an earlier check found the chain sound (`Journal.chain_checked`), with the
    hash and Merkle frontier stored there; a sound check keeps how far it went (cypher/chain_check_keep), so a
    start costs what was appended since the last one. The entries up to `after` are not read again: a full
    `verify` (an operator's act) reads every one. `upto_hash`: the stored hash of the entry at `upto`."""

    JOB = "chain_audit"

    def __init__(self, journal: Journal, upto: int, upto_hash: str, after: int = 0) -> None:
        super().__init__(name="journal-audit", daemon=True)
        self.journal, self.upto, self.upto_hash, self.after = journal, upto, upto_hash, after
        self.done = threading.Event()
        self.checked = after
        self.finding: Finding | None = None
        # The keep's statement and the store's closing one at a time: a driver closed while this thread sends on
        # one of its connections fails in the closing thread (neo4j: BufferError, seen once in the suite).
        self._keeping = threading.Lock()
        self._closing = False

    def status(self) -> dict[str, Any]:
        """How far it has come: the position it checks on from, the last position checked, the position it checks up
        to, and whether it is done."""
        from graph_service.jobs.apart import RUNNING

        checked = self.checked if self.done.is_set() else max(
            (work.done for work in RUNNING.running() if work.job == self.JOB), default=self.after)
        return {"from": self.after, "checked": checked, "upto": self.upto, "done": self.done.is_set()}

    def run(self) -> None:
        from graph_service.jobs.apart import run_apart

        try:
            if self.after >= self.upto:
                return  # found sound up to here already: nothing to read
            answer = run_apart(self.journal.graph, self.JOB, upto=self.upto, after=self.after)
            self.checked = answer["checked"]
            if answer["finding"] is None:
                self._keep_checked()
                return
            self.finding = Finding(*answer["finding"])
            if self.journal.broken is None:
                self.journal.broken = self.finding
                log.error("journal chain broken at %s: %s", self.finding.position, self.finding.reason)
        except Exception:  # the store went away (the service closing): nothing is concluded
            log.warning("the journal's background check of the chain stopped", exc_info=True)
        finally:
            self.done.set()

    def _keep_checked(self) -> None:
        """Keep how far the chain was found sound. A hint for the next start: if it cannot be kept (another worker
        of the same store keeping its own at the same moment, or the store going away), the next start checks from
        an earlier position, and the verdict here stands."""
        try:
            with self._keeping:
                if self._closing:
                    return
                self.journal.graph.run("chain_check_keep", {"seq": self.upto, "hash": self.upto_hash,
                                                            "at": self.journal.clock()})
        except Exception:
            log.info("how far the chain was checked (%s) was not kept", self.upto, exc_info=True)

    def stop_keeping(self) -> None:
        """The store is closing: wait for a keep under way, and start none after it (the next start checks from an
        earlier position)."""
        with self._keeping:
            self._closing = True
