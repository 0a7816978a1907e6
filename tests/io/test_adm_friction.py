"""ADAMS FRICTION statements become ``mb.JointFriction``: parameters converted from the dataset's
units (here mm and N), the friction loaded by the joint's reaction. Reference: a block of 2 kg
sliding on a translational joint under gravity decelerates at mu_d g (closed form)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import multibody as mb

DATASET = """ADAMS/View model name: block_on_slide
!
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND
!
PART/1, GROUND
MARKER/1, PART = 1
PART/2, MASS = 2, CM = 3, IP = 1000, 1000, 1000, VX = 1000
MARKER/3, PART = 2
MARKER/4, PART = 2, REULER = 90D, 90D, 0D
MARKER/5, PART = 1, REULER = 90D, 90D, 0D
JOINT/1, TRANSLATIONAL, I = 4, J = 5
FRICTION/1, JOINT = 1, MU_STATIC = 0.4, MU_DYNAMIC = 0.3, STICTION_TRANSITION_VELOCITY = 1,
, MAX_STICTION_DEFORMATION = 0.1, FRICTION_FORCE_PRELOAD = 0.5, INPUTS = PRELOAD:REACTION_FORCE
, MAX_FRICTION_FORCE = 100
ACCGRAV/KGRAV = -9810
END
"""


def test_friction_statement_becomes_a_joint_friction(tmp_path: Path) -> None:
    path = tmp_path / "block.adm"
    path.write_text(DATASET)
    imported = mb.read_adm(path)
    friction = imported.model.forces["FRICTION/1"]
    assert isinstance(friction, mb.JointFriction)
    assert friction.joint is imported.model.joints["JOINT/1"]
    # mm -> m: 1 mm/s, 0.1 mm; ADAMS's default transition coefficient 1.5
    assert friction.stiction_velocity == pytest.approx(1e-3)
    assert friction.transition_velocity == pytest.approx(1.5e-3)
    assert friction.max_stiction_deformation == pytest.approx(1e-4)
    assert friction.preload == pytest.approx(0.5)
    assert friction.inputs == ("preload", "reaction_force")
    # A keyword the reader does not take is reported, not silently dropped.
    assert any("MAX_FRICTION_FORCE" in item.what for item in imported.report.items)
    friction.preload = 0.0  # the closed form below is for the weight alone
    results = mb.dynamics(imported.model, 0.3, 0.05)
    later = results.time > 0.0
    speed = results.body("PART/2").velocity[:, 0]
    slope, _ = np.polyfit(results.time[later], speed[later], 1)
    assert slope == pytest.approx(-0.3 * 9.81, rel=1e-6)
