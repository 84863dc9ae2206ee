"""Benchmark of issue #35: four ratios, each measured in one run as *paired* blocks against its best peer.

The machine is shared, so every goal alternates a robokin block and a peer block (A B A B ...) and reports the
ratio of each pair, median [min–max] over the pairs: a slow spell hits both members of a pair, and the spread
shows how much the machine moved. Each ratio is given twice, from wall time (``time.perf_counter``) and from
the process's CPU time (``time.process_time``, every thread counted, so a threaded library is not favoured);
the verdict is printed for both. Answers are compared before anything is timed.

1. Two-link leg IK, batched (``TwoLinkLeg.ik``, every result with its FK residual) against the per-point
   ``math`` loop of ``bench_leg2`` (no residual): loop time / robokin time per target, bar >= 10.
2. UR5 analytic IK, all 8 branches each confirmed by FK, batched, against roboticstoolbox's C++ ``ik_LM`` per
   pose from 0.1-rad seeds at ``|e| <= 1e-10`` (``bench_peers``'s setup): ik_LM / robokin per pose, bar >= 10.
3. ``ik_dls`` on a batch of B poses (300, 1000, 3000; same seeds and tolerance) against ``ik_LM`` on the same
   poses: ik_LM / robokin per pose, bar >= 1 from 300 poses up.
4. One ``UR5.fk`` call against pinocchio per call (``forwardKinematics`` + ``updateFramePlacement`` of the tool
   frame, the fastest path to the pose, an ``SE3``; and with ``.homogeneous``, the 4x4 array robokin returns):
   robokin / pinocchio per call, bar <= 10 (stretch <= 5).

Run: ``.venv/bin/python benchmarks/bench_goals.py`` (about a minute; ``--quick`` for a smoke run).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings

import numpy as np

from robokin.errors import SingularityWarning
from robokin.ik import ik_dls
from robokin.robots import LEG2
from robokin.serial import _pose_error
from robokin.ur5 import UR5

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_dynamics import _pinocchio_ur5  # noqa: E402
from bench_leg2 import ik_loop  # noqa: E402
from bench_peers import _rtb_ur5  # noqa: E402

TOL = 1e-10  # |e| of the numerical IK, m and rad


def paired(fa, na, fb, nb, repeats):
    """Alternate timed blocks of ``fa`` (``na`` items) and ``fb`` (``nb`` items), one warm-up each.

    Returns a dict of lists, one entry per pair: ``a_wall``, ``b_wall``, ``a_cpu``, ``b_cpu`` (seconds per item)
    and ``ratio_wall``, ``ratio_cpu`` (B per item / A per item).
    """
    fa()
    fb()
    out = {k: [] for k in ("a_wall", "b_wall", "a_cpu", "b_cpu", "ratio_wall", "ratio_cpu")}
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fa()
        w1, c1 = time.perf_counter(), time.process_time()
        fb()
        w2, c2 = time.perf_counter(), time.process_time()
        a_w, b_w = (w1 - w0) / na, (w2 - w1) / nb
        a_c, b_c = max(c1 - c0, 1e-9) / na, max(c2 - c1, 1e-9) / nb
        for k, v in (("a_wall", a_w), ("b_wall", b_w), ("a_cpu", a_c), ("b_cpu", b_c)):
            out[k].append(v)
        out["ratio_wall"].append(b_w / a_w)
        out["ratio_cpu"].append(b_c / a_c)
    return out


def spread(xs, scale=1.0):
    """``median [min–max]`` of ``xs`` times ``scale``, three significant digits."""
    return f"{statistics.median(xs) * scale:.3g} [{min(xs) * scale:.3g}–{max(xs) * scale:.3g}]"


def verdict(ratios, bar, *, at_most=False):
    """'holds' when the median of the per-pair ratios meets the bar (``>= bar``, or ``<= bar`` if ``at_most``)."""
    med = statistics.median(ratios)
    return "holds" if (med <= bar if at_most else med >= bar) else "DOES NOT HOLD"


def _row(goal, a_label, b_label, p, bar, *, invert=False):
    """One table row; ``invert``: the goal's ratio is A / B (robokin slower than the peer, at most ``bar``)."""
    rw = [1.0 / r for r in p["ratio_wall"]] if invert else p["ratio_wall"]
    rc = [1.0 / r for r in p["ratio_cpu"]] if invert else p["ratio_cpu"]
    sign = "<=" if invert else ">="
    return (
        f"| {goal} | {a_label}: {spread(p['a_wall'], 1e6)} | {b_label}: {spread(p['b_wall'], 1e6)} | "
        f"{spread(rw)} ({verdict(rw, bar, at_most=invert)}) | {spread(rc)} ({verdict(rc, bar, at_most=invert)}) | "
        f"{sign} {bar:g} |"
    )


def main(quick=False):
    t_start = time.perf_counter()
    warnings.simplefilter("ignore", SingularityWarning)
    reps = 3 if quick else 9
    rng = np.random.default_rng(35)
    rows = []

    # 1. two-link leg: robokin batched (with the FK residual) vs the per-point math loop (no residual)
    L1, L2 = LEG2.l1, LEG2.l2
    nb, nl = (20_000, 5_000) if quick else (100_000, 20_000)
    r = np.sqrt(rng.uniform((L1 - L2) ** 2, (L1 + L2) ** 2, nb))
    a = rng.uniform(-np.pi, np.pi, nb)
    p = np.stack([r * np.sin(a), -r * np.cos(a)], axis=-1)
    pts = p[:nl].tolist()
    res = LEG2.ik(p)
    assert np.max(np.abs(np.angle(np.exp(1j * (res.q[:nl] - np.array(ik_loop(pts))))))) < 1e-9
    assert np.all(res.residual <= 1e-14) and np.all(res.valid)
    pr = paired(lambda: LEG2.ik(p), nb, lambda: ik_loop(pts), nl, reps)
    rows.append(_row(f"2-link leg IK + FK residual, batched {nb:.0e}", "robokin", "math loop", pr, 10.0))

    robot = _rtb_ur5()
    q = rng.uniform(-np.pi, np.pi, (10_000, 6))
    q0 = q + rng.normal(scale=0.1, size=q.shape)
    T = UR5.fk(q)
    if robot is not None:
        ets = robot.ets()
        kl = 100 if quick else 300

        def lm(k_end):
            return [ets.ik_LM(T[k], q0=q0[k], tol=0.5 * TOL**2, ilimit=100, slimit=1) for k in range(k_end)]

        sols = lm(kl)
        e_lm = np.linalg.norm(_pose_error(T[:kl], UR5.fk(np.array([s.q for s in sols]))), axis=-1)
        ok_lm = np.array([s.success for s in sols]) & (e_lm <= TOL)

        # 2. UR5 analytic IK (8 branches, each FK-confirmed) batched vs ik_LM per pose
        na = 2000 if quick else 10_000
        an = UR5.ik(T[:na])
        assert np.all(an.valid.any(axis=-1))
        assert np.all(np.any(np.abs(np.angle(np.exp(1j * (an.q - q[:na, None])))).max(-1) < 1e-8, axis=-1))
        pr = paired(lambda: UR5.ik(T[:na]), na, lambda: lm(kl), kl, reps)
        rows.append(_row(f"UR5 analytic IK, 8 branches + FK, batched {na:.0e}", "robokin", "ik_LM", pr, 10.0))

        # 3. DLS on mid-size batches vs ik_LM on the same poses
        for m in (300,) if quick else (300, 1000, 3000):
            dl = ik_dls(UR5, T[:m], q0=q0[:m], tol=TOL)
            e_rk = np.linalg.norm(_pose_error(T[:m], UR5.fk(dl.q)), axis=-1)
            assert np.all(e_rk[dl.valid] <= TOL)
            label = f"DLS IK, {m} poses (solved {dl.valid.mean():.1%}; ik_LM {ok_lm.mean():.1%} of {kl})"
            pr = paired(
                lambda m=m: ik_dls(UR5, T[:m], q0=q0[:m], tol=TOL), m, lambda: lm(kl), kl, max(3, reps - 2 * (m > 300))
            )
            rows.append(_row(label, "robokin", "ik_LM", pr, 1.0))
    else:
        rows.append("| UR5 analytic and DLS IK | roboticstoolbox not installed | | | | |")

    # 4. one FK call vs pinocchio per call
    try:
        pin, model, fid = _pinocchio_ur5()
    except ImportError:
        pin = None
    if pin is not None:
        data = model.createData()
        qs = list(q[:2000])
        for x in qs[:200]:
            pin.forwardKinematics(model, data, x)
            assert np.abs(pin.updateFramePlacement(model, data, fid).homogeneous - UR5.fk(x)).max() <= 1e-12

        def pin_se3():
            for x in qs:
                pin.forwardKinematics(model, data, x)
                pin.updateFramePlacement(model, data, fid)

        def pin_array():
            for x in qs:
                pin.forwardKinematics(model, data, x)
                _ = pin.updateFramePlacement(model, data, fid).homogeneous

        def ours():
            for x in qs:
                UR5.fk(x)

        n1 = len(qs)
        for label, fn in (("SE3", pin_se3), ("4x4 array", pin_array)):
            pr = paired(ours, n1, fn, n1, reps)
            rows.append(
                _row(f"one FK call vs pinocchio ({label})", "robokin", "pinocchio", pr, 10.0, invert=True)
                + f" stretch <= 5: {verdict([1 / r for r in pr['ratio_wall']], 5.0, at_most=True)} (wall)"
            )
    else:
        rows.append("| one FK call | pinocchio not installed | | | | |")

    print(
        f"issue #35 goals ({'quick' if quick else 'full'}): µs per item, median [min–max] of {reps} paired blocks; "
        "ratio = peer / robokin (FK rows: robokin / pinocchio)"
    )
    print("| goal | robokin (wall) | peer (wall) | ratio, wall | ratio, CPU | bar |")
    print("|---|---|---|---|---|---|")
    for line in rows:
        print(line)
    print(f"total benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":  # pragma: no cover
    main(quick="--quick" in sys.argv)
