"""Errors of the ADAMS dataset reader: every one says where in the file it is."""

from __future__ import annotations


class AdmError(ValueError):
    """A dataset the reader cannot turn into a model, located at ``line`` and ``column`` (1-based)
    of ``source`` (a file name, or ``<string>``)."""

    def __init__(self, message: str, line: int, column: int, source: str = "<string>") -> None:
        self.line = line
        self.column = column
        self.source = source
        self.reason = message
        super().__init__(f"{source}:{line}:{column}: {message}")


class AdmSyntaxError(AdmError):
    """Text that is not ADAMS dataset syntax; the message says what was expected there."""


class AdmReferenceError(AdmError):
    """A statement that names a PART, MARKER, JOINT, ... id that the dataset does not define, or
    that defines an id twice."""
