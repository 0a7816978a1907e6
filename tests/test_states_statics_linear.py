"""Statics and linearization with first-order states (as ADAMS STATICS and LINEAR treat them).

References (closed forms, nothing tunable):
- a block on a slide, loaded by gravity g along the slide, held by a spring k1 in parallel with a
  Maxwell element (spring k2 in series with a dashpot c, the dashpot deflection s a first-order
  state; ``tests/test_engine_states.maxwell_model``): at rest ``s' = 0`` makes the Maxwell
  spring force zero, so k1 carries m g: elongation e = -m g / k1 and s = e;
- without the parallel spring nothing can carry m g at rest (the dashpot would have to creep
  forever): statics must say so instead of returning a wrong equilibrium;
- linearized about that equilibrium, the state (e, e', s) obeys ``m e'' = -k1 e - k2 (e - s)``,
  ``c s' = k2 (e - s)``, whose eigenvalues are the roots of the characteristic cubic
  ``lambda^3 + (k2/c) lambda^2 + ((k1 + k2)/m) lambda + k1 k2 / (m c) = 0``; with k1 = 0 (a mass on a
  Maxwell element alone, linearized at rest) one root is 0 and the others solve
  ``lambda^2 + (k2/c) lambda + k2/m = 0``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_states import maxwell_model

import multibody as mb
from multibody.formulation.state import State

MASS, MAXWELL_STIFFNESS, DAMPING = 2.0, 50.0, 4.0
PARALLEL_STIFFNESS, GRAVITY = 30.0, 9.81


def hanging_block(parallel_stiffness: float) -> mb.Model:
    """The Maxwell block of ``maxwell_model`` with gravity along its slide (-x) and, when
    ``parallel_stiffness`` > 0, a spring of that stiffness from the block to a ground point 1 m
    up the slide (free length 1 m: unstretched with the block at x = 0)."""
    model = maxwell_model(MASS, MAXWELL_STIFFNESS, DAMPING, 0.1)
    model.gravity = np.array([-GRAVITY, 0.0, 0.0])
    if parallel_stiffness > 0.0:
        top = model.ground.add_marker("top", position=(1.0, 0.0, 0.0))
        hook = model.bodies["block"].markers["hook"]
        model.add(mb.SpringDamper("parallel", hook, top, parallel_stiffness, 0.0, free_length=1.0))
    return model


def test_statics_relaxes_the_maxwell_element_and_the_spring_carries_the_weight() -> None:
    results = mb.statics(hanging_block(PARALLEL_STIFFNESS))
    elongation = -MASS * GRAVITY / PARALLEL_STIFFNESS
    # Newton to 1e-10 of the load scale (m g ~ 20 N): positions to ~1e-10 m.
    assert results.body("block").position[0, 0] == pytest.approx(elongation, abs=1e-9)
    assert results.state("maxwell")[0, 0] == pytest.approx(elongation, abs=1e-9)  # Maxwell spring relaxed
    assert results.force("parallel").value[0] == pytest.approx(-MASS * GRAVITY, rel=1e-9)  # pulls: negative
    assert np.linalg.norm(results.force("maxwell").force[0]) < 1e-8
    assert results.stats["unstable_directions"] == 0 and results.stats["neutral_directions"] == 0


def test_statics_without_a_parallel_spring_has_no_equilibrium() -> None:
    with pytest.raises(mb.AnalysisError, match="no static equilibrium.*block"):
        mb.statics(hanging_block(0.0))


def characteristic_roots(k1: float, k2: float) -> np.ndarray:
    return np.roots([1.0, k2 / DAMPING, (k1 + k2) / MASS, k1 * k2 / (MASS * DAMPING)])


def test_linearized_eigenvalues_are_the_roots_of_the_characteristic_cubic() -> None:
    """About the static equilibrium: the state matrix holds the dashpot state (3 x 3: z, z', s).
    Central differences of relative error about 1e-10 (``linearize``): eigenvalues of size ~5 to
    1e-8 relative."""
    linear = mb.linearize(hanging_block(PARALLEL_STIFFNESS))
    assert linear.A.shape == (3, 3)
    assert linear.state_names == ("maxwell[0]",)
    eigenvalues = np.sort_complex(np.linalg.eigvals(linear.A))
    expected = np.sort_complex(characteristic_roots(PARALLEL_STIFFNESS, MAXWELL_STIFFNESS))
    assert eigenvalues == pytest.approx(expected, rel=1e-7)
    modes = linear.modes()
    assert len(modes) == 2  # the real relaxation root and the damped oscillation (one of its pair)
    assert np.sort(np.abs(modes.eigenvalues)) == pytest.approx(np.sort(np.abs(expected[expected.imag >= 0])), rel=1e-7)


def test_mass_on_a_maxwell_element_alone_linearized_at_rest() -> None:
    """At a state at rest with the element relaxed (s = e): roots 0 and those of the quadratic."""
    system = maxwell_model(MASS, MAXWELL_STIFFNESS, DAMPING, 0.1).compile()
    state = State(0.0, system.q0, np.zeros(system.n_velocities), np.zeros(len(system.rows)), np.array([0.1]))
    eigenvalues = np.sort_complex(np.linalg.eigvals(mb.linearize(system, at=state).A))
    expected = np.sort_complex(np.r_[0.0, np.roots([1.0, MAXWELL_STIFFNESS / DAMPING, MAXWELL_STIFFNESS / MASS])])
    assert eigenvalues == pytest.approx(expected, abs=1e-6)


def test_linearize_at_statics_results_reads_the_states() -> None:
    """The operating point rebuilt from a results frame (``state/x`` included) is the equilibrium:
    the same state matrix as linearizing at the equilibrium directly, to the equilibrium's
    Newton tolerance."""
    model = hanging_block(PARALLEL_STIFFNESS)
    direct = mb.linearize(model).A
    assert mb.linearize(model, at=mb.statics(model)).A == pytest.approx(direct, rel=1e-7, abs=1e-7)
