"""The report's results browser data: which channels are zero to round-off, and how the energy is
split into stored, exchanged (input work and dissipation apart) and the balance."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from multibody.viz.browser_data import browser_data, energy_panels
from multibody.viz.channels import ZERO_ABSOLUTE, ZERO_RELATIVE, numerically_zero

from .conftest import example_run


@pytest.mark.parametrize(
    ("values", "family_scale", "zero"),
    [
        (np.full(5, 3e-15), 0.0, True),  # below the absolute floor, whatever the family
        (np.full(5, 3e-12), 1.0, False),  # above 1e-12 of a family of size 1: a signal
        (np.array([0.0, 2e-10, -4e-10]), 1e3, True),  # 4e-13 of the family's 1e3: round-off
        (np.array([0.0, 2e-8]), 1e3, False),  # 2e-11 of the family: kept
        (np.array([0.0, np.nan]), 1.0, False),  # a non-finite channel is never hidden as zero
        (np.zeros(4), 0.0, True),
    ],
)
def test_numerically_zero_is_relative_to_the_family_with_an_absolute_floor(values, family_scale, zero) -> None:
    """The thresholds as documented: max |x| <= max(ZERO_RELATIVE x family scale, ZERO_ABSOLUTE)."""
    assert (ZERO_RELATIVE, ZERO_ABSOLUTE) == (1e-12, 1e-14)
    assert numerically_zero(values, family_scale) is zero


def test_zero_channels_of_the_slider_crank() -> None:
    """The slider-crank lies in the x-z plane with the balanced crank's CM on its axis at the origin
    (by construction of examples/slider_crank.py): the crank's CM position and every y position
    are exactly zero in the mechanics, and whatever the solver leaves there is round-off. The
    slider's x position moves by tens of centimetres and must be drawn."""
    _, results = example_run("slider_crank")
    panels = {
        panel["id"]: panel
        for group in browser_data(results)["tree"]
        for element in group["elements"]
        for panel in element["panels"]
    }
    assert panels["crank.position"]["zero"] and "not plotted" in panels["crank.position"]["notes"][0]
    slider = {curve["label"]: curve for curve in panels["slider.position"]["curves"]}
    assert not slider["x"]["zero"] and slider["y"]["zero"] and slider["z"]["zero"]
    assert slider["y"]["values"] == ""  # a zero curve carries no data: the page draws 0
    (note,) = panels["slider.position"]["notes"]
    assert note.startswith("y, z: ") and note.endswith(", drawn as 0")
    drawn = np.frombuffer(base64.b64decode(slider["x"]["values"]), dtype="<f4")
    np.testing.assert_allclose(drawn, results.channel("slider.position.x"), rtol=1e-7)  # float32 on the page


def test_energy_input_and_dissipation_are_separate_curves() -> None:
    """A driven, damped system whose books close: total = 2 + input - dissipated. The exchanged
    panel has input and dissipated as their own curves, and the balance is the constant 2 J."""
    t = np.linspace(0.0, 1.0, 11)
    kinetic, potential = 1.0 + t, 1.0 + 0.5 * t
    dissipated = 0.25 * t
    energy = {
        "kinetic": kinetic,
        "potential": potential,
        "total": kinetic + potential,
        "input": 1.75 * t,
        "dissipated": dissipated,
    }
    stored, exchanged, balance = energy_panels(energy)
    assert [curve["label"] for curve in stored["curves"]] == ["kinetic", "potential", "total"]
    assert [curve["label"] for curve in exchanged["curves"]] == ["input", "dissipated"]
    assert exchanged["notes"] == []
    (curve,) = balance["curves"]
    assert curve["label"] == "total - input + dissipated"
    np.testing.assert_allclose(np.frombuffer(base64.b64decode(curve["values"]), dtype="<f4"), 2.0)


def test_old_files_with_net_dissipation_say_why_it_goes_negative() -> None:
    """A file without 'input' (written before input work had its own channel) has the net energy
    taken out in 'dissipated': where a motion drives the system it is negative, and the panel says so."""
    t = np.linspace(0.0, 1.0, 11)
    energy = {"kinetic": t, "potential": 0.0 * t, "total": t, "dissipated": -t}
    _, exchanged, balance = energy_panels(energy)
    assert [curve["label"] for curve in exchanged["curves"]] == ["dissipated"]
    assert "no separate input work" in exchanged["notes"][0]
    assert balance["curves"][0]["label"] == "total + dissipated" and balance["zero"]
