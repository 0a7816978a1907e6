"""System: the frozen, numbered form of a Model that the formulation and analyses read.

Bodies are numbered 0..nb-1; index ``-1`` (the last row of every per-body array that has
``nb + 1`` rows) is the ground, so marker and element arrays can index bodies directly.
Constraint rows and force elements are stored as flat arrays grouped by kind (struct of
arrays), so each kind is evaluated in one vectorized call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from multibody.model.functions import TimeFunction
from multibody.system.layout import CoordinateLayout

if TYPE_CHECKING:
    from multibody.formulation.bodies.cable import CableBodies
    from multibody.formulation.bodies.kind import BodyKind
    from multibody.formulation.bodies.modal import ModalBodies
    from multibody.formulation.bodies.rope_span import RopeSpans
    from multibody.formulation.forces.family import ForceGroup

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
GROUND = -1

CONSTRAINT_KINDS = (
    "coincident",
    "perpendicular",
    "in_plane",
    "distance",
    "rotation_driver",
    "translation_driver",
    "constant_velocity",
    "screw",
    "rim_tangent",
    "rim_material",
    "on_cylinder",
    "groove",
)


@dataclass(frozen=True)
class ConstraintRows:
    """All scalar constraint rows, model order. Per row: the kind code (index into
    ``CONSTRAINT_KINDS``), I and J marker indices, axis indices, a parameter (distance [m]),
    the owning element index into ``System.constraint_names``, and a readable label."""

    kind: IntArray
    i_marker: IntArray
    j_marker: IntArray
    i_axis: IntArray
    j_axis: IntArray
    parameter: FloatArray
    element: IntArray
    label: tuple[str, ...]
    driver: tuple[TimeFunction | None, ...]
    """Prescribed joint coordinate f(t) of each driver row, None for other rows."""
    coordinate: IntArray | None = None
    """(m,) per row, the coordinate it reads besides its markers, counted from the first coordinate
    after the frames' (a rope span's material coordinate), -1 for none; None: no row reads one"""
    reference: FloatArray | None = None
    """(m,) the offset of that coordinate in the row [m]"""

    def __len__(self) -> int:
        return len(self.kind)

    @cached_property
    def kernel_arrays(self) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, FloatArray]:
        """``(kind, i_marker, j_marker, i_axis, j_axis, parameter)``: the rows as the compiled
        kernels take them (``multibody.formulation.constraints.row_kernels``)."""
        return (self.kind, self.i_marker, self.j_marker, self.i_axis, self.j_axis, self.parameter)

    @property
    def read_coordinates(self) -> IntArray:
        """(m,) ``coordinate`` with -1 for every row when no row reads one."""
        return np.full(len(self), -1, dtype=np.int64) if self.coordinate is None else self.coordinate

    @cached_property
    def driver_rows(self) -> tuple[int, ...]:
        """Indices of the rows with a prescribed joint coordinate."""
        return tuple(r for r, function in enumerate(self.driver) if function is not None)

    @cached_property
    def prescribed(self) -> bool:
        """Whether any row has a prescribed value that changes (a driver's function of time, or a
        coordinate it reads); if not, ``constraints.driver_values`` is zero at any time."""
        return bool(self.driver_rows) or self.coordinate is not None

    def subset(self, rows: IntArray) -> ConstraintRows:
        """The rows ``rows`` (indices), same order."""
        return ConstraintRows(
            self.kind[rows],
            self.i_marker[rows],
            self.j_marker[rows],
            self.i_axis[rows],
            self.j_axis[rows],
            self.parameter[rows],
            self.element[rows],
            tuple(self.label[r] for r in rows),
            tuple(self.driver[r] for r in rows),
            None if self.coordinate is None else self.coordinate[rows],
            None if self.reference is None else self.reference[rows],
        )


@dataclass(frozen=True)
class ContactPairs:
    """Contact pairs (see ``multibody.model.contact``): one gap row per pair, whose residual is the
    normal gap [m] and whose velocity-space Jacobian row gives the gap rate ``dg/dt = G_c v``."""

    names: tuple[str, ...]
    rows: ConstraintRows
    """one row per pair, ``rows.element`` indexes ``names``"""
    restitution: FloatArray
    """(nc,) Newton's coefficient of restitution"""
    rest_velocity: FloatArray
    """(nc,) impact speed [m/s] below which the pair settles into sustained contact"""

    def __len__(self) -> int:
        return len(self.names)


@dataclass(frozen=True)
class RedundantRow:
    """A constraint row found linearly dependent on earlier rows at the assembled configuration."""

    row: int
    element: str
    label: str
    depends_on: tuple[str, ...]

    def message(self) -> str:
        """``joint 'D': rotation about x is redundant with 'A', 'B', 'C'``."""
        others = ", ".join(f"'{name}'" for name in self.depends_on) or "earlier rows of itself"
        return f"'{self.element}': {self.label} is redundant with {others}"


@dataclass(frozen=True)
class System:
    """A compiled model: numbers only, never mutated by analyses."""

    name: str
    gravity: FloatArray
    body_names: tuple[str, ...]
    mass: FloatArray
    """(nb,) [kg] of the rigid bodies (zero for a flexible body's frame: its inertia is in ``modal``)"""
    inertia: FloatArray
    """(nb, 3, 3) about the CM, body axes [kg m^2] (zero for a flexible body's frame)"""
    marker_names: tuple[str, ...]
    """``body/marker`` per marker"""
    marker_body: IntArray
    """(nm,) body index, -1 for ground"""
    marker_position: FloatArray
    """(nm, 3) marker origin from the body CM, body axes (ground: world) [m]"""
    marker_orientation: FloatArray
    """(nm, 3, 3) ``R_BM``"""
    constraint_names: tuple[str, ...]
    """joints, primitives and motions, in model order"""
    constraint_kinds: tuple[str, ...]
    """"joint", "joint primitive" or "motion" per constraint element"""
    constraint_families: tuple[str, ...]
    """per constraint element, its family in snake case ("revolute", "at_point", "motion" ...)"""
    constraint_markers: IntArray
    """(nc, 2) I and J marker of each constraint element"""
    all_rows: ConstraintRows
    """every row, redundant ones included"""
    active: IntArray
    """indices into ``all_rows`` of the rows the analyses enforce"""
    rows: ConstraintRows
    """the active rows, ``all_rows.subset(active)``"""
    redundant: tuple[RedundantRow, ...]
    force_names: tuple[str, ...]
    force_markers: IntArray
    """(nf, 2) I and J marker per force element (J = -1 when action-only; I = -1 for an element with
    first-order states only, which loads no body)"""
    force_groups: tuple[ForceGroup, ...]
    """the force elements by family, each a struct of arrays (``multibody.formulation.forces.family``)"""
    force_attachments: tuple[IntArray, ...]
    """per force element, the markers it attaches to or reads (I and J first)"""
    force_states: tuple[slice, ...]
    """per force element, where its first-order states sit in ``x`` (empty slice: none)"""
    force_joints: tuple[IntArray, ...]
    """per force element, the constraint elements whose multipliers it reads"""
    q0: FloatArray
    """(n_positions,) input positions: per body CM (flexible: frame origin) position [m] and Euler
    parameters, then the modal coordinates of the flexible bodies (zero: undeformed)"""
    v0: FloatArray
    """(n_velocities,) input velocities: per body CM velocity (world) [m/s] and angular velocity (body)
    [rad/s], then the modal velocities"""
    position_freedom: FloatArray
    """(n_velocities,) inverse assembly weights of the position inputs (0 exact, 1 given, 1e6 unspecified)"""
    velocity_freedom: FloatArray
    """(n_velocities,) the same for velocities"""
    adjacency: tuple[tuple[int, ...], ...] = field(repr=False)
    """per coupling group (each body, then each node of the ANCF cables), the groups coupled to it
    by a constraint, a force element or a cable element (itself included)"""
    aliases: tuple[tuple[str, str], ...] = ()
    """other names of elements, (alias, element name) pairs (``Model.aliases``)"""
    contacts: ContactPairs | None = field(default=None, repr=False)
    """contact pairs, None when the model has none"""
    scene: str = field(default="", repr=False)
    """display description as JSON text (``multibody.system.scene``), empty when not compiled from a Model"""
    layout: CoordinateLayout | None = None
    """the coordinate layout (``multibody.system.layout``); set by ``compile``"""
    x0: FloatArray = field(default_factory=lambda: np.zeros(0))
    """(nx,) initial first-order states"""
    x_scale: FloatArray = field(default_factory=lambda: np.zeros(0))
    """(nx,) typical size of each first-order state (``ForceElement.state_scales``)"""
    modal: ModalBodies | None = field(default=None, repr=False)
    """the modal flexible bodies (``multibody.formulation.bodies.modal``), None when there are none"""
    cables: CableBodies | None = field(default=None, repr=False)
    """the ANCF cables (``multibody.formulation.bodies.cable``), None when there are none"""
    rope_spans: RopeSpans | None = field(default=None, repr=False)
    """the moving-node rope spans (``multibody.formulation.bodies.rope_span``; also in ``cables``, for
    their markers), None when there are none"""

    @cached_property
    def force_load_points(self) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
        """Per loaded side of every force element (the I side of each that has one, then the J side of the
        two-marker ones): the element, the marker whose body carries the load, its sign (+1 I,
        -1 J) and the marker at whose origin it acts (always the element's I marker)."""
        markers = self.force_markers
        has_i, has_j = markers[:, 0] >= 0, markers[:, 1] >= 0  # an element with states only loads no body
        element = np.concatenate([np.flatnonzero(has_i), np.flatnonzero(has_j)]).astype(np.int64)
        marker = np.concatenate([markers[has_i, 0], markers[has_j, 1]]).astype(np.int64)
        sign = np.concatenate([np.ones(int(has_i.sum())), -np.ones(int(has_j.sum()))])
        return element, marker, sign, markers[element, 0].astype(np.int64)

    def force_group(self, family: str) -> object | None:
        """The struct of arrays of force family ``family`` (its ``ForceFamily.name``), None if the
        model has no element of it."""
        return next((group.arrays for group in self.force_groups if group.family.name == family), None)

    @cached_property
    def multiplier_readers(self) -> tuple[str, ...]:
        """Names of the force elements that read the multipliers of a joint or motion."""
        return tuple(name for name, joints in zip(self.force_names, self.force_joints) if joints.size)

    @property
    def reads_multipliers(self) -> bool:
        """Whether any force element reads the multipliers of a joint or motion."""
        return bool(self.multiplier_readers)

    @property
    def n_bodies(self) -> int:
        return len(self.body_names)

    @cached_property
    def body_kinds(self) -> tuple[tuple[BodyKind, Any], ...]:
        """``(kind, group)`` of every body kind besides the rigid one that the model has, in the order
        of their coordinates (``multibody.formulation.bodies.registry.present_kinds``), found once:
        the per-step path loops over it, and over nothing for rigid bodies alone."""
        from multibody.formulation.bodies.registry import present_kinds

        return present_kinds(self)

    @property
    def rigid_only(self) -> bool:
        """Whether every body is rigid (no other body kind): the compiled rigid Newton applies."""
        return not self.body_kinds

    @cached_property
    def n_frame_positions(self) -> int:
        """Number of position coordinates of the bodies' frames (rigid blocks), before the modal ones."""
        return sum(block.nq for block in self.layout.blocks if block.kind == "rigid_body")

    @cached_property
    def n_frame_velocities(self) -> int:
        """Number of velocity coordinates of the bodies' frames (rigid blocks), before the modal ones."""
        return sum(block.nv for block in self.layout.blocks if block.kind == "rigid_body")

    @cached_property
    def n_positions(self) -> int:
        """Number of position coordinates (the layout's second-order blocks' ``nq``)."""
        return sum(block.nq for block in self.layout.blocks)

    @cached_property
    def n_velocities(self) -> int:
        """Number of velocity coordinates (the layout's second-order blocks' ``nv``)."""
        return sum(block.nv for block in self.layout.blocks)

    @property
    def n_states(self) -> int:
        """Number of first-order states ``x``."""
        return self.x0.size

    @cached_property
    def active_rows_of(self) -> tuple[IntArray, ...]:
        """Per constraint element, the indices of its active rows (into ``rows`` and ``lambda``)."""
        return tuple(np.flatnonzero(self.rows.element == k) for k in range(len(self.constraint_names)))

    @property
    def gruebler_dof(self) -> int:
        """Velocity coordinates minus the number of constraint rows (redundant ones included)."""
        return self.n_velocities - len(self.all_rows)

    @property
    def dof(self) -> int:
        """Velocity coordinates minus the rank of the constraint Jacobian."""
        return self.n_velocities - len(self.active)

    def body_index(self, name: str) -> int:
        """Index of body ``name`` (KeyError lists the bodies)."""
        try:
            return self.body_names.index(name)
        except ValueError:
            raise KeyError(f"no body '{name}'; bodies are: {', '.join(self.body_names)}") from None

    def summary(self) -> str:
        """The model summary printed by ``multibody info`` and ``run``."""
        lines = [
            (
                f"model '{self.name}': {_count(self.n_bodies, 'body', 'bodies')}, "
                f"{_count(len(self.constraint_names), 'constraint', 'constraints')} "
                f"({_count(len(self.all_rows), 'equation', 'equations')}), "
                f"{_count(len(self.force_names), 'force element', 'force elements')}"
            ),
            f"  gravity {np.round(self.gravity, 6).tolist()} m/s^2",
            f"  degrees of freedom: {self.dof} (Gruebler count {self.gruebler_dof})",
        ]
        if self.cables is not None:
            spans = set(self.rope_spans.names) if self.rope_spans is not None else set()
            for kind, wanted in (("ANCF cables", False), ("moving-node rope spans", True)):
                nodes = [
                    f"{name} {int(count)} nodes"
                    for name, count in zip(self.cables.names, self.cables.n_nodes)
                    if (name in spans) == wanted
                ]
                if nodes:
                    lines.append(f"  {kind}: {len(nodes)} ({', '.join(nodes)})")
        if self.n_states:
            owners = ", ".join(f"{b.owner} {b.nx}" for b in self.layout.blocks if b.nx)
            lines.append(f"  first-order states: {self.n_states} ({owners})")
        if self.redundant:
            lines.append(f"  {len(self.redundant)} redundant equations removed (their reactions are not unique):")
            lines += [f"    {r.message()}" for r in self.redundant]
        return "\n".join(lines)


def _count(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"
