"""Validation checks: Two-link leg (``robokin.leg2``), the headline checks of chapter 2."""

from __future__ import annotations

import numpy as np

from robokin import checks
from robokin.checks import CheckReport
from robokin.leg2 import TwoLinkLeg, calibrate
from robokin.robots import LEG2
from robokin.transforms import wrap_to_pi

__all__ = ["LABEL", "validate"]

LABEL = "Two-link leg"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 2 for the validation report (``raise_on_fail=False``), on ``robots.LEG2``.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> all(r.passed for r in validate(fast=True))
    True
    """
    rng = np.random.default_rng(2) if rng is None else rng
    n = 2_000 if fast else 20_000
    leg = LEG2
    L = leg.l1 + leg.l2
    reports = []
    # reachable targets uniform in the annulus (area-uniform radius)
    r = np.sqrt(rng.uniform((leg.l1 - leg.l2) ** 2, L**2, n))
    a = rng.uniform(-np.pi, np.pi, n)
    p = np.stack([r * np.sin(a), -r * np.cos(a)], axis=-1)
    for branch in leg.branches:
        reports.append(
            checks.residual_scan(
                leg.fk,
                lambda x, b=branch: leg.ik(x, branch=b).q,
                p,
                tol=1e-9,
                scale=L,
                name=f"leg2 FK(IK(p)) residual, branch {branch}",
                raise_on_fail=False,
            )
        )
    q = np.stack([rng.uniform(-np.pi, np.pi, n), rng.uniform(0.1, np.pi - 0.1, n)], axis=-1)
    for branch, sign in zip(leg.branches, (1, -1)):
        qk = q * [1, sign]
        back = leg.ik(leg.fk(qk), branch=branch).q
        reports.append(
            checks.check_errors(
                f"leg2 IK(FK(q)) recovers q, branch {branch}",
                np.abs(wrap_to_pi(back - qk)).max(axis=-1),
                tol=1e-9,
                unit="rad",
                raise_on_fail=False,
            )
        )
    reports.append(
        checks.check_jacobian(
            leg.jacobian, leg.fk, q[:500], name="leg2 Jacobian vs finite differences", raise_on_fail=False
        )
    )
    true = TwoLinkLeg(leg.l1, leg.l2 + 0.005)
    qc = rng.uniform([-1.0, 0.3], [1.0, 2.6], size=(40, 2))
    delta = np.array([0.03, -0.02])
    cal = calibrate(qc, true.fk(qc + delta), guess=leg)
    reports.append(
        checks.check_close(
            "leg2 calibration recovers [l1, l2, d1, d2] (noise-free)",
            cal.params,
            [true.l1, true.l2, *delta],
            tol=1e-9,
            raise_on_fail=False,
        )
    )
    return reports
