"""Linearization and eigen-analysis against closed forms, a published example and the nonlinear model.

References:
- the stiff two-mass chain of the ADAMS algorithm chapter (section 4.5.4; excerpt and source in
  tests/data/adams_stiff_two_mass_chain/): k1 = 10 N/mm, k2 = 1e6 N/mm, m1 = m2 = 1 kg, "first frequency 11.25 Hz, second
  7117.6 Hz"; with c1 = 0.1 N s/mm and c2 = 1e5 N s/mm the eigenvalues are the roots of the
  hand-derived characteristic polynomial det(M s^2 + C s + K) of the 2-DOF chain;
- a pendulum (``examples/pendulum.py``): small-oscillation frequency sqrt(m g d / I_O) / (2 pi)
  hanging, real eigenvalues +-sqrt(m g d / I_O) inverted. In Cartesian coordinates gravity is a
  constant force, so this stiffness comes only from the reactions' geometric term;
- a torque-free rigid body in steady spin (Euler's equations): about the major axis the wobble
  eigenvalues are +-i W sqrt((I3 - I1)(I3 - I2) / (I1 I2)); about the intermediate axis one is
  real positive, W sqrt((I2 - I1)(I3 - I2) / (I1 I3)) (a moving operating point: gyroscopic terms);
- a tensioned string: transverse stiffness 2 T / L from the springs' tension and preload;
- statics gains of the state-space form: a force on a spring-mounted body moves it by F / k; a
  base displacement input moves a spring-mounted mass by the same amount (D and B of a motion);
- the nonlinear slider-crank: the response to a small step of its drive torque over one period
  of its mode agrees with the linear model to second order in the step (error ratio 4 when
  the step is halved).

Tolerances: the stiffness and damping matrices are central differences (relative error ~1e-10),
so eigenvalues agree with closed forms to ~1e-8 relative; the integrator error of the nonlinear
runs (rtol 1e-10) is far below the second-order error measured.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import expm

import multibody as mb
from multibody.analysis.operating_point import state_from_results
from multibody.cli import load_model_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
G = 9.81


def example(name: str):
    return load_model_file(EXAMPLES / f"{name}.py")


# -- the two-mass chain -----------------------------------------------------------------------


def test_two_mass_chain_frequencies_are_the_reference_11_25_and_7117_6_hz() -> None:
    chain = example("two_mass_chain")
    linear = mb.linearize(chain.build(damped=False))
    modes = linear.modes()
    assert linear.degrees_of_freedom == 2 and len(modes) == 2
    # The digits the reference gives.
    assert round(modes.frequencies_hz[0], 2) == 11.25 and round(modes.frequencies_hz[1], 1) == 7117.6
    # And the closed form of the 2-DOF chain: omega^2 = (k1 + 2 k2 -+ sqrt(k1^2 + 4 k2^2)) / (2 m).
    k1, k2, m = chain.STIFFNESS_1, chain.STIFFNESS_2, chain.MASS
    omega_squared = (k1 + 2 * k2 + np.array([-1.0, 1.0]) * np.sqrt(k1**2 + 4 * k2**2)) / (2 * m)
    np.testing.assert_allclose(modes.frequencies_hz, np.sqrt(omega_squared) / (2 * np.pi), rtol=1e-8)
    np.testing.assert_allclose(modes.damping_ratios, 0.0, atol=1e-9)
    assert not modes.rigid_body.any()
    # Shapes: in phase (low mode, masses equal to 1e-5) and in opposition (high mode), along x only.
    low, high = modes.shapes[0].real, modes.shapes[1].real
    np.testing.assert_allclose(low[:, 0], [1.0, 1.0], rtol=1e-4)
    assert high[0, 0] * high[1, 0] < 0
    np.testing.assert_allclose(modes.shapes[:, :, 1:], 0.0, atol=1e-12)


def test_damped_chain_eigenvalues_are_the_roots_of_its_characteristic_polynomial() -> None:
    chain = example("two_mass_chain")
    modes = mb.linearize(chain.build()).modes()
    k1, k2, c1, c2, m = chain.STIFFNESS_1, chain.STIFFNESS_2, chain.DAMPING_1, chain.DAMPING_2, chain.MASS
    # det([[m s^2 + (c1+c2) s + k1+k2, -(c2 s + k2)], [-(c2 s + k2), m s^2 + c2 s + k2]]) = 0:
    quartic = [m * m, m * (c1 + 2 * c2), m * (k1 + 2 * k2) + c1 * c2, c1 * k2 + c2 * k1, k1 * k2]
    roots = np.roots(quartic)
    roots = roots[roots.imag >= 0]
    roots = roots[np.argsort(np.abs(roots))]
    np.testing.assert_allclose(modes.eigenvalues, roots, rtol=1e-7)
    np.testing.assert_allclose(modes.damping_ratios, -roots.real / np.abs(roots), rtol=1e-7)
    # The low mode rings (damping ratio ~0.35); the high one is two real, overdamped eigenvalues.
    assert 0.3 < modes.damping_ratios[1] < 0.4 and modes.damped_frequencies_hz[1] > 0
    np.testing.assert_allclose(modes.damping_ratios[[0, 2]], 1.0)


# -- pendulum ---------------------------------------------------------------------------------

PENDULUM_OMEGA = np.sqrt(1.0 * G * 0.5 / (1.0 / 3.0))
"""sqrt(m g d / I_O) for the example's rod: m = 1 kg, d = 0.5 m, I_O = m L^2 / 3 [rad/s]."""


def test_pendulum_frequency_at_the_hanging_equilibrium() -> None:
    pendulum = example("pendulum")
    modes = mb.linearize(pendulum.build()).modes()  # statics from 60 degrees, then linearize
    assert len(modes) == 1
    np.testing.assert_allclose(modes.frequencies_hz[0], PENDULUM_OMEGA / (2 * np.pi), rtol=1e-8)
    np.testing.assert_allclose(modes.eigenvalues[0].real, 0.0, atol=1e-8)


def test_inverted_pendulum_has_a_real_positive_eigenvalue() -> None:
    pendulum = example("pendulum")
    with pytest.warns(mb.UnstableEquilibriumWarning):
        inverted = mb.statics(pendulum.build(np.radians(170.0)))
    modes = mb.linearize(pendulum.build(np.radians(170.0)), at=inverted).modes()
    np.testing.assert_allclose(np.sort(modes.eigenvalues.real), [-PENDULUM_OMEGA, PENDULUM_OMEGA], rtol=1e-8)
    np.testing.assert_allclose(modes.eigenvalues.imag, 0.0, atol=1e-8)
    assert "unstable" in modes.table()


# -- preload: geometric stiffness of a tensioned string ------------------------------------------


def test_tension_gives_the_transverse_stiffness_of_a_string() -> None:
    # A 0.5 kg body between two springs from anchors at x = -+L (k = 300 N/m, free length L0,
    # preload P, which pushes the ends apart as in ADAMS): tension T = k (L - L0) - P. Along the
    # line the stiffness is 2k; across it the springs turn, which gives 2T/L (the string's
    # geometric stiffness). The springs act at the CM, so the three rotations are rigid-body
    # modes. No gravity.
    mass, k, length, free_length, preload = 0.5, 300.0, 0.4, 0.3, 10.0
    model = mb.Model("string", gravity=(0.0, 0.0, 0.0))
    bead = model.add(mb.RigidBody("bead", mass, (1e-3, 1e-3, 1e-3), position=(0.0, 0.0, 0.0)))
    for side in (-1.0, 1.0):
        anchor = model.ground.add_marker(f"anchor{side:+.0f}", (side * length, 0.0, 0.0))
        model.add(
            mb.SpringDamper(
                f"spring{side:+.0f}", bead.add_marker(f"end{side:+.0f}"), anchor, k, 0.0, free_length, preload
            )
        )
    system = model.compile()
    state = mb.State(0.0, system.q0, system.v0, np.zeros(0))  # symmetric: in equilibrium as built
    modes = mb.linearize(system, at=state).modes()
    tension = k * (length - free_length) - preload  # a positive preload pushes the ends apart
    flexible = modes.frequencies_hz[~modes.rigid_body] * 2 * np.pi
    expected = np.sqrt(np.array([2 * tension / length, 2 * tension / length, 2 * k]) / mass)
    np.testing.assert_allclose(flexible, expected, rtol=1e-8)
    assert modes.rigid_body.sum() == 6  # three rotations, each a double zero eigenvalue


def test_a_moving_constrained_operating_point_is_flagged_as_approximate() -> None:
    # A pendulum passing the bottom at speed: its exact small-oscillation frequency about that
    # instant is still sqrt(m g d / I_O), but the frozen-time model adds the centripetal
    # reaction as stiffness. linearize says so instead of passing the number off as exact.
    pendulum = example("pendulum")
    model = pendulum.build(np.radians(90.0))
    run = mb.dynamics(model, 0.2, 0.1, rtol=1e-8)
    with pytest.warns(mb.MovingOperatingPointWarning, match="moving at t = 0.2 s and has constraints"):
        mb.linearize(model, at=run, time=0.2)


# -- a spinning body: a moving operating point --------------------------------------------------

INERTIA = np.array([2.0, 3.0, 4.0])
SPIN = 3.0


def spinning_body(axis: int) -> mb.Model:
    """A torque-free body (principal moments INERTIA) spinning at SPIN about body axis ``axis``,
    its body axes turned away from the world axes so that world and body components differ."""
    model = mb.Model("spinning", gravity=(0.0, 0.0, 0.0))
    R_WB = expm(np.cross(np.eye(3), [0.3, -0.5, 0.7]))
    model.add(
        mb.RigidBody(
            "top",
            1.0,
            INERTIA,
            position=(0.0, 0.0, 0.0),
            orientation=R_WB,
            angular_velocity=R_WB @ (SPIN * np.eye(3)[axis]),
        )
    )
    return model


def test_steady_spin_about_the_major_axis_wobbles_at_the_euler_frequency() -> None:
    model = spinning_body(2)
    run = mb.dynamics(model, 0.5, 0.25, rtol=1e-10)
    modes = mb.linearize(model, at=run, time=0.25).modes()  # a point of a dynamic run
    I1, I2, I3 = INERTIA
    wobble = SPIN * np.sqrt((I3 - I1) * (I3 - I2) / (I1 * I2))
    assert modes.rigid_body.sum() == 8  # translations and spin: position and velocity each
    # Two oscillations: the wobble, and the turning of the body axes under a tilted spin (at SPIN).
    np.testing.assert_allclose(np.sort(modes.eigenvalues[~modes.rigid_body].imag), np.sort([wobble, SPIN]), rtol=1e-8)
    np.testing.assert_allclose(modes.eigenvalues[~modes.rigid_body].real, 0.0, atol=1e-8)


def test_steady_spin_about_the_intermediate_axis_is_unstable() -> None:
    model = spinning_body(1)
    system = model.compile()
    state = mb.State(0.0, system.q0, system.v0, np.zeros(0))
    modes = mb.linearize(system, at=state).modes()
    I1, I2, I3 = INERTIA
    growth = SPIN * np.sqrt((I2 - I1) * (I3 - I2) / (I1 * I3))
    assert np.isclose(np.max(modes.eigenvalues.real), growth, rtol=1e-8)


# -- state-space inputs and outputs -------------------------------------------------------------


def spring_mount(base_motion: bool) -> mb.Model:
    """A 2 kg body on a vertical slide held by a spring (k = 800 N/m) to a base: the ground, or a
    driven base body (``base_motion``) on its own slide. A PointForce 'push' acts on the body."""
    model = mb.Model("spring_mount", gravity=(0.0, 0.0, -G))
    up = (0.0, 0.0, 1.0)
    body = model.add(mb.RigidBody("mass", 2.0, (0.01, 0.01, 0.01), position=(0.0, 0.0, 1.0)))
    base = model.ground
    if base_motion:
        base = model.add(mb.RigidBody("base", 5.0, (0.1, 0.1, 0.1), position=(0.0, 0.0, 0.0)))
        slide = model.add(
            mb.Translational(
                "base_slide", base.add_marker("slide", z_axis=up), model.ground.add_marker("slide", z_axis=up)
            )
        )
        model.add(mb.Motion("shaker", slide, displacement=0.0))
    model.add(mb.Translational("mass_slide", body.add_marker("slide", z_axis=up), base.add_marker("guide", z_axis=up)))
    model.add(mb.SpringDamper("spring", body.add_marker("hook"), base.add_marker("seat"), 800.0, 0.0, 1.0))
    model.add(mb.PointForce("push", body.marker("hook"), (0.0, 0.0, 0.0)))
    return model


def static_gain(linear: mb.LinearModel) -> np.ndarray:
    """Output per unit constant input once settled: D - C A^-1 B."""
    return linear.D - linear.C @ np.linalg.solve(linear.A, linear.B)


def test_force_input_moves_a_spring_mounted_body_by_f_over_k() -> None:
    linear = mb.linearize(spring_mount(False), inputs=["push.z"], outputs=["mass/hook.z", "mass_slide.translation"])
    assert linear.input_names == ("push.z",) and linear.output_names == ("mass/hook.z", "mass_slide.translation")
    np.testing.assert_allclose(static_gain(linear), [[1 / 800.0], [1 / 800.0]], rtol=1e-8)
    np.testing.assert_allclose(linear.D, 0.0, atol=1e-15)
    np.testing.assert_allclose(linear.modes().frequencies_hz, np.sqrt(800.0 / 2.0) / (2 * np.pi), rtol=1e-8)


def test_motion_input_shakes_the_base_and_the_mass_follows() -> None:
    linear = mb.linearize(spring_mount(True), inputs=["shaker", "push"], outputs=["base/seat.z", "mass/hook.z"])
    assert linear.input_names == ("shaker", "push.x", "push.y", "push.z")
    # The base marker follows the shaker at once (D = 1, no dynamics); the mass settles to the
    # same displacement (the spring is back at its preload), and to F / k under the push.
    np.testing.assert_allclose(linear.D[0], [1.0, 0.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(linear.C[0], 0.0, atol=1e-9)
    np.testing.assert_allclose(static_gain(linear)[1, [0, 3]], [1.0, 1 / 800.0], rtol=1e-8)
    np.testing.assert_allclose(linear.modes().frequencies_hz, np.sqrt(800.0 / 2.0) / (2 * np.pi), rtol=1e-8)


def test_unknown_names_and_zero_dof_are_reported() -> None:
    with pytest.raises(KeyError, match=r"unknown input 'nothing'.*push"):
        mb.linearize(spring_mount(False), inputs=["nothing"])
    with pytest.raises(KeyError, match=r"unknown output 'mass/tip'.*mass/hook"):
        mb.linearize(spring_mount(False), outputs=["mass/tip"])
    slider_crank = example("slider_crank")
    with pytest.raises(mb.AnalysisError, match="no degree of freedom"):
        mb.linearize(slider_crank.build(), at=mb.assemble(slider_crank.build()))


def test_linear_model_saves_and_loads(tmp_path: Path) -> None:
    linear = mb.linearize(spring_mount(False), inputs=["push.z"], outputs=["mass/hook"])
    linear.save(tmp_path / "linear.h5")
    loaded = mb.LinearModel.load(tmp_path / "linear.h5")
    assert loaded.output_names == ("mass/hook.x", "mass/hook.y", "mass/hook.z")
    for name in ("mass", "damping", "stiffness", "A", "B", "C", "D", "motion_basis"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(linear, name))
    assert loaded.model_name == "spring_mount" and loaded.time == 0.0


# -- linear versus nonlinear --------------------------------------------------------------------

DRIVE_TORQUE = 1.0
"""Torque holding the slider-crank against its return spring [N m]."""


def loaded_slider_crank(extra_torque: float = 0.0) -> mb.Model:
    """``examples/slider_crank.py``'s mechanism, undriven, with a torque on the crank and a spring
    pulling the slider towards x = 1 m; ``extra_torque`` [N m] is added to the drive."""
    slider_crank = example("slider_crank")
    model, _ = slider_crank.mechanism("loaded_slider_crank")
    crank, slider = model.bodies["crank"], model.bodies["slider"]
    # The crank axis is -y: a torque along -y turns the crank forwards (theta up).
    model.add(mb.PointTorque("drive", crank.marker("pivot"), (0.0, -DRIVE_TORQUE + extra_torque, 0.0)))
    anchor = model.ground.add_marker("anchor", (1.0, 0.0, 0.0))
    model.add(mb.SpringDamper("return_spring", slider.marker("guide"), anchor, 100.0, 0.0, 0.4))
    return model


def test_linear_response_of_the_slider_crank_agrees_to_second_order() -> None:
    system = loaded_slider_crank().compile()
    equilibrium = mb.statics(system)
    linear = mb.linearize(
        system, at=equilibrium, inputs=["drive.y"], outputs=["crank_pivot.rotation", "slider/guide.x"]
    )
    (mode,) = linear.modes().eigenvalues
    period = 2 * np.pi / mode.imag
    start = state_from_results(system, equilibrium)
    errors = []
    for step in (8e-3, 4e-3):
        run = mb.dynamics(loaded_slider_crank(step), period, period / 40, rtol=1e-10, initial_state=start)
        # Linear response to a step input u: s(t) = A^-1 (e^{A t} - I) B u, y = C s.
        identity = np.eye(len(linear.A))
        predicted = np.array(
            [
                linear.C @ np.linalg.solve(linear.A, (expm(linear.A * t) - identity) @ linear.B[:, 0]) * step
                for t in run.time
            ]
        )
        # Nonlinear: crank rotation about -y from its rotation matrix, slider travel along x.
        R = run.body("crank").rotation
        turn = R @ R[0].T
        crank_angle = np.arctan2(turn[:, 2, 0] - turn[:, 0, 2], turn[:, 0, 0] + turn[:, 2, 2])
        slider_travel = run.body("slider").position[:, 0] - run.body("slider").position[0, 0]
        actual = np.column_stack([crank_angle, slider_travel])
        error = np.max(np.abs(actual - predicted), axis=0)
        # The linear part is the response: the error is a small fraction of it.
        assert np.all(error < 2e-2 * np.max(np.abs(predicted), axis=0))
        errors.append(error)
    # Second order: halving the step quarters the error (crank angle and slider travel).
    np.testing.assert_allclose(errors[0] / errors[1], 4.0, rtol=0.05)
