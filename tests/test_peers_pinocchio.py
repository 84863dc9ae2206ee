"""Peer cross-check: robokin.dynamics.SerialDynamics against pinocchio on the UR5 (standard DH) and a modified-DH chain.

The pinocchio models are built by hand (JointModelRZ plus SE3 placements) from the DH tables, so the
check exercises our RNEA, not a shared model loader.

Inertial parameters of the UR5 used here (stated, not official beyond the masses):
masses (kg) are UR's published values [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879]; centres of mass (m, in
each DH link frame) are UR's published ones; inertia tensors about the centre of mass are the solid-cylinder
estimate of ``robokin.ur5.inertial_parameters`` plus small products of inertia (``UR5_INERTIAS`` below).
"""

import numpy as np
import pytest

from robokin.dynamics import SerialDynamics
from robokin.ur5 import UR5, inertial_parameters

pin = pytest.importorskip("pinocchio")

UR5_A, UR5_ALPHA, UR5_D = UR5.a, UR5.alpha, UR5.d
_P = inertial_parameters()
UR5_MASSES, UR5_COMS = _P["masses"], _P["coms"]
# small products of inertia on top of the principal values, so the full tensor is exercised
UR5_INERTIAS = np.array(
    [J + 0.05 * np.diag(J).min() * np.array([[0, 1, -1], [1, 0, 2], [-1, 2, 0]]) for J in _P["inertias"]]
)
GRAVITY = np.array([0.0, 0.0, -9.81])


def _rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _pin_model(a, alpha, d, masses, coms, inertias, convention):
    """Chain of RZ joints. Standard DH: joint i's frame is DH frame i-1 (turning with q_i); the constant
    part Tz(d) Tx(a) Rx(alpha) leads to the next joint and to the DH link frame. Modified DH: joint i's frame is
    DH frame i and the placement from joint i-1 is Rx(alpha_{i-1}) Tx(a_{i-1}) Tz(d_i)."""
    model = pin.Model()
    model.gravity = pin.Motion(np.r_[GRAVITY, 0.0, 0.0, 0.0])
    parent = 0
    n = len(a)
    for i in range(n):
        if convention == "standard":
            place = (
                pin.SE3.Identity()
                if i == 0
                else pin.SE3(_rx(alpha[i - 1]), np.array([a[i - 1], 0, 0]) + np.array([0, 0, d[i - 1]]))
            )
            A_R, A_p = _rx(alpha[i]), np.array([a[i], 0.0, d[i]])  # joint frame -> DH link frame i
        else:
            R = _rx(alpha[i])
            place = pin.SE3(R, np.array([a[i], 0, 0]) + R @ np.array([0, 0, d[i]]))
            A_R, A_p = np.eye(3), np.zeros(3)
        jid = model.addJoint(parent, pin.JointModelRZ(), place, f"joint{i + 1}")
        com = A_R @ coms[i] + A_p
        inertia = A_R @ inertias[i] @ A_R.T
        model.appendBodyToJoint(jid, pin.Inertia(float(masses[i]), com, inertia), pin.SE3.Identity())
        parent = jid
    return model


@pytest.fixture(scope="module")
def samples():
    rng = np.random.default_rng(2024)
    n = 40
    return rng.uniform(-np.pi, np.pi, (n, 6)), rng.uniform(-2, 2, (n, 6)), rng.uniform(-5, 5, (n, 6))


def _compare(convention, a, alpha, d, masses, coms, inertias, samples):
    model = _pin_model(a, alpha, d, masses, coms, inertias, convention)
    data = model.createData()
    q, qd, qdd = samples
    dyn = SerialDynamics.from_dh(
        a, alpha, d, convention=convention, masses=masses, coms=coms, inertias=inertias, gravity=GRAVITY
    )
    ours = dyn.inverse_dynamics(q, qd, qdd)
    theirs = np.array([pin.rnea(model, data, q[k], qd[k], qdd[k]).copy() for k in range(len(q))])
    assert np.max(np.abs(ours - theirs)) <= 1e-9
    # protocol split: gravity(q) = pinocchio's generalized gravity, bias(q, qd) = nonLinearEffects - gravity
    g_theirs = np.array([pin.computeGeneralizedGravity(model, data, q[k]).copy() for k in range(len(q))])
    nle = np.array([pin.nonLinearEffects(model, data, q[k], qd[k]).copy() for k in range(len(q))])
    assert np.max(np.abs(dyn.gravity(q) - g_theirs)) <= 1e-9
    assert np.max(np.abs(dyn.bias(q, qd) - (nle - g_theirs))) <= 1e-9
    M_ours = dyn.mass_matrix(q)
    M_theirs = []
    for k in range(len(q)):
        M = pin.crba(model, data, q[k]).copy()
        M_theirs.append(np.triu(M) + np.triu(M, 1).T)  # crba fills the upper triangle
    assert np.max(np.abs(M_ours - np.array(M_theirs))) <= 1e-9
    # the comparison is not vacuous: torques are of order tens of N m
    assert np.max(np.abs(theirs)) > 1.0


def test_ur5_rnea_and_mass_matrix_match_pinocchio(samples):
    _compare("standard", UR5_A, UR5_ALPHA, UR5_D, UR5_MASSES, UR5_COMS, UR5_INERTIAS, samples)


def test_modified_dh_chain_matches_pinocchio(samples):
    # the modified-DH table circulating for the UR5 (COURSE.md ch. 5), with the same inertial parameters
    a = np.array([0.0, 0.0, 0.425, 0.39225, 0.0, 0.0])
    alpha = np.array([0.0, -np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2])
    d = UR5_D
    _compare("modified", a, alpha, d, UR5_MASSES, UR5_COMS, UR5_INERTIAS, samples)


def test_wrong_convention_is_caught(samples):
    # Pitfall: feeding the standard table as if it were modified gives different torques.
    model = _pin_model(UR5_A, UR5_ALPHA, UR5_D, UR5_MASSES, UR5_COMS, UR5_INERTIAS, "standard")
    data = model.createData()
    q, qd, qdd = (s[:5] for s in samples)
    wrong = SerialDynamics.from_dh(
        UR5_A,
        UR5_ALPHA,
        UR5_D,
        convention="modified",
        masses=UR5_MASSES,
        coms=UR5_COMS,
        inertias=UR5_INERTIAS,
        gravity=GRAVITY,
    ).inverse_dynamics(q, qd, qdd)
    theirs = np.array([pin.rnea(model, data, q[k], qd[k], qdd[k]).copy() for k in range(len(q))])
    assert np.max(np.abs(wrong - theirs)) > 1e-2
