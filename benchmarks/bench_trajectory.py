"""Benchmark for chapter 7: quintic coefficients and limit peaks.

Prints ratios against naive baselines:
* closed-form quintic coefficients vs a batched 6x6 ``numpy.linalg.solve``;
* exact segment peaks (companion-matrix roots) vs a dense grid of equal accuracy goal
  (1000 samples per segment), and the grid's error relative to the exact peaks.

Peer (when toppra is installed): time-optimal parameterisation of a UR5-sized 6-joint path through the
same waypoints and velocity/acceleration limits, toppra's ``TOPPRA`` on a ``SplineInterpolator`` path vs
``minimum_time``. Both trajectories' durations and compute times are printed; toppra keeps the geometric path
fixed and has no jerk limit, so the durations differ by design.
"""

import logging
import time

import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin import trajectory as tj

# UR5-sized path: 5 waypoints (rad) within the joint ranges, UR5-like limits per joint (also used by bench_peers)
UR5_PATH = np.array(
    [
        [0.0, -1.57, 1.57, -1.57, -1.57, 0.0],
        [0.6, -1.20, 1.10, -1.30, -1.40, 0.5],
        [1.2, -1.00, 0.60, -1.00, -1.10, 1.2],
        [0.8, -1.40, 1.30, -1.80, -1.60, 0.4],
        [0.2, -1.70, 1.80, -1.50, -1.50, -0.3],
    ]
)
UR5_VMAX = np.array([2.0, 2.0, 3.0, 3.0, 3.0, 3.0])
UR5_AMAX = np.array([4.0, 4.0, 6.0, 8.0, 8.0, 8.0])


def main():  # pragma: no cover
    rng = np.random.default_rng(0)
    N = 100_000
    b = rng.normal(size=(6, N))
    T = rng.uniform(0.2, 3.0, N)
    kw = dict(v0=b[1], a0=b[2], vf=b[4], af=b[5])
    t_closed = median_time(lambda: tj.quintic_coeffs(b[0], b[3], T, **kw))
    t_solve = median_time(lambda: tj.quintic_coeffs(b[0], b[3], T, **kw, method="solve"))
    print(
        f"quintic_coeffs, {N} segments: closed {N / t_closed:.3g}/s, 6x6 solve {N / t_solve:.3g}/s, "
        f"ratio {t_solve / t_closed:.1f}x"
    )

    wp = np.cumsum(rng.normal(size=(21, 6)), axis=0)
    tr = tj.plan_quintic(wp, tj.allocate_times(wp, 20.0, method="distance"))
    t_exact = median_time(lambda: tj.segment_peaks(tr))
    t_grid = median_time(lambda: tj.check_limits(tr, vmax=1.0, amax=1.0, jmax=1.0, per_segment=1000))
    exact = tj.segment_peaks(tr).max(axis=1)
    grid = tj.check_limits(tr, vmax=1.0, amax=1.0, jmax=1.0, per_segment=1000).peak
    err = float(np.max(np.abs(grid - exact) / exact))
    print(
        f"peaks of 20 segments x 6 joints: exact {1e3 * t_exact:.2f} ms, dense grid (1000/segment) "
        f"{1e3 * t_grid:.2f} ms, ratio {t_grid / t_exact:.1f}x; grid under-estimates by up to {err:.1e} (relative)"
    )

    t_opt = median_time(lambda: tj.minimum_time(wp[:8], vmax=1.0, amax=2.0, jmax=10.0), 2)
    print(f"minimum_time, 7 segments x 6 joints: {1e3 * t_opt:.0f} ms")
    bench_toppra()


def bench_toppra():  # pragma: no cover
    wp, vmax, amax = UR5_PATH, UR5_VMAX, UR5_AMAX
    try:
        import toppra as ta
        import toppra.algorithm as algo
        import toppra.constraint as constraint
    except ImportError:
        print("toppra not installed: skipped")
        return
    logging.getLogger("toppra").setLevel(logging.ERROR)

    def run_toppra():
        ss = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(wp, axis=0), axis=1))])  # chord length
        path = ta.SplineInterpolator(ss, wp)
        cons = [
            constraint.JointVelocityConstraint(np.column_stack([-vmax, vmax])),
            constraint.JointAccelerationConstraint(np.column_stack([-amax, amax])),
        ]
        return algo.TOPPRA(cons, path, parametrizer="ParametrizeConstAccel").compute_trajectory(0, 0)

    out = {}
    for name, fn in (
        ("toppra TOPPRA (spline path, v+a limits)", run_toppra),
        ("robokin minimum_time (v+a limits)", lambda: tj.minimum_time(wp, vmax=vmax, amax=amax)),
        ("robokin minimum_time (v+a+jerk 40 rad/s^3)", lambda: tj.minimum_time(wp, vmax=vmax, amax=amax, jmax=40.0)),
    ):
        res = fn()  # warm-up, and the result whose duration is reported
        ts = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        if name.startswith("toppra"):
            assert res is not None, "toppra found no parameterisation"
            dur = float(res.duration)
            t = np.linspace(0.0, dur, 4001)
            qd, qdd = res(t, 1), res(t, 2)
        else:
            assert res.report.feasible, "minimum_time result violates its limits"
            dur = float(res.total)
            t = np.linspace(0.0, dur, 4001)
            _, qd, qdd, _ = res.traj.evaluate(t)
        out[name] = (dur, float(np.median(ts)), float((np.abs(qd) / vmax).max()), float((np.abs(qdd) / amax).max()))
    print("time-optimal 6-joint path, 5 waypoints, same v/a limits (peaks sampled at 4001 times)")
    print(f"| {'method':<44} | {'duration':>9} | {'compute':>9} | {'peak v/vmax':>11} | {'peak a/amax':>11} |")
    print(f"|{'-' * 46}|{'-' * 11}|{'-' * 11}|{'-' * 13}|{'-' * 13}|")
    for name, (dur, tc, rv, ra) in out.items():
        print(f"| {name:<44} | {dur:7.3f} s | {1e3 * tc:6.1f} ms | {rv:11.4f} | {ra:11.4f} |")
    print(
        "note: toppra keeps the geometric path (the spline through the waypoints) fixed and has no jerk limit, "
        "so its duration differs from minimum_time's by design."
    )


if __name__ == "__main__":  # pragma: no cover
    main()
