"""Tests for robokin.stewart (chapters 9 and 10)."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st_
from scipy.integrate import solve_ivp

from robokin import _primitives
from robokin.checks import check_jacobian, jacobian_fd
from robokin.errors import ConvergenceError, SingularityWarning, UnreachableError
from robokin.results import IKResult
from robokin.robots import STEWART, STEWART_PAYLOAD
from robokin.stewart import (
    FKResult,
    PlatformParams,
    Stewart,
    StewartDynamics,
    corner_path,
    leg_friction,
    paired_layout,
    uniform_layout,
)
from robokin.transforms import interpolate_pose, make_transform, rpy_to_matrix, se3_log, transform_inverse
from robokin.validation.stewart import validate

DEG = np.pi / 180


@pytest.fixture(scope="module")
def st():
    return Stewart(STEWART.base, STEWART.top)


@pytest.fixture(scope="module")
def dyn(st):
    return StewartDynamics(
        st,
        PlatformParams(
            12.0,
            np.diag([0.25, 0.3, 0.45]),
            com=(0.01, -0.02, 0.03),
            leg_mass=0.4,
            viscous=20.0,
            coulomb=5.0,
            coulomb_speed=0.01,
        ),
    )


def poses(rng, n):
    lo = np.array([-0.05, -0.05, 0.37, -0.2, -0.2, -0.3])
    hi = np.array([0.05, 0.05, 0.47, 0.2, 0.2, 0.3])
    return rng.uniform(lo, hi, size=(n, 6))


# ------------------------------------------------------------------ layouts
def test_uniform_layout_geometry():
    b, p = uniform_layout(0.5, 0.35, phase=30 * DEG)
    np.testing.assert_allclose(np.linalg.norm(b, axis=0), 0.5)
    ang_b = np.arctan2(b[1], b[0])
    ang_p = np.arctan2(p[1], p[0])
    np.testing.assert_allclose(np.angle(np.exp(1j * (ang_p - ang_b))), 30 * DEG, atol=1e-12)
    np.testing.assert_allclose(np.diff(np.unwrap(ang_b)), 60 * DEG, atol=1e-12)


def test_paired_layout_pairs_and_symmetry():
    b, p = paired_layout(0.5, 0.35, base_pair_angle=20 * DEG, top_pair_angle=30 * DEG)
    # pair separations
    for k in range(3):
        cb = b[:2, 2 * k] @ b[:2, 2 * k + 1] / 0.25
        assert np.isclose(np.arccos(cb), 20 * DEG)
    ang = np.sort(np.mod(np.rad2deg(np.arctan2(p[1], p[0])), 360))
    np.testing.assert_allclose(ang, [45, 75, 165, 195, 285, 315], atol=1e-9)
    # three-fold symmetric: centroid at the origin
    np.testing.assert_allclose(b.sum(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 0, atol=1e-12)


def test_uniform_layout_is_architecturally_singular_paired_is_not(st):
    q = poses(np.random.default_rng(0), 300)
    bad = Stewart(*uniform_layout(0.5, 0.35, phase=30 * DEG))
    assert np.linalg.cond(bad.jacobian(q)).min() > 1e12
    assert np.linalg.cond(st.jacobian(q)).max() < 20


# ------------------------------------------------------------------ IK and rigid-body checks
def test_ik_matches_definition_per_leg(st):
    q = np.array([0.01, -0.02, 0.4, 0.1, -0.05, 0.2])
    R = rpy_to_matrix(q[3:])
    expect = [np.linalg.norm(q[:3] + R @ st.top[:, i] - st.base[:, i]) for i in range(6)]
    np.testing.assert_allclose(st.ik(q).q, expect, rtol=1e-14)
    np.testing.assert_array_equal(st.leg_lengths(q), st.ik(q).q)


def test_ik_shapes(st):
    q = poses(np.random.default_rng(1), 12).reshape(3, 4, 6)
    res = st.ik(q)
    assert res.q.shape == (3, 4, 6) and res.valid.shape == res.residual.shape == (3, 4)
    assert st.jacobian(q).shape == (3, 4, 6, 6)
    assert st.anchors_world(q).shape == (3, 4, 6, 3)
    np.testing.assert_allclose(res.q[1, 2], st.ik(q[1, 2]).q)


def test_anchor_distances_preserved(st):
    q = poses(np.random.default_rng(2), 200)
    a = st.anchors_world(q)
    d = np.linalg.norm(a[:, :, None] - a[:, None], axis=-1)
    d0 = np.linalg.norm(st.top.T[:, None] - st.top.T[None], axis=-1)
    np.testing.assert_allclose(d, np.broadcast_to(d0, d.shape), atol=1e-14)


def test_ik_stroke_limits():
    s = STEWART
    q = np.array([[0, 0, 0.42, 0, 0, 0], [0, 0, 0.9, 0, 0, 0], [0, 0, 0.1, 0, 0, 0]])
    with pytest.raises(UnreachableError, match="2 of 3"):
        s.ik(q)
    res = s.ik(q, on_unreachable="nan")
    np.testing.assert_array_equal(res.valid, [True, False, False])
    assert np.all(np.isnan(res.q[1:])) and np.all(np.isfinite(res.q[0]))
    np.testing.assert_array_equal(s.reachable(q), res.valid)


# ------------------------------------------------------------------ Jacobians
def test_jacobian_pose_rates_vs_fd(st):
    q = poses(np.random.default_rng(3), 300)
    rep = check_jacobian(st.jacobian_pose_rates, st.leg_lengths, q, tol=1e-7)
    assert rep.passed


def test_twist_jacobian_vs_fd_along_motion(st):
    # J maps [v; omega] to Ldot: compare with d/dt L(q(t)) for a motion q(t) = q0 + t qd
    rng = np.random.default_rng(4)
    q0, qd = poses(rng, 1)[0], rng.normal(size=6)
    h = 1e-6
    ldot_fd = (st.leg_lengths(q0 + h * qd) - st.leg_lengths(q0 - h * qd)) / (2 * h)
    twist = st.rate_map(q0) @ qd
    np.testing.assert_allclose(st.jacobian(q0) @ twist, ldot_fd, atol=1e-8)


def test_world_anchor_rows_fail_fd(st):
    """The pitfall: rows [n, (x + R p) x n] without the rate map are not dL/dq."""
    q = poses(np.random.default_rng(5), 50)
    a = st.anchors_world(q)
    n = st.leg_vectors(q) / st.leg_lengths(q)[..., None]
    wrong = np.concatenate([n, np.cross(a, n)], -1)
    err = np.abs(wrong - jacobian_fd(st.leg_lengths, q)).max()
    assert err > 0.1


def test_jacobian_transpose_is_statics(st):
    # virtual work: f . Ldot = wrench . twist for any twist
    rng = np.random.default_rng(6)
    q = poses(rng, 1)[0]
    f, t = rng.normal(size=6), rng.normal(size=6)
    J = st.jacobian(q)
    assert np.isclose(f @ (J @ t), (J.T @ f) @ t)


def test_twist_from_leg_rates_and_dls(st):
    q = np.array([0, 0, 0.42, 0, 0, 0.2])
    t = np.array([0.1, -0.05, 0.02, 0.3, -0.1, 0.2])
    np.testing.assert_allclose(st.twist_from_leg_rates(q, st.jacobian(q) @ t), t, atol=1e-12)
    near = np.array([0, 0, 0.42, 0, 0, 90 * DEG])
    with pytest.warns(SingularityWarning):
        st.twist_from_leg_rates(near, np.ones(6))
    damped = st.twist_from_leg_rates(near, np.ones(6), damping=0.05)
    assert np.all(np.isfinite(damped)) and np.linalg.norm(damped) < 1e3


# ------------------------------------------------------------------ forward kinematics
def test_fk_roundtrip_batch(st):
    q = poses(np.random.default_rng(7), 500)
    out = st.fk(st.ik(q).q)
    np.testing.assert_allclose(out, q, atol=1e-9)


def test_fk_solve_and_convergence_error(st):
    q = poses(np.random.default_rng(8), 5)
    res = st.fk_solve(st.ik(q).q)
    assert isinstance(res, FKResult)
    assert res.valid.all() and res.residual.max() <= 1e-10 and res.iterations.max() <= 10
    np.testing.assert_array_equal(res.pose, st.fk(st.ik(q).q))
    # impossible lengths: one leg far too long for the others
    L = st.ik(q[0]).q.copy()
    L[0] = 3.0
    with pytest.raises(ConvergenceError) as ei:
        st.fk(L, max_iter=20)
    assert ei.value.iterations == 20 and ei.value.residual > 1e-3
    res = st.fk_solve(L, max_iter=20)
    assert not res.valid and res.residual > 1e-3 and res.iterations == 20


def test_fk_finds_another_assembly_mode(st):
    q0 = np.array([0.02, -0.01, 0.45, 0.05, -0.08, 0.15])
    rng = np.random.default_rng(3)
    n = 300
    g = np.column_stack(
        [
            rng.uniform(-0.4, 0.4, n),
            rng.uniform(-0.4, 0.4, n),
            rng.uniform(0.05, 0.8, n),
            rng.uniform(-1.2, 1.2, (n, 3)),
        ]
    )
    res = st.fk_solve(st.ik(q0).q, guess=g)
    sols = res.pose[res.valid & (res.pose[:, 2] > 0)]
    np.testing.assert_allclose(st.leg_lengths(sols), np.broadcast_to(st.ik(q0).q, sols.shape), atol=1e-9)
    T = rpy_to_matrix(sols[:, 3:])
    dist = np.linalg.norm(sols[:, :3] - q0[:3], axis=1) + np.abs(T - rpy_to_matrix(q0[3:])).max(axis=(1, 2))
    assert dist.max() > 0.1  # a genuinely different pose with the same six lengths


@settings(deadline=None)
@given(st_.lists(st_.floats(-1, 1), min_size=6, max_size=6))
def test_property_fk_ik_roundtrip(u):
    q = np.array([0.05, 0.05, 0.05, 0.2, 0.2, 0.3]) * np.array(u) + [0, 0, 0.42, 0, 0, 0]
    res = STEWART.ik(q, on_unreachable="nan")
    assume(bool(res.valid))  # corners of this box can leave the actuator stroke (hypothesis finds them)
    np.testing.assert_allclose(STEWART.fk(res.q), q, atol=1e-9)


# ------------------------------------------------------------------ dynamics
def test_mass_matrix_spd_and_kinetic_energy(dyn):
    q = poses(np.random.default_rng(9), 50)
    M = dyn.mass_matrix(q)
    np.testing.assert_allclose(M, np.swapaxes(M, -1, -2), atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0


def test_static_equilibrium_leg_forces(st):
    dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
    q = np.array([0.01, 0.02, 0.42, 0.05, 0.1, -0.1])
    f = dyn.leg_forces(q, np.zeros(6), np.zeros(6))
    wrench = st.jacobian(q).T @ f
    np.testing.assert_allclose(wrench, [0, 0, 98.1, 0, 0, 0], atol=1e-10)
    # generalised form: the weight, mapped to the pose coordinates by S^T (no force on roll, pitch and yaw here)
    np.testing.assert_allclose(dyn.inverse_dynamics(q, np.zeros(6), np.zeros(6)), st.rate_map(q).T @ wrench, atol=1e-10)


def test_inverse_forward_backsubstitution(dyn):
    rng = np.random.default_rng(10)
    q = poses(rng, 200)
    qd, qdd = rng.normal(size=(2, 200, 6))
    tau = dyn.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(dyn.forward_dynamics(q, qd, tau), qdd, atol=1e-9)
    f = dyn.leg_forces(q, qd, qdd)  # the same motion from the legs: tau = Jq^T f
    Jq = dyn.robot.jacobian_pose_rates(q)
    np.testing.assert_allclose((np.swapaxes(Jq, -1, -2) @ f[..., None])[..., 0], tau, rtol=1e-10, atol=1e-8)


def test_newton_euler_against_fd_of_momentum(dyn):
    # bias term check: d/dt (dT/dqd) - dT/dq = M qdd + h  (Lagrange), by finite differences
    rng = np.random.default_rng(11)
    q, qd, qdd = poses(rng, 1)[0], rng.normal(size=6), rng.normal(size=6)

    def T(q_, qd_):
        return 0.5 * qd_ @ dyn.mass_matrix(q_) @ qd_

    h = 1e-5
    p = lambda t: dyn.mass_matrix(q + t * qd + 0.5 * t * t * qdd) @ (qd + t * qdd)  # noqa: E731
    dpdt = (p(h) - p(-h)) / (2 * h)
    dTdq = np.array([(T(q + h * e, qd) - T(q - h * e, qd)) / (2 * h) for e in np.eye(6)])
    lhs = dpdt - dTdq
    rhs = dyn.mass_matrix(q) @ qdd + dyn.bias(q, qd)
    np.testing.assert_allclose(lhs, rhs, atol=1e-6)
    # gravity is the gradient of the potential energy
    V = lambda q_: dyn.energy(q_, np.zeros(6))  # noqa: E731
    gradV = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(6)])
    np.testing.assert_allclose(dyn.gravity(q), gradV, atol=1e-6)


def _spring_force(st, L0, f0, k):
    return lambda t, q, qd: f0 - k * (st.leg_lengths(q) - L0)


def test_energy_conserved_without_friction_and_decreasing_with(st):
    p0 = dict(mass=12.0, inertia=np.diag([0.25, 0.3, 0.45]))
    q0 = np.array([0, 0, 0.42, 0, 0, 0])
    k = 5e3
    L0 = st.ik(q0).q
    for fric in (False, True):
        prm = PlatformParams(**p0, viscous=30.0 if fric else 0.0, coulomb=5.0 if fric else 0.0, coulomb_speed=0.01)
        d = StewartDynamics(st, prm)
        f0 = StewartDynamics(st, PlatformParams(**p0)).leg_forces(q0, np.zeros(6), np.zeros(6))
        force = _spring_force(st, L0, f0, k)
        y0 = np.r_[q0 + [0.01, -0.005, 0.01, 0.03, -0.02, 0.05], np.zeros(6)]
        sol = solve_ivp(d.ode(force), (0, 0.25), y0, method="DOP853", rtol=1e-10, atol=1e-12)
        q, qd = sol.y[:6].T, sol.y[6:].T
        dL = st.leg_lengths(q) - L0
        E = d.energy(q, qd) + 0.5 * k * np.sum(dL**2, -1) - (st.leg_lengths(q) @ f0)
        if fric:
            assert np.all(np.diff(E) <= 1e-9 * abs(E[0]))
            assert E[-1] < E[0] - 1e-3
        else:
            assert np.abs(E - E[0]).max() / abs(E[0]) < 1e-8


def test_leg_friction_properties():
    v = np.linspace(-1, 1, 601)
    f = leg_friction(np.repeat(v[:, None], 6, 1), viscous=3.0, coulomb=2.0, coulomb_speed=0.01)
    assert np.all(f * v[:, None] >= 0)  # always dissipative
    assert np.all(np.diff(f[:, 0]) > 0)  # monotone
    np.testing.assert_allclose(f[-1, 0], 3.0 + 2.0 * np.tanh(100), rtol=1e-12)


def test_validate_passes():
    reps = validate(fast=True)
    assert len(reps) >= 4 and all(r.passed for r in reps)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_inputs_raise(st, dyn, bad):
    q = np.array([0, 0, 0.42, 0, 0, bad])
    ok = np.array([0, 0, 0.42, 0, 0, 0.0])
    for call in (
        lambda: st.ik(q),
        lambda: st.leg_lengths(q),
        lambda: st.jacobian(q),
        lambda: st.jacobian_pose_rates(q),
        lambda: st.anchors_world(q),
        lambda: st.leg_vectors(q),
        lambda: st.rate_map(q),
        lambda: st.reachable(q),
        lambda: st.fk(q),
        lambda: st.fk(st.ik(ok).q, guess=q),
        lambda: st.fk_solve(q),
        lambda: st.fk_solve(st.ik(ok).q, guess=q),
        lambda: st.twist_from_leg_rates(q, np.ones(6)),
        lambda: st.twist_from_leg_rates(ok, q),
        lambda: st.home_guess(q),
        lambda: dyn.mass_matrix(q),
        lambda: dyn.bias(ok, q),
        lambda: dyn.gravity(q),
        lambda: dyn.inverse_dynamics(ok, ok * 0, q),
        lambda: dyn.leg_forces(ok, ok * 0, q),
        lambda: dyn.leg_forces(q, ok * 0, ok),
        lambda: dyn.forward_dynamics(ok, ok * 0, q),
        lambda: dyn.energy(q, ok),
        lambda: dyn.friction(ok, q),
        lambda: leg_friction(q, viscous=1.0, coulomb=1.0, coulomb_speed=0.1),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("shape", [(5,), (7,), (6, 5), ()])
def test_wrong_shapes_raise(st, dyn, shape):
    x = np.ones(shape)
    for call in (
        lambda: st.ik(x),
        lambda: st.jacobian(x),
        lambda: st.jacobian_pose_rates(x),
        lambda: st.fk(x),
        lambda: dyn.mass_matrix(x),
        lambda: dyn.forward_dynamics(x, x, x),
    ):
        with pytest.raises(ValueError, match="shape"):
            call()


@settings(deadline=None)
@given(
    st_.lists(st_.one_of(st_.floats(allow_nan=True, allow_infinity=True), st_.integers(-5, 5)), min_size=0, max_size=8)
)
def test_property_hostile_poses(vals):
    free = Stewart(STEWART.base, STEWART.top)
    x = np.array(vals, dtype=float)
    for fn in (free.leg_lengths, free.jacobian, free.jacobian_pose_rates, STEWART.reachable):
        try:
            out = fn(x)
        except (ValueError, np.linalg.LinAlgError) as e:
            assert not isinstance(e, np.linalg.LinAlgError), "LinAlgError leaked"
            continue
        out = np.asarray(out)
        assert x.shape == (6,) and np.all(np.isfinite(x))
        if out.dtype != bool:
            assert np.all(np.isfinite(out))


def test_zero_length_leg_raises(st):
    # put the platform so that top anchor 0 coincides with base anchor 0
    q = np.zeros(6)
    q[:3] = st.base[:, 0] - st.top[:, 0]
    with pytest.raises(ValueError, match="zero-length"):
        st.jacobian(q)
    with pytest.raises(ValueError, match="zero-length"):
        StewartDynamics(st, PlatformParams(1.0, np.eye(3))).forward_dynamics(q, np.zeros(6), np.zeros(6))
    with pytest.raises(UnreachableError):
        st.ik(q)


def test_bad_constructors_and_options(st):
    b, p = uniform_layout(0.5, 0.35, phase=0.0)
    with pytest.raises(ValueError):
        Stewart(b[:, :5], p)
    with pytest.raises(ValueError):
        Stewart(b, np.full((3, 6), np.nan))
    with pytest.raises(ValueError):
        Stewart(b, p, stroke=(0.6, 0.4))
    with pytest.raises(ValueError):
        Stewart(np.ones((2, 3, 6)), p)
    for bad in (-0.5, 0.0, np.nan, "a"):
        with pytest.raises(ValueError):
            uniform_layout(bad, 0.35, phase=0.0)
        with pytest.raises(ValueError):
            paired_layout(0.5, bad, base_pair_angle=0.3, top_pair_angle=0.3)
    with pytest.raises(ValueError):
        uniform_layout(0.5, 0.35, phase=np.inf)
    with pytest.raises(ValueError):
        paired_layout(0.5, 0.35, base_pair_angle=2.2, top_pair_angle=0.3)
    with pytest.raises(ValueError, match="on_unreachable"):
        st.ik([0, 0, 0.42, 0, 0, 0], on_unreachable="ignore")
    with pytest.raises(ValueError):
        st.fk(-np.ones(6))
    with pytest.raises(ValueError):
        st.fk(np.full(6, 0.5), tol=-1)
    with pytest.raises(ValueError):
        st.fk(np.full(6, 0.5), max_iter=0)
    with pytest.raises(ValueError):
        st.twist_from_leg_rates(np.array([0, 0, 0.42, 0, 0, 0]), np.ones(6), damping=-1.0)
    with pytest.raises(ValueError):
        leg_friction(np.zeros(6), viscous=-1.0, coulomb=0.0, coulomb_speed=0.1)
    with pytest.raises(ValueError):
        leg_friction(np.zeros(6), viscous=1.0, coulomb=0.0, coulomb_speed=0.0)


def test_bad_dynamics_params(st):
    with pytest.raises(ValueError):
        PlatformParams(-1.0, np.eye(3))
    with pytest.raises(ValueError):
        PlatformParams(1.0, np.diag([1.0, -1.0, 1.0]))
    with pytest.raises(ValueError):
        PlatformParams(1.0, [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError):
        PlatformParams(1.0, np.eye(3), leg_mass=-0.1)
    with pytest.raises(ValueError):
        PlatformParams(1.0, np.eye(3), com=(0, 0))
    with pytest.raises(ValueError):
        StewartDynamics("robot", PlatformParams(1.0, np.eye(3)))
    with pytest.raises(ValueError):
        StewartDynamics(st, {"mass": 1.0})
    with pytest.raises(ValueError):
        StewartDynamics(st, PlatformParams(1.0, np.eye(3))).ode(3.0)


def test_singular_layout_warns_in_leg_forces():
    bad = Stewart(*uniform_layout(0.5, 0.35, phase=30 * DEG))
    d = StewartDynamics(bad, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
    with pytest.warns(SingularityWarning):
        try:
            d.leg_forces([0, 0, 0.42, 0, 0, 0], np.zeros(6), np.zeros(6))
        except np.linalg.LinAlgError:
            pass


# ------------------------------------------------------------------ issue 16: inertias, gimbal lock, ODE callbacks
from robokin.errors import SingularityError  # noqa: E402
from robokin.stewart import GIMBAL_COS  # noqa: E402


@pytest.mark.parametrize(
    "I",
    [
        np.diag([0.1, 0.1, 0.3]),
        np.diag([0.5, 0.2, 0.2]),
        np.array([[0.2, 0.15, 0.0], [0.15, 0.2, 0.0], [0.0, 0.0, 0.05]]),
    ],
)
def test_platform_inertia_must_obey_triangle_inequality(I):
    assert np.linalg.eigvalsh(I).min() > 0  # positive definite, yet no rigid body has it
    with pytest.raises(ValueError, match="triangle inequality"):
        PlatformParams(10.0, I)


def test_platform_inertia_flat_plate_is_allowed():
    assert PlatformParams(10.0, np.diag([0.1, 0.2, 0.3])).mass == 10.0


def test_forward_dynamics_at_gimbal_lock_raises(dyn):
    """pitch = pi/2: S(q) and M(q) are singular; before, solve returned accelerations of ~1e16."""
    q = np.array([[0, 0, 0.42, 0.1, np.pi / 2, 0.2], [0, 0, 0.42, 0, 0, 0]])
    with pytest.raises(SingularityError, match=r"1 pose\(s\) with pitch = \+-pi/2") as ei:
        dyn.forward_dynamics(q, np.zeros(6), np.zeros(6))
    assert ei.value.cond > 1e12
    near = np.array([0, 0, 0.42, 0.0, np.pi / 2 - 1e-3, 0.0])  # cos = 1e-3: well conditioned enough
    assert np.all(np.isfinite(dyn.forward_dynamics(near, np.zeros(6), np.zeros(6))))


def test_gimbal_threshold_is_1e_minus_6(dyn):
    assert GIMBAL_COS == 1e-6
    ok = np.array([0, 0, 0.42, 0.0, np.arccos(2e-6), 0.0])
    dyn.forward_dynamics(ok, np.zeros(6), np.zeros(6))
    with pytest.raises(SingularityError):
        dyn.forward_dynamics(np.array([0, 0, 0.42, 0.0, np.arccos(0.5e-6), 0.0]), np.zeros(6), np.zeros(6))


@pytest.mark.parametrize(
    "force, match",
    [
        (lambda t, q, qd: np.full(6, np.nan), r"force\(t=0\) returned an invalid value"),
        (lambda t, q, qd: np.zeros(5), r"force\(t=0\) must return shape \(6,\)"),
        (lambda t, q, qd: np.zeros(6) + 1j, "complex"),
        (lambda t, q, qd: np.full(6, 1e300), "magnitude above"),
    ],
)
def test_ode_checks_force_output(dyn, force, match):
    y0 = np.r_[0, 0, 0.42, 0, 0, 0, np.zeros(6)]
    with pytest.raises(ValueError, match=match):
        dyn.ode(force)(0.0, y0)


def test_ode_nan_force_in_solve_ivp_fails_fast(dyn):
    """A force that turns NaN mid-run used to stall solve_ivp; now it raises at once."""
    import time

    y0 = np.r_[0, 0, 0.42, 0, 0, 0, np.zeros(6)]
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"force\(t=0.0\d+\) returned an invalid value"):
        solve_ivp(dyn.ode(lambda t, q, qd: np.full(6, np.nan if t > 0.01 else 20.0)), (0, 0.1), y0)
    assert time.perf_counter() - t0 < 10
    with pytest.raises(ValueError, match="y"):
        dyn.ode(None)(0.0, np.r_[np.nan, np.zeros(11)])
    with pytest.raises(ValueError, match=r"must be a callable"):
        dyn.ode(np.zeros(6))


def test_validate_energy_check_is_guarded(monkeypatch):
    import robokin.validation.stewart as stw

    calls = {}
    real = stw.solve_ivp_guarded

    def spy(*a, **k):
        calls.update(k)
        return real(*a, **k)

    monkeypatch.setattr(stw, "solve_ivp_guarded", spy)
    assert all(r.passed for r in stw.validate(fast=True))
    assert calls["max_nfev"] == 200_000 and calls["method"] == "DOP853"


@pytest.mark.parametrize("kw", [dict(max_iter=2.0), dict(max_iter=0), dict(tol=1j), dict(tol=np.nan)])
@pytest.mark.parametrize("method", ["fk", "fk_solve"])
def test_fk_option_types(st, kw, method):
    with pytest.raises(ValueError):
        getattr(st, method)(st.ik([0, 0, 0.42, 0, 0, 0]).q, **kw)


def test_warn_cond_accepts_large_thresholds(st):
    q = np.array([0.0, 0, 0.42, 0, 0, 0])
    t = st.twist_from_leg_rates(q, np.full(6, 0.01), warn_cond=1e15)
    assert np.all(np.isfinite(t))
    with pytest.raises(ValueError):
        st.twist_from_leg_rates(q, np.full(6, 0.01), warn_cond=1e300)


def test_tiny_but_nonzero_legs_are_fine_zero_legs_raise():
    b, _ = uniform_layout(0.5, 0.35, phase=0.0)
    flat = Stewart(b, b.copy())  # top anchors equal to base anchors
    J = flat.jacobian([0, 0, 1e-6, 0, 0, 0])  # every leg 1 micrometre long, vertical
    np.testing.assert_allclose(J[:, 2], 1.0)
    with pytest.raises(ValueError, match="zero-length leg"):
        flat.jacobian([0, 0, 0, 0, 0, 0])


def test_singularity_warning_threshold_is_1e8():
    q = np.array([0, 0, 0.4, 0, 0, 0.0])

    def near(eps):  # paired layout approaching the (architecturally singular) uniform one: cond ~ 4.6 / eps
        return Stewart(*paired_layout(0.5, 0.35, base_pair_angle=np.pi / 3 + eps, top_pair_angle=np.pi / 3))

    bad, ok = near(1e-9), near(1e-7)
    assert 1e8 < np.linalg.cond(bad.jacobian(q)) < 1e12 and np.linalg.cond(ok.jacobian(q)) < 1e8
    with pytest.warns(SingularityWarning):
        bad.twist_from_leg_rates(q, np.full(6, 0.01))
    with pytest.warns(SingularityWarning):
        StewartDynamics(bad, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5]))).leg_forces(q, np.zeros(6), np.zeros(6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok.twist_from_leg_rates(q, np.full(6, 0.01))
        StewartDynamics(ok, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5]))).leg_forces(q, np.zeros(6), np.zeros(6))


def test_fk_newton_step_is_capped(st):
    """One Newton step moves at most 0.1 m in position and 0.3 rad in angle (the model's trust region)."""
    q_true = np.array([0.02, -0.01, 0.45, 0.1, -0.1, 0.2])
    guess = np.array([0.0, 0.0, 0.30, 0.0, 0.0, 0.0])
    res = st.fk_solve(st.ik(q_true).q, guess=guess, max_iter=1)
    step = np.abs(res.pose - guess) / [0.1, 0.1, 0.1, 0.3, 0.3, 0.3]
    assert step.max() == pytest.approx(1.0, rel=1e-12)  # far guess: the cap is active and exact
    assert np.allclose(st.fk(st.ik(q_true).q, guess=guess), q_true, atol=1e-9)


# ------------------------------------------------------------------ the mechanism protocol (issue 20)
def near_home(rng, n):
    """Poses well inside the stroke limits of robots.STEWART."""
    return [0, 0, 0.42, 0, 0, 0] + rng.uniform(-1, 1, (n, 6)) * [0.02, 0.02, 0.02, 0.05, 0.05, 0.1]


def test_robots_stewart_is_the_chapter_platform():
    b, p = paired_layout(0.5, 0.35, base_pair_angle=20 * DEG, top_pair_angle=20 * DEG)
    np.testing.assert_array_equal(STEWART.base, b)
    np.testing.assert_array_equal(STEWART.top, p)
    assert STEWART.stroke == (0.40, 0.66)
    assert STEWART_PAYLOAD.mass == 12.0 and STEWART_PAYLOAD.leg_mass == 0.4
    np.testing.assert_array_equal(STEWART_PAYLOAD.inertia, np.diag([0.25, 0.30, 0.45]))


def test_old_names_are_gone():
    import robokin.stewart as m

    for name in ("default_platform", "validate"):
        assert not hasattr(m, name) and name not in m.__all__
    assert [f for f in FKResult.__dataclass_fields__] == ["pose", "valid", "residual", "iterations", "reason"]


def test_ik_always_returns_an_ikresult():
    q = near_home(np.random.default_rng(20), 4)
    for kw in (
        {},
        {"on_unreachable": "nan"},
        {"branch": "unique"},
        {"branch": "all"},
        {"branch": "all", "on_unreachable": "nan"},
    ):
        assert isinstance(STEWART.ik(q, **kw), IKResult)
    one = STEWART.ik(q[0])
    assert one.q.shape == (6,) and one.valid.shape == () and one.residual.shape == () and one.branch == "unique"
    res = STEWART.ik(q)
    assert res.valid.all() and np.all(res.residual == 0.0) and res.iterations is None
    # residual: leg lengths recomputed at the pose against the returned q
    np.testing.assert_allclose(np.abs(STEWART.leg_lengths(q) - res.q).max(-1), res.residual, atol=1e-15)


def test_branches_and_branch_all():
    assert Stewart.branches == ("unique",) and Stewart.default_branch == "unique"
    q = near_home(np.random.default_rng(21), 5)
    one, every = STEWART.ik(q), STEWART.ik(q, branch="all")
    assert every.q.shape == (5, 1, 6) and every.valid.shape == every.residual.shape == (5, 1)
    assert every.branch == ("unique",)
    np.testing.assert_array_equal(every.q[:, 0], one.q)
    for bad in ("up", 1, -1, None, ("unique",)):
        with pytest.raises(ValueError, match="branch"):
            STEWART.ik(q, branch=bad)


def test_on_unreachable_default_raises_nan_marks_rows():
    q = np.array([[0, 0, 0.42, 0, 0, 0], [0, 0, 0.9, 0, 0, 0]])
    for kw in ({}, {"branch": "all"}):
        with pytest.raises(UnreachableError, match="1 of 2"):
            STEWART.ik(q, **kw)
    res = STEWART.ik(q, on_unreachable="nan")
    np.testing.assert_array_equal(res.valid, [True, False])
    assert np.isnan(res.q[1]).all() and np.isnan(res.residual[1]) and res.residual[0] == 0.0
    every = STEWART.ik(q, branch="all", on_unreachable="nan")
    np.testing.assert_array_equal(every.valid[:, 0], res.valid)
    assert np.isnan(every.q[1, 0]).all()
    # without a stroke only a zero-length leg is unreachable
    free = Stewart(STEWART.base, STEWART.top)
    assert free.ik(q).valid.all()


def test_fk_has_one_return_type(st):
    q = poses(np.random.default_rng(22), 3)
    L = st.leg_lengths(q)
    out = st.fk(L)
    assert isinstance(out, np.ndarray) and out.shape == (3, 6)
    assert isinstance(st.fk(L[0]), np.ndarray) and st.fk(L[0]).shape == (6,)
    res = st.fk_solve(L)
    assert isinstance(res, FKResult) and res.valid.shape == res.residual.shape == res.iterations.shape == (3,)
    with pytest.raises(TypeError):
        st.fk(L, full_output=True)
    bad = L[0].copy()
    bad[0] = 3.0
    with pytest.raises(ConvergenceError):
        st.fk(bad)
    assert isinstance(st.fk_solve(bad), FKResult)  # the same failure, reported instead of raised


def test_friction_is_the_one_primitive(dyn, monkeypatch):
    rng = np.random.default_rng(23)
    q, qd = poses(rng, 40), rng.normal(size=(40, 6)) * 0.05
    Ld = (dyn.robot.jacobian_pose_rates(q) @ qd[..., None])[..., 0]
    p = dyn.params
    expect = _primitives.smoothed_friction(Ld, p.viscous, p.coulomb, p.coulomb_speed)
    np.testing.assert_array_equal(dyn.friction(q, qd), expect)
    np.testing.assert_array_equal(
        leg_friction(Ld, viscous=p.viscous, coulomb=p.coulomb, coulomb_speed=p.coulomb_speed), expect
    )
    # both really call it: replace the primitive and watch both change
    import robokin.stewart as m

    monkeypatch.setattr(m, "smoothed_friction", lambda v, b, fc, vs: np.full_like(v, 7.0))
    np.testing.assert_array_equal(dyn.friction(q, qd), 7.0)
    np.testing.assert_array_equal(leg_friction(Ld, viscous=1.0, coulomb=1.0, coulomb_speed=0.1), 7.0)
    qdd = np.zeros_like(q)
    f = dyn.leg_forces(q, qd, qdd)
    monkeypatch.undo()
    np.testing.assert_allclose(f - dyn.leg_forces(q, qd, qdd), 7.0 - expect, atol=1e-9)


def test_bias_is_c_qd_without_gravity(dyn):
    rng = np.random.default_rng(24)
    q, qd, qdd = poses(rng, 30), rng.normal(size=(30, 6)), rng.normal(size=(30, 6))
    np.testing.assert_allclose(dyn.bias(q, np.zeros_like(q)), 0.0, atol=1e-14)  # no gravity in it
    assert np.abs(dyn.gravity(q)).min(axis=0)[2] > 100  # while gravity is not small
    np.testing.assert_allclose(dyn.bias(q, 2 * qd), 4 * dyn.bias(q, qd), rtol=1e-12, atol=1e-12)  # quadratic
    Q = (dyn.mass_matrix(q) @ qdd[..., None])[..., 0] + dyn.bias(q, qd) + dyn.gravity(q)
    JqT = np.swapaxes(dyn.robot.jacobian_pose_rates(q), -1, -2)
    fric = (JqT @ dyn.friction(q, qd)[..., None])[..., 0]
    np.testing.assert_allclose(dyn.inverse_dynamics(q, qd, qdd), Q + fric, rtol=1e-12, atol=1e-9)  # protocol
    f = dyn.leg_forces(q, qd, qdd)
    np.testing.assert_allclose((JqT @ (f - dyn.friction(q, qd))[..., None])[..., 0], Q, atol=1e-9)


def test_ode_rhs_does_not_revalidate(dyn, monkeypatch):
    import robokin._validate as v
    import robokin.stewart as m

    y = np.r_[0.01, -0.02, 0.43, 0.05, -0.04, 0.1, 0.1 * np.ones(6)]
    rhs, rhs_f = dyn.ode(None), dyn.ode(lambda t, q, qd: np.full(6, 50.0))
    Jq = dyn.robot.jacobian_pose_rates(y[:6])
    expect = dyn.forward_dynamics(y[:6], y[6:], Jq.T @ np.full(6, 50.0))  # the ODE takes leg forces

    def boom(*a, **k):
        raise AssertionError("input checked again inside the ODE right-hand side")

    monkeypatch.setattr(m, "as_array", boom)
    monkeypatch.setattr(v, "as_array", boom)
    np.testing.assert_allclose(rhs_f(0.0, y)[6:], expect, rtol=1e-13)
    np.testing.assert_array_equal(rhs_f(0.0, y)[:6], y[6:])
    assert np.all(np.isfinite(rhs(0.0, y)))


# ------------------------------------------------------------------ corner blends (chapter 10)
def _pose(v):
    return make_transform(rpy_to_matrix(v[3:]), v[:3])


CORNER = [
    _pose(np.array(v))
    for v in (
        [-0.03, -0.02, 0.41, 0.1, -0.05, -0.2],
        [0.03, -0.02, 0.43, -0.05, 0.1, 0.0],
        [0.03, 0.03, 0.41, 0.05, -0.05, 0.2],
    )
]


@pytest.mark.parametrize("method", ["decoupled", "screw"])
def test_corner_path_without_blend_is_the_two_segments(method):
    s = np.linspace(0, 1, 11)
    T = corner_path(*CORNER, np.r_[s, 1 + s], blend=0.0, method=method)
    want = np.concatenate(
        [
            interpolate_pose(CORNER[0], CORNER[1], s, method=method),
            interpolate_pose(CORNER[1], CORNER[2], s, method=method),
        ]
    )
    np.testing.assert_allclose(T, want, atol=1e-12)


@pytest.mark.parametrize("method", ["decoupled", "screw"])
def test_corner_blend_is_tangent_continuous_with_the_stated_curvature(method):
    d, h = 0.3, 1e-5

    def x(sig):  # corner coordinates of the path
        T = corner_path(*CORNER, sig, blend=d, method=method)
        if method == "screw":
            return se3_log(transform_inverse(CORNER[1]) @ T)
        return np.r_[
            T[:3, 3] - CORNER[1][:3, 3], se3_log(make_transform(CORNER[1][:3, :3].T @ T[:3, :3], np.zeros(3)))[3:]
        ]

    x0, x2 = x(0.0), x(2.0)
    xi1, xi2 = -x0, x2
    for edge in (1 - d, 1 + d):  # one-sided slopes agree at both ends of the blend
        left, right = (x(edge) - x(edge - h)) / h, (x(edge + h) - x(edge)) / h
        np.testing.assert_allclose(left, right, atol=1e-4)
    np.testing.assert_allclose(x(1.0), d * (xi2 - xi1) / 4, atol=1e-12)  # where the blend passes the corner
    acc = (x(1.0 + 1e-3) - 2 * x(1.0) + x(1.0 - 1e-3)) / 1e-6
    np.testing.assert_allclose(acc, (xi2 - xi1) / (2 * d), rtol=1e-5, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(st_.floats(0.01, 0.99), st_.integers(0, 2**31 - 1), st_.sampled_from(["decoupled", "screw"]))
def test_property_corner_path_endpoints_and_rigidity(d, seed, method):
    rng = np.random.default_rng(seed)
    Ts = [_pose(p) for p in poses(rng, 3)]
    sig = rng.uniform(0, 2, 50)
    T = corner_path(*Ts, np.r_[0.0, 2.0, 1 - d, 1 + d, sig], blend=d, method=method)
    np.testing.assert_allclose(T[0], Ts[0], atol=1e-12)
    np.testing.assert_allclose(T[1], Ts[2], atol=1e-12)
    np.testing.assert_allclose(T[2:4], corner_path(*Ts, [1 - d, 1 + d], blend=0.0, method=method), atol=1e-12)
    R = T[:, :3, :3]
    np.testing.assert_allclose(R @ np.swapaxes(R, -1, -2), np.broadcast_to(np.eye(3), R.shape), atol=1e-12)


def test_corner_path_bad_input():
    T0, T1, T2 = CORNER
    with pytest.raises(ValueError, match="sigma"):
        corner_path(T0, T1, T2, 2.5, blend=0.1)
    with pytest.raises(ValueError, match="non-finite"):
        corner_path(T0, T1, T2, np.nan, blend=0.1)
    with pytest.raises(ValueError, match="blend"):
        corner_path(T0, T1, T2, 1.0, blend=1.0)
    with pytest.raises(ValueError, match="blend"):
        corner_path(T0, T1, T2, 1.0, blend=-0.1)
    with pytest.raises(ValueError, match="rigid"):
        corner_path(2 * T0, T1, T2, 1.0, blend=0.1)
    with pytest.raises(ValueError, match="shape"):
        corner_path(np.stack([T0, T0]), T1, T2, 1.0, blend=0.1)
    with pytest.raises(ValueError, match="method"):
        corner_path(T0, T1, T2, 1.0, blend=0.1, method="spline")
    with pytest.raises(ValueError, match="pi"):
        corner_path(T0, T1, make_transform(T1[:3, :3] @ rpy_to_matrix([np.pi, 0, 0]), T1[:3, 3]), 1.0, blend=0.1)


# ---------------------------------------------------------------- Stribeck peak on leg_friction (chapter 10)
def test_leg_friction_stribeck_unit():
    v = np.array([0.0, 2e-3, -2e-3, 0.5, 1e-7, 0.0])
    kw = dict(viscous=30.0, coulomb=5.0, coulomb_speed=1e-3)
    f = leg_friction(v, **kw, static=8.0, stribeck_speed=5e-3)
    expect = 30.0 * v + (5.0 + 3.0 * np.exp(-((v / 5e-3) ** 2))) * np.tanh(v / 1e-3)  # the docstring's formula
    np.testing.assert_allclose(f, expect, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(f[3], leg_friction(v, **kw)[3], rtol=1e-12)  # far above v_st: Coulomb level
    slope = f[4] / v[4]  # slope at zero: b + Fs / v_s
    np.testing.assert_allclose(slope, 30.0 + 8.0 / 1e-3, rtol=1e-6)
    # static == coulomb: no peak, the plain model
    np.testing.assert_allclose(leg_friction(v, **kw, static=5.0, stribeck_speed=5e-3), leg_friction(v, **kw), rtol=0)


@settings(max_examples=60, deadline=None)
@given(
    st_.floats(0.0, 50.0),
    st_.floats(0.0, 20.0),
    st_.floats(0.0, 20.0),
    st_.floats(1e-4, 1e-2),
    st_.floats(1e-3, 5e-2),
    st_.floats(-0.2, 0.2),
)
def test_leg_friction_stribeck_properties(b, fc, extra, vs, vst, v):
    fs = fc + extra
    ld = np.array([v, -v, 0.0, v / 2, 2 * v, 1e-3])
    kw = dict(viscous=b, coulomb=fc, coulomb_speed=vs)
    f = leg_friction(ld, **kw, static=fs, stribeck_speed=vst)
    f0 = leg_friction(ld, **kw)
    np.testing.assert_allclose(f[0], -f[1], rtol=1e-12, atol=1e-12)  # odd
    assert np.all(f * ld >= 0)  # dissipative
    assert np.all(np.abs(f) >= np.abs(f0) - 1e-12)  # the peak only adds friction
    assert np.all(np.abs(f) <= b * np.abs(ld) + fs + 1e-9)  # bounded by the static level
    assert f[2] == 0.0


def test_leg_friction_stribeck_bad_input():
    kw = dict(viscous=1.0, coulomb=5.0, coulomb_speed=1e-3)
    with pytest.raises(ValueError, match="static friction must be >= coulomb"):
        leg_friction(np.zeros(6), **kw, static=4.0, stribeck_speed=1e-2)
    with pytest.raises(ValueError, match="together"):
        leg_friction(np.zeros(6), **kw, static=8.0)
    with pytest.raises(ValueError, match="together"):
        leg_friction(np.zeros(6), **kw, stribeck_speed=1e-2)
    for bad in (np.nan, np.inf, 1j):
        with pytest.raises(ValueError):
            leg_friction(np.zeros(6), **kw, static=bad, stribeck_speed=1e-2)
    for bad in (0.0, -1e-3, np.nan):
        with pytest.raises(ValueError):
            leg_friction(np.zeros(6), **kw, static=8.0, stribeck_speed=bad)


# ------------------------------------------------------------------ issue 29: physics outside the tested range
def test_fk_flags_lengths_outside_the_stroke():
    L = np.full(6, 10.0)  # every leg at 10 m; the stroke is 0.40-0.66 m
    res = STEWART.fk_solve(L)
    assert not res.valid and res.reason == "lengths outside stroke [0.4, 0.66] m"  # valid=True before
    with pytest.raises(ValueError, match="lengths outside the stroke"):
        STEWART.fk(L)
    ok = STEWART.fk_solve(STEWART.ik([0, 0, 0.5, 0, 0, 0.1]).q)
    assert ok.valid and ok.reason == "converged"


def test_fk_on_the_singular_uniform_layout_is_not_called_valid():
    st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0), stroke=(0.40, 0.66))
    q = np.array([0, 0, 0.45, 0, 0, 1e-3])
    res = st.fk_solve(st.leg_lengths(q))
    # Newton lands on another pose with the same lengths (yaw 0, other height); it was marked valid before
    assert res.residual <= 1e-10 and np.abs(res.pose - q).max() > 1e-4
    assert not res.valid and str(res.reason).startswith("near-singular")
    with pytest.warns(SingularityWarning, match="other poses share these leg lengths"):
        st.fk(st.leg_lengths(q))


def test_fk_options_are_validated():
    L = STEWART.ik([0, 0, 0.5, 0, 0, 0]).q
    with pytest.raises(ValueError, match="max_iter must be at most"):
        STEWART.fk_solve(L, max_iter=10**30)
    with pytest.raises(ValueError, match="tol must be at most"):
        STEWART.fk_solve(L, tol=1.0)


def test_stribeck_peak_far_above_the_stribeck_speed_is_zero_without_overflow():
    f = leg_friction(np.full(6, 1.0), viscous=0.0, coulomb=5.0, coulomb_speed=1e-3, static=8.0, stribeck_speed=1e-300)
    np.testing.assert_allclose(f, 5.0 * np.tanh(1e3))


def test_warn_cond_float32_and_bound():
    q = np.array([0.0, 0, 0.42, 0, 0, 0])
    st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
    a = st.twist_from_leg_rates(q, np.full(6, 0.01), warn_cond=np.float32(1e8))  # overflow warning before
    np.testing.assert_array_equal(a, st.twist_from_leg_rates(q, np.full(6, 0.01)))
    with pytest.raises(ValueError, match="warn_cond must be at most 1e\\+16"):
        st.twist_from_leg_rates(q, np.full(6, 0.01), warn_cond=1e17)


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
def test_fk_flags_lengths_above_the_stroke_even_when_newton_converges():
    """ind-st-fk-stroke-upper: legs 3 % to 60 % above the 0.66 m stroke give a converged pose that is not valid."""
    for z in (0.6, 0.8, 1.0):  # leg lengths 0.68, 0.86, 1.05 m
        pose = [0.0, 0.0, z, 0.0, 0.0, 0.0]
        L = STEWART.leg_lengths(pose)
        assert np.all(L > STEWART.stroke[1])
        r = STEWART.fk_solve(L, guess=pose)
        assert r.residual.max() <= 1e-10  # Newton found the pose: only the stroke makes it invalid
        assert not r.valid and "outside stroke" in str(r.reason)


def test_leg_friction_refuses_negative_coulomb_friction():
    """ind-st-coulomb-neg: a negative Coulomb level would push the leg along its motion (energy from nothing)."""
    with pytest.raises(ValueError, match="coulomb"):
        leg_friction(np.zeros(6), viscous=0.0, coulomb=-1.0, coulomb_speed=1e-3)
    with pytest.raises(ValueError, match="coulomb"):
        leg_friction(np.zeros(6), viscous=-1.0, coulomb=1.0, coulomb_speed=1e-3)


# ------------------------------------------------------------------ statics, homogenised Jacobian (ch 9)
HOME = np.array([0.0, 0.0, 0.42, 0.0, 0.0, 0.0])


def test_static_leg_forces_unit_weight_at_home(st):
    w = np.array([0.0, 0.0, 600.0, 0.0, 0.0, 0.0])
    f = st.static_leg_forces(HOME, w)
    n_z = st.leg_vectors(HOME)[:, 2] / st.leg_lengths(HOME)
    np.testing.assert_allclose(f, 600.0 / (6 * n_z), rtol=1e-12)  # symmetric legs share the weight
    np.testing.assert_allclose(st.jacobian(HOME).T @ f, w, atol=1e-10)


def test_static_leg_forces_batch_and_virtual_work(st):
    rng = np.random.default_rng(3)
    Q = poses(rng, 50)
    W = rng.normal(size=(50, 6)) * [100, 100, 100, 10, 10, 10]
    F = st.static_leg_forces(Q, W)
    assert F.shape == (50, 6)
    np.testing.assert_allclose(F[7], st.static_leg_forces(Q[7], W[7]))
    T = rng.normal(size=(50, 6))  # any twist: leg power equals platform power
    ldot = (st.jacobian(Q) @ T[..., None])[..., 0]
    np.testing.assert_allclose(np.sum(F * ldot, -1), np.sum(W * T, -1), rtol=1e-9, atol=1e-9)
    # one wrench broadcast over many poses
    assert st.static_leg_forces(Q, W[0]).shape == (50, 6)


def test_static_leg_forces_grow_like_one_over_sigma_min_near_type_ii(st):
    w = np.array([0.0, 0.0, 600.0, 0.0, 0.0, 0.0])
    yaws = np.deg2rad([89.0, 89.9, 89.99])
    Q = np.tile(HOME, (3, 1))
    Q[:, 5] = yaws
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        F = st.static_leg_forces(Q, w)
    U, s, Vt = np.linalg.svd(st.jacobian(Q))
    growth = np.linalg.norm(F, axis=-1) * s[:, -1] / np.abs(Vt[:, -1] @ w)  # -> 1 at the singularity
    assert np.all(np.diff(np.linalg.norm(F, axis=-1)) > 0)
    assert abs(growth[-1] - 1) < 1e-3
    assert np.all(np.linalg.norm(F, axis=-1) <= np.linalg.norm(w) / s[:, -1] * (1 + 1e-12))


def test_static_leg_forces_warn_and_refuse():
    st90 = Stewart(STEWART.base, STEWART.top)
    q = HOME.copy()
    q[5] = np.pi / 2 - 1e-10  # cond(J) about 1e10: past the warning, below the refusal
    assert 1e8 < np.linalg.cond(st90.jacobian(q)) < 1e13
    with pytest.warns(SingularityWarning, match="static_leg_forces"):
        st90.static_leg_forces(q, np.ones(6))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st90.static_leg_forces(q, np.ones(6), warn_cond=1e12)  # a looser threshold: silent
    uniform = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))  # architecturally singular
    with pytest.raises(SingularityError, match="static_leg_forces"):
        uniform.static_leg_forces(HOME, np.ones(6))
    Q = np.tile(HOME, (4, 1))
    Q[2, 5] = np.pi / 2  # one singular pose in a batch: named by its index into pose
    with pytest.raises(SingularityError, match=r"static_leg_forces: J\^T at pose\[2\] \(1 of 4"):
        st90.static_leg_forces(Q, np.ones(6))
    with pytest.raises(SingularityError, match=r"at pose \(1 of 1"):
        st90.static_leg_forces(Q[2], np.ones(6))


def test_static_leg_forces_bad_input(st):
    with pytest.raises(ValueError, match="wrench"):
        st.static_leg_forces(HOME, np.ones(5))
    with pytest.raises(ValueError, match="wrench"):
        st.static_leg_forces(HOME, [0, 0, np.nan, 0, 0, 0])
    with pytest.raises(ValueError, match="pose"):
        st.static_leg_forces(np.ones(5), np.ones(6))
    with pytest.raises(ValueError, match="warn_cond"):
        st.static_leg_forces(HOME, np.ones(6), warn_cond=-1.0)
    with pytest.raises(ValueError, match="wrench.*bool"):
        st.static_leg_forces(HOME, [True] * 6)
    with pytest.raises(ValueError, match="wrench.*bool"):
        st.static_leg_forces(HOME, np.ones(6, dtype=bool))


def test_homogenized_jacobian_scales_the_angular_columns(st):
    rng = np.random.default_rng(4)
    Q = poses(rng, 20)
    Jh = st.homogenized_jacobian(Q, 0.25)
    J = st.jacobian(Q)
    np.testing.assert_array_equal(Jh[..., :3], J[..., :3])
    np.testing.assert_allclose(Jh[..., 3:], J[..., 3:] / 0.25, rtol=1e-15)


@settings(max_examples=40, deadline=None)
@given(
    st_.lists(st_.floats(-1, 1), min_size=6, max_size=6),
    st_.floats(0.05, 2.0),
    st_.sampled_from([1e-3, 1e3, 39.37]),
)
def test_property_homogenized_cond_is_unit_free(u, L, unit):
    b, p = STEWART.base, STEWART.top
    q = HOME + np.array([0.05, 0.05, 0.05, 0.3, 0.3, 0.5]) * np.array(u)
    q_u = np.r_[unit * q[:3], q[3:]]
    c = np.linalg.cond(Stewart(b, p).homogenized_jacobian(q, L))
    c_u = np.linalg.cond(Stewart(unit * b, unit * p).homogenized_jacobian(q_u, unit * L))
    assert abs(c_u / c - 1) < 1e-9
    # the plain Jacobian's cond does depend on the unit (its angular columns carry a length)
    c0, c0_u = np.linalg.cond(Stewart(b, p).jacobian(q)), np.linalg.cond(Stewart(unit * b, unit * p).jacobian(q_u))
    assert abs(c0_u / c0 - 1) > 1e-3


def test_characteristic_length_is_a_minimum_and_unit_equivariant(st):
    rng = np.random.default_rng(5)
    Q = poses(rng, 200)
    for objective in ("max", "mean"):
        L = st.characteristic_length(Q, objective=objective)
        red = np.max if objective == "max" else np.mean
        c = lambda x: red(np.linalg.cond(st.homogenized_jacobian(Q, x)))  # noqa: E731
        assert c(L) <= min(c(0.98 * L), c(1.02 * L))
        assert c(L) < red(np.linalg.cond(st.jacobian(Q)))
    mm = Stewart(1e3 * st.base, 1e3 * st.top)
    Q_mm = np.column_stack([1e3 * Q[:, :3], Q[:, 3:]])
    np.testing.assert_allclose(mm.characteristic_length(Q_mm), 1e3 * st.characteristic_length(Q), rtol=1e-4)
    with pytest.warns(RuntimeWarning, match="bounds"):  # minimum beyond the interval: the bound, with a warning
        assert np.isclose(st.characteristic_length(Q, bounds=(0.01, 0.1)), 0.1, rtol=1e-4)
    with pytest.warns(RuntimeWarning, match="bounds"):
        assert np.isclose(st.characteristic_length(Q, bounds=(0.5, 2.0)), 0.5, rtol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an interior minimum: silent
        st.characteristic_length(Q, bounds=(0.01, 10.0))


def test_characteristic_length_refuses_a_singular_pose_by_index(st):
    Q = np.tile(HOME, (3, 1))
    Q[:, 5] = [0.0, 0.2, np.pi / 2]  # the last pose: the type II yaw singularity (cond(J) ~ 1e16)
    with pytest.raises(SingularityError, match=r"poses\[2\]"):
        st.characteristic_length(Q)
    with pytest.raises(SingularityError, match=r"poses\[0\]"):
        st.characteristic_length(Q[2])
    Q[2, 5] = np.pi / 2 - 1e-3  # near, not at, the singularity (cond ~ 1e5): accepted
    assert 0.01 < st.characteristic_length(Q) < 10


def test_characteristic_length_tol_is_bounded(st):
    for bad in (10.0, 0.1, 1e-15):
        with pytest.raises(ValueError, match="tol"):
            st.characteristic_length(HOME, tol=bad)
    a, b = st.characteristic_length(HOME, tol=1e-2), st.characteristic_length(HOME, tol=1e-8)
    assert abs(a / b - 1) < 1e-2


def test_characteristic_length_bad_input(st):
    with pytest.raises(ValueError, match="objective"):
        st.characteristic_length(HOME, objective="median")
    with pytest.raises(ValueError, match="bounds"):
        st.characteristic_length(HOME, bounds=(1.0, 0.5))
    with pytest.raises(ValueError, match="bounds"):
        st.characteristic_length(HOME, bounds=(0.0, 0.5))
    with pytest.raises(ValueError, match="poses"):
        st.characteristic_length(np.zeros((0, 6)))
    with pytest.raises(ValueError, match="poses"):
        st.characteristic_length(np.ones(5))
    with pytest.raises(ValueError, match="tol"):
        st.characteristic_length(HOME, tol=0.0)
    with pytest.raises(ValueError, match="length"):
        st.homogenized_jacobian(HOME, 0.0)
    with pytest.raises(ValueError, match="length"):
        st.homogenized_jacobian(HOME, float("nan"))


def test_characteristic_length_refuses_a_degenerate_pose():
    # found by the hostile sweep: an all-zero pose sample gave NaN columns (SVD did not converge); it is singular
    from robokin.errors import SingularityError
    from robokin.robots import STEWART

    with pytest.raises(SingularityError, match=r"poses\[0\]"):
        STEWART.characteristic_length(np.zeros((2, 6)))


# ---- two-body legs (chapter 10, issue 33: when may the legs' inertia be neglected?) --------------------------
from robokin.stewart import StrutParams  # noqa: E402

STRUT = StrutParams(1.2, 0.12, 0.012, 0.4, 0.1, 0.003)
_DYN_S = StewartDynamics(STEWART, PlatformParams(12.0, np.diag([0.25, 0.30, 0.45])))
_AMP = np.array([0.02, 0.015, 0.01, 0.05, 0.04, 0.10])
_OMG = np.array([2.0, 3.0, 4.0, 2.5, 3.5, 1.5]) * np.pi / 2


def _motion(t, speed=1.0):
    w = speed * _OMG
    a = np.outer(t, w)
    return HOME + _AMP * np.sin(a), _AMP * w * np.cos(a), -_AMP * w**2 * np.sin(a)


def test_strut_mass_matrix_is_the_acceleration_part_of_the_wrench():
    rng = np.random.default_rng(7)
    q = HOME + rng.uniform(-1, 1, (20, 6)) * [0.03, 0.03, 0.03, 0.2, 0.2, 0.3]
    qd, qdd = rng.normal(size=(2, 20, 6))
    Ms = _DYN_S.strut_mass_matrix(q, STRUT)
    Q1 = _DYN_S.strut_wrench(q, qd, qdd, STRUT)
    Q0 = _DYN_S.strut_wrench(q, qd, np.zeros(6), STRUT)
    assert np.allclose(Q1 - Q0, (Ms @ qdd[..., None])[..., 0], rtol=1e-10, atol=1e-10)
    assert np.allclose(Ms, np.swapaxes(Ms, -1, -2)) and np.linalg.eigvalsh(Ms).min() > 0  # symmetric, PD


def test_strut_wrench_balances_power_with_the_legs_energy():
    # Q . qd = d/dt (T_s + V_s): the velocity terms are right (a dropped Coriolis term breaks this)
    t = np.linspace(0.0, 2.0, 4001)
    h = t[1] - t[0]
    q, qd, qdd = _motion(t)
    Q = _DYN_S.strut_wrench(q, qd, qdd, STRUT)
    T = 0.5 * np.einsum("ti,tij,tj->t", qd, _DYN_S.strut_mass_matrix(q, STRUT), qd)
    s = STEWART.leg_vectors(q)
    L = np.linalg.norm(s, axis=-1)
    nz = s[..., 2] / L
    g = 9.81
    V = g * np.sum(
        STRUT.rod_mass * s[..., 2] + (STRUT.cylinder_mass * STRUT.cylinder_com - STRUT.rod_mass * STRUT.rod_com) * nz,
        -1,
    )
    dE = np.gradient(T + V, h)
    P = np.sum(Q * qd, -1)
    assert np.abs(P - dE)[2:-2].max() < 1e-5 * np.abs(P).max()


def test_strut_wrench_scales_with_mass_and_speed_squared():
    t = np.linspace(0.0, 1.0, 51)
    grav = _DYN_S.strut_wrench(_motion(t)[0], np.zeros(6), np.zeros(6), STRUT)
    m1 = _DYN_S.strut_wrench(*_motion(t), STRUT) - grav
    m3 = _DYN_S.strut_wrench(*_motion(t / 3.0, speed=3.0), STRUT) - grav  # same poses, 3 times faster
    assert np.allclose(m3, 9.0 * m1, rtol=1e-10, atol=1e-10)
    assert np.allclose(
        _DYN_S.strut_wrench(*_motion(t), STRUT.scaled(2.5)), 2.5 * _DYN_S.strut_wrench(*_motion(t), STRUT)
    )


@settings(max_examples=30, deadline=None)
@given(
    st_.floats(0.0, 2.0),
    st_.lists(st_.floats(-1.0, 1.0), min_size=18, max_size=18),
)
def test_rod_at_the_anchor_is_the_lumped_leg_mass(m, xs):
    x = np.array(xs)
    q, qd, qdd = HOME + 0.03 * x[:6], x[6:12], 2.0 * x[12:]
    lumped = StewartDynamics(STEWART, PlatformParams(12.0, np.diag([0.25, 0.30, 0.45]), leg_mass=m))
    Q = _DYN_S.strut_wrench(q, qd, qdd, StrutParams(0.0, 0.3, 0.0, m, 0.0, 0.0))
    assert np.allclose(_DYN_S.inverse_dynamics(q, qd, qdd) + Q, lumped.inverse_dynamics(q, qd, qdd), atol=1e-9)


def test_strut_bad_input_is_refused():
    with pytest.raises(ValueError, match="rod_mass must be >= 0"):
        StrutParams(1.0, 0.1, 0.01, -0.4, 0.1, 0.0)
    with pytest.raises(ValueError, match="cylinder_com"):
        StrutParams(1.0, np.nan, 0.01, 0.4, 0.1, 0.0)
    with pytest.raises(ValueError, match="struts must be a StrutParams"):
        _DYN_S.strut_wrench(HOME, np.zeros(6), np.zeros(6), 0.4)
    with pytest.raises(ValueError, match="struts must be a StrutParams"):
        _DYN_S.strut_mass_matrix(HOME, None)
    with pytest.raises(ValueError, match="qd"):
        _DYN_S.strut_wrench(HOME, np.zeros(5), np.zeros(6), STRUT)
    with pytest.raises(ValueError, match="k must be >= 0"):
        STRUT.scaled(-1.0)


@settings(max_examples=40, deadline=None)
@given(
    st_.lists(st_.floats(0.0, 2.0), min_size=6, max_size=6),
    st_.floats(0.3, 0.7),
    st_.lists(st_.floats(-1.0, 1.0), min_size=6, max_size=6).filter(lambda v: np.linalg.norm(v[:3]) > 0.1),
    st_.floats(-3.0, 3.0),
    st_.floats(-20.0, 20.0),
)
def test_leg_turning_at_constant_length_needs_the_rigid_body_force(p, L, v, w, wd):
    # an independent closed form for the cylinder and inertia terms: at constant L the leg is one rigid body turning
    # about the base joint (axis u, perpendicular to n), J = m_c e_c^2 + I_c + m_r (L - e_r)^2 + I_r about it.
    # Moments about the base joint: L n x F + (m_c e_c + m_r (L - e_r)) n x g = J wd u; along the leg the anchor
    # carries the rod alone: n . F = m_r n . (a_rod - g), a_rod . n = -(L - e_r) w^2.
    from robokin.stewart import _strut_anchor_force

    sp_ = StrutParams(p[0], 0.3 * p[1] / 2.0, 0.01 * p[2], p[3], 0.3 * p[4] / 2.0, 0.01 * p[5])
    n = np.array(v[:3]) / np.linalg.norm(v[:3])
    u = np.cross(n, np.array(v[3:]) + [0.3, -0.7, 0.5])
    assume(np.linalg.norm(u) > 0.1)
    u /= np.linalg.norm(u)
    s = L * n
    om, al = w * u, wd * u
    sd, sdd = np.cross(om, s), np.cross(al, s) + np.cross(om, np.cross(om, s))
    g = 9.81
    gv = np.array([0.0, 0.0, -g])
    J = sp_.cylinder_mass * sp_.cylinder_com**2 + sp_.cylinder_inertia
    J += sp_.rod_mass * (L - sp_.rod_com) ** 2 + sp_.rod_inertia
    Mg = (sp_.cylinder_mass * sp_.cylinder_com + sp_.rod_mass * (L - sp_.rod_com)) * np.cross(n, gv)
    F_perp = np.cross((J * wd * u - Mg) / L, n)
    F_axial = sp_.rod_mass * (-(L - sp_.rod_com) * w**2 - n @ gv) * n
    F = _strut_anchor_force(s, sd, sdd, sp_, g)
    assert np.allclose(F, F_perp + F_axial, rtol=1e-10, atol=1e-10)
    # with gravity off and w = 0: perpendicular, magnitude kappa L wd (the anchor mass of eq-ch10-strut-mass)
    F0 = _strut_anchor_force(s, np.zeros(3), np.cross(al, s), sp_, 0.0)
    assert abs(F0 @ n) < 1e-12 and np.isclose(np.linalg.norm(F0), J / L**2 * L * abs(wd), rtol=1e-10, atol=1e-12)
