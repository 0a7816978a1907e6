"""``multibody run --analysis statics|quasi_statics|linear|inverse`` on the example models.

References: what the command prints and writes is read back (``Results.load``,
``LinearModel.load``, the ``inverse`` group) and compared with the Python API's answers and
with closed forms (pendulum hanging straight down, the chain's 11.25 Hz of reference 002).
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

import multibody as mb
from multibody.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["run", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_statics_writes_the_equilibrium(tmp_path: Path, capsys) -> None:
    output = tmp_path / "pendulum.h5"
    code, out, _ = run(capsys, str(EXAMPLES / "pendulum.py"), "--analysis", "statics", "-o", str(output))
    assert code == 0
    assert "static equilibrium at t = 0 s" in out and "iterations" in out and "unstable_directions" in out
    results = mb.Results.load(output)
    assert results.layout.analysis == "statics" and results.status == "complete" and len(results) == 1
    np.testing.assert_allclose(results.body("rod").position[0], [0.0, 0.0, -0.5], atol=1e-12)


def test_linear_prints_the_modes_and_stores_the_linear_model(tmp_path: Path, capsys) -> None:
    output = tmp_path / "chain.h5"
    code, out, _ = run(capsys, str(EXAMPLES / "two_mass_chain.py"), "--analysis", "linear", "-o", str(output))
    assert code == 0
    assert "frequency [Hz]" in out and "damping ratio" in out and "11.254" in out
    linear = mb.LinearModel.load(output)
    modes = linear.modes()
    assert round(modes.frequencies_hz[1], 2) == 11.25
    assert mb.Results.load(output).layout.analysis == "statics"


def test_quasi_statics_from_the_model_file_defaults(tmp_path: Path, capsys) -> None:
    output = tmp_path / "crane.h5"
    code, out, _ = run(capsys, str(EXAMPLES / "crane_jib.py"), "--t-end", "5", "-o", str(output))
    assert code == 0 and "quasi_statics to t = 5 s" in out
    results = mb.Results.load(output)
    assert results.layout.analysis == "quasi_statics" and len(results) == 6


def test_inverse_saves_efforts_and_power(tmp_path: Path, capsys) -> None:
    output = tmp_path / "slider_crank.h5"
    code, _, _ = run(
        capsys, str(EXAMPLES / "slider_crank.py"), "--analysis", "inverse", "--t-end", "0.5", "-o", str(output)
    )
    assert code == 0
    results = mb.Results.load(output)
    with h5py.File(output, "r") as file:
        assert list(file["inverse/motion_names"].asstr()[()]) == ["crank_drive"]
        effort = file["inverse/effort"][()]
    np.testing.assert_array_equal(effort[:, 0], results.joint("crank_drive").reaction_torque_in_j[:, 2])


def test_dynamics_options_are_refused_for_static_analyses(capsys) -> None:
    code, _, err = run(capsys, str(EXAMPLES / "pendulum.py"), "--analysis", "statics", "--rtol", "1e-8")
    assert code == 2 and "apply to dynamics only, not to statics" in err


def test_statics_failure_is_one_error_line(tmp_path: Path, capsys) -> None:
    model = tmp_path / "falling.py"
    model.write_text(
        "import multibody as mb\n\n"
        "def build():\n"
        "    model = mb.Model('falling')\n"
        "    model.add(mb.RigidBody('ball', 1.0, (0.1, 0.1, 0.1), position=(0.0, 0.0, 1.0)))\n"
        "    return model\n"
    )
    code, _, err = run(capsys, str(model), "--analysis", "statics", "-o", str(tmp_path / "falling.h5"))
    assert code == 1
    (line,) = err.strip().splitlines()
    assert line.startswith("error: ") and "'ball' translation along world z" in line
