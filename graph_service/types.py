"""The few type aliases shared across the package."""

from typing import Any, TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSON: TypeAlias = Any  # plain JSON: dict / list / scalar; checked where it enters
Row: TypeAlias = dict[str, Any]
Params: TypeAlias = dict[str, Any]
