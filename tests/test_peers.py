"""Cross-checks against peer libraries (skipped when the [peers] extra is absent)."""

import warnings

import numpy as np
import pytest

from robokin.errors import SingularityWarning
from robokin.transforms import rpy_to_matrix, se3_log, so3_log
from robokin.ur5 import UR5, make_ur5, pose_residual

RNG = np.random.default_rng(99)


@pytest.fixture(scope="module")
def rtb_ur5():
    rtb = pytest.importorskip("roboticstoolbox")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rtb.models.DH.UR5()


@pytest.fixture(scope="module")
def matched(rtb_ur5):
    # roboticstoolbox ships d1 = 0.089459 (the official value is 0.089159): match it
    d = [L.d for L in rtb_ur5.links]
    a = [L.a for L in rtb_ur5.links]
    alpha = [L.alpha for L in rtb_ur5.links]
    assert d[0] == pytest.approx(0.089459) and d[0] != UR5.d[0]
    np.testing.assert_allclose(a, UR5.a, atol=0)
    np.testing.assert_allclose(alpha, UR5.alpha, atol=1e-15)
    np.testing.assert_allclose(d[1:], UR5.d[1:], atol=0)
    assert all(L.offset == 0 for L in rtb_ur5.links)
    return make_ur5(d1=d[0])


def test_fk_matches_rtb(rtb_ur5, matched):
    q = RNG.uniform(-np.pi, np.pi, (200, 6))
    err = max(np.abs(rtb_ur5.fkine(qi).A - matched.fk(qi)).max() for qi in q)
    assert err <= 1e-12
    # and the official arm differs from rtb's by exactly the d1 discrepancy (0.3 mm along z0)
    dz = UR5.fk(q)[:, 2, 3] - matched.fk(q)[:, 2, 3]
    np.testing.assert_allclose(dz, 0.089159 - 0.089459, atol=1e-15)


def test_jacobian_matches_rtb_jacob0(rtb_ur5, matched):
    q = RNG.uniform(-np.pi, np.pi, (200, 6))
    err = max(np.abs(rtb_ur5.jacob0(qi) - matched.jacobian(qi)).max() for qi in q)
    assert err <= 1e-12


def test_rtb_ikine_lm_solution_is_one_of_our_branches(rtb_ur5, matched):
    # rtb's numerical answer, when it succeeds, must be (up to 2 pi) one of the 8 analytic branches
    # of the same arm (make_ur5(d1=...) is a UR5Arm whose IK uses its own d1)
    q = RNG.uniform(-np.pi, np.pi, (10, 6))
    hits = 0
    for qi in q:
        T = rtb_ur5.fkine(qi)
        sol = rtb_ur5.ikine_LM(T, q0=qi + 0.1, seed=1, tol=1e-20)  # its default tol leaves ~0.5 mm
        if not sol.success:
            continue
        Tm = matched.fk(sol.q)
        assert np.abs(Tm - T.A).max() < 1e-9
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SingularityWarning)
            res = matched.ik(Tm)  # rtb's d1: the analytic IK of that same arm
        Q, valid = res.q, res.valid
        assert pose_residual(matched.fk(Q[valid]), Tm).max() <= 1e-9
        d = np.abs(((Q[valid] - sol.q) + np.pi) % (2 * np.pi) - np.pi).max(-1)
        assert d.min() < 1e-6
        hits += 1
    assert hits >= 5


def test_rotations_match_spatialmath_and_scipy():
    sm = pytest.importorskip("spatialmath.base")
    from scipy.spatial.transform import Rotation

    rpy = RNG.uniform([-np.pi, -np.pi / 2, -np.pi], [np.pi, np.pi / 2, np.pi], (100, 3))
    for v in rpy:
        R = rpy_to_matrix(v)
        np.testing.assert_allclose(R, sm.rpy2r(v, order="zyx"), atol=1e-12)
        np.testing.assert_allclose(R, Rotation.from_euler("ZYX", v[::-1]).as_matrix(), atol=1e-12)
        np.testing.assert_allclose(so3_log(R), Rotation.from_matrix(R).as_rotvec(), atol=1e-10)
        W = sm.trlog(R)  # spatialmath returns the skew matrix
        np.testing.assert_allclose(so3_log(R), [W[2, 1], W[0, 2], W[1, 0]], atol=1e-10)
    # a full transform: spatialmath's trlog gives the se(3) matrix [[hat(w), v], [0, 0]]
    T = UR5.fk(RNG.uniform(-np.pi, np.pi, 6))
    L = sm.trlog(T)
    xi = se3_log(T)
    np.testing.assert_allclose(xi[:3], L[:3, 3], atol=1e-10)
    np.testing.assert_allclose(xi[3:], [L[2, 1], L[0, 2], L[1, 0]], atol=1e-10)
