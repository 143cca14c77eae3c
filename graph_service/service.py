"""The running service: one graph, its journal and the store state the journal feeds."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol, TypeVar, cast

from graph_service.config import Settings
from graph_service.domain import Draft
from graph_service.fingerprint_as_of import fingerprints_kept
from graph_service.from_graph.beliefs import BeliefsFromGraph
from graph_service.from_graph.item_statuses import ItemStatuses
from graph_service.from_graph.knowledge import KnowledgeFromGraph, read_named
from graph_service.from_graph.questions import GraphQuestions, QuestionParts
from graph_service.from_graph.stream import StreamParts
from graph_service.jobs.verify_runs import VerifyRuns
from graph_service.jobs.verifying import FullReport, graph_fingerprint, verify_in_child, verify_store
from graph_service.journal.chain import Entry
from graph_service.journal.store import Journal
from graph_service.knowledge.state import KnowledgeState
from graph_service.projection import KEEPS_BELIEF_TALLIES, KEEPS_NOW_READS, KEEPS_STREAM_WRITES
from graph_service.state import StoreState, WithKnowledge
from graph_service.storage.open import connect, open_graph
from graph_service.storage.port import GraphPort
from graph_service.tlog.checkpoint import Signer, load_or_create_signer, sign_checkpoint

log = logging.getLogger(__name__)
Planned = TypeVar("Planned")


class KnowledgePlanner(Protocol):
    def __call__(self, knowledge: KnowledgeState) -> Draft: ...


class Service:
    """Owns the graph connection, the journal and the in-memory state; `close()` releases them."""

    def __init__(self, graph: GraphPort, settings: Settings | None = None) -> None:
        self.graph = graph
        self.settings = settings or Settings()
        self.state = StoreState()
        self.journal = Journal(graph, [self.state])
        self._signer: Signer | None = None
        self.started = False  # the journal replayed into `state` (start)
        self.verify_runs = VerifyRuns(self.verify_apart)  # verify started by one request, read by later ones

    @classmethod
    def open(cls, settings: Settings, *, allow_legacy: bool = False) -> Service:
        """Connect to the configured backend and replay its journal (`allow_legacy`: a format-1 journal
        is opened to be read and exported, not written)."""
        service = cls.connect(settings)
        service.start(allow_legacy=allow_legacy)
        return service

    @classmethod
    def connect(cls, settings: Settings, connection: dict[str, str] | None = None) -> Service:
        """Connected to the configured backend (an embedded server started and loaded), or to the store
        another process serves as its `GraphPort.connection()` describes it; not yet started."""
        return cls(open_graph(settings) if connection is None else connect(connection), settings)

    def start(self, *, allow_legacy: bool = False) -> None:
        """Set up the schema and replay the journal (see Journal.open); closes the graph if that fails.
        While it runs, `journal.seq` is how far the replay has come and `stored_total()` how far it goes."""
        try:
            self.journal.open(allow_legacy=allow_legacy, prepared=self._choose_state)
        except BaseException:
            self.graph.close()
            raise
        self.started = True

    def _choose_state(self) -> bool:
        """Where the knowledge state, the belief layer, the stream and the questions are held, as the settings ask
        and the store allows. True when none is held (nor any item's status): the journal then replays nothing at
        start (Journal.open)."""
        state, graph = self.state, self.graph

        def held() -> int:
            return self.journal.graph_holds

        if self._held_in_graph("knowledge", KEEPS_NOW_READS, "a knowledge write reads", "its knowledge state"):
            state.knowledge_taken = KnowledgeFromGraph(graph, held, clock_at=self.journal.clock_at)
        if self._held_in_graph("beliefs", KEEPS_BELIEF_TALLIES, "a belief write reads", "its belief layer"):
            state.beliefs_taken = BeliefsFromGraph(graph, held)
        if self._held_in_graph("stream", KEEPS_STREAM_WRITES, "a stream or statement write reads",
                               "its stream and statements' state"):
            state.stream_taken = StreamParts(graph, held)
        if self._held_in_graph("questions", KEEPS_NOW_READS, "a question write reads",
                               "its unknowns and questions' state"):
            state.questions_taken = QuestionParts(graph, held)
        if self.knowledge_in_graph and self.beliefs_in_graph:
            # Then an entry the graph holds needs no item's status (its effects on the layer are in the graph): the
            # statuses the other domains ask about are read from the Item nodes, and none is kept.
            state.statuses_taken = ItemStatuses(graph, held)
        return self.holds_nothing

    def _held_in_graph(self, option: str, keeps: int, reads: str, state: str) -> bool:
        """Do the settings ask to hold `option`'s state in the graph (none in memory: each write reads from the graph
        what its rules touch, and a start applies nothing of the entries the graph holds), and does the store's graph
        keep what that `reads` (`keeps`: the version of projection.KEPT_FOR_WRITES)? A store written before it did
        keeps that `state` in memory, with a warning that names it."""
        if getattr(self.settings, option) != "graph":
            return False
        if not self.journal.keeps_at_least(keeps):
            log.warning("GRAPH_SERVICE_%s=graph: this store's graph was written before it kept what %s; %s is held in "
                        "memory (export and load it into a new store)", option.upper(), reads, state)
            return False
        return True

    @property
    def holds_nothing(self) -> bool:
        """Does this service hold no domain's state (each write reads what it touches from the graph), so that a
        start replays nothing (Journal._replay_all of a stateless journal)?"""
        state = self.state
        return None not in (state.knowledge_taken, state.beliefs_taken, state.stream_taken, state.questions_taken,
                            state.statuses_taken)

    @property
    def questions_in_graph(self) -> bool:
        """Does this service hold no unknowns or questions (each question write reads the graph)?"""
        return self.state.questions_taken is not None

    def planning_questions(self) -> AbstractContextManager[None]:
        """The context a question plan runs in: with the questions read from the graph, what it reads (a ranking's
        whole read included) is read once for it; nothing otherwise."""
        questions = self.state.questions
        return questions.planning() if isinstance(questions, GraphQuestions) else nullcontext()

    @property
    def stream_in_graph(self) -> bool:
        """Does this service hold no stream or statement state (each of their writes reads the graph)?"""
        return self.state.stream_taken is not None

    @property
    def beliefs_in_graph(self) -> bool:
        """Does this service hold no belief layer (each belief write reads from the graph what it needs)?"""
        return self.state.beliefs_taken is not None

    def plan_beliefs(self, op: str, payload: dict[str, Any]) -> Draft:
        """A belief request's draft (or its refusal) on the layer as this process last read it: the layer in
        memory, or what it reads of the graph as of the journal's head (BeliefsFromGraph.plan)."""
        taken = self.state.beliefs_taken
        if taken is None:
            return self.state.beliefs.plan(op, payload)
        assert isinstance(taken, BeliefsFromGraph)
        return taken.plan(op, payload, self.journal.seq)

    def _plan_from_graph(self, plan: KnowledgePlanner) -> Draft:
        # As of the head, what the plan reads kept for its entry's application (KnowledgeFromGraph.plan).
        taken = self.state.knowledge_taken
        assert isinstance(taken, KnowledgeFromGraph)
        return taken.plan(plan, self.journal.seq)

    @property
    def knowledge_in_graph(self) -> bool:
        """Does this service hold no knowledge state (each knowledge write reads from the graph what it needs)?"""
        return self.state.knowledge_taken is not None

    def plan_knowledge(self, plan: KnowledgePlanner) -> Draft:
        """A knowledge planner's draft (or its refusal) on the store as this process last read it: on the knowledge
        state in memory, or on what it reads of the graph as of the journal's head (the caller holds the journal's
        lock; Journal.write_steps catches up first), or on the entries applied ahead of the graph since what it
        holds (a bulk load's batches in flight: KnowledgeFromGraph.plan)."""
        if not self.knowledge_in_graph:
            return plan(self.state.knowledge)
        return self._plan_from_graph(plan)

    def plan_on_store(self, plan: Callable[[StoreState], Planned], ids: Iterable[str] = ()) -> Planned:
        """What a planner over the whole store state gives (the questions' planners: they read its knowledge), as
        `plan_knowledge` runs a knowledge planner: with its knowledge state, or with one of what it reads of the
        graph as of the journal's head, the disputes and snapshots it names by id (`ids`) read first."""
        with self.planning_questions():
            return self._plan_on_store(plan, ids)

    def _plan_on_store(self, plan: Callable[[StoreState], Planned], ids: Iterable[str]) -> Planned:
        if not self.knowledge_in_graph:
            return plan(self.state)
        planned: list[Planned] = []

        def on(knowledge: KnowledgeState) -> Draft:
            read_named(self.graph, knowledge, ids)
            planned.append(plan(cast(StoreState, WithKnowledge(self.state, knowledge))))
            return cast(Draft, None)  # what it planned is kept above: a planner here may give more than a draft

        self._plan_from_graph(on)
        return planned[-1]

    def stored_total(self) -> int | None:
        """The journal's length as stored (None for a store without a journal yet)."""
        return self.journal.stored_length()

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
        return self.signed_checkpoint(size, root)

    def signed_checkpoint(self, size: int, root: bytes) -> tuple[int, bytes, int, str]:
        """(size, root, time, signed note) for a tree head the caller recomputed from the entries' own bytes
        (`checkpoint`'s frontier, or a check of the chain: Journal.verify's roots)."""
        at = self.journal.clock()
        return size, root, at, sign_checkpoint(self.signer, self.origin, size, root, at)

    def graph_fingerprint(self) -> str:
        """The fingerprint of what the graph's nodes say (statuses and confidences as projected)."""
        return graph_fingerprint(self.graph)

    def verify(self, roots_at: Iterable[int] = (), on_entry: Callable[[Entry], None] | None = None,
               on_compared: Callable[[int, int], None] | None = None) -> FullReport:
        """`verify_store` in this process (the command line's verify), once the graph holds every entry
        (`bring_graph_up_to_date`): a service only connected verifies without replaying the journal into its own
        state, as verify replays it beside its check. `on_entry` and `on_compared`: progress (verify_store)."""
        self.bring_graph_up_to_date()
        return verify_store(self.graph, self.journal, roots_at, on_entry, on_compared=on_compared)

    def bring_graph_up_to_date(self) -> None:
        """Make the graph hold every stored entry's projection: a started service catches up; one only connected
        starts (a replay, which projects what the graph lacks) when the graph lags the journal, and otherwise
        replays nothing."""
        if self.started:
            self.journal.catch_up()
        elif self.lags():
            self.start()

    def lags(self) -> bool:
        """Does the graph lack the projection of some stored entry (a crash between an append and its
        projection)? A start, or a started service's catch-up, writes what it lacks."""
        head = self.journal.stored_head()
        return bool(head.get("projected") != head.get("seq"))

    def fingerprints(self) -> dict[str, Any]:
        """The store's fingerprints now ({store, knowledge, beliefs, position}, as StoreState.fingerprints): the
        graph's two running sums when it keeps them (two lookups; a service only connected, the command line's,
        replays nothing), at the position the graph holds, or, when the journal knows its chain is broken (a check's
        verdict, or a replay that stopped there), just before the break: the sound prefix, as a start holding the
        whole state folds it. Else the replayed state's (one only connected starts first)."""
        self.bring_graph_up_to_date()
        broken = self.journal.broken
        if self.journal.keeps_at_least(KEEPS_NOW_READS):
            held = self.journal.stored_head()["projected"]
            position = held if broken is None else broken.position - 1
            if position <= held:
                return fingerprints_kept(self.graph, position)
        if not self.started:
            self.start()
        return self.state.fingerprints()

    def verify_apart(self) -> FullReport:
        """`verify_store` in a process of its own (the API's verify: see graph_service.jobs.verifying); this
        journal takes its verdict."""
        self.journal.catch_up()
        report = verify_in_child(self.graph)
        self.journal.take_verdict(report.chain)
        return report

    def close(self) -> None:
        """Close the store's connection, once the start's check of the chain keeps nothing more through it."""
        if self.journal.audit is not None:
            self.journal.audit.stop_keeping()
        self.graph.close()
