"""The benchmark verdicts are computed from the right rows (benchmarks are not timed tests; their logic is)."""

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench_peers():
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("bench_peers")
    finally:
        sys.path.remove(str(BENCH))


def _t(x):
    return (x, x, x)


def test_each_goal_is_judged_on_its_own_row(bench_peers):
    rows = [
        ("UR5 FK", _t(0.25), _t(5.0), "pinocchio framesForwardKinematics, per call", _t(1.0), ("fk", 2.0)),
        ("UR5 FK", _t(0.25), _t(5.0), "rtb ETS.eval (C), per call", _t(8.0), ("fk", 2.0)),
        ("RNEA", _t(2.0), _t(30.0), "pinocchio rnea, per call", _t(1.5), ("rnea", 1.0)),
        ("minimum_time", _t(100.0), None, "toppra", _t(30.0), ("mt", 0.5)),
        ("table only", _t(1.0), None, "none", None, None),
    ]
    lines = bench_peers.goal_lines(rows)
    fk = next(x for x in lines if x.startswith("  UR5 FK: best peer"))
    assert "pinocchio" in fk and "ratio 4.00" in fk and fk.endswith("holds")  # fastest peer, its own rb
    rnea = next(x for x in lines if x.startswith("  RNEA: best peer"))
    assert "ratio 0.75" in rnea and rnea.endswith("DOES NOT HOLD")
    mt = next(x for x in lines if "minimum_time" in x)
    assert "= 0.30" in mt and mt.endswith("DOES NOT HOLD")
    one = [x for x in lines if "one call" in x]
    assert any("UR5 FK one call" in x and "5.00x" in x and x.endswith("holds") for x in one)
    assert any("RNEA one call" in x and "20.00x" in x and x.endswith("DOES NOT HOLD") for x in one)
