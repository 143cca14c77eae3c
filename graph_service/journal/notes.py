"""The journal's own operation: a note, which is recorded and chained and changes nothing else."""

from __future__ import annotations

from graph_service.domain import Applied, Draft
from graph_service.errors import UserError
from graph_service.journal.chain import Entry

MAX_NOTE_CHARS = 10_000


def plan_note(text: str) -> Draft:
    """A note entry; the text must be non-empty and at most MAX_NOTE_CHARS characters."""
    if not isinstance(text, str) or not text.strip():
        raise UserError("text must be a non-empty string", field="text")
    if len(text) > MAX_NOTE_CHARS:
        raise UserError(f"text is {len(text)} characters; at most {MAX_NOTE_CHARS} are accepted", field="text")
    return Draft("note", {"text": text}, changes_graph=False)


class NoteDomain:
    """Applies notes: nothing changes but the journal."""

    def handles(self, op: str) -> bool:
        return op == "note"

    def reset(self) -> None:
        """Nothing to forget: notes keep no state."""

    def apply(self, entry: Entry) -> Applied:
        return Applied(result={"seq": entry.seq})
