"""Validation checks: Numerical IK (``robokin.ik``)."""

from robokin.ik import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Numerical IK"
