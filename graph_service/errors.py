"""Errors the service raises on purpose; the API lets these through to the client unmasked."""


class UserError(Exception):
    """Bad input or a refused request: the message names what was wrong; nothing was written."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NotFound(UserError):
    """A request named something that does not exist."""


class Conflict(UserError):
    """The request contradicts the current state (answered twice, nothing to resolve, ...)."""


class StoreLocked(RuntimeError):
    """Another service already owns the data folder."""


class JournalBroken(UserError):
    """The stored journal failed its check: writes are refused until an operator repairs it."""


class StoreFormatError(RuntimeError):
    """The store's journal is in a format this version does not write (see the message for what to do)."""


class AlreadyWritten(Conflict):
    """An Idempotency-Key's request was already written (at `seq`): a retry writes nothing again."""

    def __init__(self, message: str, *, seq: int) -> None:
        super().__init__(message, field=None)
        self.seq = seq


class KeyReused(UserError):
    """An Idempotency-Key came back with a different request than the one it was first sent with."""
