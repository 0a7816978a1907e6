"""Output frames from the integrator's dense output (``BDF.dense_state``) instead of a fresh solve.

Under SI2 a frame takes its accelerations and multipliers from the polynomials BDF keeps of the
rates its corrector solved for and of the multipliers (``multibody.solve.integrators.bdf``), not
from a new factorization of ``[M G^T; G 0]`` at the interpolated state. References:

* on a linear ODE, the closed-form solution and its derivative: the interpolated rate and
  algebraic variable are as accurate as the interpolated solution (the same bound as
  ``tests/test_bdf.py``: a global error of at most 100 rtol per unit amplitude and time);
* on the free slider-crank (a closed loop), the frame solved afresh at the same interpolated
  state. Both are estimates of the same accelerations and reactions, each within the run's
  error: against a converged run (rtol 1e-10) both are off by 60-120 rtol of the largest value
  over 2 s, and they differ from each other by 7-22 rtol at rtol 1e-6 and 24-64 rtol at 1e-8
  (the relative error of an error-per-step controller grows slowly as the tolerance tightens).
  The bound is 100 rtol of the largest value (at least 1 N, N m or m/s^2: the reaction torques
  of this planar loop are round-off), and the difference must shrink with the tolerance.

A frame's kinetic energy is ``1/2 v^T M(q) v`` with the evaluation's mass matrix; it must be the
formulation's sum over the body kinds (``CartesianFormulation.kinetic_energy``: rigid, modal, cable)
to round-off, at arbitrary velocities.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_bdf import LinearProblem

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.analysis.events import EventDrivenIntegrator
from multibody.analysis.output import RigidFrames, frame_packing, output_frame
from multibody.cli import build_model, load_model_file
from multibody.formulation.cartesian import CartesianFormulation
from multibody.solve.integrators.base import Correction
from multibody.solve.integrators.bdf import BDF

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SOLVED = (
    "body/acceleration",
    "body/angular_acceleration",
    "joint/reaction_force",
    "joint/reaction_torque",
    "joint/reaction_force_in_j",
    "joint/reaction_torque_in_j",
)
"""Frame entries that depend on the accelerations and multipliers (the rest only on q, v, t)."""


class Oscillator(LinearProblem):
    """``y' = A y`` (omega = 2 rad/s) with the algebraic variable ``z = -4 y_0`` (the rate of
    ``y_1``) returned with each exact implicit solve (``test_bdf.LinearProblem``'s solve)."""

    A = np.array([[0.0, 1.0], [-4.0, 0.0]])

    def __init__(self) -> None:
        super().__init__(Oscillator.A)

    def correct(self, t, predicted, base, c, z_guess, weights, tolerance, refresh_jacobian):
        solved = super().correct(t, predicted, base, c, z_guess, weights, tolerance, refresh_jacobian)
        return Correction(solved.y, np.array([-4.0 * solved.y[0]]), True, 1, 0.0)


@pytest.mark.parametrize("rtol", [1e-6, 1e-9])
def test_dense_state_of_bdf_against_the_closed_form(rtol):
    """``y = (cos 2t, -2 sin 2t)`` over 10 s, sampled at six instants in every step (the order-1
    start included): ``y``, ``dy/dt`` and ``z`` within 100 rtol x 10 s x their amplitude (1 or 2,
    4, 4); at each step's end the rate is the corrector's, ``A y``, to round-off."""
    problem = Oscillator()
    integrator = BDF(problem, 0.0, np.array([1.0, 0.0]), np.array([0.0, -4.0]), np.array([-4.0]), 10.0, rtol, rtol)
    first = integrator.dense_state(0.0)
    np.testing.assert_array_equal(np.concatenate(first), [1.0, 0.0, 0.0, -4.0, -4.0])
    errors = np.zeros(3)
    while integrator.t < 10.0:
        integrator.step()
        for t in np.linspace(integrator.t_old, integrator.t, 7)[1:]:
            y, rate, z = integrator.dense_state(t)
            exact = np.array([np.cos(2 * t), -2 * np.sin(2 * t)])
            np.testing.assert_array_equal(y, integrator.dense_output(t))
            error = [np.abs(y - exact).max(), np.abs(rate - Oscillator.A @ exact).max(), abs(z[0] + 4 * exact[0])]
            errors = np.maximum(errors, error)
        _, rate, z = integrator.dense_state(integrator.t)
        np.testing.assert_allclose(rate, Oscillator.A @ integrator.y, rtol=0, atol=1e-11)
        np.testing.assert_allclose(z, integrator.z, rtol=0, atol=1e-12)
    assert np.all(errors < 100 * rtol * 10 * np.array([2.0, 4.0, 4.0]))


def slider_crank_frames(rtol: float, t_end: float = 2.0, output_step: float = 0.01):
    """The free slider-crank under SI2: pairs ``(frame, fresh)`` at every output time, the frame
    as ``dynamics`` records it and the one solved afresh at the same interpolated state."""
    system = build_model(load_model_file(EXAMPLES / "free_slider_crank.py")).compile()
    system, state = assembled_state(system)
    integrator = EventDrivenIntegrator(system, state, "SI2", t_end, rtol, rtol, np.inf)
    form, pairs = integrator.form, []
    times = list(output_step * np.arange(1, round(t_end / output_step) + 1))
    while integrator.t < t_end:
        integrator.step()
        while times and times[0] <= integrator.t + 1e-12:
            t = times.pop(0)
            q, v, x, dissipated, input_work = integrator.layout.split(
                integrator.problem.finalize(integrator.integrator.dense_output(t))
            )
            evaluation, acceleration, lam = form.solve_accelerations(form.evaluate(q, v, t, x))
            fresh = output_frame(form, evaluation, acceleration, lam, dissipated, input_work)
            pairs.append((integrator.frame_at(t), fresh))
    return pairs


def test_si2_frames_agree_with_a_fresh_solve():
    """Slider-crank, 2 s: everything but the accelerations and reactions is the same to the bit
    (same interpolated state); those agree within 100 rtol of their largest value (module
    docstring), and a 100x tighter tolerance brings them at least 10x closer."""
    worst = []
    for rtol in (1e-6, 1e-8):
        pairs = slider_crank_frames(rtol)
        assert len(pairs) == 200
        for frame, fresh in pairs:
            assert frame.keys() == fresh.keys()
            for key in frame.keys() - set(SOLVED):
                np.testing.assert_array_equal(frame[key], fresh[key], err_msg=key)
        difference = 0.0
        for key in SOLVED:
            cheap, solved = (np.array([pair[k][key] for pair in pairs]) for k in (0, 1))
            relative = np.abs(cheap - solved).max() / max(np.abs(solved).max(), 1.0)
            assert relative < 100 * rtol, key
            difference = max(difference, relative)
        worst.append(difference)
    assert worst[1] < worst[0] / 10


def cable_pendulum() -> mb.Model:
    """A 1 m ANCF cable of four elements pinned at the origin, a 50 g bob hooked to its tip."""
    model = mb.Model("cable_pendulum")
    nodes = np.column_stack([np.linspace(0.0, 1.0, 5), np.zeros(5), np.zeros(5)])
    cable = model.add(mb.AncfCable("rope", nodes, mb.Section.circle(0.01), mb.Material(2e6, 0.3, 1000.0)))
    model.add(mb.Spherical("pin", cable.marker_at("root", 0.0), model.ground.add_marker("pin")))
    bob = model.add(mb.RigidBody("bob", 0.05, (1e-5, 1e-5, 1e-5), position=(1.0, 0.0, 0.0)))
    model.add(mb.Spherical("hook", cable.marker_at("tip", 1.0), bob.add_marker("hook")))
    return model


@pytest.mark.parametrize("example", ["free_slider_crank", "heavy_top", "flexible_crane", None])
def test_frame_kinetic_energy_is_the_formulations(example):
    """Rigid bodies, a modal flexible body (the crane) and an ANCF cable (``None``): the frame's
    ``1/2 v^T M v`` against the formulation's kinetic energy at three random velocities, to 1e-13."""
    model = cable_pendulum() if example is None else build_model(load_model_file(EXAMPLES / f"{example}.py"))
    system, state = assembled_state(model.compile())
    form = CartesianFormulation(system)
    rng = np.random.default_rng(1)
    for _ in range(3):
        v = state.v + rng.normal(size=state.v.size)
        evaluation = form.evaluate(state.q, v, state.t, state.x)
        frame = output_frame(form, evaluation, np.zeros(v.size), np.zeros(len(form.rows)), 0.0)
        expected = form.kinetic_energy(evaluation.frames, evaluation.motion)
        assert float(frame["energy/kinetic"]) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("example", ["free_slider_crank", "quarter_car_study", "cam_follower", "sliding_door"])
def test_rigid_frame_is_the_evaluated_frame(example):
    """``RigidFrames.frame`` (the SI2 frame of a rigid model, from a pass that skips Phi, G and Q) against
    ``output_frame`` at the full evaluation of the same state: springs and dampers (quarter car),
    a cam contact, and friction that reads the multipliers with a first-order state (sliding door)
    included, every entry the same to the bit (the same kernels on the same numbers), at random
    velocities, accelerations and multipliers."""
    system, state = assembled_state(build_model(load_model_file(EXAMPLES / f"{example}.py")).compile())
    assert system.rigid_only
    form = CartesianFormulation(system)
    rng = np.random.default_rng(2)
    v = state.v + rng.normal(size=state.v.size)
    acceleration = rng.normal(size=state.v.size)
    lam = rng.normal(size=len(form.rows))
    evaluation = form.evaluate(state.q, v, state.t, state.x, lam)
    expected = output_frame(form, evaluation, acceleration, lam, 0.25, 0.5)
    frame = RigidFrames(form, frame_packing(system)).frame(state.q, v, state.t, state.x, lam, acceleration, 0.25, 0.5)
    assert frame.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(frame[key], expected[key], err_msg=key)
