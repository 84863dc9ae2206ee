"""Tests for robokin._kernels (specialised FK/Jacobian/RNEA/CRBA) and robokin.dynamics.SerialDynamics.

Every kernel is compared with the readable implementations it replaces (4x4 DH products, ``_rnea_reference`` with
``np.cross``, the n-pass RNEA mass matrix) and, where installed, with pinocchio, to 1e-12; on generic tables (no
structural zeros), on UR-style tables (folded zeros and ones), in both DH conventions, with base and tool frames,
batched and one configuration per call.
"""

import numpy as np
import pytest

from robokin import _kernels as K
from robokin.dynamics import SerialDynamics, _rnea_mass_matrix_reference, _rnea_reference
from robokin.errors import SingularityError
from robokin.serial import SerialArm, dh_transform
from robokin.transforms import make_transform, rotx, rotz
from robokin.ur5 import UR5, inertial_parameters

CONVENTIONS = ("standard", "modified")
G = np.array([0.0, 0.0, -9.81])


def _random_table(rng, n, generic):
    if generic:
        return (
            rng.uniform(-0.5, 0.5, n),
            rng.uniform(-np.pi, np.pi, n),
            rng.uniform(-0.5, 0.5, n),
            rng.uniform(-1, 1, n),
        )
    return UR5.a, UR5.alpha, UR5.d, np.zeros(6)


def _random_inertials(rng, n):
    masses = rng.uniform(0.2, 5.0, n)
    coms = rng.uniform(-0.3, 0.3, (n, 3))
    inertias = []
    for _ in range(n):  # R diag(p) R^T with principal moments obeying the triangle inequality
        p = rng.uniform(0.03, 0.05, 3)  # any two sum to more than the third
        R = rotz(rng.uniform(-3, 3)) @ rotx(rng.uniform(-3, 3))
        inertias.append(R @ np.diag(p) @ R.T)
    return masses, coms, np.array(inertias)


def _fk_by_products(arm, q):
    A = dh_transform(arm.a, arm.alpha, arm.d, q + arm.offset, convention=arm.convention)
    T = arm.base.copy()
    for i in range(arm.n):
        T = T @ A[i]
    return T @ arm.tool


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("generic", [True, False])
def test_fk_and_jacobian_kernels_match_dh_products(convention, generic, rng=np.random.default_rng(7)):
    a, alpha, d, off = _random_table(rng, 6, generic)
    base = make_transform(rotz(0.3) @ rotx(-0.2), [0.1, -0.2, 0.3]) if generic else None
    tool = make_transform(rotx(0.4), [0.0, 0.05, 0.1]) if generic else None
    arm = SerialArm.from_dh(a, alpha, d, offset=off, convention=convention, base=base, tool=tool)
    q = rng.uniform(-np.pi, np.pi, (300, 6))
    T_ref = np.array([_fk_by_products(arm, qk) for qk in q])
    T = arm.fk(q)
    assert np.abs(T - T_ref).max() <= 1e-12
    assert np.abs(np.array([arm.fk(qk) for qk in q[:20]]) - T_ref[:20]).max() <= 1e-12  # float path
    assert np.abs(np.array([arm.fk(list(qk)) for qk in q[:5]]) - T_ref[:5]).max() <= 1e-12  # list input
    # Jacobian columns from the 4x4 frames: [z x (p_e - o); z]
    F = arm.fk_all(q)
    sel = slice(0, 6) if convention == "standard" else slice(1, 7)
    z, o = F[:, sel, :3, 2], F[:, sel, :3, 3]
    J_ref = np.swapaxes(np.concatenate([np.cross(z, T_ref[:, None, :3, 3] - o), z], -1), -1, -2)
    assert np.abs(arm.jacobian(q) - J_ref).max() <= 1e-12
    assert np.abs(np.array([arm.jacobian(qk) for qk in q[:20]]) - J_ref[:20]).max() <= 1e-12


def test_batches_are_chunked_and_identical_to_single_calls(rng=np.random.default_rng(3)):
    q = rng.uniform(-np.pi, np.pi, (5000, 6))  # more than two chunks of run_batched
    T, J = UR5.fk(q), UR5.jacobian(q)
    idx = [0, 2047, 2048, 4095, 4096, 4999]
    # the array kernel and the float kernel perform the same operations in the same order: bit-identical
    assert all(np.array_equal(T[k], UR5.fk(q[k])) for k in idx)
    assert all(np.array_equal(J[k], UR5.jacobian(q[k])) for k in idx)
    assert UR5.fk(q.reshape(50, 100, 6)).shape == (50, 100, 4, 4)
    assert UR5.fk(np.zeros((0, 6))).shape == (0, 4, 4)


def test_folding_removes_structural_zeros():
    Kf = UR5._K
    folded = K._compile("fk", 6, "standard", K._structure(Kf))
    generic = K._compile("fk", 6, "standard", (None,) * len(Kf))
    assert folded.n_ops < generic.n_ops / 2
    # and the generic kernel gives the same numbers as the folded one
    q = [0.3, -1.2, 1.5, -0.4, 1.1, 0.7]
    c, s = K.cos_sin(q, (0.0,) * 6)
    assert np.abs(np.subtract(folded(Kf, c, s), generic(Kf, c, s))).max() <= 1e-15


def test_structure_cache_is_shared_by_perturbed_arms():
    arm2 = SerialArm.from_dh(UR5.a * 1.01, UR5.alpha, UR5.d * 0.99, convention="standard")
    assert K._structure(arm2._K) == K._structure(UR5._K)
    assert arm2._kernel("fk", arrays=False) is UR5._kernel("fk", arrays=False)
    assert not np.allclose(arm2.fk(np.zeros(6)), UR5.fk(np.zeros(6)))


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("generic", [True, False])
def test_rnea_and_crba_match_the_reference(convention, generic, rng=np.random.default_rng(11)):
    a, alpha, d, off = _random_table(rng, 6, generic)
    masses, coms, inertias = _random_inertials(rng, 6)
    if not generic:  # UR5 parameters: diagonal inertias, sparse centres of mass (the folded case)
        p = inertial_parameters()
        masses, coms, inertias = p["masses"], p["coms"], p["inertias"]
    kw = dict(convention=convention, offset=off, masses=masses, coms=coms, inertias=inertias)
    dyn = SerialDynamics.from_dh(a, alpha, d, gravity=G, **kw)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, 200, 6))
    ref = _rnea_reference(a, alpha, d, q, qd, qdd, gravity=G, **kw)
    assert np.abs(ref).max() > 1.0  # not vacuous
    assert np.abs(dyn.inverse_dynamics(q, qd, qdd) - ref).max() <= 1e-12
    assert np.abs(np.array([dyn.inverse_dynamics(q[k], qd[k], qdd[k]) for k in range(10)]) - ref[:10]).max() <= 1e-12
    zero = np.zeros_like(q)
    G_ref = _rnea_reference(a, alpha, d, q, zero, zero, gravity=G, **kw)
    assert np.abs(dyn.gravity(q) - G_ref).max() <= 1e-12
    assert np.abs(dyn.gravity(q[0]) - G_ref[0]).max() <= 1e-12
    # bias = C(q, qd) qd: velocity terms only, gravity excluded
    h_ref = _rnea_reference(a, alpha, d, q, qd, zero, gravity=np.zeros(3), **kw)
    assert np.abs(dyn.bias(q, qd) - h_ref).max() <= 1e-12
    assert np.abs(dyn.bias(q[0], qd[0]) - h_ref[0]).max() <= 1e-12
    assert np.abs(dyn.bias(q, zero)).max() <= 1e-12 < np.abs(G_ref).max()
    M_ref = _rnea_mass_matrix_reference(a, alpha, d, q, **kw)
    M = dyn.mass_matrix(q)
    assert np.abs(M - M_ref).max() <= 1e-12
    assert np.abs(dyn.mass_matrix(q[3]) - M_ref[3]).max() <= 1e-12
    assert np.all(np.linalg.eigvalsh(M) > 0)
    # forward dynamics inverts inverse dynamics
    tau = dyn.inverse_dynamics(q, qd, qdd)
    assert np.abs(dyn.forward_dynamics(q, qd, tau) - qdd).max() <= 1e-9
    assert np.abs(dyn.forward_dynamics(q[0], qd[0], tau[0]) - qdd[0]).max() <= 1e-9


def test_base_rotation_turns_gravity_into_the_chain_frame(rng=np.random.default_rng(2)):
    p = inertial_parameters()
    R = rotx(np.pi / 2)  # arm mounted on a wall: world gravity is R^T g in the chain's frame 0
    arm = SerialArm.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard", base=make_transform(R, [0, 0, 1.0]))
    dyn = SerialDynamics(arm, **p, gravity=G)
    q = rng.uniform(-3, 3, (20, 6))
    ref = _rnea_reference(UR5.a, UR5.alpha, UR5.d, q, 0 * q, 0 * q, convention="standard", gravity=R.T @ G, **p)
    assert np.abs(dyn.gravity(q) - ref).max() <= 1e-12


def test_two_link_arm_agrees_with_serial_dynamics(rng=np.random.default_rng(5)):
    from robokin.robots import ARM2 as arm

    dyn = SerialDynamics.from_dh(**arm.rnea_params())
    q, qd, tau = rng.uniform(-3, 3, (3, 100, 2))
    assert np.abs(dyn.mass_matrix(q) - arm.mass_matrix(q)).max() <= 1e-12
    assert np.abs(dyn.bias(q, qd) - arm.bias(q, qd)).max() <= 1e-12
    assert np.abs(dyn.gravity(q) - arm.gravity(q)).max() <= 1e-12
    assert np.abs(dyn.forward_dynamics(q, qd, tau) - arm.forward_dynamics(q, qd, tau)).max() <= 1e-10


def test_serial_dynamics_rejects_bad_input():
    p = inertial_parameters()
    dyn = SerialDynamics(UR5, **p)
    with pytest.raises(ValueError, match="SerialArm"):
        SerialDynamics("ur5", **p)
    with pytest.raises(ValueError, match="masses"):
        SerialDynamics(UR5, masses=-p["masses"], coms=p["coms"], inertias=p["inertias"])
    with pytest.raises(ValueError, match="triangle"):
        SerialDynamics(UR5, masses=p["masses"], coms=p["coms"], inertias=p["inertias"] * [1, 1, 5])
    with pytest.raises(ValueError, match="gravity"):
        SerialDynamics(UR5, **p, gravity=[0.0, -9.81])
    for bad in ([0.0] * 5, [np.nan] + [0.0] * 5, [1e300] + [0.0] * 5, ["a"] * 6):
        with pytest.raises(ValueError):
            dyn.inverse_dynamics(bad, [0.0] * 6, [0.0] * 6)
        with pytest.raises(ValueError):
            dyn.mass_matrix(bad)
        with pytest.raises(ValueError):
            UR5.fk(bad)
        with pytest.raises(ValueError):
            UR5.jacobian(bad)
    with pytest.raises(ValueError):
        dyn.inverse_dynamics(np.zeros((4, 6)), np.zeros((3, 6)), np.zeros(6))  # batch shapes that do not broadcast
    # a massless distal chain has a singular mass matrix: forward dynamics refuses it
    light = SerialDynamics(
        UR5,
        masses=[3.7, 8.4, 2.3, 0.0, 0.0, 0.0],
        coms=p["coms"],
        inertias=np.concatenate([p["inertias"][:3], np.zeros((3, 3, 3))]),
    )
    with pytest.raises(SingularityError):
        light.forward_dynamics(np.zeros(6), np.zeros(6), np.zeros(6))
    assert dyn.masses.flags.writeable is False


def test_matches_pinocchio_per_call_and_batched(rng=np.random.default_rng(9)):
    pin = pytest.importorskip("pinocchio")
    from test_peers_pinocchio import _pin_model

    p = inertial_parameters()
    model = _pin_model(UR5.a, UR5.alpha, UR5.d, p["masses"], p["coms"], p["inertias"], "standard")
    data = model.createData()
    dyn = SerialDynamics(UR5, **p, gravity=G)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, 50, 6))
    tau = dyn.inverse_dynamics(q, qd, qdd)
    M = dyn.mass_matrix(q)
    for k in range(len(q)):
        assert np.abs(tau[k] - pin.rnea(model, data, q[k], qd[k], qdd[k])).max() <= 1e-12
        Mp = pin.crba(model, data, q[k])
        assert np.abs(np.triu(M[k]) - np.triu(Mp)).max() <= 1e-12
        assert (
            np.abs(dyn.forward_dynamics(q[k], qd[k], tau[k]) - pin.aba(model, data, q[k], qd[k], tau[k])).max() <= 1e-9
        )


def test_combined_pose_and_jacobian_kernel_equals_the_separate_ones(rng=np.random.default_rng(6)):
    q = rng.uniform(-np.pi, np.pi, (300, 6))
    FJ = UR5._many("fkjac", q, 48)
    assert np.array_equal(FJ[:, :12].reshape(-1, 3, 4), UR5.fk(q)[:, :3, :])
    assert np.array_equal(FJ[:, 12:].reshape(-1, 6, 6), UR5.jacobian(q))


def test_cos_sin_half_angle_matches_numpy():
    """``_primitives.cos_sin`` (one tan call) agrees with np.cos/np.sin to 1.5 ulp absolute over wide ranges, is
    exact at 0 and +-pi and keeps NaN; a wrong identity (e.g. ``2 t / (1 - t^2)``) or a lost factor fails."""
    from robokin._primitives import cos_sin

    rng = np.random.default_rng(35)
    for hi in (1e-8, np.pi, 10.0, 1e6):
        th = rng.uniform(-hi, hi, 200_000)
        c, s = cos_sin(th)
        assert np.abs(c - np.cos(th)).max() <= 3.4e-16 and np.abs(s - np.sin(th)).max() <= 3.4e-16
    th = np.array([0.0, -0.0, np.pi, -np.pi, np.pi / 2, 2 * np.pi, 1e-300, np.nextafter(np.pi, 4)])
    c, s = cos_sin(th)
    assert np.abs(c - np.cos(th)).max() <= 2.3e-16 and np.abs(s - np.sin(th)).max() <= 2.3e-16
    assert (c[0], s[0], c[2]) == (1.0, 0.0, -1.0)
    c, s = cos_sin(np.array([np.nan]))
    assert np.isnan(c[0]) and np.isnan(s[0])
