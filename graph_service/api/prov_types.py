"""GraphQL read of W3C PROV: one node's derivation as a PROV document (graph_service.prov is the mapping)."""

from __future__ import annotations

from enum import Enum
from typing import Any

import strawberry

from graph_service.api.context import caught_up
from graph_service.api.long_work import off_the_loop
from graph_service.errors import UserError
from graph_service.prov import prov_document, serialize


@strawberry.enum(description="A W3C PROV serialisation.")
class ProvFormat(Enum):
    PROV_JSON = "prov-json"
    PROV_N = "prov-n"
    PROV_O = "prov-o"


@strawberry.type
class ProvQuery:
    @strawberry.field(description="The W3C PROV document of one node's derivation: the item, observation, "
                                  "assertion, belief or evidence row, everything it rests on transitively, the "
                                  "journal entries that wrote or read those, and who stands behind them. "
                                  "PROV_O is Turtle. Reads the whole journal (runs beside other requests, one at "
                                  "a time).")
    async def prov_document(self, info: strawberry.Info[Any, Any], id: str,
                            format: ProvFormat = ProvFormat.PROV_JSON) -> str:
        def work() -> str:
            if not id.strip():
                raise UserError("id must be a non-empty string", field="id")
            service = caught_up(info)
            position = service.state.position
            document = prov_document(service.state, service.journal.entries_after(0, limit=position), node=id)
            return serialize(document, format.value)

        return await off_the_loop(work)
