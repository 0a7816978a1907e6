"""Benchmark: mesh -> modes -> inertia invariants of a modal flexible body, against Exudyn's FEM module.

A steel bar (1 x 0.1 x 0.1 m) of quadratic tetrahedra (about 20k DOFs at the default size) is
reduced to 20 free-free modes. Printed: our times for the mesh, the scikit-fem assembly of M and K,
the reduction (shift-invert eigsh) and the invariants (``FlexibleBody.from_matrices``), and with
Exudyn installed its ``FEMinterface.ComputeEigenmodes`` (20 modes, 6 rigid excluded, sparse) plus
``ObjectFFRFreducedOrderInterface`` on the same M and K, the ratio ours/Exudyn for that step, and
the largest relative difference of the 20 frequencies (both solve the same eigenproblem).

Usage: ``python benchmarks/flexible_compile.py [--divisions 40 4 4] [--modes 20] [--no-exudyn]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import multibody as mb
from multibody.fem.solids import box_mesh, solid_matrices

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)


def exudyn_modes(M, K, points: np.ndarray, n_modes: int) -> tuple[float, np.ndarray]:
    """Exudyn's eigenmodes and FFRF reduced-order interface on our matrices: (seconds, frequencies [Hz])."""
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface

    fem = FEMinterface()
    fem.nodes = {"Position": points}
    fem.massMatrix, fem.stiffnessMatrix = M.tocsr(), K.tocsr()  # Exudyn 1.13 keeps scipy CSR matrices
    start = time.perf_counter()
    fem.ComputeEigenmodes(n_modes, excludeRigidBodyModes=6, useSparseSolver=True)
    ObjectFFRFreducedOrderInterface(fem)
    return time.perf_counter() - start, np.asarray(fem.GetEigenFrequenciesHz())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--divisions", type=int, nargs=3, default=(40, 4, 4))
    parser.add_argument("--modes", type=int, default=20)
    parser.add_argument("--no-exudyn", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    mesh = box_mesh((1.0, 0.1, 0.1), args.divisions, "tet10")
    meshed = time.perf_counter()
    M, K = solid_matrices(mesh, STEEL)
    assembled = time.perf_counter()
    body = mb.FlexibleBody.from_matrices("bar", M, K, mesh.points, args.modes)
    reduced = time.perf_counter()
    print(f"{M.shape[0]} DOFs, {args.modes} modes")
    print(
        f"  mesh {meshed - start:.2f} s, assembly {assembled - meshed:.2f} s, modes + invariants {reduced - assembled:.2f} s"
    )
    if args.no_exudyn:
        return
    try:
        seconds, frequencies = exudyn_modes(M, K, mesh.points, args.modes)
    except ImportError:
        print("  Exudyn not installed (pip install '.[bench]')")
        return
    difference = np.max(np.abs(frequencies[: args.modes] / body.frequencies - 1))
    print(f"  Exudyn modes + FFRF interface {seconds:.2f} s; ratio ours/Exudyn {(reduced - assembled) / seconds:.2f}")
    print(f"  largest relative frequency difference {difference:.1e}")


if __name__ == "__main__":
    main()
