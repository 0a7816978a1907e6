"""Geometrically exact nodal beams (``mb.Beam(kind="geometrically_exact")``).

References, one per test:
- the element's loads are the exact gradient of its strain energy (central finite differences
  with world virtual rotations), and the energy is invariant under rigid motions (objectivity);
- a large deflection under a tip load of fixed direction: the elastica of Bisshopp & Drucker
  (Q. Appl. Math. 3 (1945) 272), converging with elements;
- the 45-degree bend of Bathe & Bolourchi (Int. J. Num. Meth. Eng. 14 (1979) 961) under an
  out-of-plane tip load, against the published tip position;
- the first two bending frequencies of a cantilever, Euler-Bernoulli's;
- conservation of energy of a free, undamped flexible pendulum;
- the same swinging arm as a finite-segment beam with many segments;
- the Kane and Cartesian formulations agreeing on a swinging beam.
"""

from __future__ import annotations

import base64

import numpy as np
import pytest
from beam_models import elastica_tip, swinging_arm

import multibody as mb
from multibody.formulation.forces.beam_element import _beam_loads, rotation_exp

E, NU, DENSITY = 210e9, 0.3, 7850.0
"""Steel [Pa], [-], [kg/m^3]."""
LENGTH, DIAMETER = 1.0, 0.02
"""[m]"""


def cantilever(n: int, tip_load: float = 0.0) -> tuple[mb.Model, mb.Beam]:
    """A steel rod clamped at the world origin along x, a tip load along -z [N]."""
    model = mb.Model("cantilever", gravity=(0.0, 0.0, 0.0))
    section, material = mb.Section.circle(DIAMETER), mb.Material(E, NU, DENSITY)
    beam = model.add(mb.Beam("rod", model.ground.add_marker("base"), LENGTH, n, section, material, clamped=True))
    if tip_load:
        model.add(mb.PointForce("tip", beam.end, (0.0, 0.0, -tip_load)))
    return model, beam


# -- the element: exact gradient, objectivity ------------------------------------------------------


class Element:
    """One element with curved reference geometry, evaluated through the compiled kernel."""

    C_N = np.array([3.0e6, 1.1e6, 0.9e6])
    C_M = np.array([40.0, 70.0, 55.0])
    L0 = 0.3
    strain0 = np.array([0.98, 0.05, -0.03])
    curvature0 = np.array([0.2, -0.4, 0.7])

    def evaluate(
        self,
        p: np.ndarray,
        R: np.ndarray,
        v: np.ndarray | None = None,
        w: np.ndarray | None = None,
        damping: float = 0.0,
    ) -> tuple[float, float, np.ndarray, np.ndarray]:
        """``(W [J], dissipated [W], F_B, M_B)`` for nodes A = 0, B = 1 at ``p`` (2, 3), ``R`` (2, 3, 3)."""
        force, torque, value = np.zeros((1, 3)), np.zeros((1, 3)), np.zeros(1)
        zero = np.zeros((2, 3))
        W, dissipated = _beam_loads(
            np.array([0]),
            np.array([1]),
            np.array([0]),
            np.array([self.L0]),
            self.strain0[None],
            self.curvature0[None],
            self.C_N[None],
            self.C_M[None],
            np.array([damping]),
            p,
            zero if v is None else v,
            np.ascontiguousarray(R),
            zero if w is None else w,
            force,
            torque,
            value,
        )
        return W, dissipated, force[0], torque[0]


def deformed_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two nodes 0.3 m apart with frames turned by a large relative rotation (about 1 rad)."""
    R_A = rotation_exp(rng.normal(size=3))
    R_B = R_A @ rotation_exp(rng.normal(scale=0.6, size=3))
    p = np.array([[0.1, -0.2, 0.3], [0.0, 0.0, 0.0]])
    p[1] = p[0] + R_A @ np.array([0.31, 0.02, -0.04])
    return p, np.array([R_A, R_B])


def test_element_loads_are_the_gradient_of_its_energy() -> None:
    """Node B's force and couple are -dW/dx_B and -dW/dtheta_B (world virtual rotations,
    R -> exp(skew(h e)) R); node A's are what the force family protocol gives it: -F_B at x_B
    and -M_B, i.e. -F_B and -M_B - d x F_B at x_A. Central differences with h = 1e-6 have a
    truncation error h^2 W''' ~ 1e-12 relative and a round-off of 1e-16 W / h; tolerance 1e-6
    relative to the largest load."""
    element = Element()
    p, R = deformed_pair(np.random.default_rng(1))
    _, _, F_B, M_B = element.evaluate(p, R)
    d = p[1] - p[0]
    expected = {1: (F_B, M_B), 0: (-F_B, -M_B - np.cross(d, F_B))}
    h = 1e-6
    scale = max(np.max(np.abs(F_B)), np.max(np.abs(M_B)) / np.linalg.norm(d))
    for node in (0, 1):
        force, couple = np.zeros(3), np.zeros(3)
        for axis in range(3):
            step = np.zeros(3)
            step[axis] = h
            energies = []
            for sign in (1.0, -1.0):
                moved = p.copy()
                moved[node] += sign * step
                energies.append(element.evaluate(moved, R)[0])
            force[axis] = -(energies[0] - energies[1]) / (2 * h)
            energies = []
            for sign in (1.0, -1.0):
                turned = R.copy()
                turned[node] = rotation_exp(sign * step) @ R[node]
                energies.append(element.evaluate(p, turned)[0])
            couple[axis] = -(energies[0] - energies[1]) / (2 * h)
        np.testing.assert_allclose(force, expected[node][0], atol=1e-6 * scale)
        np.testing.assert_allclose(couple, expected[node][1], atol=1e-6 * scale * np.linalg.norm(d))


def test_element_is_objective_and_its_damping_dissipates() -> None:
    """A rigid rotation and translation of both nodes leaves the energy unchanged (to round-off,
    1e-12 relative) and turns the loads with it; a rigid motion's velocities dissipate nothing,
    a deforming one's dissipate a positive power equal to minus the damping loads' power."""
    element = Element()
    p, R = deformed_pair(np.random.default_rng(2))
    W, _, F_B, M_B = element.evaluate(p, R)
    Q = rotation_exp(np.array([0.7, -1.9, 0.4]))
    shift = np.array([3.0, -1.0, 2.0])
    W_moved, _, F_moved, M_moved = element.evaluate(p @ Q.T + shift, Q @ R)
    assert W_moved == pytest.approx(W, rel=1e-12)
    np.testing.assert_allclose(F_moved, Q @ F_B, atol=1e-10 * np.max(np.abs(F_B)))
    np.testing.assert_allclose(M_moved, Q @ M_B, atol=1e-10 * np.max(np.abs(M_B)))
    # velocities of a rigid motion: v = v0 + w x p, the same w at both nodes
    w0, v0 = np.array([1.0, 2.0, -0.5]), np.array([0.3, 0.1, 0.2])
    rigid_v, rigid_w = v0 + np.cross(w0, p), np.tile(w0, (2, 1))
    assert element.evaluate(p, R, rigid_v, rigid_w, damping=0.01)[1] == pytest.approx(0.0, abs=1e-9 * W)
    # a deforming motion: the damping loads' power (on B, and on A by the protocol) is -dissipated
    rng = np.random.default_rng(3)
    v, w = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    _, dissipated, F_total, M_total = element.evaluate(p, R, v, w, damping=0.01)
    F_damping, M_damping = F_total - F_B, M_total - M_B
    power = F_damping @ (v[1] - v[0] - np.cross(w[0], p[1] - p[0])) + M_damping @ (w[1] - w[0])
    assert dissipated > 0.0
    assert power == pytest.approx(-dissipated, rel=1e-10)


# -- statics ----------------------------------------------------------------------------------------


def test_large_tip_deflection_converges_to_the_elastica() -> None:
    """P L^2 / (E I) = 2 bends the rod 45 degrees at the tip: reach 0.83936 L, drop 0.49346 L
    (Bisshopp-Drucker). The one-point-quadrature element converges as h^2 (measured errors of the
    tip position 3.6e-3, 9.2e-4, 2.5e-4 L at n = 4, 8, 16) to the elastica plus the shear and
    axial flexibility it leaves out (P / (k G A) = 1.4e-4 L, P / (E A) ~ 1e-5 L). Tolerances: a
    fall by 3x per halving of h (4x expected) and 4e-4 L at n = 16."""
    reach, drop = elastica_tip(2.0)
    bending_stiffness = E * mb.Section.circle(DIAMETER).Iy
    errors = []
    for n in (4, 8, 16):
        model, _ = cantilever(n, tip_load=2.0 * bending_stiffness / LENGTH**2)
        tip = mb.statics(model).beam("rod").node_positions[-1, -1] / LENGTH
        errors.append(np.hypot(tip[0] - reach, -tip[2] - drop))
    assert errors[1] < errors[0] / 3.0 and errors[2] < errors[1] / 3.0
    assert errors[2] < 4e-4


def test_section_forces_and_the_animations_tube() -> None:
    """A small tip load P (tip slope 1e-4: the geometry barely changes, 1e-8 relative): each
    element's midpoint carries the shear P and the bending moment P (L - s) of cantilever statics
    (exact for any element count: the statics is of the deformed nodes, the section forces are
    inverted from the element's node loads; tolerance 1e-6 relative). The animation draws the beam
    as a tube through its nodes coloured by the moment at the nodes (the neighbouring elements'
    mean; float32 on the page, 1e-6 relative)."""
    from multibody.viz.animation import animation_data
    from multibody.viz.scene import scene_description

    load, n = 0.5, 5
    model, _ = cantilever(n, tip_load=load)
    results = mb.statics(model)
    history = results.beam("rod")
    midpoints = (np.arange(n) + 0.5) * LENGTH / n
    sections = history.section_forces[-1]
    # what the part after exerts on the part before: the tip load's force and its moment about the section
    np.testing.assert_allclose(sections[:, 2], -load, rtol=1e-6)
    np.testing.assert_allclose(sections[:, 4], load * (LENGTH - midpoints), rtol=1e-6)
    np.testing.assert_allclose(sections[:, [1, 3, 5]], 0.0, atol=1e-6 * load)
    # the midpoint axes turn with the slope (below 1.6e-4): the load has that share along them
    assert np.all(np.abs(sections[:, 0]) < 1.6e-4 * load)
    np.testing.assert_allclose(history.node_positions[-1, :, 0], np.linspace(0.0, LENGTH, n + 1), atol=1e-6)
    data = animation_data(results, scene_description(results, model), [], "rod")
    (tube,) = data["beams"]
    assert tube["name"] == "rod" and tube["node_count"] == n + 1
    assert tube["radius"] == pytest.approx(DIAMETER / 2.0)
    moments = np.frombuffer(base64.b64decode(tube["bending_moment"]), dtype="<f4")
    expected = load * (LENGTH - np.clip(np.linspace(0.0, LENGTH, n + 1), midpoints[0], midpoints[-1]))
    np.testing.assert_allclose(moments, expected, rtol=1e-6)
    assert all(body["shapes"] == [] for body in data["scene"]["bodies"] if body["name"].startswith("rod_n"))


def test_bathe_bolourchi_45_degree_bend() -> None:
    """The 45-degree bend (R = 100, 1 x 1 section, E = 1e7, nu = 0 so G = E / 2, k = 5/6,
    J = 1/6) clamped at the origin with its tangent along y and its centre at (100, 0, 0), a dead
    tip load along z raised to 300 and 600 in two quasi-static steps, 8 elements. Published tip
    positions (Simo & Vu-Quoc, Comput. Methods Appl. Mech. Eng. 58 (1986) 79, Example 7.5, 8
    linear elements with one-point integration like ours: (22.33, 58.84, 40.08) at 300 and
    (15.79, 47.23, 53.37) at 600; Bathe & Bolourchi (1979): (22.5, 59.2, 39.5) and
    (15.9, 47.2, 53.4)). Measured: (22.29, 58.86, 40.09) and (15.74, 47.25, 53.39).
    Tolerances: 0.1 against Simo & Vu-Quoc (their element interpolates the rotations
    differently; 0.1 is 0.2 % of the tip travel), 0.7 against Bathe & Bolourchi (another element
    family, values given to one decimal)."""
    radius = 100.0
    model = mb.Model("bend", gravity=(0.0, 0.0, 0.0))
    base = model.ground.add_marker("base", z_axis=(0.0, 0.0, 1.0), x_axis=(0.0, 1.0, 0.0))
    angle = np.linspace(0.0, np.pi / 4.0, 201)
    points = np.column_stack([radius * (1.0 - np.cos(angle)), radius * np.sin(angle), np.zeros_like(angle)])
    section = mb.Section(1.0, 1.0 / 12.0, 1.0 / 12.0, 1.0 / 6.0, shear_coefficient=5.0 / 6.0)
    material = mb.Material(1e7, 0.0, 1.0)
    beam = model.add(mb.Beam("bend", base, None, 8, section, material, points=points, clamped=True))
    np.testing.assert_allclose(beam.nodes[-1].position, (radius - radius / np.sqrt(2.0), radius / np.sqrt(2.0), 0.0))
    model.add(mb.PointForce("tip", beam.end, lambda t: (0.0, 0.0, 300.0 * t)))
    tips = mb.quasi_statics(model, 2.0, 1.0).beam("bend").node_positions[1:, -1]
    np.testing.assert_allclose(tips, [[22.33, 58.84, 40.08], [15.79, 47.23, 53.37]], atol=0.1)
    np.testing.assert_allclose(tips, [[22.5, 59.2, 39.5], [15.9, 47.2, 53.4]], atol=0.7)


# -- small vibration ---------------------------------------------------------------------------------


def test_bending_frequencies_converge_to_euler_bernoulli() -> None:
    """First and second bending frequencies of the clamped rod, ``(1.8751, 4.6941)^2 / (2 pi)
    sqrt(E I / (rho A L^4))`` (Euler-Bernoulli). The lumped-mass element converges as h^2 to the
    Timoshenko rod (shear and rotary inertia, which Euler-Bernoulli leaves out, lower them by
    2e-4 and 1.6e-3 at L / r = 200: measured with 64 elements). Measured errors of the first:
    -1.7 %, -0.44 %, -0.13 % at n = 4, 8, 16; of the second at n = 16: -0.25 %. Tolerances: a
    fall by 3x per halving of h, and 0.3 % for the second at n = 16."""
    section = mb.Section.circle(DIAMETER)
    unit = np.sqrt(E * section.Iy / (DENSITY * section.area * LENGTH**4)) / (2.0 * np.pi)
    first, second = 1.875104**2 * unit, 4.694091**2 * unit
    errors = []
    for n in (4, 8, 16):
        modes = mb.linearize(cantilever(n)[0]).modes()
        bending = np.sort(modes.frequencies_hz[~modes.rigid_body])
        np.testing.assert_allclose(bending[1], bending[0], rtol=1e-9)  # the round rod: y and z alike
        errors.append(abs(bending[0] / first - 1.0))
    assert errors[1] < errors[0] / 3.0 and errors[2] < errors[1] / 3.0
    assert abs(bending[2] / second - 1.0) < 3e-3


# -- dynamics ----------------------------------------------------------------------------------------


def test_free_flexible_pendulum_conserves_energy() -> None:
    """Undamped, the falling arm (8 elements) keeps kinetic + potential (gravity and strain)
    energy: the element is conservative (its loads are its energy's gradient). Over 0.3 s with
    HHT at rtol 1e-7 the drift is the integrator's (measured 5.8e-8 of the largest kinetic energy,
    4.6e-7 at rtol 1e-6); tolerance 3e-7. (HHT: the BDF forms need 1e5 steps here, held back by
    the stiff rotations of the lumped nodes' small rotary inertia.)"""
    results = mb.dynamics(swinging_arm("nodal", 8), 0.3, 0.01, rtol=1e-7, method="HHT")
    total = results.energy["total"]
    assert np.all(results.energy["dissipated"] == 0.0)
    kinetic = np.max(results.energy["kinetic"])
    assert kinetic > 0.1  # it did fall and swing
    assert np.max(np.abs(total - total[0])) < 3e-7 * kinetic


def test_nodal_and_finite_segment_arms_converge_to_the_same_motion() -> None:
    """The falling arm as a nodal beam of 4, 8, 16 elements and as 8 finite segments (converged:
    8 and 32 segments differ by 1e-4 m over the run). The nodal beam's tip path approaches the
    segments' as h^2 (largest distance over 0.2 s measured 7.9, 1.9 and 0.61 mm); the Richardson
    extrapolation of its 8 and 16 element paths is within 0.23 mm of the segments' (HHT at rtol 1e-7:
    integration errors 1e-6 m; the rest is the segments' own discretization). Tolerances: a fall by
    2.5x per halving (the last ratio, 3.2, is held down by the segments' error), 0.5 mm extrapolated."""

    def tip_path(beam_type: str, n: int) -> np.ndarray:
        results = mb.dynamics(swinging_arm(beam_type, n), 0.2, 0.02, rtol=1e-7, method="HHT")
        return results.beam("arm").node_positions[:, -1]

    segments = tip_path("segments", 8)
    nodal = {n: tip_path("nodal", n) for n in (4, 8, 16)}
    distance = [np.max(np.linalg.norm(nodal[n] - segments, axis=1)) for n in (4, 8, 16)]
    assert distance[1] < distance[0] / 2.5 and distance[2] < distance[1] / 2.5
    extrapolated = (4.0 * nodal[16] - nodal[8]) / 3.0
    assert np.max(np.linalg.norm(extrapolated - segments, axis=1)) < 5e-4
    assert segments[-1, 2] < -0.2  # it did swing down: the comparison is not vacuous


def test_cartesian_and_kane_agree_on_a_swinging_nodal_beam() -> None:
    """The falling arm of 4 elements, damped (1 ms), in both formulations at rtol 1e-8 over 0.1 s
    (Kane: the hinge a tree joint, the hub and the nodes free bodies; Cartesian: the hinge five
    constraint rows): tip positions agree to 1e-6 m (local errors at the tolerance)."""
    tips = []
    for formulation, method in (("cartesian", "HHT"), ("kane", "BDF")):
        results = mb.dynamics(
            swinging_arm("nodal", 4, damping=1e-3), 0.1, 0.02, rtol=1e-8, formulation=formulation, method=method
        )
        tips.append(results.beam("arm").node_positions[:, -1])
    assert np.max(np.abs(tips[0] - tips[1])) < 1e-6
    assert tips[0][-1, 2] < -0.02  # it did swing down


# -- input --------------------------------------------------------------------------------------------


def test_markers_along_the_beam_split_its_elements() -> None:
    """A marker at a node is on that node; one between nodes splits the element there (the new
    node's mass and its neighbours' follow their tributary lengths: the beam's mass is kept)."""
    model = mb.Model("split")
    section, material = mb.Section.circle(DIAMETER), mb.Material(E, NU, DENSITY)
    beam = mb.Beam("rod", model.ground.add_marker("base"), LENGTH, 4, section, material)
    assert beam.marker_at("quarter", 0.25).body is beam.nodes[1]
    third = beam.marker_at("third", LENGTH / 3.0)
    assert beam.n_elements == 5 and third.body is beam.nodes[2]
    np.testing.assert_allclose(third.body.position, (LENGTH / 3.0, 0.0, 0.0))
    assert [node.name for node in beam.nodes] == [f"rod_n{k}" for k in range(6)]
    assert [element.name for element in beam.elements] == [f"rod_e{k}" for k in range(1, 6)]
    total = sum(node.mass for node in beam.nodes)
    assert total == pytest.approx(DENSITY * section.area * LENGTH, rel=1e-12)
    model.add(beam)
    assert "rod_e5" in model.forces and "rod_n5" in model.bodies
    with pytest.raises(mb.ModelError, match="beam 'rod': .*already in model 'split'; ask for the marker before"):
        beam.marker_at("late", 0.1)
    assert beam.marker_at("end_too", LENGTH).body is beam.nodes[-1]  # a node's is still fine


def test_bad_beams_are_refused_by_name() -> None:
    model = mb.Model("bad")
    base = model.ground.add_marker("base")
    section, material = mb.Section.circle(0.01), mb.Material(E, NU, DENSITY)
    with pytest.raises(mb.ModelError, match="beam 'arm': kind must be one of 'geometrically_exact', 'ancf_cable'"):
        mb.Beam("arm", base, 1.0, 3, section, material, kind="euler")
    with pytest.raises(mb.ModelError, match="cable 'arm_cable'.*Iy == Iz"):  # a cable bends alike in every direction
        mb.Beam("arm", base, 1.0, 3, mb.Section.rectangle(0.02, 0.005), material, kind="ancf_cable")
    with pytest.raises(mb.ModelError, match="beam 'arm': n_elements must be a positive integer"):
        mb.Beam("arm", base, 1.0, 0, section, material)
    with pytest.raises(mb.ModelError, match="beam 'arm': length must be a positive number of metres"):
        mb.Beam("arm", base, -1.0, 3, section, material)
    with pytest.raises(mb.ModelError, match="beam 'arm': start_marker must be a Marker"):
        mb.Beam("arm", model.ground, 1.0, 3, section, material)
    with pytest.raises(mb.ModelError, match="beam 'arm': damping must be a non-negative"):
        mb.Beam("arm", base, 1.0, 3, section, material, damping=-1.0)
    with pytest.raises(mb.ModelError, match="beam 'arm': points must start at the start marker's origin"):
        mb.Beam("arm", base, None, 3, section, material, points=[[1.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    with pytest.raises(mb.ModelError, match="beam 'arm': points must be a \\(k, 3\\) array"):
        mb.Beam("arm", base, None, 3, section, material, points=[[0.0, 0.0, 0.0]])
    with pytest.raises(mb.ModelError, match="beam 'arm': length 2.0 m differs from the length of points"):
        mb.Beam("arm", base, 2.0, 3, section, material, points=[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    beam = mb.Beam("arm", base, 1.0, 3, section, material)
    with pytest.raises(mb.ModelError, match="beam 'arm': marker_at arc length 1.5 m is off the beam"):
        beam.marker_at("far", 1.5)
    model.add(mb.RigidBody("arm_n2", 1.0, (1.0, 1.0, 1.0)))
    with pytest.raises(mb.ModelError, match="'arm_n2' are already used"):
        model.add(beam)
    assert "arm_n0" not in model.bodies  # nothing half-added
