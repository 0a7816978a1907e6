"""Planar four-bar linkage built of four revolute joints, running under gravity.

Three uniform bars close a loop with the ground in the vertical x-z plane: a crank (0.1 m) from the
ground pivot A at the origin, a coupler (0.35 m), and a rocker (0.3 m) to the ground pivot D at
x = 0.4 m. All four joints are revolutes about the world y-axis. The lengths satisfy Grashof's
condition with the crank shortest (0.1 + 0.4 <= 0.35 + 0.3), so the crank can turn full circles
while the rocker swings back and forth. The crank starts at 60 degrees, turning at one revolution
per second; gravity then speeds the linkage up and slows it down, with no loss of energy.

Redundancy: each revolute joint imposes 5 equations, 20 in all, on 3 bodies with 18 coordinates;
Gruebler's count gives -2 degrees of freedom, yet the linkage moves with 1. The loop repeats three
of the out-of-plane conditions (the plane of the loop is fixed three times over). Compiling the
model finds these 3 dependent equations at the input configuration, removes them and names them
in the summary (``multibody info examples/four_bar.py``). The motion is unaffected; the reactions
are computed without those equations, which is one valid split among many (rigid-body mechanics
cannot determine how the out-of-plane loads are shared around a closed planar loop).

Run it with ``multibody run examples/four_bar.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

GROUND_LENGTH, CRANK_LENGTH, COUPLER_LENGTH, ROCKER_LENGTH = 0.4, 0.1, 0.35, 0.3
"""Distances between the joint centres [m]."""
BAR_MASS_PER_LENGTH = 2.0
"""Uniform bars [kg/m]."""
BAR_RADIUS = 0.01
"""[m] (moment of inertia about each bar's own axis)."""
INITIAL_ANGLE = np.radians(60.0)
"""Crank angle at t = 0, from +x towards +z [rad]."""
CRANK_SPEED = 2.0 * np.pi
"""Initial crank angular velocity [rad/s]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 3.0, "output_step": 0.01, "method": "SI2", "rtol": 1e-6}

JOINT_AXIS = np.array([0.0, -1.0, 0.0])
"""Axis of every revolute: -y, so that angles grow from +x towards +z."""


def joint_centres(theta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pivots A, D and the crank pin B, rocker pin C [m] at crank angle ``theta`` [rad] (C on the
    upper branch, z > 0)."""
    A = np.zeros(3)
    D = np.array([GROUND_LENGTH, 0.0, 0.0])
    B = CRANK_LENGTH * np.array([np.cos(theta), 0.0, np.sin(theta)])
    # C is where the circle of radius COUPLER_LENGTH about B meets the circle of radius ROCKER_LENGTH about D.
    BD = D - B
    distance = np.linalg.norm(BD)
    along = (COUPLER_LENGTH**2 - ROCKER_LENGTH**2 + distance**2) / (2.0 * distance)
    height = np.sqrt(COUPLER_LENGTH**2 - along**2)
    normal = np.cross(JOINT_AXIS, BD / distance)  # in the plane, upwards when B -> D points along +x
    C = B + along * BD / distance + height * normal
    return A, B, C, D


def add_bar(model: mb.Model, name: str, start: np.ndarray, end: np.ndarray, **initial) -> mb.RigidBody:
    """A uniform bar from ``start`` to ``end`` (world [m]), body x along it; markers ``start`` and
    ``end`` at its ends with z along ``JOINT_AXIS``; ``initial`` goes to ``RigidBody``."""
    length = np.linalg.norm(end - start)
    along = (end - start) / length
    mass = BAR_MASS_PER_LENGTH * length
    transverse = mass * length**2 / 12.0
    bar = model.add(
        mb.RigidBody(
            name,
            mass,
            (mass * BAR_RADIUS**2 / 2.0, transverse, transverse),
            position=0.5 * (start + end),
            orientation=np.column_stack([along, JOINT_AXIS, np.cross(along, JOINT_AXIS)]),
            **initial,
        )
    )
    for marker, point in (("start", start), ("end", end)):
        bar.add_marker(marker, point, z_axis=JOINT_AXIS, frame="world")
    return bar


def build() -> mb.Model:
    """The four-bar at ``INITIAL_ANGLE``, crank turning at ``CRANK_SPEED``."""
    model = mb.Model("four_bar")
    A, B, C, D = joint_centres(INITIAL_ANGLE)
    crank = add_bar(model, "crank", A, B, angular_velocity=CRANK_SPEED * JOINT_AXIS, exact=("angular_velocity",))
    coupler = add_bar(model, "coupler", B, C)
    rocker = add_bar(model, "rocker", D, C)
    ground_A = model.ground.add_marker("A", A, z_axis=JOINT_AXIS)
    ground_D = model.ground.add_marker("D", D, z_axis=JOINT_AXIS)
    model.add(mb.Revolute("A", crank.marker("start"), ground_A))
    model.add(mb.Revolute("B", coupler.marker("start"), crank.marker("end")))
    model.add(mb.Revolute("C", coupler.marker("end"), rocker.marker("end")))
    model.add(mb.Revolute("D", rocker.marker("start"), ground_D))
    return model
