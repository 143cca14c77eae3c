"""Which subjects name the same entity: operator merges (same entity) and splits (different)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Merge:
    keep: str  # the entity the group joined
    moved: tuple[str, ...]  # the subjects that joined it
    former: str  # the entity they had before


class EntityRegistry:
    """Subject → entity; an unmerged subject is its own entity. Merges are undone group-wise."""

    def __init__(self) -> None:
        self._entity: dict[str, str] = {}
        self._members: dict[str, set[str]] = {}
        self._merges: list[Merge] = []

    def entity(self, subject: str | None) -> str | None:
        if subject is None:
            return None
        return self._entity.get(subject, subject)

    def same(self, a: str | None, b: str | None) -> bool:
        return self.entity(a) == self.entity(b)

    def members(self, entity: str) -> set[str]:
        return set(self._members.get(entity, {entity}))

    def merge(self, keep: str, other: str) -> tuple[str, ...]:
        """Put `other`'s whole entity into `keep`'s; returns the subjects that moved (sorted)."""
        target, former = self.entity(keep), self.entity(other)
        assert target is not None and former is not None and target != former
        moved = tuple(sorted(self.members(former)))
        for subject in moved:
            self._entity[subject] = target
        self._members.setdefault(target, {target}).update(moved)
        self._members.pop(former, None)
        self._merges.append(Merge(target, moved, former))
        return moved

    def split(self, a: str, b: str) -> tuple[str, ...]:
        """Undo the latest merge that joined `a` and `b`; returns the subjects that moved back."""
        for index in range(len(self._merges) - 1, -1, -1):
            record = self._merges[index]
            if (a in record.moved) != (b in record.moved) and self.entity(a) == record.keep:
                del self._merges[index]
                group = self._members[record.keep]
                moved = tuple(s for s in record.moved if s in group)
                for subject in moved:
                    self._entity[subject] = record.former
                    group.discard(subject)
                self._members[record.former] = set(moved)
                return moved
        return ()
