"""Analytic load tangents (``ForceFamily.tangents``) of the spring-damper and torsion-spring families, and the Newton matrices
``K = d(Q - G^T lambda)/dx``, ``C = dQ/dv`` that take them (``CartesianFormulation.force_jacobians``).

References: central finite differences, which cannot be tuned to the analytic derivatives. First of the
family's own loads with respect to its markers' motion (the hook's contract, markers moved independently
of their bodies); then of the whole residual ``Q - G^T lambda`` (gravity, gyroscopic moments, reactions
and loads, through the public ``evaluate`` and ``frames.displace``) with respect to every position
increment and velocity, on random poses and on the examples' models.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import multibody as mb
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.forces.family import ForceFamily, LoadInputs, LoadOutputs
from multibody.formulation.forces.spring_damper import SPRING_DAMPER, TORSION_SPRING
from multibody.spatial.rotations import skew

STEP = 1e-6
"""Central-difference step [m], [rad], [m/s], [rad/s]. Its truncation error is h^2/6 times the third
derivative, ~ k h^2 / L^2 ~ 1e-12 k at lengths ~1 m (none in velocity: the loads are linear in it), and its
round-off ~ eps |F| / h ~ 2e-10 |F|, which for the dampers' columns (c = 50-300 N s/m against forces up to
1e5 N) is ~1e-7 of the largest entry."""
TRUNCATION_TOLERANCE = 1e-8
"""Allowed error of the family's tangents against central differences, relative to their largest entry
(the truncation estimate in ``STEP``, with a factor 100 for the curvature of short lines), on top of ten
times the round-off ``eps |F| / STEP``."""
NEWTON_TOLERANCE = 1e-6
"""Allowed error of ``force_jacobians`` against central differences of the residual, relative to the
largest entry: its finite-difference part (reactions' geometric stiffness, the other loads) takes forward
differences with steps 1e-7 (1 + |q|), whose truncation error is ~1e-7 of the curvature times the entry."""


def random_springs(seed: int) -> mb.Model:
    """Three free rigid bodies at random poses and velocities, with spring-dampers at offset markers:
    body to body (stiff, damped), body to ground (preloaded), body to body (damped, with an actuator); and a
    damped, preloaded torsion spring on a revolute joint between randomly turned markers (violated)."""
    rng = np.random.default_rng(seed)
    model = mb.Model("springs")

    def body(name: str) -> mb.RigidBody:
        rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        rotation *= np.sign(np.linalg.det(rotation))
        return model.add(
            mb.RigidBody(
                name,
                1.0 + rng.random(),
                tuple(0.1 + rng.random(3)),
                position=rng.normal(size=3),
                orientation=rotation,
                velocity=rng.normal(size=3),
                angular_velocity=rng.normal(size=3),
            )
        )

    a, b, c = body("a"), body("b"), body("c")

    def offset(on: mb.RigidBody, name: str) -> mb.Marker:
        rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        return on.add_marker(name, position=0.3 * rng.normal(size=3), orientation=rotation * np.linalg.det(rotation))

    model.add(mb.SpringDamper("stiff", offset(a, "a1"), offset(b, "b1"), 1e5, 300.0, 0.5))
    model.add(
        mb.SpringDamper(
            "preloaded",
            offset(b, "b2"),
            model.ground.add_marker("anchor", position=(0.2, 0, 1)),
            2e3,
            0.0,
            1.0,
            preload=40.0,
        )
    )
    model.add(
        mb.SpringDamper("actuated", offset(c, "c1"), offset(a, "a2"), 1e3, 50.0, 0.8, actuator=mb.Harmonic(20.0, 3.0))
    )
    hinge = model.add(mb.Revolute("hinge", offset(a, "a3"), offset(c, "c2")))  # violated: any pose
    model.add(mb.TorsionSpring("torsion", hinge, 300.0, 5.0, free_angle=0.4, preload=2.0))
    return model


def family_inputs(system: mb.System, state: object) -> LoadInputs:
    """The loads' inputs at an evaluated state."""
    return LoadInputs(state.frames.t, system, state.frames, state.motion, state.x, np.zeros(len(system.rows)))


def family_loads(family: ForceFamily, system: mb.System, inputs: LoadInputs) -> np.ndarray:
    """(ne, 6) the family's group's ``(F, T)`` rows as its ``loads`` writes them."""
    group = system.force_group(family.name)
    nf = len(system.force_names)
    out = LoadOutputs(np.zeros((nf, 3)), np.zeros((nf, 3)), np.zeros(nf), np.zeros(system.n_states))
    family.loads(group, inputs, out)
    return np.hstack([out.force, out.torque])[group.element]


def moved_marker(inputs: LoadInputs, marker: int, column: int, h: float) -> LoadInputs:
    """``inputs`` with one marker moved along one of the tangents' twelve columns of one side (0-2
    displacement or velocity, 3-5 world rotation or angular velocity); ``column >= 6``: velocities."""
    frames, motion = inputs.frames, inputs.motion
    unit = np.zeros(3)
    unit[column % 3] = h
    if column < 3:
        p = frames.p_WM_W.copy()
        p[marker] += unit
        frames = dataclasses.replace(frames, p_WM_W=p)
    elif column < 6:
        R = frames.R_WM.copy()
        R[marker] = (np.eye(3) + skew(unit) + 0.5 * skew(unit) @ skew(unit)) @ R[marker]
        frames = dataclasses.replace(frames, R_WM=R)
    elif column < 9:
        v_M = motion.v_WM_W.copy()
        v_M[marker] += unit
        motion = dataclasses.replace(motion, v_WM_W=v_M)
    else:
        w_M = motion.w_WM_W.copy()
        w_M[marker] += unit
        motion = dataclasses.replace(motion, w_WM_W=w_M)
    return dataclasses.replace(inputs, frames=frames, motion=motion)


@pytest.mark.parametrize("family", [SPRING_DAMPER, TORSION_SPRING], ids=lambda family: family.name)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tangents_match_central_differences_of_the_family_loads(seed: int, family: ForceFamily) -> None:
    system = random_springs(seed).compile()
    state = CartesianFormulation(system).evaluate(system.q0, system.v0, 0.3)
    inputs = family_inputs(system, state)
    group = system.force_group(family.name)
    displacement, velocity = family.tangents(group, inputs)
    reference = np.zeros((2, group.element.size, 6, 12))
    for side, markers in enumerate((group.i_marker, group.j_marker)):
        for column in range(12):
            which = 0 if column < 6 else 1  # columns 0-5 displacement/rotation, 6-11 velocities
            place = 6 * side + column % 6
            for e, marker in enumerate(markers):
                plus = family_loads(family, system, moved_marker(inputs, int(marker), column, STEP))[e]
                minus = family_loads(family, system, moved_marker(inputs, int(marker), column, -STEP))[e]
                reference[which, e, :, place] = (plus - minus) / (2 * STEP)
    roundoff = 10.0 * np.finfo(float).eps * np.max(np.abs(family_loads(family, system, inputs))) / STEP
    for analytic, central in zip((displacement, velocity), reference):
        assert np.max(np.abs(analytic - central)) <= TRUNCATION_TOLERANCE * np.max(np.abs(central)) + roundoff


def test_spring_damper_tangents_at_zero_length_are_zero_like_its_force() -> None:
    """At zero length the loads hold the force at zero (no direction): the tangents are zero, not NaN."""
    model = mb.Model("coincident")
    body = model.add(mb.RigidBody("body", 1.0, (1.0, 1.0, 1.0), velocity=(1.0, 2.0, 0.0)))
    model.add(mb.SpringDamper("spring", body.add_marker("m"), model.ground.add_marker("o"), 1e3, 10.0, 0.5))
    system = model.compile()
    state = CartesianFormulation(system).evaluate(system.q0, system.v0, 0.0)
    displacement, velocity = SPRING_DAMPER.tangents(system.force_group("spring_damper"), family_inputs(system, state))
    assert np.all(displacement == 0.0) and np.all(velocity == 0.0)


def central_jacobians(
    form: CartesianFormulation, q: np.ndarray, v: np.ndarray, t: float, lam: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``d(Q - G^T lambda)/dx`` and ``dQ/dv`` by central differences of ``evaluate``, column by column."""
    system = form.system
    n = system.n_velocities

    def residual(q_: np.ndarray, v_: np.ndarray) -> np.ndarray:
        state = form.evaluate(q_, v_, t, None, lam)
        return state.generalized_force - np.asarray(state.G.T @ lam).reshape(-1)

    K, C = np.zeros((n, n)), np.zeros((n, n))
    for k in range(n):
        step = np.zeros(n)
        step[k] = STEP
        K[:, k] = residual(kinematics.displace(system, q, step), v) - residual(kinematics.displace(system, q, -step), v)
        C[:, k] = residual(q, v + step) - residual(q, v - step)
    return K / (2 * STEP), C / (2 * STEP)


def stale_jacobians_pendulum() -> mb.Model:
    from test_stale_jacobians import spring_pendulum

    return spring_pendulum()


def quarter_car() -> mb.Model:
    from quarter_car_study import build

    return build()


@pytest.mark.parametrize("build", [lambda: random_springs(3), stale_jacobians_pendulum, quarter_car])
def test_force_jacobians_with_analytic_spring_tangents_match_central_differences(build, monkeypatch) -> None:
    import pathlib

    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).parent))
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).parents[1] / "examples"))
    system = build().compile()
    form = CartesianFormulation(system)
    rng = np.random.default_rng(7)
    q, v, t = system.q0, system.v0 + rng.normal(size=system.n_velocities), 0.2
    _, lam = form.accelerations(form.evaluate(q, v, t))
    K, C = (
        np.asarray(matrix.todense() if hasattr(matrix, "todense") else matrix)
        for matrix in form.force_jacobians(q, v, t, lam)
    )
    K_reference, C_reference = central_jacobians(form, q, v, t, lam)
    assert np.max(np.abs(K - K_reference)) <= NEWTON_TOLERANCE * np.max(np.abs(K_reference))
    assert np.max(np.abs(C - C_reference)) <= NEWTON_TOLERANCE * max(np.max(np.abs(C_reference)), 1.0)
