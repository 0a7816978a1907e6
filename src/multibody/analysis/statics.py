"""Static equilibrium and quasi-statics: where a loaded mechanism settles, velocities zero.

With ``v = 0`` the equations of motion reduce to (ADAMS statics, eq. 4-47 of the ADAMS
algorithm chapter)::

    Q(q, 0, x, lambda, t) - G(q)^T lambda = 0      (n_velocities force and moment balances)
    Phi(q, t) = 0                                   (m constraint rows)
    F(q, 0, x, lambda, t) = 0                       (nx first-order states at rest, as ADAMS
                                                     statics sets the derivatives of its states to 0)

solved by Newton's method for the velocity-space position increment ``dx`` (applied with
``frames.displace``, exactly on the rotation group), the multipliers ``lambda`` and the states::

    [ K  -G^T ] [dx     ]      [ Q - G^T lambda ]
    [ G    0  ] [dlambda]  = - [ Phi            ],    K = d(Q - G^T lambda)/dx

bordered by the states' rows and columns and the loads' dependence on the multipliers when
elements carry states or read multipliers (``_Tangent.matrix``). ``K``
(``CartesianFormulation.force_jacobians``) holds the element stiffnesses and the geometric
stiffness of the reactions. Stability is judged on the static stiffness with the states relaxed
(``_Tangent.condensed_stiffness``): a mass on a spring in parallel with a Maxwell element is held
by the spring alone once the dashpot has crept. Globalization: every rotation of a step is limited to
``MAX_ROTATION_STEP`` and the step is halved until the next Newton correction, computed with the
same factorization, shrinks (Deuflhard's natural monotonicity test), so that a poor start
converges. A singular tangent is allowed when the loads have no component along its null
directions (a neutral equilibrium, e.g. a body free to spin about a vertical axis); when they
do, nothing can balance them and the analysis stops naming the coordinates. For models with
cables or ropes, whose elements go slack (no stiffness) on the way from a straight start to a sag,
a failed Newton is retried by continuation, the loads followed up from the start
(``_continued``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as la

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation, StateCoupling
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import (
    Factorization,
    SingularMatrixError,
    saddle_point_matrix,
    to_dense,
)
from multibody.solve.threads import single_threaded
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


class UnstableEquilibriumWarning(UserWarning):
    """Statics converged to an equilibrium that a small disturbance would leave (e.g. an inverted
    pendulum): Newton finds the equilibrium nearest the start, stable or not."""


Solver = Callable[..., FloatArray]
"""``solve(rhs, check=True)``: the Newton step for residual ``rhs``."""
MAX_ROTATION_STEP = 0.5
"""Largest rotation [rad] of any body in one Newton step (ADAMS ALIMIT plays this role)."""
_BALANCES = tuple(
    name.replace("translation along", "force along").replace("rotation about", "moment about")
    for name in rigid.VELOCITY_COORDINATE_NAMES
)
"""What each of a rigid body's static equations balances."""


@dataclass(frozen=True)
class Equilibrium:
    """A converged static equilibrium at time ``t`` [s]: positions ``q`` (n_positions,),
    multipliers ``lam`` (m,), first-order states ``x`` (nx,), and how Newton got there."""

    t: float
    q: FloatArray
    lam: FloatArray
    iterations: int
    force_residual: float
    """largest force or moment imbalance left [N, N m]"""
    constraint_residual: float
    """largest constraint violation left [m, rad]"""
    unstable_directions: int
    """independent directions in which the reduced stiffness is negative (0: stable or neutral)"""
    neutral_directions: int
    """independent directions of zero stiffness"""
    x: FloatArray = field(default_factory=lambda: np.zeros(0))
    state_residual: float = 0.0
    """largest state rate left [state units / s]"""

    def stats(self) -> dict[str, int | float]:
        """Solver statistics for ``Results.stats``."""
        return {
            "iterations": self.iterations,
            "force_residual": self.force_residual,
            "constraint_residual": self.constraint_residual,
            "unstable_directions": self.unstable_directions,
            "neutral_directions": self.neutral_directions,
        } | ({"state_residual": self.state_residual} if self.x.size else {})


@dataclass(frozen=True)
class _StaticResidual:
    """The static equations at one iterate: force and moment imbalance ``Q - G^T lambda``
    (n_velocities,), constraint residual ``Phi`` (m,), state rates ``F`` (nx,)."""

    imbalance: FloatArray
    phi: FloatArray
    rate: FloatArray
    G: FloatArray

    def newton_rhs(self) -> FloatArray:
        """Right-hand side of the tangent system (module docstring)."""
        return np.concatenate([self.imbalance, -self.phi, self.rate])

    def less(self, other: _StaticResidual | None, share: float) -> _StaticResidual:
        """These equations less ``share`` of ``other``'s residuals (the continuation's offset)."""
        if other is None or share == 0.0:
            return self
        return _StaticResidual(
            self.imbalance - share * other.imbalance,
            self.phi - share * other.phi,
            self.rate - share * other.rate,
            self.G,
        )


CONTINUATION_STEPS = (1.0 / 8.0, 1.0 / 256.0, 1.0 / 4.0)
"""The continuation's first, smallest and largest steps in the share of the loads
(``equilibrium``)."""


ROUNDOFF_STEP = 1e-13
"""Newton position steps below this fraction of the length scale (some 500 units in the last place)
are round-off: a model with very stiff springs (a beam's axial stiffness, 1e8-1e9 N/m) cannot
balance its forces to better than stiffness times the round-off of its positions."""


def _static_residual(
    form: CartesianFormulation, q: FloatArray, x: FloatArray, lam: FloatArray, t: float
) -> _StaticResidual:
    state = form.evaluate(q, np.zeros(form.system.n_velocities), t, x, lam)
    return _StaticResidual(state.generalized_force - state.G.T @ lam, state.phi, state.state_rate, state.G)


def equilibrium(
    system: System,
    q: FloatArray,
    t: float,
    lam: FloatArray | None = None,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
    x: FloatArray | None = None,
) -> Equilibrium:
    """Static equilibrium of ``system`` at time ``t`` [s], Newton from positions ``q``
    (n_positions,) and first-order states ``x`` (nx,; default: the initial ones).

    Converged when every force and moment balance is within ``tolerance`` times the load scale
    (the largest generalized load at the start, at least 1 N), every constraint row within
    ``tolerance`` times the model's length scale and every state rate within ``tolerance`` times
    the largest rate at the start (at least 1). Raises ``AnalysisError`` naming the bodies and
    directions that no element resists when the loads push along them, or the equations with the
    largest residual when ``max_iterations`` is reached.
    """
    form = CartesianFormulation(system)
    n = system.n_velocities
    zero_velocity = np.zeros(n)
    x = system.x0.copy() if x is None else np.asarray(x, dtype=float).copy()
    start = form.evaluate(q, zero_velocity, t, x, lam)
    G = to_dense(start.G)
    if lam is None:
        lam = la.lstsq(G.T, start.generalized_force, cond=1e-12)[0] if G.size else np.zeros(0)
    length_scale = max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))
    force_scale = max(1.0, float(np.max(np.abs(start.generalized_force), initial=0.0)))
    rate_scale = max(1.0, float(np.max(np.abs(start.state_rate), initial=0.0)))
    residual_scale = np.r_[np.full(n, force_scale), np.full(len(lam), length_scale), np.full(x.size, rate_scale)]
    weights = np.r_[
        1.0 / kinematics.coordinate_scale(system, length_scale), 1.0 / np.maximum(system.x_scale, np.abs(x))
    ]
    scales = (force_scale, length_scale, rate_scale, residual_scale, weights)
    try:
        return _newton(form, q, x, lam, t, scales, tolerance, max_iterations)
    except AnalysisError as failure:
        if not any(kind.slackens for kind, _ in system.body_kinds):
            raise
        # Cables and ropes go slack on the way from a straight start to a sag (a slack element has no
        # stiffness): follow the loads up from the start instead (a Newton homotopy).
        return _continued(form, q, x, lam, t, scales, tolerance, max_iterations, failure)


def _continued(
    form: CartesianFormulation,
    q: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    t: float,
    scales: tuple,
    tolerance: float,
    max_iterations: int,
    failure: AnalysisError,
) -> Equilibrium:
    """``equilibrium`` by continuation: solve ``R(q) = (1 - share) R(q_start)`` for a share of the
    loads growing from 0 to 1 (steps ``CONTINUATION_STEPS``, halved when Newton fails, doubled when
    it succeeds), each from the last; re-raise ``failure`` when the step gets too small."""
    start = _static_residual(form, q, x, lam, t)
    share, step = 0.0, CONTINUATION_STEPS[0]
    while share < 1.0:
        trial = min(1.0, share + step)
        try:
            found = _newton(form, q, x, lam, t, scales, tolerance, max_iterations, (start, 1.0 - trial))
        except AnalysisError:
            step /= 2.0
            if step < CONTINUATION_STEPS[1]:
                raise failure from None
            continue
        q, x, lam, share = found.q, found.x, found.lam, trial
        step = min(2.0 * step, CONTINUATION_STEPS[2])
    return found


def _newton(
    form: CartesianFormulation,
    q: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    t: float,
    scales: tuple,
    tolerance: float,
    max_iterations: int,
    offset: tuple[_StaticResidual | None, float] = (None, 0.0),
) -> Equilibrium:
    """Damped Newton for ``equilibrium`` from ``(q, x, lam)``; ``scales`` = (force, length, rate
    scales, residual scale per equation, position and state weights); the equations less
    ``offset[1]`` times the residuals ``offset[0]``."""
    system = form.system
    n = system.n_velocities
    force_scale, length_scale, rate_scale, residual_scale, weights = scales

    def residual_at(q: FloatArray, x: FloatArray, lam: FloatArray) -> _StaticResidual:
        return _static_residual(form, q, x, lam, t).less(*offset)

    tangent = None
    for iteration in range(max_iterations + 1):
        residual = residual_at(q, x, lam)
        if (
            np.max(np.abs(residual.imbalance), initial=0.0) <= tolerance * force_scale
            and np.max(np.abs(residual.phi), initial=0.0) <= tolerance * length_scale
            and np.max(np.abs(residual.rate), initial=0.0) <= tolerance * rate_scale
        ):
            if tangent is None:
                tangent = _Tangent.at(form, q, x, lam, t)
            return _converged(system, t, q, x, lam, iteration, residual, tangent)
        if iteration == max_iterations:
            break
        tangent = _Tangent.at(form, q, x, lam, t)
        solve = _tangent_solver(system, tangent.matrix(to_dense(residual.G)), residual_scale)
        step = solve(residual.newton_rhs())
        if np.max(np.abs(step[:n] * weights[:n]), initial=0.0) <= ROUNDOFF_STEP:
            # Newton moves the positions by round-off only: the residual left is the round-off of
            # the stiffest element (stiffness times the positions' last bits), not an imbalance.
            return _converged(system, t, q, x, lam, iteration, residual, tangent)
        q, x, lam = _damped_step(system, residual_at, q, x, lam, step, solve, weights)
    worst = _largest_residuals(system, residual)
    raise AnalysisError(
        f"statics of model '{system.name}' did not converge in {max_iterations} iterations at t = {t:.6g} s; "
        f"largest residuals: {worst}. Start closer to the equilibrium, or check that the loads can be balanced"
    )


@dataclass(frozen=True)
class _Tangent:
    """Derivatives of the static equations at an iterate: the stiffness ``K = d(Q - G^T lambda)/dx``
    and, when elements carry states or read multipliers, their coupling (``StateCoupling``)."""

    stiffness: FloatArray
    coupling: StateCoupling | None

    @classmethod
    def at(cls, form: CartesianFormulation, q: FloatArray, x: FloatArray, lam: FloatArray, t: float) -> _Tangent:
        zero_velocity = np.zeros(form.system.n_velocities)
        return cls(
            to_dense(form.force_jacobians(q, zero_velocity, t, lam, x)[0]),
            form.coupling_jacobians(q, zero_velocity, x, t, lam),
        )

    def matrix(self, G: FloatArray) -> FloatArray:
        """The Newton matrix in the unknowns ``(dx, dlambda, dstates)``::

        [[-K,    G^T - Q_lam,  -Q_x],
         [ G,    0,             0  ],
         [-F_q, -F_lam,        -F_x]]
        """
        coupling = self.coupling
        if coupling is None:
            return saddle_point_matrix(-self.stiffness, G)
        m, nx = G.shape[0], coupling.F_x.shape[0]
        return np.block(
            [
                [-self.stiffness, G.T - coupling.Q_lam, -coupling.Q_x],
                [G, np.zeros((m, m)), np.zeros((m, nx))],
                [-coupling.F_q, -coupling.F_lam, -coupling.F_x],
            ]
        )

    def condensed_stiffness(self) -> FloatArray:
        """The static stiffness with the states relaxed to their equilibrium (``F = 0`` solved for
        the state increment): ``K - Q_x F_x^-1 F_q`` (``K`` alone without states)."""
        coupling = self.coupling
        if coupling is None or coupling.F_x.size == 0:
            return self.stiffness
        relaxed = la.lstsq(coupling.F_x, coupling.F_q, cond=1e-12)[0]
        return self.stiffness - coupling.Q_x @ relaxed


def _tangent_solver(system: System, tangent: FloatArray, residual_scale: FloatArray) -> Solver:
    """A solver for the Newton system; least squares when the tangent is singular, after checking
    (``check``) that the loads have no component along its null directions. ``residual_scale``
    (n_velocities + m + nx,) is the size of a significant residual per equation [N, N m, m, rad,
    state units / s]."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", la.LinAlgWarning)  # singular tangents are handled below
            factorization = Factorization(tangent)
        return lambda rhs, check=True: factorization.solve(rhs)
    except SingularMatrixError:
        pass
    # Equilibrate rows and columns (Ruiz) so that the singular values compare like with like:
    # forces of 1e5 N next to constraint rows of unit size would otherwise hide or fake a null
    # space. Entries below 1e-8 of the largest are finite-difference round-off of exact zeros
    # (e.g. the stiffness against a free spin), which equilibration would blow up; drop them. The
    # constraint rows and multiplier columns (G) are judged against G's own largest entry: a
    # flexible body's modal stiffness (up to 1e11 1/s^2) would otherwise wipe out G's unit entries.
    n, m = system.n_velocities, len(system.rows)
    in_G = np.zeros(tangent.shape, dtype=bool)
    in_G[n : n + m, :] = in_G[:, n : n + m] = True
    magnitude = np.abs(tangent)
    largest = np.where(in_G, np.max(magnitude, where=in_G, initial=0.0), np.max(magnitude, where=~in_G, initial=0.0))
    tangent = np.where(magnitude > 1e-8 * largest, tangent, 0.0)
    row_scale, column_scale = np.ones(tangent.shape[0]), np.ones(tangent.shape[1])
    for _ in range(10):
        scaled = np.abs(row_scale[:, None] * tangent * column_scale)
        row_scale /= np.sqrt(np.where(scaled.max(axis=1) > 0.0, scaled.max(axis=1), 1.0))
        scaled = np.abs(row_scale[:, None] * tangent * column_scale)
        column_scale /= np.sqrt(np.where(scaled.max(axis=0) > 0.0, scaled.max(axis=0), 1.0))
    scaled = row_scale[:, None] * tangent * column_scale
    U, singular_values, Vt = la.svd(scaled)
    null = singular_values <= 1e-10 * singular_values[0]
    significant = 1e-8 * float(np.max(row_scale * residual_scale))

    def solve(rhs: FloatArray, check: bool = True) -> FloatArray:
        unbalanced = U[:, null].T @ (row_scale * rhs)
        if check and np.any(np.abs(unbalanced) > significant):
            direction = (column_scale[:, None] * Vt[null].T)[:, int(np.argmax(np.abs(unbalanced)))]
            raise AnalysisError(
                f"statics of model '{system.name}': there is no static equilibrium; nothing resists "
                f"{_describe_direction(system, direction)} while the loads push along it. "
                "Add a joint, spring or bushing that holds these coordinates, or run dynamics instead"
            )
        kept = ~null
        return column_scale * (Vt[kept].T @ ((U[:, kept].T @ (row_scale * rhs)) / singular_values[kept]))

    return solve


def _damped_step(
    system: System,
    residual_at: Callable[[FloatArray, FloatArray, FloatArray], _StaticResidual],
    q: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    step: FloatArray,
    solve: Solver,
    weights: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Take ``step`` (dx, dlambda, dstates) scaled so that no body turns more than
    ``MAX_ROTATION_STEP`` and halved until the simplified Newton correction at the trial point is
    smaller than the step (both measured in positions and states, with ``weights``);
    ``residual_at(q, x, lam)`` the static equations."""
    n, m = system.n_velocities, len(lam)
    dq, dlam, dx = step[:n], step[n : n + m], step[n + m :]
    rotation = np.abs(rigid.velocity_blocks(kinematics.frame_velocities(system, dq))[:, rigid.ROTATION])
    damping = min(1.0, MAX_ROTATION_STEP / max(float(np.max(rotation, initial=0.0)), 1e-300))
    moved = np.concatenate([dq, dx])
    size = float(np.linalg.norm(weights * moved))
    for _ in range(30):
        trial_q = kinematics.displace(system, q, damping * dq)
        trial_x = x + damping * dx
        trial_lam = lam + damping * dlam
        correction = solve(residual_at(trial_q, trial_x, trial_lam).newton_rhs(), check=False)
        if (
            size < 1e-12
            or np.linalg.norm(weights * np.r_[correction[:n], correction[n + m :]]) <= (1.0 - damping / 4.0) * size
        ):
            break
        damping *= 0.5
    return trial_q, trial_x, trial_lam


def _converged(
    system: System,
    t: float,
    q: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    iterations: int,
    residual: _StaticResidual,
    tangent: _Tangent,
) -> Equilibrium:
    """The equilibrium with its stability: the signs of the static stiffness (states relaxed; the
    tangent of the last iteration) in the constraint null space."""
    G = to_dense(residual.G)
    basis = la.null_space(G) if G.size else np.eye(system.n_velocities)
    reduced = -basis.T @ tangent.condensed_stiffness() @ basis
    eigenvalues = la.eigvalsh(0.5 * (reduced + reduced.T)) if reduced.size else np.zeros(0)
    scale = max(float(np.max(np.abs(eigenvalues), initial=0.0)), 1e-300)
    return Equilibrium(
        t=t,
        q=q,
        lam=lam,
        iterations=iterations,
        force_residual=float(np.max(np.abs(residual.imbalance), initial=0.0)),
        constraint_residual=float(np.max(np.abs(residual.phi), initial=0.0)),
        unstable_directions=int(np.sum(eigenvalues < -1e-8 * scale)),
        neutral_directions=int(np.sum(np.abs(eigenvalues) <= 1e-8 * scale)),
        x=x,
        state_residual=float(np.max(np.abs(residual.rate), initial=0.0)),
    )


def _coordinate_names(system: System) -> list[str]:
    """Per static equation's unknown (velocity-space coordinates, multipliers, states), what it moves."""
    names = [
        f"body '{body}' {coordinate}" for body in system.body_names for coordinate in rigid.VELOCITY_COORDINATE_NAMES
    ]
    names += _kind_coordinate_names(system, balance=False)
    names += [f"the multiplier of '{system.constraint_names[e]}'" for e in system.rows.element]
    names += [f"state {k} of '{name}'" for name, size in _state_owners(system) for k in range(size)]
    return names


def _kind_coordinate_names(system: System, balance: bool) -> list[str]:
    """Per velocity coordinate after the frames', in ``v`` order, what it moves (``balance``: the
    balance equation on it), as its body kind names it (``BodyKind.coordinate_names``)."""
    return [
        name
        for kind, group in system.body_kinds
        if kind.coordinate_names is not None
        for name in kind.coordinate_names(group, balance)
    ]


def _state_owners(system: System) -> list[tuple[str, int]]:
    """(element, number of states) per element with first-order states, in ``x`` order."""
    return [(b.owner, b.nx) for b in system.layout.blocks if b.nx] if system.layout else []


def _describe_direction(system: System, direction: FloatArray) -> str:
    """The coordinates (and states) that make up a direction of the static unknowns, largest first."""
    magnitude = np.abs(direction)
    n, m = system.n_velocities, len(system.rows)
    magnitude[n : n + m] = 0.0  # multipliers are reactions, not motions
    order = [k for k in np.argsort(-magnitude)[:3] if magnitude[k] > 0.1 * magnitude.max()]
    names = _coordinate_names(system)
    return " and ".join(names[k] for k in order)


def _largest_residuals(system: System, residual: _StaticResidual, count: int = 3) -> str:
    """The ``count`` equations with the largest residual, named by body and direction, by
    constraint row or by state."""
    directions = [
        f"body '{body}' {_BALANCES[c]}"
        for body in system.body_names
        for c in range(len(rigid.VELOCITY_COORDINATE_NAMES))
    ]
    directions += _kind_coordinate_names(system, balance=True)
    labelled = [(abs(r), f"{directions[k]} off by {abs(r):.3g}") for k, r in enumerate(residual.imbalance)]
    labelled += [
        (abs(r), f"'{system.constraint_names[system.rows.element[k]]}' {system.rows.label[k]} violated by {abs(r):.3g}")
        for k, r in enumerate(residual.phi)
    ]
    states = [f"state {k} of '{name}'" for name, size in _state_owners(system) for k in range(size)]
    labelled += [(abs(r), f"{states[k]} changing at {abs(r):.3g}/s") for k, r in enumerate(residual.rate)]
    labelled.sort(key=lambda item: -item[0])
    return "; ".join(text for _, text in labelled[:count])


def statics(
    model: Model | System,
    t: float = 0.0,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
    output: str | None = None,
) -> Results:
    """Static equilibrium of ``model`` under its loads at time ``t`` [s] (motions and time-varying
    loads taken at ``t``), from its assembled input configuration.

    Returns one-frame ``Results`` (velocities and accelerations zero, reactions included) whose
    ``stats`` hold ``iterations``, ``force_residual`` [N, N m], ``constraint_residual`` [m, rad],
    and ``unstable_directions`` / ``neutral_directions``: how many independent directions have
    negative / zero stiffness (a stable equilibrium has neither; an unstable one also gets an
    ``UnstableEquilibriumWarning``: Newton finds the equilibrium nearest the start). Raises ``AnalysisError`` when
    no equilibrium exists or Newton does not converge (see ``equilibrium``).
    """
    with single_threaded():
        system, state = assembled_state(as_system(model), t)
        found = equilibrium(system, state.q, t, tolerance=tolerance, max_iterations=max_iterations, x=state.x)
        if found.unstable_directions:
            warnings.warn(
                f"statics of model '{system.name}': the equilibrium found at t = {t:.6g} s is unstable in "
                f"{found.unstable_directions} independent direction(s) (the stiffness there is negative: a small "
                "disturbance grows). Start the model nearer the configuration where it should settle",
                UnstableEquilibriumWarning,
                stacklevel=2,
            )
        with ResultsWriter(output, results_layout(system, "statics")) as writer:
            writer.append(static_frame(system, found))
            writer.close("complete", "", found.stats())
    return writer.results()


def quasi_statics(
    model: Model | System,
    t_end: float,
    output_step: float,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
    output: str | None = None,
    progress: bool = False,
) -> Results:
    """A sequence of static equilibria from t = 0 to ``t_end`` [s] every ``output_step`` [s], as
    motions and loads vary with time (e.g. a crane jib raised slowly).

    Each equilibrium starts from the previous one. Output frames have the layout of a dynamic
    run with velocities, accelerations and kinetic energy zero (a quasi-static path has no
    inertia); reactions are the static ones. ``stats`` hold the total and largest Newton
    iterations, the largest residuals, and ``unstable_frames``: how many equilibria on the path
    are unstable (where a real mechanism would snap through instead). On failure the frames solved so far are kept (in
    ``output`` if given) and the error names the time and the equations.
    """
    if not (t_end > 0.0 and output_step > 0.0):
        raise ValueError(f"t_end and output_step must be positive, got t_end={t_end!r}, output_step={output_step!r}")
    times = output_step * np.arange(int(np.floor(t_end / output_step + 1e-9)) + 1)
    with single_threaded():
        system, state = assembled_state(as_system(model), 0.0)
        q, x, lam = state.q, state.x, None
        totals = {
            "iterations": 0,
            "max_iterations": 0,
            "force_residual": 0.0,
            "constraint_residual": 0.0,
            "unstable_frames": 0,
        }
        with ResultsWriter(output, results_layout(system, "quasi_statics")) as writer:
            from tqdm.auto import tqdm  # heavy: loaded when first used

            for t in tqdm(times, disable=not progress, desc=f"quasi-statics {system.name}"):
                try:
                    found = equilibrium(system, q, float(t), lam, tolerance, max_iterations, x)
                except AnalysisError as error:
                    saved = (
                        f"; equilibria up to t = {writer.results().time[-1]:.6g} s are saved in {writer.path}"
                        if writer.path is not None and len(writer.results())
                        else ""
                    )
                    raise AnalysisError(f"{error}{saved}", None if writer.path is None else str(writer.path)) from None
                writer.append(static_frame(system, found))
                q, x, lam = found.q, found.x, found.lam
                totals["iterations"] += found.iterations
                totals["max_iterations"] = max(totals["max_iterations"], found.iterations)
                totals["force_residual"] = max(totals["force_residual"], found.force_residual)
                totals["constraint_residual"] = max(totals["constraint_residual"], found.constraint_residual)
                totals["unstable_frames"] += int(found.unstable_directions > 0)
            writer.close("complete", "", {**totals, "frames": len(times)})
    return writer.results()


def static_frame(system: System, found: Equilibrium) -> dict[str, np.ndarray]:
    """The output frame of an equilibrium: velocities and accelerations zero, static reactions."""
    form = CartesianFormulation(system)
    zero = np.zeros(system.n_velocities)
    return output_frame(form, form.evaluate(found.q, zero, found.t, found.x, found.lam), zero, found.lam, 0.0)
