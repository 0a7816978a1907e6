"""User differential equations, transfer functions and controllers (ADAMS DIFF, GSE, LSE, TFSISO).

Each element owns first-order states ``x`` that every integrator advances with the mechanics
(``State.x``; ``res.state(name)`` gives their history). Its rates and its output are laws of time,
its states and a ``Measure`` of the model at the instant: marker displacements and velocities,
joint coordinates, the states and outputs of other elements. Any law may read any element
through the measure, so a valve command, a load or another equation can use a controller's output.

Give in ``reads=`` the markers (or joints) the laws read: Newton then takes their coupling with
the states. An element given ``i_marker`` (and optionally ``j_marker``) also acts as a load: its scalar output
``y`` is a force [N] on I along I's z axis (``load="force"``) or a torque [N m] about it
(``load="torque"``); J takes the reaction at I's origin.

- ``DifferentialEquation``: ``x' = rate(t, x, measure)``, output ``x`` (ADAMS DIFF).
- ``StateSpace``: ``x' = A x + B u``, ``y = C x + D u`` with ``u = input(measure)`` (ADAMS LSE).
- ``TransferFunction``: ``Y(s)/U(s) = num(s)/den(s)`` in controllable canonical form (TFSISO).
- ``PID``: ``y = kp e + ki integral(e) + kd e'`` (ADAMS: a GSE written by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import Element, LawError, ModelError
from multibody.model.forces.applied import MarkerState
from multibody.model.forces.base import ForceElement
from multibody.model.marker import Marker, check_marker_pair

if TYPE_CHECKING:
    from multibody.model.joints.base import Joint
    from multibody.spatial.measurements import Measurements

FloatArray = NDArray[np.float64]
Signal = Callable[["Measure"], "float | ArrayLike"]
"""``measure -> value``: an input read from the model at one instant."""

LOADS = ("force", "torque")


class Measure:
    """The model at one instant, as laws of first-order elements read it (SI units, world axes
    unless a marker ``k`` gives the axes).

    Built by the force kernels from the instant's marker states and first-order states; laws
    receive it, they never build one.
    """

    def __init__(
        self,
        t: float,
        measurements: Measurements,
        x: FloatArray,
        marker_index: Callable[[str], int],
        states_of: Callable[[str], slice],
    ) -> None:
        self.t = float(t)
        """time [s]"""
        self._measurements = measurements
        self._x = x
        self._marker_index = marker_index
        self._states_of = states_of
        self._evaluated: dict[int, tuple[FloatArray, FloatArray]] = {}
        self._evaluating: list[str] = []

    @property
    def measurements(self) -> Measurements:
        """The same instant by marker index (``multibody.spatial.measurements``), with the states."""
        return self._measurements

    def marker_index(self, marker: Marker) -> int:
        """The index of ``marker`` in the compiled system (what ``measurements`` takes)."""
        return self._marker_index(marker.full_name)

    def _index(self, marker: Marker | None) -> int | None:
        if marker is None:
            return None
        if not isinstance(marker, Marker):
            raise ModelError(f"a law reads {marker!r}, which is not a Marker (from body.add_marker)")
        return self._marker_index(marker.full_name)

    def marker(self, marker: Marker) -> MarkerState:
        """Pose and motion of ``marker``, world components."""
        k = self._index(marker)
        m = self._measurements
        return MarkerState(m.p_WM_W[k].copy(), m.v_WM_W[k].copy(), m.R_WM[k].copy(), m.w_WM_W[k].copy())

    def displacement(self, i: Marker, j: Marker | None = None, k: Marker | None = None) -> FloatArray:
        """Origin of I from origin of J (ground origin if None) [m], (3,), in K axes."""
        return self._measurements.displacement(self._index(i), self._index(j), self._index(k))

    def distance(self, i: Marker, j: Marker | None = None) -> float:
        """Distance between the I and J origins [m]."""
        return float(np.linalg.norm(self.displacement(i, j)))

    def velocity(self, i: Marker, j: Marker | None = None, k: Marker | None = None) -> FloatArray:
        """Velocity of I's origin relative to J's, seen from ground [m/s], (3,), in K axes."""
        return self._measurements.velocity(self._index(i), self._index(j), self._index(k))

    def radial_velocity(self, i: Marker, j: Marker | None = None) -> float:
        """Rate of the distance between the I and J origins [m/s]."""
        return float(self._measurements.radial_velocity(self._index(i), self._index(j)))

    def angular_velocity(self, i: Marker, j: Marker | None = None, k: Marker | None = None) -> FloatArray:
        """Angular velocity of I relative to J [rad/s], (3,), in K axes."""
        return self._measurements.angular_velocity(self._index(i), self._index(j), self._index(k))

    def joint(self, joint: Joint) -> float:
        """The coordinate of a revolute (angle of I about z_J [rad], ADAMS AZ) or translational
        joint (displacement of I along z_J [m])."""
        i, j = self._index(joint.i_marker), self._index(joint.j_marker)
        if joint.family == "revolute":
            return float(self._measurements.rotation_angle(i, j, 2))
        if joint.family == "translational":
            return float(self._measurements.displacement(i, j, j)[2])
        raise ModelError(f"measure.joint: {joint.describe()} is not a revolute or translational joint")

    def joint_rate(self, joint: Joint) -> float:
        """Rate of ``joint``'s coordinate (see ``joint``) [rad/s or m/s]."""
        i, j = self._index(joint.i_marker), self._index(joint.j_marker)
        if joint.family == "revolute":
            return float(self._measurements.angular_velocity(i, j, j)[2])
        if joint.family == "translational":
            return float(self._measurements.velocity(i, j, j, j)[2])
        raise ModelError(f"measure.joint_rate: {joint.describe()} is not a revolute or translational joint")

    def state(self, element: Element | str) -> FloatArray:
        """The first-order states (n,) of ``element`` (one that has states) at this instant."""
        name = element if isinstance(element, str) else element.name
        try:
            return self._x[self._states_of(name)].copy()
        except KeyError as error:
            raise ModelError(f"a law reads the states of '{name}': {error.args[0]}") from None

    def output(self, element: StateElement) -> float | FloatArray:
        """The output of a differential equation, transfer function, state space or PID element
        at this instant (a float when it has one output)."""
        if not isinstance(element, StateElement):
            raise ModelError(
                f"measure.output reads DifferentialEquation, StateSpace, TransferFunction or PID "
                f"elements, got {element!r}"
            )
        y = self.evaluate(element)[1]
        return float(y[0]) if y.size == 1 else y.copy()

    def evaluate(self, element: StateElement) -> tuple[FloatArray, FloatArray]:
        """``(x', y)`` of ``element`` at this instant, computed once per instant (its laws are
        called once however many others read its output)."""
        key = id(element)
        if key not in self._evaluated:
            if element.name in self._evaluating:
                loop = " -> ".join([*self._evaluating, element.name])
                raise ModelError(
                    f"{element.describe()}: its output depends on itself ({loop}); break the "
                    "algebraic loop with a state (a DifferentialEquation or a lag)"
                )
            self._evaluating.append(element.name)
            try:
                self._evaluated[key] = element.evaluate(self.t, self.state(element), self)
            finally:
                self._evaluating.pop()
        return self._evaluated[key]


IMPLICIT_ITERATIONS = 50
"""Largest number of Newton iterations for the rate of an implicit differential equation."""


class StateElement(ForceElement):
    """Base of elements with first-order states and an output (see the module docstring)."""

    kind = "state element"

    def __init__(
        self,
        name: str,
        initial: ArrayLike,
        i_marker: Marker | None = None,
        j_marker: Marker | None = None,
        load: str = "force",
        reads: Sequence[Marker | Joint] = (),
    ) -> None:
        Element.__init__(self, name)
        self.reads = _read_markers(self, reads)
        if i_marker is None:
            if j_marker is not None:
                raise ModelError(
                    f"{self.describe()}: j_marker takes the reaction of i_marker's load; give i_marker too"
                )
            self.marker_roles = ()
        else:
            self.marker_roles = ("i_marker",) if j_marker is None else ("i_marker", "j_marker")
            markers = dict(zip(self.marker_roles, (i_marker, j_marker)))
            check_marker_pair(self, markers, "connect two different bodies" if j_marker is not None else None)
        if load not in LOADS:
            raise ModelError(
                f"{self.describe()}: load must be 'force' (along I's z axis) or 'torque' (about it), got {load!r}"
            )
        self.i_marker = i_marker
        self.j_marker = j_marker
        self.load = load
        self.initial_states = _vector(self, "initial", initial)

    @property
    def acts(self) -> bool:
        """Whether the output is applied as a load on ``i_marker``."""
        return self.i_marker is not None

    def attached_markers(self) -> tuple[Marker, ...]:
        """The markers the output acts on (none for a pure equation), then those the laws read."""
        own = tuple(m for m in (self.i_marker, self.j_marker) if m is not None)
        return own + tuple(m for m in self.reads if m not in own)

    def evaluate(self, t: float, x: FloatArray, measure: Measure) -> tuple[FloatArray, FloatArray]:
        """``(x' (n,), y (p,))`` at time ``t`` [s], states ``x`` (n,)."""
        raise NotImplementedError

    def _check_output_count(self, outputs: int) -> None:
        if self.acts and outputs != 1:
            raise ModelError(
                f"{self.describe()}: a load needs one output, this element has {outputs}; "
                "leave i_marker out and read the outputs with measure.output"
            )

    def _call(self, what: str, law: Callable, t: float, *arguments: object) -> FloatArray:
        """``law(*arguments)`` at time ``t`` [s] as a flat float array; a failure is a
        ``LawError`` naming this element and the time."""
        try:
            value = np.asarray(law(*arguments), dtype=float).reshape(-1)
        except ModelError:
            raise
        except Exception as error:
            raise LawError(
                f"{self.describe()}: its {what} raised {type(error).__name__}: {error} at t = {t:.6g} s"
            ) from error
        return value


class DifferentialEquation(StateElement):
    """User first-order states (ADAMS DIFF, and GSE with ``output``).

    Explicit (default): ``x' = rate(t, x, measure)``. Implicit (``implicit=True``):
    ``rate(t, x, x_dot, measure)`` returns the residual ``r`` of ``0 = r(t, x, x')``, whose
    Jacobian ``dr/dx'`` must be regular (index 1); ``x'`` is found by Newton from zero at every
    evaluation (so the same state always gives the same rate). The output is ``output(t, x, measure)`` when given (a
    general state equation ``y = g(t, x, u)``, its inputs ``u`` read from ``measure``), else ``x``.

    ``initial``: x(0), a number or an array (n,); the laws receive ``x`` (and ``x_dot``) in the
    same form (a float for a scalar equation). Other laws read the element with
    ``measure.state(element)`` or ``measure.output(element)``.
    """

    kind = "differential equation"

    def __init__(
        self,
        name: str,
        rate: Callable[..., float | ArrayLike],
        initial: ArrayLike = 0.0,
        i_marker: Marker | None = None,
        j_marker: Marker | None = None,
        load: str = "force",
        reads: Sequence[Marker | Joint] = (),
        implicit: bool = False,
        output: Callable[[float, float | FloatArray, Measure], float | ArrayLike] | None = None,
    ) -> None:
        super().__init__(name, initial, i_marker, j_marker, load, reads)
        form = "rate(t, x, x_dot, measure) returning the residual" if implicit else "rate(t, x, measure) returning x'"
        if not callable(rate):
            raise ModelError(f"{self.describe()}: rate must be a callable {form}")
        if output is not None and not callable(output):
            raise ModelError(f"{self.describe()}: output must be a callable output(t, x, measure) returning y")
        self.rate, self.output, self.implicit = rate, output, bool(implicit)
        self.scalar = np.ndim(initial) == 0
        if output is None:
            self._check_output_count(self.initial_states.size)

    def _shaped(self, values: FloatArray) -> float | FloatArray:
        return float(values[0]) if self.scalar else values.copy()

    def evaluate(self, t: float, x: FloatArray, measure: Measure) -> tuple[FloatArray, FloatArray]:
        """``(x', y)`` at time ``t`` [s], states ``x`` (n,)."""
        if self.implicit:
            rate = self._solve_implicit(t, x, measure)
        else:
            rate = self._call("rate", self.rate, t, t, self._shaped(x), measure)
            self._check_size("rate", rate, x.size, t)
        if self.output is None:
            return rate, x
        output = self._call("output", self.output, t, t, self._shaped(x), measure)
        self._check_output_count(output.size)
        return rate, output

    def _solve_implicit(self, t: float, x: FloatArray, measure: Measure) -> FloatArray:
        """``x'`` with ``rate(t, x, x', measure) = 0``: Newton with a forward-difference Jacobian."""
        x_dot = np.zeros(x.size)
        for _ in range(IMPLICIT_ITERATIONS):
            residual = self._call("rate", self.rate, t, t, self._shaped(x), self._shaped(x_dot), measure)
            self._check_size("residual", residual, x.size, t)
            scale = 1.0 + np.max(np.abs(x_dot), initial=0.0)
            jacobian = np.empty((x.size, x.size))
            for k in range(x.size):
                step = 1e-7 * (1.0 + abs(x_dot[k]))
                shifted = x_dot.copy()
                shifted[k] += step
                moved = self._call("rate", self.rate, t, t, self._shaped(x), self._shaped(shifted), measure)
                jacobian[:, k] = (moved - residual) / step
            try:
                increment = np.linalg.solve(jacobian, -residual)
            except np.linalg.LinAlgError:
                raise LawError(
                    f"{self.describe()}: its residual does not depend on x' at t = {t:.6g} s (singular "
                    "d residual / d x_dot); an implicit equation must determine x'"
                ) from None
            x_dot = x_dot + increment
            if np.max(np.abs(increment), initial=0.0) <= 1e-12 * scale:
                return x_dot
        raise LawError(
            f"{self.describe()}: x' did not converge in {IMPLICIT_ITERATIONS} Newton iterations at t = {t:.6g} s; "
            "check that the residual has a root in x'"
        )

    def _check_size(self, what: str, values: FloatArray, n: int, t: float) -> None:
        if values.size != n:
            raise LawError(
                f"{self.describe()}: its {what} returned {values.size} values for {n} states at "
                f"t = {t:.6g} s; return one per state"
            )


class StateSpace(StateElement):
    """Linear state equations ``x' = A x + B u``, ``y = C x + D u`` (ADAMS LSE).

    ``input(measure)`` returns u (m,) (a number when m = 1); ``A`` (n, n), ``B`` (n, m), ``C``
    (p, n), ``D`` (p, m, default zero); ``initial`` x(0) (n,), default zero.
    """

    kind = "state space"

    def __init__(
        self,
        name: str,
        A: ArrayLike,
        B: ArrayLike,
        C: ArrayLike,
        input: Signal,
        D: ArrayLike | None = None,
        initial: ArrayLike | None = None,
        i_marker: Marker | None = None,
        j_marker: Marker | None = None,
        load: str = "force",
        reads: Sequence[Marker | Joint] = (),
    ) -> None:
        A_ = _matrix(self, name, "A", A)
        n = A_.shape[0]
        super().__init__(name, np.zeros(n) if initial is None else initial, i_marker, j_marker, load, reads)
        if A_.shape != (n, n) or n == 0:
            raise ModelError(f"{self.describe()}: A must be square (n, n) with n >= 1, got shape {A_.shape}")
        B_, C_ = _matrix(self, name, "B", B), _matrix(self, name, "C", C)
        if B_.shape[0] != n:
            raise ModelError(f"{self.describe()}: B must have n = {n} rows (one per state), got shape {B_.shape}")
        if C_.shape[1] != n:
            raise ModelError(f"{self.describe()}: C must have n = {n} columns (one per state), got shape {C_.shape}")
        D_ = np.zeros((C_.shape[0], B_.shape[1])) if D is None else _matrix(self, name, "D", D)
        if D_.shape != (C_.shape[0], B_.shape[1]):
            raise ModelError(
                f"{self.describe()}: D must be (outputs, inputs) = {(C_.shape[0], B_.shape[1])}, got shape {D_.shape}"
            )
        if self.initial_states.size != n:
            raise ModelError(f"{self.describe()}: initial must give {n} states, got {self.initial_states.size}")
        if not callable(input):
            raise ModelError(f"{self.describe()}: input must be a callable input(measure) returning u")
        self.A, self.B, self.C, self.D = A_, B_, C_, D_
        self.input = input
        self._check_output_count(C_.shape[0])

    def evaluate(self, t: float, x: FloatArray, measure: Measure) -> tuple[FloatArray, FloatArray]:
        """``(A x + B u, C x + D u)`` with ``u = input(measure)``."""
        u = self._call("input", self.input, t, measure)
        if u.size != self.B.shape[1]:
            raise LawError(
                f"{self.describe()}: its input returned {u.size} values at t = {t:.6g} s; B takes {self.B.shape[1]}"
            )
        return self.A @ x + self.B @ u, self.C @ x + self.D @ u


class TransferFunction(StateSpace):
    """``Y(s) / U(s) = numerator(s) / denominator(s)`` (ADAMS TFSISO), coefficients in descending
    powers of s, proper (numerator degree <= denominator degree); states start at zero unless
    ``initial`` gives them (controllable canonical form: x_1 is the lag's innermost state)."""

    kind = "transfer function"

    def __init__(
        self,
        name: str,
        numerator: ArrayLike,
        denominator: ArrayLike,
        input: Signal,
        initial: ArrayLike | None = None,
        i_marker: Marker | None = None,
        j_marker: Marker | None = None,
        load: str = "force",
        reads: Sequence[Marker | Joint] = (),
    ) -> None:
        Element.__init__(self, name)
        num, den = _vector(self, "numerator", numerator), _vector(self, "denominator", denominator)
        A, B, C, D = controllable_canonical(num, den, self.describe())
        super().__init__(
            name,
            A,
            B,
            C,
            input,
            D=D,
            initial=initial,
            i_marker=i_marker,
            j_marker=j_marker,
            load=load,
            reads=reads,
        )
        self.numerator, self.denominator = num, den
        """the coefficients as given, descending powers of s"""


class PID(StateElement):
    """A PID controller: ``y = kp e + ki integral(e) dt + kd e'`` of the error ``e = error(measure)``.

    ``e'`` is ``error_rate(measure)`` when given (exact); otherwise, with ``kd != 0``, the filtered
    derivative ``(e - z) / tau``, ``z' = (e - z) / tau`` with ``tau = filter_time_constant`` [s]
    (z starts at zero). States: the integral of e, then z when filtered. ``limits = (low, high)``
    clips the output, and the integral stops growing while the output is clipped (anti-windup).
    """

    kind = "PID controller"

    def __init__(
        self,
        name: str,
        error: Signal,
        kp: float,
        ki: float = 0.0,
        kd: float = 0.0,
        error_rate: Signal | None = None,
        filter_time_constant: float = 0.01,
        limits: tuple[float, float] | None = None,
        i_marker: Marker | None = None,
        j_marker: Marker | None = None,
        load: str = "force",
        reads: Sequence[Marker | Joint] = (),
    ) -> None:
        filtered = kd != 0.0 and error_rate is None
        super().__init__(name, np.zeros(2 if filtered else 1), i_marker, j_marker, load, reads)
        for label, gain in (("kp", kp), ("ki", ki), ("kd", kd)):
            if not np.isfinite(gain):
                raise ModelError(f"{self.describe()}: {label} must be a finite number, got {gain!r}")
        if not callable(error) or (error_rate is not None and not callable(error_rate)):
            raise ModelError(f"{self.describe()}: error (and error_rate) must be callables f(measure) -> number")
        if filtered and not filter_time_constant > 0.0:
            raise ModelError(
                f"{self.describe()}: filter_time_constant must be > 0 s, got {filter_time_constant!r} "
                "(or give error_rate for an exact derivative)"
            )
        if limits is not None and not (len(limits) == 2 and limits[0] < limits[1]):
            raise ModelError(f"{self.describe()}: limits must be (low, high) with low < high, got {limits!r}")
        self.kp, self.ki, self.kd = float(kp), float(ki), float(kd)
        self.error, self.error_rate = error, error_rate
        self.filter_time_constant = float(filter_time_constant)
        self.filtered = filtered
        self.limits = limits

    def evaluate(self, t: float, x: FloatArray, measure: Measure) -> tuple[FloatArray, FloatArray]:
        """``(rates, [y])``: the integral's rate e (zero while clipped and winding up), the filter's."""
        e = self._scalar("error", self.error, measure)
        rates = np.empty_like(x)
        if self.filtered:
            derivative = (e - x[1]) / self.filter_time_constant
            rates[1] = derivative
        elif self.error_rate is not None:
            derivative = self._scalar("error_rate", self.error_rate, measure)
        else:
            derivative = 0.0
        y = self.kp * e + self.ki * x[0] + self.kd * derivative
        rates[0] = e
        if self.limits is not None:
            low, high = self.limits
            if (y > high and e * self.ki > 0.0) or (y < low and e * self.ki < 0.0):
                rates[0] = 0.0
            y = min(max(y, low), high)
        return rates, np.array([y])

    def _scalar(self, what: str, law: Signal, measure: Measure) -> float:
        value = self._call(what, law, measure.t, measure)
        if value.size != 1:
            raise LawError(
                f"{self.describe()}: its {what} returned {value.size} values at t = {measure.t:.6g} s; "
                "return one number"
            )
        return float(value[0])


def controllable_canonical(
    numerator: FloatArray, denominator: FloatArray, owner: str = "transfer function"
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(A, B, C, D)`` of ``numerator(s) / denominator(s)`` (descending powers of s) in
    controllable canonical form: x_k' = x_(k+1), x_n' = -a . x + u, y = (b - b_0 a) . x + b_0 u,
    with the polynomials scaled so that the denominator is monic. ``ModelError`` naming ``owner``
    when the denominator has degree < 1 or the function is improper."""
    num, den = np.trim_zeros(numerator, "f"), np.trim_zeros(denominator, "f")
    n = den.size - 1
    if n < 1:
        raise ModelError(f"{owner}: the denominator must have degree >= 1, got {denominator.tolist()}")
    if num.size - 1 > n:
        raise ModelError(
            f"{owner}: improper (numerator degree {num.size - 1} > denominator degree {n}); a transfer function "
            "must be proper"
        )
    num, den = np.concatenate([np.zeros(n + 1 - num.size), num]) / den[0], den / den[0]
    A = np.zeros((n, n))
    A[:-1, 1:] = np.eye(n - 1)
    A[-1] = -den[:0:-1]
    B = np.zeros((n, 1))
    B[-1, 0] = 1.0
    C = (num[:0:-1] - num[0] * den[:0:-1]).reshape(1, n)
    return A, B, C, np.array([[num[0]]])


def _read_markers(element: Element, reads: Sequence[Marker | Joint]) -> tuple[Marker, ...]:
    """The markers of ``reads`` (markers, or joints standing for their I and J markers)."""
    markers: list[Marker] = []
    for item in reads:
        if isinstance(item, Marker):
            markers.append(item)
        elif isinstance(getattr(item, "i_marker", None), Marker) and isinstance(
            getattr(item, "j_marker", None), Marker
        ):
            markers += [item.i_marker, item.j_marker]  # type: ignore[union-attr]
        else:
            raise ModelError(f"{element.describe()}: reads= takes markers and joints, got {item!r}")
    return tuple(dict.fromkeys(markers))


def _vector(element: Element, what: str, value: object) -> FloatArray:
    try:
        array = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError(f"{element.describe()}: {what} must be numbers, got {value!r}") from None
    if not np.all(np.isfinite(array)):
        raise ModelError(f"{element.describe()}: {what} must be finite, got {value!r}")
    return array


def _matrix(element: Element, name: str, what: str, value: object) -> FloatArray:
    try:
        array = np.atleast_2d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise ModelError(
            f"{type(element).__name__} '{name}': {what} must be a matrix of numbers, got {value!r}"
        ) from None
    if array.ndim != 2 or not np.all(np.isfinite(array)):
        raise ModelError(f"{type(element).__name__} '{name}': {what} must be a finite 2-D matrix, got {value!r}")
    return array
