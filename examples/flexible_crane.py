"""A concrete-pump-like boom of two flexible steel tubes, lifted by drives on its hinges, with a payload.

Two boom sections, steel tubes meshed by the package as Euler-Bernoulli beams (``beam_line`` with
``mb.Section.tube``), are modal flexible bodies (``mb.FlexibleBody.from_mesh``, Craig-Bampton modes
with the two end nodes as interface): section 1 (8 m, 300/280 mm tube, 570 kg) hinges on the turret
(ground) about the world -y axis, section 2 (7 m, 250/234 mm tube, 335 kg) on the tip of section 1.
A 200 kg end hose hangs rigidly at the boom tip (a rigid body on a Fixed joint). Each hinge is driven
(``mb.Motion``): the boom starts straight out horizontally, sagging under its weight, then section
1 is raised to 40 degrees and section 2 folded to 20 degrees above the horizontal between 0.2 s and
1.7 s (ADAMS STEP profiles), and the drives hold it there until 2 s.

Released undeformed, the boom swings down into its sag, 0.29 m at the tip: the tubes bend under
their weight and the hose. The drives are stiff (motions), so the boom is a cantilever of two tubes
in series; ``tip_sag_closed_form`` gives its Euler-Bernoulli tip deflection (unit-load integral
over the stepped beam), which ``mb.statics`` reproduces up to the floating frame's geometric
nonlinearity (relative O(slope^2), 3e-4 here). While lifting, the boom's bending swings (first mode
near 1 Hz) show in the tip's path. Stiffness-proportional damping beta K takes energy out (3 % of
critical at 1 Hz, the stiff axial and torsion modes overdamped), booked in
``res.energy["dissipated"]`` beside the drives' input work ``res.work["input"]``.

Run it with ``python examples/flexible_crane.py`` (prints the sag and the energy books, writes the
animation ``flexible_crane.html`` and a plot of the hose's path ``flexible_crane.png``) or
``multibody run examples/flexible_crane.py``. The modal coordinates of each section are
``res.modal_coordinates("section_1")``.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad

import multibody as mb
from multibody.fem.beams import beam_line

GRAVITY = 9.81
STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
AXIS = np.array([0.0, -1.0, 0.0])
"""Hinge axis: angles grow from +x towards +z."""
LENGTHS = (8.0, 7.0)
"""Section lengths [m], hinge to hinge (tip)."""
SECTIONS = (mb.Section.tube(0.30, 0.28), mb.Section.tube(0.25, 0.234))
"""Tube cross-sections (outer, inner diameter [m])."""
ELEMENTS = 8
"""Beam elements per section."""
FIXED_INTERFACE_MODES = 2
"""Fixed-interface modes per section (plus the constraint modes of its two end nodes)."""
RAYLEIGH_BETA = 1e-2
"""Stiffness-proportional (Rayleigh) damping beta K [s]: damping ratio beta omega / 2 in a mode of circular frequency omega."""
PAYLOAD = 200.0
"""End hose at the tip [kg]."""
START_ANGLES = (0.0, 0.0)
"""Absolute angles of the sections above the horizontal at t = 0 [rad]."""
END_ANGLES = np.radians([40.0, 20.0])
"""Absolute angles after the lift [rad]."""
LIFT_START, LIFT_END = 0.2, 1.7
"""The drives move between these times [s]."""

ANALYSIS = {"analysis": "dynamics", "t_end": 2.0, "output_step": 0.02, "rtol": 1e-4}


def direction(angle: float) -> np.ndarray:
    return np.array([np.cos(angle), 0.0, np.sin(angle)])


def build() -> mb.Model:
    """The straight boom at rest (undeformed), its drives, and the payload."""
    model = mb.Model("flexible_crane", gravity=(0.0, 0.0, -GRAVITY))
    hinge = np.zeros(3)
    parent_marker = model.ground.add_marker("turret", z_axis=AXIS, x_axis=(1.0, 0.0, 0.0))
    sections, previous_angle = [], 0.0
    for k, (length, section, angle, end) in enumerate(zip(LENGTHS, SECTIONS, START_ANGLES, END_ANGLES)):
        along = direction(angle)
        body = model.add(
            mb.FlexibleBody.from_mesh(
                f"section_{k + 1}",
                beam_line(length, ELEMENTS, section),
                STEEL,
                n_modes=FIXED_INTERFACE_MODES,
                interface=[0, ELEMENTS],
                rayleigh=(0.0, RAYLEIGH_BETA),
                position=hinge,
                orientation=np.column_stack([along, AXIS, np.cross(along, AXIS)]),
            )
        )
        joint = model.add(
            mb.Revolute(
                f"hinge_{k + 1}",
                body.add_marker("hinge", node=0, z_axis=(0.0, 1.0, 0.0), x_axis=(1.0, 0.0, 0.0)),
                parent_marker,
            )
        )
        relative_start, relative_end = angle - previous_angle, end - (END_ANGLES[k - 1] if k else 0.0)
        model.add(
            mb.Motion(f"drive_{k + 1}", joint, displacement=mb.Step(LIFT_START, relative_start, LIFT_END, relative_end))
        )
        parent_marker = body.add_marker("tip", node=ELEMENTS, z_axis=(0.0, 1.0, 0.0), x_axis=(1.0, 0.0, 0.0))
        hinge, previous_angle = hinge + length * along, angle
        sections.append(body)
    hose = model.add(mb.RigidBody("end_hose", PAYLOAD, (2.0, 2.0, 2.0), position=hinge))
    model.add(mb.Fixed("hose_clamp", hose.add_marker("clamp"), sections[-1].add_marker("hose", node=ELEMENTS)))
    return model


def tip_sag_closed_form() -> float:
    """Static tip deflection [m] of the straight horizontal boom, a cantilever of the two tubes in series
    (the drives hold the hinges rigid), under the tubes' weight and the payload: the unit-load integral
    delta = int_0^L M(x) (L - x) / EI(x) dx, M(x) the bending moment of the loads outboard of x."""
    L1, L = LENGTHS[0], sum(LENGTHS)
    weight = [STEEL.density * section.area * GRAVITY for section in SECTIONS]  # [N/m]
    stiffness = [STEEL.E * section.Iy for section in SECTIONS]  # [N m^2] (Iy = Iz for a tube)

    def moment(x: float) -> float:
        outboard_1 = weight[0] * max(L1 - x, 0.0) ** 2 / 2.0
        beyond = max(L1, x)
        outboard_2 = weight[1] * (L - beyond) * ((L + beyond) / 2.0 - x)
        return PAYLOAD * GRAVITY * (L - x) + outboard_1 + outboard_2

    def integrand(x: float) -> float:
        return moment(x) * (L - x) / stiffness[0 if x < L1 else 1]

    return sum(quad(integrand, a, b, epsabs=0.0, epsrel=1e-12)[0] for a, b in ((0.0, L1), (L1, L)))


if __name__ == "__main__":
    model = build()
    rest = mb.statics(model)
    sag = -rest.body("end_hose").position[0, 2]  # the hose sits at the tip node
    print(f"static tip sag at the start: {sag * 1e3:.1f} mm (closed form {tip_sag_closed_form() * 1e3:.1f} mm)")
    results = mb.dynamics(model, ANALYSIS["t_end"], ANALYSIS["output_step"], rtol=ANALYSIS["rtol"])
    print(
        f"drive work {results.work['input'][-1] / 1e3:.1f} kJ, damped out {results.work['lost'][-1]:.1f} J, "
        f"{results.stats['steps']} steps"
    )
    mb.plot(results, "end_hose.position", path="flexible_crane.png")
    mb.animate(model, results, "flexible_crane.html")
