"""ADAMS dataset lines -> logical statements, each with the file position of every character.

The first line of a dataset is its title. ``!`` starts a comment to the end of the line; a line
whose first non-blank character is ``,`` continues the statement above; ``END`` ends the dataset
(anything after it is ignored, as ADAMS does). A comment of the form ``!adams_view_name='NAME'``
(written by ADAMS/View) gives the element of the next statement its ADAMS/View name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from multibody.io.adm.errors import AdmSyntaxError

VIEW_NAME = re.compile(r"adams_view_name\s*=\s*'([^']*)'", re.IGNORECASE)
"""ADAMS/View's comment naming the element of the next statement."""


@dataclass(frozen=True)
class StatementText:
    """One logical statement: its text (continuation lines joined, comments removed) and, per
    character, the line and column (1-based) it came from."""

    text: str
    lines: tuple[int, ...]
    columns: tuple[int, ...]
    source: str
    view_name: str | None = None

    def where(self, offset: int) -> tuple[int, int]:
        """(line, column) of character ``offset`` (the end of the text maps past its last character)."""
        if not self.text:
            return (self.lines[0], self.columns[0]) if self.lines else (1, 1)
        if offset >= len(self.text):
            return self.lines[-1], self.columns[-1] + 1
        return self.lines[offset], self.columns[offset]


@dataclass(frozen=True)
class Dataset:
    """A dataset split into its title and statements."""

    title: str
    statements: tuple[StatementText, ...]


def split_statements(text: str, source: str = "<string>") -> Dataset:
    """Split dataset ``text`` into its title line and logical statements."""
    physical = text.splitlines()
    title = physical[0].strip() if physical else ""
    statements: list[StatementText] = []
    pending: list[tuple[str, int, int]] | None = None  # (piece, line, first column) of the open statement
    pending_view: str | None = None
    next_view: str | None = None

    def close() -> None:
        if pending:
            statements.append(_joined(pending, source, pending_view))

    for number, raw in enumerate(physical[1:], start=2):
        code, _, comment = raw.partition("!")
        named = VIEW_NAME.search(comment)
        if named:
            next_view = named.group(1)
        stripped = code.strip()
        if not stripped:
            continue
        first_column = len(code) - len(code.lstrip()) + 1
        if stripped.startswith(","):
            if pending is None:
                raise AdmSyntaxError(
                    "continuation line (starting with ',') with no statement above it; "
                    "expected a statement such as 'PART/1, ...'",
                    number,
                    first_column,
                    source,
                )
            pending.append((code.rstrip(), number, 1))
            continue
        close()
        pending, pending_view, next_view = [(code.rstrip(), number, 1)], next_view, None
        if stripped.upper() == "END":
            break
    close()
    return Dataset(title, tuple(statements))


def _joined(pieces: list[tuple[str, int, int]], source: str, view_name: str | None) -> StatementText:
    """Join a statement's physical pieces, keeping each character's line and column."""
    text: list[str] = []
    lines: list[int] = []
    columns: list[int] = []
    for piece, line, first in pieces:
        text.append(piece)
        lines += [line] * len(piece)
        columns += list(range(first, first + len(piece)))
    return StatementText("".join(text), tuple(lines), tuple(columns), source, view_name)
