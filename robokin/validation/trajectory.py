"""Validation checks: Trajectory planning (``robokin.trajectory``)."""

from robokin.trajectory import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Trajectory planning"
