"""Tests for robokin.dynamics: TwoLinkArm (M, C, G, dynamics, energy) and SerialDynamics (RNEA) on DH chains."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.checks import jacobian_fd
from robokin.dynamics import (
    SerialDynamics,
    TwoLinkArm,
    add_reflected_inertia,
    energy_drift,
    pd_gravity_lyapunov,
)
from robokin.robots import ARM2 as ARM
from robokin.robots import UR5, ur5_inertials
from robokin.serial import SerialArm
from robokin.validation.dynamics import validate

HSET = settings(deadline=None)
angles = st.floats(-np.pi, np.pi)
rates = st.floats(-5, 5)


def rnea(*, q, qd, qdd, gravity, offset=0.0, **kw):
    """Inverse dynamics of the chain described by ``kw`` (``SerialDynamics.from_dh`` keywords)."""
    return SerialDynamics.from_dh(**kw, offset=offset, gravity=gravity).inverse_dynamics(q, qd, qdd)


def crba(*, q, **kw):
    """Mass matrix of the chain described by ``kw``."""
    kw.pop("gravity", None)
    return SerialDynamics.from_dh(**kw).mass_matrix(q)


@pytest.fixture(scope="module")
def lagrange_sympy():
    """Independent derivation: Euler-Lagrange equations from COM positions, written out here."""
    q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2")
    m1, m2, l1, lc1, lc2, I1, I2, g = sp.symbols("m1 m2 l1 lc1 lc2 I1 I2 g", positive=True)
    t = sp.Symbol("t")
    f1, f2 = sp.Function("f1")(t), sp.Function("f2")(t)
    xc1, yc1 = lc1 * sp.cos(f1), lc1 * sp.sin(f1)
    xc2, yc2 = l1 * sp.cos(f1) + lc2 * sp.cos(f1 + f2), l1 * sp.sin(f1) + lc2 * sp.sin(f1 + f2)
    v2 = lambda x, y: sp.diff(x, t) ** 2 + sp.diff(y, t) ** 2  # noqa: E731
    T = (
        m1 * v2(xc1, yc1) + m2 * v2(xc2, yc2) + I1 * sp.diff(f1, t) ** 2 + I2 * (sp.diff(f1, t) + sp.diff(f2, t)) ** 2
    ) / 2
    V = g * (m1 * yc1 + m2 * yc2)
    L = T - V
    eqs = [sp.diff(sp.diff(L, sp.diff(f, t)), t) - sp.diff(L, f) for f in (f1, f2)]
    sub = {sp.diff(f1, t, 2): qdd1, sp.diff(f2, t, 2): qdd2, sp.diff(f1, t): qd1, sp.diff(f2, t): qd2}
    eqs = [e.subs(sub).subs({f1: q1, f2: q2}) for e in eqs]
    args = (q1, q2, qd1, qd2, qdd1, qdd2, m1, m2, l1, lc1, lc2, I1, I2, g)
    return sp.lambdify(args, eqs, cse=True)


def test_inverse_dynamics_matches_independent_lagrange(lagrange_sympy, rng=np.random.default_rng(1)):
    q, qd, qdd = rng.uniform(-3, 3, (3, 200, 2))
    a = ARM
    ref = np.array(
        lagrange_sympy(
            q[:, 0], q[:, 1], qd[:, 0], qd[:, 1], qdd[:, 0], qdd[:, 1], a.m1, a.m2, a.l1, a.lc1, a.lc2, a.I1, a.I2, a.g
        )
    ).T
    assert np.max(np.abs(ARM.inverse_dynamics(q, qd, qdd) - ref)) < 1e-12


@HSET
@given(angles, angles)
def test_mass_matrix_spd(a, b):
    M = ARM.mass_matrix([a, b])
    assert np.array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0


@HSET
@given(angles, angles, rates, rates)
def test_mdot_minus_2c_skew_and_mdot_is_derivative(a, b, u, v):
    q, qd = np.array([a, b]), np.array([u, v])
    S = ARM.mass_matrix_dot(q, qd) - 2 * ARM.coriolis_matrix(q, qd)
    assert np.max(np.abs(S + S.T)) < 1e-12
    h = 1e-6
    fd = (ARM.mass_matrix(q + h * qd) - ARM.mass_matrix(q - h * qd)) / (2 * h)
    assert np.max(np.abs(fd - ARM.mass_matrix_dot(q, qd))) < 1e-7


def test_gravity_is_gradient_of_potential():
    q = np.random.default_rng(2).uniform(-3, 3, (100, 2))
    J = jacobian_fd(lambda x: ARM.potential(x)[..., None], q)[..., 0, :]
    assert np.max(np.abs(J - ARM.gravity(q))) < 1e-7


def test_power_balance_dE_dt_equals_qd_dot_tau():
    rng = np.random.default_rng(3)
    q, qd, tau = rng.uniform(-2, 2, (3, 50, 2))
    qdd = ARM.forward_dynamics(q, qd, tau)
    h = 1e-6
    dE = (ARM.energy(q + h * qd, qd + h * qdd) - ARM.energy(q - h * qd, qd - h * qdd)) / (2 * h)
    assert np.max(np.abs(dE - np.sum(qd * tau, -1))) < 1e-6


def test_forward_inverse_roundtrip_and_broadcast():
    rng = np.random.default_rng(4)
    q, qd, qdd = rng.uniform(-3, 3, (3, 4, 5, 2))
    tau = ARM.inverse_dynamics(q, qd, qdd)
    assert tau.shape == (4, 5, 2)
    assert np.max(np.abs(ARM.forward_dynamics(q, qd, tau) - qdd)) < 1e-10
    assert ARM.mass_matrix(q).shape == (4, 5, 2, 2) and ARM.coriolis_matrix(q, qd).shape == (4, 5, 2, 2)


def test_energy_conserved_without_torque():
    drift, sol = energy_drift(ARM, [0.4, 0.6], [1.0, -2.0], t_end=1.0)
    assert drift < 1e-8
    assert np.ptp(sol.y[0]) > 0.1  # the arm really moved


def test_loose_integrator_drifts_more():
    tight, _ = energy_drift(ARM, [0.4, 0.6], [1.0, -2.0], t_end=1.0)
    loose, _ = energy_drift(ARM, [0.4, 0.6], [1.0, -2.0], t_end=1.0, rtol=1e-3, atol=1e-6, method="RK45")
    assert loose > 100 * tight


def test_batched_parameters_equal_per_arm_results():
    m2 = np.array([0.5, 0.8, 1.1])
    batch = ARM.replace(m2=m2)
    q = np.random.default_rng(5).uniform(-3, 3, (3, 2))
    M = batch.mass_matrix(q)
    for k in range(3):
        assert np.allclose(M[k], ARM.replace(m2=float(m2[k])).mass_matrix(q[k]), rtol=0, atol=1e-15)
    assert batch.batch_size == 3


def test_point_mass_arm_hanging_has_known_holding_torque():
    arm = TwoLinkArm(m1=1.0, m2=2.0, l1=1.0, l2=1.0, lc1=1.0, lc2=1.0, I1=0.0, I2=0.0, g=10.0)
    # horizontal along +x: mass 1 at 1 m, mass 2 at 2 m -> tau1 = 10 * (1 + 4), tau2 = 10 * 2 * 1
    assert np.allclose(arm.gravity([0.0, 0.0]), [50.0, 20.0])
    assert np.allclose(arm.gravity([-np.pi / 2, 0.0]), [0.0, 0.0], atol=1e-12)


# ------------------------------------------------------------------------ RNEA
def test_rnea_matches_lagrangian_standard_and_modified():
    rng = np.random.default_rng(6)
    q, qd, qdd = rng.uniform(-3, 3, (3, 300, 2))
    ref = ARM.inverse_dynamics(q, qd, qdd)
    assert np.max(np.abs(rnea(q=q, qd=qd, qdd=qdd, **ARM.rnea_params()) - ref)) < 1e-12
    # modified DH (Craig): frames at the joints, a_{i-1} = (0, l1), COM at (+lc_i, 0, 0) in frame i
    kw = ARM.rnea_params()
    kw.update(a=[0.0, ARM.l1], convention="modified", coms=[[ARM.lc1, 0, 0], [ARM.lc2, 0, 0]])
    assert np.max(np.abs(rnea(q=q, qd=qd, qdd=qdd, **kw) - ref)) < 1e-12


def test_rnea_offset_and_out_of_plane_axes():
    # rotating the arm by a joint offset equals adding it to q1
    q = np.random.default_rng(7).uniform(-3, 3, (20, 2))
    kw = ARM.rnea_params()
    z = np.zeros_like(q)
    a = rnea(q=q, qd=z, qdd=z, offset=[0.3, -0.2], **kw)
    b = rnea(q=q + [0.3, -0.2], qd=z, qdd=z, **kw)
    assert np.allclose(a, b, atol=1e-13)
    # gravity along the joint axes produces no torque
    kw["gravity"] = [0, 0, -9.81]
    assert np.max(np.abs(rnea(q=q, qd=z, qdd=z, **kw))) < 1e-12


def test_rnea_mass_matrix_symmetric_and_equals_M():
    q = np.random.default_rng(8).uniform(-3, 3, (30, 2))
    M = crba(q=q, **ARM.rnea_params())
    assert np.max(np.abs(M - np.swapaxes(M, -1, -2))) == 0
    assert np.max(np.abs(M - ARM.mass_matrix(q))) < 1e-13


def test_validate_reports_pass():
    reps = validate(fast=True)
    assert len(reps) == 6 and all(r.passed for r in reps)


# ------------------------------------------------------------------------ protocol
def test_bias_is_coriolis_times_rate_without_gravity():
    rng = np.random.default_rng(21)
    q, qd = rng.uniform(-3, 3, (2, 50, 2))
    np.testing.assert_allclose(
        ARM.bias(q, qd), np.einsum("...ij,...j->...i", ARM.coriolis_matrix(q, qd), qd), atol=1e-14
    )
    assert np.all(ARM.bias(q, np.zeros_like(qd)) == 0)  # at rest: no bias, whatever gravity does
    assert np.abs(ARM.gravity(q)).max() > 1  # ... while the arm does feel gravity
    dyn = SerialDynamics.from_dh(**ARM.rnea_params())
    np.testing.assert_allclose(dyn.bias(q, qd), ARM.bias(q, qd), atol=1e-12)
    np.testing.assert_allclose(dyn.bias(q, np.zeros_like(qd)), 0.0, atol=1e-15)
    np.testing.assert_allclose(dyn.gravity(q), ARM.gravity(q), atol=1e-12)
    assert dyn.bias(q[0], qd[0]).shape == (2,) and ARM.bias(q[0], qd[0]).shape == (2,)


@pytest.mark.parametrize("model", ["two_link", "serial", "serial_spatial"])
def test_inverse_dynamics_is_mass_matrix_bias_gravity(model):
    """The protocol identity ``inverse_dynamics = M qdd + bias + gravity``, and ``forward_dynamics`` inverts it."""
    if model == "two_link":
        dyn, n = ARM, 2
    elif model == "serial":
        dyn, n = SerialDynamics.from_dh(**ARM.rnea_params()), 2
    else:
        dyn, n = SerialDynamics.from_dh(**_chain(), gravity=[0.3, -1.0, -9.81]), 3
    rng = np.random.default_rng(22)
    q, qd, qdd = rng.uniform(-3, 3, (3, 40, n))
    lhs = dyn.inverse_dynamics(q, qd, qdd)
    rhs = np.einsum("...ij,...j->...i", dyn.mass_matrix(q), qdd) + dyn.bias(q, qd) + dyn.gravity(q)
    np.testing.assert_allclose(lhs, rhs, atol=1e-11)
    np.testing.assert_allclose(dyn.forward_dynamics(q, qd, lhs), qdd, atol=1e-9)
    assert np.abs(dyn.bias(q, qd)).max() > 1e-3 and np.abs(dyn.gravity(q)).max() > 1e-3  # both terms present


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad", [[np.nan, 0.0], [0.0, np.inf], [0.0, 0.0, 0.0], [[0.0], [1.0]]])
def test_two_link_rejects_bad_q(bad):
    for fn in (ARM.mass_matrix, ARM.gravity, ARM.potential, ARM.fk):
        with pytest.raises(ValueError):
            fn(bad)
    for fn in (ARM.coriolis_matrix, ARM.mass_matrix_dot, ARM.bias, ARM.energy):
        with pytest.raises(ValueError):
            fn(bad, [0.0, 0.0])
    with pytest.raises(ValueError):
        ARM.inverse_dynamics([0, 0], bad, [0, 0])
    with pytest.raises(ValueError):
        ARM.forward_dynamics([0, 0], [0, 0], bad)


@pytest.mark.parametrize(
    "field,value",
    [
        ("m1", -1.0),
        ("l1", 0.0),
        ("lc2", np.nan),
        ("I1", -0.1),
        ("g", np.inf),
        ("m2", "heavy"),
        ("m1", np.array([[1.0]])),
        ("m2", np.array([1.0, -1.0])),
    ],
)
def test_two_link_rejects_bad_parameters(field, value):
    with pytest.raises(ValueError):
        ARM.replace(**{field: value})


def test_two_link_rejects_mismatched_batches_and_batch_rnea_params():
    with pytest.raises(ValueError, match="same length"):
        ARM.replace(m1=np.ones(2), m2=np.ones(3))
    with pytest.raises(ValueError, match="scalar"):
        ARM.replace(m1=np.ones(2)).rnea_params()


def test_energy_drift_rejects_bad_input():
    with pytest.raises(ValueError):
        energy_drift(ARM, [[0, 0], [1, 1]], [0, 0])
    with pytest.raises(ValueError):
        energy_drift(ARM, [0, 0], [0, 0], t_end=-1.0)


def test_serial_dynamics_rejects_bad_input():
    kw = ARM.rnea_params()
    z = np.zeros(2)
    bad_models = [
        ({**kw, "convention": "craig"}, "convention"),
        ({**kw, "inertias": [np.triu(np.ones((3, 3)))] * 2}, "symmetric"),
        ({**kw, "masses": [1.0, -1.0]}, "masses"),
        ({**kw, "coms": [[0, 0, 0]]}, "coms"),
        ({**kw, "gravity": [0, -9.81]}, "gravity"),
        ({**kw, "a": [[0.5, 0.4]]}, None),
    ]
    for bad, match in bad_models:
        with pytest.raises(ValueError, match=match):
            SerialDynamics.from_dh(**bad)
    with pytest.raises(TypeError):  # convention is required
        SerialDynamics.from_dh(
            kw["a"], kw["alpha"], kw["d"], masses=kw["masses"], coms=kw["coms"], inertias=kw["inertias"]
        )
    dyn = SerialDynamics.from_dh(**kw)
    for call in (
        lambda: dyn.inverse_dynamics([0.0, np.nan], z, z),
        lambda: dyn.inverse_dynamics(np.zeros(3), z, z),
        lambda: dyn.bias(z, [np.inf, 0.0]),
        lambda: dyn.gravity([[0.0], [1.0]]),
        lambda: dyn.mass_matrix([np.inf, 0]),
    ):
        with pytest.raises(ValueError):
            call()


# ------------------------------------------------------------------ issue 16: impossible inertias, singular M
from robokin._validate import check_inertias  # noqa: E402
from robokin.errors import IntegrationError, SingularityError  # noqa: E402


@pytest.mark.parametrize(
    "I, why",
    [
        (np.diag([0.1, 0.1, 0.3]), "triangle inequality"),
        (np.diag([0.3, 0.1, 0.1]), "triangle inequality"),  # whichever axis is the big one
        (np.diag([-0.01, 0.2, 0.2]), "negative principal moment"),
        (np.array([[0.2, 0.15, 0.0], [0.15, 0.2, 0.0], [0.0, 0.0, 0.05]]), "triangle inequality"),  # rotated tensor
    ],
)
def test_check_inertias_rejects_impossible_bodies(I, why):
    with pytest.raises(ValueError, match=why):
        check_inertias(I)


def test_check_inertias_accepts_every_rigid_body_including_limits():
    rng = np.random.default_rng(5)
    # random rigid bodies: point clouds, inertia about their centroid
    for _ in range(50):
        p = rng.normal(size=(20, 3)) * rng.uniform(0.01, 1, 3)
        m = rng.uniform(0.1, 1, 20)
        c = (m[:, None] * p).sum(0) / m.sum()
        r = p - c
        I = (m[:, None, None] * ((r * r).sum(-1)[:, None, None] * np.eye(3) - r[:, :, None] * r[:, None, :])).sum(0)
        check_inertias(I)
    check_inertias(np.zeros((2, 3, 3)))  # point masses
    check_inertias(np.diag([0.1, 0.2, 0.3]))  # flat body: equality holds
    check_inertias(np.diag([0.0, 0.5, 0.5]))  # thin rod
    with pytest.raises(ValueError, match=r"inertias\[1\]"):
        check_inertias(np.stack([np.eye(3), np.diag([0.1, 0.2, 0.3 + 1e-6])]))


def test_rnea_rejects_impossible_inertias_and_accepts_the_arm():
    kw = ARM.rnea_params()
    for I in kw["inertias"]:
        check_inertias(I)
    kw["inertias"] = [np.diag([0.0, 0.0, ARM.I1]), np.diag([0.0, 0.0, ARM.I2])]  # old planar shortcut
    with pytest.raises(ValueError, match="triangle inequality"):
        rnea(q=[0.1, 0.2], qd=[0, 0], qdd=[0, 0], **kw)


def test_rnea_params_inertia_is_a_thin_rod_along_the_link():
    kw = ARM.rnea_params()
    np.testing.assert_array_equal(kw["inertias"][0], np.diag([0.0, ARM.I1, ARM.I1]))
    np.testing.assert_array_equal(kw["inertias"][1], np.diag([0.0, ARM.I2, ARM.I2]))


def test_forward_dynamics_singular_mass_matrix_raises():
    """Point masses with a vanishing first link mass: M is singular at q2 = 0 (before: inf/garbage)."""
    arm = TwoLinkArm(m1=1e-20, m2=1.0, l1=1.0, l2=1.0, lc1=0.5, lc2=0.5, I1=0, I2=0)
    with pytest.raises(SingularityError, match=r"mass matrix singular at 1 sample") as ei:
        arm.forward_dynamics([[0.3, 0.0], [0.3, 1.0]], [[0, 0], [0, 0]], [[1.0, 0.0], [1.0, 0.0]])
    assert ei.value.cond > 1e13
    qdd = arm.forward_dynamics([0.3, 1.0], [0, 0], [1.0, 0.0])  # away from q2 = 0 it is fine
    np.testing.assert_allclose(arm.inverse_dynamics([0.3, 1.0], [0, 0], qdd), [1.0, 0.0], atol=1e-9)


def test_forward_dynamics_threshold_is_relative_1e13():
    # point masses, unit lengths, q2 = 0: m11 = 4 + m1, m12 = 2, m22 = 1, so det / (m11 m22) = m1 / 4
    def arm(m1):
        return TwoLinkArm(m1=m1, m2=1.0, l1=1.0, l2=1.0, lc1=1.0, lc2=1.0, I1=0, I2=0)

    arm(4.4e-13).forward_dynamics([0.0, 0.0], [0, 0], [0, 0])  # ratio 1.1e-13: still solved
    with pytest.raises(SingularityError):
        arm(3.6e-13).forward_dynamics([0.0, 0.0], [0, 0], [0, 0])  # ratio 0.9e-13 < 1e-13


def test_energy_drift_guarded():
    with pytest.raises(IntegrationError, match="max_nfev=30"):
        energy_drift(ARM, [0.3, 0.5], [0.0, 1.0], t_end=0.5, max_nfev=30)
    for bad in (dict(rtol=1j), dict(method="Euler"), dict(max_nfev=1.5), dict(t_end="1")):
        with pytest.raises(ValueError):
            energy_drift(ARM, [0.3, 0.5], [0.0, 1.0], **bad)
    with pytest.raises(ValueError, match="one arm"):
        energy_drift(ARM.replace(m1=[1.0, 1.1]), [0.3, 0.5], [0.0, 1.0])


@pytest.mark.parametrize("kw", [dict(m1=1j), dict(l1="1"), dict(I1=-0.1), dict(g=1e300), dict(m2=[1.0, 1j])])
def test_arm_rejects_complex_text_negative_and_huge(kw):
    with pytest.raises(ValueError):
        ARM.replace(**kw)


def test_arm_accepts_numpy_zero_inertia():
    assert ARM.replace(I1=np.float64(0.0)).I1 == 0.0


def test_energy_drift_is_relative_to_energy_above_the_lowest_potential():
    drift, sol = energy_drift(ARM, [0.4, 0.6], [1.0, -2.0], t_end=0.3, rtol=1e-6, atol=1e-6, method="RK45")
    E = ARM.energy(sol.y[:2].T, sol.y[2:].T)
    assert drift == pytest.approx(np.max(np.abs(E - E[0])) / (E[0] - ARM.potential_min()), rel=1e-12)
    assert drift > 0


def _chain():
    """A spatial 3-joint chain with twists and full (rotated) inertia tensors."""
    rng = np.random.default_rng(12)
    R = np.linalg.qr(rng.normal(size=(3, 3, 3)))[0]
    inertias = R @ (np.diag([0.02, 0.03, 0.04])[None] * [1.0, 1.5, 0.7]) @ np.swapaxes(R, -1, -2)
    return dict(
        a=[0.1, 0.4, 0.3],
        alpha=[np.pi / 2, 0.3, -0.7],
        d=[0.2, 0.05, 0.1],
        convention="standard",
        masses=[2.0, 1.5, 1.0],
        coms=rng.normal(0, 0.1, (3, 3)),
        inertias=inertias,
    )


def test_rnea_velocity_terms_match_lagrange_from_the_mass_matrix():
    """h_i = sum_jk (dM_ij/dq_k - 1/2 dM_jk/dq_i) qd_j qd_k with M from zero-velocity RNEA columns (FD in q).

    Checks the Coriolis and gyroscopic terms of RNEA (w x I w, its sign and order) against Lagrange's
    equations, in a spatial chain where they do not vanish.
    """
    kw = _chain()
    kw_m = {k: v for k, v in kw.items()}
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd = rng.uniform(-2, 2, 3), rng.uniform(-2, 2, 3)
        h = rnea(q=q, qd=qd, qdd=np.zeros(3), gravity=np.zeros(3), **kw)
        np.testing.assert_allclose(SerialDynamics.from_dh(**kw).bias(q, qd), h, atol=1e-12)  # bias: no gravity
        eps = 1e-6
        dM = np.stack(
            [(crba(q=q + eps * e, **kw_m) - crba(q=q - eps * e, **kw_m)) / (2 * eps) for e in np.eye(3)],
            -1,
        )  # dM[i, j, k] = dM_ij / dq_k
        ref = np.einsum("ijk,j,k->i", dM, qd, qd) - 0.5 * np.einsum("jki,j,k->i", dM, qd, qd)
        np.testing.assert_allclose(h, ref, atol=1e-8)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_rnea_gravity_torque_is_the_gradient_of_the_potential_from_serial_fk(convention):
    """Frames of either DH convention: RNEA's static torque equals dV/dq, V from robokin.serial link frames."""
    from robokin.serial import SerialArm

    kw = _chain()
    kw["convention"] = convention
    arm = SerialArm.from_dh(kw["a"], kw["alpha"], kw["d"], convention=convention)
    g = np.array([0.0, 0.0, -9.81])

    def V(q):
        T = arm.fk_all(q)[1:]
        com = np.einsum("nij,nj->ni", T[:, :3, :3], kw["coms"]) + T[:, :3, 3]
        return -float(np.sum(np.asarray(kw["masses"])[:, None] * com * g))

    rng = np.random.default_rng(6)
    for _ in range(4):
        q = rng.uniform(-2, 2, 3)
        tau = rnea(q=q, qd=np.zeros(3), qdd=np.zeros(3), gravity=g, **kw)
        eps = 1e-6
        grad = np.array([(V(q + eps * e) - V(q - eps * e)) / (2 * eps) for e in np.eye(3)])
        np.testing.assert_allclose(tau, grad, atol=1e-7)


# ------------------------------------------------------------------------------------ tip Jacobian and statics
def test_jacobian_is_the_derivative_of_the_tip():
    q = np.array([[0.3, -0.7], [1.2, 2.0], [-2.5, 0.1]])
    np.testing.assert_allclose(ARM.jacobian(q), jacobian_fd(lambda x: ARM.fk(x)[1], q), atol=1e-8)
    np.testing.assert_allclose(np.linalg.det(ARM.jacobian(q)), ARM.l1 * ARM.l2 * np.sin(q[:, 1]), atol=1e-14)


@HSET
@given(angles, st.floats(0.05, np.pi - 0.05), st.floats(-10, 10), st.floats(-10, 10))
def test_tip_force_property_reproduces_the_torques(q1, q2, t1, t2):
    """J^T F = tau, and the power balance F . v = tau . qd for any joint rate."""
    for sgn in (1.0, -1.0):
        q = np.array([q1, sgn * q2])
        F = ARM.tip_force(q, [t1, t2])
        np.testing.assert_allclose(
            ARM.jacobian(q).T @ F, [t1, t2], atol=1e-9 * (1 + abs(t1) + abs(t2)) / abs(np.sin(q2))
        )
        qd = np.array([0.7, -1.3])
        np.testing.assert_allclose(F @ (ARM.jacobian(q) @ qd), np.dot([t1, t2], qd), atol=1e-8 / abs(np.sin(q2)))


def test_tip_force_of_gravity_is_a_tip_weight():
    """A point mass on the tip loads the joints with J^T (0, m g): tip_force returns its weight, pointing up."""
    point = TwoLinkArm(m1=1e-9, m2=0.5, l1=0.4, l2=0.3, lc1=0.2, lc2=0.3, I1=0.0, I2=0.0)
    q = np.random.default_rng(0).uniform([-3, 0.2], [3, 2.9], (20, 2))
    np.testing.assert_allclose(
        point.tip_force(q, point.gravity(q)), np.broadcast_to([0.0, 0.5 * 9.81], q.shape), atol=1e-6
    )


def test_tip_force_singular_policy():
    from robokin.errors import SingularityError

    q = np.array([[0.3, 0.0], [0.3, 1.0], [0.2, np.pi]])
    with pytest.raises(SingularityError, match="2 configuration"):
        ARM.tip_force(q, [1.0, 0.5])
    F = ARM.tip_force(q, [1.0, 0.5], on_singular="nan")
    assert np.isnan(F[[0, 2]]).all() and np.isfinite(F[1]).all()
    F = ARM.tip_force([0.3, 0.05], [1.0, 0.5], min_sin=0.1, on_singular="nan")
    assert np.isnan(F).all()


@pytest.mark.parametrize(
    "args, kw, match",
    [
        (([0.1, 0.2, 0.3], [1.0, 0.0]), {}, "q"),
        (([0.1, 0.2], [np.inf, 0.0]), {}, "tau"),
        (([0.1, 0.2], [1.0, 0.0]), dict(min_sin=0.0), "min_sin"),
        (([0.1, 0.2], [1.0, 0.0]), dict(min_sin=1.5), "min_sin"),
        (([0.1, 0.2], [1.0, 0.0]), dict(on_singular="ignore"), "on_singular"),
        (([0.1, 1j], [1.0, 0.0]), {}, "q"),
    ],
)
def test_tip_force_bad_inputs(args, kw, match):
    with pytest.raises(ValueError, match=match):
        ARM.tip_force(*args, **kw)


def test_jacobian_bad_inputs():
    with pytest.raises(ValueError, match="q"):
        ARM.jacobian([0.1])
    with pytest.raises(ValueError, match="q"):
        ARM.jacobian([np.nan, 0.1])


# ------------------------------------------------------------------ issue 29: shapes bias accepts
def test_coriolis_matrix_accepts_what_bias_accepts_and_names_mismatches():
    q, qd = np.array([0.3, 0.2]), np.ones((5, 2))
    C = ARM.coriolis_matrix(q, qd)  # np.stack failed inside numpy before
    np.testing.assert_allclose(np.einsum("...ij,...j->...i", C, qd), ARM.bias(q, qd), atol=1e-15)
    for fn in (ARM.coriolis_matrix, ARM.bias):
        with pytest.raises(ValueError, match="q and qd must broadcast"):
            fn(np.zeros((3, 2)), np.zeros((4, 2)))


def test_arm_parameters_ragged_and_energy_drift_options():
    with pytest.raises(ValueError, match="m1 must be a scalar or a 1-D array"):
        TwoLinkArm([[1.0, 2.0], [1.0]], 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    with pytest.raises(ValueError, match="rtol must be at least"):
        energy_drift(ARM, [0.3, 0.5], [0, 1], t_end=0.05, rtol=1e-300)
    with pytest.raises(ValueError, match="max_nfev must be at most"):
        energy_drift(ARM, [0.3, 0.5], [0, 1], t_end=0.05, max_nfev=10**30)


# --- articulated-body algorithm, reflected rotor inertia, PD + gravity Lyapunov function (issue 33) ---------------


def _random_chain(rng, n, convention, base=None):
    a = rng.uniform(0.0, 0.4, n)
    alpha = rng.uniform(-np.pi, np.pi, n)
    d = rng.uniform(-0.2, 0.2, n)
    Ip = rng.uniform(0.01, 0.02, (n, 3))  # principal moments in [0.01, 0.02]: the triangle inequality holds
    Rs = [np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(n)]
    inertias = np.array([R @ np.diag(p) @ R.T for R, p in zip(Rs, Ip)])
    arm = SerialArm.from_dh(a, alpha, d, offset=rng.uniform(-1, 1, n), convention=convention, base=base)
    return SerialDynamics(
        arm,
        masses=rng.uniform(0.2, 3.0, n),
        coms=rng.uniform(-0.1, 0.1, (n, 3)),
        inertias=inertias,
        gravity=rng.uniform(-10, 10, 3),
    )


@pytest.mark.parametrize("convention", ["standard", "modified"])
@pytest.mark.parametrize("n", [1, 2, 3, 6, 9])
def test_aba_matches_crba_solve_on_random_chains(convention, n):
    rng = np.random.default_rng(40 + n)
    base = np.eye(4)
    base[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    base[:3, 0] *= np.sign(np.linalg.det(base[:3, :3]))  # a rotation, not a reflection
    base[:3, 3] = rng.uniform(-1, 1, 3)
    dyn = _random_chain(rng, n, convention, base=base)
    q, qd, tau = rng.uniform(-3, 3, (3, 50, n))
    ref = dyn.forward_dynamics(q, qd, tau)
    got = dyn.forward_dynamics_aba(q, qd, tau)
    assert np.max(np.abs(got - ref)) <= 1e-10 * (1 + np.abs(ref).max())
    # and it is the inverse of RNEA
    np.testing.assert_allclose(dyn.inverse_dynamics(q, qd, got), tau, atol=1e-9 * (1 + np.abs(tau).max()))


def test_aba_broadcasts_and_keeps_leading_axes():
    dyn = SerialDynamics.from_dh(**ARM.rnea_params())
    rng = np.random.default_rng(3)
    q = rng.uniform(-3, 3, (4, 5, 2))
    out = dyn.forward_dynamics_aba(q, [0.5, -1.0], np.zeros(2))
    assert out.shape == (4, 5, 2)
    np.testing.assert_allclose(out, ARM.forward_dynamics(q, np.broadcast_to([0.5, -1.0], q.shape), 0 * q), atol=1e-11)
    one = dyn.forward_dynamics_aba(q[0, 0], [0.5, -1.0], [0.0, 0.0])
    assert one.shape == (2,)
    np.testing.assert_allclose(one, out[0, 0], atol=1e-14)


@given(
    st.lists(angles, min_size=2, max_size=2),
    st.lists(rates, min_size=2, max_size=2),
    st.lists(st.floats(-20, 20), min_size=2, max_size=2),
)
@HSET
def test_aba_property_inverts_rnea_on_the_two_link_arm(q, qd, tau):
    dyn = SerialDynamics.from_dh(**ARM.rnea_params())
    qdd = dyn.forward_dynamics_aba(q, qd, tau)
    np.testing.assert_allclose(dyn.inverse_dynamics(q, qd, qdd), tau, atol=1e-10)


def test_aba_matches_mujoco_forward_on_the_ur5():
    mujoco = pytest.importorskip("mujoco")
    from robokin import sim

    kw = ur5_inertials()
    dyn = SerialDynamics.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard", **kw, gravity=[0, 0, -9.81])
    model = sim.dh_model(UR5, **kw, gravity=[0, 0, -9.81])
    data = mujoco.MjData(model)
    rng = np.random.default_rng(11)
    q, qd = rng.uniform(-np.pi, np.pi, (2, 30, 6))
    tau = rng.uniform(-5, 5, (30, 6))
    got = dyn.forward_dynamics_aba(q, qd, tau)
    for k in range(30):
        data.qpos[:], data.qvel[:], data.qfrc_applied[:] = q[k], qd[k], tau[k]
        mujoco.mj_forward(model, data)
        assert np.max(np.abs(got[k] - data.qacc)) <= 1e-9 * (1 + np.abs(data.qacc).max())


def test_aba_singular_and_bad_input():
    kw = ARM.rnea_params()
    kw.update(masses=[1.0, 0.0], inertias=np.zeros((2, 3, 3)))  # massless distal link: D_2 = 0
    dyn = SerialDynamics.from_dh(**kw)
    with pytest.raises(SingularityError, match="joint 2"):
        dyn.forward_dynamics_aba([0.1, 0.2], [0, 0], [0, 0])
    dyn = SerialDynamics.from_dh(**ARM.rnea_params())
    with pytest.raises(ValueError, match="q"):
        dyn.forward_dynamics_aba([0.1, 0.2, 0.3], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="tau"):
        dyn.forward_dynamics_aba([0.1, 0.2], [0, 0], [np.nan, 0])
    with pytest.raises(ValueError, match="qd"):
        dyn.forward_dynamics_aba([0.1, 0.2], "fast", [0, 0])
    with pytest.raises(ValueError, match="^q must .*bool"):  # True would silently become 1 rad
        dyn.forward_dynamics_aba([True, False], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="^tau must .*bool"):
        dyn.forward_dynamics_aba([0.1, 0.2], [0, 0], np.array([True, True]))


def test_reflected_inertia_adds_n2j_to_the_diagonal_only():
    M = ARM.mass_matrix(np.random.default_rng(2).uniform(-3, 3, (7, 2)))
    out = add_reflected_inertia(M, gear_ratios=[10.0, 6.0], rotor_inertias=[1.4e-5, 3.4e-4])
    assert out.shape == M.shape
    np.testing.assert_allclose(out[..., 0, 1], M[..., 0, 1], rtol=0, atol=0)
    np.testing.assert_allclose(out[..., 0, 0] - M[..., 0, 0], 100 * 1.4e-5, rtol=1e-12)
    np.testing.assert_allclose(out[..., 1, 1] - M[..., 1, 1], 36 * 3.4e-4, rtol=1e-12)
    # the kinetic energy of the rotors: 1/2 qd^T (M + D) qd - 1/2 qd^T M qd = 1/2 sum J (N qd)^2
    qd = np.array([0.7, -1.3])
    dT = 0.5 * qd @ (out[0] - M[0]) @ qd
    assert abs(dT - 0.5 * (1.4e-5 * (10 * 0.7) ** 2 + 3.4e-4 * (6 * -1.3) ** 2)) < 1e-15
    assert M.flags.writeable and np.all(out[..., 0, 0] > M[..., 0, 0])  # input untouched


@given(st.floats(1.0, 200.0), st.floats(0.0, 1e-3), st.lists(angles, min_size=2, max_size=2))
@HSET
def test_reflected_inertia_property_lowers_the_normalised_coupling(N, J, q):
    M = ARM.mass_matrix(q)
    out = add_reflected_inertia(M, gear_ratios=[N, N], rotor_inertias=[J, J])
    k0 = abs(M[0, 1]) / np.sqrt(M[0, 0] * M[1, 1])
    k1 = abs(out[0, 1]) / np.sqrt(out[0, 0] * out[1, 1])
    assert k1 <= k0 * (1 + 1e-12)
    assert np.linalg.eigvalsh(out).min() >= np.linalg.eigvalsh(M).min() - 1e-15


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(gear_ratios=[10.0, 0.0], rotor_inertias=[1e-5, 1e-5]), "gear_ratios"),
        (dict(gear_ratios=[10.0, 10.0], rotor_inertias=[1e-5, -1e-5]), "rotor_inertias"),
        (dict(gear_ratios=[10.0, 10.0, 1.0], rotor_inertias=[1e-5, 1e-5]), "gear_ratios"),
        (dict(gear_ratios=[10.0, np.inf], rotor_inertias=[1e-5, 1e-5]), "gear_ratios"),
        (dict(gear_ratios=10.0, rotor_inertias=[1e-5, 1e-5]), "gear_ratios"),
    ],
)
def test_reflected_inertia_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        add_reflected_inertia(np.eye(2), **kw)
    with pytest.raises(ValueError, match="M"):
        add_reflected_inertia(np.ones((2, 3)), gear_ratios=[1.0, 1.0], rotor_inertias=[0.0, 0.0])


def test_reflected_inertia_refuses_non_symmetric_m_and_bool():
    M = np.array([[0.4, 0.1], [0.0, 0.05]])  # not a mass matrix: used to pass silently
    with pytest.raises(ValueError, match="^M must be symmetric"):
        add_reflected_inertia(M, gear_ratios=[10.0, 10.0], rotor_inertias=[1e-5, 1e-5])
    Ms = np.array([[0.4, 0.1], [0.1 + 1e-15, 0.05]])  # rounding-level asymmetry is accepted
    assert add_reflected_inertia(Ms, gear_ratios=[10.0, 10.0], rotor_inertias=[1e-5, 1e-5]).shape == (2, 2)
    for kw, name in [
        (dict(M=np.eye(2, dtype=bool), gear_ratios=[10.0, 10.0], rotor_inertias=[1e-5, 1e-5]), "M"),
        (dict(M=np.eye(2), gear_ratios=[True, True], rotor_inertias=[1e-5, 1e-5]), "gear_ratios"),
        (dict(M=np.eye(2), gear_ratios=[10.0, 10.0], rotor_inertias=np.array([True, False])), "rotor_inertias"),
    ]:
        M0 = kw.pop("M")
        with pytest.raises(ValueError, match=f"^{name} must .*bool"):
            add_reflected_inertia(M0, **kw)


def test_pd_gravity_lyapunov_values_and_decrease():
    kp = np.array([40.0, 25.0])
    q, qd = np.array([[0.3, -0.2]]), np.array([[1.0, 0.5]])
    V = pd_gravity_lyapunov(ARM, q, qd, q_ref=[0.1, 0.1], kp=kp)
    e = q[0] - [0.1, 0.1]
    assert V.shape == (1,)
    np.testing.assert_allclose(V[0], 0.5 * qd[0] @ ARM.mass_matrix(q[0]) @ qd[0] + 0.5 * e @ np.diag(kp) @ e)
    np.testing.assert_allclose(pd_gravity_lyapunov(ARM, q, qd, q_ref=[0.1, 0.1], kp=np.diag(kp)), V)
    # dV/dt = -qd^T Kd qd along the closed loop, by a central difference of V on the exact flow
    kd = np.array([3.0, 2.0])

    def rhs(x):
        qq, vv = x[:2], x[2:]
        tau = kp * ([0.1, 0.1] - qq) - kd * vv + ARM.gravity(qq)
        return np.r_[vv, ARM.forward_dynamics(qq, vv, tau)]

    x = np.r_[q[0], qd[0]]
    h = 1e-6
    Vx = lambda x: float(pd_gravity_lyapunov(ARM, x[:2], x[2:], q_ref=[0.1, 0.1], kp=kp))  # noqa: E731
    dV = (Vx(x + h * rhs(x)) - Vx(x - h * rhs(x))) / (2 * h)
    assert abs(dV + qd[0] @ (kd * qd[0])) < 1e-6


def test_pd_gravity_lyapunov_bad_input():
    with pytest.raises(ValueError, match="model"):
        pd_gravity_lyapunov(object(), [0, 0], [0, 0], q_ref=[0, 0], kp=[1, 1])
    with pytest.raises(ValueError, match="kp"):
        pd_gravity_lyapunov(ARM, [0, 0], [0, 0], q_ref=[0, 0], kp=[1, -1])
    with pytest.raises(ValueError, match="kp"):
        pd_gravity_lyapunov(ARM, [0, 0], [0, 0], q_ref=[0, 0], kp=[[1, 2], [0, 1]])
    with pytest.raises(ValueError, match="q_ref"):
        pd_gravity_lyapunov(ARM, [0, 0], [0, 0], q_ref=[0, 0, 0], kp=[1, 1])
    with pytest.raises(ValueError, match="qd"):
        pd_gravity_lyapunov(ARM, [0, 0], [np.nan, 0], q_ref=[0, 0], kp=[1, 1])
    # batch shapes that do not broadcast: the message names both arguments (numpy's own names neither)
    with pytest.raises(ValueError, match=r"^q_ref \(3, 2\) does not broadcast with q \(2, 2\)"):
        pd_gravity_lyapunov(ARM, np.zeros((2, 2)), np.zeros((2, 2)), q_ref=np.zeros((3, 2)), kp=[1, 1])
