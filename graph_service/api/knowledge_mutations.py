"""GraphQL mutations of the knowledge store: a mutation per write."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph_service.api.arguments import ItemId, Why
from graph_service.api.context import author_of, journal_write, service_of
from graph_service.api.errors import user_errors
from graph_service.api.knowledge_types import (
    About,
    AddOutcome,
    ItemInput,
    Kinds,
    Relation,
    Scope,
    WriteOutcome,
    change_list,
)
from graph_service.api.scalars import Long
from graph_service.api.vocabularies import plain, plain_list
from graph_service.knowledge import planning


async def _write(info: strawberry.Info[Any, Any], plan: Any) -> Any:
    service = service_of(info)
    # Holding no knowledge state, the plan reads only the graph: a step off the loop, as the round trips are.
    return await journal_write(info, lambda: service.plan_knowledge(plan), plan_off_loop=service.knowledge_in_graph)


async def _status_write(info: strawberry.Info[Any, Any], plan: Any) -> WriteOutcome:
    """A write whose result is the items' status changes."""
    done = await _write(info, plan)
    return WriteOutcome(seq=done.entry.seq, changes=change_list(done.result))


@strawberry.type
class KnowledgeMutation:
    @strawberry.mutation(description="Propose an item; refused proposals are journalled with why.")
    @user_errors
    async def add_item(self, info: strawberry.Info[Any, Any],
                 item: Annotated[ItemInput, strawberry.argument(description="The proposed item.")]) -> AddOutcome:
        raw = {k: v for k, v in strawberry.asdict(item).items() if v is not None}
        raw.update(kind=plain(item.kind), source=plain(item.source))
        done = await _write(info, lambda k: planning.plan_add(k, raw, by=author_of(info)))
        r = done.result
        return AddOutcome(id=r["id"], status=r["status"], admission=r["admission"], why=r.get("why"),
                          seq=done.entry.seq, changes=change_list(r))

    @strawberry.mutation(description="A held rule, skill or action passed its gates, or a person promotes it.")
    @user_errors
    async def promote_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_promote(k, id, why))

    @strawberry.mutation(description="Take an item back with everything derived from it; returns every change.")
    @user_errors
    async def retract_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_retract(k, id, why))

    @strawberry.mutation(description="Undo an update: the previous version returns (a hint while a flag is pending).")
    @user_errors
    async def rollback_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_rollback(k, id, why))

    @strawberry.mutation(description="The producer no longer stands behind the item: it expires.")
    @user_errors
    async def retire_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_retire(k, id, why))

    @strawberry.mutation(description="Ask for one item's re-confirmation (a flag on it alone).")
    @user_errors
    async def reconfirm_item(self, info: strawberry.Info[Any, Any], id: ItemId, why: Why = None) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_reconfirm(k, id, why))
        return WriteOutcome(seq=done.entry.seq, changes=[], id=done.result)

    @strawberry.mutation(description="A drift / open-set flag over a scope pattern, item ids or a key.")
    @user_errors
    async def raise_flag(self, info: strawberry.Info[Any, Any],
                   why: Annotated[str, strawberry.argument(description="Why the items may no longer hold "
                                                                      "(drift, an open set, …).")],
                   scope: Annotated[JSON | None, strawberry.argument(
                       description="Cover the items whose scope falls under this pattern ({} for every item).")
                   ] = None,
                   ids: Annotated[list[str] | None, strawberry.argument(description="Cover these items.")] = None,
                   key: Annotated[str | None, strawberry.argument(
                       description="Cover the items on this key ([scope, s, r] as canonical JSON).")] = None,
                   ) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_flag(k, why=why, scope=scope, ids=ids, key=key))
        return WriteOutcome(seq=done.entry.seq, changes=[], id=done.result)

    @strawberry.mutation(description="End a pending flag: its items are facts again if nothing else holds them.")
    @user_errors
    async def end_flag(self, info: strawberry.Info[Any, Any],
                 flag: Annotated[str, strawberry.argument(description="The pending flag's id (flag-<seq>).")]
                 ) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_end_flag(k, flag))

    @strawberry.mutation(description="A person's answer to the open dispute on a key: this value wins.")
    @user_errors
    async def resolve_dispute(self, info: strawberry.Info[Any, Any],
                        key: Annotated[str, strawberry.argument(description="The key in dispute (a Dispute's key).")],
                        value: Annotated[JSON, strawberry.argument(
                            description="The value that wins: one of those in dispute, as plain JSON (\"blue\", "
                                        "5).")],
                        why: Why = None) -> WriteOutcome:
        return await _status_write(info, lambda k: planning.plan_resolve(k, key, value, why))

    @strawberry.mutation(description="Advance the store clock by k units (reconfirm_after counts it).")
    @user_errors
    async def tick(self, info: strawberry.Info[Any, Any],
             k: Annotated[Long, strawberry.argument(description="How many clock units to advance (not negative).")]
             ) -> WriteOutcome:
        return await _status_write(info, lambda s: planning.plan_tick(s, k))

    @strawberry.mutation(description="Decisions used these items (wrong: and were found wrong).")
    @user_errors
    async def mark_used(self, info: strawberry.Info[Any, Any],
                  ids: Annotated[list[str], strawberry.argument(description="The items a decision used.")],
                  wrong: Annotated[bool, strawberry.argument(
                      description="True: the decision was found wrong (counted in wrongUses too).")] = False,
                  ) -> WriteOutcome:
        done = await _write(info, lambda k: planning.plan_used(k, ids, wrong))
        return WriteOutcome(seq=done.entry.seq, changes=[])

    @strawberry.mutation(description="Record the snapshot a decision is given (facts, hints, fingerprint, query).")
    @user_errors
    async def take_snapshot(self, info: strawberry.Info[Any, Any], about: About = None, relation: Relation = None,
                      scope: Scope = None, kinds: Kinds = None) -> JSON:
        names = plain_list(kinds)
        done = await _write(info, lambda k: planning.plan_snapshot(k, about, relation, scope, names))
        return {**done.result, "seq": done.entry.seq}
