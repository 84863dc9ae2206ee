"""Tests of robokin.ik: damped-least-squares IK with an honest result object."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from robokin.errors import ConvergenceError
from robokin.ik import IKResult, ik_dls, validate
from robokin.serial import SerialArm, pose_error
from robokin.transforms import make_transform
from robokin.ur5 import UR5

RNG = np.random.default_rng(66)


def test_converges_from_nearby_seeds_batch():
    q = RNG.uniform(-np.pi, np.pi, (500, 6))
    q0 = q + RNG.normal(scale=0.1, size=q.shape)
    res = ik_dls(UR5, UR5.fk(q), q0=q0)
    assert isinstance(res, IKResult)
    assert res.q.shape == (500, 6) and res.success.shape == (500,)
    assert res.success.mean() >= 0.99
    # success is confirmed independently by FK here too
    e = np.linalg.norm(pose_error(UR5.fk(q), UR5.fk(res.q)), axis=-1)
    assert np.all(e[res.success] <= 1e-10)
    assert np.all(res.reason[res.success] == "converged")
    assert np.all(res.reason[~res.success] != "converged")
    assert np.median(res.iterations[res.success]) <= 10


def test_single_pose_scalars():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 0.2)
    assert res.success is True and isinstance(res.residual, float) and isinstance(res.iterations, int)
    assert res.reason == "converged" and res.residual <= 1e-10


def test_failure_has_reason_unreachable():
    T = make_transform(np.eye(3), [3.0, 0.0, 0.0])  # far outside the 0.95 m reach
    res = ik_dls(UR5, T, q0=np.zeros(6), max_iter=50)
    assert res.success is False and res.reason and res.reason != "converged"
    assert res.residual > 1.0
    with pytest.raises(ConvergenceError, match="ik_dls"):
        ik_dls(UR5, T, q0=np.zeros(6), max_iter=20, on_fail="raise")


def test_iteration_cap_reported():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 1.0, max_iter=2)
    assert res.success is False and res.reason == "max_iter=2 reached" and res.iterations == 2


def test_joint_limits_respected_and_reported():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    lim = np.tile([-np.pi, np.pi], (6, 1))
    lim[2] = [-0.5, 0.5]  # the target needs q3 = 1.5 on this branch
    res = ik_dls(UR5, UR5.fk(q), q0=np.array([0.3, -1.2, 0.4, -0.4, 1.1, 0.7]), qlim=lim, max_iter=60)
    assert np.all(res.q >= lim[:, 0]) and np.all(res.q <= lim[:, 1])
    if res.success:  # another branch inside the limits may exist; then it must really reach
        assert res.residual <= 1e-10
    else:
        assert res.reason != "converged"


def test_singular_target_is_handled():
    # theta5 = 0 (wrist singularity): damping keeps the steps bounded
    q = np.array([0.4, -1.0, 1.3, -0.5, 0.0, 0.9])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 0.05, max_iter=200)
    assert np.all(np.isfinite(res.q))
    assert res.success or res.reason != "converged"
    assert res.residual <= 1e-6


def test_restarts_improve_far_seeds():
    q = RNG.uniform(-np.pi, np.pi, (100, 6))
    q0 = RNG.uniform(-np.pi, np.pi, (100, 6))
    r0 = ik_dls(UR5, UR5.fk(q), q0=q0, max_iter=60)
    r1 = ik_dls(UR5, UR5.fk(q), q0=q0, max_iter=60, restarts=3, rng=np.random.default_rng(1))
    assert r1.success.sum() >= r0.success.sum()
    assert r1.success.mean() >= 0.95


def test_constant_damping_is_slower_but_honest():
    q = RNG.uniform(-np.pi, np.pi, (200, 6))
    q0 = q + RNG.normal(scale=0.1, size=q.shape)
    ra = ik_dls(UR5, UR5.fk(q), q0=q0)
    rc = ik_dls(UR5, UR5.fk(q), q0=q0, adaptive=False, damping=0.05, max_iter=300)
    assert np.median(rc.iterations) > np.median(ra.iterations)
    assert np.all(rc.residual[rc.success] <= 1e-10)
    with pytest.raises(ValueError, match="adaptive"):
        ik_dls(UR5, UR5.fk(q[0]), q0=q0[0], adaptive="yes")


def test_validate_reports_pass():
    assert all(r.passed for r in validate(rng=np.random.default_rng(4), fast=True))


def test_planar_arm_generic():
    arm = SerialArm.from_dh([1.0, 0.8, 0.5, 0.3, 0.2, 0.1], [np.pi / 2, -np.pi / 2] * 3, [0.1] * 6,
                            convention="modified")
    q = RNG.uniform(-2, 2, 6)
    res = ik_dls(arm, arm.fk(q), q0=q + 0.05)
    assert res.success


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_property_success_is_never_a_lie(seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, (5, 6))
    res = ik_dls(UR5, UR5.fk(q), q0=q + rng.normal(scale=0.5, size=q.shape), max_iter=30)
    e = np.linalg.norm(pose_error(UR5.fk(q), UR5.fk(res.q)), axis=-1)
    assert np.all(e[res.success] <= 1e-10)
    assert np.all([len(r) > 0 for r in res.reason])
    assert np.all(UR5.within_limits(res.q))


# ---- bad input -------------------------------------------------------------------------------

def test_bad_inputs():
    T = UR5.fk(np.zeros(6))
    with pytest.raises(TypeError):
        ik_dls(UR5, T)  # q0 is required: no hidden default seed
    with pytest.raises(ValueError, match="SerialArm"):
        ik_dls("ur5", T, q0=np.zeros(6))
    with pytest.raises(ValueError, match="non-finite"):
        ik_dls(UR5, T, q0=[0, 0, 0, 0, 0, np.nan])
    with pytest.raises(ValueError, match="non-finite"):
        ik_dls(UR5, np.full((4, 4), np.inf), q0=np.zeros(6))
    with pytest.raises(ValueError, match=r"\(\.\.\., 6\)"):
        ik_dls(UR5, T, q0=np.zeros(5))
    with pytest.raises(ValueError, match=r"\(\.\.\., 4, 4\)"):
        ik_dls(UR5, np.eye(3), q0=np.zeros(6))
    with pytest.raises(ValueError, match="rotation"):
        ik_dls(UR5, 2 * np.eye(4), q0=np.zeros(6))
    with pytest.raises(ValueError, match="tol"):
        ik_dls(UR5, T, q0=np.zeros(6), tol=0)
    with pytest.raises(ValueError, match="damping"):
        ik_dls(UR5, T, q0=np.zeros(6), damping=np.nan)
    with pytest.raises(ValueError, match="max_iter"):
        ik_dls(UR5, T, q0=np.zeros(6), max_iter=2.5)
    with pytest.raises(ValueError, match="rng"):
        ik_dls(UR5, T, q0=np.zeros(6), restarts=2)
    with pytest.raises(ValueError, match="on_fail"):
        ik_dls(UR5, T, q0=np.zeros(6), on_fail="ignore")
    with pytest.raises(ValueError, match="qlim"):
        ik_dls(UR5, T, q0=np.zeros(6), qlim=np.zeros((6, 2)))
    with pytest.raises(ValueError, match="outside the joint limits"):
        ik_dls(UR5, T, q0=np.full(6, 7.0))
