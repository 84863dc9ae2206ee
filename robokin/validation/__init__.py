"""Headline validation checks, one module per mechanism, run by :mod:`robokin.report`.

Each module here defines ``LABEL`` (the mechanism's name in the report) and ``validate(*, rng=None, fast=False)``
returning a list of :class:`robokin.checks.CheckReport`. The modules sit above the mechanisms and the reference
robots (``robokin.robots``) in the layering, so they may use both; no mechanism module imports from here.
The report discovers the modules in ``MODULES`` order (book order).
"""

MODULES = (
    "transforms",
    "leg2",
    "fivebar",
    "wheel_leg",
    "serial",
    "ur5",
    "ik",
    "trajectory",
    "mecanum",
    "stewart",
    "dynamics",
    "control",
    "ident",
    "sim",
)
