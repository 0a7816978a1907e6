"""Crane jib luffed up slowly with a load hanging from its tip: a quasi-static analysis.

A uniform jib of length L = 10 m and mass 500 kg is hinged to the ground at the origin about the
world y-axis (a revolute joint). A Motion on the hinge raises it from 10 to 70 degrees above the
horizontal in 60 s, slowly enough that inertia does not matter. A 1000 kg load (a uniform
cylinder) hangs 3 m below the jib tip on a spherical joint, so it is free to swing and settles
vertically below the tip at every instant.

The quasi-static analysis solves a static equilibrium at every output time: the load's position
and the reactions, including the torque the luffing drive must hold,

    tau(alpha) = g cos(alpha) (m_jib L / 2 + m_load L),

which falls from 120.8 kN m to 41.9 kN m as the jib rises (``hoist_torque``). The load's rotation
about the vertical is neutral (nothing turns it, nothing resists it): statics leaves it where it
is. Velocities and accelerations in the results are zero, as for every quasi-static frame.

Run it with ``multibody run examples/crane_jib.py``; ``--analysis statics`` gives the single
equilibrium at t = 0 s.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

JIB_LENGTH, JIB_MASS = 10.0, 500.0
"""Hinge to tip [m], and mass [kg] of the uniform jib."""
JIB_RADIUS = 0.2
"""[m]: the jib is modelled as a uniform cylinder for its inertia."""
LOAD_MASS, LOAD_RADIUS, LOAD_DROP = 1000.0, 0.5, 3.0
"""Load mass [kg] and radius [m]; its CM hangs ``LOAD_DROP`` [m] below the jib tip."""
START_ANGLE, END_ANGLE, LUFF_TIME = np.radians(10.0), np.radians(70.0), 60.0
"""The jib is raised from ``START_ANGLE`` to ``END_ANGLE`` [rad] at a constant rate over ``LUFF_TIME`` [s]."""

ANALYSIS = {"analysis": "quasi_statics", "t_end": LUFF_TIME, "output_step": 1.0}

HINGE_AXIS = np.array([0.0, -1.0, 0.0])
"""Revolute axis: -y, so the luffing angle grows from +x towards +z."""
GRAVITY = 9.81
"""[m/s^2], along -z."""


def luffing_angle(t: np.ndarray | float) -> np.ndarray | float:
    """Jib angle above the horizontal [rad] at time ``t`` [s]."""
    return START_ANGLE + (END_ANGLE - START_ANGLE) * np.asarray(t) / LUFF_TIME


def hoist_torque(alpha: np.ndarray | float) -> np.ndarray | float:
    """Closed-form torque [N m] about the hinge axis that holds the jib at angle ``alpha`` [rad]."""
    return GRAVITY * np.cos(alpha) * (JIB_MASS * JIB_LENGTH / 2.0 + LOAD_MASS * JIB_LENGTH)


def build() -> mb.Model:
    """The jib at ``START_ANGLE`` with its luffing motion and the hanging load."""
    model = mb.Model("crane_jib", gravity=(0.0, 0.0, -GRAVITY))
    along = np.array([np.cos(START_ANGLE), 0.0, np.sin(START_ANGLE)])
    tip = JIB_LENGTH * along
    transverse = JIB_MASS * (3.0 * JIB_RADIUS**2 + JIB_LENGTH**2) / 12.0
    jib = model.add(
        mb.RigidBody(
            "jib",
            JIB_MASS,
            (JIB_MASS * JIB_RADIUS**2 / 2.0, transverse, transverse),
            position=0.5 * tip,
            orientation=np.column_stack([along, HINGE_AXIS, np.cross(along, HINGE_AXIS)]),
        )
    )
    load_axial = LOAD_MASS * LOAD_RADIUS**2 / 2.0
    load_transverse = LOAD_MASS * (3.0 * LOAD_RADIUS**2 + LOAD_RADIUS**2) / 12.0
    load = model.add(
        mb.RigidBody(
            "load", LOAD_MASS, (load_transverse, load_transverse, load_axial), position=tip - (0.0, 0.0, LOAD_DROP)
        )
    )
    hinge = model.add(
        mb.Revolute(
            "hinge",
            jib.add_marker("hinge", (0.0, 0.0, 0.0), z_axis=HINGE_AXIS, x_axis=along, frame="world"),
            model.ground.add_marker("hinge", z_axis=HINGE_AXIS, x_axis=(1.0, 0.0, 0.0)),
        )
    )
    model.add(
        mb.Spherical("hook", load.add_marker("hook", tip, frame="world"), jib.add_marker("tip", tip, frame="world"))
    )
    slope = (END_ANGLE - START_ANGLE) / LUFF_TIME
    model.add(mb.Motion("luffing", hinge, displacement=mb.Ramp(slope=slope, offset=START_ANGLE)))
    return model
