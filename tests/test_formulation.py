"""The Cartesian formulation against finite differences of itself.

Every constraint kind and force element is checked on two free bodies in a random, unassembled
configuration with random velocities and accelerations:

- ``G v - nu`` equals dPhi/dt along the path ``q(tau) = q (+) tau v`` (central difference:
  truncation ~h^2 |Phi'''| ~ 1e-12, round-off ~eps/h ~ 1e-10 at h = 1e-6, so 1e-7 is loose);
- ``G a - gamma`` equals d2Phi/dtau2 along ``q (+) (tau v + tau^2/2 a)`` (second difference at
  h = 1e-4: truncation and round-off both ~1e-8, tolerance 1e-5 relative);
- the generalized force does the power the elements do: ``Q_el . v = -dV/dt + P_nc``.
"""

import warnings

import numpy as np
import pytest

import multibody as mb
from multibody.formulation import constraints, forces
from multibody.formulation import frames as kinematics
from multibody.formulation.cartesian import CartesianFormulation

JOINTS = [
    lambda i, j: mb.Revolute("joint", i, j),
    lambda i, j: mb.Translational("joint", i, j),
    lambda i, j: mb.Cylindrical("joint", i, j),
    lambda i, j: mb.Spherical("joint", i, j),
    lambda i, j: mb.Universal("joint", i, j),
    lambda i, j: mb.Hooke("joint", i, j),
    lambda i, j: mb.Planar("joint", i, j),
    lambda i, j: mb.Fixed("joint", i, j),
    lambda i, j: mb.InLine("joint", i, j),
    lambda i, j: mb.InPlane("joint", i, j),
    lambda i, j: mb.Orientation("joint", i, j),
    lambda i, j: mb.Perpendicular("joint", i, j),
    lambda i, j: mb.Distance("joint", i, j, 0.7),
]


def two_bodies(seed: int, on_ground: bool = False) -> tuple[mb.Model, mb.Marker, mb.Marker]:
    rng = np.random.default_rng(seed)
    model = mb.Model("pair")

    def body(name: str) -> mb.RigidBody:
        R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        R *= np.sign(np.linalg.det(R))
        return model.add(
            mb.RigidBody(name, 1.0 + rng.random(), (1.0, 1.2, 1.5), position=rng.normal(size=3), orientation=R)
        )

    a = body("a")
    i_marker = a.add_marker("i", rng.normal(size=3), euler_angles=rng.uniform(-np.pi, np.pi, 3))
    if on_ground:
        j_marker = model.ground.add_marker("j", rng.normal(size=3), euler_angles=rng.uniform(-np.pi, np.pi, 3))
    else:
        j_marker = body("b").add_marker("j", rng.normal(size=3), euler_angles=rng.uniform(-np.pi, np.pi, 3))
    return model, i_marker, j_marker


def random_motion(system: mb.System, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed + 100)
    return rng.normal(size=system.n_velocities), rng.normal(size=system.n_velocities)


def along_path(system, q, v, a, tau):
    return kinematics.displace(system, q, tau * v + 0.5 * tau**2 * a)


def check_constraint_derivatives(system: mb.System, seed: int, t: float = 0.3) -> None:
    q = system.q0
    v, a = random_motion(system, seed)
    rows = system.all_rows
    assembler = constraints.JacobianAssembler(system, rows, sparse=False)

    def phi(tau: float) -> np.ndarray:
        return constraints.position_level(
            system, rows, kinematics.pose(system, along_path(system, q, v, a, tau), t + tau)
        )[0]

    frames = kinematics.pose(system, q, t)
    _, jacobian, nu = constraints.position_level(system, rows, frames)
    G = assembler.assemble(frames, jacobian)
    h = 1e-6
    rate = (phi(h) - phi(-h)) / (2 * h)
    np.testing.assert_allclose(G @ v - nu, rate, atol=1e-7 * (1 + np.abs(rate).max()))
    gamma = constraints.acceleration_rhs(system, rows, frames, kinematics.twist(system, frames, v))
    h = 1e-4
    second = (phi(h) - 2 * phi(0.0) + phi(-h)) / h**2
    np.testing.assert_allclose(G @ a - gamma, second, atol=1e-5 * (1 + np.abs(second).max()))


@pytest.mark.parametrize("on_ground", [False, True])
@pytest.mark.parametrize("make_joint", JOINTS)
def test_constraint_jacobian_and_gamma(make_joint, on_ground):
    model, i, j = two_bodies(7, on_ground)
    model.add(make_joint(i, j))
    check_constraint_derivatives(model.compile(), 7)


@pytest.mark.parametrize(
    "motion",
    [
        dict(displacement=mb.Harmonic(0.4, 0.7, phase=0.3, offset=0.2)),
        dict(velocity=mb.Harmonic(0.4, 0.7, phase=0.3)),
        dict(acceleration=mb.Polynomial([0.5, -1.0, 0.3])),
    ],
)
@pytest.mark.parametrize("joint_kind", [mb.Revolute, mb.Translational])
def test_driver_rows(joint_kind, motion):
    model, i, j = two_bodies(11)
    joint = model.add(joint_kind("joint", i, j))
    model.add(mb.Motion("drive", joint, **motion))
    check_constraint_derivatives(model.compile(), 11, t=0.45)


def test_element_power_balance():
    """Q_elements . v = -dV/dt + P_nonconservative for springs, torsion springs, bushings and loads."""
    model, i, j = two_bodies(3)
    a, b = model.bodies["a"], model.bodies["b"]
    model.add(
        mb.SpringDamper(
            "spring", i, j, stiffness=30.0, damping=2.0, free_length=0.5, preload=3.0, actuator=mb.Harmonic(2.0, 1.0)
        )
    )
    model.add(
        mb.Bushing(
            "bushing",
            a.add_marker("bi", (0.1, 0.2, 0.3)),
            b.add_marker("bj", (0.2, 0.0, -0.1)),
            stiffness=(10, 20, 30),
            damping=(1, 2, 3),
        )
    )
    model.add(mb.PointForce("push", a.add_marker("f", (0.3, 0, 0)), (1.0, -2.0, 0.5), frame="marker"))
    model.add(mb.PointTorque("twist", b.add_marker("t"), lambda t, state: state.velocity * 0.1))
    model.add(
        mb.TorsionSpring(
            "torsion",
            model.add(mb.Revolute("hinge", a.add_marker("h"), model.ground.add_marker("h"))),
            5.0,
            damping=0.3,
            preload=0.2,
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = model.compile()
    q = system.q0
    v, _ = random_motion(system, 3)
    t = 0.2
    frames = kinematics.pose(system, q, t)
    motion = kinematics.twist(system, frames, v)
    loads = forces.element_loads(system, frames, motion)
    Q = forces.generalized_element_forces(system, frames, loads)[:-1].reshape(-1)

    def potential(tau: float) -> float:
        fr = kinematics.pose(system, kinematics.displace(system, q, tau * v), t + tau)
        return forces.element_loads(system, fr, kinematics.twist(system, fr, v)).potential_energy

    h = 1e-6
    potential_rate = (potential(h) - potential(-h)) / (2 * h)
    # Bushing rotational stiffness is zero here, so its power is exact (see Bushing docs).
    assert Q @ v == pytest.approx(-potential_rate + loads.nonconservative_power, rel=1e-7, abs=1e-7)


def test_force_jacobians_match_dense_differences():
    """Coloured finite differences equal plain per-column differences (same step, so ~1e-6)."""
    model, i, j = two_bodies(5)
    model.add(mb.Spherical("ball", i, j))
    model.add(
        mb.SpringDamper(
            "spring", model.bodies["a"].add_marker("s"), model.ground.add_marker("s", (1, 1, 1)), 50.0, 3.0, 0.2
        )
    )
    system = model.compile()
    form = CartesianFormulation(system)
    q, (v, _) = system.q0, random_motion(system, 5)
    lam = np.array([0.5, -1.0, 2.0])
    K, C = form.force_jacobians(q, v, 0.0, lam)

    def f(q_, v_):
        state = form.evaluate(q_, v_, 0.0)
        return state.generalized_force - state.G.T @ lam

    h = 1e-7
    n = system.n_velocities
    K_ref = np.column_stack([(f(kinematics.displace(system, q, h * e), v) - f(q, v)) / h for e in np.eye(n)])
    C_ref = np.column_stack([(f(q, v + h * e) - f(q, v)) / h for e in np.eye(n)])
    np.testing.assert_allclose(K, K_ref, atol=1e-5 * np.abs(K_ref).max())
    np.testing.assert_allclose(C, C_ref, atol=1e-5 * np.abs(C_ref).max())
