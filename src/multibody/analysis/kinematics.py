"""Kinematic analysis of a fully driven (zero-DOF) model: the motion follows from the constraints.

At each output time: Newton on ``Phi(q, t) = 0`` for positions, ``G v = nu`` for velocities,
``G a = gamma`` for accelerations, then the multipliers from inverse dynamics
``G^T lambda = Q - M a`` (reactions, including the forces the motions must apply).
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from multibody.analysis.assemble import assembled_state
from multibody.analysis.errors import AnalysisError
from multibody.analysis.model_input import as_system
from multibody.analysis.output import output_frame, results_layout
from multibody.formulation import frames as kinematics_frames
from multibody.formulation.cartesian import CartesianFormulation
from multibody.spatial.rotations import FloatArray
from multibody.model.model import Model
from multibody.results import Results, ResultsWriter
from multibody.solve.linear import Factorization, SingularMatrixError
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
    with threadpool_limits(limits=1):
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
    """Solve and append one frame per output time."""
    dissipated, input_work, previous_power, previous_t = 0.0, 0.0, None, 0.0
    from tqdm.auto import tqdm  # heavy: loaded when first used

    for t in tqdm(times, disable=not progress, desc=f"kinematics {system.name}"):
        q = _positions(system, form, q, float(t), tolerance)
        _, G, nu = form.constraint_residual(q, float(t))
        try:
            jacobian = Factorization(G)
        except SingularMatrixError:
            raise AnalysisError(
                f"kinematic analysis of model '{system.name}': the constraint Jacobian is singular at t = {t:.6g} s "
                "(a lock-up or bifurcation position)"
            ) from None
        v = jacobian.solve(nu)
        evaluation = form.evaluate(q, v, float(t))
        acceleration = jacobian.solve(form.gamma(evaluation))
        lam = Factorization(G.T).solve(evaluation.generalized_force - form.mass_matrix @ acceleration)
        power = np.array(
            [
                form.nonconservative_power(evaluation.loads, evaluation.nu, lam),
                form.input_power(evaluation.loads, evaluation.nu, lam),
            ]
        )
        if previous_power is not None:
            dissipated -= 0.5 * (power[0] + previous_power[0]) * (t - previous_t)
            input_work += 0.5 * (power[1] + previous_power[1]) * (t - previous_t)
        previous_power, previous_t = power, t
        writer.append(output_frame(form, evaluation, acceleration, lam, dissipated, input_work))
        # Predict the next positions along the current velocity.
        q = kinematics_frames.displace(system, q, v * output_step)


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
