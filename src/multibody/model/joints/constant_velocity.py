"""Constant-velocity joint (ADAMS CONVEL): two shafts turning at the same rate whatever their angle."""

from multibody.model.joints.base import ConstraintRow, Joint, coincident


class ConstantVelocity(Joint):
    """Origins coincide and ``x_I . y_J + y_I . x_J = 0``: the 3-1-3 angles of I relative to J
    have equal first and third angles, so the two shafts (along z_I and z_J) turn by the same
    angle, at the same rate, whatever the bend (the homokinetic condition). Two DOF: the spin and
    the bend. As in ADAMS, point z_I and z_J down the shafts, away from the joint, with the x-axes
    parallel in the input configuration (with z-axes toward the joint the equation degenerates
    when the shafts are in line)."""

    rows = coincident() + (ConstraintRow("constant_velocity", 0, 1, "equal shaft angles"),)
