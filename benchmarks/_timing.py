"""Timing helper shared by the benchmark scripts (run them from the repository root)."""

import statistics
import time


def median_time(fn, repeats=5):
    """Median wall time in seconds of ``repeats`` calls of ``fn()`` (``time.perf_counter``)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
