"""Joint friction (``mb.JointFriction``): Coulomb friction loaded by the joint's reaction, with a
bristle state that holds stiction without drift.

References (closed forms of Coulomb friction, which the element must reach in steady sliding):
- a block on a translational joint down an incline of angle phi: it sticks when tan(phi) < mu_s,
  with a bristle deflection of max_stiction_deformation tan(phi) / mu_s and no slip at all; it
  slides when tan(phi) > mu_s with acceleration g (sin phi - mu_d cos phi), and the energy taken
  out is mu_d m g cos(phi) times the distance slid;
- a flywheel on a revolute whose weight loads a pin of radius r: friction torque mu_d r m g,
  deceleration mu_d r m g / J, run-down time omega_0 J / (mu_d r m g).
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb

G = 9.81
MU_STATIC, MU_DYNAMIC = 0.5, 0.3
STICTION_VELOCITY = 1e-3
DEFORMATION = 1e-4


def incline(angle: float, speed: float = 0.0) -> tuple[mb.Model, np.ndarray]:
    """A 2 kg block on a translational joint along the downhill direction (unit vector returned)."""
    model = mb.Model("incline", gravity=(0.0, 0.0, -G))
    downhill = np.array([np.cos(angle), 0.0, -np.sin(angle)])
    block = model.add(mb.RigidBody("block", 2.0, (0.1, 0.1, 0.1), velocity=speed * downhill))
    slide = model.add(
        mb.Translational(
            "slide", block.add_marker("slide", z_axis=downhill), model.ground.add_marker("slide", z_axis=downhill)
        )
    )
    model.add(
        mb.JointFriction(
            "friction", slide, MU_STATIC, MU_DYNAMIC, STICTION_VELOCITY, max_stiction_deformation=DEFORMATION
        )
    )
    return model, downhill


def test_block_below_the_friction_angle_sticks_for_ten_seconds_without_creep() -> None:
    angle = np.radians(20.0)  # tan = 0.364 < mu_s = 0.5
    model, downhill = incline(angle)
    results = mb.dynamics(model, 10.0, 0.05)
    travel = results.body("block").position @ downhill
    bristle = results.state("friction")[:, 0]
    # Sticking is elastic: the block moves only by the bristle's deflection, never beyond it.
    assert np.max(np.abs(travel)) < DEFORMATION
    # No slip: the travel is the bristle deflection (to the integrator's tolerance on 1e-4 m).
    assert np.max(np.abs(travel - bristle)) < 1e-8
    # Settled at the closed-form deflection z_max tan(phi) / mu_s, and no creep over the last 9 s.
    late = results.time >= 1.0
    assert travel[late] == pytest.approx(DEFORMATION * np.tan(angle) / MU_STATIC, rel=1e-3)
    assert np.ptp(travel[late]) < 1e-3 * DEFORMATION
    # Reported as sticking, loaded by the normal reaction m g cos(phi).
    contact = results.contact("friction")
    assert np.all(contact.mode[late] == mb.CONTACT_MODES.index("sticking"))
    assert contact.normal_force[-1] == pytest.approx(2.0 * G * np.cos(angle), rel=1e-9)
    # The friction force holds the weight's downhill component m g sin(phi).
    assert results.force("friction").force[-1] @ downhill == pytest.approx(-2.0 * G * np.sin(angle), rel=1e-3)


def test_block_above_the_friction_angle_slides_at_the_coulomb_acceleration() -> None:
    angle = np.radians(30.0)  # tan = 0.577 > mu_s = 0.5
    model, downhill = incline(angle)
    results = mb.dynamics(model, 1.0, 0.01)
    t = results.time
    speed = results.body("block").velocity @ downhill
    travel = results.body("block").position @ downhill
    sliding = t >= 0.2  # the speed passed the transition velocity within the first milliseconds
    expected = G * (np.sin(angle) - MU_DYNAMIC * np.cos(angle))
    # Steady sliding gives exactly mu_d N: the speed is a straight line of slope g (sin - mu_d cos).
    slope, _ = np.polyfit(t[sliding], speed[sliding], 1)
    assert slope == pytest.approx(expected, rel=1e-6)
    assert results.force("friction").value[-1] == pytest.approx(MU_DYNAMIC * 2.0 * G * np.cos(angle), rel=1e-6)
    assert np.all(results.contact("friction").mode[sliding] == mb.CONTACT_MODES.index("sliding"))
    assert results.contact("friction").slip_speed[-1] == pytest.approx(speed[-1], rel=1e-12)
    # Energy: what left the system is the Coulomb work mu_d m g cos(phi) x distance, up to the
    # breakaway (slip of about z_max at up to mu_s: a 1e-4 m share of 0.7 m travel).
    dissipated = results.energy["dissipated"]
    work = MU_DYNAMIC * 2.0 * G * np.cos(angle) * travel
    assert dissipated[-1] == pytest.approx(work[-1], rel=1e-3)
    # and the balance closes: total + dissipated is constant to the integrator's tolerance.
    balance = results.energy["total"] + dissipated
    assert np.max(np.abs(balance - balance[0])) < 1e-5 * np.max(np.abs(results.energy["kinetic"]))


def test_block_thrown_uphill_stops_then_holds() -> None:
    """Thrown up a gentle incline at 1 m/s it decelerates at g (sin + mu_d cos), stops at the
    closed-form time, and stays (tan phi < mu_s)."""
    angle = np.radians(10.0)
    model, downhill = incline(angle, speed=-1.0)
    results = mb.dynamics(model, 1.0, 0.01)
    t = results.time
    speed = results.body("block").velocity @ downhill
    deceleration = G * (np.sin(angle) + MU_DYNAMIC * np.cos(angle))
    stop = 1.0 / deceleration
    moving = t < stop - 0.01
    # While sliding the speed follows -1 + a t, shifted by the bristle damper's share at the throw:
    # while the bristle loads (elastically for 0.9 z_ss / |s|, then yielding up to z_ss, which
    # takes about as long again) the friction may exceed mu_d N by at most (OVERLOAD - 1) of it.
    from multibody.formulation.forces.friction import OVERLOAD

    coulomb = MU_DYNAMIC * 2.0 * G * np.cos(angle)
    loading = 2.0 * DEFORMATION * MU_DYNAMIC / MU_STATIC / 1.0
    shift = (OVERLOAD - 1.0) * coulomb * loading / 2.0
    assert speed[moving] == pytest.approx(-1.0 + deceleration * t[moving], abs=shift)
    # Stopped, it holds: the bristle swings from its uphill to its downhill deflection (overdamped,
    # time constant z_max / v_s = 0.1 s) and the block moves with it, never more than 2 z_max.
    travel = results.body("block").position @ downhill
    after = t > stop + 0.01
    assert np.ptp(travel[after]) < 2.0 * DEFORMATION
    assert abs(speed[-1]) < 1e-5


def flywheel(omega0: float, pin_radius: float) -> mb.Model:
    """A 10 kg disc of radius 0.2 m spinning about world x on a revolute, its weight on the pin."""
    model = mb.Model("flywheel", gravity=(0.0, 0.0, -G))
    disc = model.add(mb.RigidBody("disc", 10.0, (0.2, 0.1, 0.1), angular_velocity=(omega0, 0.0, 0.0)))
    axis = (1.0, 0.0, 0.0)
    pin = model.add(
        mb.Revolute("pin", disc.add_marker("hub", z_axis=axis), model.ground.add_marker("bearing", z_axis=axis))
    )
    model.add(
        mb.JointFriction("bearing_friction", pin, MU_STATIC, MU_DYNAMIC, STICTION_VELOCITY, pin_radius=pin_radius)
    )
    return model


def test_flywheel_runs_down_at_the_pin_friction_rate() -> None:
    omega0, pin_radius, inertia, mass = 10.0, 0.01, 0.2, 10.0
    results = mb.dynamics(flywheel(omega0, pin_radius), 12.0, 0.02)
    t = results.time
    omega = results.body("disc").angular_velocity[:, 0]
    rate = MU_DYNAMIC * pin_radius * mass * G / inertia
    run_down = omega0 / rate
    # Sliding: omega = omega0 - rate t exactly (mu_d above the transition slip 1.5 mm/s).
    sliding = omega > 1.5 * STICTION_VELOCITY / pin_radius * 2.0
    slope, _ = np.polyfit(t[sliding], omega[sliding], 1)
    assert slope == pytest.approx(-rate, rel=1e-6)
    # the start's damper share, as for the thrown block: 0.1 mu_d r m g over 2 z_ss / (r omega0)
    from multibody.formulation.forces.friction import OVERLOAD

    loading = 2.0 * 1e-4 * MU_DYNAMIC / MU_STATIC / (pin_radius * omega0)
    shift = (OVERLOAD - 1.0) * MU_DYNAMIC * pin_radius * mass * G * loading / inertia
    assert omega[sliding] == pytest.approx(omega0 - rate * t[sliding], abs=shift)
    # It reaches the transition speed (1.5 v_s / r = 0.15 rad/s) at the closed-form time (linear
    # interpolation of a linear history between output frames is exact), then sticks: after the
    # stop it turns only as its bristle relaxes, by less than z_max / r.
    transition = 1.5 * STICTION_VELOCITY / pin_radius
    reached = np.interp(-transition, -omega, t)
    assert reached == pytest.approx((omega0 - transition) / rate, abs=1e-3)
    e = results.body("disc").euler_parameters
    angle = np.unwrap(2.0 * np.arctan2(e[:, 1], e[:, 0]))
    assert np.ptp(angle[t > run_down]) < DEFORMATION / pin_radius
    assert np.max(np.abs(omega[t > run_down + 2.0])) < 1e-6
    # once the bristle has settled after the start (0.1 s: many times its loading time
    # 2 z_ss / (r omega0) = 0.1 ms), the friction torque is mu_d r m g
    torque = results.force("bearing_friction").torque[sliding & (t > 0.1), 0]
    assert torque == pytest.approx(-MU_DYNAMIC * pin_radius * mass * G, rel=1e-5)


def test_spherical_and_cylindrical_joints_take_friction() -> None:
    """A disc turning on a ball joint (and on a cylindrical joint) slows at the same rate as on
    the revolute: the ball's radius plays the pin radius and the whole reaction m g loads it."""
    omega0, radius = 2.0, 0.01
    rate = MU_DYNAMIC * radius * 10.0 * G / 0.2
    for family in (mb.Spherical, mb.Cylindrical):
        model = mb.Model(family.__name__, gravity=(0.0, 0.0, -G))
        disc = model.add(mb.RigidBody("disc", 10.0, (0.2, 0.1, 0.1), angular_velocity=(omega0, 0.0, 0.0)))
        axis = (1.0, 0.0, 0.0)
        joint = model.add(
            family("joint", disc.add_marker("hub", z_axis=axis), model.ground.add_marker("seat", z_axis=axis))
        )
        if family is mb.Cylindrical:  # hold the slide so the disc turns only
            model.add(mb.InPlane("keep", disc.add_marker("keep"), model.ground.add_marker("keep", z_axis=axis)))
        model.add(mb.JointFriction("friction", joint, MU_STATIC, MU_DYNAMIC, STICTION_VELOCITY, pin_radius=radius))
        results = mb.dynamics(model, 1.0, 0.05)
        omega = results.body("disc").angular_velocity[:, 0]
        # the slope of steady sliding (past the bristle's loading at the start)
        later = results.time >= 0.1
        slope, _ = np.polyfit(results.time[later], omega[later], 1)
        assert slope == pytest.approx(-rate, rel=1e-6), family.__name__


def test_friction_errors_name_the_element_and_the_fix() -> None:
    model, _ = incline(0.1)
    slide = model.joints["slide"]
    with pytest.raises(mb.ModelError, match="force 'f'.*mu_static must be >= 0"):
        mb.JointFriction("f", slide, -0.1, 0.0, 1e-3)
    with pytest.raises(mb.ModelError, match="force 'f'.*mu_dynamic .* exceeds mu_static"):
        mb.JointFriction("f", slide, 0.2, 0.3, 1e-3)
    with pytest.raises(mb.ModelError, match="force .f.*stiction_velocity must be > 0 m/s"):
        mb.JointFriction("f", slide, 0.3, 0.2, 0.0)
    with pytest.raises(mb.ModelError, match="force 'f'.*transition_velocity"):
        mb.JointFriction("f", slide, 0.3, 0.2, 1e-3, transition_velocity=1e-3)
    with pytest.raises(mb.ModelError, match="force 'f'.*input 'bending_moment' needs bending_reflection_arm"):
        mb.JointFriction("f", slide, 0.3, 0.2, 1e-3, inputs=("reaction_force", "bending_moment"))
    with pytest.raises(mb.ModelError, match="force 'f'.*pin_radius has no meaning|force 'f'.*preload_torque"):
        mb.JointFriction("f", slide, 0.3, 0.2, 1e-3, preload_torque=1.0)
    block = model.bodies["block"]
    plane = model.add(mb.Planar("plane", block.add_marker("p"), model.ground.add_marker("p")))
    with pytest.raises(mb.ModelError, match="force 'f'.*Translational, Revolute, Cylindrical, Spherical, Universal"):
        mb.JointFriction("f", plane, 0.3, 0.2, 1e-3)
    pin = mb.Revolute("pin", block.add_marker("q"), model.ground.add_marker("q"))
    with pytest.raises(mb.ModelError, match="force 'f'.*needs pin_radius"):
        mb.JointFriction("f", pin, 0.3, 0.2, 1e-3)


def pendulum(family: type, omega0: float) -> mb.Model:
    """A 1 kg point-like bob 1 m below a pivot, swinging about world x, the pivot's pin with
    friction. A universal joint's second pin (z_I, along world y) never turns in this swing."""
    model = mb.Model("pendulum", gravity=(0.0, 0.0, -G))
    bob = model.add(mb.RigidBody("bob", 1.0, (1e-4,) * 3, position=(0.0, 0.0, -1.0), angular_velocity=(omega0, 0, 0)))
    swing = (1.0, 0.0, 0.0)
    if family is mb.Universal:
        i_marker = bob.add_marker("cross", position=(0.0, 0.0, 1.0), z_axis=(0.0, 1.0, 0.0))
    else:
        i_marker = bob.add_marker("cross", position=(0.0, 0.0, 1.0), z_axis=swing)
    pivot = model.add(family("pivot", i_marker, model.ground.add_marker("pivot", z_axis=swing)))
    model.add(
        mb.JointFriction(
            "pin_friction",
            pivot,
            MU_STATIC,
            MU_DYNAMIC,
            STICTION_VELOCITY,
            max_stiction_deformation=1e-6,
            pin_radius=0.01,
        )
    )
    return model


def test_universal_joint_friction_swings_as_the_revolute_and_takes_the_coulomb_work() -> None:
    """Two formulations of one swing agree: the universal's loaded pin slides as the revolute's
    (the reaction lies in the swing plane, so |F| = |F_xy|). Reference for the energy: while the
    pin slides faster than the transition speed, friction takes mu_d r |F| |omega| [W], so the
    dissipated energy is its integral (trapezoid over 2.5 ms frames of a smooth integrand: 1e-5)."""
    omega0 = 0.1 * np.sqrt(G)  # amplitude 0.1 rad; slip r omega > 1.5 mm/s until t = 0.34 s
    runs = [mb.dynamics(pendulum(family, omega0), 0.3, 0.0025) for family in (mb.Revolute, mb.Universal)]
    angles = []
    for results in runs:
        e = results.body("bob").euler_parameters
        angles.append(2.0 * np.arctan2(e[:, 1], e[:, 0]))
    # each run within N rtol of the 0.1 rad swing (N accepted steps, rtol 1e-6)
    steps = max(results.stats["steps"] for results in runs)
    assert angles[1] == pytest.approx(angles[0], abs=2 * steps * 1e-6 * 0.1)
    assert np.max(angles[0]) > 0.05  # it swung
    for results in runs:
        load = np.linalg.norm(results.joint("pivot").reaction_force, axis=1)
        omega = np.abs(results.body("bob").angular_velocity[:, 0])
        power = MU_DYNAMIC * 0.01 * load * omega
        work = np.sum(0.5 * (power[1:] + power[:-1]) * np.diff(results.time))
        assert results.energy["dissipated"][-1] == pytest.approx(work, rel=1e-3)
