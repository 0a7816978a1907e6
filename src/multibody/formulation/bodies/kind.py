"""The protocol of a body kind besides the rigid one: how its coordinates move markers, enter ``G``,
``gamma``, ``M`` and ``Q``, and what energy they hold.

A kind is one kernel module (``multibody.formulation.bodies.<kind>``) holding a ``BodyKind``,
registered once in ``multibody.formulation.bodies.registry``. Its group (the struct of arrays
compiled for all bodies of the kind by ``multibody.system.compile``: ``_modal_bodies``,
``_cable_bodies``, ``_rope_spans``) is a field of the ``System`` (``BodyKind.system_field``);
``System.body_kinds`` pairs every kind present with its group, in the order of their coordinates
after the rigid frames' in ``q`` and ``v``. The rigid kind (``bodies.rigid``) is not one of them:
it moves every body's frame and the markers as if rigid, in the compiled kernels of the per-step
path; the other kinds add what their own coordinates do.

A group is a frozen struct of arrays with ``names`` (its bodies', for messages). Every hook is
vectorized over the kind's group and has one signature for all kinds (an adapter in the kind's
module where its kernels want other arguments); a hook a kind has no part in is None (a moving-node
rope span's markers are the cable kind's: it has no marker hooks).
Positions ``q`` (n_positions,) and velocities ``v`` (n_velocities,) are the full vectors; the
coordinates after the frames' are ``Pose.q_modal`` and ``Twist.v_modal`` (they start at
``System.n_frame_positions`` and ``System.n_frame_velocities``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from multibody.formulation.frames import Pose, Twist
    from multibody.system.system import System

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
MatrixEntries = tuple[IntArray, IntArray, FloatArray]
"""``(row, column, value)`` entries of a matrix; repeated places add up"""

MarkerGeometry = Callable[[Any, FloatArray, FloatArray, FloatArray], tuple[FloatArray, FloatArray]]
"""``(group, q, marker_position (nm, 3), marker_orientation (nm, 3, 3)) -> (positions, orientations)``:
new arrays with the markers on the kind's bodies placed where its coordinates put them (from their
body's frame origin [m] and ``R_BM``; world ones for markers whose body index is the ground's)."""
MarkerMotion = Callable[[Any, "System", "Pose", FloatArray, FloatArray, FloatArray, FloatArray, FloatArray], None]
"""``(group, system, frames, v, w_WB_W (nb+1, 3), v_WM_W, w_WM_W, bias_WM_W (nm, 3 each))``: add to the
markers' velocities [m/s], angular velocities [rad/s] and acceleration biases ``J' v`` [m/s^2]
(world, in place) what the kind's velocities do."""
JacobianEntries = Callable[[Any, "System", "Pose", IntArray, IntArray, FloatArray], MatrixEntries]
"""``(group, system, frames, i_marker (m,), j_marker (m,), body_coefficients (m, 4, 3)) -> entries``:
the kind's columns of ``G`` for rows whose world coefficients on their markers' bodies' twists
(``rigid.body_coefficients``: ``a_vI, g_wI, a_vJ, g_wJ``) are given."""
AngularBias = Callable[
    [Any, "System", "Pose", "Twist", FloatArray, FloatArray, IntArray, IntArray, FloatArray], FloatArray
]
"""``(group, system, frames, motion, q, v, i_marker, j_marker, body_coefficients) -> (m,)``: the part of
``gamma`` from the angular acceleration bias of the markers on the kind's bodies, which the rows'
kernels (written for markers that turn with their body) leave out."""
LoadForces = Callable[[Any, "System", "Pose", FloatArray, FloatArray, IntArray, FloatArray, IntArray, FloatArray], None]
"""``(group, system, frames, force_W (k, 3), torque_W (k, 3), marker (k,), sign (k,), application (k,),
out (nv,))``: add to ``out`` the generalized forces on the kind's coordinates of the loads ``sign (F, T)``
[N, N m] (world) carried by the bodies of ``marker`` and applied at the origins of ``application``
(``rigid.generalized_forces``' arguments)."""
ConstantMass = Callable[[Any, "System"], Any]
"""``(group, system) -> (nv, nv) sparse matrix [kg]``: the part of the mass matrix that never changes."""
BodyTerms = Callable[
    [Any, "System", "Pose", "Twist", FloatArray, FloatArray, bool, FloatArray],
    tuple[Sequence[MatrixEntries], float],
]
"""``(group, system, frames, motion, q, v, elements, out (nv,)) -> (mass entries, dissipated power [W])``:
add the kind's gravity, inertial, elastic and damping forces to ``out`` and give its
configuration-dependent mass as entries of ``M`` (each item added in turn); with ``elements``
False, without the terms whose tangents ``element_tangents`` gives."""
ElementTangents = Callable[[Any, "System", FloatArray, FloatArray], list[tuple[IntArray, FloatArray, FloatArray]]]
"""``(group, system, q, v) -> [(columns (ne, w), d f / d x (ne, w, w), d f / d v (ne, w, w)), ...]``: the
tangents of the element terms ``body_terms`` leaves out without ``elements``, element by element."""
KineticEnergy = Callable[[Any, "System", "Pose", "Twist"], float]
"""``(group, system, frames, motion) -> [J]``: the kinetic energy the kind adds to the rigid frames'."""
PotentialEnergy = Callable[[Any, "System", "Pose"], float]
"""``(group, system, frames) -> [J]``: the kind's gravity potential and strain energy."""
VelocityGroups = Callable[[Any, list[IntArray]], None]
"""``(group, columns)``: extend the coupling groups' velocity columns (``System.adjacency``'s groups; one
per body, its frame's columns) in place with the kind's: joined to their body's group, or appended
as groups of their own, in the order of ``System.adjacency``."""
MarkerCoupling = Callable[[Any, "System", IntArray], dict[int, set[int]]]
"""``(group, system, group_of (nv,)) -> {marker: groups}``: per marker the kind's coordinates move
(System marker index), the coupling groups (``System.adjacency``'s) of those coordinates,
``group_of`` being the group of each velocity coordinate (a marker on a body's frame couples that
body's group: only markers whose coordinates are not their body's need saying)."""
CouplingSets = Callable[[Any, "System", IntArray, Callable[[int], set[int]]], list[set[int]]]
"""``(group, system, group_of (nv,), marker_groups) -> [groups, ...]``: sets of coupling groups that the
kind's own attachments couple outside its elements (a rope's arc on a rim), ``marker_groups(marker)``
giving the groups a marker couples."""
CoordinateScale = Callable[[Any, float], list[FloatArray]]
"""``(group, length [m]) -> [arrays]``: a typical size of each of the kind's velocity coordinates in
``v`` order, for a model of size ``length``."""
CoordinateNames = Callable[[Any, bool], list[str]]
"""``(group, balance) -> names``: per velocity coordinate of the kind in ``v`` order, what it moves
(``balance`` False) or the balance equation on it (``balance`` True), for messages."""


@dataclass(frozen=True)
class BodyKind:
    """A body kind besides the rigid one: where its group sits in the System and its hooks."""

    name: str
    """snake case, unique ("modal")"""
    system_field: str
    """the ``System`` field that holds the kind's group (None there when the model has none)"""
    description: str
    """what its bodies are called in messages ("flexible bodies")"""
    slackens: bool = False
    """whether its elements can go slack (no stiffness), as a cable's or a rope's do on the way from a
    straight start to a sag: statics then follows the loads up from the start when Newton fails"""
    marker_geometry: MarkerGeometry | None = None
    """called by ``frames.marker_geometry`` (every pose)"""
    add_marker_motion: MarkerMotion | None = None
    """called by ``frames.add_marker_motion`` (every twist)"""
    jacobian_entries: JacobianEntries | None = None
    """called by ``constraints.JacobianAssembler.with_kind_columns`` (every ``G``)"""
    angular_bias_rhs: AngularBias | None = None
    """called by ``CartesianFormulation.gamma``"""
    load_forces: LoadForces | None = None
    """called by ``forces.add_tail_element_forces`` (every evaluation with force elements)"""
    constant_mass_matrix: ConstantMass | None = None
    """called once, by ``CartesianFormulation.__init__``"""
    body_terms: BodyTerms | None = None
    """called by ``CartesianFormulation._evaluate`` (every evaluation)"""
    element_tangents: ElementTangents | None = None
    """called by ``CartesianFormulation.force_jacobians``"""
    kinetic_energy: KineticEnergy | None = None
    """called by ``CartesianFormulation.kinetic_energy``"""
    potential_energy: PotentialEnergy | None = None
    """called by ``CartesianFormulation.potential_energy``"""
    add_velocity_groups: VelocityGroups | None = None
    """called once, by ``frames.body_velocity_columns``"""
    marker_coupling: MarkerCoupling | None = None
    """called once, by ``cartesian._attachment_coupling``"""
    coupling_sets: CouplingSets | None = None
    """called once, by ``cartesian._attachment_coupling``"""
    coordinate_scale: CoordinateScale | None = None
    """called by ``frames.coordinate_scale`` (statics' and linearization's steps)"""
    coordinate_names: CoordinateNames | None = None
    """called by statics' messages (``analysis.statics._kind_coordinate_names``)"""
