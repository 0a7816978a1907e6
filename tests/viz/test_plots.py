"""Plots and reports of the shipped examples: every panel names its channel and SI unit, and the
report holds the model summary, the solver statistics, a plot per element and the animation."""

from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest

import multibody as mb
from multibody.viz.channels import STANDARD_SETS, channel_unit
from multibody.viz.plots import plot
from multibody.viz.report import report

from .conftest import EXAMPLES, example_run

# The unit every quantity must carry: SI, written out independently of multibody.viz.channels.
EXPECTED_UNITS = {
    "position": "[m]",
    "velocity": "[m/s]",
    "acceleration": "[m/s^2]",
    "angular_velocity": "[rad/s]",
    "angular_acceleration": "[rad/s^2]",
    "reaction_force": "[N]",
    "reaction_torque": "[N m]",
    "force": "[N]",
    "torque": "[N m]",
    "euler_parameters": "[-]",
}


@pytest.mark.parametrize("example", EXAMPLES)
def test_standard_sets_of_every_body_and_joint_carry_units(example) -> None:
    _, results = example_run(example)
    layout = results.layout
    for kind, names in (("body", layout.body_names), ("joint", layout.joint_names)):
        for name in names:
            figure = plot(results, name)
            labels = [ax.get_ylabel() for ax in figure.axes]
            assert labels == [f"{name}.{q} {EXPECTED_UNITS[q]}" for q in STANDARD_SETS[kind]]
            assert all(ax.get_xlabel() == "time [s]" for ax in figure.axes)


def test_plotted_curves_are_the_results_channels() -> None:
    """The line data of a plotted channel is the channel itself, and a vector has its 3 components."""
    _, results = example_run("slider_crank")
    figure = plot(results, "crank.angular_velocity.y", "slider.position", "energy")
    first, vector, energy = figure.axes
    np.testing.assert_array_equal(first.lines[0].get_ydata(), results.channel("crank.angular_velocity.y"))
    np.testing.assert_array_equal(first.lines[0].get_xdata(), results.time)
    assert first.get_ylabel() == "crank.angular_velocity.y [rad/s]"
    assert [line.get_label() for line in vector.lines] == ["x", "y", "z"]
    np.testing.assert_array_equal(vector.lines[0].get_ydata(), results.channel("slider.position.x"))
    assert energy.get_ylabel() == "energy [J]" and len(energy.lines) == 4


def test_force_values_take_the_unit_of_their_element() -> None:
    assert channel_unit("spring.value", {"spring": "SpringDamper"}) == "N"
    assert channel_unit("coil.value", {"coil": "TorsionSpring"}) == "N m"
    assert channel_unit("pin.reaction_torque_in_j.z") == "N m"
    assert channel_unit("energy.kinetic") == "J"


@pytest.mark.parametrize(
    ("spec", "error"), [("crank.nope", KeyError), ("nobody.position.x", KeyError), ("crank.position.w", KeyError)]
)
def test_unknown_channels_are_named(spec, error) -> None:
    _, results = example_run("slider_crank")
    with pytest.raises(error, match=re.escape(spec)):
        plot(results, spec)


def test_plot_writes_an_image(tmp_path) -> None:
    _, results = example_run("pendulum")
    plot(results, results.layout.body_names[0], path=tmp_path / "pendulum.png")
    assert (tmp_path / "pendulum.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "example", [e if e == "slider_crank" else pytest.param(e, marks=pytest.mark.slow) for e in EXAMPLES]
)  # one report (about 3 s) in the default run; all shipped examples with -m slow
def test_report_holds_summary_statistics_plots_and_animation(tmp_path, example) -> None:
    system, results = example_run(example)
    results.save(tmp_path / "run.h5")
    page = report(tmp_path / "run.h5", tmp_path / "report.html").read_text()
    assert html.escape(system.summary().splitlines()[0]) in page
    for name in results.stats:
        assert f"<td>{name}</td>" in page
    for name in [*results.layout.body_names, *results.layout.joint_names, "energy"]:
        assert f'data-element="{html.escape(name)}"' in page, f"no {name} in the results tree"
    for quantity in STANDARD_SETS["body"]:  # every body quantity is a plot of the browser
        assert f'data-panel="{html.escape(results.layout.body_names[0])}.{quantity}"' in page
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page).group(1))
    assert base64.b64decode(data["time"]) == results.time.astype("<f8").tobytes()
    assert "<iframe" in page and "multibodyViewer" in html.unescape(page)
    assert "var uPlot=" in page  # the plotting library is inlined: the page works offline


def test_report_of_a_failed_run_says_so(tmp_path) -> None:
    _, results = example_run("pendulum")
    failed = mb.Results(results.layout, results.arrays, status="failed", message="step size too small at t = 0.1 s")
    page = report(failed, tmp_path / "report.html").read_text()
    assert 'class="status-failed">failed' in page and "step size too small" in page


def test_a_panel_zero_to_round_off_is_drawn_at_zero_and_says_so() -> None:
    """The balanced crank's CM stays on its axis at the origin (examples/slider_crank.py), so its
    position is zero up to round-off: plotted as zero with a note, not as magnified noise. The
    slider's position moves and is drawn as computed."""
    _, results = example_run("slider_crank")
    zero, moving = plot(results, "crank.position", "slider.position").axes
    assert all(np.all(line.get_ydata() == 0.0) for line in zero.lines)
    assert [text.get_text() for text in zero.texts] == ["zero to round-off throughout"]
    np.testing.assert_array_equal(moving.lines[0].get_ydata(), results.channel("slider.position.x"))
    assert len(moving.texts) == 0
