"""Spatial double pendulum: two rods linked by ball joints, swinging in three dimensions.

The upper rod hangs from the ground by a spherical joint at the world origin; the lower rod hangs
from the free end of the upper one by a second spherical joint. Both rods are uniform cylinders
(length 0.5 m, mass 1 kg, radius 1 cm). They start in the vertical x-z plane, the upper rod at
45 degrees and the lower one at 90 degrees (horizontal), with the lower rod's free end moving out
of that plane at 1 m/s, so the motion is fully spatial and chaotic.

Each ball joint leaves three rotations free, so the system has 6 degrees of freedom: two swing
angles per rod plus each rod's spin about its own axis (which no force can change: gravity and the
joint reactions all act on the rod axis, so each spin stays at its initial value, here zero).
Without friction the total energy is conserved, and so is the angular momentum about the vertical
through the suspension point (gravity is vertical; the ground reaction acts at the pivot).

Run it with ``multibody run examples/double_pendulum.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

LENGTH = 0.5
"""Length of each rod [m]."""
MASS = 1.0
"""Mass of each rod [kg]."""
RADIUS = 0.01
"""Rod radius [m] (moment of inertia about the rod axis)."""
UPPER_ANGLE = np.radians(45.0)
"""Initial angle of the upper rod from the downward vertical, in the x-z plane [rad]."""
LOWER_ANGLE = np.radians(90.0)
"""Initial angle of the lower rod from the downward vertical, in the x-z plane [rad]."""
TIP_SPEED = 1.0
"""Initial out-of-plane (world y) speed of the lower rod's free end [m/s]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 5.0, "output_step": 0.01, "method": "SI2", "rtol": 1e-6}


def rod_frame(angle: float) -> np.ndarray:
    """``R_WB`` of a rod in the x-z plane at ``angle`` [rad] from the downward vertical: body x
    along the rod (downwards from its upper joint), body y = world y."""
    along_rod = np.array([np.sin(angle), 0.0, -np.cos(angle)])
    return np.column_stack([along_rod, [0.0, 1.0, 0.0], np.cross(along_rod, [0.0, 1.0, 0.0])])


def build() -> mb.Model:
    """The double pendulum, upper rod pivoting on the ground at the origin."""
    model = mb.Model("double_pendulum")
    transverse = MASS * LENGTH**2 / 12.0
    inertia = (MASS * RADIUS**2 / 2.0, transverse, transverse)
    R_upper, R_lower = rod_frame(UPPER_ANGLE), rod_frame(LOWER_ANGLE)
    elbow = LENGTH * R_upper[:, 0]
    # The lower rod turns about the elbow with angular velocity w (world), the upper rod is at rest:
    # the free end moves at w x (L x_lower) = TIP_SPEED along world y with w along the rod's normal in the plane.
    w_lower = TIP_SPEED / LENGTH * np.cross(R_lower[:, 0], [0.0, 1.0, 0.0])
    upper = model.add(
        mb.RigidBody(
            "upper",
            MASS,
            inertia,
            position=0.5 * elbow,
            orientation=R_upper,
            velocity=(0.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, 0.0),
        )
    )
    lower = model.add(
        mb.RigidBody(
            "lower",
            MASS,
            inertia,
            position=elbow + 0.5 * LENGTH * R_lower[:, 0],
            orientation=R_lower,
            velocity=np.cross(w_lower, 0.5 * LENGTH * R_lower[:, 0]),
            angular_velocity=w_lower,
        )
    )
    shoulder_on_upper = upper.add_marker("top", position=(-0.5 * LENGTH, 0.0, 0.0))
    model.add(mb.Spherical("shoulder", shoulder_on_upper, model.ground.add_marker("pivot")))
    model.add(
        mb.Spherical(
            "elbow",
            lower.add_marker("top", position=(-0.5 * LENGTH, 0.0, 0.0)),
            upper.add_marker("bottom", position=(0.5 * LENGTH, 0.0, 0.0)),
        )
    )
    return model
