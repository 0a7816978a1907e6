"""Kinematic analysis of a fully driven (zero-DOF) model: the motion follows from the constraints.

At each output time: Newton on ``Phi(q, t) = 0`` for positions, ``G v = nu`` for velocities,
``G a = gamma`` for accelerations, then the multipliers from inverse dynamics
``G^T lambda = Q - M a`` (reactions, including the forces the motions must apply). Elements
with first-order states (a hydraulic chamber, a Maxwell element, a controller) have them
integrated between output times along the prescribed motion.
"""

from __future__ import annotations

import numpy as np

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics_frames
from multibody.formulation.cartesian import CartesianFormulation, Evaluation
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import Factorization, SingularMatrixError
from multibody.solve.threads import single_threaded
from multibody.spatial.rotations import FloatArray
from multibody.system.system import System


def kinematics(
    model: Model | System,
    t_end: float,
    output_step: float,
    tolerance: float = 1e-12,
    output: str | None = None,
    progress: bool = False,
) -> Results:
    """Kinematic analysis from t = 0 to ``t_end`` [s] every ``output_step`` [s].

    Needs a model with zero degrees of freedom (every free coordinate driven by a Motion);
    ``tolerance`` is the position residual [m, rad] Newton must reach. The dissipated energy is
    the work of the motions and non-conservative forces, integrated by the trapezoidal rule
    over the output frames.
    """
    with single_threaded():
        system, state = assembled_state(as_system(model))
        if system.dof != 0:
            raise AnalysisError(
                f"kinematic analysis needs a model with 0 degrees of freedom; model '{system.name}' has {system.dof}. "
                "Add motions to drive the free coordinates, or run dynamics instead"
            )
        times = output_step * np.arange(int(np.floor(t_end / output_step + 1e-9)) + 1)
        form = CartesianFormulation(system)
        with ResultsWriter(output, results_layout(system, "kinematics")) as writer:
            try:
                _run(system, form, state.q, times, output_step, tolerance, progress, writer)
            except AnalysisError as error:
                if writer.path is None or len(writer.results()) == 0:
                    raise
                saved = f"; results up to t = {writer.results().time[-1]:.6g} s are saved in {writer.path}"
                raise AnalysisError(f"{error}{saved}", str(writer.path)) from None
            writer.close("complete", "", {"frames": len(times)})
    return writer.results()


def _run(
    system: System,
    form: CartesianFormulation,
    q: FloatArray,
    times: FloatArray,
    output_step: float,
    tolerance: float,
    progress: bool,
    writer: ResultsWriter,
) -> None:
    """Solve and append one frame per output time; first-order states are integrated between
    output times along the prescribed motion (``_advance_states``)."""
    dissipated, input_work, previous_rates, previous_t = 0.0, 0.0, None, 0.0
    x = system.x0.copy()
    from tqdm.auto import tqdm  # heavy: loaded when first used

    for t in tqdm(times, disable=not progress, desc=f"kinematics {system.name}"):
        if system.n_states and t > times[0]:
            x = _advance_states(system, form, q, x, previous_t, float(t), tolerance)
        q, v, evaluation, acceleration, lam = _instant(system, form, q, float(t), x, tolerance)
        rates = form.quadrature_rates(evaluation.loads, evaluation.nu, lam)
        if previous_rates is not None:
            dissipated += 0.5 * (rates[0] + previous_rates[0]) * (t - previous_t)
            input_work += 0.5 * (rates[1] + previous_rates[1]) * (t - previous_t)
        previous_rates, previous_t = rates, t
        writer.append(output_frame(form, evaluation, acceleration, lam, dissipated, input_work))
        # Predict the next positions along the current velocity.
        q = kinematics_frames.displace(system, q, v * output_step)


def _instant(
    system: System, form: CartesianFormulation, q_guess: FloatArray, t: float, x: FloatArray, tolerance: float
) -> tuple[FloatArray, FloatArray, Evaluation, FloatArray, FloatArray]:
    """``(q, v, evaluation, acceleration, lambda)`` of the driven motion at ``t`` [s] with
    first-order states ``x``: positions by Newton from ``q_guess``, velocities and accelerations
    from the constraints, multipliers from ``G^T lambda = Q - M a`` (by fixed-point iteration
    when loads read them, as ``CartesianFormulation.accelerations`` does)."""
    q = _positions(system, form, q_guess, t, tolerance)
    _, G, nu = form.constraint_residual(q, t)
    try:
        jacobian = Factorization(G)
    except SingularMatrixError:
        raise AnalysisError(
            f"kinematic analysis of model '{system.name}': the constraint Jacobian is singular at t = {t:.6g} s "
            "(a lock-up or bifurcation position)"
        ) from None
    v = jacobian.solve(nu)
    evaluation = form.evaluate(q, v, t, x)
    acceleration = jacobian.solve(form.gamma(evaluation))
    transposed = Factorization(G.T)
    inertial = form.mass_matrix @ acceleration
    evaluation, _, lam = form.settle_multipliers(
        evaluation, lambda at: (acceleration, transposed.solve(at.generalized_force - inertial))
    )
    return q, v, evaluation, acceleration, lam


def _advance_states(
    system: System,
    form: CartesianFormulation,
    q: FloatArray,
    x: FloatArray,
    t_start: float,
    t_end: float,
    tolerance: float,
) -> FloatArray:
    """First-order states at ``t_end`` from ``x`` at ``t_start`` [s]: ``x' = F(t, q(t), v(t), x,
    lambda)`` along the prescribed motion, by scipy's BDF (the states may be stiff: a hydraulic
    chamber's pressure) at rtol 1e-8."""
    from scipy.integrate import solve_ivp  # heavy: loaded when first used

    guess = [q]

    def rate(t: float, states: FloatArray) -> FloatArray:
        guess[0], _, evaluation, _, _ = _instant(system, form, guess[0], t, states, tolerance)
        return evaluation.state_rate

    solution = solve_ivp(rate, (t_start, t_end), x, method="BDF", rtol=1e-8, atol=1e-10 * (1.0 + np.abs(x)))
    if not solution.success:
        raise AnalysisError(
            f"kinematic analysis of model '{system.name}': the first-order states could not be integrated from "
            f"t = {t_start:.6g} s to {t_end:.6g} s ({solution.message})"
        )
    return solution.y[:, -1]


def _positions(system: System, form: CartesianFormulation, q: FloatArray, t: float, tolerance: float) -> FloatArray:
    for _ in range(50):
        phi, G, _ = form.constraint_residual(q, t)
        if np.max(np.abs(phi), initial=0.0) < tolerance:
            return q
        try:
            q = kinematics_frames.displace(system, q, -Factorization(G).solve(phi))
        except SingularMatrixError:
            break
    worst = int(np.argmax(np.abs(phi)))
    raise AnalysisError(
        f"kinematic analysis of model '{system.name}': positions do not close at t = {t:.6g} s; "
        f"'{system.constraint_names[system.rows.element[worst]]}' ({system.rows.label[worst]}) is violated by "
        f"{abs(phi[worst]):.3g}. The mechanism may not reach this configuration"
    )
