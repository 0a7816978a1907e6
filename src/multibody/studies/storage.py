"""The study file: every finished run appended to one HDF5 file as it finishes, for resuming.

Layout: attributes ``parameters`` and ``responses`` (names) and ``kind``; dataset ``design``
(n, p), the planned runs; datasets ``runs/index`` (k,), ``runs/responses`` (k, r), ``runs/error``
(k,) strings (empty when the run succeeded) and ``runs/seconds`` (k,), one row per finished run
in the order they finished. The file is opened, appended and closed for every run, so a study
killed at any moment loses at most the run being written; opening it again with the same design
returns the finished runs, and the study computes only the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError
from multibody.studies.run import RunOutcome


def _string_type():
    import h5py

    return h5py.string_dtype("utf-8")


class StudyStore:
    """The HDF5 file of one study's design and finished runs."""

    def __init__(
        self,
        path: str | Path,
        kind: str,
        parameter_names: Sequence[str],
        response_names: Sequence[str],
        design: NDArray[np.float64],
    ) -> None:
        import h5py

        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise StudyError(f"study file '{self.path}': directory '{self.path.parent}' does not exist")
        with h5py.File(self.path, "a") as file:
            if "design" not in file:
                file.attrs["kind"] = kind
                file.attrs["parameters"] = list(parameter_names)
                file.attrs["responses"] = list(response_names)
                file["design"] = design
                runs = file.create_group("runs")
                runs.create_dataset("index", (0,), maxshape=(None,), dtype="i8")
                runs.create_dataset(
                    "responses", (0, len(response_names)), maxshape=(None, len(response_names)), dtype="f8"
                )
                runs.create_dataset("error", (0,), maxshape=(None,), dtype=_string_type())
                runs.create_dataset("seconds", (0,), maxshape=(None,), dtype="f8")
                return
            same = (
                file.attrs["kind"] == kind
                and list(file.attrs["parameters"]) == list(parameter_names)
                and list(file.attrs["responses"]) == list(response_names)
                and file["design"].shape == design.shape
                and np.array_equal(file["design"][()], design)
            )
        if not same:
            raise StudyError(
                f"study file '{self.path}' holds another study (kind, parameters, responses or design differ); "
                "give a new file name, or delete the file to start over"
            )

    def finished(self) -> dict[int, RunOutcome]:
        """The runs already in the file, by design row."""
        import h5py

        with h5py.File(self.path, "r") as file:
            runs = file["runs"]
            indices, responses = runs["index"][()], runs["responses"][()]
            errors, seconds = runs["error"].asstr()[()], runs["seconds"][()]
        return {
            int(index): RunOutcome(tuple(float(v) for v in row), error or None, float(wall))
            for index, row, error, wall in zip(indices, responses, errors, seconds)
        }

    def append(self, index: int, outcome: RunOutcome) -> None:
        """Add one finished run and close the file (on disk before the next run is written)."""
        import h5py

        with h5py.File(self.path, "a") as file:
            runs = file["runs"]
            k = runs["index"].shape[0]
            for name in ("index", "responses", "error", "seconds"):
                runs[name].resize(k + 1, axis=0)
            runs["index"][k] = index
            runs["responses"][k] = outcome.responses
            runs["error"][k] = outcome.error or ""
            runs["seconds"][k] = outcome.seconds
