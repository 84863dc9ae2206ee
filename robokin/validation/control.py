"""Validation checks: Control under model error (``robokin.control``)."""

from robokin.control import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Control under model error"
