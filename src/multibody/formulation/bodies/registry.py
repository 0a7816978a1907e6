"""Every body kind besides the rigid one, registered once: a new kind adds its ``BodyKind`` here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from multibody.formulation.bodies.cable import KIND as CABLE
from multibody.formulation.bodies.kind import BodyKind
from multibody.formulation.bodies.modal import KIND as MODAL
from multibody.formulation.bodies.rope_span import KIND as ROPE_SPAN

if TYPE_CHECKING:
    from multibody.system.system import System

KINDS: tuple[BodyKind, ...] = (
    MODAL,
    CABLE,
    ROPE_SPAN,
)
"""in the order of their coordinates after the rigid frames' in ``q`` and ``v``"""


def present_kinds(system: System) -> tuple[tuple[BodyKind, Any], ...]:
    """``(kind, group)`` for every registered kind that ``system`` has bodies of, in ``KINDS`` order;
    ``System.body_kinds`` keeps it."""
    return tuple((kind, group) for kind in KINDS if (group := getattr(system, kind.system_field)) is not None)
