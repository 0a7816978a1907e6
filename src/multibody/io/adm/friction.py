"""The ADAMS FRICTION statement: Coulomb friction with stiction in a joint (``mb.JointFriction``).

``FRICTION/id, JOINT=id, MU_STATIC=r, MU_DYNAMIC=r, STICTION_TRANSITION_VELOCITY=r,
TRANSITION_VELOCITY_COEFFICIENT=r, MAX_STICTION_DEFORMATION=r, FRICTION_FORCE_PRELOAD=r,
FRICTION_TORQUE_PRELOAD=r, PIN_RADIUS=r | BALL_RADIUS=r, FRICTION_ARM=r,
BENDING_REFLECTION_ARM=r, REACTION_ARM=r, INPUTS=ALL | NONE | PRELOAD:REACTION_FORCE:...``

Lengths, velocities, forces and torques are converted from the dataset's units. ADAMS's default
of 1 length unit for an unset arm is kept for the arms the joint uses (pin and ball radius,
friction and reaction arms) so that a dataset means what it meant to ADAMS. Keywords this
reader does not take (MAX_FRICTION_FORCE, EFFECT, OVERLAP_DELTA, I_YOKE ...) are reported as
not simulated by the parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from multibody.model.forces.friction import FRICTION_INPUTS, JointFriction
from multibody.model.joints.revolute import Revolute
from multibody.model.joints.spherical import Spherical
from multibody.model.joints.translational import Translational

if TYPE_CHECKING:
    from multibody.io.adm.builder import _Builder as Builder
    from multibody.io.adm.parser import Statement

FRICTION_KEYWORDS: dict[str, str] = {
    "JOINT": "int",
    "MU_STATIC": "real",
    "MU_DYNAMIC": "real",
    "STICTION_TRANSITION_VELOCITY": "real",
    "TRANSITION_VELOCITY_COEFFICIENT": "real",
    "MAX_STICTION_DEFORMATION": "real",
    "FRICTION_FORCE_PRELOAD": "real",
    "FRICTION_TORQUE_PRELOAD": "real",
    "PIN_RADIUS": "real",
    "BALL_RADIUS": "real",
    "FRICTION_ARM": "real",
    "BENDING_REFLECTION_ARM": "real",
    "REACTION_ARM": "real",
    "INPUTS": "words",
}
"""The FRICTION keywords this reader takes, with their value kinds (``multibody.io.adm.keywords``)."""


def build_friction(builder: Builder, statement: Statement) -> None:
    """Add the ``JointFriction`` of a FRICTION statement to ``builder.model``."""
    argument = statement.arguments.get("JOINT")
    if argument is None:
        raise builder.fail(statement, "JOINT is required (the joint whose reaction loads the friction)")
    joint_name = builder.element("JOINT", int(argument.value), argument.line, argument.column)
    joint = builder.model.joints.get(joint_name)
    if joint is None:  # a joint type the reader does not build: already reported there
        return
    length = builder.units.factor("length")
    stiction_velocity = builder.scalar(statement, "STICTION_TRANSITION_VELOCITY", "velocity", 0.1)
    family = type(joint)
    radius_keyword = "BALL_RADIUS" if family is Spherical else "PIN_RADIUS"
    optional = {
        "pin_radius": None if family is Translational else builder.scalar(statement, radius_keyword, "length", 1.0),
        "friction_arm": builder.scalar(statement, "FRICTION_ARM", "length", 1.0) if family is Revolute else None,
        "reaction_arm": builder.scalar(statement, "REACTION_ARM", "length", 1.0) if family is Translational else None,
        "bending_reflection_arm": (
            builder.scalar(statement, "BENDING_REFLECTION_ARM", "length")
            if statement.has("BENDING_REFLECTION_ARM")
            else None
        ),
    }
    builder.model.add(
        JointFriction(
            builder.name(statement),
            joint,
            mu_static=float(builder.required(statement, "MU_STATIC")),
            mu_dynamic=float(builder.required(statement, "MU_DYNAMIC")),
            stiction_velocity=stiction_velocity,
            transition_velocity=stiction_velocity * float(statement.get("TRANSITION_VELOCITY_COEFFICIENT", 1.5)),
            max_stiction_deformation=float(statement.get("MAX_STICTION_DEFORMATION", 0.01)) * length,
            preload=builder.scalar(statement, "FRICTION_FORCE_PRELOAD", "force", 0.0),
            preload_torque=(
                0.0 if family is Translational else builder.scalar(statement, "FRICTION_TORQUE_PRELOAD", "torque", 0.0)
            ),
            inputs=_inputs(statement, optional),
            **optional,
        )
    )


def _inputs(statement: Statement, arms: dict[str, float | None]) -> tuple[str, ...]:
    """INPUTS as ``JointFriction.inputs``: ALL (the default) takes every input the joint's arms allow."""
    words = statement.get("INPUTS", ("ALL",))
    words = tuple(w.upper() for w in ((words,) if isinstance(words, str) else words))
    if "NONE" in words:
        return ()
    if "ALL" in words:
        needs = {"bending_moment": "bending_reflection_arm", "torsional_moment": "reaction_arm"}
        return tuple(word for word in FRICTION_INPUTS if word not in needs or arms[needs[word]] is not None)
    return tuple(w.lower() for w in words)
