"""Numerical inverse kinematics: damped least squares (DLS) with adaptive damping.

The iteration (chapter 6, :eq:`eq-ch06-dls`) is

``q <- clip(q + J^T (J J^T + lambda^2 I)^-1 e, qlim)``

with the 6-D pose error ``e = [p_t - p; log(R_t R^T)]`` in the base frame (the
rotation vector, never a difference of Euler angles, which is not a velocity and
wraps at +-pi), the geometric Jacobian ``J`` in the base frame, and a damping that
switches on only near a singularity {cite}`wampler1986,buss2004` and fades with the error:
``lambda^2 = (1 - (sigma_min / eps)^2) * lambda_max^2 * min(1, |e| / e_0)^2`` when ``sigma_min < eps``,
else 0 (plain Gauss-Newton, quadratic convergence); see :func:`damping_squared`.

Every answer is confirmed by forward kinematics and by the joint limits before
``valid`` is set; a failure always carries a ``reason``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ._validate import _real_scalar, as_array, choice, count, flag, generator, tolerance
from .errors import ConvergenceError
from .results import IKResult
from .serial import SerialArm, _pose_error
from .transforms import ROTATION_TOL, _check_transform

__all__ = ["ik_dls", "damping_squared", "BRANCH"]

FADE = 1e-2  #: e_0 of the damping law: the error (m, rad) below which the damping fades out
#: The ``branch`` of every :func:`ik_dls` result: a numerical solver finds the solution its seed leads to, not a
#: named branch of a closed form.
BRANCH = "seeded"
#: Largest ``tol`` of :func:`ik_dls` (m and rad): a looser bar would call a pose 1 mm or 1 mrad off "converged".
MAX_TOL = 1e-3
#: Caps on the iteration budget (per attempt) and on the number of restarts: time grows with both.
MAX_ITER = 100_000
MAX_RESTARTS = 1_000


def ik_dls(
    arm: SerialArm,
    T: ArrayLike,
    *,
    q0: ArrayLike,
    tol: float = 1e-10,
    max_iter: int = 100,
    damping: float = 0.01,
    sigma_threshold: float = 0.01,
    max_step: float = 0.5,
    adaptive: bool = True,
    qlim: ArrayLike | None = None,
    restarts: int = 0,
    rng: np.random.Generator | None = None,
    on_fail: Literal["report", "raise"] = "report",
) -> IKResult:
    """Damped-least-squares IK of a :class:`~robokin.serial.SerialArm`, batched over poses.

    Parameters
    ----------
    arm : SerialArm
    T : array_like, shape (..., 4, 4)
        Target tool poses in the base frame.
    q0 : array_like, shape (..., n)
        Initial guesses (rad), broadcast against ``T``.
    tol : float
        Success when ``|e| <= tol`` with ``e`` the 6-D pose error (m and rad); in ``(0, 1e-3]``
        (``MAX_TOL``: a looser bar would call a pose 1 mm off "converged").
    max_iter : int
        Iteration cap per attempt, ``1 <= max_iter <= 100000``.
    damping : float
        ``lambda_max``: damping used at an exact singularity (m or rad scale), in ``(0, 10]``.
    sigma_threshold : float
        ``eps``: damping starts when the smallest singular value of ``J`` drops below it; in ``[1e-12, 1e3]``.
    max_step : float
        Largest joint step per iteration (rad), in ``[1e-9, 2 pi]``; longer steps are scaled down (a trust
        region).
    adaptive : bool
        True (default): the damping law above. False: constant ``lambda = damping`` at every
        step (the textbook DLS, for comparison).
    qlim : array_like, shape (n, 2), optional
        Joint limits; default ``arm.qlim``. Iterates are clipped into them.
    restarts : int
        Number of random restarts (uniform inside ``qlim`` or ``[-pi, pi)``) for failed poses, at most 1000.
    rng : numpy.random.Generator, optional
        Source of restart seeds; required when ``restarts > 0``.
    on_fail : {"report", "raise"}
        ``"raise"``: raise :class:`~robokin.errors.ConvergenceError` if any pose fails.

    Returns
    -------
    IKResult
        Arrays over the broadcast leading shape ``(...)`` of ``T`` and ``q0`` (0-d for one pose): ``q`` (the
        final iterate, returned even on failure, for inspection), ``valid`` (True only if the FK residual of
        ``q`` is ``<= tol`` **and** ``q`` is inside the limits), ``residual`` (``|e|`` of the final ``q``,
        recomputed by FK, metres and radians combined), ``iterations``, ``reason`` (``"converged"`` where
        valid, otherwise why not; never empty) and ``branch = "seeded"`` (:data:`BRANCH`: the solution the seed
        leads to).

    Examples
    --------
    >>> from robokin.ur5 import UR5
    >>> q_true = np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7])
    >>> res = ik_dls(UR5, UR5.fk(q_true), q0=q_true + 0.1)
    >>> bool(res.valid), str(res.reason), res.branch, bool(np.allclose(res.q, q_true, atol=1e-8))
    (True, 'converged', 'seeded', True)
    >>> ik_dls(UR5, UR5.fk(q_true), q0=q_true, max_iter=0)
    Traceback (most recent call last):
    ...
    ValueError: max_iter must be an integer >= 1, got 0
    >>> ik_dls(UR5, UR5.fk(q_true), q0=q_true, tol=1e300)
    Traceback (most recent call last):
    ...
    ValueError: tol must be at most 0.001 (a larger value makes the result meaningless), got 1e+300
    """
    if not isinstance(arm, SerialArm):
        raise ValueError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
    choice(on_fail, "on_fail", ("report", "raise"))
    tol = tolerance(tol, "tol", max=MAX_TOL)
    damping = tolerance(damping, "damping", max=10.0)
    sigma_threshold = tolerance(sigma_threshold, "sigma_threshold", min=1e-12, max=1e3)
    max_step = tolerance(max_step, "max_step", min=1e-9, max=2 * np.pi)
    max_iter = count(max_iter, "max_iter", max=MAX_ITER)
    restarts = count(restarts, "restarts", minimum=0, max=MAX_RESTARTS)
    rng = generator(rng, "rng")
    adaptive = flag(adaptive, "adaptive")
    if restarts and not isinstance(rng, np.random.Generator):
        raise ValueError("restarts > 0 needs rng=np.random.default_rng(seed) (no hidden global seed)")
    n = arm.n
    T = _check_transform(T, "T", ROTATION_TOL)  # bottom row [0, 0, 0, 1] and rotation block
    q0 = as_array(q0, "q0", trailing=(n,))
    lim = arm.qlim if qlim is None else as_array(qlim, "qlim", trailing=(2,))
    if lim is not None:
        if lim.shape != (n, 2) or np.any(lim[:, 0] >= lim[:, 1]):
            raise ValueError(f"qlim must have shape ({n}, 2) with lower < upper, got shape {lim.shape}")
    lead = np.broadcast_shapes(T.shape[:-2], q0.shape[:-1])
    Tf = np.broadcast_to(T, lead + (4, 4)).reshape(-1, 4, 4)
    q = np.broadcast_to(q0, lead + (n,)).reshape(-1, n).copy()
    if lim is not None and np.any((q < lim[:, 0]) | (q > lim[:, 1])):
        raise ValueError("q0 lies outside the joint limits qlim; start inside them")

    eps = sigma_threshold if adaptive else np.inf
    fade = FADE  # unused with constant damping
    q, it, reason = _solve(arm, Tf, q, tol, max_iter, damping, eps, max_step, lim, fade)
    for _ in range(restarts):
        bad = reason != "converged"
        if not np.any(bad):
            break
        lo, hi = (lim[:, 0], lim[:, 1]) if lim is not None else (-np.pi, np.pi)
        seeds = rng.uniform(lo, hi, (int(bad.sum()), n))
        q2, it2, r2 = _solve(arm, Tf[bad], seeds, tol, max_iter, damping, eps, max_step, lim, fade)
        q[bad], it[bad], reason[bad] = q2, it[bad] + it2, np.where(r2 == "converged", r2, reason[bad])

    # independent confirmation: FK of the returned q, and the joint limits
    e = np.linalg.norm(_pose_error(Tf, arm.fk(q)), axis=-1)
    inside = np.ones(len(q), bool) if lim is None else np.all((q >= lim[:, 0]) & (q <= lim[:, 1]), -1)
    ok = (e <= tol) & inside
    reason = np.where(
        ok,
        "converged",
        np.where(~inside, "outside joint limits", np.where(reason == "converged", "FK check failed", reason)),
    )
    reason = np.array([r if r != "max_iter" else f"max_iter={max_iter} reached" for r in reason], dtype=object)
    if on_fail == "raise" and not np.all(ok):
        k = int(np.argmin(ok))
        raise ConvergenceError(
            e[k], it[k], f"ik_dls ({int((~ok).sum())} of {ok.size} poses failed, first: {reason[k]})"
        )
    return IKResult(
        q=q.reshape(lead + (n,)),
        valid=ok.reshape(lead),
        residual=e.reshape(lead),
        branch=BRANCH,
        iterations=it.reshape(lead),
        reason=reason.reshape(lead),
    )


def damping_squared(
    sigma_min: ArrayLike, err: ArrayLike, *, damping: float, sigma_threshold: float, fade: float = FADE
) -> np.ndarray:
    """The damping law of :func:`ik_dls`: ``lambda^2`` per sample (:eq:`eq-ch06-dls`).

    ``lambda^2 = (1 - (sigma_min / eps)^2) lambda_max^2 min(1, |e| / e_0)^2`` when ``sigma_min < eps``, else 0;
    with ``sigma_threshold = inf`` (``adaptive=False``) the constant ``lambda_max^2``. ``damping`` lies in
    ``(0, 1e3]``, ``sigma_threshold`` and ``fade`` in ``[1e-12, 1e3]`` (smaller ones overflow the ratios). The first factor switches
    the damping on smoothly as the smallest singular value drops below ``eps``; the second lets it fade as the
    error shrinks, so the last steps are Gauss-Newton steps. Squaring that fade matters near singular targets:
    with the linear fade a step keeps a fraction ``lambda^2 / (sigma^2 + lambda^2)`` of the error along a small
    singular direction, which decays only linearly in ``|e|``, and 36 % of targets with ``|q5| = 1e-4`` ran out
    of iterations.

    Examples
    --------
    >>> damping_squared(np.array([0.02, 0.005, 0.0]), np.array([1.0, 1.0, 1e-3]), damping=0.1, sigma_threshold=0.01)
    array([0.    , 0.0075, 0.0001])
    >>> damping_squared(np.array([0.02]), np.array([1.0]), damping=0.1, sigma_threshold=np.inf)
    array([0.01])
    """
    smin = as_array(sigma_min, "sigma_min")
    err = as_array(err, "err")
    if np.any(smin < 0) or np.any(err < 0):
        raise ValueError("sigma_min and err must be non-negative (a singular value and an error norm)")
    try:
        np.broadcast_shapes(smin.shape, err.shape)
    except ValueError:
        raise ValueError(
            f"sigma_min and err must broadcast together, got shapes {smin.shape} and {err.shape}"
        ) from None
    damping = tolerance(damping, "damping", max=1e3)
    fade = tolerance(fade, "fade", min=1e-12, max=1e3)
    what = "a number in [1e-12, 1e3] or inf (constant damping)"
    sigma_threshold = _real_scalar(sigma_threshold, "sigma_threshold", what)
    if not (sigma_threshold == np.inf or 1e-12 <= sigma_threshold <= 1e3):
        raise ValueError(f"sigma_threshold must be {what}, got {sigma_threshold!r}")
    return _damping_squared(smin, err, damping, sigma_threshold, fade)


def _damping_squared(smin, err, damping, sigma_threshold, fade):
    """:func:`damping_squared` without the input checks (the DLS loop, inputs already checked)."""
    if np.isinf(sigma_threshold):  # constant damping (textbook DLS)
        return np.full(np.broadcast_shapes(smin.shape, err.shape), damping**2)
    on = np.where(smin < sigma_threshold, (1 - (smin / sigma_threshold) ** 2) * damping**2, 0.0)
    return on * np.minimum(1.0, err / fade) ** 2


def _solve(arm, T, q, tol, max_iter, lam_max, eps, max_step, lim, fade):
    """Batched DLS loop; samples drop out of the active set as they converge or stall."""
    m = len(q)
    it = np.zeros(m, int)
    reason = np.full(m, "max_iter", dtype=object)
    active = np.ones(m, bool)
    for k in range(max_iter + 1):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        qa = q[idx]
        # pose rows [R | p] and Jacobian, q already checked; the final q is confirmed by arm.fk after the loop
        FJ = arm._many("fkjac", qa, 12 + 6 * arm.n, half_angle=True)
        e = _iter_error(T[idx], FJ[:, :12].reshape(-1, 3, 4))
        err = np.linalg.norm(e, axis=-1)
        done = err <= tol
        reason[idx[done]] = "converged"
        active[idx[done]] = False
        if k == max_iter:
            break
        go = ~done
        idx, qa, e = idx[go], qa[go], e[go]
        if idx.size == 0:
            break
        J = FJ[go, 12:].reshape(-1, 6, arm.n)
        dq = np.empty_like(qa)
        hard = np.ones(len(qa), bool)
        if J.shape[-1] == J.shape[-2] and np.isfinite(eps):
            # square J: 1 / |J^-1|_F <= sigma_min, so where that bound reaches eps there is no damping and the
            # damped pseudo-inverse is J^-1 itself (the common case, away from singularities)
            try:
                Ji = np.linalg.inv(J)
            except np.linalg.LinAlgError:  # an exactly singular J somewhere in the batch: all take the long way
                Ji = None
            if Ji is not None:
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    bound = 1.0 / np.sqrt(np.einsum("bij,bij->b", Ji, Ji))
                    hard = ~(bound >= eps)
                    np.einsum("bij,bj->bi", Ji, e, out=dq)  # J^-1 e everywhere; the hard rows are replaced below
        if np.any(hard):
            dq[hard] = _damped_step(J[hard], e[hard], err[go][hard], lam_max, eps, fade)
        step = np.abs(dq).max(axis=-1)
        dq *= np.minimum(1.0, max_step / np.maximum(step, 1e-300))[:, None]
        qn = qa + dq
        if lim is not None:
            qn = np.clip(qn, lim[:, 0], lim[:, 1])
        stalled = np.abs(qn - qa).max(axis=-1) < 1e-15
        q[idx] = qn
        it[idx] += 1
        reason[idx[stalled]] = "stalled (no progress: local minimum, joint limit or unreachable target)"
        active[idx[stalled]] = False
    return q, it, reason


def _iter_error(Tt, F):
    """The pose error of ``serial.pose_error`` inside the loop, with fewer numpy calls (mid-size batches).

    ``F`` (m, 3, 4) is the FK block ``[R | p]``. The rotation vector of ``dR = R_t R^T`` is ``theta d / |d|``
    with ``d = vee(dR - dR^T) = 2 sin(theta) axis`` and ``theta = atan2(|d|, tr dR - 1)`` (``-> d / 2`` as
    ``theta -> 0``): the same quantity as the quaternion route of ``pose_error``, accurate while ``sin theta``
    keeps the axis, so rows beyond 2 pi / 3 (``tr dR < 0``) take ``pose_error`` itself. Only the loop's
    convergence test and step use it; the returned ``q`` is confirmed by ``pose_error`` of ``arm.fk``.
    """
    dR = Tt[:, :3, :3] @ np.swapaxes(F[:, :, :3], -1, -2)
    d = np.stack([dR[:, 2, 1] - dR[:, 1, 2], dR[:, 0, 2] - dR[:, 2, 0], dR[:, 1, 0] - dR[:, 0, 1]], -1)
    c = dR[:, 0, 0] + dR[:, 1, 1] + dR[:, 2, 2] - 1.0  # 2 cos(theta)
    nd = np.sqrt(np.einsum("bi,bi->b", d, d))  # 2 sin(theta)
    small = nd <= 1e-12
    scale = np.where(small, 0.5, np.arctan2(nd, c) / np.where(small, 1.0, nd))
    e = np.concatenate([Tt[:, :3, 3] - F[:, :, 3], d * scale[:, None]], axis=-1)
    far = c < -1.0
    if np.any(far):
        e[far] = _pose_error(Tt[far], F[far])
    return e


def _damped_step(J, e, err, lam_max, eps, fade):
    """``dq = V diag(s / (s^2 + lambda^2)) U^T e`` with the damping law, via the smaller Gram matrix.

    ``J^T (J J^T + lambda^2 I)^-1 e`` (wide or square J) equals ``(J^T J + lambda^2 I)^-1 J^T e`` (tall J); the
    Gram matrix's eigenvalues are the squared singular values, so its smallest gives ``sigma_min``.
    """
    Jt = np.swapaxes(J, -1, -2)
    wide = J.shape[-1] >= J.shape[-2]
    G = J @ Jt if wide else Jt @ J
    if np.isfinite(eps):  # the adaptive law needs the smallest singular value
        smin = np.sqrt(np.maximum(np.linalg.eigvalsh(G)[:, 0], 0.0))
    else:  # constant damping: no singular value needed
        smin = np.zeros(len(G))
    # damping only near a singularity, and fading with the error so that the last
    # iterations are undamped Gauss-Newton steps (quadratic convergence)
    lam2 = _damping_squared(smin, err, lam_max, eps, fade)
    np.einsum("bii->bi", G)[...] += lam2[:, None]  # a writeable view of the diagonals
    if wide:
        return (Jt @ np.linalg.solve(G, e[..., None]))[..., 0]
    return np.linalg.solve(G, Jt @ e[..., None])[..., 0]
