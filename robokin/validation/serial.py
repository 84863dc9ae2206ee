"""Validation checks: Serial arm (DH) (``robokin.serial``), the headline checks of chapter 5."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_close, check_jacobian
from robokin.robots import UR5
from robokin.serial import dh_transform
from robokin.transforms import make_transform, rotx, rotz, so3_log

__all__ = ["LABEL", "validate"]

LABEL = "Serial arm (DH)"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of the DH machinery (chapter 5) as a list of reports, on ``robots.UR5``.

    1. Both DH conventions equal their products of elementary transforms (tol 1e-14).
    2. The UR5 geometric Jacobian equals central differences of FK, orientation through the rotation log.

    Examples
    --------
    >>> all(r.passed for r in validate(rng=np.random.default_rng(0), fast=True))
    True
    """
    rng = np.random.default_rng(5) if rng is None else rng
    N = 200 if fast else 2000
    reports = []
    a, al, d, th = (
        rng.uniform(-1, 1, N),
        rng.uniform(-np.pi, np.pi, N),
        rng.uniform(-1, 1, N),
        rng.uniform(-np.pi, np.pi, N),
    )
    z0 = np.zeros(N)
    Tz = make_transform(np.eye(3), np.stack([z0, z0, d], -1))
    Tx = make_transform(np.eye(3), np.stack([a, z0, z0], -1))
    Rz = make_transform(rotz(th), np.zeros(3))
    Rx = make_transform(rotx(al), np.zeros(3))
    reports.append(
        check_close(
            "standard DH = Rz Tz Tx Rx",
            dh_transform(a, al, d, th, convention="standard"),
            Rz @ Tz @ Tx @ Rx,
            tol=1e-14,
            raise_on_fail=False,
        )
    )
    reports.append(
        check_close(
            "modified DH = Rx Tx Rz Tz",
            dh_transform(a, al, d, th, convention="modified"),
            Rx @ Tx @ Rz @ Tz,
            tol=1e-14,
            raise_on_fail=False,
        )
    )
    q = rng.uniform(-np.pi, np.pi, (50 if fast else 300, 6))

    def f(qq):
        T = UR5.fk(qq)
        T0 = UR5.fk(q)[..., None, :, :] if qq.ndim == 3 else UR5.fk(q)
        # orientation via the rotation log relative to the unperturbed pose (not Euler angles)
        return np.concatenate([T[..., :3, 3], so3_log(T[..., :3, :3] @ np.swapaxes(T0[..., :3, :3], -1, -2))], -1)

    reports.append(
        check_jacobian(
            UR5.jacobian,
            f,
            q,
            eps=1e-6,
            tol=1e-6,
            name="UR5 geometric Jacobian vs finite differences (so3 log)",
            raise_on_fail=False,
        )
    )
    return reports
