"""Command line: ``multibody run MODEL.py`` and ``multibody info MODEL.py``; ``animate``, ``plot`` and
``report`` read a results file (see ``multibody.viz.commands``).

A model file is a Python file that defines ``build() -> Model`` and, optionally, the defaults of
its analysis::

    ANALYSIS = {"analysis": "dynamics", "t_end": 2.0, "output_step": 0.01, "method": "SI2", "rtol": 1e-6}

Command-line flags override these defaults. Errors are reported as one ``error: ...`` line on
stderr with exit code 2 (usage, model file or model errors) or 1 (the analysis failed); the
traceback is printed only with ``--debug``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from multibody.analysis.dynamics import FORMULATIONS, default_rtol, dynamics
from multibody.analysis.errors import AnalysisError
from multibody.analysis.inverse import inverse_dynamics
from multibody.analysis.kinematics import kinematics
from multibody.analysis.linearize import linear_analysis
from multibody.analysis.statics import quasi_statics, statics
from multibody.io.adm.command import dataset_module, is_dataset
from multibody.io.adm.errors import AdmError
from multibody.model.element import ModelError
from multibody.model.flexible import FlexibleBody
from multibody.model.model import Model
from multibody.results import Results
from multibody.system.compile import RedundantConstraintWarning
from multibody.system.system import System
from multibody.viz.commands import add_commands

EXIT_ANALYSIS_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
ANALYSES = ("dynamics", "kinematics", "statics", "quasi_statics", "linear", "inverse")
AT_START = ("statics", "linear")
"""Analyses of the model at t = 0 only (they ignore t_end and output_step)."""


class UsageError(Exception):
    """A command line, model file or ANALYSIS dictionary the command cannot use."""


@dataclasses.dataclass(frozen=True)
class AnalysisSettings:
    """What ``multibody run`` simulates: the analysis, its end time and output step [s], and for
    dynamics the formulation ("cartesian" or "kane"), its method (default: the formulation's
    first, SI2 or BDF) and the relative tolerance."""

    analysis: str = "dynamics"
    t_end: float = 1.0
    output_step: float = 0.01
    formulation: str = "cartesian"
    method: str | None = None
    rtol: float | None = None
    """None: the method's default (``dynamics.DEFAULT_RTOL``), set when the settings are made"""

    def __post_init__(self) -> None:
        if self.rtol is None and self.formulation in FORMULATIONS:
            object.__setattr__(self, "rtol", default_rtol(self.dynamics_method))

    @property
    def dynamics_method(self) -> str:
        """The method dynamics runs: the one given, or the formulation's default."""
        return FORMULATIONS[self.formulation][0] if self.method is None else self.method

    def describe(self) -> str:
        """One line, e.g. ``dynamics to t = 2 s, output every 0.01 s, method SI2, rtol 1e-06``."""
        if self.analysis in AT_START:
            return "static equilibrium at t = 0 s" + (", and its modes" if self.analysis == "linear" else "")
        line = f"{self.analysis} to t = {self.t_end:g} s, output every {self.output_step:g} s"
        if self.analysis != "dynamics":
            return line
        formulation = "" if self.formulation == "cartesian" else f", {self.formulation} formulation"
        return line + f"{formulation}, method {self.dynamics_method}, rtol {self.rtol:g}"

    def run(self, system: System, output: str | None = None, progress: bool = False) -> Results:
        """Run the analysis on ``system``, streaming to the HDF5 file ``output`` if given."""
        if self.analysis == "kinematics":
            return kinematics(system, self.t_end, self.output_step, output=output, progress=progress)
        if self.analysis == "statics":
            return statics(system, output=output)
        if self.analysis == "quasi_statics":
            return quasi_statics(system, self.t_end, self.output_step, output=output, progress=progress)
        if self.analysis == "linear":
            equilibrium_results, linear = linear_analysis(system, output=output)
            print(linear.modes().table())
            return equilibrium_results
        if self.analysis == "inverse":
            inverse = inverse_dynamics(system, self.t_end, self.output_step, output=output, progress=progress)
            if output is not None:
                inverse.save(output)
            return inverse.results
        return dynamics(
            system,
            self.t_end,
            self.output_step,
            method=self.dynamics_method,
            rtol=self.rtol,
            formulation=self.formulation,
            output=output,
            progress=progress,
        )


DYNAMICS_ONLY = ("formulation", "method", "rtol")
"""Settings that only dynamics uses."""


def load_model_file(path: str | Path, command_file: str | None = None) -> ModuleType:
    """Import the Python file ``path`` as a module (``UsageError`` if it is missing or fails); an
    ADAMS dataset (.adm, with its .acf ``command_file``) is imported by ``multibody.io.adm``, a
    URDF robot description (.urdf) by ``multibody.io.urdf``."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"model file '{path}' not found")
    if is_dataset(path):
        try:
            return dataset_module(path, command_file)
        except (AdmError, FileNotFoundError) as error:
            raise UsageError(str(error)) from error
    if command_file is not None:
        raise UsageError("--acf goes with an ADAMS dataset (.adm), not with a Python model file")
    if path.suffix.lower() == ".urdf":
        from multibody.io.urdf import UrdfError, urdf_module

        try:
            return urdf_module(path)
        except UrdfError as error:
            raise UsageError(str(error)) from error
    if path.suffix != ".py":
        raise UsageError(f"model file '{path}' is not a Python file (.py)")
    module_name = f"multibody_model_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import model file '{path}'")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up here
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise UsageError(f"model file '{path}' failed to load: {type(error).__name__}: {error}") from error
    return module


def build_model(module: ModuleType) -> Model:
    """Call the model file's ``build()`` and check that it returns a ``Model``."""
    where = f"model file '{module.__file__}'"
    build = getattr(module, "build", None)
    if not callable(build):
        raise UsageError(f"{where} defines no build() function; a model file must define build() -> Model")
    try:
        model = build()
    except ModelError:
        raise
    except Exception as error:
        raise UsageError(f"build() in {where} raised {type(error).__name__}: {error}") from error
    if not isinstance(model, Model):
        raise UsageError(f"build() in {where} returned {type(model).__name__}, expected a multibody.Model")
    return model


def analysis_settings(module: ModuleType, overrides: dict[str, object]) -> AnalysisSettings:
    """The model file's ``ANALYSIS`` defaults with ``overrides`` (the flags given) applied on top."""
    where = f"ANALYSIS in model file '{module.__file__}'"
    defaults = getattr(module, "ANALYSIS", {})
    if not isinstance(defaults, dict):
        raise UsageError(f"{where} must be a dict, got {type(defaults).__name__}")
    known = [f.name for f in dataclasses.fields(AnalysisSettings)]
    unknown = sorted(set(defaults) - set(known))
    if unknown:
        raise UsageError(f"{where} has unknown keys {', '.join(unknown)}; the keys are {', '.join(known)}")
    values = {**defaults, **overrides}
    analysis = values.get("analysis", AnalysisSettings.analysis)
    if analysis not in ANALYSES:
        raise UsageError(f"{where}: analysis must be one of {', '.join(ANALYSES)}, got {analysis!r}")
    if analysis != "dynamics":
        flagged = [name for name in DYNAMICS_ONLY if name in overrides]
        if flagged:
            raise UsageError(f"--{' and --'.join(flagged)} apply to dynamics only, not to {analysis}")
        values = {k: v for k, v in values.items() if k not in DYNAMICS_ONLY}
    settings = AnalysisSettings(**values)
    if settings.formulation not in FORMULATIONS:
        raise UsageError(f"{where}: formulation must be one of {', '.join(FORMULATIONS)}, got {settings.formulation!r}")
    methods = FORMULATIONS[settings.formulation]
    if settings.dynamics_method not in methods:
        raise UsageError(
            f"{where}: method of the {settings.formulation} formulation must be one of {', '.join(methods)}, "
            f"got {settings.method!r}"
        )
    for name in ("t_end", "output_step", "rtol"):
        value = getattr(settings, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise UsageError(f"{where}: {name} must be a positive number, got {value!r}")
    return settings


def compile_quietly(model: Model) -> System:
    """``model.compile()`` without the redundancy warning: the summary reports redundant rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundantConstraintWarning)
        return model.compile()


def format_stats(stats: dict[str, int | float]) -> str:
    """Solver statistics, one ``name  value`` line each."""
    width = max((len(name) for name in stats), default=0)
    lines = ["solver statistics:"]
    for name, value in stats.items():
        shown = f"{value:d}" if isinstance(value, int) else f"{value:.6g}"
        lines.append(f"  {name.ljust(width)}  {shown}")
    return "\n".join(lines)


def flexible_modes(body: FlexibleBody) -> str:
    """One line on a flexible body's kept modes: how they were made and their frequencies [Hz] (of the free
    body, or of the body held at its interface or reference nodes, as ``FlexibleBody.frequencies`` says)."""
    reduction = "Craig-Bampton, interface held" if body.method == "craig_bampton" else "free"
    frame = "frame tied to the reference nodes, held there" if body.reference_condition == "tied" else "mean axes"
    frequencies = ", ".join(f"{f:.4g}" for f in body.frequencies)
    return f"{len(body.frequencies)} modes ({reduction}; {frame}): {frequencies} Hz"


def element_listing(model: Model) -> str:
    """Bodies, constraints and forces of ``model``, one line each."""
    lines = ["bodies:"]
    for body in model.bodies.values():
        lines.append(f"  {body.name}: mass {body.mass:g} kg")
        if isinstance(body, FlexibleBody):
            lines.append(f"    {flexible_modes(body)}")
    lines.append("constraints:")
    lines += [
        f"  {c.name}: {type(c).__name__} I={c.i_marker.full_name} J={c.j_marker.full_name}" for c in model.constraints()
    ]
    lines.append("forces:" if model.forces else "forces: none")
    lines += [f"  {f.name}: {type(f).__name__}" for f in model.forces.values()]
    if model.contacts:
        lines.append("contacts:")
        lines += [
            f"  {c.name}: {type(c).__name__} I={c.i_marker.full_name} J={c.j_marker.full_name} e={c.restitution:g}"
            for c in model.contacts.values()
        ]
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    module = load_model_file(args.model, args.acf)
    flags = {
        name: getattr(args, name) for name in ("analysis", "t_end", "output_step", "formulation", "method", "rtol")
    }
    settings = analysis_settings(module, {name: value for name, value in flags.items() if value is not None})
    output = Path(args.output) if args.output else Path.cwd() / f"{Path(args.model).stem}.h5"
    if not output.parent.is_dir():
        raise UsageError(f"cannot write results to '{output}': directory '{output.parent}' does not exist")
    if hasattr(module, "IMPORT_REPORT"):
        print(module.IMPORT_REPORT)
    system = compile_quietly(build_model(module))
    print(system.summary())
    print(f"{settings.describe()}; results stream to {output}", flush=True)
    try:
        results = settings.run(system, output=str(output), progress=True)
    except KeyboardInterrupt:
        print(f"error: interrupted; the results computed so far are in {output}", file=sys.stderr)
        return EXIT_INTERRUPTED
    print(format_stats(results.stats))
    print(results.final_state_table())
    if hasattr(module, "write_requests"):
        print(f"{module.write_requests(system, results, output)} REQUEST outputs added under requests/")
    print(f"results written to {output}")
    return 0


def _info(args: argparse.Namespace) -> int:
    module = load_model_file(args.model)
    settings = analysis_settings(module, {})
    if hasattr(module, "IMPORT_REPORT"):
        print(module.IMPORT_REPORT)
    model = module.partial_model() if hasattr(module, "partial_model") else build_model(module)
    print(compile_quietly(model).summary())
    print(element_listing(model))
    print(f"default analysis: {settings.describe()}")
    return 0


def _study(args: argparse.Namespace) -> int:
    from multibody.studies.config import run_config, summary
    from multibody.studies.errors import StudyError

    try:
        result = run_config(args.study, client="inline" if args.inline else args.client, workers=args.workers)
    except StudyError as error:
        raise UsageError(str(error)) from error
    print(summary(result))
    return 0


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0.0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="multibody", description="Simulate mechanical multibody systems.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser("run", help="assemble and simulate a model file, write an HDF5 results file")
    run.add_argument(
        "model",
        metavar="MODEL.py",
        help="Python file defining build() -> Model (and maybe ANALYSIS), an ADAMS dataset .adm or a URDF file",
    )
    run.add_argument(
        "--acf", metavar="FILE.acf", help="ADAMS command file for an .adm dataset (SIMULATE/DYNAMIC, END=...)"
    )
    run.add_argument("--t-end", type=_positive, metavar="T", help="end time [s]")
    run.add_argument("--output-step", type=_positive, metavar="H", help="output interval [s]")
    run.add_argument(
        "--analysis",
        choices=ANALYSES,
        help="dynamics (default), kinematics (0-DOF models), statics, quasi_statics, linear (modes at the static "
        "equilibrium) or inverse (efforts and power of the motions of a 0-DOF model)",
    )
    run.add_argument("--formulation", choices=tuple(FORMULATIONS), help="coordinates for dynamics (default cartesian)")
    run.add_argument(
        "--method",
        choices=tuple(dict.fromkeys(m for methods in FORMULATIONS.values() for m in methods)),
        help="cartesian: DAE form SI2 (default) or I3; kane: BDF (default), RK45, DOP853 or LSODA",
    )
    run.add_argument(
        "--rtol", type=_positive, metavar="R", help="relative tolerance for dynamics (default: the method's; SI2 1e-6)"
    )
    run.add_argument("-o", "--output", metavar="FILE", help="results file (default: MODEL's stem + .h5 here)")
    run.set_defaults(handler=_run)

    info = commands.add_parser("info", help="print a model's summary: bodies, constraints, DOF, redundancies")
    info.add_argument(
        "model", metavar="MODEL.py", help="Python file defining build() -> Model, an ADAMS dataset .adm or a .urdf"
    )
    info.set_defaults(handler=_info)

    study = commands.add_parser("study", help="run a parameter study, sensitivity analysis or optimization (TOML)")
    study.add_argument(
        "study", metavar="STUDY.toml", help="model, parameters, responses, design (see multibody.studies.config)"
    )
    study.add_argument("--workers", type=int, metavar="N", help="processes of the local pool (default: all cores)")
    study.add_argument("--client", metavar="ADDRESS", help="a Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    study.add_argument("--inline", action="store_true", help="run in this process, one run after the other")
    study.set_defaults(handler=_study)

    viewers = add_commands(commands)  # animate, plot, report

    for command in (run, info, study, *viewers):
        command.add_argument("--debug", action="store_true", help="print the traceback of an error")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``multibody`` command; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:  # argparse has printed the usage error or the help
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    try:
        return args.handler(args)
    except (UsageError, ModelError) as error:
        return _fail(args, error, EXIT_USAGE)
    except AnalysisError as error:
        return _fail(args, error, EXIT_ANALYSIS_FAILED)
    except Exception as error:
        hint = "" if args.debug else " (run with --debug for the traceback)"
        return _fail(args, error, EXIT_ANALYSIS_FAILED, f"unexpected {type(error).__name__}: {error}{hint}")


def _fail(args: argparse.Namespace, error: BaseException, code: int, message: str | None = None) -> int:
    if args.debug:
        traceback.print_exception(error)
    print(f"error: {error if message is None else message}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
