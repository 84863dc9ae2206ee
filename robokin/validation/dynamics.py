"""Validation checks: Lagrangian dynamics (``robokin.dynamics``)."""

from robokin.dynamics import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Lagrangian dynamics"
