"""A random history that exercises every knowledge operation, for the tests that compare what the graph
gives back with a replay: the realistic mix (benchmarks.service_shape) with flags raised (over ids, a key,
everything, or a scope some facts are learned in) and ended, same-key facts disputing and resolved, ticks
running re-confirmation periods out, uses, recorded snapshots, retractions, rollbacks, and questions asked
and answered (an answer's own adds)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

from graph_service.domain import Draft
from graph_service.errors import UserError
from graph_service.journal.notes import plan_note
from graph_service.knowledge import planning
from graph_service.questions import plans
from graph_service.service import Service

SITES = ("north", "south")  # the scopes some facts are learned in, and some flags are raised over


def write_knowledge_history(service: Service, n: int, seed: int) -> None:
    """The realistic mix, with a knowledge write the mix lacks after about every other of its entries;
    bulk-loaded in batches (each plan sees the state the ones before it left), as Neo4j is slow here
    at one statement per write."""
    from benchmarks.service_shape import mix

    rng = random.Random(seed)
    state = service.state
    k = state.knowledge

    def attempt(plan: Callable[[], Draft | None]) -> Draft:
        try:
            draft = plan()
        except UserError as refused:  # not writable now (nothing pending, nothing live ...): a note instead
            return plan_note(f"skipped: {refused}")
        return draft if draft is not None else plan_note("skipped: nothing to write")

    def some(ids: Any, count: int = 1) -> list[str]:
        pool = sorted(ids)
        return rng.sample(pool, min(count, len(pool))) if pool else []

    def live() -> list[str]:
        return [i for i, r in k.items.items() if r.live()]

    def extra() -> Iterator[Callable[[], Draft | None]]:
        roll = rng.random()
        if roll < 0.12:
            yield lambda: planning.plan_flag(k, why=rng.choice(("drift", "open set; recheck")), ids=some(live(), 3))
        elif roll < 0.16:
            yield lambda: planning.plan_flag(k, why="key drift", key=(some(k.by_key) or ["[]"])[0])
        elif roll < 0.18:
            yield lambda: planning.plan_flag(k, why="everything", scope={})
        elif roll < 0.21:
            yield lambda: planning.plan_flag(k, why="site drift", scope={"site": rng.choice(SITES)})
        elif roll < 0.28:
            yield lambda: planning.plan_end_flag(k, (some(f.id for f in k.flags.values() if f.pending) or [""])[0])
        elif roll < 0.50:
            # Competing values from equal sources on one key: a dispute (or a refutation, by rank).
            subject = f"gadget-{rng.randrange(3)}"
            for value in rng.sample(("red", "blue", "green"), 2):
                raw = {"kind": "fact", "body": {"s": subject, "r": "colour", "o": value},
                       "source": rng.choice(("person", "person", "person", "person", "spec")),
                       "reconfirm_after": rng.choice((None, 3, 8)),
                       "scope": rng.choice(({}, {}, {"site": rng.choice(SITES)}))}
                yield lambda raw=raw: planning.plan_add(k, raw, by=rng.choice(("ann", "bob")))
        elif roll < 0.53:
            yield lambda: _resolve()
        elif roll < 0.60:
            yield lambda: planning.plan_tick(k, rng.randint(0, 4))
        elif roll < 0.66:
            yield lambda: planning.plan_used(k, some(live(), 2), wrong=rng.random() < 0.3)
        elif roll < 0.71:
            yield lambda: planning.plan_snapshot(k, about=some(k.by_subject, 2) or None)
        elif roll < 0.76:
            yield lambda: planning.plan_retract(k, (some(live()) or [""])[0], "wrong")
        elif roll < 0.80:
            yield lambda: planning.plan_rollback(k, (some(live()) or [""])[0], "undo")
        elif roll < 0.84:
            yield lambda: planning.plan_reconfirm(k, (some(live()) or [""])[0], "check again")
        elif roll < 0.90:
            yield lambda: plans.plan_next_question(state).draft
            yield lambda: _answer()

    def _resolve() -> Draft:
        event = k.open_disputes[(some(k.open_disputes) or [""])[0]] if k.open_disputes else None
        if event is None:
            raise UserError("no open dispute")
        return planning.plan_resolve(k, event.key, json.loads(rng.choice(event.values)))

    def _answer() -> Draft | None:
        asked = state.questions.questions(answered=False)
        if not asked:
            return None
        record = asked[-1]
        event = k.open_disputes.get(record.target)
        if event is not None and rng.random() < 0.5:
            return plans.plan_answer(state, record.id, by="bob", value=json.loads(rng.choice(event.values)))
        if record.target in k.items:
            return plans.plan_answer(state, record.id, by="bob", confirmed=True)
        return None

    def every() -> Iterator[Callable[[], Draft]]:
        for plan in mix(service, n, seed):
            yield plan
            if rng.random() < 0.6:
                for more in extra():
                    yield lambda more=more: attempt(more)

    service.journal.write_batch("loader", every(), batch_size=40)
