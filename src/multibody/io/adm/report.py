"""What an import left out: each unsupported statement, keyword or function, with its line.

Two severities. ``ignored``: it does not change the motion (display settings, output file
options); the model is run without it. ``not simulated``: leaving it out changes the motion (a
joint type, a force expression we cannot evaluate); a model with such items is refused by
``AdmModel.check`` unless the caller accepts the partial model.
"""

from __future__ import annotations

from dataclasses import dataclass

IGNORED = "ignored"
NOT_SIMULATED = "not simulated"


@dataclass(frozen=True)
class ReportItem:
    """One thing left out: where, what, why, and whether it changes the motion."""

    line: int
    column: int
    what: str
    severity: str
    reason: str = ""

    def format(self) -> str:
        """``line 12, column 3: MARKER keyword FLEX_BODY (ignored: ...)``."""
        why = f": {self.reason}" if self.reason else ""
        return f"line {self.line}, column {self.column}: {self.what} ({self.severity}{why})"


@dataclass(frozen=True)
class ImportReport:
    """Everything an import left out, in file order."""

    source: str
    items: tuple[ReportItem, ...] = ()

    @property
    def changes_motion(self) -> tuple[ReportItem, ...]:
        """The items whose absence changes the motion."""
        return tuple(item for item in self.items if item.severity == NOT_SIMULATED)

    def format(self) -> str:
        """The report as printed by ``multibody info``."""
        if not self.items:
            return f"{self.source}: every statement was imported"
        lines = [f"{self.source}: {len(self.items)} items not imported:"]
        lines += [f"  {item.format()}" for item in sorted(self.items, key=lambda i: (i.line, i.column))]
        return "\n".join(lines)
