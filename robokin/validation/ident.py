"""Validation checks: Parameter identification (``robokin.ident``)."""

from robokin.ident import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Parameter identification"
