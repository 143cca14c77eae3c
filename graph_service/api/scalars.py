"""Scalars beyond GraphQL's own: GraphQL's Int is 32-bit, and epoch milliseconds passed 2^31 in 1970."""

from __future__ import annotations

from typing import NewType

import strawberry
from graphql import GraphQLError

INT64 = (-(2**63), 2**63 - 1)


def _parse_long(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not INT64[0] <= value <= INT64[1]:
        # A GraphQLError (not ValueError) reaches the client as it is: a bad value is the client's to fix.
        raise GraphQLError(f"Long must be an integer within 64 bits, got {value!r:.40}")
    return value


Long = NewType("Long", int)

SCALARS = {
    Long: strawberry.scalar(
        name="Long",
        description="A 64-bit signed integer, as a JSON number (epoch milliseconds, durations in milliseconds).",
        serialize=int,
        parse_value=_parse_long,
    ),
}
"""The schema's scalar_map (StrawberryConfig)."""
