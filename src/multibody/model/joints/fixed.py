"""Fixed joint: locks all six relative DOF."""

from multibody.model.joints.base import NO_ROTATION_ABOUT_Z, PARALLEL_Z, Joint, coincident


class Fixed(Joint):
    """I and J origins coincide and the frames keep their relative orientation."""

    rows = coincident() + PARALLEL_Z + (NO_ROTATION_ABOUT_Z,)
