"""Simple pendulum: a uniform rigid rod swinging on a revolute joint under gravity.

A rod of length L = 1 m and mass m = 1 kg hangs from a hinge at the world origin whose axis is
the world y-axis; gravity is -9.81 m/s^2 along z. It is released from rest at 60 degrees from the
downward vertical. About the hinge its moment of inertia is I_O = m L^2 / 3 and its centre of
mass lies d = L / 2 below the pivot, so it is a physical pendulum with

    I_O theta'' = -m g d sin(theta),

whose period at amplitude theta_0 is T = 4 sqrt(I_O / (m g d)) K(sin^2(theta_0 / 2)) (K the
complete elliptic integral of the first kind, parameter m = k^2); at 60 degrees that is 1.0732
times the small-angle period 2 pi sqrt(I_O / (m g d)). No friction: kinetic plus potential
energy stays constant.

Run it with ``multibody run examples/pendulum.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

LENGTH = 1.0
"""Rod length [m]."""
MASS = 1.0
"""Rod mass [kg]."""
RADIUS = 0.01
"""Rod radius [m] (sets the small moment of inertia about the rod's own axis)."""
AMPLITUDE = np.radians(60.0)
"""Release angle from the downward vertical [rad]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 4.0, "output_step": 0.01, "method": "SI2", "rtol": 1e-6}


def build(amplitude: float = AMPLITUDE) -> mb.Model:
    """The pendulum released from rest at ``amplitude`` [rad] from the downward vertical."""
    model = mb.Model("pendulum")
    # Body x-axis along the rod, from the hinge to the free end; body y-axis = world y (the hinge axis).
    along_rod = np.array([np.sin(amplitude), 0.0, -np.cos(amplitude)])
    R_WB = np.column_stack([along_rod, [0.0, 1.0, 0.0], np.cross(along_rod, [0.0, 1.0, 0.0])])
    transverse = MASS * LENGTH**2 / 12.0
    rod = model.add(
        mb.RigidBody(
            "rod",
            mass=MASS,
            inertia=(MASS * RADIUS**2 / 2.0, transverse, transverse),
            position=0.5 * LENGTH * along_rod,
            orientation=R_WB,
            velocity=(0.0, 0.0, 0.0),
            angular_velocity=(0.0, 0.0, 0.0),
        )
    )
    hinge_on_rod = rod.add_marker("hinge", position=(-0.5 * LENGTH, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0), frame="body")
    hinge_on_ground = model.ground.add_marker("hinge", z_axis=(0.0, 1.0, 0.0))
    model.add(mb.Revolute("hinge", hinge_on_rod, hinge_on_ground))
    return model
