"""Finite-segment beams in Kane's formulation: the segments' relative coordinates on the tree.

In the Kane formulation a ``FiniteSegmentBeam``'s joining bushings become free joints of the
spanning tree (``multibody.formulation.tree``): segment k hangs from segment k - 1, the first
from the start marker's body when clamped, and the joint coordinates are the bushings' small
deflections (Huston's finite-segment method, as in the MDAS II thesis, section 2.4, eqs 2.35 ff.;
the thesis linearizes the segments' relative rotations in small angles, these joints keep them
exact with Euler parameters, as the Cartesian formulation does).

References, one per test:
- the thesis' lower-body array of a chain (L(k) = k - 1), checked together with the equations it
  carries: the tree's mass matrix equals the Cartesian one mapped by the tree's partial velocities;
- a second formulation: the small-vibration frequencies of a clamped cantilever from Kane's
  equations (mass matrix and the tangent of the generalized forces) against the Cartesian
  linearization; and the segment model's closed-form tip deflection under a tip load
  (``tests/test_beam.py``) from the equilibrium of Kane's generalized forces;
- a second formulation: a 10-segment arm on a driven hub, Kane against Cartesian;
- conservation of energy: an undamped flexible pendulum in Kane;
- other algorithms on long chains: the articulated-body recursion against the composite-body mass
  matrix on 200 segments, and BDF's reduced iteration matrix against a dense LU of the full one.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la
from beam_models import LENGTH, E, cantilever

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.analysis.dynamics_kane import IterationMatrix, KaneODE
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.kane import KaneFormulation
from multibody.spatial.rotations import FloatArray

POLYMER = (0.2e9, 0.4, 1200.0)
"""A soft strip's E [Pa], nu, density [kg/m^3]: it bends a lot under its own weight."""


def flexible_arm(n: int, damping: float, drive: mb.TimeFunction | None = None) -> mb.Model:
    """A 0.5 m polymer strip (20 x 5 mm) clamped to a hub hinged to the ground about y, starting
    horizontal along x under gravity -z; the hinge driven by ``drive`` [rad] if given."""
    model = mb.Model("flexible_arm")
    hub = model.add(mb.RigidBody("hub", 0.1, (1e-4, 1e-4, 1e-4)))
    hinge = model.add(
        mb.Revolute(
            "hinge",
            hub.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
            model.ground.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
        )
    )
    if drive is not None:
        model.add(mb.Motion("drive", hinge, displacement=drive))
    section, material = mb.Section.rectangle(0.02, 0.005), mb.Material(*POLYMER)
    model.add(
        mb.FiniteSegmentBeam("arm", hub.add_marker("root"), 0.5, n, section, material, clamped=True, damping=damping)
    )
    return model


def kane_at_reference(model: mb.Model) -> tuple[mb.System, KaneFormulation, FloatArray]:
    """The compiled model, its Kane formulation at the assembled input configuration and the joint
    coordinates there (the reference: zero deflections)."""
    system, state = assembled_state(model.compile())
    kane = KaneFormulation(system, state.q)
    return system, kane, kane.reference_coordinates()


def generalized_force_tangent(kane: KaneFormulation, q: FloatArray, step: float = 1e-6) -> FloatArray:
    """``K = -dF/dq`` (n_u, n_u) at rest, by central differences along the speed directions
    (``KaneFormulation.displace``: finite rotations of the Euler parameters)."""
    rest = np.zeros(kane.n_u)
    K = np.empty((kane.n_u, kane.n_u))
    for j in range(kane.n_u):
        d = np.zeros(kane.n_u)
        d[j] = step
        forward, backward = (kane.generalized_force(kane.evaluate(kane.displace(q, s * d), rest, 0.0)) for s in (1, -1))
        K[:, j] = -(forward - backward) / (2.0 * step)
    return K


def test_segments_hang_from_each_other_in_the_tree() -> None:
    """Reference: the thesis' lower-body array of a chain, L(k) = k - 1, and the mass matrix it
    carries. A 6-segment beam clamped to a hub on a hinge: the hinge's joint carries the hub, the
    clamp's bushing carries segment 1 from the hub, and bushing k carries segment k + 1 from
    segment k, each a 6-speed free joint between the bushing's markers whose coordinates are zero
    (unit Euler parameters) in the undeformed beam. The tree's mass matrix must equal the
    Cartesian block-diagonal one seen through the tree's partial velocities, ``V^T M_c V``: two
    computations (composite bodies along the lower-body array; a plain matrix product), agreeing
    to round-off (1e-12 of the largest entry) at a bent, moving state; and a joint's translation
    coordinates must be its bushing's deflection measured from the markers' poses (to round-off)."""
    model = flexible_arm(6, damping=0.0)
    system, kane, q = kane_at_reference(model)
    names = system.body_names
    lower = [names[b] if b >= 0 else "ground" for b in kane.tree.lower_body]
    assert dict(zip(names, lower)) == {
        "hub": "ground",
        "arm_1": "hub",
        **{f"arm_{k + 1}": f"arm_{k}" for k in range(1, 6)},
    }
    joints = {joint.name: joint for joint in kane.tree.joints}
    assert list(joints) == ["hinge", *(f"arm_joint_{k}" for k in range(6))]
    assert joints["hinge"].family == "revolute"
    for k in range(6):
        joint = joints[f"arm_joint_{k}"]
        assert (joint.family, joint.n_q, joint.n_u, system.force_names[joint.bushing]) == ("free", 7, 6, joint.name)
    assert (kane.n_q, kane.n_u) == (1 + 6 * 7, 1 + 6 * 6)
    assert kane.tree.cut_elements == ()

    rng = np.random.default_rng(3)
    bent = kane.displace(q, 0.05 * rng.normal(size=kane.n_u))
    state = kane.evaluate(bent, rng.normal(size=kane.n_u), 0.0)
    V = kane.cartesian_velocity_map(state)
    M_cartesian = CartesianFormulation(system).mass_matrix
    M_cartesian = M_cartesian.toarray() if hasattr(M_cartesian, "toarray") else M_cartesian
    M = kane.mass_matrix(state)
    assert np.max(np.abs(M - V.T @ M_cartesian @ V)) < 1e-12 * np.max(np.abs(M))
    # A joint's translation is its bushing's deflection: I's origin from J's, in J's axes.
    frames, markers = state.frames, system.marker_names
    for k in range(1, 6):
        joint = joints[f"arm_joint_{k}"]
        i_marker, j_marker = markers.index(f"arm_{k + 1}/start"), markers.index(f"arm_{k}/end")
        d_J = frames.R_WM[j_marker].T @ (frames.p_WM_W[i_marker] - frames.p_WM_W[j_marker])
        assert np.max(np.abs(bent[joint.q_start : joint.q_start + 3] - d_J)) < 1e-15


def test_articulated_body_recursion_stays_exact_along_a_long_segment_chain() -> None:
    """Reference: the composite-body mass matrix and the Newton-Euler generalized forces (two
    other algorithms). On a 200-segment arm at a bent, moving state the articulated-body
    recursion's ``du/dt`` must solve ``M du/dt = F`` to 1e-9 of |F| (measured 7e-11; M's
    condition number is 3e10, so a backward-stable solve leaves about 1e-16 |M| |du/dt|). A free
    joint passes nothing to its parent; computed as a difference, that zero was round-off which
    doubled at every segment and made the recursion report a singular joint by segment 108."""
    _, kane, q = kane_at_reference(flexible_arm(200, damping=0.0))
    rng = np.random.default_rng(1)
    state = kane.evaluate(kane.displace(q, 1e-3 * rng.normal(size=kane.n_u)), 0.1 * rng.normal(size=kane.n_u), 0.0)
    F = kane.generalized_force(state)
    u_dot = kane.forward_dynamics(state)
    assert np.max(np.abs(kane.mass_matrix(state) @ u_dot - F)) < 1e-9 * np.max(np.abs(F))


def with_a_state(model: mb.Model) -> mb.Model:
    """``model`` with a first-order state on its hub: a torque decaying as dx/dt = -x (UserForce)."""
    hub = model.bodies["hub"]

    def law(inputs: mb.UserForceInput) -> tuple:
        return (0.0, 0.0, 0.0), (0.0, inputs.states[0], 0.0), [-inputs.states[0]]

    model.add(mb.UserForce("decay", hub.add_marker("twist"), law, states=[0.5]))
    return model


@pytest.mark.parametrize("c", [1e-4, 1e-2])
def test_reduced_iteration_matrix_solves_as_the_full_one(c: float) -> None:
    """Reference: a dense LU of ``I - c J`` (n_y, n_y). The BDF iteration matrix of Kane's ODE
    with the coordinates eliminated (``IterationMatrix``: a hinge, six free joints across
    bushings, a first-order state and the two quadratures) solves the same system at a bent,
    moving state to 1e-12 relative: the elimination is exact, so the two differ by the round-off
    of two elimination orders (measured 7e-15 and 3e-14; the matrix's condition number, up to
    7e12 here, bounds either's error but not their difference on this well-scaled right side)."""
    system, kane, q = kane_at_reference(with_a_state(flexible_arm(6, damping=1e-3)))
    ode = KaneODE(kane, rtol=1e-6, atol=1e-6, drift_factor=1.0)
    rng = np.random.default_rng(5)
    y = ode.join(kane.displace(q, 1e-2 * rng.normal(size=kane.n_u)), rng.normal(size=kane.n_u), [0.3], 0.0, 0.0)
    J = ode._rate_jacobian(0.0, y)
    rhs = rng.normal(size=y.size)
    reference = np.linalg.solve(np.eye(y.size) - c * J, rhs)
    solved = IterationMatrix(J, kane, system.n_states).factorized(c).solve(rhs)
    assert system.n_states == 1 and np.any(J[-2:] != 0.0)  # a state and a quadrature take part
    assert np.max(np.abs(solved - reference)) < 1e-12 * np.max(np.abs(reference))


def test_cantilever_vibration_and_tip_deflection_in_kane() -> None:
    """A 10-segment steel cantilever in Kane's relative coordinates.

    Frequencies (reference: the Cartesian formulation's linearization of the same model): the 60
    eigenvalues of ``K x = w^2 M`` with Kane's mass matrix and the tangent of its generalized
    forces at the undeformed state (no gravity: an equilibrium) agree with all 60 of
    ``mb.linearize``, from 14.4 Hz (bending) to 16.5 kHz, to 1e-7 relative. Measured 6e-9, the
    Cartesian side's own error (central differences and the equilibrium solve); Kane's tangent
    does not move with the difference step (1e-4 .. 1e-7: the same to 1e-10).

    Tip load (reference: the segment model's closed form of ``tests/test_beam.py``): Newton on
    Kane's generalized forces ``F(q) = 0`` (three iterations); the tip deflects by the closed form
    to 1e-5 (the closed form is linear, off by (w / L)^2 = 4e-8 at this load: measured 4.2e-8), and
    to 1e-9 of the Cartesian statics (both solve the same geometrically exact equilibrium:
    measured 2e-12)."""
    n = 10
    model, beam = cantilever(n)
    modes = mb.linearize(model).modes()
    cartesian = np.sort(modes.frequencies_hz[~modes.rigid_body])
    _, kane, q = kane_at_reference(cantilever(n)[0])
    M = kane.mass_matrix(kane.evaluate(q, np.zeros(kane.n_u), 0.0))
    K = generalized_force_tangent(kane, q)
    assert np.max(np.abs(K - K.T)) < 1e-9 * np.max(np.abs(K))  # an equilibrium: the tangent is symmetric
    frequencies = np.sqrt(la.eigh(0.5 * (K + K.T), M, eigvals_only=True)) / (2.0 * np.pi)
    assert cartesian.size == frequencies.size == 6 * n
    assert np.max(np.abs(frequencies / cartesian - 1.0)) < 1e-7

    load = 1.0
    model, beam = cantilever(n, tip_load=load)
    system, kane, q = kane_at_reference(model)
    rest = np.zeros(kane.n_u)
    for _ in range(10):
        # F's round-off is the axial stiffness EA / l (7e8 N/m) times that of the positions (1e-16 m)
        increment = la.solve(generalized_force_tangent(kane, q), kane.generalized_force(kane.evaluate(q, rest, 0.0)))
        q = kane.displace(q, increment)
        if np.max(np.abs(increment)) < 1e-14:
            break
    else:
        pytest.fail(f"Newton on Kane's generalized forces did not converge: last step {np.max(np.abs(increment)):.3g}")
    state = kane.evaluate(q, rest, 0.0)
    tip = state.frames.p_WM_W[system.marker_names.index("arm_10/end")]
    section = beam.section
    bending = load * LENGTH**3 / (3.0 * E * section.Iy)
    shear = load * (LENGTH - 0.5 * beam.segment_length) / (section.shear_coefficient * beam.material.G * section.area)
    assert -tip[2] == pytest.approx(bending * (1.0 + 1.0 / (2.0 * n**2)) + shear, rel=1e-5)
    cartesian_tip = mb.statics(model).beam("arm").node_positions[-1, -1]
    assert np.max(np.abs(tip - cartesian_tip)) < 1e-9 * abs(tip[2])


def test_driven_flexible_arm_agrees_with_the_cartesian_formulation() -> None:
    """Reference: the Cartesian formulation. A 10-segment polymer arm (stiffness-proportional
    damping 1 ms) on a hub driven through 0.5 (1 - cos 4 pi t) rad for 0.3 s swings down and
    bends: its tip ends 0.49 m below the hinge, 0.02 m behind it. Kane (BDF, the drive a cut
    constraint) and Cartesian (SI2) at rtol 1e-8, about 700 steps each: the tip positions agree
    to 1e-7 m (measured 9e-10 m; the bound leaves room for a few hundred local errors of
    1e-8 * 0.5 m adding up)."""
    drive = mb.Harmonic(-0.5, 2.0, phase=np.pi / 2.0, offset=0.5)
    tips = []
    for formulation, method in (("cartesian", "SI2"), ("kane", "BDF")):
        results = mb.dynamics(
            flexible_arm(10, damping=1e-3, drive=drive), 0.3, 0.05, rtol=1e-8, formulation=formulation, method=method
        )
        tips.append(results.beam("arm").node_positions[:, -1])
    assert np.max(np.abs(tips[0] - tips[1])) < 1e-7
    assert tips[0][-1, 2] < -0.4  # it swung down and bent: the comparison is not vacuous


def test_undamped_flexible_pendulum_conserves_energy_in_kane() -> None:
    """Reference: conservation of energy. A 4-segment polymer arm on a free hinge, no damping,
    falls from horizontal for 0.15 s (kinetic energy up to 0.047 J) while every segment spring
    rings. Kinetic + potential (gravity and the segment springs) stays constant to 1e-8 of the
    largest kinetic energy at rtol 1e-8: each of the about 7000 BDF steps errs by at most rtol in
    every coordinate, and in this smooth conservative motion the errors mostly cancel (measured
    8e-10 at rtol 1e-8, 1.7e-10 at 1e-9; the worst case of all adding up, 7000 rtol, is not
    reached)."""
    results = mb.dynamics(flexible_arm(4, damping=0.0), 0.15, 0.01, rtol=1e-8, formulation="kane")
    total = results.energy["total"]
    assert np.all(results.energy["dissipated"] == 0.0)
    kinetic = np.max(results.energy["kinetic"])
    assert kinetic > 0.04  # it did fall
    assert np.max(np.abs(total - total[0])) < 1e-8 * kinetic
