"""Validation checks: Trajectory planning (``robokin.trajectory``, chapter 7)."""

from __future__ import annotations

import numpy as np

from robokin.checks import CheckReport, check_errors
from robokin.trajectory import allocate_times, minimum_time, plan_quintic, quintic_coeffs, quintic_eval, quintic_step

LABEL = "Trajectory planning"


def validate(*, rng: np.random.Generator | None = None, fast: bool = False) -> list[CheckReport]:
    """Headline checks of chapter 7 for the book's validation report.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> all(rep.passed for rep in validate(fast=True))
    True
    """
    rng = np.random.default_rng(7) if rng is None else rng
    N = 200 if fast else 2000
    b = rng.normal(size=(N, 6))
    T = rng.uniform(0.2, 3.0, size=N)
    kw = dict(v0=b[:, 1], vf=b[:, 4], a0=b[:, 2], af=b[:, 5])
    c = quintic_coeffs(b[:, 0], b[:, 3], T, **kw)
    cs = quintic_coeffs(b[:, 0], b[:, 3], T, **kw, method="solve")
    reps: list[CheckReport] = [
        check_errors(
            "ch7 quintic closed form vs 6x6 solve",
            np.abs(c - cs).max(-1) / (1 + np.abs(cs).max(-1)),
            tol=1e-10,
            raise_on_fail=False,
        )
    ]
    end = np.stack(quintic_eval(c, T)[:3], -1)
    reps.append(
        check_errors(
            "ch7 quintic boundary conditions at tau = T", np.abs(end - b[:, 3:]).max(-1), tol=1e-9, raise_on_fail=False
        )
    )
    # the rest-to-rest step is the quintic with zero end rates, held constant outside [t0, t1]
    t0, t1 = 0.3, 1.9
    t = np.linspace(-0.5, 2.5, N)
    v, vd, vdd = quintic_step(t, t0=t0, t1=t1, v0=b[0, :3], v1=b[1, :3])
    ref = quintic_eval(quintic_coeffs(b[0, :3], b[1, :3], t1 - t0), np.clip(t, t0, t1)[:, None] - t0)
    inside = ((t > t0) & (t < t1))[:, None]
    err = np.stack([v - ref[0], vd - np.where(inside, ref[1], 0.0), vdd - np.where(inside, ref[2], 0.0)])
    reps.append(
        check_errors(
            "ch7 quintic_step vs the rest-to-rest quintic (value, rate, acceleration)",
            np.abs(err).max(axis=(0, 2)) / (1 + np.abs(b[:2, :3]).max()),
            tol=1e-12,
            raise_on_fail=False,
        )
    )
    wp = np.cumsum(rng.normal(size=(6, 3)), axis=0)
    tr = plan_quintic(wp, allocate_times(wp, 5.0, method="distance"))
    reps.append(
        check_errors(
            "ch7 piecewise quintic: jumps of q, q', q'' at joins",
            np.abs(tr.join_jumps()[:, :3]),
            tol=1e-9,
            raise_on_fail=False,
        )
    )
    res = minimum_time(wp, vmax=1.0, amax=2.0, jmax=8.0)
    reps.append(res.report.check(name="ch7 minimum-time plan: limits on a dense grid", raise_on_fail=False))
    return reps
