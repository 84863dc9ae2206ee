"""Validation checks: Multibody simulation (MuJoCo) (``robokin.sim``)."""

from robokin.sim import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Multibody simulation (MuJoCo)"
