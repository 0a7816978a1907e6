"""ADAMS/Solver datasets (.adm) and command files (.acf).

>>> from multibody.io.adm import read_adm, request_outputs
>>> imported = read_adm("pendulum.adm")      # doctest: +SKIP
>>> print(imported.report.format())          # doctest: +SKIP
>>> system = imported.check().compile()      # doctest: +SKIP
>>> results = dynamics(system, t_end=5.0, output_step=0.01)  # doctest: +SKIP
>>> request_outputs(imported.requests, system, results)["REQUEST/1"]["x"]  # doctest: +SKIP

The reader: ``lexer`` (lines -> statements), ``parser`` (statements -> keywords, by the tables of
``keywords``), ``builder`` (statements -> Model; ids resolved in a second pass), ``expressions``
(function expressions -> compiled callables, with ``functions`` and ``units``), ``loads`` (the
force laws), ``gse`` (GSE statements with Python functions), ``graphics``, ``requests``, ``acf`` (command files) and ``command`` (the CLI's view).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from multibody.io.adm.builder import AdmModel, IntegratorSettings, Request, build
from multibody.io.adm.errors import AdmError, AdmReferenceError, AdmSyntaxError
from multibody.io.adm.graphics import Graphics
from multibody.io.adm.gse import GseFunctions
from multibody.io.adm.report import ImportReport, ReportItem
from multibody.io.adm.requests import load_requests, request_outputs


def read_adm(path: str | Path, gse: Mapping[int, GseFunctions] | None = None) -> AdmModel:
    """Import the ADAMS/Solver dataset at ``path``: the model (SI units), its import report,
    requests, graphics and integrator settings. Raises ``AdmError`` (located) when the file
    cannot be read as a dataset. ``gse`` maps GSE ids to the Python functions standing in for
    their user subroutines (``multibody.io.adm.gse``)."""
    path = Path(path)
    return build(path.read_text(encoding="utf-8", errors="replace"), str(path), gse)


def parse_adm(text: str, source: str = "<string>", gse: Mapping[int, GseFunctions] | None = None) -> AdmModel:
    """Import an ADAMS/Solver dataset given as text; ``source`` names it in messages; ``gse`` as
    for ``read_adm``."""
    return build(text, source, gse)


__all__ = [
    "AdmError",
    "AdmModel",
    "AdmReferenceError",
    "AdmSyntaxError",
    "Graphics",
    "GseFunctions",
    "ImportReport",
    "IntegratorSettings",
    "ReportItem",
    "Request",
    "load_requests",
    "parse_adm",
    "read_adm",
    "request_outputs",
]
