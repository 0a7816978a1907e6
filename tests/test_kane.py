"""Kane's equations in relative coordinates, checked against the Cartesian formulation.

The Cartesian formulation (absolute coordinates, Lagrange multipliers, ``[M G^T; G 0]``) shares
with the Kane formulation only the model, the force elements and the constraint kernels of the
cut joints; the tree kinematics, partial velocities, mass matrix, recursions and the null-space
elimination of closed loops are independent. References, one per test:

* instantaneous: at one assembled state the two give the same body accelerations (every tree
  joint family, reversed joints, a free body, springs, closed loops with redundant rows, a
  motion); the articulated-body recursion equals ``M^-1 F``; the composite mass matrix equals
  Kane's sum ``V^T m V + W^T J W``; the partial velocities reproduce the marker velocities;
* in time: positions of the two formulations agree to 1e-8 (spatial double pendulum, a 10-link
  spatial chain, the heavy top, the closed-loop slider-crank), the total energy is conserved, and
  the driven slider-crank follows its closed-form slider position.

Tolerances. Instantaneous quantities are the same numbers computed by different round-off paths:
1e-10 relative to their size (100 times what the 1e-12-conditioned solves lose). In time, both
formulations run at ``rtol = atol = 1e-10``; each accepted step errs by at most about that much
per coordinate; the Cartesian reference runs at 1e-12 because its BDF's global error at 1e-10
reaches 5e-8 after 0.5 s (Kane's: 4e-11). Over these short runs the two agree to 1e-8 [m]
(measured: at most 2.2e-9, see each test); energy is conserved to 1e-8 relative (measured 4e-9).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import multibody as mb
from multibody.analysis.assemble import assembled_state
from multibody.cli import load_model_file
from multibody.formulation.cartesian import CartesianFormulation
from multibody.formulation.kane import KaneFormulation

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RTOL = 1e-10
"""Integrator tolerance (relative and absolute) of the Kane runs."""
CARTESIAN_RTOL = 1e-12
"""Tolerance of the Cartesian reference runs (BDF's global error at 1e-10 reaches 5e-8)."""
POSITION_AGREEMENT = 1e-8
"""Required agreement of Cartesian and Kane positions [m] (the issue's figure)."""
ROUND_OFF = 1e-10
"""Relative agreement of instantaneous quantities computed by different formulations."""


def example(name: str, builder: str = "build") -> mb.System:
    """The compiled model of ``examples/<name>.py`` built by ``builder``."""
    module = load_model_file(EXAMPLES / f"{name}.py")
    return getattr(module, builder)().compile()


def kane_at_assembly(system: mb.System) -> tuple[mb.System, KaneFormulation, object, CartesianFormulation, object]:
    """The assembled state in both formulations: (system, Kane, Kane state, Cartesian, Cartesian evaluation)."""
    system, state = assembled_state(system)
    kane = KaneFormulation(system, state.q)
    q = kane.reference_coordinates()
    kane_state = kane.evaluate(q, kane.speeds_from_cartesian(q, state.v, state.t), state.t)
    cartesian = CartesianFormulation(system)
    return system, kane, kane_state, cartesian, cartesian.evaluate(state.q, state.v, state.t)


def every_joint_family() -> mb.System:
    """A spatial chain through every tree-joint family (some joints with I on the parent), a free
    body on a spring and a bushing, a torsion spring, gravity and spinning initial velocities."""
    model = mb.Model("families")
    rng = np.random.default_rng(5)
    names = ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"]
    bodies = []
    for k, name in enumerate(names):
        bodies.append(
            model.add(
                mb.RigidBody(
                    name,
                    1.0 + 0.1 * k,
                    (0.02 + 0.001 * k, 0.03, 0.025 + 0.002 * k),
                    position=(k + 0.5, 0.0, 0.0),
                    velocity=rng.normal(size=3),
                    angular_velocity=rng.normal(size=3),
                )
            )
        )
    ground = model.ground
    b1, b2, b3, b4, b5, b6, b7, b8 = bodies

    def ends(body: mb.RigidBody, **axes: object) -> tuple[mb.Marker, mb.Marker]:
        return body.add_marker("top", position=(-0.5, 0.0, 0.0), **axes), body.add_marker(
            "bottom", position=(0.5, 0.0, 0.0), **axes
        )

    b1_top, b1_bottom = ends(b1)
    hinge = model.add(mb.Revolute("hinge", b1_top, ground.add_marker("hinge")))
    b2_top = b2.add_marker("top", position=(-0.5, 0.0, 0.0), z_axis=(0.0, 1.0, 0.0))
    model.add(mb.Universal("cross", b2_top, b1_bottom))
    b2_bottom = b2.add_marker("bottom", position=(0.5, 0.0, 0.0), z_axis=(1.0, 0.0, 0.0))
    b3_top, _ = ends(b3, z_axis=(1.0, 0.0, 0.0))
    model.add(mb.Cylindrical("sleeve", b2_bottom, b3_top))  # I on the parent
    b4_top, b4_bottom = ends(b4)
    b3_plain = b3.add_marker("plain", position=(0.5, 0.0, 0.0))
    model.add(mb.Hooke("hooke", b3_plain, b4_top))  # I on the parent: cross axes x on b3, y on b4
    b5_top, _ = ends(b5)
    model.add(mb.Planar("slab", b5_top, b4_bottom))
    b6_top, _ = ends(b6, z_axis=(1.0, 0.0, 0.0))
    b5_axial = b5.add_marker("axial", position=(0.5, 0.0, 0.0), z_axis=(1.0, 0.0, 0.0))
    model.add(mb.Translational("rail", b6_top, b5_axial))
    b7_top, b7_bottom = ends(b7)
    model.add(mb.Spherical("ball", b7_top, b6.add_marker("ball", position=(0.5, 0.0, 0.0))))
    model.add(mb.Fixed("weld", b8.add_marker("weld", position=(-0.5, 0.0, 0.0)), b7_bottom))
    free = model.add(
        mb.RigidBody(
            "free",
            0.7,
            (0.01, 0.02, 0.015),
            position=(8.0, 1.0, 0.5),
            velocity=(0.3, -0.2, 0.1),
            angular_velocity=(1.0, 2.0, -3.0),
        )
    )
    model.add(
        mb.SpringDamper(
            "tether",
            free.add_marker("hook", position=(0.0, 0.1, 0.0)),
            b8.add_marker("end", position=(0.5, 0.0, 0.0)),
            stiffness=50.0,
            damping=0.5,
            free_length=0.8,
        )
    )
    model.add(
        mb.Bushing(
            "mount",
            free.add_marker("mount"),
            ground.add_marker("mount", position=(8.0, 1.0, 0.5)),
            stiffness=(10.0, 20.0, 30.0),
            damping=(0.1, 0.1, 0.1),
            rotational_stiffness=(1.0, 2.0, 3.0),
        )
    )
    model.add(mb.TorsionSpring("return", hinge, stiffness=5.0, damping=0.2))
    return model.compile()


# -- tree -------------------------------------------------------------------------------------
def test_spanning_tree_of_the_slider_crank_cuts_one_joint() -> None:
    """Breadth-first from ground: the crank pivot and the slide hang on ground, the rod on the
    crank (lower-body array L = [ground, crank, ground]); the small end closes the loop and is cut."""
    system, state = assembled_state(example("slider_crank", "build_free"))
    tree = KaneFormulation(system, state.q).tree
    assert [(j.name, j.family) for j in tree.joints] == [
        ("crank_pivot", "revolute"),
        ("slide", "translational"),
        ("big_end", "spherical"),
    ]
    assert tree.lower_body.tolist() == [-1, 0, -1]
    assert [system.constraint_names[e] for e in tree.cut_elements] == ["small_end"]
    assert (tree.n_q, tree.n_u) == (1 + 1 + 4, 1 + 1 + 3)


# -- instantaneous agreement ------------------------------------------------------------------
def cartesian_agreement(system: mb.System) -> tuple[float, float]:
    """(largest difference, largest size) of the body accelerations from the two formulations."""
    _, kane, state, cartesian, evaluation = kane_at_assembly(system)
    u_dot, _ = kane.accelerations(state)
    reference, _ = cartesian.accelerations(evaluation)
    return float(np.max(np.abs(kane.cartesian_accelerations(state, u_dot) - reference))), float(
        np.max(np.abs(reference))
    )


def test_every_joint_family_gives_the_cartesian_accelerations() -> None:
    """Reference: the Cartesian saddle-point solve. Every tree-joint family, joints whose I marker
    is on the parent, a free body with spring, bushing and torsion spring, spinning bodies."""
    difference, size = cartesian_agreement(every_joint_family())
    assert difference < ROUND_OFF * size


@pytest.mark.filterwarnings("ignore::multibody.RedundantConstraintWarning")
@pytest.mark.parametrize(
    ("name", "builder"), [("slider_crank", "build_free"), ("four_bar", "build"), ("slider_crank", "build")]
)
def test_closed_loops_give_the_cartesian_accelerations(name: str, builder: str) -> None:
    """Reference: the Cartesian saddle-point solve. Cut joints eliminated through the null space
    of the cut-constraint matrix (Maggi); the four-bar's cut rows are partly redundant and the
    driven slider-crank's motion leaves no independent speed at all."""
    difference, size = cartesian_agreement(example(name, builder))
    assert difference < ROUND_OFF * size


def test_recursions_agree_with_the_mass_matrix_and_kanes_sum() -> None:
    """Two formulations agreeing: the articulated-body recursion (no M formed) solves
    ``M du/dt = F`` with the composite-body M, and that M equals Kane's
    ``sum_b V_b^T m_b V_b + W_b^T J_b W_b`` from the partial velocity arrays."""
    system, kane, state, _, _ = kane_at_assembly(every_joint_family())
    M = kane.mass_matrix(state)
    F = kane.generalized_force(state)
    V, W = kane.partial_velocities(state)
    R_WB = state.frames.R_WB[:-1]
    J_W = R_WB @ system.inertia @ np.swapaxes(R_WB, 1, 2)
    kane_sum = np.einsum("b,bik,bil->kl", system.mass, V, V) + np.einsum("bik,bij,bjl->kl", W, J_W, W)
    assert np.max(np.abs(M - kane_sum)) < ROUND_OFF * np.max(np.abs(M))
    u_dot = kane.forward_dynamics(state)
    assert np.max(np.abs(M @ u_dot - F)) < ROUND_OFF * np.max(np.abs(F))
    assert np.max(np.abs(kane.inverse_dynamics(state, u_dot))) < ROUND_OFF * np.max(np.abs(F))


def test_partial_velocities_reproduce_the_marker_velocities() -> None:
    """Kane's partial velocities times the speeds are the velocities of points: every marker's
    ``V_Q u`` equals its Cartesian velocity ``v_B + w_B x r``; the Cartesian map ``u -> v``
    reproduces the body velocities."""
    system, kane, state, _, evaluation = kane_at_assembly(every_joint_family())
    for marker, body in enumerate(system.marker_body):
        if body < 0:
            continue
        V_Q = kane.point_partial_velocity(state, int(body), state.frames.p_WM_W[marker])
        assert np.allclose(V_Q @ state.u, evaluation.motion.v_WM_W[marker], rtol=0.0, atol=1e-12)
    v = np.hstack([evaluation.motion.v_WB_W[:-1], evaluation.motion.w_WB_B]).reshape(-1)
    assert np.allclose(kane.cartesian_velocity_map(state) @ state.u, v, rtol=0.0, atol=1e-12)


# -- motion in time ---------------------------------------------------------------------------
def spatial_chain(n_links: int) -> mb.System:
    """``n_links`` rods (1 kg, 1 m, body x along the rod) joined by ball joints, hanging straight
    down from the origin and set swinging and twisting in three dimensions."""
    model = mb.Model(f"chain{n_links}")
    R_WB = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # body x points down
    parent = model.ground.add_marker("pivot")
    for k in range(n_links):
        link = model.add(
            mb.RigidBody(
                f"link{k}",
                1.0,
                (0.01, 1.0 / 12.0, 1.0 / 12.0),
                position=(0.0, 0.0, -(k + 0.5)),
                orientation=R_WB,
                angular_velocity=(0.3 * np.sin(k), 0.5 * np.cos(k), 0.2),
            )
        )
        model.add(mb.Spherical(f"ball{k}", link.add_marker("top", position=(-0.5, 0.0, 0.0)), parent))
        parent = link.add_marker("bottom", position=(0.5, 0.0, 0.0))
    return model.compile()


def largest_position_difference(a: mb.Results, b: mb.Results) -> float:
    """Largest difference of CM positions [m] and of rotation matrices over all bodies and frames."""
    return float(
        max(
            max(
                np.max(np.abs(a.body(n).position - b.body(n).position)),
                np.max(np.abs(a.body(n).rotation - b.body(n).rotation)),
            )
            for n in a.layout.body_names
        )
    )


@pytest.mark.parametrize(
    ("case", "t_end", "method"),
    [
        ("double_pendulum", 0.5, "BDF"),
        ("chain", 0.3, "DOP853"),
        ("heavy_top", 0.1, "LSODA"),
        ("slider_crank_free", 0.5, "DOP853"),
    ],
)
def test_kane_and_cartesian_dynamics_agree(case: str, t_end: float, method: str) -> None:
    """Reference: the Cartesian DAE (BDF on SI2) at ``rtol = 1e-12``, against Kane at 1e-10:
    positions and rotation matrices agree to 1e-8 (measured: double pendulum 2.2e-9, chain
    1.7e-9, heavy top 7e-11, slider-crank 1.3e-10). Energy (kinetic + potential + dissipated) is
    conserved to 1e-8 relative in the Kane run (measured at most 4e-9 J). Reactions, the
    multipliers at the Kane state, agree to 1e-7 relative (measured 3e-9): they are smooth in the
    state, which agrees to 1e-8 relative."""
    system = {
        "double_pendulum": lambda: example("double_pendulum"),
        "chain": lambda: spatial_chain(10),
        "heavy_top": lambda: example("heavy_top"),
        "slider_crank_free": lambda: example("slider_crank", "build_free"),
    }[case]()
    cartesian = mb.dynamics(system, t_end, 0.05, rtol=CARTESIAN_RTOL)
    kane = mb.dynamics(system, t_end, 0.05, rtol=RTOL, formulation="kane", method=method)
    assert len(kane) == len(cartesian)
    assert largest_position_difference(kane, cartesian) < POSITION_AGREEMENT
    # The Euler parameters themselves (not only the rotations) agree: the Kane output keeps each
    # body's sign continuous from one output frame to the next, as the Cartesian integration keeps
    # it continuous in time. That needs less than half a turn between frames; the heavy top spins
    # about 100 rad/s (several radians per 0.05 s frame), so for it only the rotations compare.
    if case != "heavy_top":
        for body in system.body_names:
            e_kane, e_cartesian = kane.body(body).euler_parameters, cartesian.body(body).euler_parameters
            assert np.max(np.abs(e_kane - e_cartesian)) < POSITION_AGREEMENT
    energy = kane.energy["total"] + kane.energy["dissipated"]
    assert np.ptp(energy) < 1e-8 * max(1.0, float(np.max(np.abs(kane.energy["kinetic"]))))
    for joint in system.constraint_names:
        reference = cartesian.joint(joint).reaction_force
        assert np.max(np.abs(kane.joint(joint).reaction_force - reference)) < 1e-7 * max(
            1.0, float(np.max(np.abs(reference)))
        )


def test_driven_slider_crank_follows_the_closed_form() -> None:
    """Reference: the closed-form slider position ``x(theta) = r cos + sqrt(l^2 - r^2 sin^2)`` with
    the crank driven by a Motion (a cut constraint leaving no independent speed), and the energy
    balance: the motion's work (in ``dissipated``) keeps kinetic + potential + dissipated constant.
    Measured: slider position error 3e-16 m (the projection closes the loop to round-off), energy
    balance 1.3e-9 J; the bounds leave the integrator's 1e-10 tolerance room over 0.3 s."""
    module = load_model_file(EXAMPLES / "slider_crank.py")
    results = mb.dynamics(module.build(), 0.3, 0.05, rtol=RTOL, formulation="kane", method="RK45")
    theta = module.INITIAL_ANGLE + module.CRANK_SPEED * results.time
    assert np.max(np.abs(results.body("slider").position[:, 0] - module.slider_position(theta))) < 1e-9
    energy = results.energy["total"] + results.energy["dissipated"]
    assert np.ptp(energy) < 1e-6
    # Nothing dissipates: the motion's work is all input work, the same in both formulations.
    assert results.work["input"] == pytest.approx(-results.energy["dissipated"], abs=1e-9)
    cartesian = mb.dynamics(module.build(), 0.3, 0.05, rtol=RTOL)
    assert results.work["input"] == pytest.approx(cartesian.work["input"], abs=1e-6)
    assert np.ptp(results.work["input"]) > 1e-3  # the motion did work: the comparison is not vacuous


def test_unknown_formulation_and_method_are_named() -> None:
    """Bad options get a ValueError that lists the valid choices."""
    system = example("pendulum")
    with pytest.raises(ValueError, match="formulation 'lagrange'.*cartesian, kane"):
        mb.dynamics(system, 0.1, 0.05, formulation="lagrange")
    with pytest.raises(ValueError, match="method 'SI2' for the kane formulation.*BDF, RK45, DOP853, LSODA"):
        mb.dynamics(system, 0.1, 0.05, formulation="kane", method="SI2")


@pytest.mark.parametrize("formulation", ["cartesian", "kane"])
def test_euler_parameters_stay_continuous_through_half_a_turn(formulation: str) -> None:
    """Reference: a torque-free body spinning at w = 2 rad/s about its principal z-axis has
    e(t) = (cos(w t / 2), 0, 0, sin(w t / 2)); over 2.5 s it turns 5 rad, so e0 changes sign at
    t = pi / 2 s. Both formulations must follow the continuous closed form (0.1 rad per output
    frame), not jump to the other sign. Tolerance: the integrators' 1e-10 tolerance over 2.5 s."""
    model = mb.Model("spinner", gravity=(0.0, 0.0, 0.0))
    model.add(mb.RigidBody("disc", mass=1.0, inertia=(1.0, 1.0, 2.0), angular_velocity=(0.0, 0.0, 2.0)))
    method = "DOP853" if formulation == "kane" else "SI2"
    results = mb.dynamics(model, 2.5, 0.05, rtol=1e-10, formulation=formulation, method=method)
    half_angle = results.time  # w t / 2 with w = 2 rad/s
    expected = np.column_stack([np.cos(half_angle), 0 * half_angle, 0 * half_angle, np.sin(half_angle)])
    np.testing.assert_allclose(results.body("disc").euler_parameters, expected, rtol=0, atol=1e-8)


# -- compiled recursions ------------------------------------------------------------------------
def branched_tree(offset: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> mb.System:
    """A tree with branches and most joint families: a revolute root carrying a universal and a
    spherical branch, the spherical one forking into a cylindrical and a planar joint, a slider
    on the universal branch, a welded body, and a free body tied to the tree by a spring. Every
    position is shifted by ``offset`` [m] (the same mechanism elsewhere in the world)."""
    shift = np.asarray(offset, dtype=float)
    model = mb.Model("branched", gravity=(0.0, -9.81, 0.0))
    rng = np.random.default_rng(11)
    centres = {
        "root": (0.0, 0.0, 0.0),
        "cross": (-0.4, -0.3, 0.0),
        "ball": (0.4, -0.2, 0.0),
        "sleeve": (0.6, -0.3, 0.0),
        "slab": (0.4, -0.4, -0.2),
        "slider": (-0.5, -0.6, 0.0),
        "weld": (0.0, -0.6, 0.0),
        "free": (1.5, 0.5, 0.3),
    }
    bodies = {}
    for k, (name, centre) in enumerate(centres.items()):
        bodies[name] = model.add(
            mb.RigidBody(
                name,
                0.5 + 0.25 * k,
                tuple(0.03 + 0.01 * rng.random(3)),
                position=tuple(shift + centre),
                angular_velocity=rng.normal(size=3),
            )
        )

    def marker(body: str, name: str, at: tuple[float, float, float], **axes: object) -> mb.Marker:
        return bodies[body].add_marker(name, position=at, **axes)

    ground = model.ground.add_marker("pivot", position=tuple(shift + (0.0, 0.5, 0.0)))
    model.add(mb.Revolute("hinge", marker("root", "top", (0.0, 0.5, 0.0)), ground))
    model.add(
        mb.Universal(
            "joint_u",
            marker("cross", "top", (0.0, 0.3, 0.0), z_axis=(1.0, 0.0, 0.0)),
            marker("root", "left", (-0.4, 0.0, 0.0)),
        )
    )
    model.add(mb.Spherical("joint_s", marker("ball", "top", (0.0, 0.2, 0.1)), marker("root", "right", (0.4, 0.0, 0.0))))
    model.add(
        mb.Cylindrical(
            "joint_c",
            marker("ball", "axle", (0.2, 0.0, 0.0), z_axis=(0.0, 1.0, 1.0)),
            marker("sleeve", "bore", (0.0, 0.1, 0.0), z_axis=(0.0, 1.0, 1.0)),
        )
    )
    model.add(mb.Planar("joint_p", marker("slab", "face", (0.0, 0.0, 0.2)), marker("ball", "face", (0.0, -0.2, 0.0))))
    model.add(
        mb.Translational(
            "joint_t",
            marker("slider", "rail", (0.1, 0.0, 0.0), z_axis=(1.0, 1.0, 0.0)),
            marker("cross", "rail", (0.0, -0.3, 0.0), z_axis=(1.0, 1.0, 0.0)),
        )
    )
    model.add(mb.Fixed("joint_w", marker("weld", "base", (0.0, 0.1, 0.0)), marker("root", "bottom", (0.0, -0.5, 0.0))))
    model.add(
        mb.SpringDamper(
            "tie",
            marker("free", "hook", (0.0, 0.1, 0.0)),
            marker("slider", "hook", (0.1, 0.0, 0.0)),
            stiffness=40.0,
            damping=0.3,
            free_length=0.5,
        )
    )
    return model.compile()


def random_kane_state(kane: KaneFormulation, seed: int) -> object:
    """``kane.evaluate`` at joint coordinates moved by random angles, translations and rotations
    (unit Euler parameters) from the reference, with random speeds."""
    rng = np.random.default_rng(seed)
    q = kane.normalize(kane.reference_coordinates() + 0.4 * rng.normal(size=kane.n_q))
    return kane.evaluate(q, rng.normal(size=kane.n_u), 0.3)


def test_forward_dynamics_solves_the_composite_mass_matrix_on_a_branched_tree() -> None:
    """Two independent algorithms agreeing at a random state of a branched tree with revolute,
    universal, spherical, cylindrical, planar, translational, fixed and free joints: the
    articulated-body recursion (no M formed; bodies' quantities about their CMs) solves
    ``M du/dt = F`` with the composite-body M and the Newton-Euler F (quantities about the world
    origin), and the Newton-Euler inverse dynamics of its result is zero. Tolerance: the
    residual is round-off, 1e-10 of |F| (100 times what a 1e-12-conditioned solve loses)."""
    system, state = assembled_state(branched_tree())
    kane = KaneFormulation(system, state.q)
    assert {joint.family for joint in kane.tree.joints} == {
        "revolute",
        "universal",
        "spherical",
        "cylindrical",
        "planar",
        "translational",
        "fixed",
        "free",
    }
    assert max(np.sum(kane.tree.lower_body == body) for body in range(system.n_bodies)) >= 2  # a branch
    for seed in range(3):
        at = random_kane_state(kane, seed)
        M = kane.mass_matrix(at)
        F = kane.generalized_force(at)
        u_dot = kane.forward_dynamics(at)
        assert np.max(np.abs(M @ u_dot - F)) < ROUND_OFF * np.max(np.abs(F))
        assert np.max(np.abs(kane.inverse_dynamics(at, u_dot))) < ROUND_OFF * np.max(np.abs(F))


def test_recursions_do_not_depend_on_where_the_mechanism_is() -> None:
    """Reference: invariance under translation. The same branched tree 1 km away from the world
    origin (the assembled configuration moved by the offset) has the same mass matrix,
    generalized forces and joint accelerations at the same joint state (gravity is uniform).
    Spatial inertias about the world origin grow as m |p|^2 there, and recursions carried out
    about the origin lose up to |p|^2 / l^2 of their precision (measured before the recursions
    moved to the bodies' CMs: 1e-8 relative here, 1e-5 on a 10-link ball chain at 100 m); about
    the CMs only |p| / l enters, through the shifts of the kinematic quantities (measured:
    3e-13 for M and F, 6e-12 for du/dt): agreement to 1e-9 relative."""
    offset = np.array([1000.0, -600.0, 800.0])
    system, state = assembled_state(branched_tree())
    far_system = branched_tree(tuple(offset))
    far_q = state.q.reshape(-1, 7).copy()
    far_q[:, :3] += offset
    evaluated = []
    for model, q in ((system, state.q), (far_system, far_q.reshape(-1))):
        kane = KaneFormulation(model, q)
        at = random_kane_state(kane, 7)
        evaluated.append((kane.mass_matrix(at), kane.generalized_force(at), kane.forward_dynamics(at)))
    for near, far in zip(*evaluated):
        assert np.max(np.abs(far - near)) < 1e-9 * np.max(np.abs(near))
