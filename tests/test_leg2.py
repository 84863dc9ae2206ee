"""Tests for robokin.leg2: FK/IK/Jacobian, joint limits, calibration, trot gait, bad input."""

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin import checks
from robokin._validate import MAX_ABS
from robokin.errors import SingularityWarning, UnreachableError
from robokin.leg2 import (
    TROT,
    Calibration,
    TwoLinkLeg,
    calibrate,
    foot_offset,
    foot_targets,
    gait_phase,
    gait_state,
    hold_commands,
    ik_track,
    smooth_joint_path,
)
from robokin.results import IKResult
from robokin.transforms import wrap_to_pi
from robokin.validation.leg2 import validate

L1, L2 = 0.21, 0.19
LEG = TwoLinkLeg(L1, L2)
HYP = settings(deadline=None)


def annulus(rng, n, l1=L1, l2=L2):
    r = np.sqrt(rng.uniform((l1 - l2) ** 2, (l1 + l2) ** 2, n))
    a = rng.uniform(-np.pi, np.pi, n)
    return np.stack([r * np.sin(a), -r * np.cos(a)], axis=-1)


# -- forward kinematics -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "q, p",
    [
        ([0.0, 0.0], [0.0, -(L1 + L2)]),  # straight down
        ([math.pi / 2, 0.0], [L1 + L2, 0.0]),  # straight forward
        ([0.0, math.pi / 2], [L2, -L1]),  # thigh down, shank forward
        ([-math.pi / 2, math.pi / 2], [-L1, -L2]),  # thigh back, shank down
        ([0.0, math.pi], [0.0, -(L1 - L2)]),  # folded
    ],
)
def test_fk_hand_poses(q, p):
    np.testing.assert_allclose(LEG.fk(q), p, atol=1e-15)


def test_fk_batch_shape_and_dtype():
    q = np.zeros((3, 5, 2), dtype=int)
    out = LEG.fk(q)
    assert out.shape == (3, 5, 2) and out.dtype == np.float64


def test_fk_matches_sympy():
    t1, t2, l1, l2 = sp.symbols("theta1 theta2 l1 l2", real=True)
    expr = sp.Matrix([l1 * sp.sin(t1) + l2 * sp.sin(t1 + t2), -l1 * sp.cos(t1) - l2 * sp.cos(t1 + t2)])
    f = sp.lambdify((t1, t2, l1, l2), expr, cse=True)
    jf = sp.lambdify((t1, t2, l1, l2), expr.jacobian([t1, t2]), cse=True)
    q = np.random.default_rng(1).uniform(-np.pi, np.pi, (50, 2))
    for qi in q:
        np.testing.assert_allclose(LEG.fk(qi), np.ravel(f(*qi, L1, L2)), atol=1e-15)
        np.testing.assert_allclose(LEG.jacobian(qi), np.asarray(jf(*qi, L1, L2), float), atol=1e-15)


def test_knee_position_length():
    q = np.random.default_rng(2).uniform(-3, 3, (100, 2))
    k = LEG.knee_position(q)
    np.testing.assert_allclose(np.linalg.norm(k, axis=-1), L1)
    np.testing.assert_allclose(np.linalg.norm(LEG.fk(q) - k, axis=-1), L2)


# -- inverse kinematics -----------------------------------------------------------------------
SIGN = {"knee-back": 1, "knee-front": -1}  # sign of theta2 on each branch


@pytest.mark.parametrize("branch", ["knee-back", "knee-front"])
def test_ik_residual_scan(branch):
    p = annulus(np.random.default_rng(3), 10_000)
    rep = checks.residual_scan(LEG.fk, lambda x: LEG.ik(x, branch=branch).q, p, tol=1e-9, scale=L1 + L2)
    assert rep.samples == 10_000
    res = LEG.ik(p, branch=branch)
    assert np.all(np.sign(res.q[:, 1]) == SIGN[branch])
    assert res.branch == branch and res.valid.all() and res.valid.shape == (10_000,)


def test_branch_vocabulary():
    assert TwoLinkLeg.branches == ("knee-back", "knee-front") and TwoLinkLeg.default_branch == "knee-back"
    # the default branch is the knee-back one
    np.testing.assert_array_equal(LEG.ik([0.1, -0.3]).q, LEG.ik([0.1, -0.3], branch="knee-back").q)


def test_ik_hand_solution():
    # target [l2, -l1]: knee-back is q = [0, pi/2]
    np.testing.assert_allclose(LEG.ik([L2, -L1], branch="knee-back").q, [0.0, math.pi / 2], atol=1e-12)
    q = LEG.ik([L2, -L1], branch="knee-front").q
    assert q[1] == pytest.approx(-math.pi / 2)
    np.testing.assert_allclose(LEG.fk(q), [L2, -L1], atol=1e-15)


def test_ik_branches_are_mirror_images():
    # both knees lie on the circle of radius l1; they are reflections across the hip-foot line
    p = annulus(np.random.default_rng(4), 200)
    kp = LEG.knee_position(LEG.ik(p, branch="knee-back").q)
    km = LEG.knee_position(LEG.ik(p, branch="knee-front").q)
    u = p / np.linalg.norm(p, axis=-1, keepdims=True)
    reflect = 2 * np.sum(kp * u, axis=-1, keepdims=True) * u - kp
    np.testing.assert_allclose(reflect, km, atol=1e-12)
    # knee-back puts the knee behind the hip-foot line: cross(u, knee) < 0 in the x-z plane
    # (for a foot straight below the hip, u = [0, -1], this is knee x < 0)
    assert np.all(u[:, 0] * kp[:, 1] - u[:, 1] * kp[:, 0] < 0)
    assert LEG.knee_position(LEG.ik([0.0, -0.3], branch="knee-back").q)[0] < 0


def test_ik_all_branches_shape_and_order():
    p = np.tile([[0.05, -0.3]], (7, 4, 1))
    res = LEG.ik(p, branch="all")
    assert isinstance(res, IKResult) and res.branch == LEG.branches
    assert res.q.shape == (7, 4, 2, 2) and res.valid.shape == (7, 4, 2) and res.residual.shape == (7, 4, 2)
    for k, b in enumerate(LEG.branches):
        np.testing.assert_array_equal(res.q[..., k, :], LEG.ik(p, branch=b).q)
    # per-leg branch choice from the "all" solve: legs 0, 1 knee-back, legs 2, 3 knee-front
    q = np.take_along_axis(res.q, np.array([0, 0, 1, 1])[None, :, None, None], axis=-2)[..., 0, :]
    assert np.all(q[..., :2, 1] > 0) and np.all(q[..., 2:, 1] < 0)
    np.testing.assert_allclose(LEG.fk(q), p, atol=1e-14)


def test_ik_all_branches_unreachable_only_when_no_branch_is_valid():
    leg = TwoLinkLeg(L1, L2, q_min=[-1.0, 0.2], q_max=[1.0, 2.6])  # knee-front violates theta2 >= 0.2
    ok_target, far = leg.fk([0.3, 1.0]), [0.0, -0.5]
    res = leg.ik([ok_target, far], branch="all", on_unreachable="nan")
    assert res.valid.tolist() == [[True, False], [False, False]]
    assert np.all(np.isnan(res.q[0, 1])) and np.all(np.isnan(res.q[1])) and np.isnan(res.residual[0, 1])
    leg.ik([ok_target], branch="all")  # one valid branch is enough: no raise
    with pytest.raises(UnreachableError, match="distance > l1 \\+ l2: 1"):
        leg.ik([ok_target, far], branch="all")
    with pytest.raises(UnreachableError, match="outside joint limits: 1"):
        leg.ik([ok_target, leg.fk([1.4, 1.0])], branch="all")


def test_ik_chunked_batch_matches_sin_cos_fk_and_per_target_calls():
    """A batch spanning several chunks (reachable, unreachable, boundary and hip-axis targets) gives per target
    what one-target calls give, and its residual is FK of the returned q evaluated with np.sin/np.cos (not the
    kernel's tan half-angle form): a wrong angle, or a residual not taken from the returned q, fails here."""
    from robokin import leg2

    rng = np.random.default_rng(35)
    n = 2 * leg2._IK_CHUNK + 17
    p = annulus(rng, n) * rng.uniform(0.5, 1.5, (n, 1))  # about a third out of reach
    p[:3] = [[0.0, -(L1 + L2)], [0.0, -(L1 - L2)], [L1 + L2, 0.0]]  # boundary targets (exactly reachable)
    res = LEG.ik(p, branch="all", on_unreachable="nan")
    ok = res.valid
    assert 0.2 < ok[:, 0].mean() < 0.9 and np.all(ok[:3])
    t1, t12 = res.q[..., 0], res.q[..., 0] + res.q[..., 1]
    fk = np.stack([L1 * np.sin(t1) + L2 * np.sin(t12), -L1 * np.cos(t1) - L2 * np.cos(t12)], axis=-1)
    err = np.linalg.norm(fk - p[:, None, :], axis=-1)
    assert np.all(np.abs(res.residual[ok] - err[ok]) <= 1e-15) and np.all(res.residual[ok] <= 1e-14)
    assert np.all(np.isnan(res.residual[~ok])) and np.all(np.isnan(res.q[~ok]))
    for i in (0, 1, 2, leg2._IK_CHUNK - 1, leg2._IK_CHUNK, n - 1):
        one = LEG.ik(p[i], branch="all", on_unreachable="nan")
        np.testing.assert_array_equal(one.q, res.q[i])
        np.testing.assert_array_equal(one.residual, res.residual[i])
        np.testing.assert_array_equal(one.valid, res.valid[i])
    single = LEG.ik(p[0], branch="knee-front")
    assert type(single.residual) is np.float64 and single.valid.shape == () and single.q.shape == (2,)


@pytest.mark.parametrize("branch", ["knee-back", "knee-front", "all"])
@pytest.mark.parametrize("mode", ["raise", "nan"])
def test_ik_always_returns_ikresult_with_fk_residual(branch, mode):
    p = annulus(np.random.default_rng(12), 50)
    res = LEG.ik(p, branch=branch, on_unreachable=mode)
    assert isinstance(res, IKResult) and res.iterations is None and res.reason is None
    pb = p[:, None, :] if branch == "all" else p
    np.testing.assert_array_equal(res.residual, np.linalg.norm(LEG.fk(res.q) - pb, axis=-1))
    assert np.all(res.residual < 1e-14)


def test_ik_boundary_targets_reachable():
    th = np.linspace(-3, 3, 101)
    stretched = LEG.fk(np.stack([th, 0 * th], -1))
    folded = LEG.fk(np.stack([th, np.pi + 0 * th], -1))
    for p in (stretched, folded):
        q = LEG.ik(p).q
        assert np.all(np.isfinite(q))
        assert np.max(np.linalg.norm(LEG.fk(q) - p, axis=-1)) < 1e-12


def test_ik_unreachable_raise_names_count_reason_first():
    p = np.array([[0.0, -0.3], [0.0, -0.5], [0.3, 0.4], [0.0, -0.01]])
    with pytest.raises(UnreachableError) as e:
        LEG.ik(p)
    err = e.value
    assert err.count == 3 and err.total == 4
    np.testing.assert_allclose(err.first, [0.0, -0.5])
    assert "distance > l1 + l2: 2" in err.reason and "distance < |l1 - l2|: 1" in err.reason


def test_ik_unreachable_nan_mode():
    p = np.array([[0.0, -0.3], [0.0, -0.5], [0.0, -0.01]])
    res = LEG.ik(p, on_unreachable="nan")
    q, ok = res.q, res.valid
    assert ok.tolist() == [True, False, False]
    assert np.all(np.isnan(q[~ok])) and np.all(np.isfinite(q[ok]))
    assert np.all(np.isnan(res.residual[~ok])) and res.residual[0] < 1e-15


def test_ik_joint_limits_reported():
    leg = TwoLinkLeg(L1, L2, q_min=[-1.0, 0.2], q_max=[1.0, 2.6])
    ok_target = leg.fk([0.3, 1.0])
    bad_hip = leg.fk([1.4, 1.0])  # reachable but theta1 above its limit
    bad_knee = leg.fk([0.0, 0.05])  # nearly straight: theta2 below 0.2
    with pytest.raises(UnreachableError, match="outside joint limits: 2") as e:
        leg.ik([ok_target, bad_hip, bad_knee])
    np.testing.assert_allclose(e.value.first, bad_hip)
    res = leg.ik([ok_target, bad_hip, bad_knee], on_unreachable="nan")
    assert res.valid.tolist() == [True, False, False]
    np.testing.assert_allclose(res.q[0], [0.3, 1.0], atol=1e-12)
    assert np.all(np.isnan(res.q[1:]))
    # the other branch has theta2 < 0, below q_min: every target fails there
    assert not leg.ik([ok_target], branch="knee-front", on_unreachable="nan").valid.any()
    assert leg.within_limits([[0.0, 1.0], [0.0, 3.0]]).tolist() == [True, False]


def test_ik_scalar_target_nan_mode_returns_0d_mask():
    res = LEG.ik([0.0, -0.3], on_unreachable="nan")
    assert res.q.shape == (2,) and res.valid.shape == () and bool(res.valid) and res.residual.shape == ()


# -- Jacobian and joint rates ------------------------------------------------------------------
def test_jacobian_vs_finite_differences_and_det():
    q = np.random.default_rng(5).uniform(-np.pi, np.pi, (500, 2))
    checks.check_jacobian(LEG.jacobian, LEG.fk, q, tol=1e-6)
    np.testing.assert_allclose(np.linalg.det(LEG.jacobian(q)), L1 * L2 * np.sin(q[:, 1]), atol=1e-15)


def test_joint_rates_matches_solve():
    rng = np.random.default_rng(6)
    q = np.stack([rng.uniform(-3, 3, 100), rng.uniform(0.3, 2.8, 100)], -1)
    v = rng.normal(size=(100, 2))
    qd = LEG.joint_rates(q, v)
    np.testing.assert_allclose(qd, np.linalg.solve(LEG.jacobian(q), v[..., None])[..., 0], rtol=1e-10)
    np.testing.assert_allclose((LEG.jacobian(q) @ qd[..., None])[..., 0], v, atol=1e-12)


def test_joint_rates_near_singularity_warns_and_grows():
    eps = np.array([1e-2, 1e-4, 1e-8])
    q = np.stack([0 * eps, eps], -1)
    with pytest.warns(SingularityWarning, match="condition number"):
        qd = LEG.joint_rates(q, [0.0, 0.1])  # straight down, pull the foot up
    mag = np.abs(qd).max(axis=-1)
    assert np.all(np.diff(mag) > 0) and mag[-1] > 1e5


def test_joint_rates_exact_singularity_nan_with_warning():
    with pytest.warns(SingularityWarning) as rec:
        qd = LEG.joint_rates([[0.0, 0.0], [0.0, 1.0]], [0.0, 0.1])
    assert math.isinf(rec[0].message.cond)
    assert np.all(np.isnan(qd[0])) and np.all(np.isfinite(qd[1]))


def test_joint_rates_no_warning_when_well_conditioned():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LEG.joint_rates([0.2, 1.5], [0.1, 0.0])


# -- property tests -----------------------------------------------------------------------------
@HYP
@given(
    l1=st.floats(0.01, 2.0),
    ratio=st.floats(0.1, 3.0),
    r=st.floats(0.0, 1.0),
    a=st.floats(-math.pi, math.pi),
    branch=st.sampled_from(["knee-back", "knee-front"]),
)
def test_property_fk_ik_residual(l1, ratio, r, a, branch):
    l2 = l1 * ratio
    leg = TwoLinkLeg(l1, l2)
    rad = math.sqrt((l1 - l2) ** 2 + r * ((l1 + l2) ** 2 - (l1 - l2) ** 2))
    p = np.array([rad * math.sin(a), -rad * math.cos(a)])
    res = leg.ik(p, branch=branch)
    q = res.q
    assert np.linalg.norm(leg.fk(q) - p) <= 1e-9 * (l1 + l2) and res.residual <= 1e-9 * (l1 + l2)
    assert -math.pi <= q[0] < math.pi and abs(q[1]) <= math.pi


@HYP
@given(
    t1=st.floats(-math.pi, math.pi),
    t2=st.floats(0.05, math.pi - 0.05),
    branch=st.sampled_from(["knee-back", "knee-front"]),
)
def test_property_ik_fk_recovers_q(t1, t2, branch):
    q = np.array([t1, SIGN[branch] * t2])
    back = LEG.ik(LEG.fk(q), branch=branch).q
    assert np.abs(wrap_to_pi(back - q)).max() < 1e-9


@HYP
@given(
    x=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-1, 1)),
    z=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.floats(-1, 1)),
)
def test_property_hostile_targets(x, z):
    """Documented errors only; never a silent NaN."""
    try:
        q = LEG.ik([x, z]).q
    except UnreachableError:
        assert math.isfinite(x) and math.isfinite(z)
        assert not (L1 - L2 <= math.hypot(x, z) <= L1 + L2)
        return
    except ValueError as e:
        if math.isfinite(x) and math.isfinite(z):
            assert max(abs(x), abs(z)) > MAX_ABS and "magnitude above" in str(e)
        else:
            assert "non-finite" in str(e)
        return
    assert np.all(np.isfinite(q))


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(l1=-0.1, l2=0.2),
        dict(l1=0.0, l2=0.2),
        dict(l1=float("nan"), l2=0.2),
        dict(l1=0.2, l2=float("inf")),
        dict(l1="0.2", l2=0.2),
        dict(l1=0.2, l2=0.2, q_min=[1.0, 0.0], q_max=[0.0, 1.0]),
        dict(l1=0.2, l2=0.2, q_min=[float("nan"), 0.0]),
        dict(l1=0.2, l2=0.2, q_min=[0.0, 0.0, 0.0]),
        dict(l1=0.2, l2=0.2, q_max=[4.0, 1.0]),
        dict(l1=0.2, l2=0.2, q_max=[[1.0, 1.0]]),
    ],
)
def test_bad_leg_parameters(kwargs):
    with pytest.raises(ValueError):
        TwoLinkLeg(**kwargs)


def test_leg_is_frozen_and_hashable():
    leg = TwoLinkLeg(0.2, 0.2, q_min=[-1, 0], q_max=[1, 2])
    with pytest.raises(AttributeError):
        leg.l1 = 0.3
    assert hash(leg) == hash(TwoLinkLeg(0.2, 0.2, q_min=(-1.0, 0.0), q_max=(1.0, 2.0)))


@pytest.mark.parametrize("bad", [[np.nan, -0.3], [np.inf, -0.3], [0.1, -0.2, 0.0], [[0.1], [0.2]], "x", 0.3])
@pytest.mark.parametrize("method", ["fk", "ik", "jacobian", "knee_position", "within_limits"])
def test_bad_arrays(method, bad):
    with pytest.raises(ValueError) as e:
        getattr(LEG, method)(bad)
    assert not isinstance(e.value, UnreachableError)


@pytest.mark.parametrize("branch", [1, -1, 0, True, "up", "Knee-back", None, ["knee-back"], ("knee-back",)])
def test_bad_branch(branch):
    with pytest.raises(ValueError, match="branch must be one of 'knee-back', 'knee-front', 'all'"):
        LEG.ik([[0.0, -0.3], [0.1, -0.3]], branch=branch)
    with pytest.raises(ValueError, match="branch"):
        CAL.command([0.0, -0.3], branch=branch)


def test_old_knee_keyword_is_gone():
    with pytest.raises(TypeError):
        LEG.ik([0.0, -0.3], knee=1)


def test_options_keyword_only():
    with pytest.raises(TypeError):
        LEG.ik([0.0, -0.3], -1)


@pytest.mark.parametrize("args", [([np.nan, 1.0], [0, 0]), ([0, 1.0], [np.inf, 0]), ([0, 1.0, 2], [0, 0])])
def test_joint_rates_bad_input(args):
    with pytest.raises(ValueError):
        LEG.joint_rates(*args)
    with pytest.raises(ValueError, match="cond_warn"):
        LEG.joint_rates([0, 1.0], [0, 0], cond_warn=-1)


# -- calibration --------------------------------------------------------------------------------
TRUE = TwoLinkLeg(L1, L2 + 0.005)
DELTA = np.array([0.03, -0.02])


def poses(rng, n):
    return rng.uniform([-1.0, 0.3], [1.0, 2.6], size=(n, 2))


_QC = np.random.default_rng(13).uniform([-1.0, 0.3], [1.0, 2.6], size=(20, 2))
CAL = calibrate(_QC, TRUE.fk(_QC + DELTA), guess=LEG)


def test_calibration_noise_free_exact():
    q = poses(np.random.default_rng(7), 40)
    cal = calibrate(q, TRUE.fk(q + DELTA), guess=LEG)
    np.testing.assert_allclose(cal.params, [L1, L2 + 0.005, *DELTA], atol=1e-10)
    assert cal.rms < 1e-12 and isinstance(cal, Calibration)


def test_calibration_noisy_within_uncertainty_and_compensates():
    rng = np.random.default_rng(8)
    sigma = 0.3e-3
    q = poses(rng, 60)
    p = TRUE.fk(q + DELTA) + rng.normal(0, sigma, (60, 2))
    cal = calibrate(q, p, guess=[L1, L2])
    truth = np.array([L1, L2 + 0.005, *DELTA])
    assert np.all(np.abs(cal.params - truth) < 4 * cal.std)
    assert 0.7 * sigma < cal.noise < 1.3 * sigma
    # compensation: command encoder angles for new targets, check with the TRUE leg
    targets = np.array([[0.05, -0.3], [-0.1, -0.28], [0.12, -0.25]])
    cmd = cal.command(targets)
    assert isinstance(cmd, IKResult) and cmd.branch == "knee-back" and cmd.valid.all()
    err_after = np.linalg.norm(TRUE.fk(cmd.q + DELTA) - targets, axis=-1)
    err_before = np.linalg.norm(TRUE.fk(LEG.ik(targets).q + DELTA) - targets, axis=-1)
    assert err_after.max() < 1e-3 < err_before.min()
    # residual: the identified leg's FK at the joint angles (encoder + offset) against the target
    np.testing.assert_allclose(cmd.residual, np.linalg.norm(cal.predict(cmd.q) - targets, axis=-1), atol=1e-15)
    bad = cal.command([[0.0, -0.9]], on_unreachable="nan")
    assert not bad.valid[0] and np.all(np.isnan(bad.q)) and np.isnan(bad.residual[0])
    with pytest.raises(UnreachableError):
        cal.command([[0.0, -0.9]])
    both = cal.command(targets, branch="all")
    assert both.q.shape == (3, 2, 2) and both.branch == ("knee-back", "knee-front")
    np.testing.assert_allclose(both.q[:, 0], cmd.q)
    np.testing.assert_allclose(cal.predict(both.q[:, 1]), targets, atol=1e-12)
    np.testing.assert_allclose(cal.predict(q), TRUE.fk(q + DELTA), atol=5 * sigma)


def test_calibration_std_matches_monte_carlo():
    rng = np.random.default_rng(9)
    sigma = 1e-3
    q = poses(rng, 30)
    p0 = TRUE.fk(q + DELTA)
    est, stds = [], []
    for _ in range(60):
        cal = calibrate(q, p0 + rng.normal(0, sigma, p0.shape), guess=LEG)
        est.append(cal.params)
        stds.append(cal.std)
    ratio = np.std(est, axis=0) / np.mean(stds, axis=0)
    assert np.all((ratio > 0.6) & (ratio < 1.5)), ratio


def test_calibration_jacobian_vs_finite_differences():
    from robokin.leg2 import _calib_jac, _calib_residual

    q = poses(np.random.default_rng(10), 5)
    p = TRUE.fk(q)
    x = np.array([0.2, 0.2, 0.01, -0.02])
    checks.check_jacobian(lambda x: _calib_jac(x, q, p), lambda x: _calib_residual(x, q, p), x, vectorized=False)


@pytest.mark.parametrize(
    "q, p, guess, match",
    [
        (np.zeros((2, 2)), np.zeros((2, 2)), LEG, "at least 3"),
        (np.zeros((5, 2)), np.zeros((4, 2)), LEG, "shape"),
        (np.tile([0.2, 1.0], (10, 1)), np.tile([0.1, -0.3], (10, 1)), LEG, "do not separate"),
        (np.ones((5, 2)), np.full((5, 2), np.nan), LEG, "non-finite"),
        (np.ones((5, 2)), np.ones((5, 2)), [0.2, -0.1], "positive"),
        (np.ones((5, 2)), np.ones((5, 2)), [0.2, 0.2, 0.1], "guess"),
        (np.ones((5, 3)), np.ones((5, 3)), LEG, "shape"),
    ],
)
def test_calibration_bad_input(q, p, guess, match):
    with pytest.raises(ValueError, match=match):
        calibrate(q, p, guess=guess)


# -- gait ---------------------------------------------------------------------------------------
P, DUTY, V, H = 0.4, 0.5, 0.5, 0.06


def test_trot_diagonal_pairs():
    ph = gait_phase(np.linspace(0, 2, 101), period=P)
    fl, fr, rl, rr = ph.T
    np.testing.assert_allclose(fl, rr)
    np.testing.assert_allclose(fr, rl)
    np.testing.assert_allclose(np.mod(fl - fr, 1.0), 0.5)
    stance, _ = gait_state(ph, duty=DUTY)
    # a trot with duty 0.5: exactly one diagonal pair on the ground at every instant
    assert np.all(stance[:, 0] == stance[:, 3]) and np.all(stance[:, 0] != stance[:, 1])
    assert TROT == (0.0, 0.5, 0.5, 0.0)


def test_gait_state_machine_transitions():
    ph = np.linspace(0, 1, 1000, endpoint=False)
    stance, s = gait_state(ph, duty=0.75)
    assert np.all(stance[ph < 0.75]) and not np.any(stance[ph >= 0.75])
    assert np.count_nonzero(np.diff(stance.astype(int)) != 0) == 1  # one lift-off per cycle
    assert np.all((s >= 0) & (s < 1))


def _hip_path(n=4001):
    t = np.linspace(0, P, n)
    ph = gait_phase(t, period=P, offsets=[0.0])[:, 0]
    return t, ph, foot_offset(ph, duty=DUTY, period=P, v_body=V, height=H)


def test_foot_path_continuous_and_touchdown_velocity_zero_in_world():
    t, ph, p = _hip_path()
    dt = t[1] - t[0]
    step = np.linalg.norm(np.diff(p, axis=0), axis=-1)
    assert step.max() < 3 * V * dt  # no jumps at lift-off / touchdown
    v_hip = np.gradient(p, dt, axis=0)
    v_world = v_hip + [V, 0.0]
    stance = ph < DUTY
    inner = stance & (ph > 0.01) & (ph < DUTY - 0.01)
    np.testing.assert_allclose(v_hip[inner], np.tile([-V, 0.0], (inner.sum(), 1)), atol=1e-9)
    # one-sided differences at lift-off (phase = duty) and touchdown (phase -> 1): ground-relative velocity 0
    eps = 1e-7
    for ph0, ph1 in ((DUTY, DUTY + eps), (1 - 2 * eps, 1 - eps)):
        a, b = foot_offset([ph0, ph1], duty=DUTY, period=P, v_body=V, height=H)
        v_world = (b - a) / (eps * P) + [V, 0.0]
        assert np.abs(v_world).max() < 1e-4 * V
    assert p[:, 1].max() == pytest.approx(H, rel=1e-4)
    assert p[:, 1].min() >= 0


def test_foot_targets_one_ik_call():
    leg = TwoLinkLeg(0.2, 0.2, q_min=[-1.5, 0.1], q_max=[1.5, 2.8])
    p, stance = foot_targets(np.linspace(0, P, 50), neutral=[0.0, -0.3], period=P, v_body=V, height=H)
    assert p.shape == (50, 4, 2) and stance.shape == (50, 4)
    q = leg.ik(p, branch="knee-back").q
    assert q.shape == (50, 4, 2)
    np.testing.assert_allclose(leg.fk(q), p, atol=1e-12)
    p2, _ = foot_targets(0.1, neutral=np.tile([0.0, -0.3], (4, 1)), period=P, v_body=V, height=H)
    assert p2.shape == (4, 2)


@pytest.mark.parametrize(
    "call",
    [
        lambda: gait_phase([0.0], period=0.0),
        lambda: gait_phase([np.nan], period=0.4),
        lambda: gait_phase([0.0], period=0.4, offsets=[[0.0, 0.5]]),
        lambda: gait_state([0.2], duty=1.0),
        lambda: gait_state([0.2], duty=0.0),
        lambda: gait_state([1.2], duty=0.5),
        lambda: gait_state([-0.1], duty=0.5),
        lambda: gait_state([0.2], duty="half"),
        lambda: foot_offset([0.2], duty=0.5, period=0.4, v_body=np.nan, height=0.05),
        lambda: foot_offset([0.2], duty=0.5, period=-0.4, v_body=0.5, height=0.05),
        lambda: foot_offset([[0.2, 0.3]], duty=0.5, period=0.4, v_body=0.5, height=np.inf),
        lambda: foot_targets([0.1], neutral=[0.0, -0.3, 0.0], period=0.4, v_body=0.5, height=0.05),
        lambda: foot_targets([0.1], neutral=np.zeros((3, 2)), period=0.4, v_body=0.5, height=0.05),
    ],
)
def test_gait_bad_input(call):
    with pytest.raises(ValueError):
        call()


# -- validation report and peers ----------------------------------------------------------------
def test_validate_passes():
    reps = validate(fast=True)
    assert len(reps) >= 5 and all(r.passed for r in reps)
    assert all(r.samples > 0 for r in reps)


def test_peer_roboticstoolbox_planar_arm():
    rtb = pytest.importorskip("roboticstoolbox")
    # robokin measures theta1 from the downward vertical in the x-z plane; a planar DH arm measures
    # from its x axis in its x-y plane. Map: x_robokin = y_dh, z_robokin = -x_dh.
    arm = rtb.DHRobot([rtb.RevoluteDH(a=L1), rtb.RevoluteDH(a=L2)])
    q = np.random.default_rng(11).uniform(-np.pi, np.pi, (20, 2))
    for qi in q:
        T = arm.fkine(qi).A
        np.testing.assert_allclose(LEG.fk(qi), [T[1, 3], -T[0, 3]], atol=1e-14)


# -- issue 16: exact edges, units ---------------------------------------------------------------
@pytest.mark.parametrize("rel", [1e-9, 1e-7, 1e-4])
def test_ik_reach_slack_is_round_off_only(rel):
    """Just outside l1 + l2 (or inside |l1 - l2|) is unreachable: the slack on cos(theta2) is 1e-12, not more."""
    far = np.array([0.0, -(L1 + L2) * (1 + rel)])
    near = np.array([0.0, -(L1 - L2) * (1 - rel)])
    for p, why in ((far, "distance > l1 \\+ l2"), (near, "distance < \\|l1 - l2\\|")):
        with pytest.raises(UnreachableError, match=why):
            LEG.ik(p)
        res = LEG.ik(p, on_unreachable="nan")
        assert not res.valid and np.all(np.isnan(res.q)) and np.isnan(res.residual)


def test_ik_reach_slack_accepts_round_off_beyond_the_boundary():
    # 1 - c2 = -2 rel (l1 + l2)^2 / (2 l1 l2) for a target rel outside: rel = 1e-14 is inside the 1e-12 slack
    p = np.array([0.0, -(L1 + L2) * (1 + 1e-14)])
    q = LEG.ik(p).q
    np.testing.assert_allclose(q, [0.0, 0.0], atol=1e-6)


def test_joint_rates_warning_reports_the_true_condition_number():
    """The 2x2 condition number from det and Frobenius norm equals np.linalg.cond (a sqrt slip squares it)."""
    rng = np.random.default_rng(8)
    q = np.stack([rng.uniform(-np.pi, np.pi, 50), rng.uniform(0.05, 3.0, 50)], -1)
    ref = np.linalg.cond(LEG.jacobian(q))
    for i in range(0, 50, 7):
        with pytest.warns(SingularityWarning) as rec:
            LEG.joint_rates(q[i], [0.1, 0.0], cond_warn=1.0 + 1e-9)
        assert rec[0].message.cond == pytest.approx(ref[i], rel=1e-9)
    with pytest.warns(SingularityWarning) as rec:
        LEG.joint_rates(q, [0.1, 0.0], cond_warn=1.0 + 1e-9)
    assert rec[0].message.cond == pytest.approx(ref.max(), rel=1e-9)


def test_joint_rates_warns_strictly_above_cond_warn():
    q = np.array([0.3, 0.5])
    c = float(np.linalg.cond(LEG.jacobian(q)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LEG.joint_rates(q, [0.1, 0.0], cond_warn=c * (1 + 1e-9))
    with pytest.warns(SingularityWarning):
        LEG.joint_rates(q, [0.1, 0.0], cond_warn=c * (1 - 1e-9))
    LEG.joint_rates(q, [0.1, 0.0], cond_warn=1e15)  # large thresholds are legitimate
    with pytest.raises(ValueError):
        LEG.joint_rates(q, [0.1, 0.0], cond_warn=1e300)


def _cal_data(n=20, seed=0, true=TwoLinkLeg(0.2, 0.21), delta=(0.02, -0.01)):
    q = np.random.default_rng(seed).uniform([-1, 0.3], [1, 2.5], size=(n, 2))
    return q, true.fk(q + delta)


def test_calibration_in_degrees_is_flagged():
    q, p = _cal_data()
    with pytest.raises(ValueError, match=r"reaches \d+.\d+ rad .*degrees.*np.deg2rad"):
        calibrate(np.rad2deg(q), p, guess=TwoLinkLeg(0.2, 0.2))
    # exactly one full turn is still a valid encoder reading (multi-turn offsets aside)
    q2 = q.copy()
    q2[0, 0] = 2 * np.pi
    calibrate(q2, TwoLinkLeg(0.2, 0.21).fk(q2 + [0.02, -0.01]), guess=TwoLinkLeg(0.2, 0.2))


def test_calibration_negative_lengths_are_refused():
    """Measurements in the wrong frame (both axes flipped) fit exactly with l1, l2 < 0: before, returned as is."""
    q, p = _cal_data()
    with pytest.raises(ValueError, match=r"non-positive link lengths l1 = -0.2 m, l2 = -0.21 m.*radians"):
        calibrate(q, -p, guess=TwoLinkLeg(0.2, 0.2))


def test_calibration_small_degree_angles_hint():
    """Degrees within +-2 pi look like radians; a fit that then fails says so."""
    q, p = _cal_data()
    qd = np.rad2deg(q) / 30.0  # |q| up to ~4.8: inside one turn, but not the true angles
    with pytest.raises(ValueError, match="small angles in degrees"):
        calibrate(qd, -p, guess=TwoLinkLeg(0.2, 0.2))


@pytest.mark.parametrize("branch", [1 + 0j, 1j, np.array(["knee-back", "knee-front"]), np.str_("x"), b"knee-back"])
def test_branch_non_string_rejected(branch):
    with pytest.raises(ValueError, match="branch"):
        LEG.ik([[0.1, -0.3], [0.1, -0.3]], branch=branch)


def test_joint_limit_slack_is_round_off_only():
    leg = TwoLinkLeg(L1, L2, q_min=[-1.0, 0.0], q_max=[1.0, 2.5])
    assert leg.within_limits([[1.0 + 1e-13, 1.0], [1.0, 2.5 + 1e-13]]).all()
    assert not leg.within_limits([[1.0 + 1e-9, 1.0]]).any() and not leg.within_limits([[0.0, -1e-9]]).any()
    p = leg.fk([1.0 + 1e-9, 1.0])
    with pytest.raises(UnreachableError, match="outside joint limits"):
        leg.ik(p)


def test_calibration_noise_uses_2n_minus_4_degrees_of_freedom():
    q, p = _cal_data(n=9, seed=4)
    p = p + np.random.default_rng(9).normal(0, 1e-4, p.shape)
    cal = calibrate(q, p, guess=TwoLinkLeg(0.2, 0.2))
    # rms^2 = SSR / N and noise^2 = SSR / (2N - 4): their ratio is exact
    assert cal.noise**2 * (2 * 9 - 4) == pytest.approx(cal.rms**2 * 9, rel=1e-12)
    assert cal.n_points == 9


def test_no_validation_in_the_mechanism_module():
    import robokin.leg2 as leg2

    for gone in ("validate", "_knee_array"):
        assert not hasattr(leg2, gone), gone


# -- command stream: ik_track ------------------------------------------------------------------
def _arc(n=60, th2=1.2, lo=-0.4, hi=0.4):
    """Foot targets along an arc swept by the hip at a fixed knee angle (knee-back)."""
    q = np.stack([np.linspace(lo, hi, n), np.full(n, th2)], axis=-1)
    return LEG.fk(q), q


@pytest.mark.parametrize("method", ["lm", "hybr"])
def test_ik_track_warm_start_matches_closed_form(method):
    p, q = _arc()
    res = ik_track(LEG, p, q0=[0.0, 1.0], method=method)
    assert isinstance(res, IKResult) and res.branch == "seeded"
    assert res.valid.all() and (res.reason == "converged").all()
    np.testing.assert_allclose(res.q, LEG.ik(p).q, atol=1e-10)
    assert res.residual.max() <= 1e-9 and res.iterations.dtype.kind == "i" and res.iterations.min() >= 1


def test_ik_track_cold_start_flips_branch_where_warm_start_does_not():
    """Near full stretch, behind the hip, hybr from the standing pose lands on the knee-front branch."""
    q_stand = LEG.ik([0.0, -0.31]).q
    target = 0.39 * np.array([np.sin(-0.8), -np.cos(-0.8)])
    cold = ik_track(LEG, target[None], q0=q_stand, method="hybr", warm_start=False)
    assert cold.valid[0] and cold.q[0, 1] < 0  # reaches the foot, on the other branch
    # warm start along a path from the standing pose to that target stays on knee-back
    path = np.linspace([0.0, -0.31], target, 80)
    warm = ik_track(LEG, path, q0=q_stand, method="hybr")
    assert warm.valid.all() and (warm.q[:, 1] > 0).all()
    np.testing.assert_allclose(warm.q, LEG.ik(path).q, atol=1e-9)


def test_ik_track_warm_start_uses_fewer_evaluations_than_a_far_cold_start():
    p, _ = _arc(th2=1.0, lo=-0.8, hi=0.8)
    warm = ik_track(LEG, p, q0=LEG.ik(p[0]).q)
    cold = ik_track(LEG, p, q0=LEG.ik(p[0]).q, warm_start=False)
    assert warm.iterations.sum() < cold.iterations.sum()


def test_ik_track_reports_limits_and_foot_error():
    leg = TwoLinkLeg(L1, L2, q_min=[-1.0, 0.3], q_max=[1.0, 2.7])
    p = leg.fk(np.array([[0.0, 1.0], [1.1, 1.0]]))  # the second solution is beyond the hip limit
    res = ik_track(leg, p, q0=[0.0, 1.0])
    assert res.valid.tolist() == [True, False]
    assert res.reason.tolist() == ["converged", "outside joint limits"]
    far = ik_track(LEG, [[0.0, -0.5]], q0=[0.0, 1.0])  # out of reach: the solver cannot close the gap
    assert not far.valid[0] and far.reason[0] == "foot error above tol" and far.residual[0] > 0.09
    tight = ik_track(LEG, [[0.1, -0.3]], q0=[0.0, 1.0], max_nfev=1)  # one evaluation cannot converge
    assert not tight.valid[0] and tight.reason[0] == "foot error above tol"


@HYP
@given(
    t1=st.floats(-1.0, 1.0),
    t2=st.floats(0.3, 2.7),
    d1=st.floats(-0.2, 0.2),
    d2=st.floats(-0.2, 0.2),
    method=st.sampled_from(["lm", "hybr"]),
)
def test_ik_track_property_warm_start_follows_the_branch(t1, t2, d1, d2, method):
    """Short knee-back paths away from the singularity: the warm start tracks the closed form."""
    q = np.linspace([t1, t2], [t1 + d1, float(np.clip(t2 + d2, 0.3, 2.7))], 25)
    p = LEG.fk(q)
    res = ik_track(LEG, p, q0=q[0], method=method)
    assert res.valid.all()
    np.testing.assert_allclose(wrap_to_pi(res.q - q), 0.0, atol=1e-8)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(leg="leg"), "TwoLinkLeg"),
        (dict(p=[0.1, -0.3]), "shape"),
        (dict(p=np.zeros((0, 2))), "N >= 1"),
        (dict(p=[[0.1, np.nan]]), "non-finite"),
        (dict(q0=[0.0, 1.0, 0.0]), "shape"),
        (dict(q0=[[0.0, 1.0]]), "q0"),
        (dict(method="newton"), "method"),
        (dict(tol=0.0), "tol"),
        (dict(tol=np.nan), "tol"),
        (dict(max_nfev=0), "max_nfev"),
        (dict(max_nfev=2.0), "max_nfev"),
        (dict(max_nfev=10**300), "max_nfev"),
        (dict(warm_start="yes"), "warm_start"),
    ],
)
def test_ik_track_bad_input(kw, match):
    args = dict(leg=LEG, p=[[0.1, -0.3]], q0=[0.0, 1.0])
    args.update(kw)
    leg, p = args.pop("leg"), args.pop("p")
    with pytest.raises(ValueError, match=match):
        ik_track(leg, p, **args)


# -- command stream: smooth_joint_path -----------------------------------------------------------
def test_smooth_joint_path_keeps_a_cubic_and_checks_the_foot():
    s = np.linspace(0, 1, 41)[:, None]
    q = np.hstack([-0.5 + s - 0.8 * s**3, 1.0 + 0.5 * s**2])  # cubic in time: Savitzky-Golay degree 3 keeps it
    qs, rep = smooth_joint_path(LEG, q, p=LEG.fk(q), window=11, tol=1e-12)
    np.testing.assert_allclose(qs, q, atol=1e-12)
    assert rep.passed and rep.samples == 41 and rep.unit == "m"


def test_smooth_joint_path_unwraps_across_pi():
    """A joint passing through +-pi: smoothing the wrapped numbers would average pi and -pi to 0."""
    q1 = np.linspace(2.9, 3.4, 31)
    q = np.stack([wrap_to_pi(q1), np.full(31, 1.0)], axis=-1)
    qs, rep = smooth_joint_path(LEG, q, p=LEG.fk(q), window=7, tol=1e-12)
    np.testing.assert_allclose(wrap_to_pi(qs - q), 0.0, atol=1e-12)
    assert rep.passed and np.all((qs >= -np.pi) & (qs < np.pi))


def test_smooth_joint_path_flags_a_branch_flip():
    """Averaging through a branch flip moves the foot: the check fails, and raises by default."""
    p, _ = _arc(n=41)
    q = LEG.ik(p).q
    q[20] = LEG.ik(p[20], branch="knee-front").q  # one frame on the other branch: same foot, other angles
    assert np.linalg.norm(LEG.fk(q) - p, axis=-1).max() < 1e-12
    qs, rep = smooth_joint_path(LEG, q, p=p, window=9, tol=1e-3, raise_on_fail=False)
    assert not rep.passed and rep.max_error > 1e-2 and 15 <= rep.worst[0] <= 25
    with pytest.raises(checks.CheckFailed):
        smooth_joint_path(LEG, q, p=p, window=9, tol=1e-3)


def test_smooth_joint_path_batch_axes():
    p, q = _arc(n=31)
    qb, pb = np.stack([q, q + [0.1, 0.0]], axis=1), np.stack([p, LEG.fk(q + [0.1, 0.0])], axis=1)
    qs, rep = smooth_joint_path(LEG, qb, p=pb, window=5, tol=1e-9)
    assert qs.shape == (31, 2, 2) and rep.samples == 62
    np.testing.assert_allclose(qs[:, 0], smooth_joint_path(LEG, q, p=p, window=5, tol=1e-9)[0])


@HYP
@given(
    a=st.lists(st.floats(-2.0, 2.0), min_size=4, max_size=4),
    b=st.lists(st.floats(-2.0, 2.0), min_size=4, max_size=4),
    window=st.sampled_from([5, 7, 9, 15]),
)
def test_smooth_joint_path_property_polynomials_pass(a, b, window):
    """Any polynomial of degree <= polyorder is unchanged (up to wrapping)."""
    s = np.linspace(-1, 1, 31)
    q = np.stack([np.polyval(a, s), np.polyval(b, s)], axis=-1)
    qs, rep = smooth_joint_path(LEG, q, p=LEG.fk(q), window=window, tol=1e-9)
    np.testing.assert_allclose(wrap_to_pi(qs - q), 0.0, atol=1e-9)
    assert rep.passed


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(leg=None), "TwoLinkLeg"),
        (dict(window=10), "odd"),
        (dict(window=41), "odd"),
        (dict(window=3, polyorder=3), "polyorder"),
        (dict(window=2.0), "window"),
        (dict(polyorder=-1), "polyorder"),
        (dict(p=np.zeros((20, 2))), "shape"),
        (dict(q=np.zeros(2), p=np.zeros(2)), "shape"),
        (dict(q=np.full((21, 2), np.nan)), "non-finite"),
        (dict(tol=-1.0), "tol"),
    ],
)
def test_smooth_joint_path_bad_input(kw, match):
    q = np.zeros((21, 2)) + [0.0, 1.0]
    args = dict(leg=LEG, q=q, p=LEG.fk(q), window=5, tol=1e-3)
    args.update(kw)
    leg, q = args.pop("leg"), args.pop("q")
    with pytest.raises(ValueError, match=match):
        smooth_joint_path(leg, q, **args)


# -- command stream: hold_commands ---------------------------------------------------------------
def test_hold_commands_on_time_is_a_zero_order_hold():
    q_cmd = np.stack([np.arange(10.0) / 10, np.ones(10)], axis=-1)
    t = np.linspace(0, 0.0999, 333)
    q, age = hold_commands(q_cmd, dt=0.01, lateness=np.zeros(10), t=t)
    k = np.floor(t / 0.01 + 1e-9).astype(int)
    np.testing.assert_array_equal(q, q_cmd[k])
    np.testing.assert_allclose(age, t - 0.01 * k, atol=1e-15)
    assert age.max() < 0.01


def test_hold_commands_late_and_missed_ticks():
    q_cmd = np.stack([np.arange(5.0), np.zeros(5)], axis=-1)
    late = np.array([0.0, 0.003, 0.012, 0.0, 0.0])  # tick 2 later than the 10 ms deadline: dropped
    q, age = hold_commands(q_cmd, dt=0.01, lateness=late, t=[0.011, 0.0135, 0.025, 0.0301])
    assert q[:, 0].tolist() == [0.0, 1.0, 1.0, 3.0]
    np.testing.assert_allclose(age, [0.011, 0.0035, 0.015, 0.0001], atol=1e-15)
    q2, _ = hold_commands(q_cmd, dt=0.01, lateness=late, t=[0.025], deadline=0.002)  # tick 1 dropped too
    assert q2[0, 0] == 0.0


def test_hold_commands_batch_of_draws_equals_single_calls():
    rng = np.random.default_rng(3)
    q_cmd = rng.uniform(-1, 1, (20, 2))
    late = rng.uniform(0, 0.012, (3, 20))
    t = np.linspace(0, 0.25, 101)
    q, age = hold_commands(q_cmd, dt=0.01, lateness=late, t=t)
    assert q.shape == (3, 101, 2) and age.shape == (3, 101)
    for r in range(3):
        qr, ar = hold_commands(q_cmd, dt=0.01, lateness=late[r], t=t)
        np.testing.assert_array_equal(q[r], qr)
        np.testing.assert_array_equal(age[r], ar)


@HYP
@given(seed=st.integers(0, 2**32 - 1), miss=st.floats(0.0, 0.5), frac=st.floats(0.1, 1.0))
def test_hold_commands_property_age_bound_and_foot_bound(seed, miss, frac):
    """age <= (1 + longest run of missed ticks) dt + largest applied delay, and the foot of a
    constant-speed line misses its target by exactly speed x age."""
    rng = np.random.default_rng(seed)
    n, dt = 60, 0.002
    deadline = frac * dt
    late = np.where(rng.random(n) < miss, deadline * 1.5, rng.uniform(0, deadline, n))
    speed = 0.8

    def p_of(tt):
        return np.stack([-0.1 + speed * tt, np.full_like(tt, -0.3)], axis=-1)

    q_cmd = LEG.ik(p_of(np.arange(n) * dt)).q
    t = np.linspace(0, (n - 1) * dt, 997)
    q, age = hold_commands(q_cmd, dt=dt, lateness=late, t=t, deadline=deadline)
    missed = late > deadline
    run = longest = 0
    for m in missed[1:]:
        run = run + 1 if m else 0
        longest = max(longest, run)
    applied = late[1:][~missed[1:]]
    worst = (1 + longest) * dt + (applied.max() if applied.size else 0.0)
    assert np.all(age >= 0) and age.max() <= worst + 1e-12
    dev = np.linalg.norm(LEG.fk(q) - p_of(t), axis=-1)
    np.testing.assert_allclose(dev, speed * age, atol=1e-12)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(q_cmd=np.zeros((4, 3))), "shape"),
        (dict(q_cmd=np.zeros(2)), "q_cmd"),
        (dict(dt=0.0), "dt"),
        (dict(deadline=0.02), "deadline"),
        (dict(deadline=-0.001), "deadline"),
        (dict(lateness=np.zeros(3)), "lateness"),
        (dict(lateness=[0.0, -0.001, 0.0, 0.0]), "lateness"),
        (dict(lateness=[0.0, np.inf, 0.0, 0.0]), "non-finite"),
        (dict(t=[-0.01]), "t must be"),
        (dict(t=[np.nan]), "non-finite"),
    ],
)
def test_hold_commands_bad_input(kw, match):
    args = dict(q_cmd=np.zeros((4, 2)), dt=0.01, lateness=np.zeros(4), t=[0.015])
    args.update(kw)
    q_cmd = args.pop("q_cmd")
    with pytest.raises(ValueError, match=match):
        hold_commands(q_cmd, **args)


# ------------------------------------------------------------------ issue 29: numpy scalar options at the boundary
def test_float32_duty_gives_the_float64_answer():
    from robokin.leg2 import foot_offset, foot_targets

    ph = np.linspace(0, 1, 17, endpoint=False)
    kw = dict(period=0.4, v_body=0.5, height=0.05)
    a = foot_offset(ph, duty=np.float32(0.5), **kw)
    b = foot_offset(ph, duty=0.5, **kw)
    np.testing.assert_array_equal(a, b)  # differed before: half = 0.5 v duty period was computed in float32
    assert a.dtype == np.float64
    c, _ = foot_targets(0.1, neutral=np.array([0.0, -0.3]), duty=np.float32(0.5), **kw)
    d, _ = foot_targets(0.1, neutral=np.array([0.0, -0.3]), duty=0.5, **kw)
    np.testing.assert_array_equal(c, d)


def test_condition_thresholds_are_bounded_and_float32_safe():
    q = np.array([0.0, 1.5])
    LEG.joint_rates(q, [0.1, 0.0], cond_warn=np.float32(1e6))  # overflow warning (an error here) before
    with pytest.raises(ValueError, match="cond_warn must be at most 1e\\+16"):
        LEG.joint_rates(q, [0.1, 0.0], cond_warn=10**30)
    qc, pc = _cal_data()
    with pytest.raises(ValueError, match="cond_max"):
        calibrate(qc, pc, guess=LEG, cond_max=1e17)
    calibrate(qc, pc, guess=LEG, cond_max=np.float32(1e8))


def test_hold_commands_lateness_messages_name_q_cmd_rows():
    with pytest.raises(ValueError, match="lateness .*one lateness per row of q_cmd"):
        hold_commands(np.zeros((3, 2)), dt=0.01, lateness=np.zeros(4), t=0.0)
    with pytest.raises(ValueError, match="lateness must have shape"):
        hold_commands(np.zeros((3, 2)), dt=0.01, lateness=np.zeros((0, 3)), t=0.0)
