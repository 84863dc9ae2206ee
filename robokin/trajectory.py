"""Joint-space trajectory planning with quintic segments (chapter 7).

The contest pipeline: Cartesian waypoints -> all IK branches -> a continuous
branch sequence -> piecewise-quintic joint trajectory with continuous
position, velocity and acceleration -> segment durations that respect
per-joint velocity, acceleration and jerk limits, as short as possible.

Conventions:

* Time in seconds, joint positions in radians (or metres for prismatic
  joints), SI everywhere.
* A quintic segment is ``q(tau) = sum_i c_i tau**i`` in **local** time
  ``tau = t - t_k`` in ``[0, T_k]``; coefficient arrays have a trailing axis
  of 6, lowest order first.
* Multi-segment arrays: waypoints ``(K+1, n)``, times ``(K+1,)``, coefficients
  ``(K, n, 6)``; ``K`` segments, ``n`` joints.
* Limit kinds are always ordered ``("velocity", "acceleration", "jerk")``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.interpolate import CubicSpline, make_interp_spline
from scipy.optimize import minimize

from ._primitives import point_segment_distance, smooth_step, wrap
from ._validate import MAX_ABS, as_array, choice, finite_scalar, integer, positive
from .checks import CheckReport, check_errors
from .errors import UnreachableError

__all__ = [
    "LIMIT_KINDS",
    "quintic_step",
    "quintic_boundary_matrix",
    "quintic_coeffs",
    "quintic_eval",
    "PiecewiseQuintic",
    "plan_quintic",
    "allocate_times",
    "segment_peaks",
    "LimitReport",
    "check_limits",
    "TimeOptResult",
    "minimum_time",
    "branch_sequence",
    "BranchJumpError",
    "sphere_penalty",
    "scaled_total",
    "integral_square",
    "capsule_sphere_distance",
    "barrier_penalty",
    "cubic_coeffs",
    "plan_cubic",
    "SwitchProfile",
    "trapezoidal",
    "s_curve",
    "weighted_objective",
    "pareto_mask",
    "via_blend",
]

LIMIT_KINDS = ("velocity", "acceleration", "jerk")
_ORDER = np.array([1, 2, 3])  # derivative order of each limit kind

#: Largest relative tolerance :func:`check_limits` accepts: a limit passed with more than 10 % excess is not checked.
MAX_LIMIT_TOL = 0.1
#: Largest number of (sample, joint) values a grid evaluation may materialise (about 40 MB per array).
MAX_GRID_VALUES = 5_000_000
#: Largest SLSQP iteration cap of :func:`minimum_time` (its default is 100).
MAX_ITER = 100_000
#: Default continuity bound of :func:`branch_sequence` in rad: no joint of a densely sampled path turns this far
#: between two samples, while a switch of IK branch moves some joint by about pi.
DEFAULT_MAX_STEP = 1.0
#: Smallest finite limit accepted (rad/s, rad/s^2, rad/s^3): below it a move of one radian lasts over 1e6 s and the
#: time-scaling products overflow.
MIN_LIMIT = 1e-6
#: Shortest move of :func:`quintic_step` (s): its acceleration scales as 1 / T^2.
MIN_MOVE = 1e-9
#: Smallest ratio of the shortest to the longest segment in one allocation of :func:`scaled_total`.
MIN_DURATION_RATIO = 1e-12


def _nonnegative(value, name):
    """A finite real scalar >= 0 (a margin or a radius that may be zero); private (``_validate`` has none)."""
    v = finite_scalar(value, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def _flag(value, name):
    """A Python or numpy bool, never an int or a string that would be truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _real(value, name, *, finite=True):
    """``as_array`` that also refuses bools (True is not 1 s or 1 rad/s), as :func:`weighted_objective` does."""
    a = as_array(value, name, finite=finite)  # refuses ragged, complex, strings first
    if isinstance(value, (bool, np.bool_)) or np.asarray(value).dtype == bool:
        raise ValueError(f"{name} must be a real number or array, not a bool; got {value!r}")
    return a


def _broadcast(**arrays):
    """Broadcast named arrays together; a mismatch names every argument and its shape."""
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"{', '.join(arrays)} must broadcast together; got shapes {shapes}") from None


def _grid_budget(samples, n, name):
    if samples * n > MAX_GRID_VALUES:
        raise ValueError(
            f"{name} asks for {samples} samples x {n} joints = {samples * n:.3g} values, more than "
            f"MAX_GRID_VALUES = {MAX_GRID_VALUES:g} (memory); use fewer samples or check the segments in parts"
        )


# --------------------------------------------------------------------------- single quintic segment
def quintic_step(
    t: ArrayLike, *, t0: float, t1: float, v0: ArrayLike, v1: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rest-to-rest quintic step from ``v0`` (held for ``t <= t0``) to ``v1`` (held for ``t >= t1``).

    ``v(t) = v0 + (v1 - v0) p(s)`` with ``p(s) = 10 s^3 - 15 s^4 + 6 s^5`` and ``s = (t - t0) / (t1 - t0)`` clipped
    to [0, 1]: zero rate and acceleration at both ends. The one public smooth step of the package (joint moves,
    leg-length profiles, speed ramps).

    Parameters
    ----------
    t : array_like, shape (...)
        Times (s).
    t0, t1 : float
        Start and end of the move (s), ``t1 > t0``.
    v0, v1 : float or array_like, shape (n,)
        Start and end values (any unit; rad for joints, m for lengths).

    Returns
    -------
    v, vd, vdd : ndarray, shape (...) for scalar values, (..., n) for vectors
        Value, rate (per s) and acceleration (per s^2).

    Examples
    --------
    >>> v, vd, vdd = quintic_step([0.0, 1.0, 2.0, 3.0], t0=0.0, t1=2.0, v0=[0.0], v1=[1.0])
    >>> v[:, 0].tolist(), vd[:, 0].tolist()
    ([0.0, 0.5, 1.0, 1.0], [0.0, 0.9375, 0.0, 0.0])
    >>> [float(x) for x in quintic_step(0.5, t0=0.0, t1=1.0, v0=0.2, v1=0.4)]
    [0.30000000000000004, 0.375, 0.0]
    """
    t = as_array(t, "t")
    t0, t1 = finite_scalar(t0, "t0"), finite_scalar(t1, "t1")
    if not t1 - t0 >= MIN_MOVE:
        raise ValueError(
            f"need t1 > t0 by at least {MIN_MOVE:g} s (a shorter move overflows), got t0={t0!r}, t1={t1!r}"
        )
    v0, v1 = as_array(v0, "v0"), as_array(v1, "v1")
    if v0.ndim > 1 or v1.ndim > 1:
        raise ValueError(f"v0 and v1 must be scalars or 1-D, got shapes {v0.shape} and {v1.shape}")
    try:
        dv = v1 - v0
    except ValueError:
        raise ValueError(f"v0 and v1 must have the same length, got {v0.shape} and {v1.shape}") from None
    T = t1 - t0
    lead = (...,) + (None,) * dv.ndim
    s = np.clip((t - t0) / T, 0.0, 1.0)[lead]
    inside = ((t > t0) & (t < t1))[lead]
    p, dp, ddp = smooth_step(s)
    return v0 + dv * p, np.where(inside, dv * dp / T, 0.0), np.where(inside, dv * ddp / T**2, 0.0)


def quintic_boundary_matrix(T: ArrayLike) -> np.ndarray:
    """The 6x6 boundary-condition matrix ``M(T)`` with ``M @ c = [q0, v0, a0, qf, vf, af]``.

    Rows are ``q, q', q''`` of ``q(tau) = sum c_i tau**i`` at ``tau = 0`` and at
    ``tau = T`` (chapter 7, eq. ``eq-ch07-boundary``).

    Parameters
    ----------
    T : array_like, shape (...)
        Segment durations in s, strictly positive.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Examples
    --------
    >>> quintic_boundary_matrix(1.0)[3]
    array([1., 1., 1., 1., 1., 1.])
    """
    T = _durations(T, "T")
    P = T[..., None] ** np.arange(6)  # 1, T, ..., T^5
    Z = np.zeros_like(P)
    rows = [np.eye(6)[0] + Z, np.eye(6)[1] + Z, 2 * np.eye(6)[2] + Z]  # tau = 0
    for k in range(3):  # k-th derivative of tau^i at tau = T: i!/(i-k)! T^(i-k)
        r = Z.copy()
        r[..., k:] = _deriv_coeffs(np.ones(6), k) * P[..., : 6 - k]
        rows.append(r)
    return np.stack(rows, axis=-2)


def quintic_coeffs(
    q0: ArrayLike,
    qf: ArrayLike,
    T: ArrayLike,
    *,
    v0: ArrayLike = 0.0,
    vf: ArrayLike = 0.0,
    a0: ArrayLike = 0.0,
    af: ArrayLike = 0.0,
    method: Literal["closed", "solve"] = "closed",
) -> np.ndarray:
    """Coefficients of the quintic meeting position, velocity and acceleration at both ends.

    ``q(tau) = c0 + c1 tau + ... + c5 tau^5`` on ``tau in [0, T]`` with
    ``q(0)=q0, q'(0)=v0, q''(0)=a0, q(T)=qf, q'(T)=vf, q''(T)=af``. The closed
    form (eq. ``eq-ch07-closed``) is the sympy solution of the 6x6 boundary
    system; ``method="solve"`` solves that system numerically instead.

    Parameters
    ----------
    q0, qf : array_like
        Start and end positions (rad or m). All six boundary values and ``T``
        broadcast together (e.g. shape ``(K, n)`` for K segments of n joints).
    T : array_like
        Durations in s, strictly positive.
    v0, vf, a0, af : array_like, optional
        Boundary velocities (unit/s) and accelerations (unit/s^2); 0 by default.
    method : {"closed", "solve"}
        Closed form, or ``numpy.linalg.solve`` on :func:`quintic_boundary_matrix`.

    Returns
    -------
    ndarray, shape (broadcast shape, 6)
        Lowest order first.

    Raises
    ------
    ValueError
        Non-finite input, ``T <= 0``, shapes that do not broadcast, unknown method, or a ``T`` so short
        that the coefficients overflow (they scale like ``1/T^5``; e.g. ``T = 1e-300``).

    Examples
    --------
    >>> c = quintic_coeffs(0.0, 1.0, 1.0)
    >>> (c.round(12) + 0.0).tolist()
    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0]
    >>> quintic_coeffs([0.0, 1.0], 2.0, [1.0, 2.0]).shape
    (2, 6)
    """
    choice(method, "method", ("closed", "solve"))
    q0 = as_array(q0, "q0")
    qf = as_array(qf, "qf")
    T = _durations(T, "T")
    v0, vf, a0, af = (as_array(x, n) for x, n in ((v0, "v0"), (vf, "vf"), (a0, "a0"), (af, "af")))
    try:
        q0, qf, T, v0, vf, a0, af = np.broadcast_arrays(q0, qf, T, v0, vf, a0, af)
    except ValueError as exc:
        raise ValueError(
            "q0, qf, T, v0, vf, a0, af must broadcast together; got shapes "
            f"{[np.shape(x) for x in (q0, qf, T, v0, vf, a0, af)]}"
        ) from exc
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # overflow is reported below, by name
        if method == "solve":
            b = np.stack([q0, v0, a0, qf, vf, af], axis=-1)
            try:
                c = np.linalg.solve(quintic_boundary_matrix(T), b[..., None])[..., 0]
            except np.linalg.LinAlgError:
                c = np.full(b.shape, np.nan)
        else:
            h = qf - q0
            c3 = (20 * h - (8 * vf + 12 * v0) * T - (3 * a0 - af) * T**2) / (2 * T**3)
            c4 = (-30 * h + (14 * vf + 16 * v0) * T + (3 * a0 - 2 * af) * T**2) / (2 * T**4)
            c5 = (12 * h - 6 * (vf + v0) * T + (af - a0) * T**2) / (2 * T**5)
            c = np.stack([q0, v0, a0 / 2, c3, c4, c5], axis=-1)
    if not np.all(np.isfinite(c)):
        bad = np.argwhere(~np.isfinite(c).all(axis=-1))
        k = tuple(int(i) for i in bad[0]) if bad.size else ()
        raise ValueError(
            f"T is too short for these boundary values: the quintic's coefficients overflow (T = {float(T[k])!r} s "
            f"at index {k}; they scale like 1/T^5)"
        )
    return c


def _deriv_coeffs(c, k):
    """Coefficients (lowest first) of the k-th derivative of the polynomial with coefficients c."""
    m = c.shape[-1]
    i = np.arange(k, m)
    fall = np.ones(m - k)
    for j in range(k):
        fall = fall * (i - j)
    return c[..., k:] * fall


def _horner(c, tau):
    out = np.zeros(np.broadcast_shapes(c.shape[:-1], np.shape(tau)))
    for j in range(c.shape[-1] - 1, -1, -1):
        out = out * tau + c[..., j]
    return out


def quintic_eval(coeffs: ArrayLike, tau: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Evaluate a quintic and its first three derivatives at local time ``tau``.

    Parameters
    ----------
    coeffs : array_like, shape (..., 6)
        Lowest order first (from :func:`quintic_coeffs`).
    tau : array_like
        Local times in s; broadcasts against ``coeffs[..., 0]``.

    Returns
    -------
    q, qd, qdd, qddd : ndarray
        Position, velocity, acceleration and jerk, each of the broadcast shape.

    Examples
    --------
    >>> c = quintic_coeffs(0.0, 1.0, 2.0)
    >>> [float(x) for x in quintic_eval(c, 1.0)]  # mid-point of a rest-to-rest move
    [0.5, 0.9375, 0.0, -3.75]
    """
    c = as_array(coeffs, "coeffs", trailing=(6,))
    tau = as_array(tau, "tau")
    try:
        np.broadcast_shapes(c.shape[:-1], tau.shape)
    except ValueError:
        raise ValueError(
            f"tau must broadcast against coeffs[..., 0]; got shapes {tau.shape} and {c.shape[:-1]}"
        ) from None
    return tuple(_horner(_deriv_coeffs(c, k), tau) for k in range(4))


def _durations(T, name):
    T = as_array(T, name)
    if np.any(T <= 0):
        bad = T[T <= 0].ravel()[0]
        raise ValueError(f"{name} must be strictly positive durations in s; got {bad!r}")
    return T


def _times(times):
    t = as_array(times, "times")
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"times must be a 1-D array of at least 2 waypoint times, got shape {t.shape}")
    dt = np.diff(t)
    if np.any(dt <= 0):
        k = int(np.argmax(dt <= 0))
        raise ValueError(f"times must be strictly increasing; times[{k + 1}]={t[k + 1]!r} <= times[{k}]={t[k]!r}")
    return t


# --------------------------------------------------------------------------- piecewise quintic
@dataclass(frozen=True, eq=False)
class PiecewiseQuintic:
    """A joint trajectory made of K quintic segments.

    Attributes
    ----------
    times : ndarray, shape (K+1,)
        Waypoint (breakpoint) times in s, strictly increasing.
    coeffs : ndarray, shape (K, n, 6)
        Per segment and joint, in local time ``tau = t - times[k]``, lowest order first.
    via : str
        How the via-point velocities and accelerations were chosen (for the record).

    Examples
    --------
    >>> tr = plan_quintic([[0.0], [1.0], [0.0]], [0.0, 1.0, 2.0])
    >>> tr.n_segments, tr.n_joints, tr.duration
    (2, 1, 2.0)
    >>> q, qd, qdd, qddd = tr.evaluate([0.0, 1.0, 2.0])
    >>> q[:, 0].round(12) + 0.0
    array([0., 1., 0.])
    """

    times: np.ndarray
    coeffs: np.ndarray
    via: str = field(default="given")

    def __post_init__(self):
        if not isinstance(self.via, str):
            raise ValueError(f"via must be a str (a label), got {type(self.via).__name__}")
        t = _times(self.times)
        c = as_array(self.coeffs, "coeffs", trailing=(None, 6))
        if c.ndim != 3 or c.shape[0] != t.size - 1:
            raise ValueError(f"coeffs must have shape (K, n, 6) with K = len(times) - 1 = {t.size - 1}; got {c.shape}")
        t, c = t.copy(), c.copy()
        t.flags.writeable = False
        c.flags.writeable = False
        object.__setattr__(self, "times", t)
        object.__setattr__(self, "coeffs", c)
        # evaluation matrices, once per trajectory: row d*n + i of D[k] maps the powers (1, tau, ..., tau^5) to
        # the d-th derivative of joint i on segment k (coefficient c_j times j!/(j-d)! moved to power j - d)
        K, n = c.shape[:2]
        D = np.zeros((K, 4, n, 6))
        for d in range(4):
            D[:, d, :, : 6 - d] = _deriv_coeffs(c, d)
        object.__setattr__(self, "_D", D.reshape(K, 4 * n, 6))
        object.__setattr__(self, "_Dt", np.ascontiguousarray(np.swapaxes(D.reshape(K, 4 * n, 6), -1, -2)))
        object.__setattr__(self, "_tlist", t.tolist())

    @property
    def n_segments(self) -> int:
        return int(self.coeffs.shape[0])

    @property
    def n_joints(self) -> int:
        return int(self.coeffs.shape[1])

    @property
    def durations(self) -> np.ndarray:
        """Segment durations, shape (K,), in s."""
        return np.diff(self.times)

    @property
    def duration(self) -> float:
        """Total duration in s."""
        return float(self.times[-1] - self.times[0])

    def evaluate(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Position, velocity, acceleration and jerk at times ``t``.

        Parameters
        ----------
        t : array_like, shape (...)
            Absolute times in s within ``[times[0], times[-1]]``. At a breakpoint the
            segment that *starts* there is used (the last breakpoint uses the last segment).

        Returns
        -------
        q, qd, qdd, qddd : ndarray, each shape (..., n)
        """
        if type(t) is float or type(t) is int:  # one time: bisect and a 24x6 matrix-vector product
            return self._evaluate_one(float(t))
        t = as_array(t, "t")
        span = self.times[-1] - self.times[0]
        lo, hi = self.times[0] - 1e-12 * span, self.times[-1] + 1e-12 * span
        if np.any((t < lo) | (t > hi)):
            raise ValueError(
                f"t must lie in [{self.times[0]:.6g}, {self.times[-1]:.6g}] s; got values from "
                f"{t.min():.6g} to {t.max():.6g}"
            )
        k = np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, self.n_segments - 1)
        return self._eval_grouped(k, t - self.times[k])

    def _evaluate_one(self, t):
        tl = self._tlist
        span = tl[-1] - tl[0]
        if not (tl[0] - 1e-12 * span <= t <= tl[-1] + 1e-12 * span):  # also False for NaN
            return self.evaluate(np.float64(t))  # the checked path raises
        k = min(max(bisect.bisect_right(tl, t) - 1, 0), len(tl) - 2)
        tau = t - tl[k]
        t2 = tau * tau
        out = self._D[k] @ np.array((1.0, tau, t2, t2 * tau, t2 * t2, t2 * t2 * tau))
        n = self.n_joints
        return out[:n], out[n : 2 * n], out[2 * n : 3 * n], out[3 * n :]

    def _eval_segment(self, k, tau):
        """Horner form per sample (used by the limit checks; :meth:`evaluate` groups samples by segment)."""
        c = self.coeffs[k]  # (..., n, 6)
        tau = np.asarray(tau, dtype=float)[..., None]
        return tuple(_horner(_deriv_coeffs(c, j), tau) for j in range(4))

    def _eval_grouped(self, k, tau):
        """All four derivatives at segment indices ``k`` and local times ``tau`` (same shape).

        Samples are grouped by segment (a stable sort unless ``k`` is already non-decreasing, as on a time grid);
        each group is one product of its powers of tau, shape (m, 6), with the segment's (6, 4n) matrix.
        """
        shape = np.shape(tau)
        k, tau = np.ravel(k), np.ravel(np.asarray(tau, dtype=float))
        n, K = self.n_joints, self.n_segments
        P = np.empty((tau.size, 6))
        P[:, 0] = 1.0
        P[:, 1] = tau
        for j in range(2, 6):
            np.multiply(P[:, j - 1], tau, out=P[:, j])
        order = None
        if tau.size > 1 and np.any(k[1:] < k[:-1]):
            order = np.argsort(k, kind="stable")
            k, P = k[order], P[order]
        bounds = np.searchsorted(k, np.arange(K + 1))
        out = np.empty((tau.size, 4 * n))
        for s in range(K):
            a, b = bounds[s], bounds[s + 1]
            if b > a:
                np.matmul(P[a:b], self._Dt[s], out=out[a:b])
        if order is not None:
            res = np.empty_like(out)
            res[order] = out
            out = res
        out = out.reshape(shape + (4, n))
        return tuple(out[..., d, :] for d in range(4))

    def sample(self, *, per_segment: int = 200) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Dense grid with every breakpoint included, and the trajectory on it.

        Parameters
        ----------
        per_segment : int
            Grid intervals per segment, 2 to 1e6; the whole grid (four derivatives of every joint) is
            capped at ``MAX_GRID_VALUES`` values.

        Returns
        -------
        t : ndarray, shape (M,)
        q, qd, qdd, qddd : ndarray, each shape (M, n)

        Raises
        ------
        ValueError
            ``per_segment`` not an integer in range, or a grid above the memory cap.
        """
        per = integer(per_segment, "per_segment", minimum=2)
        if per > 10**6:  # the grid is materialised: refuse sizes that would exhaust memory
            raise ValueError(f"per_segment must be at most 1e6 samples per segment, got {per}")
        _grid_budget(self.n_segments * per + 1, 4 * self.n_joints, "per_segment")
        s = np.linspace(0.0, 1.0, per + 1)[:-1]
        t = (self.times[:-1, None] + self.durations[:, None] * s).ravel()
        t = np.append(t, self.times[-1])
        return (t, *self.evaluate(t))

    def join_jumps(self) -> np.ndarray:
        """Jumps at the interior breakpoints: right limit minus left limit.

        Returns
        -------
        ndarray, shape (K-1, 4, n)
            For derivative orders 0..3 (position, velocity, acceleration, jerk).
            The first three are zero up to round-off by construction; jerk may jump.
        """
        K = self.n_segments
        if K < 2:
            return np.zeros((0, 4, self.n_joints))
        k = np.arange(K - 1)
        left = self._eval_segment(k, self.durations[:-1])
        right = self._eval_segment(k + 1, np.zeros(K - 1))
        return np.stack([r - l for l, r in zip(left, right)], axis=1)


def plan_quintic(
    waypoints: ArrayLike,
    times: ArrayLike,
    *,
    via: Literal["spline", "heuristic", "stop", "bspline"] = "spline",
    v0: ArrayLike = 0.0,
    vf: ArrayLike = 0.0,
    a0: ArrayLike = 0.0,
    af: ArrayLike = 0.0,
) -> PiecewiseQuintic:
    """Piecewise-quintic trajectory through joint waypoints with continuous q, q', q''.

    Each segment is a :func:`quintic_coeffs` quintic; neighbouring segments share the
    velocity and acceleration chosen at their common via point, which makes the
    trajectory C2 whatever that choice is. The choice (``via``):

    * ``"spline"`` (default): velocities and accelerations at the interior via points
      are those of the C2 cubic spline through the waypoints with clamped end
      velocities ``v0, vf`` (``scipy.interpolate.CubicSpline``); the two end segments
      then also meet ``a0, af`` exactly (a cubic spline alone cannot). Interior
      segments coincide with the spline's cubics.
    * ``"heuristic"``: the textbook rule: at a via point the mean of the adjacent
      segment slopes when they have the same sign, else 0; accelerations 0.
    * ``"stop"``: rest (zero velocity and acceleration) at every via point.
    * ``"bspline"``: velocities and accelerations of the degree-5 interpolating B-spline
      (``scipy.interpolate.make_interp_spline(k=5)``, knots at the waypoint times, end
      conditions ``v0, a0`` and ``vf, af``). Its pieces are quintics, so the plan *is* that
      B-spline: C4 (jerk and snap continuous too), only the fifth derivative jumps.

    Parameters
    ----------
    waypoints : array_like, shape (K+1, n)
        Joint positions (rad), one row per waypoint.
    times : array_like, shape (K+1,)
        Strictly increasing waypoint times in s.
    via : {"spline", "heuristic", "stop", "bspline"}
    v0, vf, a0, af : array_like, shape () or (n,)
        Boundary velocities and accelerations at the first and last waypoint.

    Returns
    -------
    PiecewiseQuintic

    Raises
    ------
    ValueError
        Wrong shapes, non-finite input, times not strictly increasing, unknown ``via``.

    Examples
    --------
    >>> tr = plan_quintic([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]], [0.0, 1.0, 3.0])
    >>> float(np.abs(tr.join_jumps()[:, :3]).max()) < 1e-12
    True
    >>> bs = plan_quintic([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]], [0.0, 1.0, 3.0], via="bspline")
    >>> float(np.abs(bs.join_jumps()).max()) < 1e-9  # jerk continuous too
    True
    """
    choice(via, "via", ("spline", "heuristic", "stop", "bspline"))
    wp = _waypoints(waypoints)
    t = _times(times)
    if t.size != wp.shape[0]:
        raise ValueError(f"times has {t.size} entries but there are {wp.shape[0]} waypoints")
    n = wp.shape[1]
    ends = []
    for x, name in ((v0, "v0"), (vf, "vf"), (a0, "a0"), (af, "af")):
        a = as_array(x, name)
        if a.shape not in ((), (n,)):
            raise ValueError(f"{name} must be a scalar or have shape ({n},), got {a.shape}")
        ends.append(np.broadcast_to(a, (n,)))
    v0, vf, a0, af = ends
    dt = np.diff(t)
    if via in ("spline", "bspline"):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # reported below, by name
            try:
                if via == "spline":
                    sp = CubicSpline(t, wp, bc_type=((1, v0), (1, vf)), axis=0)
                else:
                    sp = make_interp_spline(t, wp, k=5, bc_type=([(1, v0), (2, a0)], [(1, vf), (2, af)]), axis=0)
                V, A = sp(t, 1), sp(t, 2)
            except ValueError:  # scipy's own check of its overflowed system ("must not contain infs or NaNs")
                V = A = np.full_like(wp, np.nan)
    else:
        V = np.zeros_like(wp)
        A = np.zeros_like(wp)
        if via == "heuristic":
            with np.errstate(over="ignore"):
                m = np.diff(wp, axis=0) / dt[:, None]
            same = np.sign(m[:-1]) * np.sign(m[1:]) > 0
            V[1:-1] = np.where(same, 0.5 * (m[:-1] + m[1:]), 0.0)
    with np.errstate(invalid="ignore"):
        huge = not np.all(np.abs(np.concatenate([V, A])) <= MAX_ABS)  # NaN counts as huge
    if huge:
        raise ValueError(
            f"times are too close: the shortest segment ({dt.min()!r} s) makes the {via!r} via velocities or "
            f"accelerations overflow or exceed {MAX_ABS:g}"
        )
    V[0], V[-1], A[0], A[-1] = v0, vf, a0, af
    c = quintic_coeffs(wp[:-1], wp[1:], dt[:, None], v0=V[:-1], vf=V[1:], a0=A[:-1], af=A[1:])
    return PiecewiseQuintic(t, c, via)


def _waypoints(waypoints):
    wp = as_array(waypoints, "waypoints", trailing=(None,))
    if wp.ndim != 2 or wp.shape[0] < 2:
        raise ValueError(f"waypoints must have shape (K+1, n) with at least 2 rows, got {wp.shape}")
    return wp


# --------------------------------------------------------------------------- time allocation
def allocate_times(
    waypoints: ArrayLike,
    total: float,
    *,
    method: Literal["equal", "distance", "max_joint"] = "equal",
    vmax: ArrayLike | None = None,
) -> np.ndarray:
    """Waypoint times from 0 to ``total`` by a classic allocation rule.

    Segment durations are proportional to

    * ``"equal"``: 1 (the common contest default);
    * ``"distance"``: the Euclidean joint-space distance ``||q_{k+1} - q_k||``;
    * ``"max_joint"``: the largest joint displacement ``max_j |dq_j| / vmax_j``
      (``vmax`` optional; it weights joints by their speed limits).

    Parameters
    ----------
    waypoints : array_like, shape (K+1, n)
    total : float
        Total duration in s.
    method : {"equal", "distance", "max_joint"}
    vmax : array_like, shape () or (n,), optional
        Velocity limits (rad/s) used as weights by ``"max_joint"``.

    Returns
    -------
    ndarray, shape (K+1,)
        Times starting at 0.

    Raises
    ------
    ValueError
        Bad shapes, ``total <= 0``, or (for the proportional rules) two equal
        consecutive waypoints, which would get a zero duration.

    Examples
    --------
    >>> allocate_times([[0.0], [1.0], [4.0]], 4.0, method="distance")
    array([0., 1., 4.])
    """
    choice(method, "method", ("equal", "distance", "max_joint"))
    wp = _waypoints(waypoints)
    total = positive(total, "total")
    scale = np.ones(wp.shape[1]) if vmax is None else _limit_vector(vmax, wp.shape[1], "vmax")  # any method
    if np.all(np.isinf(scale)):
        raise ValueError("vmax = inf on every joint weights no joint: give finite speed limits, or vmax=None")
    dq = np.diff(wp, axis=0)
    if method == "equal":
        w = np.ones(dq.shape[0])
    elif method == "distance":
        w = np.linalg.norm(dq, axis=-1)
    else:
        w = np.abs(dq / scale).max(axis=-1)
    if np.any(w <= 0):
        k = int(np.argmax(w <= 0))
        raise ValueError(
            f"waypoints {k} and {k + 1} coincide, so method={method!r} gives a zero duration; "
            'remove the duplicate or use method="equal"'
        )
    return np.concatenate([[0.0], np.cumsum(w / w.sum() * total)])


# --------------------------------------------------------------------------- limits
def _limit_vector(x, n, name):
    a = as_array(x, name, finite=False)
    if a.shape not in ((), (n,)):
        raise ValueError(f"{name} must be a scalar or have shape ({n},), got {a.shape}")
    if np.any(np.isnan(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be positive (inf = unlimited); got {a}")
    if np.any(a < MIN_LIMIT):
        raise ValueError(f"{name} must be at least MIN_LIMIT = {MIN_LIMIT:g} (or inf = unlimited); got {a}")
    return np.broadcast_to(a, (n,)).astype(float)


def _limits(n, vmax, amax, jmax):
    L = np.stack(
        [
            _limit_vector(vmax, n, "vmax"),
            _limit_vector(amax, n, "amax"),
            _limit_vector(np.inf if jmax is None else jmax, n, "jmax"),
        ]
    )
    if np.all(np.isinf(L)):
        raise ValueError("at least one finite limit is needed (vmax, amax or jmax)")
    return L


def _peak(D):
    """Max of ``|D(s)|`` over s in [0, 1] and the s where it is attained; D (..., m) coefficients in s, lowest first.

    The maximum of a polynomial's magnitude on an interval is at an end or at a root of its derivative; the roots
    are batched companion-matrix eigenvalues.
    """
    m = D.shape[-1]
    cand = [np.zeros(D.shape[:-1]), np.ones(D.shape[:-1])]
    if m >= 3:
        d = _deriv_coeffs(D, 1)
        r = m - 2
        scale = np.abs(d).max(axis=-1) + 1e-300
        lead = d[..., -1]
        lead = np.where(np.abs(lead) <= 1e-13 * scale, 1e-13 * scale, lead)
        C = np.zeros(d.shape[:-1] + (r, r))
        C[..., 0, :] = -(d[..., :-1] / lead[..., None])[..., ::-1]
        if r > 1:
            C[..., np.arange(1, r), np.arange(r - 1)] = 1.0
        # any point of [0, 1] is a valid candidate, so clipping real parts is safe
        roots = np.clip(np.linalg.eigvals(C).real, 0.0, 1.0)
        cand += [roots[..., j] for j in range(r)]
    s = np.stack(cand, axis=-1)
    v = np.abs(_horner(D[..., None, :], s))
    i = v.argmax(axis=-1)[..., None]
    return np.take_along_axis(v, i, -1)[..., 0], np.take_along_axis(s, i, -1)[..., 0]


def _abs_max(p, T):
    """Exact max of |p(tau)| over tau in [0, T]; p coefficients (..., m) lowest first, T (...)."""
    return _peak(p * T[..., None] ** np.arange(p.shape[-1]))[0]


def segment_peaks(traj: PiecewiseQuintic) -> np.ndarray:
    """Exact peaks of ``|q'|``, ``|q''|`` and ``|q'''|`` on every segment and joint.

    The maximum of a polynomial's magnitude on an interval is at an end or at a root
    of its derivative; the roots come from batched companion-matrix eigenvalues,
    so no sampling is involved.

    Parameters
    ----------
    traj : PiecewiseQuintic

    Returns
    -------
    ndarray, shape (3, K, n)
        Peaks for velocity, acceleration and jerk (``LIMIT_KINDS`` order).

    Examples
    --------
    >>> tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    >>> segment_peaks(tr)[:, 0, 0].round(6)  # 15/8, 10/sqrt(3), 60
    array([ 1.875   ,  5.773503, 60.      ])
    """
    if not isinstance(traj, PiecewiseQuintic):
        raise ValueError(f"traj must be a PiecewiseQuintic, got {type(traj).__name__}")
    T = np.broadcast_to(traj.durations[:, None], traj.coeffs.shape[:2])
    return np.stack([_abs_max(_deriv_coeffs(traj.coeffs, k), T) for k in (1, 2, 3)])


@dataclass(frozen=True, eq=False)
class LimitReport:
    """Velocity, acceleration and jerk limits checked on a dense time grid.

    Attributes
    ----------
    peak, limit, ratio : ndarray, shape (3, n)
        Grid peak of ``|q'|, |q''|, |q'''|`` per joint, the limit, and peak / limit.
    t_peak : ndarray, shape (3, n)
        Time (s) of each peak.
    samples : int
        Grid size (every breakpoint included).
    tol : float
        Relative tolerance: feasible when ``ratio <= 1 + tol``.
    """

    peak: np.ndarray
    limit: np.ndarray
    ratio: np.ndarray
    t_peak: np.ndarray
    samples: int
    tol: float

    @property
    def feasible(self) -> bool:
        return bool(np.all(self.ratio <= 1 + self.tol))

    @property
    def worst(self) -> tuple[str, int]:
        """``(kind, joint)`` of the largest ratio (joint index from 0)."""
        i, j = np.unravel_index(int(np.argmax(self.ratio)), self.ratio.shape)
        return LIMIT_KINDS[i], int(j)

    @property
    def active(self) -> str:
        """One line naming the binding limit, e.g. ``"acceleration of joint 3 at t = 1.20 s: 100.0 % of limit"``."""
        kind, j = self.worst
        i = LIMIT_KINDS.index(kind)
        return f"{kind} of joint {j + 1} at t = {self.t_peak[i, j]:.3g} s: {100 * self.ratio[i, j]:.1f} % of limit"

    def check(self, *, name: str = "joint limits on a dense grid", raise_on_fail: bool = True) -> CheckReport:
        """A :class:`~robokin.checks.CheckReport` of the relative excess ``max(ratio - 1, 0)``."""
        if not isinstance(name, str):
            raise ValueError(f"name must be a str, got {type(name).__name__}")
        raise_on_fail = _flag(raise_on_fail, "raise_on_fail")
        return check_errors(name, np.maximum(self.ratio - 1.0, 0.0), tol=self.tol, raise_on_fail=raise_on_fail)


def check_limits(
    traj: PiecewiseQuintic,
    *,
    vmax: ArrayLike,
    amax: ArrayLike,
    jmax: ArrayLike | None = None,
    per_segment: int = 400,
    tol: float = 1e-9,
) -> LimitReport:
    """Check per-joint velocity, acceleration and jerk limits on a dense grid.

    The grid covers segment interiors and both one-sided values at each join; a step of the acceleration at a
    join (a C1 cubic plan, see :func:`plan_cubic`) is an impulse of jerk that no grid sees, so check
    ``traj.join_jumps()[:, 2]`` as well when a jerk limit matters.

    Parameters
    ----------
    traj : PiecewiseQuintic
    vmax, amax, jmax : array_like, shape () or (n,)
        Limits in rad/s, rad/s^2, rad/s^3; ``inf`` or (``jmax``) ``None`` means unlimited.
    per_segment : int
        Grid intervals per segment, at least 2; each segment's grid includes both of its ends, so
        both one-sided values at a join are checked. The grid (segments x (per_segment + 1) x joints)
        is capped at ``MAX_GRID_VALUES`` values.
    tol : float
        Relative tolerance on the ratio peak / limit, in ``[0, MAX_LIMIT_TOL]`` (0.1): a larger one would
        call a move far above its limits feasible, so it is refused.

    Returns
    -------
    LimitReport

    Raises
    ------
    ValueError
        Bad limits; ``per_segment`` not an integer >= 2 or a grid above the memory cap; ``tol``
        not a finite number in ``[0, MAX_LIMIT_TOL]``.

    Examples
    --------
    >>> tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    >>> rep = check_limits(tr, vmax=2.0, amax=5.0, jmax=100.0)
    >>> rep.feasible, rep.active
    (False, 'acceleration of joint 1 at t = 0.212 s: 115.5 % of limit')
    """
    if not isinstance(traj, PiecewiseQuintic):
        raise ValueError(f"traj must be a PiecewiseQuintic, got {type(traj).__name__}")
    L = _limits(traj.n_joints, vmax, amax, jmax)
    per = integer(per_segment, "per_segment", minimum=2)
    _grid_budget(traj.n_segments * (per + 1), 4 * traj.n_joints, "per_segment")
    tol = _limit_tol(tol)
    # each segment on its own closed grid: both one-sided limits at a join are checked
    # (jerk jumps there, and the left limit belongs to the earlier segment)
    K = traj.n_segments
    tau = traj.durations[:, None] * np.linspace(0.0, 1.0, per + 1)  # (K, per+1)
    k = np.broadcast_to(np.arange(K)[:, None], tau.shape).ravel()
    _, *ders = traj._eval_segment(k, tau.ravel())
    t = (traj.times[:-1, None] + tau).ravel()
    a = np.abs(np.stack(ders))  # (3, M, n)
    idx = a.argmax(axis=1)
    peak = np.take_along_axis(a, idx[:, None, :], axis=1)[:, 0, :]
    return LimitReport(peak=peak, limit=L, ratio=peak / L, t_peak=t[idx], samples=int(t.size), tol=tol)


# --------------------------------------------------------------------------- minimum time
@dataclass(frozen=True, eq=False)
class TimeOptResult:
    """Result of :func:`minimum_time`.

    Attributes
    ----------
    traj : PiecewiseQuintic
        The optimised trajectory.
    total : float
        Its duration in s.
    scaled_total : float
        Duration of the starting allocation uniformly scaled until the first limit is
        reached (the best plan with the initial proportions).
    report : LimitReport
        Dense-grid limit check of ``traj``.
    active : tuple of (str, int, int)
        Constraints within 0.1 % of their limit: (kind, joint, segment), joints and
        segments from 0, from the exact segment peaks.
    success : bool
        The optimiser converged and the dense-grid check passed.
    message : str
        The optimiser's message.
    nit : int
        Optimiser iterations.
    """

    traj: PiecewiseQuintic
    total: float
    scaled_total: float
    report: LimitReport
    active: tuple
    success: bool
    message: str
    nit: int


def _limit_tol(tol):
    t = finite_scalar(tol, "tol")
    if not 0.0 <= t <= MAX_LIMIT_TOL:
        raise ValueError(
            f"tol must lie in [0, {MAX_LIMIT_TOL}] (relative excess over a limit that still counts as feasible); "
            f"got {tol!r}, which would make the verdict meaningless"
        )
    return t


def _ratios(wp, d, L, via):
    tr = plan_quintic(wp, np.concatenate([[0.0], np.cumsum(d)]), via=via)
    r = segment_peaks(tr) / L[:, None, :]  # (3, K, n)
    # r_kind^(1/order) scales like 1/lambda under t -> lambda t for every kind
    return tr, r ** (1.0 / _ORDER)[:, None, None]


def _via_values(wp, h, via):
    """Via-point velocities and accelerations of a rest-to-rest plan and their derivatives with respect to h.

    The lean, unchecked path of :func:`plan_quintic` (``v0 = vf = a0 = af = 0``) inside :func:`minimum_time`.
    wp (K+1, n) waypoints, h (K,) durations. Returns V, A (K+1, n) and dV, dA (K, K+1, n), the derivative with
    respect to ``h[j]`` in row j.
    """
    K, n = h.size, wp.shape[1]
    V, A = np.zeros((K + 1, n)), np.zeros((K + 1, n))
    dV, dA = np.zeros((K, K + 1, n)), np.zeros((K, K + 1, n))
    if via == "stop" or K < 2:  # no interior via point (K = 1: the clamped spline is the single segment)
        return V, A, dV, dA
    delta = np.diff(wp, axis=0) / h[:, None]  # segment slopes
    i = np.arange(1, K)  # interior knots
    hl, hr = h[:-1, None], h[1:, None]  # durations left and right of each interior knot
    if via == "heuristic":
        same = np.sign(delta[:-1]) * np.sign(delta[1:]) > 0
        V[i] = np.where(same, 0.5 * (delta[:-1] + delta[1:]), 0.0)
        dV[i - 1, i] = np.where(same, -0.5 * delta[:-1] / hl, 0.0)  # d delta_k / d h_k = -delta_k / h_k
        dV[i, i] = np.where(same, -0.5 * delta[1:] / hr, 0.0)
        return V, A, dV, dA
    # C2 cubic spline with zero end slopes: h_i S_{i-1} + 2 (h_{i-1} + h_i) S_i + h_{i-1} S_{i+1}
    # = 3 (h_i delta_{i-1} + h_{i-1} delta_i) at interior knots (the system scipy's CubicSpline solves)
    B = np.eye(K + 1)
    B[i, i - 1], B[i, i], B[i, i + 1] = h[1:], 2.0 * (h[:-1] + h[1:]), h[:-1]
    r = np.zeros((K + 1, n))
    r[i] = 3.0 * (hr * delta[:-1] + hl * delta[1:])
    Binv = np.linalg.inv(B)
    V = Binv @ r
    # differentiate B V = r with respect to h_j: B dV = dr - dB V (only the rows of knots next to segment j)
    rhs = np.zeros((K, K + 1, n))
    rhs[i, i] = 3.0 * (delta[:-1] - hl * delta[1:] / hr) - (V[:-2] + 2.0 * V[1:-1])  # j = i (right segment)
    rhs[i - 1, i] = 3.0 * (delta[1:] - hr * delta[:-1] / hl) - (2.0 * V[1:-1] + V[2:])  # j = i - 1 (left)
    dV = Binv @ rhs
    # knot acceleration from the right segment's cubic: (6 delta_i - 4 V_i - 2 V_{i+1}) / h_i
    A[i] = (6.0 * delta[1:] - 4.0 * V[1:-1] - 2.0 * V[2:]) / hr
    dA[:, i] = (-4.0 * dV[:, 1:-1] - 2.0 * dV[:, 2:]) / hr
    dA[i, i] -= (6.0 * delta[1:] / hr + A[i]) / hr
    return V, A, dV, dA


# Normalised quintic on s = tau / T in [0, 1]: coefficients _QN @ b with b = [q0, T v0, T^2 a0, qf, T vf, T^2 af]
_QN = quintic_coeffs(*np.eye(6)[[0, 3]], 1.0, v0=np.eye(6)[1], vf=np.eye(6)[4], a0=np.eye(6)[2], af=np.eye(6)[5]).T


class _TimeConstraints:
    """``1 - ratio^(1/p)`` of :func:`minimum_time` and its exact Jacobian in the scaled durations ``x``.

    Each peak is ``|f(s*)|`` at its maximiser s* in normalised time; by Danskin's theorem its derivative is that of
    ``f(s*)`` with s* held fixed (s* is an end of [0, 1] or a critical point), through the segment's duration and
    the via values the rule ``via`` makes of all durations (:func:`_via_values`). The last point's values are
    kept for the Jacobian, which SLSQP asks for at the point it has just evaluated.
    """

    def __init__(self, wp, L, via, d0):
        self.wp, self.L, self.via, self.d0 = wp, L, via, d0
        self._x = None

    def _eval(self, x):
        if self._x is not None and np.array_equal(x, self._x):
            return
        wp, h = self.wp, x * self.d0
        V, A, dV, dA = _via_values(wp, h, self.via)
        T = h[:, None]
        b = np.stack([wp[:-1], T * V[:-1], T * T * A[:-1], wp[1:], T * V[1:], T * T * A[1:]], axis=-1)  # (K, n, 6)
        C = b @ _QN.T
        g, parts = [], []
        for p in (1, 2, 3):
            peak, s_star = _peak(_deriv_coeffs(C, p))
            r = peak / T**p / self.L[p - 1]
            g.append(r ** (1.0 / p))
            parts.append((p, r, s_star))
        self._x, self._g = x.copy(), 1.0 - np.stack(g).ravel()
        self._jac_data = (h, V, A, dV, dA, C, parts)
        self._jac = None

    def fun(self, x):
        self._eval(x)
        return self._g

    def jac(self, x):
        self._eval(x)
        if self._jac is None:
            self._jac = self._jacobian(*self._jac_data)
        return self._jac

    def _jacobian(self, h, V, A, dV, dA, C, parts):
        K, n = C.shape[:2]
        T = h[:, None]
        Vl, Vr, Al, Ar = V[:-1], V[1:], A[:-1], A[1:]  # (K, n) at each segment's start and end
        dVl, dVr = dV[:, :-1].transpose(1, 2, 0), dV[:, 1:].transpose(1, 2, 0)  # (K, n, K): d / d h_m
        dAl, dAr = dA[:, :-1].transpose(1, 2, 0), dA[:, 1:].transpose(1, 2, 0)
        rows = []
        for p, r, s_star in parts:
            E = _deriv_coeffs(_QN.T, p).T  # (6 - p, 6): p-th s-derivative of each boundary value's basis
            H = (s_star[..., None] ** np.arange(6 - p)) @ E  # (K, n, 6) at s*
            f = _horner(_deriv_coeffs(C, p), s_star)  # signed d^p q / ds^p at s*
            Tp = T**-p
            dT = Tp * (-p * f / T + H[..., 1] * Vl + 2 * T * Al * H[..., 2] + H[..., 4] * Vr + 2 * T * Ar * H[..., 5])
            dpk = Tp[..., None] * (
                T[..., None] * (H[..., 1, None] * dVl + H[..., 4, None] * dVr)
                + (T * T)[..., None] * (H[..., 2, None] * dAl + H[..., 5, None] * dAr)
            )
            dpk[np.arange(K), :, np.arange(K)] += dT
            dpeak = np.sign(f)[..., None] * dpk  # d |f| / T^p by d h, (K, n, K)
            # d (1 - r^(1/p)) = -(1/p) r^(1/p - 1) d r, r = peak / L; zero where the peak is 0 or the limit infinite
            with np.errstate(divide="ignore", invalid="ignore"):
                w = np.where(r > 0, -(1.0 / p) * r ** (1.0 / p - 1.0) / self.L[p - 1], 0.0)
            rows.append(w[..., None] * dpeak)
        return (np.stack(rows) * self.d0).reshape(3 * K * n, K)


def minimum_time(
    waypoints: ArrayLike,
    *,
    vmax: ArrayLike,
    amax: ArrayLike,
    jmax: ArrayLike | None = None,
    via: Literal["spline", "heuristic", "stop", "free"] = "spline",
    init: Literal["equal", "distance", "max_joint"] = "max_joint",
    max_total: float | None = None,
    maxiter: int = 100,
) -> TimeOptResult:
    """Shortest segment durations of a rest-to-rest piecewise quintic under joint limits.

    Decision variables: the K segment durations, with the via-point velocities and
    accelerations given by the rule ``via`` (as in :func:`plan_quintic`). Problem::

        minimise   sum_k T_k
        subject to peak |q^(p)| / limit_p <= 1  for p = 1, 2, 3, every segment and joint

    solved with ``scipy.optimize.minimize(method="SLSQP")`` from the initial
    allocation scaled until its first limit binds. Each constraint is written as
    ``1 - ratio**(1/p) >= 0``, which is homogeneous of degree -1 in the durations
    (well conditioned). Peaks are exact (:func:`segment_peaks`), and so is the
    constraint Jacobian given to SLSQP: a peak's derivative is that of the polynomial
    at the peak's (fixed) location, through the segment's duration and the via values
    the rule makes of all durations. Afterwards the durations are rescaled so the most loaded constraint sits exactly at its limit,
    and the limits are re-checked on a dense grid (:func:`check_limits`).

    The result is the shortest plan *for that via rule* (a local optimum of SLSQP).
    With ``via="free"`` the interior via velocities and accelerations become decision
    variables too (bounded by ``vmax`` and ``amax``), started from the ``"spline"``
    optimum; this is a larger, slower problem (about 2 (K-1) n more variables) whose
    answer is never longer than the spline optimum and is usually shorter.

    Parameters
    ----------
    waypoints : array_like, shape (K+1, n)
        Joint waypoints (rad).
    vmax, amax, jmax : array_like, shape () or (n,)
        Per-joint limits (rad/s, rad/s^2, rad/s^3); ``jmax=None`` means no jerk limit.
    via : {"spline", "heuristic", "stop", "free"}
        Via-point rule, as in :func:`plan_quintic`, or ``"free"`` (optimised).
    init : {"equal", "distance", "max_joint"}
        Initial allocation (see :func:`allocate_times`).
    max_total : float, optional
        Time budget in s; raise if the limits cannot be met within it.
    maxiter : int
        SLSQP iteration cap, 0 to ``MAX_ITER`` (for ``via="free"``: of the second, larger problem).

    Returns
    -------
    TimeOptResult
        For ``via="free"``, ``scaled_total`` is the duration of the ``"spline"``
        optimum it started from.

    Raises
    ------
    ValueError
        Bad shapes or limits (non-positive, NaN), coinciding waypoints, unknown ``via`` or
        ``init``, ``maxiter`` not an integer in ``[0, MAX_ITER]``, or the limits need more than
        ``max_total``.

    Examples
    --------
    >>> wp = [[0.0, 0.0], [1.0, 0.2], [1.5, 1.0]]
    >>> res = minimum_time(wp, vmax=1.0, amax=2.0, jmax=10.0)
    >>> res.report.feasible, res.total < res.scaled_total
    (True, True)
    >>> free = minimum_time(wp, vmax=1.0, amax=2.0, jmax=10.0, via="free")
    >>> free.report.feasible, free.total <= res.total
    (True, True)
    """
    wp = _waypoints(waypoints)
    L = _limits(wp.shape[1], vmax, amax, jmax)
    choice(via, "via", ("spline", "heuristic", "stop", "free"))
    choice(init, "init", ("equal", "distance", "max_joint"))
    budget = None if max_total is None else positive(max_total, "max_total")
    maxiter = integer(maxiter, "maxiter")
    if maxiter > MAX_ITER:
        raise ValueError(f"maxiter must be at most {MAX_ITER}, got {maxiter}")
    if via == "free":
        start = minimum_time(wp, vmax=vmax, amax=amax, jmax=jmax, via="spline", init=init, maxiter=maxiter)
        return _minimum_time_free(wp, L, start, budget, max_total, maxiter, vmax, amax, jmax)
    weights = L[0] if np.all(np.isfinite(L[0])) else None  # max_joint weights need finite vmax
    d0 = np.diff(allocate_times(wp, 1.0, method=init, vmax=weights))
    _, r = _ratios(wp, d0, L, via)
    d0 = d0 * r.max()  # uniform scaling: first limit exactly active
    scaled_total = float(d0.sum())

    cons = _TimeConstraints(wp, L, via, d0)  # values and exact Jacobian (finite differences cost K+1 plans)
    res = minimize(
        lambda x: x @ d0 / scaled_total,
        np.ones_like(d0),
        jac=lambda x: d0 / scaled_total,
        method="SLSQP",
        bounds=[(1e-3, None)] * d0.size,
        constraints=[{"type": "ineq", "fun": cons.fun, "jac": cons.jac}],
        options={"maxiter": int(maxiter), "ftol": 1e-10},
    )
    d = np.maximum(res.x, 1e-3) * d0
    _, r = _ratios(wp, d, L, via)
    d = d * r.max()  # restore exact feasibility (SLSQP meets constraints only to its tolerance)
    if d.sum() > scaled_total:  # never return worse than the scaled start
        d = d0
    tr, r = _ratios(wp, d, L, via)
    return _time_result(tr, r, scaled_total, budget, max_total, res, vmax, amax, jmax)


def _time_result(tr, r, scaled_total, budget, max_total, res, vmax, amax, jmax):
    total = tr.duration
    if budget is not None and total > budget * (1 + 1e-12):
        raise ValueError(
            f"infeasible limits: the shortest plan needs {total:.4g} s but max_total is {max_total:.4g} s; "
            "raise the limits or the time budget"
        )
    rep = check_limits(tr, vmax=vmax, amax=amax, jmax=jmax, tol=1e-9)
    act = tuple((LIMIT_KINDS[i], int(j), int(k)) for i, k, j in zip(*np.nonzero(r >= 1 - 1e-3)))
    return TimeOptResult(
        traj=tr,
        total=total,
        scaled_total=scaled_total,
        report=rep,
        active=act,
        success=bool(res.success and rep.feasible),
        message=str(res.message),
        nit=int(res.nit),
    )


def _free_plan(wp, d, V, A):
    """Piecewise quintic with durations d (K,), interior via velocities V and accelerations A (K-1, n)."""
    n = wp.shape[1]
    z = np.zeros((1, n))
    V, A = np.vstack([z, V, z]), np.vstack([z, A, z])
    c = quintic_coeffs(wp[:-1], wp[1:], d[:, None], v0=V[:-1], vf=V[1:], a0=A[:-1], af=A[1:])
    return PiecewiseQuintic(np.concatenate([[0.0], np.cumsum(d)]), c, "free")


def _minimum_time_free(wp, L, start, budget, max_total, maxiter, vmax, amax, jmax):
    """Durations and interior via velocities/accelerations together, from the spline optimum."""
    K, n = wp.shape[0] - 1, wp.shape[1]
    m = (K - 1) * n
    tr0 = start.traj
    _, V0, A0, _ = tr0.evaluate(tr0.times)
    d0 = tr0.durations
    # variables are normalised: durations by the start, via values by their limit (or 1 if unlimited)
    sv = np.where(np.isfinite(L[0]), L[0], 1.0)
    sa = np.where(np.isfinite(L[1]), L[1], 1.0)
    bv = (-1.0, 1.0) if np.all(np.isfinite(L[0])) else (None, None)
    ba = (-1.0, 1.0) if np.all(np.isfinite(L[1])) else (None, None)

    def unpack(x):
        return (np.maximum(x[:K], 1e-3) * d0, x[K : K + m].reshape(K - 1, n) * sv, x[K + m :].reshape(K - 1, n) * sa)

    def ratios(x):
        r = segment_peaks(_free_plan(wp, *unpack(x))) / L[:, None, :]
        return r ** (1.0 / _ORDER)[:, None, None]

    x0 = np.concatenate([np.ones(K), (V0[1:-1] / sv).ravel(), (A0[1:-1] / sa).ravel()])
    g = np.concatenate([d0, np.zeros(2 * m)]) / d0.sum()
    res = minimize(
        lambda x: x @ g,
        x0,
        jac=lambda x: g,
        method="SLSQP",
        bounds=[(1e-3, None)] * K + [bv] * m + [ba] * m,
        constraints=[{"type": "ineq", "fun": lambda x: 1.0 - ratios(x).ravel()}],
        options={"maxiter": int(maxiter), "ftol": 1e-10},
    )
    d, V, A = unpack(res.x)
    lam = ratios(res.x).max()
    # uniform time scaling t -> lam t keeps the path: velocities / lam, accelerations / lam^2
    d, V, A = d * lam, V / lam, A / lam**2
    if d.sum() > d0.sum():  # never return worse than the spline optimum
        d, V, A = d0, V0[1:-1], A0[1:-1]
    tr = _free_plan(wp, d, V, A)
    r = segment_peaks(tr) / L[:, None, :]
    return _time_result(tr, r ** (1.0 / _ORDER)[:, None, None], start.total, budget, max_total, res, vmax, amax, jmax)


# --------------------------------------------------------------------------- IK branches -> joint path
class BranchJumpError(ValueError):
    """The joint path chosen by :func:`branch_sequence` steps further than ``max_step``.

    On a densely sampled path such a step is a switch to another IK branch (a
    "teleport"), not motion. The chosen sequence is attached for inspection.

    Attributes
    ----------
    index : int
        The step from sample ``index - 1`` to sample ``index`` is too long (``index = 0``:
        from ``q_start`` to the first sample).
    step : float
        Its largest joint change in rad (angles wrapped).
    max_step : float
        The bound it exceeded (rad).
    q, branch : ndarray
        The full sequence as chosen (``q`` unwrapped if requested).
    """

    def __init__(self, index: int, step: float, max_step: float, q: np.ndarray, branch: np.ndarray) -> None:
        self.index, self.step, self.max_step = int(index), float(step), float(max_step)
        self.q, self.branch = q, branch
        where = "from q_start to sample 0" if index == 0 else f"from sample {index - 1} to sample {index}"
        frm = int(branch[index - 1]) if index else "q_start"
        super().__init__(
            f"joint path jumps {step:.3g} rad {where} (max_step = {max_step:.3g} rad; branch {frm} -> "
            f"{int(branch[index])}). The branch being tracked may cease to exist (out of reach) or pass near "
            "a singularity; sample more densely or re-route; for sparse waypoints, where one step is a whole "
            "segment, pass max_step=None (or a larger bound)"
        )


def branch_sequence(
    q_branches: ArrayLike,
    valid: ArrayLike,
    *,
    q_start: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    method: Literal["dp", "greedy"] = "dp",
    unwrap: bool = True,
    max_step: float | None = DEFAULT_MAX_STEP,
) -> tuple[np.ndarray, np.ndarray]:
    """Pick one IK branch per waypoint so that the joint path is as short as possible.

    Step cost between configurations: ``sum_j w_j wrap(q_j - p_j)^2`` (angles wrapped, so
    2 pi apart counts as equal; the metric of ``robokin.ur5.nearest``). ``method="dp"``
    minimises the summed step costs over the whole sequence by dynamic programming (Viterbi
    over the branches); ``"greedy"`` takes at each waypoint the branch nearest to the
    previous choice (what much contest code does; it can be trapped by an early choice).
    The cost is *squared* on purpose: on a densely sampled path, one jump of size D costs
    D^2, more than the same distance travelled in many small steps, so the optimum avoids
    switching branches while a continuous choice exists. It cannot avoid it when none exists,
    e.g. when the branch being tracked ceases to exist before the end of the path (out of
    reach) or the path crosses a singularity. The continuity check catches that case, and it is
    on by default: a step longer than ``max_step`` (largest joint change between consecutive
    samples, angles wrapped, including the step from ``q_start``) raises :class:`BranchJumpError`.
    Sparse waypoints, where one step is a whole segment, opt out explicitly with ``max_step=None``.

    Parameters
    ----------
    q_branches : array_like, shape (K+1, B, n)
        IK solutions per waypoint, e.g. ``res.q`` of ``robokin.ur5.UR5.ik(T, branch="all",
        on_unreachable="nan")`` (B = 8); invalid rows may be NaN.
    valid : array_like of bool, shape (K+1, B)
        E.g. ``res.valid`` of the same solve.
    q_start : array_like, shape (n,), optional
        Current configuration; the first waypoint's branch is chosen near it.
    weights : array_like, shape (n,), optional
        Joint weights ``w_j`` (e.g. larger for heavy proximal joints); default 1.
    method : {"dp", "greedy"}
    unwrap : bool
        Shift each chosen angle by multiples of 2 pi to within pi of the previous one
        (same pose, continuous joint path).
    max_step : float or None
        Continuity bound in rad, in (0, pi]. The default ``DEFAULT_MAX_STEP`` (1 rad) is far
        above any joint's step on a densely sampled path and well below the change of some joint
        (about pi) in a switch of IK branch; a tighter bound (a few times the motion's expected
        step) catches more. ``None`` turns the check off, for sparse waypoints where one step
        is a whole segment.

    Returns
    -------
    q : ndarray, shape (K+1, n)
    branch : ndarray of int, shape (K+1,)
        Index into the branch axis of ``q_branches`` per waypoint (``res.branch[i]`` names it).

    Raises
    ------
    UnreachableError
        Some waypoint has no valid branch.
    BranchJumpError
        A step exceeds ``max_step`` (the sequence is attached to the error); by default any step
        above 1 rad.
    ValueError
        Bad shapes, non-finite valid branches, negative weights, ``unwrap`` not a bool, ``max_step``
        not None nor a number in (0, pi].

    Examples
    --------
    >>> qb = np.array([[[0.0], [3.0]], [[2.9], [0.2]], [[0.1], [3.1]]])
    >>> q, b = branch_sequence(qb, np.ones((3, 2), bool), q_start=[0.0])
    >>> b
    array([0, 1, 0])
    >>> qb = np.array([[[0.0], [3.0]], [[0.1], [3.1]], [[np.nan], [3.05]]])
    >>> ok = np.array([[True, True], [True, True], [False, True]])  # branch 0 ends
    >>> q, b = branch_sequence(qb, ok, q_start=[0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    robokin.trajectory.BranchJumpError: joint path jumps 2.95 rad from sample 1 to sample 2 (max_step = 1 rad; branch 0 -> 1)...
    >>> branch_sequence(qb, ok, q_start=[0.0], max_step=None)[1]  # explicit opt-out: sparse waypoints
    array([0, 0, 1])
    """
    choice(method, "method", ("dp", "greedy"))
    try:
        v = np.asarray(valid)
    except (TypeError, ValueError):  # ragged
        raise ValueError(f"valid must be a boolean array of shape (K+1, B), got {type(valid).__name__}") from None
    if v.dtype != bool:
        raise ValueError(f"valid must be a boolean array, got dtype {v.dtype}")
    qb = as_array(q_branches, "q_branches", trailing=(None, None), finite=False)
    if qb.ndim != 3 or v.shape != qb.shape[:2]:
        raise ValueError(f"q_branches must be (K+1, B, n) and valid (K+1, B); got {qb.shape} and {v.shape}")
    if np.any(~np.isfinite(qb[v])):
        raise ValueError("q_branches has non-finite values in branches marked valid")
    n = qb.shape[2]
    w = np.ones(n) if weights is None else as_array(weights, "weights", trailing=(n,))
    if w.ndim != 1 or np.any(w < 0):
        raise ValueError(f"weights must be a non-negative vector of shape ({n},)")
    none = ~v.any(axis=1)
    if np.any(none):
        k = int(np.argmax(none))
        raise UnreachableError(int(none.sum()), [k], total=v.shape[0], reason=f"no valid IK branch at waypoint {k}")
    qs = None if q_start is None else as_array(q_start, "q_start")
    if qs is not None and qs.shape != (n,):
        raise ValueError(f"q_start must have shape ({n},) to match q_branches (K+1, B, {n}), got {qs.shape}")
    unwrap = _flag(unwrap, "unwrap")
    if max_step is not None:
        max_step = positive(max_step, "max_step")
        if max_step > np.pi:  # wrapped steps never exceed pi: a larger bound could never fire
            raise ValueError(
                f"max_step must be at most pi (wrapped joint steps never exceed it), got {max_step!r}; "
                "pass max_step=None to turn the continuity check off"
            )
    q = np.where(v[..., None], qb, 0.0)

    def dist(a, b):  # squared weighted step, a (..., n), b (..., n)
        return (w * wrap(b - a) ** 2).sum(axis=-1)

    big = np.inf
    c0 = np.zeros(v.shape[1]) if qs is None else dist(qs, q[0])
    cost = np.where(v[0], c0, big)
    K1 = v.shape[0]
    if method == "greedy":
        idx = [int(np.argmin(cost))]
        for k in range(1, K1):
            idx.append(int(np.argmin(np.where(v[k], dist(q[k - 1, idx[-1]], q[k]), big))))
        idx = np.array(idx)
    else:
        back = np.zeros((K1, v.shape[1]), dtype=int)
        for k in range(1, K1):
            step = cost[:, None] + dist(q[k - 1][:, None, :], q[k][None, :, :])  # (B_prev, B)
            back[k] = np.argmin(step, axis=0)
            cost = np.where(v[k], step[back[k], np.arange(v.shape[1])], big)
        idx = np.zeros(K1, dtype=int)
        idx[-1] = int(np.argmin(cost))
        for k in range(K1 - 1, 0, -1):
            idx[k - 1] = back[k, idx[k]]
    out = q[np.arange(K1), idx].copy()
    if unwrap:
        ref = qs if qs is not None else out[0]
        prev = ref
        for k in range(K1):
            out[k] = prev + wrap(out[k] - prev)
            prev = out[k]
    if max_step is not None:
        path = out if qs is None else np.vstack([qs, out])
        steps = np.abs(wrap(np.diff(path, axis=0))).max(axis=-1)
        bad = np.flatnonzero(steps > max_step)
        if bad.size:
            k = int(bad[0])
            raise BranchJumpError(k if qs is not None else k + 1, steps[k], max_step, out, idx)
    return out, idx


def sphere_penalty(points: ArrayLike, *, centre: ArrayLike, radius: float, margin: float = 0.0) -> float | np.ndarray:
    """Squared penetration of points into a safety sphere: ``max(0, r + margin - |p - c|)^2``.

    Parameters
    ----------
    points : array_like, shape (..., 3)
        Points in the base frame (m), e.g. the end-effector path.
    centre : array_like, shape (3,)
    radius, margin : float
        Sphere radius (> 0) and extra clearance (>= 0) in m, real scalars.

    Returns
    -------
    ndarray, shape (...)
        In m^2; zero outside the inflated sphere, smooth (C1) at its surface.

    Raises
    ------
    ValueError
        Bad shapes, non-finite input, ``radius <= 0``, ``margin`` negative or not a real scalar.

    Examples
    --------
    >>> sphere_penalty([[0.0, 0.0, 0.5], [0.0, 0.0, 2.0]], centre=[0, 0, 0], radius=1.0)
    array([0.25, 0.  ])
    """
    p = as_array(points, "points", trailing=(3,))
    c = as_array(centre, "centre", trailing=(3,))
    if c.ndim != 1:
        raise ValueError(f"centre must have shape (3,), got {c.shape}")
    r = positive(radius, "radius")
    m = _nonnegative(margin, "margin")
    return np.maximum(0.0, r + m - np.linalg.norm(p - c, axis=-1)) ** 2


# --------------------------------------------------------------------------- other allocation objectives
def scaled_total(
    waypoints: ArrayLike,
    durations: ArrayLike,
    *,
    vmax: ArrayLike,
    amax: ArrayLike,
    jmax: ArrayLike | None = None,
    via: Literal["spline", "heuristic", "stop", "bspline"] = "spline",
) -> float | np.ndarray:
    """Shortest total time of an allocation's *proportions* under the limits, eq. ``eq-ch07-scaling``.

    The durations are scaled uniformly, ``d -> lambda* d`` with ``lambda* = max(r_v, r_a^(1/2), r_j^(1/3))``
    from the exact segment peaks (:func:`segment_peaks`), so that the most loaded limit is met exactly. The
    result, ``lambda* sum(d)``, depends only on the proportions of ``d``; its minimum over all proportions
    is the minimum time of :func:`minimum_time` for the same via rule. It is the unconstrained, scale-free
    form of that problem that population-based optimisers (``scipy.optimize.differential_evolution``,
    particle swarms, genetic algorithms) are given: every candidate is feasible after scaling.

    Parameters
    ----------
    waypoints : array_like, shape (K+1, n)
        Joint waypoints (rad).
    durations : array_like, shape (..., K)
        Segment durations (s) or any positive multiple of them; leading axes are a batch
        (``differential_evolution(vectorized=True)`` passes ``(K, S)``: transpose it).
    vmax, amax, jmax : array_like, shape () or (n,)
        Limits (rad/s, rad/s^2, rad/s^3); ``inf`` or (``jmax``) ``None`` means unlimited.
    via : {"spline", "heuristic", "stop", "bspline"}
        Via-point rule, as in :func:`plan_quintic`.

    Returns
    -------
    float or ndarray, shape (...)
        Total duration in s after scaling.

    Raises
    ------
    ValueError
        Bad shapes, empty ``durations``, non-positive durations or limits, unknown ``via``, a batch
        above the memory cap (``MAX_GRID_VALUES``).

    Examples
    --------
    >>> round(float(scaled_total([[0.0], [1.2]], [1.0], vmax=1.0, amax=2.0, jmax=10.0)), 4)  # ex-ch07-1
    2.25
    >>> scaled_total([[0.0], [1.0], [0.0]], [[1.0, 1.0], [2.0, 2.0]], vmax=1.0, amax=10.0).round(4)
    array([3.4788, 3.4788])
    """
    choice(via, "via", ("spline", "heuristic", "stop", "bspline"))
    wp = _waypoints(waypoints)
    L = _limits(wp.shape[1], vmax, amax, jmax)
    d = _durations(durations, "durations")
    K = wp.shape[0] - 1
    if d.ndim < 1 or d.shape[-1] != K:
        raise ValueError(f"durations must have shape (..., {K}) for {K + 1} waypoints, got {d.shape}")
    if d.size == 0:
        raise ValueError(f"durations must hold at least one allocation of {K} segments, got shape {d.shape}")
    _grid_budget(d.size * 6, wp.shape[1], "durations")  # six coefficients per segment and joint
    flat = d.reshape(-1, K)
    if np.any(flat.min(axis=-1) < MIN_DURATION_RATIO * flat.max(axis=-1)):
        raise ValueError(
            f"durations: a segment shorter than {MIN_DURATION_RATIO:g} times the longest of its allocation "
            "overflows the time scaling; merge it with its neighbour"
        )
    if via == "bspline":
        lam = np.array([_ratios(wp, di, L, via)[1].max() for di in flat])
    else:  # the lean path of minimum_time: via values per sample, then all peaks in one batched call
        VA = [_via_values(wp, di, via)[:2] for di in flat]
        V, A = np.stack([v for v, _ in VA]), np.stack([a for _, a in VA])  # (S, K+1, n)
        T = flat[..., None]  # (S, K, 1)
        w0, w1 = np.broadcast_arrays(wp[:-1], wp[1:], V[:, :-1])[:2]
        b = np.stack([w0, T * V[:, :-1], T * T * A[:, :-1], w1, T * V[:, 1:], T * T * A[:, 1:]], axis=-1)
        C = b @ _QN.T  # (S, K, n, 6) in normalised time s = tau / T
        with np.errstate(divide="ignore", invalid="ignore"):
            r = [(_peak(_deriv_coeffs(C, p))[0] / T**p / L[p - 1]) ** (1.0 / p) for p in (1, 2, 3)]
        lam = np.max([x.reshape(len(flat), -1).max(axis=1) for x in r], axis=0)
    out = lam * flat.sum(axis=-1)
    return float(out[0]) if d.ndim == 1 else out.reshape(d.shape[:-1])


def integral_square(traj: PiecewiseQuintic, *, order: int = 2) -> float:
    """Exact effort integral ``int sum_j (d^p q_j / dt^p)^2 dt`` over the whole trajectory.

    ``order=2`` is the energy-like cost ``int |q''|^2 dt`` (rad^2/s^3), ``order=3`` the squared jerk
    (``order=1``: squared velocity). Each segment's derivative is a polynomial; its square is integrated
    exactly (``numpy.polynomial.polynomial``), no sampling.

    Parameters
    ----------
    traj : PiecewiseQuintic
    order : int
        Derivative order p, 0 to 5.

    Returns
    -------
    float
        In rad^2 s^(1 - 2p).

    Examples
    --------
    >>> tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])  # rest-to-rest: int q''^2 = 120/7
    >>> round(integral_square(tr) * 7, 9)
    120.0
    """
    if not isinstance(traj, PiecewiseQuintic):
        raise ValueError(f"traj must be a PiecewiseQuintic, got {type(traj).__name__}")
    p = integer(order, "order")
    if p > 5:
        raise ValueError(f"order must be at most 5 (quintic segments), got {p}")
    D = _deriv_coeffs(traj.coeffs, p)  # (K, n, 6 - p), lowest first
    m = D.shape[-1]
    # coefficients of D^2 by convolution, then int_0^T tau^i = T^(i+1) / (i+1)
    sq = np.zeros(D.shape[:-1] + (2 * m - 1,))
    for i in range(m):
        sq[..., i : i + m] += D[..., i, None] * D
    i = np.arange(2 * m - 1)
    T = traj.durations[:, None, None]
    return float((sq * T ** (i + 1) / (i + 1)).sum())


# --------------------------------------------------------------------------- whole-link obstacle distance
def capsule_sphere_distance(
    a: ArrayLike, b: ArrayLike, *, link_radius: float, centre: ArrayLike, radius: float
) -> np.ndarray:
    """Signed distance between capsules (segments ``a``-``b`` of radius ``link_radius``) and a sphere.

    The closest point of the segment to the centre ``c`` is at ``u* = clip((c - a).(b - a) / |b - a|^2, 0, 1)``
    (the minimiser of the convex quadratic ``|a + u (b - a) - c|^2`` on [0, 1], eq. ``eq-ch07-segdist``;
    ``u* = 0`` for a degenerate segment ``a = b``). The result is ``|a + u* (b - a) - c| - link_radius -
    radius``: positive is clearance, negative is penetration depth.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)
        Segment ends in the base frame (m), e.g. consecutive joint origins of ``fk_all``; they broadcast.
    link_radius : float
        Capsule radius in m, >= 0 (0: the bare segment).
    centre : array_like, shape (3,)
        Sphere centre (m), same frame.
    radius : float
        Sphere radius (m), > 0.

    Returns
    -------
    ndarray, shape (...)
        Signed distance in m.

    Examples
    --------
    >>> capsule_sphere_distance([[-1.0, 0.0, 0.5], [2.0, 0.0, 0.0]], [[1.0, 0.0, 0.5], [3.0, 0.0, 0.0]],
    ...                         link_radius=0.1, centre=[0.0, 0.0, 0.0], radius=0.2).round(12)
    array([0.2, 1.7])
    """
    a = as_array(a, "a", trailing=(3,))
    b = as_array(b, "b", trailing=(3,))
    c = as_array(centre, "centre", trailing=(3,))
    if c.ndim != 1:
        raise ValueError(f"centre must have shape (3,), got {c.shape}")
    rl = _nonnegative(link_radius, "link_radius")
    r = positive(radius, "radius")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"a and b must broadcast, got shapes {a.shape} and {b.shape}") from None
    return point_segment_distance(c, a, b) - rl - r


def barrier_penalty(
    distance: ArrayLike, *, margin: float, width: float, kind: Literal["log", "inverse"] = "log"
) -> np.ndarray:
    """Barrier on a clearance: zero beyond ``margin + width``, infinite at ``margin`` and below.

    With ``s = (distance - margin) / width``:

    * ``kind="log"``: ``-log s + s - 1`` for ``0 < s < 1``;
    * ``kind="inverse"``: ``1/s + s - 2`` for ``0 < s < 1``;

    both 0 with zero slope at ``s = 1`` (C1 there), ``+inf`` for ``s <= 0``. Unlike the squared penetration
    of :func:`sphere_penalty` it forbids the inflated obstacle outright, so an optimiser started outside it
    (finite cost) stays outside at the points it samples; it needs such a feasible start.

    Parameters
    ----------
    distance : array_like, shape (...)
        Clearances in m (e.g. :func:`capsule_sphere_distance`).
    margin : float
        Required clearance in m, >= 0.
    width : float
        Band above the margin where the barrier acts (m), > 0.
    kind : {"log", "inverse"}

    Returns
    -------
    ndarray, shape (...)
        Dimensionless, >= 0.

    Examples
    --------
    >>> barrier_penalty([0.0, 0.02, 0.03, 0.1], margin=0.01, width=0.02).round(4)
    array([   inf, 0.1931, 0.    , 0.    ])
    """
    choice(kind, "kind", ("log", "inverse"))
    d = as_array(distance, "distance")
    m = _nonnegative(margin, "margin")
    s = (d - m) / positive(width, "width")
    inside = (s > 0) & (s < 1)
    si = np.where(inside, s, 1.0)
    f = -np.log(si) + si - 1.0 if kind == "log" else 1.0 / si + si - 2.0
    return np.where(s <= 0, np.inf, np.where(inside, f, 0.0))


# --------------------------------------------------------------------------- cubic segments
def cubic_coeffs(q0: ArrayLike, qf: ArrayLike, T: ArrayLike, *, v0: ArrayLike = 0.0, vf: ArrayLike = 0.0) -> np.ndarray:
    """Cubic segment from ``(q0, v0)`` to ``(qf, vf)`` in time ``T``, coefficients lowest order first.

    With ``h = qf - q0``: ``c0 = q0``, ``c1 = v0``, ``c2 = (3h - (2 v0 + vf) T) / T^2``,
    ``c3 = (-2h + (v0 + vf) T) / T^3``. Four boundary values only: the accelerations at the ends are what they
    come out as (a rest-to-rest cubic starts with ``6h / T^2``, an acceleration step from rest).

    Parameters
    ----------
    q0, qf : array_like
        Start and end positions (rad); broadcast together with ``T``, ``v0``, ``vf``.
    T : array_like
        Durations in s, > 0.
    v0, vf : array_like
        End velocities in rad/s.

    Returns
    -------
    ndarray, shape (..., 4)
        Coefficients in local time ``tau in [0, T]``, lowest order first.

    Raises
    ------
    ValueError
        Non-finite or bool input, ``T <= 0``, shapes that do not broadcast (the message names them), or a ``T`` so
        short that the coefficients overflow.

    Examples
    --------
    >>> cubic_coeffs(0.0, 1.0, 1.0)  # rest to rest: 3 tau^2 - 2 tau^3
    array([ 0.,  0.,  3., -2.])
    """
    q0, qf, T, v0, vf = (_real(x, n) for x, n in ((q0, "q0"), (qf, "qf"), (T, "T"), (v0, "v0"), (vf, "vf")))
    if np.any(T <= 0):
        raise ValueError(f"T must be > 0 (segment durations in s), got {T}")
    q0, qf, T, v0, vf = _broadcast(q0=q0, qf=qf, T=T, v0=v0, vf=vf)
    h = qf - q0
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # overflow is reported below, by name
        c = np.stack([q0, v0, (3 * h - (2 * v0 + vf) * T) / T**2, (-2 * h + (v0 + vf) * T) / T**3], axis=-1)
    if not np.all(np.isfinite(c)):
        k = tuple(int(i) for i in np.argwhere(~np.isfinite(c).all(axis=-1))[0])
        raise ValueError(
            f"T is too short for these boundary values: the cubic's coefficients overflow (T = {float(T[k])!r} s "
            f"at index {k}; they scale like 1/T^3)"
        )
    return c


def plan_cubic(
    waypoints: ArrayLike,
    times: ArrayLike,
    *,
    via: Literal["heuristic", "stop", "spline"] | ArrayLike = "heuristic",
    v0: ArrayLike | None = None,
    vf: ArrayLike | None = None,
) -> PiecewiseQuintic:
    """Piecewise-cubic trajectory through joint waypoints with continuous position and velocity.

    Each segment is a :func:`cubic_coeffs` cubic (stored as a quintic with ``c4 = c5 = 0``, so every tool of
    :class:`PiecewiseQuintic` applies). Neighbours share the via velocity, so the plan is C1; the acceleration
    jumps at a via point unless ``via="spline"``, which takes the velocities of the C2 cubic spline with clamped
    ends ``v0, vf`` (then the plan *is* that spline).

    Parameters
    ----------
    waypoints : array_like, shape (K+1, n)
        Joint positions (rad).
    times : array_like, shape (K+1,)
        Strictly increasing waypoint times (s).
    via : {"heuristic", "stop", "spline"} or array_like, shape (K+1, n)
        Via-point velocities: the textbook rule (mean of the adjacent slopes when they have the same sign, else 0),
        rest, the clamped C2 spline, or given values in rad/s (their first and last rows are the end velocities).
    v0, vf : array_like, shape () or (n,), optional
        End velocities (rad/s) for the named rules; default 0 (rest). Refused with given ``via`` velocities,
        whose first and last rows already are the end velocities.

    Returns
    -------
    PiecewiseQuintic

    Raises
    ------
    ValueError
        Bad waypoints or times, ``v0`` / ``vf`` of a wrong shape or given together with ``via`` velocities, or
        ``times`` so close that a segment's cubic overflows (the message names ``times``).

    Examples
    --------
    >>> tr = plan_cubic([[0.0], [1.0], [3.0]], [0.0, 1.0, 2.0])
    >>> tr.evaluate([1.0])[1].round(12)  # heuristic: the mean of the slopes 1 and 2
    array([[1.5]])
    >>> bool(abs(tr.join_jumps()[0, 2, 0]) > 0)  # C1 only: the acceleration jumps
    True
    """
    wp = _waypoints(waypoints)
    t = _times(times)
    if t.size != wp.shape[0]:
        raise ValueError(f"times must have one entry per waypoint ({wp.shape[0]}), got {t.size}")
    n = wp.shape[1]
    T = np.diff(t)
    if isinstance(via, str):
        mode = choice(via, "via", ("heuristic", "stop", "spline"))
        V = np.zeros_like(wp)
        for row, x, name in ((0, v0, "v0"), (-1, vf, "vf")):
            x = _real(0.0 if x is None else x, name)
            if x.shape not in ((), (n,)):
                raise ValueError(f"{name} must be a scalar or have shape ({n},) (one per joint), got {x.shape}")
            V[row] = x
        if mode == "heuristic":
            m = np.diff(wp, axis=0) / T[:, None]
            same = np.sign(m[:-1]) * np.sign(m[1:]) > 0
            V[1:-1] = np.where(same, 0.5 * (m[:-1] + m[1:]), 0.0)
        elif mode == "spline":
            V = CubicSpline(t, wp, axis=0, bc_type=((1, V[0]), (1, V[-1])))(t, 1)
        label = f"cubic-{mode}"
    else:
        if v0 is not None or vf is not None:
            raise ValueError(
                "v0 and vf are only for the named via rules; with given via velocities the end velocities are "
                "via[0] and via[-1]"
            )
        V = _real(via, "via")
        if V.shape != wp.shape:
            raise ValueError(f"via velocities must have the waypoints' shape {wp.shape}, got {V.shape}")
        label = "cubic-given"
    try:
        c = cubic_coeffs(wp[:-1], wp[1:], T[:, None], v0=V[:-1], vf=V[1:])
    except ValueError as exc:
        if "too short" not in str(exc):
            raise
        k = int(np.argmin(T))
        raise ValueError(
            f"times are too close: segment {k} lasts {float(T[k])!r} s and its cubic's coefficients overflow (1/T^3)"
        ) from None
    return PiecewiseQuintic(t, np.concatenate([c, np.zeros(c.shape[:-1] + (2,))], axis=-1), via=label)


# --------------------------------------------------------------------------- trapezoidal and S-curve profiles
@dataclass(frozen=True)
class SwitchProfile:
    """A rest-to-rest point-to-point profile made of polynomial phases (trapezoidal or S-curve), batched.

    Attributes
    ----------
    breaks : ndarray, shape (..., m+1)
        Switch times in s, from 0 to the duration (phases may have zero length).
    coeffs : ndarray, shape (..., m, 4)
        Position cubic of every phase in local time, lowest order first.
    kind : str
        ``"trapezoidal"`` (m = 3: accelerate, cruise, brake) or ``"s-curve"`` (m = 7 jerk phases).
    peak : ndarray, shape (..., 3)
        Reached peak velocity, acceleration and jerk magnitudes (jerk inf for trapezoidal: the
        acceleration steps).

    Examples
    --------
    >>> p = trapezoidal(0.0, 1.0, vmax=1.0, amax=2.0)
    >>> float(p.duration), p.breaks.round(3).tolist()
    (1.5, [0.0, 0.5, 1.0, 1.5])
    """

    breaks: np.ndarray
    coeffs: np.ndarray
    kind: str
    peak: np.ndarray

    @property
    def duration(self) -> np.ndarray:
        """Duration in s, shape (...)."""
        return self.breaks[..., -1]

    @property
    def switch_times(self) -> np.ndarray:
        """Interior switch times, shape (..., m-1)."""
        return self.breaks[..., 1:-1]

    def evaluate(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Position, velocity, acceleration and jerk at times ``t``; shape ``t.shape + batch shape``.

        Times before 0 hold the start at rest, times after the duration the end at rest. At a switch time the
        phase that starts there is used.
        """
        t = as_array(t, "t")
        bshape = self.breaks.shape[:-1]
        tt = t.reshape(t.shape + (1,) * len(bshape))
        b = self.breaks
        m = b.shape[-1] - 1
        k = np.zeros(np.broadcast_shapes(tt.shape, bshape), dtype=int)
        for i in range(1, m):
            k = k + (tt >= b[..., i])
        start = np.take_along_axis(np.broadcast_to(b[..., :-1], k.shape + (m,)), k[..., None], -1)[..., 0]
        c = np.take_along_axis(np.broadcast_to(self.coeffs, k.shape + (m, 4)), k[..., None, None], -2)[..., 0, :]
        end = np.broadcast_to(b[..., -1], k.shape)
        tau = np.clip(np.minimum(tt, end) - start, 0.0, None)
        out = [_horner(_deriv_coeffs(c, d), tau) for d in range(4)]
        after, before = tt > end, tt < 0
        qf = _horner(self.coeffs[..., -1, :], self.breaks[..., -1] - self.breaks[..., -2])
        out[0] = np.where(after, qf, np.where(before, self.coeffs[..., 0, 0], out[0]))
        for d in (1, 2, 3):
            out[d] = np.where(after | before, 0.0, out[d])
        return tuple(out)

    def join_jumps(self) -> np.ndarray:
        """Jumps (right minus left) of q, q', q'', q''' at the m-1 interior switch times, shape (..., m-1, 4).

        Coincident switch times (zero-length phases between them) are merged: each of them reports the whole jump
        at that time, from the last phase of positive length ending there to the first one starting there (the
        rest before 0 or after the end if there is none). So a triangular trapezoid's acceleration steps by
        ``2 amax`` at its single switch time, reported at both coincident breaks.
        """
        c, d = self.coeffs, np.diff(self.breaks, axis=-1)  # (..., m, 4), (..., m)
        m = d.shape[-1]
        rest0 = np.zeros(c.shape[:-2] + (1, 4))
        rest0[..., 0, 0] = c[..., 0, 0]
        rest1 = np.zeros(c.shape[:-2] + (1, 4))
        rest1[..., 0, 0] = _horner(c[..., -1, :], d[..., -1])
        end = np.stack([_horner(_deriv_coeffs(c, o), d) for o in range(4)], axis=-1)  # value at each phase end
        start = np.stack([_deriv_coeffs(c, o)[..., 0] for o in range(4)], axis=-1)
        E = np.concatenate([rest0, end], axis=-2)  # index 0: rest at q0; p + 1: end of phase p
        S = np.concatenate([start, rest1], axis=-2)  # index p: start of phase p; m: rest at the end
        idx = np.arange(m)
        d = np.where(d > 1e-12 * self.breaks[..., -1:], d, 0.0)  # rounding leaves some empty phases at ~1e-16 s
        li = np.maximum.accumulate(np.where(d > 0, idx + 1, 0), axis=-1)[..., :-1]  # left of break i (1..m-1)
        ri = np.flip(np.minimum.accumulate(np.flip(np.where(d > 0, idx, m), -1), axis=-1), -1)[..., 1:]
        left = np.take_along_axis(E, li[..., None], axis=-2)
        right = np.take_along_axis(S, ri[..., None], axis=-2)
        return right - left


def _profile_limit(x, name, *, allow_inf):
    a = _real(x, name, finite=False)
    if np.any(np.isnan(a)) or np.any(a <= 0):
        raise ValueError(f"{name} must be > 0{' (inf = unlimited)' if allow_inf else ''}; got {a}")
    if not allow_inf and np.any(np.isinf(a)):
        raise ValueError(f"{name} must be finite for this profile; got {a}")
    if np.any(a < MIN_LIMIT):
        raise ValueError(f"{name} must be at least MIN_LIMIT = {MIN_LIMIT:g}; got {a}")
    return a


def _phases(q0, sign, durations, a_start, jerk):
    """Integrate phases of constant jerk from rest at q0: coefficients (..., m, 4) and breaks (..., m+1)."""
    m = durations.shape[-1]
    q, v = q0, np.zeros_like(q0)
    coeffs = []
    for i in range(m):
        d, a, j = durations[..., i], a_start[..., i], jerk[..., i]
        coeffs.append(np.stack([q, sign * v, sign * a / 2, sign * j / 6], axis=-1))
        q = q + sign * (v * d + a * d**2 / 2 + j * d**3 / 6)
        v = v + a * d + j * d**2 / 2
    breaks = np.concatenate([np.zeros(durations.shape[:-1] + (1,)), np.cumsum(durations, axis=-1)], axis=-1)
    return breaks, np.stack(coeffs, axis=-2)


def trapezoidal(
    q0: ArrayLike, qf: ArrayLike, *, vmax: ArrayLike, amax: ArrayLike, T: ArrayLike | None = None
) -> SwitchProfile:
    """Trapezoidal velocity profile (LSPB: linear segment with parabolic blends), rest to rest.

    Accelerate at ``amax`` for ``tb``, cruise at ``v``, brake at ``amax`` for ``tb``. Without ``T`` the move is
    the shortest one: ``v = vmax``, ``tb = vmax / amax``, ``T = |h| / vmax + vmax / amax`` when
    ``|h| >= vmax^2 / amax``, else triangular with ``tb = sqrt(|h| / amax)`` (``h = qf - q0``). With ``T`` (for
    example the slowest joint's time, to synchronise joints) the blend acceleration stays ``amax`` and the cruise
    velocity is the smaller root ``v = (amax T - sqrt(amax^2 T^2 - 4 amax |h|)) / 2``, so ``tb = v / amax``.
    The position and velocity are continuous; the acceleration steps at the switch times (unbounded jerk).

    Parameters
    ----------
    q0, qf : array_like
        Start and end positions (rad); broadcast with the limits and ``T`` (one profile per element).
    vmax : array_like
        Velocity limit (rad/s), > 0; inf allowed (then always triangular).
    amax : array_like
        Acceleration limit (rad/s^2), > 0 and finite.
    T : array_like, optional
        Prescribed duration (s); must be at least the shortest duration under ``vmax`` and ``amax``.

    Returns
    -------
    SwitchProfile
        ``kind="trapezoidal"``, three phases; ``peak`` = (v, amax, inf) (zeros for a zero move, which with ``T``
        given rests for the whole ``T``).

    Raises
    ------
    ValueError
        A limit <= 0, NaN or below ``MIN_LIMIT``; ``amax`` infinite; ``T`` <= 0 or too short for the distance;
        bools; shapes that do not broadcast (the message names q0, qf, vmax, amax, T).

    Examples
    --------
    >>> p = trapezoidal(0.0, [0.5, 2.0], vmax=1.0, amax=2.0)
    >>> p.duration.round(4).tolist()  # triangular, then with a cruise phase
    [1.0, 2.5]
    >>> trapezoidal(0.0, 2.0, vmax=1.0, amax=2.0, T=3.0).peak[0].round(4)  # cruise velocity for T = 3 s
    np.float64(0.7639)
    """
    q0, qf = _real(q0, "q0"), _real(qf, "qf")
    V = _profile_limit(vmax, "vmax", allow_inf=True)
    A = _profile_limit(amax, "amax", allow_inf=False)
    if T is not None:
        T = _real(T, "T")
        q0, qf, V, A, T = _broadcast(q0=q0, qf=qf, vmax=V, amax=A, T=T)
    else:
        q0, qf, V, A = _broadcast(q0=q0, qf=qf, vmax=V, amax=A)
    h = np.abs(qf - q0)
    sign = np.where(qf >= q0, 1.0, -1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cruise = h >= V**2 / A
        t_min = np.where(cruise, h / V + V / A, 2 * np.sqrt(h / A))
        if T is None:
            v = np.where(cruise, V, np.sqrt(h * A))
        else:
            if np.any(T <= 0):
                raise ValueError(f"T must be > 0 (s), got {T}")
            short = T < t_min * (1 - 1e-12)
            if np.any(short):
                i = np.flatnonzero(short.ravel())[0]
                raise ValueError(
                    f"T = {T.ravel()[i]:.6g} s is too short for the distance |qf - q0| = {h.ravel()[i]:.6g} under "
                    f"vmax = {V.ravel()[i]:.6g}, amax = {A.ravel()[i]:.6g}: the shortest is {t_min.ravel()[i]:.6g} s"
                )
            disc = np.clip(A**2 * T**2 - 4 * A * h, 0.0, None)
            v = np.minimum((A * T - np.sqrt(disc)) / 2, V)
        tb = np.where(h > 0, v / A, 0.0)
        tc = np.where(h > 0, np.maximum(h / np.where(v > 0, v, 1.0) - tb, 0.0), 0.0)
        if T is not None:  # a zero move holds still for the whole T, so synchronised joints share one duration
            tc = np.where(h > 0, tc, T)
    z = np.zeros_like(h)
    breaks, coeffs = _phases(
        q0, sign, np.stack([tb, tc, tb], -1), np.stack([A, z, -A], -1) * (h > 0)[..., None], np.zeros(h.shape + (3,))
    )
    peak = np.stack([v, np.where(h > 0, A, 0.0), np.where(h > 0, np.inf, 0.0)], axis=-1)
    return SwitchProfile(breaks, coeffs, "trapezoidal", peak)


def s_curve(q0: ArrayLike, qf: ArrayLike, *, vmax: ArrayLike, amax: ArrayLike, jmax: ArrayLike) -> SwitchProfile:
    """Shortest jerk-limited (7-phase, "S-curve") rest-to-rest profile.

    Jerk ``+j, 0, -j`` raises the acceleration to ``a_p`` and back to 0 (duration ``Ta = 2 Tj + Tac``, velocity
    reached ``v = a_p (Tj + Tac)``), then a cruise of ``Tv``, then the mirror image. The accelerating half covers
    ``v Ta / 2`` (the velocity curve is point-symmetric about its midpoint). Three cases, from long to short
    moves (``h = |qf - q0|``):

    * ``vmax`` reached: ``Tj = amax / jmax``, ``Tac = vmax / amax - Tj`` if ``vmax jmax >= amax^2``, else
      ``Tj = sqrt(vmax / jmax)``, ``Tac = 0``; ``Tv = h / vmax - Ta``, needs ``h >= vmax Ta``;
    * ``amax`` reached, no cruise: ``Tj = amax / jmax``, ``v = amax (sqrt(Tj^2 + 4 h / amax) - Tj) / 2`` (root of
      ``v^2 / amax + v Tj = h``), needs ``h >= 2 amax^3 / jmax^2``;
    * neither: ``Tj = (h / (2 jmax))^(1/3)``, ``Tac = Tv = 0``.

    Position, velocity and acceleration are continuous; the jerk is piecewise constant, ``|q'''| <= jmax``.

    Parameters
    ----------
    q0, qf : array_like
        Start and end positions (rad), broadcast with the limits (one profile per element).
    vmax, amax : array_like
        Velocity (rad/s) and acceleration (rad/s^2) limits, > 0; inf allowed.
    jmax : array_like
        Jerk limit (rad/s^3), > 0 and finite.

    Returns
    -------
    SwitchProfile
        ``kind="s-curve"``, seven phases (some of zero length); ``peak`` = (v, a_p, jmax).

    Raises
    ------
    ValueError
        A limit <= 0, NaN or below ``MIN_LIMIT``; ``jmax`` infinite.

    Examples
    --------
    >>> p = s_curve(0.0, 1.0, vmax=1.0, amax=2.0, jmax=10.0)
    >>> np.diff(p.breaks).round(3).tolist()  # Tj, Tac, Tj, Tv, Tj, Tac, Tj
    [0.2, 0.3, 0.2, 0.3, 0.2, 0.3, 0.2]
    >>> float(p.duration.round(6))
    1.7
    """
    q0, qf = _real(q0, "q0"), _real(qf, "qf")
    V = _profile_limit(vmax, "vmax", allow_inf=True)
    A = _profile_limit(amax, "amax", allow_inf=True)
    J = _profile_limit(jmax, "jmax", allow_inf=False)
    q0, qf, V, A, J = _broadcast(q0=q0, qf=qf, vmax=V, amax=A, jmax=J)
    h = np.abs(qf - q0)
    sign = np.where(qf >= q0, 1.0, -1.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        a_lim = V * J >= A**2  # amax is reached on the way to vmax
        Tj1 = np.where(a_lim, A / J, np.sqrt(V / J))
        Tac1 = np.where(a_lim, V / A - A / J, 0.0)
        case1 = h >= V * (2 * Tj1 + Tac1)  # vmax reached
        case2 = ~case1 & (h >= 2 * A**3 / J**2)  # amax reached, no cruise
        Tj2 = A / J
        v2 = A * (np.sqrt(Tj2**2 + 4 * h / A) - Tj2) / 2
        Tj3 = np.cbrt(h / (2 * J))
        Tj = np.where(case1, Tj1, np.where(case2, Tj2, Tj3))
        Tac = np.where(case1, Tac1, np.where(case2, v2 / A - Tj2, 0.0))
        v = np.where(case1, V, np.where(case2, v2, J * Tj3**2))
        Tv = np.where(case1, h / V - (2 * Tj1 + Tac1), 0.0)
    Tj, Tac, Tv = (np.where(h > 0, np.maximum(x, 0.0), 0.0) for x in (Tj, Tac, Tv))
    v = np.where(h > 0, v, 0.0)
    dur = np.stack([Tj, Tac, Tj, Tv, Tj, Tac, Tj], -1)
    jsign = np.array([1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 1.0])
    jerk = J[..., None] * jsign * (h > 0)[..., None]
    a = np.zeros_like(h)  # acceleration at each phase start: the running integral of the jerk
    a_start = []
    for i in range(7):
        a_start.append(a)
        a = a + jerk[..., i] * dur[..., i]
    breaks, coeffs = _phases(q0, sign, dur, np.stack(a_start, -1), jerk)
    peak = np.stack([v, J * Tj * (h > 0), np.where(h > 0, J, 0.0)], axis=-1)
    return SwitchProfile(breaks, coeffs, "s-curve", peak)


# --------------------------------------------------------------------------- weighted objective, Pareto front
def weighted_objective(traj: PiecewiseQuintic, *, time: float = 1.0, jerk: float = 0.0, effort: float = 0.0) -> float:
    """Weighted cost ``time * T + jerk * int |q'''|^2 dt + effort * int |q''|^2 dt`` of a plan.

    The integrals are exact (:func:`integral_square`, orders 3 and 2); the weights carry the units
    (s^-1 for time, s^5 / rad^2 for jerk, s^3 / rad^2 for effort, so that each term is dimensionless when they
    are the inverses of reference values).

    Parameters
    ----------
    traj : PiecewiseQuintic
    time, jerk, effort : float
        Non-negative weights, not all zero.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``traj`` not a PiecewiseQuintic; a weight negative, non-finite or a bool; all weights zero; ``jerk > 0``
        for a plan whose acceleration steps at a join (a C1 cubic plan: its jerk integral is infinite). The
        integrals cover ``[0, T]`` only: a step from or to rest at the ends is not counted.

    Examples
    --------
    >>> tr = plan_quintic([[0.0], [1.0]], [0.0, 1.0])  # int q''^2 = 120/7, int q'''^2 = 720
    >>> round(weighted_objective(tr, time=1.0, jerk=1 / 720, effort=7 / 120), 9)
    3.0
    """
    if not isinstance(traj, PiecewiseQuintic):
        raise ValueError(f"traj must be a PiecewiseQuintic, got {type(traj).__name__}")
    w = [_nonnegative(x, n) for x, n in ((time, "time"), (jerk, "jerk"), (effort, "effort"))]
    if sum(w) == 0:
        raise ValueError("at least one of the weights time, jerk, effort must be > 0")
    out = w[0] * traj.duration
    if w[1] and traj.n_segments > 1:
        jump = float(np.abs(traj.join_jumps()[:, 2]).max())
        scale = float(np.abs(traj.evaluate(traj.times)[2]).max()) + 1e-300
        if jump > 1e-9 * max(scale, 1.0):  # a C1 (cubic) plan: the jerk has impulses, its square integrates to inf
            raise ValueError(
                f"traj's acceleration steps by {jump:.3g} rad/s^2 at a join, so the integral of the squared jerk is "
                "infinite; use jerk=0 for a C1 (cubic) plan, or a C2 via rule"
            )
    if w[1]:
        out += w[1] * integral_square(traj, order=3)
    if w[2]:
        out += w[2] * integral_square(traj, order=2)
    return float(out)


def pareto_mask(points: ArrayLike) -> np.ndarray:
    """Which points are not dominated (all objectives minimised).

    A point is dominated when another is no worse in every objective and strictly better in one.

    Parameters
    ----------
    points : array_like, shape (N, m)
        N candidates, m objective values each (finite).

    Returns
    -------
    ndarray of bool, shape (N,)

    Raises
    ------
    ValueError
        Non-finite or bool values, or a shape other than (N, m) with N, m >= 1. The comparison runs in chunks of
        at most ``MAX_GRID_VALUES`` (candidate, candidate, objective) values, so memory stays bounded (time is
        O(N^2 m)).

    Examples
    --------
    >>> pareto_mask([[1.0, 3.0], [2.0, 2.0], [2.0, 3.0], [3.0, 1.0]]).tolist()
    [True, True, False, True]
    """
    P = _real(points, "points")
    if P.ndim != 2 or P.shape[0] == 0 or P.shape[1] == 0:
        raise ValueError(f"points must have shape (N, m) with N >= 1 candidates and m >= 1 objectives, got {P.shape}")
    N, m = P.shape
    dominated = np.zeros(N, dtype=bool)
    rows = max(1, MAX_GRID_VALUES // (N * m))  # candidates i compared per pass: two (rows, N, m) arrays at most
    for i0 in range(0, N, rows):
        Pi = P[i0 : i0 + rows, None, :]
        le = (Pi <= P[None, :, :]).all(-1)  # le[i, k]: i no worse than k everywhere
        lt = (Pi < P[None, :, :]).any(-1)
        dominated |= (le & lt).any(axis=0)
    return ~dominated


# --------------------------------------------------------------------------- linear segments with blends (mstraj)
def via_blend(waypoints: ArrayLike, durations: ArrayLike, *, t_acc: float) -> PiecewiseQuintic:
    """Linear segments joined by quintic blends, as Corke's ``mstraj`` plans them (given segment times).

    Segment ``k`` moves at the constant velocity ``v_k = (w_{k+1} - w_k) / T_k``. Around each interior via time
    ``t_k = T_0 + ... + T_{k-1}`` a quintic blend of duration ``t_acc`` (zero acceleration at both ends) turns
    ``v_{k-1}`` into ``v_k``; the start and the end blend last ``t_acc / 2``, from and to rest. The blends do not
    pass through the interior via points: at ``t_k`` the path is :eq:`eq-ch07-blend-miss` away,
    ``3 t_acc (v_k - v_{k-1}) / 32``. The start and end blends cover ``v t_acc / 2`` in ``t_acc / 2`` from or to
    rest, so their speed exceeds the segment's.

    Same plan as ``roboticstoolbox.mstraj(waypoints, dt, t_acc, tsegment=durations)`` (and MATLAB's ``mstraj.m``)
    when ``t_acc`` is an even multiple of ``dt`` and every ``T_k`` a multiple of ``dt`` (mstraj rounds ``t_acc``
    and ``t_acc / 2`` up to its step separately otherwise); mstraj drops each blend's first sample, so its row
    ``k`` is this plan at ``(k + 1) dt``.

    Parameters
    ----------
    waypoints : array_like, shape (M+1, n)
        Start, via points and goal (rad or m).
    durations : array_like, shape (M,)
        Segment times ``T_k`` in s, each longer than ``t_acc`` (room for a linear part).
    t_acc : float
        Blend time in s, > 0.

    Returns
    -------
    PiecewiseQuintic
        ``2 M + 1`` segments (blend, linear, blend, ..., linear, blend) over ``sum(durations)`` s.

    Examples
    --------
    >>> tr = via_blend([[0.0], [1.0], [1.0]], [1.0, 1.0], t_acc=0.4)
    >>> q = tr.evaluate([0.0, 1.0, 2.0])[0][:, 0]
    >>> print(q.round(4) + 0.0)  # at t = 1 s the path is 3 * 0.4 * 1 / 32 short of the via point
    [0.     0.9625 1.    ]
    """
    wp = _waypoints(waypoints)
    T = as_array(durations, "durations")
    if T.shape != (wp.shape[0] - 1,):
        raise ValueError(f"durations must have shape ({wp.shape[0] - 1},): one per segment, got {T.shape}")
    t_acc = positive(t_acc, "t_acc")
    if t_acc < 1e-9 * float(np.max(T, initial=0.0)):
        raise ValueError(
            f"t_acc = {t_acc!r} s is below 1e-9 of the longest segment: blends that short are velocity steps (use "
            "plan_quintic for a path through the via points)"
        )
    if np.any(T <= t_acc):
        k = int(np.argmax(T <= t_acc))
        raise ValueError(
            f"durations[{k}] = {T[k]!r} s must exceed t_acc = {t_acc!r} s: the segment needs a linear part between "
            "its blends"
        )
    h = t_acc / 2
    v = np.diff(wp, axis=0) / T[:, None]  # (M, n) segment velocities
    t_via = np.r_[0.0, np.cumsum(T)]
    zero = np.zeros_like(wp[:1])
    # knots: start, then for each segment (blend end, next blend start), then the goal
    times = np.r_[0.0, np.ravel(np.c_[t_via[:-1] + h, t_via[1:] - h]), t_via[-1]]
    pos = np.r_[wp[:1], np.stack([wp[:-1] + h * v, wp[1:] - h * v], axis=1).reshape(-1, wp.shape[1]), wp[-1:]]
    vel = np.r_[zero, np.repeat(v, 2, axis=0), zero]
    coeffs = quintic_coeffs(pos[:-1], pos[1:], np.diff(times)[:, None], v0=vel[:-1], vf=vel[1:])
    return PiecewiseQuintic(times, coeffs, via="linear segments, quintic blends (mstraj)")
