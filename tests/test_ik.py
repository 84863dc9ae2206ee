"""Tests of robokin.ik: damped-least-squares IK with an honest result object."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.errors import ConvergenceError
from robokin.ik import BRANCH, damping_squared, ik_dls
from robokin.results import IKResult
from robokin.robots import UR5
from robokin.serial import SerialArm, pose_error
from robokin.transforms import make_transform
from robokin.validation.ik import POPULATIONS, validate

RNG = np.random.default_rng(66)


def test_converges_from_nearby_seeds_batch():
    q = RNG.uniform(-np.pi, np.pi, (500, 6))
    q0 = q + RNG.normal(scale=0.1, size=q.shape)
    res = ik_dls(UR5, UR5.fk(q), q0=q0)
    assert isinstance(res, IKResult)
    assert res.q.shape == (500, 6) and res.valid.shape == (500,) and res.branch == BRANCH == "seeded"
    assert res.valid.dtype == bool and res.residual.shape == res.iterations.shape == res.reason.shape == (500,)
    assert res.valid.mean() >= 0.99
    # success is confirmed independently by FK here too
    e = np.linalg.norm(pose_error(UR5.fk(q), UR5.fk(res.q)), axis=-1)
    assert np.all(e[res.valid] <= 1e-10)
    assert np.all(res.reason[res.valid] == "converged")
    assert np.all(res.reason[~res.valid] != "converged")
    assert np.median(res.iterations[res.valid]) <= 10


def test_single_pose_gives_0d_arrays():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 0.2)
    assert isinstance(res, IKResult) and res.q.shape == (6,)
    assert res.valid.shape == res.residual.shape == res.iterations.shape == res.reason.shape == ()
    assert bool(res.valid) and res.reason == "converged" and float(res.residual) <= 1e-10


def test_failure_has_reason_unreachable():
    T = make_transform(np.eye(3), [3.0, 0.0, 0.0])  # far outside the 0.95 m reach
    res = ik_dls(UR5, T, q0=np.zeros(6), max_iter=50)
    assert not res.valid and res.reason and res.reason != "converged"
    assert res.residual > 1.0
    with pytest.raises(ConvergenceError, match="ik_dls"):
        ik_dls(UR5, T, q0=np.zeros(6), max_iter=20, on_fail="raise")


def test_iteration_cap_reported():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 1.0, max_iter=2)
    assert not res.valid and res.reason == "max_iter=2 reached" and res.iterations == 2


def test_joint_limits_respected_and_reported():
    q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    lim = np.tile([-np.pi, np.pi], (6, 1))
    lim[2] = [-0.5, 0.5]  # the target needs q3 = 1.5 on this branch
    res = ik_dls(UR5, UR5.fk(q), q0=np.array([0.3, -1.2, 0.4, -0.4, 1.1, 0.7]), qlim=lim, max_iter=60)
    assert np.all(res.q >= lim[:, 0]) and np.all(res.q <= lim[:, 1])
    if res.valid:  # another branch inside the limits may exist; then it must really reach
        assert res.residual <= 1e-10
    else:
        assert res.reason != "converged"


def test_singular_target_is_handled():
    # theta5 = 0 (wrist singularity): damping keeps the steps bounded
    q = np.array([0.4, -1.0, 1.3, -0.5, 0.0, 0.9])
    res = ik_dls(UR5, UR5.fk(q), q0=q + 0.05, max_iter=200)
    assert np.all(np.isfinite(res.q))
    assert res.valid or res.reason != "converged"
    assert res.residual <= 1e-6


def test_restarts_improve_far_seeds():
    q = RNG.uniform(-np.pi, np.pi, (100, 6))
    q0 = RNG.uniform(-np.pi, np.pi, (100, 6))
    r0 = ik_dls(UR5, UR5.fk(q), q0=q0, max_iter=60)
    r1 = ik_dls(UR5, UR5.fk(q), q0=q0, max_iter=60, restarts=3, rng=np.random.default_rng(1))
    assert r1.valid.sum() >= r0.valid.sum()
    assert r1.valid.mean() >= 0.95


def test_constant_damping_is_slower_but_honest():
    q = RNG.uniform(-np.pi, np.pi, (200, 6))
    q0 = q + RNG.normal(scale=0.1, size=q.shape)
    ra = ik_dls(UR5, UR5.fk(q), q0=q0)
    rc = ik_dls(UR5, UR5.fk(q), q0=q0, adaptive=False, damping=0.05, max_iter=300)
    assert np.median(rc.iterations) > np.median(ra.iterations)
    assert np.all(rc.residual[rc.valid] <= 1e-10)
    with pytest.raises(ValueError, match="adaptive"):
        ik_dls(UR5, UR5.fk(q[0]), q0=q0[0], adaptive="yes")


def test_validate_reports_pass():
    assert all(r.passed for r in validate(rng=np.random.default_rng(4), fast=True))


def test_planar_arm_generic():
    arm = SerialArm.from_dh(
        [1.0, 0.8, 0.5, 0.3, 0.2, 0.1], [np.pi / 2, -np.pi / 2] * 3, [0.1] * 6, convention="modified"
    )
    q = RNG.uniform(-2, 2, 6)
    res = ik_dls(arm, arm.fk(q), q0=q + 0.05)
    assert res.valid


@settings(max_examples=max(5, settings.default.max_examples // 3), deadline=None)  # scales with the profile
@given(st.integers(0, 2**32 - 1))
def test_property_success_is_never_a_lie(seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, (5, 6))
    res = ik_dls(UR5, UR5.fk(q), q0=q + rng.normal(scale=0.5, size=q.shape), max_iter=30)
    e = np.linalg.norm(pose_error(UR5.fk(q), UR5.fk(res.q)), axis=-1)
    assert np.all(e[res.valid] <= 1e-10)
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
    with pytest.raises(ValueError, match="homogeneous"):
        ik_dls(UR5, 2 * np.eye(4), q0=np.zeros(6))
    Tr = T.copy()
    Tr[0, 0] = 1.01
    with pytest.raises(ValueError, match="rotation"):
        ik_dls(UR5, Tr, q0=np.zeros(6))
    with pytest.raises(ValueError, match="complex"):
        ik_dls(UR5, T + 0j, q0=np.zeros(6))
    with pytest.raises(ValueError, match="complex"):
        ik_dls(UR5, T, q0=np.zeros(6) + 1j)
    Th = T.copy()
    Th[1, 3] = 1e300
    with pytest.raises(ValueError, match="magnitude"):
        ik_dls(UR5, Th, q0=np.zeros(6))
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


# ---- damping law and near-singular targets (issue #16) ---------------------------------------
def test_damping_law_values():
    eps, lam = 0.01, 0.1
    s = np.array([0.0, 0.25 * eps, 0.5 * eps, 0.999 * eps, eps, 2 * eps])
    big = np.ones_like(s)  # error above the fade threshold: full law
    np.testing.assert_allclose(
        damping_squared(s, big, damping=lam, sigma_threshold=eps),
        (1 - (s / eps) ** 2).clip(0) * (s < eps) * lam**2,
        rtol=1e-15,
        atol=0,
    )
    assert damping_squared(np.array([0.5 * eps]), np.array([1.0]), damping=lam, sigma_threshold=eps)[0] == 0.75 * lam**2
    # fading with the error, quadratically: error e0 / 2 gives a quarter
    half = damping_squared(np.zeros(1), np.array([0.5e-2]), damping=lam, sigma_threshold=eps)[0]
    assert half == pytest.approx(0.25 * lam**2, rel=1e-15)
    # constant damping: lambda^2 (not lambda) whatever sigma and the error
    np.testing.assert_array_equal(
        damping_squared(s, 1e-9 * big, damping=lam, sigma_threshold=np.inf), np.full(s.shape, lam**2)
    )


def test_constant_damping_step_is_the_damped_pseudo_inverse():
    # one iteration with adaptive=False is q0 + J^T (J J^T + lambda^2 I)^-1 e (step below max_step)
    q_true = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    q0 = q_true + 0.01
    lam = 0.05
    res = ik_dls(UR5, UR5.fk(q_true), q0=q0, adaptive=False, damping=lam, max_iter=1)
    J = UR5.jacobian(q0)
    e = pose_error(UR5.fk(q_true), UR5.fk(q0))
    expected = q0 + J.T @ np.linalg.solve(J @ J.T + lam**2 * np.eye(6), e)
    np.testing.assert_allclose(res.q, expected, rtol=0, atol=1e-13)


def test_success_by_distance_to_the_wrist_singularity():
    # 99.9 % is over q uniform; near the wrist singularity the bar is 1e-2 per POPULATIONS. Before the squared
    # fade these rates were 94 % (|q5| = 1e-3) and 64 % (1e-4): this test failed there.
    rng = np.random.default_rng(8)
    for label, q5, bar in POPULATIONS[1:]:
        q = rng.uniform(-np.pi, np.pi, (400, 6))
        q[:, 4] = q5 * rng.choice([-1.0, 1.0], len(q))
        res = ik_dls(UR5, UR5.fk(q), q0=q + rng.normal(scale=0.1, size=q.shape))
        assert res.valid.mean() >= 1 - 2 * bar, (label, res.valid.mean())


def test_validate_reports_each_population_with_a_binomial_bar():
    reps = validate(rng=np.random.default_rng(5), fast=True)
    assert len(reps) == len(POPULATIONS) + 1
    for (label, _, bar), rep in zip(POPULATIONS, reps):
        assert label in rep.name and "binomial" in rep.name and rep.tol == bar


@pytest.mark.parametrize(
    "kw",
    [
        dict(sigma_min=np.array([np.nan])),
        dict(err=np.array([1e300])),
        dict(sigma_min=np.array([-1.0])),
        dict(damping=0.0),
        dict(damping=np.inf),
        dict(sigma_threshold=np.nan),
        dict(sigma_threshold="0.01"),
        dict(err=np.array([1.0 + 1j])),
    ],
)
def test_damping_squared_refuses_bad_input(kw):
    args = dict(sigma_min=np.array([0.005]), err=np.array([1.0]), damping=0.1, sigma_threshold=0.01) | kw
    with pytest.raises(ValueError):
        damping_squared(**args)


def test_ik_module_does_not_import_ur5():
    # layer rule: ik (numerical IK of any SerialArm) sits below the UR5 and the reference robots
    import ast
    from pathlib import Path

    import robokin.ik

    tree = ast.parse(Path(robokin.ik.__file__).read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert names and not [m for m in names if "ur5" in m or "robots" in m or "validation" in m]
    assert not hasattr(robokin.ik, "validate") and "IKResult" not in robokin.ik.__all__
    assert robokin.ik.IKResult is IKResult  # the one shared result type, not a second one


# ------------------------------------------------------------------ issue 29: every option validated
Q29 = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])


def test_a_vacuous_tolerance_cannot_call_a_wrong_pose_converged():
    T = UR5.fk(Q29)
    far = Q29 + 0.8
    res = ik_dls(UR5, T, q0=far, max_iter=1)
    assert not res.valid  # one step from far away: not converged
    with pytest.raises(ValueError, match="tol must be at most 0.001"):  # tol=1e300 gave valid=True before
        ik_dls(UR5, T, q0=far, tol=1e300, max_iter=1)


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(tol=1 + 1j), "tol"),
        (dict(tol="1e-9"), "tol"),
        (dict(damping=1e300), "damping"),
        (dict(damping=0.0), "damping"),
        (dict(sigma_threshold=1e-300), "sigma_threshold"),
        (dict(sigma_threshold=np.inf), "sigma_threshold"),
        (dict(max_step=1e300), "max_step"),
        (dict(max_step=0.0), "max_step"),
        (dict(max_iter=10**30), "max_iter"),
        (dict(max_iter=2.0), "max_iter"),
        (dict(restarts=10**6), "restarts"),
        (dict(rng=np.nan), "rng"),
        (dict(adaptive=1), "adaptive"),
    ],
)
def test_ik_dls_options(kw, name):
    with pytest.raises(ValueError, match=f"^{name} "):
        ik_dls(UR5, UR5.fk(Q29), q0=Q29 + 0.1, **kw)


def test_numpy_scalar_options_behave_like_python_ones():
    T = UR5.fk(Q29)
    a = ik_dls(UR5, T, q0=Q29 + 0.1, max_iter=np.int64(50), tol=np.float32(1e-10))
    b = ik_dls(UR5, T, q0=Q29 + 0.1, max_iter=50, tol=float(np.float32(1e-10)))
    np.testing.assert_array_equal(a.q, b.q)


def test_damping_squared_bounds():
    with pytest.raises(ValueError, match="sigma_threshold"):
        damping_squared([0.1], [1.0], damping=0.1, sigma_threshold=1e-300)  # overflowed (s / eps)^2 before
    with pytest.raises(ValueError, match="sigma_min and err must broadcast"):
        damping_squared([0.1, 0.2], [1.0, 1.0, 1.0], damping=0.1, sigma_threshold=0.01)
