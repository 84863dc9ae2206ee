"""Stewart platform: batched IK and batched Newton FK against per-pose loops (``robokin.robots.STEWART``).

Prints solves per second for the batched (vectorised) call and for a Python loop
calling the same method one pose at a time, and their ratio. Both paths run the
same robokin code, so the ratio measures the vectorisation alone.

Run: ``.venv/bin/python benchmarks/bench_stewart.py`` (about 10 s).
"""

from __future__ import annotations

import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin.robots import STEWART
from robokin.stewart import Stewart


def _rate(fn, n, *, repeat=3):
    """Throughput (items per second) of ``fn()`` processing ``n`` items, median of ``repeat`` runs."""
    return n / median_time(fn, repeat)


def main(n_batch=100_000, n_loop=2_000, n_fk=20_000, n_fk_loop=500, seed=0):
    rng = np.random.default_rng(seed)
    st = Stewart(STEWART.base, STEWART.top)  # no stroke limits: every sampled pose is solved
    lo = np.array([-0.05, -0.05, 0.37, -0.2, -0.2, -0.3])
    hi = np.array([0.05, 0.05, 0.47, 0.2, 0.2, 0.3])
    Q = rng.uniform(lo, hi, size=(n_batch, 6))

    ik_batch = _rate(lambda: st.ik(Q), n_batch)  # the IKResult, as a user gets it
    ik_loop = _rate(lambda: [st.ik(q) for q in Q[:n_loop]], n_loop)

    L = st.ik(Q[:n_fk]).q
    guess = st.home_guess(L)
    out = st.fk(L, guess=guess)
    err = np.abs(out - Q[:n_fk]).max()
    assert err < 1e-9, f"batched FK error {err}"
    fk_batch = _rate(lambda: st.fk(L, guess=guess), n_fk)
    fk_loop = _rate(lambda: [st.fk(L[i], guess=guess[i]) for i in range(n_fk_loop)], n_fk_loop, repeat=2)

    print(f"{'task':28s} {'batched /s':>12s} {'per-pose loop /s':>17s} {'ratio':>8s}")
    print(f"{'IK (leg lengths)':28s} {ik_batch:12.3g} {ik_loop:17.3g} {ik_batch / ik_loop:8.0f}x")
    print(f"{'FK (Newton, tol 1e-10 m)':28s} {fk_batch:12.3g} {fk_loop:17.3g} {fk_batch / fk_loop:8.0f}x")
    print(f"(batched FK max pose error {err:.1e} over {n_fk} poses)")
    return {"ik_ratio": ik_batch / ik_loop, "fk_ratio": fk_batch / fk_loop, "ik_per_s": ik_batch, "fk_per_s": fk_batch}


if __name__ == "__main__":  # pragma: no cover
    main()
