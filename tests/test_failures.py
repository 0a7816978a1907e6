"""A dynamic run that fails keeps its partial results, and its error says when, why and where.

Cases: a user force law that raises, one that returns NaN, a Ctrl-C (KeyboardInterrupt raised
from a force law), and a mechanism driven into a lock-up. References: the failure times are set
by the test (the law's switch time 0.3 s) or by geometry (the lock-up angle), and the file must
hold every output frame up to that time, no more.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import multibody as mb

SWITCH_TIME = 0.3
"""[s] when the misbehaving force laws start misbehaving."""

OUTPUT_STEP = 0.01
"""[s]"""


def pendulum(law: Callable[[float], object]) -> mb.Model:
    """A 1 kg bob on a massless 0.5 m arm (revolute about world y) pushed by ``law(t)`` [N]."""
    model = mb.Model("pendulum")
    bob = model.add(mb.RigidBody("bob", 1.0, (0.01, 0.01, 0.01), position=(0.5, 0.0, 0.0)))
    model.add(
        mb.Revolute(
            "pivot",
            bob.add_marker("pivot", z_axis=(0, 1, 0), frame="world"),
            model.ground.add_marker("pivot", z_axis=(0, 1, 0)),
        )
    )
    model.add(mb.PointForce("push", bob.add_marker("cm"), law))
    return model


def raises_after_switch(t: float) -> tuple[float, float, float]:
    if t > SWITCH_TIME:
        raise ValueError("thrust table ends at 0.3 s")
    return (0.0, 0.0, 0.0)


def nan_after_switch(t: float) -> tuple[float, float, float]:
    return (np.nan if t > SWITCH_TIME else 0.0, 0.0, 0.0)


def interrupted_after_switch(t: float) -> tuple[float, float, float]:
    if t > SWITCH_TIME:
        raise KeyboardInterrupt
    return (0.0, 0.0, 0.0)


def assert_saved_up_to_last_step(path: Path, status: str) -> mb.Results:
    """The file loads with ``status``; its last completed step is at most 50 ms (a few steps of this
    smooth run) before the switch and not after it, and it holds every output frame up to that step."""
    saved = mb.Results.load(path)
    assert saved.status == status
    last_step = saved.stats["final_time"]
    assert SWITCH_TIME - 0.05 < last_step <= SWITCH_TIME
    expected = OUTPUT_STEP * np.arange(int(np.floor(last_step / OUTPUT_STEP + 1e-9)) + 1)
    np.testing.assert_allclose(saved.time, expected, rtol=0, atol=1e-12)
    assert np.all(np.isfinite(saved.body("bob").position))
    return saved


def test_raising_force_law_keeps_results_and_says_where(tmp_path: Path) -> None:
    path = tmp_path / "raising.h5"
    with pytest.raises(mb.AnalysisError) as raised:
        mb.dynamics(pendulum(raises_after_switch), 1.0, OUTPUT_STEP, output=path)
    error = raised.value
    message = str(error)
    assert isinstance(error.__cause__, ValueError)
    assert "ValueError: thrust table ends at 0.3 s" in message and f"saved in {path}" in message, message
    assert error.results_path == str(path)
    saved = assert_saved_up_to_last_step(path, "failed")
    assert f"failed after t = {saved.stats['final_time']:.6g} s" in message, message
    assert "ValueError: thrust table ends at 0.3 s" in saved.message


def test_nan_force_fails_at_the_switch_naming_time_and_step_size(tmp_path: Path) -> None:
    """The step size halves until it is below round-off at the switch, which must be the reported time."""
    path = tmp_path / "nan.h5"
    with pytest.raises(mb.AnalysisError) as raised:
        mb.dynamics(pendulum(nan_after_switch), 1.0, OUTPUT_STEP, output=path)
    message = str(raised.value)
    assert f"failed at t = {SWITCH_TIME:.6g} s" in message and "with step size" in message, message
    assert f"saved in {path}" in message, message
    assert_saved_up_to_last_step(path, "failed")


def test_nan_force_failure_names_the_force_element() -> None:
    with pytest.raises(mb.AnalysisError) as raised:
        mb.dynamics(pendulum(nan_after_switch), 1.0, OUTPUT_STEP)
    assert "'push'" in str(raised.value)


def test_keyboard_interrupt_leaves_a_loadable_interrupted_file(tmp_path: Path) -> None:
    path = tmp_path / "interrupted.h5"
    with pytest.raises(KeyboardInterrupt):
        mb.dynamics(pendulum(interrupted_after_switch), 1.0, OUTPUT_STEP, output=path)
    assert_saved_up_to_last_step(path, "interrupted")


CRANK, ROD = 0.2, 0.1
"""[m] A crank longer than its rod: the rod reaches the slide only while CRANK sin(theta) <= ROD."""

START, CRANK_SPEED = np.radians(20.0), 1.0
"""Initial crank angle [rad] and constant crank speed [rad/s]."""


def over_driven_slider_crank() -> mb.Model:
    """Crank turned at constant speed from 20 deg towards 30 deg = asin(ROD / CRANK), where the rod
    stands across the slide and no position exists beyond: the mechanism locks at
    t = (30 deg - 20 deg) / CRANK_SPEED = 0.1745 s. The rod is a Distance (massless), no gravity."""
    model = mb.Model("over_driven_slider_crank", gravity=(0.0, 0.0, 0.0))
    c, s = np.cos(START), np.sin(START)
    tip = CRANK * np.array([c, s, 0.0])
    crank = model.add(
        mb.RigidBody(
            "crank",
            1.0,
            (1e-3, 1e-3, 1e-3),
            position=tip / 2.0,
            orientation=[[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
        )
    )
    slide_x = tip[0] + np.sqrt(ROD**2 - tip[1] ** 2)
    slider = model.add(mb.RigidBody("slider", 1.0, (1e-3, 1e-3, 1e-3), position=(slide_x, 0.0, 0.0)))
    z, along_x = (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    pivot = model.add(
        mb.Revolute(
            "pivot", crank.add_marker("pivot", z_axis=z, frame="world"), model.ground.add_marker("pivot", z_axis=z)
        )
    )
    model.add(
        mb.Translational(
            "slide", slider.add_marker("slide", z_axis=along_x), model.ground.add_marker("slide", z_axis=along_x)
        )
    )
    model.add(mb.Distance("rod", crank.add_marker("tip", tip, frame="world"), slider.add_marker("pin"), ROD))
    model.add(mb.Motion("drive", pivot, velocity=CRANK_SPEED))
    return model


def test_lock_up_fails_at_the_lock_time_naming_time_and_step_size(tmp_path: Path) -> None:
    """rtol 1e-4 keeps the run short; the lock time is set by geometry, not by the tolerance. The step
    size collapses as the slider speed grows like (t_lock - t)^-1/2, so the reported time is the
    lock time to far better than the 1e-6 s asked here."""
    lock_time = (np.arcsin(ROD / CRANK) - START) / CRANK_SPEED
    path = tmp_path / "lock.h5"
    with pytest.raises(mb.AnalysisError) as raised:
        mb.dynamics(over_driven_slider_crank(), 1.0, OUTPUT_STEP, rtol=1e-4, output=path)
    message = str(raised.value)
    failure_time = float(message.split("failed at t = ")[1].split(" s")[0])
    assert failure_time == pytest.approx(lock_time, abs=1e-6)
    assert "with step size" in message and f"saved in {path}" in message, message
    saved = mb.Results.load(path)
    assert saved.status == "failed" and saved.message in message
    np.testing.assert_allclose(
        saved.time, OUTPUT_STEP * np.arange(int(lock_time / OUTPUT_STEP) + 1), rtol=0, atol=1e-12
    )
    assert saved.stats["final_time"] == pytest.approx(lock_time, abs=1e-6)
