"""Moving-node ropes (Qi, Guo & Zhuo 2019; ``Rope(kind="moving_node")``): cubic Hermite spans whose
end nodes are tangent points on pulleys and drums while the rope's material flows through them.

References: the span kind's material velocity and acceleration against the interpolated rope
differentiated numerically at a fixed material point (the paper's eqs. 1-2); Atwood's machine
with a massive sheave and a heavy rope (an ODE in closed form); the paper's example 1; the
energy balance (kinetic + potential + strain + dissipated = the drum's work, with the rope on
the rims and drums carried as part of them); Irvine's elastic catenary; the massless path kind.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from beam_models import elastic_catenary
from scipy.integrate import solve_ivp
from scipy.linalg import eigh_tridiagonal
from scipy.optimize import brentq
from test_rope_friction import capstan

import multibody as mb
from multibody.formulation.bodies.rope_span import span_terms

Y_AXLE = (0.0, 1.0, 0.0)  # pulleys in the x-z plane turn about y
G = 9.81


def _on_vertical_slide(model: mb.Model, name: str, mass: float, x: float, depth: float) -> mb.RigidBody:
    """A body of ``mass`` [kg] at ``(x, 0, -depth)`` [m], free only to slide vertically."""
    body = model.add(mb.RigidBody(name, mass=mass, inertia=(0.1, 0.1, 0.1), position=(x, 0.0, -depth)))
    model.add(
        mb.Translational(
            f"{name}_slide",
            body.add_marker("slide", z_axis=(0, 0, 1)),
            model.ground.add_marker(f"{name}_slide", position=(x, 0, -depth), z_axis=(0, 0, 1)),
        )
    )
    return body


def _smooth_speed(speed: float, ramp: float) -> Callable[[float], float]:
    """A velocity law rising smoothly from 0 to ``speed`` over ``ramp`` [s], then constant."""
    return lambda t: speed * 0.5 * (1.0 - np.cos(np.pi * min(t / ramp, 1.0)))


def test_span_kernel_gives_the_material_velocity_and_acceleration_of_the_interpolated_rope() -> None:
    """Reference: the paper's eqs. 1-2, evaluated by differentiating the interpolated rope
    ``r(s, t)`` numerically at a fixed material point ``s`` (its element coordinate then moves
    with the end material coordinates): the mass matrix ``rho int B^T B ds`` (``v = B q'``), the
    inertial force ``-rho int B^T (a - B q'')``, the elastic force (the strain energy's gradient,
    also numerically) and the damping's power ``eta int (d eps/dt|_s)^2 ds``, for an element in
    the middle of a 3-element span along an arbitrary smooth motion. Tolerances: central
    differences of steps 1e-5 (positions) on quantities of order 1: 1e-7 relative; the second
    difference in time (step 1e-4: round-off eps / h^2 and truncation h^2, each ~1e-8): 1e-6; the
    damping's power against a 3-point quadrature of the numerical strain rate: 1e-4
    (the strain's own numerical derivative). Also the stress smoothing's force (``smoothing`` h)
    against the virtual power of ``EA (h/2 eps' + h^2/6 eps'')`` at the 3 axial points, the strain's
    material rates from the exact slope of the interpolated rope at fixed material points: 1e-6
    (second differences in time of step 1e-4 of an exact strain: round-off and truncation 1e-8)."""
    rng = np.random.default_rng(1)
    n, element, rho, EA, eta = 3, 1, 2.0, 1e3, 5.0
    size = 6 * (n + 1) + 2
    q0 = np.zeros(size)
    for i in range(n + 1):
        q0[6 * i : 6 * i + 6] = [i, 0.1 * np.sin(i), 0.05 * i * i, 1.01, 0.05 * np.cos(i), 0.1 * i]
    q0[-2:] = [0.3, 3.2]
    rate, acceleration = rng.normal(size=size) * 0.3, rng.normal(size=size) * 0.4
    rate[-2:], acceleration[-2:] = [0.4, -0.7], [0.6, 0.4]

    def q_at(t: float) -> np.ndarray:
        return q0 + rate * t + 0.5 * acceleration * t * t

    def point(q: np.ndarray, s: float) -> np.ndarray:
        L = (q[-1] - q[-2]) / n
        xi = (s - q[-2] - element * L) / L
        e = q[6 * element : 6 * element + 12]
        shapes = [1 - 3 * xi**2 + 2 * xi**3, L * (xi - 2 * xi**2 + xi**3), 3 * xi**2 - 2 * xi**3, L * (xi**3 - xi**2)]
        return sum(h * e[3 * k : 3 * k + 3] for k, h in enumerate(shapes))

    columns = [*range(6 * element, 6 * element + 12), size - 2, size - 1]
    nodes, ends = np.array([columns[:12]]), np.array([columns[12:]])

    def kernel(
        q: np.ndarray, v: np.ndarray, mass: float, axial: float, damping: float, smoothing: float = 0.0
    ) -> tuple:
        force, blocks = np.zeros(size), np.zeros((1, 14, 14))
        energies = span_terms(
            q, v, nodes, nodes, ends, ends, np.array([element]), np.array([n]), np.array([mass]),
            np.array([axial]), np.array([damping]), np.array([smoothing]), np.zeros(3), force, blocks,
        )  # fmt: skip
        return force[columns], blocks[0], energies

    q = q_at(0.0)
    L = (q[-1] - q[-2]) / n
    start = q[-2] + element * L
    mass, inertial = np.zeros((14, 14)), np.zeros(14)
    points, weights = np.polynomial.legendre.leggauss(6)
    for x, w in zip(points, weights):
        s = start + 0.5 * (x + 1) * L
        B = np.column_stack(
            [(point(q + 1e-5 * np.eye(size)[c], s) - point(q - 1e-5 * np.eye(size)[c], s)) / 2e-5 for c in columns]
        )
        material_acceleration = (point(q_at(1e-4), s) - 2 * point(q, s) + point(q_at(-1e-4), s)) / 1e-8
        mass += 0.5 * w * L * rho * B.T @ B
        inertial -= 0.5 * w * L * rho * B.T @ (material_acceleration - B @ acceleration[columns])
    force, blocks, _ = kernel(q, rate, rho, 0.0, 0.0)
    assert blocks == pytest.approx(mass, abs=1e-7 * np.abs(mass).max())
    assert force == pytest.approx(inertial, abs=1e-6 * np.abs(inertial).max())

    def strain_energy(q: np.ndarray) -> float:
        return kernel(q, np.zeros(size), 0.0, EA, 0.0)[2][2]

    gradient = [
        (strain_energy(q + 1e-6 * np.eye(size)[c]) - strain_energy(q - 1e-6 * np.eye(size)[c])) / 2e-6 for c in columns
    ]
    elastic = kernel(q, np.zeros(size), 0.0, EA, 0.0)[0]
    assert -elastic == pytest.approx(np.array(gradient), abs=1e-7 * np.abs(gradient).max())

    def strain(q: np.ndarray, s: float) -> float:
        return float(np.linalg.norm(point(q, s + 1e-6) - point(q, s - 1e-6)) / 2e-6 - 1.0)

    dissipated = 0.0
    for x, w in zip(*np.polynomial.legendre.leggauss(3)):
        s = start + 0.5 * (x + 1) * L
        if strain(q, s) > 0.0:
            dissipated += 0.5 * w * L * eta * ((strain(q_at(1e-5), s) - strain(q_at(-1e-5), s)) / 2e-5) ** 2
    force, _, energies = kernel(q, rate, 0.0, 0.0, eta)
    assert energies[3] == pytest.approx(-force @ rate[columns], rel=1e-12)  # the force's power
    assert energies[3] == pytest.approx(dissipated, rel=1e-4)

    # The stress smoothing: the virtual power of EA (h/2 d(eps)/dt + h^2/6 d2(eps)/dt2) at the 3 axial
    # points, the strain's material rates from the exact slope of the interpolated rope at fixed s.
    def exact_strain(q: np.ndarray, s: float) -> float:
        L = (q[-1] - q[-2]) / n
        xi = (s - q[-2] - element * L) / L
        e = q[6 * element : 6 * element + 12]
        slopes = [6 * xi**2 - 6 * xi, L * (1 - 4 * xi + 3 * xi**2), 6 * xi - 6 * xi**2, L * (3 * xi**2 - 2 * xi)]
        return float(np.linalg.norm(sum(h * e[3 * k : 3 * k + 3] for k, h in enumerate(slopes)) / L) - 1.0)

    h, dt = 0.01, 1e-4
    smoothing_force = np.zeros(14)
    for x, w in zip(*np.polynomial.legendre.leggauss(3)):
        s = start + 0.5 * (x + 1) * L
        history = [exact_strain(q_at(k * dt), s) for k in (-1, 0, 1)]
        rate_, acceleration_ = (history[2] - history[0]) / (2 * dt), (history[2] - 2 * history[1] + history[0]) / dt**2
        gradient_ = [
            (exact_strain(q + 1e-6 * np.eye(size)[c], s) - exact_strain(q - 1e-6 * np.eye(size)[c], s)) / 2e-6
            for c in columns
        ]
        smoothing_force -= 0.5 * w * L * EA * (h / 2 * rate_ + h**2 / 6 * acceleration_) * np.array(gradient_)
    smoothed, strain_mass, _ = kernel(q, rate, 0.0, EA, 0.0, h)
    kernel_force = smoothed - kernel(q, rate, 0.0, EA, 0.0)[0] - strain_mass @ acceleration[columns]
    assert kernel_force == pytest.approx(smoothing_force, abs=1e-6 * np.abs(smoothing_force).max())


@pytest.mark.parametrize("closing_speed", [0.01, 2.0])
def test_a_span_damper_relaxes_the_tension_but_never_pushes(closing_speed: float) -> None:
    """Reference: the rope law ``T = max(EA eps + eta d(eps)/dt, 0)`` (as the massless kind's). A
    straight one-element span stretched uniformly by ``e`` whose far end closes at ``u``: the
    strain rate is ``-u / L`` all along, so the node forces are those of a uniform tension
    ``T``: the elastic kernel's at the stiffness ``T / e``; slow (0.01 m/s), ``T = EA e - eta u / L``;
    fast (2 m/s), the damper would push, and ``T = 0``: no force at all. The damper's power is
    ``(T - EA e) u``. Tolerance: round-off of sums of order EA e (1e-12 relative)."""
    e, L, EA, eta = 1e-3, 1.0, 1e4, 10.0
    q = np.array([0, 0, 0, 1 + e, 0, 0, L * (1 + e), 0, 0, 1 + e, 0, 0, 0.0, L])
    rate = np.zeros(14)
    rate[6], rate[3], rate[9] = -closing_speed, -closing_speed / L, -closing_speed / L  # v(s) = -u s / L
    nodes, ends = np.array([np.arange(12)]), np.array([[12, 13]])

    def kernel(axial: float, damping: float) -> tuple[np.ndarray, tuple]:
        force = np.zeros(14)
        energies = span_terms(
            q, rate, nodes, nodes, ends, ends, np.array([0]), np.array([1]), np.array([0.0]),
            np.array([axial]), np.array([damping]), np.zeros(1), np.zeros(3), force, np.zeros((1, 14, 14)),
        )  # fmt: skip
        return force[:12], energies

    tension = max(EA * e - eta * closing_speed / L, 0.0)
    force, energies = kernel(EA, eta)
    assert force == pytest.approx(kernel(tension / e, 0.0)[0], abs=1e-12 * EA * e)
    assert energies[3] == pytest.approx((tension - EA * e) * -closing_speed, rel=1e-12)


def _atwood(axial: float, damping: float, rope_mass: float) -> mb.Model:
    """Loads of 5 kg (1 m below the axle) and 7 kg (1.5 m below) hanging in a moving-node rope over
    a sheave (r = 0.1 m, J = 0.02 kg m^2 about its axle) on a revolute joint, at rest, the rope at
    the light load's tension."""
    model = mb.Model("atwood")
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.02, 0.02, 0.02)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, model.ground.add_marker("axle", z_axis=Y_AXLE)))
    light = _on_vertical_slide(model, "light", 5.0, -0.1, 1.0)
    heavy = _on_vertical_slide(model, "heavy", 7.0, 0.1, 1.5)
    route = [light.add_marker("hook"), mb.Pulley("sheave", axle, 0.1), heavy.add_marker("hook")]
    rope = mb.Rope(
        "rope",
        route,
        0.01,
        axial,
        rope_mass,
        elements_per_span=3,
        kind="moving_node",
        damping=damping,
        pretension=5 * G,
    )
    model.add(rope)
    return model


def test_atwood_machine_with_a_heavy_rope_over_a_massive_sheave() -> None:
    """Reference: Atwood's machine whose rope has mass (0.5 kg/m): with the loads' fall x, the
    rope moves as one, ``x'' = g (m2 - m1 + rho (l2 - l1 + 2 x)) / (m1 + m2 + J / r^2 + rho l)``
    (l1, l2: the falls, l: the whole rope with its pi r on the sheave), integrated in closed form;
    the sheave turns with the rope (spin r = the rope's speed); the energy balance closes
    (kinetic + potential + strain + dissipated constant), which needs the rope on the sheave as a
    rigid part of it and the material flowing through the spans' ends. Tolerances: the fall at
    0.4 s to 2e-4 relative (the rope's stretch changes by at most (|dT1| l1 + |dT2| l2) / EA =
    2.2e-5 m of the 0.116 m fall); the load's speed and the spin to 1e-4 (the damped axial
    transient's remainder; the rope on the rim keeps its initial strain); the balance to 1e-7
    of the kinetic energy (integration error at rtol 1e-8)."""
    rho, m1, m2, J, r, l1, l2 = 0.5, 5.0, 7.0, 0.02, 0.1, 1.0, 1.5
    res = mb.dynamics(_atwood(1e6, 3000.0, rho), 0.4, 0.01, rtol=1e-8)
    inertia = m1 + m2 + J / r**2 + rho * (l1 + l2 + np.pi * r)
    exact = solve_ivp(
        lambda t, y: [y[1], G * (m2 - m1 + rho * (l2 - l1 + 2 * y[0])) / inertia],
        (0, 0.4),
        [0, 0],
        rtol=1e-12,
        atol=1e-14,
    ).y[:, -1]
    fall = res.body("light").position[:, 2] - res.body("light").position[0, 2]
    assert fall[-1] == pytest.approx(exact[0], rel=2e-4)
    assert res.body("light").velocity[-1, 2] == pytest.approx(exact[1], rel=1e-4)
    spin = res.rope("rope").spin[:, 1]
    assert spin[-1] * r == pytest.approx(exact[1], rel=1e-4)  # +y: the left side rises
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-7 * res.energy["kinetic"].max()


def _example_1(axial: float, stored: float = 2.0, groove_pitch: float | None = None) -> mb.Model:
    """The paper's example 1 with a winch: a sheave (r = 0.1 m) carrying a 10 kg block on two
    vertical falls, one anchored, the other reeled onto a drum (R = 0.2 m, ``stored`` [m] of rope
    on it, a helical groove of ``groove_pitch`` [m]) spun up smoothly to 2.5 rad/s in 0.3 s:
    v = 0.5 m/s."""
    r, R = 0.1, 0.2
    model = mb.Model("example1")
    block = _on_vertical_slide(model, "block", 10.0, 0.0, 1.0)
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.005,) * 3, position=(0, 0, -1.0)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, block.add_marker("axle", z_axis=Y_AXLE)))
    drum = model.add(mb.RigidBody("drum", mass=2.0, inertia=(0.05,) * 3, position=(r + R, 0, 0)))
    drum_axle = drum.add_marker("axle", z_axis=Y_AXLE)
    ground_axle = model.ground.add_marker("drum_axle", position=(r + R, 0, 0), z_axis=Y_AXLE)
    reel = model.add(mb.Revolute("drum_axle", drum_axle, ground_axle))
    model.add(mb.Motion("reel", reel, velocity=_smooth_speed(2.5, 0.3)))
    route = [model.ground.add_marker("anchor", position=(-r, 0, 0)), mb.Pulley("sheave", axle, r)]
    route.append(mb.Winch("winch", drum_axle, R, groove_pitch=groove_pitch, stored_length=stored))
    model.add(
        mb.Rope(
            "rope",
            route,
            0.01,
            axial,
            0.1,
            elements_per_span=2,
            kind="moving_node",
            damping=2000.0,
            pretension=11 * G / 2,
        )
    )
    return model


def test_a_winch_reeling_in_over_a_sheave_the_papers_example_1() -> None:
    """Reference: the paper's example 1. Reeling in at v, the sheave's centre rises at v / 2 and
    spins at v / (2 r) (it rolls on the anchored fall); the drum's tangent point stays where it is
    while the material passes it at v (its material coordinate falls at v / (1 + T / EA): the rope
    is wound on the drum stretched); the tension at the sheave carries half the block, sheave and
    rope on the sheave (plus the rope's momentum flux rho v (v / 2), 1e-4 of it); the paid-in
    length is the material coordinate's change; and the energy balance closes with the drum's
    work (the rope wound on the drum turning with it). Tolerances: in the hold (t > 0.6 s) the
    speeds to 3e-6 (the damped transient's remainder); the tangent point to 5e-5 m (a lightly
    damped mode of the rope rolling on the rim, rung by the start, 1.5e-4 rad: its rate, up to
    1.6e-3 v, leaves 3e-5 of v in the material coordinate's fitted rate); the tension to 3e-4
    (the momentum flux); the balance to 1e-8 of the potential energy gained (rtol 1e-8)."""
    r, v, T, EA = 0.1, 0.5, 11 * G / 2, 1e6
    res = mb.dynamics(_example_1(EA), 0.8, 0.01, rtol=1e-8)
    hold = res.time > 0.6
    rope = res.rope("rope")
    assert res.body("block").velocity[hold, 2] == pytest.approx(v / 2, rel=3e-6)
    assert rope.spin[hold, 1] == pytest.approx(-v / (2 * r), rel=3e-6)
    assert np.ptp(rope.tangent_points[:, 2, 0], axis=0) == pytest.approx(0.0, abs=5e-5)
    top = rope.material_coordinate_at("winch")[:, 0]
    assert np.polyfit(res.time[hold], top[hold], 1)[0] == pytest.approx(-v / (1 + T / EA), rel=3e-5)
    assert rope.paid_out == pytest.approx(top - top[0])
    on_sheave = 0.1 * np.pi * r * G
    assert rope.tension_at("sheave")[hold] == pytest.approx((11 * G + on_sheave) / 2, rel=3e-4)
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-8 * np.ptp(res.energy["potential"])


def _hanging(smoothing: float = 0.0) -> mb.Model:
    """A 10 kg load on a vertical slide hanging on a 2 m rope (2 kg/m, EA 1e6 N, 8 elements) from a
    ground anchor, with the stress ``smoothing`` [s]."""
    model = mb.Model("hanging")
    load = _on_vertical_slide(model, "load", 10.0, 0.0, 2.0)
    route = [model.ground.add_marker("top"), load.add_marker("hook")]
    options = {"elements_per_span": 8, "kind": "moving_node", "pretension": 10.0 * G, "smoothing": smoothing}
    model.add(mb.Rope("rope", route, 0.01, 1e6, 2.0, **options))
    return model


def _rod_frequencies(EA: float, M: float, L: float, rho: float) -> np.ndarray:
    """The first two axial angular frequencies [rad/s] of a rod (EA, rho) of length L stretched
    by the weight of the mass M at its end: ``b tan b = rho L0 / M``, ``omega = b sqrt(EA / rho) / L0``
    over its rest length ``L0``."""
    rest = L / (1 + M * G / EA)
    roots = [
        brentq(lambda b: b * np.tan(b) - rho * rest / M, k * np.pi + 1e-9, k * np.pi + np.pi / 2 - 1e-9)
        for k in range(2)
    ]
    return np.array(roots) * np.sqrt(EA / rho) / rest


def test_a_load_hanging_on_a_heavy_rope_vibrates_at_the_rods_and_the_strings_frequencies() -> None:
    """References: (1) the axial modes of a rod of rest length L0, mass rho per length and EA with
    a mass M at its end, ``b tan b = rho L0 / M``, ``omega = b sqrt(EA / rho) / L0``: in the
    material coordinate the linear axial problem is exactly this whatever the stretch and the
    weight; (2) the transverse modes of the hanging string whose tension grows with height,
    ``-(T y')' = omega^2 rho y``, ``T = M g + rho g x``, by 2000 finite differences. A 10 kg load
    on a 2 m rope of 2 kg/m (EA = 1e6 N) on a vertical slide, linearized about its statics.
    Tolerances: the first two axial frequencies to 1e-6 (measured 4e-11 and 7e-8 with 8 cubic
    elements: the discretization);
    the first transverse pair to 1e-4 (measured 3e-5: the reference's O(h^2))."""
    EA, M, L, rho = 1e6, 10.0, 2.0, 2.0
    frequencies = mb.linearize(_hanging()).modes().frequencies_hz
    for axial in _rod_frequencies(EA, M, L, rho) / (2 * np.pi):
        assert frequencies[np.argmin(np.abs(frequencies - axial))] == pytest.approx(axial, rel=1e-6)
    cells = 2000
    h = L / cells
    tension = M * G + rho * G * h * (np.arange(cells) + 0.5)  # at the cells' middles, from the load up
    string = np.sqrt(eigh_tridiagonal((tension[:-1] + tension[1:]) / h**2 / rho, -tension[1:-1] / h**2 / rho)[0][:2])
    transverse = np.sort(frequencies)[:4]
    assert transverse == pytest.approx(np.repeat(string / (2 * np.pi), 2), rel=1e-4)  # in x and in y


def test_stress_smoothing_damps_and_slows_the_axial_modes_as_the_averaged_stress_does() -> None:
    """Reference: the rod of the test above with the paper's smoothed stress ``EA (eps + h/2
    eps' + h^2/6 eps'')``: for a motion ``exp(lambda t)`` that is the rod with the modulus
    ``EA (1 + h lambda / 2 + h^2 lambda^2 / 6)``, the same mode shapes, so each undamped mode
    ``omega`` becomes the roots of ``lambda^2 (1 + omega^2 h^2 / 6) + omega^2 h lambda / 2 + omega^2 =
    0``. With h = 2 ms the first axial mode (210 rad/s) keeps 97 % of its frequency, damped 10 %;
    the second (1150 rad/s) drops to 760 rad/s, damped 42 %. Tolerance: 1e-6 (the 8 elements'
    discretization: measured 4e-11 and 4e-8, as on the undamped frequencies)."""
    h = 2e-3
    eigenvalues = mb.linearize(_hanging(smoothing=h)).modes().eigenvalues
    for omega in _rod_frequencies(1e6, 10.0, 2.0, 2.0):
        for root in np.roots([1 + (omega * h) ** 2 / 6, omega**2 * h / 2, omega**2]):
            expected = complex(root.real, abs(root.imag))  # the modes list one of each conjugate pair
            closest = eigenvalues[np.argmin(np.abs(eigenvalues - expected))]
            assert closest == pytest.approx(expected, rel=1e-6)


def test_a_grooved_drum_reels_the_rope_in_along_its_helix() -> None:
    """Reference: a helical groove's geometry. Example 1 with a drum grooved at a pitch of 0.05 m
    per turn: the tangent point walks along the axle by the pitch per turn of its angle in the
    drum's axes (a right-handed helix), and the rope taken in per radian is the helix's length
    ``sqrt(R^2 + (p / 2 pi)^2)`` over the rope's stretch; the rope leaves the sheave at a growing
    fleet angle (the sheave's slide holds it in its plane), and the energy balance closes but for
    the rope joining the groove: its fleet angle is not the helix's, so its material meets the
    drum with a jump of axial velocity (a few cm/s) whose ``1/2 rho s' dv^2`` the books lose.
    Tolerances: the geometry to 1e-9 m (the constraints' tolerance); the balance to 2e-6 of the
    potential energy gained (measured 8e-7; 1e-9 without a groove, test above)."""
    pitch, R, T, EA = 0.05, 0.2, 11 * G / 2, 1e6
    res = mb.dynamics(_example_1(EA, groove_pitch=pitch), 0.8, 0.01, rtol=1e-8)
    rope = res.rope("rope")
    # the tangent point's angle about the axle in the drum's axes, from their x-axis
    offset = rope.tangent_points[:, 2, 0] - rope.centres[:, 2]
    x_axis, axle = rope.reference_axes[:, 2], rope.axles[:, 2]
    angle = np.unwrap(
        np.arctan2(np.einsum("ta,ta->t", offset, np.cross(axle, x_axis)), np.einsum("ta,ta->t", offset, x_axis))
    )
    assert np.ptp(angle) > 1.5  # a quarter of a turn and more
    walked = np.einsum("ta,ta->t", offset, axle)
    assert walked - walked[0] == pytest.approx(pitch * (angle - angle[0]) / (2 * np.pi), abs=1e-9)
    helix = np.hypot(R, pitch / (2 * np.pi))
    taken_in = rope.material_coordinate_at("winch")[:, 0]
    expected = rope.sense[2] * helix / (1 + T / EA) * (angle - angle[0])
    assert taken_in - taken_in[0] == pytest.approx(expected, abs=1e-9)
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 2e-6 * np.ptp(res.energy["potential"])


@pytest.mark.parametrize(("EA", "pretension"), [(5e3, 5.0), (5e7, 50.0)])
def test_a_rope_between_two_anchors_takes_the_elastic_catenary(EA: float, pretension: float) -> None:
    """Reference: Irvine's elastic catenary. A moving-node rope (10 m between two anchors at one
    level, 0.49 N/m, laid straight with a pretension) sags under its weight in statics: its
    mid-span sag and end tension against the catenary of the same unstretched length. EA = 5 kN
    (5 N); and a stiff rope, EA = 50 MN (50 N), which hangs at 386 N: Newton from the straight start
    meets slack elements, and statics gets there by continuation. Tolerances: 16 cubic elements,
    the sag to 2e-4 and the end tension to 1e-4 (the interpolation; the tension from the end
    node's slope; measured 3e-8 and 9e-6, 7e-11 and 3e-8)."""
    span, w = 10.0, 0.49
    model = mb.Model("catenary")
    route = [model.ground.add_marker("left"), model.ground.add_marker("right", position=(span, 0, 0))]
    options = {"elements_per_span": 16, "kind": "moving_node", "pretension": pretension}
    model.add(mb.Rope("rope", route, 0.008, EA, w / G, **options))
    res = mb.statics(model)
    length = span / (1 + pretension / EA)
    H, sag = elastic_catenary(span, length, w, EA)
    nodes = res.rope("rope").nodes[-1, 0]
    assert -nodes[8, 2] == pytest.approx(sag, rel=2e-4)
    end_tension = np.hypot(H, w * length / 2)
    assert res.rope("rope").tension_at(route[0].full_name)[-1, 0] == pytest.approx(end_tension, rel=1e-4)


RHO = 0.1
"""[kg/m] a light rope's mass per length"""


def test_massless_and_moving_node_ropes_agree_on_a_block_and_tackle() -> None:
    """Reference: the massless path kind, and the block-and-tackle law. A 20 kg load on a movable
    sheave held by two vertical falls from a winch and an anchor: in statics the tension is
    W / 2 at the sheave in both kinds (plus, for the moving-node rope, half the weight of the rope
    on the sheave; the falls' weight is above the sheave), to 1e-5 (the moving-node tension is read
    from the end node's slope, which the strain's 3-point quadrature leaves 1.4e-6 off); on
    a slow lift the load rises at half the paid-in length in both, to 1e-4 (measured 5e-5): the
    massless kind winds the rope on the drum unstretched, the moving-node kind at its strain
    (2.5e-5), and the moving-node falls carry their own weight (their stretch grows by 1e-6 m as
    the lift starts) while their tangent points ring on the sheave (8e-7 m).
    Tolerances as stated."""

    def model(kind: str) -> mb.Model:
        built = mb.Model(f"tackle_{kind}")
        load = _on_vertical_slide(built, "load", 19.0, 0.0, 2.0)
        sheave = built.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.01,) * 3, position=(0, 0, -2.0)))
        axle = sheave.add_marker("axle", z_axis=Y_AXLE)
        built.add(mb.Revolute("axle", axle, load.add_marker("axle", z_axis=Y_AXLE)))
        drum = built.add(mb.RigidBody("drum", mass=1.0, inertia=(0.02,) * 3, position=(0.3, 0, 0)))
        drum_axle = drum.add_marker("axle", z_axis=Y_AXLE)
        reel = built.add(
            mb.Revolute("reel", drum_axle, built.ground.add_marker("reel", position=(0.3, 0, 0), z_axis=Y_AXLE))
        )
        built.add(mb.Motion("lift", reel, velocity=_smooth_speed(1.0, 0.2)))
        route = [built.ground.add_marker("anchor", position=(-0.1, 0, 0)), mb.Pulley("sheave", axle, 0.1)]
        route.append(mb.Winch("winch", drum_axle, 0.2, stored_length=1.0))
        extra = {"elements_per_span": 2, "kind": kind} if kind == "moving_node" else {}
        # near critical axial damping: the massless kind's on the rate of stretch [N s/m], the
        # moving-node kind's on the strain rate [N s] (times the falls' length, 2 m)
        damping = 2e4 if kind == "moving_node" else 1e4
        built.add(mb.Rope("rope", route, 0.01, 4e6, RHO, damping=damping, pretension=10 * G, **extra))
        return built

    for kind, on_sheave in (("massless", 0.0), ("moving_node", RHO * np.pi * 0.1 * G)):
        statics = mb.statics(model(kind))
        assert statics.rope("rope").tension_at("sheave")[-1] == pytest.approx([(20 * G + on_sheave) / 2] * 2, rel=1e-5)
    lifts = [mb.dynamics(model(kind), 0.5, 0.01, rtol=1e-7) for kind in ("massless", "moving_node")]
    rises = [res.body("load").position[-1, 2] - res.body("load").position[0, 2] for res in lifts]
    assert rises[1] == pytest.approx(rises[0], rel=1e-4)
    assert rises[1] == pytest.approx(-lifts[1].rope("rope").paid_out[-1] / 2, rel=1e-4)


@pytest.mark.parametrize("kind", ["massless", "moving_node"])
def test_two_inclined_falls_carry_the_load_at_w_over_2_cos_a(kind: str) -> None:
    """Reference: statics of a load on a sheave hung from two anchors 1.2 m apart on inclined falls:
    ``2 T cos a = W`` with ``a`` each fall's angle from the vertical at the sheave (the massless
    kind's straight falls: from the tangent points; the moving-node kind's, which sag: its span's
    slope at the sheave). A 50 kg hook block (sheave included) on a vertical slide, a light rope (0.1
    kg/m: the moving-node kind adds the weight of the rope on the sheave, ``rho r wrap g``, to W).
    Tolerance 3e-5: the moving-node rope's tension and direction at the sheave are both read from
    the span end's slope, an interpolated quantity (the axial strain is pinned at the elements'
    Gauss points): measured 1.2e-5; the massless kind's is exact (1e-13)."""
    model = mb.Model(f"inclined_{kind}")
    block = _on_vertical_slide(model, "block", 49.0, 0.0, 1.5)
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.01,) * 3, position=(0, 0, -1.5)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, block.add_marker("axle", z_axis=Y_AXLE)))
    route = [model.ground.add_marker("left", position=(-0.6, 0, 0)), mb.Pulley("sheave", axle, 0.1)]
    route.append(model.ground.add_marker("right", position=(0.6, 0, 0)))
    extra = {"kind": kind, "elements_per_span": 3} if kind == "moving_node" else {}
    model.add(mb.Rope("rope", route, 0.01, 1e6, 0.1, pretension=250.0, **extra))
    rope = mb.statics(model).rope("rope")
    if kind == "moving_node":  # the rope's direction at the sheave: its first span's end slope (it sags)
        fall = -rope.nodes[-1, 0, -1, 3:]
    else:  # straight: from the sheave's entry point up to the left anchor
        fall = rope.tangent_points[-1, 0, 0] - rope.tangent_points[-1, 1, 0]
    cosine = fall[2] / np.linalg.norm(fall)
    on_sheave = 0.1 * 0.1 * rope.wrap_angle[-1, 1] * G if kind == "moving_node" else 0.0
    assert np.degrees(np.arccos(cosine)) > 15.0
    assert 2 * rope.tension_at("sheave")[-1] * cosine == pytest.approx([50 * G + on_sheave] * 2, rel=3e-5)


def test_capstan_on_a_moving_node_rope_agrees_with_the_massless_kind() -> None:
    """References: the capstan law and the massless kind (``test_rope_friction.capstan``: a 10 kg
    load held by a rope over a fixed drum, mu 0.2, wrap pi, its other side pulled down at 2 mm/s).
    The rope sticks to a ring on the drum, and the capstan law between ring and drum lets it slide.
    Stuck (ratio below 0.99 exp(mu pi)) the load holds to 4e-5 m: the regularization lets it creep
    at most at 1e-4 m/s times atanh of the load's share of the limit, plus the spans' ringing
    (the massless kind, a rate law, holds it exactly). Sliding (t > 0.9 s) the ratio is the
    massless kind's regularized law, exp(mu pi) (1 + (1 + exp(-mu pi)) v / slip_speed), to 3e-4 (the
    spans' vibration: 1e-4 rms) and the load rises at v to 1e-2 (the same ringing, averaged). The
    energy books close with the friction's work to 1e-7 of the potential energy gained (rtol 1e-8)."""
    grip, v = np.exp(0.2 * np.pi), 2e-3
    res = mb.dynamics(capstan(kind="moving_node", elements_per_span=2), 1.2, 0.01, rtol=1e-8)
    tension = res.rope("rope").tension_at("drum")
    ratio = tension[:, 1] / tension[:, 0]
    rise = res.body("load").position[:, 2] - res.body("load").position[0, 2]
    stuck = ratio < 0.99 * grip
    assert stuck.sum() > 40 and np.abs(rise[stuck]).max() < 4e-5
    sliding = res.time > 0.9
    assert ratio[sliding].mean() == pytest.approx(grip * (1.0 + (1.0 + 1.0 / grip) * v / 1.0), rel=3e-4)
    assert res.body("load").velocity[sliding, 2].mean() == pytest.approx(v, rel=1e-2)
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-7 * np.ptp(res.energy["potential"])


def test_bad_moving_node_input_is_refused_by_name() -> None:
    """Reference: the package's input rules (errors name the element and say the fix)."""
    model = mb.Model("bad")
    body = model.add(mb.RigidBody("b", mass=1.0, inertia=(1, 1, 1), position=(0, 0, -1)))
    wheel = model.add(mb.RigidBody("wheel", mass=1.0, inertia=(1, 1, 1), position=(0.5, 0, 0)))
    axle = wheel.add_marker("axle", z_axis=Y_AXLE)
    a = model.ground.add_marker("a")
    kwargs = {"diameter": 0.01, "axial_stiffness": 1e5, "mass_per_length": 0.1, "kind": "moving_node"}
    guide = mb.Pulley("p", model.ground.add_marker("guide", position=(0.5, 0, 0), z_axis=Y_AXLE), 0.1)
    with pytest.raises(mb.ModelError, match="rope 'r'.*sticks to its pulleys.*'p' is on ground.*belt friction"):
        mb.Rope("r", [a, guide, body.add_marker("m")], **kwargs)
    with pytest.raises(mb.ModelError, match="winch 'w'.*stored_length"):
        mb.Winch("w", axle, 0.1, stored_length=-1.0)
    rope = mb.Rope("r", [a, body.add_marker("hook")], **kwargs)
    span = rope.parts[0]
    with pytest.raises(mb.ModelError, match="span 'r_span1'.*start_marker and end_marker"):
        span.marker_at("middle", 0.5)
    with pytest.raises(mb.ModelError, match="span 'r_span1'.*elements would be 0.005 m long.*fewer elements_per_span"):
        mb.Rope("r", [a, body.add_marker("hook2")], elements_per_span=200, **kwargs)


def _hoist(reel_speed: float | Callable[[float], float], kind: str = "moving_node") -> mb.Model:
    """A 10 kg load hung 0.5 m below a winch (R = 0.2 m; rope 50 mm, EA 1e6 N, 0.5 kg/m, 2
    elements) reeled in at ``reel_speed`` [rad/s] (a constant or a law of time)."""
    model = mb.Model("two_blocking")
    load = _on_vertical_slide(model, "load", 10.0, 0.2, 0.5)
    drum = model.add(mb.RigidBody("drum", mass=1.0, inertia=(0.01,) * 3))
    axle = drum.add_marker("axle", z_axis=Y_AXLE)
    reel = model.add(mb.Revolute("reel", axle, model.ground.add_marker("reel", z_axis=Y_AXLE)))
    model.add(mb.Motion("reel_in", reel, velocity=reel_speed))
    route = [mb.Winch("winch", axle, 0.2), load.add_marker("hook")]
    model.add(mb.Rope("rope", route, 0.05, 1e6, 0.5, elements_per_span=2, kind=kind, damping=2e3, pretension=10 * G))
    return model


def test_a_winch_that_reels_in_past_the_rope_stops_the_run_naming_the_span(tmp_path) -> None:
    """Reference: the package's failure rules. A load hung 0.5 m below a winch (rope 50 mm, 2
    elements) reeled in at 0.5 m/s (after a 0.1 s ramp): when the span's elements shrink below the
    rope's diameter (the load pulled up to the drum) the run stops naming the span and saying why,
    and keeps the results computed until then (about 0.85 s: 0.4 m reeled in, 0.1 m left)."""
    model = _hoist(_smooth_speed(-2.5, 0.1))
    with pytest.raises(mb.AnalysisError, match=r"rope span 'rope_span1' has run out of rope.*saved") as caught:
        mb.dynamics(model, 2.0, 0.05, output=tmp_path / "two_blocking.h5")
    saved = mb.Results.load(caught.value.results_path)
    assert 0.75 < saved.time[-1] < 0.9


@pytest.mark.slow
def test_a_winch_started_at_full_speed_stops_the_run_instead_of_crawling() -> None:
    """Reference: the package's failure rules (``dynamics(min_step=...)``, the stall test). The
    hoist of the two-blocking test reeled in at full speed from t = 0: the load is thrown up, the
    span goes slack in compression and snaps taut again, which a rope without bending stiffness
    cannot follow (before: 0.1 s not done in 5 minutes). The run stops at the snap (about 13 ms)
    with the stall error; the massless kind runs the same start through. Slow: some 2700 attempted
    steps."""
    with pytest.raises(mb.AnalysisError, match=r"stalled at t = 0\.01\d+ s.*min_step = 5e-09 s"):
        mb.dynamics(_hoist(-2.5), 0.3, 0.005)
    assert mb.dynamics(_hoist(-2.5, kind="massless"), 0.3, 0.005).time[-1] == pytest.approx(0.3)
