"""Heavy symmetric top: a fast-spinning top on a fixed point, precessing under gravity.

A symmetric top (mass 1 kg, centre of mass 0.1 m from its tip along the symmetry axis, moments of
inertia 0.004 kg m^2 about the symmetry axis and 0.008 kg m^2 about the transverse axes through the
centre of mass) stands with its tip in a spherical joint at the world origin. It starts tilted by
20 degrees from the vertical, spinning at 100 rad/s about its symmetry axis, with the tip fixed.

Gravity's moment about the tip, m g h sin(theta), is small against the spin angular momentum
C omega_s = 0.4 kg m^2/s, so the axis does not fall: it precesses about the vertical (towards +y
first) at roughly Omega = m g h / (C omega_s) = 2.45 rad/s (the gyroscopic approximation; the
exact mean rate is about 10 % higher at this spin), while nodding between 20 and 25.4 degrees of
tilt at about C omega_s / A_tip = 22 rad/s (nutation; A_tip = 0.018 kg m^2 is the transverse
moment of inertia about the tip). Three quantities are conserved: the total energy, the angular
momentum about the vertical through the tip (gravity and the tip reaction have no moment about
that line), and the spin omega . e_3 about the symmetry axis (Lagrange top).

Run it with ``multibody run examples/heavy_top.py``.
"""

from __future__ import annotations

import numpy as np

import multibody as mb

MASS = 1.0
"""[kg]"""
CM_HEIGHT = 0.1
"""Distance from the tip to the centre of mass along the symmetry axis [m]."""
AXIAL_INERTIA = 0.004
"""Moment of inertia about the symmetry axis, C [kg m^2]."""
TRANSVERSE_INERTIA = 0.008
"""Moment of inertia about a transverse axis through the centre of mass [kg m^2]."""
TILT = np.radians(20.0)
"""Initial angle between the symmetry axis and the upward vertical [rad]."""
SPIN = 100.0
"""Initial angular velocity about the symmetry axis [rad/s]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 3.0, "output_step": 0.005, "method": "SI2", "rtol": 1e-6}


def build() -> mb.Model:
    """The top, tilted towards +x, its tip at the origin."""
    model = mb.Model("heavy_top")
    # Body z is the symmetry axis (from the tip upwards), tilted in the x-z plane; body y = world y.
    symmetry_axis = np.array([np.sin(TILT), 0.0, np.cos(TILT)])
    R_WB = np.column_stack([np.cross([0.0, 1.0, 0.0], symmetry_axis), [0.0, 1.0, 0.0], symmetry_axis])
    top = model.add(
        mb.RigidBody(
            "top",
            MASS,
            (TRANSVERSE_INERTIA, TRANSVERSE_INERTIA, AXIAL_INERTIA),
            position=CM_HEIGHT * symmetry_axis,
            orientation=R_WB,
            velocity=(0.0, 0.0, 0.0),  # the spin axis passes through the fixed tip
            angular_velocity=SPIN * symmetry_axis,
        )
    )
    tip_on_top = top.add_marker("tip", position=(0.0, 0.0, -CM_HEIGHT))
    model.add(mb.Spherical("tip", tip_on_top, model.ground.add_marker("tip")))
    return model
