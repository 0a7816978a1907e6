"""ANCF cables (gradient-deficient absolute nodal coordinate elements), each test against its reference.

* A small tip load on a cantilever: Euler-Bernoulli's ``P L^3 / (3 E I)``, which cubic Hermite
  elements reproduce exactly (one element would do).
* A large tip load: the Bisshopp-Drucker elastica, converging with elements.
* Small vibration: Euler-Bernoulli's cantilever frequencies.
* A rope hanging between two points: the elastic catenary (Irvine, Cable Structures, 1981).
* A free undamped pendulum of cable and bob: energy conserved to the integrator's tolerance; with
  damping, the energy lost is what the dampers dissipated, and a rigidly spinning cable dissipates
  nothing (the strain-rate damping is objective).
"""

from __future__ import annotations

import numpy as np
import pytest
from beam_models import elastic_catenary, elastica_tip, swinging_arm
from scipy.optimize import brentq

import multibody as mb
from multibody.model.element import ModelError

LENGTH, DIAMETER, E, DENSITY = 1.0, 0.01, 2e9, 1000.0
SECTION = mb.Section.circle(DIAMETER)
BENDING_STIFFNESS = E * 0.5 * (SECTION.Iy + SECTION.Iz)


def straight(n: int, length: float = LENGTH) -> np.ndarray:
    """``n + 1`` points along x from the origin."""
    return np.column_stack([np.linspace(0.0, length, n + 1), np.zeros(n + 1), np.zeros(n + 1)])


def cantilever(n: int, tip_load: float = 0.0) -> tuple[mb.Model, mb.AncfCable]:
    """A cable clamped at the origin along x, loaded at its tip by ``tip_load`` [N] down (-z), no gravity."""
    model = mb.Model("ancf_cantilever", gravity=(0.0, 0.0, 0.0))
    cable = model.add(mb.AncfCable("rod", straight(n), SECTION, mb.Material(E, 0.3, DENSITY)))
    model.add(mb.CableClamp("clamp", cable.marker_at("root", 0.0), model.ground.add_marker("clamp")))
    if tip_load:
        model.add(mb.PointForce("load", cable.marker_at("tip", LENGTH), (0.0, 0.0, -tip_load)))
    return model, cable


def test_small_tip_load_gives_the_euler_bernoulli_deflection_exactly() -> None:
    """Cubic Hermite elements hold the cantilever's cubic deflection exactly: at a load giving a
    deflection of 3.4e-4 L the tip matches P L^3 / (3 E I) to 1e-6 relative (the geometric
    nonlinearity at this deflection is of relative order (3.4e-4)^2), with two elements."""
    load = 1e-3
    model, _ = cantilever(2, load)
    tip = mb.statics(model).cable("rod").position_at(LENGTH)[-1]
    assert -tip[2] == pytest.approx(load * LENGTH**3 / (3.0 * BENDING_STIFFNESS), rel=1e-6)


def test_large_tip_deflection_converges_to_the_elastica() -> None:
    """P L^2 / (E I) = 2 (tip rotation 45 degrees): reach 0.83936 L and drop 0.49346 L (Bisshopp-Drucker,
    inextensible). The cable adds axial stretch P / (E A) ~ 1e-5 here; the discretization error falls
    by at least 4x per doubling of elements (cubic elements converge as 1/n^2 or faster) and is below
    1e-4 L at n = 16."""
    reach, drop = elastica_tip(2.0)
    errors = []
    for n in (4, 8, 16):
        model, _ = cantilever(n, tip_load=2.0 * BENDING_STIFFNESS / LENGTH**2)
        tip = mb.statics(model).cable("rod").position_at(LENGTH)[-1] / LENGTH
        errors.append(max(abs(tip[0] - reach), abs(-tip[2] - drop)))
    assert errors[1] < errors[0] / 4.0 and errors[2] < errors[1] / 4.0
    assert errors[2] < 1e-4


def test_cantilever_frequencies_converge_to_euler_bernoulli() -> None:
    """First two bending frequencies (beta L = 1.87510, 4.69409) of the clamped cable: cubic Hermite
    elements with a consistent mass converge as 1/n^4 from above: below 2e-5 relative at n = 8
    (measured 6e-6 and 3e-5 for the second at 8: 1e-4 allowed there)."""
    area = SECTION.area
    scale = np.sqrt(BENDING_STIFFNESS / (DENSITY * area * LENGTH**4)) / (2.0 * np.pi)
    exact = np.array([1.8751040687, 4.6940911330]) ** 2 * scale
    errors = []
    for n in (4, 8):
        modes = mb.linearize(cantilever(n)[0]).modes()
        bending = np.sort(modes.frequencies_hz[~modes.rigid_body])[[0, 2]]  # each comes twice (two planes)
        errors.append(bending / exact - 1.0)
    errors = np.array(errors)
    assert np.all(errors >= -1e-7)  # from above (a consistent mass, a conforming element)
    assert errors[1, 0] < 2e-5 and errors[1, 1] < 1e-4
    assert errors[1, 0] < errors[0, 0] / 8.0


def test_a_hanging_rope_takes_the_elastic_catenary() -> None:
    """A rope of 12 m unstretched (E A = 5 kN, 0.49 N/m: a stretch of ~6e-4) hung between points 10 m
    apart: its mid-span sag and end tension against Irvine's elastic catenary (its elastic part
    w L^2 / (8 E A) is 5e-4 of the sag, so the check sees the stretch). The section's bending stiffness
    is a rope's, 1e-7 N m^2, whose boundary layer sqrt(E I / T) ~ 2e-4 m barely shows. 24 cubic elements
    (their chord lengths adding up to the rope's length) resolve the curve: the sag to 1e-4; the support's
    reaction is the end tension to 1e-5 (equilibrium of the whole rope: only the sag's error enters); the
    strain, a derivative of the interpolation, gives the tension at an element's middle to 2e-4 (measured
    4e-5; at the nodes it is 2e-3 off: the reduced axial quadrature is exact at its points, not there)."""
    span, length, n = 10.0, 12.0, 24
    area = np.pi * 0.008**2 / 4.0
    section, material = mb.Section(area, 1e-15, 1e-15, 2e-15), mb.Material(1e8, 0.3, 1000.0)
    s = np.linspace(0.0, 1.0, n + 1)

    def laid(amplitude: float) -> np.ndarray:
        return np.column_stack([span * s, np.zeros(n + 1), -amplitude * np.sin(np.pi * s)])

    amplitude = brentq(lambda a: np.linalg.norm(np.diff(laid(a), axis=0), axis=1).sum() - length, 0.1, 10.0)
    model = mb.Model("catenary")
    rope = model.add(mb.AncfCable("rope", laid(amplitude), section, material))
    model.add(mb.Spherical("left", rope.marker_at("left", 0.0), model.ground.add_marker("left")))
    model.add(mb.Spherical("right", rope.marker_at("right", length), model.ground.add_marker("right", (span, 0, 0))))
    results = mb.statics(model)
    rope_result = results.cable("rope")
    weight = material.density * area * 9.81
    H, sag = elastic_catenary(span, length, weight, material.E * area)
    assert -rope_result.position_at(0.5 * length)[-1, 2] == pytest.approx(sag, rel=1e-4)
    support = results.joint("left").reaction_force[-1]
    assert np.linalg.norm(support) == pytest.approx(np.hypot(H, 0.5 * weight * length), rel=1e-5)
    middle = 0.5 * length - 0.25  # an element's midpoint, next to mid-span
    tension = np.hypot(H, 0.5 * weight * length - weight * middle)
    assert rope_result.axial_force(middle)[-1] == pytest.approx(tension, rel=2e-4)


def pendulum(damping: float) -> mb.Model:
    """A 1 m cable (E = 2 MPa: soft, so that its waves are slow) pinned at the origin, horizontal, a
    50 g bob hooked to its tip, falling under gravity."""
    model = mb.Model("cable_pendulum")
    cable = model.add(mb.AncfCable("rope", straight(6), SECTION, mb.Material(2e6, 0.3, DENSITY), damping=damping))
    model.add(mb.Spherical("pin", cable.marker_at("root", 0.0), model.ground.add_marker("pin")))
    bob = model.add(mb.RigidBody("bob", 0.05, (1e-5, 1e-5, 1e-5), position=(LENGTH, 0.0, 0.0)))
    model.add(mb.Spherical("hook", cable.marker_at("tip", LENGTH), bob.add_marker("hook")))
    return model


def test_an_undamped_cable_pendulum_conserves_energy() -> None:
    """Energy is conserved to the integrator's tolerance: at rtol 1e-8 the total drifts by 1e-7 of the
    potential energy released (measured 1e-9) over 0.3 s of a large swing, the bob and the cable's tip
    staying together (the hook's constraint)."""
    results = mb.dynamics(pendulum(0.0), 0.3, 0.01, rtol=1e-8)
    energy = results.energy
    released = energy["potential"][0] - energy["potential"].min()
    assert released > 0.1  # it swung: the check is not vacuous
    assert np.max(np.abs(energy["total"] - energy["total"][0])) < 1e-7 * released
    np.testing.assert_allclose(results.cable("rope").position_at(LENGTH), results.body("bob").position, atol=1e-9)


def test_damping_dissipates_what_the_energy_loses() -> None:
    """With Kelvin-Voigt damping the total energy falls by what the dampers dissipated, to the
    integrator's tolerance (1e-6 of the energy released at rtol 1e-8)."""
    results = mb.dynamics(pendulum(2e-3), 0.3, 0.01, rtol=1e-8)
    energy = results.energy
    released = energy["potential"][0] - energy["potential"].min()
    assert energy["dissipated"][-1] > 1e-4 * released  # the damping did something
    balance = energy["total"] + energy["dissipated"] - energy["total"][0]
    assert np.max(np.abs(balance)) < 1e-6 * released


def test_a_rigid_motion_of_a_bent_cable_dissipates_nothing() -> None:
    """Objectivity of the strain-rate damping: a quarter-circle cable (curvature 1/R, 6 elements)
    turning rigidly (node velocities w x r, slope rates w x r') has zero axial strain rate and zero
    rate of |kappa|: its dissipated power is round-off, 1e-12 of what a stretching of the same speed
    dissipates."""
    from multibody.formulation.cartesian import CartesianFormulation

    radius, n = 0.5, 6
    angles = np.linspace(0.0, 0.5 * np.pi, n + 1)
    points = radius * np.column_stack([np.cos(angles), np.sin(angles), np.zeros(n + 1)])
    model = mb.Model("bent", gravity=(0.0, 0.0, 0.0))
    model.add(mb.AncfCable("rope", points, SECTION, mb.Material(2e6, 0.3, DENSITY), damping=1e-2))
    system = model.compile()
    formulation = CartesianFormulation(system)
    e = system.q0.reshape(-1, 2, 3)  # per node: position, slope
    spin = np.array([0.3, -0.5, 2.0])
    rigid = np.cross(spin, e).reshape(-1)
    stretch = np.zeros_like(e)
    stretch[:, 0] = 2.0 * e[:, 0]  # every point moving away from the centre: a stretch of the same size
    stretch[:, 1] = 2.0 * e[:, 1]
    rigid_power = formulation.evaluate(system.q0, rigid, 0.0).loads.dissipated_power
    stretch_power = formulation.evaluate(system.q0, stretch.reshape(-1), 0.0).loads.dissipated_power
    assert stretch_power > 0.0
    assert abs(rigid_power) < 1e-12 * stretch_power


def test_bad_cable_input_is_refused_by_name() -> None:
    model = mb.Model("bad")
    with pytest.raises(ModelError, match="cable 'c'.*coincide"):
        mb.AncfCable("c", [[0, 0, 0], [0, 0, 0], [1, 0, 0]], SECTION, mb.Material(E, 0.3, DENSITY))
    cable = model.add(mb.AncfCable("c", straight(2), SECTION, mb.Material(E, 0.3, DENSITY)))
    with pytest.raises(ModelError, match="outside the cable"):
        cable.marker_at("beyond", 2.0)
    with pytest.raises(ModelError, match="marker_at"):
        cable.add_marker("m")
    model.add(mb.Revolute("hinge", cable.marker_at("root", 0.0), model.ground.add_marker("hinge")))
    with pytest.raises(ModelError, match="joint 'hinge'.*no torsion"):
        model.compile()
    body = mb.RigidBody("b", 1.0, (1.0, 1.0, 1.0))
    with pytest.raises(ModelError, match="CableClamp|cable"):
        mb.CableClamp("clamp", body.add_marker("m"), model.ground.add_marker("g"))


def test_statics_of_a_loose_cable_names_its_nodes() -> None:
    """A cable held by nothing has no static equilibrium under gravity: the error names the cable's
    node coordinates that nothing resists (not the rigid bodies' or multipliers' names, shifted)."""
    model = mb.Model("loose")
    model.add(mb.AncfCable("rope", straight(2), SECTION, mb.Material(E, 0.3, DENSITY)))
    with pytest.raises(mb.AnalysisError, match="nothing resists cable 'rope' node"):
        mb.statics(model)


def test_kane_refuses_a_cable_by_name() -> None:
    with pytest.raises(ValueError, match="rope"):
        mb.dynamics(pendulum(0.0), 0.1, 0.05, formulation="kane")


def test_cable_and_geometrically_exact_beams_converge_to_the_same_arm_motion() -> None:
    """Two independent nodal beams on the same falling arm (0.15 s, HHT at rtol 1e-6): the
    geometrically exact beam converges as h^2, so its 8 and 16 element tip paths are extrapolated
    (Richardson; 8e-5 m from the 4-8 extrapolation, the reference's own uncertainty); 4 cubic cable
    elements lie within 1e-4 m of it all along (measured 4e-5; the tip drops 0.16 m, the rod's
    shear flexibility, which only the geometrically exact beam has, is of order (d / L)^2 ~ 4e-4 of
    the deflection: 1e-5 m)."""

    def tip_path(kind: str, n: int) -> np.ndarray:
        arm = swinging_arm("nodal", n, section=SECTION, kind=kind)  # a 10 mm rod: round, as a cable needs
        results = mb.dynamics(arm, 0.15, 0.015, rtol=1e-6, method="HHT")
        return results.beam("arm").node_positions[:, -1]

    reference = (4.0 * tip_path("geometrically_exact", 16) - tip_path("geometrically_exact", 8)) / 3.0
    cable = tip_path("ancf_cable", 4)
    assert reference[-1, 2] < -0.1  # it fell and bent: the comparison is not vacuous
    assert np.max(np.linalg.norm(cable - reference, axis=1)) < 1e-4


def test_a_cable_beam_reports_its_section_forces() -> None:
    """``mb.Beam(kind="ancf_cable")`` as a clamped cantilever under a small tip load P (no gravity):
    at each element's middle the bending moment is P (L - s) and the shear force P (statics of the
    cantilever; to 1e-3 of P L, the deflection being 3e-4 L), so the curvature M / (E I), the axial
    force zero (to a strain of 1e-10: the statics tolerance on a force of E A = 160 kN), and the tip
    where Euler-Bernoulli puts it, turned by its slope P L^2 / (2 E I) (exact for cubic elements: 1e-6,
    and 1e-5 for the slope, the sine of a 5e-4 rad angle)."""
    load = 1e-3
    model = mb.Model("cable_cantilever", gravity=(0.0, 0.0, 0.0))
    base = model.ground.add_marker("base")
    beam = model.add(
        mb.Beam("rod", base, LENGTH, 4, SECTION, mb.Material(E, 0.3, DENSITY), kind="ancf_cable", clamped=True)
    )
    model.add(mb.PointForce("load", beam.end, (0.0, 0.0, -load)))
    history = mb.statics(model).beam("rod")
    assert -history.node_positions[-1, -1, 2] == pytest.approx(load * LENGTH**3 / (3.0 * BENDING_STIFFNESS), rel=1e-6)
    middles = (np.arange(4) + 0.5) * LENGTH / 4
    sections = history.section_forces[-1]
    np.testing.assert_allclose(
        np.linalg.norm(sections[:, 4:6], axis=1), load * (LENGTH - middles), atol=1e-3 * load * LENGTH
    )
    np.testing.assert_allclose(np.linalg.norm(sections[:, 1:3], axis=1), load, rtol=1e-3)
    np.testing.assert_allclose(sections[:, 0], 0.0, atol=1e-10 * E * SECTION.area)
    curvature = np.linalg.norm(history.curvature[-1], axis=1)
    np.testing.assert_allclose(
        curvature, load * (LENGTH - middles) / BENDING_STIFFNESS, atol=1e-3 * load * LENGTH / BENDING_STIFFNESS
    )
    tip_axis = history.node_rotations[-1, -1, :, 0]  # along the tangent: slope P L^2 / (2 E I) down
    assert -tip_axis[2] == pytest.approx(load * LENGTH**2 / (2.0 * BENDING_STIFFNESS), rel=1e-5)


@pytest.mark.parametrize("kind", ["ancf_cable", "geometrically_exact", "finite_segment"])
def test_a_line_load_bends_a_cantilever_as_euler_bernoulli_says(kind: str) -> None:
    """A uniform line load w (no gravity) on a clamped cantilever: tip deflection w L^4 / (8 E I).
    Cubic cable elements with consistent nodal loads are exact at the nodes (two elements, 1e-6);
    the geometrically exact beam (loads lumped at its nodes, as its mass) converges as h^2 and adds
    its shear deflection (4 E I / (k G A L^2) = 8e-5 relative here): 8 elements within 1 %; the finite
    segments (each segment's load at its centre) converge as 1/n^2: 20 segments within 1 %."""
    load = 1e-3
    model = mb.Model("loaded", gravity=(0.0, 0.0, 0.0))
    base = model.ground.add_marker("base")
    material = mb.Material(E, 0.3, DENSITY)
    if kind == "finite_segment":
        beam = mb.FiniteSegmentBeam("rod", base, LENGTH, 20, SECTION, material, clamped=True, line_load=(0, 0, -load))
    else:
        n = 2 if kind == "ancf_cable" else 8
        beam = mb.Beam("rod", base, LENGTH, n, SECTION, material, kind=kind, clamped=True, line_load=(0, 0, -load))
    model.add(beam)
    tip = -mb.statics(model).beam("rod").node_positions[-1, -1, 2]
    exact = load * LENGTH**4 / (8.0 * BENDING_STIFFNESS)
    assert tip == pytest.approx(exact, rel=1e-6 if kind == "ancf_cable" else 1e-2)


def test_an_i_beam_section_integrates_its_shape() -> None:
    """Area and second moments of ``Section.i_beam`` (an IPE 200's plates: h 200, b 100, web 5.6,
    flanges 8.5 mm, without fillets) against a midpoint-rule integration of the I shape on a 0.1 mm
    grid (an independent computation; 1e-4)."""
    h, b, t_web, t_flange = 0.2, 0.1, 0.0056, 0.0085
    section = mb.Section.i_beam(h, b, t_web, t_flange)
    step = 1e-4
    y, z = np.meshgrid(np.arange(-b / 2 + step / 2, b / 2, step), np.arange(-h / 2 + step / 2, h / 2, step))
    inside = (np.abs(z) >= h / 2 - t_flange) | (np.abs(y) <= t_web / 2)
    area = step**2 * inside.sum()
    assert section.area == pytest.approx(area, rel=1e-4)
    assert section.Iy == pytest.approx(step**2 * np.sum(z[inside] ** 2), rel=1e-4)
    assert section.Iz == pytest.approx(step**2 * np.sum(y[inside] ** 2), rel=1e-4)
    with pytest.raises(ModelError, match="I-beam"):
        mb.Section.i_beam(0.1, 0.1, 0.005, 0.06)
