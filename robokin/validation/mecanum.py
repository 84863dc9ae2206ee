"""Validation checks: Mecanum chassis (``robokin.mecanum``)."""

from robokin.mecanum import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Mecanum chassis"
