"""Every force family, registered once: a new family adds its ``ForceFamily`` here."""

from __future__ import annotations

from multibody.formulation.forces.applied import APPLIED_LOAD
from multibody.formulation.forces.beam_element import BEAM_ELEMENT
from multibody.formulation.forces.bushing import BUSHING
from multibody.formulation.forces.contact import CONTACT
from multibody.formulation.forces.expression import STATE_DEPENDENT_LOAD
from multibody.formulation.forces.family import ForceFamily
from multibody.formulation.forces.friction import JOINT_FRICTION
from multibody.formulation.forces.hydraulic import HYDRAULIC_CYLINDER
from multibody.formulation.forces.rope import ROPE
from multibody.formulation.forces.spring_damper import SPRING_DAMPER, TORSION_SPRING
from multibody.formulation.forces.states import STATE_EQUATION
from multibody.formulation.forces.user import USER_FORCE
from multibody.model.forces.base import ForceElement

FAMILIES: tuple[ForceFamily, ...] = (
    SPRING_DAMPER,
    TORSION_SPRING,
    BUSHING,
    APPLIED_LOAD,
    STATE_DEPENDENT_LOAD,
    USER_FORCE,
    STATE_EQUATION,
    HYDRAULIC_CYLINDER,
    JOINT_FRICTION,
    CONTACT,
    ROPE,
    BEAM_ELEMENT,
)


def family_of(element: ForceElement) -> ForceFamily | None:
    """The family that takes ``element``, None if no registered family does."""
    return next((family for family in FAMILIES if isinstance(element, family.element_types)), None)
