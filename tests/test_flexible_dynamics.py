"""Modal flexible bodies in the Cartesian engine (the modal body kind, ``formulation/bodies/modal.py``),
against Euler-Bernoulli closed forms, conservation laws and the rigid body kind.

The beam is steel, 1 m long, section 20 mm (along body y) x 10 mm (along z), meshed with 10 cubic
Hermite frame elements along body x. Hermite elements give exact nodal static deflections of a
uniformly or point-loaded Euler-Bernoulli beam and frequencies with an h^4 error (1e-5 on the first
mode here), so what separates a result from the closed form is the modal truncation the test states.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line
from multibody.spatial.rotations import rotation_from_euler_parameters

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
SECTION = mb.Section.rectangle(0.02, 0.01)
LENGTH, N_ELEMENTS, GRAVITY = 1.0, 10, 9.81
EI_BENDING_Z = STEEL.E * SECTION.Iy
"""bending in the x-z plane (deflection along z) [N m^2]"""
EI_BENDING_Y = STEEL.E * SECTION.Iz
MASS_PER_LENGTH = STEEL.density * SECTION.area
CANTILEVER_BETA_L = np.array([1.8751040687, 4.6940911330])
"""roots of cos(bL) cosh(bL) = -1 (Blevins, Formulas for Natural Frequency and Mode Shape, Table 8-1)"""


def cantilever(n_modes: int = 4, damping_ratio: float | None = None, gravity: float = GRAVITY, tied: bool = False):
    """The beam clamped at node 0 to ground (a Fixed joint): with Craig-Bampton modes of interface node 0
    in mean axes, or (``tied``) with the clamped beam's modes and the frame tied to node 0."""
    reduction = {"reference_nodes": [0]} if tied else {"interface": [0]}
    body = mb.FlexibleBody.from_mesh(
        "beam", beam_line(LENGTH, N_ELEMENTS, SECTION), STEEL, n_modes=n_modes, damping_ratio=damping_ratio, **reduction
    )
    model = mb.Model("cantilever", gravity=(0.0, 0.0, -gravity))
    model.add(body)
    model.add(mb.Fixed("clamp", body.add_marker("root", node=0), model.ground.add_marker("wall")))
    body.add_marker("tip", node=N_ELEMENTS)
    return model, body


def tip_position(results, body) -> np.ndarray:
    """World position (T, 3) of the tip node from the frame's pose and the modal coordinates."""
    frame = results.body(body.name)
    R_WB = rotation_from_euler_parameters(frame.euler_parameters)
    p_BQ = (
        body.node_positions[N_ELEMENTS]
        + body.node_displacements([N_ELEMENTS], results.modal_coordinates(body.name))[:, 0]
    )
    return frame.position + np.einsum("tij,tj->ti", R_WB, p_BQ)


def test_clamped_frequencies_against_euler_bernoulli():
    """Linearized about the clamped equilibrium, the model's lowest frequencies in both bending planes are
    the cantilever's f = (beta L)^2 / (2 pi L^2) sqrt(E I / (rho A)). The Craig-Bampton modes held at the
    clamp span the clamped beam's FE modes exactly, so the only error is the FE's h^4 one: 1e-5 measured,
    tolerance 1e-4."""
    model, _ = cantilever(n_modes=4)
    modes = mb.linearize(model).modes()
    frequencies = np.sort(np.abs(modes.eigenvalues)) / (2.0 * np.pi)
    closed_form = (
        CANTILEVER_BETA_L[:, None] ** 2
        / (2.0 * np.pi * LENGTH**2)
        * np.sqrt(np.array([EI_BENDING_Z, EI_BENDING_Y]) / MASS_PER_LENGTH)
    )
    np.testing.assert_allclose(frequencies[:4], np.sort(closed_form.reshape(-1)), rtol=1e-4)


def test_static_tip_deflections_under_gravity_and_a_tip_force():
    """Statics of the clamped beam: under its weight the tip sags w L^4 / (8 E I), under a tip force P it
    deflects P L^3 / (3 E I) (exact nodal values of Hermite elements), so what is left is modal truncation:
    with 8 kept modes (the lowest three or four bending modes of each plane, a torsion and an axial mode)
    the distributed weight is carried to 1e-4 (measured 9e-5; tolerance 3e-4) and the tip force, whose
    modal series converges more slowly, to 1.4e-3 (measured; 3.2e-4 with 12 modes, 1.8e-4 with 16: the
    tolerance 2e-3 is that convergence's first term). 5 N keeps the slope at 2e-3 rad, so the O(slope^2)
    geometric effects of the floating frame stay below 1e-5."""
    model, body = cantilever(n_modes=8)
    sag = MASS_PER_LENGTH * GRAVITY * LENGTH**4 / (8.0 * EI_BENDING_Z)
    weight = tip_position(mb.statics(model), body)[-1]
    assert weight[2] == pytest.approx(-sag, rel=3e-4)
    force = 5.0
    loaded, loaded_body = cantilever(n_modes=8, gravity=0.0)
    loaded.add(mb.PointForce("hook", loaded_body.markers["tip"], (0.0, force, 0.0)))
    tip = tip_position(mb.statics(loaded), loaded_body)[-1]
    assert tip[1] == pytest.approx(force * LENGTH**3 / (3.0 * EI_BENDING_Y), rel=2e-3)
    assert abs(tip[2]) < 1e-12


@pytest.mark.parametrize(("method", "books_tolerance"), [("SI2", 1e-7), ("HHT", 4e-6)])
def test_released_cantilever_keeps_its_energy_books_and_settles_at_the_static_sag(method, books_tolerance):
    """The beam (frame tied to the clamped node, so its modes are the cantilever's and the modal damping,
    20 % per mode, is each mode's) released undeformed under gravity swings about its static sag; the
    damping takes 0.0169 J out. The energy books close: kinetic + strain + gravity + dissipated keeps its
    initial value to the integration error, measured at rtol 1e-8 as 2.6e-8 J (SI2) and 1.7e-6 J (HHT),
    and shrinking with rtol (so the error is the integrator's, not a leak of the model); tolerances
    about two to four times those. After 1 s (e^-10 of the first mode's amplitude left) the tip rests at the
    sag found by statics: the two analyses agree to the decay left (1e-4)."""
    model, body = cantilever(n_modes=4, damping_ratio=0.2, tied=True)
    results = mb.dynamics(model, 1.0, 0.01, method=method, rtol=1e-8)
    books = results.energy["total"] + results.energy["dissipated"]
    assert np.ptp(books) < books_tolerance
    assert results.energy["dissipated"][-1] > 0.015
    rest = tip_position(mb.statics(model), body)[-1]
    np.testing.assert_allclose(tip_position(results, body)[-1], rest, atol=1e-4 * abs(rest[2]))


def test_tumbling_free_beam_conserves_energy_and_momentum():
    """A free-free beam (mean-axes modes, frame at its end) tumbling in space without gravity: the
    centrifugal and gyroscopic loads deform it, and the coupled motion keeps kinetic + strain energy and
    linear momentum p = R_WB (M(q) u)[:3] constant, conservation laws of the exact equations that the
    quadratic velocity terms must respect. rtol 1e-8: both hold to 1e-7 relative."""
    body = mb.FlexibleBody.from_mesh(
        "beam",
        beam_line(LENGTH, N_ELEMENTS, SECTION),
        STEEL,
        n_modes=6,
        damping_ratio=0.0,
        method="free",
        angular_velocity=(2.0, 0.5, 30.0),
    )
    model = mb.Model("space", gravity=(0.0, 0.0, 0.0))
    model.add(body)
    results = mb.dynamics(model, 0.1, 0.01, rtol=1e-8)
    total = results.energy["total"]
    assert np.ptp(total) < 1e-7 * total[0]
    frame = results.body("beam")
    R_WB = rotation_from_euler_parameters(frame.euler_parameters)
    q, qdot = results.modal_coordinates("beam"), results.modal_velocities("beam")
    momentum = []
    for k in range(len(results)):
        u = np.concatenate([R_WB[k].T @ frame.velocity[k], R_WB[k].T @ frame.angular_velocity[k], qdot[k]])
        momentum.append(R_WB[k] @ (body.invariants.mass_matrix(q[k]) @ u)[:3])
    momentum = np.array(momentum)
    assert np.max(np.abs(momentum - momentum[0])) < 1e-7 * body.mass * LENGTH * 30.0
    assert np.max(np.abs(q)) > 1e-5  # the spin did deform it


def test_flexible_pendulum_released_horizontally_conserves_energy():
    """The steel rod hinged at one end (free-free modes, the frame at the hinge node) released from the
    horizontal: it bends as it falls and swings; nothing dissipates, so kinetic + strain + gravity energy
    stays at its initial value to the integrator's tolerance: measured 8e-7 J over 0.3 s at the default
    rtol 1e-6 while 4.7 J turn into kinetic energy (2e-7 of it); tolerance 3e-6 J."""
    beam = beam_line(LENGTH, N_ELEMENTS, SECTION)
    rod = mb.FlexibleBody.from_mesh("rod", beam, STEEL, n_modes=4, method="free", damping_ratio=0.0)
    model = mb.Model("pendulum", gravity=(0.0, 0.0, -GRAVITY))
    model.add(rod)
    axis = {"z_axis": (0.0, 1.0, 0.0)}
    model.add(mb.Revolute("pin", rod.add_marker("pin", node=0, **axis), model.ground.add_marker("hinge", **axis)))
    results = mb.dynamics(model, 0.3, 0.01)
    energy = results.energy
    assert np.ptp(energy["total"]) < 3e-6
    assert np.ptp(energy["kinetic"]) > 3.0  # it did fall
    assert np.max(np.abs(results.modal_coordinates("rod"))) > 1e-5  # and bend


def test_stiff_flexible_pendulum_swings_as_the_rigid_one():
    """Two body kinds agree: a flexible rod pendulum whose modulus is raised ten-thousand-fold (its modes,
    70 % damped, follow the load quasi-statically) swings like the rigid body with the same mass and
    inertia (the FE consistent mass matrix gives them exactly) on a revolute at its end, released from
    the horizontal. What separates them is the elastic sag, delta / L ~ 6e-7; measured 1.4e-7 rad over a
    3.1 rad swing, tolerance 1e-6 rad."""
    stiff = mb.Material(E=STEEL.E * 1e4, nu=0.3, density=STEEL.density)
    beam = beam_line(LENGTH, N_ELEMENTS, SECTION)
    flexible = mb.FlexibleBody.from_mesh("rod", beam, stiff, n_modes=4, method="free", damping_ratio=0.7)
    about_cm = flexible.invariants.inertia - flexible.mass * np.diag([0.0, 0.25, 0.25])  # parallel axes, CM at x = L/2
    rigid = mb.RigidBody("rod", flexible.mass, about_cm, position=(0.5 * LENGTH, 0.0, 0.0))
    angles = []
    for body, pivot in ((flexible, {"node": 0}), (rigid, {"position": (-0.5 * LENGTH, 0.0, 0.0)})):
        model = mb.Model("pendulum", gravity=(0.0, 0.0, -GRAVITY))
        model.add(body)
        axis = {"z_axis": (0.0, 1.0, 0.0)}
        model.add(mb.Revolute("pin", body.add_marker("pin", **pivot, **axis), model.ground.add_marker("hinge", **axis)))
        e = mb.dynamics(model, 1.0, 0.05, rtol=1e-8).body("rod").euler_parameters
        angles.append(2.0 * np.arctan2(e[:, 2], e[:, 0]))
    np.testing.assert_allclose(angles[0], angles[1], atol=1e-6)
    assert np.ptp(angles[1]) > 3.0


def test_constraint_acceleration_terms_of_flexible_markers():
    """``gamma`` (the quadratic velocity part of the rows' second derivatives, ``G dv/dt = gamma``) equals
    ``-(dG/dt) v``, taken here by central differences of ``G`` along the motion, for rows whose markers
    sit on a deforming beam: a revolute at node 0 (the marker axes turn with the elastic rotation) and a
    fixed joint at the tip to a rigid hook. Undeformed but with modal, linear and angular velocities, so
    the elastic rotation's exponential map is the identity to first order and the identity is exact; the
    differences' O(h^2) error with h = 1e-6 s is ~1e-12 of the terms (tolerance 1e-7 relative)."""
    from multibody.formulation import frames
    from multibody.formulation.cartesian import CartesianFormulation

    body = mb.FlexibleBody.from_mesh("beam", beam_line(LENGTH, N_ELEMENTS, SECTION), STEEL, n_modes=4, method="free")
    model = mb.Model("linkage")
    model.add(body)
    hook = mb.RigidBody("hook", 1.0, (0.01, 0.01, 0.01), position=(LENGTH, 0.0, 0.0))
    model.add(hook)
    model.add(mb.Revolute("pin", body.add_marker("pin", node=0), model.ground.add_marker("hinge")))
    model.add(
        mb.Fixed("weld", body.add_marker("end", node=N_ELEMENTS), hook.add_marker("eye", position=(0.0, 0.0, 0.0)))
    )
    system = model.compile()
    form = CartesianFormulation(system)
    rng = np.random.default_rng(3)
    q = system.q0.copy()
    v = rng.normal(size=system.n_velocities)
    gamma = form.gamma(form.evaluate(q, v, 0.0))
    h = 1e-6
    ahead, behind = (form.evaluate(frames.displace(system, q, s * h * v), v, 0.0).G for s in (1.0, -1.0))
    expected = -((ahead - behind) @ v) / (2.0 * h)
    np.testing.assert_allclose(gamma, expected, atol=1e-7 * np.max(np.abs(expected)))
    assert np.max(np.abs(expected)) > 1.0


def test_sparse_linear_algebra_gives_the_dense_motion(monkeypatch):
    """Large models take sparse matrices (M(q) blocks added to a CSR matrix, modal columns to a CSR G);
    forced here on the small cantilever, the motion is the dense run's to round-off (the same Newton
    iterates, factorized by SuperLU instead of LAPACK)."""
    from multibody.formulation import cartesian

    model, _ = cantilever(n_modes=4, damping_ratio=0.2, tied=True)
    dense = mb.dynamics(model, 0.2, 0.01).modal_coordinates("beam")
    monkeypatch.setattr(cartesian, "SPARSE_THRESHOLD", 0)
    sparse = mb.dynamics(model, 0.2, 0.01).modal_coordinates("beam")
    np.testing.assert_allclose(sparse, dense, rtol=0, atol=1e-12 * np.max(np.abs(dense)))
