"""A flexible two-link manipulator arm slewing in a horizontal plane: one link of finite segments, one nodal beam.

A hub turns about the vertical axis on a driven revolute joint (``mb.Motion``): it slews the arm by
90 degrees between 0.1 s and 0.9 s (an ADAMS STEP profile, smooth in acceleration) and holds. Link 1,
an aluminium rod (0.6 m, 20 mm), is a ``mb.FiniteSegmentBeam`` of 6 rigid segments clamped to the
hub (the MDAS II finite-segment method); an elbow housing (0.3 kg) sits at its end, and the elbow
drive turns the forearm hub by 45 degrees over the same time. Link 2, a thinner rod (0.5 m, 12 mm),
is a geometrically exact nodal ``mb.Beam`` of 6 elements clamped to the forearm hub, with a 0.2 kg
payload at its tip. Gravity (-z) makes both links sag; the slew makes them bend in the plane and
swing after the drives stop (the first bending mode of the arm is near 4 Hz). Both beams carry
stiffness-proportional damping of 2 ms.

``tip_deflection(results)`` is what an engineer plots: the distance from the payload to where a rigid
arm at the same joint angles would put it. Before the slew it is the static sag under gravity, which
``static_sag_closed_form`` gives from Euler-Bernoulli (the two rods in series as a cantilever with
the housing and the payload, elbow drive held): 5.2 mm, which the model reaches within 0.9 % (a
finite-segment link's end turns with its last segment, whose slope is the beam's half a segment
inboard: that error falls as 1/n). The slew adds a bending swing that dies out after it.

Run it with ``python examples/flexible_manipulator.py`` (prints the sag and the largest dynamic
deflection, writes the animation ``flexible_manipulator.html`` and the plot of the tip deflection
``flexible_manipulator.png``) or ``multibody run examples/flexible_manipulator.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad

import multibody as mb

GRAVITY = 9.81
ALUMINIUM = mb.Material(E=70e9, nu=0.33, density=2700.0)
LENGTHS = (0.6, 0.5)
"""Link lengths [m], joint to joint (tip)."""
SECTIONS = (mb.Section.circle(0.020), mb.Section.circle(0.012))
"""Link cross-sections."""
ELEMENTS = 6
"""Segments of link 1, elements of link 2."""
HOUSING, PAYLOAD = 0.3, 0.2
"""Elbow housing and payload masses [kg]."""
DAMPING = 2e-3
"""Stiffness-proportional damping of both beams [s]."""
SLEW, ELBOW = np.radians(90.0), np.radians(45.0)
"""Drive angles after the move [rad]."""
MOVE_START, MOVE_END = 0.1, 0.9
"""The drives move between these times [s]."""
VERTICAL = (0.0, 0.0, 1.0)

ANALYSIS = {"analysis": "dynamics", "t_end": 2.0, "output_step": 0.01, "method": "HHT", "rtol": 1e-5}


def build() -> mb.Model:
    """The straight arm along +x at rest, its drives, housing and payload."""
    model = mb.Model("flexible_manipulator", gravity=(0.0, 0.0, -GRAVITY))
    hub = model.add(mb.RigidBody("hub", 1.0, (1e-3, 1e-3, 1e-3)))
    shoulder = model.add(
        mb.Revolute(
            "shoulder", hub.add_marker("axle", z_axis=VERTICAL), model.ground.add_marker("axle", z_axis=VERTICAL)
        )
    )
    model.add(mb.Motion("slew", shoulder, displacement=mb.Step(MOVE_START, 0.0, MOVE_END, SLEW)))
    link_1 = model.add(
        mb.FiniteSegmentBeam(
            "link_1",
            hub.add_marker("root"),
            LENGTHS[0],
            ELEMENTS,
            SECTIONS[0],
            ALUMINIUM,
            clamped=True,
            damping=DAMPING,
        )
    )
    elbow = (LENGTHS[0], 0.0, 0.0)
    housing = model.add(mb.RigidBody("housing", HOUSING, (2e-4, 2e-4, 2e-4), position=elbow))
    model.add(mb.Fixed("housing_mount", housing.add_marker("mount"), link_1.end))
    forearm = model.add(mb.RigidBody("forearm_hub", 0.05, (1e-5, 1e-5, 1e-5), position=elbow))
    elbow_joint = model.add(
        mb.Revolute("elbow", forearm.add_marker("axle", z_axis=VERTICAL), housing.add_marker("axle", z_axis=VERTICAL))
    )
    model.add(mb.Motion("elbow_drive", elbow_joint, displacement=mb.Step(MOVE_START, 0.0, MOVE_END, ELBOW)))
    link_2 = model.add(
        mb.Beam(
            "link_2",
            forearm.add_marker("root"),
            LENGTHS[1],
            ELEMENTS,
            SECTIONS[1],
            ALUMINIUM,
            clamped=True,
            damping=DAMPING,
        )
    )
    tip = (sum(LENGTHS), 0.0, 0.0)
    payload = model.add(mb.RigidBody("payload", PAYLOAD, (1e-5, 1e-5, 1e-5), position=tip))
    model.add(mb.Fixed("payload_mount", payload.add_marker("mount"), link_2.end))
    return model


def rigid_tip(results: mb.Results) -> np.ndarray:
    """(T, 3) where a rigid arm at the drives' angles (the motions' profiles) puts the tip [m]."""
    time = results.time
    shoulder = np.array([mb.Step(MOVE_START, 0.0, MOVE_END, SLEW)(t) for t in time])
    elbow = np.array([mb.Step(MOVE_START, 0.0, MOVE_END, ELBOW)(t) for t in time])
    first = LENGTHS[0] * np.column_stack([np.cos(shoulder), np.sin(shoulder), np.zeros_like(time)])
    second = LENGTHS[1] * np.column_stack([np.cos(shoulder + elbow), np.sin(shoulder + elbow), np.zeros_like(time)])
    return first + second


def tip_deflection(results: mb.Results) -> np.ndarray:
    """(T, 3) payload position less the rigid arm's tip [m]: the arm's elastic deflection at its tip."""
    return results.body("payload").position - rigid_tip(results)


def static_sag_closed_form() -> float:
    """Euler-Bernoulli tip sag [m] of the straight arm under gravity, the two rods in series clamped at
    the hub (the elbow drive holds the joint): the unit-load integral int M(x) (L - x) / EI(x) dx with
    M(x) the moment of the weights outboard of x (rods, housing at the elbow, payload at the tip; the
    forearm hub's 50 g at the elbow too)."""
    L1, L = LENGTHS[0], sum(LENGTHS)
    weight = [ALUMINIUM.density * section.area * GRAVITY for section in SECTIONS]
    stiffness = [ALUMINIUM.E * section.Iy for section in SECTIONS]
    elbow_weight = (HOUSING + 0.05) * GRAVITY

    def moment(x: float) -> float:
        rod_1 = weight[0] * max(L1 - x, 0.0) ** 2 / 2.0
        beyond = max(L1, x)
        rod_2 = weight[1] * (L - beyond) * ((L + beyond) / 2.0 - x)
        return PAYLOAD * GRAVITY * (L - x) + elbow_weight * max(L1 - x, 0.0) + rod_1 + rod_2

    return sum(
        quad(lambda x: moment(x) * (L - x) / stiffness[0 if x < L1 else 1], a, b, epsabs=0.0, epsrel=1e-12)[0]
        for a, b in ((0.0, L1), (L1, L))
    )


if __name__ == "__main__":
    import matplotlib.pyplot as plt

    model = build()
    sag = -mb.statics(model).body("payload").position[0, 2]
    print(f"static tip sag: {sag * 1e3:.2f} mm (Euler-Bernoulli {static_sag_closed_form() * 1e3:.2f} mm)")
    results = mb.dynamics(
        model, ANALYSIS["t_end"], ANALYSIS["output_step"], method=ANALYSIS["method"], rtol=ANALYSIS["rtol"]
    )
    deflection = tip_deflection(results)
    print(
        f"largest in-plane tip deflection during the slew: {np.max(np.linalg.norm(deflection[:, :2], axis=1)) * 1e3:.1f} mm"
    )
    figure, axes = plt.subplots(figsize=(7, 4))
    for component, label in zip(deflection.T, ("x", "y", "z")):
        axes.plot(results.time, component * 1e3, label=f"tip deflection {label}")
    axes.axvspan(MOVE_START, MOVE_END, color="0.9", label="drives moving")
    axes.set_xlabel("time [s]")
    axes.set_ylabel("deflection [mm]")
    axes.legend()
    figure.tight_layout()
    figure.savefig("flexible_manipulator.png", dpi=120)
    mb.animate(model, results, "flexible_manipulator.html")
