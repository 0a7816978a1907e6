"""The ``multibody`` command: run and info on model files, and its error reporting.

References: the files the command writes are read back with ``Results.load`` and compared with
what it printed; error paths are checked for their exit code (2 usage or model error, 1 analysis
failure) and for printing exactly one ``error:`` line without a traceback unless ``--debug``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.cli import main

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = str(ROOT / "examples" / "pendulum.py")


def write_model(directory: Path, source: str, name: str = "model.py") -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def single_error_line(stderr: str) -> str:
    """The one line of stderr, which must start with ``error: ``."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    return lines[0]


UNREACHABLE = """
    import multibody as mb

    def build():
        # A 1 m rod on a ball joint at the origin, its tip tethered 0.5 m from a point 3 m away.
        model = mb.Model("unreachable")
        rod = model.add(mb.RigidBody("rod", 1.0, (0.001, 0.1, 0.1), position=(0.5, 0.0, 0.0)))
        model.add(mb.Spherical("ball", rod.add_marker("top", (-0.5, 0.0, 0.0)), model.ground.add_marker("origin")))
        far = model.ground.add_marker("far", (0.0, 3.0, 0.0))
        model.add(mb.Distance("tether", rod.add_marker("tip", (0.5, 0.0, 0.0)), far, 0.5))
        return model
"""


def test_run_prints_summary_statistics_and_table_and_writes_loadable_results(tmp_path: Path, capsys) -> None:
    output = tmp_path / "out.h5"
    assert main(["run", PENDULUM, "--t-end", "0.2", "-o", str(output)]) == 0
    printed = capsys.readouterr().out
    results = mb.Results.load(output)
    assert results.status == "complete"
    assert results.layout.analysis == "dynamics"
    # The file's ANALYSIS output step (0.01 s) with the flag's end time.
    np.testing.assert_allclose(results.time, 0.01 * np.arange(21), rtol=0, atol=1e-12)
    assert "model 'pendulum': 1 body" in printed
    assert "degrees of freedom: 1" in printed
    assert "solver statistics:" in printed
    assert re.search(rf"^ +steps +{results.stats['steps']}$", printed, flags=re.MULTILINE)
    assert results.final_state_table() in printed
    assert str(output) in printed


def test_run_writes_model_stem_h5_in_the_current_directory_by_default(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", PENDULUM, "--t-end", "0.05"]) == 0
    assert mb.Results.load(tmp_path / "pendulum.h5").time[-1] == pytest.approx(0.05, abs=1e-12)


def test_flags_override_the_model_files_analysis(tmp_path: Path, capsys) -> None:
    output = tmp_path / "out.h5"
    argv = ["run", PENDULUM, "--t-end", "0.2", "--output-step", "0.05", "--method", "I3", "--rtol", "1e-5"]
    argv += ["-o", str(output)]
    assert main(argv) == 0
    assert "method I3, rtol 1e-05" in capsys.readouterr().out
    np.testing.assert_allclose(mb.Results.load(output).time, 0.05 * np.arange(5), rtol=0, atol=1e-12)


def test_kane_formulation_from_the_command_line_matches_the_cartesian_run(tmp_path: Path, capsys) -> None:
    # Two formulations of the same pendulum at tight tolerances: positions agree to the
    # integrators' error (~1e-8 m), far below the 1e-6 m bound.
    runs = {}
    for formulation, method in (("cartesian", "SI2"), ("kane", "DOP853")):
        output = tmp_path / f"{formulation}.h5"
        argv = ["run", PENDULUM, "--t-end", "0.3", "--formulation", formulation, "--method", method, "--rtol", "1e-9"]
        assert main([*argv, "-o", str(output)]) == 0
        runs[formulation] = mb.Results.load(output)
    assert "kane formulation, method DOP853" in capsys.readouterr().out
    np.testing.assert_allclose(runs["kane"].body("rod").position, runs["cartesian"].body("rod").position, atol=1e-6)


def test_a_method_of_another_formulation_is_a_usage_error(capsys) -> None:
    assert main(["run", PENDULUM, "--formulation", "kane", "--method", "I3"]) == 2
    assert "BDF, RK45, DOP853, LSODA" in single_error_line(capsys.readouterr().err)


def test_run_kinematics_from_the_model_file(tmp_path: Path, capsys) -> None:
    output = tmp_path / "crank.h5"
    assert main(["run", str(ROOT / "examples" / "slider_crank.py"), "--t-end", "0.1", "-o", str(output)]) == 0
    assert "degrees of freedom: 0" in capsys.readouterr().out
    assert mb.Results.load(output).layout.analysis == "kinematics"


def test_dynamics_flags_with_kinematics_are_a_usage_error(tmp_path: Path, capsys) -> None:
    argv = ["run", str(ROOT / "examples" / "slider_crank.py"), "--rtol", "1e-8", "-o", str(tmp_path / "x.h5")]
    assert main(argv) == 2
    assert "dynamics only" in single_error_line(capsys.readouterr().err)


def test_info_prints_the_dof_and_redundancy_report(capsys) -> None:
    assert main(["info", str(ROOT / "examples" / "four_bar.py")]) == 0
    printed = capsys.readouterr().out
    assert "degrees of freedom: 1 (Gruebler count -2)" in printed
    assert "3 redundant equations removed" in printed
    assert "'D': translation along world y is redundant with 'A', 'B', 'C'" in printed
    assert "A: Revolute I=crank/start J=ground/A" in printed
    assert "default analysis: dynamics to t = 3 s" in printed


def test_info_lists_the_first_order_states(capsys) -> None:
    # three cylinders, each with two chamber pressures and a valve spool
    assert main(["info", str(ROOT / "examples" / "pump_truck_boom.py")]) == 0
    assert "first-order states: 9 (lift_1 3, lift_2 3, lift_3 3)" in capsys.readouterr().out


def test_missing_model_file(tmp_path: Path, capsys) -> None:
    assert main(["run", str(tmp_path / "nowhere.py")]) == 2
    assert "not found" in single_error_line(capsys.readouterr().err)


def test_model_file_without_build(tmp_path: Path, capsys) -> None:
    path = write_model(tmp_path, "ANALYSIS = {'t_end': 1.0}\n")
    assert main(["info", path]) == 2
    assert "defines no build() function" in single_error_line(capsys.readouterr().err)


def test_model_file_that_does_not_import(tmp_path: Path, capsys) -> None:
    path = write_model(tmp_path, "def build(:\n")
    assert main(["run", path]) == 2
    assert "SyntaxError" in single_error_line(capsys.readouterr().err)


def test_model_error_in_build_names_the_element(tmp_path: Path, capsys) -> None:
    path = write_model(
        tmp_path,
        """
        import multibody as mb

        def build():
            model = mb.Model("bad")
            model.add(mb.RigidBody("brick", mass=-1.0, inertia=(1.0, 1.0, 1.0)))
            return model
        """,
    )
    assert main(["run", path, "-o", str(tmp_path / "x.h5")]) == 2
    assert "body 'brick'" in single_error_line(capsys.readouterr().err)


def test_unknown_analysis_key_in_model_file(tmp_path: Path, capsys) -> None:
    path = write_model(tmp_path, "def build():\n    pass\n\nANALYSIS = {'tend': 1.0}\n")
    assert main(["run", path]) == 2
    assert "unknown keys tend" in single_error_line(capsys.readouterr().err)


def test_command_line_usage_errors_exit_2(capsys) -> None:
    assert main([]) == 2
    assert main(["run", PENDULUM, "--t-end", "-1"]) == 2
    assert "must be positive" in capsys.readouterr().err


def test_failed_assembly_is_one_error_line_exit_1(tmp_path: Path, capsys) -> None:
    path = write_model(tmp_path, UNREACHABLE)
    assert main(["run", path, "-o", str(tmp_path / "x.h5")]) == 1
    line = single_error_line(capsys.readouterr().err)
    assert "assembly of model 'unreachable' did not close" in line and "'tether'" in line


def test_failed_dynamics_names_the_partial_results_file_exit_1(tmp_path: Path, capsys) -> None:
    path = write_model(
        tmp_path,
        """
        import math
        import multibody as mb

        def build():
            # A free ball pushed by a force that turns into NaN after 0.1 s: the integrator must fail.
            model = mb.Model("blowup")
            ball = model.add(mb.RigidBody("ball", 1.0, (1.0, 1.0, 1.0)))
            push = lambda t: (math.nan if t > 0.1 else 0.0, 0.0, 0.0)
            model.add(mb.PointForce("push", ball.add_marker("centre"), push))
            return model
        """,
    )
    output = tmp_path / "partial.h5"
    assert main(["run", path, "-o", str(output)]) == 1
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]  # after the progress bar
    assert last.startswith("error: dynamics of model 'blowup' failed") and str(output) in last
    partial = mb.Results.load(output)
    assert partial.status == "failed"
    assert partial.time[-1] == pytest.approx(0.1, abs=1e-12)


def test_debug_adds_the_traceback(tmp_path: Path, capsys) -> None:
    path = write_model(tmp_path, UNREACHABLE)
    assert main(["run", path, "-o", str(tmp_path / "x.h5"), "--debug"]) == 1
    stderr = capsys.readouterr().err
    assert stderr.startswith("Traceback (most recent call last):")
    assert "AssemblyError" in stderr
    assert stderr.strip().splitlines()[-1].startswith("error: assembly of model 'unreachable'")


def test_module_entry_point_returns_the_exit_code(tmp_path: Path) -> None:
    # `python -m multibody.cli` is the same program as the `multibody` console script.
    done = subprocess.run(
        [sys.executable, "-m", "multibody.cli", "info", str(tmp_path / "nowhere.py")], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert single_error_line(done.stderr).startswith("error: model file")
