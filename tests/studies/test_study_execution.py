"""A study runs the same everywhere: in-process, on the local process pool and on a Dask cluster.

Reference: the spring-mass of ``spring_mass.py`` in closed form. Its natural frequency from
``linearize`` is ``sqrt(k / m) / (2 pi)`` (to the Newton and eigen-solver round-off, 1e-9 relative)
and, released from rest, its highest point is its start ``FREE_LENGTH + amplitude`` exactly (the
first output frame). The three backends run the same deterministic computation per run, so their
responses must be identical to the last bit, not merely close.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import spring_mass

import multibody as mb
from multibody.studies import StudyError

MODEL_FILE = Path(spring_mass.__file__)
PARAMETERS = {"stiffness": (100.0, 400.0), "mass": (0.5, 2.0), "amplitude": (0.01, 0.1)}
RESPONSES = {"peak": "max(mass.position.z)", "frequency": "frequency(1)", "final": "mass.position.z"}


def make_study(build=MODEL_FILE) -> mb.Study:
    return mb.Study(build, PARAMETERS, RESPONSES, analysis="dynamics", t_end=0.2, output_step=0.02)


def check_against_closed_form(result: mb.StudyResult) -> None:
    k, m, amplitude = (result.parameter(name) for name in PARAMETERS)
    np.testing.assert_allclose(result.response("frequency"), np.sqrt(k / m) / (2.0 * np.pi), rtol=1e-9)
    np.testing.assert_array_equal(result.response("peak"), spring_mass.FREE_LENGTH + amplitude)


def test_twenty_runs_identical_inline_on_the_pool_and_on_dask() -> None:
    distributed = pytest.importorskip("distributed")
    study = make_study()
    inline = study.latin_hypercube(20, seed=7, client="inline", progress=False)
    assert inline.failed == () and len(inline.computed) == 20
    check_against_closed_form(inline)
    pool = study.latin_hypercube(20, seed=7, workers=2, progress=False)
    np.testing.assert_array_equal(pool.parameters, inline.parameters)
    np.testing.assert_array_equal(pool.responses, inline.responses)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        distributed.Client(cluster, timeout="60s") as client,
    ):
        on_dask = study.latin_hypercube(20, seed=7, client=client, progress=False)
    np.testing.assert_array_equal(on_dask.responses, inline.responses)


def test_a_module_level_build_function_runs_on_the_pool() -> None:
    study = mb.Study(spring_mass.build, PARAMETERS, {"peak": spring_mass.peak_height}, t_end=0.1, output_step=0.05)
    result = study.sweep(levels=2, workers=2, progress=False)
    assert len(result) == 8 and result.failed == ()
    np.testing.assert_array_equal(result.response("peak"), spring_mass.FREE_LENGTH + result.parameter("amplitude"))


def test_a_lambda_cannot_go_to_the_pool_and_the_error_says_what_to_do() -> None:
    study = mb.Study(lambda **p: spring_mass.build(**p), PARAMETERS, RESPONSES, t_end=0.1, output_step=0.05)
    with pytest.raises(StudyError, match="module level"):
        study.sweep(levels=2, progress=False)


def test_a_failing_run_is_recorded_and_the_study_goes_on() -> None:
    # A negative mass is refused by RigidBody: that run fails with its ModelError, the others run.
    study = mb.Study(spring_mass.build, {"mass": [1.0, -1.0, 2.0]}, RESPONSES, t_end=0.1, output_step=0.05)
    result = study.sweep(client="inline", progress=False)
    assert result.failed == (1,)
    assert "ModelError" in result.errors[1] and "mass must be positive" in result.errors[1]
    assert np.all(np.isnan(result.responses[1])) and np.all(np.isfinite(result.responses[[0, 2]]))
    table = result.table()  # a pandas DataFrame, or a structured array without pandas
    columns = list(table.columns) if hasattr(table, "columns") else list(table.dtype.names)
    assert columns == ["mass", "peak", "frequency", "final", "error"]
    assert table["error"][1].startswith("ModelError") and table["error"][0] == ""


def test_sweep_is_the_full_factorial_of_values_and_levels() -> None:
    study = mb.Study(
        spring_mass.build, {"stiffness": (100.0, 400.0), "mass": [1.0, 4.0]}, {"f": "frequency(1)"}, analysis="linear"
    )
    result = study.sweep(levels=3, client="inline", progress=False)
    expected = [[k, m] for k in (100.0, 250.0, 400.0) for m in (1.0, 4.0)]
    np.testing.assert_array_equal(result.parameters, expected)
    np.testing.assert_allclose(
        result.response("f"), np.sqrt(result.parameter("stiffness") / result.parameter("mass")) / (2 * np.pi), rtol=1e-9
    )


@pytest.mark.parametrize(
    ("parameters", "responses", "options", "message"),
    [
        ({"k": (1.0, 1.0)}, RESPONSES, {"t_end": 1, "output_step": 0.1}, "low < high"),
        ({"k": "soft"}, RESPONSES, {"t_end": 1, "output_step": 0.1}, "give a range"),
        (PARAMETERS, {"x": "maxi(mass.position.z)"}, {"t_end": 1, "output_step": 0.1}, "unknown reduction"),
        (PARAMETERS, RESPONSES, {"t_end": 1}, "output_step"),
        (PARAMETERS, RESPONSES, {"analysis": "dynamic", "t_end": 1, "output_step": 0.1}, "analysis must be one of"),
        (PARAMETERS, RESPONSES, {"analysis": "statics", "t_end": 1}, "statics takes no option t_end"),
    ],
)
def test_bad_set_ups_are_refused_with_the_name_and_the_fix(parameters, responses, options, message) -> None:
    with pytest.raises(StudyError, match=message):
        mb.Study(spring_mass.build, parameters, responses, **options)


def test_an_unknown_client_is_refused() -> None:
    with pytest.raises(StudyError, match="client must be"):
        make_study().latin_hypercube(2, seed=1, client="inlnie", progress=False)


def test_a_response_can_name_a_function_of_the_model_file() -> None:
    # spring_mass.peak_height(results) by name: the release point 0.5 m + amplitude, exactly.
    study = mb.Study(MODEL_FILE, {"amplitude": [0.01, 0.02]}, {"peak": "peak_height"}, t_end=0.1, output_step=0.05)
    result = study.sweep(workers=2, progress=False)
    np.testing.assert_array_equal(result.response("peak"), [0.51, 0.52])
    with pytest.raises(StudyError, match="defines no function height"):
        mb.Study(MODEL_FILE, {"amplitude": [0.01]}, {"peak": "height"}, t_end=0.1, output_step=0.05)
    with pytest.raises(StudyError, match="names a function of the model file, but build is a function"):
        mb.Study(spring_mass.build, {"amplitude": [0.01]}, {"peak": "peak_height"}, t_end=0.1, output_step=0.05)
