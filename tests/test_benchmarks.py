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


@pytest.fixture(scope="module")
def bench_goals():
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("bench_goals")
    finally:
        sys.path.remove(str(BENCH))


def test_paired_blocks_alternate_and_ratio_each_pair(bench_goals):
    """``paired`` times A then B in each pair and divides per item; a swapped order or item count fails."""
    calls = []
    out = bench_goals.paired(lambda: calls.append("a"), 2, lambda: calls.append("b"), 4, 3)
    assert calls == ["a", "b"] + ["a", "b"] * 3  # one warm-up each, then strictly alternating
    assert all(len(v) == 3 for v in out.values())
    for k in range(3):
        assert out["ratio_wall"][k] == pytest.approx(out["b_wall"][k] / out["a_wall"][k])
        assert out["ratio_cpu"][k] == pytest.approx(out["b_cpu"][k] / out["a_cpu"][k])


def test_goal_verdicts_use_the_median_and_the_bar_direction(bench_goals):
    assert bench_goals.verdict([9.0, 11.0, 12.0], 10.0) == "holds"  # median 11
    assert bench_goals.verdict([9.0, 9.5, 30.0], 10.0) == "DOES NOT HOLD"  # one fast pair does not carry it
    assert bench_goals.verdict([4.0, 6.0, 7.0], 5.0, at_most=True) == "DOES NOT HOLD"
    assert bench_goals.verdict([4.0, 4.5, 9.0], 5.0, at_most=True) == "holds"
    p = {"a_wall": [1e-6] * 3, "b_wall": [3e-6] * 3, "ratio_wall": [3.0] * 3, "ratio_cpu": [2.0, 3.0, 4.0]}
    row = bench_goals._row("g", "robokin", "peer", p, 5.0, invert=True)  # robokin 1/3 of the peer's time
    assert "0.333 [0.333–0.333] (holds)" in row and "0.333 [0.25–0.5] (holds)" in row and row.endswith("<= 5 |")
    assert "(DOES NOT HOLD)" in bench_goals._row("g", "a", "b", p, 5.0)  # peer / robokin = 3 < 5
