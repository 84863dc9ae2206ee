"""Validation checks: Five-bar leg (``robokin.fivebar``)."""

from robokin.fivebar import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Five-bar leg"
