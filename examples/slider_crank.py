"""Slider-crank: a crank turned at constant speed drives a slider through a connecting rod.

The mechanism lies in the vertical x-z plane. A balanced crank (a flywheel disc, centre of mass on
its axis) turns about the world y-axis at the origin; a pin at radius r = 0.1 m on it carries the
big end of a connecting rod of length l = 0.3 m, whose small end drives a slider along the world
x-axis. With the crank angle theta measured from +x towards +z, the slider position is

    x(theta) = r cos(theta) + sqrt(l^2 - r^2 sin^2(theta)).

``build()`` drives the crank joint with a Motion theta(t) = 30 deg + 2 pi t (one turn per second):
a zero-DOF model whose motion follows from the constraints alone, solved by kinematic analysis
(the reactions include the torque the drive must apply). ``build_free()`` is the same mechanism
without the drive, the crank started at one turn per second and left to run under gravity (the
rod's weight speeds it up and slows it down); its dynamics conserve energy.

Joint choice: a planar mechanism built of spatial joints repeats equations (four revolutes would
fix the motion out of the plane several times over). Here the crank pivot is a Revolute, the big
end a Spherical joint, the small end a Universal joint (one pin along y, the other across the
rod, which stops the rod spinning about its own axis) and the slider a Translational joint:
5 + 3 + 4 + 5 = 17 equations for 3 bodies (18 coordinates), one degree of freedom and no redundant
equation. The drive takes the last one, leaving 0.

Run it with ``multibody run examples/slider_crank.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

CRANK_RADIUS = 0.1
"""Distance from the crank axis to the crank pin, r [m]."""
ROD_LENGTH = 0.3
"""Connecting rod length between pin centres, l [m]."""
INITIAL_ANGLE = np.radians(30.0)
"""Crank angle at t = 0, from +x towards +z [rad]."""
CRANK_SPEED = 2.0 * np.pi
"""Crank angular velocity [rad/s]: prescribed by build(), initial in build_free()."""
FLYWHEEL_MASS, FLYWHEEL_RADIUS = 2.0, 0.15
"""The crank is a uniform disc [kg, m] turning about its axis."""
ROD_MASS, ROD_RADIUS = 0.5, 0.01
"""The connecting rod is a uniform cylinder [kg, m]."""
SLIDER_MASS, SLIDER_SIZE = 0.3, 0.05
"""The slider is a uniform cube [kg, m]."""

ANALYSIS = {"analysis": "kinematics", "t_end": 2.0, "output_step": 0.01}

CRANK_AXIS = np.array([0.0, -1.0, 0.0])
"""Rotation axis of the revolute joints: -y, so that theta grows from +x towards +z."""


def slider_position(theta: np.ndarray | float) -> np.ndarray | float:
    """Closed-form slider position x(theta) [m] for crank angle ``theta`` [rad]."""
    return CRANK_RADIUS * np.cos(theta) + np.sqrt(ROD_LENGTH**2 - (CRANK_RADIUS * np.sin(theta)) ** 2)


def mechanism(name: str) -> tuple[mb.Model, mb.Revolute]:
    """The undriven slider-crank at ``INITIAL_ANGLE``, the crank turning at ``CRANK_SPEED`` (kept
    exactly by assembly; the rod and slider velocities follow), and its crank pivot joint."""
    model = mb.Model(name)
    crank_direction = np.array([np.cos(INITIAL_ANGLE), 0.0, np.sin(INITIAL_ANGLE)])
    pin = CRANK_RADIUS * crank_direction
    wrist = np.array([slider_position(INITIAL_ANGLE), 0.0, 0.0])
    along_rod = (wrist - pin) / ROD_LENGTH
    across_rod = np.cross(along_rod, CRANK_AXIS)  # in the plane, normal to the rod

    disc_axial = FLYWHEEL_MASS * FLYWHEEL_RADIUS**2 / 2.0
    crank = model.add(
        mb.RigidBody(
            "crank",
            FLYWHEEL_MASS,
            (disc_axial / 2.0, disc_axial, disc_axial / 2.0),
            position=(0.0, 0.0, 0.0),
            angular_velocity=CRANK_SPEED * CRANK_AXIS,
            exact=("angular_velocity",),
        )
    )
    rod_transverse = ROD_MASS * ROD_LENGTH**2 / 12.0
    rod = model.add(
        mb.RigidBody(
            "rod",
            ROD_MASS,
            (ROD_MASS * ROD_RADIUS**2 / 2.0, rod_transverse, rod_transverse),
            position=0.5 * (pin + wrist),
            orientation=np.column_stack([along_rod, CRANK_AXIS, across_rod]),
        )
    )
    cube = SLIDER_MASS * SLIDER_SIZE**2 / 6.0
    slider = model.add(mb.RigidBody("slider", SLIDER_MASS, (cube, cube, cube), position=wrist))

    ground = model.ground
    pivot = model.add(
        mb.Revolute(
            "crank_pivot",
            crank.add_marker("pivot", z_axis=CRANK_AXIS, x_axis=crank_direction, frame="world"),
            ground.add_marker("pivot", z_axis=CRANK_AXIS, x_axis=(1.0, 0.0, 0.0)),
        )
    )
    model.add(
        mb.Spherical(
            "big_end", rod.add_marker("big_end", pin, frame="world"), crank.add_marker("pin", pin, frame="world")
        )
    )
    model.add(
        mb.Universal(
            "small_end",
            rod.add_marker("small_end", wrist, z_axis=across_rod, frame="world"),
            slider.add_marker("pin", wrist, z_axis=CRANK_AXIS, frame="world"),
        )
    )
    model.add(
        mb.Translational(
            "slide",
            slider.add_marker("guide", wrist, z_axis=(1.0, 0.0, 0.0), frame="world"),
            ground.add_marker("guide", z_axis=(1.0, 0.0, 0.0)),
        )
    )
    return model, pivot


def build() -> mb.Model:
    """The crank driven at ``CRANK_SPEED`` from ``INITIAL_ANGLE``: zero DOF, for kinematics."""
    model, pivot = mechanism("slider_crank")
    model.add(mb.Motion("crank_drive", pivot, displacement=mb.Ramp(slope=CRANK_SPEED, offset=INITIAL_ANGLE)))
    return model


def build_free() -> mb.Model:
    """The undriven mechanism, crank started at ``CRANK_SPEED``: one DOF, for dynamics."""
    model, _ = mechanism("slider_crank_free")
    return model
