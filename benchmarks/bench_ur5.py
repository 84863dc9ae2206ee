"""Benchmark: UR5 analytic IK, DLS IK, FK and Jacobian, with pinocchio as the per-call reference when installed.

Prints one table (median of repeats). Target bar (COURSE.md section 7): batched analytic IK (8 branches,
FK-confirmed) >= 1e5 poses/s. The peer comparison with roboticstoolbox's C/C++ paths (``ETS.eval``,
``jacob0``, ``ik_LM`` on the same DH table and the same |e| tolerance) is in ``bench_peers.py``. When
pinocchio is installed, the UR5 is also built as a ``pinocchio.Model`` from the DH table
(``bench_dynamics._pinocchio_ur5``, tool frame = DH frame 6); FK and the tool-point Jacobian
(LOCAL_WORLD_ALIGNED) are asserted equal to robokin's to 1e-12 before pinocchio's per-configuration calls
are timed against robokin batched and single-call. Runs in well under a minute.

    .venv/bin/python benchmarks/bench_ur5.py
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np

from robokin.errors import SingularityWarning
from robokin.ik import ik_dls
from robokin.robots import UR5

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # sibling benchmark module
from _timing import median_time  # benchmarks/ is on sys.path when a script runs
from bench_dynamics import _pinocchio_ur5  # noqa: E402


def bench_pinocchio(q, t_fk, t_jac, t_fk1, t_jac1, *, n_check=200, n_time=2000):
    """Check pinocchio against robokin on the UR5, then time its per-configuration calls; None if absent."""
    try:
        pin, model, fid = _pinocchio_ur5()
    except ImportError:
        return None
    data = model.createData()
    frame = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
    qc = q[:n_check]
    T_ours, J_ours = UR5.fk(qc), UR5.jacobian(qc)
    T_pin, J_pin = np.empty_like(T_ours), np.empty_like(J_ours)
    for k, qk in enumerate(qc):
        pin.framesForwardKinematics(model, data, qk)
        T_pin[k] = data.oMf[fid].homogeneous
        pin.computeJointJacobians(model, data, qk)
        J_pin[k] = pin.getFrameJacobian(model, data, fid, frame)  # rows [v; w], v of the tool origin
        # the timed one-shot call must give the same matrix
        assert np.abs(pin.computeFrameJacobian(model, data, qk, fid, frame) - J_pin[k]).max() <= 1e-12
    err_fk, err_jac = float(np.abs(T_ours - T_pin).max()), float(np.abs(J_ours - J_pin).max())
    assert err_fk <= 1e-12, f"UR5 fk disagrees with pinocchio: {err_fk:.3e}"
    assert err_jac <= 1e-12, f"UR5 jacobian disagrees with pinocchio: {err_jac:.3e}"
    assert np.abs(J_pin).max() > 0.1  # not vacuous

    qt = q[:n_time]

    def fk_all():
        for qk in qt:
            pin.framesForwardKinematics(model, data, qk)
            _ = data.oMf[fid].homogeneous

    def jac_all():
        for qk in qt:
            pin.computeFrameJacobian(model, data, qk, fid, frame)

    return {
        "n_check": n_check,
        "err_fk": err_fk,
        "err_jac": err_jac,
        "fk": median_time(fk_all) / n_time,
        "jac": median_time(jac_all) / n_time,
        "label": {"fk": "framesForwardKinematics + oMf[tool]", "jac": "computeFrameJacobian, LOCAL_WORLD_ALIGNED"},
    }


def main():
    rng = np.random.default_rng(0)
    t_start = time.perf_counter()
    rows = []  # (name, seconds per item, unit)

    N = 100_000
    q = rng.uniform(-np.pi, np.pi, (N, 6))
    T = UR5.fk(q)
    warnings.simplefilter("ignore", SingularityWarning)
    UR5.ik(T[:1000])  # warm-up
    t_batch = median_time(lambda: UR5.ik(T), repeats=3) / N
    rows.append(("analytic UR5.ik, batched 1e5 poses (8 branches + FK check)", t_batch))
    t_one = median_time(lambda: UR5.ik(T, branch="left-up-noflip", on_unreachable="nan"), repeats=3) / N
    rows.append(("analytic UR5.ik, batched 1e5 poses, one branch", t_one))
    t_single = median_time(lambda: [UR5.ik(Ti) for Ti in T[:200]], repeats=3) / 200
    rows.append(("analytic UR5.ik, one pose per call", t_single))
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

    pinr = bench_pinocchio(q, t_fk, t_jac, t_fk1, t_jac1)

    print(f"{'measurement':58s} {'time/item':>12s} {'items/s':>12s}")
    for name, t in rows:
        print(f"{name:58s} {t * 1e6:10.3g} us {1 / t:12.3g}")
    print()
    rate = 1 / t_batch
    print(f"batched analytic IK: {rate:.3g} poses/s (bar >= 1e5): {'PASS' if rate >= 1e5 else 'BELOW BAR'}")
    if pinr is None:
        print("pinocchio not installed: skipped")
    else:
        print()
        print(
            f"pinocchio agreement on {pinr['n_check']} configurations: max |T_robokin - T_pin| = "
            f"{pinr['err_fk']:.2e}, max |J_robokin - J_pin| = {pinr['err_jac']:.2e} (asserted <= 1e-12)"
        )
        print(f"{'pinocchio (C++) per configuration call':58s} {'time/item':>12s} {'items/s':>12s}")
        for name in ("fk", "jac"):
            t = pinr[name]
            print(f"{'pinocchio ' + pinr['label'][name]:58s} {t * 1e6:10.3g} us {1 / t:12.3g}")
        for label, num, den in (
            ("pinocchio fk / robokin fk batched", pinr["fk"], t_fk),
            ("pinocchio fk / robokin fk single call", pinr["fk"], t_fk1),
            ("pinocchio jac / robokin jacobian batched", pinr["jac"], t_jac),
            ("pinocchio jac / robokin jacobian single call", pinr["jac"], t_jac1),
        ):
            print(f"ratio {label + ':':50s}{num / den:10.3g}x")
        print("(ratio > 1: robokin faster; pinocchio is called once per configuration from Python)")
    print(f"total benchmark time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":  # pragma: no cover
    main()
