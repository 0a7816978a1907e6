"""The commands ``multibody animate``, ``multibody plot`` and ``multibody report``.

Each reads an HDF5 results file (written by ``multibody run`` or ``Results.save``); the display
geometry and model summary come from the file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from multibody.results import Results
from multibody.viz.animation import animate
from multibody.viz.gltf import export_gltf
from multibody.viz.plots import plot
from multibody.viz.report import report


def add_commands(commands: Any) -> list[argparse.ArgumentParser]:
    """Add animate, plot and report to the ``multibody`` sub-command parsers; return their parsers."""
    animate_command = _results_command(
        commands, "animate", "write a 3D animation (one HTML file; --glb adds glTF)", "FILE.html", ".html"
    )
    animate_command.add_argument("--glb", action="store_true", help="also write a glTF binary (.glb) next to the HTML")
    animate_command.add_argument(
        "--channel",
        action="append",
        metavar="CHANNEL",
        help="show this channel as text (repeatable), e.g. crank.angular_velocity.z",
    )
    animate_command.set_defaults(handler=_animate)

    plot_command = _results_command(
        commands,
        "plot",
        "plot channels, or a body's or joint's standard set, against time",
        "FIG.png",
        ".png (or .svg, .pdf)",
    )
    plot_command.add_argument(
        "channels",
        nargs="+",
        metavar="CHANNEL",
        help="e.g. crank.angular_velocity.z, slider.position, crank (standard set), energy",
    )
    plot_command.set_defaults(handler=_plot)

    report_command = _results_command(
        commands,
        "report",
        "write a one-page HTML report: summary, statistics, animation, plots",
        "FILE.html",
        "_report.html",
    )
    report_command.set_defaults(handler=_report)
    return [animate_command, plot_command, report_command]


def _results_command(commands: Any, name: str, purpose: str, metavar: str, suffix: str) -> argparse.ArgumentParser:
    """A sub-command reading RESULTS.h5 and writing ``-o FILE`` (default: the results' stem + ``suffix``)."""
    command = commands.add_parser(name, help=purpose)
    command.add_argument("results", metavar="RESULTS.h5", help="results file (multibody run -o ...)")
    command.add_argument("-o", "--output", metavar=metavar, help=f"default: RESULTS's stem + {suffix} here")
    return command


def _animate(args: argparse.Namespace) -> int:
    results = _load(args.results)
    output = _output(args, ".html")
    _checked(lambda: animate(None, results, output, channels=args.channel))
    print(f"animation written to {output}")
    if args.glb:
        export_gltf(None, results, output.with_suffix(".glb"))
        print(f"glTF written to {output.with_suffix('.glb')}")
    return 0


def _plot(args: argparse.Namespace) -> int:
    results = _load(args.results)
    output = _output(args, ".png")
    _checked(lambda: plot(results, *args.channels, path=output))
    print(f"plot written to {output}")
    return 0


def _report(args: argparse.Namespace) -> int:
    results = _load(args.results)
    output = _output(args, "_report.html")
    report(results, output)
    print(f"report written to {output}")
    return 0


def _load(path: str) -> Results:
    from multibody.cli import UsageError

    if not Path(path).is_file():
        raise UsageError(f"results file '{path}' not found")
    try:
        return Results.load(path)
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"cannot read results file '{path}': {error}") from error


def _output(args: argparse.Namespace, suffix: str) -> Path:
    from multibody.cli import UsageError

    output = Path(args.output) if args.output else Path.cwd() / (Path(args.results).stem + suffix)
    if not output.parent.is_dir():
        raise UsageError(f"cannot write '{output}': directory '{output.parent}' does not exist")
    return output


def _checked(action: Any) -> None:
    """Run ``action``; a channel the results do not have becomes a usage error (exit code 2)."""
    from multibody.cli import UsageError

    try:
        action()
    except (KeyError, ValueError) as error:
        raise UsageError(str(error).strip('"')) from error
