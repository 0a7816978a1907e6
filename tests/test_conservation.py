"""Conservation laws, and closed-form responses of force elements, applied loads and motions.

References, one per test: conservation of energy (a spatial double pendulum); of angular momentum
and kinetic energy (a free body tumbling about its intermediate axis); the closed-form free
response of a linear oscillator (a spring-damper on a slider, a torsion spring on a hinge, a
bushing holding a free body); the integrals of a driver's velocity and acceleration (a
slider-crank driven at three levels, and the slider's closed-form position); Newton's and
Euler's laws under constant loads in world and in body-fixed axes. In every dynamic run kinetic
+ potential + dissipated energy must stay constant.

Tolerances. BDF accepts a step when its estimated local error is below ``rtol (1 + |y|)`` in each
position and velocity coordinate ``y`` (``atol = rtol``; ``local_tolerance``), and a run's N
accepted steps (``results.stats``) add up their local errors as the motion carries them: at most
linearly where the flow does not enlarge them, in the norm in which it does not. For a linear
oscillator that is the energy norm ``sqrt(k dx^2 + m dv^2)`` (``oscillator_error``); for free
motion, a velocity error grows into a position error in proportion to time. Each test derives its
bound so, and says what it measured. Energy is conserved to at most ``sqrt(2 E)`` times the error
in the energy norm.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.cli import load_model_file
from multibody.spatial.rotations import rotation_from_axes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NO_GRAVITY = (0.0, 0.0, 0.0)
RTOL = 1e-10
"""Integrator tolerance of the closed-form comparisons: errors of 1e-8 or so, well above round-off."""


def local_tolerance(rtol: float, size: float) -> float:
    """Local error BDF allows per step in a coordinate of magnitude up to ``size`` (its unit)."""
    return rtol * (1.0 + size)


def oscillator_error(
    results: mb.Results, stiffness: float, mass: float, displacement_tolerance: float, rate_tolerance: float
) -> float:
    """Largest global error, in the energy norm ``sqrt(k dx^2 + m dv^2)`` [sqrt(J)], of a run of a
    linear oscillator ``m x'' + c x' + k x = 0`` whose N accepted steps each erred by at most the
    given tolerances in displacement and rate: the flow (c >= 0) does not enlarge that norm, so
    the local errors add up at most linearly."""
    return results.stats["steps"] * (np.sqrt(stiffness) * displacement_tolerance + np.sqrt(mass) * rate_tolerance)


def conserved_energy(results: mb.Results) -> np.ndarray:
    """Kinetic + potential + dissipated energy [J]: constant in time for every model."""
    return results.energy["total"] + results.energy["dissipated"]


def rotation_about_z(angle: float) -> np.ndarray:
    """``R_WB`` (3, 3) of a turn by ``angle`` [rad] about world z."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def angle_about_z(rotation: np.ndarray) -> np.ndarray:
    """Continuous angle [rad] about world z of frames ``R_WB`` (T, 3, 3) that turn about z only."""
    return np.unwrap(np.arctan2(rotation[:, 1, 0], rotation[:, 0, 0]))


def damped_free_response(
    initial: float, natural_frequency: float, damping_ratio: float, t: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Displacement and rate of ``x'' + 2 zeta w x' + w^2 x = 0`` released from rest at ``initial``,
    underdamped (``0 <= zeta < 1``); ``w`` [rad/s], ``t`` [s] (T,)."""
    decay = damping_ratio * natural_frequency
    damped_frequency = natural_frequency * np.sqrt(1.0 - damping_ratio**2)
    envelope = initial * np.exp(-decay * t)
    phase = damped_frequency * t
    displacement = envelope * (np.cos(phase) + decay / damped_frequency * np.sin(phase))
    rate = -envelope * natural_frequency**2 / damped_frequency * np.sin(phase)
    return displacement, rate


# -- energy of an undamped spatial double pendulum ---------------------------------------------------


def spatial_double_pendulum() -> mb.Model:
    """Two uniform rods (radius 2 cm) on ball joints, started out of any plane: the upper one (1 m,
    1 kg) hangs from the origin towards +x -z, the lower one (0.8 m, 0.7 kg) from its end towards
    +y -z; both turn about all three axes, with CM velocities that fit the joints."""
    model = mb.Model("spatial_double_pendulum")
    radius = 0.02

    def rod(
        name: str,
        mass: float,
        length: float,
        direction: tuple[float, ...],
        top: np.ndarray,
        top_velocity: np.ndarray,
        w: np.ndarray,
    ) -> mb.RigidBody:
        """A rod with body z along ``direction`` from its upper end ``top`` [m], turning at ``w``
        [rad/s] about ``top``, which moves at ``top_velocity`` [m/s]."""
        axis = np.asarray(direction) / np.linalg.norm(direction)
        transverse = mass * (3.0 * radius**2 + length**2) / 12.0
        centre = top + 0.5 * length * axis
        body = model.add(
            mb.RigidBody(
                name,
                mass,
                (transverse, transverse, mass * radius**2 / 2.0),
                position=centre,
                orientation=rotation_from_axes(axis),
                velocity=top_velocity + np.cross(w, centre - top),
                angular_velocity=w,
            )
        )
        body.add_marker("top", (0.0, 0.0, -length / 2.0))
        body.add_marker("bottom", (0.0, 0.0, length / 2.0))
        return body

    w_upper = np.array([0.3, -0.5, 1.0])
    elbow = np.array([1.0, 0.0, -1.0]) / np.sqrt(2.0)
    upper = rod("upper", 1.0, 1.0, (1.0, 0.0, -1.0), np.zeros(3), np.zeros(3), w_upper)
    lower = rod("lower", 0.7, 0.8, (0.0, 1.0, -1.0), elbow, np.cross(w_upper, elbow), np.array([-0.6, 0.4, 0.8]))
    model.add(mb.Spherical("shoulder", upper.marker("top"), model.ground.add_marker("pivot")))
    model.add(mb.Spherical("elbow", lower.marker("top"), upper.marker("bottom")))
    return model


def test_spatial_double_pendulum_conserves_energy() -> None:
    # Drift of kinetic + potential energy over 10 s of chaotic motion, relative to the largest
    # kinetic energy (the energy traded with gravity; the total itself depends on the potential's
    # datum). The measured drift follows rtol: 5.4e-7 at 1e-8 (2600 steps), 6.1e-8 at 1e-9 (3800
    # steps), so rtol = 1e-9 keeps it 16 times below 1e-6, where 1e-8 would leave a factor 2. (The
    # worst case of N local errors adding up, 2 N rtol = 8e-6, is not reached: in a smooth
    # conservative motion they partly cancel.)
    results = mb.dynamics(spatial_double_pendulum(), 10.0, 0.05, method="SI2", rtol=1e-9)
    total = results.energy["total"]
    assert np.all(results.energy["dissipated"] == 0.0)
    assert np.max(np.abs(total - total[0])) < 1e-6 * np.max(results.energy["kinetic"])


# -- free asymmetric body tumbling near its intermediate axis --------------------------------------


def test_free_tumbling_body_conserves_angular_momentum_and_kinetic_energy() -> None:
    # Inertia (1, 2, 3) kg m^2, spinning at 2 rad/s about the intermediate axis (body y) perturbed
    # by 1 %, drifting through space: it flips over within 12 s (Dzhanibekov effect) while its
    # angular momentum about the world origin, m p x v + R J R^T w, and its kinetic energy stay
    # fixed (no load acts, gravity off). Both are linear/quadratic in velocities of size ~2, so
    # they drift by about N rtol of their size: 1100 steps at rtol 1e-12 give the 1e-9 required.
    # Measured: momentum 1.3e-10, kinetic energy 1.5e-10 (almost all of it during the flip).
    mass, inertia = 2.0, np.diag([1.0, 2.0, 3.0])
    model = mb.Model("tumbler", gravity=NO_GRAVITY)
    model.add(
        mb.RigidBody(
            "tumbler",
            mass,
            inertia,
            position=(0.3, -0.2, 0.5),
            velocity=(0.4, 0.1, -0.3),
            angular_velocity=(0.01, 2.0, 0.02),
        )
    )
    results = mb.dynamics(model, 12.0, 0.05, method="SI2", rtol=1e-12)
    body = results.body("tumbler")
    R_WB, w_W = body.rotation, body.angular_velocity
    assert np.einsum("tj,tj->t", R_WB[:, :, 1], w_W).min() < -1.9  # it has turned upside down
    J_W = R_WB @ inertia @ np.swapaxes(R_WB, 1, 2)
    momentum = mass * np.cross(body.position, body.velocity) + np.einsum("tij,tj->ti", J_W, w_W)
    kinetic = 0.5 * mass * np.sum(body.velocity**2, axis=1) + 0.5 * np.einsum("ti,tij,tj->t", w_W, J_W, w_W)
    assert np.max(np.linalg.norm(momentum - momentum[0], axis=1)) < 1e-9 * np.linalg.norm(momentum[0])
    assert np.max(np.abs(kinetic - kinetic[0])) < 1e-9 * kinetic[0]
    np.testing.assert_allclose(results.energy["kinetic"], kinetic, rtol=1e-12)  # the same formula, to round-off


# -- linear oscillators: spring-damper, torsion spring, bushing ----------------------------------


def test_spring_damper_on_slider_follows_damped_oscillation() -> None:
    # A 2 kg block slides along world x (gravity, across the slide, is carried by the joint) on a
    # spring-damper k = 50 N/m, c = 2 N s/m to a ground anchor, released from rest 0.2 m beyond the
    # free length 1 m: w = 5 rad/s, zeta = 0.1. Measured: position 1.2e-8 m (bound 1.6e-7),
    # energy 2.0e-7 J (bound 1.6e-6).
    mass, stiffness, damping, free_length, stretch = 2.0, 50.0, 2.0, 1.0, 0.2
    model = mb.Model("spring_slider")
    block = model.add(mb.RigidBody("block", mass, (0.1, 0.1, 0.1), position=(free_length + stretch, 0.0, 0.0)))
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "slide", block.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    model.add(
        mb.SpringDamper(
            "spring", block.add_marker("hook"), model.ground.add_marker("anchor"), stiffness, damping, free_length
        )
    )
    results = mb.dynamics(model, 5.0, 0.05, rtol=RTOL)
    extension, rate = damped_free_response(
        stretch, np.sqrt(stiffness / mass), damping / (2.0 * np.sqrt(stiffness * mass)), results.time
    )
    stored = 0.5 * stiffness * stretch**2
    error = oscillator_error(
        results,
        stiffness,
        mass,
        local_tolerance(RTOL, free_length + stretch),
        local_tolerance(RTOL, np.max(np.abs(rate))),
    )
    position = results.body("block").position
    assert np.max(np.abs(position[:, 0] - free_length - extension)) < error / np.sqrt(stiffness)
    assert np.max(np.abs(position[:, 1:])) < 1e-12  # round-off: the joint holds y = z = 0
    assert np.ptp(conserved_energy(results)) < np.sqrt(2.0 * stored) * error
    assert results.energy["dissipated"][-1] > 0.9 * stored  # the damper did take most of it


def test_torsion_spring_on_hinge_follows_damped_oscillation() -> None:
    # A 3 kg body hinged about world z (no gravity), its CM 0.3 m off the axis, so I_O = 0.5 + 3 *
    # 0.3^2 kg m^2, on a torsion spring k = 8 N m/rad, c = 0.5 N m s/rad, released from rest at 1 rad
    # (the spring is linear in the angle: no small-angle assumption). The angle is carried by Euler
    # parameters e (|e| <= 1) as about 2 e: its local tolerance is 2 rtol (1 + 1). Measured: angle
    # 5.9e-9 rad (bound 4.0e-7), angular velocity 1.7e-8 rad/s (bound 1.3e-6), energy 4.3e-8 J
    # (bound 3.2e-6).
    mass, inertia_z, offset = 3.0, 0.5, 0.3
    stiffness, damping, released_at = 8.0, 0.5, 1.0
    inertia_about_axis = inertia_z + mass * offset**2
    model = mb.Model("torsion_hinge", gravity=NO_GRAVITY)
    R_WB = rotation_about_z(released_at)
    wheel = model.add(
        mb.RigidBody("wheel", mass, (0.4, 0.45, inertia_z), position=R_WB @ (offset, 0.0, 0.0), orientation=R_WB)
    )
    hinge = model.add(
        mb.Revolute("hinge", wheel.add_marker("hinge", (-offset, 0.0, 0.0)), model.ground.add_marker("hinge"))
    )
    model.add(mb.TorsionSpring("spring", hinge, stiffness, damping))
    results = mb.dynamics(model, 5.0, 0.05, rtol=RTOL)
    angle, rate = damped_free_response(
        released_at,
        np.sqrt(stiffness / inertia_about_axis),
        damping / (2.0 * np.sqrt(stiffness * inertia_about_axis)),
        results.time,
    )
    error = oscillator_error(
        results,
        stiffness,
        inertia_about_axis,
        2.0 * local_tolerance(RTOL, 1.0),
        local_tolerance(RTOL, np.max(np.abs(rate))),
    )
    body = results.body("wheel")
    assert np.max(np.abs(angle_about_z(body.rotation) - angle)) < error / np.sqrt(stiffness)
    assert np.max(np.abs(body.angular_velocity[:, 2] - rate)) < error / np.sqrt(inertia_about_axis)
    assert np.ptp(conserved_energy(results)) < np.sqrt(2.0 * 0.5 * stiffness * released_at**2) * error


def test_bushing_on_free_body_oscillates_along_its_axes() -> None:
    # A free 1.5 kg body (no gravity) held to the ground by a bushing with translational stiffness
    # (20, 45, 80) N/m only, its I marker at the CM: the force passes through the CM, so the body
    # never turns, and in the J marker's axes (turned by 3-1-3 angles 0.3, 0.5, 0.7 rad) each
    # component of the CM offset is an oscillator of its own, x_k = x0_k cos(w_k t) + v0_k / w_k
    # sin(w_k t), w_k = sqrt(k_k / m) (a linear law: exact at any amplitude, no small-motion
    # assumption). In the energy norm of all three, a step errs by at most sqrt(sum k) dx +
    # sqrt(3 m) dv. Measured: position 2.0e-8 m (bound 2.9e-7), velocity 1.6e-7 m/s (bound
    # 1.1e-6), energy 5.9e-8 J (bound 6.1e-7).
    mass = 1.5
    stiffness = np.array([20.0, 45.0, 80.0])
    model = mb.Model("bushing_mount", gravity=NO_GRAVITY)
    socket = model.ground.add_marker("socket", (0.1, 0.2, 0.3), euler_angles=(0.3, 0.5, 0.7))
    R_WJ = socket.orientation
    offset_J, velocity_J = np.array([0.05, -0.03, 0.02]), np.array([0.1, 0.2, -0.1])
    block = model.add(
        mb.RigidBody(
            "block", mass, (0.1, 0.2, 0.3), position=socket.position + R_WJ @ offset_J, velocity=R_WJ @ velocity_J
        )
    )
    model.add(mb.Bushing("mount", block.add_marker("centre"), socket, stiffness))
    results = mb.dynamics(model, 4.0, 0.05, rtol=RTOL)
    frequency = np.sqrt(stiffness / mass)
    phase = frequency * results.time[:, None]
    expected_J = offset_J * np.cos(phase) + velocity_J / frequency * np.sin(phase)
    expected_rate_J = -offset_J * frequency * np.sin(phase) + velocity_J * np.cos(phase)
    body = results.body("block")
    error = oscillator_error(
        results,
        np.sum(stiffness),
        3.0 * mass,
        local_tolerance(RTOL, np.max(np.abs(body.position))),
        local_tolerance(RTOL, np.max(np.abs(body.velocity))),
    )
    assert np.max(np.abs((body.position - socket.position) @ R_WJ - expected_J)) < error / np.sqrt(stiffness.min())
    assert np.max(np.abs(body.velocity @ R_WJ - expected_rate_J)) < error / np.sqrt(mass)
    assert np.max(np.abs(body.angular_velocity)) < 1e-12  # round-off
    stored = 0.5 * np.sum(stiffness * offset_J**2) + 0.5 * mass * np.sum(velocity_J**2)
    assert np.ptp(conserved_energy(results)) < np.sqrt(2.0 * stored) * error


# -- motions given at the velocity and acceleration level ------------------------------------------


def test_velocity_and_acceleration_motions_match_displacement_motion() -> None:
    # The example slider-crank's crank driven by theta(t) = theta0 + w0 t + a t^2 / 2, given at the
    # displacement level, as the velocity w0 + a t (integrated from the input crank angle theta0)
    # and as the acceleration a (integrated from theta0 and the crank's input angular velocity w0).
    # The kinematic runs close positions to 1e-12 and integrate the drivers by adaptive quadrature
    # to 1e-13 relative, so all three agree to round-off (measured 6e-14; 1e-10 allowed), and the
    # slider sits at the closed form x = r cos(theta) + sqrt(l^2 - r^2 sin^2(theta)) (measured 5e-14).
    example = load_model_file(EXAMPLES / "slider_crank.py")
    start, speed, acceleration = example.INITIAL_ANGLE, example.CRANK_SPEED, 3.0
    drives = {
        "displacement": mb.Polynomial([start, speed, acceleration / 2.0]),
        "velocity": mb.Polynomial([speed, acceleration]),
        "acceleration": acceleration,
    }
    runs = {}
    for level, law in drives.items():
        model, crank_pivot = example.mechanism(f"slider_crank_{level}")
        model.add(mb.Motion("crank_drive", crank_pivot, **{level: law}))
        runs[level] = mb.kinematics(model, 1.5, 0.01)
    reference = runs["displacement"]
    crank_angle = drives["displacement"](reference.time)
    np.testing.assert_allclose(
        reference.body("slider").position[:, 0], example.slider_position(crank_angle), rtol=0.0, atol=1e-10
    )
    for level in ("velocity", "acceleration"):
        for body in ("crank", "rod", "slider"):
            for quantity in (
                "position",
                "velocity",
                "acceleration",
                "euler_parameters",
                "angular_velocity",
                "angular_acceleration",
            ):
                np.testing.assert_allclose(
                    getattr(runs[level].body(body), quantity),
                    getattr(reference.body(body), quantity),
                    rtol=0.0,
                    atol=1e-10,
                    err_msg=f"{level}-level motion: {body}.{quantity}",
                )
        np.testing.assert_allclose(
            runs[level].joint("crank_drive").reaction_torque,
            reference.joint("crank_drive").reaction_torque,
            rtol=0.0,
            atol=1e-10,
            err_msg=f"{level}-level motion: drive torque",
        )


# -- applied loads in world and in marker axes -----------------------------------------------------


@pytest.mark.parametrize("frame", ["world", "marker"])
def test_constant_torque_spins_up_free_body_about_principal_axis(frame: str) -> None:
    # A free body spinning at w0 = 1 rad/s about its principal z axis (J_z = 0.3 kg m^2), no
    # gravity, under a constant torque T = 0.6 N m along that axis: w_z = w0 + T t / J_z, angle
    # w0 t + T t^2 / (2 J_z), and the other components stay zero. The torque is given in world
    # axes, or in the axes of a marker whose x axis is the body's z axis (so a wrong frame
    # conversion would turn the body about another axis). Its work is counted as dissipated
    # (negative): kinetic + dissipated stays 0.5 J_z w0^2. Bounds: N local errors in w; in the
    # angle N local errors (2 rtol (1 + 1), from Euler parameters) plus the error in w times t.
    # Measured: w 1e-14 rad/s (BDF is exact on a linear function), angle 2.7e-8 rad (bound
    # 2.5e-7), energy 1.1e-9 J (bound 1.4e-7).
    inertia, torque, spin = (0.2, 0.25, 0.3), 0.6, 1.0
    t_end = 2.0
    model = mb.Model(f"spin_up_{frame}", gravity=NO_GRAVITY)
    rotor = model.add(mb.RigidBody("rotor", 1.0, inertia, angular_velocity=(0.0, 0.0, spin)))
    if frame == "world":
        model.add(mb.PointTorque("drive", rotor.add_marker("centre"), (0.0, 0.0, torque)))
    else:
        axle = rotor.add_marker("axle", z_axis=(1.0, 0.0, 0.0), x_axis=(0.0, 0.0, 1.0))
        model.add(mb.PointTorque("drive", axle, (torque, 0.0, 0.0), frame="marker"))
    results = mb.dynamics(model, t_end, 0.02, rtol=RTOL)
    t = results.time
    expected_spin = spin + torque * t / inertia[2]
    spin_error = results.stats["steps"] * local_tolerance(RTOL, expected_spin[-1])
    angle_error = results.stats["steps"] * 2.0 * local_tolerance(RTOL, 1.0) + spin_error * t_end
    w = results.body("rotor").angular_velocity
    assert np.max(np.abs(w[:, 2] - expected_spin)) < spin_error
    assert np.max(np.abs(w[:, :2])) < 1e-12  # round-off
    assert (
        np.max(np.abs(angle_about_z(results.body("rotor").rotation) - (spin * t + 0.5 * torque / inertia[2] * t**2)))
        < angle_error
    )
    assert (
        np.max(np.abs(conserved_energy(results) - 0.5 * inertia[2] * spin**2))
        < inertia[2] * expected_spin[-1] * spin_error
    )


@pytest.mark.parametrize("frame", ["world", "marker"])
def test_constant_force_through_centre_of_mass_in_world_and_body_axes(frame: str) -> None:
    # A free 2 kg body (no gravity) spinning at w = 3 rad/s about its principal z axis, pushed
    # through its CM by F = 1.2 N along x. In world axes: p = F t^2 / (2 m) x. In the marker's
    # (body) axes the push turns with the body (a follower force): v = F / (m w) (sin wt,
    # 1 - cos wt, 0), p = F / (m w^2) (1 - cos wt, wt - sin wt, 0). The spin is untouched either
    # way. Bound: N local errors in p, plus those in v times t. Measured: position 6e-10 m (world,
    # bound 7.9e-8), 7e-9 m (marker, bound 7.5e-8); the spin stays exact to round-off.
    mass, force, spin = 2.0, 1.2, 3.0
    t_end = 2.0
    model = mb.Model(f"pushed_{frame}", gravity=NO_GRAVITY)
    puck = model.add(mb.RigidBody("puck", mass, (0.1, 0.1, 0.15), angular_velocity=(0.0, 0.0, spin)))
    model.add(mb.PointForce("push", puck.add_marker("centre"), (force, 0.0, 0.0), frame=frame))
    results = mb.dynamics(model, t_end, 0.02, rtol=RTOL)
    t = results.time
    if frame == "world":
        expected = np.column_stack([force * t**2 / (2.0 * mass), 0.0 * t, 0.0 * t])
    else:
        phase = spin * t
        expected = force / (mass * spin**2) * np.column_stack([1.0 - np.cos(phase), phase - np.sin(phase), 0.0 * t])
    body = results.body("puck")
    local = (
        local_tolerance(RTOL, np.max(np.abs(body.position)))
        + local_tolerance(RTOL, np.max(np.abs(body.velocity))) * t_end
    )
    assert np.max(np.abs(body.position - expected)) < results.stats["steps"] * local
    assert np.max(np.abs(body.angular_velocity - (0.0, 0.0, spin))) < 1e-12


@pytest.mark.parametrize(("formulation", "method"), [("cartesian", "SI2"), ("cartesian", "I3"), ("kane", "BDF")])
@pytest.mark.parametrize("rtol", [1e-10, 1e-12])
def test_free_fall_at_tight_tolerances(formulation: str, method: str, rtol: float) -> None:
    # Reference: z = z0 - g t^2 / 2. At rtol <= 1e-10 Newton's increments reach round-off of the
    # positions; they must count as converged, not as divergence (which once collapsed the step
    # size to 1e-15 s). The global error is a modest multiple of rtol (measured ~30x, allowed
    # 100x over the 1 m scale), as for the BDF tests on linear ODEs.
    model = mb.Model("fall")
    model.add(mb.RigidBody("ball", mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.0, 0.0, 1.0)))
    results = mb.dynamics(model, 1.0, 0.05, formulation=formulation, method=method, rtol=rtol)
    expected = 1.0 - 0.5 * 9.81 * results.time**2
    np.testing.assert_allclose(results.body("ball").position[:, 2], expected, rtol=0, atol=100 * rtol)
