"""Initial conditions as ADAMS does them: the nearest consistent configuration and velocities.

Positions: minimize ``1/2 (x - x0)^T W (x - x0)`` subject to ``Phi(q, t0) = 0`` (weighted least
squares, Gauss-Newton / SQP steps in velocity space); velocities: minimize
``1/2 (v - v0)^T W (v - v0)`` subject to ``G v = nu`` (one linear solve). ``W^-1`` is 0 for
inputs marked exact, 1 for inputs given and 1e6 for inputs left unspecified. Then the
accelerations and multipliers follow from ``[M G^T; G 0][a; lambda] = [Q; gamma]``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from multibody.analysis.errors import AssemblyError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.state import State
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import Factorization, Matrix, SingularMatrixError, dependent_rows, to_dense
from multibody.solve.threads import single_threaded
from multibody.spatial import rotations
from multibody.spatial.rotations import FloatArray
from multibody.system.compile import settle_redundancy, warn_redundancy
from multibody.system.system import ConstraintRows, System


def assembled_state(
    system: System, t0: float = 0.0, tolerance: float = 1e-10, max_iterations: int = 100
) -> tuple[System, State]:
    """A state at ``t0`` [s] satisfying position, velocity and acceleration constraints.

    Positions come from ``assembled_positions``, which also settles the redundant rows at the
    assembled configuration; the returned ``System`` (whose active rows the state's multipliers
    belong to) may therefore differ from ``system`` (a warning says so). Raises
    ``AssemblyError`` naming the rows left violated, redundant rows inconsistent with the
    others, or nearly dependent rows.
    """
    with single_threaded():  # small dense blocks: threads contending for the cores cost 10-100x
        return _assembled_state(system, t0, tolerance, max_iterations)


def _assembled_state(system: System, t0: float, tolerance: float, max_iterations: int) -> tuple[System, State]:
    settled, q = assembled_positions(system, t0, tolerance, max_iterations)
    if [r.row for r in settled.redundant] != [r.row for r in system.redundant]:
        warn_redundancy(settled, stacklevel=4)
    system = settled
    form = CartesianFormulation(system)
    v = _assemble_velocities(system, form, q, t0)
    state = form.evaluate(q, v, t0)
    try:
        _, lam = form.accelerations(state)
    except SingularMatrixError:
        near = dependent_rows(state.G, tolerance=1e-6)
        culprits = ", ".join(
            dict.fromkeys(
                f"'{system.constraint_names[system.rows.element[k]]}'" for d in near for k in (d.row, *d.depends_on)
            )
        )
        raise AssemblyError(
            f"model '{system.name}': the constraints are nearly redundant at the assembled configuration "
            f"({culprits or 'rows could not be identified'}): the constraint Jacobian is numerically singular. "
            "Make the joints exactly aligned (then they are removed as redundant) or clearly independent"
        ) from None
    return system, State(t0, q, v, lam, system.x0.copy())


def assembled_positions(
    system: System, t0: float = 0.0, tolerance: float = 1e-10, max_iterations: int = 100
) -> tuple[System, FloatArray]:
    """Positions at ``t0`` [s] satisfying every constraint, and ``system`` with its redundant rows
    judged there.

    Redundancy is first judged at the input configuration, so that Gauss-Newton runs on
    independent rows; then again at the assembled configuration, assembling anew while the set
    of removed rows changes. Removed rows violated there are either a dead centre of the input
    configuration (the linearized constraints cannot see past it) or a contradiction:
    ``_leave_dead_centre`` tries a second-order step away from it before the contradiction is
    reported. Raises ``AssemblyError``.
    """
    q_input = kinematics.normalize_positions(system, system.q0)
    system = settle_redundancy(system, q_input, t0)
    q = _assemble_positions(system, q_input, t0, tolerance, max_iterations)
    for _ in range(3):
        settled = settle_redundancy(system, q, t0)
        start = q
        if settled is system:
            start = _leave_dead_centre(system, q, t0, tolerance)
            if start is None:
                break
            settled = settle_redundancy(system, start, t0)
        system = settled
        q = _assemble_positions(system, start, t0, tolerance, max_iterations)
    _check_redundant(system, q, t0, tolerance)
    return system, q


def _assemble_positions(
    system: System, q_start: FloatArray, t0: float, tolerance: float, max_iterations: int
) -> FloatArray:
    """Gauss-Newton steps on the active rows from ``q_start``, halved while they increase the
    violation norm; on failure the error reports the configuration with the smallest violation
    found. Each step is the weighted minimum-norm one (module docstring) toward the input
    configuration."""
    form = CartesianFormulation(system)
    q_input = kinematics.normalize_positions(system, system.q0)
    q = q_start.copy()
    freedom = system.position_freedom
    length_scale = _length_scale(system)
    phi, G, _ = form.constraint_residual(q, t0)
    if phi.size == 0:
        return q
    best = (float(np.linalg.norm(phi)), q, phi)
    for _ in range(max_iterations):
        offset = kinematics.position_difference(system, q, q_input)
        multiplier = _weighted_multiplier(G, freedom, G @ offset - phi)
        step = -offset + freedom * (G.T @ multiplier)
        violation = float(np.linalg.norm(phi))
        for _ in range(30):
            trial = kinematics.displace(system, q, step)
            trial_phi, trial_G, _ = form.constraint_residual(trial, t0)
            if float(np.linalg.norm(trial_phi)) <= max(violation, tolerance * length_scale):
                break
            step = 0.5 * step
        q, phi, G = trial, trial_phi, trial_G
        if float(np.max(np.abs(phi))) < best[0]:
            best = (float(np.linalg.norm(phi)), q, phi)
        if np.max(np.abs(phi)) < tolerance * length_scale and np.max(np.abs(step)) < 1e3 * tolerance * length_scale:
            return q
    _, _, phi = best
    raise AssemblyError(
        f"assembly of model '{system.name}' did not close after {max_iterations} iterations; "
        f"closest configuration found still violates {_worst_rows(system, system.rows, phi)}. "
        "Check the marker positions and axes of these elements, or mark fewer initial conditions exact"
    )


def _weighted_multiplier(G: Matrix, freedom: FloatArray, rhs: FloatArray) -> FloatArray:
    """``mu`` solving ``(G F G^T) mu = rhs``, ``F = diag(freedom)``: the multiplier of the weighted
    minimum-norm change ``F G^T mu``. A sparse ``G`` is solved by sparse LU of the normal matrix
    (independent rows: it is positive definite); a dense one, or a singular normal matrix
    (inputs marked exact that the constraints need to move), by least squares."""
    if sp.issparse(G):
        normal = (G @ sp.diags(freedom) @ G.T).tocsc()
        try:
            multiplier = Factorization(normal).solve(rhs)
        except SingularMatrixError:
            multiplier = None
        if multiplier is not None and np.all(np.isfinite(multiplier)):
            residual = float(np.linalg.norm(normal @ multiplier - rhs))
            if residual <= 1e-8 * max(float(np.linalg.norm(rhs)), 1e-300):
                return multiplier
    G = to_dense(G)
    return la.lstsq((G * freedom) @ G.T, rhs, cond=1e-13)[0]


DEAD_CENTRE_COORDINATES = 600
"""Largest number of velocity coordinates for which ``_leave_dead_centre`` looks for a way out
(it needs the dense null space of the constraint Jacobian)."""


def _leave_dead_centre(system: System, q: FloatArray, t0: float, tolerance: float) -> FloatArray | None:
    """A configuration near ``q`` that reduces the violation of the removed (redundant) rows, or
    None when they hold at ``q`` or no second-order step reduces their violation.

    At a dead centre the removed rows ``r`` repeat the active ones to first order, so no
    Gauss-Newton step changes their violation ``phi_r``. To second order along a motion ``d``
    the active rows allow (``G d = 0``), ``phi_r . phi_r(q + s d)`` changes by ``s^2/2 d^T H d``
    with ``H`` the Hessian of ``phi_r(q) . phi_r`` (central differences of its gradient over a
    basis of the allowed motions). The eigenvector of ``H``'s most negative eigenvalue
    ``lambda`` leads off the dead centre; ``s = sqrt(2 |phi_r|^2 / |lambda|)`` cancels the
    violation in that model, and is halved until the violation does decrease.
    """
    if not system.redundant or system.n_velocities > DEAD_CENTRE_COORDINATES:
        return None
    removed = CartesianFormulation(system, system.all_rows.subset(np.array([r.row for r in system.redundant])))
    phi_removed, _, _ = removed.constraint_residual(q, t0)
    length_scale = _length_scale(system)
    if np.max(np.abs(phi_removed)) <= 1e3 * tolerance * length_scale:
        return None
    _, G, _ = CartesianFormulation(system).constraint_residual(q, t0)
    exact = np.eye(system.n_velocities)[system.position_freedom == 0.0]
    allowed = la.null_space(np.vstack([to_dense(G), exact]))
    if allowed.shape[1] == 0:
        return None

    def gradient(q_at: FloatArray) -> FloatArray:
        _, G_removed, _ = removed.constraint_residual(q_at, t0)
        return allowed.T @ (to_dense(G_removed).T @ phi_removed)

    increment = 1e-5 * length_scale
    hessian = np.column_stack(
        [
            (
                gradient(kinematics.displace(system, q, increment * d))
                - gradient(kinematics.displace(system, q, -increment * d))
            )
            / (2.0 * increment)
            for d in allowed.T
        ]
    )
    eigenvalues, eigenvectors = np.linalg.eigh(0.5 * (hessian + hessian.T))
    if eigenvalues[0] >= 0.0:
        return None
    direction = allowed @ eigenvectors[:, 0]
    violation = float(np.linalg.norm(phi_removed))
    step = np.sqrt(2.0 * violation**2 / -eigenvalues[0])
    for _ in range(30):
        trial = kinematics.displace(system, q, step * direction)
        if float(np.linalg.norm(removed.constraint_residual(trial, t0)[0])) < 0.5 * violation:
            return trial
        step *= 0.5
    return None


def _length_scale(system: System) -> float:
    """[m] Scale of the model's positions for the closure tolerance: 1 m or its largest marker offset."""
    return max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))


def _assemble_velocities(system: System, form: CartesianFormulation, q: FloatArray, t0: float) -> FloatArray:
    _, e_input = kinematics.split_positions(system, system.q0)
    _, e = kinematics.split_positions(system, q)
    v_input, w_input_B = kinematics.split_velocities(system, system.v0)
    R_input = rotations.rotation_from_euler_parameters(rotations.normalize(e_input))
    R_now = rotations.rotation_from_euler_parameters(e)
    w_W = np.einsum("bij,bj->bi", R_input, w_input_B)
    w_B = np.einsum("bji,bj->bi", R_now, w_W)
    v0 = np.concatenate([rigid.velocities(v_input, w_B), system.v0[system.n_frame_velocities :]])
    _, G, nu = form.constraint_residual(q, t0)
    if nu.size == 0:
        return v0
    freedom = system.velocity_freedom
    multiplier = _weighted_multiplier(G, freedom, nu - G @ v0)
    v = v0 + freedom * (G.T @ multiplier)
    residual = G @ v - nu
    violated = np.abs(residual) > 1e-8 * max(1.0, float(np.max(np.abs(v))))
    if np.any(violated):
        raise AssemblyError(
            f"velocities of model '{system.name}' cannot satisfy the constraints: violated "
            f"{_worst_rows(system, system.rows, np.where(violated, residual, 0.0))}; too many velocities are marked "
            f"exact: {_exact_velocities(system, G[violated])} cannot all keep their given values; mark fewer exact"
        )
    return v


def _exact_velocities(system: System, violated_G: FloatArray) -> str:
    """The bodies, and their components, whose velocities are marked exact and enter the violated
    constraint rows ``violated_G`` (k, nv): ``body 'crank' (vx, angular_velocity)``."""
    exact = system.velocity_freedom == 0.0
    entering = np.any(violated_G != 0.0, axis=0) & exact
    columns = np.flatnonzero(entering if np.any(entering) else exact)
    by_body: dict[int, list[str]] = {}
    for column in columns:
        body, coordinate = divmod(int(column), rigid.VELOCITY_WIDTH)
        by_body.setdefault(body, []).append(rigid.VELOCITY_INPUT_NAMES[coordinate])
    return ", ".join(
        f"body '{system.body_names[b]}' ({', '.join(dict.fromkeys(names))})" for b, names in by_body.items()
    )


def _check_redundant(system: System, q: FloatArray, t0: float, tolerance: float) -> None:
    """Removed redundant rows must hold at the assembled configuration, else they contradict the others."""
    if not system.redundant:
        return
    rows = system.all_rows.subset(np.array([r.row for r in system.redundant]))
    form = CartesianFormulation(system, rows)
    phi, _, _ = form.constraint_residual(q, t0)
    violated = np.abs(phi) > 1e3 * tolerance * _length_scale(system)
    if np.any(violated):
        repeated = dict.fromkeys(
            name for r, bad in zip(system.redundant, violated) if bad for name in (r.depends_on or (r.element,))
        )
        raise AssemblyError(
            f"model '{system.name}' has inconsistent redundant constraints: "
            f"{_worst_rows(system, rows, np.where(violated, phi, 0.0))} "
            f"cannot hold together with the rows they repeat (of {', '.join(map(repr, repeated))}); "
            "remove or realign these joints"
        )


def _worst_rows(system: System, rows: ConstraintRows, phi: FloatArray, count: int = 3) -> str:
    order = np.argsort(-np.abs(phi))[:count]
    return "; ".join(
        f"'{system.constraint_names[rows.element[k]]}' {rows.label[k]} by {abs(phi[k]):.3g}"
        for k in order
        if abs(phi[k]) > 0
    )


def assemble(model: Model | System, t0: float = 0.0, output: str | None = None) -> Results:
    """Assemble the initial conditions of ``model`` and return them as one-frame ``Results``."""
    system, state = assembled_state(as_system(model), t0)
    form = CartesianFormulation(system)
    evaluation = form.evaluate(state.q, state.v, t0)
    acceleration, lam = form.accelerations(evaluation)
    with ResultsWriter(output, results_layout(system, "assemble")) as writer:
        writer.append(output_frame(form, evaluation, acceleration, lam, 0.0))
        writer.close("complete")
    return writer.results()
