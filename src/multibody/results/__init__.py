"""Results of an analysis: immutable arrays with named access, and streaming HDF5 storage."""

from multibody.results.hydraulics import HydraulicsHistory
from multibody.results.results import (
    CONTACT_MODES,
    ENERGY_NAMES,
    BodyHistory,
    ContactHistory,
    ForceHistory,
    JointHistory,
    Results,
    ResultsLayout,
)
from multibody.results.storage import FORMAT_VERSION, ResultsWriter, load_results, save_results

__all__ = [
    "CONTACT_MODES",
    "ENERGY_NAMES",
    "FORMAT_VERSION",
    "BodyHistory",
    "ContactHistory",
    "ForceHistory",
    "HydraulicsHistory",
    "JointHistory",
    "Results",
    "ResultsLayout",
    "ResultsWriter",
    "load_results",
    "save_results",
]
