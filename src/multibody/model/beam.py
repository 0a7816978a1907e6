"""Finite-segment beams (MDAS II): a slender member as rigid segments joined by section springs.

A beam of length L along its start marker's x axis is cut into ``n`` equal rigid segments of
length ``l = L / n``. Each segment is a ``RigidBody`` (mass ``rho A l``; moments of inertia
``rho l (Iy + Iz)`` about the axis, ``rho l Iy + m l^2 / 12`` and ``rho l Iz + m l^2 / 12``
across) and neighbours are joined at their common end by a ``Bushing`` whose stiffness is that
of the length ``l`` of beam between their centres: ``EA / l`` along the axis, ``kappa G A / l``
in shear, ``G J / l`` in torsion, ``E Iy / l`` and ``E Iz / l`` in bending (Huston's finite
segment method, as in the MDAS II thesis). Large overall deformation is carried by the segments'
rigid motions, each joint's deformation staying small. ``Results.beam(name)`` gives the
node positions and section forces of a run. With ``clamped=True`` the first segment is
held to the start marker by the same springs for the half segment ``l / 2`` (twice as stiff);
otherwise the user joins ``beam.start`` to what carries it.

Damping is stiffness-proportional: every spring's damping is ``damping`` [s] times its stiffness.
Segments are named ``<beam>_1 .. <beam>_n`` with markers ``start``, ``center`` and ``end`` (and
``axis``, where a cylinder of the section's area draws the segment in the animation); the
joining bushings ``<beam>_joint_1 ..`` (``<beam>_joint_0`` the clamp), so every result of the
package (positions, reactions, forces, animation) works on a beam as on any other part.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.body import Ground, RigidBody
from multibody.model.element import Element, ModelError
from multibody.model.forces.applied import PointForce
from multibody.model.forces.bushing import Bushing
from multibody.model.geometry import Cylinder
from multibody.model.marker import Marker, finite_vector
from multibody.model.material import Material, Section

FloatArray = NDArray[np.float64]


class FiniteSegmentBeam(Element):
    """A beam of ``length`` [m] from ``start_marker`` along its x axis, cut into ``n_segments``
    rigid segments joined by the springs of ``section`` and ``material`` (module docstring).

    ``clamped``: hold the first segment to ``start_marker``'s body; ``damping`` [s]:
    stiffness-proportional damping coefficient of every spring; ``line_load`` (3,) [N/m]: a dead
    load per length in world axes besides gravity, each segment's share at its centre
    (``<beam>_w<k>``).
    """

    kind = "beam"

    def __init__(
        self,
        name: str,
        start_marker: Marker,
        length: float,
        n_segments: int,
        section: Section,
        material: Material,
        clamped: bool = False,
        damping: float = 0.0,
        line_load: ArrayLike | None = None,
    ) -> None:
        super().__init__(name)
        owner = self.describe()
        check_beam_inputs(owner, start_marker, section, material, "n_segments", n_segments, damping)
        if not isinstance(length, (int, float)) or not np.isfinite(length) or length <= 0.0:
            raise ModelError(f"{owner}: length must be a positive number of metres, got {length!r}")
        self.start_marker = start_marker
        self.length, self.n_segments = float(length), int(n_segments)
        self.section, self.material = section, material
        self.clamped, self.damping = bool(clamped), float(damping)
        self.segments, self.joints = self._build()
        load = None if line_load is None else finite_vector(owner, "line_load [N/m]", line_load)
        self.loads = (
            ()
            if load is None
            else tuple(  # the line load of each segment at its centre
                PointForce(f"{self.name}_w{k + 1}", segment.marker("center"), self.segment_length * load)
                for k, segment in enumerate(self.segments)
            )
        )
        self.parts = (*self.segments, *self.joints, *self.loads)
        """the segments, the joining springs and the line loads (``Model.add`` adds them with the beam)"""

    @property
    def segment_length(self) -> float:
        """``l = L / n`` [m]."""
        return self.length / self.n_segments

    @property
    def start(self) -> Marker:
        """The marker at the beam's first end (on the first segment), to join to what carries it."""
        return self.segments[0].marker("start")

    @property
    def end(self) -> Marker:
        """The marker at the beam's free end (on the last segment)."""
        return self.segments[-1].marker("end")

    @property
    def drawing(self) -> dict:
        """What the results need to rebuild the beam (``Results.beam``): its segments, joining
        springs, segment length [m], the marker each spring's J side is (``body/marker``) and the
        radius [m] of the tube that draws it."""
        return {
            "name": self.name,
            "kind": "finite_segment",
            "bodies": [segment.name for segment in self.segments],
            "radius": float(np.sqrt(self.section.area / np.pi)),
            "segments": [segment.name for segment in self.segments],
            "joints": [joint.name for joint in self.joints],
            "joint_axes": [joint.j_marker.full_name for joint in self.joints],
            "segment_length": self.segment_length,
            "section_stiffness": self.section_stiffness(1.0)[1].tolist(),
        }

    def attached_markers(self) -> tuple[Marker, ...]:
        """The start marker (the model checks its body is in the model)."""
        return (self.start_marker,)

    def section_stiffness(self, span: float) -> tuple[FloatArray, FloatArray]:
        """``(translational (3,) [N/m], rotational (3,) [N m/rad])`` stiffness of a length ``span``
        [m] of the beam, in the section's axes (x along the beam)."""
        E, G = self.material.E, self.material.G
        s = self.section
        return (
            np.array([E * s.area, s.shear_coefficient * G * s.area, s.shear_coefficient * G * s.area]) / span,
            np.array([G * s.J, E * s.Iy, E * s.Iz]) / span,
        )

    def _build(self) -> tuple[tuple[RigidBody, ...], tuple[Bushing, ...]]:
        p_WS, R_WS, v_WS, w_WS = marker_world_state(self.start_marker)
        l = self.segment_length
        s, rho = self.section, self.material.density
        mass = rho * s.area * l
        inertia = (rho * l * (s.Iy + s.Iz), rho * l * s.Iy + mass * l**2 / 12.0, rho * l * s.Iz + mass * l**2 / 12.0)
        axis = R_WS[:, 0]
        radius = np.sqrt(s.area / np.pi)
        segments = []
        for k in range(self.n_segments):
            center = p_WS + (k + 0.5) * l * axis
            segment = RigidBody(
                f"{self.name}_{k + 1}",
                mass,
                inertia,
                position=center,
                orientation=R_WS,
                velocity=v_WS + np.cross(w_WS, center - p_WS),
                angular_velocity=w_WS,
            )
            segment.add_marker("start", (-0.5 * l, 0.0, 0.0))
            segment.add_marker("center")
            segment.add_marker("end", (0.5 * l, 0.0, 0.0))
            # drawn as a cylinder of the section's area along the segment
            segment.add_shape(Cylinder(radius, l), segment.add_marker("axis", z_axis=(1.0, 0.0, 0.0)))
            segments.append(segment)
        joints = []
        if self.clamped:
            joints.append(self._spring(0, segments[0].marker("start"), self.start_marker, 0.5 * l))
        for k in range(1, self.n_segments):
            joints.append(self._spring(k, segments[k].marker("start"), segments[k - 1].marker("end"), l))
        return tuple(segments), tuple(joints)

    def _spring(self, k: int, i_marker: Marker, j_marker: Marker, span: float) -> Bushing:
        translational, rotational = self.section_stiffness(span)
        return Bushing(
            f"{self.name}_joint_{k}",
            i_marker,
            j_marker,
            stiffness=translational,
            damping=self.damping * translational,
            rotational_stiffness=rotational,
            rotational_damping=self.damping * rotational,
        )


def check_beam_inputs(
    owner: str, start_marker: object, section: object, material: object, what: str, count: object, damping: object
) -> None:
    """ModelError naming ``owner`` unless the start marker, section, material, element count
    (``what``: its parameter's name) and damping [s] of a beam are valid."""
    if not isinstance(start_marker, Marker):
        raise ModelError(f"{owner}: start_marker must be a Marker (from body.add_marker), got {start_marker!r}")
    if not isinstance(section, Section) or not isinstance(material, Material):
        raise ModelError(f"{owner}: section must be an mb.Section and material an mb.Material")
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool) or count < 1:
        raise ModelError(f"{owner}: {what} must be a positive integer, got {count!r}")
    if not isinstance(damping, (int, float)) or not np.isfinite(damping) or damping < 0.0:
        raise ModelError(f"{owner}: damping must be a non-negative number of seconds, got {damping!r}")


def marker_world_state(marker: Marker) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """World position [m], orientation, origin velocity [m/s] and angular velocity [rad/s] of
    ``marker`` in the model's input configuration."""
    body = marker.body
    if isinstance(body, Ground):
        return marker.position, marker.orientation, np.zeros(3), np.zeros(3)
    r = body.orientation @ marker.position
    return (
        body.position + r,
        body.orientation @ marker.orientation,
        body.velocity + np.cross(body.angular_velocity, r),
        body.angular_velocity,
    )
