"""Event-driven dynamics with contact pairs: impacts located on the dense output, sustained contact.

References that cannot be tuned: free fall between impacts and Newton's restitution give the
bouncing ball's impact speeds, impact times and rebound heights in closed form; two identical
pendula colliding elastically exchange their velocities; a resting ball under a force growing
linearly in time leaves the floor when that force equals its weight, then moves as the integral
of a known acceleration; energy is conserved up to the closed-form impact losses.

Tolerances follow from the integrator's error control (as in test_examples.py): each accepted
step commits a local error of at most about ``rtol`` relative to the state, and they add up at
most linearly, so a quantity of size S computed after N steps is good to about ``N rtol S``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import multibody as mb
from multibody.cli import (
    analysis_settings,
    build_model,
    compile_quietly,
    load_model_file,
    main,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
G = 9.81


def load(name: str) -> ModuleType:
    return load_model_file(EXAMPLES / f"{name}.py")


def run(module: ModuleType, **overrides: object) -> tuple[mb.System, mb.Results]:
    settings = analysis_settings(module, overrides)
    system = compile_quietly(build_model(module))
    return system, settings.run(system)


def error_bound(results: mb.Results, size: float) -> float:
    """``N rtol S``: the accumulated local-error bound of a quantity of size ``size``."""
    return results.stats["steps"] * RTOL * size


RTOL = 1e-9
"""Tight enough for the closed forms to be checked to about 1e-6; at 3e-10 the SI2 Newton
iteration meets round-off (increments of eps / rtol in its weighted norm) right after restarts."""


@pytest.fixture(scope="module")
def ball() -> tuple[ModuleType, mb.System, mb.Results]:
    module = load("bouncing_ball")
    system, results = run(module, rtol=RTOL)
    return module, system, results


def test_ball_impact_speeds_and_rebound_heights_follow_restitution(ball) -> None:
    """Impact n comes at speed v_n = e^(n-1) sqrt(2 g h0) and the ball rebounds to
    h_n = (e v_n)^2 / (2 g) = h0 e^(2n); impact n+1 follows 2 e v_n / g later (free flight)."""
    module, system, results = ball
    e, h0 = module.RESTITUTION, module.DROP_HEIGHT
    log = mb.impact_log(results, system)
    assert {record.contact for record in log} == {"floor_contact"}
    bouncing = log[:12]  # the impacts faster than 0.3 m/s
    speeds = np.array([record.speed for record in bouncing])
    times = np.array([record.time for record in bouncing])
    v1 = np.sqrt(2.0 * G * h0)
    n = np.arange(len(bouncing))
    exact = v1 * e**n
    # Every accepted step may commit a position error up to 2 sqrt(14) (atol + rtol |z|) (error
    # constant 1/2 at order 1, after each restart; rms over the 14 state components), and a
    # height error dz moves an impact speed v by g dz / v: over all N steps of the run,
    dz = results.stats["steps"] * 2.0 * np.sqrt(14.0) * RTOL * (1.0 + module.RADIUS + h0)
    tolerance = G * dz / exact
    np.testing.assert_array_less(np.abs(speeds - exact), tolerance)
    rebound = (e * speeds) ** 2 / (2.0 * G)  # free flight from the post-impact speed
    np.testing.assert_array_less(np.abs(rebound - h0 * e ** (2 * (n + 1))), 2 * e**2 * exact * tolerance / G)
    assert times[0] == pytest.approx(np.sqrt(2.0 * h0 / G), abs=tolerance[0] / G)
    np.testing.assert_array_less(np.abs(np.diff(times) - 2.0 * e * speeds[:-1] / G), 4 * tolerance[1:] / G)
    impulses = np.array([record.impulse for record in bouncing])
    np.testing.assert_allclose(impulses, (1.0 + e) * module.MASS * speeds, rtol=1e-12)


def test_ball_comes_to_rest_by_the_zeno_safe_rule(ball) -> None:
    """Zeno-safe: every impact but the last rebounds at e v_n >= rest_velocity; the last one,
    below it, is plastic, and the ball then lies on the floor in sustained contact, the floor
    carrying its weight, from before t_rest = sqrt(2 h0 / g) (1 + 2 e / (1 - e)) (the sum of the
    infinitely many flights it would otherwise make). In exact arithmetic the rule stops after
    n = ceil(log(rest_velocity / v1) / log e) = 38 impacts; the last, millimetre-per-second
    bounces are only rtol-accurate in absolute terms, so the count may end one or two earlier."""
    module, system, results = ball
    e, v1 = module.RESTITUTION, np.sqrt(2.0 * G * module.DROP_HEIGHT)
    log = mb.impact_log(results, system)
    speeds = np.array([record.speed for record in log])
    assert np.all(e * speeds[:-1] >= module.REST_VELOCITY) and e * speeds[-1] < module.REST_VELOCITY
    exact_count = int(np.ceil(np.log(module.REST_VELOCITY / v1) / np.log(e)))
    assert exact_count - 2 <= len(log) <= exact_count
    assert results.stats["impacts"] == len(log) and results.stats["contact_releases"] == 0
    t_rest = np.sqrt(2.0 * module.DROP_HEIGHT / G) * (1.0 + 2.0 * e / (1.0 - e))
    assert log[-1].time < t_rest
    after = results.time > t_rest
    position = results.body("ball").position[after]
    np.testing.assert_allclose(position[:, 2], module.RADIUS, atol=1e-9)
    np.testing.assert_allclose(results.body("ball").velocity[after], 0.0, atol=1e-9)
    np.testing.assert_allclose(results.body("ball").acceleration[after], 0.0, atol=1e-6)


def test_ball_energy_balance_includes_the_impact_losses(ball) -> None:
    """Kinetic + potential + dissipated stays m g (h0 + r); the dissipated energy is the sum of
    the closed-form losses (1 - e^2) m v_n^2 / 2 (the last, plastic, impact loses m v^2 / 2)."""
    module, system, results = ball
    m, e = module.MASS, module.RESTITUTION
    conserved = results.energy["total"] + results.energy["dissipated"]
    initial = m * G * (module.DROP_HEIGHT + module.RADIUS)
    np.testing.assert_allclose(conserved, initial, rtol=0, atol=2 * error_bound(results, initial))
    speeds = np.array([record.speed for record in mb.impact_log(results, system)])
    losses = 0.5 * (1.0 - e**2) * m * speeds[:-1] ** 2
    expected = losses.sum() + 0.5 * m * speeds[-1] ** 2
    assert results.energy["dissipated"][-1] == pytest.approx(expected, abs=2 * error_bound(results, initial))


@pytest.fixture(scope="module")
def cradle() -> tuple[ModuleType, mb.System, mb.Results]:
    module = load("newtons_cradle")
    system, results = run(module, t_end=0.6, rtol=RTOL)
    return module, system, results


def test_newtons_cradle_hands_the_momentum_to_the_last_ball(cradle) -> None:
    """Ball 1 arrives at v = sqrt(2 g L (1 - cos a) / (1 + J / (m L^2))) (energy, the ball turning
    with its string); each elastic impact of two identical pendula exchanges their velocities
    with impulse m_eff v, m_eff = m + J / L^2. Balls 1 and 2
    end at rest and ball 3 leaves at v. The residual of the exchange is of the order of v times
    the tilt of the line of centres at impact, GAP / L = 2e-6 (the balls are GAP apart), plus
    ball 1's swing back from that angle, g (GAP / L) t, over the 0.24 s to the end."""
    module, system, results = cradle
    L, m = module.STRING, module.MASS
    m_eff = m + 0.4 * m * module.RADIUS**2 / L**2
    v = np.sqrt(2.0 * G * L * (1.0 - np.cos(module.RELEASE_ANGLE)) * m / m_eff)
    log = mb.impact_log(results, system)
    assert [record.contact for record in log] == ["ball1_ball2", "ball2_ball3"]
    tilt = module.GAP / L
    for record in log:
        assert record.speed == pytest.approx(v, abs=10 * tilt * v)
        assert record.impulse == pytest.approx(m_eff * v, abs=10 * tilt * m_eff * v)
    just_after = np.searchsorted(results.time, log[-1].time) + 1
    for name in ("ball1", "ball2"):
        np.testing.assert_allclose(results.body(name).velocity[just_after], 0.0, atol=10 * tilt * v)
    speed_3 = np.linalg.norm(results.body("ball3").velocity[just_after])
    # ball 3 has risen for at most one output step after the impact: v^2 - 2 g dz
    dz = results.body("ball3").position[just_after, 2] + L
    assert speed_3 == pytest.approx(np.sqrt(v**2 - 2.0 * G * dz), abs=10 * tilt * v)


def test_newtons_cradle_conserves_energy(cradle) -> None:
    """e = 1 everywhere: no energy leaves at the impacts, nothing is dissipated."""
    _, _, results = cradle
    conserved = results.energy["total"] + results.energy["dissipated"]
    scale = results.energy["kinetic"].max()
    np.testing.assert_allclose(conserved, conserved[0], rtol=0, atol=2 * error_bound(results, scale))
    assert abs(results.energy["dissipated"][-1]) < 2 * error_bound(results, scale)


def resting_ball_lifted(force_rate: float) -> mb.Model:
    """A 1 kg ball resting on the floor, pulled up by a force ``force_rate * t`` [N]."""
    model = mb.Model("lifted_ball")
    radius, mass = 0.05, 1.0
    inertia = 0.4 * mass * radius**2
    ball = model.add(
        mb.RigidBody(
            "ball",
            mass,
            (inertia,) * 3,
            position=(0.0, 0.0, radius),
            velocity=(0.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, 0.0),
            exact=("z",),
        )
    )
    center = ball.add_marker("center")
    model.add(mb.SpherePlaneContact("floor", center, radius, model.ground.add_marker("floor"), restitution=0.5))
    model.add(mb.PointForce("lift", center, lambda t: (0.0, 0.0, force_rate * t)))
    return model


def test_sustained_contact_releases_when_the_floor_would_pull() -> None:
    """The floor pushes with m g - k t until t* = m g / k; the ball then leaves with acceleration
    (k / m)(t - t*), so its height is r + k (t - t*)^3 / (6 m). Before t* it must not move."""
    k = 20.0
    model = resting_ball_lifted(k)
    t_star = G / k
    results = mb.dynamics(model, 1.0, 0.01, method="SI2", rtol=RTOL)
    assert results.stats["impacts"] == 0
    assert results.stats["contact_releases"] == 1
    z = results.body("ball").position[:, 2]
    t = results.time
    expected = 0.05 + k * np.clip(t - t_star, 0.0, None) ** 3 / 6.0
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-8)


def test_two_free_spheres_exchange_their_normal_velocity() -> None:
    """Two equal free spheres (no gravity), e = 1, oblique approach: the components along the
    line of centres at contact are exchanged, the tangential ones kept (frictionless)."""
    model = mb.Model("spheres", gravity=(0.0, 0.0, 0.0))
    radius, mass = 0.1, 2.0
    inertia = (0.4 * mass * radius**2,) * 3
    a = model.add(mb.RigidBody("a", mass, inertia, position=(0.0, 0.0, 0.0), velocity=(1.0, 0.0, 0.0)))
    b = model.add(mb.RigidBody("b", mass, inertia, position=(0.5, 0.1, 0.0), velocity=(0.0, 0.0, 0.0)))
    model.add(mb.SphereSphereContact("touch", b.add_marker("c"), radius, a.add_marker("c"), radius, restitution=1.0))
    results = mb.dynamics(model, 0.6, 0.05, method="SI2", rtol=RTOL)
    (record,) = mb.impact_log(results, model)
    # a travels along x until |p_b - p_a| = 2 r: x = 0.5 - sqrt(0.04 - 0.01)
    x_contact = 0.5 - np.sqrt((2 * radius) ** 2 - 0.1**2)
    assert record.time == pytest.approx(x_contact / 1.0, abs=1e-9)
    normal = np.array([0.5 - x_contact, 0.1, 0.0]) / (2 * radius)
    v_a = np.array([1.0, 0.0, 0.0]) - normal * normal[0]
    v_b = normal * normal[0]
    np.testing.assert_allclose(results.body("a").velocity[-1], v_a, atol=1e-9)
    np.testing.assert_allclose(results.body("b").velocity[-1], v_b, atol=1e-9)
    assert record.impulse == pytest.approx(mass * normal[0], rel=1e-9)


def test_interpenetrating_start_is_refused_naming_the_contact() -> None:
    model = resting_ball_lifted(0.0)
    model.bodies["ball"].position[2] = 0.04
    model.bodies["ball"].exact = ("z",)
    with pytest.raises(ValueError, match="contact 'floor' starts interpenetrating by 0.01 m"):
        mb.dynamics(model, 0.1, 0.01)


def test_contact_pairs_validate_their_input() -> None:
    model = mb.Model("bad")
    body = model.add(mb.RigidBody("body", 1.0, (1.0, 1.0, 1.0)))
    plane = model.ground.add_marker("plane")
    with pytest.raises(mb.ModelError, match="contact 'c1': coefficient of restitution must be in \\[0, 1\\]"):
        mb.PointPlaneContact("c1", body.add_marker("p"), plane, restitution=1.5)
    with pytest.raises(mb.ModelError, match="contact 'c2': radius must be a positive length"):
        mb.SpherePlaneContact("c2", body.marker("p"), -1.0, plane, 0.5)
    with pytest.raises(mb.ModelError, match="both on body 'body'"):
        mb.SphereSphereContact("c4", body.marker("p"), 0.1, body.add_marker("q"), 0.1, 0.5)
    with pytest.raises(mb.ModelError, match="rest_velocity must be a non-negative speed"):
        mb.PointPlaneContact("c5", body.marker("p"), plane, 0.5, rest_velocity=-1.0)


def test_kane_formulation_refuses_contact_pairs() -> None:
    module = load("bouncing_ball")
    with pytest.raises(ValueError, match="event-driven contact needs formulation='cartesian'"):
        mb.dynamics(module.build(), 0.1, 0.01, formulation="kane")


def test_contact_free_models_run_as_before() -> None:
    """Without contact pairs the event-driven integrator is the plain BDF run: the stats carry
    no impact entries (the pendulum example's physics is checked in test_examples.py)."""
    module = load("pendulum")
    settings = analysis_settings(module, {})
    results = dataclasses.replace(settings, t_end=0.05).run(compile_quietly(build_model(module)))
    assert "impacts" not in results.stats and results.status == "complete"


def test_multibody_info_lists_the_contact_pairs(capsys) -> None:
    assert main(["info", str(EXAMPLES / "newtons_cradle.py")]) == 0
    out = capsys.readouterr().out
    assert "contacts:\n  ball1_ball2: SphereSphereContact I=ball2/center J=ball1/center e=1" in out


def test_pinned_rod_bounces_off_a_wall_with_a_point_plane_contact() -> None:
    """A rod (L = 1 m) pinned at its top end, released from horizontal, strikes a wall (the plane
    x = 0, normal +x) with its tip when vertical: tip speed v1 = sqrt(3 g L) (energy, I_O = m L^2 / 3),
    impulse (1 + e) (I_O / L^2) v1 (effective mass at the tip). It swings back out and returns with
    the same speed it left with (no losses in flight), so the second impact comes at e v1, and
    the stored energy balance holds across both impacts."""
    length, mass, e = 1.0, 2.0, 0.5
    model = mb.Model("rod_and_wall")
    transverse = mass * length**2 / 12.0
    rod = model.add(
        mb.RigidBody(
            "rod", mass, (1e-6, transverse, transverse), position=(0.5 * length, 0.0, 0.0), velocity=(0.0, 0.0, 0.0)
        )
    )
    hinge = rod.add_marker("hinge", position=(-0.5 * length, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0))
    model.add(mb.Revolute("pin", hinge, model.ground.add_marker("pin", z_axis=(0.0, 1.0, 0.0))))
    tip = rod.add_marker("tip", position=(0.5 * length, 0.0, 0.0))
    model.add(mb.PointPlaneContact("wall", tip, model.ground.add_marker("wall", z_axis=(1.0, 0.0, 0.0)), e))
    results = mb.dynamics(model, 1.5, 0.01, method="SI2", rtol=RTOL)
    log = mb.impact_log(results, model)
    v1 = np.sqrt(3.0 * G * length)
    assert len(log) >= 2
    tolerance = error_bound(results, v1)
    assert log[0].speed == pytest.approx(v1, abs=tolerance)
    assert log[0].impulse == pytest.approx((1.0 + e) * mass / 3.0 * log[0].speed, rel=1e-12)
    assert log[1].speed == pytest.approx(e * log[0].speed, abs=tolerance)
    conserved = results.energy["total"] + results.energy["dissipated"]
    np.testing.assert_allclose(conserved, conserved[0], rtol=0, atol=2 * error_bound(results, mass * G * length))


def test_sphere_meets_a_plane_on_a_moving_body() -> None:
    """A ball (1 kg) and a free plate (3 kg) approach along z without gravity, the ball above the
    plate's centre: the gap closes at the relative speed, and the collision follows the 1-D closed
    form with the reduced mass: P = (1 + e) mu v_rel, the ball leaving at v_b + P / m_b etc."""
    model = mb.Model("ball_and_plate", gravity=(0.0, 0.0, 0.0))
    radius, e = 0.1, 0.6
    m_ball, m_plate, v_ball, v_plate = 1.0, 3.0, -2.0, 1.0
    ball = model.add(mb.RigidBody("ball", m_ball, (0.004,) * 3, position=(0.0, 0.0, 0.5), velocity=(0.0, 0.0, v_ball)))
    plate = model.add(
        mb.RigidBody("plate", m_plate, (1.0, 1.0, 2.0), position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, v_plate))
    )
    top = plate.add_marker("top", position=(0.0, 0.0, 0.05))
    model.add(mb.SpherePlaneContact("landing", ball.add_marker("center"), radius, top, e))
    results = mb.dynamics(model, 0.3, 0.01, method="SI2", rtol=RTOL)
    (record,) = mb.impact_log(results, model)
    gap0 = 0.5 - 0.05 - radius
    assert record.time == pytest.approx(gap0 / (v_plate - v_ball), abs=1e-9)
    mu = m_ball * m_plate / (m_ball + m_plate)
    impulse = (1.0 + e) * mu * (v_plate - v_ball)
    assert record.impulse == pytest.approx(impulse, rel=1e-9)
    np.testing.assert_allclose(results.body("ball").velocity[-1], [0.0, 0.0, v_ball + impulse / m_ball], atol=1e-9)
    np.testing.assert_allclose(results.body("plate").velocity[-1], [0.0, 0.0, v_plate - impulse / m_plate], atol=1e-9)
    np.testing.assert_allclose(results.body("plate").angular_velocity[-1], 0.0, atol=1e-9)
