"""Parsed ADAMS statements -> ``Model`` (the second pass, where ids are resolved).

Naming: every element is called by its statement and id without leading zeros (``PART/2``,
``MARKER/202``, ``JOINT/1``, ``SFORCE/3``); the id as written (``PART/02``) and the ADAMS/View
name, when the file carries one, are aliases. The ground part is the model's ground.

Geometry: PART ``QG``/``REULER`` (or ``ZG``/``XG``) place the part frame in ground; MARKER
``QP``/``REULER`` (or ``ZP``/``XP``) place a marker in its part frame. A rigid body's frame is its
CM marker (``IP`` is about the CM marker's axes, or about the ``IM`` marker's, which is then moved
to the CM); every marker is added at its input pose in ground (``frame="world"``). Initial
velocities: ``VX``, ``VY``, ``VZ`` of the CM in ground axes (or ``VM``'s); ``WX``, ``WY``, ``WZ``
in the CM marker's axes (or ``WM``'s); absent ones are zero, as in ADAMS.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from multibody.io.adm import keywords
from multibody.io.adm.contact import build_contact
from multibody.io.adm.errors import AdmError, AdmReferenceError
from multibody.io.adm.expressions import (
    Expression,
    UnsupportedFunction,
    compile_expression,
)
from multibody.io.adm.friction import build_friction
from multibody.io.adm.functions import Curve
from multibody.io.adm.graphics import Graphics, add_display_shape
from multibody.io.adm.gse import GseFunctions, build_gse, check_gse_functions, gse_output_entry, gse_sizes
from multibody.io.adm.lexer import split_statements
from multibody.io.adm.loads import ComponentLaw, ScalarLaw
from multibody.io.adm.parser import Statement, Unknown, parse_statement
from multibody.io.adm.report import IGNORED, NOT_SIMULATED, ImportReport, ReportItem
from multibody.io.adm.units import Units, system_units, unit_value
from multibody.model import joints
from multibody.model.body import Body, RigidBody
from multibody.model.element import ModelError
from multibody.model.forces import Bushing, SpringDamper
from multibody.model.forces.expression import StateDependentLoad
from multibody.model.functions import Callable as FunctionOfTime
from multibody.model.marker import LARGEST_COORDINATE, Marker, finite_vector
from multibody.model.model import Model
from multibody.model.motion import Motion
from multibody.model.states import DifferentialEquation, Measure, StateSpace, controllable_canonical
from multibody.spatial.measurements import Measurements
from multibody.spatial.rotations import rotation_from_313_angles, rotation_from_axes

FloatArray = NDArray[np.float64]

JOINT_CLASSES = {
    "REVOLUTE": joints.Revolute,
    "TRANSLATIONAL": joints.Translational,
    "CYLINDRICAL": joints.Cylindrical,
    "SPHERICAL": joints.Spherical,
    "UNIVERSAL": joints.Universal,
    "HOOKE": joints.Hooke,
    "PLANAR": joints.Planar,
    "FIXED": joints.Fixed,
    "ATPOINT": joints.AtPoint,
    "INLINE": joints.InLine,
    "INPLANE": joints.InPlane,
    "ORIENTATION": joints.Orientation,
    "PARALLEL_AXES": joints.ParallelAxes,
    "PERPENDICULAR": joints.Perpendicular,
    "CONVEL": joints.ConstantVelocity,
}
"""JOINT and JPRIM types -> joint classes (SCREW is built with its PITCH; RACKPIN is reported, not built)."""

HARMLESS_STATEMENTS = {
    "DEBUG",
    "LSOLVER",
    "EQUILIBRIUM",
    "IC",
    "KINEMATICS",
    "STRING",
    "MREQUEST",
    "FEMDATA",
    "PREFERENCES",
    "LIST",
    "NOLIST",
    "SECTION",
    "UNITS_CONVERSION",
}
"""Unknown statements that only tune ADAMS's solvers or its output (reported as ignored)."""
OUTPUT_STATEMENTS = {"REQUEST", "GRAPHICS", "OUTPUT", "RESULTS"}
"""Statements whose unknown keywords cannot change the motion."""

DISTANCE_GCON = re.compile(
    r"^\s*DM\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*-\s*((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*$", re.IGNORECASE
)
"""``GCON FUNCTION = DM(a, b) - L``: a distance constraint."""


@dataclass(frozen=True)
class Request:
    """A REQUEST: named components (``x``, ``y``, ``psi`` ... or ``f2`` ...) as expressions in the
    dataset's units, evaluated after the analysis (``multibody.io.adm.requests``)."""

    name: str
    components: dict[str, Expression]
    comment: str = ""
    locations: dict[str, tuple[int, int]] = field(default_factory=dict)
    """(line, column) in ``source`` of each component's expression (the statement's for the
    DISPLACEMENT ... FORCE forms)."""
    source: str = "<string>"


@dataclass(frozen=True)
class IntegratorSettings:
    """INTEGRATOR mapped onto ``dynamics``: the DAE form ("SI2" or "I3") and ERROR as ``rtol``
    (None: the defaults)."""

    method: str | None = None
    rtol: float | None = None


@dataclass(frozen=True)
class AdmModel:
    """An imported dataset: the model, what was left out, and what ADAMS would also do with it."""

    model: Model
    title: str
    units: Units
    report: ImportReport
    aliases: dict[str, str]
    """alias (``PART/02``, ADAMS/View name) -> element name (``PART/2``)"""
    requests: tuple[Request, ...] = ()
    graphics: tuple[Graphics, ...] = ()
    integrator: IntegratorSettings = field(default_factory=IntegratorSettings)

    def check(self) -> Model:
        """The model, or ``ModelError`` listing what was left out that would change the motion, or
        saying that the dataset has nothing to simulate (no PART besides the ground)."""
        if not self.model.bodies:
            raise ModelError(
                f"{self.report.source}: the dataset defines no PART besides the ground: nothing to simulate; "
                "add a PART with MASS, CM and IP (and its MARKERs)"
            )
        missing = self.report.changes_motion
        if missing:
            lines = "\n  ".join(item.format() for item in missing)
            raise ModelError(
                f"{self.report.source}: {len(missing)} items that change the motion could not be imported:\n  {lines}\n"
                "remove or replace them in the dataset to run it"
            )
        return self.model


def build(text: str, source: str = "<string>", gse: Mapping[int, GseFunctions] | None = None) -> AdmModel:
    """Import an ADAMS/Solver dataset given as text (see ``multibody.io.adm.read_adm``); ``gse``
    gives the functions of its GSE statements by id (``multibody.io.adm.gse``)."""
    return _Builder(text, source, check_gse_functions(gse)).run()


class _Builder:
    def __init__(self, text: str, source: str, gse: dict[int, GseFunctions] | None = None) -> None:
        self.source = source
        self.gse = gse or {}
        self.dataset = split_statements(text, source)
        self.items: list[ReportItem] = []
        self.units = Units()
        self.statements: dict[tuple[str, int | None], Statement] = {}
        self.order: list[Statement] = []
        self.bodies: dict[int, Body] = {}
        self.markers: dict[int, Marker] = {}
        self.marker_poses: dict[int, tuple[FloatArray, FloatArray]] = {}
        self.elements: dict[tuple[str, int], str] = {}
        self.aliases: dict[str, str] = {}
        self.curves: dict[tuple[int, str], Curve] = {}
        self.requests: list[Request] = []
        self.graphics: list[Graphics] = []
        self.integrator = IntegratorSettings()

    # -- reporting and errors ------------------------------------------------------------------

    def report(self, line: int, column: int, what: str, severity: str, reason: str = "") -> None:
        self.items.append(ReportItem(line, column, what, severity, reason))

    def report_static_hold(self, statement: Statement) -> None:
        """STATIC_HOLD of a DIFF, LSE, TFSISO or GSE: its states are not held in statics."""
        argument = statement.arguments["STATIC_HOLD"]
        self.report(
            argument.line,
            argument.column,
            f"{statement.label}: STATIC_HOLD",
            IGNORED,
            "statics solves for the states' equilibrium (x' = 0) instead of holding them; dynamics is unaffected",
        )

    def fail(self, statement: Statement, message: str, keyword: str | None = None, kind: type = AdmError) -> AdmError:
        argument = statement.arguments.get(keyword) if keyword else None
        line, column = (argument.line, argument.column) if argument else (statement.line, statement.column)
        return kind(f"{statement.label}: {message}", line, column, self.source)

    def required(self, statement: Statement, keyword: str) -> object:
        if not statement.has(keyword):
            raise self.fail(statement, f"{keyword} is required")
        return statement.get(keyword)

    # -- pass 1: statements --------------------------------------------------------------------

    def run(self) -> AdmModel:
        for text in self.dataset.statements:
            parsed = parse_statement(text, keywords.DATASET)
            if isinstance(parsed, Unknown):
                name = parsed.what.split()[-1]
                severity = IGNORED if name in HARMLESS_STATEMENTS else NOT_SIMULATED
                self.report(parsed.line, parsed.column, parsed.what, severity, "not supported by this reader")
                continue
            harmless = parsed.name in OUTPUT_STATEMENTS
            for unknown in parsed.unknown:
                self.report(
                    unknown.line,
                    unknown.column,
                    unknown.what,
                    IGNORED if harmless else NOT_SIMULATED,
                    "keyword not supported by this reader",
                )
            key = (parsed.name, parsed.id)
            if parsed.id is not None and key in self.statements:
                first = self.statements[key]
                raise self.fail(
                    parsed, f"the id is already used by the statement on line {first.line}", kind=AdmReferenceError
                )
            self.statements[key] = parsed
            self.order.append(parsed)
        return self.assemble()

    def of(self, name: str) -> list[Statement]:
        return [s for s in self.order if s.name == name]

    # -- pass 2: elements ----------------------------------------------------------------------

    def assemble(self) -> AdmModel:
        for statement in self.of("UNITS"):
            self.read_units(statement)
        title = self.dataset.title
        view_name = re.match(r"ADAMS/View model name:\s*(\S.*)$", title, re.IGNORECASE)
        model = Model(view_name.group(1).strip() if view_name else (title or self.source), gravity=(0.0, 0.0, 0.0))
        self.model = model
        self.build_parts()
        handlers: dict[str, Callable[[Statement], None]] = {
            "JOINT": self.build_joint,
            "JPRIM": self.build_joint,
            "GCON": self.build_gcon,
            "MOTION": self.build_motion,
            "SFORCE": self.build_sforce,
            "VFORCE": self.build_vector_load,
            "VTORQUE": self.build_vector_load,
            "GFORCE": self.build_vector_load,
            "BUSHING": self.build_bushing,
            "SPRINGDAMPER": self.build_springdamper,
            "FRICTION": lambda statement: build_friction(self, statement),
            "CONTACT": lambda statement: build_contact(self, statement),
            "ACCGRAV": self.build_gravity,
            "DIFF": self.build_diff,
            "LSE": self.build_lse,
            "TFSISO": self.build_tfsiso,
            "GSE": lambda statement: build_gse(self, statement),
            "REQUEST": self.build_request,
            "GRAPHICS": self.build_graphics,
            "INTEGRATOR": self.build_integrator,
            "OUTPUT": self.build_output_options,
            "RESULTS": self.build_output_options,
        }
        for statement in self.order:
            handler = handlers.get(statement.name)
            if handler is None:
                continue
            try:
                handler(statement)
            except ModelError as error:
                raise self.fail(statement, str(error)) from None
            except UnsupportedFunction as unsupported:
                effect = IGNORED if statement.name == "REQUEST" else NOT_SIMULATED
                self.report(unsupported.line, unsupported.column, f"{statement.label}: {unsupported.reason}", effect)
        unused = sorted(set(self.gse) - {s.id for s in self.of("GSE")})
        if unused:
            defined = ", ".join(s.label for s in self.of("GSE")) or "none"
            raise ModelError(
                f"{self.source}: gse= gives functions for GSE/{unused[0]}, which the dataset does not "
                f"define (its GSE statements: {defined})"
            )
        model.aliases.update(self.aliases)
        return AdmModel(
            model,
            title,
            self.units,
            ImportReport(self.source, tuple(sorted(self.items, key=lambda i: (i.line, i.column)))),
            dict(self.aliases),
            tuple(self.requests),
            tuple(self.graphics),
            self.integrator,
        )

    def name(self, statement: Statement, element: str | None = None) -> str:
        """Element name ``NAME/id``; records it, the id as written and the View name as aliases
        of ``element`` when the element has another name (the ground)."""
        name = statement.label
        if statement.id is not None:
            self.elements[(statement.name, statement.id)] = name
        element = element or name
        written = f"{statement.name}/{statement.id_text}"
        for alias in (name, written, statement.text.view_name):
            if alias and alias != element:
                self.aliases[alias] = element
        return name

    def read_units(self, statement: Statement) -> None:
        force = mass = length = time = None
        system = statement.get("SYSTEM")
        if system is not None:
            names = system_units(str(system))
            if names is None:
                raise self.fail(statement, f"unknown unit system {system}; known: MKS, MMKS, CGS, IPS, FPS", "SYSTEM")
            force, mass, length, time = (unit_value(k, n) for k, n in zip(("FORCE", "MASS", "LENGTH", "TIME"), names))
        given = {}
        for kind in ("FORCE", "MASS", "LENGTH", "TIME"):
            word = statement.get(kind)
            if word is None:
                continue
            value = unit_value(kind, str(word))
            if value is None:
                raise self.fail(statement, f"unknown {kind.lower()} unit {word}", kind)
            given[kind] = value
        current = self.units
        self.units = Units(
            force=given.get("FORCE", force or current.force),
            mass=given.get("MASS", mass or current.mass),
            length=given.get("LENGTH", length or current.length),
            time=given.get("TIME", time or current.time),
        )

    def vector(
        self, statement: Statement, keyword: str, dimension: str, default: tuple[float, ...] | None = None
    ) -> FloatArray:
        """A 3-vector keyword converted to SI."""
        values = statement.get(keyword, default)
        if values is None:
            raise self.fail(statement, f"{keyword} is required")
        values = tuple(values) if isinstance(values, tuple) else (values,)
        if len(values) != 3:
            raise self.fail(statement, f"{keyword} needs 3 numbers, got {len(values)}", keyword)
        vector = np.array(values, dtype=float) * self.units.factor(dimension)
        if not np.all(np.isfinite(vector)):
            raise self.fail(statement, f"{keyword} must be finite numbers, got {', '.join(map(str, values))}", keyword)
        if dimension == "length" and np.max(np.abs(vector)) > LARGEST_COORDINATE:
            raise self.fail(
                statement,
                f"{keyword} is more than {LARGEST_COORDINATE:g} m from the origin; float64 cannot resolve a "
                "mechanism there",
                keyword,
            )
        return vector

    def scalar(self, statement: Statement, keyword: str, dimension: str, default: float | None = None) -> float:
        value = statement.get(keyword, default)
        if value is None:
            raise self.fail(statement, f"{keyword} is required")
        return float(value) * self.units.factor(dimension)

    def frame(self, statement: Statement, origin: str, z_point: str, x_point: str) -> tuple[FloatArray, FloatArray]:
        """(origin [m], R) of a PART (QG, ZG, XG) or MARKER (QP, ZP, XP) with REULER."""
        p = self.vector(statement, origin, "length", (0.0, 0.0, 0.0))
        if statement.has("REULER") and statement.has(z_point):
            raise self.fail(statement, f"give REULER or {z_point}/{x_point}, not both", z_point)
        if statement.has("REULER"):
            angles = statement.get("REULER")
            if len(angles) != 3:
                raise self.fail(statement, f"REULER needs 3 angles, got {len(angles)}", "REULER")
            return p, rotation_from_313_angles(*angles)
        if statement.has(z_point):
            z = self.vector(statement, z_point, "length") - p
            x = self.vector(statement, x_point, "length") - p if statement.has(x_point) else None
            if np.linalg.norm(z) == 0.0 or (x is not None and np.linalg.norm(np.cross(z, x)) == 0.0):
                raise self.fail(statement, f"{z_point} (and {x_point}) must be off the origin and not in line", z_point)
            return p, rotation_from_axes(z, x)
        return p, np.eye(3)

    def build_parts(self) -> None:
        part_frames = {s.id: self.frame(s, "QG", "ZG", "XG") for s in self.of("PART")}
        grounds = [s for s in self.of("PART") if s.has("GROUND")]
        if len(grounds) > 1:
            raise self.fail(grounds[1], f"a second ground part (the first is on line {grounds[0].line})")
        for statement in self.of("MARKER"):
            part = self.required(statement, "PART")
            if part not in part_frames:
                raise self.fail(statement, f"PART={part} is not defined", "PART", AdmReferenceError)
            p_WP, R_WP = part_frames[part]
            p_PM, R_PM = self.frame(statement, "QP", "ZP", "XP")
            self.marker_poses[statement.id] = (p_WP + R_WP @ p_PM, R_WP @ R_PM)
            if statement.has("USEXP"):
                self.report(
                    statement.arguments["USEXP"].line,
                    statement.arguments["USEXP"].column,
                    f"{statement.label} keyword USEXP",
                    NOT_SIMULATED,
                    "the z-axis is taken exact, not the x-axis",
                )
        for statement in self.of("PART"):
            if statement.has("GROUND"):
                self.bodies[statement.id] = self.model.ground
                self.name(statement, self.model.ground.name)
                continue
            name = self.name(statement)
            try:
                self.bodies[statement.id] = self.model.add(self.rigid_body(statement, name, part_frames[statement.id]))
            except ModelError as error:
                raise self.fail(statement, str(error)) from None
        for statement in self.of("MARKER"):
            body = self.bodies[statement.get("PART")]
            p_WM, R_WM = self.marker_poses[statement.id]
            try:
                self.markers[statement.id] = body.add_marker(
                    self.name(statement), position=p_WM, orientation=R_WM, frame="world"
                )
            except ModelError as error:
                raise self.fail(statement, str(error)) from None

    def rigid_body(self, statement: Statement, name: str, part_frame: tuple[FloatArray, FloatArray]) -> RigidBody:
        if not statement.has("MASS"):
            raise self.fail(statement, "a part without MASS (a massless part) is not supported; give it a mass")
        mass = self.scalar(statement, "MASS", "mass")
        p_CM, R_CM = self.part_marker(statement, "CM", part_frame)
        inertia = self.inertia(statement, mass, p_CM, R_CM, part_frame)
        R_VM = self.part_marker(statement, "VM", (p_CM, np.eye(3)))[1]
        R_WM = self.part_marker(statement, "WM", (p_CM, R_CM))[1]
        velocity = R_VM @ np.array([self.scalar(statement, k, "velocity", 0.0) for k in ("VX", "VY", "VZ")])
        spin = R_WM @ np.array([self.scalar(statement, k, "angular_velocity", 0.0) for k in ("WX", "WY", "WZ")])
        exact = {"X": "x", "Y": "y", "Z": "z", "PSI": "orientation", "THETA": "orientation", "PHI": "orientation"}
        wanted = statement.get("EXACT", ())
        unknown = [w for w in wanted if w not in exact]
        if unknown:
            raise self.fail(statement, f"EXACT takes X, Y, Z, PSI, THETA, PHI; got {', '.join(unknown)}", "EXACT")
        return RigidBody(
            name,
            mass,
            inertia,
            position=p_CM,
            orientation=R_CM,
            velocity=velocity,
            angular_velocity=spin,
            exact=tuple(dict.fromkeys(exact[w] for w in wanted)),
        )

    def part_marker(
        self, part: Statement, keyword: str, default: tuple[FloatArray, FloatArray]
    ) -> tuple[FloatArray, FloatArray]:
        """World pose of the marker a PART keyword (CM, IM, VM, WM) names, which must be on the part."""
        if not part.has(keyword):
            return default
        marker_id = part.get(keyword)
        marker = self.statements.get(("MARKER", marker_id))
        if marker is None:
            raise self.fail(part, f"{keyword}={marker_id} is not a defined marker", keyword, AdmReferenceError)
        if marker.get("PART") != part.id:
            raise self.fail(part, f"{keyword}={marker_id} is on PART/{marker.get('PART')}, not on this part", keyword)
        return self.marker_poses[marker_id]

    def inertia(
        self,
        statement: Statement,
        mass: float,
        p_CM: FloatArray,
        R_CM: FloatArray,
        part_frame: tuple[FloatArray, FloatArray],
    ) -> FloatArray:
        """Inertia about the CM in CM marker axes [kg m^2] from IP (about IM, default the CM marker)."""
        if not statement.has("IP"):
            raise self.fail(statement, "a part with MASS needs IP = Ixx, Iyy, Izz[, Ixy, Ixz, Iyz]")
        values = np.array(statement.get("IP"), dtype=float) * self.units.factor("inertia")
        if values.size not in (3, 6):
            raise self.fail(
                statement, f"IP needs 3 or 6 numbers (Ixx, Iyy, Izz[, Ixy, Ixz, Iyz]), got {values.size}", "IP"
            )
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = np.concatenate([values, np.zeros(6 - values.size)])
        J_IM = np.array([[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]])
        p_IM, R_IM = self.part_marker(statement, "IM", (p_CM, R_CM))
        R_CI = R_CM.T @ R_IM
        J = R_CI @ J_IM @ R_CI.T
        r = R_CM.T @ (p_IM - p_CM)  # parallel axes: from the IM origin back to the CM
        return J - mass * (r @ r * np.eye(3) - np.outer(r, r))

    # -- resolver for expressions --------------------------------------------------------------

    def marker(self, marker_id: int, line: int, column: int) -> Marker:
        if marker_id not in self.markers:
            raise AdmReferenceError(f"MARKER/{marker_id} is not defined", line, column, self.source)
        return self.markers[marker_id]

    def curve(self, spline_id: int, method: str, line: int, column: int) -> Curve:
        statement = self.statements.get(("SPLINE", spline_id))
        if statement is None:
            raise AdmReferenceError(f"SPLINE/{spline_id} is not defined", line, column, self.source)
        x, y = statement.get("X", ()), statement.get("Y", ())
        if len(x) < 2 or len(x) != len(y) or np.any(np.diff(x) <= 0.0):
            raise self.fail(
                statement, f"X and Y need the same number (>= 2) of values, X increasing; got {len(x)} and {len(y)}"
            )
        try:
            return Curve(x, y, method, statement.has("LINEAR_EXTRAPOLATE"))
        except ValueError as error:
            raise self.fail(statement, f"cannot interpolate X, Y: {error}") from None

    def defined(self, kind: str, element_id: int, line: int, column: int) -> Statement:
        """Statement ``kind``/``element_id``, or an ``AdmReferenceError`` located where it is named."""
        statement = self.statements.get((kind, element_id))
        if statement is None:
            raise AdmReferenceError(f"{kind}/{element_id} is not defined", line, column, self.source)
        return statement

    def function_text(self, statement: Statement) -> tuple[str, Callable[[int], tuple[int, int]]]:
        """The FUNCTION expression of ``statement`` and where each of its characters is in the file."""
        argument = statement.arguments.get("FUNCTION")
        if argument is None:
            raise self.fail(statement, "FUNCTION is required")
        return str(argument.value), lambda offset: statement.text.where(argument.offset + offset)

    def variable(self, variable_id: int, line: int, column: int) -> tuple[str, Callable[[int], tuple[int, int]]]:
        return self.function_text(self.defined("VARIABLE", variable_id, line, column))

    def element(self, statement: str, element_id: int, line: int, column: int) -> str:
        return self.defined(statement, element_id, line, column).label

    def diff_rate(self, diff_id: int, line: int, column: int) -> tuple[str, Callable[[int], tuple[int, int]]]:
        return self.function_text(self.defined("DIFF", diff_id, line, column))

    def implicit_diff(self, diff_id: int, line: int, column: int) -> str | None:
        statement = self.defined("DIFF", diff_id, line, column)
        return statement.label if statement.has("IMPLICIT") else None

    def array_entry(self, array_id: int, k: int, line: int, column: int) -> tuple:
        array = self.defined("ARRAY", array_id, line, column)
        kind = next((flag for flag in ("X", "U", "Y", "IC") if array.has(flag)), "IC")
        if kind in ("IC", "U"):
            entries = array.get("NUMBERS" if kind == "IC" else "VARIABLES", ())
            entries = entries if isinstance(entries, tuple) else (entries,)
            if not 1 <= k <= len(entries):
                raise AdmError(
                    f"ARYVAL({array_id}, {k}): ARRAY/{array_id} has {len(entries)} entries", line, column, self.source
                )
            return ("number", entries[k - 1]) if kind == "IC" else ("variable", int(entries[k - 1]))
        owner = next((s for s in self.order if s.name in ("LSE", "TFSISO", "GSE") and s.get(kind) == array_id), None)
        if owner is None:
            raise AdmError(
                f"ARYVAL({array_id}, ...): no LSE, GSE or TFSISO uses ARRAY/{array_id} as its {kind}",
                line,
                column,
                self.source,
            )
        if owner.name == "GSE":
            states, outputs = gse_sizes(self, owner)
            if not 1 <= k <= (states if kind == "X" else outputs):
                raise AdmError(
                    f"ARYVAL({array_id}, {k}): {owner.label} has NS = {states}, NO = {outputs}",
                    line,
                    column,
                    self.source,
                )
            return ("state", owner.label, k - 1) if kind == "X" else gse_output_entry(self, owner, k - 1)
        A, _, C, D, inputs = self.state_equations(owner)
        size = A.shape[0] if kind == "X" else C.shape[0]
        if not 1 <= k <= size:
            raise AdmError(
                f"ARYVAL({array_id}, {k}): {owner.label} has {size} {kind} entries", line, column, self.source
            )
        if kind == "X":
            return ("state", owner.label, k - 1)
        return ("output", owner.label, tuple(C[k - 1]), tuple(D[k - 1]), inputs)

    def expression(
        self, statement: Statement, keyword: str, text: str | None = None, solving: str | None = None
    ) -> Expression:
        """Compile the expression of ``keyword`` (or ``text`` generated for the statement).
        ``solving``: the implicit DIFF whose residual this is, the only one whose DIF1 it may read."""
        argument = statement.arguments.get(keyword)
        if text is None:
            if argument is None:
                raise self.fail(statement, f"{keyword} is required")
            text = str(argument.value)
        if argument is not None and text == argument.value:
            locate = lambda offset: statement.text.where(argument.offset + offset)
        else:
            locate = lambda offset: (statement.line, statement.column)
        expression = compile_expression(text, self.units, self, locate, self.source)
        foreign = sorted(expression.rates - {solving})
        if foreign:
            line, column = (argument.line, argument.column) if argument else (statement.line, statement.column)
            raise UnsupportedFunction(
                f"DIF1 of the implicit {', '.join(foreign)} outside its own FUNCTION (the rate of an implicit DIFF "
                "is known only while its residual is solved)",
                line,
                column,
                self.source,
            )
        return expression

    def state_expression(
        self, statement: Statement, keyword: str, text: str | None = None, solving: str | None = None
    ) -> Expression:
        """An expression for a force: it may read time and marker states, not accelerations or loads."""
        expression = self.expression(statement, keyword, text, solving)
        late = expression.needs & {"acceleration", "loads"}
        if late:
            argument = statement.arguments.get(keyword)
            line, column = (argument.line, argument.column) if argument else (statement.line, statement.column)
            raise UnsupportedFunction(
                f"{keyword} reads {' and '.join(sorted(late))}, which forces cannot depend on here",
                line,
                column,
                self.source,
            )
        return expression

    # -- constraints ---------------------------------------------------------------------------

    def marker_of(self, statement: Statement, keyword: str) -> Marker:
        argument = statement.arguments.get(keyword)
        if argument is None:
            raise self.fail(statement, f"{keyword} is required")
        return self.marker(int(argument.value), argument.line, argument.column)

    def build_joint(self, statement: Statement) -> None:
        types = [k for k in (*keywords.JOINT_TYPES, *keywords.JPRIM_TYPES) if statement.has(k)]
        if len(types) != 1:
            choices = keywords.JOINT_TYPES if statement.name == "JOINT" else keywords.JPRIM_TYPES
            raise self.fail(statement, f"give exactly one type ({', '.join(choices)})")
        kind = types[0]
        if kind == "SCREW":
            i, j = self.marker_of(statement, "I"), self.marker_of(statement, "J")
            pitch = self.scalar(statement, "PITCH", "length")
            self.model.add(joints.Screw(self.name(statement), i, j, pitch=pitch))
            return
        if kind not in JOINT_CLASSES:
            self.report(
                statement.line,
                statement.column,
                f"{statement.label}, {kind}",
                NOT_SIMULATED,
                f"{kind} joints are not supported",
            )
            return
        i, j = self.marker_of(statement, "I"), self.marker_of(statement, "J")
        self.model.add(JOINT_CLASSES[kind](self.name(statement), i, j))

    def build_gcon(self, statement: Statement) -> None:
        text = str(self.required(statement, "FUNCTION"))
        found = DISTANCE_GCON.match(text)
        i = self.marker_of(statement, "I")
        if found is None:
            argument = statement.arguments["FUNCTION"]
            self.report(
                argument.line,
                argument.column,
                f"{statement.label}, FUNCTION = {text}",
                NOT_SIMULATED,
                "only distance constraints DM(I, J) - L are supported",
            )
            return
        argument = statement.arguments["FUNCTION"]
        a, b = (self.marker(int(found.group(k)), argument.line, argument.column) for k in (1, 2))
        if i not in (a, b):
            raise self.fail(statement, f"I=MARKER/{i.name} must be one of the markers of DM(...)", "I")
        other = b if a is i else a
        distance = float(found.group(3)) * self.units.factor("length")
        self.model.add(joints.Distance(self.name(statement), i, other, distance=distance))

    def build_motion(self, statement: Statement) -> None:
        if not statement.has("JOINT"):
            self.report(
                statement.line,
                statement.column,
                f"{statement.label} on I/J components",
                NOT_SIMULATED,
                "only MOTION/id, JOINT=id is supported",
            )
            return
        joint_id = statement.get("JOINT")
        joint_name = self.elements.get(("JOINT", joint_id))
        if joint_name is None:
            if ("JOINT", joint_id) in self.statements:
                self.report(
                    statement.line,
                    statement.column,
                    statement.label,
                    NOT_SIMULATED,
                    f"JOINT/{joint_id} is not simulated",
                )
                return
            raise self.fail(statement, f"JOINT={joint_id} is not defined", "JOINT", AdmReferenceError)
        joint = self.model.joints[joint_name]
        coordinate = (
            "translation" if statement.has("TRANSLATION") else "rotation" if statement.has("ROTATION") else None
        )
        if coordinate is None and len(joint.coordinates) == 1:
            coordinate = joint.coordinates[0]
        level = (
            "velocity"
            if statement.has("VELOCITY")
            else "acceleration"
            if statement.has("ACCELERATION")
            else "displacement"
        )
        dimension = {
            ("translation", "displacement"): "length",
            ("translation", "velocity"): "velocity",
            ("translation", "acceleration"): "acceleration",
            ("rotation", "displacement"): "angle",
            ("rotation", "velocity"): "angular_velocity",
            ("rotation", "acceleration"): "angular_acceleration",
        }.get((coordinate, level), "none")
        expression = self.expression(statement, "FUNCTION")
        if expression.needs - {"time"}:
            argument = statement.arguments["FUNCTION"]
            raise UnsupportedFunction(
                "a MOTION function of anything but TIME", argument.line, argument.column, self.source
            )
        of_time, scale = expression.of_time(), self.units.factor(dimension)
        function = FunctionOfTime(lambda t: scale * of_time(t))
        self.model.add(Motion(self.name(statement), joint, coordinate=coordinate, **{level: function}))

    # -- first-order states: DIFF, LSE, TFSISO ------------------------------------------------

    def build_diff(self, statement: Statement) -> None:
        """DIFF: dx/dt = FUNCTION (in the dataset's time unit), x(0) = IC (default 0).

        IMPLICIT: 0 = FUNCTION, with DIF1 of this DIFF in it standing for the state's rate (a
        ``DifferentialEquation(implicit=True)``: Newton finds the rate at every evaluation). IC
        may then give a second value, ADAMS's first guess of the rate, which that Newton
        solve from zero does not need."""
        implicit = statement.has("IMPLICIT")
        if statement.has("STATIC_HOLD"):
            self.report_static_hold(statement)
        expression = self.state_expression(statement, "FUNCTION", solving=statement.label if implicit else None)
        initial = statement.get("IC", 0.0)
        initial = initial if isinstance(initial, tuple) else (initial,)
        if implicit and statement.label not in expression.rates:
            raise self.fail(
                statement,
                f"the FUNCTION of an implicit DIFF is a residual 0 = f(DIF({statement.id}), DIF1({statement.id}), ...) "
                f"and must contain DIF1({statement.id}); for dx/dt = f leave out IMPLICIT",
                "FUNCTION",
            )
        if len(initial) > (2 if implicit else 1):
            kind = "x(0) and the guess of dx/dt(0) for an implicit" if implicit else "one value for an explicit"
            raise self.fail(statement, f"IC takes {kind} DIFF, got {len(initial)} values", "IC")
        per_second = 1.0 / self.units.factor("time")
        evaluate = _evaluator(expression, statement.label)
        if implicit:
            rate = lambda t, x, x_dot, measure: evaluate(measure, x_dot)
        else:
            rate = lambda t, x, measure: per_second * evaluate(measure)
        self.model.add(
            DifferentialEquation(
                self.name(statement), rate, initial=float(initial[0]), reads=expression.markers, implicit=implicit
            )
        )

    def state_equations(self, statement: Statement) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, tuple]:
        """``(A, B, C, D, input VARIABLE ids)`` of an LSE (its MATRIX statements) or a TFSISO
        (NUMERATOR, DENOMINATOR in ascending powers of s, as ADAMS gives them)."""
        inputs = self.array_variables(statement, "U") if statement.has("U") else ()
        if statement.name == "TFSISO":
            if len(inputs) != 1:
                raise self.fail(statement, f"U must name an ARRAY with one VARIABLE, got {len(inputs)}", "U")
            numerator = self.required(statement, "NUMERATOR")
            denominator = self.required(statement, "DENOMINATOR")
            as_array = lambda v: np.atleast_1d(np.asarray(v, dtype=float))[::-1]
            A, B, C, D = controllable_canonical(as_array(numerator), as_array(denominator), statement.label)
            return A, B, C, D, inputs
        A = self.matrix(statement, "A")
        n = A.shape[0]
        if A.shape != (n, n):
            raise self.fail(statement, f"A must be square, MATRIX/{statement.get('A')} is {A.shape}", "A")
        B = self.matrix(statement, "B") if statement.has("B") else np.zeros((n, max(len(inputs), 1)))
        C = self.matrix(statement, "C") if statement.has("C") else np.zeros((0, n))
        D = self.matrix(statement, "D") if statement.has("D") else np.zeros((C.shape[0], B.shape[1]))
        if inputs and B.shape[1] != len(inputs):
            raise self.fail(statement, f"B has {B.shape[1]} columns for {len(inputs)} inputs (the U array)", "B")
        return A, B, C, D, inputs

    def array_variables(self, statement: Statement, keyword: str) -> tuple[int, ...]:
        array = self.statements.get(("ARRAY", statement.get(keyword)))
        if array is None:
            raise self.fail(
                statement, f"{keyword}={statement.get(keyword)} is not a defined ARRAY", keyword, AdmReferenceError
            )
        ids = array.get("VARIABLES", ())
        return tuple(int(v) for v in (ids if isinstance(ids, tuple) else (ids,)))

    def matrix(self, statement: Statement, keyword: str) -> FloatArray:
        """The MATRIX a keyword names (FULL = RORDER or CORDER, ROWS, COLUMNS, VALUES)."""
        matrix = self.statements.get(("MATRIX", statement.get(keyword)))
        if matrix is None:
            raise self.fail(
                statement, f"{keyword}={statement.get(keyword)} is not a defined MATRIX", keyword, AdmReferenceError
            )
        rows, columns = int(self.required(matrix, "ROWS")), int(self.required(matrix, "COLUMNS"))
        values = np.atleast_1d(np.asarray(self.required(matrix, "VALUES"), dtype=float))
        order = str(matrix.get("FULL", "RORDER")).upper()
        if values.size != rows * columns or order not in ("RORDER", "CORDER"):
            raise self.fail(
                matrix,
                f"FULL = RORDER or CORDER with ROWS x COLUMNS = {rows * columns} VALUES, got "
                f"{values.size} values in {order}",
            )
        return values.reshape((rows, columns), order="C" if order == "RORDER" else "F")

    def build_lse(self, statement: Statement) -> None:
        """LSE (and TFSISO): x' = A x + B u, y = C x + D u, u the VARIABLEs of the U array."""
        if statement.has("STATIC_HOLD"):
            self.report_static_hold(statement)
        A, B, C, D, inputs = self.state_equations(statement)
        input_values, reads = self.input_values(statement, inputs)
        per_second = 1.0 / self.units.factor("time")
        initial = self.initial_array(statement, A.shape[0]) if statement.has("IC") else None
        self.model.add(
            StateSpace(
                self.name(statement),
                per_second * A,
                per_second * B,
                C if C.shape[0] else np.zeros((1, A.shape[0])),
                input_values if inputs else lambda measure: np.zeros(1),
                D=D if C.shape[0] else np.zeros((1, B.shape[1])),
                initial=initial,
                reads=reads,
            )
        )

    build_tfsiso = build_lse

    def input_values(
        self, statement: Statement, variable_ids: tuple[int, ...]
    ) -> tuple[Callable[[Measure], FloatArray], tuple[Marker, ...]]:
        """The values (k,) of the input VARIABLEs ``variable_ids`` of ``statement`` (an LSE, TFSISO
        or GSE) at the instant of a ``Measure``, in the dataset's units, and the markers they read."""
        expressions = [self.state_expression(self.variable_statement(v, statement), "FUNCTION") for v in variable_ids]
        evaluators = [_evaluator(e, statement.label) for e in expressions]

        def values(measure: Measure) -> FloatArray:
            return np.array([evaluate(measure) for evaluate in evaluators], dtype=float)

        return values, tuple(m for e in expressions for m in e.markers)

    def initial_array(self, statement: Statement, size: int) -> list[float]:
        """The ``size`` numbers of the IC array of an LSE, TFSISO or GSE ``statement``."""
        return [self.array_entry(statement.get("IC"), k + 1, statement.line, 0)[1] for k in range(size)]  # type: ignore[arg-type]

    def variable_statement(self, variable_id: int, user: Statement) -> Statement:
        variable = self.statements.get(("VARIABLE", variable_id))
        if variable is None:
            raise self.fail(user, f"VARIABLE/{variable_id} (an input) is not defined", kind=AdmReferenceError)
        return variable

    # -- forces --------------------------------------------------------------------------------

    def build_sforce(self, statement: Statement) -> None:
        rotational = statement.has("ROTATIONAL")
        if rotational == statement.has("TRANSLATIONAL"):
            raise self.fail(statement, "give one of TRANSLATIONAL or ROTATIONAL")
        i, j = self.marker_of(statement, "I"), self.marker_of(statement, "J")
        action_only = statement.has("ACTIONONLY")
        unit = self.units.factor("torque" if rotational else "force")
        law = ScalarLaw(
            self.state_expression(statement, "FUNCTION"), rotational, action_only, i, j, unit, statement.label
        )
        self.model.add(StateDependentLoad(self.name(statement), i, law, None if action_only else j))

    def build_vector_load(self, statement: Statement) -> None:
        i, j = self.marker_of(statement, "I"), self.marker_of(statement, "JFLOAT")
        frame = self.marker_of(statement, "RM")

        def components(names: tuple[str, ...]) -> tuple[Expression | None, ...]:
            return tuple(self.state_expression(statement, k) if statement.has(k) else None for k in names)

        law = ComponentLaw(
            components(("FX", "FY", "FZ")),
            components(("TX", "TY", "TZ")),
            frame,
            self.units.factor("force"),
            self.units.factor("torque"),
            statement.label,
        )
        self.model.add(StateDependentLoad(self.name(statement), i, law, j))

    def build_bushing(self, statement: Statement) -> None:
        i, j = self.marker_of(statement, "I"), self.marker_of(statement, "J")
        zero = (0.0, 0.0, 0.0)
        values = {
            "stiffness": ("K", "stiffness"),
            "damping": ("C", "damping"),
            "rotational_stiffness": ("KT", "rotational_stiffness"),
            "rotational_damping": ("CT", "rotational_damping"),
            "preload_force": ("FORCE", "force"),
            "preload_torque": ("TORQUE", "torque"),
        }
        self.model.add(
            Bushing(
                self.name(statement),
                i,
                j,
                **{
                    name: self.vector(statement, keyword, dimension, zero)
                    for name, (keyword, dimension) in values.items()
                },
            )
        )

    def build_springdamper(self, statement: Statement) -> None:
        i, j = self.marker_of(statement, "I"), self.marker_of(statement, "J")
        if statement.has("ROTATIONAL"):
            number = {k: float(statement.get(k, 0.0)) for k in ("KT", "CT", "ANGLE", "TORQUE")}
            i_id, j_id = int(statement.get("I")), int(statement.get("J"))
            text = (
                f"-{number['KT']!r}*(AZ({i_id},{j_id})-{number['ANGLE']!r})-{number['CT']!r}*WZ({i_id},{j_id},{j_id})"
                f"+{number['TORQUE']!r}"
            )
            law = ScalarLaw(
                self.state_expression(statement, "KT", text),
                True,
                False,
                i,
                j,
                self.units.factor("torque"),
                statement.label,
            )
            self.model.add(StateDependentLoad(self.name(statement), i, law, j))
            return
        self.model.add(
            SpringDamper(
                self.name(statement),
                i,
                j,
                stiffness=self.scalar(statement, "K", "stiffness", 0.0),
                damping=self.scalar(statement, "C", "damping", 0.0),
                free_length=self.scalar(statement, "LENGTH", "length", 0.0),
                preload=self.scalar(statement, "FORCE", "force", 0.0),
            )
        )

    def build_gravity(self, statement: Statement) -> None:
        g = np.array([float(statement.get(k, 0.0)) for k in ("IGRAV", "JGRAV", "KGRAV")])
        self.model.gravity = finite_vector("gravity", "IGRAV, JGRAV, KGRAV", g * self.units.factor("acceleration"))

    # -- outputs and settings ------------------------------------------------------------------

    def build_request(self, statement: Statement) -> None:
        name = self.name(statement)
        comment = str(statement.get("COMMENT", statement.get("TITLE", "")))
        measured = [k for k in ("DISPLACEMENT", "VELOCITY", "ACCELERATION", "FORCE") if statement.has(k)]
        texts: dict[str, str] = {}
        if measured:
            i = int(self.required(statement, "I"))
            j = int(statement.get("J", 0))
            rm = int(statement.get("RM", 0))
            kind = measured[0]
            templates = {
                "DISPLACEMENT": (
                    ("x", "DX({i},{j},{rm})"),
                    ("y", "DY({i},{j},{rm})"),
                    ("z", "DZ({i},{j},{rm})"),
                    ("psi", "PSI({i},{j})"),
                    ("theta", "THETA({i},{j})"),
                    ("phi", "PHI({i},{j})"),
                ),
                "VELOCITY": (
                    ("vx", "VX({i},{j},{rm})"),
                    ("vy", "VY({i},{j},{rm})"),
                    ("vz", "VZ({i},{j},{rm})"),
                    ("wx", "WX({i},{j},{rm})"),
                    ("wy", "WY({i},{j},{rm})"),
                    ("wz", "WZ({i},{j},{rm})"),
                ),
                "ACCELERATION": (
                    ("ax", "ACCX({i},{j},{rm})"),
                    ("ay", "ACCY({i},{j},{rm})"),
                    ("az", "ACCZ({i},{j},{rm})"),
                    ("wdx", "WDTX({i},{j},{rm})"),
                    ("wdy", "WDTY({i},{j},{rm})"),
                    ("wdz", "WDTZ({i},{j},{rm})"),
                ),
                "FORCE": (
                    ("fx", "FX({i},{j},{rm})"),
                    ("fy", "FY({i},{j},{rm})"),
                    ("fz", "FZ({i},{j},{rm})"),
                    ("tx", "TX({i},{j},{rm})"),
                    ("ty", "TY({i},{j},{rm})"),
                    ("tz", "TZ({i},{j},{rm})"),
                ),
            }[kind]
            texts = {label: template.format(i=i, j=j, rm=rm) for label, template in templates}
            components = {label: self.expression(statement, "I", text) for label, text in texts.items()}
            locations = {label: (statement.line, statement.column) for label in components}
        else:
            given = [k for k in (f"F{n}" for n in range(1, 9)) if statement.has(k)]
            components = {k.lower(): self.expression(statement, k) for k in given}
            locations = {k.lower(): (statement.arguments[k].line, statement.arguments[k].column) for k in given}
        self.requests.append(Request(name, components, comment, locations, self.source))

    def build_graphics(self, statement: Statement) -> None:
        shapes = [k for k in keywords.GRAPHICS_SHAPES if statement.has(k)] + (
            ["OUTLINE"] if statement.has("OUTLINE") else []
        )
        markers = {k: self.marker_of(statement, k) for k in ("CM", "CORNER", "RM") if statement.has(k)}
        values: dict[str, object] = {}
        for keyword, argument in statement.arguments.items():
            kind = keywords.DATASET["GRAPHICS"][keyword]
            if kind == "real" and keyword not in ("ANGLE",):
                values[keyword] = float(argument.value) * self.units.factor("length")
            elif kind == "ints" or (kind == "int" and keyword not in markers):
                values[keyword] = argument.value
        graphics = Graphics(self.name(statement), shapes[0] if shapes else "", markers, values, statement.line)
        self.graphics.append(graphics)
        if not add_display_shape(graphics):
            self.report(
                statement.line,
                statement.column,
                f"{statement.label}, {graphics.shape or 'no shape'}",
                IGNORED,
                "kept, not displayed",
            )

    def build_integrator(self, statement: Statement) -> None:
        method = "I3" if statement.has("I3") else "SI2" if statement.has("SI2") or statement.has("SI1") else None
        for keyword in ("SI1", "HHT", "NEWMARK", "ABAM", "RKF45", "HMAX", "HMIN", "HINIT", "KMAX", "MAXIT"):
            if statement.has(keyword):
                argument = statement.arguments[keyword]
                reason = (
                    "integrated with BDF on the SI2 or I3 form instead"
                    if keyword in keywords.INTEGRATORS + ("SI1",)
                    else "the step size and order follow from the error tolerance"
                )
                self.report(argument.line, argument.column, f"INTEGRATOR keyword {keyword}", IGNORED, reason)
        error = statement.get("ERROR")
        self.integrator = IntegratorSettings(method, None if error is None else float(error))

    def build_output_options(self, statement: Statement) -> None:
        self.report(
            statement.line,
            statement.column,
            f"{statement.name} options",
            IGNORED,
            "ADAMS output-file settings; multibody writes its own HDF5 results",
        )


def _evaluator(expression: Expression, owner: str) -> Callable[..., float]:
    """``evaluate(measure, rate=None)``: ``expression`` at the instant of a ``Measure`` (its markers
    looked up there), an implicit DIFF's residual at the trial ``rate`` [1/s] of its state; a
    value that is not a finite number raises ``ValueError`` naming ``owner``."""

    def evaluate(measure: Measure, rate: float | None = None) -> float:
        bound = expression.bind([measure.marker_index(m) for m in expression.markers])
        measurements = measure.measurements if rate is None else _SolvingFor(measure.measurements, rate)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            value = float(bound(measurements))
        if not np.isfinite(value):
            raise ValueError(f"{owner}: {expression.text!r} is {value} at t = {measure.t:g} s")
        return value

    return evaluate


class _SolvingFor:
    """A ``Measurements`` with the trial rate [1/s] of the implicit DIFF whose residual is being
    evaluated: what ``DIF1`` of that DIFF reads (``c.rate``; ``Builder.expression`` lets no other
    expression read it)."""

    def __init__(self, measurements: Measurements, rate: float) -> None:
        self._measurements = measurements
        self._rate = float(rate)

    def __getattr__(self, name: str) -> object:
        return getattr(self._measurements, name)

    def rate(self, owner: str, k: int) -> float:
        """The trial rate of the DIFF being solved (``owner``, state ``k`` = 0)."""
        return self._rate
