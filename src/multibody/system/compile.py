"""Model -> System: number everything, group elements by kind, find redundant constraints."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from multibody.formulation import frames as kinematics
from multibody.formulation.bodies import rigid
from multibody.formulation.bodies.cable import CableBodies, element_integrals, hermite_shapes
from multibody.formulation.bodies.modal import ModalBodies
from multibody.formulation.bodies.rope_span import STORED_AFTER, STORED_BEFORE, WRAP, RopeSpans
from multibody.formulation.compilation import announce_first_compilation
from multibody.formulation.constraints import JacobianAssembler, position_level
from multibody.formulation.forces.family import ForceGroup, GroupContext
from multibody.formulation.forces.registry import family_of
from multibody.model.body import MovingBody, RigidBody
from multibody.model.cable import NODE_WIDTH, AncfCable, CableMarker
from multibody.model.element import ModelError
from multibody.model.flexible import FlexibleBody, FlexibleMarker
from multibody.model.functions import TimeFunction
from multibody.model.joints.base import AXIS_INDEX, Joint
from multibody.model.joints.coupler import Screw
from multibody.model.joints.primitives import Distance
from multibody.model.marker import Marker
from multibody.model.model import Model
from multibody.model.motion import Motion
from multibody.model.rope_span import MovingNodeSpan
from multibody.solve.linear import dependent_rows
from multibody.solve.threads import single_threaded
from multibody.spatial import rotations
from multibody.system.drivers import IntegratedAcceleration, IntegratedVelocity
from multibody.system.layout import CoordinateLayout
from multibody.system.scene import scene_json
from multibody.system.system import (
    CONSTRAINT_KINDS,
    ConstraintRows,
    ContactPairs,
    RedundantRow,
    System,
)

UNSPECIFIED_FREEDOM = 1e6
"""Inverse assembly weight of an initial condition the user did not give (ADAMS: weight 1e-6)."""


class RedundantConstraintWarning(UserWarning):
    """Constraint equations that repeat others were removed; their reactions are not unique."""


def compile_model(model: Model) -> System:
    """Freeze ``model`` into a ``System`` (see ``multibody.system.system``)."""
    announce_first_compilation("cartesian_kernel", "evaluate_rigid")
    bodies = list(model.bodies.values())
    cables = list(model.cables.values())
    body_index = {id(body): k for k, body in enumerate(bodies)}
    body_index[id(model.ground)] = -1
    # A cable has no reference frame: its markers are placed in world axes, as the ground's are.
    body_index.update({id(cable): -1 for cable in cables})
    markers: list[Marker] = [*model.ground.markers.values()] + [
        m for b in [*bodies, *cables] for m in b.markers.values()
    ]
    marker_index = {id(m): k for k, m in enumerate(markers)}

    flexible = [b for b in bodies if isinstance(b, FlexibleBody)]
    n_modes = sum(b.modes.shape[1] for b in flexible)
    n_cable = sum(c.initial_coordinates.size for c in cables)
    q0 = np.concatenate(
        [np.hstack([b.position, rotations.euler_parameters_from_rotation(b.orientation)]) for b in bodies]
        + [np.zeros(n_modes)]
        + [c.initial_coordinates for c in cables]
    )
    v0 = np.concatenate(
        [np.hstack([b.velocity, b.orientation.T @ b.angular_velocity]) for b in bodies]
        + [np.zeros(n_modes)]
        + [c.initial_rates for c in cables]
    )
    # where each cable's coordinates start, counted from the first coordinate after the frames'
    tail_offset = dict(
        zip(map(id, cables), n_modes + np.r_[0, np.cumsum([c.initial_coordinates.size for c in cables])])
    )
    position_freedom, velocity_freedom = _assembly_freedoms(bodies)
    # The undeformed shape is a given initial condition of a flexible body's modal coordinates and
    # of a cable's nodes.
    position_freedom, velocity_freedom = (
        np.r_[position_freedom, np.ones(n_modes + n_cable)],
        np.r_[velocity_freedom, np.ones(n_modes + n_cable)],
    )

    constraints: list[Joint | Motion] = model.constraints()
    _check_cable_rows(constraints)
    system = System(
        name=model.name,
        gravity=model.gravity.copy(),
        body_names=tuple(b.name for b in bodies),
        # A flexible body's frame is a rigid block without inertia of its own: the modal kind carries it.
        mass=np.array([b.mass if isinstance(b, RigidBody) else 0.0 for b in bodies]),
        inertia=np.array([b.inertia if isinstance(b, RigidBody) else np.zeros((3, 3)) for b in bodies]).reshape(
            -1, 3, 3
        ),
        marker_names=tuple(m.full_name for m in markers),
        marker_body=np.array([body_index[id(m.body)] for m in markers], dtype=np.int64),
        marker_position=np.array([m.position for m in markers]).reshape(-1, 3),
        marker_orientation=np.array([m.orientation for m in markers]).reshape(-1, 3, 3),
        constraint_names=tuple(c.name for c in constraints),
        constraint_kinds=tuple(c.kind for c in constraints),
        constraint_families=tuple(c.family for c in constraints),
        constraint_markers=np.array(
            [[marker_index[id(c.i_marker)], marker_index[id(c.j_marker)]] for c in constraints], dtype=np.int64
        ).reshape(-1, 2),
        all_rows=_constraint_rows(constraints, marker_index, tail_offset),
        active=np.zeros(0, dtype=np.int64),
        rows=_constraint_rows([], marker_index, tail_offset),
        redundant=(),
        force_names=tuple(model.forces),
        force_markers=np.array(
            [
                [-1 if m is None else marker_index[id(m)] for m in (f.i_marker, f.j_marker)]
                for f in model.forces.values()
            ],
            dtype=np.int64,
        ).reshape(-1, 2),
        **_force_groups(model, marker_index, bodies, cables),
        modal=_modal_bodies(bodies, markers, len(bodies)),
        cables=_cable_bodies(cables, markers, q0.size - n_cable, v0.size - n_cable, model.gravity),
        rope_spans=_rope_spans(model, cables, marker_index, body_index, q0.size - n_cable, v0.size - n_cable),
        q0=q0,
        v0=v0,
        position_freedom=position_freedom,
        velocity_freedom=velocity_freedom,
        adjacency=_adjacency(model, body_index, len(bodies), cables),
        aliases=tuple(model.aliases.items()),
        contacts=_contact_pairs(model, marker_index),
    )
    # Velocity and acceleration motions start from the joint coordinate in the input configuration.
    drivers = _driver_functions(system, constraints)
    all_rows = dataclasses.replace(system.all_rows, driver=drivers)
    system = dataclasses.replace(system, all_rows=all_rows, active=np.arange(len(all_rows)), rows=all_rows)
    system = _settle_redundancy_assembled(system)
    return dataclasses.replace(system, scene=scene_json(model, system))


def _check_cable_rows(constraints: list[Joint | Motion]) -> None:
    """A cable marker has no torsion: a constraint may use its origin and its x-axis (the tangent)
    only. ModelError names the constraint that uses more."""
    x_axis = AXIS_INDEX["x"]
    for constraint in constraints:
        for side, marker in (("I", constraint.i_marker), ("J", constraint.j_marker)):
            if not isinstance(marker, CableMarker):
                continue
            for row in constraint.constraint_rows():
                axis = row.i_axis if side == "I" else row.j_axis
                uses_axes = row.kind in ("rotation_driver", "translation_driver", "constant_velocity", "screw") or (
                    row.kind == "perpendicular" or (row.kind == "in_plane" and side == "J")
                )
                if uses_axes and not (row.kind in ("perpendicular", "in_plane") and axis == x_axis):
                    raise ModelError(
                        f"{constraint.describe()}: its {side} marker {marker.describe()} is on an ANCF cable, which "
                        f"has no torsion: only its origin and x-axis (the tangent) can be held, and the row "
                        f"'{row.label}' needs more; use a Spherical joint or a CableClamp, or a geometrically "
                        "exact Beam where the rotation matters"
                    )


def _settle_redundancy_assembled(system: System) -> System:
    """``system`` with the redundant rows judged at the assembled configuration removed (warns)."""
    # The analysis layer sits above this one: imported here, when first needed.
    from multibody.analysis.assemble import assembled_positions
    from multibody.analysis.errors import AssemblyError

    # One BLAS thread: the dense blocks are small, and threads contending for the cores cost 10-100x.
    with single_threaded():
        try:
            system, _ = assembled_positions(system)
        except AssemblyError:  # the analyses report it; meanwhile, judged at the input configuration
            system = settle_redundancy(system, kinematics.normalize_positions(system, system.q0))
    warn_redundancy(system, stacklevel=4)
    return system


def _assembly_freedoms(bodies: list[MovingBody]) -> tuple[np.ndarray, np.ndarray]:
    """Inverse weights per velocity-space coordinate: 0 exact, 1 given, large when unspecified."""
    position, velocity = [], []
    for body in bodies:
        position += [_freedom(body, c, "position") for c in ("x", "y", "z")] + [
            _freedom(body, "orientation", "orientation")
        ] * 3
        velocity += [_freedom(body, c, "velocity") for c in ("vx", "vy", "vz")] + [
            _freedom(body, "angular_velocity", "angular_velocity")
        ] * 3
    return np.array(position), np.array(velocity)


def _freedom(body: MovingBody, component: str, input_name: str) -> float:
    """Inverse assembly weight of one initial-condition component of ``body``."""
    if component in body.exact or input_name in body.exact:
        return 0.0
    return 1.0 if body.given[input_name] else UNSPECIFIED_FREEDOM


def _constraint_rows(constraints: list, marker_index: dict[int, int], tail_offset: dict[int, int]) -> ConstraintRows:
    """The rows of ``constraints``; ``tail_offset``: where each cable's coordinates start after the
    frames' (for the rows that read a rope span's material coordinate)."""
    kind, i_marker, j_marker, i_axis, j_axis, parameter, element, label = ([] for _ in range(8))
    coordinate, reference = [], []
    for c_index, constraint in enumerate(constraints):
        for row in constraint.constraint_rows():
            kind.append(CONSTRAINT_KINDS.index(row.kind))
            i_marker.append(marker_index[id(constraint.i_marker)])
            j_marker.append(marker_index[id(constraint.j_marker)])
            driver = row.kind.endswith("_driver")
            i_axis.append(AXIS_INDEX["x"] if row.kind == "rotation_driver" else row.i_axis)
            j_axis.append(AXIS_INDEX["z"] if driver else row.j_axis)
            parameter.append(
                constraint.distance
                if isinstance(constraint, Distance)
                else constraint.pitch
                if isinstance(constraint, Screw)
                else row.parameter
            )
            element.append(c_index)
            label.append(row.label)
            owner = row.coordinate_owner
            # a span's material coordinates are the last two of its block
            coordinate.append(
                -1 if owner is None else tail_offset[id(owner)] + owner.initial_coordinates.size - 2 + row.coordinate
            )
            reference.append(row.reference)
    return ConstraintRows(
        kind=np.array(kind, dtype=np.int64),
        i_marker=np.array(i_marker, dtype=np.int64),
        j_marker=np.array(j_marker, dtype=np.int64),
        i_axis=np.array(i_axis, dtype=np.int64),
        j_axis=np.array(j_axis, dtype=np.int64),
        parameter=np.array(parameter, dtype=float),
        element=np.array(element, dtype=np.int64),
        label=tuple(label),
        driver=(None,) * len(kind),
        coordinate=np.array(coordinate, dtype=np.int64) if any(c >= 0 for c in coordinate) else None,
        reference=np.array(reference, dtype=float) if any(c >= 0 for c in coordinate) else None,
    )


def _driver_functions(system: System, constraints: list) -> tuple[TimeFunction | None, ...]:
    """The prescribed coordinate f(t) of every driver row (None for the other rows)."""
    frames = kinematics.pose(system, system.q0, 0.0)
    motion = kinematics.twist(system, frames, system.v0)
    drivers: list[TimeFunction | None] = []
    for row_element in system.all_rows.element:
        constraint = constraints[row_element]
        if not isinstance(constraint, Motion):
            drivers.append(None)
            continue
        i, j = system.constraint_markers[row_element]
        R_I, R_J = frames.R_WM[i], frames.R_WM[j]
        d = frames.p_WM_W[i] - frames.p_WM_W[j]
        if constraint.coordinate == "rotation":
            initial = float(np.arctan2(R_I[:, 0] @ R_J[:, 1], R_I[:, 0] @ R_J[:, 0]))
            w = motion.w_WB_W[system.marker_body]
            initial_rate = float(R_J[:, 2] @ (w[i] - w[j]))
        else:
            initial = float(R_J[:, 2] @ d)
            w_j = motion.w_WB_W[system.marker_body[j]]
            initial_rate = float(R_J[:, 2] @ (motion.v_WM_W[i] - motion.v_WM_W[j] - np.cross(w_j, d)))
        if constraint.level == "displacement":
            drivers.append(constraint.function)
        elif constraint.level == "velocity":
            drivers.append(IntegratedVelocity(constraint.function, initial))
        else:
            drivers.append(IntegratedAcceleration(constraint.function, initial, initial_rate))
    return tuple(drivers)


def _force_groups(
    model: Model, marker_index: dict[int, int], bodies: list[MovingBody], cables: list[AncfCable]
) -> dict:
    """The force elements grouped by family (``multibody.formulation.forces.registry``), what each
    element reads, the coordinate layout (every body's frame, the flexible bodies' modal blocks, then
    the first-order states of the elements that carry them), the initial states and their scales."""
    forces = list(model.forces.values())
    constraint_index = {id(c): k for k, c in enumerate(model.constraints())}
    with_states = [(f.name, f.initial_states.size) for f in forces if f.initial_states.size]
    frames = [("rigid_body", b.name, rigid.POSITION_WIDTH, rigid.VELOCITY_WIDTH) for b in bodies]
    modes = [("modal", b.name, b.modes.shape[1], b.modes.shape[1]) for b in bodies if isinstance(b, FlexibleBody)]
    nodes = [("ancf_cable", c.name, c.initial_coordinates.size, c.initial_coordinates.size) for c in cables]
    layout = CoordinateLayout.build(frames + modes + nodes, with_states)
    state_slices = {name: layout.states_of(name) for name, _ in with_states}
    context = GroupContext(
        marker=lambda m: marker_index[id(m)],
        constraint=lambda c: constraint_index[id(c)],
        states=lambda f: state_slices.get(f.name, slice(0, 0)),
    )
    members: dict[str, list] = {}
    families = {}
    for k, element in enumerate(forces):
        family = family_of(element)
        if family is None:
            raise ModelError(
                f"{element.describe()}: no force family takes a {type(element).__name__}; "
                "derive it from a registered element class or register its family"
            )
        families[family.name] = family
        members.setdefault(family.name, []).append((k, element))
    return {
        "force_groups": tuple(
            ForceGroup(family, family.group(members[name], context)) for name, family in families.items()
        ),
        "force_attachments": tuple(
            np.array([marker_index[id(m)] for m in f.attached_markers()], dtype=np.int64) for f in forces
        ),
        "force_states": tuple(context.states(f) for f in forces),
        "force_joints": tuple(np.array([context.constraint(j) for j in f.read_joints], dtype=np.int64) for f in forces),
        "layout": layout,
        "x0": np.concatenate([f.initial_states for f in forces if f.initial_states.size] or [np.zeros(0)]),
        "x_scale": np.concatenate([f.state_scales for f in forces if f.initial_states.size] or [np.zeros(0)]),
    }


def _cable_bodies(
    cables: list[AncfCable], markers: list[Marker], q_start: int, v_start: int, gravity: np.ndarray
) -> CableBodies | None:
    """The ANCF cables (``multibody.formulation.bodies.cable``), None when the model has none. Their
    coordinates follow the modal ones in ``q`` and ``v``, in model order; ``gravity`` [m/s^2] goes
    into their dead loads."""
    if not cables:
        return None
    counts = np.array([c.initial_coordinates.size for c in cables], dtype=np.int64)
    q_offset = q_start + np.r_[0, np.cumsum(counts)[:-1]]
    v_offset = v_start + np.r_[0, np.cumsum(counts)[:-1]]
    # the elements this kind integrates: a moving-node span's mass, loads and stiffness are its own
    # kind's (``_rope_spans``), only its markers are this kind's
    elastic = [(k, c) for k, c in enumerate(cables) if not isinstance(c, MovingNodeSpan)]

    def per_element(values: list[np.ndarray], shape: tuple[int, ...] = ()) -> np.ndarray:
        return np.concatenate(values) if values else np.zeros((0, *shape))

    element_cable = per_element([np.full(c.n_elements, k) for k, c in elastic]).astype(np.int64)
    first = per_element([NODE_WIDTH * np.arange(c.n_elements) for _, c in elastic]).astype(np.int64)
    local = first[:, None] + np.arange(2 * NODE_WIDTH)
    length = per_element([c.lengths for _, c in elastic])
    mass_per_length = per_element([np.full(c.n_elements, c.mass_per_length) for _, c in elastic])
    element_mass, _ = element_integrals(length, mass_per_length)
    _, load_moment = element_integrals(length, np.ones_like(length))  # L int h dxi per element [m]
    line_load = per_element([np.tile(c.line_load, (c.n_elements, 1)) for _, c in elastic], (3,))
    dead_load = mass_per_length[:, None] * gravity + line_load  # [N/m] per element
    on_cable = [(k, m) for k, m in enumerate(markers) if isinstance(m, CableMarker)]
    cable_of = {id(c): k for k, c in enumerate(cables)}
    owner = np.array([cable_of[id(m.body)] for _, m in on_cable], dtype=np.int64)
    marker_local = np.array([NODE_WIDTH * m.element + np.arange(2 * NODE_WIDTH) for _, m in on_cable]).reshape(
        -1, 2 * NODE_WIDTH
    )
    shapes = [hermite_shapes(m.xi, float(m.body.lengths[m.element])) for _, m in on_cable]
    slot = np.full(len(markers), -1, dtype=np.int64)
    slot[[k for k, _ in on_cable]] = np.arange(len(on_cable))
    return CableBodies(
        names=tuple(c.name for c in cables),
        q_offset=q_offset,
        v_offset=v_offset,
        count=counts,
        n_nodes=np.array([c.n_elements + 1 for c in cables], dtype=np.int64),
        shortest_element=np.array([c.lengths.min() for c in cables]),
        element_positions=(q_offset[element_cable][:, None] + local).astype(np.int64),
        element_velocities=(v_offset[element_cable][:, None] + local).astype(np.int64),
        length=length,
        axial_stiffness=per_element([np.full(c.n_elements, c.axial_stiffness) for _, c in elastic]),
        bending_stiffness=per_element([np.full(c.n_elements, c.bending_stiffness) for _, c in elastic]),
        damping=per_element([np.full(c.n_elements, c.damping) for _, c in elastic]),
        element_mass=element_mass,
        element_dead_load=np.einsum("ki,ka->kia", load_moment, dead_load).reshape(-1, 2 * NODE_WIDTH),
        marker=np.array([k for k, _ in on_cable], dtype=np.int64),
        marker_positions=(q_offset[owner][:, None] + marker_local).astype(np.int64),
        marker_velocities=(v_offset[owner][:, None] + marker_local).astype(np.int64),
        marker_shapes=np.array([h for h, _, _ in shapes]).reshape(-1, 4),
        marker_slopes=np.array([dh for _, dh, _ in shapes]).reshape(-1, 4),
        slot=slot,
    )


def _rope_spans(
    model: Model,
    cables: list[AncfCable],
    marker_index: dict[int, int],
    body_index: dict[int, int],
    q_start: int,
    v_start: int,
) -> RopeSpans | None:
    """The moving-node rope spans among the cables and the pulleys they wrap
    (``multibody.formulation.bodies.rope_span``), None when there are none; ``q_start``, ``v_start``:
    where the cables' coordinates start."""
    counts = np.array([c.initial_coordinates.size for c in cables], dtype=np.int64)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    start_of = {id(c): int(start) for start, c in zip(starts, cables)}
    spans = [(start, c) for start, c in zip(starts, cables) if isinstance(c, MovingNodeSpan)]
    if not spans:
        return None
    nodes = np.concatenate(
        [start + NODE_WIDTH * np.arange(c.n_elements)[:, None] + np.arange(2 * NODE_WIDTH) for start, c in spans]
    )
    ends = np.concatenate(
        [np.tile(start + c.initial_coordinates.size - 2 + np.arange(2), (c.n_elements, 1)) for start, c in spans]
    )

    def per_element(values: list[float]) -> np.ndarray:
        return np.concatenate([np.full(c.n_elements, value) for (_, c), value in zip(spans, values)])

    return RopeSpans(
        names=tuple(c.name for _, c in spans),
        node_positions=(q_start + nodes).astype(np.int64),
        node_velocities=(v_start + nodes).astype(np.int64),
        end_positions=(q_start + ends).astype(np.int64),
        end_velocities=(v_start + ends).astype(np.int64),
        element_index=np.concatenate([np.arange(c.n_elements) for _, c in spans]).astype(np.int64),
        element_count=per_element([c.n_elements for _, c in spans]).astype(np.int64),
        mass_per_length=per_element([c.mass_per_length for _, c in spans]),
        axial_stiffness=per_element([c.axial_stiffness for _, c in spans]),
        damping=per_element([c.rope_damping for _, c in spans]),
        smoothing=per_element([c.smoothing for _, c in spans]),
        gravity=model.gravity.copy(),
        span=np.concatenate([np.full(c.n_elements, k) for k, (_, c) in enumerate(spans)]).astype(np.int64),
        diameter=np.array([c.diameter for _, c in spans], dtype=float),
        **_rim_arcs(model, start_of, marker_index, body_index, q_start),
        **_sheave_frictions(model, start_of, marker_index, body_index, q_start),
    )


def _sheave_frictions(
    model: Model, start_of: dict[int, int], marker_index: dict[int, int], body_index: dict[int, int], q_start: int
) -> dict[str, np.ndarray]:
    """``RopeSpans``' arrays of the pulleys with belt friction on the moving-node ropes (their rings,
    ``multibody.formulation.bodies.rope_span.add_sheave_friction``)."""
    frictions = [
        (ring_axle, marker, mu, slip_speed, rim_offset + place, rope.rims[place])
        for rim_offset, rope in zip(np.cumsum([0] + [len(r.rims) for r in model.ropes.values()]), model.ropes.values())
        for ring_axle, marker, mu, slip_speed, place in rope.sheave_frictions
    ]

    def slope(span: MovingNodeSpan, end: int) -> list[int]:
        return list(q_start + start_of[id(span)] + NODE_WIDTH * span.n_elements * end + 3 + np.arange(3))

    return {
        "friction_ring": np.array([body_index[id(a.body)] for a, *_ in frictions], dtype=np.int64),
        "friction_wheel": np.array([body_index[id(m.body)] for _, m, *_ in frictions], dtype=np.int64),
        "friction_axle": np.array([marker_index[id(a)] for a, *_ in frictions], dtype=np.int64),
        "friction_arc": np.array([arc for *_, arc, _ in frictions], dtype=np.int64),
        "friction_radius": np.array([rim[1] for *_, rim in frictions], dtype=float),
        "friction_coefficient": np.array([mu for _, _, mu, *_ in frictions], dtype=float),
        "friction_slip_speed": np.array([speed for _, _, _, speed, *_ in frictions], dtype=float),
        "friction_stiffness": np.array([rim[4].axial_stiffness for *_, rim in frictions], dtype=float),
        "friction_in": np.array([slope(rim[4], 1) for *_, rim in frictions], dtype=np.int64).reshape(-1, 3),
        "friction_out": np.array([slope(rim[5], 0) for *_, rim in frictions], dtype=np.int64).reshape(-1, 3),
    }


def _rim_arcs(
    model: Model, start_of: dict[int, int], marker_index: dict[int, int], body_index: dict[int, int], q_start: int
) -> dict[str, np.ndarray]:
    """``RopeSpans``' arrays of the rope on the rims of the moving-node ropes: each pulley's wrap, then
    each winch's stored rope (``multibody.formulation.bodies.rope_span.rim_arcs``)."""
    rims = [rim for rope in model.ropes.values() for rim in rope.rims]
    drums = [drum for rope in model.ropes.values() for drum in rope.drums]

    def node(span: MovingNodeSpan, end: int) -> np.ndarray:
        return q_start + start_of[id(span)] + NODE_WIDTH * span.n_elements * end + np.arange(3)

    def material(span: MovingNodeSpan, end: int) -> int:
        return q_start + start_of[id(span)] + span.initial_coordinates.size - 2 + end

    wheels = [(marker, radius, sense) for marker, radius, sense, *_ in [*rims, *drums]]
    # a winch at the start keeps the rope before its contact: more stored as its material coordinate grows
    kinds = [WRAP] * len(rims) + [STORED_BEFORE if end == 0 else STORED_AFTER for *_, end, _, _ in drums]
    return {
        "arc_marker": np.array([marker_index[id(marker)] for marker, *_ in wheels], dtype=np.int64),
        "arc_body": np.array([body_index[id(marker.body)] for marker, *_ in wheels], dtype=np.int64),
        "arc_radius": np.array([radius for _, radius, *_ in wheels], dtype=float),
        "arc_sense": np.array([sense for _, _, sense in wheels], dtype=float),
        # the rope keeps its initial stretch on a wheel: less rest length per radian by that
        "arc_material_per_radian": np.array(
            [radius / stretch for _, radius, _, stretch, *_ in rims]
            + [per_radian / stretch for _, _, _, stretch, *_, per_radian in drums],
            dtype=float,
        ),
        "arc_mass_per_radian": np.array(
            [a.mass_per_length * radius / stretch for _, radius, _, stretch, a, _ in rims]
            + [span.mass_per_length * per_radian / stretch for _, _, _, stretch, span, _, _, per_radian in drums],
            dtype=float,
        ),
        "arc_kind": np.array(kinds, dtype=np.int64),
        "arc_first": np.array(
            [node(a, 1) for *_, a, _ in rims] + [node(span, end) for *_, span, end, _, _ in drums], dtype=np.int64
        ).reshape(-1, 3),
        "arc_second": np.array(
            [node(b, 0) for *_, b in rims] + [node(span, end) for *_, span, end, _, _ in drums], dtype=np.int64
        ).reshape(-1, 3),
        "arc_material": np.array(
            [-1] * len(rims) + [material(span, end) for *_, span, end, _, _ in drums], dtype=np.int64
        ),
        # stored = stored_length + kind * (s - s(0)), kind +1 before the contact, -1 after it
        "arc_stored": np.array(
            [0.0] * len(rims)
            + [
                stored - kind * span.material_ends[end]
                for (*_, span, end, stored, _), kind in zip(drums, kinds[len(rims) :])
            ],
            dtype=float,
        ),
    }


def _modal_bodies(bodies: list[MovingBody], markers: list[Marker], n_bodies: int) -> ModalBodies | None:
    """The modal bodies (``multibody.formulation.bodies.modal``), None when the model has none. Their
    modal coordinates follow every body's frame block in ``q`` and ``v``, in model order."""
    flexible = [(k, b) for k, b in enumerate(bodies) if isinstance(b, FlexibleBody)]
    if not flexible:
        return None
    count = np.array([b.modes.shape[1] for _, b in flexible], dtype=np.int64)
    start = np.r_[0, np.cumsum(count)[:-1]].astype(np.int64)
    owner_of = {id(b): n for n, (_, b) in enumerate(flexible)}
    on_modal = [(k, m) for k, m in enumerate(markers) if isinstance(m, FlexibleMarker)]
    slot = np.full(len(markers), -1, dtype=np.int64)
    slot[[k for k, _ in on_modal]] = np.arange(len(on_modal))
    owner = np.array([owner_of[id(m.body)] for _, m in on_modal], dtype=np.int64)
    most = int(count.max())

    def padded(offset: int) -> np.ndarray:
        """(nk, most) each marker's body's modal coordinate indices from ``offset``, 0 past its count."""
        index = np.zeros((len(on_modal), most), dtype=np.int64)
        for k, n in enumerate(owner):
            index[k, : count[n]] = offset + start[n] + np.arange(count[n])
        return index

    def padded_modes(attribute: str) -> np.ndarray:
        """(nk, 3, most) the markers' mode matrices, zero past each body's count."""
        modes = np.zeros((len(on_modal), 3, most))
        for k, (_, m) in enumerate(on_modal):
            modes[k, :, : count[owner[k]]] = getattr(m, attribute)
        return modes

    return ModalBodies(
        names=tuple(b.name for _, b in flexible),
        frame=np.array([k for k, _ in flexible], dtype=np.int64),
        q_offset=rigid.POSITION_WIDTH * n_bodies + start,
        v_offset=rigid.VELOCITY_WIDTH * n_bodies + start,
        count=count,
        invariants=tuple(b.invariants for _, b in flexible),
        stiffness=tuple(b.modal_stiffness for _, b in flexible),
        damping=tuple(b.modal_damping for _, b in flexible),
        spin_stiffness=tuple(b.geometric_stiffness.get("spin", np.zeros_like(b.modal_stiffness)) for _, b in flexible),
        spin_axis=np.array([np.zeros(3) if b.spin_axis is None else b.spin_axis for _, b in flexible]),
        marker=np.array([k for k, _ in on_modal], dtype=np.int64),
        marker_frame=np.array([k for k, _ in flexible], dtype=np.int64)[owner],
        marker_positions=padded(rigid.POSITION_WIDTH * n_bodies),
        marker_velocities=padded(rigid.VELOCITY_WIDTH * n_bodies),
        translation_modes=padded_modes("translation_modes"),
        rotation_modes=padded_modes("rotation_modes"),
        slot=slot,
    )


def _contact_pairs(model: Model, marker_index: dict[int, int]) -> ContactPairs:
    """One gap row per contact pair: ``in_plane`` along z_J or ``distance`` less the radii."""
    contacts = list(model.contacts.values())
    count = len(contacts)
    rows = ConstraintRows(
        kind=np.array([CONSTRAINT_KINDS.index(c.gap_kind) for c in contacts], dtype=np.int64),
        i_marker=np.array([marker_index[id(c.i_marker)] for c in contacts], dtype=np.int64),
        j_marker=np.array([marker_index[id(c.j_marker)] for c in contacts], dtype=np.int64),
        i_axis=np.full(count, -1, dtype=np.int64),
        j_axis=np.full(count, AXIS_INDEX["z"], dtype=np.int64),
        parameter=np.array([c.gap_offset for c in contacts], dtype=float),
        element=np.arange(count, dtype=np.int64),
        label=("normal gap",) * count,
        driver=(None,) * count,
    )
    return ContactPairs(
        names=tuple(c.name for c in contacts),
        rows=rows,
        restitution=np.array([c.restitution for c in contacts], dtype=float),
        rest_velocity=np.array([c.rest_velocity for c in contacts], dtype=float),
    )


def _adjacency(
    model: Model, body_index: dict[int, int], n_bodies: int, cables: list[AncfCable]
) -> tuple[tuple[int, ...], ...]:
    """Coupling groups (each body, then each cable node) and the groups each is coupled to."""
    first_node, n_groups = {}, n_bodies
    for cable in cables:
        first_node[id(cable)] = n_groups
        # a moving-node span's material coordinates are one more group, after its nodes
        n_groups += cable.n_elements + 1 + isinstance(cable, MovingNodeSpan)
    neighbours = [{g} for g in range(n_groups)]
    for cable in cables:
        first = first_node[id(cable)]
        for k in range(cable.n_elements):
            pair = {first + k, first + k + 1}
            for g in pair:
                neighbours[g] |= pair
        if isinstance(cable, MovingNodeSpan):  # its ends' material coordinates enter every element
            span = set(range(first, first + cable.n_elements + 2))
            for g in span:
                neighbours[g] |= span

    def groups_of(marker: Marker) -> set[int]:
        if isinstance(marker, CableMarker):
            first = first_node[id(marker.body)]
            ends = {first + marker.body.n_elements + 1} if isinstance(marker.body, MovingNodeSpan) else set()
            return {first + marker.element, first + marker.element + 1} | ends
        return {body_index[id(marker.body)]} - {-1}

    for element in [*model.constraints(), *model.forces.values(), *model.contacts.values()]:
        groups = set().union(*(groups_of(m) for m in element.attached_markers()))
        for g in groups:
            neighbours[g] |= groups
    return tuple(tuple(sorted(n)) for n in neighbours)


def settle_redundancy(system: System, q: np.ndarray, t: float = 0.0) -> System:
    """``system`` with the rows that are dependent on earlier rows at positions ``q`` removed
    (``system`` itself when the set of removed rows does not change).

    Judge at an assembled configuration (``multibody.analysis.assemble.assembled_positions``
    does): at an input configuration at a dead centre an independent row can look redundant.
    One sparse rank-revealing factorization of the constraint Jacobian at ``q`` names the rows
    and the elements they repeat (``multibody.solve.linear.dependent_rows``).
    """
    if len(system.all_rows) == 0:
        return system
    frames = kinematics.pose(system, q, t)
    _, jacobian, _ = position_level(system, system.all_rows, frames)
    G = JacobianAssembler(system, system.all_rows, sparse=True).assemble(frames, jacobian)
    group_of_column = kinematics.column_groups(system)
    names = system.constraint_names
    element_of = system.all_rows.element
    redundant = tuple(
        RedundantRow(
            row=d.row,
            element=names[element_of[d.row]],
            label=system.all_rows.label[d.row],
            depends_on=tuple(dict.fromkeys(names[element_of[r]] for r in d.depends_on)),
        )
        for d in dependent_rows(G, column_groups=group_of_column)
    )
    if [r.row for r in redundant] == [r.row for r in system.redundant]:
        return system
    active = np.setdiff1d(np.arange(len(system.all_rows)), [r.row for r in redundant])
    return dataclasses.replace(system, active=active, rows=system.all_rows.subset(active), redundant=redundant)


def warn_redundancy(system: System, stacklevel: int) -> None:
    """Warn with ``RedundantConstraintWarning`` naming the removed rows of ``system``, if any."""
    if system.redundant:
        warnings.warn(
            f"model '{system.name}': {len(system.redundant)} redundant constraint equations removed "
            f"(their reactions are not unique):\n  " + "\n  ".join(r.message() for r in system.redundant),
            RedundantConstraintWarning,
            stacklevel=stacklevel + 1,
        )
