"""Validation checks: UR5 analytic IK (``robokin.ur5``), the headline checks of chapter 6."""

from __future__ import annotations

import warnings

import numpy as np

from robokin._primitives import wrap
from robokin.checks import CheckReport, check_errors
from robokin.errors import SingularityWarning
from robokin.robots import UR5
from robokin.ur5 import pose_residual

__all__ = ["LABEL", "validate"]

LABEL = "UR5 analytic IK"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of the UR5 analytic IK (chapter 6), on ``robots.UR5``.

    1. FK(IK(T)) pose residual of every valid branch, recomputed here, <= 1e-9.
    2. Wrist-singular poses (q5 = 0 or pi, theta6 free) all keep a valid branch.
    3. A float32 copy of each pose keeps every branch of the float64 pose.
    4. The generating q is among the 8 branches (to 1e-7 rad).

    Examples
    --------
    >>> [r.passed for r in validate(rng=np.random.default_rng(1), fast=True)]
    [True, True, True, True]
    """
    rng = np.random.default_rng(6) if rng is None else rng
    N = 2000 if fast else 20000
    q = rng.uniform(-np.pi, np.pi, (N, 6))
    T = UR5.fk(q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        sol = UR5.ik(T, on_unreachable="nan")
    Q, valid = sol.q, sol.valid
    res = np.where(valid, pose_residual(UR5.fk(np.where(valid[..., None], Q, 0.0)), T[:, None]), 0.0)
    worst = np.max(res, axis=-1)
    worst = np.where(np.any(valid, -1), worst, np.inf)
    found = np.min(np.where(valid, np.abs(wrap(Q - q[:, None])).max(-1), np.inf), axis=-1)
    # totality: wrist-singular poses (q5 = 0 or pi, theta6 free) and float32 poses are all solved
    qs = rng.uniform(-np.pi, np.pi, (N, 6))
    qs[:, 4] = np.where(rng.random(N) < 0.5, 0.0, np.pi)
    v_sing = UR5.ik(UR5.fk(qs), on_unreachable="nan", warn=False).valid
    v32 = UR5.ik(T.astype(np.float32), on_unreachable="nan", warn=False).valid
    return [
        check_errors(
            "UR5 analytic IK: FK(IK(T)) pose residual, all valid branches", worst, tol=1e-9, raise_on_fail=False
        ),
        check_errors(
            "UR5 analytic IK: wrist-singular poses (q5 = 0 or pi) without a valid branch (count)",
            (~v_sing.any(-1)).astype(float),
            tol=0.0,
            raise_on_fail=False,
        ),
        check_errors(
            "UR5 analytic IK: float32 poses, branches lost vs the float64 pose (count)",
            (valid & ~v32).sum(-1).astype(float),
            tol=0.0,
            raise_on_fail=False,
        ),
        check_errors(
            "UR5 analytic IK: generating q among the 8 branches (rad)", found, tol=1e-7, unit="rad", raise_on_fail=False
        ),
    ]
