"""Compiled stepping: BDF steps of a plain model of rigid bodies under SI2 or I3, with their output
frames, in one compiled call.

A plain model (rigid bodies, joints, no force elements, no driven rows: a chain, a free slider-crank)
has a whole BDF step's solve compiled (``dae_kernel.compiled_correction``), so what is left of a step
in Python -- the step's control, the problem's choice of factors, the output frames -- costs more than
the step itself (some 40 us against 10 us for a two-link chain). ``compiled_steps`` takes the steps
as ``BDF.step`` with ``MechanicalDAE.correct`` takes them: the same prediction, modified Newton with
the factors kept within ``REUSE_STEP_CHANGE`` of their step coefficient or fresh ones (dense:
``dae_kernel.dense_iteration_factors``), error test, step-size and order choice (``bdf.predict``,
``bdf.accept_step``), and writes the frames of the output times they pass as
``EventDrivenIntegrator.frame_at`` does (``output.RigidFrames``; I3's solved afresh,
``output.solved_frame_pass``). It returns to Python for everything else -- the first step (the force
Jacobians), a Newton failure with fresh factors, the last step to ``t_end``, a step longer than
``max_step`` or shorter than ``min_step``, a singular iteration matrix -- and ``BDF.step`` takes that
step as before. Sparse matrices are factorized here too (``iteration_matrix.structured_factors``). The
steps and frames are those of Python's steps: the same to the bit for dense models, to the round-off
of their factors for sparse ones, which pivot apart from SuperLU (``tests/test_compiled_stepping.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit
from numba.extending import overload

from multibody.analysis.output import rigid_frame_pass, solved_frame_pass
from multibody.formulation import dae_kernel
from multibody.formulation.bodies import rigid
from multibody.formulation.iteration_matrix import structured_factors
from multibody.solve.integrators.bdf import (
    EPS,
    accept_step,
    newton_form,
    newton_safety,
    predict,
    rescale_differences,
    weighted_max_distance,
)
from multibody.solve.newton import CONVERGED
from multibody.spatial.rotations import FloatArray

STEPS_PER_CALL = 500
"""Steps ``compiled_steps`` takes at most per call (0.5-50 ms of a model's run), so that the progress
bar, Ctrl-C (which compiled code does not see) and the timed flush of the results to the file get
their turn in between."""
NEEDS_PYTHON, FRAMES_LEFT, NEWTON_FAILED = 0, 1, 2
"""Why ``compiled_steps`` returned: a step it does not take (Python's ``BDF.step`` takes it: the last
one, a step out of bounds, an iteration matrix singular, or ``STEPS_PER_CALL`` steps taken), frames of
the last step left to Python (the rows are full, or a frame's matrix is singular: ``frame_at`` says so), or
Newton failed with fresh factors (``BDF.step`` takes the step again, with what Python's
``MechanicalDAE.correct`` does then)."""


def refactorized(factors: tuple, jacobians: tuple, equations: tuple, c: float, stabilized: bool) -> tuple:
    """The factors of a step's iteration matrix (and ``G G^T`` when ``stabilized``) at the step
    coefficient ``c`` and ``equations = (q, v, system, rows, f, f_dot, pattern)``, for compiled callers
    only: dense ``factors`` (those kept) factorized afresh (``dae_kernel.dense_iteration_factors``,
    ``jacobians = (K, C)``), sparse ones refactorized on their patterns and pivots or pivoted afresh
    (``iteration_matrix.structured_factors``, ``jacobians = (SparseIterationPattern.structure, K data,
    C data)``). Returns ``(whether they are regular, iteration matrix factors, G G^T factors)``."""
    raise NotImplementedError("refactorized is called from compiled code only")


@overload(refactorized)
def _refactorized(factors: tuple, jacobians: tuple, equations: tuple, c: float, stabilized: bool) -> Callable:
    """``refactorized`` for the numba types of its arguments: two arrays of the matrix are dense factors."""

    def dense(factors: tuple, jacobians: tuple, equations: tuple, c: float, stabilized: bool) -> tuple:
        K, C = jacobians
        return dae_kernel.dense_iteration_factors((*equations, K, C, c * c, c, stabilized))

    def sparse(factors: tuple, jacobians: tuple, equations: tuple, c: float, stabilized: bool) -> tuple:
        structure, K_data, C_data = jacobians
        entries = dae_kernel.constraint_entries(*equations)
        return structured_factors(structure, K_data, C_data, c * c, c, entries, stabilized, factors)

    return dense if len(factors.types[0].types) == 2 else sparse


@njit(cache=True)
def compiled_steps(
    differences: tuple,
    control: tuple,
    rules: tuple,
    solve: tuple,
    output: tuple,
    frame_rows: FloatArray,
) -> tuple:
    """BDF steps from the state ``differences = (D, carried, last D, last carried)`` (``BDF``'s arrays,
    updated in place) and ``control = (t [s], h [s], order, equal steps, t_bound [s], max_step [s],
    min_step [s])``, with ``rules = (gamma, alpha, error constants, max order, min factor, max factor,
    Newton's max iterations, rtol, atol)`` (``BDF``'s), the problem's ``solve = (kept c, step change,
    jacobians as ``refactorized`` takes them, sizes, stabilized, system, rows, f, f_dot, no loads,
    pattern, factors,
    stiffness, no weak rows, Newton's convergence with kept factors, with fresh ones (more iterations
    with old ``K``, ``C``: ``dae.STALE_EXTRA_ITERATIONS``), quadratures, position count of the frames)``
    (``MechanicalDAE.compiled_step``) and the frames' ``output = (output times [s], index of the next,
    how close after a step's end an output time is in it [s], frame model, reaction rows, whether the
    frames are solved afresh (I3), the dense (K, C) of that solve or empty ones)`` (``RigidFrames.model``,
    ``RigidFrames.n_reactions``, ``MechanicalDAE.frame_jacobians``), the frames going to ``frame_rows``
    (k, width).

    Returns ``(reason, t_old, t, h, order, equal steps, order of the last step, steps, rejected steps,
    Newton iterations, factorizations, index of the next output time, frames written, y, z, (c, factors)
    kept)``."""
    D, carried, last_differences, last_carried = differences
    t, h, order, equal_steps, t_bound, max_step, min_step = control
    gamma, alpha, error_constant, max_order, min_factor, max_factor, newton_max, rtol, atol = rules
    (
        kept_c,
        step_change,
        jacobians,
        sizes,
        stabilized,
        system,
        rows,
        f,
        f_dot,
        no_loads,
        pattern,
        factors,
        stiffness,
        weak_rows,
        convergence,
        fresh_convergence,
        quadratures,
        frame_positions,
    ) = solve
    output_times, next_output, reached, model, n_reactions, solved_frames, frame_jacobians = output
    nq, nv, _, m = sizes
    n = D.shape[1]
    t_old, order_of_last_step = t, -1
    steps, rejected, iterations, factorizations = 0, 0, 0, 0
    written = 0
    y = D[0].copy()
    z = carried[0, n:].copy()
    reason = NEEDS_PYTHON
    while steps < STEPS_PER_CALL:
        if h > max_step or h < max(min_step, 10.0 * EPS * max(abs(t), 1.0)) or t + h >= t_bound:
            break
        c = h / alpha[order]
        predicted, base, z_predicted = predict(D, carried, order, gamma, alpha[order])
        velocity_scale = 1.0 if stabilized else h  # I3's index-3 error control (MechanicalDAE.error_weights)
        weights = dae_kernel.error_weights(predicted, rtol, atol, quadratures, (nq, nq + nv), velocity_scale)
        # MechanicalDAE.correct's modified Newton: the kept factors within the step change, else (or
        # should they fail) fresh ones, at Newton's start
        fresh, regular = abs(c / kept_c - 1.0) > step_change, True
        while True:
            if fresh:
                q_start, v_start, _, _ = dae_kernel.newton_start(predicted, base, c, z_predicted, sizes)
                equations = (q_start, v_start, system, rows, f, f_dot, pattern)
                regular, matrix_factors, gram_factors = refactorized(
                    factors, jacobians, equations, c, stabilized and m > 0
                )
                if not regular:  # singular: Python's factorization says which rows
                    break
                factors, kept_c = (matrix_factors, gram_factors), c
                factorizations += 1
            verdict, taken, _, y_corrected, z_corrected = dae_kernel.compiled_correction(
                predicted,
                base,
                c,
                z_predicted,
                sizes,
                stabilized,
                system,
                rows,
                f,
                f_dot,
                no_loads,
                pattern,
                factors,
                stiffness,
                weights,
                weak_rows,
                fresh_convergence if fresh else convergence,
            )
            iterations += taken
            if verdict == CONVERGED or fresh:
                break
            fresh = True
        if not regular:
            break
        if verdict != CONVERGED:
            reason = NEWTON_FAILED
            break
        error_norm = weighted_max_distance(error_constant[order], y_corrected, predicted, weights)
        if not np.isfinite(error_norm):
            break  # BDF.step says so
        safety = newton_safety(newton_max, taken)
        if error_norm > 1.0:
            rejected += 1
            factor = max(min_factor, safety * error_norm ** (-1.0 / (order + 1)))
            rescale_differences(D, order, factor)
            rescale_differences(carried, order, factor)
            h *= factor
            equal_steps = 0
        else:
            y = y_corrected.copy()
            rigid.normalize_euler_parameters(y[:frame_positions])
            z = z_corrected
            steps += 1
            t_old, t = t, t + h
            order_of_last_step = order
            order, equal_steps, factor = accept_step(
                D,
                carried,
                order,
                y_corrected,
                base,
                c,
                z,
                y,
                last_differences,
                last_carried,
                equal_steps,
                error_norm,
                weights,
                error_constant,
                max_order,
                safety,
                max_factor,
            )
            step = t - t_old
            h *= factor
            while next_output < output_times.size and output_times[next_output] <= t + reached:
                if written == frame_rows.shape[0]:
                    reason = FRAMES_LEFT
                    break
                at = output_times[next_output]
                y_at = newton_form(last_differences, order_of_last_step, at, t, step)
                rigid.normalize_euler_parameters(y_at[:frame_positions])
                scalars = (at, y_at[n - 2], y_at[n - 1])
                if solved_frames:  # I3: solved afresh, as EventDrivenIntegrator.frame_at does
                    equations = (system, rows, pattern, frame_jacobians[0], frame_jacobians[1])
                    q_at, v_at = y_at[:nq], y_at[nq : nq + nv]
                    if not solved_frame_pass(
                        frame_rows[written], q_at, v_at, f, f_dot, scalars, model, equations, n_reactions
                    ):
                        reason = FRAMES_LEFT  # singular: Python's frame_at says so
                        break
                else:  # SI2: from the dense output of the rates and multipliers
                    rates_at = newton_form(last_carried, order_of_last_step, at, t, step)
                    rigid_frame_pass(
                        frame_rows[written],
                        y_at[:nq],
                        y_at[nq : nq + nv],
                        rates_at[nq : nq + nv],
                        rates_at[n : n + n_reactions],
                        f,
                        f_dot,
                        scalars,
                        model,
                    )
                written += 1
                next_output += 1
        if reason == FRAMES_LEFT:
            break
    return (
        reason,
        t_old,
        t,
        h,
        order,
        equal_steps,
        order_of_last_step,
        steps,
        rejected,
        iterations,
        factorizations,
        next_output,
        written,
        y,
        z,
        (kept_c, factors),
    )
