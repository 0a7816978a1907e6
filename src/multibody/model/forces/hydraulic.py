"""Hydraulic cylinders driven by proportional valves from a constant-pressure supply.

A double-acting cylinder between a rod-end marker I and a barrel marker J pushes along the line
J -> I with ``F = p_0 A_0 - p_1 A_1`` (+ pushes the markers apart): chamber 0 is the cap side
(piston area ``A_0 = pi D^2 / 4``), chamber 1 the rod side (annulus ``A_1 = pi (D^2 - d^2) / 4``).
Its two chamber pressures are first-order states of the model (gauge pressures [Pa]) with

    p_0' = beta_e / V_0 (Q_0 - A_0 s'),   p_1' = beta_e / V_1 (Q_1 + A_1 s'),
    V_0 = V_dead,0 + A_0 s,             V_1 = V_dead,1 + A_1 (stroke - s),

where ``s = |p_I - p_J| - retracted_length`` is the piston's extension [m] and ``Q`` the oil
flows into the chambers [m^3/s]. The bulk modulus beta_e is a constant or an
``EffectiveBulkModulus`` (``multibody.model.forces.hydraulic_fluid``): oil with entrained air, its
modulus rising with pressure, in series with the hoses' and the barrel's compliance; the oil's
stored energy follows it. Without a valve the cylinder is closed (``Q = 0``): a pure
hydraulic spring of stiffness ``beta_e(p_0) A_0^2 / V_0 + beta_e(p_1) A_1^2 / V_1``. With a
``ProportionalValve`` (a 4/3 critically lapped spool whose position follows its command as a
first-order lag, a third state) and a ``HydraulicSupply``, the flows follow the orifice equation

    Q = Cd a(u) sqrt(2 / rho) dp / (dp^2 + dp_t^2)^(1/4),

which is ``Cd a sqrt(2 |dp| / rho) sign(dp)`` away from ``dp = 0`` and laminar (linear in dp)
within the transition pressure ``dp_t`` of it: smooth, so Newton and the error control see no
kink. Optional port relief valves let oil out to tank above a cracking pressure, and end-of-stroke
stops act as stiff springs with dampers beyond the stroke.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from multibody.model.element import LawError, ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.forces.hydraulic_fluid import EffectiveBulkModulus
from multibody.model.forces.hydraulic_fluid import positive_number as _positive
from multibody.model.functions import Constant, TimeFunction
from multibody.model.marker import Marker

if TYPE_CHECKING:
    from multibody.model.states import Measure

FloatArray = NDArray[np.float64]


class HydraulicSupply:
    """A constant-pressure source (a pump with its main relief valve) and the tank it returns to.

    ``pressure`` [Pa] and ``tank_pressure`` [Pa, default 0] are gauge pressures.
    """

    def __init__(self, pressure: float, tank_pressure: float = 0.0) -> None:
        owner = "HydraulicSupply"
        self.pressure = _positive(owner, "pressure", pressure, "give the supply pressure in Pa (200 bar = 2e7)")
        self.tank_pressure = _positive(owner, "tank_pressure", tank_pressure, "give it in Pa", allow_zero=True)
        if self.tank_pressure >= self.pressure:
            raise ModelError(
                f"{owner}: tank_pressure {tank_pressure!r} Pa must be below the supply pressure {pressure!r} Pa"
            )

    def __repr__(self) -> str:
        return f"HydraulicSupply(pressure={self.pressure:g}, tank_pressure={self.tank_pressure:g})"


Command = Callable[..., float] | TimeFunction | float
"""A valve command in [-1, 1]: a number, a ``TimeFunction`` of t, or ``f(measure)`` reading the
model (``multibody.model.states.Measure``: markers, joints, controller outputs, ``measure.t``)."""


class ProportionalValve:
    """A 4/3 proportional directional valve, critically lapped, with first-order spool dynamics.

    The spool position u (normalized, [-1, 1]) follows the command clipped to [-1, 1]:
    ``u' = (command - u) / time_constant``. For u > 0 the supply feeds chamber 0 (extends) and
    chamber 1 drains to tank through openings ``max_area u`` each [m^2]; for u < 0 the reverse.
    ``discharge_coefficient`` Cd [-], oil ``density`` rho [kg/m^3]; ``transition_pressure`` dp_t
    [Pa] is where the orifice flow turns laminar (see the module docstring).
    """

    def __init__(
        self,
        command: Command,
        max_area: float,
        discharge_coefficient: float = 0.7,
        density: float = 850.0,
        time_constant: float = 0.01,
        transition_pressure: float = 1e4,
        initial_position: float = 0.0,
    ) -> None:
        owner = "ProportionalValve"
        if isinstance(command, (int, float)):
            command = Constant(float(command))
        if not callable(command):
            raise ModelError(
                f"{owner}: command must be a number, a TimeFunction or a callable f(measure), got {command!r}"
            )
        self.command = command
        self.max_area = _positive(owner, "max_area", max_area, "give the full opening area in m^2")
        self.discharge_coefficient = _positive(
            owner, "discharge_coefficient", discharge_coefficient, "typical sharp-edged orifices have 0.6-0.7"
        )
        self.density = _positive(owner, "density", density, "mineral oil is about 850 kg/m^3")
        self.time_constant = _positive(owner, "time_constant", time_constant, "give the spool's lag in s")
        self.transition_pressure = _positive(
            owner,
            "transition_pressure",
            transition_pressure,
            "give the laminar-turbulent transition pressure in Pa (1e4 = 0.1 bar)",
        )
        if not -1.0 <= initial_position <= 1.0:
            raise ModelError(f"{owner}: initial_position must be within [-1, 1], got {initial_position!r}")
        self.initial_position = float(initial_position)

    def command_value(self, measure: Measure, owner: str) -> float:
        """The command at the instant ``measure`` describes, clipped to [-1, 1]; a command that
        raises or is not a number is a ``LawError`` naming ``owner`` (the cylinder) and the time."""
        try:
            value = float(
                self.command.value(measure.t) if isinstance(self.command, TimeFunction) else self.command(measure)
            )
        except ModelError:
            raise
        except Exception as error:
            raise LawError(
                f"{owner}: its valve command raised {type(error).__name__}: {error} at t = {measure.t:.6g} s "
                "(it must return a number in [-1, 1])"
            ) from error
        return float(np.clip(value, -1.0, 1.0))


class HydraulicCylinder(ForceElement):
    """A double-acting hydraulic cylinder between rod-end marker ``i_marker`` and barrel marker
    ``j_marker`` (see the module docstring for the equations).

    ``bore`` D, ``rod_diameter`` d < D, ``stroke`` [m]; ``dead_volumes`` (V_dead,0, V_dead,1)
    [m^3] of the cap and rod chambers at their ends of stroke, including hoses; ``bulk_modulus``:
    the oil's effective bulk modulus, a constant beta [Pa] (with hose compliance folded in) or an
    ``EffectiveBulkModulus`` (pressure-dependent with entrained air, hoses and barrel wall in
    series; its hose volumes are parts of the dead volumes); ``supply`` and ``valve`` together, or
    neither (a closed cylinder); ``initial_pressures`` (p_0, p_1) [Pa] gauge.
    ``retracted_length`` [m]: the I-J distance with the piston fully in (default: the distance
    in the input configuration, so the piston starts retracted). ``relief_pressure`` [Pa]: each
    chamber vents to tank above it with ``relief_conductance`` [m^3/(s Pa)]. ``end_stop_stiffness``
    [N/m] and ``end_stop_damping`` [N s/m] act beyond either end of the stroke, the damping
    growing smoothly to its full value over the first ``end_stop_depth`` [m] of penetration.

    States: ``(p_0, p_1)`` [Pa], then the valve's spool position [-] when there is a valve.
    """

    kind = "hydraulic cylinder"

    def __init__(
        self,
        name: str,
        i_marker: Marker,
        j_marker: Marker,
        bore: float,
        rod_diameter: float,
        stroke: float,
        dead_volumes: ArrayLike,
        bulk_modulus: float | EffectiveBulkModulus,
        supply: HydraulicSupply | None = None,
        valve: ProportionalValve | None = None,
        initial_pressures: ArrayLike = (0.0, 0.0),
        retracted_length: float | None = None,
        relief_pressure: float | None = None,
        relief_conductance: float = 1e-9,
        end_stop_stiffness: float = 0.0,
        end_stop_damping: float = 0.0,
        end_stop_depth: float = 1e-4,
    ) -> None:
        super().__init__(name, i_marker, j_marker)
        me = self.describe()
        self.bore = _positive(me, "bore", bore, "give the piston diameter in m")
        self.rod_diameter = _positive(me, "rod_diameter", rod_diameter, "give the rod diameter in m")
        if self.rod_diameter >= self.bore:
            raise ModelError(
                f"{me}: rod_diameter {rod_diameter!r} m must be smaller than the bore {bore!r} m "
                "(the rod-side annulus would have no area)"
            )
        self.stroke = _positive(me, "stroke", stroke, "give the piston's travel in m")
        volumes = np.asarray(dead_volumes, dtype=float).reshape(-1) if np.size(dead_volumes) == 2 else None
        if volumes is None or not np.all(np.isfinite(volumes)) or np.any(volumes <= 0.0):
            raise ModelError(
                f"{me}: dead_volumes must be two volumes > 0 m^3 (cap side, rod side, with hoses), got {dead_volumes!r}"
            )
        self.dead_volumes = volumes
        if isinstance(bulk_modulus, EffectiveBulkModulus):
            self._check_oil(bulk_modulus)
            self.bulk_modulus: float | EffectiveBulkModulus = bulk_modulus
        else:
            self.bulk_modulus = _positive(
                me, "bulk_modulus", bulk_modulus, "mineral oil is about 1.5e9 Pa (or give an mb.EffectiveBulkModulus)"
            )
        if (supply is None) != (valve is None):
            raise ModelError(f"{me}: give both a supply and a valve (a driven cylinder) or neither (a closed one)")
        if supply is not None and not isinstance(supply, HydraulicSupply):
            raise ModelError(f"{me}: supply must be a HydraulicSupply, got {supply!r}")
        if valve is not None and not isinstance(valve, ProportionalValve):
            raise ModelError(f"{me}: valve must be a ProportionalValve, got {valve!r}")
        self.supply, self.valve = supply, valve
        pressures = np.asarray(initial_pressures, dtype=float).reshape(-1) if np.size(initial_pressures) == 2 else None
        if pressures is None or not np.all(np.isfinite(pressures)):
            raise ModelError(f"{me}: initial_pressures must be two finite pressures in Pa, got {initial_pressures!r}")
        self.initial_pressures = pressures
        oil = self.bulk_modulus
        aerated = isinstance(oil, EffectiveBulkModulus) and oil.air_fraction > 0.0
        if aerated and np.any(pressures <= -oil.reference_pressure):  # type: ignore[union-attr]
            raise ModelError(
                f"{me}: initial_pressures {pressures.tolist()} Pa (gauge) reach vacuum: with entrained air the "
                f"absolute pressure (gauge + {oil.reference_pressure:g} Pa) must stay > 0"
            )
        if retracted_length is not None:
            retracted_length = _positive(me, "retracted_length", retracted_length, "give the I-J distance in m")
        self.retracted_length = retracted_length
        if relief_pressure is not None:
            relief_pressure = _positive(me, "relief_pressure", relief_pressure, "give the cracking pressure in Pa")
        self.relief_pressure = relief_pressure
        self.relief_conductance = _positive(me, "relief_conductance", relief_conductance, "give it in m^3/(s Pa)")
        self.end_stop_stiffness = _positive(me, "end_stop_stiffness", end_stop_stiffness, "give it in N/m", True)
        self.end_stop_damping = _positive(me, "end_stop_damping", end_stop_damping, "give it in N s/m", True)
        self.end_stop_depth = _positive(me, "end_stop_depth", end_stop_depth, "give the penetration in m")

    def _check_oil(self, oil: EffectiveBulkModulus) -> None:
        """The hose volumes are parts of the dead volumes."""
        if np.any(oil.hose_volumes > self.dead_volumes):
            raise ModelError(
                f"{self.describe()}: the bulk modulus's hose_volumes {oil.hose_volumes.tolist()} m^3 exceed the "
                f"dead_volumes {self.dead_volumes.tolist()} m^3; the dead volumes include the hoses"
            )

    @property
    def initial_states(self) -> FloatArray:  # type: ignore[override]
        """``(p_0, p_1)`` [Pa], then the spool position when there is a valve."""
        spool = () if self.valve is None else (self.valve.initial_position,)
        return np.array([*self.initial_pressures, *spool])

    @property
    def areas(self) -> FloatArray:
        """(2,) piston area of the cap chamber and annulus of the rod chamber [m^2]."""
        return np.pi / 4.0 * np.array([self.bore**2, self.bore**2 - self.rod_diameter**2])

    @property
    def drawing(self) -> dict[str, object]:
        """What the animation draws (bore and rod diameter, retracted length [m]) and, under
        ``"hydraulics"``, what ``res.hydraulics`` recomputes flows from (``parameters``)."""
        retracted = self.input_length() if self.retracted_length is None else self.retracted_length
        return {
            "bore": self.bore,
            "rod": self.rod_diameter,
            "retracted_length": retracted,
            "hydraulics": self.parameters,
        }

    @property
    def parameters(self) -> dict[str, Any]:
        """The hydraulic parameters as plain numbers (JSON-ready, SI), what ``flow_parts`` takes:
        ``areas``, ``dead_volumes``, ``stroke``, ``bulk_modulus`` (a number, or
        ``EffectiveBulkModulus.parameters``), ``relief_pressure`` (None without
        relief valves), ``relief_conductance`` and ``valve`` (None for a closed cylinder, else its
        ``max_area``, ``discharge_coefficient``, ``density``, ``transition_pressure`` and the
        supply's ``supply_pressure`` and ``tank_pressure``)."""
        valve = None
        if self.valve is not None and self.supply is not None:
            valve = {
                "max_area": self.valve.max_area,
                "discharge_coefficient": self.valve.discharge_coefficient,
                "density": self.valve.density,
                "transition_pressure": self.valve.transition_pressure,
                "supply_pressure": self.supply.pressure,
                "tank_pressure": self.supply.tank_pressure,
            }
        return {
            "areas": self.areas.tolist(),
            "dead_volumes": self.dead_volumes.tolist(),
            "stroke": self.stroke,
            "bulk_modulus": (
                self.bulk_modulus.parameters
                if isinstance(self.bulk_modulus, EffectiveBulkModulus)
                else self.bulk_modulus
            ),
            "relief_pressure": self.relief_pressure,
            "relief_conductance": self.relief_conductance,
            "valve": valve,
        }

    def input_length(self) -> float:
        """The I-J distance [m] in the input configuration (bodies where the model puts them)."""

        def origin(marker: Marker) -> FloatArray:
            body = marker.body
            position = getattr(body, "position", np.zeros(3))
            orientation = getattr(body, "orientation", np.eye(3))
            return position + orientation @ marker.position

        return float(np.linalg.norm(origin(self.i_marker) - origin(self.j_marker)))

    def chamber_volumes(self, extension: ArrayLike) -> FloatArray:
        """Chamber volumes (..., 2) [m^3] at piston extension ``extension`` (...) [m]."""
        s = np.asarray(extension, dtype=float)
        return chamber_volumes(s, self.areas, self.dead_volumes, self.stroke)

    def flows(self, pressures: ArrayLike, spool: ArrayLike | None = None) -> FloatArray:
        """Oil flows (..., 2) [m^3/s] into the chambers at ``pressures`` (..., 2) [Pa] and spool
        position ``spool`` (...) (e.g. ``res.hydraulics(name)`` histories): valve and relief flows."""
        through_valve, relieved = flow_parts(pressures, spool, self.parameters)
        return through_valve - relieved


def flow_parts(
    pressures: ArrayLike, spool: ArrayLike | None, parameters: Mapping[str, Any]
) -> tuple[FloatArray, FloatArray]:
    """``(into the chambers through the valve, out of them through the relief valves)``, each
    (..., 2) [m^3/s], of a cylinder with ``parameters`` (``HydraulicCylinder.parameters``) at
    chamber ``pressures`` (..., 2) [Pa] and spool position ``spool`` (...) (unused without a valve)."""
    p = np.asarray(pressures, dtype=float)
    through_valve, relieved = np.zeros_like(p), np.zeros_like(p)
    valve = parameters["valve"]
    if valve is not None:
        through_valve = valve_flows(
            np.asarray(spool, dtype=float),
            p[..., 0],
            p[..., 1],
            valve["supply_pressure"],
            valve["tank_pressure"],
            valve["max_area"],
            valve["discharge_coefficient"],
            valve["density"],
            valve["transition_pressure"],
        )
    if parameters["relief_pressure"] is not None:
        relieved = relief_flows(p, parameters["relief_pressure"], parameters["relief_conductance"])
    return through_valve, relieved


def supply_and_tank_flows(spool: FloatArray, through_valve: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(Q_supply, Q_tank)`` (...) [m^3/s]: the flow a valve draws from the supply and the flow it
    returns to tank, from its chamber flows ``through_valve`` (..., 2) (``valve_flows``) at spool
    position ``spool`` (...). The valve is critically lapped: for u > 0 the supply feeds chamber 0
    and chamber 1 drains to tank, for u < 0 the reverse, at u = 0 every port is shut."""
    extending = np.asarray(spool) >= 0.0
    supply = np.where(extending, through_valve[..., 0], through_valve[..., 1])
    tank = -np.where(extending, through_valve[..., 1], through_valve[..., 0])
    return supply, tank


def piston_motion(
    p_JI: FloatArray, v_JI: FloatArray, retracted_length: FloatArray | float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(along (..., 3), extension (...) [m], extension rate (...) [m/s])`` of a cylinder whose rod
    end I sits at ``p_JI`` (..., 3) [m] from its barrel J and moves at ``v_JI`` (..., 3) [m/s]
    relative to it: the unit vector J -> I, the piston's extension ``|p_JI| - retracted_length``
    and its rate."""
    length = np.linalg.norm(p_JI, axis=-1)
    along = p_JI / np.where(length > 0.0, length, 1.0)[..., None]
    return along, length - retracted_length, np.einsum("...j,...j->...", along, v_JI)


def chamber_volumes(
    extension: FloatArray, areas: FloatArray, dead_volumes: FloatArray, stroke: FloatArray | float
) -> FloatArray:
    """``(V_0, V_1)`` stacked on a last axis [m^3]: ``V_dead,0 + A_0 s`` and ``V_dead,1 + A_1 (stroke - s)``.
    ``areas`` and ``dead_volumes`` (..., 2) broadcast against ``extension`` (...)."""
    s = np.asarray(extension)
    return np.stack(
        [dead_volumes[..., 0] + areas[..., 0] * s, dead_volumes[..., 1] + areas[..., 1] * (stroke - s)], axis=-1
    )


def pressure_rates(
    flows: FloatArray,
    volumes: FloatArray,
    extension_rate: FloatArray,
    areas: FloatArray,
    bulk_modulus: FloatArray | float,
) -> FloatArray:
    """Chamber pressure rates (..., 2) [Pa/s]: ``p' = beta_e / V (Q - V')`` with ``V_0' = A_0 s'`` and
    ``V_1' = -A_1 s'``, from the ``flows`` into the chambers (..., 2) [m^3/s], their ``volumes``
    (..., 2) [m^3], the extension rate s' (...) [m/s], the ``areas`` (..., 2) [m^2] and the
    effective ``bulk_modulus`` (..., 2) [Pa] (``hydraulic_fluid.effective_bulk_modulus``). A chamber
    squeezed to nothing has no rate: NaN, which makes an integrator retry smaller steps and then
    name the element."""
    volume_rate = areas * np.stack([extension_rate, -np.asarray(extension_rate)], axis=-1)
    positive = volumes > 0.0
    return np.where(positive, bulk_modulus / np.where(positive, volumes, 1.0) * (flows - volume_rate), np.nan)


def orifice_flow(
    area: FloatArray,
    discharge_coefficient: FloatArray,
    density: FloatArray,
    pressure_drop: FloatArray,
    transition_pressure: FloatArray,
) -> FloatArray:
    """Flow through an orifice [m^3/s]: ``Cd a sqrt(2/rho) dp / (dp^2 + dp_t^2)^(1/4)``,
    the turbulent law ``Cd a sqrt(2 |dp| / rho) sign(dp)`` made smooth and laminar near dp = 0."""
    dp = pressure_drop
    return discharge_coefficient * area * np.sqrt(2.0 / density) * dp / (dp**2 + transition_pressure**2) ** 0.25


def valve_flows(
    spool: FloatArray,
    p0: FloatArray,
    p1: FloatArray,
    supply_pressure: FloatArray,
    tank_pressure: FloatArray,
    max_area: FloatArray,
    discharge_coefficient: FloatArray,
    density: FloatArray,
    transition_pressure: FloatArray,
) -> FloatArray:
    """Flows (..., 2) [m^3/s] into chambers 0 and 1 through a critically lapped 4/3 valve at
    spool position ``spool`` in [-1, 1] (u > 0: supply to 0, 1 to tank; u < 0: the reverse)."""
    to_cap = max_area * np.maximum(spool, 0.0)
    to_rod = max_area * np.maximum(-spool, 0.0)

    def orifice(area: FloatArray, dp: FloatArray) -> FloatArray:
        return orifice_flow(area, discharge_coefficient, density, dp, transition_pressure)

    Q0 = orifice(to_cap, supply_pressure - p0) - orifice(to_rod, p0 - tank_pressure)
    Q1 = orifice(to_rod, supply_pressure - p1) - orifice(to_cap, p1 - tank_pressure)
    return np.stack([Q0, Q1], axis=-1)


def relief_flows(
    pressures: FloatArray, cracking_pressure: FloatArray | float, conductance: FloatArray | float
) -> FloatArray:
    """Flows (..., 2) [m^3/s] out of the chambers through relief valves to tank: ``G (p - p_crack)``
    above the cracking pressure, zero below it."""
    return conductance * np.maximum(pressures - cracking_pressure, 0.0)
