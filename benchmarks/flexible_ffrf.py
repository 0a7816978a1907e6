"""Benchmark: per-step cost of a chain of three modal flexible bodies, ours against Exudyn's ObjectFFRFreducedOrder.

Three steel tubes (1 m long, 50 / 40 mm diameters, hexahedra of ``tube_mesh``) hang from each other
by revolute joints about world z; the first from the ground at the origin. They start straight along
+x at rest and fall under gravity -y, a flexible triple pendulum. Each tube keeps 20 free-free modes
(mean axes) with Rayleigh damping beta K (2 % of critical in the first bending mode); the joints sit
at the average of an end face's nodes (ours: ``add_marker(node=[...])``, RBE3-style; Exudyn:
``MarkerSuperElementRigid`` with equal weights, ``ObjectJointGeneric`` freeing rotation about z).

Exudyn is given *the same modes*: our body's mass-orthonormal mode matrix, node positions and M, K go
into its ``FEMinterface`` (``modeBasis``) and ``ObjectFFRFreducedOrderInterface`` builds its C++
``ObjectFFRFreducedOrder`` from them, so both integrate the same reduced model. Exudyn runs
generalized-alpha with a fixed step (1 ms and, as the reference solution, 0.1 ms); ours runs BDF on
the index-2 stabilized form (SI2) with error control (rtol 1e-4 and 1e-6; the ratios are of the 1e-6 run).

Printed: wall time of the integration call (our compile and Exudyn's Assemble left out), steps,
our iteration-matrix (Jacobian) evaluations, microseconds per step, wall time per simulated second, the ratios ours / Exudyn, and the
end-of-link-3 tip position (the centre of its free end face) at the end time, with its distance to
the fine Exudyn run. ``--profile`` prints cProfile's top entries of our run.

Usage: ``python benchmarks/flexible_ffrf.py [--t-end 1] [--modes 20] [--no-exudyn] [--profile]``
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from dataclasses import dataclass

import numpy as np
from exudyn_run import solve_generalized_alpha
from numpy.typing import NDArray

import multibody as mb
from multibody.fem.solids import tube_mesh
from multibody.spatial.rotations import rotation_from_euler_parameters

STEEL = mb.Material(E=2.1e11, nu=0.3, density=7850.0)
LENGTH, OUTER_DIAMETER, INNER_DIAMETER = 1.0, 0.05, 0.04
"""Tube length and diameters [m]."""
MESH = {"n_axial": 10, "n_around": 12, "n_radial": 1, "element": "hex8"}
"""tube_mesh divisions: 264 nodes, 792 DOFs per tube (hex8 is too stiff in bending, the same for both)."""
N_LINKS, GRAVITY = 3, 9.81
FIRST_MODE_DAMPING = 0.02
"""Damping ratio of each tube's lowest mode, set by stiffness-proportional damping beta K."""
RTOLS = (1e-4, 1e-6)
"""Our integrator's relative tolerances (atol = rtol): a loose run and the benchmark run."""
EXUDYN_STEPS = (1e-3, 1e-4)
"""Exudyn's fixed time steps [s]: the benchmark run and the reference run."""
EXUDYN_SPECTRAL_RADIUS = 0.9
"""Spectral radius at infinity of Exudyn's generalized-alpha (its default)."""
OUTPUT_STEP = 0.01


@dataclass
class Run:
    """Outcome of one simulation."""

    wall_time: float
    """Wall-clock time [s] of the time integration call."""
    steps: int
    tip: NDArray[np.float64]
    """World position [m] of the centre of link 3's free end face at the end time."""
    jacobians: int = 0
    """Iteration-matrix evaluations (ours; Exudyn's are not counted)."""


def tube() -> tuple[NDArray[np.float64], object, object, NDArray[np.int64], NDArray[np.int64]]:
    """The tube's node positions, M, K, and its start (x = 0) and end (x = L) face nodes."""
    from multibody.fem.solids import solid_matrices

    mesh = tube_mesh(LENGTH, OUTER_DIAMETER, INNER_DIAMETER, **MESH)
    M, K = solid_matrices(mesh, STEEL)
    x = mesh.points[:, 0]
    return mesh.points, M, K, np.flatnonzero(np.isclose(x, 0.0)), np.flatnonzero(np.isclose(x, LENGTH))


def chain_model(points, M, K, start, end, n_modes: int) -> tuple[mb.Model, list[mb.FlexibleBody]]:
    """Our chain: three flexible tubes on revolute joints about world z, gravity -y."""
    model = mb.Model("flexible_chain", gravity=(0.0, -GRAVITY, 0.0))
    parent = model.ground.add_marker("pivot")
    probe = mb.FlexibleBody.from_matrices("probe", M, K, points, n_modes)
    beta = 2.0 * FIRST_MODE_DAMPING / (2.0 * np.pi * probe.frequencies[0])
    links = []
    for k in range(N_LINKS):
        link = model.add(
            mb.FlexibleBody.from_matrices(
                f"link{k + 1}", M, K, points, n_modes, position=(k * LENGTH, 0.0, 0.0), rayleigh=(0.0, beta)
            )
        )
        hinge = link.add_marker("hinge", node=start, z_axis=(0.0, 0.0, 1.0))
        model.add(mb.Revolute(f"hinge{k + 1}", hinge, parent))
        parent = link.add_marker("end", node=end, z_axis=(0.0, 0.0, 1.0))
        links.append(link)
    return model, links


def face_center(results: mb.Results, body: mb.FlexibleBody, nodes: NDArray[np.int64]) -> NDArray[np.float64]:
    """World position [m] of the mean of ``nodes`` of ``body`` at the last output time."""
    frame = results.body(body.name)
    R_WB = rotation_from_euler_parameters(frame.euler_parameters[-1:])[0]
    q = results.modal_coordinates(body.name)[-1]
    p_BQ = (body.node_positions[nodes] + body.node_displacements(nodes, q)).mean(axis=0)
    return frame.position[-1] + R_WB @ p_BQ


def run_ours(system: mb.System, links: list[mb.FlexibleBody], end, t_end: float, rtol: float, profile: bool) -> Run:
    """Integrate our compiled chain (BDF on SI2) at ``rtol``; an untimed 0.01 s run loads the kernels first."""
    mb.dynamics(system, 0.01, output_step=OUTPUT_STEP, method="SI2", rtol=rtol)
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    results = mb.dynamics(system, t_end, output_step=OUTPUT_STEP, method="SI2", rtol=rtol)
    if profiler:
        profiler.disable()
    wall_time = time.perf_counter() - started
    if profiler:
        print("cProfile of our run (top 25 by own time):")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    steps, jacobians = int(results.stats["steps"]), int(results.stats["jacobian_evaluations"])
    return Run(wall_time, steps, face_center(results, links[-1], end), jacobians)


def run_exudyn(links: list[mb.FlexibleBody], M, K, start, end, t_end: float, step: float) -> Run:
    """Exudyn's chain of ObjectFFRFreducedOrder bodies on our modes; generalized-alpha, fixed ``step``."""
    import exudyn as exu
    from exudyn.FEM import FEMinterface, ObjectFFRFreducedOrderInterface
    from exudyn.itemInterface import (
        MarkerBodyRigid,
        MarkerSuperElementPosition,
        MarkerSuperElementRigid,
        ObjectGround,
        ObjectJointGeneric,
        SensorMarker,
    )

    mbs = exu.SystemContainer().AddSystem()
    ground = mbs.AddObject(ObjectGround())
    parent = mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    for k, link in enumerate(links):
        fem = FEMinterface()
        fem.nodes = {"Position": link.node_positions}
        fem.massMatrix, fem.stiffnessMatrix = M.tocsr(), K.tocsr()
        fem.modeBasis = {"matrix": link.modes, "type": "NormalModes"}
        fem.eigenValues = np.diag(link.modal_stiffness)
        interface = ObjectFFRFreducedOrderInterface(fem)
        beta = link.modal_damping[0, 0] / link.modal_stiffness[0, 0]
        body = interface.AddObjectFFRFreducedOrder(
            mbs,
            positionRef=[k * LENGTH, 0.0, 0.0],
            stiffnessProportionalDamping=beta,
            gravity=[0.0, -GRAVITY, 0.0],
        )["oFFRFreducedOrder"]
        hinge = mbs.AddMarker(
            MarkerSuperElementRigid(
                bodyNumber=body,
                offset=[0.0, 0.0, 0.0],
                meshNodeNumbers=start.tolist(),
                weightingFactors=[1.0 / len(start)] * len(start),
            )
        )
        mbs.AddObject(ObjectJointGeneric(markerNumbers=[parent, hinge], constrainedAxes=[1, 1, 1, 1, 1, 0]))
        weights = [1.0 / len(end)] * len(end)
        parent = mbs.AddMarker(
            MarkerSuperElementRigid(
                bodyNumber=body, offset=[0.0, 0.0, 0.0], meshNodeNumbers=end.tolist(), weightingFactors=weights
            )
        )
    tip = mbs.AddMarker(
        MarkerSuperElementPosition(bodyNumber=body, meshNodeNumbers=end.tolist(), weightingFactors=weights)
    )
    sensor = mbs.AddSensor(
        SensorMarker(markerNumber=tip, storeInternal=True, outputVariableType=exu.OutputVariableType.Position)
    )
    mbs.Assemble()

    steps = round(t_end / step)
    wall_time = solve_generalized_alpha(exu, mbs, t_end, steps, OUTPUT_STEP, EXUDYN_SPECTRAL_RADIUS)
    samples = np.asarray(mbs.GetSensorStoredData(sensor))
    return Run(wall_time, steps, samples[-1, 1:4])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=0.1, help="simulated time [s]")
    parser.add_argument("--modes", type=int, default=20, help="modes per tube")
    parser.add_argument(
        "--rtol", type=float, nargs="+", default=list(RTOLS), help="our tolerances; the last sets the ratios"
    )
    parser.add_argument("--no-exudyn", action="store_true", help="skip the Exudyn comparison")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top entries of our run")
    args = parser.parse_args()
    points, M, K, start, end = tube()
    model, links = chain_model(points, M, K, start, end, args.modes)
    frequencies = links[0].frequencies
    print(
        f"{N_LINKS} steel tubes, {len(points)} nodes ({M.shape[0]} DOFs) each, {args.modes} free-free modes "
        f"({frequencies[0]:.0f} .. {frequencies[-1]:.0f} Hz); t_end = {args.t_end:g} s"
    )
    system = model.compile()
    runs = {
        f"ours SI2 rtol {rtol:g}": run_ours(
            system, links, end, args.t_end, rtol, args.profile and rtol == args.rtol[-1]
        )
        for rtol in args.rtol
    }
    ours = runs[f"ours SI2 rtol {args.rtol[-1]:g}"]
    if not args.no_exudyn:
        try:
            import exudyn
        except ImportError:
            print("exudyn is not importable: running ours only (pip install '.[bench]' for the comparison)")
        else:
            print(f"Exudyn {exudyn.__version__}: generalized-alpha (rho_inf {EXUDYN_SPECTRAL_RADIUS:g}), EigenSparse")
            for step in EXUDYN_STEPS:
                runs[f"Exudyn h = {step:g} s"] = run_exudyn(links, M, K, start, end, args.t_end, step)
    reference_run = runs.get(f"Exudyn h = {EXUDYN_STEPS[-1]:g} s")
    reference = reference_run.tip if reference_run is not None else None
    print(
        f"{'run':<24} {'wall [s]':>9} {'steps':>7} {'jac':>4} {'us/step':>9} {'wall/sim s':>10} {'ours/this':>9} "
        f"{'tip x [m]':>10} {'tip y [m]':>10} {'|tip - ref| [m]':>15}"
    )
    for name, run in runs.items():
        distance = f"{np.linalg.norm(run.tip - reference):>15.2e}" if reference is not None else f"{'':>15}"
        print(
            f"{name:<24} {run.wall_time:>9.3f} {run.steps:>7d} {run.jacobians:>4d} {1e6 * run.wall_time / run.steps:>9.1f} "
            f"{run.wall_time / args.t_end:>10.3f} {ours.wall_time / run.wall_time:>9.1f} "
            f"{run.tip[0]:>10.6f} {run.tip[1]:>10.6f} {distance}"
        )
    if reference is not None:
        print(
            f"ref = Exudyn at h = {EXUDYN_STEPS[-1]:g} s; ours/this = ratio of wall times; jac = our iteration matrices"
        )


if __name__ == "__main__":
    main()
