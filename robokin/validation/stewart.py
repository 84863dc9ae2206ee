"""Validation checks: Stewart platform (``robokin.stewart``)."""

from robokin.stewart import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Stewart platform"
