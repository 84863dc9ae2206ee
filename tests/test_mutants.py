"""Tests that kill mutants (``make mutate``, tools/mutations.py) in modules whose own test files missed them.

Each test pins one behaviour exactly enough that the listed slip changes the outcome; the mutation id is in the
test's name or docstring. They are ordinary correctness tests and run with the rest of the suite.
"""

import warnings

import numpy as np
import pytest

from robokin.errors import SingularityWarning, UnreachableError


# ---- leg2 ------------------------------------------------------------------------------------
def test_leg2_reach_tolerance_is_round_off_only():
    """leg2-reach-tol: a target 1e-8 beyond full stretch is unreachable; slack is for round-off (1e-12)."""
    from robokin.leg2 import TwoLinkLeg

    leg = TwoLinkLeg(0.2, 0.2)
    far = [0.0, -0.4 * (1 + 1e-8)]
    with pytest.raises(UnreachableError):
        leg.ik(far)
    ok = leg.ik([far, [0.0, -0.4 * (1 - 1e-8)]], on_unreachable="nan").valid
    assert ok.tolist() == [False, True]
    # a target made by FK exactly on the boundary stays reachable (the reason for the slack)
    p = leg.fk([0.3, 0.0])
    assert leg.ik(p, on_unreachable="nan").valid


def test_leg2_condition_number_in_the_warning_is_cond_of_J():
    """leg2-cond-sqrt: the reported condition number is sigma_max / sigma_min, not its square."""
    from robokin.leg2 import TwoLinkLeg

    leg = TwoLinkLeg(0.2, 0.15)
    q = np.array([0.3, 2e-3])
    cond = np.linalg.cond(leg.jacobian(q))
    with pytest.warns(SingularityWarning) as rec:
        leg.joint_rates(q, [0.1, 0.0], cond_warn=cond / 2)
    assert rec[0].message.cond == pytest.approx(cond, rel=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # cond < cond_warn: no warning (the squared value would exceed it)
        leg.joint_rates(q, [0.1, 0.0], cond_warn=2 * cond)


# ---- mecanum ---------------------------------------------------------------------------------
def test_fuse_heading_integrates_with_the_bias_known_at_each_step():
    """mecanum-gyro-bias-slice: theta_{k+1} = theta_k + dt (g_k - b_k), with b_k the estimate before step k."""
    from robokin.mecanum import fuse_heading

    rng = np.random.default_rng(1)
    n, dt, tau = 50, 0.01, 0.5
    g, wz = 0.02 + 0.1 * rng.normal(size=n), 0.1 * rng.normal(size=n)
    th, b = fuse_heading(g, wz, dt, tau=tau, theta0=0.1, bias0=0.005)
    bk, t = 0.005, 0.1
    for k in range(n):
        t = t + dt * (g[k] - bk)
        assert th[k + 1] == pytest.approx(t, abs=1e-14)
        bk = bk + dt / tau * (g[k] - wz[k] - bk)
        assert b[k + 1] == pytest.approx(bk, abs=1e-15)


# ---- report ----------------------------------------------------------------------------------
def test_report_exit_status_is_1_when_a_check_fails(monkeypatch, capsys):
    """report-exit-status: a failing check must make ``python -m robokin.report`` exit with 1."""
    from robokin import report

    row = {
        "mechanism": "demo",
        "check": "x",
        "samples": 1,
        "max_error": 2.0,
        "tol": 1.0,
        "unit": "",
        "passed": False,
        "seconds": 0.0,
    }
    monkeypatch.setattr(report, "collect", lambda **kw: [row])
    assert report.main(["--fast"]) == 1
    monkeypatch.setattr(report, "collect", lambda **kw: [dict(row, max_error=0.5, passed=True)])
    assert report.main(["--fast"]) == 0
    capsys.readouterr()


# ---- symbolic --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["rotx", "roty", "rotz"])
def test_symbolic_rotations_equal_the_numeric_ones(name):
    """symbolic-roty-sign: the sympy matrices are the same right-handed rotations as robokin.transforms."""
    import sympy as sp

    from robokin import symbolic, transforms

    t = sp.symbols("t")
    f = symbolic.lambdify([t], getattr(symbolic, name)(t))
    for v in (0.3, -1.2, 2.5):
        np.testing.assert_allclose(np.asarray(f(v), dtype=float), getattr(transforms, name)(v), atol=1e-15)


# ---- _validate -------------------------------------------------------------------------------
def test_validate_bound_refuses_implausible_magnitudes():
    """validate-max-abs: 1e13 m is refused (the bound is 1e12), so overflow can never follow."""
    from robokin._validate import as_array

    as_array([1e12], "p")
    with pytest.raises(ValueError, match="magnitude"):
        as_array([1e13], "p")


# ---- the mutation list itself ----------------------------------------------------------------
@pytest.mark.parametrize("which", ["default", "independent", "all"])
def test_the_mutation_list_matches_the_source(which):
    """Every snippet of each list (tools/mutations.py, tools/mutations_independent.py) occurs exactly once and no id
    repeats across the lists, so `make mutate` mutates what it says it does."""
    import sys
    from pathlib import Path

    tools = Path(__file__).resolve().parent.parent / "tools"
    if not (tools / "mutate.py").exists():
        pytest.skip("inside make mutate's temporary copy (robokin/ and tests/ only): the list is checked in the repo")
    sys.path.insert(0, str(tools))
    try:
        from mutate import check_snippets, load_list
    finally:
        sys.path.remove(str(tools))
    mutations = load_list(which)
    assert len(mutations) >= (60 if which == "independent" else 1)
    problems = check_snippets(mutations=mutations)
    assert not problems, f"update the {which} mutation list:\n" + "\n".join(problems)
