"""ADAMS GSE statements (general state equations) with Python functions in place of their subroutines.

A GSE defines ``x' = f(x, u, t)``, ``y = g(x, u, t)`` through a compiled user subroutine
(GSE_DERIV, GSE_OUTPUT) that the dataset names (``FUNCTION = USER(r1, ..., rn)``) but does not
contain, so a deck alone cannot define one. The reader takes Python functions in their place::

    read_adm("boom.adm", gse={1: GseFunctions(rate=deriv, output=output)})

``rate(time, x, u, parameters)`` returns x' (NS,) and ``output(time, x, u, parameters)`` y (NO,),
in the dataset's units as the subroutines would (``time`` in its time unit, x' per time unit):
``x`` (NS,) the states, ``u`` the values of the VARIABLEs of the U array, ``parameters`` the
numbers r1 ... rn of ``USER``. The GSE becomes a ``DifferentialEquation`` named ``GSE/id`` with
that output law; ARYVAL reads its X array (states) and its Y array (outputs: ``output`` is called
where they are read, at the instant) in any expression, requests included.

A GSE without functions is reported as not simulated, naming the statement and this hook.
Not supported (reported): IMPLICIT, discrete states (ND, XD, ICD, SAMPLE_PERIOD), NS = 0.
STATIC_HOLD is reported as ignored: statics solves for the states' equilibrium (x' = 0).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.io.adm.expressions import UnsupportedFunction
from multibody.model.element import ModelError
from multibody.model.states import DifferentialEquation

if TYPE_CHECKING:
    from multibody.io.adm.builder import _Builder
    from multibody.io.adm.parser import Statement
    from multibody.model.states import Measure

FloatArray = NDArray[np.float64]
Subroutine = Callable[[float, FloatArray, FloatArray, tuple[float, ...]], ArrayLike]

USER_CALL = re.compile(r"^\s*USER\s*\((?P<arguments>[^()]*)\)\s*$", re.IGNORECASE)
DISCRETE = ("ND", "XD", "ICD", "SAMPLE_PERIOD", "SAMPLE_OFFSET")
"""Keywords of a GSE's discrete states (sampled), which the reader does not simulate."""


@dataclass(frozen=True)
class GseFunctions:
    """The Python stand-ins for a GSE's user subroutine (see the module docstring):
    ``rate(time, x, u, parameters) -> x'`` (NS,) and, when the GSE has outputs (NO > 0),
    ``output(time, x, u, parameters) -> y`` (NO,)."""

    rate: Subroutine
    output: Subroutine | None = None


def check_gse_functions(gse: Mapping[int, GseFunctions] | None) -> dict[int, GseFunctions]:
    """``gse`` as given to the reader, checked: GSE ids (int) -> ``GseFunctions``."""
    checked: dict[int, GseFunctions] = {}
    for gse_id, functions in dict(gse or {}).items():
        if isinstance(gse_id, bool) or not isinstance(gse_id, int):
            raise ModelError(f"gse= maps GSE ids (whole numbers) to GseFunctions, got the key {gse_id!r}")
        if not isinstance(functions, GseFunctions) or not callable(functions.rate):
            raise ModelError(f"gse={{{gse_id}: ...}} must be a GseFunctions(rate, output), got {functions!r}")
        if functions.output is not None and not callable(functions.output):
            raise ModelError(f"gse={{{gse_id}: ...}}: output must be a function, got {functions.output!r}")
        checked[gse_id] = functions
    return checked


@dataclass(frozen=True)
class OutputCall:
    """A GSE's output function as an expression calls it: ``(time, x, u) -> y`` (NO,) at one
    instant, or (T, NO) over a history (requests), ``time``, ``x`` and ``u`` in the dataset's units."""

    owner: str
    function: Subroutine
    parameters: tuple[float, ...]
    outputs: int

    def __call__(self, time: float | FloatArray, x: list, u: list) -> FloatArray:
        if np.ndim(time) == 0:
            return self.once(float(time), np.array(x, dtype=float), np.array(u, dtype=float))
        columns = np.broadcast_arrays(np.asarray(time, dtype=float), *(np.asarray(v, dtype=float) for v in (*x, *u)))
        values = np.stack(columns[1:], axis=-1).reshape(len(columns[0]), -1)
        return np.array([self.once(t, row[: len(x)], row[len(x) :]) for t, row in zip(columns[0], values)]).reshape(
            len(columns[0]), self.outputs
        )

    def once(self, time: float, x: FloatArray, u: FloatArray) -> FloatArray:
        """y (NO,) at one instant; a failure or a wrong count is a ``ValueError`` naming the GSE."""
        try:
            y = np.asarray(self.function(time, x, u, self.parameters), dtype=float).reshape(-1)
        except Exception as error:
            raise ValueError(
                f"{self.owner}: its output function raised {type(error).__name__}: {error} at time {time:g}"
            ) from error
        if y.size != self.outputs:
            raise ValueError(f"{self.owner}: its output function returned {y.size} values for NO = {self.outputs}")
        return y


@dataclass(frozen=True)
class _Gse:
    """What one GSE statement declares."""

    states: int
    outputs: int
    inputs: tuple[int, ...]
    """the VARIABLE ids of its U array"""
    parameters: tuple[float, ...]
    functions: GseFunctions


def _declared(builder: _Builder, statement: Statement) -> _Gse:
    """The GSE's sizes, inputs, USER parameters and functions; ``UnsupportedFunction`` for what
    the reader cannot simulate, ``AdmError`` for a malformed statement."""
    where = (statement.line, statement.column, builder.source)
    functions = builder.gse.get(statement.id)  # type: ignore[arg-type]
    if functions is None:
        raise UnsupportedFunction(
            "its user subroutine (GSE_DERIV, GSE_OUTPUT) is not in the dataset; give Python functions in "
            f"its place: read_adm(path, gse={{{statement.id}: GseFunctions(rate=f, output=g)}}) (multibody.io.adm.gse)",
            *where,
        )
    for keyword in ("IMPLICIT", *DISCRETE):
        if statement.has(keyword):
            what = "an implicit GSE" if keyword == "IMPLICIT" else f"discrete GSE states ({keyword})"
            raise UnsupportedFunction(f"{what}: only continuous explicit states x' = f(x, u, t) are read", *where)
    states, outputs = int(builder.required(statement, "NS")), int(statement.get("NO", 0))  # type: ignore[call-overload]
    if states < 1 or outputs < 0:
        raise builder.fail(statement, f"NS must be >= 1 and NO >= 0, got NS = {states}, NO = {outputs}", "NS")
    if outputs and functions.output is None:
        raise builder.fail(statement, f"NO = {outputs}: its GseFunctions needs an output function", "NO")
    text, _ = builder.function_text(statement)
    call = USER_CALL.match(text)
    if call is None:
        raise builder.fail(statement, f"FUNCTION must be USER(r1, ..., rn), got {text!r}", "FUNCTION")
    try:
        parameters = tuple(float(r) for r in call.group("arguments").split(",") if r.strip())
    except ValueError:
        raise builder.fail(statement, f"the USER parameters must be numbers, got {text!r}", "FUNCTION") from None
    for keyword, size in (("X", states), ("Y", outputs)):
        array = builder.statements.get(("ARRAY", statement.get(keyword))) if statement.has(keyword) else None
        if statement.has(keyword) and array is None:
            raise builder.fail(statement, f"{keyword}={statement.get(keyword)} is not a defined ARRAY", keyword)
        if array is not None and array.has("SIZE") and array.get("SIZE") != size:
            raise builder.fail(statement, f"ARRAY/{array.id} has SIZE {array.get('SIZE')}, the GSE {size}", keyword)
    inputs = builder.array_variables(statement, "U") if statement.has("U") else ()
    return _Gse(states, outputs, inputs, parameters, functions)


def gse_output_entry(builder: _Builder, statement: Statement, k: int) -> tuple:
    """What ``ARYVAL`` of entry ``k`` (from 0) of the GSE's Y array reads (``Resolver.array_entry``)."""
    gse = _declared(builder, statement)
    call = OutputCall(statement.label, gse.functions.output, gse.parameters, gse.outputs)  # type: ignore[arg-type]
    return ("call", call, k, statement.label, gse.states, gse.inputs)


def gse_sizes(builder: _Builder, statement: Statement) -> tuple[int, int]:
    """``(NS, NO)`` of a GSE statement."""
    gse = _declared(builder, statement)
    return gse.states, gse.outputs


def build_gse(builder: _Builder, statement: Statement) -> None:
    """GSE -> a ``DifferentialEquation`` with an output law, calling the ``GseFunctions`` given for it."""
    gse = _declared(builder, statement)
    if statement.has("STATIC_HOLD"):
        builder.report_static_hold(statement)
    inputs, reads = builder.input_values(statement, gse.inputs)
    seconds = builder.units.factor("time")
    initial = builder.initial_array(statement, gse.states) if statement.has("IC") else np.zeros(gse.states)
    rate_function, parameters = gse.functions.rate, gse.parameters

    def rate(t: float, x: FloatArray, measure: Measure) -> FloatArray:
        return np.asarray(rate_function(t / seconds, x, inputs(measure), parameters), dtype=float) / seconds

    output = None
    if gse.outputs:
        call = OutputCall(statement.label, gse.functions.output, parameters, gse.outputs)  # type: ignore[arg-type]
        output = lambda t, x, measure: call.once(t / seconds, x, inputs(measure))
    builder.model.add(
        DifferentialEquation(
            builder.name(statement),
            rate,
            initial=np.asarray(initial, dtype=float),
            output=output,
            reads=reads,
        )
    )
