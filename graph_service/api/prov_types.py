"""GraphQL read of W3C PROV: one node's derivation as a PROV document (graph_service.prov is the mapping)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import strawberry

from graph_service.api.context import caught_up
from graph_service.api.long_work import off_the_loop
from graph_service.errors import UserError
from graph_service.jobs.apart import run_apart


@strawberry.enum(description="A W3C PROV serialisation.")
class ProvFormat(Enum):
    PROV_JSON = strawberry.enum_value("prov-json", description="PROV-JSON (W3C member submission).")
    PROV_N = strawberry.enum_value("prov-n", description="PROV-N, the W3C notation.")
    PROV_O = strawberry.enum_value("prov-o", description="PROV-O, the W3C ontology, as Turtle.")


@strawberry.type
class ProvQuery:
    @strawberry.field(description="The W3C PROV document of one node's derivation: the item, observation, "
                                  "assertion, belief or evidence row, everything it rests on transitively, the "
                                  "journal entries that wrote or read those, and who stands behind them. "
                                  "PROV_O is Turtle. Reads the whole journal (runs beside other requests, one at "
                                  "a time).")
    async def prov_document(self, info: strawberry.Info[Any, Any],
                            id: Annotated[str, strawberry.argument(
                                description="The node's id: an item, observation, assertion, belief or evidence "
                                            "row.")],
                            format: Annotated[ProvFormat, strawberry.argument(
                                description="The serialisation to return.")] = ProvFormat.PROV_JSON) -> str:
        def work() -> str:
            if not id.strip():
                raise UserError("id must be a non-empty string", field="id")
            service = caught_up(info)
            # The journal up to what this process has read, replayed in a process of its own (graph_service.jobs.apart).
            return str(run_apart(service.graph, "prov", node=id, format=format.value, upto=service.state.position))

        return await off_the_loop(work)
