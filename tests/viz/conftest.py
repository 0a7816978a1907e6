"""Shared runs of the shipped examples (short) and the headless browser for the viewer tests."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pytest

import multibody as mb
from multibody.cli import analysis_settings, build_model, compile_quietly, load_model_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(path.stem for path in (ROOT / "examples").glob("*.py"))
ARTIFACTS = ROOT / "tests" / "artifacts"
"""Screenshots of the browser tests land here (kept after the run, for CI to collect)."""
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]
"""Debian's chromium without a GPU: WebGL through the SwiftShader software renderer."""


@functools.cache
def example_run(name: str) -> tuple[mb.System, mb.Results]:
    """The example ``name`` compiled and run with its own ANALYSIS settings for 10 output steps."""
    module = load_model_file(ROOT / "examples" / f"{name}.py")
    settings = analysis_settings(module, {})
    settings = dataclasses.replace(settings, t_end=min(settings.t_end, 10 * settings.output_step))
    system = compile_quietly(build_model(module))
    return system, settings.run(system)


@pytest.fixture(scope="session")
def browser():
    """A headless chromium (Playwright), or a skip when Debian's chromium is not installed."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} not installed (apt install chromium); the viewer tests need a real browser")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
