"""Planar two-link leg of a quadruped: FK, closed-form IK, Jacobian, calibration, trot gait, and the command
stream to the motors (warm-started numerical IK along a trajectory, smoothing with a foot-error check, a
late or jittery control loop).

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
from scipy.optimize import least_squares, root
from scipy.signal import savgol_filter

from ._primitives import cos_sin, wrap
from ._validate import MAX_COND, as_array, choice, finite_scalar, flag, integer, on_unreachable_mode, positive
from .checks import CheckReport, check_errors
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
    "ik_track",
    "smooth_joint_path",
    "hold_commands",
]

_REACH_TOL = 1e-12  # slack on cos(theta2) so targets made by FK exactly on the boundary stay reachable
_LIMIT_TOL = 1e-12  # rad, same idea for joint limits
_KNEE_SIGN = {"knee-back": 1.0, "knee-front": -1.0}  # sign of theta2 on each IK branch
#: Targets per chunk of ``TwoLinkLeg.ik``: the temporaries of a chunk stay in the CPU cache, so the time per target
#: stays flat with the batch size (measured: about 2x faster than one pass over 1e6 targets).
_IK_CHUNK = 4096


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
        return np.stack(self._fk_xz(q[..., 0], q[..., 0] + q[..., 1]), axis=-1)

    def _fk_xz(self, t1, t12):
        """Foot ``x, z`` from ``theta1`` and ``theta1 + theta2`` (cos/sin by one ``tan`` each, see ``cos_sin``)."""
        c1, s1 = cos_sin(t1)
        c12, s12 = cos_sin(t12)
        return self.l1 * s1 + self.l2 * s12, -self.l1 * c1 - self.l2 * c12

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
        cond_warn = positive(cond_warn, "cond_warn", max_abs=MAX_COND)
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
        """Closed-form inverse kinematics (law of cosines + atan2), eqs. ``eq-ch02-ik1`` and ``eq-ch02-ik2``.

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
        # a branch axis before the joint axis, in the order of self.branches (length 1 for one branch)
        signs = tuple(_KNEE_SIGN[b] for b in self.branches) if branch == "all" else (_KNEE_SIGN[branch],)
        lead, pf = p.shape[:-1], p.reshape(-1, 2)
        n, k = len(pf), len(signs)
        q, residual = np.empty((n, k, 2)), np.empty((n, k))
        too_far, too_close = np.empty(n, bool), np.empty(n, bool)
        for lo in range(0, n, _IK_CHUNK):
            sl = slice(lo, min(lo + _IK_CHUNK, n))
            self._ik_chunk(pf[sl], signs, q[sl], residual[sl], too_far[sl], too_close[sl])
        reach = ~(too_far | too_close)
        if self.q_min or self.q_max:
            limits = reach[:, None] & ~self._within(q)
            bad = ~reach[:, None] | limits
        else:
            limits, bad = None, np.repeat(~reach[:, None], k, axis=1)
        failed = np.all(bad, axis=-1)  # "all": a target fails when no branch is valid
        if mode == "raise" and np.any(failed):
            # counts per target; "all" blames the limits only where every branch violates them
            out_lim = failed & reach if limits is not None else np.zeros(n, bool)
            parts = [
                f"{label}: {int(np.count_nonzero(m))}"
                for label, m in (
                    ("distance > l1 + l2", too_far),
                    ("distance < |l1 - l2|", too_close),
                    ("outside joint limits", out_lim),
                )
                if np.any(m)
            ]
            raise UnreachableError(
                int(np.count_nonzero(failed)), pf[int(np.argmax(failed))], total=n, reason=", ".join(parts)
            )
        if np.any(bad):
            q[bad] = np.nan
            residual[bad] = np.nan
        if branch == "all":
            return IKResult(
                q=q.reshape(lead + (k, 2)),
                valid=~bad.reshape(lead + (k,)),
                residual=residual.reshape(lead + (k,)),
                branch=self.branches,
            )
        res = residual.reshape(lead)
        return IKResult(
            q=q.reshape(lead + (2,)), valid=~bad.reshape(lead), residual=res if lead else res[()], branch=branch
        )

    def _ik_chunk(self, pc, signs, q, residual, too_far, too_close):
        """Closed form and FK residual of a chunk ``pc`` (m, 2), written into ``q`` (m, k, 2), ``residual`` (m, k)
        and the reach masks (m,), one branch per sign. The residual is FK of the returned angles (``_fk_xz``,
        the same arithmetic as :meth:`fk`), computed while the chunk is in cache.
        """
        l1, l2 = self.l1, self.l2
        x, z = np.ascontiguousarray(pc.T)
        with np.errstate(over="ignore", invalid="ignore"):  # |p| ~ 1e154 overflows to inf: correctly "too far"
            d2 = x * x + z * z
            # law of cosines as (1 - c2) and (1 + c2): their signs give the two reach tests directly
            one_minus_c2 = ((l1 + l2) ** 2 - d2) / (2 * l1 * l2)
            one_plus_c2 = (d2 - (l1 - l2) ** 2) / (2 * l1 * l2)
            np.less(one_minus_c2, -_REACH_TOL, out=too_far)
            np.less(one_plus_c2, -_REACH_TOL, out=too_close)
            # clipped with the ufuncs (np.clip's Python overhead is a few ns per target at this chunk size);
            # (1 - c2) + (1 + c2) = 2, so clipping both at 0 also keeps each below 2 where the product is non-zero
            c2 = np.minimum(np.maximum(one_plus_c2 - 1.0, -1.0), 1.0)
            s2_abs = np.sqrt(np.maximum(one_minus_c2, 0.0) * np.maximum(one_plus_c2, 0.0))
            foot = np.arctan2(x, -z)  # direction of the foot from the downward vertical
            for j, sign in enumerate(signs):
                s2 = sign * s2_abs
                t2 = np.arctan2(s2, c2)
                # hip: direction of the foot minus the knee's interior offset
                t1 = wrap(foot - np.arctan2(l2 * s2, l1 + l2 * c2))
                q[:, j, 0], q[:, j, 1] = t1, t2
                fx, fz = self._fk_xz(t1, t1 + t2)  # the residual is FK of the very angles returned
                fx -= x
                fz -= z
                residual[:, j] = np.sqrt(fx * fx + fz * fz)


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
    cond_max = positive(cond_max, "cond_max", max_abs=MAX_COND)
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
            f"the {n} poses q_enc do not separate l1, l2 and the two offsets at guess l1={l0[0]:.4g} m, "
            f"l2={l0[1]:.4g} m (fit Jacobian condition {sv[0] / max(sv[-1], 1e-300):.3g} > cond_max={cond_max:g}); "
            "use poses with varied theta1 and theta2"
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
    duty = finite_scalar(duty, "duty")  # a Python float: a float32 duty must give the float64 answer
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


# -- the command stream: numerical IK along a trajectory, smoothing, a late loop -------------
_MAX_NFEV = 10_000  # refuse larger iteration budgets: a 2-joint solve that needs more has failed


def ik_track(
    leg: TwoLinkLeg,
    p: ArrayLike,
    *,
    q0: ArrayLike,
    warm_start: bool = True,
    method: Literal["lm", "hybr"] = "lm",
    tol: float = 1e-9,
    max_nfev: int = 200,
) -> IKResult:
    """Numerical IK of a foot trajectory, frame by frame, with or without a warm start.

    Each frame solves ``fk(q) - p_k = 0`` (eq. ``eq-ch02-fk``) with ``scipy.optimize.root`` and the analytic
    Jacobian (eq. ``eq-ch02-jac``): ``method="lm"`` is MINPACK's Levenberg-Marquardt (as
    ``scipy.optimize.least_squares(method="lm")``), ``method="hybr"`` MINPACK's hybrid Powell method (as
    ``scipy.optimize.fsolve``). The initial guess of frame ``k`` is the solution of frame ``k - 1`` when
    ``warm_start`` (``q0`` for the first frame), and ``q0`` for every frame otherwise (a cold start). The
    solver's own tolerance is 1e-12 (relative step); ``tol`` is the bar on the foot error that decides ``valid``.

    Parameters
    ----------
    leg : TwoLinkLeg
        The leg (its joint limits count for ``valid``).
    p : array_like, shape (N, 2)
        Foot targets ``[x, z]`` (m, hip frame), in time order.
    q0 : array_like, shape (2,)
        Initial guess ``[theta1, theta2]`` (rad), keyword-only.
    warm_start : bool, keyword-only
        Start each frame from the previous frame's solution (default) or always from ``q0``.
    method : {"lm", "hybr"}, keyword-only
        MINPACK solver, see above.
    tol : float, keyword-only
        A frame is ``valid`` when its foot error ``|fk(q) - p|`` is at most ``tol`` (m) and ``q`` is within the
        joint limits.
    max_nfev : int, keyword-only
        Budget of residual evaluations per frame (at most 10 000).

    Returns
    -------
    IKResult
        ``q`` (N, 2) wrapped to ``[-pi, pi)`` (the last iterate where a frame failed), ``valid`` (N,),
        ``residual`` (N,) foot error (m), ``branch`` ``"seeded"`` (the solver picks the branch whose basin holds
        the guess: compare with :meth:`TwoLinkLeg.ik` to see which), ``iterations`` (N,) residual evaluations,
        ``reason`` (N,) ``"converged"``, ``"foot error above tol"`` or ``"outside joint limits"``.

    Raises
    ------
    ValueError
        ``leg`` not a :class:`TwoLinkLeg`, bad shapes, non-finite input, unknown ``method``, bad ``tol`` or
        ``max_nfev``.

    Examples
    --------
    >>> leg = TwoLinkLeg(0.21, 0.19)
    >>> p = leg.fk(np.stack([np.linspace(-0.3, 0.3, 5), np.full(5, 1.2)], axis=-1))
    >>> res = ik_track(leg, p, q0=[0.0, 1.0])
    >>> bool(res.valid.all()), bool(np.allclose(res.q, leg.ik(p).q, atol=1e-10)), res.branch
    (True, True, 'seeded')
    """
    if not isinstance(leg, TwoLinkLeg):
        raise ValueError(f"leg must be a TwoLinkLeg, got {type(leg).__name__}")
    p = as_array(p, "p", trailing=(2,))
    if p.ndim != 2 or p.shape[0] == 0:
        raise ValueError(f"p must be a trajectory of foot targets, shape (N, 2) with N >= 1, got {p.shape}")
    q0 = as_array(q0, "q0", trailing=(2,))
    if q0.shape != (2,):
        raise ValueError(f"q0 must be one guess [theta1, theta2], shape (2,), got {q0.shape}")
    warm_start = flag(warm_start, "warm_start")
    method = choice(method, "method", ("lm", "hybr"))
    tol = positive(tol, "tol")
    max_nfev = integer(max_nfev, "max_nfev", minimum=1)
    if max_nfev > _MAX_NFEV:
        raise ValueError(f"max_nfev must be at most {_MAX_NFEV}, got {max_nfev}")
    opts = (
        {"xtol": 1e-12, "maxfev": max_nfev} if method == "hybr" else {"xtol": 1e-12, "ftol": 1e-12, "maxiter": max_nfev}
    )

    def fun(q, target):
        return leg._fk(q) - target, leg.jacobian(q)

    n = p.shape[0]
    q = np.empty((n, 2))
    nfev = np.empty(n, dtype=int)
    guess = q0
    for k in range(n):
        sol = root(fun, guess, args=(p[k],), jac=True, method=method, options=opts)
        x = np.asarray(sol.x, dtype=float)
        if not np.all(np.isfinite(x)):  # cannot happen with finite input; never carry a NaN forward
            x = np.asarray(guess, dtype=float)
        q[k] = x
        nfev[k] = int(sol.nfev)
        if warm_start:
            guess = x
    q = wrap(q)
    residual = np.linalg.norm(leg._fk(q) - p, axis=-1)
    close = residual <= tol
    inside = leg._within(q)
    reason = np.where(close, np.where(inside, "converged", "outside joint limits"), "foot error above tol")
    return IKResult(
        q=q, valid=close & inside, residual=residual, branch="seeded", iterations=nfev, reason=reason.astype(str)
    )


def smooth_joint_path(
    leg: TwoLinkLeg,
    q: ArrayLike,
    *,
    p: ArrayLike,
    window: int,
    tol: float,
    polyorder: int = 3,
    raise_on_fail: bool = True,
) -> tuple[np.ndarray, CheckReport]:
    """Savitzky-Golay smoothing of a joint-angle sequence, checked against a foot-error bound.

    Each joint angle, unwrapped along time, is replaced by the value at the centre of a least-squares polynomial
    of degree ``polyorder`` fitted over ``window`` consecutive samples (``scipy.signal.savgol_filter``,
    ``mode="interp"`` at the ends); polynomials of that degree pass unchanged. The smoothed angles are wrapped
    back to ``[-pi, pi)`` and the foot error ``|fk(q_smooth) - p|`` is checked against ``tol`` at every sample.

    Parameters
    ----------
    leg : TwoLinkLeg
    q : array_like, shape (N, ..., 2)
        Joint angles (rad) sampled at a fixed rate, time on axis 0.
    p : array_like, shape (N, ..., 2)
        The foot targets the sequence must still reach (m, hip frame), keyword-only.
    window : int
        Window length in samples: odd, greater than ``polyorder``, at most ``N``.
    tol : float
        Foot-error bound (m).
    polyorder : int
        Polynomial degree, ``0 <= polyorder < window`` (default 3).
    raise_on_fail : bool
        Raise :class:`~robokin.checks.CheckFailed` when the bound is exceeded (default) or just report it.

    Returns
    -------
    q_smooth : ndarray, shape (N, ..., 2)
    report : CheckReport
        The foot-error check (max error, where, bound).

    Examples
    --------
    >>> leg = TwoLinkLeg(0.21, 0.19)
    >>> t = np.linspace(0, 1, 101)
    >>> q = np.stack([0.3 * np.sin(2 * np.pi * t), 1.2 + 0.2 * np.cos(2 * np.pi * t)], axis=-1)
    >>> noisy = q + np.random.default_rng(0).normal(0, 1e-3, q.shape)
    >>> qs, rep = smooth_joint_path(leg, noisy, p=leg.fk(q), window=11, tol=1e-3)
    >>> rep.passed, bool(np.abs(qs - q).max() < np.abs(noisy - q).max())
    (True, True)
    """
    if not isinstance(leg, TwoLinkLeg):
        raise ValueError(f"leg must be a TwoLinkLeg, got {type(leg).__name__}")
    q = as_array(q, "q", trailing=(2,))
    p = as_array(p, "p", trailing=(2,))
    if q.ndim < 2 or p.shape != q.shape:
        raise ValueError(f"q and p must both have shape (N, ..., 2) with time on axis 0; got {q.shape} and {p.shape}")
    n = q.shape[0]
    window = integer(window, "window", minimum=1)
    polyorder = integer(polyorder, "polyorder", minimum=0)
    if window % 2 == 0 or window > n or polyorder >= window:
        raise ValueError(
            f"window must be odd, at most the {n} samples and greater than polyorder={polyorder}, got {window}"
        )
    q_s = wrap(savgol_filter(np.unwrap(q, axis=0), window, polyorder, axis=0, mode="interp"))
    err = np.linalg.norm(leg._fk(q_s) - p, axis=-1)
    rep = check_errors(
        f"foot error after smoothing (Savitzky-Golay, {window} samples, degree {polyorder})",
        err,
        tol=tol,
        unit="m",
        raise_on_fail=raise_on_fail,
    )
    return q_s, rep


def hold_commands(
    q_cmd: ArrayLike, *, dt: float, lateness: ArrayLike, t: ArrayLike, deadline: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Joint command in force at times ``t`` when a fixed-rate loop applies its commands late.

    The loop computes command ``k`` for the nominal tick ``k dt`` and applies it at ``k dt + lateness[k]``;
    a command later than ``deadline`` is dropped (a missed tick) and the previous command stays in force. The
    motors are taken as ideal position servos (each applied command is reached at once), so the joints hold
    the last applied command: a zero-order hold. The joints start at ``q_cmd[0]`` (in force from ``t = 0``,
    whatever its lateness).

    Parameters
    ----------
    q_cmd : array_like, shape (N, ..., 2)
        Commands ``[theta1, theta2]`` (rad) computed for the ticks ``k dt``, ``k = 0 .. N-1``.
    dt : float
        Loop period (s), keyword-only.
    lateness : array_like, shape (R..., N)
        Delay of each tick's command (s, >= 0); leading axes are independent draws.
    t : array_like, shape (M...)
        Times at which to read the joints (s, >= 0).
    deadline : float, optional
        Latest accepted delay (s), in ``(0, dt]``; default ``dt``. Within it the application order is the tick
        order.

    Returns
    -------
    q : ndarray, shape (R..., M..., N-trailing...)
        Command in force at each time (shape of one command after the time axes).
    age : ndarray, shape (R..., M...)
        ``t - k dt`` for the tick ``k`` in force (s): how old the target is. On time it is below ``dt``; a delay
        ``L`` adds up to ``L``, each missed tick adds ``dt``.

    Examples
    --------
    >>> q_cmd = np.array([[0.0, 1.0], [0.1, 1.0], [0.2, 1.0]])
    >>> q, age = hold_commands(q_cmd, dt=0.01, lateness=[0.0, 0.004, 0.02], t=[0.012, 0.015, 0.025])
    >>> q[:, 0], np.round(age, 6)  # tick 1 lands at 0.014 s; tick 2 misses the deadline
    (array([0. , 0.1, 0.1]), array([0.012, 0.005, 0.015]))
    """
    q_cmd = as_array(q_cmd, "q_cmd", trailing=(2,))
    if q_cmd.ndim < 2 or q_cmd.shape[0] == 0:
        raise ValueError(f"q_cmd must have shape (N, ..., 2) with N >= 1 ticks on axis 0, got {q_cmd.shape}")
    n = q_cmd.shape[0]
    dt = positive(dt, "dt")
    deadline = dt if deadline is None else positive(deadline, "deadline")
    if deadline > dt:
        raise ValueError(f"deadline must be in (0, dt] = (0, {dt:g}] s, got {deadline:g}")
    try:
        late = as_array(lateness, "lateness", trailing=(n,))
    except ValueError as exc:
        raise ValueError(f"{exc} (one lateness per row of q_cmd)") from None
    if late.size == 0:
        raise ValueError(f"lateness must have shape (R..., {n}) with at least one row, got {late.shape}")
    if np.any(late < 0):
        raise ValueError("lateness must be >= 0 s (a command cannot be applied before its tick)")
    t = as_array(t, "t")
    if np.any(t < 0):
        raise ValueError("t must be >= 0 s (the loop starts at t = 0)")
    ticks = np.arange(n) * dt
    applied = np.where(late <= deadline, ticks + late, np.inf)
    # the command in force is the last applied tick with a_k <= t; a reverse running minimum makes the
    # application times non-decreasing without changing that answer, so searchsorted finds it
    mono = np.minimum.accumulate(applied[..., ::-1], axis=-1)[..., ::-1]
    flat = mono.reshape(-1, n)
    idx = np.stack([np.searchsorted(m, t.ravel(), side="right") - 1 for m in flat])
    idx = np.maximum(idx, 0).reshape(late.shape[:-1] + t.shape)
    return q_cmd[idx], t - idx * dt
