"""Parameter studies: sweeps, designs of experiments, sensitivity and optimization of a model.

``Study`` (in ``study``) runs one picklable task per design point (``run``) on a backend chosen
by ``client`` (``execution``), keeps finished runs in an HDF5 file (``storage``) and returns a
``StudyResult`` (``result``, with ``plots``). Designs come from ``design``, Sobol'/Morris/local
sensitivity from ``sensitivity``, optimization from ``optimization``; ``config`` reads the
TOML file of ``multibody study``.
"""

from multibody.studies.errors import StudyError
from multibody.studies.result import StudyResult
from multibody.studies.study import Study

__all__ = ["Study", "StudyError", "StudyResult"]
