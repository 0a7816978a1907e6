"""A pendulum on a stiff spring: kept load Jacobians that turn with the motion (``dae.StaleJacobians``).

The model: a rod (0.5 kg, 1 m) hinged at one end about world y, and a bob (1 kg) that slides along it
on a translational joint, held at 1 m from the hinge by a spring-damper along the rod (1e7 N/m,
2e4 N s/m: its axial mode, 3200 rad/s and overdamped, is stepped over), released from rest at 60
degrees from the downward vertical under gravity -z. The spring's stiffness turns with the rod, so
the ``K`` kept from a step ago is wrong across the rod by ``k`` times the angle turned since, which
the iteration matrix (the mass over ``c^2``) cannot absorb: with the old rule (re-evaluate ``K``, ``C``
only after a failure with fresh factors) Newton failed on 167 of 224 steps under I3, 228 of 284 under
SI2 (at their default tolerances, as here).

Reference: the rigid limit, a compound pendulum with I_O theta'' = -(m_rod L / 2 + m_bob L) g sin theta,
I_O = m_rod L^2 / 3 + m_bob L^2 + J_bob (the bob turns with the rod), integrated by scipy at rtol 1e-12.
The spring stretches by (m_bob g cos theta + m_bob L theta'^2) / k < 3e-6 m, changing the moment arm
and the inertia by as little relatively; its damper takes out d (stretch rate)^2 < 1e-6 W. So the
model's swing differs from the rigid one's by a few 1e-6 rad over the run; the rest is integration error.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import multibody as mb
from multibody.formulation.dae import StaleJacobians

GRAVITY = 9.81
"""[m/s^2], along -z (the model's default)."""
LENGTH, ROD_MASS, BOB_MASS, BOB_INERTIA = 1.0, 0.5, 1.0, 1e-3
"""Rod length [m] and mass [kg]; bob mass [kg] and its (isotropic) moment of inertia [kg m^2]."""
STIFFNESS, DAMPING = 1e7, 2e4
"""The spring along the rod [N/m], [N s/m]."""
AMPLITUDE = np.radians(60.0)
"""Released from rest at this angle from the downward vertical [rad]."""
T_END, OUTPUT_STEP = 2.0, 0.01
"""[s]: about one and a half swings."""
ANGLE_TOLERANCE = {"I3": 5e-5, "SI2": 5e-5, "HHT": 3e-4}
"""[rad] The largest difference from the rigid limit allowed at the output frames, at each method's
default tolerance: measured 5.6e-6 (I3, rtol 1e-8), 7.4e-6 (SI2, rtol 1e-6), 6.4e-5 (HHT, rtol 2e-7,
second order); SI2 at rtol 1e-10 gives 5.5e-6, the rigid limit's own difference (module docstring).
The bounds leave room for the steps to fall differently, not for a wrong swing: a 1e-3 error in the
period (2.1 s) is 6e-3 rad here."""
FAILURE_FRACTION = 0.3
"""Newton failures allowed per accepted step. Before the blame (``StaleJacobians``) they were 0.75
(I3) and 0.80 (SI2); with it, measured 0.19 (I3, 47 of 244), 0.19 (SI2, 48 of 248) and 0.04 (HHT,
35 of 987): each blamed failure with fresh factors re-evaluates ``K``, ``C`` on the next 1, 2, 4 ... 16
failures with kept factors, so failures fall to about one in 17 when the blame holds, more when a
refactorization with the old ones succeeds now and then (and sets the span back)."""


def spring_pendulum() -> mb.Model:
    """The bob on its spring along the hinged rod, at the spring's static length, at rest."""
    model = mb.Model("spring_pendulum")
    along_rod = np.array([np.sin(AMPLITUDE), 0.0, -np.cos(AMPLITUDE)])
    R_WB = np.column_stack([along_rod, [0.0, 1.0, 0.0], np.cross(along_rod, [0.0, 1.0, 0.0])])
    stretch = BOB_MASS * GRAVITY * np.cos(AMPLITUDE) / STIFFNESS
    bob = model.add(
        mb.RigidBody("bob", BOB_MASS, (BOB_INERTIA,) * 3, position=(LENGTH + stretch) * along_rod, orientation=R_WB)
    )
    transverse = ROD_MASS * LENGTH**2 / 12.0
    rod = model.add(
        mb.RigidBody(
            "rod", ROD_MASS, (1e-4, transverse, transverse), position=0.5 * LENGTH * along_rod, orientation=R_WB
        )
    )
    hinge = rod.add_marker("hinge", position=(-0.5 * LENGTH, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0), frame="body")
    model.add(mb.Revolute("hinge", hinge, model.ground.add_marker("hinge", z_axis=(0.0, 1.0, 0.0))))
    along_on_rod = rod.add_marker("track", position=(-0.5 * LENGTH, 0.0, 0.0), z_axis=(1.0, 0.0, 0.0), frame="body")
    along_on_bob = bob.add_marker("slider", z_axis=(1.0, 0.0, 0.0), frame="body")
    model.add(mb.Translational("slider", along_on_bob, along_on_rod))
    model.add(mb.SpringDamper("spring", along_on_bob, along_on_rod, STIFFNESS, DAMPING, LENGTH))
    return model


def rigid_limit_angle(times: np.ndarray) -> np.ndarray:
    """The rod's angle from the downward vertical [rad] at ``times`` [s] in the rigid limit (module docstring)."""
    inertia = ROD_MASS * LENGTH**2 / 3.0 + BOB_MASS * LENGTH**2 + BOB_INERTIA
    moment = (ROD_MASS * LENGTH / 2.0 + BOB_MASS * LENGTH) * GRAVITY

    def rate(_t: float, state: np.ndarray) -> list[float]:
        return [state[1], -moment / inertia * np.sin(state[0])]

    solution = solve_ivp(rate, (0.0, times[-1]), [AMPLITUDE, 0.0], t_eval=times, rtol=1e-12, atol=1e-12)
    return solution.y[0]


@pytest.mark.parametrize("method", ["I3", "SI2", "HHT"])
def test_a_pendulum_on_a_stiff_spring_swings_as_its_rigid_limit_with_few_newton_failures(method):
    results = mb.dynamics(spring_pendulum(), T_END, OUTPUT_STEP, method=method)
    bob = results.body("bob").position
    angle = np.arctan2(bob[:, 0], -bob[:, 2])
    error = np.max(np.abs(angle - rigid_limit_angle(results.time)))
    assert error < ANGLE_TOLERANCE[method], f"{method}: swing off the rigid limit by {error:.2e} rad"
    steps, failures = results.stats["steps"], results.stats["newton_failures"]
    assert failures < FAILURE_FRACTION * steps, f"{method}: {failures} Newton failures in {steps} steps"


def test_the_blame_on_old_jacobians_doubles_while_they_fail_and_ends_when_the_factors_were_to_blame():
    stale = StaleJacobians(longest=4)
    assert not stale.blames_jacobians()  # no evidence yet: a failure with kept factors refactorizes first
    spans = []
    for _ in range(4):
        stale.record(converged=False)  # fresh factors failed with the old K, C
        blamed = 0
        while stale.blames_jacobians():
            blamed += 1
        spans.append(blamed)
    assert spans == [1, 2, 4, 4]
    stale.record(converged=False)
    stale.record(converged=True)  # fresh factors sufficed: the factors were to blame
    assert not stale.blames_jacobians()
    stale.record(converged=False)
    assert stale.blames_jacobians() and not stale.blames_jacobians()
