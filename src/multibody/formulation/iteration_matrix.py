"""The Newton matrix of one implicit step of the Cartesian equations, bordered by the
first-order states and by the loads that read multipliers.

One function for every implicit method: a step moves positions by ``c_position`` and velocities
and states by ``c_velocity`` times its unknowns (BDF: ``c^2`` and ``c``; the alpha methods:
``beta' h^2`` and ``gamma' h``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from multibody.formulation.cartesian import StateCoupling
from multibody.solve.linear import Matrix, saddle_point_matrix


def coupled_iteration_matrix(
    A: Matrix, G: Matrix, coupling: StateCoupling | None, c_position: float, c_velocity: float
) -> Matrix:
    """The Newton matrix of a step in the unknowns (velocity-like increment, state increment,
    multiplier increment) when positions move by ``c_position`` and velocities and states by
    ``c_velocity`` times the unknowns: ``[[A, G^T], [G, 0]]`` (``A = M - c_v C - c_q K``) bordered,
    when ``coupling`` is given, by the rows and columns of the first-order states and by the
    loads' dependence on the multipliers::

        [[A,                        -c_v Q_x,      G^T - Q_lam],
         [-c_q F_q - c_v F_v,       I - c_v F_x,   -F_lam     ],
         [G,                        0,             0          ]]

    (The BDF form of ``multibody.formulation.dae`` is the case ``c_q = c^2``, ``c_v = c``.)"""
    if coupling is None:
        return saddle_point_matrix(A, G)
    nx = coupling.F_x.shape[0]
    G_dense = G.toarray() if sp.issparse(G) else np.asarray(G)
    blocks = [
        [A, -c_velocity * coupling.Q_x, G_dense.T - coupling.Q_lam],
        [
            -c_position * coupling.F_q - c_velocity * coupling.F_v,
            np.eye(nx) - c_velocity * coupling.F_x,
            -coupling.F_lam,
        ],
        [G_dense, np.zeros((G_dense.shape[0], nx)), np.zeros((G_dense.shape[0],) * 2)],
    ]
    if sp.issparse(A):
        return sp.bmat([[sp.csr_matrix(block) for block in row] for row in blocks], format="csc")
    return np.block(blocks)
