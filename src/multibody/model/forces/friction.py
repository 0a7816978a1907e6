"""Joint friction (as ADAMS FRICTION does it): Coulomb friction loaded by a joint's reaction,
with stiction held by a bristle (LuGre-type) first-order state so that sticking does not drift.

Every supported joint is reduced to a *slip* at a friction surface: a vector ``s`` [m/s] of up
to three components, each the rate of a joint coordinate scaled to the surface (a translation
rate along the joint axis, or a rotation rate times ``pin_radius``), and a *normal load* ``L``
[N] built from the joint's reaction (its multipliers):

====================  ===========================================  ==================================
joint                 slip ``s``                                   normal load ``L`` (each term an input)
====================  ===========================================  ==================================
``Translational``     ``v_z`` along z_J                            ``|F_xy|``, ``|T_xy| / bending_reflection_arm``,
                                                                   ``|T_z| / reaction_arm``
``Revolute``          ``R omega_z``                                ``|F_xy|``, ``|F_z| friction_arm / R``,
                                                                   ``|T_xy| / bending_reflection_arm``
``Cylindrical``       ``(v_z, R omega_z)``                         ``|F_xy|``, ``|T_xy| / bending_reflection_arm``
``Spherical``         ``R omega`` (3 components)                   ``|F|``
``Universal``         ``R (omega . z_I, omega . z_J)`` (the pins)  ``|F|``
====================  ===========================================  ==================================

(``F``, ``T``: the reaction force and torque on the joint's I marker in J axes; ``R`` =
``pin_radius``, the ball radius of a spherical joint; ``omega`` the angular velocity of I
relative to J.) The friction force at the surface has the capacity ``C(|s|) = mu(|s|)/mu_s *
(mu_s L + preload + preload_torque / R)``: ``mu`` is ``mu_static`` up to ``stiction_velocity``
and falls to ``mu_dynamic`` at ``transition_velocity`` along ADAMS's cubic STEP.

The bristle deflection ``z`` [m] (one state per slip component) follows the LuGre law
``z' = s - alpha |s| z / z_ss(|s|)`` with ``z_ss = max_stiction_deformation * mu(|s|) / mu_s`` and
``alpha`` rising from 0 at 90 % of ``z_ss`` to 1 at ``z_ss`` (0 while unloading; Dupont et al.
2002's elasto-plastic form of LuGre, Canudas de Wit et al. 1995): it follows the slip exactly
while the joint sticks (no drift) and settles at ``z_ss`` while it slides. The surface friction
is the bristle's spring-damper ``f = -C_s (z / z_max + (1 - alpha) z' / v_s)``, bent smoothly
above the capacity ``C(|s|)`` to at most 1.1 times it: full static friction at the largest
deflection ``z_max`` (ADAMS's load-scaled stiction stiffness), or from the damper alone at the
stiction velocity. A sticking joint holds with ``|z| < z_max`` (the damper makes the bristle
overdamped for usual data, so it settles without overshoot); steady sliding (``alpha = 1``,
``z' = 0``) gives exactly ``C(|s|)``, ``mu_d L`` above the transition velocity.
The joint's I body receives the force ``f_1 z_J`` (translation components) and the torque
``R f_k a_k`` about the rotation axes ``a_k``; J the opposite.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from multibody.model.element import ModelError
from multibody.model.forces.base import ForceElement
from multibody.model.joints.base import Joint
from multibody.model.joints.cylindrical import Cylindrical
from multibody.model.joints.revolute import Revolute
from multibody.model.joints.spherical import Spherical
from multibody.model.joints.translational import Translational
from multibody.model.joints.universal import Universal
from multibody.model.marker import bounded_number

FRICTION_INPUTS = ("preload", "reaction_force", "bending_moment", "torsional_moment")
"""The loads that may feed the friction (ADAMS's INPUTS): each names terms of ``L`` (see module)."""

SLIP_COMPONENTS = {Translational: 1, Revolute: 1, Cylindrical: 2, Spherical: 3, Universal: 2}
"""Joint family -> number of slip components (and bristle states)."""


class JointFriction(ForceElement):
    """Coulomb friction with stiction in ``joint`` (Translational, Revolute, Cylindrical,
    Spherical or Universal), loaded by the joint's reaction; see the module for the law.

    ``mu_static`` >= ``mu_dynamic`` >= 0; ``stiction_velocity`` [m/s] > 0 (slip speed at the
    friction surface up to which the joint sticks); ``transition_velocity`` [m/s] (default 1.5 x
    the stiction velocity, ADAMS's default) where sliding friction is reached;
    ``max_stiction_deformation`` [m] > 0, the largest creep of a sticking joint;
    ``pin_radius`` [m] (rotational joints: the pin, or the ball of a spherical joint);
    ``friction_arm`` [m] (revolute: arm of the thrust face loaded by the axial force);
    ``bending_reflection_arm`` [m] (the bending moment's contribution ``|T_b| / arm``);
    ``reaction_arm`` [m] (translational: the torsional moment's ``|T_z| / arm``); ``preload`` [N]
    and ``preload_torque`` [N m] (friction present without any reaction, e.g. a seal's squeeze);
    ``inputs``: the loads that feed the friction, a subset of ``FRICTION_INPUTS`` (default: every
    one whose arm is given). The element's value is the friction force magnitude at the surface [N].
    """

    marker_roles = ("i_marker", "j_marker")

    def __init__(
        self,
        name: str,
        joint: Joint,
        mu_static: float,
        mu_dynamic: float,
        stiction_velocity: float,
        max_stiction_deformation: float = 1e-4,
        pin_radius: float | None = None,
        friction_arm: float | None = None,
        bending_reflection_arm: float | None = None,
        reaction_arm: float | None = None,
        preload: float = 0.0,
        preload_torque: float = 0.0,
        transition_velocity: float | None = None,
        inputs: Sequence[str] | None = None,
    ) -> None:
        owner = f"force '{name}'"
        family = type(joint)
        if family not in SLIP_COMPONENTS:
            supported = ", ".join(f.__name__ for f in SLIP_COMPONENTS)
            raise ModelError(
                f"{owner}: joint friction acts in a {supported} joint, got {joint!r}; "
                "model friction in other joints with a UserForce that reads their multipliers"
            )
        super().__init__(name, joint.i_marker, joint.j_marker)
        self.joint = joint
        (self.mu_static, self.mu_dynamic, self.stiction_velocity, self.transition_velocity) = coulomb_parameters(
            owner, mu_static, mu_dynamic, stiction_velocity, transition_velocity
        )
        self.max_stiction_deformation = bounded_number(
            owner, "max_stiction_deformation", max_stiction_deformation, "m", strict=True
        )
        rotational = family is not Translational
        self.pin_radius = _optional_arm(owner, "pin_radius", pin_radius)
        if rotational and self.pin_radius is None:
            raise ModelError(
                f"{owner}: friction in {joint.describe()} needs pin_radius [m] (the radius at which the "
                f"{'ball' if family is Spherical else 'pin'} slides)"
            )
        self.friction_arm = _optional_arm(owner, "friction_arm", friction_arm)
        self.bending_reflection_arm = _optional_arm(owner, "bending_reflection_arm", bending_reflection_arm)
        self.reaction_arm = _optional_arm(owner, "reaction_arm", reaction_arm)
        for arm, families in (
            ("friction_arm", (Revolute,)),
            ("bending_reflection_arm", (Translational, Revolute, Cylindrical)),
            ("reaction_arm", (Translational,)),
        ):
            if getattr(self, arm) is not None and family not in families:
                raise ModelError(f"{owner}: {arm} has no meaning for {joint.describe()}; leave it out")
        self.preload = bounded_number(owner, "preload", preload, "N")
        self.preload_torque = bounded_number(owner, "preload_torque", preload_torque, "N m")
        if self.preload_torque > 0.0 and not rotational:
            raise ModelError(
                f"{owner}: preload_torque needs a rotational joint; give a translational joint preload [N]"
            )
        self.inputs = self._inputs(owner, inputs)

    def _inputs(self, owner: str, inputs: Sequence[str] | None) -> tuple[str, ...]:
        """Validated ``inputs``; by default every input that applies to the joint and has its arm."""
        translational = type(self.joint) is Translational
        needs = {"bending_moment": "bending_reflection_arm", "torsional_moment": "reaction_arm"}
        if inputs is None:
            return tuple(
                word
                for word in FRICTION_INPUTS
                if word not in needs
                or (getattr(self, needs[word]) is not None and (translational or word != "torsional_moment"))
            )
        chosen = (inputs,) if isinstance(inputs, str) else tuple(inputs)
        for word in chosen:
            if word not in FRICTION_INPUTS:
                raise ModelError(f"{owner}: unknown friction input {word!r}; choose from {', '.join(FRICTION_INPUTS)}")
            if word == "torsional_moment" and not translational:
                raise ModelError(f"{owner}: input 'torsional_moment' loads only a translational joint's friction")
            if word in needs and getattr(self, needs[word]) is None:
                raise ModelError(f"{owner}: input '{word}' needs {needs[word]} [m]; give it or drop the input")
        return chosen

    @property
    def initial_states(self) -> np.ndarray:
        """The bristle deflections [m], one per slip component, initially relaxed."""
        return np.zeros(SLIP_COMPONENTS[type(self.joint)])

    @property
    def state_scales(self) -> np.ndarray:
        """The bristle deflections live on the scale of ``max_stiction_deformation`` [m]."""
        return np.full(self.initial_states.size, self.max_stiction_deformation)

    @property
    def read_joints(self) -> tuple[Joint, ...]:
        """The joint whose reaction loads the friction."""
        return (self.joint,)


def coulomb_parameters(
    owner: str, mu_static: float, mu_dynamic: float, stiction_velocity: float, transition_velocity: float | None
) -> tuple[float, float, float, float]:
    """Validated ``(mu_static, mu_dynamic, stiction_velocity, transition_velocity)`` of a Coulomb
    law with a stiction transition (joint friction, contact friction); the transition velocity
    defaults to ADAMS's 1.5 x the stiction velocity."""
    mu_s = bounded_number(owner, "mu_static", mu_static)
    mu_d = bounded_number(owner, "mu_dynamic", mu_dynamic)
    if mu_d > mu_s:
        raise ModelError(
            f"{owner}: mu_dynamic ({mu_d}) exceeds mu_static ({mu_s}); a surface slides with at most its "
            "static coefficient: swap them or lower mu_dynamic"
        )
    v_s = bounded_number(owner, "stiction_velocity", stiction_velocity, "m/s", strict=True)
    v_t = (
        1.5 * v_s
        if transition_velocity is None
        else bounded_number(owner, "transition_velocity", transition_velocity, "m/s", strict=True)
    )
    if v_t <= v_s:
        raise ModelError(
            f"{owner}: transition_velocity ({v_t} m/s) must exceed stiction_velocity ({v_s} m/s); "
            "leave it out for ADAMS's 1.5 x stiction_velocity"
        )
    return mu_s, mu_d, v_s, v_t


def _optional_arm(owner: str, what: str, value: float | None) -> float | None:
    return None if value is None else bounded_number(owner, what, value, "m", strict=True)
