"""The dense Newton iteration of an implicit step for models with non-rigid bodies (modal bodies,
ANCF cables, moving-node rope spans), compiled: each iteration (residual, solves, updates) on the
evaluation at the iterate in one call, the same equations as ``MechanicalDAE._modal_iteration``
(``multibody.formulation.dae``)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from multibody.formulation.bodies import rigid
from multibody.formulation.dae_kernel import (
    add_stiffness_response,
    apply_increment,
    is_stiff,
    multiplier_increment,
    replace_weak_rows,
)
from multibody.solve.linear import lu_solve

FloatArray = NDArray[np.float64]


@njit(cache=True)
def dense_iteration(
    mass_matrix: FloatArray,
    generalized_force: FloatArray,
    G: FloatArray,
    phi: FloatArray,
    nu: FloatArray,
    state_rate: FloatArray,
    q: FloatArray,
    v: FloatArray,
    x: FloatArray,
    lam: FloatArray,
    mu: FloatArray,
    base_q: FloatArray,
    base_v: FloatArray,
    base_x: FloatArray,
    c: float,
    stabilized: bool,
    lu: FloatArray,
    pivots: NDArray[np.int32],
    gram_lu: FloatArray,
    gram_pivots: NDArray[np.int32],
    stiffness: tuple,
    weak: FloatArray,
    weights: FloatArray,
    n_frame_positions: int,
) -> float:
    """One Newton iteration in place on ``q, v, x, lam, mu`` from the evaluation at the iterate
    (``M``, ``Q``, ``G``, ``Phi``, ``nu``, ``F``), the step's ``base`` parts and coefficient ``c``, the
    LU factors of the iteration matrix and (SI2, ``gram_lu`` non-empty) of ``G G^T``, SI2's nearly
    dependent rows ``weak`` (m, k) taken as in I3, the loads' stiffness on SI2's move of the positions
    with ``mu`` (``dae_kernel.add_stiffness_response``), and the error ``weights`` of ``(q, v, x)``; returns
    the weighted rms of the increment. Residuals: ``M (v - v_b) / c - Q + G^T lambda``, ``x - x_b -
    c F`` and ``nu - G v`` (SI2) or ``-Phi / c`` (I3); then ``q = q_b + c N(q) (v - G^T mu)``."""
    n, m, nx = v.size, lam.size, x.size
    rhs = np.empty(n + nx + m)
    for i in range(n):
        inertia = 0.0
        for j in range(n):
            inertia += mass_matrix[i, j] * (v[j] - base_v[j])
        reaction = 0.0
        for r in range(m):
            reaction += G[r, i] * lam[r]
        rhs[i] = -c * (inertia / c - generalized_force[i] + reaction)
    for k in range(nx):
        rhs[n + k] = -(x[k] - base_x[k] - c * state_rate[k])
    constraint_rhs = np.empty(m)
    for r in range(m):
        if stabilized:
            rate = 0.0
            for i in range(n):
                rate += G[r, i] * v[i]
            constraint_rhs[r] = nu[r] - rate
        else:
            constraint_rhs[r] = -phi[r] / c
    if weak.shape[1]:
        replace_weak_rows(constraint_rhs, weak, -phi / c)
    rhs[n + nx :] = constraint_rhs
    gram_factors = (gram_lu, gram_pivots)
    if gram_lu.shape[0] and is_stiff(stiffness):  # as dae_kernel.compiled_iteration does
        predicted_mu = multiplier_increment(phi, c, constraint_rhs, gram_factors, weak)
        add_stiffness_response(rhs, -(G.T @ predicted_mu), c, stiffness)
    dv, dx = apply_increment(lu_solve(lu, pivots, rhs), v, x, lam, c)
    velocity = v.copy()
    if gram_lu.shape[0]:
        mu += multiplier_increment(phi, c, G @ dv, gram_factors, weak)
        velocity -= G.T @ mu
    frames = rigid.position_rate(q[:n_frame_positions], velocity[: n - (q.size - n_frame_positions)])
    total = 0.0
    for i in range(q.size):
        rate = frames[i] if i < n_frame_positions else velocity[i - q.size + n]
        moved = base_q[i] + c * rate
        total += ((moved - q[i]) * weights[i]) ** 2
        q[i] = moved
    for i in range(n):
        total += (dv[i] * weights[q.size + i]) ** 2
    for k in range(nx):
        total += (dx[k] * weights[q.size + n + k]) ** 2
    count = q.size + n + nx
    return np.sqrt(total / count) if count else 0.0
