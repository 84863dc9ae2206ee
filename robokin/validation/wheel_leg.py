"""Validation checks: Wheel-legged balance (``robokin.wheel_leg``)."""

from robokin.wheel_leg import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Wheel-legged balance"
