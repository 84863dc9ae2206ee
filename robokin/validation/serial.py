"""Validation checks: Serial arm (DH) (``robokin.serial``)."""

from robokin.serial import validate  # noqa: F401  (transitional: the checks move here from the mechanism module)

LABEL = "Serial arm (DH)"
