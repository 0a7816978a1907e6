"""Universal joints: the ADAMS UNIVERSAL (z_I perpendicular to z_J) and HOOKE (x_I perpendicular to y_J) forms."""

from multibody.model.joints.base import Joint, coincident, perpendicular


class Universal(Joint):
    """Origins coincide and the spin axes z_I, z_J stay perpendicular (ADAMS UNIVERSAL): two DOF.

    The cross axes are z_I and z_J themselves, so place the markers with their z-axes
    along the two pins of the cross.
    """

    rows = coincident() + (perpendicular("z", "z", "rotation about the cross"),)


class Hooke(Joint):
    """Origins coincide and x_I stays perpendicular to y_J (ADAMS HOOKE): two DOF.

    The cross axes are x_I and y_J, the spin axes z_I and z_J are the shafts.
    """

    rows = coincident() + (perpendicular("x", "y", "rotation about the shafts"),)
