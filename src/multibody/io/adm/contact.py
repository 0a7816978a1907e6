"""The ADAMS CONTACT statement: compliant contact between GRAPHICS solids (``mb.Contact``).

``CONTACT/id, IGEOM=id[, id ...], JGEOM=id[, id ...], IMPACT, STIFFNESS=r, EXPONENT=r,
DAMPING=r, DMAX=r | POISSON, PENALTY=r, RESTITUTION_COEFFICIENT=r [, COULOMB_FRICTION=ON | OFF |
DYNAMICS_ONLY, MU_STATIC=r, MU_DYNAMIC=r, STICTION_TRANSITION_VELOCITY=r,
FRICTION_TRANSITION_VELOCITY=r]``

The geometries are the GRAPHICS solids as drawn (``multibody.io.adm.graphics``), one placed shape
serving display and contact: SPHERE (and an ELLIPSOID of equal diameters, which is how ADAMS/View
writes a sphere), BOX, CYLINDER and PLANE (unbounded for contact, its solid below the RM marker's
xy-plane). Each IGEOM is paired with each JGEOM, one ``mb.Contact`` per pair: ``CONTACT/id`` for a
single pair, ``CONTACT/id.k`` (k = 1, 2 ... in IGEOM-major order) otherwise. A geometry of
another kind, or a pair ``mb.Contact`` does not take (box-sphere ...), is reported as not
simulated and that pair is left out.

Meaning, from the ADAMS/Solver reference:

- IMPACT: ``k g^e + STEP(g, 0, 0, DMAX, DAMPING) g'`` at penetration g, which is our "impact"
  law term for term. STIFFNESS is in force / length^EXPONENT of the dataset's units, DAMPING in
  force time / length, DMAX a length. All four are required, as in ADAMS.
- POISSON: a linear penalty (PENALTY, force / length) whose rebound speed is
  RESTITUTION_COEFFICIENT times the impact speed: our "poisson" law with exponent 1. ADAMS's
  NORMAL_TRANSITION_VELOCITY (its velocity blend) is not taken: ours is fixed
  (``multibody.model.forces.contact.POISSON_BLEND``); the keyword is reported.
- Friction: the coefficient rises from 0 at rest to MU_STATIC at STICTION_TRANSITION_VELOCITY
  and passes to MU_DYNAMIC at FRICTION_TRANSITION_VELOCITY, ADAMS's contact friction curve and
  ours (``stiction_velocity``, ``transition_velocity``). With COULOMB_FRICTION = ON all four
  are required (no default is guessed); DYNAMICS_ONLY is ON, since the coefficient is 0 at rest
  and friction takes no part in a static equilibrium anyway. Without COULOMB_FRICTION the
  contact has friction when MU_STATIC is given.

Keywords this reader does not take (IFLIP_GEOMETRY, NORMAL_FUNCTION, AUGMENTED_LAGRANGIAN_...)
are reported as not simulated by the parser; a CONTACT without IGEOM and JGEOM is reported as a
statement not simulated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from multibody.io.adm.graphics import Graphics
from multibody.io.adm.report import NOT_SIMULATED
from multibody.model.forces.contact import PAIRS, Contact
from multibody.model.geometry import Box, Cylinder, PlacedShape, Plane, Sphere

if TYPE_CHECKING:
    from multibody.io.adm.builder import _Builder as Builder
    from multibody.io.adm.parser import Statement

CONTACT_KEYWORDS: dict[str, str] = {
    "I": "int",
    "J": "int",
    "IGEOM": "ints",
    "JGEOM": "ints",
    "IMPACT": "flag",
    "POISSON": "flag",
    "STIFFNESS": "real",
    "EXPONENT": "real",
    "DAMPING": "real",
    "DMAX": "real",
    "PENALTY": "real",
    "RESTITUTION_COEFFICIENT": "real",
    "COULOMB_FRICTION": "word",
    "MU_STATIC": "real",
    "MU_DYNAMIC": "real",
    "STICTION_TRANSITION_VELOCITY": "real",
    "FRICTION_TRANSITION_VELOCITY": "real",
}
"""The CONTACT keywords this reader knows, with their value kinds (``multibody.io.adm.keywords``).
I and J (a pair of markers) are known so that they are not read as abbreviations of IGEOM or
IMPACT: a CONTACT without IGEOM and JGEOM is reported as a statement the reader does not take."""

CONTACT_SHAPES = (Sphere, Box, Cylinder, Plane)
"""The shapes GRAPHICS solids draw that a CONTACT takes."""
CONTACT_GEOMETRY = "SPHERE (or ELLIPSOID with equal diameters), BOX, CYLINDER and PLANE"
"""The GRAPHICS kinds a CONTACT takes, as its report says."""


def build_contact(builder: Builder, statement: Statement) -> None:
    """Add the ``Contact`` elements of a CONTACT statement to ``builder.model`` (see the module).

    A CONTACT read before one of its GRAPHICS statements is read again after every statement of
    the dataset (it is appended once more to ``builder.order``), so that the shapes it touches
    are the ones drawn."""
    if not (statement.has("IGEOM") and statement.has("JGEOM")):
        builder.report(
            statement.line,
            statement.column,
            f"statement {statement.name}",
            NOT_SIMULATED,
            "only a CONTACT between GRAPHICS solids (IGEOM, JGEOM) is read",
        )
        return
    geometries = {role: _geometry_ids(builder, statement, role) for role in ("IGEOM", "JGEOM")}
    records: dict[int, Graphics] = {}
    for role, ids in geometries.items():
        for graphics_id in ids:
            record = _graphics(builder, statement, role, graphics_id)
            if record is None:
                if builder.order.count(statement) == 1:
                    builder.order.append(statement)
                    return
                raise builder.fail(statement, f"{role}: GRAPHICS/{graphics_id} was not read", role)
            records[graphics_id] = record
    law = _law(builder, statement)
    pairs = [(i, j) for i in geometries["IGEOM"] for j in geometries["JGEOM"]]
    label = builder.name(statement)
    for k, (i, j) in enumerate(pairs, start=1):
        refused = [
            f"{role} = GRAPHICS/{g} is {_kind(records[g])}, no solid contact takes ({CONTACT_GEOMETRY})"
            for role, g in (("IGEOM", i), ("JGEOM", j))
            if not _contact_solid(records[g].placed)
        ]
        if refused:
            _report(builder, statement, "; ".join(refused))
            continue
        i_shape, j_shape = records[i].placed, records[j].placed
        assert i_shape is not None and j_shape is not None
        kinds = (type(i_shape.shape), type(j_shape.shape))
        if kinds not in PAIRS and kinds[::-1] not in PAIRS:
            _report(
                builder,
                statement,
                f"GRAPHICS/{i} - GRAPHICS/{j}: contact between a {kinds[0].__name__} and a {kinds[1].__name__} "
                "is not supported",
            )
            continue
        name = label if len(pairs) == 1 else f"{label}.{k}"
        builder.model.add(Contact(name, i_shape, j_shape, **law))


def _contact_solid(placed: PlacedShape | None) -> bool:
    return placed is not None and isinstance(placed.shape, CONTACT_SHAPES)


def _kind(record: Graphics) -> str:
    """What a GRAPHICS statement draws, for the report: ``a FRUSTUM``, ``an ELLIPSOID of unequal
    diameters``, ``a GRAPHICS without a solid``."""
    if not record.shape:
        return "a GRAPHICS without a solid"
    if record.shape == "ELLIPSOID" and record.placed is not None:
        return "an ELLIPSOID of unequal diameters"
    return f"{'an' if record.shape[0] in 'AEIOU' else 'a'} {record.shape}"


def _geometry_ids(builder: Builder, statement: Statement, role: str) -> tuple[int, ...]:
    value = builder.required(statement, role)
    return tuple(int(v) for v in (value if isinstance(value, tuple) else (value,)))


def _graphics(builder: Builder, statement: Statement, role: str, graphics_id: int) -> Graphics | None:
    """The GRAPHICS record of ``graphics_id`` (None when its statement is not read yet);
    ``AdmReferenceError`` at ``role`` when there is no such statement."""
    argument = statement.arguments[role]
    label = builder.element("GRAPHICS", graphics_id, argument.line, argument.column)
    return next((record for record in builder.graphics if record.name == label), None)


def _report(builder: Builder, statement: Statement, reason: str) -> None:
    builder.report(statement.line, statement.column, f"{statement.label}, {reason}", NOT_SIMULATED)


def _law(builder: Builder, statement: Statement) -> dict[str, object]:
    """The ``Contact`` keyword arguments of the normal law and friction, in SI."""
    laws = [word for word in ("IMPACT", "POISSON") if statement.has(word)]
    if len(laws) != 1:
        raise builder.fail(statement, "give exactly one normal force law, IMPACT or POISSON")
    units = builder.units
    length, force, time = units.factor("length"), units.factor("force"), units.factor("time")
    if laws[0] == "IMPACT":
        exponent = float(builder.required(statement, "EXPONENT"))
        law: dict[str, object] = {
            "law": "impact",
            "stiffness": float(builder.required(statement, "STIFFNESS")) * force / length**exponent,
            "exponent": exponent,
            "damping": float(builder.required(statement, "DAMPING")) * force * time / length,
            "penetration_depth": float(builder.required(statement, "DMAX")) * length,
        }
    else:
        law = {
            "law": "poisson",
            "stiffness": float(builder.required(statement, "PENALTY")) * force / length,
            "exponent": 1.0,
            "restitution": float(builder.required(statement, "RESTITUTION_COEFFICIENT")),
        }
    switch = str(statement.get("COULOMB_FRICTION", "ON" if statement.has("MU_STATIC") else "OFF")).upper()
    if switch not in ("ON", "OFF", "DYNAMICS_ONLY"):
        raise builder.fail(statement, f"COULOMB_FRICTION must be ON, OFF or DYNAMICS_ONLY, got {switch}")
    if switch != "OFF":
        velocity = units.factor("velocity")
        law |= {
            "mu_static": float(builder.required(statement, "MU_STATIC")),
            "mu_dynamic": float(builder.required(statement, "MU_DYNAMIC")),
            "stiction_velocity": float(builder.required(statement, "STICTION_TRANSITION_VELOCITY")) * velocity,
            "transition_velocity": float(builder.required(statement, "FRICTION_TRANSITION_VELOCITY")) * velocity,
        }
    return law
