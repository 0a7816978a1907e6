"""Naming redundant constraint rows with one sparse rank-revealing factorization, and the sparse
weighted assembly step.

References:
- The definition itself: row k is dependent exactly when rank(rows 0..k) = rank(rows 0..k-1),
  computed here row by row with ``numpy.linalg.matrix_rank`` (an SVD per prefix: slow, obviously
  right); its combination of earlier rows is checked by reconstructing the row from the rows named.
- The N-four-bar (N parallelograms side by side, all joints spatial revolutes): each closed loop
  repeats 3 equations of the 5 (3N + 1) (Gruebler: 6 (2N + 1) - 5 (3N + 1) = 1 - 3N, mobility 1).
- Assembly optimality: the weighted nearest consistent configuration x minimizes
  1/2 (x - x0)^T W (x - x0) on Phi = 0, so W (x - x0) lies in the row space of G (Lagrange).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import multibody as mb
from multibody.analysis.assemble import _weighted_multiplier, assembled_state
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation
from multibody.solve.linear import dependent_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from setup_scaling import four_bars  # the benchmark's model, shared rather than copied


def dependent_by_prefix_rank(G: np.ndarray) -> list[int]:
    """Rows whose addition does not raise the rank of the rows before them (the definition)."""
    ranks = [0] + [np.linalg.matrix_rank(G[: k + 1], tol=1e-9 * np.linalg.norm(G)) for k in range(len(G))]
    return [k for k in range(len(G)) if ranks[k + 1] == ranks[k]]


def loop_matrix(seed: int, n_groups: int = 12, width: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """A Jacobian-like matrix: a chain of random 5-row blocks coupling neighbouring column groups,
    a few loop closures between distant groups, and rows that repeat combinations of earlier ones."""
    rng = np.random.default_rng(seed)
    n = n_groups * width
    rows = []
    for g in range(n_groups):
        block = np.zeros((5, n))
        block[:, g * width : (g + 1) * width] = rng.normal(size=(5, width))
        if g:
            block[:, (g - 1) * width : g * width] = rng.normal(size=(5, width))
        rows.append(block)
    G = np.vstack(rows)
    closures = []
    for a, b in ((2, 7), (5, 11)):
        closure = np.zeros((4, n))
        closure[:, a * width : (a + 1) * width] = rng.normal(size=(4, width))
        closure[:, b * width : (b + 1) * width] = rng.normal(size=(4, width))
        closures.append(closure)
    # Repeats: combinations of a few earlier rows (spread over the matrix), then the closures.
    repeats = np.array([G[3] - 2.0 * G[8], 0.5 * G[20] + G[21] + G[26]])
    G = np.vstack([G[:30], repeats, G[30:], *closures, G[40:42] + G[44]])
    return G, np.arange(n) // width


@pytest.mark.parametrize("seed", range(4))
def test_dependent_rows_match_the_prefix_rank_definition(seed: int) -> None:
    """Grouped (peeling, then dense blocks) and ungrouped (one dense block) give the rows of the
    definition; each named combination rebuilds its row to round-off (rows are O(1))."""
    G, groups = loop_matrix(seed)
    expected = dependent_by_prefix_rank(G)
    assert expected  # the matrix does hold repeats
    for found in (dependent_rows(sp.csr_matrix(G), column_groups=groups), dependent_rows(G)):
        assert [d.row for d in found] == expected
        dependent = {d.row for d in found}
        for d in found:
            assert all(r < d.row and r not in dependent for r in d.depends_on)
            named = G[list(d.depends_on)].T
            coefficients = np.linalg.lstsq(named, G[d.row], rcond=None)[0]
            assert np.linalg.norm(named @ coefficients - G[d.row]) < 1e-10


def test_tree_rows_peel_away_and_zero_rows_are_dependent_on_nothing() -> None:
    """A chain of full-rank blocks (a tree) has no dependent row; a zero row depends on no row."""
    G, groups = loop_matrix(0)
    tree = np.delete(G, [30, 31], axis=0)[:60]  # the chain's blocks, without the two repeats
    assert dependent_rows(sp.csr_matrix(tree), column_groups=groups) == []
    with_zero = np.vstack([tree[:10], np.zeros(tree.shape[1]), tree[10:]])
    found = dependent_rows(sp.csr_matrix(with_zero), column_groups=groups)
    assert [(d.row, d.depends_on) for d in found] == [(10, ())]


def test_n_four_bar_names_the_three_repeated_equations_of_each_loop() -> None:
    """40 loops (81 links): 3 x 40 = 120 redundant equations, mobility 1. Each loop is closed by
    its coupler's right-hand pin (model order), whose out-of-plane equations repeat the others."""
    with pytest.warns(mb.RedundantConstraintWarning) as caught:
        system = four_bars(40).compile()
    assert (system.gruebler_dof, system.dof, len(system.redundant)) == (6 * 81 - 5 * 121, 1, 120)
    assert {r.element for r in system.redundant} == {f"right{k}" for k in range(40)}
    assert {r.label for r in system.redundant} == {"translation along world z", "rotation about x", "rotation about y"}
    assert "120 redundant" in str(caught[0].message)
    # The first loop: closed by right0, which repeats the other joints of that loop only.
    first = [r for r in system.redundant if r.element == "right0"]
    assert all(set(r.depends_on) <= {"pivot0", "pivot1", "left0"} and r.depends_on for r in first)


def test_sparse_weighted_step_matches_dense_least_squares() -> None:
    """The multiplier of the weighted minimum-norm step: sparse LU of G F G^T against dense least
    squares, weights 0 (exact), 1 (given) and 1e6 (unspecified). Agreement to 1e-9 relative: the
    normal matrix spans the 6 decades of the weights, and both are backward stable."""
    G, _ = loop_matrix(1)
    G = G[:60]  # full row rank
    rng = np.random.default_rng(7)
    freedom = rng.choice([0.0, 1.0, 1e6], size=G.shape[1], p=[0.1, 0.6, 0.3])
    rhs = rng.normal(size=G.shape[0])
    dense = _weighted_multiplier(G, freedom, rhs)
    sparse = _weighted_multiplier(sp.csr_matrix(G), freedom, rhs)
    np.testing.assert_allclose(sparse, dense, rtol=1e-9, atol=0)


def test_sparse_assembly_of_a_disturbed_chain_is_the_weighted_nearest_configuration() -> None:
    """A 100-link chain (sparse path) given with every CM 1 cm off: the assembled positions close
    the joints, and W (x - x0) is in the row space of G (Lagrange's condition) to 1e-7: Gauss-Newton
    stops when its step is below 1e3 x 1e-10 = 1e-7 (m, rad) and converges linearly, so its last
    iterate is within about one step of the minimizer (offsets are 1e-2 m, 1e5 times larger)."""
    import chain  # benchmarks/chain.py's model

    model = chain.chain_model(100)
    rng = np.random.default_rng(3)
    for body in model.bodies.values():
        body.position = body.position + rng.uniform(-0.01, 0.01, 3)
    system = model.compile()
    form = CartesianFormulation(system)
    assert form.sparse  # the test is about the sparse path
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        system, state = assembled_state(system)
    phi, G, _ = form.constraint_residual(state.q, 0.0)
    assert np.max(np.abs(phi)) < 1e-10  # assembly's closure tolerance for a model of 1 m markers
    offset = kinematics.position_difference(system, state.q, kinematics.normalize_positions(system, system.q0))
    weighted = offset / system.position_freedom
    G = G.toarray()
    in_row_space = G.T @ np.linalg.lstsq(G.T, weighted, rcond=None)[0]
    assert np.linalg.norm(weighted - in_row_space) < 1e-7 < 1e-5 * np.linalg.norm(weighted)
