"""Validation checks: Two-link leg (``robokin.leg2``)."""

from robokin.leg2 import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Two-link leg"
