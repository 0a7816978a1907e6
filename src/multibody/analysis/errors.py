"""Errors analyses raise; each names the element and says where partial results are."""

from __future__ import annotations


class AnalysisError(RuntimeError):
    """An analysis could not finish. ``results_path`` holds what was computed, if saved."""

    def __init__(self, message: str, results_path: str | None = None) -> None:
        super().__init__(message)
        self.results_path = results_path


class AssemblyError(AnalysisError):
    """Initial conditions could not satisfy the constraints; the message lists the violated rows."""
