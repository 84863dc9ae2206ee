"""Planar two-link leg of a quadruped: FK, closed-form IK, Jacobian, calibration, trot gait.

Frames and conventions (chapter 2):

* Hip frame: origin at the hip axis, ``x`` forward, ``z`` up (the leg moves in the x-z plane).
* ``theta1`` is the hip angle measured from the **downward** vertical, positive
  when the thigh swings forward; ``theta2`` is the knee angle of the shank relative
  to the thigh. ``q = [theta1, theta2]`` in radians, ``q = 0`` is the straight leg
  hanging down.
* Foot position ``p = [x, z]`` in metres::

      x =  l1 sin(theta1) + l2 sin(theta1 + theta2)
      z = -l1 cos(theta1) - l2 cos(theta1 + theta2)

* IK branches (:attr:`TwoLinkLeg.branches`): ``"knee-back"`` is ``theta2 > 0``, the knee
  *behind* the hip-foot line (the usual backward-pointing knee); ``"knee-front"`` is the
  mirror image, ``theta2 < 0``.

All functions are vectorised over leading batch axes and return float64 arrays.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import least_squares

from ._primitives import wrap
from ._validate import MAX_THRESHOLD, as_array, choice, finite_scalar, on_unreachable_mode, positive
from .errors import SingularityWarning, UnreachableError
from .results import IKResult

__all__ = [
    "TwoLinkLeg",
    "Calibration",
    "calibrate",
    "TROT",
    "gait_phase",
    "gait_state",
    "foot_offset",
    "foot_targets",
]

_REACH_TOL = 1e-12  # slack on cos(theta2) so targets made by FK exactly on the boundary stay reachable
_LIMIT_TOL = 1e-12  # rad, same idea for joint limits
_KNEE_SIGN = {"knee-back": 1.0, "knee-front": -1.0}  # sign of theta2 on each IK branch


def _limit(value, name, default):
    if value is None:
        return (default, default)
    a = as_array(value, name, trailing=(2,), finite=False)
    if a.shape != (2,) or np.any(np.isnan(a)):
        raise ValueError(f"{name} must be two angles in rad (shape (2,), no NaN), got {value!r}")
    if np.any(np.abs(a[np.isfinite(a)]) > np.pi + 1e-12):
        raise ValueError(f"{name} must lie in [-pi, pi] (IK returns wrapped angles), got {a.tolist()}")
    return (float(a[0]), float(a[1]))


@dataclass(frozen=True)
class TwoLinkLeg:
    """Planar two-link leg: thigh ``l1`` and shank ``l2`` (m), optional joint limits (rad).

    Parameters
    ----------
    l1, l2 : float
        Thigh and shank lengths in metres (positive).
    q_min, q_max : array_like of shape (2,), optional, keyword-only
        Joint limits ``[theta1, theta2]`` in radians within ``[-pi, pi]``;
        ``None`` means unlimited. Stored as tuples (the dataclass is hashable).

    Examples
    --------
    >>> leg = TwoLinkLeg(0.2, 0.2)
    >>> leg.fk([0.0, 0.0])
    array([ 0. , -0.4])
    >>> res = leg.ik([0.1, -0.3], branch="knee-back")
    >>> np.round(leg.fk(res.q), 12)
    array([ 0.1, -0.3])
    >>> bool(res.q[1] > 0), bool(res.valid), bool(res.residual < 1e-15)
    (True, True, True)
    """

    #: IK branch names: ``"knee-back"`` (``theta2 > 0``) and ``"knee-front"`` (``theta2 < 0``).
    branches: ClassVar[tuple[str, ...]] = ("knee-back", "knee-front")
    default_branch: ClassVar[str] = "knee-back"

    l1: float
    l2: float
    q_min: tuple | None = field(default=None, kw_only=True)
    q_max: tuple | None = field(default=None, kw_only=True)

    def __post_init__(self):
        object.__setattr__(self, "l1", positive(self.l1, "l1"))
        object.__setattr__(self, "l2", positive(self.l2, "l2"))
        lo = _limit(self.q_min, "q_min", -np.inf)
        hi = _limit(self.q_max, "q_max", np.inf)
        if not all(a < b for a, b in zip(lo, hi)):
            raise ValueError(f"need q_min < q_max for both joints, got q_min={lo}, q_max={hi}")
        object.__setattr__(self, "q_min", None if self.q_min is None else lo)
        object.__setattr__(self, "q_max", None if self.q_max is None else hi)

    # -- limits -------------------------------------------------------------------------------
    @property
    def limits(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)`` as two (2,) arrays, with -inf / inf where no limit is set."""
        lo = np.full(2, -np.inf) if self.q_min is None else np.array(self.q_min)
        hi = np.full(2, np.inf) if self.q_max is None else np.array(self.q_max)
        return lo, hi

    def within_limits(self, q: ArrayLike) -> np.bool_ | np.ndarray:
        """True where both joints of ``q`` (..., 2) lie within the limits (bool, shape (...)).

        Examples
        --------
        >>> TwoLinkLeg(0.2, 0.2, q_min=[-1, 0], q_max=[1, 2.5]).within_limits([[0, 1], [0, -0.1]])
        array([ True, False])
        """
        return self._within(as_array(q, "q", trailing=(2,)))

    def _within(self, q):
        lo, hi = self.limits
        return np.all((q >= lo - _LIMIT_TOL) & (q <= hi + _LIMIT_TOL), axis=-1)

    # -- kinematics ---------------------------------------------------------------------------
    def fk(self, q: ArrayLike) -> np.ndarray:
        """Foot position ``[x, z]`` (m, hip frame) from joint angles ``q`` (rad), eq. ``eq-ch02-fk``.

        Parameters
        ----------
        q : array_like, shape (..., 2)
            ``[theta1, theta2]`` in radians.

        Returns
        -------
        ndarray, shape (..., 2)

        Examples
        --------
        >>> np.round(TwoLinkLeg(0.2, 0.2).fk([np.pi / 2, 0.0]), 12) + 0.0  # + 0.0 turns -0. into 0.
        array([0.4, 0. ])
        """
        return self._fk(as_array(q, "q", trailing=(2,)))

    def _fk(self, q):
        """Unchecked FK kernel (NaN rows pass through): the IK residual uses it."""
        t1, t12 = q[..., 0], q[..., 0] + q[..., 1]
        x = self.l1 * np.sin(t1) + self.l2 * np.sin(t12)
        z = -self.l1 * np.cos(t1) - self.l2 * np.cos(t12)
        return np.stack([x, z], axis=-1)

    def knee_position(self, q: ArrayLike) -> np.ndarray:
        """Knee position ``[x, z]`` (m, hip frame) for ``q`` (..., 2): ``(..., 2)``.

        Examples
        --------
        >>> np.round(TwoLinkLeg(0.2, 0.3).knee_position([0.0, 1.0]), 12)
        array([ 0. , -0.2])
        """
        q = as_array(q, "q", trailing=(2,))
        return self.l1 * np.stack([np.sin(q[..., 0]), -np.cos(q[..., 0])], axis=-1)

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Analytic Jacobian ``d[x, z]/d[theta1, theta2]`` (m/rad), eq. ``eq-ch02-jac``.

        ``det J = l1 l2 sin(theta2)``: singular when the knee is straight or folded.

        Parameters
        ----------
        q : array_like, shape (..., 2)

        Returns
        -------
        ndarray, shape (..., 2, 2)
            Rows ``[dx, dz]``, columns ``[dtheta1, dtheta2]``.

        Examples
        --------
        >>> TwoLinkLeg(0.2, 0.2).jacobian([0.0, 0.0])
        array([[0.4, 0.2],
               [0. , 0. ]])
        """
        q = as_array(q, "q", trailing=(2,))
        t1, t12 = q[..., 0], q[..., 0] + q[..., 1]
        c1, s1, c12, s12 = np.cos(t1), np.sin(t1), np.cos(t12), np.sin(t12)
        J = np.empty(q.shape[:-1] + (2, 2))
        J[..., 0, 0] = self.l1 * c1 + self.l2 * c12
        J[..., 0, 1] = self.l2 * c12
        J[..., 1, 0] = self.l1 * s1 + self.l2 * s12
        J[..., 1, 1] = self.l2 * s12
        return J

    def joint_rates(self, q: ArrayLike, v: ArrayLike, *, cond_warn: float = 1e6) -> np.ndarray:
        """Joint rates ``qdot = J(q)^-1 v`` (rad/s) for a foot velocity ``v`` (m/s, hip frame).

        Near ``theta2 = 0`` or ``pi`` the rates blow up like ``1 / sin(theta2)``.

        Parameters
        ----------
        q : array_like, shape (..., 2)
        v : array_like, shape (..., 2)
            ``[xdot, zdot]``; broadcast against ``q``.
        cond_warn : float, keyword-only
            Emit :class:`~robokin.errors.SingularityWarning` (with the worst
            condition number) when ``cond(J)`` exceeds this.

        Returns
        -------
        ndarray, shape (..., 2)
            Rows at an exact singularity (``det J = 0``) are NaN, always with the warning.

        Examples
        --------
        >>> leg = TwoLinkLeg(0.2, 0.2)
        >>> np.round(leg.joint_rates([0.0, np.pi / 2], [0.1, 0.0]), 12)
        array([ 0.5, -0.5])
        """
        q = as_array(q, "q", trailing=(2,))
        v = as_array(v, "v", trailing=(2,))
        cond_warn = positive(cond_warn, "cond_warn", max_abs=MAX_THRESHOLD)
        J = self.jacobian(q)
        J, v = np.broadcast_arrays(J, v[..., None, :])
        v = v[..., 0, :]
        det = J[..., 0, 0] * J[..., 1, 1] - J[..., 0, 1] * J[..., 1, 0]
        fro2 = np.sum(J * J, axis=(-2, -1))
        # 2x2 condition number from det and Frobenius norm (exact, no SVD needed)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.sqrt(np.maximum(fro2**2 - 4 * det**2, 0.0))
            cond = np.sqrt((fro2 + r) / np.maximum(fro2 - r, 0.0))
            cond = np.where(det == 0, np.inf, cond)
            qd0 = (J[..., 1, 1] * v[..., 0] - J[..., 0, 1] * v[..., 1]) / det
            qd1 = (-J[..., 1, 0] * v[..., 0] + J[..., 0, 0] * v[..., 1]) / det
        out = np.stack([qd0, qd1], axis=-1)
        out[det == 0] = np.nan
        if np.any(cond > cond_warn):
            warnings.warn(SingularityWarning(float(np.max(cond)), "TwoLinkLeg.joint_rates"), stacklevel=2)
        return out

    def ik(
        self,
        p: ArrayLike,
        *,
        branch: Literal["knee-back", "knee-front", "all"] = "knee-back",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Closed-form inverse kinematics (law of cosines + atan2), eq. ``eq-ch02-ik``.

        Parameters
        ----------
        p : array_like, shape (..., 2)
            Foot targets ``[x, z]`` in metres, hip frame.
        branch : {"knee-back", "knee-front", "all"}, keyword-only
            ``"knee-back"`` (default): ``theta2 > 0``, the knee behind the hip-foot
            line; ``"knee-front"``: the mirror image, ``theta2 < 0``; ``"all"``: both,
            in the order of :attr:`branches`.
        on_unreachable : {"raise", "nan"}, keyword-only
            ``"raise"``: :class:`~robokin.errors.UnreachableError` naming how many
            targets fail, why, and the first one (with ``branch="all"``: targets
            with no valid branch). ``"nan"``: NaN rows and ``valid`` False instead.

        Returns
        -------
        IKResult
            ``q`` ``(..., 2)`` (``(..., 2, 2)`` for ``"all"``), ``[theta1, theta2]``
            wrapped to ``[-pi, pi)``; ``valid`` True where the target is within
            reach **and** the solution within the joint limits; ``residual``
            ``|fk(q) - p|`` (m, NaN where ``q`` is NaN); ``branch`` the branch
            name (a tuple of both for ``"all"``).

        Examples
        --------
        >>> leg = TwoLinkLeg(0.2, 0.2)
        >>> res = leg.ik([[0.0, -0.3], [0.0, -0.5]], on_unreachable="nan")
        >>> res.valid
        array([ True, False])
        >>> leg.ik([0.1, -0.3], branch="all").q.shape
        (2, 2)
        >>> leg.ik([0.0, -0.5])
        Traceback (most recent call last):
        ...
        robokin.errors.UnreachableError: 1 of 1 targets are unreachable (distance > l1 + l2: 1); first: [0, -0.5]. Pass on_unreachable="nan" to get NaN rows and a mask instead.
        """
        p = as_array(p, "p", trailing=(2,))
        branch = choice(branch, "branch", self.branches + ("all",))
        mode = on_unreachable_mode(on_unreachable)
        l1, l2 = self.l1, self.l2
        x, z = p[..., 0], p[..., 1]
        with np.errstate(over="ignore"):  # |p| ~ 1e154 overflows to inf: correctly "too far"
            d2 = x * x + z * z
            # law of cosines as (1 - c2) and (1 + c2): their signs give the two reach tests directly
            one_minus_c2 = ((l1 + l2) ** 2 - d2) / (2 * l1 * l2)
            one_plus_c2 = (d2 - (l1 - l2) ** 2) / (2 * l1 * l2)
        too_far = one_minus_c2 < -_REACH_TOL
        too_close = one_plus_c2 < -_REACH_TOL
        c2 = np.clip(one_plus_c2 - 1.0, -1.0, 1.0)
        s2_abs = np.sqrt(np.clip(one_minus_c2, 0.0, 2.0) * np.clip(one_plus_c2, 0.0, 2.0))
        if branch == "all":  # a branch axis before the joint axis, in the order of self.branches
            x, z, c2, s2_abs = (a[..., None] for a in (x, z, c2, s2_abs))
            too_far, too_close = too_far[..., None], too_close[..., None]
            sign = np.array([_KNEE_SIGN[b] for b in self.branches])
        else:
            sign = _KNEE_SIGN[branch]
        s2 = sign * s2_abs
        t2 = np.arctan2(s2, c2)
        # hip: direction of the foot from the downward vertical minus the knee's interior offset
        t1 = wrap(np.arctan2(x, -z) - np.arctan2(l2 * s2, l1 + l2 * c2))
        q = np.stack([t1, np.broadcast_to(t2, t1.shape)], axis=-1)
        reach = ~(too_far | too_close)
        limits = reach & ~self._within(q) if (self.q_min or self.q_max) else np.zeros_like(reach)
        bad = np.broadcast_to(~reach | limits, q.shape[:-1])
        failed = np.all(bad, axis=-1) if branch == "all" else bad  # "all": a target fails when no branch is valid
        if mode == "raise" and np.any(failed):
            # counts per target; "all" blames the limits only where every branch violates them
            out_lim = failed & reach[..., 0] if branch == "all" else limits
            far, close = (m[..., 0] if branch == "all" else m for m in (too_far, too_close))
            parts = [
                f"{label}: {int(np.count_nonzero(m))}"
                for label, m in (
                    ("distance > l1 + l2", far),
                    ("distance < |l1 - l2|", close),
                    ("outside joint limits", out_lim),
                )
                if np.any(m)
            ]
            first = p[np.unravel_index(int(np.argmax(failed)), failed.shape)] if failed.ndim else p
            raise UnreachableError(
                int(np.count_nonzero(failed)), first, total=int(failed.size), reason=", ".join(parts)
            )
        q[bad] = np.nan
        pp = p[..., None, :] if branch == "all" else p
        residual = np.linalg.norm(self._fk(q) - pp, axis=-1)
        return IKResult(q=q, valid=~bad, residual=residual, branch=self.branches if branch == "all" else branch)


# -- calibration ------------------------------------------------------------------------------
def _calib_residual(params, q_enc, p_meas):
    l1, l2, d1, d2 = params
    t1 = q_enc[:, 0] + d1
    t12 = t1 + q_enc[:, 1] + d2
    x = l1 * np.sin(t1) + l2 * np.sin(t12)
    z = -l1 * np.cos(t1) - l2 * np.cos(t12)
    return np.concatenate([x - p_meas[:, 0], z - p_meas[:, 1]])


def _calib_jac(params, q_enc, p_meas):
    l1, l2, d1, d2 = params
    t1 = q_enc[:, 0] + d1
    t12 = t1 + q_enc[:, 1] + d2
    s1, c1, s12, c12 = np.sin(t1), np.cos(t1), np.sin(t12), np.cos(t12)
    jx = np.stack([s1, s12, l1 * c1 + l2 * c12, l2 * c12], axis=-1)
    jz = np.stack([-c1, -c12, l1 * s1 + l2 * s12, l2 * s12], axis=-1)
    return np.concatenate([jx, jz], axis=0)


@dataclass(frozen=True, eq=False)
class Calibration:
    """Identified leg parameters from :func:`calibrate`.

    Attributes
    ----------
    params : ndarray, shape (4,)
        ``[l1, l2, delta1, delta2]``: link lengths (m) and joint zero offsets (rad),
        with ``theta = q_encoder + delta``.
    std : ndarray, shape (4,)
        One-sigma uncertainty of ``params`` from ``s^2 (J^T J)^-1``.
    cov : ndarray, shape (4, 4)
        Parameter covariance.
    rms : float
        RMS foot residual after the fit (m).
    noise : float
        Estimated measurement noise per coordinate, ``s`` (m).
    n_points : int
        Number of measured poses.
    """

    params: np.ndarray
    std: np.ndarray
    cov: np.ndarray
    rms: float
    noise: float
    n_points: int

    @property
    def offset(self) -> np.ndarray:
        """Joint zero offsets ``[delta1, delta2]`` (rad)."""
        return self.params[2:].copy()

    def leg(self, nominal: TwoLinkLeg | None = None) -> TwoLinkLeg:
        """The identified :class:`TwoLinkLeg` (joint limits copied from ``nominal``)."""
        lim = {} if nominal is None else {"q_min": nominal.q_min, "q_max": nominal.q_max}
        return TwoLinkLeg(float(self.params[0]), float(self.params[1]), **lim)

    def predict(self, q_enc: ArrayLike) -> np.ndarray:
        """Foot position (m) predicted for encoder angles ``q_enc`` (..., 2)."""
        return self.leg().fk(as_array(q_enc, "q_enc", trailing=(2,)) + self.offset)

    def command(
        self,
        p: ArrayLike,
        *,
        branch: Literal["knee-back", "knee-front", "all"] = "knee-back",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Encoder angles that put the foot at ``p``: ``ik(p) - delta`` with the identified lengths.

        Same arguments as :meth:`TwoLinkLeg.ik`. Returns its :class:`~robokin.results.IKResult` with ``q``
        replaced by the encoder angles (``valid``, ``residual`` and ``branch`` unchanged).
        """
        res = self.leg().ik(p, branch=branch, on_unreachable=on_unreachable)
        return replace(res, q=res.q - self.offset)


def calibrate(
    q_enc: ArrayLike, p_meas: ArrayLike, *, guess: TwoLinkLeg | ArrayLike, cond_max: float = 1e8
) -> Calibration:
    """Identify link lengths and joint zero offsets from measured foot positions.

    Model: ``p = fk_{l1, l2}(q_enc + delta)``; nonlinear least squares
    (``scipy.optimize.least_squares``, analytic Jacobian) over
    ``[l1, l2, delta1, delta2]``. The uncertainty is ``cov = s^2 (J^T J)^-1``
    with ``s^2 = |r|^2 / (2N - 4)``, valid for independent noise of equal variance.
    The measuring frame is assumed to coincide with the hip frame.

    Parameters
    ----------
    q_enc : array_like, shape (N, 2)
        Encoder readings (rad), N >= 3 varied poses.
    p_meas : array_like, shape (N, 2)
        Measured foot positions ``[x, z]`` (m, hip frame).
    guess : TwoLinkLeg or array_like of shape (2,)
        Nominal leg or nominal ``[l1, l2]``; offsets start at zero.
    cond_max : float
        Refuse pose sets whose fit Jacobian has a larger condition number
        (the poses do not separate the four parameters).

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        Bad shapes, too few or degenerate poses, encoder angles beyond a full turn
        (``|q_enc| > 2 pi``: almost surely degrees) or a fit with non-positive link
        lengths (the data do not fit the model: wrong units or frame).

    Examples
    --------
    >>> true = TwoLinkLeg(0.2, 0.205)
    >>> q = np.random.default_rng(0).uniform([-1, 0.3], [1, 2.5], size=(30, 2))
    >>> cal = calibrate(q, true.fk(q + [0.02, -0.01]), guess=TwoLinkLeg(0.2, 0.2))
    >>> np.round(cal.params, 9)
    array([ 0.2  ,  0.205,  0.02 , -0.01 ])
    >>> calibrate(np.rad2deg(q), true.fk(q + [0.02, -0.01]), guess=TwoLinkLeg(0.2, 0.2))
    Traceback (most recent call last):
    ...
    ValueError: q_enc reaches 140.8 rad (more than a full turn): encoder angles must be in radians. Were they given in degrees? Convert with np.deg2rad(q_enc)
    """
    q_enc = as_array(q_enc, "q_enc", trailing=(2,))
    p_meas = as_array(p_meas, "p_meas", trailing=(2,))
    if q_enc.ndim != 2 or p_meas.shape != q_enc.shape:
        raise ValueError(f"q_enc and p_meas must both have shape (N, 2); got {q_enc.shape} and {p_meas.shape}")
    n = q_enc.shape[0]
    if n < 3:
        raise ValueError(f"calibration needs at least 3 poses (4 unknowns, 2 equations each), got {n}")
    cond_max = positive(cond_max, "cond_max", max_abs=MAX_THRESHOLD)
    span = float(np.abs(q_enc).max())
    if span > 2 * np.pi:
        raise ValueError(
            f"q_enc reaches {span:.4g} rad (more than a full turn): encoder angles must be in radians. "
            "Were they given in degrees? Convert with np.deg2rad(q_enc)"
        )
    if isinstance(guess, TwoLinkLeg):
        l0 = [guess.l1, guess.l2]
    else:
        g = as_array(guess, "guess", trailing=(2,))
        if g.shape != (2,):
            raise ValueError(f"guess must be a TwoLinkLeg or [l1, l2], got shape {g.shape}")
        l0 = [positive(float(g[0]), "guess l1"), positive(float(g[1]), "guess l2")]
    x0 = np.array([l0[0], l0[1], 0.0, 0.0])
    J0 = _calib_jac(x0, q_enc, p_meas)
    sv = np.linalg.svd(J0, compute_uv=False)
    if sv[-1] == 0 or sv[0] / sv[-1] > cond_max:
        raise ValueError(
            f"the {n} poses do not separate l1, l2 and the two offsets (fit Jacobian condition "
            f"{sv[0] / max(sv[-1], 1e-300):.3g} > cond_max={cond_max:g}); use poses with varied theta1 and theta2"
        )
    sol = least_squares(
        _calib_residual, x0, jac=_calib_jac, args=(q_enc, p_meas), method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15
    )
    if not np.all(sol.x[:2] > 0):
        hint = (
            " They stay within +-2 pi, but small angles in degrees look like radians: check the unit"
            if span > np.pi
            else ""
        )
        raise ValueError(
            f"calibration gave non-positive link lengths l1 = {sol.x[0]:.3g} m, l2 = {sol.x[1]:.3g} m: "
            f"the measurements do not fit the leg model. Check that q_enc is in radians "
            f"(np.deg2rad), p_meas in metres in the hip frame, and the guess.{hint}"
        )
    J = sol.jac
    dof = 2 * n - 4
    s2 = float(sol.fun @ sol.fun) / dof if dof > 0 else 0.0
    cov = s2 * np.linalg.inv(J.T @ J)
    rms = float(np.sqrt(np.mean(sol.fun[:n] ** 2 + sol.fun[n:] ** 2)))
    return Calibration(params=sol.x, std=np.sqrt(np.diag(cov)), cov=cov, rms=rms, noise=math.sqrt(s2), n_points=n)


# -- trot gait --------------------------------------------------------------------------------
LEGS = ("FL", "FR", "RL", "RR")
TROT = (0.0, 0.5, 0.5, 0.0)
"""Phase offsets for FL, FR, RL, RR in a trot: diagonal pairs FL+RR and FR+RL move together."""


def gait_phase(t: ArrayLike, *, period: float, offsets: ArrayLike = TROT) -> np.ndarray:
    """Phase of each leg in its cycle, in ``[0, 1)``.

    Parameters
    ----------
    t : array_like, shape (...)
        Time (s).
    period : float
        Gait cycle period (s).
    offsets : array_like, shape (n_legs,)
        Phase offset of each leg (cycles), e.g. :data:`TROT`.

    Returns
    -------
    ndarray, shape (..., n_legs)

    Examples
    --------
    >>> gait_phase([0.0, 0.3], period=0.4)
    array([[0.  , 0.5 , 0.5 , 0.  ],
           [0.75, 0.25, 0.25, 0.75]])
    """
    t = as_array(t, "t")
    period = positive(period, "period")
    off = as_array(offsets, "offsets", trailing=(None,))
    if off.ndim != 1:
        raise ValueError(f"offsets must be one phase per leg, shape (n_legs,), got {off.shape}")
    return np.mod(t[..., None] / period + off, 1.0)


def gait_state(phase: ArrayLike, *, duty: float) -> tuple[np.bool_ | np.ndarray, np.ndarray]:
    """Swing/stance state machine driven by the phase.

    Each leg is in **stance** for ``phase in [0, duty)`` (touchdown at 0) and in
    **swing** for ``[duty, 1)`` (lift-off at ``duty``); ``s`` is the progress
    within the current state.

    Parameters
    ----------
    phase : array_like, shape (...)
        Phases in ``[0, 1)``.
    duty : float
        Stance fraction, in ``(0, 1)`` (0.5 for a trot, 0.75 for a crawl).

    Returns
    -------
    stance : ndarray of bool, shape (...)
    s : ndarray, shape (...)
        Progress in ``[0, 1)`` within the current state.

    Examples
    --------
    >>> gait_state([0.1, 0.75], duty=0.5)
    (array([ True, False]), array([0.2, 0.5]))
    """
    ph = as_array(phase, "phase")
    duty = finite_scalar(duty, "duty")
    if not 0 < duty < 1:
        raise ValueError(f"duty must be in (0, 1), got {duty}")
    if np.any((ph < 0) | (ph >= 1)):
        raise ValueError("phase must lie in [0, 1); use gait_phase to wrap it")
    stance = ph < duty
    s = np.where(stance, ph / duty, (ph - duty) / (1 - duty))
    return stance, s


def foot_offset(phase: ArrayLike, *, duty: float, period: float, v_body: float, height: float) -> np.ndarray:
    """Foot position relative to its neutral point, in the hip frame (m).

    Stance: the foot moves backward at the body speed, from ``+L/2`` to ``-L/2``
    with ``L = v_body * duty * period``. Swing: a **cycloid in the world frame**
    (stride ``v_body * period``) with a raised-cosine height profile, so the
    foot leaves and touches the ground with zero velocity relative to the
    ground, and its hip-frame velocity is continuous at both transitions.

    Parameters
    ----------
    phase : array_like, shape (...)
    duty, period, v_body, height : float
        Stance fraction, cycle period (s), forward body speed (m/s), swing height (m).

    Returns
    -------
    ndarray, shape (..., 2)
        ``[dx, dz]`` (m).

    Examples
    --------
    >>> np.round(foot_offset([0.0, 0.25, 0.5, 0.75], duty=0.5, period=0.4, v_body=0.5, height=0.05), 12)
    array([[ 0.05,  0.  ],
           [ 0.  ,  0.  ],
           [-0.05,  0.  ],
           [ 0.  ,  0.05]])
    """
    stance, s = gait_state(phase, duty=duty)
    period = positive(period, "period")
    v = finite_scalar(v_body, "v_body")
    h = finite_scalar(height, "height")
    half = 0.5 * v * duty * period
    x_st = half - 2 * half * s
    # world-frame cycloid minus the body's travel during the swing
    cyc = s - np.sin(2 * np.pi * s) / (2 * np.pi)
    x_sw = -half + v * period * cyc - v * (1 - duty) * period * s
    z_sw = 0.5 * h * (1 - np.cos(2 * np.pi * s))
    return np.stack([np.where(stance, x_st, x_sw), np.where(stance, 0.0, z_sw)], axis=-1)


def foot_targets(
    t: ArrayLike,
    *,
    neutral: ArrayLike,
    period: float,
    duty: float = 0.5,
    v_body: float,
    height: float,
    offsets: ArrayLike = TROT,
) -> tuple[np.ndarray, np.ndarray]:
    """Foot targets of all legs (hip frames) at times ``t``, ready for ONE batched ``ik`` call.

    Parameters
    ----------
    t : array_like, shape (...)
        Times (s).
    neutral : array_like, shape (2,) or (n_legs, 2)
        Neutral foot position ``[x, z]`` under each hip (m).
    period, duty, v_body, height : float
        See :func:`foot_offset`.
    offsets : array_like, shape (n_legs,)
        Phase offsets (default :data:`TROT`).

    Returns
    -------
    p : ndarray, shape (..., n_legs, 2)
        Foot targets.
    stance : ndarray of bool, shape (..., n_legs)

    Examples
    --------
    >>> p, st = foot_targets(np.linspace(0, 0.4, 5), neutral=[0.0, -0.3], period=0.4, v_body=0.5, height=0.05)
    >>> p.shape, st[0].tolist()
    ((5, 4, 2), [True, False, False, True])
    """
    ph = gait_phase(t, period=period, offsets=offsets)
    nb = as_array(neutral, "neutral", trailing=(2,))
    if nb.ndim > 2 or (nb.ndim == 2 and nb.shape[0] != ph.shape[-1]):
        raise ValueError(f"neutral must have shape (2,) or ({ph.shape[-1]}, 2), got {nb.shape}")
    stance, _ = gait_state(ph, duty=duty)
    return nb + foot_offset(ph, duty=duty, period=period, v_body=v_body, height=height), stance
