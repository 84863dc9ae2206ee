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


# ---- independent mutants in modules whose test files belong to other work (tools/mutations_independent.py) -----
def _ur5_stretched_pose(delta):
    """A UR5 pose with the elbow straight (q3 = 0) and a rotation 3e-7 from orthogonal, its position pushed
    ``delta`` m outwards from the shoulder: the stretched-elbow branches then miss it by about ``delta``."""
    from robokin.ur5 import UR5

    T = UR5.fk([0.3, -0.8, 0.0, 0.5, 0.9, 0.2])
    u = T[:3, 3] - [0.0, 0.0, 0.089159]
    T[:3, :3] *= 1 + 2e-7
    T[:3, 3] += delta * u / np.linalg.norm(u)
    return T


@pytest.mark.parametrize("delta", [3e-6, 1e-5, 3e-5])
def test_ur5_valid_branches_reproduce_the_pose_within_the_documented_bound(delta):
    """ind-ur5-gain-loose: a branch marked valid has FK residual <= tol + 10 input_error(T) (the documented margin
    over the measured ~4 e_in); a 100x allowance would mark the stretched-elbow branches that miss by 1e-5 valid."""
    from robokin.ur5 import UR5, input_error

    T = _ur5_stretched_pose(delta)
    e_in = float(input_error(T))
    assert 5e-7 < e_in < 1e-6  # accepted by ik, and large enough that the allowance matters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        res = UR5.ik(T, on_unreachable="nan")
    assert res.valid.sum() == 4  # the 4 bent-elbow branches reach it; the 2 stretched ones (and 2 others) do not
    assert np.all(res.residual[res.valid] <= 1e-9 + 10 * e_in)
    # the two branches it drops really are off by about delta, so dropping them is right
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        near = UR5.ik(_ur5_stretched_pose(1e-6), on_unreachable="nan")
    assert near.valid.sum() == 6  # at 1e-6 m they still pass: the test is not vacuous


@pytest.mark.parametrize("q5, warns", [(1e-10, True), (5e-9, False), (2e-8, False)])
def test_ur5_wrist_singularity_warning_threshold_is_singular_tol(q5, warns):
    """ind-ur5-wrist-tol-loose: on an exact pose the wrist warning fires for |sin q5| below singular_tol = 1e-9,
    and not at 5x or 20x it (theta6 is still well defined there, and every branch is returned)."""
    from robokin.ur5 import UR5

    T = UR5.fk([0.3, -0.8, 1.1, 0.5, q5, 0.2])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = UR5.ik(T)
    wrist = [w for w in rec if "wrist singularity" in str(w.message)]
    assert bool(wrist) == warns
    assert res.valid.sum() == 8


def test_ur_geometry_needs_the_ur_twists_to_round_off():
    """ind-ur5-alpha-check-loose: a twist 1e-9 rad off the UR values is another arm (the closed form would be
    wrong for it), so ur_geometry returns None; a 1e-13 rad round-off is still a UR table."""
    from robokin.ur5 import ALPHA, ur_geometry

    a, d = [0, -0.425, -0.39225, 0, 0, 0], [0.089159, 0, 0, 0.10915, 0.09465, 0.0823]
    for j in range(6):
        for e, is_ur in ((1e-13, True), (1e-9, False), (1e-3, False)):
            al = np.array(ALPHA, dtype=float)
            al[j] += e
            assert (ur_geometry(a, al, d) is not None) == is_ur, (j, e)


def test_leg2_calibration_covariance_uses_the_true_fit_jacobian():
    """ind-leg2-calib-jac-l1: Calibration.cov = s^2 (J^T J)^-1 with J the Jacobian of the foot model in
    [l1, l2, delta1, delta2], here checked against central differences of TwoLinkLeg.fk."""
    from robokin.checks import jacobian_fd
    from robokin.leg2 import TwoLinkLeg, calibrate

    rng = np.random.default_rng(3)
    q = rng.uniform([-1.0, 0.3], [1.0, 2.5], size=(40, 2))
    true = TwoLinkLeg(0.2, 0.3)
    p = true.fk(q + [0.02, -0.01]) + 1e-4 * rng.normal(size=(40, 2))
    cal = calibrate(q, p, guess=TwoLinkLeg(0.21, 0.29))

    def model(x):
        return TwoLinkLeg(x[0], x[1]).fk(q + x[2:]).T.ravel()

    J = jacobian_fd(model, cal.params, eps=1e-7, vectorized=False)
    cov = cal.noise**2 * np.linalg.inv(J.T @ J)
    np.testing.assert_allclose(cal.cov, cov, rtol=1e-5, atol=1e-6 * np.abs(cov).max())
    np.testing.assert_allclose(cal.std, np.sqrt(np.diag(cov)), rtol=1e-5)
    np.testing.assert_allclose(cal.std, np.sqrt(np.diag(cal.cov)), rtol=1e-12)


def test_leg2_ik_track_caps_the_solver_budget():
    """ind-leg2-nfev-cap: max_nfev above 10 000 per frame is refused (a 2-joint solve needing more has failed)."""
    from robokin.leg2 import TwoLinkLeg, ik_track

    leg = TwoLinkLeg(0.2, 0.2)
    p = leg.fk([[0.1, 1.0]])
    assert ik_track(leg, p, q0=[0.0, 1.0], max_nfev=10_000).valid.all()
    with pytest.raises(ValueError, match="max_nfev"):
        ik_track(leg, p, q0=[0.0, 1.0], max_nfev=10_001)


def test_ik_dls_does_not_restart_a_pose_solved_on_the_last_allowed_iteration():
    """ind-ik-loop-off-by-one: convergence is tested after the last of max_iter steps; a pose that converges on
    exactly that step keeps its answer instead of being handed to a random restart."""
    from robokin.ik import ik_dls
    from robokin.robots import UR5

    q = np.array([0.3, -0.8, 1.1, 0.5, 0.9, 0.2])
    T = UR5.fk(q)
    free = ik_dls(UR5, T, q0=q + 0.2)
    n = int(free.iterations)
    assert free.valid and n >= 2
    tight = ik_dls(UR5, T, q0=q + 0.2, max_iter=n, restarts=2, rng=np.random.default_rng(0))
    assert tight.valid and int(tight.iterations) == n
    np.testing.assert_array_equal(tight.q, free.q)
    short = ik_dls(UR5, T, q0=q + 0.2, max_iter=n - 1)  # one step fewer is not enough
    assert not short.valid


def test_ik_dls_caps_max_iter():
    """ind-ik-iter-cap: max_iter above 100 000 is refused (a cap on time); 100 000 itself is accepted."""
    from robokin.ik import ik_dls
    from robokin.robots import UR5

    T = UR5.fk(np.zeros(6))
    assert ik_dls(UR5, T, q0=np.zeros(6), max_iter=100_000).valid
    with pytest.raises(ValueError, match="max_iter"):
        ik_dls(UR5, T, q0=np.zeros(6), max_iter=100_001)
