"""Tests for robokin.ident: base parameters, regressors, Fourier excitation and least squares."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.control import demo_setup, friction_torque
from robokin.dynamics import TwoLinkArm
from robokin.errors import SingularityWarning
from robokin.ident import (arm_from_base_parameters, base_parameters, fourier_excitation, gravity_regressor, least_squares, regressor,
                           validate)

ARM = demo_setup()["nominal"]
HSET = settings(max_examples=40, deadline=None, derandomize=True)
val = st.floats(-4, 4)


@HSET
@given(st.lists(val, min_size=6, max_size=6), st.floats(0.5, 2.0), st.floats(0.01, 0.4))
def test_regressor_reproduces_inverse_dynamics_for_any_arm(x, m2, lc2):
    arm = ARM.replace(m2=m2, lc2=lc2)
    q, qd, qdd = np.array(x[:2]), np.array(x[2:4]), np.array(x[4:])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    tau = arm.inverse_dynamics(q, qd, qdd) + friction_torque(qd, fv, fc)
    assert np.allclose(regressor(q, qd, qdd, friction=True) @ base_parameters(arm, fv=fv, fc=fc), tau,
                       rtol=1e-12, atol=1e-12)


def test_gravity_regressor_matches_G_and_full_regressor():
    q = np.random.default_rng(0).uniform(-3, 3, (100, 2))
    th = base_parameters(ARM)
    assert np.allclose(gravity_regressor(q) @ th[3:], ARM.G(q), atol=1e-13)
    z = np.zeros_like(q)
    assert np.allclose(regressor(q, z, z)[..., 3:], gravity_regressor(q))


def test_base_parameters_are_not_separable_but_torques_are_identical():
    # two different arms with the same base parameters give the same torques: why only θ is identifiable
    a = TwoLinkArm(m1=1.0, m2=1.0, l1=1.0, l2=1.0, lc1=0.5, lc2=0.5, I1=0.1, I2=0.1)
    b = a.replace(m1=1.25, lc1=0.4, I1=0.1 + 0.25 - 1.25 * 0.16)   # same m1 lc1 and I1 + m1 lc1^2
    assert np.allclose(base_parameters(a), base_parameters(b))
    q, qd, qdd = np.random.default_rng(1).uniform(-2, 2, (3, 20, 2))
    assert np.allclose(a.inverse_dynamics(q, qd, qdd), b.inverse_dynamics(q, qd, qdd))


def test_fourier_excitation_derivatives_and_period():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 0.3, (2, 2, 4))
    wf = 2 * np.pi * 0.2
    t = np.linspace(0, 5, 301)
    q, qd, qdd = fourier_excitation(t, a, b, wf=wf, q0=[0.1, -0.2])
    h = 1e-6
    qp, qdp, _ = fourier_excitation(t + h, a, b, wf=wf, q0=[0.1, -0.2])
    qm, qdm, _ = fourier_excitation(t - h, a, b, wf=wf, q0=[0.1, -0.2])
    assert np.allclose((qp - qm) / (2 * h), qd, atol=1e-7)
    assert np.allclose((qdp - qdm) / (2 * h), qdd, atol=1e-6)
    qT, _, _ = fourier_excitation(t + 2 * np.pi / wf, a, b, wf=wf, q0=[0.1, -0.2])
    assert np.allclose(qT, q, atol=1e-12)


def test_least_squares_with_noise_is_unbiased_within_standard_errors():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 0.8, (2, 2, 5))
    t = np.linspace(0, 10, 2000)
    q, qd, qdd = fourier_excitation(t, a, b, wf=2 * np.pi * 0.1, q0=[0.0, 0.5])
    fv, fc = np.array([0.2, 0.1]), np.array([0.3, 0.05])
    th = base_parameters(ARM, fv=fv, fc=fc)
    Y = regressor(q, qd, qdd, friction=True)
    tau = Y @ th + rng.normal(0, 0.05, (t.size, 2))
    est = least_squares(Y, tau)
    z = np.abs(est.theta - th) / est.std
    assert np.all(z < 5)
    assert 0.03 < est.residual_rms < 0.07     # the residual reflects the noise level
    assert np.isfinite(est.cond) and est.cond > 1


def test_poor_excitation_has_worse_conditioning():
    rng = np.random.default_rng(4)
    t = np.linspace(0, 10, 1000)
    rich = fourier_excitation(t, rng.normal(0, 0.8, (2, 5)), rng.normal(0, 0.8, (2, 5)), wf=0.6, q0=[0, 0.5])
    poor = fourier_excitation(t, [[0.05], [0.05]], [[0.0], [0.0]], wf=0.6, q0=[0, 0.5])
    assert least_squares(regressor(*rich), np.zeros((1000, 2))).cond < \
        least_squares(regressor(*poor), np.zeros((1000, 2))).cond / 10


def test_rank_deficient_regressor_warns_and_zero_column_raises():
    t = np.linspace(0, 1, 100)
    q = np.stack([0.3 * t, 0.3 * t], -1)       # q1 = q2, constant speed, no acceleration
    Y = regressor(q, np.full_like(q, 0.3), np.zeros_like(q))
    Y[..., 1] = Y[..., 0]                      # two identical columns
    Y[..., 0] += 1e-3
    Y[..., 1] += 1e-3
    with pytest.warns(SingularityWarning):
        least_squares(Y, np.zeros((100, 2)))
    with pytest.raises(ValueError, match="all zero"):
        least_squares(regressor(q, np.zeros_like(q), np.zeros_like(q)), np.zeros((100, 2)))


def test_arm_from_base_parameters_is_dynamically_equivalent():
    th = base_parameters(ARM)
    twin = arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=2.0, m2=1.0)   # different masses
    q, qd, qdd = np.random.default_rng(5).uniform(-2, 2, (3, 30, 2))
    assert np.allclose(twin.inverse_dynamics(q, qd, qdd), ARM.inverse_dynamics(q, qd, qdd), atol=1e-12)
    assert twin.m1 == 2.0 and not np.isclose(twin.lc1, ARM.lc1)
    with pytest.raises(ValueError, match="consistent"):
        arm_from_base_parameters(th, l1=ARM.l1, l2=ARM.l2, m1=1.0, m2=10.0)
    with pytest.raises(ValueError):
        arm_from_base_parameters(th[:3], l1=1.0, l2=1.0, m1=1.0, m2=1.0)


def test_validate_reports_pass():
    assert all(r.passed for r in validate(fast=True))


def test_bad_inputs():
    with pytest.raises(ValueError):
        base_parameters("arm")
    with pytest.raises(ValueError):
        base_parameters(ARM.replace(m1=np.ones(3)))
    with pytest.raises(ValueError):
        base_parameters(ARM, fv=[0.1, 0.1])
    with pytest.raises(ValueError):
        base_parameters(ARM, fv=[0.1, -0.1], fc=[0, 0])
    with pytest.raises(ValueError):
        gravity_regressor([0.0, np.nan])
    with pytest.raises(ValueError):
        gravity_regressor([0.0, 0.0], g=-9.81)
    with pytest.raises(ValueError):
        regressor([0, 0], [0, 0], [0, 0, 0])
    with pytest.raises(ValueError):
        regressor([0, 0], [0, 0], [0, 0], friction="yes")
    with pytest.raises(ValueError):
        regressor([0, 0], [0, np.inf], [0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([[0.0]], [[1.0], [1.0]], [[0.0], [0.0]], wf=1.0, q0=[0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([0.0], [[1.0], [1.0]], [[0.0, 1.0], [0.0, 1.0]], wf=1.0, q0=[0, 0])
    with pytest.raises(ValueError):
        fourier_excitation([0.0], [[1.0], [1.0]], [[0.0], [0.0]], wf=0.0, q0=[0, 0])
    with pytest.raises(ValueError):
        least_squares(np.ones((2, 2, 5)), np.ones((2, 2)))
    with pytest.raises(ValueError):
        least_squares(np.ones((10, 2, 5)), np.ones((9, 2)))
    with pytest.raises(ValueError):
        least_squares(np.ones((10, 3, 5)), np.ones((10, 3)))
    with pytest.raises(ValueError):
        least_squares(np.full((10, 2, 2), np.nan), np.ones((10, 2)))
