"""Tests for robokin.trajectory (chapter 7)."""

import itertools
import re
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import CubicSpline

from robokin import trajectory as tj
from robokin.errors import SingularityWarning, UnreachableError
from robokin.robots import UR5
from robokin.transforms import interpolate_pose
from robokin.ur5 import nearest

SETTINGS = settings(deadline=None)  # example count and seeding come from the profile (tests/conftest.py)
fin = st.floats(-5, 5, allow_nan=False)
dur = st.floats(0.05, 10, allow_nan=False)


# ----------------------------------------------------------------------------- single quintic
def test_closed_form_matches_sympy_solution_of_boundary_system():
    t, T = sp.symbols("tau T", positive=True)
    c = sp.symbols("c0:6")
    b = sp.symbols("q0 v0 a0 qf vf af")
    q = sum(ci * t**i for i, ci in enumerate(c))
    eqs = [
        q.subs(t, 0),
        q.diff(t).subs(t, 0),
        q.diff(t, 2).subs(t, 0),
        q.subs(t, T),
        q.diff(t).subs(t, T),
        q.diff(t, 2).subs(t, T),
    ]
    sol = sp.solve([e - bi for e, bi in zip(eqs, b)], c, dict=True)[0]
    f = sp.lambdify((*b, T), [sol[ci] for ci in c], "numpy", cse=True)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 500))
    TT = rng.uniform(0.1, 4, 500)
    expect = np.stack(f(*x, TT), -1)
    got = tj.quintic_coeffs(x[0], x[3], TT, v0=x[1], a0=x[2], vf=x[4], af=x[5])
    np.testing.assert_allclose(got, expect, rtol=1e-10, atol=1e-10)
    # the numeric boundary matrix is the sympy Jacobian of the boundary values w.r.t. c
    M = sp.lambdify(T, sp.Matrix(eqs).jacobian(c), "numpy")
    np.testing.assert_allclose(tj.quintic_boundary_matrix(1.7), np.array(M(1.7), float), rtol=1e-14)


@SETTINGS
@given(st.lists(fin, min_size=6, max_size=6), dur)
def test_closed_equals_solve_and_meets_boundary(b, T):
    q0, v0, a0, qf, vf, af = b
    c = tj.quintic_coeffs(q0, qf, T, v0=v0, vf=vf, a0=a0, af=af)
    cs = tj.quintic_coeffs(q0, qf, T, v0=v0, vf=vf, a0=a0, af=af, method="solve")
    assert np.allclose(c, cs, rtol=1e-8, atol=1e-8 * (1 + np.abs(cs).max()))
    start = np.array(tj.quintic_eval(c, 0.0)[:3])
    end = np.array(tj.quintic_eval(c, T)[:3])
    assert np.allclose(start, [q0, v0, a0], atol=1e-12)
    assert np.allclose(end, [qf, vf, af], atol=1e-9 * (1 + abs(qf) + abs(vf) + abs(af)))


def test_quintic_eval_derivatives_match_finite_differences():
    rng = np.random.default_rng(1)
    c = rng.normal(size=(20, 6))
    t = rng.uniform(0, 2, 20)
    h = 1e-5
    vals = tj.quintic_eval(c, t)
    for k in range(3):
        fd = (tj.quintic_eval(c, t + h)[k] - tj.quintic_eval(c, t - h)[k]) / (2 * h)
        np.testing.assert_allclose(vals[k + 1], fd, rtol=1e-6, atol=1e-6)


def test_quintic_vectorised_shapes_and_rest_to_rest_profile():
    c = tj.quintic_coeffs(np.zeros((4, 3)), np.ones((4, 3)), np.full((4, 1), 2.0))
    assert c.shape == (4, 3, 6)
    q, qd, qdd, qddd = tj.quintic_eval(c, 1.0)
    # symmetric rest-to-rest move: halfway at mid-time, peak speed 15/8 h/T there
    assert np.allclose(q, 0.5) and np.allclose(qd, 15 / 16) and np.allclose(qdd, 0.0, atol=1e-14)


# ----------------------------------------------------------------------------- piecewise
WP = np.array([[0.0, 0.0, 1.0], [1.0, -0.5, 1.2], [1.5, 0.3, 0.2], [0.5, 0.8, 0.0], [0.0, 0.0, 0.5]])


# ----------------------------------------------------------------------------- quintic_step
def test_quintic_step_is_the_rest_to_rest_quintic_and_holds_outside():
    t0, t1 = 0.4, 2.9
    v0, v1 = np.array([0.1, -2.0, 3.0]), np.array([1.5, 0.5, 3.0])
    t = np.concatenate([[-1.0, t0], np.linspace(t0, t1, 101), [t1, 5.0]])
    v, vd, vdd = tj.quintic_step(t, t0=t0, t1=t1, v0=v0, v1=v1)
    assert v.shape == vd.shape == vdd.shape == (t.size, 3)
    ref = tj.quintic_eval(tj.quintic_coeffs(v0, v1, t1 - t0), np.clip(t, t0, t1)[:, None] - t0)
    np.testing.assert_allclose(v, ref[0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(vd, ref[1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(vdd, ref[2], rtol=0, atol=1e-11)
    # held: the start value before t0, the end value after t1, and no rate or acceleration there
    np.testing.assert_array_equal(v[0], v0)
    np.testing.assert_array_equal(v[-1], v1)
    assert np.all(vd[[0, 1, -2, -1]] == 0) and np.all(vdd[[0, 1, -2, -1]] == 0)
    assert np.all(v[:, 2] == 3.0) and np.all(vd[:, 2] == 0)  # an unchanged component stays put exactly


def test_quintic_step_derivatives_match_sympy_and_finite_differences():
    s, T = sp.symbols("s T", positive=True)
    p = 10 * s**3 - 15 * s**4 + 6 * s**5
    assert [p.subs(s, 0), p.diff(s).subs(s, 0), p.diff(s, 2).subs(s, 0)] == [0, 0, 0]
    assert [p.subs(s, 1), p.diff(s).subs(s, 1), p.diff(s, 2).subs(s, 1)] == [1, 0, 0]
    t = np.linspace(1.05, 2.95, 40)
    v, vd, vdd = tj.quintic_step(t, t0=1.0, t1=3.0, v0=-0.5, v1=0.7)
    f = [sp.lambdify(s, (k == 0) * -0.5 + 1.2 * p.diff(s, k) / 2.0**k) for k in range(3)]  # T = 2 s
    for k, got in enumerate((v, vd, vdd)):
        np.testing.assert_allclose(got, f[k]((t - 1.0) / 2.0), rtol=1e-12, atol=1e-12)
    h = 1e-6
    vp, vdp, _ = tj.quintic_step(t + h, t0=1.0, t1=3.0, v0=-0.5, v1=0.7)
    vm, vdm, _ = tj.quintic_step(t - h, t0=1.0, t1=3.0, v0=-0.5, v1=0.7)
    np.testing.assert_allclose(vd, (vp - vm) / (2 * h), rtol=0, atol=1e-8)
    np.testing.assert_allclose(vdd, (vdp - vdm) / (2 * h), rtol=0, atol=1e-7)


@SETTINGS
@given(fin, fin, st.floats(-3, 3, allow_nan=False), dur, st.floats(0, 1))
def test_quintic_step_properties(v0, v1, t0, T, frac):
    t1 = t0 + T
    t = t0 + frac * T
    v, vd, vdd = (float(x) for x in tj.quintic_step(t, t0=t0, t1=t1, v0=v0, v1=v1))
    lo, hi = min(v0, v1), max(v0, v1)
    tol = 1e-12 * (1 + abs(v0) + abs(v1))
    assert lo - tol <= v <= hi + tol  # monotone blend: never overshoots
    assert vd * (v1 - v0) >= -tol / T  # moves towards v1
    assert abs(vd) <= 15 / 8 * abs(v1 - v0) / T * (1 + 1e-12)  # peak rate at mid-move
    assert abs(vdd) <= 10 / np.sqrt(3) * abs(v1 - v0) / T**2 * (1 + 1e-9) + 1e-12
    # point symmetry about the midpoint: v(t0 + x) + v(t1 - x) = v0 + v1
    w = float(tj.quintic_step(t1 - frac * T, t0=t0, t1=t1, v0=v0, v1=v1)[0])
    assert abs(v + w - (v0 + v1)) <= 1e-9 * (1 + abs(v0) + abs(v1))


def test_quintic_step_shapes():
    v, vd, vdd = tj.quintic_step(0.5, t0=0.0, t1=1.0, v0=0.0, v1=2.0)
    assert v.shape == vd.shape == vdd.shape == ()
    assert tj.quintic_step(np.zeros((4, 5)), t0=-1.0, t1=1.0, v0=0.0, v1=1.0)[0].shape == (4, 5)
    assert tj.quintic_step(np.zeros((4, 5)), t0=-1.0, t1=1.0, v0=[0.0, 1.0], v1=[1.0, 0.0])[1].shape == (4, 5, 2)
    v = tj.quintic_step([0.0, 2.0], t0=0.0, t1=2.0, v0=0.5, v1=[1.0, 2.0, 3.0])[0]  # scalar start, vector end
    np.testing.assert_array_equal(v, [[0.5, 0.5, 0.5], [1.0, 2.0, 3.0]])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(t0=1.0, t1=1.0), "t1 > t0"),
        (dict(t0=2.0, t1=1.0), "t1 > t0"),
        (dict(t0=np.nan, t1=1.0), "t0"),
        (dict(t0=0.0, t1=np.inf), "t1"),
        (dict(t0=0.0, t1=1.0, v0=[0.0, 1.0], v1=[1.0, 2.0, 3.0]), "same length"),
        (dict(t0=0.0, t1=1.0, v0=np.zeros((2, 2)), v1=0.0), "1-D"),
        (dict(t0=0.0, t1=1.0, v0=np.nan), "non-finite"),
        (dict(t0=0.0, t1=1.0, v1="up"), "v1"),
        (dict(t0=0.0, t1=1.0, t=[0.0, np.nan]), "non-finite"),
    ],
)
def test_quintic_step_bad_input(kw, match):
    args = dict(t=[0.0, 0.5], v0=0.0, v1=1.0) | kw
    t = args.pop("t")
    with pytest.raises(ValueError, match=match):
        tj.quintic_step(t, **args)


@pytest.mark.parametrize("via", ["spline", "heuristic", "stop"])
def test_plan_interpolates_and_is_c2(via):
    t = np.array([0.0, 0.7, 1.5, 2.9, 3.5])
    tr = tj.plan_quintic(WP, t, via=via)
    q, qd, qdd, _ = tr.evaluate(t)
    assert np.allclose(q, WP, atol=1e-12)
    assert np.allclose(qd[[0, -1]], 0) and np.allclose(qdd[[0, -1]], 0)
    jumps = tr.join_jumps()
    assert jumps.shape == (3, 4, 3)
    assert np.abs(jumps[:, :3]).max() < 1e-10
    # evaluating just left and right of every join also agrees (independent of join_jumps)
    e = 1e-7
    left = np.stack(tr.evaluate(t[1:-1] - e)[:3])
    right = np.stack(tr.evaluate(t[1:-1] + e)[:3])
    assert np.abs(left - right).max() < 1e-3


def test_spline_via_interior_segments_equal_scipy_cubic_spline():
    t = np.array([0.0, 0.7, 1.5, 2.9, 3.5])
    tr = tj.plan_quintic(WP, t, via="spline")
    cs = CubicSpline(t, WP, bc_type="clamped")
    tt = np.linspace(t[1], t[-2], 300)
    np.testing.assert_allclose(tr.evaluate(tt)[0], cs(tt), atol=1e-12)
    np.testing.assert_allclose(tr.evaluate(tt)[2], cs(tt, 2), atol=1e-9)


def test_heuristic_via_velocity_rule():
    tr = tj.plan_quintic([[0.0], [1.0], [3.0], [2.0]], [0.0, 1.0, 2.0, 3.0], via="heuristic")
    v = tr.evaluate([1.0, 2.0])[1][:, 0]
    assert np.allclose(v, [1.5, 0.0])  # mean slope (1, 2); sign change (2, -1)


def test_allocate_times_rules():
    wp = [[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]]
    assert np.allclose(tj.allocate_times(wp, 6.0), [0, 3, 6])
    assert np.allclose(tj.allocate_times(wp, 6.0, method="distance"), [0, 5, 6])
    assert np.allclose(tj.allocate_times(wp, 5.0, method="max_joint"), [0, 4, 5])
    assert np.allclose(tj.allocate_times(wp, 4.0, method="max_joint", vmax=[4.0, 1.0]), [0, 3.2, 4])


# ----------------------------------------------------------------------------- peaks and limits
def test_single_segment_peaks_closed_form():
    h, T = 0.8, 1.6
    tr = tj.plan_quintic([[0.0], [h]], [0.0, T])
    pk = tj.segment_peaks(tr)[:, 0, 0]
    assert np.allclose(pk, [15 / 8 * h / T, 10 / np.sqrt(3) * h / T**2, 60 * h / T**3], rtol=1e-12)


@SETTINGS
@given(st.integers(0, 10_000))
def test_exact_peaks_bound_and_match_dense_grid(seed):
    rng = np.random.default_rng(seed)
    wp = np.cumsum(rng.normal(size=(5, 2)), axis=0)
    t = np.concatenate([[0.0], np.cumsum(rng.uniform(0.2, 2.0, 4))])
    tr = tj.plan_quintic(wp, t, via=["spline", "heuristic", "stop"][seed % 3])
    exact = tj.segment_peaks(tr).max(axis=1)
    grid = tj.check_limits(tr, vmax=1.0, amax=1.0, jmax=1.0, per_segment=4000).peak
    assert np.all(grid <= exact * (1 + 1e-12) + 1e-12)
    assert np.allclose(grid, exact, rtol=1e-5)


def test_check_limits_reports_active_constraint():
    tr = tj.plan_quintic([[0.0, 0.0], [1.0, 0.1]], [0.0, 1.0])
    rep = tj.check_limits(tr, vmax=[10.0, 10.0], amax=[5.0, 5.0], jmax=None)
    assert not rep.feasible and rep.worst == ("acceleration", 0)
    assert "acceleration of joint 1" in rep.active
    assert not rep.check(raise_on_fail=False).passed
    assert tj.check_limits(tr, vmax=2.0, amax=6.0, jmax=61.0).feasible


def test_minimum_time_feasible_tight_and_better_than_equal_split():
    rng = np.random.default_rng(3)
    wp = np.cumsum(rng.normal(size=(6, 3)), axis=0)
    lim = dict(vmax=[1.0, 1.5, 2.0], amax=3.0, jmax=20.0)
    res = tj.minimum_time(wp, **lim)
    assert res.success and res.report.feasible and res.report.check().passed
    assert res.total <= res.scaled_total and len(res.active) >= 1
    assert np.isclose(res.report.ratio.max(), 1.0, atol=1e-3)
    # shrinking every duration by 1 % breaks a limit: the plan is tight
    d = 0.99 * res.traj.durations
    shrunk = tj.plan_quintic(wp, np.concatenate([[0.0], np.cumsum(d)]))
    assert not tj.check_limits(shrunk, **lim).feasible
    # the equal split with the same total time violates a limit
    eq = tj.plan_quintic(wp, tj.allocate_times(wp, res.total, method="equal"))
    assert not tj.check_limits(eq, **lim).feasible
    # and the best equal split (uniformly scaled) is slower
    assert tj.minimum_time(wp, **lim, init="equal", maxiter=0).scaled_total > res.total


def test_minimum_time_against_toppra_lower_bound():
    toppra = pytest.importorskip("toppra")
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    rng = np.random.default_rng(4)
    wp = np.cumsum(rng.normal(size=(4, 2)), axis=0)
    vmax, amax = np.array([1.0, 1.2]), np.array([2.0, 2.5])
    res = tj.minimum_time(wp, vmax=vmax, amax=amax, jmax=None)
    t, q, *_ = res.traj.sample(per_segment=50)
    path = toppra.SplineInterpolator(t / t[-1], q)
    inst = algo.TOPPRA(
        [
            constraint.JointVelocityConstraint(np.stack([-vmax, vmax], 1)),
            constraint.JointAccelerationConstraint(np.stack([-amax, amax], 1)),
        ],
        path,
        parametrizer="ParametrizeConstAccel",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jt = inst.compute_trajectory(0, 0)
    assert jt is not None
    # toppra's output is checked against the same limits before its time is trusted: it enforces them only
    # at its grid points, so it overshoots a little in between; scale its time until it meets them
    ts = np.linspace(0, jt.duration, 4001)
    rv = (np.abs(jt.evald(ts)).max(0) / vmax).max()
    ra = (np.abs(jt.evaldd(ts)).max(0) / amax).max()
    assert max(rv, ra) < 1.05  # small overshoot, not a different problem
    lam = max(1.0, rv, np.sqrt(ra))
    # same path, v/a limits only, time-optimal: even scaled to feasibility it is not slower than ours
    assert lam * jt.duration <= res.total * 1.01


# ----------------------------------------------------------------------------- branches
def test_branch_dp_beats_greedy_and_matches_brute_force():
    qb = np.array([[[0.0], [2.0]], [[0.3], [-0.5]], [[3.0], [-0.6]]])
    v = np.ones((3, 2), bool)
    qg, ig = tj.branch_sequence(qb, v, q_start=[0.0], method="greedy", max_step=None)  # sparse: no bound
    qd, idp = tj.branch_sequence(qb, v, q_start=[0.0], max_step=None)

    def cost(q):
        return (np.diff(np.vstack([[0.0], q]), axis=0) ** 2).sum()

    assert ig.tolist() == [0, 0, 1] and idp.tolist() == [0, 1, 1]
    assert np.isclose(cost(qd), 0.26) and np.isclose(cost(qg), 0.9)
    rng = np.random.default_rng(5)
    for _ in range(20):
        qb = rng.uniform(-np.pi, np.pi, (4, 3, 2))
        v = rng.uniform(size=(4, 3)) < 0.8
        v[:, 0] = True
        q, idx = tj.branch_sequence(qb, v, q_start=[0.0, 0.0], unwrap=False, max_step=None)

        def cost(ix):
            path = np.vstack([[0.0, 0.0], qb[np.arange(4), ix]])
            return (((np.diff(path, axis=0) + np.pi) % (2 * np.pi) - np.pi) ** 2).sum()

        best = min(cost(ix) for ix in itertools.product(range(3), repeat=4) if all(v[np.arange(4), ix]))
        assert np.isclose(cost(idx), best)


def test_greedy_agrees_with_ur5_nearest_and_pipeline_loops_back():
    rng = np.random.default_rng(6)
    q_true = np.cumsum(rng.normal(scale=0.3, size=(5, 6)), axis=0) + [0.3, -1.2, 1.5, -0.4, 1.1, 0.7]
    T = UR5.fk(q_true)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        sol = UR5.ik(T, on_unreachable="nan")
    Q, valid = sol.q, sol.valid
    w = np.array([3, 3, 2, 1, 1, 1.0])
    q, idx = tj.branch_sequence(Q, valid, q_start=q_true[0], weights=w, method="greedy", max_step=None)
    prev = q_true[0]
    for k in range(5):
        qn, kn = nearest(Q[k], valid[k], prev, weights=w)
        assert kn == idx[k] and np.allclose(qn, q[k])
        prev = qn
    tr = tj.plan_quintic(q, tj.allocate_times(q, 4.0, method="max_joint"))
    Tk = UR5.fk(tr.evaluate(tr.times)[0])
    assert np.abs(Tk - T).max() <= 1e-9


def test_dense_path_never_jumps_branches():
    # a one-joint path sampled densely: two branches, the second is the first shifted by 1.5 rad
    # except for a region where it is closer overall; squared steps keep the path continuous
    s = np.linspace(0, 1, 201)
    qb = np.stack([s, np.where(s < 0.5, s + 1.5, s - 0.04)], axis=1)[..., None]
    q, idx = tj.branch_sequence(qb, np.ones((201, 2), bool), q_start=[0.0])
    assert np.abs(np.diff(q[:, 0])).max() < 0.02


def test_dense_path_passes_continuity_check():
    s = np.linspace(0, 1, 201)
    qb = np.stack([s, s + 1.5], axis=1)[..., None]
    q, idx = tj.branch_sequence(qb, np.ones((201, 2), bool), q_start=[0.0], max_step=0.02)
    assert np.all(idx == 0) and np.abs(np.diff(q[:, 0])).max() < 0.006


def test_branch_jump_raises_when_tracked_branch_ceases_to_exist():
    # branch 0 ends at s = 0.8 (out of reach); the only way on is a jump to branch 1
    s = np.linspace(0, 1, 101)
    qb = np.stack([s, 3.0 - 1.5 * s], axis=1)[..., None]
    v = np.ones((101, 2), bool)
    v[s > 0.8, 0] = False
    q, idx = tj.branch_sequence(qb, v, q_start=[0.0], max_step=None)  # explicit opt-out: silently teleports
    assert np.abs(np.diff(q[:, 0])).max() > 0.9
    with pytest.raises(tj.BranchJumpError, match="from sample 80 to sample 81") as err:
        tj.branch_sequence(qb, v, q_start=[0.0], max_step=0.1)
    e = err.value
    assert isinstance(e, ValueError) and e.index == 81 and np.isclose(e.step, 0.985) and e.max_step == 0.1
    assert e.branch[80] == 0 and e.branch[81] == 1 and e.q.shape == (101, 1)
    # the step from q_start counts too
    with pytest.raises(tj.BranchJumpError, match="from q_start"):
        tj.branch_sequence(qb[:, 1:], v[:, 1:], q_start=[0.0], max_step=0.1)
    # without q_start the first step is sample 0 -> 1 (branch 1 made unavailable early, so it starts on 0)
    v[:50, 1] = False
    with pytest.raises(tj.BranchJumpError) as err:
        tj.branch_sequence(qb, v, max_step=0.1)
    assert err.value.index == 81


def test_ur5_cartesian_line_near_wrist_singularity_has_no_continuous_path():
    # chapter 7: the line from qa (theta5 > 0) to qb (theta5 < 0) passes near theta5 = 0 but not
    # through it; the start branch ends before the line does (elbow stretched), so no continuous
    # joint path exists and the old sequence jumped by about pi on joints 4 and 6
    qa = np.array([0.3, -1.4, 1.6, -1.8, 0.35, 0.5])
    qb = np.array([0.9, -1.2, 1.3, -1.7, -0.35, 0.2])
    steps = []
    for n in (101, 201):
        s = np.linspace(0.0, 1.0, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SingularityWarning)
            sol = UR5.ik(interpolate_pose(UR5.fk(qa), UR5.fk(qb), s), on_unreachable="nan")
        Q, v = sol.q, sol.valid
        with pytest.raises(tj.BranchJumpError) as err:
            tj.branch_sequence(Q, v, q_start=qa, max_step=0.5)
        assert err.value.step > 2.5
        steps.append(err.value.step)
        b0 = int(err.value.branch[0])
        assert not v[:, b0].all() and v[0, b0]  # the start branch ceases to exist
        # issue 29: the default (no max_step passed) raises too; the old default returned the jump silently
        with pytest.raises(tj.BranchJumpError, match=r"max_step = 1 rad") as err:
            tj.branch_sequence(Q, v, q_start=qa)
        assert err.value.step > 2.5
    assert abs(steps[1] - steps[0]) < 0.5  # the jump does not shrink with sampling


def test_branch_sequence_default_bound_and_explicit_opt_out():
    # a 3.1 rad flip (a branch switch) on a dense path: the default raises; max_step=None returns it
    s = np.linspace(0, 1, 51)
    qb = np.stack([s, s + 3.1], axis=1)[..., None]
    v = np.ones((51, 2), bool)
    v[30:, 0] = False
    v[:10, 1] = False  # so the jump cannot happen at the start
    with pytest.raises(tj.BranchJumpError, match="from sample 29 to sample 30"):
        tj.branch_sequence(qb, v, q_start=[0.0])
    q, idx = tj.branch_sequence(qb, v, q_start=[0.0], max_step=None)
    assert idx[29] == 0 and idx[30] == 1
    assert tj.DEFAULT_MAX_STEP == 1.0
    # a bound above pi can never fire (wrapped steps are at most pi): refused, naming the opt-out
    with pytest.raises(ValueError, match="max_step=None"):
        tj.branch_sequence(qb, v, max_step=4.0)
    for bad in (1, "yes", None, np.array(True)):
        with pytest.raises(ValueError, match="unwrap"):
            tj.branch_sequence(qb, v, max_step=None, unwrap=bad)


def test_branch_sequence_bad_max_step():
    qb = np.zeros((3, 2, 1))
    v = np.ones((3, 2), bool)
    for bad in (0.0, -1.0, np.nan, np.inf, 1e300, 1j, "1", True):
        with pytest.raises(ValueError, match="max_step"):
            tj.branch_sequence(qb, v, max_step=bad)


@pytest.mark.parametrize("via", ["spline", "heuristic", "stop"])
@pytest.mark.parametrize("K", [1, 2, 5])
def test_minimum_time_constraint_jacobian_is_exact(via, K):
    """The SLSQP constraints and their analytic Jacobian (issue #19) against plan_quintic and central differences."""
    rng = np.random.default_rng(K)
    wp = np.cumsum(rng.normal(size=(K + 1, 3)), axis=0)
    L = tj._limits(3, [1.0, 1.5, 0.7], 2.0, [10.0, np.inf, 5.0])  # an unlimited jerk too
    d0 = rng.uniform(0.3, 2.0, K)
    # the lean via values are plan_quintic's (which uses scipy's CubicSpline for the spline rule)
    tr = tj.plan_quintic(wp, np.concatenate([[0.0], np.cumsum(d0)]), via=via)
    _, V, A, _ = tr.evaluate(tr.times)
    V_l, A_l, _, _ = tj._via_values(wp, d0, via)
    np.testing.assert_allclose(V_l, V, rtol=0, atol=1e-12)
    np.testing.assert_allclose(A_l, A, rtol=0, atol=1e-11)
    cons = tj._TimeConstraints(wp, L, via, d0)
    x = rng.uniform(0.7, 1.3, K)
    np.testing.assert_allclose(cons.fun(x), 1.0 - tj._ratios(wp, x * d0, L, via)[1].ravel(), rtol=0, atol=1e-12)
    J = cons.jac(x)
    assert J.shape == (3 * K * 3, K)
    eps = 1e-5
    fd = np.stack([(cons.fun(x + eps * e) - cons.fun(x - eps * e)) / (2 * eps) for e in np.eye(K)], axis=-1)
    np.testing.assert_allclose(J, fd, rtol=0, atol=1e-6 * (1 + np.abs(J).max()))
    assert np.all(J.reshape(3, K, 3, K)[2, :, 1] == 0)  # joint 2 has no jerk limit: that constraint never moves


def test_minimum_time_same_optimum_as_with_finite_differences():
    """The exact Jacobian changes the cost of the solve, not its answer (the solve of issue #19 before the change)."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(12)
    wp = np.cumsum(rng.normal(size=(6, 4)), axis=0)
    lim = dict(vmax=[1.0, 1.5, 2.0, 1.0], amax=3.0, jmax=20.0)
    res = tj.minimum_time(wp, **lim)
    L = tj._limits(4, lim["vmax"], lim["amax"], lim["jmax"])
    d0 = np.diff(tj.allocate_times(wp, 1.0, method="max_joint", vmax=L[0]))
    d0 = d0 * tj._ratios(wp, d0, L, "spline")[1].max()
    fd = minimize(
        lambda x: x @ d0,
        np.ones_like(d0),
        jac=lambda x: d0,
        method="SLSQP",
        bounds=[(1e-3, None)] * d0.size,
        constraints=[{"type": "ineq", "fun": lambda x: 1.0 - tj._ratios(wp, x * d0, L, "spline")[1].ravel()}],
        options={"maxiter": 100, "ftol": 1e-10},
    )
    d = fd.x * d0
    d = d * tj._ratios(wp, d, L, "spline")[1].max()
    assert res.success and abs(res.total - d.sum()) < 1e-6 * d.sum()
    np.testing.assert_allclose(res.traj.durations, d, rtol=1e-5)


def test_free_via_never_longer_and_shorter_here():
    rng = np.random.default_rng(8)
    wp = np.cumsum(rng.normal(size=(5, 3)), axis=0)
    lim = dict(vmax=[1.0, 1.5, 2.0], amax=3.0, jmax=20.0)
    spline = tj.minimum_time(wp, **lim)
    free = tj.minimum_time(wp, **lim, via="free", maxiter=15)
    assert free.report.feasible and free.report.check().passed
    assert free.scaled_total == spline.total and free.total < 0.99 * spline.total
    assert np.isclose(free.report.ratio.max(), 1.0, atol=1e-3)  # tight after the final rescale
    assert np.abs(free.traj.join_jumps()[:, :3]).max() < 1e-9  # still C2
    q = free.traj.evaluate(free.traj.times)
    assert np.allclose(q[0], wp) and np.allclose(q[1][[0, -1]], 0) and np.allclose(q[2][[0, -1]], 0)
    with pytest.raises(ValueError, match="via"):
        tj.plan_quintic(wp, np.arange(5.0), via="free")  # free is a minimum_time option only


def test_sphere_penalty():
    p = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.9], [2.0, 0.0, 0.0]])
    assert np.allclose(tj.sphere_penalty(p, centre=[0, 0, 0], radius=1.0, margin=0.1), [1.21, 0.04, 0.0])


def test_validate_passes():
    from robokin.validation.trajectory import validate

    reps = validate(fast=True)
    assert len(reps) >= 4 and all(r.passed for r in reps)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_rejected(bad):
    with pytest.raises(ValueError, match="non-finite"):
        tj.quintic_coeffs(bad, 1.0, 1.0)
    with pytest.raises(ValueError, match="non-finite"):
        tj.quintic_eval([0, 0, 0, 1, 1, bad], 0.5)
    with pytest.raises(ValueError, match="non-finite"):
        tj.plan_quintic([[0.0], [bad]], [0.0, 1.0])
    with pytest.raises(ValueError, match="non-finite"):
        tj.allocate_times([[0.0], [bad]], 1.0)
    with pytest.raises(ValueError):
        tj.quintic_boundary_matrix(bad)
    with pytest.raises(ValueError, match="non-finite"):
        tj.sphere_penalty([0, 0, bad], centre=[0, 0, 0], radius=1.0)
    with pytest.raises(ValueError, match="positive"):
        tj.minimum_time([[0.0], [1.0]], vmax=np.nan, amax=1.0)


def test_non_increasing_times_and_bad_durations():
    with pytest.raises(ValueError, match="strictly increasing"):
        tj.plan_quintic([[0.0], [1.0], [2.0]], [0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="strictly increasing"):
        tj.PiecewiseQuintic(np.array([1.0, 0.0]), np.zeros((1, 1, 6)))
    for T in (0.0, -1.0):
        with pytest.raises(ValueError, match="strictly positive"):
            tj.quintic_coeffs(0.0, 1.0, T)
        with pytest.raises(ValueError, match="strictly positive"):
            tj.quintic_boundary_matrix(T)


def test_wrong_shapes():
    with pytest.raises(ValueError, match="broadcast"):
        tj.quintic_coeffs([0.0, 1.0], [1.0, 2.0, 3.0], 1.0)
    with pytest.raises(ValueError, match="shape"):
        tj.quintic_eval(np.zeros(5), 0.0)
    with pytest.raises(ValueError, match="shape"):
        tj.plan_quintic([0.0, 1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="waypoints"):
        tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="v0"):
        tj.plan_quintic([[0.0, 0.0], [1.0, 1.0]], [0.0, 1.0], v0=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="coeffs"):
        tj.PiecewiseQuintic(np.array([0.0, 1.0]), np.zeros((2, 1, 6)))
    with pytest.raises(ValueError, match="vmax"):
        tj.minimum_time([[0.0, 0.0], [1.0, 1.0]], vmax=[1.0, 1.0, 1.0], amax=1.0)
    with pytest.raises(ValueError, match="q_branches"):
        tj.branch_sequence(np.zeros((3, 8, 6)), np.ones((3, 7), bool))
    with pytest.raises(ValueError, match="shape"):
        tj.sphere_penalty([0.0, 0.0], centre=[0, 0, 0], radius=1.0)
    tr = tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ValueError, match="must lie in"):
        tr.evaluate(1.5)
    with pytest.raises(ValueError, match="PiecewiseQuintic"):
        tj.check_limits(np.zeros((2, 6)), vmax=1.0, amax=1.0)
    with pytest.raises(ValueError, match="PiecewiseQuintic"):
        tj.segment_peaks(None)


def test_unknown_options():
    with pytest.raises(ValueError, match="method"):
        tj.quintic_coeffs(0.0, 1.0, 1.0, method="lu")
    with pytest.raises(ValueError, match="via"):
        tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0], via="akima")
    with pytest.raises(ValueError, match="method"):
        tj.allocate_times([[0.0], [1.0]], 1.0, method="time")
    with pytest.raises(ValueError, match="'fast'"):
        tj.minimum_time([[0.0], [1.0]], vmax=1.0, amax=1.0, init="fast")
    with pytest.raises(ValueError, match="method"):
        tj.branch_sequence(np.zeros((2, 2, 1)), np.ones((2, 2), bool), method="astar")


def test_infeasible_limits_and_degenerate_waypoints():
    wp = [[0.0], [1.0], [2.0]]
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="positive"):
            tj.minimum_time(wp, vmax=bad, amax=1.0)
        with pytest.raises(ValueError, match="positive"):
            tj.check_limits(tj.plan_quintic(wp, [0, 1, 2]), vmax=1.0, amax=bad)
    with pytest.raises(ValueError, match="at least one finite limit"):
        tj.minimum_time(wp, vmax=np.inf, amax=np.inf)
    with pytest.raises(ValueError, match="infeasible limits"):
        tj.minimum_time(wp, vmax=1.0, amax=1.0, max_total=0.5)
    with pytest.raises(ValueError, match="coincide"):
        tj.minimum_time([[0.0], [1.0], [1.0]], vmax=1.0, amax=1.0)
    with pytest.raises(ValueError, match="max_total"):
        tj.minimum_time(wp, vmax=1.0, amax=1.0, max_total=-1.0)
    # an unlimited velocity (inf) is allowed and falls back to unweighted max-joint allocation
    assert tj.minimum_time(wp, vmax=np.inf, amax=1.0).report.feasible
    with pytest.raises(ValueError, match="total"):
        tj.allocate_times(wp, -2.0)


def test_unreachable_waypoint_in_branch_sequence():
    qb = np.zeros((3, 8, 6))
    v = np.ones((3, 8), bool)
    v[1] = False
    with pytest.raises(UnreachableError, match="waypoint 1"):
        tj.branch_sequence(qb, v)
    qb[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        tj.branch_sequence(qb, np.ones((3, 8), bool))
    with pytest.raises(ValueError, match="boolean"):
        tj.branch_sequence(np.zeros((3, 8, 6)), np.ones((3, 8)))


def test_evaluate_grouped_and_single_paths_match_horner(rng=np.random.default_rng(19)):
    wp = np.cumsum(rng.normal(size=(9, 6)), axis=0)
    tr = tj.plan_quintic(wp, tj.allocate_times(wp, 8.0, method="distance"))
    t = np.concatenate([rng.uniform(0, tr.duration, 501), tr.times])  # unsorted, with every breakpoint
    k = np.clip(np.searchsorted(tr.times, t, side="right") - 1, 0, tr.n_segments - 1)
    ref = tr._eval_segment(k, t - tr.times[k])  # Horner, one sample at a time
    scale = [np.abs(r).max() for r in ref]
    o = np.argsort(t)
    for got, rr in (
        (tr.evaluate(t), ref),
        (tr.evaluate(t[o]), [r[o] for r in ref]),  # unsorted, sorted grid
        (tr.evaluate(t.reshape(-1, 2)), ref),
    ):
        for g, r, sc in zip(got, rr, scale):
            assert np.abs(g.reshape(r.shape) - r).max() <= 1e-13 * sc
    for j in (0, 17, len(t) - 1):  # one float per call
        for g, r, sc in zip(tr.evaluate(float(t[j])), ref, scale):
            assert g.shape == (6,) and np.abs(g - r[j]).max() <= 1e-13 * sc
    for bad in (float("nan"), -1.0, tr.duration + 1.0):
        with pytest.raises(ValueError):
            tr.evaluate(bad)


# ----------------------------------------------------------------------------- issue 23: B-spline via rule
def test_bspline_via_is_scipy_quintic_bspline_and_c4():
    from scipy.interpolate import make_interp_spline

    rng = np.random.default_rng(3)
    wp = rng.normal(size=(6, 3))
    t = np.concatenate([[0.0], np.cumsum(rng.uniform(0.3, 2.0, 5))])
    tr = tj.plan_quintic(wp, t, via="bspline")
    z = np.zeros(3)
    bs = make_interp_spline(t, wp, k=5, bc_type=([(1, z), (2, z)], [(1, z), (2, z)]), axis=0)
    tt = np.linspace(t[0], t[-1], 997)
    for k, y in enumerate(tr.evaluate(tt)):
        np.testing.assert_allclose(y, bs(tt, k), atol=1e-8 * (1 + np.abs(bs(tt, k)).max()))
    assert np.abs(tr.join_jumps()).max() < 1e-8 * (1 + np.abs(tr.coeffs).max())  # q..q''' continuous
    # snap (4th derivative) continuous too: 24 c4 + 120 c5 T on the left equals 24 c4 on the right
    c, T = tr.coeffs, tr.durations[:, None]
    np.testing.assert_allclose(24 * c[:-1, :, 4] + 120 * c[:-1, :, 5] * T[:-1], 24 * c[1:, :, 4], atol=1e-6)
    # the spline rule is C2 only: its jerk jumps
    assert np.abs(tj.plan_quintic(wp, t).join_jumps()[:, 3]).max() > 1e-3


@SETTINGS
@given(st.lists(fin, min_size=3, max_size=6), st.lists(dur, min_size=5, max_size=5))
def test_bspline_via_passes_waypoints_rest_to_rest(q, d):
    wp = np.array(q)[:, None]
    t = np.concatenate([[0.0], np.cumsum(d[: len(q) - 1])])
    qq, qd, qdd, _ = tj.plan_quintic(wp, t, via="bspline").evaluate(t)
    np.testing.assert_allclose(qq, wp, atol=1e-6 * (1 + np.abs(wp).max()))
    assert np.abs(qd[[0, -1]]).max() < 1e-6 * (1 + np.abs(qd).max()) and np.all(np.isfinite(qdd))


def test_bspline_via_bad_input():
    with pytest.raises(ValueError, match="via"):
        tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0], via="b-spline")
    with pytest.raises(ValueError, match="strictly increasing"):
        tj.plan_quintic([[0.0], [1.0], [2.0]], [0.0, 1.0, 1.0], via="bspline")


# ----------------------------------------------------------------------------- issue 23: scaled_total
def test_scaled_total_matches_minimum_time_start_and_is_feasible():
    wp = [[0.0, 0.0], [1.0, 0.2], [1.5, 1.0], [0.5, 0.3]]
    lim = dict(vmax=1.0, amax=2.0, jmax=10.0)
    for via in ("spline", "heuristic", "stop", "bspline"):
        d = np.array([1.0, 0.5, 2.0])
        T = tj.scaled_total(wp, d, **lim, via=via)
        tr = tj.plan_quintic(wp, np.concatenate([[0.0], np.cumsum(d * T / d.sum())]), via=via)
        assert abs(tj.check_limits(tr, **lim).ratio.max() - 1) < 1e-6  # the first limit exactly active
    # the minimum_time optimum is a minimum of scaled_total over proportions
    res = tj.minimum_time(wp, **lim)
    assert abs(tj.scaled_total(wp, res.traj.durations, **lim) - res.total) < 1e-6 * res.total
    rng = np.random.default_rng(0)
    X = res.traj.durations * (1 + 0.05 * rng.uniform(-1, 1, (50, 3)))
    assert np.all(tj.scaled_total(wp, X, **lim) >= res.total * (1 - 1e-6))


@SETTINGS
@given(st.lists(dur, min_size=3, max_size=3), st.floats(0.1, 10))
def test_scaled_total_is_scale_free_and_batches(d, s):
    wp = [[0.0, 0.3], [1.0, -0.2], [0.2, 0.9], [1.1, 0.0]]
    lim = dict(vmax=[1.0, 2.0], amax=3.0, jmax=None)
    one = tj.scaled_total(wp, d, **lim)
    assert isinstance(one, float)
    both = tj.scaled_total(wp, np.stack([d, s * np.array(d)]), **lim)
    assert both.shape == (2,)
    np.testing.assert_allclose(both, one, rtol=1e-9)


def test_scaled_total_bad_input():
    wp = [[0.0], [1.0], [0.0]]
    with pytest.raises(ValueError, match=r"durations must have shape \(\.\.\., 2\)"):
        tj.scaled_total(wp, [1.0, 1.0, 1.0], vmax=1.0, amax=1.0)
    with pytest.raises(ValueError, match="strictly positive"):
        tj.scaled_total(wp, [1.0, 0.0], vmax=1.0, amax=1.0)
    with pytest.raises(ValueError):
        tj.scaled_total(wp, [1.0, np.nan], vmax=1.0, amax=1.0)
    with pytest.raises(ValueError, match="vmax"):
        tj.scaled_total(wp, [1.0, 1.0], vmax=-1.0, amax=1.0)
    with pytest.raises(ValueError, match="via"):
        tj.scaled_total(wp, [1.0, 1.0], vmax=1.0, amax=1.0, via="free")


# ----------------------------------------------------------------------------- issue 23: integral_square
def test_integral_square_matches_sympy_and_quadrature():
    s = sp.Symbol("s")
    q = 10 * s**3 - 15 * s**4 + 6 * s**5
    tr = tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    for p in (1, 2, 3):
        assert abs(tj.integral_square(tr, order=p) - float(sp.integrate(q.diff(s, p) ** 2, (s, 0, 1)))) < 1e-9
    rng = np.random.default_rng(1)
    tr = tj.plan_quintic(rng.normal(size=(4, 2)), [0.0, 0.7, 1.5, 3.0])
    for p in (1, 2, 3):  # each segment on its own closed grid (the jerk jumps at the joins)
        quad = 0.0
        for k, T in enumerate(tr.durations):
            tau = np.linspace(0.0, T, 4001)
            quad += np.trapezoid((tj.quintic_eval(tr.coeffs[k], tau[:, None])[p] ** 2).sum(-1), tau)
        assert abs(tj.integral_square(tr, order=p) - quad) < 1e-5 * quad


@SETTINGS
@given(st.floats(0.1, 10), st.floats(0.1, 5))
def test_integral_square_time_scaling(lam, h):
    # t -> lam t: q'' -> q'' / lam^2, dt -> lam dt, so int q''^2 scales by lam^-3
    a = tj.integral_square(tj.plan_quintic([[0.0], [h], [0.0]], [0.0, 1.0, 3.0]))
    b = tj.integral_square(tj.plan_quintic([[0.0], [h], [0.0]], [0.0, lam, 3 * lam]))
    assert abs(b - a / lam**3) <= 1e-9 * a / lam**3


def test_integral_square_bad_input():
    tr = tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    for order in (-1, 6, 2.0, True, "2"):
        with pytest.raises(ValueError, match="order"):
            tj.integral_square(tr, order=order)
    with pytest.raises(ValueError, match="PiecewiseQuintic"):
        tj.integral_square(np.zeros((2, 1, 6)))


# ----------------------------------------------------------------------------- issue 23: capsules and barrier
def test_capsule_sphere_distance_matches_brute_force():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 500, 3))
    b[:10] = a[:10]  # degenerate segments
    c = rng.normal(size=3)
    u = np.linspace(0.0, 1.0, 20001)
    pts = a[:, None] + u[None, :, None] * (b - a)[:, None]
    brute = np.linalg.norm(pts - c, axis=-1).min(axis=1) - 0.1 - 0.3
    d = tj.capsule_sphere_distance(a, b, link_radius=0.1, centre=c, radius=0.3)
    assert d.shape == (500,)
    assert np.all(d <= brute + 1e-12) and np.all(brute - d < 1e-6)  # the closed form is the exact minimum


@SETTINGS
@given(
    st.lists(fin, min_size=3, max_size=3),
    st.lists(fin, min_size=3, max_size=3),
    st.lists(fin, min_size=3, max_size=3),
    st.floats(0.0, 1.0),
)
def test_capsule_sphere_distance_properties(a, b, c, u):
    d = tj.capsule_sphere_distance(a, b, link_radius=0.0, centre=c, radius=1e-3)
    rev = tj.capsule_sphere_distance(b, a, link_radius=0.0, centre=c, radius=1e-3)
    assert abs(d - rev) < 1e-9 * (1 + abs(d))  # symmetric in the ends
    p = np.array(a) + u * (np.array(b) - np.array(a))  # any point of the segment is at least as far
    assert d <= np.linalg.norm(p - c) - 1e-3 + 1e-9 * (1 + abs(d))


def test_capsule_sphere_distance_bad_input():
    ok = dict(link_radius=0.1, centre=[0.0, 0.0, 0.0], radius=0.2)
    with pytest.raises(ValueError, match="a"):
        tj.capsule_sphere_distance([0.0, 0.0], [1.0, 0.0, 0.0], **ok)
    with pytest.raises(ValueError, match="broadcast"):
        tj.capsule_sphere_distance(np.zeros((2, 3)), np.zeros((3, 3)), **ok)
    with pytest.raises(ValueError):
        tj.capsule_sphere_distance([0.0, np.nan, 0.0], [1.0, 0.0, 0.0], **ok)
    with pytest.raises(ValueError, match="link_radius"):
        tj.capsule_sphere_distance([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], **{**ok, "link_radius": -0.1})
    with pytest.raises(ValueError, match="radius"):
        tj.capsule_sphere_distance([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], **{**ok, "radius": 0.0})
    with pytest.raises(ValueError, match="centre"):
        tj.capsule_sphere_distance([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], **{**ok, "centre": [[0.0, 0.0, 0.0]] * 2})


def test_barrier_penalty_values():
    d = np.array([-1.0, 0.01, 0.015, 0.02, 0.03, 0.031, 1.0])
    for kind, f in (("log", lambda s: -np.log(s) + s - 1), ("inverse", lambda s: 1 / s + s - 2)):
        b = tj.barrier_penalty(d, margin=0.01, width=0.02, kind=kind)
        assert np.isinf(b[:2]).all() and np.all(b[4:] == 0)
        np.testing.assert_allclose(b[2:4], f((d[2:4] - 0.01) / 0.02))


@SETTINGS
@given(st.floats(1e-6, 0.999), st.sampled_from(["log", "inverse"]))
def test_barrier_penalty_decreasing_and_c1(s, kind):
    m, w = 0.05, 0.1
    f = lambda x: float(tj.barrier_penalty(m + w * x, margin=m, width=w, kind=kind))  # noqa: E731
    assert f(s) > 0 and f(min(s * 1.01, 0.9999)) <= f(s)  # positive, decreasing towards the band's edge
    assert f(1 - 1e-6) < 1e-9  # zero value and slope at s = 1


def test_barrier_penalty_bad_input():
    with pytest.raises(ValueError, match="kind"):
        tj.barrier_penalty(0.1, margin=0.0, width=0.1, kind="exp")
    with pytest.raises(ValueError, match="width"):
        tj.barrier_penalty(0.1, margin=0.0, width=0.0)
    with pytest.raises(ValueError, match="margin"):
        tj.barrier_penalty(0.1, margin=-0.1, width=0.1)
    with pytest.raises(ValueError):
        tj.barrier_penalty([0.1, np.nan], margin=0.0, width=0.1)


# ----------------------------------------------------------------------------- issue 29: every keyword validated
def _move():
    return tj.plan_quintic([[0.0], [1.0]], [0.0, 1.0])  # acceleration peak 5.77 rad/s^2


def test_check_limits_refuses_a_vacuous_tolerance():
    tr = _move()
    # 577 % of the acceleration limit: infeasible at the default tolerance
    assert not tj.check_limits(tr, vmax=2.0, amax=1.0).feasible
    for bad in (np.inf, np.nan, -1e-3, 0.5, 1e300, 1j, "0.1", None, True):
        with pytest.raises(ValueError, match="tol"):
            tj.check_limits(tr, vmax=2.0, amax=1.0, tol=bad)
    assert tj.check_limits(tr, vmax=2.0, amax=5.8, tol=tj.MAX_LIMIT_TOL).feasible  # the bound itself is allowed
    assert tj.check_limits(tr, vmax=2.0, amax=5.8, tol=0.0).feasible


def test_check_limits_caps_the_grid_and_wants_an_integer():
    tr = _move()
    for bad in (1e13, 10**13, 6 * 10**6):
        with pytest.raises(ValueError, match="per_segment"):
            tj.check_limits(tr, vmax=2.0, amax=6.0, per_segment=bad)
    for bad in (400.7, "400", 1, np.nan, True):
        with pytest.raises(ValueError, match="per_segment"):
            tj.check_limits(tr, vmax=2.0, amax=6.0, per_segment=bad)
    with pytest.raises(ValueError, match="per_segment"):  # sample(): per segment and in total
        tj.plan_quintic(np.zeros((41, 40)), np.arange(41.0)).sample(per_segment=10**6)


def test_minimum_time_validates_maxiter_and_init():
    wp = [[0.0], [1.0], [0.5]]
    for bad in (1e300, 10**9, -1, 2.5, "10", None, np.inf):
        with pytest.raises(ValueError, match="maxiter"):
            tj.minimum_time(wp, vmax=1.0, amax=1.0, maxiter=bad)
    with pytest.raises(ValueError, match="init"):
        tj.minimum_time(wp, vmax=1.0, amax=1.0, init="fast", via="free")
    assert tj.minimum_time(wp, vmax=1.0, amax=1.0, maxiter=np.int64(5)).report.feasible


def test_quintic_coeffs_overflow_raises_instead_of_inf():
    for method in ("closed", "solve"):
        with pytest.raises(ValueError, match="T is too short"):
            tj.quintic_coeffs(0.0, 1.0, 1e-300, method=method)
        with pytest.raises(ValueError, match="T is too short"):
            tj.quintic_coeffs([0.0, 0.0], [1.0, 1.0], [1.0, 1e-70], method=method)
    for via in ("spline", "bspline", "stop", "heuristic"):  # reaches plan_quintic through the times
        with pytest.raises(ValueError, match="times are too close|T is too short"):
            tj.plan_quintic([[0.0], [1.0], [2.0]], [0.0, 1e-300, 1.0], via=via)
    assert np.all(np.isfinite(tj.quintic_coeffs(0.0, 1.0, 1e-3)))  # short but representable


def test_scaled_total_empty_and_huge_batches_are_documented_errors():
    wp = [[0.0], [1.0], [0.5]]
    for bad in (np.zeros((0, 2)), np.zeros((0, 0, 2))):
        with pytest.raises(ValueError, match="durations must hold at least one"):
            tj.scaled_total(wp, bad, vmax=1.0, amax=1.0)
    with pytest.raises(ValueError, match="MAX_GRID_VALUES"):
        tj.scaled_total(wp, np.ones((10**6, 2)), vmax=1.0, amax=1.0)


def test_obstacle_margins_must_be_real_scalars():
    p = [[0.0, 0.0, 0.0]]
    for bad in ([0.1], np.array([0.1]), np.nan, np.inf, 1j, "0.1", None, -0.1):
        with pytest.raises(ValueError, match="margin"):
            tj.sphere_penalty(p, centre=[0.0, 0.0, 1.0], radius=0.5, margin=bad)
        with pytest.raises(ValueError, match="margin"):
            tj.barrier_penalty([0.1], margin=bad, width=0.02)
        with pytest.raises(ValueError, match="link_radius"):
            tj.capsule_sphere_distance(p, [[1.0, 0, 0]], link_radius=bad, centre=[0, 0, 1.0], radius=0.5)
    assert float(tj.sphere_penalty(p, centre=[0, 0, 1.0], radius=0.5, margin=np.float32(0.6))[0]) > 0


def test_other_keywords_validated():
    tr = _move()
    with pytest.raises(ValueError, match="tau must broadcast"):
        tj.quintic_eval(np.zeros((2, 6)), np.zeros(3))
    with pytest.raises(ValueError, match="raise_on_fail"):
        tj.check_limits(tr, vmax=2.0, amax=1.0).check(raise_on_fail="no")
    with pytest.raises(ValueError, match="name"):
        tj.check_limits(tr, vmax=2.0, amax=1.0).check(name=3)
    with pytest.raises(ValueError, match="via"):
        tj.PiecewiseQuintic(tr.times, tr.coeffs, via=None)


# ----------------------------------------------------------------------------- issue 28: one source across chapters
def _chapter_limits(name):
    import ast
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / name).read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] != "code" or "lim = dict(" not in src:
            continue
        for node in ast.walk(ast.parse("\n".join(ln for ln in src.splitlines() if not ln.startswith("%")))):
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["lim"]:
                found.append({k.arg: ast.literal_eval(k.value.args[0]) for k in node.value.keywords})
    assert len(found) == 1, f"{name}: expected one `lim = dict(...)`, found {len(found)}"
    return found[0]


def test_chapter_6_quotes_chapter_7_limits():
    # chapter 6 says "the limits are those of chapter 7" (contest, seam): both chapters type them; keep them equal
    assert _chapter_limits("06_arm_inverse_kinematics.ipynb") == _chapter_limits("07_trajectory_planning.ipynb")


# ------------------------------------------------------------------ issue 29: every option checked
def test_allocate_times_checks_vmax_whatever_the_method():
    wp = [[0.0], [1.0], [4.0]]
    for bad in (np.nan, np.inf, "abc", object(), -1.0, [1.0, 2.0]):
        with pytest.raises(ValueError, match="vmax"):
            tj.allocate_times(wp, 4.0, method="distance", vmax=bad)
    np.testing.assert_allclose(tj.allocate_times(wp, 4.0, method="distance", vmax=2.0), [0.0, 1.0, 4.0])


@pytest.mark.parametrize("kind", ["vmax", "amax", "jmax"])
def test_tiny_limits_are_refused_not_overflowed(kind):
    lim = dict(vmax=1.0, amax=2.0, jmax=None) | {kind: 1e-300}
    with pytest.raises(ValueError, match=f"{kind} must be at least MIN_LIMIT"):
        tj.minimum_time(np.array([[0.0, 0.0], [1.0, 0.2]]), **lim)


def test_quintic_step_refuses_a_move_too_short_to_differentiate():
    with pytest.raises(ValueError, match="need t1 > t0 by at least"):
        tj.quintic_step(0.5, t0=0.0, t1=1e-300, v0=0.0, v1=1.0)
    assert np.isfinite(tj.quintic_step(0.5e-9, t0=0.0, t1=1e-9, v0=0.0, v1=1.0)[2]).all()


def test_scaled_total_refuses_durations_spanning_too_many_decades():
    with pytest.raises(ValueError, match="durations: a segment shorter"):
        tj.scaled_total(np.array([[0.0], [1.0], [0.0]]), np.array([1e-300, 1.0]), vmax=1.0, amax=2.0)


def test_branch_sequence_shape_errors_name_their_arguments():
    qb = np.array([[[0.0], [3.0]], [[2.9], [0.2]], [[0.1], [3.1]]])
    with pytest.raises(ValueError, match="q_start must have shape .* to match q_branches"):
        tj.branch_sequence(np.concatenate([qb, qb[..., :1]], -1), np.ones((3, 2), bool), q_start=[0.0])
    with pytest.raises(ValueError, match="valid must be a boolean array"):
        tj.branch_sequence(qb, [[True, True], [True]], q_start=[0.0])


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
def test_branch_sequence_raises_on_any_step_above_max_step():
    """ind-tj-step-compare: a 1.5 rad step is a jump under max_step = 1 (not only steps above twice the bound)."""
    qb = np.array([[[0.0]], [[1.5]]])
    ok = np.ones((2, 1), bool)
    with pytest.raises(tj.BranchJumpError):
        tj.branch_sequence(qb, ok, max_step=1.0)
    q, _ = tj.branch_sequence(qb, ok, max_step=1.6)
    np.testing.assert_allclose(q[:, 0], [0.0, 1.5])


def test_branch_sequence_unwraps_across_the_half_turn():
    """ind-tj-unwrap-off: unwrap=True shifts each angle by 2 pi to within pi of the previous one, so a joint
    turning through +-pi gives a continuous path (3.0, 3.1, 3.153), not a wrapped one (..., -3.13)."""
    qb = np.array([[[3.0]], [[3.1]], [[-3.13]]])
    ok = np.ones((3, 1), bool)
    q, _ = tj.branch_sequence(qb, ok, max_step=0.2)
    np.testing.assert_allclose(q[:, 0], [3.0, 3.1, 2 * np.pi - 3.13], atol=1e-12)
    q, _ = tj.branch_sequence(qb, ok, max_step=0.2, unwrap=False)
    np.testing.assert_allclose(q[:, 0], [3.0, 3.1, -3.13])


def test_minimum_time_report_is_check_limits_with_its_default_tolerance():
    """ind-tj-jog-tol: the report attached to a minimum_time result is what check_limits says about the returned
    trajectory with its default (1e-9) tolerance, so `res.report.check()` is as strict as a check of one's own."""
    wp = np.array([[0.0, 0.0], [1.0, -0.5], [1.5, 0.5]])
    lim = dict(vmax=[1.0, 2.0], amax=[3.0, 4.0], jmax=[20.0, 30.0])
    res = tj.minimum_time(wp, **lim)
    own = tj.check_limits(res.traj, **lim)
    assert res.report.tol == own.tol
    np.testing.assert_allclose(res.report.ratio, own.ratio, rtol=1e-12)
    assert res.report.feasible == own.feasible


# ----------------------------------------------------------------------------- cubic segments
def test_cubic_coeffs_meet_their_four_boundary_values():
    rng = np.random.default_rng(3)
    q0, qf, v0, vf = rng.normal(size=(4, 50))
    T = rng.uniform(0.1, 4.0, 50)
    c = tj.cubic_coeffs(q0, qf, T, v0=v0, vf=vf)
    P = np.polynomial.polynomial
    for i in range(50):
        assert np.allclose([P.polyval(0, c[i]), P.polyval(T[i], c[i])], [q0[i], qf[i]])
        d = P.polyder(c[i])
        assert np.allclose([P.polyval(0, d), P.polyval(T[i], d)], [v0[i], vf[i]])


def test_cubic_coeffs_match_sympy():
    tau, T, q0, qf, v0, vf = sp.symbols("tau T q0 qf v0 vf")
    c = sp.symbols("c0:4")
    q = sum(ci * tau**i for i, ci in enumerate(c))
    eqs = [q.subs(tau, 0) - q0, q.diff(tau).subs(tau, 0) - v0, q.subs(tau, T) - qf, q.diff(tau).subs(tau, T) - vf]
    sol = sp.solve(eqs, c, dict=True)[0]
    f = sp.lambdify((q0, qf, T, v0, vf), [sol[ci] for ci in c])
    args = (0.3, -1.2, 1.7, 0.4, -0.8)
    assert np.allclose(tj.cubic_coeffs(*args[:3], v0=args[3], vf=args[4]), f(*args), atol=1e-14)


def test_plan_cubic_is_c1_and_spline_rule_is_c2():
    wp = np.array([[0.0, 1.0], [1.0, 0.5], [3.0, -0.5], [2.0, 0.0]])
    t = [0.0, 1.0, 2.5, 3.0]
    for via in ("heuristic", "stop", "spline"):
        tr = tj.plan_cubic(wp, t, via=via)
        J = tr.join_jumps()
        assert np.abs(J[:, :2]).max() < 1e-12
        assert np.allclose(tr.evaluate(np.array(t))[0], wp)
        if via == "spline":
            assert np.abs(J[:, 2]).max() < 1e-9
            assert np.allclose(tr.evaluate(np.array([0.7, 2.0]))[0], CubicSpline(t, wp, bc_type="clamped")([0.7, 2.0]))
        else:
            assert np.abs(J[:, 2]).max() > 0.1
    V = np.ones_like(wp)
    tr = tj.plan_cubic(wp, t, via=V)
    assert np.allclose(tr.evaluate(np.array(t))[1], V)


def test_plan_cubic_bad_input():
    wp = [[0.0], [1.0]]
    with pytest.raises(ValueError, match="via"):
        tj.plan_cubic(wp, [0.0, 1.0], via="quintic")
    with pytest.raises(ValueError, match="via velocities"):
        tj.plan_cubic(wp, [0.0, 1.0], via=np.zeros((3, 1)))
    with pytest.raises(ValueError, match="times"):
        tj.plan_cubic(wp, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="T must be > 0"):
        tj.cubic_coeffs(0.0, 1.0, 0.0)


# ----------------------------------------------------------------------------- trapezoidal and S-curve
def test_trapezoidal_time_optimal_cases():
    p = tj.trapezoidal(0.0, np.array([0.5, 2.0, -2.0, 0.0]), vmax=1.0, amax=2.0)
    assert np.allclose(p.duration, [1.0, 2.5, 2.5, 0.0])
    assert np.allclose(p.peak[:, 0], [1.0, 1.0, 1.0, 0.0])
    q, qd, qdd, _ = p.evaluate(np.array([-1.0, 10.0]))
    assert np.allclose(q, [[0, 0, 0, 0], [0.5, 2.0, -2.0, 0.0]]) and np.all(qd == 0) and np.all(qdd == 0)
    J = p.join_jumps()
    assert np.abs(J[..., :2]).max() < 1e-12  # C1
    assert np.isclose(np.abs(J[1, :, 2]).max(), 2.0)  # acceleration steps by amax


def test_trapezoidal_matches_roboticstoolbox():
    rtb = pytest.importorskip("roboticstoolbox")
    for q0, qf, T in ((0.3, 2.0, 3.0), (1.0, -0.5, 2.0), (0.0, 1.0, 1.5)):
        p = tj.trapezoidal(q0, qf, vmax=1.0, amax=2.0, T=T)
        f = rtb.trapezoidal_func(q0, qf, T, float(np.sign(qf - q0) * p.peak[0]))
        assert np.isclose(f.tb, p.breaks[1])
        t = np.linspace(0.0, T, 601)[1:-1]
        t = t[np.min(np.abs(t[:, None] - p.breaks[None, :]), axis=1) > 1e-9]  # steps: off the switch times
        for a, b in zip(p.evaluate(t)[:3], f(t)):
            assert np.allclose(a, b, atol=1e-12)


@given(st.floats(-4, 4), st.floats(0.05, 5), st.floats(0.05, 5), st.floats(0.5, 50))
@SETTINGS
def test_s_curve_properties(h, vmax, amax, jmax):
    p = tj.s_curve(0.0, h, vmax=vmax, amax=amax, jmax=jmax)
    J = p.join_jumps()
    assert np.abs(J[:, :3]).max() <= 1e-9 * (1 + abs(h))  # C2
    t = np.linspace(0.0, float(p.duration), 4001)
    q, qd, qdd, qddd = p.evaluate(t)
    assert np.isclose(q[-1], h, atol=1e-9 * (1 + abs(h)))
    assert np.abs(qd).max() <= vmax * (1 + 1e-9) and np.abs(qdd).max() <= amax * (1 + 1e-9)
    assert np.abs(qddd).max() <= jmax * (1 + 1e-12)
    assert np.all(np.diff(p.breaks) >= 0)
    tr = tj.trapezoidal(0.0, h, vmax=vmax, amax=amax)
    assert p.duration >= tr.duration * (1 - 1e-9) - 1e-12  # the jerk limit can only cost time
    stiff = tj.s_curve(0.0, h, vmax=vmax, amax=amax, jmax=1e6)
    assert abs(stiff.duration - tr.duration) < 1e-3 * (1 + tr.duration)  # jmax -> inf: the trapezoid


def test_s_curve_three_cases_and_vectorised():
    h = np.array([1.0, 0.3, 0.01])  # vmax reached; amax reached only; neither (vmax=1, amax=2, jmax=10)
    p = tj.s_curve(0.0, h, vmax=1.0, amax=2.0, jmax=10.0)
    d = np.diff(p.breaks, axis=-1)
    assert d[0, 3] > 0 and d[1, 3] == 0 and d[1, 1] > 0 and d[2, 1] == 0 and d[2, 3] == 0
    assert np.isclose(p.peak[0, 0], 1.0) and np.isclose(p.peak[1, 1], 2.0) and p.peak[2, 1] < 2.0
    q = p.evaluate(np.array([5.0]))[0]
    assert np.allclose(q, h)
    one = [tj.s_curve(0.0, x, vmax=1.0, amax=2.0, jmax=10.0).breaks for x in h]
    assert np.allclose(np.stack(one), p.breaks)


@pytest.mark.parametrize("name", ["vmax", "amax", "jmax"])
@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan])
def test_profiles_reject_bad_limits(name, bad):
    lim = dict(vmax=1.0, amax=2.0, jmax=10.0)
    lim[name] = bad
    with pytest.raises(ValueError, match=name):
        tj.s_curve(0.0, 1.0, **lim)
    if name != "jmax":
        lim.pop("jmax")
        with pytest.raises(ValueError, match=name):
            tj.trapezoidal(0.0, 1.0, **lim)


def test_profiles_reject_infinite_and_infeasible():
    with pytest.raises(ValueError, match="amax"):
        tj.trapezoidal(0.0, 1.0, vmax=1.0, amax=np.inf)
    with pytest.raises(ValueError, match="jmax"):
        tj.s_curve(0.0, 1.0, vmax=1.0, amax=1.0, jmax=np.inf)
    with pytest.raises(ValueError, match="T = 1 s is too short"):
        tj.trapezoidal(0.0, 2.0, vmax=1.0, amax=2.0, T=1.0)
    with pytest.raises(ValueError, match="T must be > 0"):
        tj.trapezoidal(0.0, 2.0, vmax=1.0, amax=2.0, T=0.0)
    p = tj.trapezoidal(0.0, 2.0, vmax=1.0, amax=2.0, T=2.5)  # exactly the shortest: accepted
    assert np.isclose(p.peak[0], 1.0)


# ----------------------------------------------------------------------------- weighted objective, Pareto
def test_weighted_objective_and_bad_weights():
    tr = tj.plan_quintic([[0.0], [1.0]], [0.0, 2.0])
    w = tj.weighted_objective(tr, time=0.5, jerk=0.1, effort=0.2)
    assert np.isclose(w, 1.0 + 0.1 * tj.integral_square(tr, order=3) + 0.2 * tj.integral_square(tr))
    with pytest.raises(ValueError, match="jerk"):
        tj.weighted_objective(tr, jerk=-1.0)
    with pytest.raises(ValueError, match="at least one"):
        tj.weighted_objective(tr, time=0.0)
    with pytest.raises(ValueError, match="traj"):
        tj.weighted_objective("plan")


@given(st.integers(1, 30), st.integers(1, 3), st.integers(0, 2**31))
@SETTINGS
def test_pareto_mask_is_the_non_dominated_set(N, m, seed):
    P = np.random.default_rng(seed).integers(0, 5, size=(N, m)).astype(float)
    mask = tj.pareto_mask(P)
    assert mask.any()
    for i in range(N):
        dom = any(np.all(P[k] <= P[i]) and np.any(P[k] < P[i]) for k in range(N))
        assert mask[i] == (not dom)


def test_pareto_mask_bad_input():
    with pytest.raises(ValueError, match="points"):
        tj.pareto_mask(np.zeros((0, 2)))
    with pytest.raises(ValueError, match="points"):
        tj.pareto_mask([[np.nan, 1.0]])


def test_switch_profile_evaluate_batches_and_holds_the_ends():
    h = np.array([[1.0, -2.0], [0.3, 0.0]])
    p = tj.s_curve(0.5, 0.5 + h, vmax=1.0, amax=2.0, jmax=10.0)
    t = np.linspace(-1.0, 10.0, 7)
    q, qd, qdd, qddd = p.evaluate(t)
    assert q.shape == qd.shape == qdd.shape == qddd.shape == (7, 2, 2)
    assert np.allclose(q[0], 0.5) and np.allclose(q[-1], 0.5 + h)
    assert np.all(qd[[0, -1]] == 0) and np.all(qdd[[0, -1]] == 0) and np.all(qddd[[0, -1]] == 0)
    one = tj.s_curve(0.5, 0.5 + h[0, 1], vmax=1.0, amax=2.0, jmax=10.0).evaluate(t)
    assert all(np.allclose(a[:, 0, 1], b) for a, b in zip((q, qd, qdd, qddd), one))
    with pytest.raises(ValueError, match="t"):
        p.evaluate([np.nan])


# ----------------------------------------------------------------------------- review R2 fixes
@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: tj.cubic_coeffs([0.0, 1.0], [1.0, 2.0, 3.0], 1.0), "q0 (2,), qf (3,)"),
        (lambda: tj.trapezoidal([0.0, 1.0], [1.0, 2.0, 3.0], vmax=1.0, amax=1.0), "q0 (2,), qf (3,)"),
        (lambda: tj.trapezoidal(0.0, [1.0, 2.0], vmax=1.0, amax=1.0, T=[3.0, 4.0, 5.0]), "T (3,)"),
        (lambda: tj.s_curve([0.0, 1.0], 2.0, vmax=[1.0, 1.0, 1.0], amax=1.0, jmax=1.0), "vmax (3,)"),
        (lambda: tj.plan_cubic([[0.0, 0.0], [1.0, 1.0]], [0.0, 1.0], v0=[1.0, 2.0, 3.0]), "v0 must be a scalar"),
    ],
)
def test_shape_mismatch_names_the_arguments(call, names):
    with pytest.raises(ValueError, match=re.escape(names)):
        call()


def test_trapezoidal_nonscalar_T_broadcasts():
    assert tj.trapezoidal(0.0, 1.0, vmax=1.0, amax=1.0, T=[[2.5]]).duration.tolist() == [[2.5]]


def test_cubic_too_short_T_is_refused_by_name():
    with pytest.raises(ValueError, match="T is too short"):
        tj.cubic_coeffs(0.0, 1.0, 1e-200)
    with pytest.raises(ValueError, match="times are too close"):
        tj.plan_cubic([[0.0], [1.0]], [0.0, 1e-200])


def test_trapezoidal_zero_move_keeps_the_prescribed_duration():
    p = tj.trapezoidal(0.0, [0.0, 1.0], vmax=1.0, amax=2.0, T=2.0)
    assert p.duration[0] == 2.0 and np.isclose(p.duration[1], 2.0)
    q, qd, qdd, _ = p.evaluate(np.linspace(0.0, 2.0, 9))
    assert np.all(q[:, 0] == 0.0) and np.all(qd[:, 0] == 0.0) and np.all(qdd[:, 0] == 0.0)
    assert tj.trapezoidal(0.0, 0.0, vmax=1.0, amax=2.0).duration == 0.0  # shortest: no time at all


@pytest.mark.parametrize(
    "call",
    [
        lambda: tj.trapezoidal(0.0, 1.0, vmax=1.0, amax=2.0, T=True),
        lambda: tj.trapezoidal(0.0, 1.0, vmax=True, amax=2.0),
        lambda: tj.s_curve(0.0, 1.0, vmax=1.0, amax=2.0, jmax=np.bool_(True)),
        lambda: tj.cubic_coeffs(0.0, True, 1.0),
        lambda: tj.pareto_mask([[True, False]]),
    ],
)
def test_bools_are_not_numbers(call):
    with pytest.raises(ValueError, match="bool"):
        call()


def test_plan_cubic_refuses_end_velocities_with_given_via():
    wp = [[0.0], [1.0]]
    with pytest.raises(ValueError, match="v0 and vf are only for the named via rules"):
        tj.plan_cubic(wp, [0.0, 1.0], via=np.zeros((2, 1)), v0=5.0)
    with pytest.raises(ValueError, match="v0 and vf"):
        tj.plan_cubic(wp, [0.0, 1.0], via=np.zeros((2, 1)), vf=0.0)
    tr = tj.plan_cubic(wp, [0.0, 1.0], v0=0.5)
    assert np.isclose(tr.evaluate([0.0])[1][0, 0], 0.5)


def test_pareto_mask_refuses_zero_objectives_and_chunks(monkeypatch):
    with pytest.raises(ValueError, match="m >= 1 objectives"):
        tj.pareto_mask(np.zeros((3, 0)))
    P = np.random.default_rng(3).random((300, 3))
    full = tj.pareto_mask(P)
    monkeypatch.setattr(tj, "MAX_GRID_VALUES", 1000)  # 1 row of 300 x 3 per pass
    assert np.array_equal(tj.pareto_mask(P), full)
    monkeypatch.setattr(tj, "MAX_GRID_VALUES", 1)
    assert np.array_equal(tj.pareto_mask(P), full)


def test_join_jumps_merge_coincident_switch_times():
    tri = tj.trapezoidal(0.0, 0.25, vmax=1.0, amax=2.0)  # triangular: tc = 0, one switch time
    J = tri.join_jumps()
    assert np.allclose(J[:, 2], -4.0)  # the whole step, 2 amax, at both coincident breaks
    assert np.allclose(J[:, [0, 1, 3]], 0.0)
    s3 = tj.s_curve(0.0, 0.1, vmax=1.0, amax=2.0, jmax=10.0)  # case 3: Tac = Tv = 0
    Js = s3.join_jumps()[:, 3]
    assert np.allclose(Js, [-20.0, -20.0, 0.0, 0.0, 20.0, 20.0])
    assert np.allclose(s3.join_jumps()[:, :3], 0.0, atol=1e-12)
    full = tj.s_curve(0.0, 1.2, vmax=1.0, amax=2.0, jmax=10.0)  # all phases positive: jerk steps by j only
    assert np.allclose(np.abs(full.join_jumps()[:, 3]), 10.0)
    zero = tj.trapezoidal(0.0, 0.0, vmax=1.0, amax=2.0)
    assert np.all(zero.join_jumps() == 0.0)


@given(st.floats(0.01, 5.0), st.floats(0.2, 3.0), st.floats(0.2, 3.0), st.floats(1.0, 50.0))
@SETTINGS
def test_join_jumps_match_evaluate_across_each_switch(h, vmax, amax, jmax):
    for p in (tj.trapezoidal(0.0, h, vmax=vmax, amax=amax), tj.s_curve(0.0, h, vmax=vmax, amax=amax, jmax=jmax)):
        J = p.join_jumps()
        eps = 1e-9 * float(p.duration)
        for i, t in enumerate(p.switch_times):
            before = p.evaluate([t - eps])
            after = p.evaluate([t + eps])
            for o in (2, 3):
                if o == 3 and p.kind == "trapezoidal":
                    continue
                assert np.isclose(after[o][0] - before[o][0], J[i, o], atol=1e-5 * max(amax, jmax))


def test_weighted_objective_refuses_jerk_weight_on_a_c1_plan():
    wp, t = [[0.0], [1.0], [3.0]], [0.0, 1.0, 2.0]
    cub = tj.plan_cubic(wp, t)  # heuristic: the acceleration steps at the via point
    with pytest.raises(ValueError, match="acceleration steps"):
        tj.weighted_objective(cub, jerk=1.0)
    assert np.isfinite(tj.weighted_objective(cub, time=1.0, effort=1.0))  # no jerk term: finite, accepted
    assert np.isfinite(tj.weighted_objective(tj.plan_cubic(wp, t, via="spline"), jerk=1.0))  # C2 inside
    assert np.isfinite(tj.weighted_objective(tj.plan_quintic(wp, t), jerk=1.0))


# --------------------------------------------------------------------------- via_blend (mstraj)
WP_BLEND = np.array([[0.0, 0.0], [1.0, 0.2], [1.2, 1.0], [0.0, 1.5]])
T_BLEND = np.array([1.0, 0.8, 1.2])


def test_via_blend_matches_roboticstoolbox_mstraj():
    rtb = pytest.importorskip("roboticstoolbox")
    dt, ta = 0.01, 0.2
    r = rtb.mstraj(WP_BLEND, dt=dt, tacc=ta, tsegment=T_BLEND)
    q, qd, qdd, _ = tj.via_blend(WP_BLEND, T_BLEND, t_acc=ta).evaluate(r.t + dt)
    # mstraj drops each blend's first sample, so its k-th row is the state at (k + 1) dt (a one-step label shift)
    assert np.abs(q - r.q).max() < 1e-12 and np.abs(qd - r.qd).max() < 1e-10 and np.abs(qdd - r.qdd).max() < 1e-8


def test_via_blend_misses_each_via_by_three_32nds():
    ta = 0.3
    tr = tj.via_blend(WP_BLEND, T_BLEND, t_acc=ta)
    t_via = np.cumsum(T_BLEND)[:-1]
    v = np.diff(WP_BLEND, axis=0) / T_BLEND[:, None]
    miss = tr.evaluate(t_via)[0] - WP_BLEND[1:-1]
    np.testing.assert_allclose(miss, 3 * ta * np.diff(v, axis=0) / 32, atol=1e-14)
    # start and goal are reached, at rest; the linear parts move at the segment velocities
    q, qd, _, _ = tr.evaluate([0.0, tr.duration])
    np.testing.assert_allclose(q, WP_BLEND[[0, -1]], atol=1e-14)
    np.testing.assert_allclose(qd, 0.0, atol=1e-13)
    mid = np.r_[0.0, t_via] + T_BLEND / 2
    np.testing.assert_allclose(tr.evaluate(mid)[1], v, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 0.9), st.integers(0, 2**31 - 1))
def test_via_blend_is_continuous_to_the_acceleration(frac, seed):
    rng = np.random.default_rng(seed)
    wp = rng.uniform(-1, 1, (4, 3))
    T = rng.uniform(0.5, 2.0, 3)
    tr = tj.via_blend(wp, T, t_acc=frac * T.min())
    knots = tr.times[1:-1]
    left = tr.evaluate(knots - 1e-9)[:3]
    right = tr.evaluate(knots + 1e-9)[:3]
    for a, b, tol in zip(left, right, (1e-7, 1e-6, 1e-3)):
        assert np.abs(a - b).max() < tol  # a jump in q, qd or qdd at a knot trips this
    assert tr.n_segments == 7 and np.isclose(tr.duration, T.sum())


def test_via_blend_bad_input_is_named():
    with pytest.raises(ValueError, match="durations"):
        tj.via_blend(WP_BLEND, T_BLEND[:2], t_acc=0.2)
    with pytest.raises(ValueError, match=r"durations\[1\].*t_acc"):
        tj.via_blend(WP_BLEND, [1.0, 0.2, 1.0], t_acc=0.2)
    with pytest.raises(ValueError, match="t_acc"):
        tj.via_blend(WP_BLEND, T_BLEND, t_acc=0.0)
    with pytest.raises(ValueError, match="t_acc"):
        tj.via_blend(WP_BLEND, T_BLEND, t_acc=float("nan"))
    with pytest.raises(ValueError, match="waypoints"):
        tj.via_blend([[0.0]], [], t_acc=0.2)
    with pytest.raises(ValueError, match="waypoints"):
        tj.via_blend(np.full((4, 2), np.inf), T_BLEND, t_acc=0.2)
    with pytest.raises(ValueError, match="durations"):
        tj.via_blend(WP_BLEND, [1.0, -1.0, 1.0], t_acc=0.2)
