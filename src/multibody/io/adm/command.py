"""An ADAMS dataset (and command file) presented to ``multibody run`` / ``info`` as a model file.

``dataset_module`` returns a module object with what a Python model file defines: ``build()``
and ``ANALYSIS`` (from the dataset's INTEGRATOR statement and the .acf's SIMULATE command), plus
``IMPORT_REPORT`` (the text ``multibody info`` prints), ``partial_model()`` (what ``info`` lists
even when items that change the motion are missing, which ``build()`` refuses) and
``write_requests`` (called after a run to add the REQUEST outputs to the results file).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from multibody.analysis.errors import AnalysisError
from multibody.io.adm import read_adm
from multibody.io.adm.acf import parse_acf
from multibody.io.adm.report import ImportReport
from multibody.io.adm.requests import evaluate_requests
from multibody.results import Results
from multibody.system.system import System

DATASET_SUFFIXES = (".adm",)


def is_dataset(path: str | Path) -> bool:
    """Whether ``path`` names an ADAMS dataset (by its suffix)."""
    return Path(path).suffix.lower() in DATASET_SUFFIXES


def dataset_module(path: str | Path, command_file: str | Path | None = None) -> ModuleType:
    """The dataset at ``path`` (with the command file ``command_file``) as a model-file module."""
    path = Path(path)
    imported = read_adm(path)
    analysis: dict[str, object] = {}
    if imported.integrator.method:
        analysis["method"] = imported.integrator.method
    if imported.integrator.rtol:
        analysis["rtol"] = imported.integrator.rtol
    items = list(imported.report.items)
    if command_file is not None:
        command_path = Path(command_file)
        if not command_path.is_file():
            raise FileNotFoundError(f"command file '{command_path}' not found")
        commands = parse_acf(
            command_path.read_text(encoding="utf-8", errors="replace"), imported.units.factor("time"), str(command_path)
        )
        analysis.update(commands.settings)
        items += commands.items
    report = ImportReport(imported.report.source, tuple(items))

    module = ModuleType(f"multibody_dataset_{path.stem}")
    module.__file__ = str(path)
    module.ANALYSIS = analysis
    module.IMPORT_REPORT = report.format()
    module.build = imported.check
    module.partial_model = lambda: imported.model

    def write_requests(system: System, results: Results, output: str | Path) -> int:
        """Add every REQUEST's components to ``output`` as ``requests/<NAME>/<id>/<component>``
        (dataset units); returns how many requests were written. A component that is not finite
        is written as computed (NaN where it could not be), then an ``AnalysisError`` names it."""
        outputs, failures = evaluate_requests(imported.requests, system, results)
        import h5py  # heavy: loaded when first used

        with h5py.File(output, "a") as file:
            for name, components in outputs.items():
                for component, values in components.items():
                    file[f"requests/{name}/{component}"] = values
        if failures:
            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise AnalysisError(
                f"{failures[0]}{more}; the REQUEST outputs are stored in {output} as computed", str(output)
            )
        return len(outputs)

    module.write_requests = write_requests
    return module
