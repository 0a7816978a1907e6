"""One Newton iteration of the DAE forms (I3, SI2) of the rigid-body Cartesian equations, compiled.

An iteration of ``MechanicalDAE.correct`` (the equations are in ``multibody.formulation.dae``)
is compiled parts around two linear solves::

    residual_part -> (SI2) solve with G G^T: multiplier_increment, add_stiffness_response
                  -> solve with the iteration matrix -> apply_increment -> close_iteration

They run in one call (``compiled_iteration``), which solves by substitution with the factors,
dense (LAPACK ``getrf``'s) or sparse (SuperLU's, taken out once per factorization); without force
elements a step's whole solve from its prediction is one call (``compiled_correction``). Only should
SuperLU's factors not have the expected form does Python call the parts around SuperLU's own solves.
The dense iteration matrices come from one call too (``dense_iteration_matrices``, for BDF and the
alpha methods alike), and so does an iteration of the alpha methods' index-3 step
(``alpha_iteration``, ``multibody.formulation.index3_alpha``). Both kinds of iteration run in one
compiled Newton loop (``newton_loop``).

The loads of the force elements and the rates of the first-order states, which may come from
Python laws, are inputs evaluated at the iterate (``element_wrench``, ``state_rate``). ``G`` is
used as its entries at the fixed pattern of ``constraints.JacobianAssembler`` (``keep``: which
kernel values are entries, ``row`` and ``column``: where each entry sits).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np
from numba import njit
from numba.core.errors import TypingError
from numba.extending import overload

from multibody.formulation.bodies import rigid
from multibody.formulation.cartesian_kernel import evaluate_rigid
from multibody.solve.linear import dense_lu, lu_solve
from multibody.solve.newton import CONTINUE, roundoff_norm, verdict_code
from multibody.solve.sparse_lu import sparse_lu_solve


def factored_solve(factors: tuple, rhs: np.ndarray) -> np.ndarray:
    """``A^-1 rhs`` from ``linear.Factorization.kernel_factors`` of ``A``, dense (``lu_solve``) or sparse
    (``sparse_lu_solve``); for compiled callers only (the kind of factors picks the solver when compiled)."""
    raise NotImplementedError("factored_solve is called from compiled code only")


@overload(factored_solve)
def _factored_solve(factors: tuple, rhs: np.ndarray) -> Callable:
    """``factored_solve`` for the numba types of its arguments: two arrays are dense factors."""

    def dense(factors: tuple, rhs: np.ndarray) -> np.ndarray:
        return lu_solve(factors[0], factors[1], rhs)

    def sparse(factors: tuple, rhs: np.ndarray) -> np.ndarray:
        return sparse_lu_solve(*factors, rhs)

    return dense if len(factors.types) == 2 else sparse


@njit(cache=True)
def times(entries: np.ndarray, row: np.ndarray, column: np.ndarray, vector: np.ndarray, m: int) -> np.ndarray:
    """``G vector`` (m,)."""
    out = np.zeros(m)
    for k in range(entries.size):
        out[row[k]] += entries[k] * vector[column[k]]
    return out


@njit(cache=True)
def _motion_residual(
    mass_blocks: np.ndarray,
    acceleration: np.ndarray,
    wrench: np.ndarray,
    element_wrench: np.ndarray,
    constraint_force: np.ndarray,
) -> np.ndarray:
    """``M a - Q - Q_elements + G^T lambda`` (nv,) of the rigid bodies, per body block: the mass blocks
    (nb, 6, 6), accelerations (nv,), the bodies' wrenches of gravity and inertia and of the force
    elements (nb, 6 each), the constraint forces ``G^T lambda`` (nv,)."""
    width = mass_blocks.shape[1]
    out = np.empty(acceleration.size)
    for b in range(mass_blocks.shape[0]):
        for i in range(width):
            inertia_force = 0.0
            for j in range(width):
                inertia_force += mass_blocks[b, i, j] * acceleration[width * b + j]
            k = width * b + i
            out[k] = inertia_force - wrench[b, i] - element_wrench[b, i] + constraint_force[k]
    return out


@njit(cache=True)
def transpose_times(entries: np.ndarray, row: np.ndarray, column: np.ndarray, vector: np.ndarray, n: int) -> np.ndarray:
    """``G^T vector`` (n,)."""
    out = np.zeros(n)
    for k in range(entries.size):
        out[column[k]] += entries[k] * vector[row[k]]
    return out


@njit(cache=True)
def replace_weak_rows(vector: np.ndarray, weak_rows: np.ndarray, replacement: np.ndarray) -> None:
    """Replace, in place, the part of ``vector`` (m,) along the orthonormal columns of ``weak_rows``
    (m, k) by that of ``replacement`` (m,): ``vector += U_k U_k^T (replacement - vector)``."""
    for j in range(weak_rows.shape[1]):
        along = 0.0
        for r in range(vector.size):
            along += weak_rows[r, j] * (replacement[r] - vector[r])
        for r in range(vector.size):
            vector[r] += weak_rows[r, j] * along


@njit(cache=True)
def is_stiff(stiffness: tuple) -> bool:
    """Whether ``stiffness`` (as ``add_stiffness_response`` takes it) has any entry."""
    return stiffness[0].size > 0 or stiffness[3].size > 0


@njit(cache=True)
def add_stiffness_response(rhs: np.ndarray, position_change: np.ndarray, c: float, stiffness: tuple) -> None:
    """Add to SI2's Newton right-hand side ``rhs = [-c r_v, -r_x, ...]`` (in place) the loads' answer
    to a move of the positions by ``c position_change`` (velocity space) that the iteration matrix
    does not see: ``c^2 K position_change`` on the velocity rows and ``c^2 F_q position_change`` on
    the state rows, ``stiffness = (K data, K indices, K indptr, F_q)`` (``K`` (nv, nv) in CSR, ``F_q``
    (nx, nv) dense).

    SI2 moves the positions by ``-c G^T dmu`` with the multipliers ``mu`` (``q = q_b + c N (v - G^T
    mu)``), which the iteration matrix leaves out (``mu`` is solved after it, from ``G G^T``). With
    ``dmu`` predicted before the solve (``position_change = -G^T dmu``), Newton sees the stiffness's
    answer to that move; without it, it converged linearly at a rate of about ``c^2 |K| / m`` along
    the constraints (a rope of EA = 1e5 N on a 10 kg block at rtol 1e-8: 0.4, two Newton failures
    per step, 25 times the steps)."""
    data, indices, indptr, F_q = stiffness
    nv = indptr.size - 1
    scale = c * c
    for i in range(nv):
        total = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            total += data[k] * position_change[indices[k]]
        rhs[i] += scale * total
    for i in range(F_q.shape[0]):
        total = 0.0
        for j in range(nv):
            total += F_q[i, j] * position_change[j]
        rhs[nv + i] += scale * total


@njit(cache=True)
def residual_part(
    q: np.ndarray,
    v: np.ndarray,
    x: np.ndarray,
    lam: np.ndarray,
    base_v: np.ndarray,
    base_x: np.ndarray,
    c: float,
    stabilized: bool,
    system: tuple,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    element_wrench: np.ndarray,
    state_rate: np.ndarray,
    pattern: tuple,
    weak_rows: np.ndarray,
) -> tuple:
    """Evaluate at the iterate ``(q, v, x, lam)``; return ``(rhs, phi, nu, G entries)`` with the
    scaled Newton right-hand side ``rhs = [-c r_v, -r_x, -phi / c (I3) or nu - G v (SI2)]``,
    ``r_v = M (v - base_v) / c - Q + G^T lam`` and ``r_x = x - base_x - c F``.

    ``system`` is ``(marker_body, marker_position, marker_orientation, mass, inertia, gravity,
    mass_blocks)``, ``rows`` the kernel arrays of the rows, ``f``, ``f_dot`` their driver values,
    ``element_wrench`` (nb, 6) the force elements' generalized forces (``Q`` adds gravity and the
    gyroscopic moments), ``state_rate`` (nx,) ``F``, ``pattern`` ``(keep, row, column)``, and
    ``weak_rows`` (m, k) the directions ``U_k`` of SI2's nearly dependent rows (``k = 0``: none),
    along which the velocity rows are replaced by the position rows of I3, ``-phi / c``
    (``multibody.formulation.dae.MechanicalDAE._weak_rows``)."""
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, mass_blocks = system
    keep, row, column = pattern
    evaluated = evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )
    phi, nu, values, wrench = evaluated[10], evaluated[11], evaluated[13], evaluated[14]
    entries = values.reshape(-1)[keep]
    nv, nx, m = v.size, x.size, lam.size
    rhs = np.empty(nv + nx + m)
    constraint_force = transpose_times(entries, row, column, lam, nv)
    residual = _motion_residual(mass_blocks, (v - base_v) / c, wrench, element_wrench, constraint_force)
    for k in range(nv):
        rhs[k] = -c * residual[k]
    for i in range(nx):
        rhs[nv + i] = -(x[i] - base_x[i] - c * state_rate[i])
    if stabilized:
        velocity_residual = times(entries, row, column, v, m)
        for r in range(m):
            rhs[nv + nx + r] = nu[r] - velocity_residual[r]
        if weak_rows.shape[1]:
            replace_weak_rows(rhs[nv + nx :], weak_rows, -phi / c)
    else:
        for r in range(m):
            rhs[nv + nx + r] = -phi[r] / c
    return rhs, phi, nu, entries


@njit(cache=True)
def apply_increment(solution: np.ndarray, v: np.ndarray, x: np.ndarray, lam: np.ndarray, c: float) -> tuple:
    """Add the Newton increment ``solution = (dv, dx, c dlam)`` to ``v``, ``x``, ``lam`` in place;
    return ``(dv, dx)``."""
    nv, nx, m = v.size, x.size, lam.size
    dv = solution[:nv].copy()
    dx = solution[nv : nv + nx].copy()
    v += dv
    x += dx
    for r in range(m):
        lam[r] += solution[nv + nx + r] / c
    return dv, dx


@njit(cache=True)
def multiplier_increment(
    phi: np.ndarray, c: float, velocity_change: np.ndarray, gram_factors: tuple, weak_rows: np.ndarray
) -> np.ndarray:
    """SI2's increment of ``mu`` (m,), ``(G G^T)^-1 (phi / c + G dv)`` for ``velocity_change = G dv``
    (m,), with no part along ``weak_rows``, whose positions the multipliers hold as in I3.
    ``gram_factors`` as ``factored_solve`` takes them."""
    gram_rhs = phi / c + velocity_change
    if weak_rows.shape[1]:
        replace_weak_rows(gram_rhs, weak_rows, np.zeros(phi.size))
    return factored_solve(gram_factors, gram_rhs)


@njit(cache=True)
def close_iteration(
    q: np.ndarray,
    v: np.ndarray,
    mu: np.ndarray,
    mu_increment: np.ndarray,
    base_q: np.ndarray,
    c: float,
    stabilized: bool,
    dv: np.ndarray,
    dx: np.ndarray,
    entries: np.ndarray,
    pattern: tuple,
    weights: np.ndarray,
) -> float:
    """Move ``q`` in place to ``base_q + c N(q) (v - G^T mu)`` (SI2, after ``mu += mu_increment``)
    or ``base_q + c N(q) v`` (I3); return the weighted rms of the increment ``(dq, dv, dx)``."""
    _, row, column = pattern
    velocity = v
    if stabilized:
        mu += mu_increment
        velocity = v - transpose_times(entries, row, column, mu, v.size)
    q_new = base_q + c * rigid.position_rate(q, velocity)
    nq, nv = q.size, v.size
    total = 0.0
    for i in range(nq):
        total += ((q_new[i] - q[i]) * weights[i]) ** 2
        q[i] = q_new[i]
    for i in range(nv):
        total += (dv[i] * weights[nq + i]) ** 2
    for i in range(dx.size):
        total += (dx[i] * weights[nq + nv + i]) ** 2
    return np.sqrt(total / max(nq + nv + dx.size, 1))


@njit(cache=True)
def compiled_iteration(
    q: np.ndarray,
    v: np.ndarray,
    x: np.ndarray,
    lam: np.ndarray,
    mu: np.ndarray,
    base: tuple,
    c: float,
    stabilized: bool,
    system: tuple,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    element_wrench: np.ndarray,
    state_rate: np.ndarray,
    pattern: tuple,
    factors: tuple,
    stiffness: tuple,
    weights: np.ndarray,
    weak_rows: np.ndarray,
) -> tuple:
    """One whole iteration with the factors ``(iteration matrix, G G^T)``, each as
    ``linear.Factorization.kernel_factors`` gives them, dense or sparse (the second unused for I3);
    ``base = (base_q, base_v, base_x)``, ``stiffness`` as in ``add_stiffness_response`` (SI2),
    ``weak_rows`` as in ``residual_part``. Updates ``q, v, x, lam, mu`` in place and returns
    ``(increment norm, nu)`` (``nu`` at the iterate the residual was taken at)."""
    base_q, base_v, base_x = base
    matrix_factors, gram_factors = factors
    loads = (element_wrench, state_rate)
    rhs, phi, nu, entries = residual_part(
        q, v, x, lam, base_v, base_x, c, stabilized, system, rows, f, f_dot, *loads, pattern, weak_rows
    )
    _, row, column = pattern
    nv, nx, m = v.size, x.size, lam.size
    if stabilized and is_stiff(stiffness):  # mu's increment predicted with G dv = the velocity rows' rhs
        predicted_mu = multiplier_increment(phi, c, rhs[nv + nx :], gram_factors, weak_rows)
        add_stiffness_response(rhs, -transpose_times(entries, row, column, predicted_mu, nv), c, stiffness)
    dv, dx = apply_increment(factored_solve(matrix_factors, rhs), v, x, lam, c)
    mu_increment = np.zeros(m)
    if stabilized:
        mu_increment = multiplier_increment(phi, c, times(entries, row, column, dv, m), gram_factors, weak_rows)
    norm = close_iteration(q, v, mu, mu_increment, base_q, c, stabilized, dv, dx, entries, pattern, weights)
    return norm, nu


def newton_iteration(arguments: tuple) -> tuple:
    """One compiled Newton iteration on ``arguments``, updating its iterate in place and returning
    ``(weighted increment norm, nu)``: ``compiled_iteration(*arguments)`` (BDF's DAE forms) or
    ``alpha_iteration(*arguments)`` (the alpha methods' index-3 step), told apart by their number of
    arguments (as ``factored_solve`` tells dense factors from sparse ones); for compiled callers only
    (``newton_loop``)."""
    raise NotImplementedError("newton_iteration is called from compiled code only")


def _arity(function: Callable) -> int:
    """Number of arguments of the compiled ``function``."""
    return len(inspect.signature(function.py_func).parameters)


@overload(newton_iteration)
def _newton_iteration(arguments: tuple) -> Callable:
    """``newton_iteration`` for the numba type of ``arguments``."""

    def dae(arguments: tuple) -> tuple:
        return compiled_iteration(*arguments)

    def alpha(arguments: tuple) -> tuple:
        return alpha_iteration(*arguments)

    iterations = {_arity(compiled_iteration): dae, _arity(alpha_iteration): alpha}
    if len(iterations) < 2 or len(arguments.types) not in iterations:
        known = ", ".join(map(str, iterations))
        raise TypingError(
            f"newton_iteration tells its iterations apart by their numbers of arguments ({known}) and got "
            f"{len(arguments.types)}: give each iteration its own number"
        )
    return iterations[len(arguments.types)]


@njit(cache=True)
def newton_loop(arguments: tuple, convergence: tuple) -> tuple:
    """Newton's iteration of ``newton_iteration(arguments)`` (whose iterate it updates in place) until
    ``newton.verdict_code`` of the increments says converged or diverging, with ``convergence =
    (tolerance, max_iterations, roundoff_fraction, roundoff)`` of ``newton.ConvergenceMonitor``: the one
    compiled Newton loop of BDF and the alpha methods. Returns ``(verdict code, iterations, last
    increment norm, the one before (0 after a single one), nu)``."""
    tolerance, max_iterations, roundoff_fraction, roundoff = convergence
    iterations, previous, before, verdict = 0, 0.0, 0.0, CONTINUE
    norm, nu = np.inf, np.empty(0)
    while verdict == CONTINUE:
        norm, nu = newton_iteration(arguments)
        iterations += 1
        verdict = verdict_code(norm, previous, iterations, tolerance, max_iterations, roundoff_fraction, roundoff)
        before = previous
        if not np.isnan(norm):
            previous = norm
    return verdict, iterations, norm, before, nu


@njit(cache=True)
def error_weights(
    y: np.ndarray, rtol: float, atol: float, quadratures: int, velocities: tuple, velocity_scale: float
) -> np.ndarray:
    """``1 / (atol + rtol |y|)`` (n,), zero on the last ``quadratures`` entries, times
    ``velocity_scale`` on the entries ``velocities = (start, stop)`` (``MechanicalDAE.error_weights``)."""
    weights = np.empty(y.size)
    for i in range(y.size):
        weights[i] = 1.0 / (atol + rtol * abs(y[i]))
    weights[y.size - quadratures :] = 0.0
    start, stop = velocities
    for i in range(start, stop):
        weights[i] *= velocity_scale
    return weights


@njit(cache=True)
def newton_start(predicted: np.ndarray, base: np.ndarray, c: float, z_guess: np.ndarray, sizes: tuple) -> tuple:
    """Newton's first iterate of a rigid model's step ``y = base + c y'`` (``sizes = (nq, nv, nx,
    m)``): velocities, states and multipliers as predicted, positions consistent with the predicted
    velocities, ``base_q + c N(q_predicted) v`` (so that the first increment, which assumes ``dq = c
    N dv``, is not polluted by a predictor mismatch in q). Returns fresh ``(q, v, x, lam)``."""
    nq, nv, nx, m = sizes
    v = predicted[nq : nq + nv].copy()
    x = predicted[nq + nv : nq + nv + nx].copy()
    q = base[:nq] + c * rigid.position_rate(predicted[:nq], v)
    return q, v, x, z_guess[:m].copy()


@njit(cache=True)
def compiled_correction(
    predicted: np.ndarray,
    base: np.ndarray,
    c: float,
    z_guess: np.ndarray,
    sizes: tuple,
    stabilized: bool,
    system: tuple,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    no_loads: tuple,
    pattern: tuple,
    factors: tuple,
    stiffness: tuple,
    weights: np.ndarray,
    weak_rows: np.ndarray,
    convergence: tuple,
) -> tuple:
    """A whole step's solve of a rigid model without force elements (``MechanicalDAE.correct``): from
    ``newton_start``, Newton's iteration of ``compiled_iteration`` by ``newton_loop`` with the error
    ``weights`` of ``y`` and ``convergence =
    (tolerance, max_iterations, roundoff_fraction, roundoff floor)`` (the floor raised to the round-off
    of the predicted ``y``: ``newton.roundoff_norm``), then the quadratures of ``y``: the energy the
    motions put in, ``-lambda . nu`` [W], taken out of ``E`` and added to ``W``. ``no_loads =
    (element_wrench, state_rate)`` of zeros. Returns ``(verdict code, iterations, last increment
    norm, y, z = (lambda, mu))``; ``y`` holds the last iterate when Newton did not converge."""
    nq, nv, nx, m = sizes
    n = nq + nv + nx
    q, v, x, lam = newton_start(predicted, base, c, z_guess, sizes)
    mu = np.zeros(m)
    tolerance, max_iterations, roundoff_fraction, floor = convergence
    roundoff = max(roundoff_norm(predicted[:n], weights[:n]), floor)
    base_parts = (base[:nq], base[nq : nq + nv], base[nq + nv : n])
    iterate = (q, v, x, lam, mu)
    equations = (base_parts, c, stabilized, system, rows, f, f_dot, *no_loads, pattern, factors, stiffness)
    rules = (tolerance, max_iterations, roundoff_fraction, roundoff)
    verdict, iterations, norm, _, nu = newton_loop((*iterate, *equations, weights[:n], weak_rows), rules)
    motion_power = 0.0
    for r in range(nu.size):
        motion_power -= lam[r] * nu[r]
    y = np.empty(n + 2)
    y[:nq] = q
    y[nq : nq + nv] = v
    y[nq + nv : n] = x
    y[n] = base[n] - c * motion_power
    y[n + 1] = base[n + 1] + c * motion_power
    z = np.empty(2 * m)
    z[:m] = lam
    z[m:] = mu
    return verdict, iterations, norm, y, z


@njit(cache=True)
def dense_iteration_matrices(
    q: np.ndarray,
    v: np.ndarray,
    system: tuple,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    pattern: tuple,
    stiffness: np.ndarray,
    damping: np.ndarray,
    c_position: float,
    c_velocity: float,
    stabilized: bool,
) -> tuple:
    """The dense iteration matrix ``[[M - c_v C - c_q K, G^T], [G, 0]]`` at ``(q, v)`` of a step
    that moves positions by ``c_position`` and velocities by ``c_velocity`` times its unknowns
    (BDF: ``c^2``, ``c``), and, for SI2 (``stabilized``), ``G G^T`` ((0, 0) otherwise), with ``G``
    from one compiled evaluation (rigid bodies, no state coupling: ``coupled_iteration_matrix``
    of the same equations); ``stiffness`` ``K`` and ``damping`` ``C`` are (nv, nv)."""
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, mass_blocks = system
    keep, row, column = pattern
    values = evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )[13]
    entries = values.reshape(-1)[keep]
    nv, m = v.size, rows[0].size
    width = rigid.VELOCITY_WIDTH
    matrix = np.empty((nv + m, nv + m))
    for i in range(nv):
        for j in range(nv):
            matrix[i, j] = -c_velocity * damping[i, j] - c_position * stiffness[i, j]
    for b in range(mass_blocks.shape[0]):
        for i in range(width):
            for j in range(width):
                matrix[width * b + i, width * b + j] += mass_blocks[b, i, j]
    matrix[:nv, nv:] = 0.0
    matrix[nv:, :] = 0.0
    G = np.zeros((m, nv))
    for k in range(entries.size):
        G[row[k], column[k]] += entries[k]
    for r in range(m):
        for i in range(nv):
            matrix[nv + r, i] = G[r, i]
            matrix[i, nv + r] = G[r, i]
    gram = G @ G.T if stabilized else np.zeros((0, 0))
    return matrix, gram


@njit(cache=True)
def dense_iteration_factors(equations: tuple) -> tuple:
    """``dense_iteration_matrices(*equations)`` factorized (``linear.dense_lu``): ``(whether both are
    regular, iteration matrix factors, G G^T factors)``, each ``(lu, pivots)`` as
    ``Factorization.kernel_factors`` gives them (without ``G G^T``: those of a 0 x 0 matrix)."""
    matrix, gram = dense_iteration_matrices(*equations)
    lu, pivots, regular = dense_lu(matrix)
    gram_lu, gram_pivots, gram_regular = dense_lu(gram)
    return regular and gram_regular, (lu, pivots), (gram_lu, gram_pivots)


@njit(cache=True)
def alpha_positions(base: tuple, c_position: float, c_velocity: float, a: np.ndarray, r: np.ndarray) -> tuple:
    """``(q, v, x)`` of an alpha-method step at the unknowns ``a`` (nv,) and ``r`` (nx,):
    ``q = displace(base_q, displacement + c_q a)``, ``v = velocity + c_v a``, ``x = states + c_v r``;
    ``base = (base_q, displacement, velocity, states)`` (``generalized_alpha.StepBase``)."""
    base_q, displacement, velocity, states = base
    return (
        rigid.displaced_positions(base_q, displacement + c_position * a),
        velocity + c_velocity * a,
        states + c_velocity * r,
    )


@njit(cache=True)
def alpha_iteration(
    unknowns: tuple,
    iterate: tuple,
    base: tuple,
    c_position: float,
    c_velocity: float,
    system: tuple,
    rows: tuple,
    f: np.ndarray,
    f_dot: np.ndarray,
    element_wrench: np.ndarray,
    state_rate: np.ndarray,
    pattern: tuple,
    factors: tuple,
    weights: tuple,
) -> tuple:
    """One Newton iteration of the index-3 alpha-method step (``index3_alpha.Index3Mechanics.solve``,
    rigid bodies, the factors of its iteration matrix as ``linear.Factorization.kernel_factors`` gives
    them): evaluate at the ``iterate = (q, v, x)`` of the ``unknowns = (a, r, lam)`` (``alpha_positions``),
    solve for ``(da, dr, dlam)`` from the residual ``[-(M a - Q + G^T lam), F - r, -phi / c_q]`` and add
    them in place, moving the iterate in place to the new one. ``element_wrench`` (nb, 6) and
    ``state_rate`` (nx,) are the force elements' part of ``Q`` and ``F`` at the iterate; ``weights``
    those of positions, velocities and states. Returns the weighted rms of the increment ``(c_q da,
    c_v da, c_v dr)`` and ``nu`` (m,) at the iterate the residual was taken at."""
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, mass_blocks = system
    keep, row, column = pattern
    position_weights, velocity_weights, state_weights = weights
    a, r, lam = unknowns
    q, v, x = iterate
    evaluated = evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )
    phi, nu, values, wrench = evaluated[10], evaluated[11], evaluated[13], evaluated[14]
    entries = values.reshape(-1)[keep]
    nv, nx, m = a.size, r.size, lam.size
    rhs = np.empty(nv + nx + m)
    constraint_force = transpose_times(entries, row, column, lam, nv)
    residual = _motion_residual(mass_blocks, a, wrench, element_wrench, constraint_force)
    for k in range(nv):
        rhs[k] = -residual[k]
    for i in range(nx):
        rhs[nv + i] = state_rate[i] - r[i]
    for k in range(m):
        rhs[nv + nx + k] = -phi[k] / c_position
    solution = factored_solve(factors, rhs)
    total = 0.0
    for i in range(nv):
        a[i] += solution[i]
        total += (c_position * solution[i] * position_weights[i]) ** 2
        total += (c_velocity * solution[i] * velocity_weights[i]) ** 2
    for i in range(nx):
        r[i] += solution[nv + i]
        total += (c_velocity * solution[nv + i] * state_weights[i]) ** 2
    for k in range(m):
        lam[k] += solution[nv + nx + k]
    q[:], v[:], x[:] = alpha_positions(base, c_position, c_velocity, a, r)
    return np.sqrt(total / max(2 * nv + nx, 1)), nu


@njit(cache=True)
def velocity_rhs(
    q: np.ndarray, v: np.ndarray, system: tuple, rows: tuple, f: np.ndarray, f_dot: np.ndarray
) -> np.ndarray:
    """``nu`` (m,) of the rows at ``(q, v)`` (one compiled evaluation)."""
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, _ = system
    return evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )[11]


@njit(cache=True)
def constraint_entries(
    q: np.ndarray, v: np.ndarray, system: tuple, rows: tuple, f: np.ndarray, f_dot: np.ndarray, pattern: tuple
) -> np.ndarray:
    """The entries of ``G`` at ``q`` (at the pattern ``(keep, row, column)``; one compiled evaluation)."""
    marker_body, marker_position, marker_orientation, mass, inertia, gravity, _ = system
    values = evaluate_rigid(
        q, v, marker_body, marker_position, marker_orientation, rows, f, f_dot, mass, inertia, gravity
    )[13]
    return values.reshape(-1)[pattern[0]]
