"""Validation checks: Numerical IK (``robokin.ik``), the DLS headline checks of chapter 6."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_errors, check_rate
from robokin.ik import ik_dls
from robokin.robots import UR5

__all__ = ["LABEL", "POPULATIONS", "validate"]

LABEL = "Numerical IK"

#: Success bars of :func:`validate` per population of targets (seeds 0.1 rad away, N(0, 0.1^2) per joint):
#: ``(label, |q5| or None for uniform q5, max failure rate)``. Near the wrist singularity (``sin q5 -> 0``,
#: except exactly 0 where the error has no component along the lost direction) the Jacobian's smallest
#: singular value is ~``|q5|`` and damped steps converge more slowly, so the bar there is looser; measured
#: failure rates (2000 targets each, seed 7): uniform 0, ``|q5|`` = 1e-2: 3.5e-3, 1e-3: 4e-3, 1e-4: 2.5e-3
#: (before the squared fade of the damping: 7.5e-3, 5.1e-2 and 0.36).
POPULATIONS = (
    ("q uniform in [-pi, pi)^6", None, 1e-3),
    ("q5 = +-1e-3 (near the wrist singularity)", 1e-3, 1e-2),
    ("q5 = +-1e-4 (nearer the wrist singularity)", 1e-4, 1e-2),
)


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of DLS on the UR5 (chapter 6), against the bars of COURSE.md section 7, on ``robots.UR5``.

    1. Success rate from seeds 0.1 rad away (each joint perturbed by N(0, 0.1^2)), per population of targets
       (:data:`POPULATIONS`): targets with ``q`` uniform in ``[-pi, pi)^6`` fail at most 1e-3 of the time (the
       99.9 % bar); targets within 1e-3 or 1e-4 rad of the wrist singularity at most 1e-2. Each bar is judged
       by :func:`robokin.checks.check_rate` (one-sided binomial test, false alarm <= 1e-3), not by comparing
       the observed rate with the bar.
    2. No silent failure: every reported success is confirmed by FK (residual <= 1e-10) and every
       failure carries a reason.

    Examples
    --------
    >>> [r.passed for r in validate(rng=np.random.default_rng(2), fast=True)]
    [True, True, True, True]
    """
    rng = np.random.default_rng(7) if rng is None else rng
    reports, honest = [], []
    for label, q5, bar in POPULATIONS:
        N = (1_000 if fast else 10_000) if q5 is None else (500 if fast else 2_000)
        q = rng.uniform(-np.pi, np.pi, (N, 6))
        if q5 is not None:
            q[:, 4] = q5 * rng.choice([-1.0, 1.0], N)
        q0 = q + rng.normal(scale=0.1, size=q.shape)
        res = ik_dls(UR5, UR5.fk(q), q0=q0)
        reason = np.asarray(res.reason, dtype=str)
        reports.append(
            check_rate(
                f"UR5 DLS IK from seeds 0.1 rad away, {label}: failure rate <= {bar:g}",
                ~res.valid,
                max_rate=bar,
                raise_on_fail=False,
            )
        )
        # error per sample: FK residual of a claimed success; 0 for a failure that says why; inf for a silent one
        honest.append(np.where(res.valid, res.residual, np.where(np.char.str_len(reason) > 0, 0.0, np.inf)))
    reports.append(
        check_errors(
            "UR5 DLS IK: successes confirmed by FK, failures carry a reason (m, rad)",
            np.concatenate(honest),
            tol=1e-10,
            raise_on_fail=False,
        )
    )
    return reports
