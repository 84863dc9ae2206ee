"""Benchmark: five-bar closed-form IK vs the per-point ``least_squares`` loop.

Run from the repository root: ``.venv/bin/python benchmarks/bench_fivebar.py [--quick]``.

Prints a table (median of repeats) and the ratios against the COURSE.md bars:
closed form >= 1e6 targets/s batched, and >= 1000x faster per target than the
per-point ``scipy.optimize.least_squares`` loop (``FiveBar.ik_numeric``). The loop
is timed on a few hundred targets and scaled per target, which is fair because its
cost is linear in the number of targets.
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin.robots import FIVEBAR as LEG


def targets(n, rng):
    """Reachable knees-out targets: FK of random joint angles around the usual leg."""
    q = np.stack([rng.uniform(-2.9, -1.9, n), rng.uniform(-1.2, -0.2, n)], -1)
    p = LEG.fk(q, on_unreachable="nan")
    p = p[np.isfinite(p).all(-1)]
    return p[LEG.working_mode(LEG.ik(p, on_unreachable="nan").q, p) == "out"]


def main(quick=False):
    rng = np.random.default_rng(0)
    n_batch = 10_000
    n_big = 100_000 if quick else 1_000_000
    n_loop = 100 if quick else 300
    P = targets(4 * n_big // 3, rng)[:n_big]
    assert len(P) == n_big
    P_batch = P[:n_batch]
    P_loop = P[:n_loop]

    # correctness first: a benchmark of wrong answers is worthless
    q_cf = LEG.ik(P_batch).q
    err = np.linalg.norm(LEG.fk(q_cf) - P_batch, axis=-1).max() / LEG.scale
    q_num = LEG.ik_numeric(P_loop, q0=q_cf[:n_loop] + 0.05).q
    agree = np.abs(q_num - q_cf[:n_loop]).max()
    assert err < 1e-9 and agree < 1e-7, (err, agree)

    reps = 3 if quick else 7
    t_batch = median_time(lambda: LEG.ik(P_batch), reps)
    t_big = median_time(lambda: LEG.ik(P), 3)
    t_loop = median_time(lambda: LEG.ik_numeric(P_loop, q0=q_cf[:n_loop] + 0.05), 3 if quick else 5)

    per_cf = t_batch / n_batch
    per_loop = t_loop / n_loop
    rows = [
        ("closed-form ik, batch 1e4", n_batch, t_batch, n_batch / t_batch),
        (f"closed-form ik, batch {n_big:.0e}", n_big, t_big, n_big / t_big),
        (f"least_squares loop ({n_loop} pts)", n_loop, t_loop, n_loop / t_loop),
    ]
    print(f"five-bar IK benchmark (leg {LEG}); median of repeats")
    print(f"max FK(IK) residual {err:.1e} (relative), closed form vs least_squares {agree:.1e} rad")
    print(f"{'method':38s} {'targets':>9s} {'time [s]':>10s} {'targets/s':>12s}")
    for name, n, t, rate in rows:
        print(f"{name:38s} {n:9d} {t:10.4f} {rate:12.3e}")
    speedup = per_loop / per_cf
    throughput = n_big / t_big
    print(f"ratio  closed form vs least_squares loop (per target, batch 1e4): {speedup:10.0f}x   (bar >= 1000x)")
    print(f"ratio  closed-form throughput / 1e6 targets/s:                  {throughput / 1e6:10.2f}    (bar >= 1)")
    print(f"least_squares loop extrapolated to 1e4 targets: {per_loop * n_batch:.1f} s")
    ok = speedup >= 1000 and throughput >= 1e6
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(quick="--quick" in sys.argv))
