"""Validation checks: UR5 analytic IK (``robokin.ur5``)."""

from robokin.ur5 import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "UR5 analytic IK"
