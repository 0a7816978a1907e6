"""``multibody run model.adm [--acf model.acf]`` and ``multibody info model.adm``.

References: the results file the command writes, read back with ``Results.load`` and h5py, and
an in-process run of the same imported model (the REQUEST outputs must be those
``request_outputs`` computes from it); error paths by exit code and the located message.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from multibody import Results
from multibody.cli import main
from multibody.io.adm import read_adm
from multibody.io.adm.requests import load_requests, request_outputs

REVOLUTE = (
    Path(__file__).resolve().parents[1] / "data" / "adams_joint_cases" / "adams_models" / "test_Revolute_Case01.adm"
)
"""An ADAMS joint test model (``tests/data/adams_joint_cases``, see its SOURCE.md)."""


def test_run_with_a_command_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The .acf's SIMULATE sets the end time and output steps; REQUESTs land in the file."""
    acf = tmp_path / "revolute.acf"
    acf.write_text("test_Revolute_Case01.adm\nrevolute\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 25\nSTOP\n")
    output = tmp_path / "revolute.h5"
    assert main(["run", str(REVOLUTE), "--acf", str(acf), "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    assert "line 101, column 1: OUTPUT options (ignored" in printed
    assert "dynamics to t = 0.5 s, output every 0.02 s" in printed
    results = Results.load(output)
    np.testing.assert_allclose(results.time, np.linspace(0.0, 0.5, 26), atol=1e-12)
    imported = read_adm(REVOLUTE)
    expected = request_outputs(imported.requests, imported.check().compile(), results)
    written = load_requests(output)
    assert written.keys() == expected.keys()
    for name, components in expected.items():
        for component, values in components.items():
            np.testing.assert_allclose(written[name][component], values, rtol=0, atol=1e-9)
    assert results.body("PART/02").position.shape == (26, 3)


def test_info_shows_the_import_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "partial.adm"
    model.write_text(REVOLUTE.read_text().replace("ACCGRAV/", "CONTACT/9, I = 0201, J = 0101\nACCGRAV/"))
    assert main(["info", str(model)]) == 0
    printed = capsys.readouterr().out
    assert "statement CONTACT (not simulated" in printed
    assert "JOINT/1: Revolute" in printed
    assert main(["run", str(model), "-o", str(tmp_path / "x.h5")]) == 2  # refused: the contact would be missing
    assert "items that change the motion could not be imported" in capsys.readouterr().err


def test_a_syntax_error_is_one_located_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "broken.adm"
    model.write_text("title\nPART/1, GROUND\nMARKER/2, PART 1\n")
    assert main(["info", str(model)]) == 2
    error = capsys.readouterr().err.strip()
    assert error == f"error: {model}:3:16: expected '=' after MARKER keyword PART, found '1'"


def test_acf_only_with_a_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    pendulum = Path(__file__).resolve().parents[2] / "examples" / "pendulum.py"
    assert main(["run", str(pendulum), "--acf", "x.acf"]) == 2
    assert "--acf goes with an ADAMS dataset" in capsys.readouterr().err
