"""The spring-mass of ``spring_mass.py``, except that the process building it is killed (SIGKILL,
as by the kernel's out-of-memory killer or a cluster pre-empting a node) when the stiffness equals
the environment variable ``MULTIBODY_TEST_KILL_AT``."""

from __future__ import annotations

import os
import signal

import spring_mass

import multibody as mb

KILL_AT = "MULTIBODY_TEST_KILL_AT"


def build(stiffness: float) -> mb.Model:
    """``spring_mass.build(stiffness)``, or a SIGKILL of this process at the marked stiffness [N/m]."""
    if os.environ.get(KILL_AT) and float(os.environ[KILL_AT]) == stiffness:
        os.kill(os.getpid(), signal.SIGKILL)
    return spring_mass.build(stiffness)
