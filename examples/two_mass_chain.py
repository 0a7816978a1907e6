"""The stiff two-mass chain of the ADAMS algorithm chapter (reference 002, section 4.5.4).

Ground - spring k1 - mass m1 - spring k2 - mass m2, along the world x-axis, each mass on a
translational joint. With k1 = 10 N/mm, k2 = 1e6 N/mm and m1 = m2 = 1 kg the chain is
physically stiff: its natural frequencies are 11.25 Hz (the masses move together on k1) and
7117.6 Hz (they beat against each other on k2). With the dampers c1 = 0.1 N s/mm and
c2 = 1e5 N s/mm it becomes numerically stiff: the high mode is damped out within microseconds
(real eigenvalues near -2e8 and -10 1/s) while the low one rings with a damping ratio of 0.35.

``build()`` is the damped chain, ``build(damped=False)`` the undamped one. Its default analysis
is a dynamic run (BDF copes with the stiffness) from mass 1 pushed at 0.1 m/s; the modes come
from ``multibody run examples/two_mass_chain.py --analysis linear``, or in Python::

    modes = mb.linearize(build()).modes()
    print(modes.table())

Units in the model are SI: 10 N/mm = 1e4 N/m, 1e6 N/mm = 1e9 N/m, 0.1 N s/mm = 100 N s/m and
1e5 N s/mm = 1e8 N s/m.
"""

from __future__ import annotations

import multibody as mb

MASS = 1.0
"""m1 = m2 [kg]."""
STIFFNESS_1, STIFFNESS_2 = 1.0e4, 1.0e9
"""k1 (ground to mass 1) and k2 (mass 1 to mass 2) [N/m]."""
DAMPING_1, DAMPING_2 = 1.0e2, 1.0e8
"""c1 and c2 [N s/m]."""
SPACING = 0.1
"""Free length of each spring and rest distance between the masses [m]."""
PUSH = 0.1
"""Initial velocity of mass 1 along x [m/s] in the dynamic run."""

ANALYSIS = {"analysis": "dynamics", "t_end": 0.5, "output_step": 0.005, "method": "SI2", "rtol": 1e-6}

ALONG_X = (1.0, 0.0, 0.0)


def build(damped: bool = True) -> mb.Model:
    """The chain at rest at its equilibrium (springs at free length), mass 1 moving at ``PUSH``."""
    model = mb.Model("two_mass_chain" if damped else "two_mass_chain_undamped", gravity=(0.0, 0.0, 0.0))
    small = 1e-3  # the masses cannot rotate (translational joints); their inertia only has to be valid
    m1 = model.add(
        mb.RigidBody("m1", MASS, (small, small, small), position=(SPACING, 0.0, 0.0), velocity=(PUSH, 0.0, 0.0))
    )
    m2 = model.add(mb.RigidBody("m2", MASS, (small, small, small), position=(2.0 * SPACING, 0.0, 0.0)))
    for body in (m1, m2):
        model.add(
            mb.Translational(
                f"slide_{body.name}",
                body.add_marker("slide", z_axis=ALONG_X),
                model.ground.add_marker(f"slide_{body.name}", body.position, z_axis=ALONG_X),
            )
        )
    anchor = model.ground.add_marker("anchor")
    c1, c2 = (DAMPING_1, DAMPING_2) if damped else (0.0, 0.0)
    model.add(mb.SpringDamper("k1", m1.add_marker("centre"), anchor, STIFFNESS_1, c1, SPACING))
    model.add(mb.SpringDamper("k2", m2.add_marker("centre"), m1.marker("centre"), STIFFNESS_2, c2, SPACING))
    return model
