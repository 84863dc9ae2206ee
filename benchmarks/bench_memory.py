"""Peak memory and time per item of large batches: UR5 FK, Jacobian and analytic IK.

For each batch size N in 1e3, 1e4, 1e5, 1e6 this prints the peak memory that numpy allocated during one call
(``tracemalloc``, which numpy reports its buffers to) **beyond the input and the returned arrays**, and the wall time
per item (µs, median of repeats, with tracemalloc off). The bar (issue #16): peak beyond inputs/outputs under
256 MiB and time per item flat from 1e3 to 1e6. First it checks that the chunked path gives the same answer as the
unchunked one on a batch that spans several chunks.

Run from the repository root: ``.venv/bin/python benchmarks/bench_memory.py [--max N]``.
"""

import argparse
import os
import sys
import tracemalloc
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import median_time  # noqa: E402

from robokin import transforms  # noqa: E402
from robokin.errors import SingularityWarning  # noqa: E402
from robokin.ur5 import UR5  # noqa: E402

MIB = 2**20


def _nbytes(x):
    if isinstance(x, tuple):
        return sum(_nbytes(v) for v in x)
    return getattr(x, "nbytes", 0)


def peak_beyond_io(fn, arg):
    """Peak traced bytes during ``fn(arg)`` minus the returned arrays' size (the input exists before tracing)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn(arg)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return max(peak - _nbytes(out), 0), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=float, default=1e6, help="largest batch size (default 1e6)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", SingularityWarning)
    rng = np.random.default_rng(0)

    # the chunked path must equal the unchunked one (bit for bit: chunks do the same element-wise work)
    def ik(T):
        return UR5.ik(T, on_unreachable="nan")

    chunk = transforms._CHUNK
    q = rng.uniform(-np.pi, np.pi, (3 * chunk + 17, 6))
    T = UR5.fk(q)
    transforms._CHUNK = 10**9  # one pass
    try:
        F_one, J_one, r_one = UR5.fk(q), UR5.jacobian(q), ik(T)
    finally:
        transforms._CHUNK = chunk
    r = ik(T)
    assert np.array_equal(UR5.fk(q), F_one) and np.array_equal(UR5.jacobian(q), J_one)
    assert np.array_equal(r.valid, r_one.valid) and np.array_equal(r.q, r_one.q, equal_nan=True)
    print(f"chunked == unchunked on {len(q)} items (chunk {chunk}): OK")

    sizes = [n for n in (10**3, 10**4, 10**5, 10**6) if n <= args.max]
    print(f"{'function':<16}{'N':>10}{'peak beyond I/O (MiB)':>24}{'µs/item':>10}")
    for name, make, fn in (
        ("UR5.fk", lambda n: rng.uniform(-np.pi, np.pi, (n, 6)), UR5.fk),
        ("UR5.jacobian", lambda n: rng.uniform(-np.pi, np.pi, (n, 6)), UR5.jacobian),
        ("UR5.ik", lambda n: UR5.fk(rng.uniform(-np.pi, np.pi, (n, 6))), ik),
    ):
        for n in sizes:
            x = make(n)
            peak, out = peak_beyond_io(fn, x)
            del out
            t = median_time(lambda: fn(x), repeats=3 if n >= 10**6 else 5)
            print(f"{name:<16}{n:>10}{peak / MIB:>24.1f}{1e6 * t / n:>10.2f}")


if __name__ == "__main__":
    main()
