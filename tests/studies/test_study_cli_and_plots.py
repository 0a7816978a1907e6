"""``multibody study study.toml``, the table without pandas, and the study plots.

References: the spring-mass closed form f = sqrt(k/m)/(2 pi) for what the command writes (1e-9,
the round-off of linearize), and the figures' own data (each plotted line holds exactly the
values of the result it was made from).
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import spring_mass

import multibody as mb
from multibody.cli import main
from multibody.studies import StudyError

MODEL = Path(spring_mass.__file__)


def write_study(directory: Path, design: str, extra_run: str = "") -> Path:
    path = directory / "study.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            model = {str(MODEL)!r}
            analysis = "linear"

            [parameters]
            stiffness = {{ low = 100.0, high = 400.0 }}
            mass = [1.0, 2.0]

            [responses]
            frequency = "frequency(1)"

            [design]
            {design}

            [run]
            client = "inline"
            table = "table.csv"
            plot = "plot.png"
            progress = false
            {extra_run}
            """
        )
    )
    return path


def test_multibody_study_runs_a_toml_file_and_writes_table_and_plot(tmp_path, capsys) -> None:
    study = write_study(tmp_path, 'type = "sweep"\nlevels = 3', 'store = "study.h5"')
    assert main(["study", str(study)]) == 0
    printed = capsys.readouterr().out
    assert "StudyResult(sweep: 6 runs (0 failed, 6 computed now)" in printed
    table = np.genfromtxt(tmp_path / "table.csv", delimiter=",", names=True, usecols=(0, 1, 2))
    np.testing.assert_allclose(table["frequency"], np.sqrt(table["stiffness"] / table["mass"]) / (2 * np.pi), rtol=1e-9)
    assert (tmp_path / "plot.png").stat().st_size > 1000
    # Run again: everything comes from the study file.
    assert main(["study", str(study)]) == 0
    assert "6 runs (0 failed, 0 computed now)" in capsys.readouterr().out


def test_multibody_study_optimizes(tmp_path, capsys) -> None:
    study = write_study(
        tmp_path, 'type = "optimize"\nobjective = "stiffness"\nconstraints = { frequency = [2.0, "none"] }'
    )
    study.write_text(study.read_text().replace("mass = [1.0, 2.0]", ""))
    assert main(["study", str(study)]) == 0
    printed = capsys.readouterr().out
    stiffness = float(printed.split("stiffness = ")[1].split()[0])
    assert stiffness == pytest.approx((2 * np.pi * 2.0) ** 2, rel=1e-6)  # k = m (2 pi f)^2, m = 1 kg


def test_a_bad_study_file_is_one_error_line(tmp_path, capsys) -> None:
    study = write_study(tmp_path, 'type = "montecarlo"')
    assert main(["study", str(study)]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: [design] type must be one of sweep, latin_hypercube, sobol_sequence, sobol, morris, "
        "local_sensitivity, optimize, got 'montecarlo'"
    )


@pytest.fixture(scope="module")
def sobol_result() -> mb.StudyResult:
    study = mb.Study(
        spring_mass.build, {"stiffness": (100.0, 400.0), "mass": (0.5, 2.0)}, {"f": "frequency(1)"}, analysis="linear"
    )
    return study.sobol(4, seed=1, client="inline", progress=False)


def test_the_table_is_a_structured_array_without_pandas(sobol_result, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    table = sobol_result.table()
    assert table.dtype.names == ("stiffness", "mass", "f", "error")
    np.testing.assert_array_equal(table["f"], sobol_result.response("f"))


def test_plots_show_the_results_they_are_made_from(sobol_result) -> None:
    figure = sobol_result.plot()  # a Sobol' study: the indices as bars
    bars = figure.axes[0].patches
    heights = [bar.get_height() for bar in bars]
    indices = sobol_result.sensitivity["f"]
    np.testing.assert_array_equal(heights, [*indices["S1"], *indices["ST"]])
    response = sobol_result.plot("response").axes[0].lines[0]
    np.testing.assert_array_equal(response.get_ydata(), sobol_result.response("f"))
    assert len(sobol_result.plot("scatter_matrix").axes) == 9
    with pytest.raises(StudyError, match="has no optimization history"):
        sobol_result.plot("history")


def test_the_optimization_history_plot_holds_every_evaluation() -> None:
    study = mb.Study(spring_mass.build, {"stiffness": (100.0, 1000.0)}, {"f": "frequency(1)"}, analysis="linear")
    result = study.optimize(lambda values: (values["f"] - 3.0) ** 2, method="Nelder-Mead", client="inline")
    evaluations, best = result.plot().axes[0].lines
    assert len(evaluations.get_ydata()) == len(result) == result.optimum["evaluations"]
    assert best.get_ydata()[-1] == pytest.approx(result.optimum["objective"])
