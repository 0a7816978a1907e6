"""``import multibody`` stays light: public names load on first use (PEP 562), heavy libraries
load where they are used. Checked by the modules a fresh interpreter has imported, not by time
(timings are for benchmarks/setup_scaling.py)."""

from __future__ import annotations

import subprocess
import sys

import multibody as mb

HEAVY = ("scipy.optimize", "scipy.interpolate", "matplotlib", "trimesh", "h5py")


def imported_modules(code: str) -> set[str]:
    """Names of the modules ``python -X importtime -c code`` imported (from its import log)."""
    finished = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in finished.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_import_loads_no_heavy_library() -> None:
    modules = imported_modules("import multibody")
    assert "multibody" in modules  # the log was read
    assert not {name for name in modules if name.split(".")[0] in ("matplotlib", "trimesh", "h5py")}
    assert not {name for name in modules if name.startswith(HEAVY)}


def test_building_and_compiling_a_model_loads_no_heavy_library() -> None:
    code = (
        "import multibody as mb\n"
        "model = mb.Model('pendulum')\n"
        "rod = model.add(mb.RigidBody('rod', 1.0, (0.01, 0.1, 0.1), position=(0.5, 0.0, 0.0)))\n"
        "model.add(mb.Revolute('pivot', rod.add_marker('pivot', (-0.5, 0.0, 0.0)), model.ground.add_marker('o')))\n"
        "model.compile()\n"
    )
    modules = imported_modules(code)
    assert "multibody.system.compile" in modules
    assert not {name for name in modules if name.startswith(HEAVY)}


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in mb.__all__:
        assert getattr(mb, name) is not None, name
    assert set(mb.__all__) <= set(dir(mb))
    assert mb.functions.Harmonic is mb.Harmonic
    from multibody import kinematics

    assert callable(kinematics)  # the analysis, not the submodule of the same name
