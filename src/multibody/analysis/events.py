"""Event-driven dynamics of the Cartesian formulation: BDF between contact events, impacts at them.

Every contact pair (``multibody.model.contact``) is either *free* (its gap ``g(q)`` is watched)
or *sustained* (its gap row is enforced as one more constraint row, its multiplier is the
normal contact force). After each accepted step the dense output is sampled over the step:

* a free pair whose gap turns negative is an impact: the time of ``g = 0`` is found by Brent's
  method on the dense output, the impulse-momentum equations (``multibody.analysis.impact``)
  give the velocity jumps, and the integrator restarts from the post-impact state;
* a sustained pair whose normal force would turn tensile is released at the zero of that force.

Zeno-safe rule (a ball coming to rest would otherwise bounce infinitely often in finite time):
a touching pair whose separation speed after an impact would be below its ``rest_velocity``
(``e * approach speed < rest_velocity``, and not already separating faster than that) gets a
perfectly plastic impact (e = 0) and becomes sustained; it is released when its normal force
would pull (at once, if it pulls already). The energy an impact takes out is
added to ``energy/dissipated``, so ``total + dissipated`` stays constant.

Impacts are recorded in ``Results.stats`` (numbers only): ``impacts`` (count),
``contact_releases``, and per impact ``n`` (from 1) ``impact_n_time`` [s], ``impact_n_contact``
(index of the pair in model order), ``impact_n_impulse`` [N s] and ``impact_n_speed`` (normal
approach speed [m/s]); ``impact_log(results, model)`` reads them back with the pairs' names.
Without contact pairs this is the plain BDF run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from multibody.analysis import stepping
from multibody.analysis.impact import impulse_response
from multibody.analysis.output import RigidFrames, frame_packing, output_frame
from multibody.formulation import constraints
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.formulation.compilation import announce_first_compilation
from multibody.formulation.dae import DAEVariables, MechanicalDAE
from multibody.formulation.index3_alpha import Index3Mechanics
from multibody.formulation.state import State
from multibody.model.element import ModelError
from multibody.model.model import Model
from multibody.results import Results
from multibody.results.storage import PackedFrame
from multibody.solve.integrators.base import IntegrationError
from multibody.solve.integrators.bdf import BDF
from multibody.solve.integrators.generalized_alpha import GeneralizedAlpha
from multibody.spatial.rotations import FloatArray
from multibody.system.system import ConstraintRows, ContactPairs, System

SAMPLES_PER_STEP = 8
"""Dense-output samples per step at which the event functions are checked (so that a gap that
closes and opens again within one step is still seen)."""
TIME_TOLERANCE = 1e-13
"""Absolute tolerance [s] of the event times."""
COMPILED_FRAMES = 256
"""Frames ``compiled_steps`` writes at most before it returns to have them stored."""
ALPHA_METHODS = {"HHT": "HHT", "GALPHA": "generalized"}
"""Methods integrated by the alpha method on the index-3 form, and their variant (the others are
BDF on the DAE form of their name)."""


@dataclass(frozen=True)
class ImpactRecord:
    """One impact of a contact pair: time [s], impulse [N s], normal approach speed [m/s]."""

    time: float
    contact: str
    impulse: float
    speed: float


@dataclass(frozen=True)
class _Event:
    time: float
    pair: int
    """the contact pair whose event function reached zero first"""


class EventDrivenIntegrator:
    """BDF on the DAE form ``method`` of the Cartesian equations, restarted at contact events.

    It offers what ``time_loop.integrate_to_output`` reads (``t``, ``t_old``, ``step``) and
    ``first_frame``, ``frame_at(t)`` and ``stats()`` for it. A step that contains an event ends
    at the event (``t`` is the event time); the event is applied when the next step begins, so
    output frames up to the event are still interpolated from the step that reached it.
    """

    def __init__(
        self,
        system: System,
        state: State,
        method: str,
        t_end: float,
        rtol: float,
        atol: float,
        max_step: float,
        fixed_step: float | None = None,
        min_step: float = 0.0,
    ) -> None:
        self.system = system
        self.min_step = min_step
        """[s] the shortest step the error test may ask for (``BDF.min_step``)"""
        self.fixed_step = fixed_step
        """the step [s] of an alpha method without error control (None: controlled steps)"""
        self.contacts = system.contacts if system.contacts is not None else _no_contacts()
        self.method = method
        self.t_end, self.rtol, self.atol, self.max_step = t_end, rtol, atol, max_step
        self.sustained = np.zeros(len(self.contacts), dtype=bool)
        self.impacts: list[ImpactRecord] = []
        self.releases = 0
        self._counters: dict[str, float] = {}
        self._pending: _Event | None = None
        self._check_initial_gaps(state)
        self._packing = frame_packing(system)
        self._rigid_frames: RigidFrames | None = None
        """the frames of a model of rigid bodies under SI2 (``frame_at``) and I3 (compiled stepping's),
        made with each formulation"""
        self._frame_rows = np.empty((COMPILED_FRAMES, self._packing.width))
        """where ``compiled_steps`` writes its frames"""
        none = np.zeros(len(self.contacts), dtype=bool)
        self._restart(self._resolve_contacts(state, 0.0, 0.0, none, none), after_event=False)
        self.first_frame = self.frame_at(state.t)

    # -- the stepping protocol --------------------------------------------------------------
    def step(self) -> None:
        """Apply a pending event, then advance one step, ending it early at the next event."""
        if self._pending is not None:
            self._apply(self._pending)
            self._pending = None
        self.integrator.step()
        self.t_old, self.t = self.integrator.t_old, self.integrator.t
        if len(self.contacts):
            event = self._locate(self.t_old, self.t)
            if event is not None:
                self.t, self._pending = event.time, event

    def frame_at(self, t: float) -> PackedFrame:
        """Output frame at ``t`` within the current step: positions and velocities from the
        integrator's dense output, the loads, reactions and energies from one evaluation there.

        Under SI2 the accelerations and multipliers are the dense output's too (``BDF.dense_state``,
        the polynomials of the corrector's rates and multipliers: no linear solve), as accurate as
        those solved afresh at the interpolated state (``tests/test_output_frames.py``). The
        index-3 forms (I3, HHT, GALPHA) solve them afresh: their iterations' accelerations and
        multipliers rest on ``Phi / h^2`` and are far less accurate than their positions (double
        pendulum of ``tests/test_generalized_alpha.py`` against SI2 at rtol 1e-10, reactions: I3
        at rtol 1e-8 3e-5 of their size against 1e-6 solved afresh; HHT and GALPHA 1e-3 at any
        rtol from 1e-6 to 1e-8, against 5e-6 to 1e-4).
        """
        if self.method != "SI2":
            q, v, x, dissipated, input_work = self._state_at(t)
            evaluation, acceleration, lam = self._solved(q, v, t, x)
        else:
            y, y_dot, z = self.integrator.dense_state(t)
            q, v, x, dissipated, input_work = self.layout.split(self.problem.finalize(y))
            acceleration, lam = y_dot[q.size : q.size + v.size], z[: len(self.form.rows)]
            if self._rigid_frames is not None:  # (SI2) the same frame without evaluating what it does not read
                return self._rigid_frames.frame(q, v, t, x, lam, acceleration, dissipated, input_work)
            evaluation = self.form.evaluate(q, v, t, x, lam)
        lam = lam[: len(self.system.rows)]
        return output_frame(self.form, evaluation, acceleration, lam, dissipated, input_work, self._packing)

    def compiled_steps(self, output_times: FloatArray, next_output: int, reached: float) -> tuple[int, FloatArray]:
        """Steps taken in compiled code (``multibody.analysis.stepping``) as far as they go, with the
        frames of the output times they pass (``output_times`` from index ``next_output``; one is in
        a step that ends less than ``reached`` [s] before it): ``(index of the next output time, the
        frames packed (k, width))``. None are taken for models with force elements, driven rows or
        contacts, other body kinds, methods other than SI2 and I3 (I3: dense models only), nor when the
        problem needs Python for the next step (``MechanicalDAE.compiled_step``)."""
        frames, solved = self._rigid_frames, self.method == "I3"
        if (
            frames is None
            or not frames.plain
            or (solved and self.form.sparse)  # I3's frames solve [M G^T; G 0]: dense only
            or len(self.contacts)
            or self.integrator.refresh_jacobian
        ):
            return next_output, self._frame_rows[:0]
        solve = self.problem.compiled_step(self.integrator.newton_tolerance)
        if solve is None:
            return next_output, self._frame_rows[:0]
        frame_jacobians = self.problem.frame_jacobians()
        output = (output_times, next_output, reached, frames.model, frames.n_reactions, solved, frame_jacobians)
        reason, next_output, written, kept = self.integrator.take_compiled_steps(
            stepping.compiled_steps, solve, output, self._frame_rows
        )
        if reason == stepping.NEWTON_FAILED:
            self.problem.drop_kept_factors()
        elif kept is not None:
            self.problem.keep_factors(*kept)
        self.t_old, self.t = self.integrator.t_old, self.integrator.t
        return next_output, self._frame_rows[:written]

    def stats(self) -> dict[str, float]:
        """Integrator counters summed over the restarts, and the impact log (module docstring)."""
        counters = dict(self._counters)
        for name, value in self.integrator.stats.as_dict().items():
            counters[name] = counters.get(name, 0) + value
        if len(self.contacts):
            counters.update(impacts=len(self.impacts), contact_releases=self.releases)
            for n, record in enumerate(self.impacts, start=1):
                counters.update(
                    {
                        f"impact_{n}_time": record.time,
                        f"impact_{n}_contact": self.contacts.names.index(record.contact),
                        f"impact_{n}_impulse": record.impulse,
                        f"impact_{n}_speed": record.speed,
                    }
                )
        return counters

    # -- integration segments ---------------------------------------------------------------
    def _restart(self, start: tuple[State, float, float], after_event: bool = True) -> None:
        """A fresh BDF from ``state`` with the rows of the currently sustained pairs added.

        After an event the first step is kept short: BDF restarts at order 1 (backward Euler),
        whose position error ``a h^2 / 2`` the rms error test would otherwise admit at several
        times the tolerance on every restart; ``h = sqrt(0.02 atol / max |a|)`` makes it 1 % of
        ``atol`` (a few more steps per restart; impact speeds then follow the closed forms to
        about rtol instead of 1e4 rtol for slow bounces).
        """
        state, dissipated, input_work = start
        self.form = self._formulation()
        alpha = self.method in ALPHA_METHODS
        # The layout of y (the same for both families of methods) and the failure diagnosis.
        self.layout = MechanicalDAE(self.form, "I3" if alpha else self.method)
        self.problem = Index3Mechanics(self.form) if alpha else self.layout
        if self.method in ("SI2", "I3") and self.system.rigid_only:
            self._rigid_frames = RigidFrames(self.form, self._packing)
            if self._rigid_frames.plain and not len(self.contacts):
                announce_first_compilation("stepping", "compiled_steps", package="multibody.analysis")
        evaluation, acceleration, lam = self._solved(state.q, state.v, state.t, state.x)
        if not np.all(np.isfinite(acceleration)):
            diagnosis = self.layout.diagnose(state.q, state.v, state.t)
            raise IntegrationError(
                f"the accelerations are not finite at t = {state.t:.6g} s: {diagnosis}", state.t, 0.0
            )
        y0 = self.layout.join(state.q, state.v, state.x, dissipated, input_work)
        y_dot0 = self.layout.join(
            kinematics.position_rate(self.system, state.q, state.v),
            acceleration,
            evaluation.state_rate,
            *self.form.quadrature_rates(evaluation.loads, evaluation.nu, lam),
        )
        method = GeneralizedAlpha if alpha else BDF
        options: dict[str, object] = {"variant": ALPHA_METHODS[self.method]} if alpha else {}
        first_step = _first_step(acceleration, self.atol) if after_event else None
        if self.fixed_step is not None:
            options["adaptive"], first_step = False, self.fixed_step
        self.integrator = method(
            self.problem,
            state.t,
            y0,
            y_dot0,
            self.problem.initial_algebraic(lam),
            self.t_end,
            self.rtol,
            self.atol,
            max_step=self.max_step,
            first_step=first_step,
            min_step=self.min_step,
            **options,
        )
        self.t = self.t_old = state.t

    def _solved(
        self, q: FloatArray, v: FloatArray, t: float, x: FloatArray
    ) -> tuple[Evaluation, FloatArray, FloatArray]:
        """``(evaluation, dv/dt, lambda)`` at ``(q, v, t, x)``: the loads (and state rates) of an
        element that reads multipliers are those at the multipliers solved here."""
        return self.form.solve_accelerations(self.form.evaluate(q, v, t, x))

    def _formulation(self) -> CartesianFormulation:
        return CartesianFormulation(
            self.system, _stack_rows(self.system.rows, self.contacts.rows.subset(np.flatnonzero(self.sustained)))
        )

    def _state_at(self, t: float) -> DAEVariables:
        return self.layout.split(self.problem.finalize(self.integrator.dense_output(t)))

    # -- event functions ----------------------------------------------------------------------
    def _gaps(self, q: FloatArray, t: float) -> FloatArray:
        """Normal gaps [m] of all pairs at positions ``q``."""
        frames = kinematics.pose(self.system, q, t)
        return constraints.position_level(self.system, self.contacts.rows, frames)[0]

    def _event_values(self, t: float) -> FloatArray:
        """Per pair: the gap [m] of a free pair, the normal force [N] of a sustained one (both
        positive while nothing happens)."""
        q, v, x, _, _ = self._state_at(t)
        values = self._gaps(q, t)
        if np.any(self.sustained):
            values[self.sustained] = self._normal_forces(self.form, self.form.evaluate(q, v, t, x))
        return values

    def _normal_forces(self, form: CartesianFormulation, evaluation: Evaluation) -> FloatArray:
        """Compressive normal force [N] of each sustained pair (minus its multiplier)."""
        _, lam = form.accelerations(evaluation)
        return -lam[len(self.system.rows) :]

    def _locate(self, t_old: float, t_new: float) -> _Event | None:
        """The first event in ``(t_old, t_new]``: the earliest zero of an event function."""
        times = np.linspace(t_old, t_new, SAMPLES_PER_STEP + 1)
        before = self._event_values(t_old)
        for t in times[1:]:
            after = self._event_values(t)
            # a value that starts the interval at or below zero counts only if it keeps falling
            crossing = np.flatnonzero((after < 0.0) & ((before > 0.0) | (after < before)))
            if crossing.size:
                roots = [self._root(k, t_old, t, before[k]) for k in crossing]
                first = int(np.argmin(roots))
                return _Event(roots[first], int(crossing[first]))
            t_old, before = t, after
        return None

    def _root(self, pair: int, t_a: float, t_b: float, value_a: float) -> float:
        if value_a <= 0.0:
            return t_a
        from scipy.optimize import brentq  # heavy: loaded when first used

        return float(brentq(lambda t: self._event_values(t)[pair], t_a, t_b, xtol=TIME_TOLERANCE))

    # -- applying events ----------------------------------------------------------------------
    def _apply(self, event: _Event) -> None:
        """Release the pair of ``event`` if it was sustained, else resolve the impacts there."""
        q, v, x, dissipated, input_work = self._state_at(event.time)
        released = np.zeros(len(self.contacts), dtype=bool)
        released[event.pair] = self.sustained[event.pair]
        self.releases += int(released[event.pair])
        self.sustained &= ~released
        for name, value in self.integrator.stats.as_dict().items():
            self._counters[name] = self._counters.get(name, 0) + value
        struck = np.zeros(len(self.contacts), dtype=bool)
        struck[event.pair] = not released[event.pair]
        self._restart(
            self._resolve_contacts(State(event.time, q, v, np.zeros(0), x), dissipated, input_work, released, struck)
        )

    def _resolve_contacts(
        self, state: State, dissipated: float, input_work: float, released: np.ndarray, struck: np.ndarray
    ) -> tuple[State, float, float]:
        """Impacts of the free pairs at ``state`` that touch (within the touch tolerance) or were
        ``struck`` (their event), not those just ``released``; then sustained pairs made consistent:
        one whose force would pull is released, the most tensile first. Returns the post-impact
        state, the dissipated energy [J] including the impact losses, and the input work [J]."""
        gaps = self._gaps(state.q, state.t)
        touching = ~self.sustained & ~released & ((gaps <= self._touch_tolerance()) | struck)
        v = state.v
        if np.any(touching):
            form = self._formulation()
            evaluation = form.evaluate(state.q, v, state.t, state.x)
            frames = evaluation.frames
            _, jacobian, _ = constraints.position_level(self.system, self.contacts.rows, frames)
            G_c = constraints.JacobianAssembler(self.system, self.contacts.rows, sparse=False).assemble(
                frames, jacobian
            )
            speed = -(G_c @ v)
            restitution = self.contacts.restitution
            rest = self.contacts.rest_velocity
            settles = touching & (speed > -rest) & (restitution * speed < rest)
            response = impulse_response(form, evaluation, v, G_c, np.where(settles, 0.0, restitution), touching)
            v_after = v + response.velocity_change
            dissipated += form.kinetic_energy(frames, evaluation.motion) - form.kinetic_energy(
                frames, kinematics.twist(self.system, frames, v_after)
            )
            for k in np.flatnonzero(response.impulse > 0.0):
                self.impacts.append(
                    ImpactRecord(state.t, self.contacts.names[k], float(response.impulse[k]), float(speed[k]))
                )
            self.sustained |= settles
            v = v_after
        state = State(state.t, state.q, v, np.zeros(0), state.x)
        while np.any(self.sustained):
            form = self._formulation()
            force = self._normal_forces(form, form.evaluate(state.q, v, state.t, state.x))
            if np.min(force) >= 0.0:
                break
            self.sustained[np.flatnonzero(self.sustained)[int(np.argmin(force))]] = False
            self.releases += 1
        return state, dissipated, input_work

    def _touch_tolerance(self) -> float:
        """Gap [m] within which a pair counts as touching at an event: the root's time tolerance
        times a generous speed (100 m/s), at least 1e-12 m."""
        return max(1e-12, 100.0 * TIME_TOLERANCE)

    def _check_initial_gaps(self, state: State) -> None:
        gaps = self._gaps(state.q, state.t)
        inside = np.flatnonzero(gaps < -self._touch_tolerance())
        if inside.size:
            k = int(inside[np.argmin(gaps[inside])])
            raise ModelError(
                f"contact '{self.contacts.names[k]}' starts interpenetrating by {-gaps[k]:.6g} m at t = {state.t:.6g} s; "
                "move the bodies apart (or into touch) in the input configuration"
            )


def impact_log(results: Results, model: Model | System) -> list[ImpactRecord]:
    """The impacts of an event-driven run of ``model``, in time order, from ``results.stats``."""
    stats = results.stats
    names = list(model.contacts) if isinstance(model, Model) else list(model.contacts.names if model.contacts else ())
    return [
        ImpactRecord(
            float(stats[f"impact_{n}_time"]),
            names[int(stats[f"impact_{n}_contact"])],
            float(stats[f"impact_{n}_impulse"]),
            float(stats[f"impact_{n}_speed"]),
        )
        for n in range(1, int(stats.get("impacts", 0)) + 1)
    ]


def _first_step(acceleration: FloatArray, atol: float) -> float | None:
    """``sqrt(0.02 atol / max |a|)`` [s] (None, the integrator's own choice, when nothing accelerates)."""
    largest = float(np.max(np.abs(acceleration), initial=0.0))
    return float(np.sqrt(0.02 * atol / largest)) if largest > 0.0 else None


def _stack_rows(first: ConstraintRows, second: ConstraintRows) -> ConstraintRows:
    """The rows of ``first`` followed by those of ``second``."""
    return ConstraintRows(
        kind=np.concatenate([first.kind, second.kind]),
        i_marker=np.concatenate([first.i_marker, second.i_marker]),
        j_marker=np.concatenate([first.j_marker, second.j_marker]),
        i_axis=np.concatenate([first.i_axis, second.i_axis]),
        j_axis=np.concatenate([first.j_axis, second.j_axis]),
        parameter=np.concatenate([first.parameter, second.parameter]),
        element=np.concatenate([first.element, second.element]),
        label=first.label + second.label,
        driver=first.driver + second.driver,
        coordinate=None
        if first.coordinate is None and second.coordinate is None
        else np.concatenate([first.read_coordinates, second.read_coordinates]),
        reference=None
        if first.reference is None and second.reference is None
        else np.concatenate(
            [np.zeros(len(rows)) if rows.reference is None else rows.reference for rows in (first, second)]
        ),
    )


def _no_contacts() -> ContactPairs:
    empty = np.zeros(0, dtype=np.int64)
    rows = ConstraintRows(empty, empty, empty, empty, empty, np.zeros(0), empty, (), ())
    return ContactPairs((), rows, np.zeros(0), np.zeros(0))
