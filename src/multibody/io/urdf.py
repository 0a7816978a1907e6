"""URDF robot descriptions (ROS's Unified Robot Description Format), read with ``yourdfpy``.

What becomes what:

- The root link is the ground (a URDF robot's base is fixed to the world unless a ``floating``
  joint says otherwise); its visuals are shown on the ground.
- Links joined by ``fixed`` joints are one rigid body, named after the first of them, with the
  others as aliases (``Model.aliases``); its mass, centre of mass and inertia are the sum of the
  links' ``<inertial>`` elements. URDF gives each inertia about the inertial origin, in the axes of
  the inertial frame (``<inertial><origin rpy>``); it is turned into world axes and moved to the
  body's centre of mass (parallel axes). The body's axes are the world axes at the zero
  configuration, its origin the centre of mass.
- ``revolute`` and ``continuous`` joints become ``Revolute``, ``prismatic`` ``Translational``,
  ``planar`` ``Planar`` (the axis is the plane's normal), ``floating`` nothing (a free body); the
  joint frame (``<origin>``) holds the markers, their z-axis along ``<axis>``. The model starts at
  every joint value zero, at rest.
- ``<dynamics damping>`` of a revolute joint becomes a ``TorsionSpring`` of zero stiffness.
- ``<mimic>``: the engine has no exact joint-to-joint coupler yet, so a mimic joint is coupled by
  a stiff spring-damper in joint space (``MimicCoupler``): the generalized force
  ``-(k e + c e')`` on the mimicking joint, ``e = q - (multiplier q_leader + offset)``, and
  ``multiplier (k e + c e')`` on the leader, so the coupling does no net work beyond its own
  potential ``k e^2 / 2``. ``k`` puts the coupling's own frequency at ``mimic_frequency`` for the
  mimicking joint's child (its moment of inertia about the axis, or its mass), ``c`` damps it
  critically; the coupling error is about ``(system frequency / mimic_frequency)^2`` of the motion.
- Visual ``box``, ``cylinder``, ``sphere`` and ``mesh`` elements become display shapes with their
  material colour; meshes named ``package://pkg/path`` are looked for beside the URDF file and
  in its parent folders.

Everything else is listed in an ``ImportReport`` (the ADAMS reader's), with its line: joint
limits (no joint stops exist yet: "not simulated"), friction, collision geometry, transmissions,
``gazebo`` extensions and every unknown tag.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np
from numpy.typing import NDArray

from multibody.io.adm.report import IGNORED, NOT_SIMULATED, ImportReport, ReportItem
from multibody.model.body import Body, RigidBody
from multibody.model.element import ModelError
from multibody.model.forces import TorsionSpring
from multibody.model.forces.expression import StateDependentLoad
from multibody.model.geometry import Box, Cylinder, Mesh, Sphere
from multibody.model.joints import Planar, Revolute, Translational
from multibody.model.marker import Marker
from multibody.model.model import Model
from multibody.spatial.measurements import Measurements
from multibody.spatial.rotations import rotation_from_axes

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
ROTATIONAL = ("revolute", "continuous")
MIMIC_FREQUENCY = 50.0
"""Default frequency [Hz] of a mimic coupler's spring on the mimicking joint's child."""
ANALYSIS = {"analysis": "dynamics", "t_end": 1.0, "output_step": 0.01}
"""What ``multibody run robot.urdf`` simulates by default: the robot falling under gravity from zero."""

KNOWN_CHILDREN = {
    "robot": {"link", "joint", "material"},
    "link": {"inertial", "visual"},
    "inertial": {"origin", "mass", "inertia"},
    "visual": {"origin", "geometry", "material"},
    "geometry": {"box", "cylinder", "sphere", "mesh"},
    "material": {"color"},
    "joint": {"parent", "child", "origin", "axis", "limit", "dynamics", "mimic"},
}
"""The tags imported, by parent tag; anything else is reported."""
IGNORED_TAGS = {
    "collision": "collision geometry: no contact is made from it",
    "transmission": "transmissions and actuators are not modelled",
    "gazebo": "simulator-specific extension",
    "calibration": "calibration does not change the motion",
    "safety_controller": "a controller setting, no joint stops",
    "texture": "textures are not shown",
}


class UrdfError(ModelError):
    """A URDF file that cannot be turned into a model: the message names the link or joint."""


class UrdfImportWarning(UserWarning):
    """``read_urdf`` left something out; the message is the import report."""


@dataclass(frozen=True)
class UrdfImport:
    """An imported URDF: the model, the report of what was left out, the joint limits
    ``{joint: (lower, upper)}`` [rad or m] (reported, not enforced) and the mimic couplers."""

    model: Model
    report: ImportReport
    limits: dict[str, tuple[float, float]] = field(default_factory=dict)
    mimics: tuple[str, ...] = ()


def read_urdf(path: str | Path, mimic_frequency: float = MIMIC_FREQUENCY) -> Model:
    """The model of the URDF file at ``path`` (see the module docstring for what becomes what).

    Anything not imported is announced in one ``UrdfImportWarning`` holding the report; use
    ``import_urdf`` for the report, the limits and the couplers as data. Raises ``UrdfError``
    naming the link or joint when the file cannot be made into a model.
    """
    imported = import_urdf(path, mimic_frequency)
    if imported.report.items:
        warnings.warn(imported.report.format(), UrdfImportWarning, stacklevel=2)
    return imported.model


def import_urdf(path: str | Path, mimic_frequency: float = MIMIC_FREQUENCY) -> UrdfImport:
    """The model of the URDF file at ``path`` with its import report, limits and couplers."""
    path = Path(path)
    if not path.is_file():
        raise UrdfError(f"URDF file '{path}' not found")
    try:
        import yourdfpy
    except ImportError:
        raise UrdfError("reading URDF needs yourdfpy: pip install yourdfpy") from None
    try:
        robot = yourdfpy.URDF.load(
            str(path), build_scene_graph=False, build_collision_scene_graph=False, load_meshes=False
        ).robot
    except Exception as error:
        raise UrdfError(f"URDF file '{path}' cannot be read: {type(error).__name__}: {error}") from None
    return _Builder(robot, path, mimic_frequency).build()


def urdf_module(path: str | Path) -> ModuleType:
    """The URDF file at ``path`` as a model-file module for the command line (``build``,
    ``ANALYSIS``, ``IMPORT_REPORT``)."""
    imported = import_urdf(path)
    module = ModuleType(f"multibody_urdf_{Path(path).stem}")
    module.__file__ = str(path)
    module.ANALYSIS = dict(ANALYSIS)
    module.IMPORT_REPORT = imported.report.format()
    module.build = lambda: import_urdf(path).model
    return module


# -- the builder ----------------------------------------------------------------------------------


def _transform(origin: NDArray[np.float64] | None) -> NDArray[np.float64]:
    return np.eye(4) if origin is None else np.asarray(origin, dtype=float)


@dataclass
class _Group:
    """Links rigidly joined by fixed joints: one body."""

    name: str
    links: list[str]
    body: Body | None = None
    mass: float = 0.0
    center: NDArray[np.float64] = field(default_factory=lambda: np.zeros(3))
    inertia: NDArray[np.float64] = field(default_factory=lambda: np.zeros((3, 3)))


class _Builder:
    def __init__(self, robot, path: Path, mimic_frequency: float) -> None:
        self.robot = robot
        self.path = path
        self.mimic_frequency = float(mimic_frequency)
        if not self.mimic_frequency > 0.0:
            raise UrdfError(f"mimic_frequency must be positive, got {mimic_frequency!r} Hz")
        self.links = {link.name: link for link in robot.links}
        self.joints = {joint.name: joint for joint in robot.joints}
        self.parent_joint = {joint.child: joint for joint in robot.joints}
        self.materials = {m.name: m for m in (robot.materials or []) if m.name}

    def build(self) -> UrdfImport:
        for joint in self.joints.values():
            if joint.type not in JOINT_TYPES:
                raise UrdfError(
                    f"joint '{joint.name}': type '{joint.type}' is not a URDF joint type ({', '.join(JOINT_TYPES)})"
                )
            for role in ("parent", "child"):
                if getattr(joint, role) not in self.links:
                    raise UrdfError(f"joint '{joint.name}': {role} link '{getattr(joint, role)}' is not defined")
        roots = [name for name in self.links if name not in self.parent_joint]
        if len(roots) != 1:
            raise UrdfError(f"URDF '{self.path}': a robot is one tree with one root link; found roots {roots}")
        self.root = roots[0]
        self.T_WL = {}
        self._place(self.root, np.eye(4))
        model = Model(self.robot.name or self.path.stem)
        groups = self._groups(model)
        for group in groups.values():
            if group.body is None:
                self._add_body(model, group)
        for link in self.links.values():
            self._add_visuals(groups[self.group_of[link.name]].body, link)
        limits: dict[str, tuple[float, float]] = {}
        mimics = []
        markers: dict[str, tuple[Marker, Marker]] = {}
        for joint in self.joints.values():
            if joint.type in ("fixed", "floating"):
                continue
            markers[joint.name] = self._add_joint(model, joint, groups)
            if joint.type in ("revolute", "prismatic") and joint.limit is not None and joint.limit.lower is not None:
                limits[joint.name] = (float(joint.limit.lower), float(joint.limit.upper))
        for joint in self.joints.values():
            if joint.mimic is not None and joint.type not in ("fixed", "floating"):
                self._add_mimic(model, joint, markers, groups)
                mimics.append(joint.name)
        return UrdfImport(model, _scan(self.path, self.joints, self.mesh_path), limits, tuple(mimics))

    def _place(self, link: str, T_WL: NDArray[np.float64]) -> None:
        """World pose of every link at the zero configuration, depth first."""
        self.T_WL[link] = T_WL
        for joint in self.joints.values():
            if joint.parent == link:
                self._place(joint.child, T_WL @ _transform(joint.origin))

    def _groups(self, model: Model) -> dict[str, _Group]:
        """Bodies: each link's group, named after the link at its head (the ground for the root)."""
        self.group_of: dict[str, str] = {}
        groups: dict[str, _Group] = {}

        def head(link: str) -> str:
            joint = self.parent_joint.get(link)
            if joint is None:
                return model.ground.name
            return head(joint.parent) if joint.type == "fixed" else link

        for link in self.T_WL:
            name = head(link)
            self.group_of[link] = name
            groups.setdefault(name, _Group(name, [])).links.append(link)
        groups[model.ground.name].body = model.ground
        return groups

    def _add_body(self, model: Model, group: _Group) -> None:
        """The rigid body of ``group``: the links' inertials summed about their common centre of mass."""
        pieces = []
        for name in group.links:
            inertial = self.links[name].inertial
            if inertial is None or not inertial.mass:
                continue
            T_WI = self.T_WL[name] @ _transform(inertial.origin)
            R_WI = T_WI[:3, :3]
            inertia = np.zeros((3, 3)) if inertial.inertia is None else np.asarray(inertial.inertia, dtype=float)
            pieces.append((float(inertial.mass), T_WI[:3, 3], R_WI @ inertia @ R_WI.T))
        if not pieces:
            joint = self.parent_joint[group.name]
            raise UrdfError(
                f"link '{group.name}' moves on joint '{joint.name}' but has no mass (no <inertial> with a mass); "
                "give it an <inertial>, or attach it with a fixed joint to a link that has one"
            )
        mass = sum(m for m, _, _ in pieces)
        center = sum(m * p for m, p, _ in pieces) / mass
        inertia = sum(
            J + m * (np.dot(p - center, p - center) * np.eye(3) - np.outer(p - center, p - center))
            for m, p, J in pieces
        )
        group.mass, group.center, group.inertia = mass, center, inertia
        try:
            group.body = model.add(
                RigidBody(
                    group.name,
                    mass,
                    0.5 * (inertia + inertia.T),
                    position=center,
                    orientation=np.eye(3),
                    velocity=np.zeros(3),
                    angular_velocity=np.zeros(3),
                )
            )
        except ModelError as error:
            raise UrdfError(f"link '{group.name}' (<inertial>): {error}") from None
        for alias in group.links[1:]:
            model.aliases[alias] = group.name

    def _add_visuals(self, body: Body, link) -> None:
        for k, visual in enumerate(link.visuals):
            shape = self._shape(visual)
            if shape is None:
                continue
            T_WV = self.T_WL[link.name] @ _transform(visual.origin)
            marker = body.add_marker(
                f"{link.name}_visual_{k}", position=T_WV[:3, 3], orientation=T_WV[:3, :3], frame="world"
            )
            body.add_shape(shape, marker)

    def _shape(self, visual):
        color, opacity = self._color(visual.material)
        geometry = visual.geometry
        if geometry.box is not None:
            return Box(geometry.box.size, color, opacity)
        if geometry.cylinder is not None:
            return Cylinder(geometry.cylinder.radius, geometry.cylinder.length, color, opacity)
        if geometry.sphere is not None:
            return Sphere(geometry.sphere.radius, color, opacity)
        if geometry.mesh is not None:
            found = self.mesh_path(geometry.mesh.filename)
            if found is None:
                return None  # reported by the scan
            scale = 1.0 if geometry.mesh.scale is None else float(np.max(np.atleast_1d(geometry.mesh.scale)))
            return Mesh(found, scale=scale, color=color, opacity=opacity)
        return None

    def _color(self, material) -> tuple[object, float]:
        if material is not None and material.color is None and material.name in self.materials:
            material = self.materials[material.name]
        if material is None or material.color is None:
            return "grey", 1.0
        rgba = np.clip(np.asarray(material.color.rgba, dtype=float), 0.0, 1.0)
        return rgba[:3], float(rgba[3]) if rgba[3] > 0.0 else 1.0

    def mesh_path(self, filename: str) -> Path | None:
        """The mesh file ``filename`` names (``package://pkg/...``: beside the URDF or above it)."""
        if filename.startswith("package://"):
            relative = Path(filename[len("package://") :])
            candidates = [
                folder / part
                for folder in (self.path.parent, *self.path.parents)
                for part in (relative, Path(*relative.parts[1:]))
            ]
        elif filename.startswith("file://"):
            candidates = [Path(filename[len("file://") :])]
        else:
            candidates = [self.path.parent / filename]
        return next((c for c in candidates if c.is_file()), None)

    def _add_joint(self, model: Model, joint, groups: dict[str, _Group]) -> tuple[Marker, Marker]:
        parent = groups[self.group_of[joint.parent]].body
        child = groups[self.group_of[joint.child]].body
        T_WJ = self.T_WL[joint.child]
        axis = np.array([1.0, 0.0, 0.0]) if joint.axis is None else np.asarray(joint.axis, dtype=float)
        if np.linalg.norm(axis) < 1e-12:
            raise UrdfError(f"joint '{joint.name}': <axis> has zero length")
        R_WM = rotation_from_axes(T_WJ[:3, :3] @ axis)
        i_marker = child.add_marker(joint.name, position=T_WJ[:3, 3], orientation=R_WM, frame="world")
        j_marker = parent.add_marker(joint.name, position=T_WJ[:3, 3], orientation=R_WM, frame="world")
        kind = {"revolute": Revolute, "continuous": Revolute, "prismatic": Translational, "planar": Planar}[joint.type]
        element = model.add(kind(joint.name, i_marker, j_marker))
        damping = 0.0 if joint.dynamics is None or joint.dynamics.damping is None else float(joint.dynamics.damping)
        if damping > 0.0 and joint.type in ROTATIONAL:
            model.add(TorsionSpring(f"{joint.name}_damping", element, stiffness=0.0, damping=damping))
        return i_marker, j_marker

    def _add_mimic(self, model: Model, joint, markers: dict[str, tuple[Marker, Marker]], groups) -> None:
        leader = self.joints.get(joint.mimic.joint)
        if leader is None or leader.name not in markers:
            raise UrdfError(
                f"joint '{joint.name}': <mimic joint='{joint.mimic.joint}'> names no moving joint of the robot"
            )
        if joint.type == "planar" or leader.type == "planar":
            raise UrdfError(f"joint '{joint.name}': a mimic coupler needs revolute, continuous or prismatic joints")
        child = groups[self.group_of[joint.child]]
        i_marker, j_marker = markers[joint.name]
        axis = i_marker.body.orientation @ i_marker.orientation[:, 2]
        if joint.type in ROTATIONAL:
            arm = child.center - self.T_WL[joint.child][:3, 3]
            arm_across = arm - np.dot(arm, axis) * axis
            resistance = float(axis @ child.inertia @ axis) + child.mass * float(arm_across @ arm_across)
        else:
            resistance = child.mass
        stiffness = resistance * (2.0 * np.pi * self.mimic_frequency) ** 2
        damping = 2.0 * np.sqrt(stiffness * resistance)
        coupler = MimicCoupler(
            i_marker,
            j_marker,
            joint.type in ROTATIONAL,
            *markers[leader.name],
            leader.type in ROTATIONAL,
            float(joint.mimic.multiplier if joint.mimic.multiplier is not None else 1.0),
            float(joint.mimic.offset or 0.0),
            stiffness,
            damping,
        )
        model.add(StateDependentLoad(f"{joint.name}_mimic", i_marker, coupler.on(follower=True), j_marker))
        model.add(
            StateDependentLoad(
                f"{joint.name}_mimic_reaction",
                markers[leader.name][0],
                coupler.on(follower=False),
                markers[leader.name][1],
            )
        )


@dataclass(frozen=True)
class MimicCoupler:
    """``q = multiplier q_leader + offset`` held by a joint-space spring-damper (see the module).

    ``i``/``j``: the mimicking joint's markers, ``leader_i``/``leader_j`` the leader's; ``rotates``
    whether each joint's coordinate is the angle about z_J [rad] (else the slide along z_J [m]);
    ``stiffness`` [N m/rad or N/m], ``damping`` [N m s/rad or N s/m]."""

    i: Marker
    j: Marker
    rotates: bool
    leader_i: Marker
    leader_j: Marker
    leader_rotates: bool
    multiplier: float
    offset: float
    stiffness: float
    damping: float

    def on(self, follower: bool) -> _MimicLaw:
        """The law of the load on the mimicking joint (``follower``) or on the leader."""
        return _MimicLaw(self, follower, (self.i, self.j, self.leader_i, self.leader_j))


@dataclass(frozen=True)
class _MimicLaw:
    coupler: MimicCoupler
    follower: bool
    markers: tuple[Marker, ...]

    def bind(self, marker_indices: Sequence[int]):
        i, j, leader_i, leader_j = marker_indices
        c = self.coupler

        def coordinate(m: Measurements, a: int, b: int, rotates: bool) -> tuple[float, float]:
            if rotates:
                return float(m.rotation_angle(a, b, 2)), float(m.angular_velocity(a, b, b)[2])
            return float(m.displacement(a, b, b)[2]), float(m.velocity(a, b, b, b)[2])

        def law(m: Measurements) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
            q, dq = coordinate(m, i, j, c.rotates)
            q_leader, dq_leader = coordinate(m, leader_i, leader_j, c.leader_rotates)
            error = q - (c.multiplier * q_leader + c.offset)
            if c.rotates:
                error = (error + np.pi) % (2.0 * np.pi) - np.pi
            load = c.stiffness * error + c.damping * (dq - c.multiplier * dq_leader)
            value, axis_J, rotates = (
                (-load, m.R_WM[j][:, 2], c.rotates)
                if self.follower
                else (c.multiplier * load, m.R_WM[leader_j][:, 2], c.leader_rotates)
            )
            zero = np.zeros(3)
            return (zero, value * axis_J) if rotates else (value * axis_J, zero)

        return law


# -- the report -----------------------------------------------------------------------------------


def _scan(path: Path, joints: dict, mesh_path) -> ImportReport:
    """Every element not imported, with its line (lxml keeps line numbers)."""
    from lxml import etree

    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    root = etree.fromstring(text.encode("utf-8"), etree.XMLParser(remove_comments=True))
    items: list[ReportItem] = []

    def item(element, what: str, severity: str, reason: str) -> None:
        line = element.sourceline or 0
        column = lines[line - 1].find(f"<{element.tag}") + 1 if 0 < line <= len(lines) else 0
        items.append(ReportItem(line, max(column, 1), what, severity, reason))

    def owner(element) -> str:
        parent = element.getparent()
        while parent is not None and parent.tag not in ("link", "joint", "robot"):
            parent = parent.getparent()
        return "robot" if parent is None or parent.tag == "robot" else f"{parent.tag} '{parent.get('name')}'"

    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        parent = element.getparent()
        if parent is None:
            continue
        where = f"<{element.tag}> in {owner(element)}"
        if element.tag in IGNORED_TAGS:
            item(element, where, IGNORED, IGNORED_TAGS[element.tag])
        elif parent.tag in KNOWN_CHILDREN and element.tag not in KNOWN_CHILDREN[parent.tag]:
            item(element, where, IGNORED, "unknown tag")
        elif parent.tag == "joint" and element.tag == "limit" and element.get("lower") is not None:
            if parent.get("type") in ("revolute", "prismatic"):
                item(
                    element,
                    where,
                    NOT_SIMULATED,
                    f"no joint stops yet: the joint is free beyond [{element.get('lower')}, {element.get('upper')}]",
                )
        elif parent.tag == "joint" and element.tag == "dynamics":
            if float(element.get("friction") or 0.0) > 0.0:
                item(element, f"friction of {where}", NOT_SIMULATED, "joint friction is not modelled")
            if float(element.get("damping") or 0.0) > 0.0 and parent.get("type") not in ROTATIONAL:
                item(
                    element,
                    f"damping of {where}",
                    NOT_SIMULATED,
                    f"damping of a {parent.get('type')} joint is not modelled",
                )
        elif element.tag == "mesh" and parent.tag == "geometry" and owner(parent).startswith("link"):
            if parent.getparent().tag == "visual" and mesh_path(element.get("filename", "")) is None:
                item(element, where, IGNORED, f"mesh file '{element.get('filename')}' not found: not shown")
    return ImportReport(str(path), tuple(items))
