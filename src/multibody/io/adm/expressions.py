"""ADAMS function expressions -> Python callables, compiled once.

An expression such as ``-1E4*(DX(0202,0102)-0.5) - 10*VX(0202,0102) + STEP(TIME,0,0,1,100)`` is
tokenized, parsed by recursive descent (Fortran precedence: ``**`` binds tighter than a unary
sign, which binds tighter than ``*`` ``/``, then ``+`` ``-``) and turned into the source of one
Python function, compiled with ``exec``. The function reads marker measurements from a
``Measurements`` (``c``), marker indices bound at model compile time (``m``) and spline curves
(``s``). Arithmetic is numpy's, so one expression evaluates a single instant (floats) or a whole
results history (arrays).

No input reaches the interpreter's limits, however deep or long: the descent runs on an explicit
stack (each grammar rule is a generator that yields the rules it descends into, and ``_descend``
drives them), and the function is straight-line code, one assignment per operation, so no
nesting of parentheses or calls reaches Python's compiler.

Values are in the dataset's units: measurements are divided by the SI size of their unit
(``Units``), and the caller scales the result. ``VARVAL(id)`` is inlined: the VARIABLE's
expression is compiled into the same function once, and every VARVAL of it reads that value
(cycles are errors); so is ``DIF1(id)``, the FUNCTION of DIFF ``id``. ``DIF(id)`` and
``ARYVAL(id, k)`` of an X or Y array read first-order states (``Measurements.state``); an output
of a GSE calls the Python function standing in for its subroutine (``multibody.io.adm.gse``).
``DIF1`` of an implicit DIFF reads ``c.rate(owner, 0)``, the rate its residual is being solved
for: only that DIFF's own FUNCTION can be evaluated with it (``Expression.rates``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from multibody.io.adm import functions
from multibody.io.adm.errors import AdmError, AdmSyntaxError
from multibody.io.adm.units import Units
from multibody.model.marker import Marker
from multibody.spatial.measurements import Measurements

TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?P<degrees>[dD](?![A-Za-z0-9_]))?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/^(),:]))"
)

PURE = {
    "ABS": ("np.abs", 1, 1),
    "ACOS": ("np.arccos", 1, 1),
    "ASIN": ("np.arcsin", 1, 1),
    "ATAN": ("np.arctan", 1, 1),
    "ATAN2": ("np.arctan2", 2, 2),
    "COS": ("np.cos", 1, 1),
    "COSH": ("np.cosh", 1, 1),
    "SIN": ("np.sin", 1, 1),
    "SINH": ("np.sinh", 1, 1),
    "TAN": ("np.tan", 1, 1),
    "TANH": ("np.tanh", 1, 1),
    "EXP": ("np.exp", 1, 1),
    "LOG": ("np.log", 1, 1),
    "LOG10": ("np.log10", 1, 1),
    "SQRT": ("np.sqrt", 1, 1),
    "AINT": ("F.aint", 1, 1),
    "ANINT": ("F.anint", 1, 1),
    "DIM": ("F.dim", 2, 2),
    "MOD": ("F.mod", 2, 2),
    "SIGN": ("F.sign", 2, 2),
    "MAX": ("F.maximum", 2, 2),
    "MIN": ("F.minimum", 2, 2),
    "STEP": ("F.step", 5, 5),
    "STEP5": ("F.step5", 5, 5),
    "HAVSIN": ("F.havsin", 5, 5),
    "POLY": ("F.poly", 3, 32),
    "CHEBY": ("F.cheby", 3, 32),
    "FORCOS": ("F.forcos", 4, 33),
    "FORSIN": ("F.forsin", 4, 33),
    "SHF": ("F.shf", 6, 6),
    "IMPACT": ("F.impact", 7, 7),
    "BISTOP": ("F.bistop", 8, 8),
}
"""Functions of their arguments only: ADAMS name -> (Python callable, fewest, most arguments)."""

CONSTANTS = {"PI": repr(np.pi), "DTOR": repr(np.pi / 180.0), "RTOD": repr(180.0 / np.pi)}

_COMPONENT = {"X": 0, "Y": 1, "Z": 2}
VECTOR_MEASURES = {
    # name stem -> (Measurements method, marker arguments accepted, dimension of the result, need)
    "D": ("displacement", 3, "length", "state"),
    "V": ("velocity", 4, "velocity", "state"),
    "ACC": ("acceleration", 4, "acceleration", "acceleration"),
    "W": ("angular_velocity", 3, "angular_velocity", "state"),
    "WDT": ("angular_acceleration", 4, "angular_acceleration", "acceleration"),
}
MAGNITUDES = {"DM": "D", "VM": "V", "ACCM": "ACC", "WM": "W", "WDTM": "WDT"}
ANGLES = {
    "AX": ("rotation_angle", 0),
    "AY": ("rotation_angle", 1),
    "AZ": ("rotation_angle", 2),
    "PSI": ("euler_angle", 0),
    "THETA": ("euler_angle", 1),
    "PHI": ("euler_angle", 2),
}
NET_LOADS = {"FX": 0, "FY": 1, "FZ": 2, "FM": -1, "TX": 3, "TY": 4, "TZ": 5, "TM": -2}
ELEMENT_LOADS = {
    "JOINT": "JOINT",
    "JPRIM": "JPRIM",
    "MOTION": "MOTION",
    "GCON": "GCON",
    "SFORCE": "SFORCE",
    "VFORCE": "VFORCE",
    "VTORQUE": "VTORQUE",
    "GFORCE": "GFORCE",
    "BUSH": "BUSHING",
    "SPDP": "SPRINGDAMPER",
}
"""Element-load functions (id, jflag, component, rm) -> the statement whose element they read."""


class UnsupportedFunction(AdmError):
    """A function (or form of one) that the reader cannot evaluate."""


class Resolver(Protocol):
    """What an expression's ids refer to, supplied by the builder."""

    def marker(self, marker_id: int, line: int, column: int) -> Marker: ...

    def curve(self, spline_id: int, method: str, line: int, column: int) -> functions.Curve:
        """SPLINE ``spline_id`` read by ``method`` ("akima" or "cubic")."""
        ...

    def variable(self, variable_id: int, line: int, column: int) -> tuple[str, Callable[[int], tuple[int, int]]]: ...

    def element(self, statement: str, element_id: int, line: int, column: int) -> str: ...

    def diff_rate(self, diff_id: int, line: int, column: int) -> tuple[str, Callable[[int], tuple[int, int]]]:
        """The FUNCTION of an explicit DIFF (its state's rate), for DIF1."""
        ...

    def implicit_diff(self, diff_id: int, line: int, column: int) -> str | None:
        """The element name of DIFF ``diff_id`` when it is implicit (DIF1 of it is then the rate its
        residual is solved for), else None."""
        ...

    def array_entry(self, array_id: int, k: int, line: int, column: int) -> tuple:
        """What ARYVAL(array_id, k) reads: ("number", value), ("variable", VARIABLE id), ("state",
        owner, index), ("output", owner, C row, D row, input VARIABLE ids) of a linear element, or
        ("call", function, output index, owner, number of states, input VARIABLE ids) of a GSE:
        ``function(time, x, u)`` gives its outputs (``multibody.io.adm.gse.OutputCall``)."""
        ...


@dataclass(frozen=True)
class Expression:
    """A compiled expression. ``markers`` are the model markers it reads (bound to system indices
    by ``bind``); ``needs`` says what it reads: "time", "state" (marker positions and
    velocities), "states" (first-order states: DIF, ARYVAL), "acceleration", "loads" (element
    forces). ``curves`` are the callables it calls: spline curves and GSE output functions."""

    text: str
    code: str
    markers: tuple[Marker, ...]
    curves: tuple[Callable, ...]
    needs: frozenset[str]
    function: Callable
    rates: frozenset[str] = frozenset()
    """the implicit DIFFs whose rate (DIF1) it reads: evaluated with ``c.rate`` giving it"""

    def bind(self, marker_indices: Sequence[int]) -> Callable[[Measurements], functions.Value]:
        """A callable of a ``Measurements`` with this expression's markers at ``marker_indices``."""
        indices = tuple(int(k) for k in marker_indices)
        function, curves = self.function, self.curves
        return lambda measurements: function(measurements, indices, curves)

    def of_time(self) -> Callable[[float], functions.Value]:
        """The expression as a function of time [s]; ``UnsupportedFunction`` if it reads anything
        else (marker states, accelerations, loads)."""
        if self.needs - {"time"}:
            raise UnsupportedFunction(f"expression '{self.text}' reads more than TIME; only TIME may appear here", 1, 1)
        function, curves = self.function, self.curves
        return lambda t: function(_Clock(t), (), curves)


@dataclass(frozen=True)
class _Clock:
    """A stand-in for ``Measurements`` when only the time is read."""

    time: float


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    offset: int
    degrees: bool = False


Rule = Generator["Rule", str, str]
"""A grammar rule in the descent: yields the rules it descends into, is sent their code, returns its own."""

_BLANK_TO_END = re.compile(r"\s*\Z")


def _descend(rule: Rule) -> str:
    """Run ``rule`` and every rule it yields on an explicit stack; the code of ``rule``."""
    stack: list[Rule] = [rule]
    value: str | None = None  # a rule just pushed is started with None
    while True:
        try:
            inner = stack[-1].send(value)
        except StopIteration as done:
            stack.pop()
            if not stack:
                return done.value
            value = done.value
            continue
        stack.append(inner)
        value = None


@dataclass
class _Output:
    """What the compilers of one expression (and of the VARIABLEs it inlines) emit together: one
    assignment per operation, the markers and curves read, what is needed, VARIABLE values."""

    statements: list[str] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    curves: list[Callable] = field(default_factory=list)
    needs: set[str] = field(default_factory=set)
    rates: set[str] = field(default_factory=set)
    variables: dict[tuple[str, int], str] = field(default_factory=dict)
    """value of each inlined VARIABLE (and DIFF rate, for DIF1) by (statement, id)"""

    def emit(self, code: str) -> str:
        """Assign ``code`` to a new local of the function; its name."""
        name = f"t{len(self.statements)}"
        self.statements.append(f"{name} = {code}")
        return name


class _Compiler:
    """Recursive-descent parser that emits Python statements as it goes (see ``_descend``)."""

    def __init__(
        self,
        text: str,
        locate: Callable[[int], tuple[int, int]],
        source: str,
        resolver: Resolver | None,
        units: Units,
        inlining: tuple[tuple[str, int], ...] = (),
        output: _Output | None = None,
    ) -> None:
        self.text = text
        self.locate = locate
        self.source = source
        self.resolver = resolver
        self.units = units
        self.inlining = inlining
        self.output = _Output() if output is None else output
        self.tokens = self._tokenize()
        self.position = 0

    def _tokenize(self) -> list[_Token]:
        tokens, at = [], 0
        while not _BLANK_TO_END.match(self.text, at):
            found = TOKEN.match(self.text, at)
            if found is None or found.end() == at:
                start = len(self.text) - len(self.text[at:].lstrip())
                raise self._error(f"a number, a name or an operator, found {self.text[start : start + 10]!r}", start)
            kind = found.lastgroup if found.lastgroup != "degrees" else "number"
            start = found.start(kind)
            tokens.append(_Token(kind, found.group(kind), start, bool(found.group("degrees"))))
            at = found.end()
        tokens.append(_Token("end", "", len(self.text)))
        return tokens

    def _error(self, expected: str, offset: int) -> AdmSyntaxError:
        line, column = self.locate(offset)
        return AdmSyntaxError(f"in expression {_shown(self.text)}: expected {expected}", line, column, self.source)

    def _where(self, token: _Token) -> tuple[int, int]:
        return self.locate(token.offset)

    @property
    def current(self) -> _Token:
        return self.tokens[self.position]

    def _take(self, text: str, expected: str) -> _Token:
        token = self.current
        if token.text != text:
            found = token.text or "the end of the expression"
            raise self._error(f"{expected}, found {found!r}", token.offset)
        self.position += 1
        return token

    def compile(self) -> str:
        """The code of the whole text: a literal, a name of the function's locals, or ``c.time``."""
        return _descend(self.whole())

    def whole(self) -> Rule:
        code = yield self.expression()
        if self.current.kind != "end":
            raise self._error(
                f"an operator or the end of the expression, found {self.current.text!r}", self.current.offset
            )
        return code

    def expression(self) -> Rule:
        return (yield from self._left_to_right(self.term, ("+", "-")))

    def term(self) -> Rule:
        return (yield from self._left_to_right(self.unary, ("*", "/")))

    def _left_to_right(self, operand: Callable[[], Rule], operators: tuple[str, str]) -> Rule:
        """``operand (operator operand)*``, grouped from the left."""
        code = yield operand()
        while self.current.text in operators:
            operator = self.current.text
            self.position += 1
            right = yield operand()
            code = self.output.emit(f"{code} {operator} {right}")
        return code

    def unary(self) -> Rule:
        if self.current.text in ("+", "-"):
            operator = self.current.text
            self.position += 1
            operand = yield self.unary()
            return self.output.emit(f"{operator}{operand}")
        return (yield self.power())

    def power(self) -> Rule:
        base = yield self.atom()
        if self.current.text in ("**", "^"):
            self.position += 1
            exponent = yield self.unary()
            return self.output.emit(f"{base} ** {exponent}")
        return base

    def atom(self) -> Rule:
        token = self.current
        if token.kind == "number":
            self.position += 1
            value = float(token.text[:-1] if token.degrees else token.text)
            if not np.isfinite(value):
                raise self._error(f"a finite number, found {token.text}", token.offset)
            return repr(float(np.radians(value)) if token.degrees else value)
        if token.text == "(":
            self.position += 1
            code = yield self.expression()
            self._take(")", "')'")
            return code
        if token.kind == "name":
            self.position += 1
            name = token.text.upper()
            if self.current.text == "(":
                return (yield from self.call(name, token))
            return self.name(name, token)
        found = token.text or "the end of the expression"
        raise self._error(f"a number, a name or '(', found {found!r}", token.offset)

    def name(self, name: str, token: _Token) -> str:
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name == "TIME":
            self.output.needs.add("time")
            return f"(c.time / {self.units.factor('time')!r})"
        raise self._unsupported(f"name {name} (known names: TIME, PI, DTOR, RTOD)", token)

    def _unsupported(self, what: str, token: _Token) -> UnsupportedFunction:
        line, column = self._where(token)
        return UnsupportedFunction(f"unsupported {what} in expression {_shown(self.text)}", line, column, self.source)

    def arguments(self, name: str) -> Generator[Rule, str, list[tuple[str, _Token]]]:
        """The call's arguments as (code, first token); IF separates its first with ':'."""
        self._take("(", "'('")
        arguments: list[tuple[str, _Token]] = []
        if self.current.text == ")":
            self.position += 1
            return arguments
        while True:
            first = self.current
            arguments.append(((yield self.expression()), first))
            separator = ":" if name == "IF" and len(arguments) == 1 else ","
            if self.current.text == ")":
                self.position += 1
                return arguments
            self._take(separator, f"'{separator}' or ')' in the arguments of {name}")

    def call(self, name: str, token: _Token) -> Rule:
        arguments = yield from self.arguments(name)
        codes = [code for code, _ in arguments]
        if name == "IF":
            self._count(name, arguments, 4, 4, token)
            return self.output.emit(f"F.if_sign({', '.join(codes)})")
        if name in PURE:
            function, fewest, most = PURE[name]
            self._count(name, arguments, fewest, most, token)
            if name in ("STEP", "STEP5", "HAVSIN"):
                self._increasing(name, arguments[1], arguments[3])
            return self.output.emit(f"{function}({', '.join(codes)})")
        if name == "VARVAL":
            self._count(name, arguments, 1, 1, token)
            return (yield from self.variable(self._id(arguments[0], name), token))
        if name == "DIF":
            self._count(name, arguments, 1, 1, token)
            owner = self._resolver(token).element("DIFF", self._id(arguments[0], name), *self._where(arguments[0][1]))
            self.output.needs.add("states")
            return self.output.emit(f"c.state({owner!r}, 0)")
        if name == "DIF1":
            self._count(name, arguments, 1, 1, token)
            resolver = self._resolver(token)
            diff_id = self._id(arguments[0], name)
            implicit = resolver.implicit_diff(diff_id, *self._where(arguments[0][1]))
            if implicit is not None:  # the rate being solved for, per the dataset's time unit
                self.output.rates.add(implicit)
                return self.output.emit(f"c.rate({implicit!r}, 0) * {self.units.factor('time')!r}")
            return (yield from self.inline("DIFF", diff_id, token, resolver.diff_rate))
        if name == "ARYVAL":
            self._count(name, arguments, 2, 2, token)
            return (yield from self.array_value(arguments, token))
        if name in ("AKISPL", "CUBSPL"):
            self._count(name, arguments, 3, 4, token)
            method = "akima" if name == "AKISPL" else "cubic"
            curve = self._resolver(token).curve(self._id(arguments[2], name), method, *self._where(arguments[2][1]))
            order = self._id(arguments[3], name) if len(arguments) == 4 else 0
            if order not in (0, 1, 2):
                raise self._error(
                    f"the derivative order of {name} to be 0, 1 or 2, got {order}", arguments[3][1].offset
                )
            self.output.curves.append(curve)
            return self.output.emit(f"s[{len(self.output.curves) - 1}]({codes[0]}, {order})")
        return self.output.emit(self.measure(name, arguments, token))

    def measure(self, name: str, arguments: list[tuple[str, _Token]], token: _Token) -> str:
        stem, component = name[:-1], name[-1]
        if component in _COMPONENT and stem in VECTOR_MEASURES:
            method, most, dimension, need = VECTOR_MEASURES[stem]
            self._count(name, arguments, 1, most, token)
            markers = self._markers(arguments, name)
            return self._scaled(f"c.{method}({markers})[..., {_COMPONENT[component]}]", dimension, need)
        if name in MAGNITUDES:
            method, _, dimension, need = VECTOR_MEASURES[MAGNITUDES[name]]
            self._count(name, arguments, 1, 3 if name != "DM" and name != "WM" else 2, token)
            markers = self._markers(arguments, name)
            if len(arguments) == 3:  # the frame L of a rate, which is the 4th argument of the vector form
                i, j, frame = markers.split(", ")
                markers = f"{i}, {j}, None, {frame}"
            return self._scaled(f"np.linalg.norm(c.{method}({markers}), axis=-1)", dimension, need)
        if name == "VR":
            self._count(name, arguments, 1, 3, token)
            return self._scaled(f"c.radial_velocity({self._markers(arguments, name)})", "velocity", "state")
        if name in ANGLES:
            method, which = ANGLES[name]
            self._count(name, arguments, 1, 2, token)
            markers = self._markers(arguments, name) + (", None" if len(arguments) == 1 else "")
            self.output.needs.add("state")
            return f"c.{method}({markers}, {which})"
        if name == "ORIENT":
            self._count(name, arguments, 3, 4, token)
            kind, component = self._id(arguments[0], name), self._id(arguments[1], name)
            if kind != 27 or component not in (1, 2, 3, 4):
                raise self._unsupported(f"ORIENT({kind}, {component}, ...): only type 27 (Euler parameters 1-4)", token)
            self.output.needs.add("state")
            return f"c.euler_parameters({self._markers(arguments[2:], name)})[..., {component - 1}]"
        if name in NET_LOADS:
            self._count(name, arguments, 2, 3, token)
            return self._load_component(f"c.net_wrench({self._markers(arguments, name)})", NET_LOADS[name])
        if name in ELEMENT_LOADS:
            self._count(name, arguments, 3, 4, token)
            element = self._resolver(token).element(
                ELEMENT_LOADS[name], self._id(arguments[0], name), *self._where(arguments[0][1])
            )
            on_j = self._id(arguments[1], name)
            component = self._id(arguments[2], name)
            if on_j not in (0, 1) or not 1 <= component <= 8:
                raise self._error(f"{name}(id, 0 or 1, component 1-8 [, rm])", arguments[1][1].offset)
            frame = self._markers(arguments[3:], name) if len(arguments) == 4 else "None"
            return self._load_component(
                f"c.wrench({element!r}, {bool(on_j)}, {frame})", (-1, 0, 1, 2, -2, 3, 4, 5)[component - 1]
            )
        raise self._unsupported(f"function {name}", token)

    def _load_component(self, wrench: str, component: int) -> str:
        """A force (0-2), torque (3-5), force magnitude (-1) or torque magnitude (-2) of a wrench."""
        self.output.needs.add("loads")
        if component == -1:
            return self._scaled(f"np.linalg.norm({wrench}[..., :3], axis=-1)", "force", "loads")
        if component == -2:
            return self._scaled(f"np.linalg.norm({wrench}[..., 3:], axis=-1)", "torque", "loads")
        return self._scaled(f"{wrench}[..., {component}]", "force" if component < 3 else "torque", "loads")

    def _scaled(self, code: str, dimension: str, need: str) -> str:
        self.output.needs.add(need)
        return f"({code} / {self.units.factor(dimension)!r})"

    def _increasing(self, name: str, start: tuple[str, _Token], end: tuple[str, _Token]) -> None:
        """A transition from x0 to x1 given as numbers must have x1 > x0."""
        try:
            x0, x1 = float(start[0]), float(end[0])
        except ValueError:  # expressions: checked when evaluated
            return
        if not x1 > x0:
            raise self._error(f"x1 > x0 in {name}(x, x0, h0, x1, h1), got x0 = {x0:g}, x1 = {x1:g}", end[1].offset)

    def _count(self, name: str, arguments: list, fewest: int, most: int, token: _Token) -> None:
        if not fewest <= len(arguments) <= most:
            wanted = f"{fewest}" if fewest == most else f"{fewest} to {most}"
            raise self._error(f"{wanted} arguments for {name}, got {len(arguments)}", token.offset)

    def _id(self, argument: tuple[str, _Token], name: str) -> int:
        code, token = argument
        try:
            value = float(code)
        except ValueError:
            raise self._error(f"a whole-number id or option in {name}, not an expression", token.offset) from None
        if value != int(value):
            raise self._error(f"a whole-number id or option in {name}, got {code}", token.offset)
        return int(value)

    def _resolver(self, token: _Token) -> Resolver:
        if self.resolver is None:
            raise self._unsupported("reference to the model (no model to resolve it against)", token)
        return self.resolver

    def _markers(self, arguments: list[tuple[str, _Token]], name: str) -> str:
        """Marker id arguments as slots ``m[k]``; id 0 (ADAMS's 'left out') is the ground frame."""
        slots = []
        for argument in arguments:
            marker_id = self._id(argument, name)
            if marker_id == 0:
                slots.append("None")
                continue
            marker = self._resolver(argument[1]).marker(marker_id, *self._where(argument[1]))
            if marker not in self.output.markers:
                self.output.markers.append(marker)
            slots.append(f"m[{self.output.markers.index(marker)}]")
        return ", ".join(slots)

    def variable(self, variable_id: int, token: _Token) -> Rule:
        """The value of VARIABLE ``variable_id``: its expression compiled into this function once."""
        return (yield from self.inline("VARIABLE", variable_id, token, self._resolver(token).variable))

    def inline(
        self, kind: str, element_id: int, token: _Token, text_of: Callable[[int, int, int], tuple[str, Callable]]
    ) -> Rule:
        """The value of the expression of ``kind``/``element_id`` (a VARIABLE's FUNCTION, a DIFF's
        rate), given by ``text_of(id, line, column)``, compiled into this function once."""
        key = (kind, element_id)
        if key in self.inlining:
            chain = " -> ".join(f"{k}/{v}" for k, v in (*self.inlining, key))
            line, column = self._where(token)
            raise AdmError(f"expressions refer to each other in a cycle: {chain}", line, column, self.source)
        if key not in self.output.variables:
            text, locate = text_of(element_id, *self._where(token))
            inlining = (*self.inlining, key)
            inner = _Compiler(text, locate, self.source, self.resolver, self.units, inlining, self.output)
            self.output.variables[key] = yield inner.whole()
        return self.output.variables[key]

    def array_value(self, arguments: list[tuple[str, _Token]], token: _Token) -> Rule:
        """ARYVAL(id, k): entry k (from 1) of an ARRAY: a number (IC), a VARIABLE (U), a state (X)
        or an output (Y) of the LSE, GSE or TFSISO that owns the array."""
        array_id, k = self._id(arguments[0], "ARYVAL"), self._id(arguments[1], "ARYVAL")
        entry = self._resolver(token).array_entry(array_id, k, *self._where(arguments[0][1]))
        if entry[0] == "number":
            return repr(float(entry[1]))
        if entry[0] == "variable":
            return (yield from self.variable(entry[1], token))
        if entry[0] == "state":
            self.output.needs.add("states")
            return self.output.emit(f"c.state({entry[1]!r}, {entry[2]})")
        if entry[0] == "call":  # a GSE output: its function of time [dataset unit], states and inputs
            _, function, k, owner, size, inputs = entry
            self.output.needs |= {"time", "states"}
            states = ", ".join(f"c.state({owner!r}, {j})" for j in range(size))
            values = []
            for variable_id in inputs:
                values.append((yield from self.variable(variable_id, token)))
            self.output.curves.append(function)
            time = f"c.time / {self.units.factor('time')!r}"
            call = f"s[{len(self.output.curves) - 1}]({time}, [{states}], [{', '.join(values)}])"
            return self.output.emit(f"{call}[..., {k}]")
        _, owner, state_row, input_row, inputs = entry  # an output: C x + D u
        self.output.needs.add("states")
        terms = [f"{c!r} * c.state({owner!r}, {j})" for j, c in enumerate(state_row) if c != 0.0]
        for d, variable_id in zip(input_row, inputs):
            if d != 0.0:
                terms.append(f"{d!r} * {(yield from self.variable(variable_id, token))}")
        return self.output.emit(" + ".join(terms) or "0.0")


def compile_expression(
    text: str,
    units: Units,
    resolver: Resolver | None = None,
    locate: Callable[[int], tuple[int, int]] | None = None,
    source: str = "<string>",
) -> Expression:
    """Compile ADAMS expression ``text``; ``locate(offset)`` gives the file (line, column) of a
    character of it (default: line 1, column offset + 1)."""
    locate = locate or (lambda offset: (1, offset + 1))
    compiler = _Compiler(text, locate, source, resolver, units)
    value = compiler.compile()
    output = compiler.output
    code = "".join(f"    {statement}\n" for statement in output.statements) + f"    return {value}\n"
    namespace = {"F": functions, "np": np, "__builtins__": {}}
    exec(f"def expression(c, m, s):\n{code}", namespace)
    return Expression(
        text,
        code,
        tuple(output.markers),
        tuple(output.curves),
        frozenset(output.needs),
        namespace["expression"],
        frozenset(output.rates),
    )


def _shown(text: str, longest: int = 60) -> str:
    """``text`` quoted for a message, its middle cut out when it is longer than ``longest``."""
    if len(text) <= longest:
        return repr(text)
    half = longest // 2
    return repr(f"{text[:half]} ... {text[-half:]}")
