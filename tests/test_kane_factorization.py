"""The tree's factorization of Kane's mass matrix, and the closed-loop accelerations built on it.

``KaneFormulation.factorized_mass`` factorizes the generalized mass matrix ``M`` by the
articulated-body recursion's inward pass, without forming it (O(n) for any tree, a chain
included); ``KaneFormulation.accelerations`` with cut constraints solves ``M^-1 B^T`` with it
(range-space form) instead of Maggi's dense null-space form. References, one per test:

- numpy's dense solve of the composite-body ``M`` (``KaneFormulation.mass_matrix``, another
  algorithm) on a branched tree of every joint family and on a chain of 200 finite segments;
- Maggi's null-space equations ``C^T (M du/dt - F) = 0``, ``B du/dt = gamma`` (the dense form the
  formulation used before, and still uses when ``M`` or ``B_r M^-1 B_r^T`` is numerically
  singular) on a closed chain with redundant cut rows.

Tolerances. ``M`` of the 200-segment chain has a condition number near 1e10, so two correct
solves differ by up to ``eps * cond``; the residual ``|M x - b|`` is the round-off test that does
not depend on it: 1e-13 of ``|M| |x|`` (about 500 ulps; measured 1e-17 .. 1.2e-15), and the
solutions agree to 1e-6 relative on the chain (measured 4e-8) and 1e-10 on the branched tree
(condition number 400; measured 6e-16).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_kane import branched_tree, random_kane_state
from test_kane_segments import flexible_arm, kane_at_reference

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.formulation.kane import RANGE_SPACE_SPEEDS, KaneFormulation, KaneState

RESIDUAL = 1e-13
"""``|M x - b|`` relative to ``|M| |x|`` (max norms): round-off of a backward-stable solve."""


def assert_solves(kane: KaneFormulation, state: KaneState, agreement: float) -> None:
    """``factorized_mass(state)`` solves ``M x = b`` for random ``b``: a round-off residual, and
    the dense solve's ``x`` to ``agreement`` (relative, max norms)."""
    matrix = kane.mass_matrix(state)
    rng = np.random.default_rng(3)
    factors = kane.factorized_mass(state)
    for b in rng.normal(size=(3, kane.n_u)):
        x = factors.solve(b)
        reference = np.linalg.solve(matrix, b)
        assert np.max(np.abs(matrix @ x - b)) < RESIDUAL * np.max(np.abs(matrix)) * np.max(np.abs(x))
        assert np.max(np.abs(x - reference)) < agreement * np.max(np.abs(reference))


def test_tree_factorization_solves_the_mass_matrix_of_a_branched_tree() -> None:
    """Reference: numpy's dense solve of the composite-body ``M`` of a branched tree with revolute,
    universal, spherical, cylindrical, planar, translational, fixed and free joints, at random
    states (module docstring for the tolerances)."""
    system, state = assembled_state(branched_tree())
    kane = KaneFormulation(system, state.q)
    assert max(np.sum(kane.tree.lower_body == body) for body in range(system.n_bodies)) >= 2  # a branch
    for seed in range(2):
        at = random_kane_state(kane, seed)
        assert_solves(kane, at, 1e-10)


def test_tree_factorization_solves_the_mass_matrix_of_a_long_chain() -> None:
    """Reference: numpy's dense solve of the composite-body ``M`` of a chain of 200 finite
    segments (free joints, 6 speeds each, depth 201) at a bent, moving state (module docstring
    for the tolerances)."""
    _, kane, q = kane_at_reference(flexible_arm(200, damping=1e-3))
    rng = np.random.default_rng(1)
    at = kane.evaluate(kane.displace(q, 1e-3 * rng.normal(size=kane.n_u)), 0.1 * rng.normal(size=kane.n_u), 0.0)
    assert kane.n_u == 1 + 6 * 200
    assert_solves(kane, at, 1e-6)


def closed_chain(n_links: int) -> mb.Model:
    """``n_links`` rods (1 kg, 1 m) on revolute joints about world z, bent in the xy plane, their
    free end held by a spherical joint where it starts: one closed loop, two of whose cut rows
    are redundant (the out-of-plane ones)."""
    model = mb.Model(f"closed_chain{n_links}", gravity=(0.0, -9.81, 0.0))
    parent = model.ground.add_marker("pivot")
    top = np.zeros(3)
    for k in range(1, n_links + 1):
        angle = 0.6 * np.sin(0.7 * k)
        along = np.array([np.cos(angle), np.sin(angle), 0.0])
        R_WB = np.array([[along[0], -along[1], 0.0], [along[1], along[0], 0.0], [0.0, 0.0, 1.0]])
        link = model.add(
            mb.RigidBody(f"link{k}", 1.0, (0.01, 1.0 / 12.0, 1.0 / 12.0), position=top + 0.5 * along, orientation=R_WB)
        )
        model.add(mb.Revolute(f"hinge{k}", link.add_marker("top", position=(-0.5, 0.0, 0.0)), parent))
        parent = link.add_marker("bottom", position=(0.5, 0.0, 0.0))
        top = top + along
    model.add(mb.Spherical("tip", parent, model.ground.add_marker("anchor", position=tuple(top))))
    return model


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
@pytest.mark.parametrize("n_links", [4, 60])
def test_closed_loop_accelerations_from_the_tree_factorization_solve_maggis_equations(n_links: int) -> None:
    """Reference: Maggi's null-space form (``C^T (M du/dt - F) = 0``, ``B du/dt = gamma`` with
    ``C`` from the SVD of ``B``, the dense ``M``), the path ``accelerations`` takes on small
    mechanisms. On large ones it takes the range-space form on the tree's factorization
    (``du/dt = tree rates + M^-1 B_r^T lambda``), which solves the same equations, at a random
    state of a bent chain closed by a spherical joint with redundant cut rows: both residuals are
    round-off (1e-13 of their terms' size; measured 2e-17 .. 1e-15) and the two rates agree to
    the conditioning of ``M`` (condition numbers 1e2 and 3e6: 1e-12 at 4 links, 1e-9 at 60;
    measured 1e-15 and 6e-11)."""
    system, state = assembled_state(closed_chain(n_links).compile())
    kane = KaneFormulation(system, state.q)
    rng = np.random.default_rng(7)
    at = kane.evaluate(kane.reference_coordinates(), rng.normal(size=kane.n_u), 0.0)
    _, B, _ = kane.cut_constraints(at)
    gamma = kane.cut_acceleration_rhs(at)
    assert np.linalg.matrix_rank(B) < B.shape[0]  # redundant cut rows
    u_dot, power = kane._range_space_accelerations(at, B, gamma)
    reference, reference_power = kane._null_space_accelerations(at, B, gamma)
    assert (kane.n_u >= RANGE_SPACE_SPEEDS) == (n_links > 10)  # 4 links: the null-space form; 60: range
    if kane.n_u >= RANGE_SPACE_SPEEDS:  # the form ``accelerations`` takes
        np.testing.assert_array_equal(kane.accelerations(at)[0], u_dot)
    M, F = kane.mass_matrix(at), kane.generalized_force(at)
    _, s, Vt = np.linalg.svd(B)
    rank = int(np.sum(s > 1e-9 * s[0]))
    complement = Vt[rank:].T
    reachable = B @ np.linalg.pinv(B, rcond=1e-9) @ gamma
    for rates in (u_dot, reference):
        dynamics = complement.T @ (M @ rates - F)
        assert np.max(np.abs(dynamics)) < RESIDUAL * (np.max(np.abs(M)) * np.max(np.abs(rates)) + np.max(np.abs(F)))
        assert np.max(np.abs(B @ rates - reachable)) < RESIDUAL * np.max(np.abs(B)) * np.max(np.abs(rates))
    agreement = 1e-12 if n_links < 10 else 1e-9
    assert np.max(np.abs(u_dot - reference)) < agreement * np.max(np.abs(reference))
    assert power == pytest.approx(reference_power, rel=agreement, abs=agreement)
