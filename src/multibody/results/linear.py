"""Linear models of a mechanism about an operating point, and their modes.

A :class:`LinearModel` holds the second-order form ``M z'' + C z' + K z = (inputs)`` in the
independent coordinates ``z`` (an orthonormal basis of the constraint null space) and the
state-space form ``s' = A s + B u``, ``y = C s + D u`` (ADAMS LINEAR/STATEMAT). Its
:meth:`LinearModel.modes` are the eigen-solution: natural frequencies, damping ratios and mode
shapes as motions of the bodies. Both are plain arrays; ``save``/``load`` write them to a group
of an HDF5 file (the CLI puts it in the results file, group ``linear``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]

_NAME_FIELDS = ("body_names", "input_names", "output_names", "state_names")
_MATRIX_FIELDS = ("mass", "damping", "stiffness", "A", "B", "C", "D", "motion_basis")


@dataclass(frozen=True)
class Modes:
    """Eigen-solution of a linear model, one entry per eigenvalue with ``Im >= 0`` (a complex
    pair is one mode), sorted by increasing magnitude.

    Attributes:
        eigenvalues: (n,) complex [1/s].
        frequencies_hz: (n,) undamped natural frequencies ``|lambda| / (2 pi)`` [Hz].
        damped_frequencies_hz: (n,) ``Im(lambda) / (2 pi)`` [Hz]; 0 for real eigenvalues.
        damping_ratios: (n,) ``-Re(lambda) / |lambda|`` [-]: 0 undamped, 1 for a stable real
            eigenvalue, negative when the mode grows; NaN for rigid-body modes.
        rigid_body: (n,) True where ``|lambda|`` is numerically zero (a free motion).
        shapes: (n, nb, 6) complex body motions per mode: CM translation (world) [m] and
            rotation vector (world) [rad], scaled with ``state_shapes`` so that the largest
            component of both is 1 (real).
        body_names: (nb,) the bodies of ``shapes``.
        state_shapes: (n, nx) complex first-order states per mode (``LinearModel.state_names``).
    """

    eigenvalues: ComplexArray
    frequencies_hz: FloatArray
    damped_frequencies_hz: FloatArray
    damping_ratios: FloatArray
    rigid_body: npt.NDArray[np.bool_]
    shapes: ComplexArray
    body_names: tuple[str, ...]
    state_shapes: ComplexArray = field(default_factory=lambda: np.zeros((0, 0), dtype=complex))

    def __len__(self) -> int:
        return len(self.eigenvalues)

    def table(self) -> str:
        """Plain-text table: mode, natural frequency [Hz], damping ratio, eigenvalue, rigid flag."""
        lines = [
            f"{'mode':>4} {'frequency [Hz]':>15} {'damping ratio':>14} {'eigenvalue [1/s]':>30}",
        ]
        for k, (eigenvalue, frequency, ratio, rigid) in enumerate(
            zip(self.eigenvalues, self.frequencies_hz, self.damping_ratios, self.rigid_body), start=1
        ):
            shown = f"{eigenvalue.real:.6g} {'+' if eigenvalue.imag >= 0 else '-'} {abs(eigenvalue.imag):.6g}j"
            flag = "  rigid body" if rigid else ("  unstable" if ratio < 0 else "")
            lines.append(f"{k:>4} {frequency:>15.6g} {ratio:>14.6g} {shown:>30}{flag}")
        return "\n".join(lines)


@dataclass(frozen=True)
class LinearModel:
    """A mechanism linearized about an operating point at time ``time`` [s].

    Second-order form in the ``f`` independent coordinates ``z`` (f = degrees of freedom)::

        mass z'' + damping z' + stiffness z = (input terms)

    State-space form with ``s = (xi, eta, zeta)`` (2f + nx,), ``xi = z`` when every input is a
    force, ``zeta`` the increments of the nx first-order states (``state_names``; ``zeta`` is the
    state increment itself unless a motion input's rate drives the states)::

        s' = A s + B u,    y = C s + D u

    Attributes:
        model_name: the model.
        time: the operating point's time [s].
        body_names: (nb,).
        input_names: (ni,) e.g. "drive.z" (a force/torque component, in the element's frame) or
            "crank_drive" (a motion's displacement added to its prescribed value).
        output_names: (no,) e.g. "slider/pin.x" (marker origin displacement, world) or
            "crank_pivot.rotation" (a joint coordinate).
        mass, damping, stiffness: (f, f) [kg, m, rad units of the coordinates].
        A: (2f + nx, 2f + nx); B: (2f + nx, ni); C: (no, 2f + nx); D: (no, ni).
        motion_basis: (nb, 6, f) body motion (CM translation world [m], rotation vector world
            [rad]) per unit independent coordinate ``z``.
        state_names: (nx,) the first-order states in ``A`` after the mechanical ones, as
            ``element[k]``; empty when no element carries states.
    """

    model_name: str
    time: float
    body_names: tuple[str, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    mass: FloatArray
    damping: FloatArray
    stiffness: FloatArray
    A: FloatArray
    B: FloatArray
    C: FloatArray
    D: FloatArray
    motion_basis: FloatArray
    state_names: tuple[str, ...] = ()

    @property
    def degrees_of_freedom(self) -> int:
        """Number of independent coordinates f."""
        return self.mass.shape[0]

    def modes(self, rigid_body_tolerance: float = 1e-3) -> Modes:
        """Eigen-solution of ``A``. Eigenvalues with ``|lambda|`` below ``rigid_body_tolerance``
        [1/s] plus 1e-9 of the largest are rigid-body modes and reported as 0; one of each complex
        pair is kept (``Im > 0``), every real eigenvalue is a mode of its own."""
        eigenvalues, vectors = np.linalg.eig(self.A)
        magnitude = np.abs(eigenvalues)
        rigid = magnitude <= rigid_body_tolerance + 1e-9 * float(np.max(magnitude, initial=0.0))
        eigenvalues = np.where(rigid, 0j, eigenvalues)
        eigenvalues = np.where(np.abs(eigenvalues.imag) <= 1e-12 * magnitude, eigenvalues.real + 0j, eigenvalues)
        keep = eigenvalues.imag >= 0.0
        eigenvalues, vectors, rigid = eigenvalues[keep], vectors[:, keep], rigid[keep]
        order = np.lexsort((eigenvalues.real, np.abs(eigenvalues)))
        eigenvalues, vectors, rigid = eigenvalues[order], vectors[:, order], rigid[order]
        magnitude = np.abs(eigenvalues)
        # Real parts within round-off of zero (undamped modes) count as zero.
        growth = np.where(np.abs(eigenvalues.real) <= 1e-10 * magnitude, 0.0, eigenvalues.real)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratios = np.where(rigid, np.nan, -growth / magnitude)
        f = self.degrees_of_freedom
        shapes = np.einsum("bkf,fn->nbk", self.motion_basis, vectors[:f])
        state_shapes = vectors[2 * f :].T.copy()
        for shape, states in zip(shapes, state_shapes):
            both = np.concatenate([shape.reshape(-1), states])
            largest = both[np.argmax(np.abs(both))] if both.size else 0.0  # a model of cables alone has no body shapes
            shape /= largest if largest != 0 else 1.0
            states /= largest if largest != 0 else 1.0
        return Modes(
            eigenvalues=eigenvalues,
            frequencies_hz=magnitude / (2.0 * np.pi),
            damped_frequencies_hz=np.abs(eigenvalues.imag) / (2.0 * np.pi),
            damping_ratios=ratios,
            rigid_body=rigid,
            shapes=shapes,
            body_names=self.body_names,
            state_shapes=state_shapes,
        )

    def save(self, path: str | os.PathLike[str], group: str = "linear") -> None:
        """Write the model to ``group`` of the HDF5 file ``path`` (created if missing; an
        existing group of that name is replaced, the rest of the file kept)."""
        import h5py  # heavy: loaded when first used

        with h5py.File(path, "a") as file:
            if group in file:
                del file[group]
            target = file.create_group(group)
            target.attrs["model_name"] = self.model_name
            target.attrs["time"] = self.time
            for name in _NAME_FIELDS:
                target.create_dataset(name, data=list(getattr(self, name)), dtype=h5py.string_dtype())
            for name in _MATRIX_FIELDS:
                target.create_dataset(name, data=getattr(self, name))

    @staticmethod
    def load(path: str | os.PathLike[str], group: str = "linear") -> LinearModel:
        """Read a model written by :meth:`save`."""
        import h5py  # heavy: loaded when first used

        with h5py.File(path, "r") as file:
            if group not in file:
                raise KeyError(f"{path}: no group '{group}' holding a linear model")
            source = file[group]
            values: dict[str, object] = {
                "model_name": str(source.attrs["model_name"]),
                "time": float(source.attrs["time"]),
            }
            values.update({name: tuple(source[name].asstr()[()]) for name in _NAME_FIELDS if name in source})
            values.update({name: source[name][()] for name in _MATRIX_FIELDS})
        return LinearModel(**values)  # type: ignore[arg-type]
