"""Massless rope paths over pulleys with belt friction or no slip (``multibody.model.forces.rope``:
``Pulley(..., friction=mu | "no_slip")``): the rope in segments between such pulleys, each with
its own tension, the rope flowing over them as the sheaves turn or as it slides."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import multibody as mb

Y_AXLE = (0.0, 1.0, 0.0)  # pulleys in the x-z plane turn about y
G = 9.81


def _on_vertical_slide(model: mb.Model, name: str, mass: float, x: float, depth: float) -> tuple[mb.RigidBody, object]:
    """A body of ``mass`` [kg] at ``(x, 0, -depth)`` [m], free only to slide vertically, and its joint."""
    body = model.add(mb.RigidBody(name, mass=mass, inertia=(0.1, 0.1, 0.1), position=(x, 0.0, -depth)))
    joint = model.add(
        mb.Translational(
            f"{name}_slide",
            body.add_marker("slide", z_axis=(0, 0, 1)),
            model.ground.add_marker(f"{name}_slide", position=(x, 0, -depth), z_axis=(0, 0, 1)),
        )
    )
    return body, joint


def _smooth_speed(speed: float, ramp: float) -> Callable[[float], float]:
    """A velocity law rising smoothly from 0 to ``speed`` over ``ramp`` [s], then constant."""
    return lambda t: speed * 0.5 * (1.0 - np.cos(np.pi * min(t / ramp, 1.0)))


def _span_tensions(res: mb.Results) -> np.ndarray:
    return np.column_stack([res.force("rope_span1").value, res.force("rope_span2").value])


def capstan(**rope_options: object) -> mb.Model:
    """A 10 kg load on a vertical slide hanging in a rope (EA 1e5 N, 0.1 kg/m, damping 200) over a
    fixed drum (radius 0.1 m, belt friction 0.2, wrap pi) whose other side is pulled down at 2 mm/s
    (after a smooth 0.2 s start) by a 1 kg puller; ``rope_options`` go to the ``Rope``."""
    mu, r, m, v = 0.2, 0.1, 10.0, 2e-3
    model = mb.Model("capstan")
    drum = mb.Pulley("drum", model.ground.add_marker("drum", z_axis=Y_AXLE), r, friction=mu)
    load, _ = _on_vertical_slide(model, "load", m, -r, 1.0)
    puller, slide = _on_vertical_slide(model, "puller", 1.0, r, 1.0)
    model.add(mb.Motion("pull", slide, velocity=_smooth_speed(-v, 0.2)))
    route = [load.add_marker("hook"), drum, puller.add_marker("hook")]
    model.add(mb.Rope("rope", route, 0.01, 1e5, 0.1, damping=200.0, pretension=m * G, **rope_options))
    return model


def test_capstan_slip_begins_when_the_tension_ratio_reaches_exp_mu_theta() -> None:
    """Reference: the capstan (Euler-Eytelwein) law. A rope over a fixed drum (friction 0.2, wrap
    pi) holds a 10 kg load on one side; the other side is pulled down slowly (2 mm/s). The
    load does not move while T_high / T_low < exp(mu pi) = 1.8745 (the rope sticks: exactly no
    flow), and once the rope slides the ratio is exp(mu pi) (1 + (1 + exp(-mu pi)) v / slip_speed),
    the regularization's excess at the sliding speed v (3e-3 here). Tolerances: stuck, the load
    moves less than 1e-9 m (exactly nothing flows); sliding steadily, the ratio agrees with the
    regularized law to 1e-5 (the damper and the load's acceleration have died out) and with
    exp(mu pi) to 4e-3 (the excess); the load's mean speed to 2e-4 (a residual axial ringing of
    1.5e-3 of v averages out)."""
    mu, v, EA = 0.2, 2e-3, 1e5
    grip = np.exp(mu * np.pi)
    res = mb.dynamics(capstan(), 2.0, 0.01, rtol=1e-8)
    T = _span_tensions(res)
    assert res.rope("rope").tension_at("drum") == pytest.approx(T)  # entry: the load's side, exit: the puller's
    ratio = T[:, 1] / T[:, 0]
    rise = res.body("load").position[:, 2] - res.body("load").position[0, 2]
    stuck = ratio < grip * (1.0 - 1e-3)
    assert stuck.sum() > 40 and ratio[stuck].max() > 0.99 * grip  # the ratio climbs to the threshold stuck
    assert np.abs(rise[stuck]).max() < 1e-9
    sliding = res.time > 1.5
    # the rope's material is conserved: the load rises at v (1 + eps_low) / (1 + eps_high), 0.9991 v
    strain = T[sliding].mean(axis=0) / EA
    assert res.body("load").velocity[sliding, 2].mean() == pytest.approx(
        v * (1 + strain[0]) / (1 + strain[1]), rel=2e-4
    )
    assert ratio[sliding] == pytest.approx(grip * (1.0 + (1.0 + 1.0 / grip) * v / 1.0), rel=1e-5)
    assert ratio[sliding] == pytest.approx(grip, rel=4e-3)


def _atwood(
    friction: float | str,
    inertia: float,
    m_light: float,
    m_heavy: float,
    slip_speed: float = 1.0,
    **rope_options: object,
) -> mb.Model:
    """Two loads on vertical slides hanging in a rope over a sheave (radius 0.1 m, on a revolute
    joint on ground about y, ``inertia`` [kg m^2] about it), released from rest; ``rope_options``
    go to the ``Rope``."""
    model = mb.Model("atwood")
    r = 0.1
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(inertia, inertia, inertia)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, model.ground.add_marker("axle", z_axis=Y_AXLE)))
    pulley = mb.Pulley("sheave", axle, r, friction=friction, slip_speed=slip_speed)
    light, _ = _on_vertical_slide(model, "light", m_light, -r, 1.0)
    heavy, _ = _on_vertical_slide(model, "heavy", m_heavy, r, 1.0)
    route = [light.add_marker("hook"), pulley, heavy.add_marker("hook")]
    model.add(mb.Rope("rope", route, 0.01, 1e5, 0.1, damping=500.0, pretension=m_light * G, **rope_options))
    return model


def test_atwood_machine_over_a_no_slip_sheave_with_inertia() -> None:
    """Reference: Atwood's machine with a massive pulley, a = g (m2 - m1) / (m1 + m2 + J / r^2),
    the sheave turning with the rope (spin = rope speed / r), and energy conservation (no slip:
    no loss but the rope's damper). Tolerances: the acceleration fitted over the second half,
    where the damped axial transient has died out (1e-4 relative, the stretch's slow change);
    the spin to 2e-5 of the rope speed / r, the rope's strains differing by 3e-5 on the two
    sides (the rim carries the rope at their mean: that to 1e-6, the transient's remainder); the
    balance to 1e-6 of the kinetic energy (integration error at rtol 1e-8)."""
    m1, m2, J, r = 5.0, 7.0, 0.02, 0.1
    res = mb.dynamics(_atwood("no_slip", J, m1, m2), 0.6, 0.005, rtol=1e-8)
    late = res.time > 0.3
    speed = res.body("light").velocity[:, 2]
    slope = np.polyfit(res.time[late], speed[late], 1)[0]
    assert slope == pytest.approx(G * (m2 - m1) / (m1 + m2 + J / r**2), rel=1e-4)
    spin = res.body("sheave").angular_velocity[:, 1]
    T = _span_tensions(res)
    strain = T / 1e5
    # the rim carries the rope at the mean strain of its two sides, the light load's fall at its own
    rim_speed = speed * (1 + strain.mean(axis=1)) / (1 + strain[:, 0])
    assert spin[late] * r == pytest.approx(rim_speed[late], rel=1e-6)
    assert spin[late] * r == pytest.approx(speed[late], rel=2e-5)
    assert (T[late, 1] - T[late, 0]) * r == pytest.approx(J * slope / r, rel=1e-3)  # the torque spinning it up
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-6 * res.energy["kinetic"].max()
    frictionless = mb.dynamics(_atwood(None, J, m1, m2), 0.05, 0.005, rtol=1e-8)
    assert np.abs(frictionless.body("sheave").angular_velocity).max() < 1e-9  # no torque: the spin is free


def test_atwood_machine_sliding_over_a_fixed_drum_loses_energy_to_friction() -> None:
    """References: the capstan law in dynamics and the energy balance. Loads of 5 and 12 kg over
    a drum (friction 0.2, wrap pi) that an inertia of 1e6 kg m^2 keeps practically still:
    12 / 5 > exp(0.2 pi), so the rope slides, with
    T_heavy / T_light = exp(mu pi) (1 + (1 + exp(-mu pi)) v / slip_speed) (the regularized law at
    the sliding speed v), and the work lost to friction, booked as dissipated, closes the balance.
    Tolerances: the ratio to 2e-3 (the damper acts on the material's stretch, which the sliding
    changes slowly); the balance to 1e-6 of the energy moved (integration error at rtol 1e-8)."""
    mu, m1, m2, V = 0.2, 5.0, 12.0, 20.0
    grip = np.exp(mu * np.pi)
    res = mb.dynamics(_atwood(mu, 1e6, m1, m2, slip_speed=V), 0.5, 0.005, rtol=1e-8)
    late = res.time > 0.25
    T = _span_tensions(res)
    speed = res.body("light").velocity[late, 2]
    assert speed.min() > 0.2  # sliding
    assert T[late, 1] / T[late, 0] == pytest.approx(grip * (1.0 + (1.0 + 1.0 / grip) * speed / V), rel=2e-3)
    assert np.abs(res.body("sheave").angular_velocity).max() < 1e-5
    balance = res.energy["total"] + res.energy["dissipated"]
    moved = -np.ptp(res.energy["potential"]) + res.energy["kinetic"].max()
    assert res.energy["dissipated"][-1] > 0.5 * np.ptp(res.energy["potential"])  # friction takes most of it
    assert np.ptp(balance) < 1e-6 * max(moved, np.ptp(res.energy["potential"]))


def test_a_rope_reeled_in_rolls_a_no_slip_sheave_up_its_anchored_fall() -> None:
    """Reference: the paper's example 1 (Qi, Guo & Zhuo 2019) for the massless kind: one sheave on
    two vertical falls, one end anchored, the other reeled in at v = 0.5 m/s; the sheave's centre
    rises at v / 2 and, stuck to the rope, it rolls up the anchored fall at v / (2 r). In the
    results: the sheave's spin, the material coordinate at its entry point falling at
    (v / 2) / (1 + strain) (the anchored fall shortens), the wrapped material (exit - entry)
    constant (stuck), and at the hook the whole rope's rest length, constant (material fixed
    there). Tolerances: 1e-6 relative in the hold phase, what is left of the damped start-up
    transient; the rate from central differences of 0.01 s samples of a linear signal, 1e-6."""
    r, v = 0.1, 0.5
    model = mb.Model("example1")
    block, _ = _on_vertical_slide(model, "block", 10.0, 0.0, 1.0)
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.005, 0.005, 0.005), position=(0, 0, -1.0)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, block.add_marker("axle", z_axis=Y_AXLE)))
    puller, slide = _on_vertical_slide(model, "puller", 1.0, r, 0.0)
    model.add(mb.Motion("reel", slide, velocity=_smooth_speed(v, 0.3)))
    anchor = model.ground.add_marker("anchor", position=(-r, 0, 0))
    route = [anchor, mb.Pulley("sheave", axle, r, friction="no_slip"), puller.add_marker("hook")]
    model.add(mb.Rope("rope", route, 0.01, 1e5, 0.1, damping=500.0, pretension=11.0 * G / 2))
    res = mb.dynamics(model, 1.0, 0.01, rtol=1e-8)
    hold = res.time > 0.6
    assert res.body("block").velocity[hold, 2] == pytest.approx(v / 2, rel=1e-6)
    assert res.body("sheave").angular_velocity[hold, 1] == pytest.approx(-v / (2 * r), rel=1e-6)
    rope = res.rope("rope")
    assert rope.spin[hold, 1] == pytest.approx(-v / (2 * r), rel=1e-6)
    entry = rope.material_coordinate_at("sheave")
    strain = rope.span_tension[hold, 0] / 1e5
    assert np.gradient(entry[:, 0], res.time)[hold] == pytest.approx(-v / 2 / (1 + strain), rel=1e-6)
    assert np.ptp(entry[hold, 1] - entry[hold, 0]) < 1e-6 * r
    hook = rope.material_coordinate_at(rope.points[-1])
    assert hook[:, 0] == pytest.approx(rope.rest_length.sum(axis=1), rel=1e-12)
    assert np.ptp(hook) < 1e-12
    assert rope.arc_length_at(rope.points[-1])[:, 0] == pytest.approx(
        rope.span_length.sum(axis=1) + r * rope.wrap_angle[:, 1], rel=1e-12
    )


def test_bad_pulley_friction_is_refused_with_the_pulley_named() -> None:
    """Reference: the package's input rules (errors name the element and the fix)."""
    marker = mb.Model("m").ground.add_marker("p")
    with pytest.raises(mb.ModelError, match="pulley 'p'.*friction.*'no_slip'"):
        mb.Pulley("p", marker, 0.1, friction="sticky")
    with pytest.raises(mb.ModelError, match="pulley 'p'.*friction.*mu >= 0"):
        mb.Pulley("p", marker, 0.1, friction=-0.1)
    with pytest.raises(mb.ModelError, match="pulley 'p'.*slip_speed"):
        mb.Pulley("p", marker, 0.1, friction=0.1, slip_speed=0.0)
    assert mb.Pulley("p", marker, 0.1, friction=0.0).friction is None  # no friction: frictionless


def _fixed_drum(friction: float | str, m_light: float, m_heavy: float) -> mb.Model:
    """Two loads on vertical slides hanging in a rope over a drum fixed on ground (radius 0.1 m)."""
    model = mb.Model("fixed_drum")
    drum = mb.Pulley("drum", model.ground.add_marker("drum", z_axis=Y_AXLE), 0.1, friction=friction)
    light, _ = _on_vertical_slide(model, "light", m_light, -0.1, 1.0)
    heavy, _ = _on_vertical_slide(model, "heavy", m_heavy, 0.1, 1.0)
    route = [light.add_marker("hook"), drum, heavy.add_marker("hook")]
    model.add(mb.Rope("rope", route, 0.01, 1e5, 0.1, pretension=m_light * G))
    return model


def test_a_drum_with_friction_holds_unequal_loads_in_statics_until_the_capstan_limit() -> None:
    """Reference: statics with the capstan law. 5 and 6 kg over a fixed drum with friction 0.3
    (exp(0.3 pi) = 2.57 > 6 / 5) or without slip hang still with T = m g on each side, the rope
    stuck (its segments keep their rest lengths: the static state of a rope that never slid);
    5 and 15 kg (ratio 3 > 2.57) have no equilibrium: the rope slides, and statics
    fails naming the rope's sliding states.
    Tolerance: the static residual (1e-10 relative)."""
    for friction in (0.3, "no_slip"):
        res = mb.statics(_fixed_drum(friction, 5.0, 6.0))
        assert _span_tensions(res)[-1] == pytest.approx([5.0 * G, 6.0 * G], rel=1e-10)
    with pytest.raises(mb.AnalysisError, match="state 0 of 'rope' changing"):  # the rope slides
        mb.statics(_fixed_drum(0.3, 5.0, 15.0))


def test_plot_rope_draws_tensions_angles_spins_and_material_coordinates() -> None:
    """Reference: the figure's content is the results' (``res.rope``), in the units on the axes."""
    res = mb.dynamics(_atwood("no_slip", 0.02, 5.0, 7.0), 0.1, 0.01, rtol=1e-6)
    figure = mb.plot_rope(res, "rope")
    labels = [ax.get_ylabel() for ax in figure.axes]
    assert labels == ["tension [kN]", "wrap angle [deg]", "spin [rad/s]", "material coordinate [m]"]
    tension = figure.axes[0].lines[1].get_ydata()
    assert tension == pytest.approx(res.rope("rope").span_tension[:, 1] / 1e3)
    assert figure.axes[1].lines[0].get_ydata() == pytest.approx(180.0)  # half a turn
    with pytest.raises(KeyError, match="'nope' is not a rope"):
        mb.plot_rope(res, "nope")


@pytest.mark.parametrize("friction", ["no_slip", 0.2])
def test_kane_and_cartesian_formulations_agree_on_a_rope_with_friction(friction: float | str) -> None:
    """Reference: two independent formulations (Cartesian DAE and Kane's equations) take the same
    rope loads and state rates: an Atwood machine over a no-slip sheave with inertia, and one
    sliding over a drum with friction. Tolerance: 1e-8 m on the load and 1e-5 relative on the
    tension, a few times the integration error at rtol 1e-8 (the tension's error peaks at 1e-6 in
    the jerk of the release, where the sliding law is stiffest)."""
    model = _atwood("no_slip", 0.02, 5.0, 7.0) if friction == "no_slip" else _atwood(0.2, 1e6, 5.0, 12.0, 20.0)
    runs = [mb.dynamics(model, 0.3, 0.01, rtol=1e-8, formulation=f) for f in ("cartesian", "kane")]
    cartesian, kane = (res.body("light").position[:, 2] for res in runs)
    assert np.ptp(cartesian) > 0.03
    assert kane == pytest.approx(cartesian, abs=1e-8)
    assert runs[1].force("rope_span2").value == pytest.approx(runs[0].force("rope_span2").value, rel=1e-5)


def test_a_winch_reeling_in_over_a_no_slip_sheave_the_papers_example_1() -> None:
    """Reference: the paper's example 1 (Qi, Guo & Zhuo 2019) with its winch: one sheave (r = 0.1 m,
    no slip) on two vertical falls, one anchored, the other reeled onto a drum (R = 0.2 m) turning
    at 2.5 rad/s, v = 0.5 m/s. The sheave's centre rises at v (1 + T / EA) / 2 (the paid-in
    length, stretched), it spins at that over r, the top point (the drum's tangent point) stands
    still while the material passes it at v, and the energy balance closes (the drum's motion's
    work = kinetic + potential + strain energy + damping). Tolerances: 3e-6 relative in the hold
    phase (the damped transient's remainder, 1.4e-6 on the spin); the tangent point 1e-12 m (it is fixed by the
    geometry); the balance 1e-8 of the potential energy gained, integration error at rtol 1e-8.

    Also SI2's Newton against the rope's stiffness (EA / L = 1e5 N/m on 10 kg): the positions move
    with the multipliers ``mu`` too, and the loads' answer to that move must be in Newton's
    right-hand side (``dae_kernel.add_stiffness_response``). Without it Newton converged linearly
    (rate 0.4), failed twice a step and the run took 7750 steps; with it, as I3 (which has no ``mu``
    and no failure here), fewer than 1 % of the steps fail (measured 2 in 298)."""
    r, R, omega, EA = 0.1, 0.2, 2.5, 1e5
    model = mb.Model("example1")
    block, _ = _on_vertical_slide(model, "block", 10.0, 0.0, 1.0)
    sheave = model.add(mb.RigidBody("sheave", mass=1.0, inertia=(0.005, 0.005, 0.005), position=(0, 0, -1.0)))
    axle = sheave.add_marker("axle", z_axis=Y_AXLE)
    model.add(mb.Revolute("axle", axle, block.add_marker("axle", z_axis=Y_AXLE)))
    drum = model.add(mb.RigidBody("drum", mass=2.0, inertia=(0.05, 0.05, 0.05), position=(r + R, 0, 0)))
    drum_axle = drum.add_marker("axle", z_axis=Y_AXLE)
    ground_axle = model.ground.add_marker("drum_axle", position=(r + R, 0, 0), z_axis=Y_AXLE)
    model.add(
        mb.Motion(
            "reel", model.add(mb.Revolute("drum_axle", drum_axle, ground_axle)), velocity=_smooth_speed(omega, 0.3)
        )
    )
    route = [model.ground.add_marker("anchor", position=(-r, 0, 0)), mb.Pulley("sheave", axle, r, friction="no_slip")]
    route.append(mb.Winch("winch", drum_axle, R))
    T = 11.0 * G / 2
    model.add(mb.Rope("rope", route, 0.01, EA, 0.1, damping=500.0, pretension=T))
    res = mb.dynamics(model, 1.0, 0.01, rtol=1e-8)
    assert res.stats["newton_failures"] < 0.01 * res.stats["steps"]
    hold = res.time > 0.6
    v = omega * R
    rope = res.rope("rope")
    assert res.body("block").velocity[hold, 2] == pytest.approx(v * (1 + T / EA) / 2, rel=3e-6)
    assert rope.spin[hold, 1] == pytest.approx(-v * (1 + T / EA) / (2 * r), rel=3e-6)
    assert np.ptp(rope.tangent_points[:, 2, 0], axis=0) == pytest.approx(0.0, abs=1e-12)
    top = rope.material_coordinate_at("winch")[:, 0]
    assert np.gradient(top, res.time)[hold] == pytest.approx(-v, rel=1e-6)  # material leaves the free rope at v
    balance = res.energy["total"] + res.energy["dissipated"]
    assert np.ptp(balance) < 1e-8 * np.ptp(res.energy["potential"])
