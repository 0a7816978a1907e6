"""A modal beam spinning about its clamped end: the spin-up manoeuvre of Kane, Ryan & Banerjee (J. Guid.
Control Dyn. 10 (1987) 139) with and without spin stiffening, and the steady stretch of a spinning bar.

Beam: L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m (the paper's), clamped to a hub on a
revolute about z whose angle follows the paper's smooth law: Omega(t) = (Omega_s / T_s) (t - T_s / (2 pi)
sin(2 pi t / T_s)) up to T_s = 15 s, then Omega_s = 6 rad/s. The frame is tied to the clamped node, so
the kept modes are the cantilever's.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.fem.beams import beam_line
from multibody.model.functions import Callable

LENGTH, AXIAL_RIGIDITY, BENDING_RIGIDITY, MASS_PER_LENGTH = 10.0, 2.8e7, 1.4e4, 1.2
AREA = 4e-3
"""[m^2]: with E = EA / A and rho = rho A / A the section reproduces the paper's rigidities"""
MATERIAL = mb.Material(E=AXIAL_RIGIDITY / AREA, nu=0.3, density=MASS_PER_LENGTH / AREA)
SPIN_TIME, FINAL_SPIN = 15.0, 6.0
SOUTHWELL = 1.193
"""Southwell coefficient of a cantilever's first bending mode: omega^2 = omega_0^2 + 1.193 Omega^2 out of
the plane of rotation (tests/fem/test_fem_beams.py checks the FE against it); in the plane the
centrifugal softening takes 1 Omega^2 off."""


def hub_angle(t):
    t = np.asarray(t, float)
    ramp = (
        FINAL_SPIN / SPIN_TIME * (t**2 / 2 + (SPIN_TIME / (2 * np.pi)) ** 2 * (np.cos(2 * np.pi * t / SPIN_TIME) - 1))
    )
    return np.where(t < SPIN_TIME, ramp, FINAL_SPIN * (t - SPIN_TIME / 2))


def hub_rate(t):
    t = np.asarray(t, float)
    ramp = FINAL_SPIN / SPIN_TIME * (t - SPIN_TIME / (2 * np.pi) * np.sin(2 * np.pi * t / SPIN_TIME))
    return np.where(t < SPIN_TIME, ramp, FINAL_SPIN)


def hub_acceleration(t):
    t = np.asarray(t, float)
    return np.where(t < SPIN_TIME, FINAL_SPIN / SPIN_TIME * (1 - np.cos(2 * np.pi * t / SPIN_TIME)), 0.0)


def spinning_beam(section: mb.Section, n_elements: int, n_modes: int, drive: dict, **options):
    """The beam tied at node 0 to a hub revolute about z driven by ``drive`` (a Motion's arguments)."""
    body = mb.FlexibleBody.from_mesh(
        "beam", beam_line(LENGTH, n_elements, section), MATERIAL, n_modes=n_modes, reference_nodes=[0], **options
    )
    model = mb.Model("spin_up", gravity=(0.0, 0.0, 0.0))
    model.add(body)
    axis = {"z_axis": (0.0, 0.0, 1.0)}
    hub = mb.Revolute("hub", body.add_marker("root", node=0, **axis), model.ground.add_marker("axle", **axis))
    model.add(hub)
    model.add(mb.Motion("spin", hub, **drive))
    return model, body


def tip_deflection(results, body) -> np.ndarray:
    """Elastic displacement (T, 3) of the tip node in the hub's (the tied frame's) axes [m]."""
    return body.node_displacements([len(body.node_positions) - 1], results.modal_coordinates(body.name))[:, 0]


@pytest.mark.parametrize("stiffened", [True, False])
def test_spin_up_needs_spin_stiffening(stiffened):
    """With spin stiffening the tip lags the hub quasi-statically under the Euler load rho A alpha x: at
    t = 7.5 s (alpha = 0.8 rad/s^2, Omega = 3 rad/s) the cantilever's closed form 11 q0 L^4 / (120 E I),
    q0 = rho A alpha L, softened and stiffened as its first mode in the plane of rotation, omega_0^2 /
    (omega_0^2 + (1.193 - 1) Omega^2), gives 0.561 m; the response is quasi-static to (T_1 / T_s)^2 ~ 1 %
    (the ramp lasts nine bending periods), the one-mode Southwell factor to ~0.5 %, so the tolerance is 2 %
    (measured 0.1 %). Once the hub turns steadily the deflection returns to near zero. Without stiffening
    the linear modal model softens and diverges (past 10 m by t = 10 s), as the paper showed."""
    inertia = BENDING_RIGIDITY / MATERIAL.E
    section = mb.Section(AREA, inertia, inertia, 1e3 * inertia)  # torsion kept out of the 4 lowest modes
    drive = {"displacement": Callable(hub_angle, hub_rate, hub_acceleration)}
    model, body = spinning_beam(section, 10, 4, drive)
    if stiffened:
        body.add_spin_stiffening((0.0, 0.0, 1.0), held_nodes=[0])
    t_end = 16.0 if stiffened else 10.0
    results = mb.dynamics(model, t_end, 0.5)
    lateral = tip_deflection(results, body)[:, 1]
    if not stiffened:
        assert abs(lateral[-1]) > 10.0
        return
    omega_0 = 1.8751040687**2 / LENGTH**2 * np.sqrt(BENDING_RIGIDITY / MASS_PER_LENGTH)
    q0 = MASS_PER_LENGTH * 0.8 * LENGTH
    quasi_static = 11 * q0 * LENGTH**4 / (120 * BENDING_RIGIDITY) * omega_0**2 / (omega_0**2 + (SOUTHWELL - 1) * 9.0)
    at_peak = int(np.argmin(np.abs(results.time - 7.5)))
    assert lateral[at_peak] == pytest.approx(-quasi_static, rel=2e-2)
    assert abs(lateral[-1]) < 0.02 * quasi_static


def test_steady_stretch_of_a_spinning_bar():
    """A bar (bending made stiff, so its lowest modes are torsion and the axial ones) turning steadily at
    6 rad/s stretches by rho Omega^2 L^3 / (3 E) at the tip (the rotating bar's closed form, sigma(x) =
    rho Omega^2 (L^2 - x^2) / 2). The modes, critically damped, settle within the run; the 8 kept modes
    hold the three lowest axial ones, whose series leaves 1.1e-3 of the stretch out (measured; 1.3e-2 with
    one axial mode), and the centrifugal softening of the axial modes adds Omega^2 / omega^2 ~ 6e-5:
    tolerance 2e-3."""
    stiff = 1e6 * BENDING_RIGIDITY / MATERIAL.E
    model, body = spinning_beam(
        mb.Section(AREA, stiff, stiff, stiff), 20, 8, {"velocity": FINAL_SPIN}, damping_ratio=1.0
    )
    results = mb.dynamics(model, 0.05, 0.01)
    stretch = tip_deflection(results, body)[-1, 0]
    closed_form = MASS_PER_LENGTH / AREA * FINAL_SPIN**2 * LENGTH**3 / (3 * MATERIAL.E)
    assert stretch == pytest.approx(closed_form, rel=2e-3)
