"""Free slider-crank: a crank, a connecting rod and a slider turning freely in a horizontal plane.

Crank 0.1 m / 0.1 kg and connecting rod 0.3 m / 0.3 kg (uniform slender rods), slider 1 kg on a
guide along x; gravity is along -z, normal to the plane of motion, so nothing does work in the
plane. The crank starts at dead centre (angle 0) turning at 2 pi rad/s and runs free for 10 s.
The kinetic energy ``M(theta) theta'^2 / 2`` is then constant, so the crank angle follows the
reduced one-degree-of-freedom ODE ``theta' = sqrt(2 E / M(theta))`` (``reference_angle``): the
reference the engine issue measures the default settings against (and the benchmark
``benchmarks/slider_crank_free.py`` measures Exudyn against). The crank speed varies over each
revolution as the rod and slider inertia seen by the crank changes with the angle.

Run it with ``multibody run examples/free_slider_crank.py`` (default dynamics settings).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

import multibody as mb

CRANK, ROD = 0.1, 0.3
"""Crank radius and rod length [m]."""
CRANK_MASS, ROD_MASS, SLIDER_MASS = 0.1, 0.3, 1.0
"""[kg]"""
OMEGA0 = 2.0 * np.pi
"""Initial crank speed [rad/s]."""
T_END = 10.0
"""Simulated time [s]."""
ANALYSIS = {"analysis": "dynamics", "t_end": T_END, "output_step": 0.01}
"""The default ``dynamics`` settings (method SI2, rtol 1e-6)."""


def rod_inertia(mass: float, length: float) -> float:
    """Moment of inertia of a uniform slender rod about its centre, transverse [kg m^2]."""
    return mass * length**2 / 12.0


def generalized_mass(theta: float) -> float:
    """``M(theta)`` [kg m^2]: kinetic energy of the mechanism per ``theta'^2 / 2``."""
    s = np.sqrt(ROD**2 - (CRANK * np.sin(theta)) ** 2)
    d_tip = CRANK * np.array([-np.sin(theta), np.cos(theta)])
    d_slider = np.array([-CRANK * np.sin(theta) - CRANK**2 * np.sin(theta) * np.cos(theta) / s, 0.0])
    d_rod_angle = -CRANK * np.cos(theta) / s
    crank = rod_inertia(CRANK_MASS, CRANK) + CRANK_MASS * (CRANK / 2) ** 2
    rod = ROD_MASS * np.sum(((d_tip + d_slider) / 2) ** 2) + rod_inertia(ROD_MASS, ROD) * d_rod_angle**2
    return crank + rod + SLIDER_MASS * d_slider[0] ** 2


def reference_angle(t_end: float) -> float:
    """Crank angle [rad] at ``t_end`` from the reduced ODE (energy conservation)."""
    energy = 0.5 * generalized_mass(0.0) * OMEGA0**2
    solution = solve_ivp(
        lambda t, y: [np.sqrt(2.0 * energy / generalized_mass(y[0]))], (0.0, t_end), [0.0], rtol=1e-12, atol=1e-12
    )
    return float(solution.y[0, -1])


def build() -> mb.Model:
    """Crank about world z at the origin (Revolute), rod (Spherical at the crank pin, Universal at
    the slider), slider on a Translational joint along x: one DOF and no redundant equation."""
    model = mb.Model("free_slider_crank", gravity=(0.0, 0.0, -9.81))
    axial = 1e-6
    crank = model.add(
        mb.RigidBody(
            "crank",
            CRANK_MASS,
            (axial, rod_inertia(CRANK_MASS, CRANK), rod_inertia(CRANK_MASS, CRANK)),
            position=(CRANK / 2, 0.0, 0.0),
            velocity=(0.0, OMEGA0 * CRANK / 2, 0.0),
            angular_velocity=(0.0, 0.0, OMEGA0),
        )
    )
    rod_omega = -OMEGA0 * CRANK / ROD
    rod = model.add(
        mb.RigidBody(
            "rod",
            ROD_MASS,
            (axial, rod_inertia(ROD_MASS, ROD), rod_inertia(ROD_MASS, ROD)),
            position=(CRANK + ROD / 2, 0.0, 0.0),
            velocity=(0.0, OMEGA0 * CRANK / 2, 0.0),
            angular_velocity=(0.0, 0.0, rod_omega),
        )
    )
    slider = model.add(mb.RigidBody("slider", SLIDER_MASS, (1e-3, 1e-3, 1e-3), position=(CRANK + ROD, 0.0, 0.0)))
    z = (0.0, 0.0, 1.0)
    model.add(
        mb.Revolute(
            "pivot",
            crank.add_marker("pivot", position=(-CRANK / 2, 0, 0), z_axis=z),
            model.ground.add_marker("pivot", z_axis=z),
        )
    )
    model.add(
        mb.Spherical(
            "pin",
            rod.add_marker("big_end", position=(-ROD / 2, 0, 0)),
            crank.add_marker("pin", position=(CRANK / 2, 0, 0)),
        )
    )
    model.add(
        mb.Universal(
            "small_end",
            rod.add_marker("small_end", position=(ROD / 2, 0, 0), z_axis=(0.0, 1.0, 0.0)),
            slider.add_marker("pin", z_axis=z),
        )
    )
    along_x = (1.0, 0.0, 0.0)
    model.add(
        mb.Translational(
            "guide", slider.add_marker("guide", z_axis=along_x), model.ground.add_marker("guide", z_axis=along_x)
        )
    )
    return model
