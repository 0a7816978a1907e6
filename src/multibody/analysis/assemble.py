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

from multibody.analysis.errors import AssemblyError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics
from multibody.spatial import rotations
from multibody.formulation.cartesian import CartesianFormulation
from multibody.spatial.rotations import FloatArray
from multibody.formulation.state import State
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import SingularMatrixError, dependent_rows, to_dense
from multibody.system.compile import settle_redundancy
from multibody.system.system import ConstraintRows, System


def assembled_state(
    system: System, t0: float = 0.0, tolerance: float = 1e-10, max_iterations: int = 100
) -> tuple[System, State]:
    """A state at ``t0`` [s] satisfying position, velocity and acceleration constraints.

    Positions are assembled with the active rows; redundancy is then settled again at the
    assembled configuration (an input configuration at a dead centre can make an independent
    row look redundant) and, if that changes the active rows, positions are assembled again.
    The returned ``System`` (whose active rows the state's multipliers belong to) may therefore
    differ from ``system``. Raises ``AssemblyError`` naming the rows
    left violated, redundant rows inconsistent with the others, or nearly dependent rows.
    """
    q = _assemble_positions(system, t0, tolerance, max_iterations)
    for _ in range(3):
        settled = settle_redundancy(system, q, t0, stacklevel=3)
        if settled is system:
            break
        system = settled
        q = _assemble_positions(system, t0, tolerance, max_iterations)
    _check_redundant(system, q, t0, tolerance)
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
    return system, State(t0, q, v, lam)


def _assemble_positions(system: System, t0: float, tolerance: float, max_iterations: int) -> FloatArray:
    """Gauss-Newton steps on the active rows, halved while they increase the violation norm; on
    failure the error reports the configuration with the smallest violation found."""
    form = CartesianFormulation(system)
    q_input = kinematics.normalize_positions(system, system.q0)
    q = q_input.copy()
    freedom = system.position_freedom
    length_scale = max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))
    phi, G, _ = form.constraint_residual(q, t0)
    if phi.size == 0:
        return q
    best = (float(np.linalg.norm(phi)), q, phi)
    for _ in range(max_iterations):
        G = to_dense(G)
        offset = kinematics.position_difference(system, q, q_input)
        multiplier = la.lstsq((G * freedom) @ G.T, G @ offset - phi, cond=1e-13)[0]
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


def _assemble_velocities(system: System, form: CartesianFormulation, q: FloatArray, t0: float) -> FloatArray:
    _, e_input = kinematics.split_positions(system, system.q0)
    _, e = kinematics.split_positions(system, q)
    v_input, w_input_B = kinematics.split_velocities(system, system.v0)
    R_input = rotations.rotation_from_euler_parameters(rotations.normalize(e_input))
    R_now = rotations.rotation_from_euler_parameters(e)
    w_W = np.einsum("bij,bj->bi", R_input, w_input_B)
    w_B = np.einsum("bji,bj->bi", R_now, w_W)
    v0 = np.hstack([v_input, w_B]).reshape(-1)
    _, G, nu = form.constraint_residual(q, t0)
    if nu.size == 0:
        return v0
    G = to_dense(G)
    freedom = system.velocity_freedom
    multiplier = la.lstsq((G * freedom) @ G.T, nu - G @ v0, cond=1e-13)[0]
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
    components = ("vx", "vy", "vz", "angular_velocity", "angular_velocity", "angular_velocity")
    by_body: dict[int, list[str]] = {}
    for column in columns:
        by_body.setdefault(int(column) // 6, []).append(components[column % 6])
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
    length_scale = max(1.0, float(np.max(np.abs(system.marker_position), initial=0.0)))
    violated = np.abs(phi) > 1e3 * tolerance * length_scale
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
