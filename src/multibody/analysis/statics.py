"""Static equilibrium and quasi-statics: where a loaded mechanism settles, velocities zero.

With ``v = 0`` the equations of motion reduce to (ADAMS statics, eq. 4-47 of the ADAMS
algorithm chapter)::

    Q(q, 0, t) - G(q)^T lambda = 0      (6 nb force and moment balances)
    Phi(q, t) = 0                        (m constraint rows)

solved by Newton's method for the velocity-space position increment ``dx`` (applied with
``frames.displace``, exactly on the rotation group) and the multipliers ``lambda``::

    [ K  -G^T ] [dx     ]      [ Q - G^T lambda ]
    [ G    0  ] [dlambda]  = - [ Phi            ],    K = d(Q - G^T lambda)/dx

``K`` (``CartesianFormulation.force_jacobians``) holds the element stiffnesses and the
geometric stiffness of the reactions. Globalization: every rotation of a step is limited to
``MAX_ROTATION_STEP`` and the step is halved until the next Newton correction, computed with the
same factorization, shrinks (Deuflhard's natural monotonicity test), so that a poor start
converges. A singular tangent is allowed when the loads have no component along its null
directions (a neutral equilibrium, e.g. a body free to spin about a vertical axis); when they
do, nothing can balance them and the analysis stops naming the coordinates.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
from threadpoolctl import threadpool_limits

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import (
    Factorization,
    SingularMatrixError,
    saddle_point_matrix,
    to_dense,
)
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


class UnstableEquilibriumWarning(UserWarning):
    """Statics converged to an equilibrium that a small disturbance would leave (e.g. an inverted
    pendulum): Newton finds the equilibrium nearest the start, stable or not."""


Solver = Callable[..., FloatArray]
"""``solve(rhs, check=True)``: the Newton step for residual ``rhs``."""
MAX_ROTATION_STEP = 0.5
"""Largest rotation [rad] of any body in one Newton step (ADAMS ALIMIT plays this role)."""
DIRECTIONS = (
    "force along world x",
    "force along world y",
    "force along world z",
    "moment about body x",
    "moment about body y",
    "moment about body z",
)
"""What each of a body's six static equations balances."""


@dataclass(frozen=True)
class Equilibrium:
    """A converged static equilibrium at time ``t`` [s]: positions ``q`` (7 nb,), multipliers
    ``lam`` (m,), and how Newton got there."""

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

    def stats(self) -> dict[str, int | float]:
        """Solver statistics for ``Results.stats``."""
        return {
            "iterations": self.iterations,
            "force_residual": self.force_residual,
            "constraint_residual": self.constraint_residual,
            "unstable_directions": self.unstable_directions,
            "neutral_directions": self.neutral_directions,
        }


def equilibrium(
    system: System,
    q: FloatArray,
    t: float,
    lam: FloatArray | None = None,
    tolerance: float = 1e-10,
    max_iterations: int = 100,
) -> Equilibrium:
    """Static equilibrium of ``system`` at time ``t`` [s], Newton from positions ``q`` (7 nb,).

    Converged when every force and moment balance is within ``tolerance`` times the load scale
    (the largest generalized load at the start, at least 1 N) and every constraint row within
    ``tolerance`` times the model's length scale. Raises ``AnalysisError`` naming the bodies and
    directions that no element resists when the loads push along them, or the equations with the
    largest residual when ``max_iterations`` is reached.
    """
    form = CartesianFormulation(system)
    zero_velocity = np.zeros(system.n_velocities)
    start = form.evaluate(q, zero_velocity, t)
    G = to_dense(start.G)
    if lam is None:
        lam = la.lstsq(G.T, start.generalized_force, cond=1e-12)[0] if G.size else np.zeros(0)
    length_scale = max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))
    force_scale = max(1.0, float(np.max(np.abs(start.generalized_force), initial=0.0)))
    residual_scale = np.r_[np.full(system.n_velocities, force_scale), np.full(len(lam), length_scale)]
    weights = np.tile(np.r_[np.full(3, 1.0 / length_scale), np.ones(3)], system.n_bodies)
    stiffness = None
    for iteration in range(max_iterations + 1):
        state = form.evaluate(q, zero_velocity, t)
        imbalance = state.generalized_force - state.G.T @ lam
        if (
            np.max(np.abs(imbalance), initial=0.0) <= tolerance * force_scale
            and np.max(np.abs(state.phi), initial=0.0) <= tolerance * length_scale
        ):
            if stiffness is None:
                stiffness = to_dense(form.force_jacobians(q, zero_velocity, t, lam)[0])
            return _converged(system, t, q, lam, iteration, imbalance, state.phi, stiffness, to_dense(state.G))
        if iteration == max_iterations:
            break
        stiffness = to_dense(form.force_jacobians(q, zero_velocity, t, lam)[0])
        tangent = saddle_point_matrix(-stiffness, to_dense(state.G))
        residual = np.concatenate([imbalance, -state.phi])
        solve = _tangent_solver(system, tangent, residual_scale)
        step = solve(residual)
        q, lam = _damped_step(system, form, t, q, lam, step, solve, weights)
    worst = _largest_residuals(system, imbalance, state.phi)
    raise AnalysisError(
        f"statics of model '{system.name}' did not converge in {max_iterations} iterations at t = {t:.6g} s; "
        f"largest residuals: {worst}. Start closer to the equilibrium, or check that the loads can be balanced"
    )


def _tangent_solver(system: System, tangent: FloatArray, residual_scale: FloatArray) -> Solver:
    """A solver for the Newton system; least squares when the tangent is singular, after checking
    (``check``) that the loads have no component along its null directions. ``residual_scale``
    (6 nb + m,) is the size of a significant residual per equation [N, N m, m, rad]."""
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
    # (e.g. the stiffness against a free spin), which equilibration would blow up; drop them.
    tangent = np.where(np.abs(tangent) > 1e-8 * np.max(np.abs(tangent)), tangent, 0.0)
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
                f"{_describe_direction(system, direction[: system.n_velocities])} while the loads push along it. "
                "Add a joint, spring or bushing that holds these coordinates, or run dynamics instead"
            )
        kept = ~null
        return column_scale * (Vt[kept].T @ ((U[:, kept].T @ (row_scale * rhs)) / singular_values[kept]))

    return solve


def _damped_step(
    system: System,
    form: CartesianFormulation,
    t: float,
    q: FloatArray,
    lam: FloatArray,
    step: FloatArray,
    solve: Solver,
    weights: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """Take ``step`` (dx, dlambda) scaled so that no body turns more than ``MAX_ROTATION_STEP`` and
    halved until the simplified Newton correction at the trial point is smaller than the step."""
    n = system.n_velocities
    dx, dlam = step[:n], step[n:]
    rotation = np.abs(dx.reshape(-1, 6)[:, 3:])
    damping = min(1.0, MAX_ROTATION_STEP / max(float(np.max(rotation, initial=0.0)), 1e-300))
    size = float(np.linalg.norm(weights * dx))
    zero_velocity = np.zeros(n)
    for _ in range(30):
        trial_q = kinematics.displace(system, q, damping * dx)
        trial_lam = lam + damping * dlam
        state = form.evaluate(trial_q, zero_velocity, t)
        trial_residual = np.concatenate([state.generalized_force - state.G.T @ trial_lam, -state.phi])
        correction = solve(trial_residual, check=False)[:n]
        if size < 1e-12 or np.linalg.norm(weights * correction) <= (1.0 - damping / 4.0) * size:
            break
        damping *= 0.5
    return trial_q, trial_lam


def _converged(
    system: System,
    t: float,
    q: FloatArray,
    lam: FloatArray,
    iterations: int,
    imbalance: FloatArray,
    phi: FloatArray,
    stiffness: FloatArray,
    G: FloatArray,
) -> Equilibrium:
    """The equilibrium with its stability: the signs of the stiffness (the tangent of the last
    iteration) in the constraint null space."""
    basis = la.null_space(G) if G.size else np.eye(system.n_velocities)
    reduced = -basis.T @ stiffness @ basis
    eigenvalues = la.eigvalsh(0.5 * (reduced + reduced.T)) if reduced.size else np.zeros(0)
    scale = max(float(np.max(np.abs(eigenvalues), initial=0.0)), 1e-300)
    return Equilibrium(
        t=t,
        q=q,
        lam=lam,
        iterations=iterations,
        force_residual=float(np.max(np.abs(imbalance), initial=0.0)),
        constraint_residual=float(np.max(np.abs(phi), initial=0.0)),
        unstable_directions=int(np.sum(eigenvalues < -1e-8 * scale)),
        neutral_directions=int(np.sum(np.abs(eigenvalues) <= 1e-8 * scale)),
    )


def _describe_direction(system: System, direction: FloatArray) -> str:
    """The body coordinates that make up a velocity-space direction (6 nb,), largest first."""
    magnitude = np.abs(direction)
    order = [k for k in np.argsort(-magnitude)[:3] if magnitude[k] > 0.1 * magnitude.max()]
    names = [
        f"body '{system.body_names[k // 6]}' {('translation along world', 'rotation about body')[k % 6 // 3]} "
        f"{'xyz'[k % 3]}"
        for k in order
    ]
    return " and ".join(names)


def _largest_residuals(system: System, imbalance: FloatArray, phi: FloatArray, count: int = 3) -> str:
    """The ``count`` equations with the largest residual, named by body and direction or by constraint row."""
    labelled = [
        (abs(r), f"body '{system.body_names[k // 6]}' {DIRECTIONS[k % 6]} off by {abs(r):.3g}")
        for k, r in enumerate(imbalance)
    ]
    labelled += [
        (abs(r), f"'{system.constraint_names[system.rows.element[k]]}' {system.rows.label[k]} violated by {abs(r):.3g}")
        for k, r in enumerate(phi)
    ]
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
    with threadpool_limits(limits=1):
        system, state = assembled_state(as_system(model), t)
        found = equilibrium(system, state.q, t, tolerance=tolerance, max_iterations=max_iterations)
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
    with threadpool_limits(limits=1):
        system, state = assembled_state(as_system(model), 0.0)
        q, lam = state.q, None
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
                    found = equilibrium(system, q, float(t), lam, tolerance, max_iterations)
                except AnalysisError as error:
                    saved = (
                        f"; equilibria up to t = {writer.results().time[-1]:.6g} s are saved in {writer.path}"
                        if writer.path is not None and len(writer.results())
                        else ""
                    )
                    raise AnalysisError(f"{error}{saved}", None if writer.path is None else str(writer.path)) from None
                writer.append(static_frame(system, found))
                q, lam = found.q, found.lam
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
    return output_frame(form, form.evaluate(found.q, zero, found.t), zero, found.lam, 0.0)
