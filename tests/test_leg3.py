"""Three-DOF abduction leg (robokin.leg3): FK, IK branches, Jacobian, tau = J^T F, Raibert on the LIP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.checks import jacobian_fd
from robokin.errors import UnreachableError
from robokin.leg2 import TwoLinkLeg
from robokin.leg3 import ThreeDofLeg, lip_stance, raibert_foot, raibert_steps

LEG = ThreeDofLeg(0.08, 0.2, 0.2)
SCALE = LEG.l0 + LEG.l1 + LEG.l2


def _q(rng, n):
    return np.stack(
        [rng.uniform(-np.pi, np.pi, n), rng.uniform(-np.pi, np.pi, n), rng.uniform(0.05, np.pi - 0.05, n)], -1
    )


def test_fk_reduces_to_the_two_link_leg_in_the_leg_plane():
    rng = np.random.default_rng(0)
    q = _q(rng, 200)
    q[:, 0] = 0.0
    p = LEG.fk(q)
    np.testing.assert_allclose(p[:, [0, 2]], TwoLinkLeg(0.2, 0.2).fk(q[:, 1:]), atol=1e-15)
    np.testing.assert_allclose(p[:, 1], LEG.l0)


@pytest.mark.parametrize("side", ["left", "right"])
def test_fk_ik_roundtrip_every_branch(side):
    leg = ThreeDofLeg(0.08, 0.2, 0.25, side=side)
    rng = np.random.default_rng(1)
    q = _q(rng, 20_000)
    p = leg.fk(q)
    res = leg.ik(p, branch="all")
    assert res.q.shape == (20_000, 4, 3)
    assert np.all(res.valid)
    assert np.max(res.residual) <= 1e-9 * SCALE
    assert np.max(np.abs(leg.fk(res.q) - p[:, None])) <= 1e-9 * SCALE


def test_the_branch_of_a_configuration_returns_that_configuration():
    rng = np.random.default_rng(2)
    q = _q(rng, 2000)
    q[:, 0] = rng.uniform(-0.6, 0.6, 2000)
    q[:, 1] = rng.uniform(-1.0, 1.0, 2000)
    q[:, 2] = rng.uniform(0.3, 2.0, 2000)
    q = q[LEG.planar.fk(q[:, 1:])[:, 1] < -0.01]  # knee back, leg below the axis (z_s < 0)
    assert len(q) > 1000
    np.testing.assert_allclose(LEG.ik(LEG.fk(q)).q, q, atol=1e-9)
    qf = q * [1, 1, -1]
    qf[:, 1] = q[:, 1] + q[:, 2]  # mirror knee: same foot
    np.testing.assert_allclose(LEG.ik(LEG.fk(qf), branch="knee-front").q, qf, atol=1e-9)


def test_inner_branch_puts_the_leg_above_the_axis():
    q = LEG.ik([0.05, 0.1, -0.3], branch="knee-back-inner").q
    zs = LEG.planar.fk(q[1:])[1]
    assert zs > 0


def test_jacobian_matches_finite_differences_and_det():
    rng = np.random.default_rng(3)
    q = _q(rng, 500)
    J = LEG.jacobian(q)
    assert np.max(np.abs(J - jacobian_fd(LEG.fk, q))) <= 1e-6 * np.max(np.abs(J))
    zs = LEG.planar.fk(q[:, 1:])[:, 1]
    np.testing.assert_allclose(np.linalg.det(J), LEG.l1 * LEG.l2 * np.sin(q[:, 2]) * zs, atol=1e-14)


def test_power_balance_of_joint_torques():
    rng = np.random.default_rng(4)
    q, qd, F = _q(rng, 300), rng.normal(size=(300, 3)), rng.normal(0, 50, (300, 3))
    tau = LEG.joint_torques(q, F)
    h = 1e-6
    pdot = (LEG.fk(q + h * qd) - LEG.fk(q - h * qd)) / (2 * h)
    np.testing.assert_allclose(np.sum(tau * qd, -1), np.sum(F * pdot, -1), atol=1e-6)


def test_joint_torques_broadcast():
    q = np.zeros((4, 5, 3)) + [0.1, 0.5, 1.0]
    assert LEG.joint_torques(q, [0.0, 0.0, -30.0]).shape == (4, 5, 3)


def test_unreachable_targets():
    with pytest.raises(UnreachableError, match="abduction axis"):
        LEG.ik([0.0, 0.01, -0.02])
    with pytest.raises(UnreachableError, match="l1 \\+ l2"):
        LEG.ik([0.0, 0.08, -0.6])
    res = LEG.ik([[0.0, 0.08, -0.6], [0.0, 0.08, -0.3]], on_unreachable="nan")
    assert res.valid.tolist() == [False, True]
    assert np.all(np.isnan(res.q[0]))


@pytest.mark.parametrize(
    "kwargs",
    [dict(l0=0.0, l1=0.2, l2=0.2), dict(l0=0.1, l1=-0.2, l2=0.2), dict(l0=0.1, l1=0.2, l2=np.nan)],
)
def test_bad_lengths(kwargs):
    with pytest.raises(ValueError):
        ThreeDofLeg(**kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="side"):
        ThreeDofLeg(0.1, 0.2, 0.2, side="middle")
    with pytest.raises(ValueError):
        LEG.fk([0.0, 0.0])
    with pytest.raises(ValueError):
        LEG.ik([0.0, np.nan, -0.3])
    with pytest.raises(ValueError, match="branch"):
        LEG.ik([0.0, 0.08, -0.3], branch="up")
    with pytest.raises(ValueError, match="k must be"):
        raibert_foot(0.5, 0.6, t_stance=0.2, k=-0.1)
    with pytest.raises(ValueError, match="t must be"):
        lip_stance(0.0, 0.5, height=0.3, t=-1.0)
    with pytest.raises(ValueError, match="overflows cosh"):
        lip_stance(0.0, 0.5, height=0.3, t=1e3)


def test_lip_matches_numerical_integration():
    from scipy.integrate import solve_ivp

    h, T = 0.3, 0.25
    sol = solve_ivp(lambda t, y: [y[1], 9.81 / h * y[0]], (0, T), [-0.04, 0.6], rtol=1e-12, atol=1e-14)
    x, v = lip_stance(-0.04, 0.6, height=h, t=T)
    np.testing.assert_allclose([x, v], sol.y[:, -1], atol=1e-9)


def test_raibert_feedback_corrects_speed_and_k0_does_not():
    kw = dict(height=0.3, t_stance=0.2, n_steps=30)
    with_k = raibert_steps(0.3, 0.6, k=0.1, **kw)
    no_k = raibert_steps(0.3, 0.6, k=0.0, **kw)
    assert abs(with_k[-1] - 0.6) < 0.2 * 0.3
    assert abs(no_k[-1] - 0.6) >= 0.3  # the speed error never shrinks without feedback


@settings(max_examples=40, deadline=None)
@given(
    st.floats(-np.pi, np.pi),
    st.floats(-np.pi, np.pi),
    st.floats(0.05, np.pi - 0.05),
    st.sampled_from(["left", "right"]),
)
def test_property_roundtrip(q0, q1, q2, side):
    leg = ThreeDofLeg(0.07, 0.21, 0.19, side=side)
    p = leg.fk([q0, q1, q2])
    res = leg.ik(p, branch="all")
    assert np.all(res.valid)
    assert np.max(res.residual) <= 1e-9 * 0.47


@settings(max_examples=40, deadline=None)
@given(st.floats(-2, 2), st.floats(-2, 2), st.floats(0.0, 0.3))
def test_property_raibert_fixed_point_is_the_desired_speed_with_exact_neutral_point(v, v_des, k):
    # at v = v_des the feedback term vanishes, and the foot is vT/2 from the hip
    assert raibert_foot(v_des, v_des, t_stance=0.2, k=k) == pytest.approx(v_des * 0.1)
    xf = raibert_foot(v, v_des, t_stance=0.2, k=k)
    assert xf - v * 0.1 == pytest.approx(k * (v - v_des), abs=1e-12)


def test_right_leg_fk_sign_from_the_definition():
    # written out by hand from def-ch02-leg3, not through ThreeDofLeg.d: a right leg's plane is at -l0 along y,
    # and a positive abduction swings a hanging foot towards +y (right-handed about +x)
    l0, l1, l2 = 0.08, 0.2, 0.25
    right = ThreeDofLeg(l0, l1, l2, side="right")
    np.testing.assert_allclose(right.fk([0.0, 0.0, 0.0]), [0.0, -l0, -(l1 + l2)], atol=1e-15)
    for t0 in (0.3, -0.7):
        c, s = np.cos(t0), np.sin(t0)
        hand = [0.0, -l0 * c + (l1 + l2) * s, -l0 * s - (l1 + l2) * c]
        np.testing.assert_allclose(right.fk([t0, 0.0, 0.0]), hand, atol=1e-15)
    assert right.fk([0.2, 0.0, 0.0])[1] > right.fk([0.0, 0.0, 0.0])[1]  # towards +y
    # the right leg is the left leg mirrored in the x-z plane, with the abduction angle negated
    rng = np.random.default_rng(5)
    q = _q(rng, 200)
    left = ThreeDofLeg(l0, l1, l2, side="left")
    np.testing.assert_allclose(right.fk(q), left.fk(q * [-1, 1, 1]) * [1, -1, 1], atol=1e-15)


def test_diverging_stride_map_says_so():
    # T_st = 0.8 s on h = 0.3 m with k = 0: lambda = cosh(a) - a/2 sinh(a) ~ -62, |lambda| > 1
    with pytest.raises(ValueError, match="stride map diverges"):
        raibert_steps(0.3, 0.6, k=0.0, height=0.3, t_stance=0.8, n_steps=200)


@settings(max_examples=40, deadline=None)
@given(
    st.floats(-2, 2),
    st.floats(-2, 2),
    st.floats(0.0, 0.3),
    st.floats(0.1, 0.3),
    st.floats(0.2, 0.5),
)
def test_property_raibert_steps_is_the_closed_form_stride_map(v0, v_des, k, t_st, h):
    # v_{n+1} = lambda v_n + omega k sinh(a) v_des, lambda = cosh(a) - (a/2 + omega k) sinh(a), a = omega T_st
    w = np.sqrt(9.81 / h)
    a = w * t_st
    lam = np.cosh(a) - (a / 2 + w * k) * np.sinh(a)
    v = raibert_steps(v0, v_des, k=k, height=h, t_stance=t_st, n_steps=8)
    ref = np.empty(9)
    ref[0] = v0
    for n in range(8):
        ref[n + 1] = lam * ref[n] + w * k * np.sinh(a) * v_des
    np.testing.assert_allclose(v, ref, rtol=1e-9, atol=1e-9 * (abs(v0) + abs(v_des) + 1) * max(1.0, abs(lam)) ** 8)


@settings(max_examples=40, deadline=None)
@given(st.floats(-2, 2), st.floats(-2, 2), st.floats(0.02, 0.2))
def test_property_exact_neutral_point_converges_to_the_desired_speed(v0, v_des, k):
    # with x_f = v tanh(a/2)/omega + k (v - v_des) the error is multiplied by 1 - omega k sinh(a) each step,
    # inside (-1, 1) for 0 < k < 2 / (omega sinh a) = 0.248 s here: the speed converges to v_des itself
    h, t_st = 0.3, 0.2
    w = np.sqrt(9.81 / h)
    v = v0
    for _ in range(200):
        xf = v / w * np.tanh(w * t_st / 2) + k * (v - v_des)
        v_new = float(lip_stance(-xf, v, height=h, t=t_st)[1])
        assert abs(v_new - v_des) <= abs(v - v_des) + 1e-12  # monotone contraction of the error
        v = v_new
    assert abs(v - v_des) <= 1e-9 * (1 + abs(v0 - v_des))
