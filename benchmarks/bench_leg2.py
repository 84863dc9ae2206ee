"""Benchmark: batched closed-form 2-link IK vs a per-point Python loop (math module).

Spec bar (COURSE.md section 7): >= 1e6 targets/s batched. Prints a table with the ratio;
each time is the median of several repeats measured with time.perf_counter. Runs in a few seconds.
"""

import math

import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin.robots import LEG2

L1, L2 = LEG2.l1, LEG2.l2


def ik_loop(points, l1=L1, l2=L2, knee=1):
    """Naive baseline: the same closed form, one target at a time with the math module (knee=+1: knee-back)."""
    out = []
    for x, z in points:
        c2 = (x * x + z * z - l1 * l1 - l2 * l2) / (2 * l1 * l2)
        if abs(c2) > 1:
            raise ValueError("unreachable")
        t2 = knee * math.acos(c2)
        t1 = math.atan2(x, -z) - math.atan2(l2 * math.sin(t2), l1 + l2 * math.cos(t2))
        out.append((t1, t2))
    return out


def main():
    rng = np.random.default_rng(0)
    leg = LEG2
    n_batch, n_loop = 1_000_000, 50_000
    r = np.sqrt(rng.uniform((L1 - L2) ** 2, (L1 + L2) ** 2, n_batch))
    a = rng.uniform(-np.pi, np.pi, n_batch)
    p = np.stack([r * np.sin(a), -r * np.cos(a)], axis=-1)
    pts = p[:n_loop].tolist()

    # same answers first (a benchmark of a wrong result is worthless)
    q_b = leg.ik(p[:n_loop]).q
    q_l = np.array(ik_loop(pts))
    assert np.max(np.abs(np.angle(np.exp(1j * (q_b - q_l))))) < 1e-9

    t_batch = median_time(lambda: leg.ik(p), repeats=7)
    t_loop = median_time(lambda: ik_loop(pts), repeats=5)
    rate_b, rate_l = n_batch / t_batch, n_loop / t_loop
    print(f"{'method':<34}{'targets':>10}{'median time [s]':>18}{'targets/s':>14}")
    print(f"{'robokin TwoLinkLeg.ik (batched)':<34}{n_batch:>10d}{t_batch:>18.4f}{rate_b:>14.3e}")
    print(f"{'per-point loop (math module)':<34}{n_loop:>10d}{t_loop:>18.4f}{rate_l:>14.3e}")
    print(
        f"ratio batched / loop: {rate_b / rate_l:.1f}x; spec bar 1e6 targets/s: {'PASS' if rate_b >= 1e6 else 'FAIL'}"
    )


if __name__ == "__main__":
    main()
