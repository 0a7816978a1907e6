"""Beam models and references shared by the beam and rope tests (``test_beam``, ``test_nodal_beam``,
``test_ancf_cable``, ``test_rope_moving_node``): the Bisshopp-Drucker elastica, Irvine's elastic
catenary, the steel cantilever of finite segments and the falling arm on a hinged hub."""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.special import ellipe, ellipeinc, ellipk, ellipkinc

import multibody as mb

E, NU, DENSITY = 210e9, 0.3, 7850.0
"""Steel [Pa], [-], [kg/m^3] of the finite-segment cantilever."""
LENGTH, DIAMETER = 1.0, 0.02
"""[m]"""


def cantilever(n: int, tip_load: float = 0.0, gravity: float = 0.0) -> tuple[mb.Model, mb.FiniteSegmentBeam]:
    """A steel rod clamped at the world origin along x, a tip load along -z [N]."""
    model = mb.Model("cantilever", gravity=(0.0, 0.0, -gravity))
    section, material = mb.Section.circle(DIAMETER), mb.Material(E, NU, DENSITY)
    beam = model.add(
        mb.FiniteSegmentBeam("arm", model.ground.add_marker("base"), LENGTH, n, section, material, clamped=True)
    )
    if tip_load:
        model.add(mb.PointForce("tip", beam.end, (0.0, 0.0, -tip_load)))
    return model, beam


def elastica_tip(load_parameter: float) -> tuple[float, float]:
    """Tip ``(reach, drop)`` / L of an inextensible Euler-Bernoulli cantilever under a tip force of
    fixed direction across it, ``load_parameter = P L^2 / (E I)`` (Bisshopp & Drucker): with the tip
    angle theta_0, m = (1 + sin theta_0) / 2 and sin phi_1 = 1 / sqrt(2 m),
    ``sqrt(alpha) = K(m) - F(phi_1, m)``, ``drop = 1 - 2 (E(m) - E(phi_1, m)) / sqrt(alpha)`` and
    ``reach = sqrt(2 sin theta_0 / alpha)`` (the first integral of theta'' = -alpha cos theta)."""

    def parameters(theta0: float) -> tuple[float, float]:
        m = (1.0 + np.sin(theta0)) / 2.0
        return m, np.arcsin(1.0 / np.sqrt(2.0 * m))

    def gap(theta0: float) -> float:
        m, phi1 = parameters(theta0)
        return ellipk(m) - ellipkinc(phi1, m) - np.sqrt(load_parameter)

    theta0 = brentq(gap, 1e-9, np.pi / 2.0 - 1e-12, xtol=1e-15)
    m, phi1 = parameters(theta0)
    drop = 1.0 - 2.0 / np.sqrt(load_parameter) * (ellipe(m) - ellipeinc(phi1, m))
    return float(np.sqrt(2.0 * np.sin(theta0) / load_parameter)), float(drop)


def swinging_arm(
    beam_type: str,
    n: int,
    damping: float = 0.0,
    section: mb.Section | None = None,
    kind: str = "geometrically_exact",
) -> mb.Model:
    """A 0.5 m polymer strip (E = 0.2 GPa, 20 x 5 mm, or ``section``) clamped to a light hub hinged
    to the world about y at the origin, horizontal along x at rest: it falls under gravity, bending
    a lot (the strip's first bending frequency is 1.3 Hz). ``beam_type``: "nodal" (an ``mb.Beam`` of
    ``kind``) or "segments"."""
    model = mb.Model("flexible_pendulum")
    section = mb.Section.rectangle(0.02, 0.005) if section is None else section
    material = mb.Material(0.2e9, 0.4, 1200.0)
    hub = model.add(mb.RigidBody("hub", 0.1, (1e-4, 1e-4, 1e-4)))
    model.add(
        mb.Revolute(
            "hinge",
            hub.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
            model.ground.add_marker("axle", z_axis=(0.0, 1.0, 0.0)),
        )
    )
    root = hub.add_marker("root")
    if beam_type == "nodal":
        model.add(mb.Beam("arm", root, 0.5, n, section, material, kind=kind, clamped=True, damping=damping))
    else:
        model.add(mb.FiniteSegmentBeam("arm", root, 0.5, n, section, material, clamped=True, damping=damping))
    return model


def elastic_catenary(span: float, length: float, weight: float, axial: float) -> tuple[float, float]:
    """``(horizontal tension H [N], mid-span sag [m])`` of an elastic cable of unstretched ``length``
    hung between two supports at one level ``span`` apart, ``weight`` [N/m] per unstretched length,
    ``axial = E A`` [N] (Irvine, Cable Structures, 1981, the elastic catenary, symmetric case):
    ``span = H L / EA + 2 H / w asinh(V / H)`` and ``sag = H / w (sqrt(1 + (V / H)^2) - 1) + w L^2 / (8 EA)``
    with ``V = w L / 2``."""
    V = 0.5 * weight * length
    H = brentq(lambda h: h * length / axial + 2.0 * h / weight * np.arcsinh(V / h) - span, 1e-9 * V, 1e9 * V)
    return H, H / weight * (np.sqrt(1.0 + (V / H) ** 2) - 1.0) + weight * length**2 / (8.0 * axial)
