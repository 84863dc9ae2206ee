"""Parameter identification of the 2-link arm: gravity fit and the linear dynamic regressor (chapter 12).

The 2-link dynamics are linear in five parameter combinations θ (of masses, lengths and inertias; the
individual ones cannot be separated from joint torques):

====  =====================================  ========
θ1    I1 + m1 lc1² + m2 l1²                  kg m²
θ2    I2 + m2 lc2²                           kg m²
θ3    m2 l1 lc2                              kg m²
θ4    m1 lc1 + m2 l1                         kg m
θ5    m2 lc2                                 kg m
====  =====================================  ========

optionally followed by friction ``fv1, fv2`` (N m s/rad) and ``fc1, fc2`` (N m), so that
``tau = Y(q, qd, qdd) θ`` with the regressor ``Y`` of shape (..., 2, 5) or (..., 2, 9). The regressor does not
contain ``l1``, and its five columns are independent: with ``l1`` unknown all five are identifiable. With ``l1``
known (a measured length, as in chapter 12) they are not independent, ``θ3 = l1 θ5``, and the minimal set, the
*base parameters*, is four: ``θ_b = (θ1, θ2, θ4, θ5)`` (``BASE_NAMES``), with the regressor
``regressor(..., l1=l1)`` (the θ3 column folded into the θ5 column) and ``base_parameters(arm, minimal=True)``.
:func:`arm_from_base_parameters` takes either set, and refuses five parameters that break ``θ3 = l1 θ5``.
A least-squares fit need not be the θ of any arm (noisy accelerations give ``θ2 < 0``, negative friction):
:func:`consistency_margin` tells (the mass matrix is positive definite at every pose exactly when it is positive)
and :func:`consistent_least_squares` fits over the consistent θ only.
Conventions of :class:`robokin.dynamics.TwoLinkArm` (gravity along -y, zero pose along +x).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import smooth_step
from ._validate import as_array, choice, count, finite_scalar, flag, generator, positive, tolerance
from .control import V_EPS
from .dynamics import TwoLinkArm, _two_link_regressor_rows

__all__ = [
    "PARAM_NAMES",
    "BASE_NAMES",
    "base_parameters",
    "arm_from_base_parameters",
    "regressor",
    "gravity_regressor",
    "fourier_excitation",
    "segment_excitation",
    "motion_segments",
    "residual_rms",
    "encoder_reading",
    "estimate_derivatives",
    "lowpass",
    "IdentResult",
    "least_squares",
    "BaseParameterSet",
    "qr_base_parameters",
    "consistency_margin",
    "ConsistentFit",
    "consistent_least_squares",
]

PARAM_NAMES = ("θ1", "θ2", "θ3", "θ4", "θ5", "fv1", "fv2", "fc1", "fc2")
BASE_NAMES = ("θ1", "θ2", "θ4", "θ5", "fv1", "fv2", "fc1", "fc2")  # the minimal set with l1 known


def base_parameters(
    arm: TwoLinkArm, *, fv: ArrayLike | None = None, fc: ArrayLike | None = None, minimal: bool = False
) -> np.ndarray:
    """Parameters θ of one arm, shape (5,), or (9,) with friction ``fv``, ``fc`` (each shape (2,)).

    With ``minimal=True`` the base parameters for a known ``l1`` (``BASE_NAMES``: θ3 = l1 θ5 left out),
    shape (4,) or (8,), the parameters of ``regressor(..., l1=arm.l1)``.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> base_parameters(arm).tolist()
    [1.35, 0.35, 0.5, 1.5, 0.5]
    >>> base_parameters(arm, minimal=True).tolist()
    [1.35, 0.35, 1.5, 0.5]
    """
    if not isinstance(arm, TwoLinkArm) or arm.batch_size != 1:
        raise ValueError("arm must be a robokin.dynamics.TwoLinkArm with scalar parameters")
    minimal = flag(minimal, "minimal")
    th = [
        arm.I1 + arm.m1 * arm.lc1**2 + arm.m2 * arm.l1**2,
        arm.I2 + arm.m2 * arm.lc2**2,
        arm.m2 * arm.l1 * arm.lc2,
        arm.m1 * arm.lc1 + arm.m2 * arm.l1,
        arm.m2 * arm.lc2,
    ]
    if minimal:
        del th[2]
    if (fv is None) != (fc is None):
        raise ValueError("give both fv and fc (friction) or neither")
    if fv is not None:
        fv = as_array(fv, "fv", trailing=(2,))
        fc = as_array(fc, "fc", trailing=(2,))
        if fv.ndim != 1 or fc.ndim != 1 or np.any(fv < 0) or np.any(fc < 0):
            raise ValueError("fv and fc must be non-negative arrays of shape (2,)")
        th += [*fv, *fc]
    return np.array(th, dtype=float)


def arm_from_base_parameters(
    theta: ArrayLike, *, l1: float, l2: float, m1: float, m2: float, g: float = 9.81, rtol: float = 1e-9
) -> TwoLinkArm:
    """An arm with the given parameters θ: one representative of the identifiable class.

    Torques depend on the parameters only through θ, so any arm with the same θ is dynamically
    equivalent. Given the lengths and the two masses (not identifiable from torques), the centre
    of mass distances and inertias follow: ``lc2 = θ5 / m2``, ``I2 = θ2 - m2 lc2²``,
    ``lc1 = (θ4 - m2 l1) / m1``, ``I1 = θ1 - m1 lc1² - m2 l1²``. Such an arm has ``θ3 = m2 l1 lc2 = l1 θ5``,
    so five parameters must satisfy it; a θ fitted with five free columns does not (noise moves θ3 and θ5
    apart): fit the four base parameters instead (``regressor(..., l1=l1)``). Friction entries are ignored
    (the arm has no friction).

    Parameters
    ----------
    theta : array_like, shape (4,), (5,), (8,) or (9,)
        The base parameters in the order of ``BASE_NAMES`` ((4,) or (8,), θ3 implied), or the five regressor
        parameters in the order of ``PARAM_NAMES`` ((5,) or (9,), θ3 checked).
    l1, l2 : float
        Link lengths (m).
    m1, m2 : float
        Link masses (kg).
    g : float
        Gravity magnitude (m/s^2).
    rtol : float
        Tolerance of the check ``|θ3 - l1 θ5| <= rtol max(|θ3|, |l1 θ5|)``; the default admits round-off only.

    Raises
    ------
    ValueError
        If ``θ3 != l1 θ5`` within ``rtol``, or if θ implies a negative inertia or centre-of-mass distance
        for these masses.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> twin = arm_from_base_parameters(base_parameters(arm), l1=1.0, l2=1.0, m1=1.0, m2=1.0)
    >>> round(twin.I1, 12), round(twin.lc2, 12)
    (0.1, 0.5)
    >>> round(arm_from_base_parameters([1.35, 0.35, 1.5, 0.5], l1=1.0, l2=1.0, m1=1.0, m2=1.0).lc2, 12)  # base set
    0.5
    >>> arm_from_base_parameters([1.35, 0.35, 0.6, 1.5, 0.5], l1=1.0, l2=1.0, m1=1.0, m2=1.0)
    Traceback (most recent call last):
    ...
    ValueError: theta[2] (θ3 = m2 l1 lc2) = 0.6 is not l1 θ5 = 0.5 (rtol 1e-09): ...
    """
    theta = as_array(theta, "theta", trailing=(None,))
    if theta.shape not in ((4,), (5,), (8,), (9,)):
        raise ValueError(f"theta must have shape (4,) or (8,) (base set) or (5,) or (9,), got {theta.shape}")
    l1, l2, m1, m2 = (positive(v, n) for v, n in ((l1, "l1"), (l2, "l2"), (m1, "m1"), (m2, "m2")))
    rtol = tolerance(rtol, "rtol", max=0.5, allow_zero=True)  # a larger rtol would accept any θ3 of the right sign
    if theta.shape[0] in (4, 8):
        theta = np.insert(theta[:4], 2, l1 * theta[3])
    want = l1 * theta[4]
    if abs(theta[2] - want) > rtol * max(abs(theta[2]), abs(want)):
        raise ValueError(
            f"theta[2] (θ3 = m2 l1 lc2) = {theta[2]:.6g} is not l1 θ5 = {want:.6g} (rtol {rtol:g}): "
            "no arm with this l1 has these parameters; fit the base parameters, "
            "regressor(..., l1=l1), and pass those"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # tiny masses overflow: refused just below
        lc2 = theta[4] / m2
        I2 = theta[1] - m2 * lc2**2
        lc1 = (theta[3] - m2 * l1) / m1
        I1 = theta[0] - m1 * lc1**2 - m2 * l1**2
    if not np.all(np.isfinite([lc1, lc2, I1, I2])) or lc1 <= 0 or lc2 <= 0 or I1 < 0 or I2 < 0:
        raise ValueError(
            f"theta is not physically consistent with m1={m1}, m2={m2}: "
            f"lc1={lc1:.4g}, lc2={lc2:.4g}, I1={I1:.4g}, I2={I2:.4g}"
        )
    return TwoLinkArm(m1=m1, m2=m2, l1=l1, l2=l2, lc1=float(lc1), lc2=float(lc2), I1=float(I1), I2=float(I2), g=_g(g))


def _g(g):
    g = finite_scalar(g, "g")
    if g < 0:
        raise ValueError(f"g must be non-negative, got {g}")
    return g


def gravity_regressor(q: ArrayLike, *, g: float = 9.81) -> np.ndarray:
    """Static regressor: holding torques ``G(q) = Y_g(q) [θ4, θ5]``, shape (..., 2, 2).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> q = [0.3, -0.4]
    >>> np.allclose(gravity_regressor(q) @ base_parameters(arm)[3:], arm.gravity(q))
    True
    """
    q = as_array(q, "q", trailing=(2,))
    g = _g(g)
    c1, c12 = np.cos(q[..., 0]), np.cos(q[..., 0] + q[..., 1])
    z = np.zeros_like(c1)
    return g * np.stack([np.stack([c1, c12], -1), np.stack([z, c12], -1)], -2)


def regressor(
    q: ArrayLike,
    qd: ArrayLike,
    qdd: ArrayLike,
    *,
    g: float = 9.81,
    friction: bool = False,
    v_eps: float = V_EPS,
    l1: float | None = None,
) -> np.ndarray:
    """Dynamic regressor ``Y`` with ``tau = Y θ`` (see the module table for θ).

    Parameters
    ----------
    q, qd, qdd : array_like, shape (..., 2)
        Joint angles (rad), rates (rad/s), accelerations (rad/s^2).
    g : float
        Gravity magnitude (m/s^2), along -y.
    friction : bool
        Append columns for ``fv1, fv2, fc1, fc2`` (friction ``fv qd + fc tanh(qd / v_eps)``).
    v_eps : float
        Coulomb smoothing speed (rad/s), as in :mod:`robokin.control`.
    l1 : float, optional
        Known length of link 1 (m). Given, the regressor of the base parameters ``(θ1, θ2, θ4, θ5[, friction])``
        (``BASE_NAMES``): with ``θ3 = l1 θ5`` the θ3 column folds into the θ5 column, ``Y5 + l1 Y3``.

    Returns
    -------
    ndarray, shape (..., 2, 5) or (..., 2, 9); with ``l1``, (..., 2, 4) or (..., 2, 8)

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> q, qd, qdd = [0.3, -0.7], [1.0, 2.0], [0.5, -1.5]
    >>> np.allclose(regressor(q, qd, qdd) @ base_parameters(arm), arm.inverse_dynamics(q, qd, qdd))
    True
    >>> Yb = regressor(q, qd, qdd, l1=arm.l1)   # the four base parameters
    >>> Yb.shape, bool(np.allclose(Yb @ base_parameters(arm, minimal=True), arm.inverse_dynamics(q, qd, qdd)))
    ((2, 4), True)
    """
    q = as_array(q, "q", trailing=(2,))
    qd = as_array(qd, "qd", trailing=(2,))
    qdd = as_array(qdd, "qdd", trailing=(2,))
    g = _g(g)
    if not isinstance(friction, bool):
        raise ValueError(f"friction must be True or False, got {friction!r}")
    v_eps = positive(v_eps, "v_eps")
    if l1 is not None:
        l1 = positive(l1, "l1")
    q, qd, qdd = np.broadcast_arrays(q, qd, qdd)
    c1, c2, s2 = np.cos(q[..., 0]), np.cos(q[..., 1]), np.sin(q[..., 1])
    c12 = np.cos(q[..., 0] + q[..., 1])
    v1, v2 = qd[..., 0], qd[..., 1]
    a1, a2 = qdd[..., 0], qdd[..., 1]
    row1, row2 = _two_link_regressor_rows(c1, c2, s2, c12, v1, v2, v1, v2, a1, a2, g)
    if friction:
        t1, t2 = np.tanh(v1 / v_eps), np.tanh(v2 / v_eps)
        row1 += [v1, 0.0, t1, 0.0]
        row2 += [0.0, v2, 0.0, t2]
    if l1 is not None:  # base parameters: θ3 = l1 θ5
        for row in (row1, row2):
            y3 = row.pop(2)
            row[3] = row[3] + l1 * y3
    return np.stack([np.stack(np.broadcast_arrays(*row1), -1), np.stack(np.broadcast_arrays(*row2), -1)], -2)


def fourier_excitation(
    t: ArrayLike, a: ArrayLike, b: ArrayLike, *, wf: float, q0: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Finite Fourier series excitation (Swevers et al.), per joint i::

        q_i(t) = q0_i + sum_k [ a_ik / (k wf) sin(k wf t) - b_ik / (k wf) cos(k wf t) ]

    Periodic with period ``2 pi / wf``, so data can be averaged over periods.

    Parameters
    ----------
    t : array_like, shape (N,)
        Times (s).
    a, b : array_like, shape (2, H)
        Coefficients (rad/s) of H harmonics per joint.
    wf : float
        Fundamental frequency (rad/s).
    q0 : array_like, shape (2,)
        Offset (rad).

    Returns
    -------
    q, qd, qdd : ndarray, shape (N, 2)

    Examples
    --------
    >>> q, qd, qdd = fourier_excitation([0.0, 1.0], [[1.0], [0.0]], [[0.0], [0.0]], wf=1.0, q0=[0.0, 0.5])
    >>> np.round(q, 4).tolist()
    [[0.0, 0.5], [0.8415, 0.5]]
    """
    t = as_array(t, "t")
    if t.ndim != 1:
        raise ValueError(f"t must be 1-D, got shape {t.shape}")
    a = as_array(a, "a", trailing=(2, None))
    b = as_array(b, "b", trailing=(2, a.shape[-1]))
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("a and b must have shape (2, H)")
    wf = positive(wf, "wf")
    q0 = as_array(q0, "q0", trailing=(2,))
    if q0.shape != (2,):
        raise ValueError(f"q0 must have shape (2,), got {q0.shape}")
    k = np.arange(1, a.shape[1] + 1)
    w = k * wf  # (H,)
    ph = t[:, None] * w  # (N, H)
    s, c = np.sin(ph), np.cos(ph)
    # the sums over harmonics as (N, H) @ (H, 2) products
    q = q0 + s @ (a / w).T - c @ (b / w).T
    qd = c @ a.T + s @ b.T
    qdd = c @ (b * w).T - s @ (a * w).T
    return q, qd, qdd


def segment_excitation(
    t: ArrayLike, v: ArrayLike, *, t_acc: float, t_cruise: float, q0: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validation motion of constant-velocity segments joined by smooth accelerations.

    Starting at rest at ``q0`` (``t = 0``), segment k first blends the joint rates from the previous velocity
    (zero for the first) to ``v[k]`` in ``t_acc`` seconds with the quintic smooth step
    ``qd = v_a + (v_b - v_a) p(u)``, ``p(u) = 10 u^3 - 15 u^4 + 6 u^5``, ``u = (t - t_k) / t_acc`` (continuous
    acceleration, zero at both ends), then cruises at ``v[k]`` for ``t_cruise`` seconds (``qdd = 0`` exactly).
    After the last segment the motion keeps the last velocity. The angle is the exact integral:
    ``q = q_k + v_a tau + (v_b - v_a) t_acc P(u)`` with ``P(u) = 5/2 u^4 - 3 u^5 + u^6``. Segment k starts at
    ``t_k = k (t_acc + t_cruise)``.

    Parameters
    ----------
    t : array_like, shape (N,)
        Times (s), ``t >= 0``.
    v : array_like, shape (K, n)
        Cruise velocity of each segment (rad/s); end with a zero row to finish at rest.
    t_acc, t_cruise : float
        Duration of each blend and of each cruise (s), positive.
    q0 : array_like, shape (n,)
        Start angles (rad).

    Returns
    -------
    q, qd, qdd : ndarray, shape (N, n)
        Angles (rad), rates (rad/s), accelerations (rad/s^2).

    Examples
    --------
    >>> q, qd, qdd = segment_excitation([0.0, 0.5, 1.0, 1.5], [[1.0, -2.0]], t_acc=1.0, t_cruise=1.0, q0=[0.0, 0.0])
    >>> qd.tolist(), qdd[2:].tolist()
    ([[0.0, 0.0], [0.5, -1.0], [1.0, -2.0], [1.0, -2.0]], [[0.0, 0.0], [0.0, 0.0]])
    >>> q[2:].tolist()   # half the blend (v t_acc / 2), then cruise
    [[0.5, -1.0], [1.0, -2.0]]
    """
    t = as_array(t, "t")
    if t.ndim != 1 or np.any(t < 0):
        raise ValueError(f"t must be a 1-D array of non-negative times, got shape {t.shape}")
    v = as_array(v, "v", trailing=(None,))
    if v.ndim != 2 or v.shape[0] < 1 or v.shape[1] < 1:
        raise ValueError(f"v must have shape (K, n) with K >= 1 segments, got {v.shape}")
    q0 = as_array(q0, "q0", trailing=(v.shape[1],))
    if q0.ndim != 1:
        raise ValueError(f"q0 must have shape ({v.shape[1]},), got {q0.shape}")
    t_acc = positive(t_acc, "t_acc")
    t_cruise = positive(t_cruise, "t_cruise")
    period = t_acc + t_cruise
    vel = np.vstack([np.zeros((1, v.shape[1])), v])  # (K + 1, n): velocity before and after each blend
    dv = np.diff(vel, axis=0)  # (K, n)
    q_start = q0 + np.vstack(
        [np.zeros((1, v.shape[1])), np.cumsum(vel[:-1] * t_acc + dv * t_acc / 2 + vel[1:] * t_cruise, axis=0)]
    )
    k = np.minimum((t // period).astype(int), v.shape[0] - 1)
    tau = (t - k * period)[:, None]
    u = np.clip(tau / t_acc, 0.0, 1.0)
    p, dp, _ = smooth_step(u)
    P = u**4 * (2.5 + u * (-3.0 + u))  # integral of p from 0 to u
    va, d = vel[k], dv[k]
    blend = tau < t_acc
    q = q_start[k] + np.where(blend, va * tau + d * t_acc * P, va * t_acc + d * t_acc / 2 + vel[k + 1] * (tau - t_acc))
    qd = va + d * p
    qdd = np.where(blend, d * dp / t_acc, 0.0)
    return q, qd, qdd


def motion_segments(
    qd: ArrayLike, qdd: ArrayLike, *, v_min: float, a_tol: float, a_min: float
) -> tuple[np.ndarray, np.ndarray]:
    """Label samples of a commanded motion as constant-velocity or accelerating (for segment-wise validation).

    A sample is **constant-velocity** when every joint has ``|qdd| <= a_tol`` and some joint moves with
    ``|qd| >= v_min`` (at rest only gravity is excited), and **accelerating** when some joint has
    ``|qdd| >= a_min``. With ``a_tol < a_min`` the two sets are disjoint; samples in neither (gentle
    accelerations, rest) are left out of both.

    Parameters
    ----------
    qd, qdd : array_like, shape (N, n)
        Commanded rates (rad/s) and accelerations (rad/s^2).
    v_min : float
        Smallest speed of a moving joint (rad/s), non-negative.
    a_tol, a_min : float
        Acceleration thresholds (rad/s^2), ``0 <= a_tol < a_min``.

    Returns
    -------
    constant, accelerating : ndarray of bool, shape (N,)

    Examples
    --------
    >>> qd = [[0.0, 0.0], [0.5, 0.2], [1.0, 0.4], [1.0, 0.4]]
    >>> qdd = [[0.0, 0.0], [2.0, 0.8], [0.0, 0.0], [0.0, 0.0]]
    >>> [m.tolist() for m in motion_segments(qd, qdd, v_min=0.1, a_tol=1e-9, a_min=1.0)]
    [[False, False, True, True], [False, True, False, False]]
    """
    qd = as_array(qd, "qd", trailing=(None,))
    qdd = as_array(qdd, "qdd", trailing=(None,))
    if qd.ndim != 2 or qdd.shape != qd.shape:
        raise ValueError(f"qd and qdd must have the same shape (N, n), got {qd.shape} and {qdd.shape}")
    v_min = finite_scalar(v_min, "v_min")
    a_tol = finite_scalar(a_tol, "a_tol")
    a_min = positive(a_min, "a_min")
    if v_min < 0 or a_tol < 0:
        raise ValueError(f"v_min and a_tol must be non-negative, got {v_min} and {a_tol}")
    if a_tol >= a_min:
        raise ValueError(f"a_tol ({a_tol:g}) must be below a_min ({a_min:g}), so that the segments are disjoint")
    acc = np.abs(qdd)
    constant = np.all(acc <= a_tol, axis=1) & np.any(np.abs(qd) >= v_min, axis=1)
    return constant, np.any(acc >= a_min, axis=1)


def residual_rms(Y: ArrayLike, tau: ArrayLike, theta: ArrayLike, *, mask: ArrayLike | None = None) -> np.ndarray:
    """Per-joint RMS of the torque residual ``tau - Y theta`` (N m) over the selected samples.

    The validation measure of an identified model: evaluate it on data it was not fitted to, separately on
    segments that excite different terms (:func:`motion_segments`).

    Parameters
    ----------
    Y : array_like, shape (N, 2, p)
        Regressor samples (:func:`regressor`).
    tau : array_like, shape (N, 2) or (R, N, 2)
        Measured torques (N m); a leading axis holds R records (e.g. noise draws).
    theta : array_like, shape (p,) or (R, p)
        Parameters; a leading axis holds R models (e.g. one fit per draw), broadcast against ``tau``.
    mask : array_like of bool, shape (N,), optional
        Samples to include (default all); at least one must be selected.

    Returns
    -------
    ndarray, shape (2,) or (R, 2)

    Examples
    --------
    >>> Y = np.ones((4, 2, 1)); tau = np.array([[1.0, 1.0], [1.0, 1.0], [2.0, 1.0], [0.0, 1.0]])
    >>> residual_rms(Y, tau, [1.0]).tolist(), residual_rms(Y, tau, [1.0], mask=[True, True, False, False]).tolist()
    ([0.7071067811865476, 0.0], [0.0, 0.0])
    """
    Y = as_array(Y, "Y", trailing=(2, None))
    if Y.ndim != 3:
        raise ValueError(f"Y must have shape (N, 2, p), got {Y.shape}")
    tau = as_array(tau, "tau", trailing=(2,))
    if tau.ndim not in (2, 3) or tau.shape[-2] != Y.shape[0]:
        raise ValueError(f"tau must have shape ({Y.shape[0]}, 2) or (R, {Y.shape[0]}, 2) to match Y, got {tau.shape}")
    theta = as_array(theta, "theta")
    if theta.ndim not in (1, 2) or theta.shape[-1] != Y.shape[-1]:
        raise ValueError(
            f"theta must have shape ({Y.shape[-1]},) or (R, {Y.shape[-1]}) to match the {Y.shape[-1]} columns of Y, "
            f"got {theta.shape}"
        )
    if theta.ndim == 2 and tau.ndim == 3 and theta.shape[0] != tau.shape[0]:
        raise ValueError(f"theta and tau hold different numbers of records: {theta.shape[0]} and {tau.shape[0]}")
    if mask is None:
        sel = np.ones(Y.shape[0], dtype=bool)
    else:
        try:
            sel = np.asarray(mask)
        except (TypeError, ValueError):  # ragged
            raise ValueError(f"mask must be a boolean array of shape ({Y.shape[0]},), got {mask!r:.60}") from None
        if sel.dtype != bool or sel.shape != (Y.shape[0],):
            raise ValueError(f"mask must be a boolean array of shape ({Y.shape[0]},), got {sel.dtype} {sel.shape}")
        if not sel.any():
            raise ValueError("mask selects no sample")
    pred = np.einsum("njp,...p->...nj", Y[sel], theta)
    r = tau[..., sel, :] - pred
    return np.sqrt(np.mean(r * r, axis=-2))


# ---------------------------------------------------------------------------- measured joint angles
def encoder_reading(
    q: ArrayLike, *, counts_per_rev: int, noise_std: float = 0.0, rng: np.random.Generator | None = None
) -> np.ndarray:
    """What a joint encoder reports: ``q`` plus optional white noise, quantised to ``2 pi / counts_per_rev``.

    Parameters
    ----------
    q : array_like, shape (..., 2)
        True joint angles (rad).
    counts_per_rev : int
        Encoder resolution (counts per revolution, after any quadrature decoding).
    noise_std : float
        Standard deviation of additive noise before quantisation (rad), e.g. electrical noise or
        backlash jitter; 0 for a pure quantiser.
    rng : numpy.random.Generator
        Required when ``noise_std > 0``.

    Returns
    -------
    ndarray, shape (..., 2)
        Readings, integer multiples of ``2 pi / counts_per_rev`` (rad).

    Examples
    --------
    >>> r = encoder_reading([0.1234, -0.5], counts_per_rev=4096)
    >>> np.round(r / (2 * np.pi / 4096), 9).tolist()
    [80.0, -326.0]
    """
    q = as_array(q, "q", trailing=(2,))
    rng = generator(rng, "rng")  # checked even without noise: a wrong rng should not hide until noise is turned on
    if isinstance(counts_per_rev, bool) or not isinstance(counts_per_rev, (int, np.integer)) or counts_per_rev < 1:
        raise ValueError(f"counts_per_rev must be a positive integer, got {counts_per_rev!r}")
    if counts_per_rev > 2**40:  # far beyond any encoder (32-bit is 4.3e9); the quantum would underflow the angle
        raise ValueError(f"counts_per_rev must be at most 2**40, got {counts_per_rev}")
    noise_std = finite_scalar(noise_std, "noise_std")
    if noise_std < 0:
        raise ValueError(f"noise_std must be non-negative, got {noise_std}")
    if noise_std > 0:
        if rng is None:
            raise ValueError("rng must be a seeded numpy.random.Generator when noise_std > 0")
        q = q + rng.normal(0.0, noise_std, q.shape)
    res = 2 * np.pi / counts_per_rev
    return np.round(q / res) * res


def _check_signal(x, name, dt):
    x = as_array(x, name)
    if x.ndim < 1 or x.shape[0] < 3:
        raise ValueError(f"{name} must have shape (N, ...) with N >= 3 samples along axis 0, got {x.shape}")
    dt = positive(dt, "dt")
    if dt < MIN_DT:
        raise ValueError(f"dt must be at least {MIN_DT:g} s (a sample period; below, derivatives overflow), got {dt!r}")
    return x, dt


#: Shortest sample period accepted (s): 1 ns, far below any joint encoder's, far above float64's underflow.
MIN_DT = 1e-9
#: Highest Butterworth order accepted: beyond about 20 the (b, a) form loses every digit in float64.
MAX_ORDER = 20


def lowpass(x: ArrayLike, *, dt: float, cutoff: float, order: int = 4) -> np.ndarray:
    """Zero-phase Butterworth low-pass along axis 0 (``scipy.signal.butter`` + ``sosfiltfilt``).

    Use the same filter on the torques as on the angles, so both keep the same (zero) delay and the
    same attenuation. ``sosfiltfilt`` runs the filter forwards and backwards: no phase lag, squared
    magnitude response (effective order ``2 * order``). Second-order sections, not the transfer function's
    coefficients: at cut-offs far below the sampling rate the polynomial form loses its DC gain (order 4 at
    0.5 Hz sampled at 1 kHz passes DC with a gain off by more than 1e-6), the sections stay exact to about 2 mHz.

    Parameters
    ----------
    x : array_like, shape (N, ...)
        Samples at uniform spacing ``dt`` (s).
    cutoff : float
        Cut-off frequency (Hz), below the Nyquist frequency ``1 / (2 dt)``.
    order : int
        Butterworth order of the single pass.

    Examples
    --------
    >>> t = np.arange(0, 2, 0.001)
    >>> y = lowpass(np.sin(2 * np.pi * t) + 0.1 * np.sin(2 * np.pi * 200 * t), dt=0.001, cutoff=20)
    >>> bool(np.abs(y - np.sin(2 * np.pi * t))[200:-200].max() < 1e-3)
    True
    """
    from scipy.signal import butter, sosfiltfilt

    x, dt = _check_signal(x, "x", dt)
    cutoff = positive(cutoff, "cutoff")
    if cutoff >= 0.5 / dt:
        raise ValueError(f"cutoff = {cutoff:g} Hz must be below the Nyquist frequency {0.5 / dt:g} Hz")
    order = count(order, "order", max=MAX_ORDER)
    sos = butter(order, cutoff, fs=1.0 / dt, output="sos")
    pad = 3 * (2 * len(sos) + 1 - min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum())))  # sosfiltfilt's
    if x.shape[0] <= pad:
        raise ValueError(f"need more than {pad} samples for a zero-phase filter of order {order}")
    with np.errstate(all="ignore"):
        dc = float(np.prod(sos[:, :3].sum(axis=1) / sos[:, 3:].sum(axis=1)))  # a low-pass passes DC with gain 1
    try:
        with np.errstate(all="raise"):
            y = sosfiltfilt(sos, x, axis=0)
    except (np.linalg.LinAlgError, FloatingPointError):
        y = None
    # a cut-off far below the sampling rate rounds the sections to zero or NaN: then it is not a low-pass
    if y is None or not np.all(np.isfinite(y)) or not abs(dc - 1.0) < 1e-6:
        raise ValueError(
            f"cutoff = {cutoff:g} Hz with dt = {dt:g} s (order {order}) is too far below the sampling rate: "
            "the Butterworth filter is singular in float64; raise cutoff or dt, or lower order"
        )
    return y


def estimate_derivatives(
    q: ArrayLike,
    *,
    dt: float,
    method: Literal["central", "savgol", "butterworth"],
    window: int | None = None,
    polyorder: int = 4,
    cutoff: float | None = None,
    order: int = 4,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Angles, rates and accelerations from sampled (noisy, quantised) joint angles.

    Parameters
    ----------
    q : array_like, shape (N, ...)
        Angles (rad) sampled every ``dt`` seconds along axis 0.
    dt : float
        Sample period (s).
    method : {"central", "savgol", "butterworth"}
        ``"central"``: second-order central differences twice, no filter (what one writes first).
        ``"savgol"``: Savitzky-Golay fit of degree ``polyorder`` over ``window`` samples, differentiated
        analytically (``scipy.signal.savgol_filter`` with ``deriv=0, 1, 2``).
        ``"butterworth"``: zero-phase low-pass :func:`lowpass` at ``cutoff`` Hz, then central differences.
    window : int
        Odd window length (samples) for ``"savgol"``, larger than ``polyorder``.
    polyorder : int
        Polynomial degree for ``"savgol"`` (at least 2, for an acceleration).
    cutoff : float
        Cut-off frequency (Hz) for ``"butterworth"``.
    order : int
        Butterworth order for ``"butterworth"``.

    Returns
    -------
    q_f, qd, qdd : ndarray, each the shape of ``q``
        Filtered angles (rad), rates (rad/s), accelerations (rad/s^2). Filters distort the first and
        last few windows: discard those samples.

    Examples
    --------
    >>> t = np.arange(0, 1, 0.01)
    >>> q = np.stack([t**2, t**3], -1)
    >>> _, qd, qdd = estimate_derivatives(q, dt=0.01, method="savgol", window=11, polyorder=4)
    >>> bool(np.allclose(qdd, np.stack([2 + 0 * t, 6 * t], -1)))
    True
    """
    from scipy.signal import savgol_filter

    choice(method, "method", ("central", "savgol", "butterworth"))
    q, dt = _check_signal(q, "q", dt)
    # every option is checked whatever the method, so that a typo does not hide until the method changes
    if window is not None:
        window = count(window, "window", max=10**7)
    polyorder = count(polyorder, "polyorder", minimum=0, max=100)
    if cutoff is not None:
        cutoff = positive(cutoff, "cutoff")
    order = count(order, "order", max=MAX_ORDER)
    if method == "savgol":
        for v, nm in ((window, "window"), (polyorder, "polyorder")):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"{nm} must be an integer for method='savgol', got {v!r}")
        if polyorder < 2:
            raise ValueError(f"polyorder must be >= 2 to estimate an acceleration, got {polyorder}")
        if window % 2 == 0 or window <= polyorder or window > q.shape[0]:
            raise ValueError(
                f"window must be odd, larger than polyorder ({polyorder}) and at most the number of "
                f"samples ({q.shape[0]}); got {window}"
            )
        return tuple(savgol_filter(q, window, polyorder, deriv=k, delta=dt, axis=0) for k in (0, 1, 2))
    if method == "butterworth":
        if cutoff is None:
            raise ValueError("method='butterworth' needs cutoff (Hz)")
        q = lowpass(q, dt=dt, cutoff=cutoff, order=order)
    qd = np.gradient(q, dt, axis=0, edge_order=2)
    return q, qd, np.gradient(qd, dt, axis=0, edge_order=2)


@dataclass(frozen=True)
class IdentResult:
    """Least-squares identification result.

    Attributes
    ----------
    theta : ndarray, shape (p,) or (R, p)
        Estimated parameters (one row per batched measurement).
    std : ndarray, shape (p,) or (R, p)
        Standard errors ``sqrt(diag(sigma^2 (Y^T Y)^-1))`` with sigma from the residual.
    cond : float
        Condition number of the stacked regressor (columns scaled to unit norm, so that units do
        not inflate it).
    residual_rms : float or ndarray, shape (R,)
        RMS torque residual (N m).
    """

    theta: np.ndarray
    std: np.ndarray
    cond: float
    residual_rms: float


def least_squares(Y: ArrayLike, tau: ArrayLike) -> IdentResult:
    """Ordinary least squares ``min ||Y θ - tau||`` over all samples and joints.

    Parameters
    ----------
    Y : array_like, shape (N, 2, p)
        Regressor samples.
    tau : array_like, shape (N, 2) or (R, N, 2)
        Measured torques (N m); with a leading axis, R repeated measurements (e.g. noise draws) on the
        same regressor, solved in one factorisation.

    Returns
    -------
    IdentResult
        ``theta``, ``std`` of shape (p,), or (R, p) for batched ``tau``; ``residual_rms`` a float, or
        shape (R,).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> Y = rng.normal(size=(50, 2, 3)); th = np.array([1.0, -2.0, 0.5])
    >>> np.allclose(least_squares(Y, Y @ th).theta, th)
    True
    >>> least_squares(Y, Y @ th + rng.normal(0, 0.1, (4, 50, 2))).theta.shape   # 4 noise draws at once
    (4, 3)
    """
    Y = as_array(Y, "Y", trailing=(2, None))
    if Y.ndim != 3:
        raise ValueError(f"Y must have shape (N, 2, p), got {Y.shape}")
    tau = as_array(tau, "tau", trailing=(2,))
    if tau.shape[-2:] != Y.shape[:2] or tau.ndim not in (2, 3):
        raise ValueError(f"tau must have shape {Y.shape[:2]} or (R, {Y.shape[0]}, 2) to match Y, got {tau.shape}")
    batched = tau.ndim == 3
    A = Y.reshape(-1, Y.shape[-1])
    y = tau.reshape(-1, A.shape[0]).T  # (2N, R)
    p = A.shape[1]
    if A.shape[0] <= p:
        raise ValueError(f"need more equations ({A.shape[0]}) than parameters ({p})")
    norms = np.linalg.norm(A, axis=0)
    if np.any(norms == 0):
        raise ValueError(
            f"Y: regressor column(s) {np.flatnonzero(norms == 0).tolist()} are all zero: "
            "the excitation does not reach those parameters"
        )
    As = A / norms
    # one factorisation As = Q R, R = U_r diag(sv) V^T (the SVD of As = (Q U_r) diag(sv) V^T, from a p x p matrix)
    # gives the condition number, the minimum-norm solution (what lstsq's gelsd returns, with its default cut-off
    # eps * max(2N, p) * sv[0]) and diag((As^T As)^+) (pinv's cut-off 1e-15 on sv^2); LAPACK's least-squares driver
    # and an SVD of the tall matrix cost several times more
    Q, R = np.linalg.qr(As)
    U_r, sv, Vt = np.linalg.svd(R)
    cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else np.inf
    if not np.isfinite(cond) or cond > 1e12:
        import warnings

        from .errors import SingularityWarning

        warnings.warn(SingularityWarning(cond, "least_squares: regressor is rank deficient"), stacklevel=2)
    with np.errstate(divide="ignore"):
        inv_sv = np.where(sv > np.finfo(float).eps * max(A.shape) * sv[0], 1.0 / sv, 0.0)
        inv_sv2 = np.where(sv**2 > 1e-15 * sv[0] ** 2, 1.0 / sv**2, 0.0)
    xs = Vt.T @ (inv_sv[:, None] * (U_r.T @ (Q.T @ y)))
    theta = xs / norms[:, None]  # (p, R)
    r = y - A @ theta
    dof = A.shape[0] - p
    sigma2 = np.sum(r * r, axis=0) / dof  # (R,)
    var = np.clip((Vt.T**2) @ inv_sv2, 0, None) / norms**2
    std = np.sqrt(sigma2[:, None] * var)  # (R, p)
    rms = np.sqrt(np.mean(r * r, axis=0))
    if batched:
        return IdentResult(theta=theta.T, std=std, cond=cond, residual_rms=rms)
    return IdentResult(theta=theta[:, 0], std=std[0], cond=cond, residual_rms=float(rms[0]))


@dataclass(frozen=True, eq=False)
class BaseParameterSet:
    """Base parameters of a regressor found by column-pivoted QR (:func:`qr_base_parameters`).

    With ``P`` the column permutation and ``Y P = Q [R11 R12; 0 R22]`` (``R11`` of size rank x rank, ``R22`` zero to
    the tolerance), the dependent columns are combinations of the independent ones, ``Y_D = Y_I beta`` with
    ``beta = R11^-1 R12``, so ``Y phi = Y_I (phi_I + beta phi_D)``: the base parameters are
    ``theta_b = phi_I + beta phi_D`` (eq. ``eq-ch12-qr``).

    Attributes
    ----------
    rank : int
        Number of base parameters (the numerical rank of ``Y``).
    independent : ndarray of int, shape (rank,)
        Columns of ``Y`` kept (in pivot order).
    dependent : ndarray of int, shape (p - rank,)
        Columns folded into the independent ones.
    beta : ndarray, shape (rank, p - rank)
        ``theta_b[k] = phi[independent[k]] + sum_j beta[k, j] phi[dependent[j]]``.
    r_diag : ndarray, shape (p,)
        ``|R_ii|`` in pivot order (non-increasing), whose drop below ``tol * r_diag[0]`` sets the rank.
    """

    rank: int
    independent: np.ndarray
    dependent: np.ndarray
    beta: np.ndarray
    r_diag: np.ndarray

    def combine(self, phi: ArrayLike) -> np.ndarray:
        """Base parameters ``phi_I + beta phi_D`` of full parameter vectors ``phi``, shape (..., p) -> (..., rank)."""
        phi = as_array(phi, "phi", trailing=(self.independent.size + self.dependent.size,))
        return phi[..., self.independent] + phi[..., self.dependent] @ self.beta.T


def qr_base_parameters(Y: ArrayLike, *, tol: float | None = None) -> BaseParameterSet:
    """Base parameters of a regressor by column-pivoted QR (``scipy.linalg.qr(..., pivoting=True)``).

    Parameters
    ----------
    Y : array_like, shape (..., p)
        Regressor samples, e.g. (N, 2, p) from :func:`regressor` at N random states; every leading axis is stacked
        into rows. Use states that excite every column (random ``q, qd, qdd``), many more rows than ``p``.
    tol : float, optional
        Relative rank tolerance on ``|R_ii| / |R_00|``; default ``max(rows, p) * eps``, the cut-off of
        ``numpy.linalg.matrix_rank`` (on singular values).

    Notes
    -----
    The rank cut is relative to the largest pivot ``|R_00|``, and the pivoting takes the largest column first, so
    the result depends on the columns' units: a column far smaller than the others (a parameter in the wrong unit)
    can be cut although it is independent, and rescaling a column changes which columns are kept. Scale the
    columns to comparable norms first (Gautier's numerical method does) and undo the scaling on ``beta``.

    Returns
    -------
    BaseParameterSet
        The rank, the independent and dependent columns and the combination matrix ``beta``.

    Raises
    ------
    ValueError
        If ``Y`` is not finite, has fewer rows than columns, or is all zero.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(20, 2))
    >>> Y = np.c_[A, 2 * A[:, 0] - A[:, 1]]   # column 2 = 2 col 0 - col 1
    >>> bp = qr_base_parameters(Y)
    >>> bp.rank, bp.independent.tolist(), bp.dependent.tolist()   # pivoting keeps the largest columns first
    (2, [2, 1], [0])
    >>> np.round(bp.beta[:, 0], 12) + 0.0   # col 0 = (col 2 + col 1) / 2
    array([0.5, 0.5])
    >>> phi = np.array([1.0, 1.0, 1.0])
    >>> bool(np.allclose(Y[:, bp.independent] @ bp.combine(phi), Y @ phi))
    True
    """
    from scipy.linalg import qr, solve_triangular

    Y = as_array(Y, "Y", trailing=(None,))
    if Y.ndim < 2:
        raise ValueError(f"Y must have shape (..., p) with at least one sample axis, got {Y.shape}")
    A = Y.reshape(-1, Y.shape[-1])
    n, p = A.shape
    if p == 0 or n < p:
        raise ValueError(f"Y needs at least as many rows as columns to reveal its rank, got {n} rows, {p} columns")
    tol = max(n, p) * np.finfo(float).eps if tol is None else tolerance(tol, "tol", max=0.5)
    _, R, perm = qr(A, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    if d[0] == 0:
        raise ValueError("Y is all zero: no parameter reaches the torques")
    rank = int(np.sum(d > tol * d[0]))
    beta = solve_triangular(R[:rank, :rank], R[:rank, rank:]) if rank < p else np.zeros((rank, 0))
    return BaseParameterSet(rank=rank, independent=perm[:rank], dependent=perm[rank:], beta=beta, r_diag=d)


def consistency_margin(theta: ArrayLike, *, l1: float) -> np.ndarray:
    """Smallest eigenvalue of ``P(θ) = [[θ1, l1 θ5], [l1 θ5, θ2]]`` (kg m²): positive exactly when the mass matrix
    of the base parameters is positive definite at every pose.

    ``det M(q) = θ1 θ2 - θ3² cos² q2`` and ``M22 = θ2`` (chapter 12 derives it), so ``M(q) ≻ 0`` for every ``q``
    if and only if ``θ2 > 0`` and ``θ1 θ2 > θ3² = (l1 θ5)²``, that is ``P(θ) ≻ 0``: a linear matrix inequality in
    θ. It is necessary for any arm, and sufficient for some arm (masses free, centres of mass on either side of
    the joints). Friction coefficients, when present, are not part of it (they must be ``>= 0`` separately).

    Parameters
    ----------
    theta : array_like, shape (..., 4) or (..., 8)
        Base parameters in the order of ``BASE_NAMES`` (friction entries ignored).
    l1 : float
        Length of link 1 (m).

    Returns
    -------
    ndarray, shape (...)
        ``λ_min(P(θ))`` (kg m²).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> round(float(consistency_margin(base_parameters(arm, minimal=True), l1=1.0)), 6)
    0.142893
    >>> float(consistency_margin([0.3, 0.01, 0.8, 0.2], l1=1.0)) < 0   # θ1 θ2 = 0.003 < (l1 θ5)² = 0.04
    True
    """
    theta = as_array(theta, "theta", trailing=(None,))
    if theta.shape[-1] not in (4, 8):
        raise ValueError(f"theta must have shape (..., 4) or (..., 8) (BASE_NAMES), got {theta.shape}")
    l1 = positive(l1, "l1")
    a, b, c = theta[..., 0], theta[..., 1], l1 * theta[..., 3]
    return 0.5 * (a + b) - np.hypot(0.5 * (a - b), c)


@dataclass(frozen=True, eq=False)
class ConsistentFit:
    """Result of :func:`consistent_least_squares`.

    Attributes
    ----------
    theta : ndarray, shape (p,)
        Base parameters (``BASE_NAMES`` order) with ``consistency_margin(theta) >= margin`` and friction ``>= 0``.
    residual_rms : float
        RMS torque residual (N m), never below the unconstrained fit's.
    margin : float
        ``consistency_margin`` of ``theta`` (kg m²).
    active : tuple of str
        The constraints at their bound: ``"mass matrix"`` and the friction names of ``BASE_NAMES``; empty when the
        unconstrained fit already met them (``theta`` is then that fit's, unchanged).
    unconstrained : IdentResult
        The ordinary least-squares fit of the same data.
    """

    theta: np.ndarray
    residual_rms: float
    margin: float
    active: tuple
    unconstrained: IdentResult


def consistent_least_squares(
    Y: ArrayLike, tau: ArrayLike, *, l1: float, margin: float = 1e-6, maxiter: int = 200
) -> ConsistentFit:
    """Least squares over the physically consistent base parameters: ``min ||Y θ - tau||`` subject to
    ``λ_min(P(θ)) >= margin`` (:func:`consistency_margin`) and friction ``fv, fc >= 0``.

    The feasible set is convex (``λ_min`` of a matrix affine in θ is concave) and the objective a convex quadratic,
    so the optimum is unique when ``Y`` has full column rank, and any point meeting the optimality conditions is it.
    When the ordinary fit is already consistent it is returned unchanged. Otherwise the objective is written in
    whitened coordinates ``u = R (θ - θ_ls)`` (``A = Q R``), where it is ``||u||²`` (the consistent fit is the
    projection of the ordinary one onto the consistent set in the norm ``||A ·||``), and SLSQP
    (``scipy.optimize.minimize``, exact gradients) solves it.

    Parameters
    ----------
    Y : array_like, shape (N, 2, 4) or (N, 2, 8)
        Base-parameter regressor, ``regressor(..., l1=l1)`` (with friction: 8 columns).
    tau : array_like, shape (N, 2)
        Measured torques (N m).
    l1 : float
        Known length of link 1 (m), the one of the regressor. It cannot be checked from the data: a wrong ``l1``
        gives another (wrong) constraint without any warning.
    margin : float
        Smallest eigenvalue of ``P(θ)`` to keep (kg m²), ``>= 0`` and below the fitted ``|θ1|, |θ2|``: 0 admits a
        mass matrix that is singular at ``q2 = 0`` or ``π``; the default keeps it definite. A corrected fit lies
        on the boundary, so its ``M(q2 = 0)`` has a smallest eigenvalue near ``margin``: for a model to simulate,
        give a margin on the scale of the expected inertias (the default is absolute, suited to arms of 0.01 to
        10 kg m²).
    maxiter : int
        Cap on the solver's function evaluations.

    Returns
    -------
    ConsistentFit

    Raises
    ------
    ValueError
        For a regressor that is not the base set, mismatched or non-finite data, ``l1 <= 0``, or a ``margin`` that
        is negative or as large as the fitted inertias.
    ConvergenceError
        If the solver stops (``maxiter``, or a failed line search) at a point without a certificate of optimality
        (the KKT conditions to 1e-6).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> rng = np.random.default_rng(1)
    >>> q, qd, qdd = (rng.uniform(-2, 2, (200, 2)) for _ in range(3))
    >>> Y = regressor(q, qd, qdd, l1=1.0)
    >>> fit = consistent_least_squares(Y, arm.inverse_dynamics(q, qd, qdd), l1=1.0)
    >>> fit.active, bool(np.allclose(fit.theta, base_parameters(arm, minimal=True)))  # consistent data: unchanged
    ((), True)
    >>> bad = consistent_least_squares(Y, Y @ np.array([0.3, 0.01, 0.8, 0.2]), l1=1.0)  # no arm has these
    >>> bad.active, round(bad.margin, 9), bool(bad.residual_rms > bad.unconstrained.residual_rms)
    (('mass matrix',), 1e-06, True)
    """
    from scipy.linalg import solve_triangular
    from scipy.optimize import minimize, nnls

    from .errors import ConvergenceError

    fit = least_squares(Y, tau)
    if np.ndim(fit.theta) != 1:
        raise ValueError("tau must have shape (N, 2): one record (fit repeated records one at a time)")
    A = np.asarray(Y, dtype=float)
    A = A.reshape(-1, A.shape[-1])
    p = A.shape[1]
    if p not in (4, 8):
        raise ValueError(f"Y must be the base-parameter regressor, regressor(..., l1=l1): 4 or 8 columns, got {p}")
    l1 = positive(l1, "l1")
    margin = tolerance(margin, "margin", max=np.inf, allow_zero=True)
    maxiter = count(maxiter, "maxiter")
    size = float(np.max(np.abs(fit.theta[:2])))
    if margin >= size:
        raise ValueError(
            f"margin = {margin:g} kg m² is not below the size of the inertias fitted from tau (|θ1|, |θ2| up to "
            f"{size:.3g}): the constraint, not the data, would set the parameters"
        )
    names = BASE_NAMES[:p]
    fric = list(range(4, p))

    def feasible(th):
        return consistency_margin(th, l1=l1) >= margin and all(th[k] >= 0 for k in fric)

    if feasible(fit.theta):
        return ConsistentFit(fit.theta, fit.residual_rms, float(consistency_margin(fit.theta, l1=l1)), (), fit)
    # the objective is ||A θ - y||² = ||R (θ - θ_ls)||² + const (A = Q R): in u = R (θ - θ_ls) it is ||u||², perfectly
    # conditioned whatever the excitation, and the constraints stay convex (θ is affine in u). u is divided by the
    # data's norm and each constraint by its own scale, so that SLSQP's tolerances mean the same at any units
    R = np.linalg.qr(A, mode="r")
    th_ls = fit.theta
    su = float(np.linalg.norm(np.asarray(tau, dtype=float))) or 1.0
    Rinv = solve_triangular(R, np.eye(p)) * su  # dθ/dv, v = u / su
    sc = max(size, margin)  # kg m², the scale of P
    sf = max(float(np.abs(th_ls[fric]).max()), 1e-300) if fric else 1.0

    def theta_of(v):
        return th_ls + Rinv @ v

    def con_mass(v):
        return (float(consistency_margin(theta_of(v), l1=l1)) - margin) / sc

    def mass_grads(v, apex=False):
        """Gradient of λ_min(P) in v; at the apex P = λ I (λ_min not smooth) the generators of its subdifferential."""
        th = theta_of(v)
        a, b, c = th[0], th[1], l1 * th[3]
        r = float(np.hypot(0.5 * (a - b), c))
        if apex and r <= 1e-6 * sc:  # ∂λ_min = {W ⪰ 0, tr W = 1}: the rank-1 W = w wᵀ, w = (cos φ, sin φ)
            phi = np.linspace(0.0, np.pi, 91)
            g = np.zeros((phi.size, p))
            g[:, 0], g[:, 1], g[:, 3] = np.cos(phi) ** 2, np.sin(phi) ** 2, 2 * l1 * np.cos(phi) * np.sin(phi)
        else:
            r = max(r, 1e-300)
            g = np.zeros((1, p))
            g[0, 0], g[0, 1], g[0, 3] = 0.5 - 0.25 * (a - b) / r, 0.5 + 0.25 * (a - b) / r, -l1 * c / r
        return (g @ Rinv) / sc

    cons = [{"type": "ineq", "fun": con_mass, "jac": lambda v: mass_grads(v)[0]}]
    if fric:
        cons.append({"type": "ineq", "fun": lambda v: theta_of(v)[fric] / sf, "jac": lambda v: Rinv[fric] / sf})
    res = minimize(
        lambda v: (0.5 * float(v @ v), v),
        np.zeros(p),
        jac=True,
        method="SLSQP",
        constraints=cons,
        options={"maxiter": maxiter, "ftol": 1e-14},
    )
    theta = theta_of(res.x)
    theta[4:] = np.maximum(theta[4:], 0.0)
    # optimality certificate (KKT): v = Σ μ_i ∇c_i over the active constraints with μ >= 0 (non-negative least
    # squares; at the apex over the whole subdifferential); SLSQP's own stop is not trusted on its own
    kkt = np.inf
    v = res.x
    if res.status in (0, 8) and np.all(np.isfinite(theta)):
        rows = list(mass_grads(v, apex=True)) if con_mass(v) <= 1e-9 else []
        rows += [Rinv[k] / sf for k in fric if theta[k] <= 1e-9 * sf]
        if rows:
            kkt = float(nnls(np.array(rows).T, v, maxiter=50 * len(rows))[1]) / max(float(np.linalg.norm(v)), 1e-300)
    if not kkt <= 1e-6 or not np.isfinite(con_mass(v)) or con_mass(v) < -1e-9:
        hint = "raise maxiter" if res.status == 9 else "is the regressor of full column rank?"
        raise ConvergenceError(
            max(0.0, -con_mass(v) * sc),
            int(res.nit),
            f"consistent_least_squares: no certified optimum (SLSQP: {res.message}; KKT residual {kkt:.1e}); {hint}",
        )
    scale = float(np.max(np.abs(theta[:2]))) or 1.0
    got = float(consistency_margin(theta, l1=l1))
    for _ in range(3):  # round-off below the bound: onto it, along P's identity direction (adds to λ_min)
        if got >= margin:
            break
        theta[:2] += (margin - got) + 4 * np.finfo(float).eps * scale
        got = float(consistency_margin(theta, l1=l1))
    r = A @ theta - np.asarray(tau, dtype=float).reshape(-1)
    active = (("mass matrix",) if got <= margin + 1e-7 * scale else ()) + tuple(
        names[k] for k in fric if theta[k] <= 1e-12 * max(1.0, float(np.abs(theta[fric]).max()))
    )
    return ConsistentFit(theta, float(np.sqrt(np.mean(r * r))), got, active, fit)
