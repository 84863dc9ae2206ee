"""Validation checks: spatial foundations (``robokin.transforms``)."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from robokin import checks
from robokin.checks import CheckReport
from robokin.transforms import matrix_to_rpy, rpy_to_matrix, so3_log, vee, zyx_rate_matrix

LABEL = "Spatial foundations"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of ``robokin.transforms`` for the validation report.

    Returns
    -------
    list of robokin.checks.CheckReport
        One report per check, computed with ``raise_on_fail=False``.

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(0) if rng is None else rng
    n = 1_000 if fast else 10_000
    rpy = np.column_stack([rng.uniform(-np.pi, np.pi, n), rng.uniform(-1.5, 1.5, n), rng.uniform(-np.pi, np.pi, n)])
    R = rpy_to_matrix(rpy)
    Rs = Rotation.random(n, random_state=rng).as_matrix()
    rates = rng.normal(size=rpy.shape)
    h = 1e-6
    dR = (rpy_to_matrix(rpy + h * rates) - rpy_to_matrix(rpy - h * rates)) / (2 * h)
    w_fd = vee(dR @ np.swapaxes(R, -1, -2))
    w_E = (zyx_rate_matrix(rpy, frame="world") @ rates[..., None])[..., 0]
    kw = {"raise_on_fail": False}
    return [
        checks.check_rigid(R, tol=1e-14, name="RPY matrices are rotations", **kw),
        checks.check_close(
            "RPY vs scipy Rotation('ZYX')", R, Rotation.from_euler("ZYX", rpy[:, ::-1]).as_matrix(), tol=1e-14, **kw
        ),
        checks.check_close("RPY round trip", matrix_to_rpy(R), rpy, tol=1e-10, unit="rad", **kw),
        checks.check_close(
            "so3_log vs scipy rotvec", so3_log(Rs), Rotation.from_matrix(Rs).as_rotvec(), tol=1e-12, unit="rad", **kw
        ),
        checks.check_close("ZYX rate map vs finite differences", w_E, w_fd, tol=1e-7, **kw),
    ]
