"""Benchmark for chapter 7: quintic coefficients and limit peaks.

Prints ratios against naive baselines:
* closed-form quintic coefficients vs a batched 6x6 ``numpy.linalg.solve``;
* exact segment peaks (companion-matrix roots) vs a dense grid of equal accuracy goal
  (1000 samples per segment), and the grid's error relative to the exact peaks.
"""

import time

import numpy as np

from robokin import trajectory as tj


def best(f, n=5):
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():  # pragma: no cover
    rng = np.random.default_rng(0)
    N = 100_000
    b = rng.normal(size=(6, N))
    T = rng.uniform(0.2, 3.0, N)
    kw = dict(v0=b[1], a0=b[2], vf=b[4], af=b[5])
    t_closed = best(lambda: tj.quintic_coeffs(b[0], b[3], T, **kw))
    t_solve = best(lambda: tj.quintic_coeffs(b[0], b[3], T, **kw, method="solve"))
    print(f"quintic_coeffs, {N} segments: closed {N / t_closed:.3g}/s, 6x6 solve {N / t_solve:.3g}/s, "
          f"ratio {t_solve / t_closed:.1f}x")

    wp = np.cumsum(rng.normal(size=(21, 6)), axis=0)
    tr = tj.plan_quintic(wp, tj.allocate_times(wp, 20.0, method="distance"))
    t_exact = best(lambda: tj.segment_peaks(tr))
    t_grid = best(lambda: tj.check_limits(tr, vmax=1.0, amax=1.0, jmax=1.0, per_segment=1000))
    exact = tj.segment_peaks(tr).max(axis=1)
    grid = tj.check_limits(tr, vmax=1.0, amax=1.0, jmax=1.0, per_segment=1000).peak
    err = float(np.max(np.abs(grid - exact) / exact))
    print(f"peaks of 20 segments x 6 joints: exact {1e3 * t_exact:.2f} ms, dense grid (1000/segment) "
          f"{1e3 * t_grid:.2f} ms, ratio {t_grid / t_exact:.1f}x; grid under-estimates by up to {err:.1e} (relative)")

    t_opt = best(lambda: tj.minimum_time(wp[:8], vmax=1.0, amax=2.0, jmax=10.0), n=2)
    print(f"minimum_time, 7 segments x 6 joints: {1e3 * t_opt:.0f} ms")


if __name__ == "__main__":  # pragma: no cover
    main()
