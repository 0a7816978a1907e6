"""See the results: plots, a 3D animation file, a glTF export and a one-page report.

    animate(model, results, "run.html")          one self-contained HTML file (three.js inlined)
    export_gltf(model, results, "run.glb")       glTF 2.0 binary with the animation, for Blender
    plot(results, "crank.angular_velocity.z", "slider")   matplotlib figure with units
    plot_hydraulics(results, "lift_1")           cylinder pressures [bar], flows [L/min], spool, power [kW]
    plot_rope(results, "hoist")                  rope tensions [kN], wrap angles, spins, material coordinates
    report(results, "report.html")               summary, statistics, and a results browser: a tree
                                                 of elements beside the animation and zoomable plots

``model`` may be None: a results file carries the display description of its model.
"""

from multibody.viz.animation import animate
from multibody.viz.gltf import export_gltf
from multibody.viz.hydraulic_plots import plot_hydraulics
from multibody.viz.plots import plot
from multibody.viz.report import report
from multibody.viz.rope_plots import plot_rope

__all__ = ["animate", "export_gltf", "plot", "plot_hydraulics", "plot_rope", "report"]
