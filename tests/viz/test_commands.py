"""``multibody animate``, ``plot`` and ``report`` on a results file written by ``multibody run``."""

from __future__ import annotations

import pytest

from multibody.cli import EXIT_USAGE, build_model, load_model_file, main
from multibody.viz.animation import animation_html

from .conftest import ROOT, example_run


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "pendulum.h5"
    assert main(["run", str(ROOT / "examples" / "pendulum.py"), "--t-end", "0.1", "-o", str(path)]) == 0
    return path


def test_animate_writes_html_and_glb(results_file, tmp_path, capsys) -> None:
    output = tmp_path / "run.html"
    assert main(["animate", str(results_file), "-o", str(output), "--glb", "--channel", "energy.total"]) == 0
    page = output.read_text()
    assert page.startswith("<!DOCTYPE html>") and '"name":"energy.total"' in page
    assert output.with_suffix(".glb").read_bytes()[:4] == b"glTF"
    assert "animation written to" in capsys.readouterr().out


def test_plot_and_report(results_file, tmp_path) -> None:
    assert main(["plot", str(results_file), "rod", "energy.kinetic", "-o", str(tmp_path / "fig.svg")]) == 0
    assert "rod.angular_velocity [rad/s]" in (tmp_path / "fig.svg").read_text()
    assert main(["report", str(results_file), "-o", str(tmp_path / "report.html")]) == 0
    assert "Solver statistics" in (tmp_path / "report.html").read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["plot", "missing.h5", "crank"], "results file 'missing.h5' not found"),
        (["plot", "{results}", "rod.spin"], "a body has no quantity 'spin'"),
        (["animate", "{results}", "--channel", "nothing.position.x"], "no element 'nothing'"),
        (["report", "{results}", "-o", "/no/such/dir/report.html"], "directory '/no/such/dir' does not exist"),
    ],
)
def test_usage_errors_name_the_problem(results_file, tmp_path, capsys, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([arg.format(results=results_file) for arg in argv]) == EXIT_USAGE
    assert message in capsys.readouterr().err


def test_a_model_gives_the_same_page_as_the_file() -> None:
    """animate(model, ...) compiles the model; its scene is the one the results carry."""
    _, results = example_run("double_pendulum")
    model = build_model(load_model_file(ROOT / "examples" / "double_pendulum.py"))
    assert animation_html(model, results) == animation_html(None, results)
