"""ADAMS/Solver command files (.acf): which analysis to run, to what time, how often to output.

An .acf starts with two lines, the dataset file name (blank: the one given on the command line)
and the output files' prefix; then commands, abbreviated like dataset keywords:

    SIMULATE/DYNAMIC, END = 5, DTOUT = 0.01      (or STEPS = n, DURATION = d)
    INTEGRATOR/SI2, ERROR = 1E-6
    STOP

``SIMULATE/DYNAMIC`` (or ``TRANSIENT``) maps to dynamics, ``KINEMATIC`` to kinematics and
``STATIC`` to statics. One SIMULATE command is supported; further ones (a run continued from where
the previous ended) are reported. Times are in the dataset's time unit.
"""

from __future__ import annotations

from dataclasses import dataclass

from multibody.io.adm import keywords
from multibody.io.adm.errors import AdmError, AdmSyntaxError
from multibody.io.adm.lexer import StatementText
from multibody.io.adm.parser import Statement, Unknown, parse_statement
from multibody.io.adm.report import IGNORED, NOT_SIMULATED, ReportItem

ANALYSIS = {"DYNAMIC": "dynamics", "TRANSIENT": "dynamics", "KINEMATIC": "kinematics", "STATIC": "statics"}


@dataclass(frozen=True)
class CommandFile:
    """What an .acf asks for: the dataset name (may be empty), the analysis settings as
    ``multibody run`` takes them (``analysis``, ``t_end``, ``output_step`` [s]; ``method``, ``rtol``
    from an INTEGRATOR command), and what was left out."""

    dataset: str
    settings: dict[str, object]
    items: tuple[ReportItem, ...]


def parse_acf(text: str, time_unit: float = 1.0, source: str = "<string>") -> CommandFile:
    """Read an .acf; ``time_unit`` [s] is the size of the dataset's time unit."""
    physical = text.splitlines()
    dataset = physical[0].strip() if physical else ""
    settings: dict[str, object] = {}
    items: list[ReportItem] = _prefix_that_looks_like_a_command(physical[1] if len(physical) > 1 else "", source)
    simulated = False
    for number, raw in enumerate(physical[2:], start=3):
        code = raw.partition("!")[0].rstrip()
        if not code.strip():
            continue
        if code.strip().startswith(","):
            raise AdmSyntaxError(
                "continuation lines are not supported in command files; put the command on one line", number, 1, source
            )
        statement = parse_statement(
            StatementText(code, (number,) * len(code), tuple(range(1, len(code) + 1)), source), keywords.COMMANDS
        )
        if isinstance(statement, Unknown):
            items.append(
                ReportItem(
                    statement.line,
                    statement.column,
                    statement.what.replace("statement", "command"),
                    IGNORED,
                    "not supported by this reader",
                )
            )
            continue
        items += [
            ReportItem(u.line, u.column, u.what, NOT_SIMULATED, "keyword not supported") for u in statement.unknown
        ]
        if statement.name == "STOP":
            break
        if statement.name == "INTEGRATOR":
            if statement.has("I3") or statement.has("SI2") or statement.has("SI1"):
                settings["method"] = "I3" if statement.has("I3") else "SI2"
            if statement.has("ERROR"):
                settings["rtol"] = float(statement.get("ERROR"))
            continue
        if statement.name != "SIMULATE":
            items.append(
                ReportItem(
                    statement.line, statement.column, f"{statement.name} command", IGNORED, "ADAMS output-file settings"
                )
            )
            continue
        if simulated:
            items.append(
                ReportItem(
                    statement.line,
                    statement.column,
                    "a second SIMULATE command",
                    NOT_SIMULATED,
                    "only the first SIMULATE command is run",
                )
            )
            continue
        simulated = True
        settings.update(_simulate(statement, time_unit, source))
    return CommandFile(dataset, settings, tuple(items))


def _prefix_that_looks_like_a_command(line: str, source: str) -> list[ReportItem]:
    """A report item when the .acf's second line, the output-file prefix by ADAMS's convention,
    reads as a command with arguments (``SIMULATE/DYNAMIC, END = 1``): the line is not run."""
    code = line.partition("!")[0].rstrip()
    try:
        statement = parse_statement(
            StatementText(code, (2,) * len(code), tuple(range(1, len(code) + 1)), source), keywords.COMMANDS
        )
    except AdmError:
        return []
    if isinstance(statement, Unknown) or statement.unknown or not statement.arguments:
        return []
    return [
        ReportItem(
            2,
            statement.column,
            f"{statement.name} command on line 2",
            NOT_SIMULATED,
            "the second line of a command file is the output-file prefix (the first is the dataset); this line is "
            "taken as the prefix and not run: put the prefix (or a blank line) before the commands",
        )
    ]


def _simulate(statement: Statement, time_unit: float, source: str) -> dict[str, object]:
    kinds = [k for k in ANALYSIS if statement.has(k)]
    if len(kinds) != 1:
        raise AdmSyntaxError(f"SIMULATE needs one of {', '.join(ANALYSIS)}", statement.line, statement.column, source)
    settings: dict[str, object] = {"analysis": ANALYSIS[kinds[0]]}
    if settings["analysis"] == "statics":
        return settings
    end = statement.get("END", statement.get("DURATION"))
    if end is None:
        raise AdmSyntaxError("SIMULATE needs END or DURATION", statement.line, statement.column, source)
    settings["t_end"] = float(end) * time_unit
    if statement.has("DTOUT"):
        settings["output_step"] = float(statement.get("DTOUT")) * time_unit
    elif statement.has("STEPS"):
        steps = int(statement.get("STEPS"))
        if steps < 1:
            raise AdmSyntaxError("STEPS must be at least 1", statement.line, statement.column, source)
        settings["output_step"] = settings["t_end"] / steps
    return settings
