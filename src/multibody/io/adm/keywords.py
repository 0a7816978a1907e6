"""The statements and keywords the reader knows, with the kind of value each keyword takes.

Value kinds: ``flag`` (no value), ``int`` / ``ints`` (ids), ``real`` / ``reals`` (numbers, a
``D`` suffix meaning degrees), ``word`` / ``words`` (names; ``words`` separated by ``:``),
``expr`` (a function expression, to the next top-level ``,`` or ``\\``) and ``text`` (the rest
of the statement). A keyword may be abbreviated to any prefix that no other keyword of its
statement shares; ``ABBREVIATIONS`` lists the prefixes ADAMS resolves although they are shared.
"""

from __future__ import annotations

from multibody.io.adm.contact import CONTACT_KEYWORDS
from multibody.io.adm.friction import FRICTION_KEYWORDS

Schema = dict[str, str]


def _kinds(kind: str, *names: str) -> Schema:
    return dict.fromkeys(names, kind)


_MARKER_PAIR = _kinds("int", "I", "J")
_FORCE_COMPONENTS = _kinds("expr", "FX", "FY", "FZ")
_TORQUE_COMPONENTS = _kinds("expr", "TX", "TY", "TZ")

JOINT_TYPES = (
    "REVOLUTE",
    "TRANSLATIONAL",
    "CYLINDRICAL",
    "SPHERICAL",
    "UNIVERSAL",
    "HOOKE",
    "PLANAR",
    "FIXED",
    "RACKPIN",
    "SCREW",
    "CONVEL",
)
JPRIM_TYPES = ("ATPOINT", "INLINE", "INPLANE", "ORIENTATION", "PARALLEL_AXES", "PERPENDICULAR")
GRAPHICS_SHAPES = ("CYLINDER", "BOX", "ELLIPSOID", "SPHERE", "PLANE", "FRUSTUM", "CIRCLE", "ARC", "POINT")
INTEGRATORS = ("GSTIFF", "WSTIFF", "CONSTANT_BDF", "HHT", "NEWMARK", "HASTIFF", "ABAM", "RKF45")
FORMULATIONS = ("I3", "SI2", "SI1")

DATASET: dict[str, Schema] = {
    "UNITS": _kinds("word", "SYSTEM", "FORCE", "MASS", "LENGTH", "TIME") | {"UCF": "real"},
    "PART": {
        "GROUND": "flag",
        "MASS": "real",
        "CM": "int",
        "IM": "int",
        "IP": "reals",
        "QG": "reals",
        "REULER": "reals",
        "ZG": "reals",
        "XG": "reals",
        "VM": "int",
        "WM": "int",
        "EXACT": "words",
    }
    | _kinds("real", "VX", "VY", "VZ", "WX", "WY", "WZ"),
    "MARKER": {
        "PART": "int",
        "QP": "reals",
        "REULER": "reals",
        "ZP": "reals",
        "XP": "reals",
        "FLOATING": "flag",
        "USEXP": "flag",
    },
    "JOINT": _kinds("flag", *JOINT_TYPES) | _MARKER_PAIR | {"PD": "real", "PITCH": "real"},
    "JPRIM": _kinds("flag", *JPRIM_TYPES) | _MARKER_PAIR,
    "MOTION": {"JOINT": "int", "FUNCTION": "expr"}
    | _MARKER_PAIR
    | _kinds(
        "flag", "TRANSLATION", "ROTATION", "X", "Y", "Z", "B1", "B2", "B3", "DISPLACEMENT", "VELOCITY", "ACCELERATION"
    ),
    "SFORCE": _MARKER_PAIR | _kinds("flag", "TRANSLATIONAL", "ROTATIONAL", "ACTIONONLY") | {"FUNCTION": "expr"},
    "VFORCE": _kinds("int", "I", "JFLOAT", "RM") | _FORCE_COMPONENTS,
    "VTORQUE": _kinds("int", "I", "JFLOAT", "RM") | _TORQUE_COMPONENTS,
    "GFORCE": _kinds("int", "I", "JFLOAT", "RM") | _FORCE_COMPONENTS | _TORQUE_COMPONENTS,
    "BUSHING": _MARKER_PAIR | _kinds("reals", "K", "C", "KT", "CT", "FORCE", "TORQUE"),
    "SPRINGDAMPER": _MARKER_PAIR
    | _kinds("flag", "TRANSLATIONAL", "ROTATIONAL")
    | _kinds("real", "K", "C", "LENGTH", "FORCE", "KT", "CT", "ANGLE", "TORQUE"),
    "GCON": {"I": "int", "FUNCTION": "expr"},
    "FRICTION": FRICTION_KEYWORDS,
    "CONTACT": CONTACT_KEYWORDS,
    "ACCGRAV": _kinds("real", "IGRAV", "JGRAV", "KGRAV"),
    "VARIABLE": {"FUNCTION": "expr", "IC": "real"},
    "SPLINE": {"X": "reals", "Y": "reals", "LINEAR_EXTRAPOLATE": "flag"},
    "ARRAY": {"NUMBERS": "reals", "SIZE": "int", "VARIABLES": "ints"} | _kinds("flag", "IC", "U", "X", "Y"),
    "DIFF": {"FUNCTION": "expr", "IC": "reals", "IMPLICIT": "flag", "STATIC_HOLD": "flag"},
    "GSE": _kinds("int", "NS", "NO", "X", "U", "Y", "IC", "ND", "XD", "ICD")
    | _kinds("flag", "STATIC_HOLD", "IMPLICIT")
    | _kinds("expr", "FUNCTION", "SAMPLE_PERIOD", "SAMPLE_OFFSET")
    | _kinds("text", "ROUTINE", "INTERFACE"),
    "MATRIX": {"FULL": "word", "ROWS": "int", "COLUMNS": "int", "VALUES": "reals"},
    "LSE": _kinds("int", "X", "U", "Y", "A", "B", "C", "D", "IC") | {"STATIC_HOLD": "flag"},
    "TFSISO": _kinds("int", "X", "U", "Y") | _kinds("reals", "NUMERATOR", "DENOMINATOR") | {"STATIC_HOLD": "flag"},
    "REQUEST": _kinds("flag", "DISPLACEMENT", "VELOCITY", "ACCELERATION", "FORCE")
    | _kinds("int", "I", "J", "RM")
    | _kinds("expr", *(f"F{k}" for k in range(1, 9)))
    | {"TITLE": "text", "COMMENT": "text"},
    "GRAPHICS": _kinds("flag", *GRAPHICS_SHAPES)
    | _kinds("int", "CM", "CORNER", "SIDES", "SEGMENTS", "RM")
    | _kinds("real", "LENGTH", "RADIUS", "TOP", "BOTTOM", "X", "Y", "Z", "XSCALE", "YSCALE", "ZSCALE", "ANGLE")
    | _kinds("real", "XMIN", "XMAX", "YMIN", "YMAX")
    | {"OUTLINE": "ints"},
    "OUTPUT": _kinds("flag", "REQSAVE", "GRSAVE", "DSCALE", "NOSEPARATOR", "SEPARATOR", "TELETYPE", "NOPRINT"),
    "RESULTS": _kinds("flag", "XRF", "FORMATTED", "NOACCELERATIONS", "NODATASTRUCTURES"),
    "INTEGRATOR": _kinds("flag", *INTEGRATORS, *FORMULATIONS)
    | _kinds("real", "ERROR", "HMAX", "HMIN", "HINIT")
    | _kinds("int", "KMAX", "MAXIT"),
    "END": {},
}
"""Statement name -> keyword -> value kind, for .adm datasets."""

COMMANDS: dict[str, Schema] = {
    "SIMULATE": _kinds("flag", "DYNAMIC", "KINEMATIC", "STATIC", "TRANSIENT", "INITIAL_CONDITIONS")
    | _kinds("real", "END", "DURATION", "DTOUT")
    | {"STEPS": "int"},
    "INTEGRATOR": DATASET["INTEGRATOR"],
    "OUTPUT": DATASET["OUTPUT"],
    "RESULTS": DATASET["RESULTS"],
    "STOP": {},
}
"""Command name -> keyword -> value kind, for .acf command files."""

ABBREVIATIONS: dict[str, dict[str, str]] = {
    "REQUEST": {"D": "DISPLACEMENT", "V": "VELOCITY", "A": "ACCELERATION", "F": "FORCE", "C": "COMMENT"},
}
"""Prefixes ADAMS resolves although several keywords of the statement share them."""
