"""Benchmark: UR5 analytic IK, DLS IK, FK and Jacobian, against roboticstoolbox when installed.

Prints one table (median of repeats) with ratios measured in the same run. Target bars
(COURSE.md section 7): batched analytic IK (8 branches, FK-confirmed) >= 1e5 poses/s, and faster
per pose than roboticstoolbox ``ikine_LM``. Runs in well under a minute.

    .venv/bin/python benchmarks/bench_ur5.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from robokin.errors import SingularityWarning
from robokin.ik import ik_dls
from robokin.ur5 import UR5, ik, make_ur5


def median_time(fn, repeats=5):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def main():
    rng = np.random.default_rng(0)
    t_start = time.perf_counter()
    rows = []  # (name, seconds per item, unit)

    N = 100_000
    q = rng.uniform(-np.pi, np.pi, (N, 6))
    T = UR5.fk(q)
    warnings.simplefilter("ignore", SingularityWarning)
    ik(T[:1000])  # warm-up
    t_batch = median_time(lambda: ik(T), repeats=3) / N
    rows.append(("analytic ik, batched 1e5 poses (8 branches + FK check)", t_batch))
    t_single = median_time(lambda: [ik(Ti) for Ti in T[:200]], repeats=3) / 200
    rows.append(("analytic ik, one pose per call", t_single))
    M = 1000
    q0 = q[:M] + rng.normal(scale=0.1, size=(M, 6))
    t_dls = median_time(lambda: ik_dls(UR5, T[:M], q0=q0), repeats=3) / M
    rows.append(("ik_dls batched, seeds 0.1 rad away", t_dls))
    t_fk = median_time(lambda: UR5.fk(q), repeats=5) / N
    rows.append(("fk batched", t_fk))
    t_jac = median_time(lambda: UR5.jacobian(q[:20000]), repeats=5) / 20000
    rows.append(("jacobian batched", t_jac))
    t_fk1 = median_time(lambda: [UR5.fk(qi) for qi in q[:500]], repeats=3) / 500
    rows.append(("fk one configuration per call", t_fk1))
    t_jac1 = median_time(lambda: [UR5.jacobian(qi) for qi in q[:500]], repeats=3) / 500
    rows.append(("jacobian one configuration per call", t_jac1))

    peers = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import roboticstoolbox as rtb

            robot = rtb.models.DH.UR5()
        twin = make_ur5(d1=robot.links[0].d)
        K = 30
        Tr = twin.fk(q[:K])
        peers["ikine_LM"] = median_time(lambda: [robot.ikine_LM(Tk, q0=q0[k]) for k, Tk in enumerate(Tr)],
                                        repeats=3) / K
        peers["fkine"] = median_time(lambda: [robot.fkine(qi) for qi in q[:500]], repeats=3) / 500
        peers["jacob0"] = median_time(lambda: [robot.jacob0(qi) for qi in q[:500]], repeats=3) / 500
    except ImportError:
        print("roboticstoolbox not installed: peer ratios skipped")

    print(f"{'measurement':58s} {'time/item':>12s} {'items/s':>12s}")
    for name, t in rows:
        print(f"{name:58s} {t * 1e6:10.3g} us {1 / t:12.3g}")
    for name, t in peers.items():
        print(f"{'roboticstoolbox ' + name + ' (per call)':58s} {t * 1e6:10.3g} us {1 / t:12.3g}")
    print()
    rate = 1 / t_batch
    print(f"batched analytic IK: {rate:.3g} poses/s (bar >= 1e5): {'PASS' if rate >= 1e5 else 'BELOW BAR'}")
    if peers:
        print(f"ratio ikine_LM / analytic ik batched (per pose):  {peers['ikine_LM'] / t_batch:10.0f}x")
        print(f"ratio ikine_LM / analytic ik single call:         {peers['ikine_LM'] / t_single:10.1f}x")
        print(f"ratio ikine_LM / ik_dls batched (per pose):       {peers['ikine_LM'] / t_dls:10.1f}x")
        print(f"ratio rtb fkine / robokin fk batched:             {peers['fkine'] / t_fk:10.0f}x")
        print(f"ratio rtb fkine / robokin fk single call:         {peers['fkine'] / t_fk1:10.1f}x")
        print(f"ratio rtb jacob0 / robokin jacobian batched:      {peers['jacob0'] / t_jac:10.0f}x")
        print(f"ratio rtb jacob0 / robokin jacobian single call:  {peers['jacob0'] / t_jac1:10.1f}x")
    print(f"total benchmark time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":  # pragma: no cover
    main()
