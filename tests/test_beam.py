"""Finite-segment beams (MDAS II): rigid segments joined by the springs of the section.

References:
- a cantilever under a tip load P: the segment model's own closed form, rotations of the clamp
  spring (2 EI / l) and of the n - 1 joint springs (EI / l) under the moment P (L - x) plus the
  shear springs, ``w = P L^3 / (3 E I) (1 + 1 / (2 n^2)) + P (L - l / 2) / (kappa G A)``, which tends to
  Timoshenko's (and, for a slender beam, Euler-Bernoulli's ``P L^3 / (3 E I)``) as n grows;
- the first bending frequency of a cantilever, ``1.8751^2 / (2 pi) sqrt(E I / (rho A L^4))``
  (Euler-Bernoulli), approached as 1 / n^2;
- the Cartesian and Kane formulations agreeing on a swinging flexible arm;
- a large deflection under a tip load of fixed direction: the elastica of Bisshopp & Drucker
  (Q. Appl. Math. 3 (1945) 272), in elliptic integrals.
"""

from __future__ import annotations

import numpy as np
import pytest
from beam_models import DENSITY, DIAMETER, LENGTH, NU, E, cantilever, elastica_tip, swinging_arm

import multibody as mb


@pytest.mark.parametrize("n", [5, 20])
def test_tip_deflection_matches_the_segment_models_closed_form(n: int) -> None:
    # Tolerance: the statics is geometrically exact; the closed form is linear, off by the order
    # of (w / L)^2 = 4e-8 relative at this load.
    load = 1.0
    model, beam = cantilever(n, tip_load=load)
    results = mb.statics(model)
    section = beam.section
    bending = load * LENGTH**3 / (3.0 * E * section.Iy)
    # the shear springs: the clamp's over l / 2 and n - 1 joints' over l; the last half segment has none
    shear = load * (LENGTH - 0.5 * beam.segment_length) / (section.shear_coefficient * beam.material.G * section.area)
    expected = bending * (1.0 + 1.0 / (2.0 * n**2)) + shear
    tip = results.beam("arm").node_positions[-1, -1]
    assert -tip[2] == pytest.approx(expected, rel=1e-5)
    # The clamp carries the load: shear P and bending moment P L (the joint's section forces).
    clamp = results.beam("arm").section_forces[-1, 0]
    assert abs(clamp[2]) == pytest.approx(load, rel=1e-6)
    # the moment is P times the lever arm, which the bending shortens by about w^2 / L (measured 2.5e-8 relative)
    assert np.linalg.norm(clamp[3:]) == pytest.approx(load * LENGTH, rel=1e-3)


def test_large_tip_deflection_converges_to_the_elastica() -> None:
    """P L^2 / (E I) = 2 bends the rod 45 degrees at the tip: reach 0.83936 L, drop 0.49346 L
    (Bisshopp-Drucker; the classic table's 0.1606 and 0.4935). The segments' error falls as 1 / n^2
    (drop off by 2.3e-3, 6.4e-4 and 2.4e-4 L at n = 10, 20, 40) towards the shear flexibility the
    elastica leaves out, P / (kappa G A) = 1.4e-4 L here; the reach likewise (7.7e-4 ... 7e-5 L).
    Tolerances: a 2.5x fall per doubling and 3e-4 L at n = 40."""
    reach, drop = elastica_tip(2.0)
    bending_stiffness = E * mb.Section.circle(DIAMETER).Iy
    errors = []
    for n in (10, 20, 40):
        model, _ = cantilever(n, tip_load=2.0 * bending_stiffness / LENGTH**2)
        tip = mb.statics(model).beam("arm").node_positions[-1, -1] / LENGTH
        errors.append((abs(tip[0] - reach), abs(-tip[2] - drop)))
    errors = np.array(errors)
    assert np.all(errors[1] < errors[0] / 2.5)
    assert np.all(errors[2] < 3e-4)


def test_first_bending_frequency_converges_to_euler_bernoulli() -> None:
    # The segment model's frequency error falls as 1 / n^2 (measured -0.48 % at n = 10, -0.14 %
    # at n = 20); shear and rotary inertia of this slender rod add less than 1e-4.
    section = mb.Section.circle(DIAMETER)
    exact = 1.875104**2 / (2.0 * np.pi) * np.sqrt(E * section.Iy / (DENSITY * section.area * LENGTH**4))
    errors = []
    for n in (10, 20):
        modes = mb.linearize(cantilever(n)[0]).modes()
        first = np.sort(modes.frequencies_hz[~modes.rigid_body])[0]
        errors.append(abs(first / exact - 1.0))
    assert errors[0] < 6e-3 and errors[1] < 2e-3
    assert errors[1] < errors[0] / 3.0


def test_cartesian_and_kane_agree_on_a_swinging_flexible_arm() -> None:
    """A 4-segment polymer strip (E = 0.2 GPa, stiffness-proportional damping 1 ms) hinged at one
    end (a revolute about y) falls from horizontal under gravity for 0.2 s, bending a lot. Both
    formulations at rtol 1e-8 (Kane: the hinge a tree joint, the segments free bodies; Cartesian:
    the hinge five constraint rows): their tip positions agree to 1e-6 m (a few hundred steps
    of local errors at the tolerance)."""

    tips = []
    for formulation, method in (("cartesian", "SI2"), ("kane", "BDF")):
        model = swinging_arm("segments", 4, damping=1e-3)
        results = mb.dynamics(model, 0.2, 0.05, rtol=1e-8, formulation=formulation, method=method)
        tips.append(results.beam("arm").node_positions[:, -1])
    assert np.max(np.abs(tips[0] - tips[1])) < 1e-6
    assert tips[0][-1, 2] < -0.05  # it did swing down: the comparison is not vacuous


def test_bad_beams_are_refused_by_name() -> None:
    model = mb.Model("bad")
    base = model.ground.add_marker("base")
    section, material = mb.Section.circle(0.01), mb.Material(E, NU, DENSITY)
    with pytest.raises(mb.ModelError, match="beam 'arm': n_segments must be a positive integer"):
        mb.FiniteSegmentBeam("arm", base, 1.0, 0, section, material)
    with pytest.raises(mb.ModelError, match="Poisson's ratio"):
        mb.Material(E, 0.6, DENSITY)
    with pytest.raises(mb.ModelError, match="a tube needs 0 <= d_in < d_out"):
        mb.Section.tube(0.01, 0.02)
    model.add(mb.RigidBody("arm_2", 1.0, (1.0, 1.0, 1.0)))
    with pytest.raises(mb.ModelError, match="'arm_2' are already used"):
        model.add(mb.FiniteSegmentBeam("arm", base, 1.0, 3, section, material))
    assert "arm_1" not in model.bodies  # nothing half-added
