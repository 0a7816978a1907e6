"""Robustness of the integrators on the cases of issue 10, each with its own mechanism and reference.

* A force law that is NaN at t = 0: every method fails at once, naming the force (before, the NaN
  initial rate made a NaN step size that never failed the smallest-step test: an endless loop).
* Kane + BDF on a closed loop (a four-bar, one cut joint): the projection onto the cut
  constraints was triggered by a velocity violation compared with atol alone, which the BDF
  solution exceeds whenever rtol |u| > atol, and each projection entered BDF's differences as a
  jump: the step collapsed. Reference: the Cartesian formulation at a tight tolerance.
* A parallelogram four-bar through its collinear (singular) positions at rtol 1e-10: I3, Kane and
  SI2 run through (reference: crank and rocker turn together; SI2 takes the nearly dependent rows
  as I3 near the crossing, where its velocity rows amplify round-off by the square of the
  condition of G), also with a heavier rocker and on a chain of four loops.
* SI2 at rtol = atol = 1e-10 on an ill-conditioned four-bar (bars of 10-40 m, axial inertia 1e-7 of
  the transverse): Newton stalled at the linear solve's round-off, above the 10-ulp floor, and
  the step collapsed. Reference: energy conservation (nothing dissipates).
* A run whose equations change faster than any step can follow (an unregularized Coulomb brake at
  rest: a sliding mode) crawled on at steps of 1e-13 s for ever; it now stops (``min_step``, ADAMS's
  HMIN, as a stall test) at the instant the block stops, its results kept.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from test_failures import pendulum
from test_robustness_errors import rhombus

import multibody as mb
from multibody.analysis.errors import AnalysisError
from multibody.solve.integrators.base import IntegrationError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GRAVITY = 9.81


def nan_at_start(t: float) -> tuple[float, float, float]:
    return (np.nan if t == 0.0 else 0.0, 0.0, 0.0)


def pushed_pendulum() -> mb.Model:
    """The pendulum of ``test_failures`` pushed by ``nan_at_start``."""
    return pendulum(nan_at_start)


@pytest.mark.parametrize(
    "formulation, method", [("cartesian", "SI2"), ("cartesian", "I3"), ("cartesian", "HHT"), ("kane", "BDF")]
)
def test_force_nan_at_start_fails_fast_naming_the_force(formulation, method):
    with pytest.raises((IntegrationError, AnalysisError), match="force element 'push' returned a non-finite load"):
        mb.dynamics(pushed_pendulum(), 1.0, 0.01, method=method, formulation=formulation)


def four_bar_example():
    spec = importlib.util.spec_from_file_location("four_bar_example", EXAMPLES / "four_bar.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_kane_bdf_on_a_closed_loop_keeps_its_step():
    """The example four-bar (crank at 1 rev/s) with Kane + BDF at rtol 1e-8: before the fix the
    step collapsed at t = 0.033 s. The crank's angular velocity follows the Cartesian SI2 run at
    rtol 1e-10 to 1e-6 of its largest value: a global error of about 100 steps' worth of local
    error at rtol 1e-8 (measured 6e-7; the error of the reference is 1e-8 of that)."""
    model = four_bar_example().build()
    kane = mb.dynamics(model, 0.3, 0.01, formulation="kane", rtol=1e-8)
    cartesian = mb.dynamics(model, 0.3, 0.01, method="SI2", rtol=1e-10)
    expected = cartesian.body("crank").angular_velocity
    np.testing.assert_allclose(kane.body("crank").angular_velocity, expected, atol=1e-6 * np.abs(expected).max())
    assert kane.stats["steps"] < 1000


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_si2_at_tight_tolerance_on_an_ill_conditioned_four_bar():
    """The example four-bar scaled 100x (bars 10-40 m, 20-80 kg, radius 1 cm: the iteration matrix
    spans 1e-3 to 1e6 kg m^2), SI2 at rtol = atol = 1e-10 for 1 s: before the fix Newton stalled at
    8x its 10-ulp floor and the run failed at t = 0.6 s. Energy is conserved (no dissipation) to
    1e-7 of the largest kinetic energy: local errors at rtol 1e-10 adding up over ~700 steps
    (measured 2.1e-8)."""
    module = four_bar_example()
    for name in ("GROUND_LENGTH", "CRANK_LENGTH", "COUPLER_LENGTH", "ROCKER_LENGTH"):
        setattr(module, name, 100.0 * getattr(module, name))
    results = mb.dynamics(module.build(), 1.0, 0.01, method="SI2", rtol=1e-10)
    total = results.energy["total"]
    assert np.abs(total - total[0]).max() < 1e-7 * results.energy["kinetic"].max()


def parallelogram(rocker_density: float = 1.0) -> mb.Model:
    """The example four-bar's bars as a parallelogram: crank and rocker 0.1 m, coupler as long as
    the ground (0.4 m), crank at 60 degrees turning at 1 rev/s in the vertical x-z plane. Each
    half turn of the crank brings all four bars onto one line, where the loop's constraint rows
    become dependent (the parallelogram could branch into an antiparallelogram there). The
    rocker's mass per length is ``rocker_density`` times the others'."""
    module = four_bar_example()
    model = mb.Model("parallelogram")
    theta = np.radians(60.0)
    A, D = np.zeros(3), np.array([0.4, 0.0, 0.0])
    B = 0.1 * np.array([np.cos(theta), 0.0, np.sin(theta)])
    C = B + D
    spin = 2.0 * np.pi * module.JOINT_AXIS
    crank = module.add_bar(model, "crank", A, B, angular_velocity=spin, exact=("angular_velocity",))
    coupler = module.add_bar(model, "coupler", B, C)
    module.BAR_MASS_PER_LENGTH *= rocker_density
    rocker = module.add_bar(model, "rocker", D, C)
    model.add(mb.Revolute("A", crank.marker("start"), model.ground.add_marker("A", A, z_axis=module.JOINT_AXIS)))
    model.add(mb.Revolute("B", coupler.marker("start"), crank.marker("end")))
    model.add(mb.Revolute("C", coupler.marker("end"), rocker.marker("end")))
    model.add(mb.Revolute("D", rocker.marker("start"), model.ground.add_marker("D", D, z_axis=module.JOINT_AXIS)))
    return model


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_i3_runs_a_parallelogram_through_its_collinear_positions_at_tight_tolerance():
    """I3 at rtol 1e-10 through two collinear (singular) positions in 1.2 s. References: in a
    parallelogram the crank and the rocker turn together (equal angular velocities, closed form)
    and, nothing dissipating, energy is conserved. Angular velocities agree to 1e-8 of their
    scale (measured 1.2e-9 rad/s against 6 rad/s: local errors at 1e-10 over ~600 steps); energy
    to 1e-6 of the largest kinetic energy (measured 1.7e-7: I3 tests velocity errors scaled by the
    step size, index-3 error control, so its velocities carry about 1e3 rtol)."""
    assert_turning_together(mb.dynamics(parallelogram(), 1.2, 0.01, method="I3", rtol=1e-10))


def assert_turning_together(results: mb.Results) -> None:
    """Crank and rocker of ``parallelogram`` turn together (to 1e-8 of the crank's speed) and energy
    is conserved (to 1e-6 of the largest kinetic energy)."""
    crank, rocker = results.body("crank").angular_velocity, results.body("rocker").angular_velocity
    np.testing.assert_allclose(rocker, crank, atol=1e-8 * np.abs(crank).max())
    total = results.energy["total"]
    assert np.abs(total - total[0]).max() < 1e-6 * results.energy["kinetic"].max()


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_kane_runs_a_parallelogram_through_its_collinear_positions_at_tight_tolerance():
    """Kane + BDF at rtol 1e-10 through the same two collinear positions (the cut joint's rows
    become dependent there). Before, the step collapsed at the crossings: each projection onto
    the cut constraints entered BDF's backward differences as a jump of the size of the tolerance,
    read as a large derivative at any step size. Reference: crank and rocker turn together (closed
    form), to 1e-8 of the crank's speed (measured 5e-11 relative)."""
    results = mb.dynamics(parallelogram(), 1.2, 0.01, formulation="kane", rtol=1e-10)
    crank, rocker = results.body("crank").angular_velocity, results.body("rocker").angular_velocity
    np.testing.assert_allclose(rocker, crank, atol=1e-8 * np.abs(crank).max())


def parallelogram_chain(loops: int) -> mb.Model:
    """IFToMM A02-type chain of ``loops`` parallelograms: ``loops + 1`` cranks of 0.1 m hinged to
    the ground 0.4 m apart, their tips joined by couplers of 0.4 m; the cranks at 60 degrees, the
    first turning at 1 rev/s (the others follow from the loops). Every half turn all loops pass
    their collinear position together."""
    module = four_bar_example()
    model = mb.Model("parallelogram_chain")
    theta = np.radians(60.0)
    direction = np.array([np.cos(theta), 0.0, np.sin(theta)])
    spin = 2.0 * np.pi * module.JOINT_AXIS
    tips = []
    for k in range(loops + 1):
        base = np.array([0.4 * k, 0.0, 0.0])
        initial = {"angular_velocity": spin, "exact": ("angular_velocity",)} if k == 0 else {}
        crank = module.add_bar(model, f"crank{k}", base, base + 0.1 * direction, **initial)
        pivot = model.ground.add_marker(f"pivot{k}", base, z_axis=module.JOINT_AXIS)
        model.add(mb.Revolute(f"pivot{k}", crank.marker("start"), pivot))
        tips.append((crank, base + 0.1 * direction))
    for k in range(loops):
        (left, start), (right, end) = tips[k], tips[k + 1]
        coupler = module.add_bar(model, f"coupler{k}", start, end)
        model.add(mb.Revolute(f"left{k}", coupler.marker("start"), left.marker("end")))
        model.add(mb.Revolute(f"right{k}", coupler.marker("end"), right.marker("end")))
    return model


@pytest.mark.parametrize(
    "formulation, method",
    [("cartesian", "I3"), ("cartesian", "SI2"), pytest.param("kane", "BDF", marks=pytest.mark.slow)],
)
@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_chain_of_parallelograms_runs_through_every_singular_crossing(formulation, method):
    """Four loops (9 bars, 13 revolutes) through two collinear crossings in 1.2 s at rtol 1e-10 (the
    four loops lose a row each at once). Reference: every crank turns with the first (closed form),
    to 1e-8 of its speed (measured about 1e-10 relative for I3, 7e-11 for SI2, 3e-10 for Kane; the
    Kane run takes 12 s, hence slow)."""
    loops = 4
    results = mb.dynamics(parallelogram_chain(loops), 1.2, 0.01, method=method, formulation=formulation, rtol=1e-10)
    first = results.body("crank0").angular_velocity
    for k in range(1, loops + 1):
        np.testing.assert_allclose(results.body(f"crank{k}").angular_velocity, first, atol=1e-8 * np.abs(first).max())


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_si2_runs_a_parallelogram_through_its_collinear_positions_at_tight_tolerance():
    """SI2 at rtol 1e-10 through the same two collinear positions. Before, it stopped at t = 0.345 s:
    near the crossing its velocity rows turn the velocity by about eps kappa^2 (kappa the
    condition of G), and Newton's increments stayed round-off above its tolerance however short
    the step; now the nearly dependent rows are taken as in I3 there. References and tolerances
    as for I3 above (measured about 2e-10 relative for the speeds, 5e-8 for energy)."""
    assert_turning_together(mb.dynamics(parallelogram(), 1.2, 0.01, method="SI2", rtol=1e-10))


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_si2_runs_a_parallelogram_with_a_heavier_rocker_through_its_collinear_positions():
    """The parallelogram with a rocker three times denser than the crank: the constraint must now
    push along the direction that vanishes at the crossing (the multiplier along it grows as
    1 / sigma; with equal bars it is zero by symmetry). SI2 at rtol 1e-10; references and
    tolerances as above (measured about 1e-9 relative for the speeds, 5e-8 for energy)."""
    assert_turning_together(mb.dynamics(parallelogram(3.0), 1.2, 0.01, method="SI2", rtol=1e-10))


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
def test_si2_releases_a_rhombus_at_rest_next_to_its_change_point():
    """The rhombus of ``test_robustness_errors`` (four 1 m links) released at rest 1e-6 rad above its
    change point, where the loop's rows are dependent: SI2 used to stop at the first step; it now
    falls through as a parallelogram (no motion drives the dependent rows). References: crank and
    rocker turn together (closed form) to 1e-8 of the largest speed (measured 8e-10 relative); the
    crank's angular velocity follows Kane's tree formulation at rtol 1e-10 to 1e-6 of it (measured
    4e-8: SI2's global error at rtol 1e-8 over 50 steps); energy conserved to 1e-6 of the largest
    kinetic energy (measured 1.5e-7)."""
    results = mb.dynamics(rhombus(1e-6), 0.2, 0.01, method="SI2", rtol=1e-8)
    kane = mb.dynamics(rhombus(1e-6), 0.2, 0.01, formulation="kane", rtol=1e-10)
    crank, rocker = results.body("crank").angular_velocity, results.body("rocker").angular_velocity
    scale = np.abs(crank).max()
    np.testing.assert_allclose(rocker, crank, atol=1e-8 * scale)
    np.testing.assert_allclose(crank, kane.body("crank").angular_velocity, atol=1e-6 * scale)
    total = results.energy["total"]
    assert np.abs(total - total[0]).max() < 1e-6 * results.energy["kinetic"].max()


def test_a_run_that_crawls_stops_at_min_step_with_its_results_kept(tmp_path):
    """Reference: the closed form of a block braked by an unregularized Coulomb force ``-10 sign(v)``
    N (1 kg, 1 m/s): it stops at t = 0.1 s, where the force flips with every step (a sliding mode no
    step length resolves). Before, BDF halved its step to 1e-13 s and crawled on for minutes; now
    the run stops within a few seconds naming the stall and what Newton failed on, and the frames up
    to then are on disk, the last at 0.1 s with the block at rest (to 1e-12 m/s: BDF integrates the
    constant deceleration before the stop exactly, so only round-off remains)."""
    model = mb.Model("braked", gravity=(0, 0, 0))
    block = model.add(mb.RigidBody("block", 1.0, (0.1, 0.1, 0.1), velocity=(1.0, 0, 0)))
    along_x = (1.0, 0.0, 0.0)
    slide = (block.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x))
    model.add(mb.Translational("slide", *slide))
    pad = block.add_marker("pad")

    def brake(inputs: mb.UserForceInput) -> tuple:
        return (-10.0 * np.sign(inputs.marker(pad).velocity[0]), 0.0, 0.0), (0.0, 0.0, 0.0)

    model.add(mb.UserForce("brake", pad, brake))
    with pytest.raises(AnalysisError, match=r"stalled at t = 0\.1 s.*min_step = 1e-08 s.*Newton") as caught:
        mb.dynamics(model, 0.3, 0.01, output=tmp_path / "braked.h5")
    saved = mb.Results.load(caught.value.results_path)
    assert saved.time[-1] == pytest.approx(0.1)
    assert saved.body("block").velocity[-1, 0] == pytest.approx(0.0, abs=1e-12)
