"""The Universal Robots UR5: official standard-DH model and analytic IK (all 8 branches).

DH table (standard convention, UR's published values; lengths in m)::

    i   a_i        alpha_i   d_i
    1   0          pi/2      0.089159
    2   -0.425     0         0
    3   -0.39225   0         0
    4   0          pi/2      0.10915
    5   0          -pi/2     0.09465
    6   0          0         0.0823

Zero pose (all ``q = 0``): upper arm and forearm stretched horizontally along
``-x`` of the base at height ``d1``, the tool origin at
``(a2 + a3, -(d4 + d6), d1 - d5) = (-0.81725, -0.19145, -0.00549)`` m with the tool
z axis along ``-y``. Joint offsets are zero and every joint turns positively
(right-hand rule) about its ``z_{i-1}`` axis. Chapter 5 shows the frames.

The analytic IK follows {cite}`hawkins2013` (chapter 6, {prf:ref}`alg-ch06-ik`):
theta1 from the wrist point ``p05``, theta5 and theta6 from the tool
orientation, then a planar 3R problem for theta2, theta3, theta4.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from . import transforms as _tf
from ._validate import as_array, choice
from .checks import check_errors
from .errors import SingularityWarning, UnreachableError
from .serial import SerialArm
from .transforms import ROTATION_TOL, _check_transform, wrap_to_pi

__all__ = [
    "D1",
    "A2",
    "A3",
    "D4",
    "D5",
    "D6",
    "ALPHA",
    "UR5",
    "make_ur5",
    "BRANCH_LABELS",
    "BRANCH_SIGNS",
    "ik",
    "IKInfo",
    "INPUT_ERROR_GAIN",
    "nearest",
    "pose_residual",
    "inertial_parameters",
    "validate",
]

D1, A2, A3, D4, D5, D6 = 0.089159, -0.425, -0.39225, 0.10915, 0.09465, 0.0823
ALPHA = (np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0)
QLIM = np.tile([-2 * np.pi, 2 * np.pi], (6, 1))  # UR joints: +-360 deg


def make_ur5(*, d1=D1, qlim=QLIM):
    """The UR5 as a standard-DH :class:`~robokin.serial.SerialArm` (``d1`` adjustable for peers).

    Examples
    --------
    >>> np.round(make_ur5().fk(np.zeros(6))[:3, 3], 5)
    array([-0.81725, -0.19145, -0.00549])
    """
    return SerialArm.from_dh(
        [0.0, A2, A3, 0.0, 0.0, 0.0], ALPHA, [d1, 0.0, 0.0, D4, D5, D6], convention="standard", qlim=qlim
    )


#: The official UR5 (standard DH, d1 = 0.089159 m, joint limits +-2 pi).
UR5 = make_ur5()


def inertial_parameters():
    """A stated set of UR5 link inertial parameters, for the dynamics chapters and peer checks.

    Masses (kg) and centres of mass (m, in each standard-DH link frame) are UR's published values; the
    principal inertias about each centre of mass (kg m^2) are a solid-cylinder estimate, not official data.

    Returns
    -------
    dict
        ``masses`` (6,), ``coms`` (6, 3) and diagonal ``inertias`` (6, 3, 3); new arrays on every call.

    Examples
    --------
    >>> p = inertial_parameters()
    >>> round(float(p["masses"].sum()), 4), p["coms"].shape, p["inertias"].shape
    (16.9939, (6, 3), (6, 3, 3))
    """
    masses = np.array([3.7, 8.393, 2.275, 1.219, 1.219, 0.1879])
    coms = np.array(
        [
            [0.0, -0.02561, 0.00193],
            [0.2125, 0.0, 0.11336],
            [0.15, 0.0, 0.0265],
            [0.0, -0.0018, 0.01634],
            [0.0, 0.0018, 0.01634],
            [0.0, 0.0, -0.001159],
        ]
    )
    principal = np.array(
        [
            [0.0103, 0.0103, 0.0067],
            [0.0151, 0.1338, 0.1339],
            [0.0041, 0.0312, 0.0313],
            [0.0021, 0.0021, 0.0022],
            [0.0021, 0.0021, 0.0022],
            [0.0001, 0.0001, 0.0001],
        ]
    )
    return {"masses": masses, "coms": coms, "inertias": np.array([np.diag(v) for v in principal])}


# Branch k uses the sign triple BRANCH_SIGNS[k] = (shoulder, elbow, wrist) chosen in the
# theta1 (+-acos), theta3 and theta5 (+-acos) formulas; the order is shoulder-major.
BRANCH_SIGNS = np.array([(s, e, w) for s in (1, -1) for e in (1, -1) for w in (1, -1)], dtype=float)
#: Labels ``(shoulder, elbow, wrist)`` of the 8 branches, in the order of ``ik``'s branch axis.
#:
#: * shoulder ``"left"``: seen from above, looking from the base axis towards the wrist point
#:   ``p05``, the shoulder offset ``d4`` lies to the left; equivalently the wrist point is in
#:   front of the shoulder along the arm's reach direction ``-x1``. ``"right"``: the arm
#:   reaches back over its shoulder.
#: * elbow ``"up"``: ``sign(theta3) = +1`` for a left shoulder and ``-1`` for a right one; the
#:   elbow then lies above the shoulder-wrist chord whenever the upper arm points upwards.
#: * wrist ``"noflip"``: ``theta5 > 0``; ``"flip"``: ``theta5 < 0``.
BRANCH_LABELS = [
    ("left" if s > 0 else "right", "up" if e > 0 else "down", "noflip" if w > 0 else "flip") for s, e, w in BRANCH_SIGNS
]


def pose_residual(T_a, T_b):
    """Pose distance ``|p_a - p_b| / L + ||R_a - R_b||_F / sqrt(2)`` (dimensionless).

    ``L = |a2| + |a3|`` makes the position part relative to the arm's reach; the
    orientation part equals ``2 sin(theta / 2)`` for a rotation angle ``theta``
    between the two frames, i.e. ``theta`` (rad) for small errors.

    Parameters
    ----------
    T_a, T_b : array_like, shape (..., 4, 4)
        Rigid transforms (bottom row and rotation block checked within 1e-6), broadcast together.

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> from robokin.transforms import make_transform, rotz
    >>> round(float(pose_residual(np.eye(4), make_transform(rotz(1e-6), [0, 0, 0]))), 12)
    1e-06
    """
    T_a = _check_transform(T_a, "T_a", ROTATION_TOL)
    T_b = _check_transform(T_b, "T_b", ROTATION_TOL)
    dp = np.linalg.norm(T_a[..., :3, 3] - T_b[..., :3, 3], axis=-1) / (abs(A2) + abs(A3))
    dR = np.sqrt(np.sum((T_a[..., :3, :3] - T_b[..., :3, :3]) ** 2, axis=(-2, -1)) / 2)
    return dp + dR


#: Per-pose validity tolerance is ``tol + INPUT_ERROR_GAIN * e_in``, with ``e_in`` the pose's own inconsistency
#: (``max(max|R^T R - I|, |det R - 1|)``, which ``ik`` accepts up to 1e-6). Measured over random poses perturbed
#: by 1e-9..1e-6, the FK residual of the analytic branches stays below ~4 e_in (tests/test_ur5.py); 10 is the margin.
INPUT_ERROR_GAIN = 10.0


class IKInfo(NamedTuple):
    """Diagnostics of :func:`ik` (``full_output=True``); arrays over the poses' leading axes.

    (The fields are listed as parameters: autodoc documents a named tuple's fields itself, and an
    ``Attributes`` section would describe each one twice on the API page.)

    Parameters
    ----------
    residual : ndarray, shape (..., 8)
        ``pose_residual(FK(q_k), T)`` of every branch that exists (NaN where it does not).
    tol : ndarray, shape (...)
        The validity tolerance used per pose: ``tol + INPUT_ERROR_GAIN * input_error``.
    input_error : ndarray, shape (...)
        ``max(max|R^T R - I|, |det R - 1|)`` of the given rotation (float32 or rounded poses: ~1e-8..1e-7).
    wrist_singular : ndarray of bool, shape (..., 8)
        Branches at the wrist singularity: a one-parameter family (theta6 free, theta4 and theta2..3
        compensating); the returned member follows the ``q6_singular`` rule.
    """

    residual: np.ndarray
    tol: np.ndarray
    input_error: np.ndarray
    wrist_singular: np.ndarray


def ik(T, *, tol=1e-9, singular_tol=1e-9, q6_singular=0.0, on_unreachable="nan", warn=True, full_output=False):
    """All 8 analytic IK branches of the official UR5, vectorised over poses.

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Target tool poses (frame 6) in the base frame. Bottom row ``[0, 0, 0, 1]`` and rotation block
        (``max|R^T R - I| <= 1e-6``, ``|det R - 1| <= 1e-6``) are checked.
    tol : float
        A branch is valid when ``pose_residual(FK(q), T) <= tol + INPUT_ERROR_GAIN * e_in``, with ``e_in`` the
        pose's own inconsistency ``max(max|R^T R - I|, |det R - 1|)`` (0 up to round-off for an exact pose;
        ~1e-7 for a pose stored in float32, ~1e-8 for one rounded to 8 decimals): a slightly non-orthonormal
        rotation has no exact solution, and the residual it forces is proportional to ``e_in``. Every returned
        branch is confirmed by FK; ``full_output=True`` returns the residuals and the tolerance used.
        Arguments of ``arccos`` within that tolerance outside ``[-1, 1]`` are clamped
        (boundary of the workspace: the two branches merge there).
    singular_tol : float
        Wrist singularity when ``|sin theta5| < singular_tol + INPUT_ERROR_GAIN * e_in``: the axes of joints
        2, 3, 4 and 6 are then all parallel and the arm has a one-parameter self-motion, so theta6 is free.
        It is chosen by the ``q6_singular`` rule below, theta2..4 are solved for it, and a
        :class:`~robokin.errors.SingularityWarning` is emitted (if ``warn``).
    q6_singular : float or array_like, shape (...)
        Preferred theta6 at the wrist singularity (rad), e.g. the previous solution's theta6 when tracking a
        path; broadcast against the poses. **Rule**: per branch, theta6 = ``q6_singular`` if the wrist point
        is then reachable by the planar 3R step; otherwise the reachable theta6 nearest to it (the reachable
        set is an arc, computed in closed form). So every reachable singular pose gets its branches.
    on_unreachable : {"nan", "raise"}
        ``"nan"`` (default): branches that do not exist get NaN rows and
        ``valid = False``. ``"raise"``: raise :class:`~robokin.errors.UnreachableError`
        when some pose has no valid branch at all.
    warn : bool
        Emit ``SingularityWarning`` at wrist or shoulder singularities.
    full_output : bool
        Also return an :class:`IKInfo` (residuals, tolerances, input error, wrist-singular family mask).

    Returns
    -------
    q : ndarray, shape (..., 8, 6)
        Joint angles in ``[-pi, pi)``; branch ``k`` is labelled ``BRANCH_LABELS[k]``
        (shoulder, elbow, wrist). Rows are NaN **exactly** where ``valid`` is False.
    valid : ndarray of bool, shape (..., 8)
    info : IKInfo
        Only with ``full_output=True``.

    Notes
    -----
    * Shoulder: ``theta1`` needs the wrist point ``p05`` (the tool origin moved back by
      ``d6`` along the tool z axis) at horizontal distance ``r >= d4`` from the base
      axis. At ``r = d4`` the two shoulder branches merge (shoulder singularity, warned);
      for ``r < d4`` no branch exists.
    * Wrist: ``|sin theta5|`` below the singular tolerance as described above; ``valid`` stays True
      because the returned q reaches the pose (confirmed by FK), but it is one member of a family
      (``IKInfo.wrist_singular``).
    * Elbow: ``theta3 = 0`` (arm stretched) merges the two elbow branches.
    * Large batches are solved in chunks of a few thousand poses (bounded memory, flat time per pose).

    Examples
    --------
    >>> q = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    >>> Q, valid = ik(UR5.fk(q))
    >>> Q.shape, int(valid.sum())
    ((8, 6), 8)
    >>> bool(np.any(np.all(np.abs(Q - q) < 1e-9, axis=-1)))
    True
    >>> Q, valid, info = ik(UR5.fk(q).astype(np.float32), full_output=True)  # float32 pose: still 8 branches
    >>> int(valid.sum()), bool(info.residual[valid].max() <= info.tol)
    (8, True)
    """
    choice(on_unreachable, "on_unreachable", ("nan", "raise"))
    for name, v in (("tol", tol), ("singular_tol", singular_tol)):
        if isinstance(v, bool) or not (np.isscalar(v) and np.isreal(v) and np.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    T = _check_transform(T, "T", ROTATION_TOL)
    lead = T.shape[:-2]
    h = as_array(q6_singular, "q6_singular")
    try:
        h = np.broadcast_to(h, lead)
    except ValueError as exc:
        raise ValueError(f"q6_singular of shape {h.shape} does not broadcast to the poses' shape {lead}") from exc
    Tf, hf = T.reshape(-1, 4, 4), h.reshape(-1)
    N = len(Tf)
    q = np.empty((N, 8, 6))
    valid = np.empty((N, 8), bool)
    res = np.empty((N, 8))
    sing = np.empty((N, 8), bool)
    near1 = np.empty((N, 8), bool)
    tol_k = np.empty(N)
    e_in = np.empty(N)
    for sl in _tf._chunks(N):
        (q[sl], valid[sl], res[sl], sing[sl], near1[sl], tol_k[sl], e_in[sl]) = _ik_flat(
            Tf[sl], hf[sl], float(tol), float(singular_tol)
        )

    if warn:
        if np.any(sing):
            warnings.warn(
                SingularityWarning(
                    np.inf,
                    f"UR5 ik: wrist singularity |sin theta5| < {singular_tol:g} in "
                    f"{int(np.count_nonzero(np.any(sing, -1)))} pose(s); theta6 is free "
                    f"(axes 2, 3, 4, 6 parallel): the branches returned use the q6_singular "
                    f"rule (preferred {float(np.mean(hf)):g} on average)",
                ),
                stacklevel=2,
            )
        if np.any(near1 & valid):
            warnings.warn(
                SingularityWarning(
                    np.inf,
                    "UR5 ik: shoulder singularity (wrist point at distance d4 "
                    "from the base axis); the two shoulder branches coincide",
                ),
                stacklevel=2,
            )
    if on_unreachable == "raise":
        none = ~np.any(valid, axis=-1)
        if np.any(none):
            k = int(np.argmax(none))
            raise UnreachableError(
                int(np.count_nonzero(none)),
                Tf[k, :3, 3],
                total=int(N),
                reason="no analytic UR5 branch reaches the pose",
            )
    q, valid = q.reshape(lead + (8, 6)), valid.reshape(lead + (8,))
    if full_output:
        return (
            q,
            valid,
            IKInfo(res.reshape(lead + (8,)), tol_k.reshape(lead), e_in.reshape(lead), sing.reshape(lead + (8,))),
        )
    return q, valid


def _ik_flat(T, hint, tol, singular_tol):
    """Core of :func:`ik` on a flat chunk of checked poses ``(m, 4, 4)``; per-branch arrays ``(m, 8)``."""
    m = len(T)
    orth, det_err = _tf._rotation_errors(T[:, :3, :3])
    e_in = np.maximum(orth, det_err)
    tk = tol + INPUT_ERROR_GAIN * e_in  # per-pose tolerance
    stol = (singular_tol + INPUT_ERROR_GAIN * e_in)[:, None, None, None]
    t4 = tk[:, None, None, None]
    # branch axes (shoulder, elbow, wrist) of size 2 each; every quantity is computed at the
    # smallest multiplicity it needs (theta1: 2, theta5/theta6: 4, theta2..4: 8)
    S = BRANCH_SIGNS[:, 0].reshape(2, 2, 2)[:, :1, :1]
    E = BRANCH_SIGNS[:, 1].reshape(2, 2, 2)[:1, :, :1]
    W = BRANCH_SIGNS[:, 2].reshape(2, 2, 2)[:1, :1, :]
    R = T[:, None, None, None, :3, :3]
    p = T[:, None, None, None, :3, 3]

    # shoulder: wrist point p05 = p - d6 * z6 (theta1 is Hawkins' eq. with the +-acos)
    p05x = p[..., 0] - D6 * R[..., 0, 2]
    p05y = p[..., 1] - D6 * R[..., 1, 2]
    r = np.hypot(p05x, p05y)
    ok1 = r >= D4 * (1 - t4)
    th1 = np.arctan2(p05y, p05x) + S * np.arccos(np.clip(D4 / np.where(r > 0, r, 1.0), -1.0, 1.0)) + np.pi / 2
    s1, c1 = np.sin(th1), np.cos(th1)
    # wrist: cos theta5 from the tool position along the shoulder-plane normal n = (s1, -c1, 0);
    # |sin theta5| from the tool x, y axes along n (Hawkins' theta6 terms). atan2 of both keeps
    # theta5 accurate near 0, where arccos(c5) alone loses half the digits (1e-16 -> 1e-8 rad).
    c5 = (p[..., 0] * s1 - p[..., 1] * c1 - D4) / D6
    ok5 = np.abs(c5) <= 1 + t4
    x6 = R[..., 0, 0] * s1 - R[..., 1, 0] * c1
    y6 = -R[..., 0, 1] * s1 + R[..., 1, 1] * c1
    th5 = W * np.arctan2(np.hypot(x6, y6), np.clip(c5, -1.0, 1.0))
    s5 = np.sin(th5)
    sing5 = np.abs(s5) < stol
    # theta6 = atan2(y6 / s5, x6 / s5); multiplying by sign(s5) instead of dividing is the same. Its error is
    # ~ (round-off + e_in) / |s5|, so at the wrist singularity the preferred theta6 (hint) is tried first and
    # the computed one only where the hint's branch fails the FK check.
    sg = np.where(s5 >= 0, 1.0, -1.0)
    th6c = np.arctan2(y6 * sg, x6 * sg)
    th6 = np.where(sing5, hint[:, None, None, None], th6c)
    q, exists, res = _branches(R, p, S, E, th1, s1, c1, th5, s5, th6, t4, m)
    valid = exists & (res <= tk[:, None])
    retry = np.broadcast_to(sing5, (m, 2, 2, 2)).reshape(m, 8) & ~valid
    if np.any(retry):
        q2, exists2, res2 = _branches(R, p, S, E, th1, s1, c1, th5, s5, th6c, t4, m)
        take = retry & exists2 & (res2 <= tk[:, None])
        q, exists, res = np.where(take[..., None], q2, q), exists | take, np.where(take, res2, res)
        valid = valid | take
    q = np.where(valid[..., None], q, np.nan)
    res = np.where(exists, res, np.nan)
    full = (m, 2, 2, 2)
    sing5 = np.broadcast_to(sing5, full).reshape(m, 8) & exists
    near1 = np.broadcast_to(np.abs(r - D4) <= np.maximum(t4, 1e-9) * D4, full).reshape(m, 8)
    exists &= np.broadcast_to(ok1 & ok5, full).reshape(m, 8)
    valid &= exists
    return q, valid, res, sing5, near1, tk, e_in


def _branches(R, p, S, E, th1, s1, c1, th5, s5, th6, t4, m):
    """theta2..4 for given theta1, theta5, theta6 (planar 3R), and the FK residual of all 8 branches."""
    # planar 3R: T14 = A1^-1 T (A5 A6)^-1 is Rz(theta2+theta3+theta4) Rx(pi/2) with origin (x, y, d4)
    x, y, x4x, x4y = _planar_t14(R, p, s1, c1, th5, th6)
    c3 = (x * x + y * y - A2 * A2 - A3 * A3) / (2 * A2 * A3)
    # near the wrist singularity a theta6 (the hint, or one blurred by e_in / |s5|) may put the wrist out of the
    # planar step's reach although the pose is reachable: move it to the nearest reachable theta6 (FK judges)
    fix = (np.abs(c3) > 1 + t4) & (np.abs(s5) < 1e-3)
    if np.any(fix):
        th6 = np.where(fix, _theta6_singular(R, p, s1, c1, th6), th6)
        x, y, x4x, x4y = _planar_t14(R, p, s1, c1, th5, th6)
        c3 = (x * x + y * y - A2 * A2 - A3 * A3) / (2 * A2 * A3)
    ok3 = np.abs(c3) <= 1 + t4
    th3 = E * S * np.arccos(np.clip(c3, -1.0, 1.0))
    th2 = np.arctan2(y, x) - np.arctan2(A3 * np.sin(th3), A2 + A3 * np.cos(th3))
    th4 = np.arctan2(x4y, x4x) - th2 - th3

    full = (m, 2, 2, 2)
    ths = [th1, th2, th3, th4, th5, th6]
    q = np.stack([np.broadcast_to(_wrap(t), full) for t in ths], axis=-1).reshape(m, 8, 6)
    exists = np.broadcast_to(ok3, full).reshape(m, 8)
    # confirm every branch by forward kinematics (cos/sin of the very angles returned)
    cs = [np.cos(t) for t in ths]
    ss = [np.sin(t) for t in ths]
    res = _residual_cols(UR5, cs, ss, R, p).reshape(m, 8)
    return q, exists, res


def _theta6_singular(R, p, s1, c1, hint):
    """theta6 near the wrist singularity: ``hint`` if the planar 3R step can then reach, else the nearest that can.

    With ``sin theta5 = 0`` the tool x, y axes lie in the arm plane, and the frame-4 origin seen by the planar
    step is ``c0 + d5 (sin theta6 a + cos theta6 b)`` (``a, b`` those axes in the plane, orthonormal): a circle
    of radius d5. Its distance from the shoulder must lie in ``[|a2| - |a3|, |a2| + |a3|]``, which holds on an
    arc ``|theta6 - phi| in [dmin, dmax]``. We clamp the hint into that arc (an empty arc leaves the hint:
    the pose is then unreachable for this branch and the mask says so).
    """
    x0 = c1 * (p[..., 0] - D6 * R[..., 0, 2]) + s1 * (p[..., 1] - D6 * R[..., 1, 2])
    y0 = p[..., 2] - D6 * R[..., 2, 2] - D1
    ax, ay = c1 * R[..., 0, 0] + s1 * R[..., 1, 0], R[..., 2, 0]
    bx, by = c1 * R[..., 0, 1] + s1 * R[..., 1, 1], R[..., 2, 1]
    g, h = x0 * ax + y0 * ay, x0 * bx + y0 * by  # |c0 + d5 u|^2 = |c0|^2 + d5^2 + 2 d5 (s6 g + c6 h)
    K = np.hypot(g, h)
    phi = np.arctan2(g, h)  # s6 g + c6 h = K cos(theta6 - phi)
    base = x0 * x0 + y0 * y0 + D5 * D5
    rmin, rmax = abs(abs(A2) - abs(A3)), abs(A2) + abs(A3)
    Kd = 2 * D5 * np.where(K > 0, K, 1.0)
    lo = np.clip((rmin * rmin - base) / Kd, -1.0, 1.0)  # need lo <= cos(theta6 - phi) <= hi
    hi = np.clip((rmax * rmax - base) / Kd, -1.0, 1.0)
    dmin, dmax = np.arccos(hi), np.arccos(lo)
    d = _wrap(hint - phi)
    sgn = np.where(d < 0, -1.0, 1.0)
    clamped = phi + sgn * np.clip(np.abs(d), dmin, dmax)
    feasible = (K > 0) & (dmin <= dmax)
    return np.where(feasible, clamped, hint)


def _wrap(a):
    # floor is much faster than %, and gives the same [-pi, pi) result
    return a - 2 * np.pi * np.floor((a + np.pi) / (2 * np.pi))


def _planar_t14(R, p, s1, c1, th5, th6):
    """Entries of ``T14 = A1^-1 T A6^-1 A5^-1`` needed by the planar 3R step.

    Returns the origin ``(x, y)`` of frame 4 in frame 1 and ``(cos, sin)`` of
    theta2 + theta3 + theta4. Written per component (no 4x4 products):
    ``A6^-1 = Tz(-d6) Rz(-theta6)``, ``A5^-1 = Rx(pi/2) Tz(-d5) Rz(-theta5)``,
    ``A1^-1 = Rx(-pi/2) Tz(-d1) Rz(-theta1)``.
    """
    c6, s6 = np.cos(th6), np.sin(th6)
    c5, s5 = np.cos(th5), np.sin(th5)
    P, X3 = [], []
    for j in range(3):
        y1 = s6 * R[..., j, 0] + c6 * R[..., j, 1]  # y axis after Rz(-theta6)
        x1 = c6 * R[..., j, 0] - s6 * R[..., j, 1]
        P.append(p[..., j] - D6 * R[..., j, 2] + D5 * y1)  # Rx(pi/2) turns -y1 into the new z
        X3.append(c5 * x1 - s5 * R[..., j, 2])
    x = c1 * P[0] + s1 * P[1]
    y = P[2] - D1
    return x, y, c1 * X3[0] + s1 * X3[1], X3[2]


def _residual_cols(arm, c, s, R, p):
    """``|p - p_fk| / L + ||R - R_fk||_F / sqrt(2)`` from joint cos/sin, no 4x4 matrices."""
    *_, (X, Y, Z, P) = arm._columns_cs(c, s)  # the tool frame is the last column set
    dp = sum((P[i] - p[..., i]) ** 2 for i in range(3))
    dR = sum((V[i] - R[..., i, k]) ** 2 for k, V in enumerate((X, Y, Z)) for i in range(3))
    return np.sqrt(dp) / (abs(A2) + abs(A3)) + np.sqrt(dR / 2)


def nearest(q_branches, valid, q_ref, *, weights=None):
    """Pick the valid branch closest to ``q_ref`` (angle differences wrapped to [-pi, pi)).

    Distance ``sum_j w_j * wrap(q_j - q_ref_j)^2``. The returned angles are unwrapped
    towards ``q_ref`` (``q_ref + wrap(q - q_ref)``), so a path stays continuous even
    across +-pi.

    Parameters
    ----------
    q_branches : array_like, shape (..., k, n)
        Candidate solutions (NaN rows allowed where ``valid`` is False).
    valid : array_like of bool, shape (..., k)
    q_ref : array_like, shape (..., n)
        Reference configuration (rad), e.g. the previous point of a path.
    weights : array_like, shape (n,), optional
        Non-negative joint weights (default all 1).

    Returns
    -------
    q : ndarray, shape (..., n)
        NaN where no branch is valid.
    index : ndarray of int, shape (...)
        Chosen branch, -1 where none is valid.

    Examples
    --------
    >>> Q, v = ik(UR5.fk([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))
    >>> q, k = nearest(Q, v, [0.3, -1.1, 1.4, -0.4, 1.0, 0.7])
    >>> np.round(q, 6), BRANCH_LABELS[int(k)]
    (array([ 0.3, -1.2,  1.5, -0.4,  1.1,  0.7]), ('left', 'up', 'noflip'))
    """
    valid = np.asarray(valid)
    if valid.dtype != bool:
        raise ValueError(f"valid must be a boolean mask, got dtype {valid.dtype}")
    Q = as_array(q_branches, "q_branches", trailing=(None, None), finite=False)
    if Q.shape[:-1] != valid.shape:
        raise ValueError(f"valid has shape {valid.shape}, expected {Q.shape[:-1]} to match q_branches")
    if np.any(~np.isfinite(Q[valid])):
        raise ValueError("q_branches has non-finite values in rows marked valid")
    qr = as_array(q_ref, "q_ref", trailing=(Q.shape[-1],))
    w = np.ones(Q.shape[-1]) if weights is None else as_array(weights, "weights", trailing=(Q.shape[-1],))
    if w.ndim != 1 or np.any(w < 0):
        raise ValueError("weights must be a 1-D array of non-negative numbers, one per joint")
    dq = wrap_to_pi(np.where(valid[..., None], Q, 0.0) - qr[..., None, :])
    dist = np.where(valid, np.sum(w * dq * dq, axis=-1), np.inf)
    k = np.argmin(dist, axis=-1)
    none = ~np.any(valid, axis=-1)
    best = np.take_along_axis(dq, k[..., None, None], axis=-2)[..., 0, :] + qr
    best = np.where(none[..., None], np.nan, best)
    return best, np.where(none, -1, k)


def validate(*, rng=None, fast=False):
    """Headline checks of the UR5 analytic IK (chapter 6).

    Examples
    --------
    >>> [r.passed for r in validate(rng=np.random.default_rng(1), fast=True)]
    [True, True, True, True]
    """
    rng = np.random.default_rng(6) if rng is None else rng
    N = 2000 if fast else 20000
    q = rng.uniform(-np.pi, np.pi, (N, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        Q, valid = ik(UR5.fk(q))
    res = np.where(valid, pose_residual(UR5.fk(np.where(valid[..., None], Q, 0.0)), UR5.fk(q)[:, None]), 0.0)
    worst = np.max(res, axis=-1)
    worst = np.where(np.any(valid, -1), worst, np.inf)
    found = np.min(np.where(valid, np.abs(_wrap(Q - q[:, None])).max(-1), np.inf), axis=-1)
    # totality: wrist-singular poses (q5 = 0 or pi, theta6 free) and float32 poses are all solved
    qs = rng.uniform(-np.pi, np.pi, (N, 6))
    qs[:, 4] = np.where(rng.random(N) < 0.5, 0.0, np.pi)
    _, v_sing = ik(UR5.fk(qs), warn=False)
    _, v32 = ik(UR5.fk(q).astype(np.float32), warn=False)
    return [
        check_errors(
            "UR5 analytic IK: FK(IK(T)) pose residual, all valid branches", worst, tol=1e-9, raise_on_fail=False
        ),
        check_errors(
            "UR5 analytic IK: wrist-singular poses (q5 = 0 or pi) without a valid branch (count)",
            (~v_sing.any(-1)).astype(float),
            tol=0.0,
            raise_on_fail=False,
        ),
        check_errors(
            "UR5 analytic IK: float32 poses, branches lost vs the float64 pose (count)",
            (valid & ~v32).sum(-1).astype(float),
            tol=0.0,
            raise_on_fail=False,
        ),
        check_errors(
            "UR5 analytic IK: generating q among the 8 branches (rad)", found, tol=1e-7, unit="rad", raise_on_fail=False
        ),
    ]
