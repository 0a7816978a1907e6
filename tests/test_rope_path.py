"""Massless rope paths over pulleys and winches (``multibody.model.forces.rope``, kind="massless")."""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.spatial.wrapping import wrapped_path

Y_AXLE = (0.0, 1.0, 0.0)  # pulleys in the x-z plane turn about y
G = 9.81


def test_tangent_lines_between_coplanar_circles_match_the_closed_form() -> None:
    """Reference: belt geometry. Two circles of radii 0.3 and 0.1, centres 1 m apart: the open
    (same sense) tangent is sqrt(d^2 - (r1 - r2)^2) long, the crossed one sqrt(d^2 - (r1 + r2)^2);
    the wrap on a middle circle of an open route turning through 90 degrees is pi/2. Tolerance:
    the fixed-point iteration stops at 1e-14 relative; 1e-12 m leaves room for rounding."""
    C = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    z = np.array([[0.0, 0.0, 1.0]] * 2)
    radius = np.array([0.3, 0.1])
    _, _, open_span, _ = wrapped_path(C, z, radius, np.array([1.0, 1.0]))
    _, _, crossed_span, _ = wrapped_path(C, z, radius, np.array([1.0, -1.0]))
    assert open_span[0] == pytest.approx(np.sqrt(1.0 - 0.2**2), abs=1e-12)
    assert crossed_span[0] == pytest.approx(np.sqrt(1.0 - 0.4**2), abs=1e-12)
    corner = np.array([[-2.0, -0.5, 0.0], [0.0, 0.0, 0.0], [0.5, 2.0, 0.0]])
    _, _, spans, wraps = wrapped_path(corner, np.array([[0.0, 0.0, 1.0]] * 3), np.array([0.0, 0.5, 0.0]), np.ones(3))
    assert wraps[1] == pytest.approx(np.pi / 2, abs=1e-12)
    assert spans == pytest.approx([2.0, 2.0], abs=1e-12)


def test_tangent_line_between_tilted_circles_is_tangent_to_both() -> None:
    """Reference: the definition of the span. For two circles in planes tilted against each other
    the span from X_a to X_b is perpendicular to both radii at the tangent points, the points lie on
    their circles and the travel direction agrees with each sense. Tolerance: the fixed-point
    stopping test (1e-14 relative), with room for rounding."""
    C = np.array([[0.0, 0.0, 0.0], [1.5, 0.4, -0.3]])
    z = np.array([[0.0, 0.0, 1.0], [0.3, 0.8, 0.2]])
    z /= np.linalg.norm(z, axis=1)[:, None]
    radius, sense = np.array([0.25, 0.4]), np.array([1.0, -1.0])
    X_in, X_out, spans, _ = wrapped_path(C, z, radius, sense)
    u = (X_in[1] - X_out[0]) / spans[0]
    for k, X in ((0, X_out[0]), (1, X_in[1])):
        arm = X - C[k]
        assert arm @ z[k] == pytest.approx(0.0, abs=1e-12)
        assert np.linalg.norm(arm) == pytest.approx(radius[k], abs=1e-12)
        assert u @ arm == pytest.approx(0.0, abs=1e-12)
        assert u @ (sense[k] * np.cross(z[k], arm)) > 0.0


def _on_vertical_slide(model: mb.Model, name: str, mass: float, depth: float) -> mb.RigidBody:
    """A body of ``mass`` [kg] at ``depth`` [m] below the origin, free only to slide vertically."""
    body = model.add(mb.RigidBody(name, mass=mass, inertia=(0.1, 0.1, 0.1), position=(0.0, 0.0, -depth)))
    model.add(
        mb.Translational(
            "slide",
            body.add_marker("slide", z_axis=(0, 0, 1)),
            model.ground.add_marker("slide_g", position=(0, 0, -depth), z_axis=(0, 0, 1)),
        )
    )
    return body


def _block_model(
    name: str, fall_x: list[float], radius: float, drop: float, mass: float, top_pulley_x: list[float] = ()
) -> tuple[mb.Model, list]:
    """A block hanging in a rope on a vertical slide: movable pulleys at ``fall_x`` (x of their
    centres, at depth ``drop``), fixed pulleys at ``top_pulley_x`` (at height 0), the rope anchored
    at height 0 on ground at both ends, left of the first movable pulley and right of the last."""
    model = mb.Model(name)
    block = _on_vertical_slide(model, "block", mass, drop)
    lower = [mb.Pulley(f"low{k}", block.add_marker(f"low{k}", position=(x, 0, 0), z_axis=Y_AXLE), radius)
             for k, x in enumerate(fall_x)]  # fmt: skip
    upper = [mb.Pulley(f"up{k}", model.ground.add_marker(f"up{k}", position=(x, 0, 0), z_axis=Y_AXLE), radius)
             for k, x in enumerate(top_pulley_x)]  # fmt: skip
    route = [lower[0]]
    for k in range(1, len(lower)):
        route += [upper[k - 1], lower[k]]
    return model, route


def _anchors(model: mb.Model, left: float, right: float, height: float = 0.0) -> tuple:
    return (
        model.ground.add_marker("anchor_left", position=(left, 0, height)),
        model.ground.add_marker("anchor_right", position=(right, 0, height)),
    )


@pytest.mark.parametrize("falls", [2, 4])
def test_block_and_tackle_with_vertical_falls_carries_the_weight_in_equal_parts(falls: int) -> None:
    """Reference: statics of a block and tackle. A block of weight W on ``falls`` vertical falls
    hangs in a rope of tension W / falls. Tolerance: the static residual (1e-10 N) over the
    tension, plus the stiff rope's change of geometry, which keeps the falls vertical."""
    r = 0.05
    lower_x = [0.1 + 0.2 * k for k in range(falls // 2)]
    model, route = _block_model("tackle", lower_x, r, 2.0, 10.0, [x + 0.1 for x in lower_x[:-1]])
    left, right = _anchors(model, lower_x[0] - r, lower_x[-1] + r)
    W = 10.0 * G
    model.add(  # a pretension off the answer keeps the tension-only rope taut at the start of the solve
        mb.Rope(
            "rope", [left, *route, right], diameter=0.01, axial_stiffness=1e6, mass_per_length=0.1, pretension=W / 3
        )
    )
    res = mb.statics(model)
    assert res.force("rope").value[-1] == pytest.approx(W / falls, rel=1e-9)
    rope = res.rope("rope")
    assert rope.tension_at("low0")[-1] == pytest.approx([W / falls] * 2, rel=1e-9)
    assert rope.wrap_angle[-1, 1] == pytest.approx(np.pi, abs=1e-9)  # vertical falls: half a turn


def test_two_inclined_falls_carry_the_weight_over_their_cosine() -> None:
    """Reference: statics of a pulley on two falls inclined by a: T = W / (2 cos a), with a the
    angle of the falls from the vertical measured from the equilibrium geometry (the tangent
    points). Tolerance: the static residual (1e-10 N) relative to T."""
    model, route = _block_model("inclined", [0.0], 0.1, 1.0, 5.0)
    left, right = _anchors(model, -0.8, 0.8)
    model.add(
        mb.Rope("rope", [left, *route, right], diameter=0.01, axial_stiffness=1e5, mass_per_length=0.1, pretension=5.0)
    )
    res = mb.statics(model)
    rope = res.rope("rope")
    X_in = rope.tangent_points[-1, 1, 0]
    left_fall = X_in - np.array([-0.8, 0.0, 0.0])
    cos_a = abs(left_fall[2]) / np.linalg.norm(left_fall)
    assert cos_a < 0.9  # really inclined
    assert rope.tension[-1] == pytest.approx(5.0 * G / (2 * cos_a), rel=1e-9)


def _winch_model(
    reel: float, ramp: float, hold: float, damping: float, EA: float, winch_last: bool = False
) -> tuple[mb.Model, float]:
    """A block on two vertical falls, one end on a drum (radius 0.2 m) that reels in ``reel`` rad
    over a smooth ramp up, a hold and a ramp down, the other anchored on ground. The drum is left
    of the block as the first route point, or right of it as the last (``winch_last``): either way
    the rope runs counterclockwise about its axle (+y), so reeling in is a turn about -y at the
    start of the route and about +y at its end."""
    model, route = _block_model("winch", [0.0], 0.1, 2.0, 10.0)
    side = 1.0 if winch_last else -1.0
    drum = model.add(mb.RigidBody("drum", mass=2.0, inertia=(0.05, 0.05, 0.05), position=(0.3 * side, 0, 0)))
    axle = drum.add_marker("axle", z_axis=Y_AXLE)
    turn = model.add(
        mb.Revolute("drum_axle", axle, model.ground.add_marker("axle_g", position=(0.3 * side, 0, 0), z_axis=Y_AXLE))
    )
    speed = reel / (ramp + hold)

    def spin(t: float) -> float:  # smooth trapezoid of angular velocity [rad/s], area ``reel``
        up = 0.5 * (1 - np.cos(np.pi * np.clip(t / ramp, 0, 1)))
        down = 0.5 * (1 - np.cos(np.pi * np.clip((t - ramp - hold) / ramp, 0, 1)))
        return side * speed * (up - down)

    model.add(mb.Motion("reel", turn, velocity=spin))
    winch = mb.Winch("winch", axle, 0.2)
    anchor = model.ground.add_marker("anchor", position=(-0.1 * side, 0, 0))
    route = [anchor, *route, winch] if winch_last else [winch, *route, anchor]
    model.add(
        mb.Rope("rope", route, diameter=0.01, axial_stiffness=EA, mass_per_length=0.1,
                damping=damping, pretension=10.0 * G / 2)
    )  # fmt: skip
    return model, speed


@pytest.mark.parametrize("winch_last", [False, True])
def test_winch_reeling_in_lifts_the_block_by_the_paid_in_length_over_the_falls(winch_last: bool) -> None:
    """References: the paper's example 1 kinematics for the massless kind (a pulley on two vertical
    falls, one end reeled in at speed v: the pulley centre moves at v/2; its spin is not set by
    a massless frictionless path) and the block and tackle: the block rises by paid-in length / 2.
    The rope starts at its static tension W/2 (pretension), so the only stretch change is
    T dL_free / EA, included. Tolerances: the hold-phase speed, 1e-3 v, is what is left of the
    damped start-up transient; the final rise, 1e-6 m, is integration error (rtol 1e-7) after the
    transient has died out."""
    reel, r_drum, EA = 2 * np.pi, 0.2, 1e6
    model, speed = _winch_model(reel, 0.5, 1.0, damping=2000.0, EA=EA, winch_last=winch_last)
    res = mb.dynamics(model, 3.0, 0.01, rtol=1e-7)
    z = res.body("block").position[:, 2]
    v = res.body("block").velocity[:, 2]
    rope = res.rope("rope")
    paid_in = reel * r_drum
    assert rope.paid_out[-1] == pytest.approx(-paid_in, rel=1e-6)
    hold = (res.time > 1.0) & (res.time < 1.5)
    assert v[hold] == pytest.approx(speed * r_drum / 2, rel=1e-3)
    T = 10.0 * G / 2
    assert z[-1] - z[0] == pytest.approx(paid_in * (1 + T / EA) / 2, abs=1e-6)
    assert rope.tension[-1] == pytest.approx(T, rel=1e-5)


def test_a_winch_lifts_quasi_statically_through_several_turns() -> None:
    """Reference: the block and tackle's statics along a slow lift. Three turns of the drum
    (more than one, so the drum angle must be counted through its wraps) lift the block by
    r theta (1 + T / EA) / 2 at every instant with the tension W / 2. Tolerance: the static
    residual (1e-10 relative), with room for rounding in the path length."""
    reel, r_drum, EA = 6 * np.pi, 0.2, 1e6
    model, _ = _winch_model(reel, 0.5, 1.0, damping=0.0, EA=EA)
    res = mb.quasi_statics(model, 2.0, 0.05)
    T = 10.0 * G / 2
    rope = res.rope("rope")
    z = res.body("block").position[:, 2]
    assert rope.paid_out[-1] == pytest.approx(-reel * r_drum, rel=1e-9)
    assert z - z[0] == pytest.approx(-rope.paid_out * (1 + T / EA) / 2, abs=1e-9)
    assert rope.tension == pytest.approx(T, rel=1e-8)


def test_energy_balance_with_a_winch() -> None:
    """Reference: the energy balance. Work of the drum's motion = change of kinetic, gravity and
    strain energy + damping losses, so total energy + dissipated stays constant (the drum's
    motion is booked in ``dissipated`` with a negative sign as it puts energy in). Tolerance:
    1e-5 of the energy moved (m g h ~ 60 J), the integration error at rtol 1e-8."""
    model, _ = _winch_model(2 * np.pi, 0.3, 0.3, damping=50.0, EA=2e5)
    res = mb.dynamics(model, 1.2, 0.01, rtol=1e-8)
    balance = res.energy["total"] + res.energy["dissipated"]
    moved = res.energy["potential"][-1] - res.energy["potential"][0]
    assert moved > 50.0
    assert np.max(np.abs(balance - balance[0])) < 1e-5 * moved


def test_kane_and_cartesian_formulations_agree_on_a_winch_lift() -> None:
    """Reference: two independent formulations (Cartesian DAE and Kane's equations in the joint
    coordinates) take the same rope loads and must give the same motion. Tolerance: 1e-6 m on the
    block and 1e-5 relative on the tension, a few times the integration error at rtol 1e-8."""
    model, _ = _winch_model(2 * np.pi, 0.3, 0.3, damping=50.0, EA=2e5)
    runs = [mb.dynamics(model, 1.2, 0.01, rtol=1e-8, formulation=f) for f in ("cartesian", "kane")]
    cartesian, kane = (res.body("block").position[:, 2] for res in runs)
    assert np.ptp(cartesian) > 0.5
    assert kane == pytest.approx(cartesian, abs=1e-6)
    assert runs[1].rope("rope").tension == pytest.approx(runs[0].rope("rope").tension, rel=1e-5, abs=1e-3)


def test_mass_on_a_rope_oscillates_at_the_axial_frequency() -> None:
    """Reference: a mass m on a massless rope of length L and stiffness EA oscillates at
    sqrt(EA / (m L)). Released with the rope unstretched it oscillates about its static stretch
    m g L / EA with the same amplitude, the rope never slack. Tolerance: the period from five
    upward mean crossings (interpolated) to 1e-4, the integration phase error at rtol 1e-8."""
    EA, m, L = 1e5, 10.0, 2.0
    model = mb.Model("hanging")
    load = _on_vertical_slide(model, "load", m, L)
    top = model.ground.add_marker("top")
    model.add(mb.Rope("rope", [top, load.add_marker("hook")], diameter=0.01, axial_stiffness=EA, mass_per_length=0.1))
    period = 2 * np.pi * np.sqrt(m * L / EA)
    res = mb.dynamics(model, 6 * period, period / 200, rtol=1e-8)
    z = res.body("load").position[:, 2] + L + m * G * L / EA
    crossings = np.flatnonzero((z[:-1] < 0) & (z[1:] >= 0))
    times = res.time[crossings] - z[crossings] * (res.time[crossings + 1] - res.time[crossings]) / (
        z[crossings + 1] - z[crossings]
    )
    assert len(times) >= 5
    assert np.diff(times).mean() == pytest.approx(period, rel=1e-4)
    assert res.force("rope").value.min() >= 0.0
    assert res.rope("rope").span_length[:, 0].max() == pytest.approx(L + 2 * m * G * L / EA, rel=1e-4)


def test_bad_ropes_are_refused_with_the_element_named() -> None:
    """Reference: the package's input rules (errors name the element and the fix)."""
    model = mb.Model("bad")
    body = model.add(mb.RigidBody("b", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1)))
    a, b = model.ground.add_marker("a"), body.add_marker("m")
    pulley = mb.Pulley("p", body.add_marker("p", z_axis=Y_AXLE), 0.1)
    kwargs = {"diameter": 0.01, "axial_stiffness": 1e5, "mass_per_length": 0.1}
    guide = mb.Pulley("guide", model.ground.add_marker("guide", position=(0.5, 0, 0), z_axis=Y_AXLE), 0.1)
    with pytest.raises(mb.ModelError, match="rope 'r'.*moving-node.*'guide' is on ground.*revolute"):
        mb.Rope("r", [a, guide, b], kind="moving_node", **kwargs)
    with pytest.raises(mb.ModelError, match="rope 'r'.*at least two points"):
        mb.Rope("r", [a], **kwargs)
    with pytest.raises(mb.ModelError, match="rope 'r'.*'m' is in the middle"):
        mb.Rope("r", [a, b, model.ground.add_marker("c")], **kwargs)
    with pytest.raises(mb.ModelError, match="rope 'r'.*pulley 'p' is an end"):
        mb.Rope("r", [pulley, a], **kwargs)
    with pytest.raises(mb.ModelError, match=r"rope 'r'.*\+1.*-1"):
        mb.Rope("r", [a, (pulley, 2), b], **kwargs)
    with pytest.raises(mb.ModelError, match="rope 'r'.*axial_stiffness"):
        mb.Rope("r", [a, b], diameter=0.01, axial_stiffness=0.0, mass_per_length=0.1)
    with pytest.raises(mb.ModelError, match="pulley 'q'.*radius"):
        mb.Pulley("q", b, -0.1)
    with pytest.raises(mb.ModelError, match="winch 'w'.*on ground.*drum's body"):
        mb.Winch("w", a, 0.2)
    with pytest.raises(mb.ModelError, match="rope 'r'.*starts slack.*shorten"):
        mb.Rope("r", [a, b], length=1.5, **kwargs).reeving()
    straight = mb.Rope("r", [a, pulley, model.ground.add_marker("below", position=(0, 0, -2))], **kwargs)
    with pytest.raises(mb.ModelError, match=r"rope 'r'.*straight past pulley 'p'.*\(pulley, \+1\)"):
        straight.reeving()


def test_a_slack_rope_carries_nothing_and_the_mass_flies_freely() -> None:
    """References: ballistic flight and energy conservation. A mass on an unstretched rope thrown
    up at v0 lets the rope go slack: the tension is exactly 0 and the mass follows
    z = -L + v0 t - g t^2 / 2 until it is back at -L (t = 2 v0 / g); the rope then catches it
    elastically and, undamped, gives all its energy back. Tolerances: 1e-6 m on the parabola and
    1e-5 of the energy exchanged, integration error at rtol 1e-8."""
    EA, m, L, v0 = 1e5, 10.0, 2.0, 1.0
    model = mb.Model("thrown")
    load = _on_vertical_slide(model, "load", m, L)
    load.velocity = np.array([0.0, 0.0, v0])
    load.given["velocity"] = True
    model.add(mb.Rope("rope", [model.ground.add_marker("top"), load.add_marker("hook")], 0.01, EA, 0.1))
    flight = 2 * v0 / G
    res = mb.dynamics(model, 1.5 * flight, flight / 100, rtol=1e-8)
    slack = (res.time > 0) & (res.time < flight * 0.999)
    assert np.all(res.force("rope").value[slack] == 0.0)
    t = res.time[slack]
    assert res.body("load").position[slack, 2] == pytest.approx(-L + v0 * t - G * t**2 / 2, abs=1e-6)
    assert res.force("rope").value.max() > m * G  # caught
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-5 * res.energy["kinetic"].max()


def test_a_block_swinging_on_pulleys_in_a_tilted_plane_conserves_energy() -> None:
    """Reference: energy conservation, which holds only if the span loads are the exact gradient
    of the wrapped length: true when every span lies in the planes of the pulleys it touches
    (see the module docstring of ``multibody.model.forces.rope`` on fleet angles). The route lies
    in a plane tilted against every world axis; the block, on a planar joint in that plane,
    carries a pulley and swings and turns under the in-plane part of gravity, the rope over a
    fixed pulley and under the block's. Tolerance: 1e-5 of the energy exchanged, integration
    error at rtol 1e-8 over a few hundred steps."""
    normal = np.array([0.3, 1.0, 0.2]) / np.linalg.norm([0.3, 1.0, 0.2])
    e1 = np.cross((0.0, 0.0, 1.0), normal)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(normal, e1)  # in the plane, upwards
    R_WP = np.column_stack([e1, e2, normal])  # plane axes in world

    def at(x: float, y: float) -> np.ndarray:
        return R_WP @ (x, y, 0.0)

    model = mb.Model("tilted")
    block = model.add(
        mb.RigidBody("block", mass=2.0, inertia=(0.02, 0.03, 0.04), position=at(0.9, -1.0), orientation=R_WP)
    )
    model.add(mb.Planar("plane", block.add_marker("plane"), model.ground.add_marker("plane", orientation=R_WP)))
    fixed = mb.Pulley("fixed", model.ground.add_marker("fixed", position=at(0.2, 0.3), orientation=R_WP), 0.08)
    moving = mb.Pulley("moving", block.add_marker("moving", position=(0.1, 0.1, 0.0)), 0.06)
    route = [model.ground.add_marker("a", position=at(-0.6, 0.0)), fixed, moving]
    route.append(model.ground.add_marker("b", position=at(1.6, 0.2)))
    model.add(mb.Rope("rope", route, 0.01, axial_stiffness=2e4, mass_per_length=0.1, pretension=5.0))
    res = mb.dynamics(model, 1.0, 0.01, rtol=1e-8)
    rope = res.rope("rope")
    assert rope.tension.min() > 0.0  # taut throughout: the law is smooth
    assert np.ptp(res.body("block").angular_velocity @ normal) > 0.1  # it turns as it swings
    X = rope.tangent_points
    assert np.abs((X - X[:, :1, :1]) @ normal).max() < 1e-9  # the path stays in the plane
    balance = res.energy["total"] + res.energy["dissipated"]
    exchanged = res.energy["kinetic"].max() + np.ptp(res.energy["potential"])
    assert np.ptp(balance) < 1e-5 * exchanged


def test_a_rope_that_cannot_be_laid_is_refused_when_the_model_compiles() -> None:
    """Reference: the package's input rules; the geometry is judged in the input configuration."""
    model = mb.Model("slack")
    body = model.add(mb.RigidBody("b", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1)))
    model.add(mb.Rope("r", [model.ground.add_marker("a"), body.add_marker("m")], 0.01, 1e5, 0.1, length=1.2))
    with pytest.raises(mb.ModelError, match=r"rope 'r'.*starts slack.*1\.2 m exceeds.*1 m"):
        model.compile()
    inside = mb.Model("inside")
    body = inside.add(mb.RigidBody("b", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1)))
    pulley = mb.Pulley("p", body.add_marker("p", z_axis=Y_AXLE), 0.5)
    anchor = inside.ground.add_marker("a", position=(0.2, 0, -1.1))
    inside.add(mb.Rope("r", [anchor, pulley, inside.ground.add_marker("c", position=(2, 0, 0))], 0.01, 1e5, 0.1))
    with pytest.raises(mb.ModelError, match="rope 'r'.*no tangent line.*inside the other's circle"):
        inside.compile()


def test_span_loads_are_the_gradient_of_the_path_length() -> None:
    """Reference: finite differences of the path length. Four circles in planes tilted against
    each other (every span leaves its circles' planes: fleet angles up to ~0.35 rad), the first a
    drum whose arc counts from a point fixed in it, each moved as a rigid body by a random twist:
    the rate ``span_sensitivity`` predicts equals the central difference of L (step 1e-6, error
    ~1e-11), while the span directions alone (the loads before the fleet-angle correction) are off
    by more than 1e-2. Tolerance 1e-8: the difference's truncation and the 1e-14 fixed-point tolerance."""
    from scipy.spatial.transform import Rotation

    from multibody.spatial.wrapping import span_sensitivity

    rng = np.random.default_rng(1)
    C = np.array([[0.0, 0.0, 0.0], [2.0, 0.3, -1.0], [3.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    z = np.array([[0.0, 1.0, 0.0], [0.3, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 1.0]])
    z /= np.linalg.norm(z, axis=1)[:, None]
    radius, sense = np.array([0.2, 0.3, 0.2, 0.0]), np.array([1.0, 1.0, -1.0, 0.0])
    reference = np.cross(z[0], (1.0, 0.0, 0.0))  # a direction fixed in the drum

    def length(C: np.ndarray, z: np.ndarray, reference: np.ndarray) -> float:
        _, X_out, spans, wraps = wrapped_path(C, z, radius, sense)
        arm = X_out[0] - C[0]
        drum = np.arctan2(z[0] @ np.cross(reference, arm), reference @ arm)
        return spans.sum() + radius @ wraps + sense[0] * radius[0] * drum

    X_in, X_out, spans, _ = wrapped_path(C, z, radius, sense)
    direction, multiplier = span_sensitivity(C, z, radius, sense, X_in, X_out)
    v, w = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    predicted = along_spans = 0.0
    for k in range(3):
        a, b, delta = k, k + 1, X_in[k + 1] - X_out[k]
        relative = v[b] + np.cross(w[b], X_in[b] - C[b]) - v[a] - np.cross(w[a], X_out[a] - C[a])
        predicted += direction[k] @ relative
        predicted += multiplier[k, 0] * w[a] @ np.cross(X_out[a] - C[a], delta)
        predicted += multiplier[k, 1] * w[b] @ np.cross(X_in[b] - C[b], delta)
        along_spans += delta @ relative / spans[k]

    def moved(h: float) -> float:
        turns = [Rotation.from_rotvec(h * w[k]) for k in range(4)]
        return length(C + h * v, np.array([turns[k].apply(z[k]) for k in range(4)]), turns[0].apply(reference))

    h = 1e-6
    finite_difference = (moved(h) - moved(-h)) / (2 * h)
    assert np.abs(multiplier).max() > 0.1  # really out of plane
    assert predicted == pytest.approx(finite_difference, abs=1e-8)
    assert abs(along_spans - finite_difference) > 1e-2


def test_a_load_swinging_out_of_the_sheave_plane_conserves_energy() -> None:
    """Reference: energy conservation with fleet angles. A 1 kg load hangs on a rope over a sheave
    on a swivel (a body turning freely about the vertical), the rope's other end anchored in the
    sheave's initial plane; released 0.35 m out of that plane the load swings in 3D, turning the
    swivel, so both spans leave the sheave's plane (fleet angles up to ~0.34 rad). With the loads
    the gradient of the wrapped length the balance closes to the integration error (~1e-7 of the
    energy exchanged at rtol 1e-8); the loads T u at the tangent points (no fleet-angle
    correction) leak 2e-3 here. Tolerance 1e-6: the integration error with a margin of 8."""
    model = mb.Model("fleet")
    swivel = model.add(mb.RigidBody("swivel", mass=1.0, inertia=(0.2, 0.2, 0.2)))
    model.add(mb.Revolute("swivel_axis", swivel.add_marker("axis"), model.ground.add_marker("axis")))
    sheave = mb.Pulley("sheave", swivel.add_marker("sheave", z_axis=Y_AXLE), 0.1)
    load = model.add(mb.RigidBody("load", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.1, 0.35, -1.0)))
    anchor = model.ground.add_marker("anchor", position=(-0.6, 0.0, 0.1))
    model.add(mb.Rope("rope", [anchor, sheave, load.add_marker("hook")], 0.01, 1e4, 0.1, pretension=G))
    res = mb.dynamics(model, 1.5, 0.01, rtol=1e-8)
    rope = res.rope("rope")
    X = rope.tangent_points
    hanging = X[:, 2, 0] - X[:, 1, 1]
    fleet = np.arcsin(np.abs(np.einsum("ij,ij->i", hanging, rope.axles[:, 1])) / np.linalg.norm(hanging, axis=1))
    assert fleet.max() > 0.3
    assert np.ptp(res.body("swivel").angular_velocity[:, 2]) > 0.5
    assert rope.tension.min() > 0.0
    balance = res.energy["total"] + res.energy["dissipated"]
    exchanged = res.energy["kinetic"].max() + np.ptp(res.energy["potential"])
    assert np.ptp(balance) < 1e-6 * exchanged


def test_tangent_points_run_round_their_circles_at_the_rates_the_tangency_gives() -> None:
    """Reference: finite differences of the tangent points' angles. Circles tilted against each
    other moved as rigid bodies by a random twist: ``tangent_point_rates`` (the angles in each
    circle's own frame) equals the central difference of the angle of each tangent point measured
    from a direction fixed in its circle. Tolerance 1e-7 rad/s: the difference's truncation
    (step 1e-6) and the fixed-point tolerance."""
    from scipy.spatial.transform import Rotation

    from multibody.spatial.wrapping import tangent_point_rates

    rng = np.random.default_rng(2)
    C = np.array([[0.0, 0.0, 0.0], [2.0, 0.3, -1.0], [3.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    z = np.array([[0.0, 1.0, 0.0], [0.3, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 1.0]])
    z /= np.linalg.norm(z, axis=1)[:, None]
    radius, sense = np.array([0.2, 0.3, 0.2, 0.0]), np.array([1.0, 1.0, -1.0, 0.0])
    reference = np.cross(z, rng.normal(size=(4, 3)))  # a direction fixed in each circle
    v, w = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))

    def angles(h: float) -> np.ndarray:
        turns = [Rotation.from_rotvec(h * w[k]) for k in range(4)]
        Ch = C + h * v
        zh = np.array([turns[k].apply(z[k]) for k in range(4)])
        ref = np.array([turns[k].apply(reference[k]) for k in range(4)])
        X_in, X_out, _, _ = wrapped_path(Ch, zh, radius, sense)
        out = np.zeros((3, 2))
        for k in range(3):
            for side, (c, X) in enumerate(((k, X_out[k]), (k + 1, X_in[k + 1]))):
                arm = X - Ch[c]
                out[k, side] = np.arctan2(zh[c] @ np.cross(ref[c], arm), ref[c] @ arm) if radius[c] else 0.0
        return out

    X_in, X_out, _, _ = wrapped_path(C, z, radius, sense)
    rates = tangent_point_rates(C, z, radius, X_in, X_out, v, w)
    h = 1e-6
    assert rates == pytest.approx((angles(h) - angles(-h)) / (2 * h), abs=1e-7)
    spinning = tangent_point_rates(C, z, radius, X_in, X_out, np.zeros((4, 3)), 3.0 * z)
    assert spinning[:, 0][radius[:3] > 0] == pytest.approx(-3.0)  # a spin under a fixed path
