"""Compliant contact (``mb.Contact``) between placed shapes, against closed forms:

- a sphere resting on a plane: penetration (m g / k)^(1/e) (equilibrium of k d^e = m g); a box
  resting flat: each of its four corners carries m g / 4;
- a sphere striking a plane (no gravity, no damping, exponent 3/2): Hertz's impact, with
  largest penetration x_m = ((e + 1) m v^2 / (2 k))^(1/(e+1)) and duration
  2 (x_m / v) sqrt(pi) Gamma(1 + 1/(e+1)) / Gamma(1/2 + 1/(e+1)) (energy integral of m x'' = -k x^e);
- POISSON: the rebound speed is the restitution times the impact speed;
- Hunt-Crossley F = k x^e (1 + alpha x'): the rebound speed v_r solves
  alpha (v + v_r) = ln((1 + alpha v) / (1 - alpha v_r)) (energy integral; independent of k and e);
- a ball thrown sliding without spin on a plane: friction conserves its angular momentum about
  the contact point, so it rolls at 5/7 of the throw speed from t = 2 v / (7 mu g);
- a ball rolling down an incline: acceleration 5/7 g sin(phi);
- a box dropped corner first comes to rest flat, and the energy lost is the contact's work.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import gamma

import multibody as mb

RADIUS, MASS = 0.05, 1.0
SPHERE_INERTIA = 0.4 * MASS * RADIUS**2


def ball_on_floor(height: float, velocity=(0.0, 0.0, 0.0), gravity: float = 9.81, tilt: float = 0.0, **law) -> mb.Model:
    """A solid ball (radius 0.05 m, 1 kg) whose centre is ``height`` above a floor plane through
    the origin (tilted by ``tilt`` about world y), moving at ``velocity``."""
    model = mb.Model("ball", gravity=(0.0, 0.0, -gravity))
    normal = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    ball = model.add(mb.RigidBody("ball", MASS, (SPHERE_INERTIA,) * 3, position=height * normal, velocity=velocity))
    sphere = ball.add_shape(mb.Sphere(RADIUS), ball.add_marker("centre"))
    floor = model.ground.add_shape(mb.Plane(), model.ground.add_marker("floor", z_axis=normal))
    model.add(mb.Contact("touch", sphere, floor, **law))
    return model


def test_sphere_rests_at_the_static_penetration() -> None:
    k, e = 1e5, 1.5
    results = mb.dynamics(
        ball_on_floor(RADIUS, law="impact", stiffness=k, exponent=e, damping=50.0, penetration_depth=1e-4), 1.0, 0.1
    )
    penetration = RADIUS - results.body("ball").position[-1, 2]
    # Settled (damped within 1 s): k d^e = m g to the integrator's tolerance. The depth is the
    # difference of two lengths of 0.05 m, each good to rtol 1e-6 of that: 5e-8 m, 2.4e-5 of the
    # 2.1 mm depth; the force k d^e carries e times that relative error.
    static = (MASS * 9.81 / k) ** (1.0 / e)
    assert penetration == pytest.approx(static, abs=1e-6 * RADIUS)
    assert results.force("touch").value[-1] == pytest.approx(MASS * 9.81, rel=e * 1e-6 * RADIUS / static)


def bounce(v: float, output_step: float, **law) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Time, penetration and vertical speed of a ball striking the floor at ``v`` without gravity
    (it starts 1 mm above)."""
    model = ball_on_floor(RADIUS + 1e-3, velocity=(0.0, 0.0, -v), gravity=0.0, **law)
    results = mb.dynamics(model, 0.05, output_step, rtol=1e-8)
    return results.time, RADIUS - results.body("ball").position[:, 2], results.body("ball").velocity[:, 2]


def test_hertz_impact_penetration_and_duration() -> None:
    k, e, v = 1e6, 1.5, 1.0
    t, penetration, speed = bounce(v, 1e-4, law="impact", stiffness=k, exponent=e, damping=0.0)
    x_max = ((e + 1.0) * MASS * v**2 / (2.0 * k)) ** (1.0 / (e + 1.0))
    a = 1.0 / (e + 1.0)
    duration = 2.0 * x_max / v * np.sqrt(np.pi) * gamma(1.0 + a) / gamma(0.5 + a)
    # Sampled every 0.1 ms near a flat maximum (curvature k x_m^e / m): 1e-4 relative error at most.
    assert np.max(penetration) == pytest.approx(x_max, rel=1e-4)
    # Contact starts at 1 mm / v = 1 ms; it ends where the penetration crosses zero again
    # (linear there, so linear interpolation between frames is accurate to ~1e-7 s).
    leaving = np.flatnonzero((penetration[:-1] > 0.0) & (penetration[1:] <= 0.0))[0]
    end = np.interp(0.0, [-penetration[leaving], -penetration[leaving + 1]], t[leaving : leaving + 2])
    assert end - 1e-3 == pytest.approx(duration, rel=1e-4)
    # Elastic: it leaves at the impact speed.
    assert speed[-1] == pytest.approx(v, rel=1e-5)


def test_poisson_rebound_is_restitution_times_impact_speed() -> None:
    for restitution in (0.3, 0.8):
        _, _, speed = bounce(1.0, 1e-3, law="poisson", stiffness=1e6, exponent=1.0, restitution=restitution)
        # The law blends its two stiffnesses over 1e-4 m/s of penetration rate around the turning
        # point: an energy error of order (1e-4 / 1)^1, hence 1e-3.
        assert speed[-1] == pytest.approx(restitution * 1.0, rel=1e-3)


def test_hunt_crossley_rebound_speed() -> None:
    alpha, v = 0.3, 1.0
    _, _, speed = bounce(v, 1e-3, law="hunt_crossley", stiffness=1e6, exponent=1.5, damping=alpha)
    rebound = brentq(
        lambda r: alpha * (v + r) - np.log((1.0 + alpha * v) / (1.0 - alpha * r)), 1e-9, 1.0 / alpha - 1e-9
    )
    assert speed[-1] == pytest.approx(rebound, rel=1e-5)
    assert rebound < 0.9 * v  # the damping matters: the check is not the elastic one


def resting_height(k: float, e: float, load: float = MASS * 9.81) -> float:
    return RADIUS - (load / k) ** (1.0 / e)


def test_ball_thrown_sliding_rolls_at_five_sevenths() -> None:
    k, e, mu, v0 = 1e8, 1.5, 0.2, 2.0
    model = ball_on_floor(
        resting_height(k, e),
        velocity=(v0, 0.0, 0.0),
        law="impact",
        stiffness=k,
        exponent=e,
        damping=2e3,
        mu_static=mu,
        mu_dynamic=mu,
    )
    results = mb.dynamics(model, 1.0, 0.005)
    t = results.time
    v = results.body("ball").velocity[:, 0]
    w = results.body("ball").angular_velocity[:, 1]
    # Rolling radius r - d/2 (the contact point sits mid-penetration): d / r = 2e-4 here.
    assert v[-1] == pytest.approx(5.0 / 7.0 * v0, rel=3e-4)
    assert w[-1] * RADIUS == pytest.approx(v[-1], rel=3e-4)
    # Slides at mu g until then: the speed reaches 5/7 v0 at t = 2 v0 / (7 mu g).
    rolling_from = 2.0 * v0 / (7.0 * mu * 9.81)
    sliding = t < rolling_from - 0.02
    assert v[sliding] == pytest.approx(v0 - mu * 9.81 * t[sliding], rel=1e-3)
    assert np.interp(5.0 / 7.0 * v0 + 1e-3, v[::-1], t[::-1]) == pytest.approx(rolling_from, abs=0.01)
    # res.contact: sliding at the start, then rolling (sticking, slip within the stiction speed),
    # resting on its static penetration with the contact point under the centre.
    contact = results.contact("touch")
    assert np.all(contact.mode[sliding] == mb.CONTACT_MODES.index("sliding"))
    assert np.all(contact.mode[t > rolling_from + 0.1] == mb.CONTACT_MODES.index("sticking"))
    assert contact.penetration[-1] == pytest.approx((MASS * 9.81 / k) ** (1.0 / e), rel=1e-4)
    centre = results.body("ball").position[-1]
    assert contact.point[-1] == pytest.approx(centre - [0.0, 0.0, RADIUS - contact.penetration[-1] / 2], abs=1e-9)
    assert contact.normal[-1] == pytest.approx([0.0, 0.0, 1.0])
    assert contact.friction_force[sliding, 0] == pytest.approx(-mu * contact.normal_force[sliding], rel=1e-6)


def test_ball_rolls_down_an_incline_at_five_sevenths_g_sin() -> None:
    k, e, phi = 1e8, 1.5, np.radians(15.0)
    height = resting_height(k, e, MASS * 9.81 * np.cos(phi))
    model = ball_on_floor(
        height,
        tilt=phi,
        law="impact",
        stiffness=k,
        exponent=e,
        damping=2e3,
        mu_static=0.5,
        mu_dynamic=0.4,
    )
    results = mb.dynamics(model, 0.5, 0.01)
    t = results.time
    downhill = np.array([np.cos(phi), 0.0, -np.sin(phi)])
    speed = results.body("ball").velocity @ downhill
    later = t >= 0.1
    slope, _ = np.polyfit(t[later], speed[later], 1)
    # Rolls without slip (needs mu >= 2/7 tan(phi) = 0.077): a = 5/7 g sin(phi), up to the
    # rolling radius r - d/2 (d / r = 2e-4).
    assert slope == pytest.approx(5.0 / 7.0 * 9.81 * np.sin(phi), rel=3e-4)


def box_model(orientation=None, height: float = 0.2, **law) -> mb.Model:
    model = mb.Model("box")
    size = np.array([0.2, 0.1, 0.05])
    inertia = (
        MASS / 12.0 * np.array([size[1] ** 2 + size[2] ** 2, size[0] ** 2 + size[2] ** 2, size[0] ** 2 + size[1] ** 2])
    )
    box = model.add(mb.RigidBody("box", MASS, inertia, position=(0.0, 0.0, height), orientation=orientation))
    shape = box.add_shape(mb.Box(size))
    floor = model.ground.add_shape(mb.Plane(), model.ground.add_marker("floor"))
    model.add(mb.Contact("floor_contact", shape, floor, **law))
    return model


def test_box_resting_flat_shares_its_weight_over_four_corners() -> None:
    k, e = 1e6, 1.0
    depth = MASS * 9.81 / (4.0 * k)
    model = box_model(height=0.025 - depth, law="impact", stiffness=k, exponent=e, damping=100.0)
    results = mb.dynamics(model, 0.5, 0.05)
    assert results.body("box").position[-1, 2] == pytest.approx(0.025 - depth, abs=1e-9)
    assert results.force("floor_contact").value[-1] == pytest.approx(MASS * 9.81, rel=1e-6)


def test_box_dropped_corner_first_comes_to_rest_flat_and_loses_the_contact_work() -> None:
    from multibody.spatial.rotations import rotation_from_axes

    tilted = rotation_from_axes(np.array([0.3, 0.4, 1.0]))
    model = box_model(
        orientation=tilted,
        height=0.15,
        law="impact",
        stiffness=1e6,
        exponent=1.5,
        damping=300.0,
        penetration_depth=1e-3,
        mu_static=0.5,
        mu_dynamic=0.4,
    )
    results = mb.dynamics(model, 2.0, 0.01)
    R_WB = results.body("box").rotation[-1]
    # Flat: one body axis vertical (the box may land on any face).
    assert np.max(np.abs(R_WB[2])) == pytest.approx(1.0, abs=1e-6)
    assert np.linalg.norm(results.body("box").velocity[-1]) < 1e-4
    # The energy lost is what the contact took out: total + dissipated stays constant.
    balance = results.energy["total"] + results.energy["dissipated"]
    lost = results.energy["total"][0] - results.energy["total"][-1]
    assert lost > 0.1
    assert np.max(np.abs(balance - balance[0])) < 1e-3 * lost
    # At rest on a face, four corners carry it: the contact point is under the centre of mass.
    contact = results.contact("floor_contact")
    assert contact.normal_force[-1] == pytest.approx(MASS * 9.81, rel=1e-4)
    assert contact.point[-1, :2] == pytest.approx(results.body("box").position[-1, :2], abs=1e-6)


def test_contact_history_survives_the_results_file(tmp_path) -> None:
    model = ball_on_floor(RADIUS, law="impact", stiffness=1e5, exponent=1.5, damping=50.0)
    results = mb.dynamics(model, 0.1, 0.05, output=str(tmp_path / "ball.h5"))
    loaded = mb.Results.load(tmp_path / "ball.h5")
    assert loaded.contact("touch").penetration == pytest.approx(results.contact("touch").penetration)
    assert loaded.channel("touch.penetration") == pytest.approx(results.contact("touch").penetration)
    assert loaded.channel("touch.value") == pytest.approx(results.force("touch").value)


def test_capsules_collide_head_on_and_conserve_momentum() -> None:
    """Two capsules crossing at right angles meet on their axes' closest points; POISSON with
    e = 0.6 between equal masses: each leaves with -(1 - e)/2 ... the exchange 1D impact gives."""
    model = mb.Model("capsules", gravity=(0.0, 0.0, 0.0))
    v = 1.0
    first = model.add(mb.RigidBody("first", 1.0, (0.01, 0.01, 0.01), position=(0.0, 0.0, 0.0), velocity=(v, 0.0, 0.0)))
    second = model.add(mb.RigidBody("second", 1.0, (0.01, 0.01, 0.01), position=(0.102, 0.0, 0.0)))
    a = first.add_shape(mb.Capsule(0.05, 0.3), first.add_marker("axis", z_axis=(0.0, 1.0, 0.0)))
    b = second.add_shape(mb.Capsule(0.05, 0.3), second.add_marker("axis", z_axis=(0.0, 0.0, 1.0)))
    model.add(mb.Contact("knock", a, b, law="poisson", stiffness=1e6, exponent=1.0, restitution=0.6))
    results = mb.dynamics(model, 0.05, 0.01, rtol=1e-8)
    v1, v2 = results.body("first").velocity[-1, 0], results.body("second").velocity[-1, 0]
    assert v1 + v2 == pytest.approx(v, rel=1e-9)  # momentum
    assert v2 - v1 == pytest.approx(0.6 * v, rel=1e-3)  # restitution (the POISSON blend: 1e-3)


def test_contact_errors_name_the_element_and_the_fix() -> None:
    model = mb.Model("errors")
    body = model.add(mb.RigidBody("body", 1.0, (0.1, 0.1, 0.1)))
    sphere = body.add_shape(mb.Sphere(0.1))
    box = body.add_shape(mb.Box((0.1, 0.1, 0.1)))
    floor = model.ground.add_shape(mb.Plane())
    ground_box = model.ground.add_shape(mb.Box((1.0, 1.0, 0.1)))
    with pytest.raises(mb.ModelError, match="force 'c'.*a Box and a Box is not supported; supported pairs"):
        mb.Contact("c", box, ground_box)
    with pytest.raises(mb.ModelError, match="force 'c'.*both geometries are on"):
        mb.Contact("c", sphere, body.add_shape(mb.Sphere(0.2)))
    with pytest.raises(mb.ModelError, match="force 'c'.*placed shape"):
        mb.Contact("c", mb.Sphere(0.1), floor)
    with pytest.raises(mb.ModelError, match="force 'c'.*stiffness must be > 0"):
        mb.Contact("c", sphere, floor, stiffness=-1.0)
    with pytest.raises(mb.ModelError, match="force 'c'.*POISSON law needs restitution"):
        mb.Contact("c", sphere, floor, law="poisson")
    with pytest.raises(mb.ModelError, match="force 'c'.*mu_dynamic .* exceeds mu_static"):
        mb.Contact("c", sphere, floor, mu_static=0.1, mu_dynamic=0.2)
    with pytest.raises(mb.ModelError, match="force 'c'.*law must be one of"):
        mb.Contact("c", sphere, floor, law="hertz")
    assert "c.i_geometry" not in body.markers  # a rejected contact leaves the body as it was
    with pytest.raises(mb.ModelError, match="plane shape: a plane has no volume"):
        mb.RigidBody.from_shape("slab", mb.Plane(), density=1000.0)


def cylinder_model(orientation, height: float, velocity=(0.0, 0.0, 0.0), tilt: float = 0.0) -> mb.Model:
    """A solid cylinder (radius 0.05 m, length 0.2 m, 1 kg) above a floor through the origin."""
    radius, length = 0.05, 0.2
    axial, transverse = 0.5 * MASS * radius**2, MASS * (3.0 * radius**2 + length**2) / 12.0
    model = mb.Model("cylinder")
    normal = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    body = model.add(
        mb.RigidBody(
            "cylinder",
            MASS,
            (transverse, transverse, axial),
            position=height * normal,
            orientation=orientation,
            velocity=velocity,
        )
    )
    shape = body.add_shape(mb.Cylinder(radius, length))
    floor = model.ground.add_shape(mb.Plane(), model.ground.add_marker("floor", z_axis=normal))
    model.add(
        mb.Contact(
            "touch",
            shape,
            floor,
            stiffness=1e6,  # static depth 2.5e-6 m: well above Newton's finite-difference steps (1e-7 m)
            exponent=1.0,
            damping=200.0,
            penetration_depth=1e-6,
            mu_static=0.5,
            mu_dynamic=0.4,
        )
    )
    return model


def test_cylinder_standing_on_its_cap_rests_on_four_rim_points() -> None:
    depth = MASS * 9.81 / (4.0 * 1e6)
    results = mb.dynamics(cylinder_model(None, 0.1 - depth), 0.2, 0.05)
    assert results.body("cylinder").position[-1, 2] == pytest.approx(0.1 - depth, abs=1e-10)
    assert results.contact("touch").normal_force[-1] == pytest.approx(MASS * 9.81, rel=1e-6)


def test_cylinder_rolls_down_an_incline_at_two_thirds_g_sin() -> None:
    """Lying on its side (axis along world y), it rolls on its two rim ends: a = g sin / (1 +
    I / (m r^2)) = 2/3 g sin(phi) for a solid cylinder, up to the rolling radius r - d/2."""
    from multibody.spatial.rotations import rotation_from_axes

    phi = np.radians(15.0)
    depth = MASS * 9.81 * np.cos(phi) / (2.0 * 1e6)
    results = mb.dynamics(
        cylinder_model(rotation_from_axes(np.array([0.0, 1.0, 0.0])), 0.05 - depth, tilt=phi), 0.4, 0.01
    )
    downhill = np.array([np.cos(phi), 0.0, -np.sin(phi)])
    speed = results.body("cylinder").velocity @ downhill
    later = results.time >= 0.1
    slope, _ = np.polyfit(results.time[later], speed[later], 1)
    assert slope == pytest.approx(2.0 / 3.0 * 9.81 * np.sin(phi), rel=3e-4)


@pytest.mark.parametrize("method", ["SI2", "HHT"])
def test_the_step_size_control_does_not_jump_over_a_thin_post(method: str) -> None:
    """A 1 cm ball at 10 m/s flies 1 m of free flight towards a 1 cm post: BDF's and HHT's steps
    would grow far beyond the 2 ms it takes to cross the post, but the contact family's step
    limit (``contact.approach_step_limit``: no step carries an approaching pair more than a
    quarter radius into contact) makes the touch seen. Reference: POISSON returns the ball at e
    times its speed (1e-3: the law's regularization over the short contact)."""
    model = mb.Model("post", gravity=(0.0, 0.0, 0.0))
    ball = model.add(mb.RigidBody("ball", 1.0, (1e-3,) * 3, position=(-1.0, 0.0, 0.0), velocity=(10.0, 0.0, 0.0)))
    shape = ball.add_shape(mb.Sphere(0.01), ball.add_marker("centre"))
    post = model.ground.add_shape(mb.Sphere(0.01), model.ground.add_marker("post"))
    model.add(mb.Contact("hit", shape, post, law="poisson", stiffness=1e6, exponent=1.0, restitution=0.9))
    results = mb.dynamics(model, 0.3, 0.1, rtol=1e-8, method=method)
    assert results.body("ball").velocity[-1, 0] == pytest.approx(-0.9 * 10.0, rel=1e-3)
