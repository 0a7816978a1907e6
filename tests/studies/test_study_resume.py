"""A killed study loses no finished run, and resuming it computes only the missing runs.

Reference: the study file itself. Finished runs are appended to it (and the file closed) one by
one; after a process is killed with SIGKILL (no clean-up of any kind) the file must hold exactly
the runs that finished before, and the same study called again with that file must compute the
others and no more. The responses read back are checked against the closed form of the
spring-mass (``sqrt(k / m) / (2 pi)``, 1e-9: Newton and eigen-solver round-off).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import killed_model
import numpy as np
import pytest

import multibody as mb
from multibody.studies import StudyError

STIFFNESSES = [100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0]
KILLED_ROW = 5


def study() -> mb.Study:
    return mb.Study(killed_model.build, {"stiffness": STIFFNESSES}, {"frequency": "frequency(1)"}, analysis="linear")


def check(result: mb.StudyResult) -> None:
    assert result.failed == ()
    np.testing.assert_array_equal(result.parameter("stiffness"), STIFFNESSES)
    np.testing.assert_allclose(result.response("frequency"), np.sqrt(STIFFNESSES) / (2.0 * np.pi), rtol=1e-9)


def test_a_killed_pool_worker_loses_no_finished_run_and_resuming_runs_only_the_rest(tmp_path, monkeypatch) -> None:
    store = tmp_path / "study.h5"
    monkeypatch.setenv(killed_model.KILL_AT, str(STIFFNESSES[KILLED_ROW]))
    # One worker takes the runs in order: rows 0-4 finish, row 5 kills it, rows 6-7 never start.
    with pytest.raises(StudyError, match="worker process of the pool died"):
        study().sweep(workers=1, store=store, progress=False)
    monkeypatch.delenv(killed_model.KILL_AT)
    from multibody.studies.storage import StudyStore

    kept = StudyStore(store, "sweep", ("stiffness",), ("frequency",), np.array(STIFFNESSES)[:, None]).finished()
    assert sorted(kept) == list(range(KILLED_ROW))
    resumed = study().sweep(workers=1, store=store, progress=False)
    assert resumed.computed == tuple(range(KILLED_ROW, len(STIFFNESSES)))
    check(resumed)
    again = study().sweep(workers=1, store=store, progress=False)
    assert again.computed == ()
    np.testing.assert_array_equal(again.responses, resumed.responses)


def test_a_killed_study_process_resumes_from_its_file(tmp_path) -> None:
    store = tmp_path / "study.h5"
    here = Path(__file__).parent
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(here)!r})
        import multibody as mb, killed_model
        mb.Study(killed_model.build, {{"stiffness": {STIFFNESSES}}}, {{"frequency": "frequency(1)"}},
                 analysis="linear").sweep(client="inline", store={str(store)!r}, progress=False)
        """
    )
    environment = {**__import__("os").environ, killed_model.KILL_AT: str(STIFFNESSES[KILLED_ROW])}
    finished = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, timeout=120)
    assert finished.returncode == -9, finished.stderr.decode()
    resumed = study().sweep(client="inline", store=store, progress=False)
    assert resumed.computed == tuple(range(KILLED_ROW, len(STIFFNESSES)))
    check(resumed)


def test_a_file_of_another_study_is_refused(tmp_path) -> None:
    store = tmp_path / "study.h5"
    study().sweep(client="inline", store=store, progress=False)
    other = mb.Study(killed_model.build, {"stiffness": [1.0, 2.0]}, {"frequency": "frequency(1)"}, analysis="linear")
    with pytest.raises(StudyError, match="holds another study"):
        other.sweep(client="inline", store=store, progress=False)
