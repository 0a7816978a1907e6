"""Compiled stepping (``multibody.analysis.stepping``) against the Python steps it stands for.

A plain model of rigid bodies under SI2 or I3 takes most of its BDF steps, and writes their output
frames, in one compiled call; ``BDF.step`` takes the others. The compiled steps do the same arithmetic on the
same numbers as ``BDF.step`` with ``MechanicalDAE.correct`` (the same compiled solve, prediction,
error test and step-size and order choice, the same frame pass on the same dense output), so the
reference is the run without them, and the tolerance is none: every step count and every entry of
every frame must be the same to the bit -- but for I3's accelerations and reactions, solved afresh
per frame from the same factors by another substitution (LAPACK's in Python), equal to round-off.
"""

import numpy as np
import pytest
from test_output_frames import EXAMPLES, SOLVED

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.analysis.events import COMPILED_FRAMES, EventDrivenIntegrator
from multibody.analysis.output import results_layout
from multibody.analysis.stepping import STEPS_PER_CALL
from multibody.analysis.time_loop import integrate_to_output
from multibody.cli import build_model, load_model_file

COUNTERS = ("steps", "rejected_steps", "newton_iterations", "newton_failures", "factorizations")


def run(system, state, method, t_end, output_step, compiled):
    integrator = EventDrivenIntegrator(system, state, method, t_end, 1e-6, 1e-6, np.inf)
    return integrate_to_output(
        integrator,
        results_layout(system, "dynamics"),
        integrator.first_frame,
        integrator.frame_at,
        integrator.stats,
        t_end,
        output_step,
        None,
        False,
        integrator.compiled_steps if compiled else None,
    )


@pytest.mark.parametrize(
    ("example", "method", "t_end", "output_step"),
    [
        ("free_slider_crank", "SI2", 2.0, 0.01),
        # 0.2 ms frames: a stretch of compiled steps passes more output times than it has rows for
        ("free_slider_crank", "SI2", 0.2, 2e-4),
        ("double_pendulum", "SI2", 1.0, 0.01),
        # I3's frames solved afresh in compiled code, as frame_at solves them
        ("free_slider_crank", "I3", 1.0, 0.01),
        ("double_pendulum", "I3", 1.0, 0.01),
    ],
)
def test_compiled_steps_are_the_python_steps(example, method, t_end, output_step):
    system, state = assembled_state(build_model(load_model_file(EXAMPLES / f"{example}.py")).compile())
    python = run(system, state, method, t_end, output_step, compiled=False)
    compiled = run(system, state, method, t_end, output_step, compiled=True)
    assert python.stats["compiled_steps"] == 0
    assert compiled.stats["compiled_steps"] > compiled.stats["steps"] / 2
    if output_step < 1e-3:
        assert len(compiled.time) > 2 * COMPILED_FRAMES
    for counter in COUNTERS:
        assert compiled.stats[counter] == python.stats[counter], counter
    assert compiled.arrays.keys() == python.arrays.keys()
    # I3's solved entries: the same factors, substituted by lu_solve in compiled code and by LAPACK's
    # getrs in Python: apart by round-off (on these well-conditioned systems, 1e-15 of the largest)
    solved_scale = max(np.max(np.abs(python.arrays[key])) for key in SOLVED)
    for key, values in python.arrays.items():
        if method == "I3" and key in SOLVED:
            np.testing.assert_allclose(compiled.arrays[key], values, rtol=0, atol=1e-12 * solved_scale, err_msg=key)
        else:
            np.testing.assert_array_equal(compiled.arrays[key], values, err_msg=key)


def test_compiled_steps_give_python_its_turn():
    """A run with one output frame at its end: compiled stepping returns to Python after at most
    ``STEPS_PER_CALL`` steps (the progress bar, Ctrl-C and the timed flush of the results get their
    turn), and the run is the same as without it."""
    system, state = assembled_state(build_model(load_model_file(EXAMPLES / "free_slider_crank.py")).compile())
    integrator = EventDrivenIntegrator(system, state, "SI2", 10.0, 1e-6, 1e-6, np.inf)
    taken = []

    def compiled_steps(output_times, next_output, reached):
        before = integrator.integrator.stats.compiled_steps
        outcome = integrator.compiled_steps(output_times, next_output, reached)
        taken.append(integrator.integrator.stats.compiled_steps - before)
        return outcome

    results = integrate_to_output(
        integrator,
        results_layout(system, "dynamics"),
        integrator.first_frame,
        integrator.frame_at,
        integrator.stats,
        10.0,
        10.0,
        None,
        False,
        compiled_steps,
    )
    assert results.stats["steps"] > STEPS_PER_CALL
    assert max(taken) == STEPS_PER_CALL
    assert sum(taken) == results.stats["compiled_steps"]
    python = run(system, state, "SI2", 10.0, 10.0, compiled=False)
    np.testing.assert_array_equal(results.arrays["body/position"], python.arrays["body/position"])


def test_sparse_models_are_refactorized_in_compiled_code():
    """A 40-link chain (440 unknowns: sparse): compiled stepping refactorizes its iteration matrices
    on the patterns and pivots of the last factorization (``sparse_lu.sparse_refactorization``), and
    pivots afresh in compiled code (``sparse_lu.sparse_lu``) when the matrices gain nonzeros (the
    chain's out-of-plane terms, round-off at first) or the pivots no longer fit, instead of returning
    to Python: Python takes the first step (the force Jacobians) and the last (to ``t_end``) only.
    The Python steps re-pivot at every factorization (SuperLU), so the two runs differ by the
    round-off of their factors only: the same steps, and positions within 1e-9 m (measured 5e-13), a
    thousandth of what the tolerance (rtol 1e-6 of 1 m links) admits."""
    model = mb.Model("chain", gravity=(0.0, -9.81, 0.0))
    parent = model.ground.add_marker("pivot")
    for k in range(40):
        link = model.add(mb.RigidBody(f"link{k}", 1.0, np.diag([1e-3, 1.0 / 12, 1.0 / 12]), position=(k + 0.5, 0, 0)))
        model.add(mb.Revolute(f"hinge{k}", link.add_marker("top", position=(-0.5, 0.0, 0.0)), parent))
        parent = link.add_marker("bottom", position=(0.5, 0.0, 0.0))
    system, state = assembled_state(model.compile())
    python = run(system, state, "SI2", 0.5, 0.01, compiled=False)
    compiled = run(system, state, "SI2", 0.5, 0.01, compiled=True)
    assert compiled.stats["steps"] - compiled.stats["compiled_steps"] == 2
    assert compiled.stats["factorizations"] > 2
    assert compiled.stats["steps"] == python.stats["steps"]
    np.testing.assert_allclose(compiled.arrays["body/position"], python.arrays["body/position"], rtol=0, atol=1e-9)
