"""StudyResult: the parameters and responses of every run, and what the study found from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from multibody.studies.errors import StudyError

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class StudyResult:
    """What a study returns.

    Attributes:
        kind: "sweep", "latin_hypercube", "sobol_sequence", "sobol", "morris",
            "local_sensitivity", "optimize" or "runs".
        parameter_names, response_names: column names, in order.
        parameters: (n, p) parameter values of the runs, in run order (design order; evaluation
            order for an optimization).
        responses: (n, r) response values; NaN where the run failed.
        errors: (n,) the error message of each failed run, None where it succeeded.
        seconds: (n,) wall time of each run [s].
        computed: the rows computed by this call (the others were read back from the study file).
        sensitivity: for "sobol" ``{response: {"S1", "S1_conf", "ST", "ST_conf"}}``, for "morris"
            ``{response: {"mu", "mu_star", "mu_star_conf", "sigma"}}``, for "local_sensitivity"
            ``{response: {"derivative", "step"}}``; arrays of shape (p,), parameters' order.
        optimum: for "optimize": ``parameters`` (dict), ``objective``, ``responses`` (dict),
            ``maximize``, ``success``, ``message``, ``evaluations`` and ``objective_history`` (n,).
    """

    kind: str
    parameter_names: tuple[str, ...]
    response_names: tuple[str, ...]
    parameters: NDArray[np.float64]
    responses: NDArray[np.float64]
    errors: tuple[str | None, ...]
    seconds: NDArray[np.float64]
    computed: tuple[int, ...] = ()
    sensitivity: Mapping[str, Mapping[str, NDArray[np.float64]]] = field(default_factory=dict)
    optimum: Mapping[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.parameters)

    def __repr__(self) -> str:
        failed = sum(error is not None for error in self.errors)
        return (
            f"StudyResult({self.kind}: {len(self)} runs ({failed} failed, {len(self.computed)} computed now), "
            f"parameters {', '.join(self.parameter_names)}; responses {', '.join(self.response_names)})"
        )

    @property
    def failed(self) -> tuple[int, ...]:
        """Rows of the runs that failed."""
        return tuple(row for row, error in enumerate(self.errors) if error is not None)

    def response(self, name: str) -> NDArray[np.float64]:
        """(n,) values of response ``name`` (NaN where a run failed)."""
        return self.responses[:, self._column(self.response_names, name, "response")]

    def parameter(self, name: str) -> NDArray[np.float64]:
        """(n,) values of parameter ``name``."""
        return self.parameters[:, self._column(self.parameter_names, name, "parameter")]

    def table(self):
        """One row per run: the parameters, the responses and ``error`` (empty if it succeeded).
        A pandas DataFrame if pandas is installed, else a numpy structured array."""
        columns: dict[str, NDArray] = {name: self.parameters[:, k] for k, name in enumerate(self.parameter_names)}
        columns.update({name: self.responses[:, k] for k, name in enumerate(self.response_names)})
        columns["error"] = np.array([error or "" for error in self.errors], dtype=object)
        try:
            import pandas
        except ImportError:
            width = max((len(error or "") for error in self.errors), default=1)
            dtype = [(name, float) for name in list(columns)[:-1]] + [("error", f"U{max(width, 1)}")]
            table = np.zeros(len(self), dtype=dtype)
            for name, values in columns.items():
                table[name] = values
            return table
        return pandas.DataFrame(columns)

    def plot(self, kind: str | None = None, response: str | None = None) -> Figure:
        """A matplotlib figure: ``"response"`` (each response against each parameter),
        ``"scatter_matrix"``, ``"sensitivity"`` (Sobol' or Morris bars) or ``"history"`` (an
        optimization's objective per evaluation). The default suits the study's kind;
        ``response`` picks one response (default: all)."""
        from multibody.studies import plots

        return plots.plot_study(self, kind, response)

    @staticmethod
    def _column(names: tuple[str, ...], name: str, what: str) -> int:
        if name not in names:
            raise StudyError(f"no {what} '{name}'; the {what}s are: {', '.join(names)}")
        return names.index(name)
