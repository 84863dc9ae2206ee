"""Validation checks: Spatial foundations (``robokin.transforms``)."""

from robokin.transforms import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Spatial foundations"
