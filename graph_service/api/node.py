"""The `Node` interface: every type with an identity answers `id: ID!`, and `node(id)` finds it again.

The id is the one the service already gives the node, so no table maps global ids to local ones: the
shape of an id tells its kind (see graph_service/api/node_query.py for the scheme).
"""

from __future__ import annotations

import strawberry


@strawberry.interface(description="Something with an identity; `node(id)` finds it by that id.")
class Node:
    id: strawberry.ID = strawberry.field(description="Its id; unique across kinds (the prefix tells the kind).")
