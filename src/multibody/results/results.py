"""Immutable results of an analysis, with named access to bodies, joints and forces.

A :class:`Results` holds one array per output quantity, every one with a leading time axis of
length T (the number of output instants). The arrays are keyed like the frames an analysis
appends to a :class:`~multibody.results.storage.ResultsWriter` and like the datasets of the
HDF5 file, e.g. ``"body/position"`` of shape (T, nb, 3). They are read-only.

Named access returns views, never copies::

    res.body("crank").angular_velocity     # (T, 3) world components [rad/s]
    res.joint("pin").reaction_force        # (T, 3) on the I marker, world [N]
    res.channel("crank.angular_velocity.z")  # (T,)
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from multibody.results.beam import BeamHistory
    from multibody.results.cable import CableHistory
    from multibody.results.flexible import FlexibleBodyHistory, ModalShapes
    from multibody.results.hydraulics import HydraulicsHistory
    from multibody.results.rope import RopeHistory

FloatArray = npt.NDArray[np.float64]

#: Names of the energy channels; each is a scalar per output instant [J]. "dissipated" is the net
#: energy that left the system through non-conservative forces and motions (negative when they put
#: energy in): total + dissipated stays constant.
ENERGY_NAMES: tuple[str, ...] = ("kinetic", "potential", "total", "dissipated")

#: Names of the work channels [J]: "input", the work put in by motions, actuators, applied loads
#: and user laws; "lost" (derived, >= 0 for passive elements) = dissipated + input, the energy
#: taken out by dampers, friction and impacts.
WORK_NAMES: tuple[str, ...] = ("input",)

#: Every status a result can carry. "running" marks a file whose writer has not been closed.
STATUSES: tuple[str, ...] = ("running", "complete", "failed", "interrupted")

# Component names of one element's value, by its shape at one instant.
_COMPONENTS: dict[tuple[int, ...], tuple[str, ...]] = {
    (): (),
    (3,): ("x", "y", "z"),
    (4,): ("e0", "e1", "e2", "e3"),
}
_ALL_COMPONENTS = frozenset(c for components in _COMPONENTS.values() for c in components)


def _quantity(per_element_shape: tuple[int, ...]) -> Any:
    """Declare a history field as an output quantity of the given shape per element and instant."""
    return field(metadata={"per_element_shape": per_element_shape})


@dataclass(frozen=True)
class BodyHistory:
    """Motion of one body's centre of mass and frame over the output instants.

    Attributes:
        name: the body's name.
        position: (T, 3) CM position, world [m].
        velocity: (T, 3) CM velocity, world [m/s].
        acceleration: (T, 3) CM acceleration, world [m/s^2].
        euler_parameters: (T, 4) orientation of the body frame, scalar first [-].
        angular_velocity: (T, 3) angular velocity, world components [rad/s].
        angular_acceleration: (T, 3) angular acceleration, world components [rad/s^2].
    """

    name: str
    position: FloatArray = _quantity((3,))
    velocity: FloatArray = _quantity((3,))
    acceleration: FloatArray = _quantity((3,))
    euler_parameters: FloatArray = _quantity((4,))
    angular_velocity: FloatArray = _quantity((3,))
    angular_acceleration: FloatArray = _quantity((3,))

    @property
    def rotation(self) -> FloatArray:
        """(T, 3, 3) rotation R_WB taking body components to world components [-]."""
        R_WB = _rotation_matrices_from_euler_parameters(self.euler_parameters)
        R_WB.flags.writeable = False
        return R_WB


@dataclass(frozen=True)
class JointHistory:
    """Reaction of one joint (or joint primitive, or motion) over the output instants.

    Attributes:
        name: the joint's name.
        reaction_force: (T, 3) force on the I marker, world [N].
        reaction_torque: (T, 3) torque on the I marker about its origin, world [N m].
        reaction_force_in_j: (T, 3) the same force in J-marker axes [N].
        reaction_torque_in_j: (T, 3) the same torque in J-marker axes [N m].
    """

    name: str
    reaction_force: FloatArray = _quantity((3,))
    reaction_torque: FloatArray = _quantity((3,))
    reaction_force_in_j: FloatArray = _quantity((3,))
    reaction_torque_in_j: FloatArray = _quantity((3,))


@dataclass(frozen=True)
class ForceHistory:
    """Output of one force element over the output instants.

    Attributes:
        name: the force element's name.
        force: (T, 3) force the element applies at its I marker, world [N].
        torque: (T, 3) torque the element applies at its I marker, world [N m].
        value: (T,) the element's scalar, e.g. a spring's force along its line [N or N m].
    """

    name: str
    force: FloatArray = _quantity((3,))
    torque: FloatArray = _quantity((3,))
    value: FloatArray = _quantity(())


@dataclass(frozen=True)
class ContactHistory:
    """What one contact (or joint friction) element's touching surfaces do over the output instants.

    Attributes:
        name: the element's name.
        penetration: (T,) deepest penetration of the pair [m], 0 when apart (joint friction: 0).
        point: (T, 3) contact point, world [m]: the normal-force-weighted centre of the pair's
            contact points (the joint's I marker origin for joint friction).
        normal: (T, 3) unit normal along which J pushes I, world (zero when apart or in a joint).
        normal_force: (T,) total normal force [N] (joint friction: the normal load from the reaction).
        friction_force: (T, 3) friction force on I, world [N].
        slip_speed: (T,) sliding speed at the contact [m/s].
        mode: (T,) 0 apart, 1 sticking (slip within the stiction velocity), 2 transition, 3 sliding.
    """

    name: str
    penetration: FloatArray = _quantity(())
    point: FloatArray = _quantity((3,))
    normal: FloatArray = _quantity((3,))
    normal_force: FloatArray = _quantity(())
    friction_force: FloatArray = _quantity((3,))
    slip_speed: FloatArray = _quantity(())
    mode: FloatArray = _quantity(())


CONTACT_MODES = ("apart", "sticking", "transition", "sliding")
"""``ContactHistory.mode`` values by index."""


_History = TypeVar("_History", BodyHistory, JointHistory, ForceHistory, ContactHistory)


@dataclass(frozen=True)
class _ElementGroup(Generic[_History]):
    """One kind of named element in the results: its key, how to name it, and its quantities."""

    key: str
    plural: str
    history: type[_History]

    @property
    def quantities(self) -> dict[str, tuple[int, ...]]:
        """Quantity name -> shape of one element's value at one instant."""
        return {
            f.name: f.metadata["per_element_shape"] for f in fields(self.history) if "per_element_shape" in f.metadata
        }


_BODIES = _ElementGroup("body", "bodies", BodyHistory)
_JOINTS = _ElementGroup("joint", "joints", JointHistory)
_FORCES = _ElementGroup("force", "forces", ForceHistory)
_CONTACTS = _ElementGroup("contact", "contacts", ContactHistory)
# The order in which a channel's element name is looked up.
_GROUPS: tuple[_ElementGroup[Any], ...] = (_BODIES, _JOINTS, _FORCES, _CONTACTS)


@dataclass(frozen=True)
class ResultsLayout:
    """What a result is about: the model, the analysis, and the names of its elements.

    Attributes:
        model_name: name of the model that was analysed.
        analysis: the analysis that produced the results ("dynamics", "kinematics", "assemble" ...).
        body_names: names of the bodies, in output order (nb).
        joint_names: names of everything that carries a reaction: joints, joint primitives,
            motions, in output order (nj).
        force_names: names of the force elements, in output order (nf).
        scene: what the animation draws, JSON text (``multibody.system.scene``); empty when
            unknown (the viewer then draws the bodies from their motion alone).
        aliases: other names of elements, (alias, element name) pairs: an imported file's ids as
            written (``PART/02``) and its ADAMS/View names; ``res.body(alias)`` finds the element.
    """

    model_name: str
    analysis: str
    body_names: tuple[str, ...] = ()
    joint_names: tuple[str, ...] = ()
    force_names: tuple[str, ...] = ()
    scene: str = field(default="", repr=False)
    aliases: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    state_sizes: tuple[tuple[str, int], ...] = ()
    """(element name, number of first-order states) per element that carries states, in the
    order of the ``"state/x"`` array"""
    contact_names: tuple[str, ...] = ()
    """names of the contact and joint friction elements (``Results.contact``); a layout without
    them stores no contact arrays"""
    modal_sizes: tuple[tuple[str, int], ...] = ()
    """(flexible body name, number of modes) per flexible body, in the order of the
    ``"modal/coordinates"`` and ``"modal/velocities"`` arrays"""
    cable_sizes: tuple[tuple[str, int], ...] = ()
    """(cable name, number of node coordinates: 6 per node) per ANCF cable, in the order of the
    ``"cable/coordinates"`` and ``"cable/velocities"`` arrays"""

    def __post_init__(self) -> None:
        for group in _GROUPS:
            attribute = f"{group.key}_names"
            names = tuple(str(name) for name in getattr(self, attribute))
            duplicates = sorted({name for name in names if names.count(name) > 1})
            if duplicates:
                raise ValueError(f"duplicate {group.key} names in the layout: {', '.join(duplicates)}")
            object.__setattr__(self, attribute, names)

    def element_names(self) -> dict[str, tuple[str, ...]]:
        """Element names by group key: {"body": body_names, "joint": ..., "force": ...}."""
        return {group.key: getattr(self, f"{group.key}_names") for group in _GROUPS}

    def frame_shapes(self) -> dict[str, tuple[int, ...]]:
        """Shape of every entry of a frame (one output instant), keyed like the frame.

        Returns:
            {"time": (), "body/position": (nb, 3), ..., "force/value": (nf,),
            "energy/kinetic": (), ...}
        """
        shapes: dict[str, tuple[int, ...]] = {"time": ()}
        element_names = self.element_names()
        for group in _GROUPS:
            count = len(element_names[group.key])
            if group is _CONTACTS and not count:
                continue
            for quantity, per_element_shape in group.quantities.items():
                shapes[f"{group.key}/{quantity}"] = (count, *per_element_shape)
        for energy_name in ENERGY_NAMES:
            shapes[f"energy/{energy_name}"] = ()
        for work_name in WORK_NAMES:
            shapes[f"work/{work_name}"] = ()
        n_states = sum(size for _, size in self.state_sizes)
        if n_states:
            shapes["state/x"] = (n_states,)
        n_modal = sum(size for _, size in self.modal_sizes)
        if n_modal:
            shapes["modal/coordinates"] = shapes["modal/velocities"] = (n_modal,)
        n_cable = sum(size for _, size in self.cable_sizes)
        if n_cable:
            shapes["cable/coordinates"] = shapes["cable/velocities"] = (n_cable,)
        return shapes

    def check_keys(self, keys: Collection[str], what: str) -> None:
        """Raise ValueError naming the missing and unexpected keys unless `keys` are exactly
        those of :meth:`frame_shapes`; `what` names the checked mapping in the message."""
        expected = self.frame_shapes().keys()
        missing, unexpected = sorted(expected - set(keys)), sorted(set(keys) - expected)
        if missing or unexpected:
            raise ValueError(f"{what} do not match the layout: missing {missing}, unexpected {unexpected}")


class Results:
    """Immutable output of one analysis: arrays over T output instants with named access.

    Args:
        layout: the model, analysis and element names the arrays belong to.
        arrays: one array per key of ``layout.frame_shapes()``, each of shape (T, *frame shape),
            e.g. "time" (T,), "body/position" (T, nb, 3). The arrays are copied.
        status: "complete", "failed", "interrupted", or "running" (a file still being written).
        message: why the analysis stopped, when it failed or was interrupted.
        stats: solver statistics (step counts, function evaluations, wall time ...).
    """

    __slots__ = ("_arrays", "_indices", "_layout", "_message", "_modal_shapes", "_stats", "_status")

    def __init__(
        self,
        layout: ResultsLayout,
        arrays: Mapping[str, npt.ArrayLike],
        status: str = "complete",
        message: str = "",
        stats: Mapping[str, int | float] | None = None,
    ) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown results status {status!r}; statuses are: {', '.join(STATUSES)}")
        layout.check_keys(arrays.keys(), "results arrays")
        shapes = layout.frame_shapes()
        time_shape = np.shape(arrays["time"])
        if len(time_shape) != 1:
            raise ValueError(f"results array 'time' has shape {time_shape}; expected (T,)")
        instant_count = time_shape[0]
        owned: dict[str, FloatArray] = {}
        for key, frame_shape in shapes.items():
            values = np.array(arrays[key], dtype=np.float64)
            if values.shape != (instant_count, *frame_shape):
                raise ValueError(
                    f"results array {key!r} has shape {values.shape}; expected (T, *{frame_shape}) "
                    f"with T = len(time) = {instant_count}"
                )
            values.flags.writeable = False
            owned[key] = values
        self._layout = layout
        self._arrays: Mapping[str, FloatArray] = MappingProxyType(owned)
        self._status = status
        self._message = message
        self._stats = dict(stats or {})
        self._indices = {
            key: {name: index for index, name in enumerate(names)} for key, names in layout.element_names().items()
        }
        self._modal_shapes: dict[str, ModalShapes] | None = None

    @staticmethod
    def load(path: str | os.PathLike[str]) -> Results:
        """Read results from an HDF5 file, also a partial one ("running" or "failed")."""
        from multibody.results.storage import load_results  # storage builds on this module

        return load_results(path)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the results to an HDF5 file (the layout of :mod:`multibody.results.storage`)."""
        from multibody.results.storage import save_results  # storage builds on this module

        save_results(self, path)

    @property
    def layout(self) -> ResultsLayout:
        """The model, analysis and element names the results belong to."""
        return self._layout

    @property
    def arrays(self) -> Mapping[str, FloatArray]:
        """All arrays, read-only, keyed like a frame: "time" (T,), "body/position" (T, nb, 3) ..."""
        return self._arrays

    @property
    def time(self) -> FloatArray:
        """(T,) output instants [s]."""
        return self._arrays["time"]

    @property
    def status(self) -> str:
        """How the run ended: "complete", "failed", "interrupted", or "running" (unfinished)."""
        return self._status

    @property
    def message(self) -> str:
        """Why the analysis stopped, when it failed or was interrupted; else empty."""
        return self._message

    @property
    def stats(self) -> dict[str, int | float]:
        """Solver statistics (a copy)."""
        return dict(self._stats)

    @property
    def energy(self) -> dict[str, FloatArray]:
        """Energy name ("kinetic", "potential", "total", "dissipated") -> (T,) array [J]."""
        return {name: self._arrays[f"energy/{name}"] for name in ENERGY_NAMES}

    @property
    def work(self) -> dict[str, FloatArray]:
        """Work name -> (T,) array [J]: "input" (put in by motions, actuators, applied loads and
        user laws) and "lost" (taken out by dampers, friction and impacts: dissipated + input)."""
        input_work = self._arrays["work/input"]
        return {"input": input_work, "lost": self._arrays["energy/dissipated"] + input_work}

    def state(self, name: str) -> FloatArray:
        """First-order states (T, n) of element ``name`` (KeyError lists the elements with states)."""
        return self._owned("state/x", self._layout.state_sizes, name, "has no first-order states; elements with states")

    def modal_coordinates(self, name: str) -> FloatArray:
        """Modal coordinates (T, m) [sqrt(kg) m] of flexible body ``name`` (KeyError lists the flexible
        bodies); ``FlexibleBody.node_displacements`` turns them into displacements."""
        return self._owned(
            "modal/coordinates", self._layout.modal_sizes, name, "is not a flexible body; flexible bodies"
        )

    def modal_velocities(self, name: str) -> FloatArray:
        """Modal velocities (T, m) [sqrt(kg) m/s] of flexible body ``name``."""
        return self._owned(
            "modal/velocities", self._layout.modal_sizes, name, "is not a flexible body; flexible bodies"
        )

    def cable_coordinates(self, name: str) -> FloatArray:
        """Node coordinates (T, 6 (n + 1)) of ANCF cable ``name``: per node its position [m] and slope."""
        return self._owned("cable/coordinates", self._layout.cable_sizes, name, "is not a cable; cables")

    def cable_velocities(self, name: str) -> FloatArray:
        """Node velocities (T, 6 (n + 1)) of ANCF cable ``name`` [m/s, 1/s]."""
        return self._owned("cable/velocities", self._layout.cable_sizes, name, "is not a cable; cables")

    def cable(self, name: str) -> CableHistory:
        """Node positions, points along the cable, axial force and bending moment of ANCF cable
        ``name`` (KeyError when ``name`` is not one)."""
        from multibody.results.cable import cable_history

        scene = json.loads(self._layout.scene) if self._layout.scene else {}
        cables = {cable["name"]: cable for cable in scene.get("cables", ())}
        if name not in cables:
            raise KeyError(f"'{name}' is not a cable; cables: {', '.join(cables) or 'none'}")
        return cable_history(self, cables[name])

    def _owned(self, key: str, sizes: tuple[tuple[str, int], ...], name: str, missing: str) -> FloatArray:
        """The columns of array ``key`` that ``sizes`` (owner, count, in order) gives to ``name``."""
        offset = 0
        for owner, size in sizes:
            if owner == name:
                return self._arrays[key][:, offset : offset + size]
            offset += size
        raise KeyError(f"'{name}' {missing}: {', '.join(owner for owner, _ in sizes) or 'none'}")

    def __len__(self) -> int:
        """Number of output instants T."""
        return self.time.shape[0]

    def __repr__(self) -> str:
        span = f", t = {self.time[0]:g} .. {self.time[-1]:g} s" if len(self) else ""
        return (
            f"Results(model={self._layout.model_name!r}, analysis={self._layout.analysis!r}, "
            f"status={self._status!r}, {len(self)} instants{span})"
        )

    def body(self, name: str) -> BodyHistory | FlexibleBodyHistory:
        """Motion history of the named body; raises KeyError naming the bodies if unknown. A flexible
        body's is a ``multibody.results.flexible.FlexibleBodyHistory``: its frame's motion, modal
        coordinates, and node deformations, positions and stresses (``deformation(node)`` ...)."""
        history = self._history(_BODIES, name)
        name = name if name in self._indices["body"] else dict(self._layout.aliases).get(name, name)
        if name not in dict(self._layout.modal_sizes):
            return history
        from multibody.results.flexible import FlexibleBodyHistory

        views = {f.name: getattr(history, f.name) for f in fields(history)}
        return FlexibleBodyHistory(
            **views,
            modal_coordinates=self.modal_coordinates(name),
            modal_velocities=self.modal_velocities(name),
            shapes=self._flexible_shapes().get(name),
        )

    def _flexible_shapes(self) -> dict[str, ModalShapes]:
        """Each flexible body's kept nodes and modes, read from the scene once."""
        if self._modal_shapes is None:
            from multibody.results.flexible import ModalShapes

            scene = json.loads(self._layout.scene) if self._layout.scene else {}
            self._modal_shapes = {
                body["name"]: ModalShapes.from_scene(body["flexible"])
                for body in scene.get("bodies", ())
                if body.get("flexible")
            }
        return self._modal_shapes

    def joint(self, name: str) -> JointHistory:
        """Reaction history of the named joint; raises KeyError naming the joints if unknown."""
        return self._history(_JOINTS, name)

    def force(self, name: str) -> ForceHistory:
        """Output history of the named force; raises KeyError naming the forces if unknown."""
        return self._history(_FORCES, name)

    def contact(self, name: str) -> ContactHistory:
        """Contact history of the named contact or joint friction element (penetration, contact
        point, normal and friction force, slip, mode); KeyError naming them if unknown."""
        return self._history(_CONTACTS, name)

    def hydraulics(self, name: str) -> HydraulicsHistory:
        """Chamber pressures, spool position, force, piston motion, flows and hydraulic power of
        the hydraulic cylinder ``name`` (``multibody.results.hydraulics``; KeyError when ``name`` is not one)."""
        from multibody.results.hydraulics import hydraulics_history

        scene = json.loads(self._layout.scene) if self._layout.scene else {}
        entries = {force["name"]: force for force in scene.get("forces", ())}
        name = dict(self._layout.aliases).get(name, name)
        kind = entries[name]["type"] if name in entries else "HydraulicCylinder"
        if kind != "HydraulicCylinder" or name not in self._indices["force"]:
            cylinders = ", ".join(n for n, f in entries.items() if f["type"] == "HydraulicCylinder") or "none"
            raise KeyError(f"'{name}' is not a hydraulic cylinder; cylinders: {cylinders}")
        return hydraulics_history(self, name, entries.get(name), scene.get("markers", []))

    def beam(self, name: str) -> BeamHistory:
        """Node positions and section forces of the finite-segment beam ``name`` (KeyError when
        ``name`` is not one)."""
        from multibody.results.beam import beam_history

        scene = json.loads(self._layout.scene) if self._layout.scene else {}
        beams = {beam["name"]: beam for beam in scene.get("beams", ())}
        if name not in beams:
            raise KeyError(f"'{name}' is not a beam; beams: {', '.join(beams) or 'none'}")
        return beam_history(self, beams[name], scene["markers"])

    def rope(self, name: str) -> RopeHistory:
        """Tension, paid-out length, spans, wrap angles and tangent points of rope ``name``
        (KeyError when ``name`` is not one)."""
        from multibody.results.rope import rope_history

        scene = json.loads(self._layout.scene) if self._layout.scene else {}
        ropes = {force["name"]: force for force in scene.get("forces", ()) if force["type"] == "Rope"}
        name = dict(self._layout.aliases).get(name, name)
        if name not in ropes:
            raise KeyError(f"'{name}' is not a rope; ropes: {', '.join(ropes) or 'none'}")
        return rope_history(self, name, ropes[name], scene["markers"])

    def channel(self, spec: str) -> FloatArray:
        """One scalar signal over time, named "<element>.<quantity>[.<component>]".

        The element is looked up among the bodies, then the joints, then the forces. The
        component is x/y/z for 3-vectors, e0..e3 for Euler parameters, and absent for scalars.
        "energy.<name>" gives an energy channel, "work.input" / "work.lost" the work channels. Examples: "crank.angular_velocity.z",
        "pin.reaction_force_in_j.x", "spring.value", "energy.kinetic".

        Returns:
            (T,) read-only view, in the quantity's units.
        """
        head, _, last = spec.rpartition(".")
        if head == "energy" and last in ENERGY_NAMES:
            return self._arrays[f"energy/{last}"]
        if head == "work" and last in ("input", "lost"):
            return self.work[last]
        component = last if last in _ALL_COMPONENTS else None
        element, _, quantity = (head if component else spec).rpartition(".")
        if not element:
            raise ValueError(
                f"bad channel {spec!r}: write '<element>.<quantity>[.<component>]', "
                "e.g. 'crank.angular_velocity.z', or 'energy.kinetic'"
            )
        having = [g for g in _GROUPS if element in self._indices[g.key]]  # a contact is also a force
        group = next((g for g in having if quantity in g.quantities), having[0] if having else None)
        if group is None:
            listing = "; ".join(f"{g.plural} are: {self._listing(g)}" for g in _GROUPS)
            raise KeyError(f"channel {spec!r}: no element {element!r} in the results; {listing}")
        quantities = group.quantities
        if quantity not in quantities:
            raise KeyError(
                f"channel {spec!r}: a {group.key} has no quantity {quantity!r}; "
                f"{group.key} quantities are: {', '.join(quantities)}"
            )
        components = _COMPONENTS[quantities[quantity]]
        if not (component in components if components else component is None):
            wanted = f"a component {', '.join(components)}" if components else "no component"
            raise ValueError(f"channel {spec!r}: {group.key} {quantity} takes {wanted}")
        values = self._arrays[f"{group.key}/{quantity}"][:, self._indices[group.key][element]]
        return values[:, components.index(component)] if component else values

    def channel_names(self) -> list[str]:
        """Every channel :meth:`channel` answers to, in output order: each body's, joint's and
        force's quantities component by component ("crank.position.x" ...), then "energy.<name>"."""
        names = []
        for group in _GROUPS:
            for element in self._layout.element_names()[group.key]:
                for quantity, shape in group.quantities.items():
                    components = _COMPONENTS[shape]
                    names += [f"{element}.{quantity}.{c}" for c in components] or [f"{element}.{quantity}"]
        return names + [f"energy.{name}" for name in ENERGY_NAMES] + ["work.input", "work.lost"]

    def to_csv(self, path: str | os.PathLike[str], channels: Sequence[str] | None = None) -> None:
        """Write a CSV file: a header row, then one row per output instant.

        The first column is time [s]; then one column per channel (see :meth:`channel`), headed
        by the channel's name; ``channels=None`` writes every channel (:meth:`channel_names`).
        Numbers are written with the shortest exact representation.
        """
        channels = self.channel_names() if channels is None else list(channels)
        columns = [self.time, *(self.channel(spec) for spec in channels)]
        with open(path, "w", newline="") as stream:
            writer = csv.writer(stream)
            writer.writerow(["time", *channels])
            writer.writerows(np.column_stack(columns).tolist())

    def final_state_table(self) -> str:
        """Plain-text table of every body's state at the last output instant.

        One row per body: name, CM position x y z [m], CM velocity vx vy vz [m/s], and the
        magnitude of the angular velocity |w| [rad/s].
        """
        if len(self) == 0:
            raise ValueError("the results hold no output instants")
        names = self._layout.body_names
        name_width = max([len("body"), *(len(name) for name in names)])
        headers = ["x [m]", "y [m]", "z [m]", "vx [m/s]", "vy [m/s]", "vz [m/s]", "|w| [rad/s]"]
        lines = [
            f"final state of {self._layout.model_name!r} at t = {self.time[-1]:g} s",
            " ".join(["body".ljust(name_width), *(h.rjust(12) for h in headers)]),
        ]
        speed = np.linalg.norm(self._arrays["body/angular_velocity"][-1], axis=-1)
        row_values = np.column_stack([self._arrays["body/position"][-1], self._arrays["body/velocity"][-1], speed])
        for name, values in zip(names, row_values):
            lines.append(" ".join([name.ljust(name_width), *(f"{v:12.5g}" for v in values)]))
        return "\n".join(lines)

    def _history(self, group: _ElementGroup[_History], name: str) -> _History:
        """The named element's history view; KeyError listing the alternatives if unknown."""
        index = self._indices[group.key].get(name)
        if index is None:
            index = self._indices[group.key].get(dict(self._layout.aliases).get(name, name))
        if index is None:
            raise KeyError(f"no {group.key} {name!r} in the results; {group.plural} are: {self._listing(group)}")
        views = {quantity: self._arrays[f"{group.key}/{quantity}"][:, index] for quantity in group.quantities}
        return group.history(name=name, **views)

    def _listing(self, group: _ElementGroup[Any]) -> str:
        names = self._layout.element_names()[group.key]
        return ", ".join(names) if names else "(none)"


def _rotation_matrices_from_euler_parameters(euler_parameters: FloatArray) -> FloatArray:
    """Rotation matrices R_WB from unit Euler parameters.

    R = (2 e0^2 - 1) I + 2 e e^T + 2 e0 [e]x, with e0 the scalar and e the vector part.

    Args:
        euler_parameters: (..., 4) scalar first.

    Returns:
        (..., 3, 3) rotation matrices, a new writable array.
    """
    e0 = euler_parameters[..., 0, np.newaxis, np.newaxis]
    e = euler_parameters[..., 1:]
    skew_e = np.zeros((*e.shape[:-1], 3, 3))
    skew_e[..., 0, 1], skew_e[..., 0, 2] = -e[..., 2], e[..., 1]
    skew_e[..., 1, 0], skew_e[..., 1, 2] = e[..., 2], -e[..., 0]
    skew_e[..., 2, 0], skew_e[..., 2, 1] = -e[..., 1], e[..., 0]
    e_outer_e = e[..., :, np.newaxis] * e[..., np.newaxis, :]
    return (2.0 * e0**2 - 1.0) * np.eye(3) + 2.0 * e_outer_e + 2.0 * e0 * skew_e
