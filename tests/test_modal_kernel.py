"""The compiled modal body kind (``formulation/bodies/modal_kernel.py``) against independent computations.

Two free steel beams of different mode counts (4 and 6: the kernels' zero padding to the most modes is
exercised), the first spin-stiffened, pinned to the ground and to each other, at a random state.
References: central differences of the constraint residual and of the marker frames (the Jacobian's
modal columns, the markers' elastic twist, the modal load of a point force by virtual work), and the
NumPy floating-frame formulas of the body terms on the invariants' own ``M(q_f)`` and ``Q_v`` (those
two are checked against a particle-by-particle sum in ``tests/fem/test_fem_invariants.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line
from multibody.formulation import frames
from multibody.formulation.cartesian import CartesianFormulation
from multibody.spatial.rotations import cross

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.rectangle(0.02, 0.01)
N_ELEMENTS = 6
GRAVITY = np.array([0.0, -9.81, 0.0])
FORCE = np.array([3.0, -2.0, 5.0])
"""the point force on the second beam's middle [N], world"""


def linkage(with_force: bool) -> tuple[mb.System, list[mb.FlexibleBody]]:
    """Beam ``a`` (4 modes, spin-stiffened about body z) pinned to the ground at node 0, beam ``b`` (6
    modes) pinned to a's tip; optionally a constant world force at b's middle node."""
    model = mb.Model("modal_linkage", gravity=tuple(GRAVITY))
    a = mb.FlexibleBody.from_mesh("a", beam_line(1.0, N_ELEMENTS, SECTION), STEEL, n_modes=4, damping_ratio=0.05)
    a.add_spin_stiffening((0.0, 0.0, 1.0), held_nodes=[0])
    b = mb.FlexibleBody.from_mesh(
        "b", beam_line(0.8, N_ELEMENTS, SECTION), STEEL, n_modes=6, damping_ratio=0.02, position=(1.0, 0.0, 0.0)
    )
    model.add(a)
    model.add(b)
    model.add(mb.Revolute("ground_pin", a.add_marker("root", node=0), model.ground.add_marker("pivot")))
    model.add(mb.Revolute("elbow", b.add_marker("root", node=0), a.add_marker("tip", node=N_ELEMENTS)))
    middle = b.add_marker("middle", node=N_ELEMENTS // 2)
    if with_force:
        model.add(mb.PointForce("push", middle, FORCE))
    return model.compile(), [a, b]


def random_state(system: mb.System, modal_scale: float, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Frames turned by random rotations of order 1 rad, modal coordinates ``modal_scale`` times random
    normals [sqrt(kg) m], random velocities of order 1."""
    rng = np.random.default_rng(seed)
    nv = system.n_velocities
    q = frames.displace(
        system, system.q0, np.r_[rng.normal(size=system.n_frame_velocities), np.zeros(nv - system.n_frame_velocities)]
    )
    q[system.n_frame_positions :] = modal_scale * rng.normal(size=system.n_positions - system.n_frame_positions)
    return frames.normalize_positions(system, q), rng.normal(size=nv)


def modal_columns(system: mb.System) -> list[tuple[int, int]]:
    """``(velocity column, position index)`` of every modal coordinate."""
    return [
        (system.n_frame_velocities + k, system.n_frame_positions + k)
        for k in range(system.n_velocities - system.n_frame_velocities)
    ]


def test_jacobian_modal_columns_and_marker_twists_against_central_differences():
    """Undeformed (where the markers' elastic rotation exp(skew(A q_f)) has the derivative the linear
    angular velocity R A q_f' gives, so the identities are exact) with turned frames: each modal column of
    ``G`` equals d Phi / d q_j, and a unit modal velocity moves each marker on a beam at d p_WM / d q_j and
    turns it at the axial vector of (d R_WM / d q_j) R_WM^T. Central differences with h = 1e-6 have an
    O(h^2) error ~1e-12 of the terms: tolerance 1e-7 relative to the largest entry."""
    system, _ = linkage(with_force=False)
    form = CartesianFormulation(system)
    q, v = random_state(system, modal_scale=0.0)
    G = form.evaluate(q, v, 0.0).G
    h = 1e-6
    for column, position in modal_columns(system):
        ahead, behind = q.copy(), q.copy()
        ahead[position] += h
        behind[position] -= h
        expected = (form.constraint_residual(ahead, 0.0)[0] - form.constraint_residual(behind, 0.0)[0]) / (2 * h)
        np.testing.assert_allclose(G[:, column], expected, atol=1e-7 * np.abs(G).max())
        unit = np.zeros(system.n_velocities)
        unit[column] = 1.0
        pose = frames.pose(system, q, 0.0)
        motion = frames.twist(system, pose, unit)
        pose_ahead, pose_behind = frames.pose(system, ahead, 0.0), frames.pose(system, behind, 0.0)
        velocity = (pose_ahead.p_WM_W - pose_behind.p_WM_W) / (2 * h)
        turn = np.einsum("kij,klj->kil", (pose_ahead.R_WM - pose_behind.R_WM) / (2 * h), pose.R_WM)
        angular = np.stack([turn[:, 2, 1], turn[:, 0, 2], turn[:, 1, 0]], axis=1)
        np.testing.assert_allclose(motion.v_WM_W, velocity, atol=1e-7 * np.abs(velocity).max())
        np.testing.assert_allclose(motion.w_WM_W, angular, atol=1e-7 * np.abs(angular).max())
    assert np.abs(G[:, system.n_frame_velocities :]).max() > 0.1


def test_modal_load_of_a_point_force_is_its_virtual_work():
    """A world force F at a marker on a deformed, turned beam loads its modal coordinates with
    (d p_WM / d q_f)^T F (virtual work). The marker position is linear in q_f, so the central differences
    (h = 1e-6) are exact to round-off (~1e-10 of the terms with these coordinates): tolerance 1e-8 relative."""
    loaded, _ = linkage(with_force=True)
    free, _ = linkage(with_force=False)
    q, v = random_state(loaded, modal_scale=1e-3)
    load = CartesianFormulation(loaded).evaluate(q, v, 0.0).generalized_force
    load = load - CartesianFormulation(free).evaluate(q, v, 0.0).generalized_force
    middle = loaded.marker_names.index("b/middle")
    h = 1e-6
    expected = []
    for _, position in modal_columns(loaded):
        ahead, behind = q.copy(), q.copy()
        ahead[position] += h
        behind[position] -= h
        moved = (frames.pose(loaded, ahead, 0.0).p_WM_W - frames.pose(loaded, behind, 0.0).p_WM_W) / (2 * h)
        expected.append(moved[middle] @ FORCE)
    modal = load[loaded.n_frame_velocities :]
    np.testing.assert_allclose(modal, expected, atol=1e-8 * np.abs(expected).max())
    assert np.abs(expected).max() > 1.0


@pytest.mark.parametrize("sparse", [False, True])
def test_body_terms_against_the_floating_frame_formulas(sparse, monkeypatch):
    """At a deformed, turned, moving state the compiled pass over both beams gives, per beam, the mass block
    ``D M(q_f) D^T`` (``D = diag(R_WB, I3, I_m)``) and the generalized forces ``D (Q_v + M [w x v_B; 0; 0] +
    Q_g) - [0; (K + Omega^2 K_G) q_f + C q_f']`` written here in NumPy on the invariants' ``M(q_f)``, ``Q_v``,
    and the damping power ``sum q_f'^T C q_f'``; dense and sparse assembly alike. Same arithmetic in another
    order: tolerance 1e-12 relative to the largest term."""
    from multibody.formulation import cartesian

    if sparse:
        monkeypatch.setattr(cartesian, "SPARSE_THRESHOLD", 0)
    system, bodies = linkage(with_force=False)
    form = CartesianFormulation(system)
    q, v = random_state(system, modal_scale=2e-3)
    state = form.evaluate(q, v, 0.0)
    mass_matrix = state.mass_matrix.toarray() if sparse else state.mass_matrix
    modal = system.modal
    damping_power = 0.0
    for k, body in enumerate(bodies):
        b = int(modal.frame[k])
        R = state.frames.R_WB[b]
        q_f, qdot = q[modal.positions(k)], v[modal.velocities(k)]
        v_B, w_B = R.T @ state.motion.v_WB_W[b], state.motion.w_WB_B[b]
        invariants = body.invariants
        M = invariants.mass_matrix(q_f)
        Q_v = invariants.quadratic_velocity(q_f, v_B, w_B, qdot)
        g_B = R.T @ GRAVITY
        weight = np.r_[
            invariants.mass * g_B, cross(invariants.first_moment_at(q_f), g_B), invariants.translation_coupling.T @ g_B
        ]
        body_axes = Q_v + M[:, :3] @ cross(w_B, v_B) + weight
        spin = w_B @ modal.spin_axis[k]
        body_axes[6:] -= (body.modal_stiffness + spin**2 * modal.spin_stiffness[k]) @ q_f + body.modal_damping @ qdot
        D = np.eye(6 + q_f.size)
        D[:3, :3] = R
        columns = modal.velocity_columns(k)
        scale = np.abs(body_axes).max()
        np.testing.assert_allclose(state.generalized_force[columns], D @ body_axes, rtol=0, atol=1e-12 * scale)
        block = D @ M @ D.T
        np.testing.assert_allclose(
            mass_matrix[np.ix_(columns, columns)], block, rtol=0, atol=1e-12 * np.abs(block).max()
        )
        damping_power += qdot @ body.modal_damping @ qdot
    assert (
        np.abs(modal.spin_stiffness[0]).max() > 0.0
        and abs(state.motion.w_WB_B[modal.frame[0]] @ modal.spin_axis[0]) > 0.1
    )
    assert state.loads.dissipated_power == pytest.approx(damping_power, rel=1e-12)
