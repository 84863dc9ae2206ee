"""Tests for robokin.mecanum (chapter 8)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.errors import SingularityWarning, UnreachableError
from robokin.mecanum import (
    WHEELS,
    Mecanum,
    fit_pwm,
    fuse_heading,
    integrate_twist,
    odometry,
    pwm_model,
    reorder_wheels,
)
from robokin.results import IKResult
from robokin.robots import CHASSIS
from robokin.transforms import se3_exp, wrap_to_pi
from robokin.validation.mecanum import validate

CAR = CHASSIS  # the chapter 8 chassis, Mecanum(0.076, 0.21, 0.18)
finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False)
twists = st.tuples(finite, finite, finite).map(np.array)


# ------------------------------------------------------------------ wheel map
def test_textbook_matrix():
    # Taheri et al. 2015, eq. for wheel order FL, FR, RL, RR with 45 degree rollers
    r, lx, ly = 0.05, 0.3, 0.2
    L = lx + ly
    M = np.array([[1, -1, -L], [1, 1, L], [1, 1, -L], [1, -1, L]]) / r
    np.testing.assert_allclose(Mecanum(r, lx, ly).matrix, M, rtol=0, atol=1e-12)


def test_physical_signs():
    w = CAR.ik(np.eye(3)).q
    assert np.all(w[0] > 0)  # forward: every wheel forward
    np.testing.assert_array_equal(np.sign(w[1]), [-1, 1, 1, -1])  # left strafe: FL, RR backwards
    np.testing.assert_array_equal(np.sign(w[2]), [-1, 1, -1, 1])  # CCW spin: left side backwards
    assert CAR.sign_tests().ok


def test_rolling_constraint_any_roller_angle():
    rng = np.random.default_rng(1)
    for a in (0.3, np.pi / 4, 1.2):
        for cfg in ("X", "O"):
            car = Mecanum(0.06, 0.25, 0.17, roller_angle=a, config=cfg)
            t = rng.normal(size=(200, 3))
            w = car.ik(t).q
            p, ax = car.contact_points, car.roller_axes
            vc = np.stack([t[:, None, 0] - t[:, None, 2] * p[:, 1], t[:, None, 1] + t[:, None, 2] * p[:, 0]], -1)
            # velocity of the contact point along the roller axis is what the wheel drives
            lhs = np.einsum("nik,ik->ni", vc, ax)
            np.testing.assert_allclose(lhs, car.r * w * ax[:, 0], atol=1e-12)


def test_o_config_is_mirror_and_singular_when_square():
    x, o = Mecanum(0.05, 0.2, 0.15).matrix, Mecanum(0.05, 0.2, 0.15, config="O").matrix
    np.testing.assert_allclose(o[:, :2], x[:, :2] * [1, -1])
    np.testing.assert_allclose(np.abs(o[:, 2]) * 0.05, 0.05, atol=1e-12)  # |lx - ly| instead of lx + ly
    sq = Mecanum(0.05, 0.2, 0.2, config="O")
    assert sq.cond > 1e8
    np.testing.assert_allclose(sq.matrix[:, 2], 0, atol=1e-15)  # it cannot spin
    with pytest.warns(SingularityWarning):
        sq.fk([1.0, 1.0, 1.0, 1.0])


def test_clockwise_numbering():
    cw = ("FL", "FR", "RR", "RL")
    Mcw = reorder_wheels(CAR.matrix, cw)
    t = np.array([0.3, -0.4, 0.7])
    np.testing.assert_allclose(Mcw @ t, reorder_wheels(CAR.ik(t).q, cw))
    np.testing.assert_allclose(reorder_wheels(reorder_wheels(Mcw, WHEELS, source=cw), cw), Mcw)
    assert not np.allclose(Mcw, CAR.matrix)


@settings(deadline=None)
@given(twists)
def test_roundtrip_and_zero_residual(t):
    w = CAR.ik(t).q
    np.testing.assert_allclose(CAR.fk(w), t, atol=1e-12)
    assert abs(CAR.inconsistency(w)) <= 1e-12 * (1 + np.abs(w).max())


@settings(deadline=None)
@given(st.tuples(finite, finite, finite, finite).map(np.array))
def test_least_squares_properties(w):
    t = CAR.fk(w)
    res = CAR.residual(w)
    # normal equations: residual orthogonal to the columns of M
    np.testing.assert_allclose(CAR.matrix.T @ res, 0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(res), abs(CAR.inconsistency(w)), atol=1e-12)
    # no other twist fits better
    t_ls = np.linalg.lstsq(CAR.matrix, w, rcond=None)[0]
    np.testing.assert_allclose(t, t_ls, atol=1e-10)


def test_inconsistency_formula_x_layout():
    w = np.array([3.0, -1.0, 2.0, 5.0])
    assert np.isclose(CAR.inconsistency(w), (w[0] + w[1] - w[2] - w[3]) / 2)


def test_batch_shapes():
    t = np.zeros((2, 5, 3))
    assert CAR.ik(t).q.shape == (2, 5, 4)
    assert CAR.fk(np.zeros((7, 4))).shape == (7, 3)
    assert CAR.inconsistency(np.zeros((2, 3, 4))).shape == (2, 3)
    assert CAR.residual(np.zeros((3, 4))).shape == (3, 4)


# ------------------------------------------------------------------ mechanism protocol (book/conventions.md)
def test_protocol_names_replace_twist_and_wheel_speeds():
    # names, defaults and keyword-only options are checked for every mechanism in tests/test_contract.py
    assert Mecanum.branches == ("unique",)
    assert "twist" not in vars(Mecanum) and "wheel_speeds" not in vars(Mecanum)  # replaced by fk / ik


@settings(deadline=None)
@given(st.lists(twists, min_size=1, max_size=6).map(np.array))
def test_fk_of_ik_is_the_twist(t):
    res = CAR.ik(t)
    assert isinstance(res, IKResult) and res.branch == "unique"
    assert res.q.shape == (len(t), 4) and res.valid.shape == res.residual.shape == (len(t),)
    assert res.valid.dtype == bool and res.valid.all()
    np.testing.assert_allclose(CAR.fk(res.q), t, rtol=0, atol=1e-12 * (1 + np.abs(t).max()))
    np.testing.assert_allclose(res.residual, np.linalg.norm(CAR.fk(res.q) - t, axis=-1), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(res.q, t @ CAR.matrix.T)  # w = M t


def test_ik_shapes_scalar_batch_and_all():
    one = CAR.ik([0.3, -0.2, 0.5])
    assert one.q.shape == (4,) and one.valid.shape == one.residual.shape == () and bool(one.valid)
    t = np.random.default_rng(2).normal(size=(2, 5, 3))
    res = CAR.ik(t)
    assert res.q.shape == (2, 5, 4) and res.valid.shape == res.residual.shape == (2, 5)
    allb = CAR.ik(t, branch="all")
    assert allb.branch == Mecanum.branches
    assert allb.q.shape == (2, 5, 1, 4) and allb.valid.shape == allb.residual.shape == (2, 5, 1)
    np.testing.assert_array_equal(allb.q[..., 0, :], res.q)
    np.testing.assert_array_equal(allb.residual[..., 0], res.residual)
    assert CAR.ik(np.zeros((0, 3))).q.shape == (0, 4)


def test_jacobian_is_the_derivative_of_fk():
    J = CAR.jacobian()
    assert J.shape == (3, 4) and not J.flags.writeable
    np.testing.assert_allclose(J @ CAR.matrix, np.eye(3), rtol=0, atol=1e-12)  # M^+ M = I
    np.testing.assert_allclose(J, np.linalg.pinv(CAR.matrix), rtol=0, atol=1e-14)
    w0, h = np.random.default_rng(4).normal(size=4) * 10, 1e-3
    fd = np.stack([(CAR.fk(w0 + h * e) - CAR.fk(w0 - h * e)) / (2 * h) for e in np.eye(4)], axis=-1)
    np.testing.assert_allclose(J, fd, rtol=0, atol=1e-10)  # fk is linear: central differences are exact
    Jb = CAR.jacobian(np.zeros((2, 5, 4)))
    assert Jb.shape == (2, 5, 3, 4) and np.array_equal(Jb[1, 3], J)
    with pytest.raises(ValueError, match=r"\(\.\.\., 4\)"):
        CAR.jacobian(np.zeros(3))
    with pytest.raises(ValueError, match="non-finite"):
        CAR.jacobian([0.0, np.nan, 0.0, 0.0])


def test_rank_deficient_chassis_cannot_spin_and_ik_says_so():
    sq = Mecanum(0.076, 0.2, 0.2, config="O")  # rank 2: no yaw lever arm
    t = np.array([[0.5, -0.3, 0.0], [0.5, -0.3, 1.0], [0.0, 0.0, -2.0]])
    with pytest.raises(UnreachableError, match=r"2 of 3 targets are unreachable.*cannot produce") as err:
        sq.ik(t)
    assert isinstance(err.value, ValueError) and np.array_equal(err.value.first, t[1])
    res = sq.ik(t, on_unreachable="nan")
    np.testing.assert_array_equal(res.valid, [True, False, False])
    assert np.all(np.isnan(res.q[1:])) and np.all(np.isnan(res.residual[1:]))
    with pytest.warns(SingularityWarning):
        np.testing.assert_allclose(sq.fk(res.q[0]), t[0], rtol=0, atol=1e-12)  # translation still works
    assert res.residual[0] < 1e-12
    allb = sq.ik(t, branch="all", on_unreachable="nan")
    np.testing.assert_array_equal(allb.valid[:, 0], res.valid)
    with pytest.raises(UnreachableError, match="1 target is unreachable"):
        sq.ik([0.0, 0.0, 1.0], branch="all")


def test_ill_conditioned_but_full_rank_chassis_reaches_every_twist():
    # round-off of fk(ik(t)) grows like eps * cond; the validity tolerance follows it up to cond = 1e8
    t = np.random.default_rng(5).uniform(-2, 2, (5000, 3))
    for f in (1e-6, 1e-4):
        car = Mecanum(0.05, 0.2, 0.2 * (1 + f), config="O")
        res = car.ik(t)
        assert res.valid.all() and res.residual.max() < 1e-6


@pytest.mark.parametrize("kw", [dict(branch="left"), dict(branch=0), dict(branch=None), dict(on_unreachable="ignore")])
def test_ik_bad_options(kw):
    with pytest.raises(ValueError, match=next(iter(kw))):
        CAR.ik([0.1, 0.2, 0.3], **kw)


def test_frozen_and_readonly():
    with pytest.raises(AttributeError):
        CAR.r = 1.0
    with pytest.raises(ValueError):
        CAR.matrix[0, 0] = 2.0


# ------------------------------------------------------------------ sign tests on broken wiring
def test_wiring_mistake_signatures():
    M = CAR.matrix
    swapped = M[[1, 0, 2, 3]]  # FL and FR cables swapped
    res = CAR.sign_tests(swapped)
    np.testing.assert_array_equal(res.passed, [True, False, False])
    assert res.executed[2, 1] < -0.5 and res.executed[1, 2] < -0.5 * CAR.lx  # vy <-> omega exchanged
    reversed_ = M * np.array([-1, 1, 1, 1])[:, None]  # FL motor polarity reversed
    res = CAR.sign_tests(reversed_)
    assert not res.passed.any()
    assert np.all(np.abs(res.inconsistency) > 1)  # the wheels fight: non-zero slip residual
    xy = M[:, [1, 0, 2]]  # firmware swapped vx and vy
    res = CAR.sign_tests(xy)
    np.testing.assert_array_equal(res.passed, [False, False, True])
    np.testing.assert_allclose(res.executed[:2, :2], [[0, 1], [1, 0]], atol=1e-12)
    assert "FAIL" in str(res)


# ------------------------------------------------------------------ odometry
def test_exact_step_matches_se3_exp():
    rng = np.random.default_rng(2)
    tw = rng.uniform(-3, 3, (500, 3))
    tw[:50, 2] = rng.uniform(-1e-7, 1e-7, 50)  # series branch
    dt = 0.2
    xi = np.zeros((500, 6))
    xi[:, :2], xi[:, 5] = tw[:, :2] * dt, tw[:, 2] * dt
    T = se3_exp(xi)
    step = integrate_twist([0.0, 0.0, 0.0], tw, dt)
    np.testing.assert_allclose(step[:, :2], T[:, :2, 3], atol=1e-12)
    np.testing.assert_allclose(step[:, 2], np.arctan2(T[:, 1, 0], T[:, 0, 0]), atol=1e-12)


def test_series_branch_continuous():
    a = integrate_twist([0, 0, 0.3], [1.0, 0.5, 0.99999e-4 / 0.1], 0.1)
    b = integrate_twist([0, 0, 0.3], [1.0, 0.5, 1.00001e-4 / 0.1], 0.1)
    np.testing.assert_allclose(a, b, atol=1e-9)


def test_euler_first_order_exact_closes_circle():
    def final(n, method, turns=1.0):
        tw = np.tile([1.0, 0.2, 2 * np.pi / 10.0], (n, 1))
        return odometry(tw, 10.0 * turns / n, method=method)[-1]

    np.testing.assert_allclose(final(50, "exact"), 0, atol=1e-12)
    # half a turn: the arc's chord is 2 R along the normal; R = |v| / omega
    R = np.hypot(1.0, 0.2) / (2 * np.pi / 10.0)
    np.testing.assert_allclose(np.linalg.norm(final(7, "exact", 0.5)[:2]), 2 * R, rtol=1e-12)
    ref = final(7, "exact", 0.5)
    e1 = np.linalg.norm(final(100, "euler", 0.5)[:2] - ref[:2])
    e2 = np.linalg.norm(final(200, "euler", 0.5)[:2] - ref[:2])
    assert e1 > 1e-3 and 1.8 < e1 / e2 < 2.2  # global error O(dt)


def test_odometry_equals_stepwise_loop_and_batches():
    rng = np.random.default_rng(3)
    tw = rng.normal(size=(4, 30, 3))
    p0 = rng.normal(size=(4, 3))
    for method in ("exact", "euler"):
        out = odometry(tw, 0.05, pose0=p0, method=method)
        assert out.shape == (4, 31, 3)
        pose = p0.copy()
        for k in range(30):
            pose = integrate_twist(pose, tw[:, k], 0.05, method=method)
        np.testing.assert_allclose(out[:, -1], pose, atol=1e-12)
    assert np.all((out[..., 2] >= -np.pi) & (out[..., 2] < np.pi))


def test_world_frame_straight_line_with_heading():
    # heading pi/2 and body vx = 1: moves along world +y
    out = odometry(np.tile([1.0, 0.0, 0.0], (10, 1)), 0.1, pose0=[0, 0, np.pi / 2])
    np.testing.assert_allclose(out[-1], [0, 1, np.pi / 2], atol=1e-12)


# ------------------------------------------------------------------ heading fusion
def test_fusion_learns_bias_and_gates_slip():
    dt, n = 0.01, 3000
    t = np.arange(n) * dt
    w_true = 0.5 * np.sin(0.5 * t)
    gyro = w_true + 0.03
    wheel = w_true.copy()
    slip = (t > 10) & (t < 12)
    wheel[slip] += 1.0  # a slipping wheel fakes 2 rad of rotation
    th_true = np.concatenate([[0], np.cumsum(w_true * dt)])
    th, b = fuse_heading(gyro, wheel, dt, tau=1.0, trusted=~slip)
    err = np.abs(np.angle(np.exp(1j * (th - th_true))))
    assert abs(b[-1] - 0.03) < 2e-3
    assert err[-1] < 0.05
    th_ungated, _ = fuse_heading(gyro, wheel, dt, tau=1.0)
    err_u = np.abs(np.angle(np.exp(1j * (th_ungated - th_true))))
    assert err_u[-1] > 1.0  # without gating the slip leaks into the heading
    th_gyro = np.concatenate([[0], np.cumsum(gyro * dt)])
    assert abs(th_gyro[-1] - th_true[-1]) > 0.5  # gyro alone drifts


def test_fusion_batched():
    g = np.zeros((3, 50))
    th, b = fuse_heading(g, g, 0.01, theta0=np.array([0.1, 0.2, 0.3]))
    assert th.shape == (3, 51) and b.shape == (3, 51)
    np.testing.assert_allclose(th[:, -1], [0.1, 0.2, 0.3])


# ------------------------------------------------------------------ PWM calibration
def test_pwm_model_values():
    np.testing.assert_allclose(pwm_model([-1.0, -0.1, 0.0, 0.1, 1.0], [50.0, 0.2]), [-40, 0, 0, 0, 40])
    w = pwm_model(np.array([0.21, 10.0]), [50.0, 0.2, 30.0], model="saturating")
    assert abs(w[0] - 0.5) < 1e-3 and abs(w[1] - 30.0) < 1e-9  # slope k past the dead zone, limit w_max


@pytest.mark.parametrize("model, truth", [("linear", [40.0, 0.12]), ("saturating", [45.0, 0.1, 28.0])])
def test_pwm_fit_coverage(model, truth):
    rng = np.random.default_rng(4)
    u = np.linspace(-1, 1, 61)
    z = []
    for _ in range(40):
        fit = fit_pwm(u, pwm_model(u, truth, model=model) + rng.normal(0, 0.5, u.size), model=model)
        z.append((fit.params - truth) / fit.stderr)
        assert abs(fit.rms - 0.5) < 0.2
    z = np.array(z)
    assert np.mean(np.abs(z) < 1.96) > 0.8  # standard errors are honest (nominal 95 %)
    assert np.all(np.abs(z) < 5)
    assert "±" in str(fit)


# ------------------------------------------------------------------ bad input
BAD = [np.nan, np.inf]


@pytest.mark.parametrize("kw", [dict(r=0), dict(r=-0.1), dict(lx=np.nan), dict(ly=np.inf), dict(lx="a")])
def test_bad_geometry(kw):
    args = dict(r=0.05, lx=0.2, ly=0.15) | kw
    with pytest.raises(ValueError):
        Mecanum(**args)


@pytest.mark.parametrize(
    "kw",
    [
        dict(roller_angle=0.0),
        dict(roller_angle=np.pi / 2),
        dict(roller_angle=np.nan),
        dict(config="x"),
        dict(config="H"),
    ],
)
def test_bad_options(kw):
    with pytest.raises(ValueError):
        Mecanum(0.05, 0.2, 0.15, **kw)


def test_options_keyword_only():
    with pytest.raises(TypeError):
        Mecanum(0.05, 0.2, 0.15, np.pi / 4)


@pytest.mark.parametrize("bad", BAD)
def test_nonfinite_rejected(bad):
    for f, n in ((lambda t: CAR.ik(t).q, 3), (CAR.fk, 4), (CAR.inconsistency, 4), (CAR.residual, 4)):
        x = np.ones(n)
        x[1] = bad
        with pytest.raises(ValueError, match="non-finite"):
            f(x)
    with pytest.raises(ValueError):
        integrate_twist([0, 0, bad], [1, 0, 0], 0.1)
    with pytest.raises(ValueError):
        odometry([[1, bad, 0]], 0.1)
    with pytest.raises(ValueError):
        fuse_heading([0.0, bad], [0.0, 0.0], 0.01)
    with pytest.raises(ValueError):
        fit_pwm(np.linspace(-1, 1, 10), np.r_[np.zeros(9), bad])
    with pytest.raises(ValueError):
        pwm_model([0.5], [bad, 0.1])
    with pytest.raises(ValueError):
        CAR.sign_tests(np.full((4, 3), bad))


def test_wrong_shapes():
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        CAR.ik([1.0, 2.0])
    with pytest.raises(ValueError, match=r"\(\.\.\., 4\)"):
        CAR.fk(np.ones(3))
    with pytest.raises(ValueError):
        CAR.inconsistency(np.ones((2, 5)))
    with pytest.raises(ValueError):
        CAR.residual(np.ones(3))
    with pytest.raises(ValueError):
        CAR.sign_tests(np.ones((3, 4)))
    with pytest.raises(ValueError):
        CAR.sign_tests(np.ones((2, 4, 3)))
    with pytest.raises(ValueError):
        odometry(np.ones(3), 0.1)  # needs (..., N, 3)
    with pytest.raises(ValueError):
        integrate_twist([0, 0], [1, 0, 0], 0.1)
    with pytest.raises(ValueError):
        fuse_heading(np.zeros(5), np.zeros(4), 0.01)
    with pytest.raises(ValueError):
        fuse_heading(np.zeros(5), np.zeros(5), 0.01, trusted=np.ones(5))  # not boolean
    with pytest.raises(ValueError):
        fit_pwm(np.zeros(10), np.zeros(10))  # u does not vary
    with pytest.raises(ValueError):
        fit_pwm(np.linspace(0, 1, 3), np.zeros(3))  # too few samples
    with pytest.raises(ValueError):
        fit_pwm(np.linspace(0, 1, 10), np.zeros(9))
    with pytest.raises(ValueError):
        pwm_model([0.5], [1.0, 0.1], model="saturating")
    with pytest.raises(ValueError):
        reorder_wheels(np.ones(4), ("FL", "FR", "RL"))
    with pytest.raises(ValueError):
        reorder_wheels(np.ones(4), "FLFRRLRR")
    with pytest.raises(ValueError):
        reorder_wheels(np.ones((3, 3)), WHEELS)


def test_bad_scalars_and_options():
    for dt in (0.0, -0.1, np.nan):
        with pytest.raises(ValueError):
            integrate_twist([0, 0, 0], [1, 0, 0], dt)
        with pytest.raises(ValueError):
            odometry([[1, 0, 0]], dt)
        with pytest.raises(ValueError):
            fuse_heading([0.0], [0.0], dt)
    with pytest.raises(ValueError, match="method"):
        integrate_twist([0, 0, 0], [1, 0, 0], 0.1, method="rk4")
    with pytest.raises(ValueError, match="method"):
        odometry([[1, 0, 0]], 0.1, method="Exact")
    with pytest.raises(ValueError, match="tau"):
        fuse_heading([0.0], [0.0], 0.1, tau=0.01)
    with pytest.raises(ValueError, match="model"):
        pwm_model([0.1], [1.0, 0.0], model="cubic")
    with pytest.raises(ValueError, match="model"):
        fit_pwm(np.linspace(-1, 1, 10), np.zeros(10), model="quadratic")
    with pytest.raises(ValueError, match="tol"):
        CAR.sign_tests(tol=-1.0)


def test_no_warning_on_regular_chassis():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CAR.fk(np.ones(4))


def test_validate_passes():
    reps = validate(fast=True)
    assert len(reps) >= 5 and all(r.passed for r in reps)


hostile = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([np.nan, np.inf, -np.inf]))


@settings(deadline=None)
@given(st.lists(hostile, min_size=0, max_size=8))
def test_hostile_inputs_documented_errors_only(vals):
    """Any float vector: a finite result of the right shape, or a ValueError; never a NaN or a crash."""
    x = np.array(vals, dtype=float)
    calls = [
        (lambda t: CAR.ik(t).q, 3, 4),
        (CAR.fk, 4, 3),
        (CAR.residual, 4, 4),
        (lambda v: integrate_twist(np.zeros(3), v, 0.01), 3, 3),
        (lambda v: odometry(v[None, :], 0.01)[-1], 3, 3),
    ]
    for f, n_in, n_out in calls:
        try:
            out = f(x)
        except ValueError:
            assert x.size != n_in or not np.all(np.isfinite(x))
            continue
        assert x.size == n_in and out.shape[-1] == n_out and np.all(np.isfinite(out))


# ------------------------------------------------------------------ issue 16: exact recursions, reversed motor
def test_fusion_matches_the_stated_recursion_step_by_step():
    """b_{k+1} = b_k + (dt/tau)(g_k - w_k - b_k) when trusted; theta_{k+1} = theta_k + dt (g_k - b_k)."""
    rng = np.random.default_rng(3)
    n, dt, tau = 40, 0.05, 0.4
    g, w = rng.normal(0, 1, n), rng.normal(0, 1, n)
    ok = rng.uniform(size=n) > 0.3
    th_ref, b_ref = [0.2], [0.1]
    for k in range(n):
        b_ref.append(b_ref[-1] + (dt / tau * (g[k] - w[k] - b_ref[-1]) if ok[k] else 0.0))
        th_ref.append(th_ref[-1] + dt * (g[k] - b_ref[k]))
    th, b = fuse_heading(g, w, dt, tau=tau, trusted=ok, theta0=0.2, bias0=0.1)
    np.testing.assert_allclose(b, b_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(th, wrap_to_pi(np.array(th_ref)), rtol=0, atol=1e-13)
    assert th.shape == b.shape == (n + 1,)


def test_fit_pwm_reports_a_reversed_motor():
    u = np.linspace(-1, 1, 41)
    w = pwm_model(u, [40.0, 0.1]) + 0.3 * np.random.default_rng(0).normal(size=u.size)
    assert fit_pwm(u, w).params[0] > 35
    with pytest.raises(ValueError, match=r"backwards for positive PWM.*reversed"):
        fit_pwm(u, -w)
    with pytest.raises(ValueError, match="reversed"):
        fit_pwm(u, -pwm_model(u, [30.0, 0.1, 20.0], model="saturating"), model="saturating")


def test_fit_pwm_stalled_motor_is_not_called_reversed():
    """Pure noise around zero: no significant slope, so the fit runs (and finds k near 0)."""
    u = np.linspace(-1, 1, 41)
    for seed in range(20):
        w = 0.3 * np.random.default_rng(seed).normal(size=u.size)
        slope = np.sum(w[np.abs(u) >= 0.5] * u[np.abs(u) >= 0.5]) / np.sum(u[np.abs(u) >= 0.5] ** 2)
        try:
            fit = fit_pwm(u, w)
        except ValueError as e:
            assert "reversed" in str(e) and slope < 0
            continue
        assert fit.params[0] < 2.0


def test_fit_pwm_reverse_threshold_is_three_standard_errors():
    u = np.r_[-np.ones(10), np.ones(10), np.zeros(20)]
    noise = np.tile([1.0, -1.0], 10)
    # slope on the big commands is -c exactly, its standard error sqrt(sum(noise^2) / 19 / 20)
    se = np.sqrt(20 / 19 / 20)
    for c, raises in ((2.9 * se, False), (3.1 * se, True)):
        w = np.r_[c + noise[:10], -c + noise[10:], np.zeros(20)]
        if raises:
            with pytest.raises(ValueError, match="reversed"):
                fit_pwm(u, w)
        else:
            fit_pwm(u, w)


@pytest.mark.parametrize("tol", ["1e-9", 1j, np.nan, -1.0, [1e-9]])
def test_sign_tests_tol_validated(tol):
    with pytest.raises(ValueError, match="tol"):
        Mecanum(0.05, 0.2, 0.15).sign_tests(tol=tol)


@pytest.mark.parametrize("order", [5, None, ("FL", "FR", "RL", 4), "FLFRRLRR"])
def test_reorder_wheels_bad_order(order):
    with pytest.raises(ValueError, match="permutation"):
        reorder_wheels([1.0, 2.0, 3.0, 4.0], order)


@pytest.mark.parametrize("bad", [1j, "0.1", 1e300])
def test_geometry_rejects_complex_text_huge(bad):
    for kw in (dict(r=bad, lx=0.2, ly=0.2), dict(r=0.05, lx=0.2, ly=0.2, roller_angle=bad)):
        with pytest.raises(ValueError):
            Mecanum(**kw)


def test_fk_warns_exactly_when_cond_exceeds_1e8():
    near = Mecanum(0.05, 0.2, 0.2 * (1 + 1e-10), config="O")  # cond ~ 5e10
    fine = Mecanum(0.05, 0.2, 0.2 * (1 + 1e-6), config="O")  # cond ~ 5e6
    assert 1e8 < near.cond < 1e16 and fine.cond < 1e8
    with pytest.warns(SingularityWarning):
        near.fk(np.ones(4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fine.fk(np.ones(4))


def test_fusion_tau_equal_dt_is_allowed():
    th, b = fuse_heading(np.full(3, 0.5), np.zeros(3), 0.1, tau=0.1)  # k = 1: the bias follows at once
    np.testing.assert_allclose(b, [0.0, 0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="tau must be at least dt"):
        fuse_heading(np.zeros(3), np.zeros(3), 0.1, tau=0.1 * (1 - 1e-12))


def test_exact_step_series_branch_matches_closed_form_to_round_off():
    """Below |omega dt| = 1e-4 a series replaces sin(phi)/phi and (1 - cos phi)/phi: it must be as exact."""
    for phi in (9.9e-5, 5e-5, 1e-6, -7e-5):
        step = integrate_twist(np.zeros(3), [1.0, 0.0, phi], 1.0)
        np.testing.assert_allclose(step[:2], [np.sin(phi) / phi, 2 * np.sin(phi / 2) ** 2 / phi], rtol=1e-13, atol=0)


def test_arc_terms_exact_just_above_series_threshold():
    """(1 - cos phi) / phi by subtraction kept ~8 digits at phi ~ 1e-4; the half-angle form keeps all."""
    import mpmath

    from robokin.mecanum import _dtheta_terms

    phi = np.geomspace(1.0001e-4, 1.0, 200)
    _, b = _dtheta_terms(phi)
    with mpmath.workdps(40):  # the reference must not cancel either
        ref = np.array([float((1 - mpmath.cos(mpmath.mpf(p))) / mpmath.mpf(p)) for p in phi])
    assert np.max(np.abs(b - ref) / ref) < 1e-14


# ------------------------------------------------------------------ issue 29: initial values
@pytest.mark.parametrize("kw", [dict(theta0=[0.0]), dict(bias0=[0.0, 0.0]), dict(theta0=np.zeros((2, 3)))])
def test_fuse_heading_initial_values_of_the_wrong_shape_name_the_argument(kw):
    # "cannot broadcast a non-scalar to a scalar array" came from inside numpy before
    name = next(iter(kw))
    with pytest.raises(ValueError, match=f"{name} must be a scalar or have shape"):
        fuse_heading(np.full(5, 0.02), np.zeros(5), dt=0.01, tau=1.0, **kw)
    with pytest.raises(ValueError, match="trusted"):
        fuse_heading(np.full(5, 0.02), np.zeros(5), dt=0.01, tau=1.0, trusted=[[True], [True, False]])


# ------------------------------------------------------------------ issue 33: wheel torques -> body wrench
def _layouts():
    rng = np.random.default_rng(33)
    out = [CAR, Mecanum(0.05, 0.2, 0.15), Mecanum(0.076, 0.30, 0.10, config="O")]
    for _ in range(6):
        r, lx, ly, a = rng.uniform([0.03, 0.1, 0.1, 0.2], [0.1, 0.4, 0.4, 1.3])
        out.append(Mecanum(r, lx, ly, roller_angle=a, config=str(rng.choice(["X", "O"]))))
    return out


@pytest.mark.parametrize("car", _layouts())
def test_wrench_is_the_resultant_of_the_roller_axis_forces(car):
    """Independent of M: each wheel pushes along its roller axis with drive component tau / r."""
    tau = np.random.default_rng(1).normal(size=(50, 4))
    a, p = car.roller_axes, car.contact_points
    f = (tau / (car.r * a[:, 0]))[..., None] * a  # (50, 4, 2): magnitude tau / (r cos gamma) along a_i
    moment = p[:, 0] * f[..., 1] - p[:, 1] * f[..., 0]
    ref = np.concatenate([f.sum(axis=1), moment.sum(axis=1, keepdims=True)], axis=-1)
    np.testing.assert_allclose(car.wrench(tau), ref, rtol=0, atol=1e-12 * np.abs(ref).max())


@settings(deadline=None)
@given(twists, st.tuples(finite, finite, finite, finite).map(np.array))
def test_power_balance_tau_dot_w_equals_wrench_dot_twist(t, tau):
    w = CAR.ik(t).q
    scale = 1 + np.abs(tau).sum() * np.abs(w).max()
    assert abs(tau @ w - CAR.wrench(tau) @ t) <= 1e-12 * scale


def test_wrench_shapes_and_x_layout_columns():
    assert CAR.wrench(np.zeros((2, 5, 4))).shape == (2, 5, 3)
    L = CAR.lx + CAR.ly
    np.testing.assert_allclose(CAR.wrench(np.eye(4)), CAR.matrix, rtol=0, atol=0)  # rows: one wheel each
    np.testing.assert_allclose(CAR.wrench([1, 1, 1, 1]), [4 / CAR.r, 0, 0], atol=1e-12)
    np.testing.assert_allclose(CAR.wrench([-1, 1, -1, 1]), [0, 0, 4 * L / CAR.r], atol=1e-12)


def test_traction_torque_puts_the_contact_force_on_the_friction_limit():
    N, mu = np.array([30.0, 25.0, 20.0, 10.0]), 0.55
    for car in _layouts():
        tau = car.traction_torque(N, mu=mu)
        force = np.abs(tau) / (car.r * np.abs(car.roller_axes[:, 0]))  # |f_i| along the roller axis
        np.testing.assert_allclose(force, mu * N, rtol=1e-13)
    assert CAR.traction_torque(np.zeros((3, 4)), mu=0.5).shape == (3, 4)


def _lp_max_scale(car, d, b):
    from scipy.optimize import linprog

    # variables tau (4) and s: maximise s subject to M^T tau = s d, -b <= tau <= b
    A_eq = np.hstack([car.matrix.T, -np.asarray(d, float)[:, None]])
    res = linprog(np.r_[np.zeros(4), -1.0], A_eq=A_eq, b_eq=np.zeros(3), bounds=[(-bi, bi) for bi in b] + [(0, None)])
    assert res.status == 0, res.message
    return res.x[4]


@pytest.mark.parametrize("car", [c for c in _layouts() if c.cond < 1e8])
def test_max_wrench_equals_the_linear_program(car):
    rng = np.random.default_rng(7)
    D = rng.normal(size=(40, 3)) * [1.0, 1.0, 0.3]
    B = rng.uniform(0.0, 2.0, size=(40, 4))
    B[:5, rng.integers(0, 4, 5)] = 0.0  # some wheels without traction
    got = car.max_wrench(D, tau_max=B)
    ref = np.array([_lp_max_scale(car, d, b) for d, b in zip(D, B)])
    np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-9)
    assert got.shape == (40,) and car.max_wrench(D[0], tau_max=B[0]).shape == ()


def test_max_acceleration_closed_forms_x_layout():
    m, Iz, mu, g = 12.0, 0.3, 0.6, 9.81
    b = CAR.traction_torque(np.full(4, m * g / 4), mu=mu)
    c = np.cos(CAR.roller_angle)
    assert np.isclose(CAR.max_wrench([m, 0, 0], tau_max=b), mu * g * c)  # forward: mu g cos(alpha)
    assert np.isclose(CAR.max_wrench([0, m, 0], tau_max=b), mu * g * c)  # sideways (45 degree rollers)
    diag = np.array([m, m, 0]) / np.sqrt(2)
    assert np.isclose(CAR.max_wrench(diag, tau_max=b), mu * g / 2)  # diagonal: two wheels push
    L = CAR.lx + CAR.ly
    assert np.isclose(CAR.max_wrench([0, 0, Iz], tau_max=b), mu * m * g * c * L / Iz)
    # centre of mass d ahead of the centre (static loads): a pure translation needs the moment m d a_y about the
    # centre, so the heavier front wheels push harder and the light (rear) axle reaches its limit first
    for d in (0.05, -0.08, 0.15):
        share = (CAR.lx + d) / (2 * CAR.lx)
        N = m * g * np.array([share, share, 1 - share, 1 - share]) / 2
        b2 = CAR.traction_torque(N, mu=mu)
        assert np.isclose(CAR.max_wrench([m, 0, m * 0.0], tau_max=b2), mu * g * c)  # forward: no moment needed
        a_y = CAR.max_wrench([0, m, m * d], tau_max=b2)
        assert np.isclose(a_y, 4 * mu * N.min() * c * L / (m * (L - abs(d))))
        assert np.isclose(a_y, _lp_max_scale(CAR, [0, m, m * d], b2))
        # equal pushes (the wrench [0, m a, 0]) leave a moment -m d a about the centre of mass: the chassis turns
        a_naive = CAR.max_wrench([0, m, 0], tau_max=b2)
        assert a_naive < a_y and np.isclose(a_naive, 4 * mu * N.min() * c / m)


def test_max_wrench_tiny_direction_is_not_zero():
    b = np.full(4, 0.5)
    s = CAR.max_wrench([1e-300, 0.0, 0.0], tau_max=b)  # its norm underflows; it is still a direction
    assert np.isfinite(s) and np.isclose(s * 1e-300, CAR.max_wrench([1.0, 0.0, 0.0], tau_max=b))


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: CAR.max_wrench([0.0, 0.0, 0.0], tau_max=np.ones(4)), "non-zero"),
        (lambda: CAR.max_wrench([1.0, 0.0, 0.0], tau_max=[1.0, -1.0, 1.0, 1.0]), "non-negative"),
        (lambda: CAR.max_wrench([1.0, 0.0], tau_max=np.ones(4)), "direction"),
        (lambda: CAR.max_wrench([1.0, 0.0, 0.0], tau_max=np.ones(3)), "tau_max"),
        (lambda: CAR.traction_torque([1.0, -1.0, 1.0, 1.0], mu=0.5), "non-negative"),
        (lambda: CAR.traction_torque(np.ones(4), mu=-0.1), "mu"),
        (lambda: CAR.traction_torque(np.ones(4), mu=np.nan), "mu"),
        (lambda: CAR.wrench([1.0, 2.0, 3.0]), "tau"),
        (lambda: CAR.wrench([np.nan, 0, 0, 0]), "tau"),
        (lambda: Mecanum(0.076, 0.2, 0.2, config="O").max_wrench([1.0, 0, 0], tau_max=np.ones(4)), "yaw"),
    ],
)
def test_force_methods_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
