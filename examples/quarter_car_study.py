"""Quarter-car suspension design study: a Latin hypercube, Sobol' indices and an optimization.

The model: a sprung mass (a quarter of the car body) and an unsprung mass (the wheel) each slide
vertically on a translational joint to the ground. The suspension spring-damper (rate
``spring_rate``, damping ``damping``) joins them, and the tyre, a stiff spring of rate
``tire_rate``, joins the wheel to the road. The car starts at its static equilibrium (the free
lengths are chosen so) when the wheel hits a bump: it starts moving up at ``BUMP_SPEED``. The
damper pushes the body up at once, the suspension compresses and the car settles. Damping trades
comfort (the body's peak acceleration grows with it) against suspension travel (which it limits).

The study (run this file as a script, ``python examples/quarter_car_study.py``): a 200-run Latin
hypercube over the four parameters (sprung mass, spring rate, damping, tyre rate) with the peak
body acceleration, the suspension travel and the body bounce frequency as responses; Sobol'
indices of the peak acceleration; and the damping that minimizes the peak acceleration while the
travel stays within 2 cm. Runs go to a local process pool (all cores), or to a Dask cluster with
``--scheduler tcp://host:8786``.

``multibody run examples/quarter_car_study.py`` simulates the nominal design."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import multibody as mb

UNSPRUNG_MASS = 40.0
"""Wheel, hub and brake [kg]."""
WHEEL_HEIGHT, BODY_HEIGHT = 0.3, 0.7
"""Heights of the wheel and body centres at the static equilibrium [m]."""
BUMP_SPEED = 3.0
"""Upward speed of the wheel as it hits the bump [m/s]."""
GRAVITY = 9.81
NOMINAL = {"sprung_mass": 300.0, "spring_rate": 25e3, "damping": 2000.0, "tire_rate": 200e3}
"""The nominal design: [kg], [N/m], [N s/m], [N/m]."""
PARAMETERS = {
    "sprung_mass": (250.0, 400.0),
    "spring_rate": (15e3, 40e3),
    "damping": (1000.0, 4000.0),
    "tire_rate": (150e3, 250e3),
}
"""Design ranges of the study."""

ANALYSIS = {"analysis": "dynamics", "t_end": 0.6, "output_step": 0.01, "rtol": 1e-6}
"""Long enough for the body's first sink (a bounce lasts about 0.7 s); the study runs this too."""


def build(
    sprung_mass: float = NOMINAL["sprung_mass"],
    spring_rate: float = NOMINAL["spring_rate"],
    damping: float = NOMINAL["damping"],
    tire_rate: float = NOMINAL["tire_rate"],
) -> mb.Model:
    """The quarter car at its static equilibrium, the wheel moving up at ``BUMP_SPEED``."""
    model = mb.Model("quarter_car", gravity=(0.0, 0.0, -GRAVITY))
    still = {"angular_velocity": (0.0, 0.0, 0.0), "orientation": np.eye(3)}
    body = model.add(
        mb.RigidBody("body", sprung_mass, (20.0, 20.0, 20.0), position=(0, 0, BODY_HEIGHT), velocity=(0, 0, 0), **still)
    )
    wheel = model.add(
        mb.RigidBody(
            "wheel", UNSPRUNG_MASS, (1.0, 1.0, 1.0), position=(0, 0, WHEEL_HEIGHT), velocity=(0, 0, BUMP_SPEED), **still
        )
    )
    ground = model.ground
    model.add(mb.Translational("body_guide", body.add_marker("guide"), ground.add_marker("body_guide")))
    model.add(mb.Translational("wheel_guide", wheel.add_marker("guide"), ground.add_marker("wheel_guide")))
    mount, hub = body.add_marker("mount"), wheel.add_marker("hub")
    # Free lengths such that each spring carries the weight above it at the equilibrium heights.
    suspension_free = BODY_HEIGHT - WHEEL_HEIGHT + sprung_mass * GRAVITY / spring_rate
    tire_free = WHEEL_HEIGHT + (sprung_mass + UNSPRUNG_MASS) * GRAVITY / tire_rate
    model.add(mb.SpringDamper("suspension", mount, hub, spring_rate, damping, suspension_free))
    model.add(mb.SpringDamper("tire", hub, ground.add_marker("road"), tire_rate, 0.0, tire_free))
    body.add_shape(mb.Box((0.4, 0.4, 0.15), color="blue"))
    wheel.add_shape(mb.Cylinder(0.28, 0.2, color="black"), wheel.add_marker("axle", x_axis=(1, 0, 0), z_axis=(0, 1, 0)))
    return model


def peak_acceleration(results: mb.Results) -> float:
    """Largest vertical body acceleration [m/s^2] (ride comfort: the smaller the better)."""
    return float(np.max(np.abs(results.body("body").acceleration[:, 2])))


def travel(results: mb.Results) -> float:
    """Largest compression of the suspension from its static length [m]."""
    length = results.body("body").position[:, 2] - results.body("wheel").position[:, 2]
    return float(BODY_HEIGHT - WHEEL_HEIGHT - length.min())


RESPONSES = {"peak_acceleration": "peak_acceleration", "travel": "travel", "bounce": "frequency(1)"}
"""This file's functions by name (they reach the pool's and Dask's workers as names), and the
first natural frequency [Hz] from ``linearize``."""


def study() -> mb.Study:
    """The quarter-car study over ``PARAMETERS`` (runs this file's ``build`` by its path)."""
    return mb.Study(Path(__file__), PARAMETERS, RESPONSES, **ANALYSIS)


def main(client: object = None, workers: int | None = None, runs: int = 200) -> None:
    """Latin hypercube, Sobol' indices and the damping optimization, printed."""
    quarter_car = study()
    table = quarter_car.latin_hypercube(runs, seed=1, client=client, workers=workers).table()
    print(table.describe() if hasattr(table, "describe") else table)
    sobol = quarter_car.sobol(32, seed=1, client=client, workers=workers)
    print("Sobol' indices of the peak body acceleration:")
    for name, first, total in zip(
        sobol.parameter_names, *(sobol.sensitivity["peak_acceleration"][k] for k in ("S1", "ST"))
    ):
        print(f"  {name:<12} S1 {first:6.3f}  ST {total:6.3f}")
    damping_only = mb.Study(Path(__file__), {"damping": PARAMETERS["damping"]}, RESPONSES, **ANALYSIS)
    best = damping_only.optimize(
        "peak_acceleration", method="SLSQP", constraints={"travel": (None, 0.02)}, client=client, workers=workers
    )
    print(f"damping {best.optimum['parameters']['damping']:.0f} N s/m: {best.optimum['responses']}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", help="a Dask scheduler address (default: a local process pool)")
    parser.add_argument("--workers", type=int, help="local pool size (default: all cores)")
    arguments = parser.parse_args()
    main(arguments.scheduler, arguments.workers)
