"""Validation checks: Five-bar leg (``robokin.fivebar``), the headline checks of chapter 3."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_errors, check_jacobian
from robokin.robots import FIVEBAR

__all__ = ["LABEL", "validate"]

LABEL = "Five-bar leg"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of the five-bar chapter (for the validation report), on ``robots.FIVEBAR``.

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(3) if rng is None else rng
    leg = FIVEBAR
    n = 2000 if fast else 20000
    reports = []
    # FK(IK(p)) over the whole workspace, every working mode, FK assembly chosen from the solution's sign.
    p = np.stack([rng.uniform(-0.12, 0.19, n), rng.uniform(-0.17, 0.17, n)], axis=-1)
    errs = []
    for branch in leg.branches:
        res = leg.ik(p, branch=branch, on_unreachable="nan")
        q, ok = res.q, res.valid
        s = leg.assembly_sign(q[ok], p[ok])
        keep = np.abs(s) > 1e-6  # exactly on a type II singularity the assembly mode is undefined
        qk, pk, sk = q[ok][keep], p[ok][keep], s[keep]
        back = np.where((sk < 0)[:, None], leg.fk(qk, assembly="down"), leg.fk(qk, assembly="up"))
        errs.append(np.linalg.norm(back - pk, axis=-1) / leg.scale)
    reports.append(
        check_errors(
            "five-bar FK(IK(p)), 4 working modes, whole workspace", np.concatenate(errs), tol=1e-9, raise_on_fail=False
        )
    )
    # Jacobian vs central differences away from singularities
    res = leg.ik(np.stack([rng.uniform(-0.03, 0.10, 300), rng.uniform(-0.14, -0.06, 300)], -1), on_unreachable="nan")
    q = res.q[res.valid]
    reports.append(
        check_jacobian(
            lambda x: leg.jacobian(x),
            lambda x: leg.fk(x),
            q,
            eps=1e-6,
            tol=1e-6,
            name="five-bar Jacobian (implicit) vs finite differences",
            raise_on_fail=False,
        )
    )
    return reports
