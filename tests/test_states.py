"""User differential equations, transfer functions, state space and PID controllers
(``multibody.model.states``), advanced with the mechanics by the BDF integrators.

References (all closed forms, nothing tuned):
- a first-order lag x' = (1 - x) / tau: x = 1 - exp(-t / tau);
- a DIFF integrating a marker's position while the body drifts at constant speed: x0 t + v t^2 / 2;
- a DIFF whose output is a force on a free mass (x' = 1, so F = t): v = t^2 / (2 m);
- the unit step response of wn^2 / (s^2 + 2 zeta wn s + wn^2) and of 1 / (tau s + 1);
- linear state space and PID loops: the matrix exponential of the closed-loop system matrix;
- a PID holding an inverted pendulum upright: the linearized closed loop (matrix exponential),
  which the nonlinear pendulum follows to O(theta^3).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

import multibody as mb

RTOL = 1e-8
"""Integrator tolerance: global errors of a few 1e-7 for the O(1) signals of these runs."""
CLOSED_FORM = 2e-6
"""Against closed forms: some hundred steps each with a local error near rtol (1 + |y|)."""


def carrier(name: str) -> mb.Model:
    """A model with one free body in zero gravity (the engine needs a body to integrate)."""
    model = mb.Model(name, gravity=(0.0, 0.0, 0.0))
    model.add(mb.RigidBody("carrier", 1.0, (1.0, 1.0, 1.0)))
    return model


def test_first_order_lag_matches_exponential() -> None:
    model = carrier("lag")
    tau = 0.2
    model.add(mb.DifferentialEquation("lag", lambda t, x, measure: (1.0 - x) / tau, initial=0.0))
    res = mb.dynamics(model, 1.0, 0.05, rtol=RTOL)
    assert res.state("lag").shape == (len(res.time), 1)
    assert res.state("lag")[:, 0] == pytest.approx(1.0 - np.exp(-res.time / tau), abs=CLOSED_FORM)


def test_vector_equation_is_a_harmonic_oscillator() -> None:
    """x = (position, velocity) of x'' = -w^2 x: (cos w t, -w sin w t)."""
    model = carrier("oscillator")
    w = 3.0
    model.add(mb.DifferentialEquation("osc", lambda t, x, m: np.array([x[1], -(w**2) * x[0]]), initial=[1.0, 0.0]))
    res = mb.dynamics(model, 2.0, 0.05, rtol=RTOL)
    x = res.state("osc")
    assert x[:, 0] == pytest.approx(np.cos(w * res.time), abs=5 * CLOSED_FORM)  # |x'| = 3: 3x the error scale
    assert x[:, 1] == pytest.approx(-w * np.sin(w * res.time), abs=5 * CLOSED_FORM)


def test_equation_reads_a_marker_and_another_equation() -> None:
    """x' = p_x of a body drifting at v: x = x0 t + v t^2 / 2; y' = x reads the first equation's
    state: y = x0 t^2 / 2 + v t^3 / 6."""
    model = mb.Model("drift", gravity=(0.0, 0.0, 0.0))
    x0, v = 0.5, 0.3
    body = model.add(mb.RigidBody("body", 1.0, (1.0, 1.0, 1.0), position=(x0, 0.0, 0.0), velocity=(v, 0.0, 0.0)))
    center = body.add_marker("center")
    area = model.add(mb.DifferentialEquation("area", lambda t, x, m: m.displacement(center)[0], reads=[center]))
    model.add(mb.DifferentialEquation("volume", lambda t, x, m: m.state(area)[0]))
    res = mb.dynamics(model, 1.0, 0.1, rtol=RTOL)
    t = res.time
    assert res.state("area")[:, 0] == pytest.approx(x0 * t + v * t**2 / 2, abs=CLOSED_FORM)
    assert res.state("volume")[:, 0] == pytest.approx(x0 * t**2 / 2 + v * t**3 / 6, abs=CLOSED_FORM)


def test_equation_output_as_a_load() -> None:
    """x' = 1 applied as a force x along the z axis of the mass's marker: m v' = t."""
    model = mb.Model("ramp_force", gravity=(0.0, 0.0, 0.0))
    mass = 2.0
    body = model.add(mb.RigidBody("body", mass, (1.0, 1.0, 1.0)))
    push = body.add_marker("push", z_axis=(1.0, 0.0, 0.0))
    model.add(mb.DifferentialEquation("ramp", lambda t, x, m: 1.0, i_marker=push))
    res = mb.dynamics(model, 1.0, 0.1, rtol=RTOL)
    t = res.time
    assert res.body("body").velocity[:, 0] == pytest.approx(t**2 / (2 * mass), abs=CLOSED_FORM)
    assert res.force("ramp").force[:, 0] == pytest.approx(t, abs=CLOSED_FORM)


def test_transfer_function_step_responses() -> None:
    model = carrier("transfer_functions")
    wn, zeta, tau = 2.0, 0.2, 0.3
    model.add(mb.TransferFunction("second", [wn**2], [1.0, 2 * zeta * wn, wn**2], input=lambda m: 1.0))
    model.add(mb.TransferFunction("first", [1.0], [tau, 1.0], input=lambda m: 1.0))
    res = mb.dynamics(model, 3.0, 0.05, rtol=RTOL)
    t = res.time
    wd = wn * np.sqrt(1 - zeta**2)
    second = 1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * t))
    assert res.force("second").value == pytest.approx(second, abs=CLOSED_FORM)
    assert res.force("first").value == pytest.approx(1 - np.exp(-t / tau), abs=CLOSED_FORM)
    assert res.state("second").shape == (len(t), 2)


def test_transfer_function_with_direct_feedthrough() -> None:
    """(s + 3) / (s + 1) = 1 + 2 / (s + 1): unit step response 3 - 2 exp(-t)."""
    model = carrier("lead")
    model.add(mb.TransferFunction("lead", [1.0, 3.0], [1.0, 1.0], input=lambda m: 1.0))
    res = mb.dynamics(model, 2.0, 0.1, rtol=RTOL)
    assert res.force("lead").value == pytest.approx(3 - 2 * np.exp(-res.time), abs=CLOSED_FORM)


def test_state_space_matches_matrix_exponential() -> None:
    """x' = A x + B u, u = 1: x = expm(A t) x0 + A^-1 (expm(A t) - I) B; y = C x + D u."""
    A = np.array([[0.0, 1.0], [-4.0, -1.0]])
    B = np.array([[0.0], [1.0]])
    C = np.array([[1.0, 0.5]])
    D = np.array([[0.2]])
    x0 = np.array([0.3, -0.1])
    model = carrier("state_space")
    model.add(mb.StateSpace("plant", A, B, C, input=lambda m: 1.0, D=D, initial=x0))
    res = mb.dynamics(model, 2.0, 0.1, rtol=RTOL)
    exact = np.array([expm(A * t) @ x0 for t in res.time]) + forced_response(A, B[:, 0], res.time)
    assert res.state("plant") == pytest.approx(exact, abs=CLOSED_FORM)
    assert res.force("plant").value == pytest.approx(exact @ C[0] + D[0, 0], abs=CLOSED_FORM)


def slider(mass: float) -> tuple[mb.Model, mb.Marker, mb.Translational]:
    """A mass on a frictionless slide along world x (no gravity along it)."""
    model = mb.Model("slider", gravity=(0.0, 0.0, -9.81))
    block = model.add(mb.RigidBody("block", mass, (0.1, 0.1, 0.1)))
    along_x = (1.0, 0.0, 0.0)
    hand = block.add_marker("slide", z_axis=along_x)
    slide = model.add(mb.Translational("slide", hand, model.ground.add_marker("slide", z_axis=along_x)))
    return model, hand, slide


def pid_on_slider(mass: float, target: float, t_end: float, exact_rate: bool, **gains: float) -> mb.Results:
    """The slider under a PID force holding it at ``target``: e = target - x, with e' = -x'
    (``exact_rate``) or the PID's filtered derivative."""
    model, hand, slide = slider(mass)
    rate = {"error_rate": lambda m: -m.joint_rate(slide)} if exact_rate else {}
    model.add(mb.PID("pid", error=lambda m: target - m.joint(slide), i_marker=hand, reads=[slide], **rate, **gains))
    return mb.dynamics(model, t_end, 0.05, rtol=RTOL)


def forced_response(M: np.ndarray, b: np.ndarray, times: np.ndarray) -> np.ndarray:
    """z(t) (T, n) of z' = M z + b, z(0) = 0: M^-1 (expm(M t) - I) b."""
    return np.array([np.linalg.solve(M, (expm(M * t) - np.eye(len(b))) @ b) for t in times])


def test_pid_position_loop_matches_closed_loop_exponential() -> None:
    """m x'' = kp e + ki int(e) + kd e', e = r - x, e' = -x': a linear third-order closed loop."""
    mass, kp, ki, kd, target = 2.0, 40.0, 30.0, 8.0, 0.1
    res = pid_on_slider(mass, target, 3.0, exact_rate=True, kp=kp, ki=ki, kd=kd)
    # z = (x, v, integral of e): z' = M z + b
    M = np.array([[0.0, 1.0, 0.0], [-kp / mass, -kd / mass, ki / mass], [-1.0, 0.0, 0.0]])
    exact = forced_response(M, np.array([0.0, kp * target / mass, target]), res.time)
    assert res.body("block").position[:, 0] == pytest.approx(exact[:, 0], abs=CLOSED_FORM)
    assert res.state("pid")[:, 0] == pytest.approx(exact[:, 2], abs=CLOSED_FORM)
    assert res.body("block").position[-1, 0] == pytest.approx(target, abs=2e-3)  # it settles: not vacuous


def test_pid_with_filtered_derivative_matches_exponential() -> None:
    """kd (e - z) / tau with z' = (e - z) / tau: the loop gains the filter state (fourth order)."""
    mass, kp, ki, kd, tau, target = 1.0, 25.0, 5.0, 6.0, 0.02, 0.2
    res = pid_on_slider(mass, target, 2.0, exact_rate=False, kp=kp, ki=ki, kd=kd, filter_time_constant=tau)
    # z = (x, v, integral of e, filter state); e = target - x
    M = np.array(
        [
            [0.0, 1.0, 0.0, 0.0],
            [-(kp + kd / tau) / mass, 0.0, ki / mass, -kd / tau / mass],
            [-1.0, 0.0, 0.0, 0.0],
            [-1.0 / tau, 0.0, 0.0, -1.0 / tau],
        ]
    )
    exact = forced_response(M, np.array([0.0, (kp + kd / tau) * target / mass, target, target / tau]), res.time)
    assert res.body("block").position[:, 0] == pytest.approx(exact[:, 0], abs=CLOSED_FORM)
    assert res.state("pid") == pytest.approx(exact[:, 2:], abs=CLOSED_FORM)


def test_pid_holds_an_inverted_pendulum_against_a_disturbance() -> None:
    """A rod (m, l, about its end) upright under gravity, a torque step d at 0.1 s; the PID on its
    angle brings it back (ki removes the offset). Reference: the linearized loop
    I th'' = m g c th + d + T_pid, which the pendulum follows to O(th^3) (th < 0.01 rad here)."""
    mass, length, g = 1.0, 0.5, 9.81
    inertia = mass * length**2 / 3  # about the pin
    kp, ki, kd, disturbance = 30.0, 40.0, 3.0, 0.2
    model = mb.Model("inverted", gravity=(0.0, -g, 0.0))
    rod = model.add(
        mb.RigidBody("rod", mass, (mass * length**2 / 12, 1e-4, mass * length**2 / 12), position=(0, length / 2, 0))
    )
    pin = model.add(mb.Revolute("pin", rod.add_marker("pin", (0.0, -length / 2, 0.0)), model.ground.add_marker("pin")))
    model.add(
        mb.PID(
            "pid",
            error=lambda m: -m.joint(pin),
            kp=kp,
            ki=ki,
            kd=kd,
            error_rate=lambda m: -m.joint_rate(pin),
            i_marker=pin.i_marker,
            j_marker=pin.j_marker,
            load="torque",
            reads=[pin],
        )
    )
    model.add(mb.PointTorque("push", rod.add_marker("push"), lambda t: (0.0, 0.0, disturbance * (t >= 0.1))))
    res = mb.dynamics(model, 3.0, 0.02, rtol=RTOL, max_step=0.01)
    angle = np.arctan2(-res.body("rod").position[:, 0], res.body("rod").position[:, 1])
    # z = (th, th', integral of e = -th): linear closed loop driven by d from 0.1 s
    c = length / 2
    M = np.array([[0.0, 1.0, 0.0], [(mass * g * c - kp) / inertia, -kd / inertia, ki / inertia], [-1.0, 0.0, 0.0]])
    late = np.maximum(res.time - 0.1, 0.0)
    exact = forced_response(M, np.array([0.0, disturbance / inertia, 0.0]), late)[:, 0]
    assert np.max(np.abs(angle)) > 5e-3  # the push did tilt it
    # sin th - th = th^3 / 6 < 2e-7 relative to the gravity torque, plus the integration error.
    assert angle == pytest.approx(exact, abs=1e-6)
    assert abs(angle[-1]) < 2e-3  # held upright: the integral removed the offset


def test_pid_output_limit_stops_the_integral() -> None:
    """Constant error 1, kp = 0.2, ki = 1, limits +-0.5: the integral grows as t until the output
    reaches 0.5 (integral 0.3 at t = 0.3 s), then holds (anti-windup) while the output stays clipped."""
    model = carrier("windup")
    model.add(mb.PID("pid", error=lambda m: 1.0, kp=0.2, ki=1.0, limits=(-0.5, 0.5)))
    res = mb.dynamics(model, 1.0, 0.05, rtol=RTOL)
    integral = res.state("pid")[:, 0]
    # the switch at 0.3 s is a kink the step control locates to about rtol
    assert integral == pytest.approx(np.minimum(res.time, 0.3), abs=1e-6)
    assert res.force("pid").value == pytest.approx(np.minimum(0.2 + res.time, 0.5), abs=1e-6)


def test_algebraic_loop_is_named() -> None:
    model = carrier("loop")
    first = mb.StateSpace("first", [[-1.0]], [[1.0]], [[1.0]], D=[[1.0]], input=lambda m: m.output(second))
    second = mb.StateSpace("second", [[-1.0]], [[1.0]], [[1.0]], D=[[1.0]], input=lambda m: m.output(first))
    model.add(first)
    model.add(second)
    with pytest.raises(mb.ModelError, match="depends on itself"):
        mb.dynamics(model, 0.1, 0.05)


def test_bad_input_is_named() -> None:
    with pytest.raises(mb.ModelError, match="improper"):
        mb.TransferFunction("tf", [1.0, 0.0, 0.0], [1.0, 1.0], input=lambda m: 1.0)
    with pytest.raises(mb.ModelError, match="state space 'ss'.*square"):
        mb.StateSpace("ss", np.ones((2, 3)), np.ones((2, 1)), np.ones((1, 2)), input=lambda m: 1.0)
    with pytest.raises(mb.ModelError, match="PID controller 'pid'.*filter_time_constant"):
        mb.PID("pid", error=lambda m: 0.0, kp=1.0, kd=1.0, filter_time_constant=0.0)
    with pytest.raises(mb.ModelError, match="rate must be a callable"):
        mb.DifferentialEquation("diff", rate=1.0)
    model = carrier("wrong_rate")
    model.add(mb.DifferentialEquation("diff", lambda t, x, m: [1.0, 2.0], initial=[0.0, 0.0, 0.0]))
    with pytest.raises(mb.AnalysisError, match="differential equation 'diff'.*3 states"):
        mb.dynamics(model, 0.1, 0.05)


def test_an_implicit_differential_equation_and_a_general_state_equation() -> None:
    """ADAMS DIFF/IMPLICIT and GSE in Python. Reference: the implicit residual x'^3 + x' + x = 0
    written explicitly, x' = -s with s the real root of s^3 + s = x (scipy's brentq); both runs
    at rtol 1e-9 agree to 1e-7 (the Newton solve for x' is converged to 1e-12). The GSE's output
    y = 3 x + 1, read by a second equation z' = y, gives z(t) = 3 int x dt + t (the trapezoid
    rule on the 0.01 s output grid is good to 1e-4 here)."""
    from scipy.optimize import brentq

    def explicit_rate(t, x, measure):
        return -brentq(lambda s: s**3 + s - x, -10.0, 10.0, xtol=1e-15)

    runs = []
    for implicit in (True, False):
        model = mb.Model("implicit")
        if implicit:
            lag = mb.DifferentialEquation(
                "lag",
                lambda t, x, x_dot, measure: x_dot**3 + x_dot + x,
                1.0,
                implicit=True,
                output=lambda t, x, measure: 3.0 * x + 1.0,
            )
        else:
            lag = mb.DifferentialEquation("lag", explicit_rate, 1.0, output=lambda t, x, measure: 3.0 * x + 1.0)
        model.add(lag)
        model.add(mb.DifferentialEquation("sum", lambda t, z, measure: measure.output(lag), 0.0))
        runs.append(mb.dynamics(model, 2.0, 0.01, rtol=1e-9))
    implicit_run, explicit_run = runs
    x = implicit_run.state("lag")[:, 0]
    assert x == pytest.approx(explicit_run.state("lag")[:, 0], abs=1e-7)
    assert x[-1] < 0.5  # it decayed: the comparison is not vacuous
    integral = np.concatenate([[0.0], np.cumsum(0.5 * (x[1:] + x[:-1]) * np.diff(implicit_run.time))])
    assert implicit_run.state("sum")[:, 0] == pytest.approx(3.0 * integral + implicit_run.time, abs=1e-4)
