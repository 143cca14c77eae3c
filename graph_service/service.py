"""The running service: one graph, its journal and the store state the journal feeds."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graph_service.beliefs.fingerprint import fingerprint_of as beliefs_fingerprint_of
from graph_service.config import Settings
from graph_service.journal.chain import Entry
from graph_service.journal.store import Journal, VerifyReport
from graph_service.knowledge.fingerprint import fingerprint_of as items_fingerprint_of
from graph_service.state import StoreState, combined_fingerprint
from graph_service.storage.open import open_graph
from graph_service.storage.port import GraphPort
from graph_service.tlog.checkpoint import Signer, load_or_create_signer, sign_checkpoint


@dataclass(frozen=True)
class FullReport:
    """The chain check, plus whether the graph holds what a pure replay of the journal gives."""

    chain: VerifyReport
    projection_ok: bool
    replay_fingerprint: str | None
    graph_fingerprint: str | None

    @property
    def ok(self) -> bool:
        return self.chain.ok and self.projection_ok


class Service:
    """Owns the graph connection, the journal and the in-memory state; `close()` releases them."""

    def __init__(self, graph: GraphPort, settings: Settings | None = None) -> None:
        self.graph = graph
        self.settings = settings or Settings()
        self.state = StoreState()
        self.journal = Journal(graph, [self.state])
        self._signer: Signer | None = None

    @classmethod
    def open(cls, settings: Settings, *, allow_legacy: bool = False) -> Service:
        """Connect to the configured backend and replay its journal (`allow_legacy`: a format-1 journal
        is opened to be read and exported, not written)."""
        service = cls.connect(settings)
        service.start(allow_legacy=allow_legacy)
        return service

    @classmethod
    def connect(cls, settings: Settings) -> Service:
        """Connected to the configured backend (an embedded server started and loaded), not yet started."""
        return cls(open_graph(settings), settings)

    def start(self, *, allow_legacy: bool = False) -> None:
        """Set up the schema and replay the journal (see Journal.open); closes the graph if that fails.
        While it runs, `journal.seq` is how far the replay has come and `stored_total()` how far it goes."""
        try:
            self.journal.open(allow_legacy=allow_legacy)
        except BaseException:
            self.graph.close()
            raise

    def stored_total(self) -> int | None:
        """The journal's length as stored (None for a store without a journal yet)."""
        heads = self.graph.run("head_read")
        return heads[0]["seq"] if heads and isinstance(heads[0].get("seq"), int) else None

    @property
    def origin(self) -> str:
        """The checkpoints' origin: configured, or graph_service/<the store's log id>."""
        return self.settings.log_origin or f"graph_service/{self.journal.stored_head().get('log_id')}"

    @property
    def signer(self) -> Signer:
        """The checkpoint signer: the operator's key file, or one created in the data folder (mode 0600)."""
        if self._signer is None:
            path = self.settings.signing_key or self.settings.data_dir / "checkpoint.key"
            self._signer = load_or_create_signer(path, self.settings.signer_name)
        return self._signer

    def checkpoint(self) -> tuple[int, bytes, int, str]:
        """(size, root, time, signed note) for the journal as this process last read it: a C2SP checkpoint.

        The root is computed from the entries' own bytes (the writer's frontier), not read back."""
        size, root = self.journal.tree_head()
        at = self.journal.clock()
        return size, root, at, sign_checkpoint(self.signer, self.origin, size, root, at)

    def graph_fingerprint(self) -> str:
        """The fingerprint of what the graph's nodes say (statuses and confidences as projected)."""
        items = items_fingerprint_of(self.graph.run("item_fingerprint_rows"))
        beliefs = beliefs_fingerprint_of(self.graph.run("belief_fingerprint_rows"))
        return combined_fingerprint(items, beliefs)

    def verify(self, roots_at: Iterable[int] = (), on_entry: Callable[[Entry], None] | None = None) -> FullReport:
        """The chain is whole (checked before anything is trusted), and the projection equals a pure
        replay of the stored journal; the journal is read once, the replay running beside the check.
        An entry the replay cannot apply is reported at its position, never raised. `on_entry` sees each
        sound entry as it is checked (progress)."""
        self.journal.catch_up()
        state = StoreState()
        failed: list[tuple[int, str]] = []

        def apply(entry: Entry) -> None:
            if on_entry is not None:
                on_entry(entry)
            if failed:
                return
            try:
                state.apply(entry)
            except Exception as exc:  # a forged entry whose hash is sound: report it, never crash
                failed.append((entry.seq, f"entry {entry.seq} cannot be applied: {type(exc).__name__}: {exc}"))

        chain = self.journal.verify(on_entry=apply, roots_at=roots_at)
        if not chain.ok:
            return FullReport(chain, False, None, None)
        if failed:
            position, reason = failed[0]
            return FullReport(VerifyReport(False, chain.checked, chain.head_seq, position, reason, chain.roots),
                              False, None, None)
        expected = state.fingerprint()
        actual = self.graph_fingerprint()
        return FullReport(chain, expected == actual, expected, actual)

    def close(self) -> None:
        self.graph.close()
