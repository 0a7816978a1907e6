"""Redundant constraints: found at compile, named, removed, and checked for consistency.

References:
- Gruebler's count of a planar four-bar built from four revolute joints in 3-D:
  6 x 3 bodies - 4 x 5 equations = -2, while its mobility is 1 (the crank angle), so 3 of the
  20 equations repeat the others (the out-of-plane ones of the loop-closing joint).
- The same four-bar built without redundancy (revolute, revolute, spherical, universal:
  18 - 17 = 1 = mobility) moves the same way, so both models must give the same motion.
- Two hinges of a door that are not coaxial cannot both hold: no configuration exists, and
  assembly must say so naming both hinges rather than drop one and carry on.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.typing import ArrayLike, NDArray

import multibody as mb

GROUND_LINK, CRANK, COUPLER, ROCKER = 0.4, 0.1, 0.35, 0.3
"""Link lengths [m]: Grashof crank-rocker (0.1 + 0.4 < 0.35 + 0.3)."""

LINK_MASS, LINK_RADIUS = 1.0, 0.01
"""Each link a solid cylinder [kg, m]."""

Z = (0.0, 0.0, 1.0)


def pin_positions(crank_angle: float) -> tuple[NDArray[np.float64], ...]:
    """World positions [m] of the ground pivot O2, crank pin A, rocker pin B (elbow up) and rocker pivot O4."""
    O2, O4 = np.zeros(3), np.array([GROUND_LINK, 0.0, 0.0])
    A = CRANK * np.array([np.cos(crank_angle), np.sin(crank_angle), 0.0])
    diagonal = np.linalg.norm(O4 - A)
    along = (O4 - A) / diagonal
    to_foot = (diagonal**2 + COUPLER**2 - ROCKER**2) / (2.0 * diagonal)
    B = A + to_foot * along + np.sqrt(COUPLER**2 - to_foot**2) * np.array([-along[1], along[0], 0.0])
    return O2, A, B, O4


def link(name: str, start: ArrayLike, end: ArrayLike) -> mb.RigidBody:
    """A cylinder from ``start`` to ``end`` (world, in the xy-plane), body x along its axis."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    length = np.linalg.norm(end - start)
    c, s = (end - start)[:2] / length
    axial = LINK_MASS * LINK_RADIUS**2 / 2.0
    transverse = LINK_MASS * (3.0 * LINK_RADIUS**2 + length**2) / 12.0
    return mb.RigidBody(
        name,
        LINK_MASS,
        (axial, transverse, transverse),
        position=(start + end) / 2.0,
        orientation=[[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
    )


def four_bar(redundant: bool) -> mb.Model:
    """The four-bar at a crank angle of 60 deg under gravity -y (in its plane).

    ``redundant``: four revolute joints about z. Otherwise the rocker pin is spherical and the
    rocker pivot universal, its rocker-side cross axis in the plane across the rocker (so the
    rocker cannot spin about its own axis: no idle freedom).
    """
    O2, A, B, O4 = pin_positions(np.radians(60.0))
    model = mb.Model("four_bar" if redundant else "four_bar_rrsu", gravity=(0.0, -9.81, 0.0))
    crank, coupler, rocker = (
        model.add(link(*args)) for args in (("crank", O2, A), ("coupler", A, B), ("rocker", O4, B))
    )

    def at(body: mb.Body, name: str, point: NDArray[np.float64], z_axis: ArrayLike | None = Z) -> mb.Marker:
        return body.add_marker(name, point, z_axis=z_axis, frame="world")

    model.add(mb.Revolute("ground_pivot", at(crank, "o2", O2), at(model.ground, "o2", O2)))
    model.add(mb.Revolute("crank_pin", at(coupler, "a", A), at(crank, "a", A)))
    if redundant:
        model.add(mb.Revolute("rocker_pin", at(coupler, "b", B), at(rocker, "b", B)))
        model.add(mb.Revolute("rocker_pivot", at(rocker, "o4", O4), at(model.ground, "o4", O4)))
    else:
        model.add(mb.Spherical("rocker_pin", at(coupler, "b", B, None), at(rocker, "b", B, None)))
        model.add(mb.Universal("rocker_pivot", at(rocker, "o4", O4, np.cross(Z, B - O4)), at(model.ground, "o4", O4)))
    return model


def test_four_revolute_four_bar_has_three_named_redundant_equations() -> None:
    with pytest.warns(mb.RedundantConstraintWarning) as caught:
        system = four_bar(redundant=True).compile()
    assert system.gruebler_dof == -2
    assert system.dof == 1
    assert len(system.redundant) == 3
    # Gram-Schmidt in model order: the loop-closing joint's out-of-plane equations repeat the rest.
    assert {r.element for r in system.redundant} == {"rocker_pivot"}
    assert {r.label for r in system.redundant} == {"translation along world z", "rotation about x", "rotation about y"}
    for report in (str(caught[0].message), system.summary()):
        assert "3 redundant" in report
        assert "'rocker_pivot': rotation about x is redundant with 'ground_pivot', 'crank_pin', 'rocker_pin'" in report


def test_four_bar_without_redundancy_compiles_quietly() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", mb.RedundantConstraintWarning)
        system = four_bar(redundant=False).compile()
    assert system.gruebler_dof == system.dof == 1
    assert system.redundant == ()


def test_redundant_four_bar_moves_like_the_non_redundant_one() -> None:
    """Free swing under gravity for 2 s, rtol = atol = 1e-9.

    Tolerance 1e-7 m: each run is within 4.2e-8 m of the exact motion (measured once against
    rtol 1e-11), so two runs of the same motion agree to 8.4e-8 m whatever steps they take. (They
    usually take the same steps, as the active rows span the same space, and then agree to 1e-13 m.)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        redundant = mb.dynamics(four_bar(redundant=True), 2.0, 0.05, rtol=1e-9)
    plain = mb.dynamics(four_bar(redundant=False), 2.0, 0.05, rtol=1e-9)
    for name in ("crank", "coupler", "rocker"):
        np.testing.assert_allclose(
            redundant.body(name).position, plain.body(name).position, rtol=0, atol=1e-7, err_msg=name
        )
    # The mechanism did swing: the crank turned by more than a radian (else the comparison says little).
    crank_start, crank_end = redundant.body("crank").position[[0, -1], :2]
    assert np.arccos(crank_start @ crank_end / np.linalg.norm(crank_start) / np.linalg.norm(crank_end)) > 1.0


def door(upper_hinge_offset: ArrayLike = (0.0, 0.0, 0.0), upper_hinge_axis: ArrayLike = Z) -> mb.Model:
    """A 10 kg door on two hinges 1 m apart on the world z-axis; the upper hinge's ground half is
    moved by ``upper_hinge_offset`` [m] and turned to ``upper_hinge_axis``."""
    model = mb.Model("door")
    leaf = model.add(mb.RigidBody("leaf", 10.0, (1.0, 1.0, 1.5), position=(0.4, 0.0, 0.5)))
    model.add(
        mb.Revolute(
            "lower_hinge",
            leaf.add_marker("low", (0, 0, 0), z_axis=Z, frame="world"),
            model.ground.add_marker("low", z_axis=Z),
        )
    )
    upper = np.array([0.0, 0.0, 1.0])
    model.add(
        mb.Revolute(
            "upper_hinge",
            leaf.add_marker("up", upper, z_axis=Z, frame="world"),
            model.ground.add_marker("up", upper + upper_hinge_offset, z_axis=upper_hinge_axis),
        )
    )
    return model


def test_coaxial_hinges_are_redundant_and_consistent() -> None:
    with pytest.warns(mb.RedundantConstraintWarning):
        system = door().compile()
    assert (system.gruebler_dof, system.dof, len(system.redundant)) == (-4, 1, 5)
    np.testing.assert_array_equal(mb.assemble(system).body("leaf").position, [[0.4, 0.0, 0.5]])


@pytest.mark.parametrize(
    ("hinge", "violation"),
    [
        ({"upper_hinge_offset": (0.01, 0.0, 0.0)}, "'upper_hinge' translation along world x by 0.01"),
        ({"upper_hinge_axis": (np.sin(0.1), 0.0, np.cos(0.1))}, "'upper_hinge' rotation about y by 0.0998"),
    ],
    ids=["axes 1 cm apart", "axes 0.1 rad apart"],
)
def test_hinges_that_cannot_both_hold_raise_naming_both(hinge: dict, violation: str) -> None:
    """Violation: the 1 cm offset, or sin(0.1 rad) = 0.0998 between the axes (3 digits printed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        with pytest.raises(mb.AssemblyError) as raised:
            mb.assemble(door(**hinge))
    message = str(raised.value)
    assert "inconsistent redundant constraints" in message and violation in message and "'lower_hinge'" in message, (
        message
    )


def test_nearly_coaxial_hinges_assemble_or_raise_an_assembly_error() -> None:
    """Hinge axes 1e-7 rad apart: either the upper hinge's rows count as redundant and consistent
    (0.1 um of misfit over 1 m) or assembly says the hinges disagree; a bare LinAlgError says neither."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        try:
            mb.assemble(door(upper_hinge_axis=(1e-7, 0.0, 1.0)))
        except mb.AssemblyError as error:
            assert "'upper_hinge'" in str(error) and "'lower_hinge'" in str(error)


def test_constraint_dependent_only_at_the_input_dead_centre_is_not_removed() -> None:
    """A pendulum (pivot at the origin, tip 1 m out along x) tethered by a Distance of 1.2 m to a
    ground post at (2, 0, 0). The model is consistent (the tip reaches the 1.2 m circle at
    cos a = 0.89) and has 0 DOF. But at the input configuration a = 0 the tether pulls along the
    rod, its row is a multiple of the pivot's, and compile drops it as redundant (DOF 1); assembly
    then keeps a = 0 and rejects the tether as inconsistent. Reference: cos a = (1 + 4 - 1.44) / 4 = 0.89 (law of cosines).
    """
    model = mb.Model("tethered")
    rod = model.add(mb.RigidBody("rod", 2.0, (0.001, 0.17, 0.17), position=(0.5, 0.0, 0.0)))
    model.add(mb.Revolute("pivot", rod.add_marker("pivot", (-0.5, 0.0, 0.0)), model.ground.add_marker("pivot")))
    post = model.ground.add_marker("post", (2.0, 0.0, 0.0))
    model.add(mb.Distance("tether", rod.add_marker("tip", (0.5, 0.0, 0.0)), post, 1.2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mb.RedundantConstraintWarning)
        system = model.compile()
        rod_position = mb.assemble(system).body("rod").position[0]
    assert system.dof == 0
    np.testing.assert_allclose(np.abs(rod_position[:2]) / 0.5, [0.89, np.sqrt(1.0 - 0.89**2)], atol=1e-9)
