"""Sobol' indices, Morris screening and local derivatives against closed forms.

References.
- Ishigami function ``sin x1 + a sin^2 x2 + b x3^4 sin x1`` on [-pi, pi]^3 (a = 7, b = 0.1): its
  variance decomposition is closed form (Ishigami & Homma 1990; Sobol' & Levitan 1999):
  V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2, V1 = (1 + b pi^4/5)^2 / 2, V2 = a^2/8, V3 = 0 and
  the only interaction V13 = b^2 pi^8 (1/18 - 1/50) = 8 b^2 pi^8/225, so ST1 = (V1 + V13)/V and
  ST3 = V13/V. The estimates carry sampling error ~ 1/sqrt(N); each must lie within its own 95 %
  bootstrap half-width (SALib's ``*_conf``, computed from the samples, not from the exact
  values): about 0.02 at N = 2^13.
- The spring-mass (``spring_mass.py``): its natural frequency sqrt(k/m)/(2 pi) does not depend on
  the release amplitude, and its highest point (the release point, 0.5 m + amplitude) depends on
  nothing else. A parameter a response does not read gives identical values in the estimators'
  paired runs, so its indices and elementary effects are zero to round-off (1e-9 of the
  response), not merely small; an effect linear in a parameter is the same for every step, so
  Morris's mu* for the amplitude is its whole range exactly and sigma is zero.
- Local derivatives: df/dk = f/(2k), df/dm = -f/(2m). Central differences with step
  rtol^(1/3) = 1 % of the range have truncation error h^2 |f'''| / (6 |f'|) = h^2/(8 k^2) relative
  (2e-5 at k = 250 N/m, h = 3 N/m), so 1e-4 relative.
"""

from __future__ import annotations

import numpy as np
import spring_mass

import multibody as mb
from multibody.studies import sensitivity

A, B = 7.0, 0.1


def test_sobol_indices_of_the_ishigami_function_match_the_closed_form() -> None:
    unit = sensitivity.sobol_unit_design(3, 2**13, seed=3)
    x = -np.pi + 2.0 * np.pi * unit
    values = np.sin(x[:, 0]) + A * np.sin(x[:, 1]) ** 2 + B * x[:, 2] ** 4 * np.sin(x[:, 0])
    indices = sensitivity.sobol_indices(3, values, seed=3)
    variance = A**2 / 8 + B * np.pi**4 / 5 + B**2 * np.pi**8 / 18 + 0.5
    v1, v2, vt3 = 0.5 * (1 + B * np.pi**4 / 5) ** 2, A**2 / 8, 8 * B**2 * np.pi**8 / 225
    first = np.array([v1, v2, 0.0]) / variance
    total = np.array([v1 + vt3, v2, vt3]) / variance
    assert np.all(np.abs(indices["S1"] - first) < indices["S1_conf"])
    assert np.all(np.abs(indices["ST"] - total) < indices["ST_conf"])
    assert np.all(indices["S1_conf"] < 0.03)


PARAMETERS = {"stiffness": (100.0, 400.0), "mass": (0.5, 2.0), "amplitude": (0.01, 0.1)}


def test_a_parameter_the_frequency_does_not_read_has_zero_sobol_indices() -> None:
    study = mb.Study(spring_mass.build, PARAMETERS, {"frequency": "frequency(1)"}, analysis="linear")
    result = study.sobol(8, seed=1, client="inline", progress=False)
    assert len(result) == 8 * (3 + 2) and result.failed == ()
    indices = result.sensitivity["frequency"]
    assert abs(indices["S1"][2]) < 1e-9 and abs(indices["ST"][2]) < 1e-9
    # Stiffness and mass do matter: clearly non-zero total indices.
    assert indices["ST"][0] > 0.1 and indices["ST"][1] > 0.1


def test_morris_screening_finds_the_one_parameter_the_peak_depends_on() -> None:
    study = mb.Study(spring_mass.build, PARAMETERS, {"peak": "max(mass.position.z)"}, t_end=0.1, output_step=0.05)
    result = study.morris(trajectories=4, levels=4, seed=2, client="inline", progress=False)
    assert len(result) == 4 * (3 + 1)
    effects = result.sensitivity["peak"]
    np.testing.assert_allclose(effects["mu_star"], [0.0, 0.0, 0.09], rtol=0, atol=1e-12)
    np.testing.assert_allclose(effects["sigma"], [0.0, 0.0, 0.0], rtol=0, atol=1e-12)


def test_local_derivatives_of_the_natural_frequency() -> None:
    study = mb.Study(spring_mass.build, PARAMETERS, {"frequency": "frequency(1)"}, analysis="linear")
    result = study.local_sensitivity(client="inline", progress=False)
    k, m = 250.0, 1.25
    f = np.sqrt(k / m) / (2 * np.pi)
    derivative = result.sensitivity["frequency"]["derivative"]
    np.testing.assert_allclose(derivative[:2], [f / (2 * k), -f / (2 * m)], rtol=1e-4)
    assert abs(derivative[2]) < 1e-9
