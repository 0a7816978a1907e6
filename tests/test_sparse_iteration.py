"""The sparse iteration matrices of large rigid models (``iteration_matrix.SparseIterationPattern``,
refilled in a fixed pattern each step) against the dense ones of the same equations.

Reference: the dense path (``dae_kernel.dense_iteration_matrices``, LAPACK) solves the same Newton
systems by another assembly and another factorization, so both runs take the same steps and agree
to round-off; and the chain is conservative, so its energy stays within the error test's
bound of its start. A 40-link chain has 240 velocities and 200 multipliers: above
``cartesian.SPARSE_THRESHOLD`` (400), so it runs sparse unless the threshold is raised.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.formulation import cartesian

LINKS = 40
RTOL = 1e-6


def chain(n_links: int) -> mb.Model:
    """Uniform rods (1 kg, 1 m) hanging from each other by revolutes about world z, starting
    horizontal at rest under gravity -y."""
    model = mb.Model("chain", gravity=(0.0, -9.81, 0.0))
    parent = model.ground.add_marker("pivot")
    for k in range(1, n_links + 1):
        link = model.add(mb.RigidBody(f"link{k}", 1.0, (1e-4, 1.0 / 12.0, 1.0 / 12.0), position=(k - 0.5, 0.0, 0.0)))
        model.add(mb.Revolute(f"hinge{k}", link.add_marker("top", position=(-0.5, 0.0, 0.0)), parent))
        parent = link.add_marker("bottom", position=(0.5, 0.0, 0.0))
    return model


@pytest.mark.parametrize("method", ["SI2", "I3"])
def test_sparse_and_dense_iteration_matrices_take_the_same_steps(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    system = chain(LINKS).compile()
    assert system.n_velocities + len(system.rows) > cartesian.SPARSE_THRESHOLD
    sparse = mb.dynamics(system, 0.2, 0.05, method=method, rtol=RTOL)
    monkeypatch.setattr(cartesian, "SPARSE_THRESHOLD", 10**9)
    dense = mb.dynamics(system, 0.2, 0.05, method=method, rtol=RTOL)
    assert sparse.stats["steps"] == dense.stats["steps"]
    # The same Newton iterates up to the round-off of two factorizations (measured 1e-14 m for SI2,
    # 4e-12 m for I3 at the 40 m chain's tip), far inside the 1e-6 tolerance.
    np.testing.assert_allclose(sparse.body("link40").position, dense.body("link40").position, rtol=0, atol=1e-9)
    # Conservative: the drift stays within 2 rtol per step of the energy exchanged (measured 1.0e-3
    # and 1.4e-3 J against bounds of 7.7e-3 and 5.6e-3 J).
    assert np.ptp(sparse.energy["total"]) < 2 * sparse.stats["steps"] * RTOL * np.ptp(sparse.energy["kinetic"])
