"""Inverse dynamics: the actuator efforts, joint reactions and motion power of a prescribed motion.

A fully driven (zero-DOF) model's motion follows from its constraints; the kinematic analysis
then solves ``G^T lambda = Q - M a`` for the multipliers, which hold every joint's reaction
and each motion's driving force or torque. A model with degrees of freedom is driven first:
``drive`` names the joints whose coordinates are prescribed (by a time function, or followed
from a ``Results``, e.g. a dynamics run or a measured motion), and a copy of the model gets one
``Motion`` per entry, so the model passed in is left unchanged.

Per motion: the effort is the reaction on its I marker along (translation) or about (rotation)
the z-axis of its J marker [N or N m], the force the actuator must apply; its power is effort
times the rate of the prescribed coordinate [W] (equal to ``-lambda nu`` of the driver row).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from multibody.analysis.errors import AnalysisError
from multibody.analysis.kinematics import kinematics
from multibody.analysis.linearize import joint_coordinate
from multibody.analysis.operating_point import positions_from_results
from multibody.formulation import frames as kinematics_frames
from multibody.formulation.constraints import KIND
from multibody.model.functions import CubicSpline, TimeFunction
from multibody.model.model import Model
from multibody.model.motion import Motion
from multibody.results import Results
from multibody.system.system import System

DriveSpec = TimeFunction | float | Callable[[float], float] | Results
"""A prescribed joint coordinate: displacement [m or rad] as a number, a time function or a
callable of time, or a ``Results`` of the same model to follow."""


@dataclass(frozen=True)
class InverseDynamics:
    """Result of ``inverse_dynamics``.

    Attributes:
        results: the kinematic run: positions, velocities, accelerations, every joint's and
            motion's reaction (``results.joint(name)``), energies.
        motion_names: (nm,) the motions, in model order.
        effort: (T, nm) force [N] or torque [N m] each motion applies to its I marker's body,
            along or about z_J.
        power: (T, nm) power each motion delivers [W].
    """

    results: Results
    motion_names: tuple[str, ...]
    effort: np.ndarray
    power: np.ndarray

    def motion_effort(self, name: str) -> np.ndarray:
        """(T,) effort of motion ``name`` [N or N m]."""
        return self.effort[:, self._index(name)]

    def motion_power(self, name: str) -> np.ndarray:
        """(T,) power of motion ``name`` [W]."""
        return self.power[:, self._index(name)]

    def save(self, path: str | os.PathLike[str], group: str = "inverse") -> None:
        """Add ``motion_names``, ``effort`` and ``power`` to ``group`` of the HDF5 file ``path``
        (e.g. the results file the run streamed to); an existing group is replaced."""
        import h5py  # heavy: loaded when first used

        with h5py.File(path, "a") as file:
            if group in file:
                del file[group]
            target = file.create_group(group)
            target.create_dataset("motion_names", data=list(self.motion_names), dtype=h5py.string_dtype())
            target.create_dataset("effort", data=self.effort)
            target.create_dataset("power", data=self.power)

    def _index(self, name: str) -> int:
        if name not in self.motion_names:
            raise KeyError(f"no motion '{name}' in the inverse dynamics; motions are: {', '.join(self.motion_names)}")
        return self.motion_names.index(name)


def inverse_dynamics(
    model: Model | System,
    t_end: float,
    output_step: float,
    drive: Mapping[str, DriveSpec] | None = None,
    tolerance: float = 1e-12,
    output: str | None = None,
    progress: bool = False,
) -> InverseDynamics:
    """Efforts, reactions and power of a prescribed motion from t = 0 to ``t_end`` [s].

    ``model`` must have zero degrees of freedom once ``drive`` is applied. ``drive`` maps a joint
    name (``"hinge"``; ``"barrel.rotation"`` / ``"barrel.translation"`` for a cylindrical joint)
    to its displacement: a number, a ``TimeFunction``, a callable ``f(t)``, or a ``Results`` of
    this model whose recorded joint coordinate is followed (a cubic spline through its frames:
    accelerations, hence efforts, are then accurate to the square of its output step). The
    driven copy of the model gets motions named ``"<joint>_drive"``. ``tolerance`` and
    ``output`` are those of ``kinematics``.
    """
    if drive:
        if not isinstance(model, Model):
            raise TypeError("inverse_dynamics: 'drive' needs the Model (motions are added to a copy), not a System")
        model = _driven_copy(model, drive)
    system = model.compile() if isinstance(model, Model) else model
    if system.dof != 0:
        raise AnalysisError(
            f"inverse dynamics of model '{system.name}': it has {system.dof} degrees of freedom once driven; "
            "prescribe that many more joint coordinates with 'drive' (or Motions) so the motion is fully given"
        )
    results = kinematics(system, t_end, output_step, tolerance=tolerance, output=output, progress=progress)
    motions = [k for k, kind in enumerate(system.constraint_kinds) if kind == "motion"]
    names = tuple(system.constraint_names[k] for k in motions)
    effort = np.zeros((len(results), len(motions)))
    power = np.zeros_like(effort)
    for column, element in enumerate(motions):
        row = int(np.flatnonzero(system.rows.element == element)[0])
        along = 2  # the z component in J axes: rotation about z_J or translation along z_J
        quantity = "reaction_torque_in_j" if system.rows.kind[row] == KIND["rotation_driver"] else "reaction_force_in_j"
        effort[:, column] = results.arrays[f"joint/{quantity}"][:, element, along]
        rate = np.array([system.rows.driver[row].derivative(t) for t in results.time], dtype=float)
        power[:, column] = effort[:, column] * rate
    return InverseDynamics(results, names, effort, power)


def _driven_copy(model: Model, drive: Mapping[str, DriveSpec]) -> Model:
    """A copy of ``model`` with one Motion per ``drive`` entry."""
    original = model.compile()
    driven = copy.deepcopy(model)
    for key, spec in drive.items():
        joint_name, _, coordinate = key.partition(".")
        joint = driven.joints.get(joint_name)
        if joint is None or not joint.coordinates:
            drivable = [name for name, j in driven.joints.items() if j.coordinates]
            raise KeyError(
                f"drive '{key}': model '{model.name}' has no revolute, translational or cylindrical joint "
                f"'{joint_name}'; drivable joints are: {', '.join(drivable) or 'none'}"
            )
        coordinate = coordinate or (joint.coordinates[0] if len(joint.coordinates) == 1 else "")
        if coordinate not in joint.coordinates:
            raise KeyError(
                f"drive '{key}': joint '{joint_name}' has coordinates {', '.join(joint.coordinates)}; "
                f"write '{joint_name}.<coordinate>'"
            )
        displacement = _followed(original, spec, joint_name, coordinate) if isinstance(spec, Results) else spec
        driven.add(Motion(f"{joint_name}_drive", joint, displacement=displacement, coordinate=coordinate))
    return driven


def _followed(system: System, results: Results, joint_name: str, coordinate: str) -> CubicSpline:
    """The joint coordinate recorded in ``results`` as a cubic spline of time (angles unwrapped)."""
    if tuple(results.layout.body_names) != tuple(system.body_names) or len(results) < 4:
        raise ValueError(
            f"drive '{joint_name}': follow a Results of model '{system.name}' with at least 4 frames "
            f"(got model '{results.layout.model_name}', {len(results)} frames)"
        )
    i_marker, j_marker = system.constraint_markers[system.constraint_names.index(joint_name)]
    values = np.array(
        [
            joint_coordinate(
                kinematics_frames.pose(system, positions_from_results(results, k), float(t)),
                i_marker,
                j_marker,
                coordinate == "rotation",
            )
            for k, t in enumerate(results.time)
        ]
    )
    return CubicSpline(results.time, np.unwrap(values) if coordinate == "rotation" else values)
