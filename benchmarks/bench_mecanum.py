"""Mecanum chassis: batched wheel map and odometry vs per-sample loops.

Prints throughput and the ratio to the naive baseline (a Python loop over samples). Short: ~ a few seconds.
Run: .venv/bin/python benchmarks/bench_mecanum.py
"""

import math

import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin.mecanum import integrate_twist, odometry
from robokin.robots import CHASSIS


def rate(fn, n, repeat=3):
    """Samples per second of ``fn`` processing ``n`` samples (median of ``repeat`` runs)."""
    return n / median_time(fn, repeat)


def naive_odometry(tw, dt):
    """Textbook per-step loop in plain Python floats (exact SE(2) step)."""
    x = y = th = 0.0
    for vx, vy, w in tw:
        phi = w * dt
        if abs(phi) < 1e-9:
            a, b = 1.0, 0.0
        else:
            a, b = math.sin(phi) / phi, (1 - math.cos(phi)) / phi
        dx, dy = (a * vx - b * vy) * dt, (b * vx + a * vy) * dt
        c, s = math.cos(th), math.sin(th)
        x, y, th = x + c * dx - s * dy, y + s * dx + c * dy, th + phi
    return x, y, th


def main():
    rng = np.random.default_rng(0)
    car = CHASSIS

    n_batch, n_loop = 1_000_000, 5_000
    tw = rng.uniform(-2, 2, (n_batch, 3))
    r_batch = rate(lambda: car.ik(tw), n_batch)
    r_loop = rate(lambda: [car.ik(t) for t in tw[:n_loop]], n_loop)
    print(f"ik (wheels):  batched {r_batch:.3g}/s, per-sample calls {r_loop:.3g}/s, ratio {r_batch / r_loop:.0f}x")
    w = car.ik(tw).q
    r_batch = rate(lambda: car.fk(w), n_batch)
    r_loop = rate(lambda: [car.fk(v) for v in w[:n_loop]], n_loop)
    print(f"fk (twist):   batched {r_batch:.3g}/s, per-sample calls {r_loop:.3g}/s, ratio {r_batch / r_loop:.0f}x")

    n_steps, dt = 200_000, 0.001
    seq = rng.uniform(-2, 2, (n_steps, 3))
    r_vec = rate(lambda: odometry(seq, dt), n_steps)
    short = seq[:n_loop]

    def step_loop():
        p = np.zeros(3)
        for t in short:
            p = integrate_twist(p, t, dt)
        return p

    r_step = rate(step_loop, n_loop)
    seq_list = seq[:50_000].tolist()
    r_naive = rate(lambda: naive_odometry(seq_list, dt), len(seq_list))
    # same answer (heading wrapped by the package)
    ref = naive_odometry(seq_list, dt)
    got = odometry(seq[:50_000], dt)[-1]
    assert abs(got[0] - ref[0]) < 1e-9 and abs(got[1] - ref[1]) < 1e-9
    print(
        f"odometry:     vectorised {r_vec:.3g} steps/s, integrate_twist loop {r_step:.3g} steps/s "
        f"({r_vec / r_step:.0f}x), plain-Python loop {r_naive:.3g} steps/s ({r_vec / r_naive:.1f}x)"
    )

    batch = rng.uniform(-2, 2, (1000, 1000, 3))  # 1000 trajectories of 1000 steps
    r_mc = rate(lambda: odometry(batch, dt), batch.shape[0] * batch.shape[1], repeat=1)
    print(f"odometry, 1000 trajectories x 1000 steps: {r_mc:.3g} steps/s")


if __name__ == "__main__":  # pragma: no cover
    main()
