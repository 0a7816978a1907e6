"""The tangent stiffness and damping that Newton uses for cables, moving-node rope spans and modal bodies.

``cable.element_tangents`` (complex-step, exact) and ``span_tangents.element_tangents`` (element
by element) against central differences of the forces they differentiate, and
``CartesianFormulation.force_jacobians`` (element tangents plus finite differences of the rest,
coloured without the elements) against central differences of the whole residual ``Q - G^T
lambda``, column by column: a coupling left out of the colouring would show as a missing entry.
"""

from __future__ import annotations

import numpy as np
import pytest

import multibody as mb
from multibody.analysis.operating_point import state_from_results
from multibody.fem.beams import beam_line
from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import cable, span_tangents
from multibody.formulation.bodies.rope_span import span_terms
from multibody.formulation.cartesian import CartesianFormulation

G = 9.81
Y_AXLE = (0.0, 1.0, 0.0)
STEP = 1e-6
"""Relative step of the reference central differences: truncation and round-off both near 1e-10
of the largest entry for these smooth forces."""


def _central_columns(function, point: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Central differences of ``function`` at ``point``, one column per coordinate (step ``STEP``
    times ``1 + scale``)."""
    columns = []
    for j in range(point.size):
        step = np.zeros(point.size)
        step[j] = STEP * (1.0 + scale[j])
        columns.append((function(point + step) - function(point - step)) / (2.0 * step[j]))
    return np.column_stack(columns)


@pytest.mark.parametrize("moving", [False, True], ids=["straight_at_rest", "bent_stretched_moving"])
def test_cable_element_tangents_are_the_derivatives_of_the_element_forces(moving: bool) -> None:
    """Reference: central differences of ``cable.element_forces`` (elastic forces with Kelvin-Voigt
    damping on the strain and curvature rates) of three elements, straight at rest (where the
    damping's direction is that of the curvature rate) and bent, stretched and moving. Tolerance:
    1e-7 of the largest entry, a thousand times the differences' own error (1e-10), far below a
    wrong term (of the order of the entries)."""
    n = 3
    q = np.zeros(6 * (n + 1))
    q[0::6] = np.linspace(0.0, 1.0, n + 1)
    q[3::6] = 1.0
    v = np.zeros_like(q)
    if moving:
        rng = np.random.default_rng(7)
        q += 0.05 * rng.standard_normal(q.size)
        v = rng.standard_normal(q.size)
    columns = np.array([np.arange(6 * k, 6 * k + 12) for k in range(n)])
    parameters = (np.full(n, 1.0 / n), np.full(n, 1e3), np.full(n, 2.0), np.full(n, 2e-3))

    def forces(q_: np.ndarray, v_: np.ndarray) -> np.ndarray:
        out = np.zeros(q_.size)
        cable.element_forces(q_, v_, columns, columns, *parameters, out)
        return out

    stiffness, damping = np.empty((n, 12, 12)), np.empty((n, 12, 12))
    cable.element_tangents(q, v, columns, columns, *parameters, stiffness, damping)
    K, C = np.zeros((q.size, q.size)), np.zeros((q.size, q.size))
    for k in range(n):
        K[np.ix_(columns[k], columns[k])] += stiffness[k]
        C[np.ix_(columns[k], columns[k])] += damping[k]
    K_reference = _central_columns(lambda q_: forces(q_, v), q, np.abs(q))
    C_reference = _central_columns(lambda v_: forces(q, v_), v, np.abs(v))
    assert np.max(np.abs(K - K_reference)) < 1e-7 * np.max(np.abs(K_reference))
    assert np.max(np.abs(C - C_reference)) < 1e-7 * np.max(np.abs(C_reference))


def _winch_and_sheave() -> mb.Model:
    """A 10 kg block on a vertical slide hanging in a moving-node rope from an anchor, under a sheave
    on it and up onto a grooved winch drum spinning up: spans, rim arcs of both kinds (a pulley's
    wrap, a drum's stored rope) and rows reading the material coordinates."""
    r, R = 0.1, 0.2
    model = mb.Model("winch", gravity=(0.0, 0.0, -G))
    block = model.add(mb.RigidBody("block", mass=10.0, inertia=(0.1,) * 3, position=(0.0, 0.0, -1.0)))
    model.add(
        mb.Translational("slide", block.add_marker("slide"), model.ground.add_marker("slide", position=(0, 0, -1)))
    )
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.005,) * 3, position=(0, 0, -1.0)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, block.add_marker("axle", z_axis=Y_AXLE)))
    drum = model.add(mb.RigidBody("drum", mass=2.0, inertia=(0.05,) * 3, position=(r + R, 0, 0)))
    drum_axle = drum.add_marker("axle", z_axis=Y_AXLE)
    reel = model.add(
        mb.Revolute("reel", drum_axle, model.ground.add_marker("reel", position=(r + R, 0, 0), z_axis=Y_AXLE))
    )
    model.add(mb.Motion("drive", reel, velocity=lambda t: 2.5 * min(t / 0.3, 1.0)))
    route = [
        model.ground.add_marker("anchor", position=(-r, 0, 0)),
        mb.Pulley("sheave", axle, r),
        mb.Winch("winch", drum_axle, R, groove_pitch=0.012, stored_length=2.0),
    ]
    model.add(
        mb.Rope("rope", route, 0.01, 1e6, 0.1, elements_per_span=2, kind="moving_node", damping=2000.0, pretension=55.0)
    )
    return model


def _cable_with_a_ball_and_a_spring() -> mb.Model:
    """A four-element ANCF cable pinned at its root, a ball clamped to it at 0.6 m (rows on the
    tangent) and a spring-damper from 0.9 m to the ground: constraints and a force element on
    markers inside elements, whose loads couple both nodes and the ball."""
    model = mb.Model("cable", gravity=(0.0, 0.0, -G))
    points = np.column_stack([np.linspace(0.0, 1.0, 5), np.zeros(5), np.zeros(5)])
    rope = model.add(
        mb.AncfCable("cable", points, mb.Section.circle(0.01), mb.Material(2e7, 0.3, 1000.0), damping=2e-3)
    )
    model.add(mb.Spherical("pin", rope.marker_at("root", 0.0), model.ground.add_marker("pin")))
    ball = model.add(mb.RigidBody("ball", mass=0.1, inertia=(1e-4,) * 3, position=(0.6, 0.0, 0.0)))
    model.add(mb.CableClamp("mid", rope.marker_at("mid", 0.6), ball.add_marker("centre")))
    anchor = model.ground.add_marker("anchor", position=(1.0, 0.0, 0.5))
    model.add(mb.SpringDamper("spring", rope.marker_at("near_tip", 0.9), anchor, 2000.0, 5.0, 0.4))
    return model


def _modal_rod_with_a_spring() -> mb.Model:
    """A damped steel rod of 4 free-free modes hinged at one end, a rigid link hinged at its other
    end and a spring-damper from the link to the ground: modal bodies (velocities read by their own
    terms and by the force element only)."""
    beam = beam_line(1.0, 6, mb.Section.rectangle(0.02, 0.01))
    rod = mb.FlexibleBody.from_mesh(
        "rod", beam, mb.Material(E=2.1e11, nu=0.3, density=7850.0), n_modes=4, method="free", damping_ratio=0.02
    )
    model = mb.Model("rod", gravity=(0.0, 0.0, -G))
    model.add(rod)
    axis = {"z_axis": Y_AXLE}
    model.add(mb.Revolute("pin", rod.add_marker("pin", node=0, **axis), model.ground.add_marker("hinge", **axis)))
    link = model.add(mb.RigidBody("link", mass=0.5, inertia=(1e-3,) * 3, position=(1.25, 0.0, 0.0)))
    end = rod.add_marker("end", node=6, **axis)
    model.add(mb.Revolute("elbow", end, link.add_marker("elbow", position=(-0.25, 0.0, 0.0), **axis)))
    anchor = model.ground.add_marker("anchor", position=(1.5, 0.0, 0.5))
    model.add(mb.SpringDamper("spring", link.add_marker("tip", position=(0.25, 0.0, 0.0)), anchor, 500.0, 2.0, 0.3))
    return model


def _rigid_pendulum_with_a_spring() -> mb.Model:
    """A rigid link hinged to the ground with a spring-damper from its tip to the ground (rigid
    bodies keep ``System.adjacency`` for both colourings)."""
    model = mb.Model("pendulum", gravity=(0.0, 0.0, -G))
    link = model.add(mb.RigidBody("link", mass=0.5, inertia=(1e-3, 2e-3, 3e-3), position=(0.25, 0.0, 0.0)))
    axis = {"z_axis": Y_AXLE}
    model.add(
        mb.Revolute(
            "pin", link.add_marker("pin", position=(-0.25, 0.0, 0.0), **axis), model.ground.add_marker("pin", **axis)
        )
    )
    anchor = model.ground.add_marker("anchor", position=(0.5, 0.0, 0.5))
    model.add(mb.SpringDamper("spring", link.add_marker("tip", position=(0.25, 0.0, 0.0)), anchor, 500.0, 2.0, 0.3))
    return model


@pytest.mark.parametrize(
    "build",
    [_cable_with_a_ball_and_a_spring, _winch_and_sheave, _modal_rod_with_a_spring, _rigid_pendulum_with_a_spring],
    ids=["cable", "rope_span", "modal", "rigid"],
)
def test_force_jacobians_match_differences_of_the_whole_residual(build) -> None:
    """Reference: ``K = d(Q - G^T lambda)/dx`` and ``C = dQ/dv`` by central differences of the
    whole evaluation, column by column (no colouring, every element included), at a moving state
    0.1 s into the run. Tolerance: 1e-5 of the largest entry of ``K`` (``force_jacobians``' own
    forward differences of the rest, step 1e-7, leave up to 4e-7 of it here) and 1e-6 of ``C``'s
    (1e-10 here); a coupling left out (measured by emptying the colouring's neighbourhoods) errs by
    1e-4 to 5e-2 of them. The span elements are also checked one by one against ``span_terms`` of
    that element alone (their tangent differentiates the same kernel: this part checks its local
    copy of the element's coordinates and the block's columns).
    checks the assembly at the element's columns)."""
    system = build().compile()
    state = state_from_results(system, mb.dynamics(system, 0.1, 0.05))
    formulation = CartesianFormulation(system)
    q, v, t, lam = state.q, state.v, state.t, state.lam
    K, C = (
        np.asarray(matrix.toarray() if hasattr(matrix, "toarray") else matrix)
        for matrix in formulation.force_jacobians(q, v, t, lam, state.x)
    )

    def residual(q_: np.ndarray, v_: np.ndarray) -> np.ndarray:
        evaluation = formulation.evaluate(q_, v_, t, state.x, lam)
        return evaluation.generalized_force - evaluation.G.T @ lam

    size = kinematics.position_scale(system, q)
    K_reference = _central_columns(lambda dx: residual(kinematics.displace(system, q, dx), v), np.zeros(v.size), size)
    C_reference = _central_columns(lambda v_: residual(q, v_), v, np.abs(v))
    assert np.max(np.abs(K - K_reference)) < 1e-5 * np.max(np.abs(K_reference))
    assert np.max(np.abs(C - C_reference)) < 1e-6 * np.max(np.abs(C_reference))
    if system.rope_spans is not None:
        spans = system.rope_spans
        stiffness, _ = span_tangents.element_tangents(spans, q, v)
        columns = spans.element_columns

        def element_forces(q_: np.ndarray, k: int) -> np.ndarray:
            """The generalized forces of span element ``k`` alone (nv,) at positions ``q_``."""
            out, blocks, one = np.zeros(v.size), np.empty((1, 14, 14)), slice(k, k + 1)
            span_terms(q_, v, spans.node_positions[one], spans.node_velocities[one], spans.end_positions[one],
                       spans.end_velocities[one], spans.element_index[one], spans.element_count[one],
                       spans.mass_per_length[one], spans.axial_stiffness[one], spans.damping[one],
                       spans.smoothing[one], spans.gravity,
                       out, blocks)  # fmt: skip
            return out

        positions = np.hstack([spans.node_positions, spans.end_positions])
        for k in range(len(spans.element_index)):
            where = positions[k]
            reference = _central_columns(
                lambda local, k=k, where=where: element_forces(_with(q, where, local), k), q[where], np.abs(q[where])
            )[columns[k]]
            assert np.max(np.abs(stiffness[k] - reference)) < 1e-6 * np.max(np.abs(reference))


def _with(q: np.ndarray, where: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``q`` with ``q[where] = values`` (a copy)."""
    out = q.copy()
    out[where] = values
    return out
