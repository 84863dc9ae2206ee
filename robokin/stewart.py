"""Stewart (Gough) platform: 6-6 layouts, leg-length IK, Jacobians, Newton FK and dynamics.

Conventions (chapters 9 and 10):

* Base frame: world frame, z up, origin at the centre of the base anchor circle.
* Platform frame: origin at the platform centre (centre of the top anchor circle).
* Pose ``q = [x, y, z, roll, pitch, yaw]``: platform-centre position in the world
  frame (m) and ZYX angles (rad), ``R = Rz(yaw) Ry(pitch) Rx(roll)``
  (:func:`robokin.transforms.rpy_to_matrix`).
* Anchors are ``(3, 6)`` arrays in metres: column ``i`` is leg ``i``. Base anchors
  ``b_i`` are in the world frame; top anchors ``p_i`` in the platform frame,
  relative to the platform centre.
* Leg vector ``s_i = x + R p_i - b_i``, length ``L_i = |s_i|``, unit vector
  ``n_i = s_i / L_i`` pointing from base to platform. A positive leg force pushes
  the platform away from the base.

Everything is vectorised over leading batch axes: poses ``(..., 6)`` map to leg
lengths ``(..., 6)`` and Jacobians ``(..., 6, 6)``.

Protocol (``book/conventions.md``): :meth:`Stewart.ik` always returns an
:class:`~robokin.results.IKResult` (one branch, ``"unique"``: a pose has exactly one set
of leg lengths); :meth:`Stewart.fk` always returns the pose and raises
:class:`~robokin.errors.ConvergenceError` when Newton fails, :meth:`Stewart.fk_solve`
always returns an :class:`FKResult`. The forward problem has many assembly modes, which
are not enumerable by name: the Newton start ``guess`` selects one.
:class:`StewartDynamics` is built once and checks its parameters then.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import cross, hat, rpy_matrix, smoothed_friction, zyx_rate_world
from ._validate import (
    MAX_ABS,
    MAX_COND,
    as_array,
    broadcast,
    callback_output,
    check_inertias,
    choice,
    count,
    finite_scalar,
    on_unreachable_mode,
    positive,
    tolerance,
)
from .errors import ConvergenceError, SingularityError, SingularityWarning, UnreachableError
from .results import IKResult
from .transforms import se3_exp, se3_log, so3_exp, so3_log, transform_inverse

__all__ = [
    "Stewart",
    "FKResult",
    "uniform_layout",
    "paired_layout",
    "PlatformParams",
    "StrutParams",
    "StewartDynamics",
    "leg_friction",
    "corner_path",
]

SINGULAR_COND = 1e8  # condition number above which rate solves warn
UNSOLVABLE_COND = 1e13  # cond(J) above which static_leg_forces refuses: round-off bound cond * eps > 0.2 %
GIMBAL_COS = 1e-6  # |cos(pitch)| below this: S(q), hence M(q), is singular to working precision (cond ~ 1e12)


def _anchors(a, name):
    a = as_array(a, name, trailing=(3, 6))
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape (3, 6) (one column per leg), got shape {a.shape}")
    return a


# ---- private helpers for already-validated arrays ------------------------------------------------------------
def _check_legs(L):
    if np.any(L <= 1e-12):
        raise ValueError(
            "a pose puts a top anchor on its base anchor (zero-length leg): the leg direction, "
            "and so the Jacobian, is undefined there"
        )


def _circle(r, angles):
    return np.stack([r * np.cos(angles), r * np.sin(angles), np.zeros(6)])


def uniform_layout(r_base: float, r_top: float, *, phase: float) -> tuple[np.ndarray, np.ndarray]:
    """Anchors equally spaced by 60 deg on both circles, the top ones rotated by ``phase``.

    Base anchor ``i`` sits at angle ``60 i`` deg on the base circle, top anchor
    ``i`` at ``60 i deg + phase`` on the top circle, and leg ``i`` joins them.
    The top hexagon is then a rotated and scaled copy of the base hexagon with
    matching labels, which makes the platform **architecturally singular**: its
    Jacobian is rank deficient in every pose, whatever ``phase`` (chapter 9).

    Parameters
    ----------
    r_base, r_top : float
        Anchor circle radii (m).
    phase : float
        Rotation of the top anchors relative to the base anchors (rad).

    Returns
    -------
    base, top : ndarray, shape (3, 6)
        Base anchors (world frame) and top anchors (platform frame), metres.

    Examples
    --------
    >>> b, p = uniform_layout(0.5, 0.35, phase=np.pi / 6)
    >>> b.shape, np.round(np.linalg.norm(p, axis=0), 12)
    ((3, 6), array([0.35, 0.35, 0.35, 0.35, 0.35, 0.35]))
    """
    r_base, r_top = positive(r_base, "r_base"), positive(r_top, "r_top")
    phase = finite_scalar(phase, "phase")
    k = np.arange(6) * np.pi / 3
    return _circle(r_base, k), _circle(r_top, k + phase)


def paired_layout(
    r_base: float, r_top: float, *, base_pair_angle: float, top_pair_angle: float
) -> tuple[np.ndarray, np.ndarray]:
    """The classic 6-6 Gough-Stewart layout: anchors in three pairs on each circle.

    Base pairs are centred at 0, 120, 240 deg, the two anchors of a pair
    ``base_pair_angle`` apart; top pairs are centred at 60, 180, 300 deg,
    ``top_pair_angle`` apart. Each leg joins a base anchor to the nearest top
    anchor of the neighbouring pair, so the legs form a zig-zag.

    Parameters
    ----------
    r_base, r_top : float
        Anchor circle radii (m).
    base_pair_angle, top_pair_angle : float
        Angular separation within a pair (rad), each in ``(0, 2 pi / 3)``.

    Returns
    -------
    base, top : ndarray, shape (3, 6)

    Examples
    --------
    >>> b, p = paired_layout(0.5, 0.35, base_pair_angle=np.deg2rad(20), top_pair_angle=np.deg2rad(20))
    >>> np.round(np.rad2deg(np.arctan2(b[1], b[0])), 6)
    array([ -10.,   10.,  110.,  130., -130., -110.])
    """
    r_base, r_top = positive(r_base, "r_base"), positive(r_top, "r_top")
    beta = positive(base_pair_angle, "base_pair_angle")
    gamma = positive(top_pair_angle, "top_pair_angle")
    for v, name in ((beta, "base_pair_angle"), (gamma, "top_pair_angle")):
        if v >= 2 * np.pi / 3:
            raise ValueError(f"{name} must be below 2*pi/3 rad (120 deg) so that pairs do not overlap, got {v!r}")
    i = np.arange(6)
    sign = np.where(i % 2 == 0, 1.0, -1.0)
    base_ang = 2 * np.pi / 3 * (i // 2) - sign * beta / 2
    top_ang = np.pi / 3 * (2 * ((i + 1) // 2) - 1) + sign * gamma / 2
    return _circle(r_base, base_ang), _circle(r_top, top_ang)


@dataclass(frozen=True, eq=False)
class FKResult:
    """Outcome of :meth:`Stewart.fk_solve` (Newton forward kinematics), the same for every sample.

    Attributes
    ----------
    pose : ndarray, shape (..., 6)
        Last Newton iterate ``[x, y, z, roll, pitch, yaw]`` (m, rad); where ``valid`` is False it is not a solution.
    valid : ndarray of bool, shape (...)
        True where Newton converged (``residual <= tol``), the lengths lie within the platform's ``stroke`` and the
        pose is not near a singularity (``cond(Jq) <= SINGULAR_COND``: there, other poses share the same leg
        lengths, so the answer is ambiguous).
    residual : ndarray, shape (...)
        ``max_i |L_i(pose) - L_i|`` (m), the leg-length error of ``pose``.
    iterations : ndarray of int, shape (...)
        Newton steps taken per sample.
    reason : ndarray of str, shape (...), optional
        ``"converged"`` where valid, otherwise why not: ``"no convergence"``, ``"lengths outside stroke [a, b] m"``
        or ``"near-singular (cond(Jq) = c): other poses share these leg lengths"``.

    Examples
    --------
    >>> r = FKResult(np.zeros(6), np.array(True), np.array(0.0), np.array(3))
    >>> bool(r.valid), int(r.iterations)
    (True, 3)
    """

    pose: np.ndarray
    valid: np.ndarray
    residual: np.ndarray
    iterations: np.ndarray
    reason: np.ndarray | None = None


def _is_bool_array(x) -> bool:
    """True for booleans; False for anything else, a ragged list included (as_array then names the argument)."""
    try:
        return np.asarray(x).dtype.kind == "b"
    except (ValueError, TypeError):
        return False


@dataclass(frozen=True, eq=False)
class Stewart:
    """A 6-6 Stewart platform given by its anchors.

    Parameters
    ----------
    base : array_like, shape (3, 6)
        Base anchors ``b_i`` in the world/base frame (m), one column per leg.
    top : array_like, shape (3, 6)
        Top anchors ``p_i`` in the platform frame, relative to the platform centre (m).
    stroke : tuple of float, optional, keyword-only
        ``(l_min, l_max)`` leg length limits (m). Without it every pose with
        non-zero leg lengths is reachable.

    Attributes
    ----------
    branches : tuple of str
        ``("unique",)``: a pose has exactly one set of leg lengths, so the IK has one branch.
    default_branch : str
        ``"unique"``.

    Examples
    --------
    >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
    >>> L = st.ik([0, 0, 0.4, 0, 0, 0]).q
    >>> L.shape, bool(np.allclose(L, L[0]))
    ((6,), True)
    """

    base: np.ndarray
    top: np.ndarray
    stroke: tuple | None = field(default=None, kw_only=True)

    branches: ClassVar[tuple[str, ...]] = ("unique",)
    default_branch: ClassVar[str] = "unique"

    def __post_init__(self):
        b = _anchors(self.base, "base").copy()
        p = _anchors(self.top, "top").copy()
        b.flags.writeable = False
        p.flags.writeable = False
        object.__setattr__(self, "base", b)
        object.__setattr__(self, "top", p)
        if self.stroke is not None:
            s = as_array(self.stroke, "stroke", trailing=(2,))
            if s.ndim != 1 or not (0 <= s[0] < s[1]):
                raise ValueError(f"stroke must be (l_min, l_max) with 0 <= l_min < l_max (m), got {self.stroke!r}")
            object.__setattr__(self, "stroke", (float(s[0]), float(s[1])))

    # ---------------------------------------------------------------- geometry
    def anchors_world(self, pose: ArrayLike) -> np.ndarray:
        """Top anchors in the world frame, ``a_i = x + R p_i``: ``(..., 6) -> (..., 6, 3)``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> st.anchors_world([0, 0, 0.4, 0, 0, 0])[0].round(12)
        array([0.35, 0.  , 0.4 ])
        """
        q = as_array(pose, "pose", trailing=(6,))
        return np.swapaxes(rpy_matrix(q[..., 3:]) @ self.top, -1, -2) + q[..., None, :3]

    def _legs(self, q):
        """``R p_i`` (..., 6, 3), leg vectors ``s_i`` (..., 6, 3) and lengths (..., 6) of checked poses."""
        R = rpy_matrix(q[..., 3:])
        Rp = np.swapaxes(R @ self.top, -1, -2)  # (..., 6, 3): R p_i, world frame, from the centre
        s = Rp + q[..., None, :3] - self.base.T
        L = np.linalg.norm(s, axis=-1)
        return Rp, s, L

    def _jq(self, q):
        """``dL/dq = J S`` (..., 6, 6) of checked poses; raises on a zero-length leg."""
        Rp, s, L = self._legs(q)
        _check_legs(L)
        n = s / L[..., None]
        return np.concatenate([n, cross(Rp, n) @ zyx_rate_world(q[..., 3:])], axis=-1)

    def leg_vectors(self, pose: ArrayLike) -> np.ndarray:
        """Leg vectors ``s_i = x + R p_i - b_i`` (world frame, m): ``(..., 6) -> (..., 6, 3)``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> st.leg_vectors([0, 0, 0.4, 0, 0, 0])[0].round(12)
        array([-0.15,  0.  ,  0.4 ])
        """
        q = as_array(pose, "pose", trailing=(6,))
        return self._legs(q)[1]

    def leg_lengths(self, pose: ArrayLike) -> np.ndarray:
        """Leg lengths ``L_i = |x + R p_i - b_i|`` (m) of any pose, stroke limits ignored: ``(..., 6) -> (..., 6)``.

        The map of equation :eq:`eq-ch09-ik` as a plain array function (its derivative is
        :meth:`jacobian_pose_rates`); :meth:`ik` is the same map with the stroke check and an
        :class:`~robokin.results.IKResult`.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0), stroke=(0.3, 0.6))
        >>> st.leg_lengths([[0, 0, 0.4, 0, 0, 0], [0, 0, 1.0, 0, 0, 0]]).round(4)
        array([[0.4272, 0.4272, 0.4272, 0.4272, 0.4272, 0.4272],
               [1.0112, 1.0112, 1.0112, 1.0112, 1.0112, 1.0112]])
        """
        q = as_array(pose, "pose", trailing=(6,))
        return self._legs(q)[2]

    def ik(
        self,
        pose: ArrayLike,
        *,
        branch: Literal["unique", "all"] = "unique",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Leg lengths of a pose (equation :eq:`eq-ch09-ik`): ``L_i = |x + R p_i - b_i|``.

        Parameters
        ----------
        pose : array_like, shape (..., 6)
            ``[x, y, z, roll, pitch, yaw]`` of the platform centre (m, rad), world frame.
        branch : {"unique", "all"}, keyword-only
            The IK of a Stewart platform has one branch, ``"unique"``; ``"all"`` adds a branch axis of size 1
            (protocol of ``book/conventions.md``).
        on_unreachable : {"raise", "nan"}, keyword-only
            Poses with a leg length outside ``stroke`` (or a zero-length leg): raise
            :class:`~robokin.errors.UnreachableError` (default), or give NaN rows with ``valid`` False.

        Returns
        -------
        IKResult
            ``q``: leg lengths (m), shape (..., 6) (``(..., 1, 6)`` for ``"all"``), NaN where not ``valid``;
            ``valid``: within the stroke, shape (...) (``(..., 1)``); ``residual``: ``max_i |L_i(pose) - q_i|``
            (m) from the leg lengths recomputed at ``pose``, zero for this closed-form map and NaN where ``q`` is
            NaN; ``branch``: ``"unique"`` (``("unique",)`` for ``"all"``).

        Raises
        ------
        robokin.errors.UnreachableError
            With ``on_unreachable="raise"``, when a pose is outside the stroke limits.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0), stroke=(0.3, 0.6))
        >>> st.ik([0, 0, 0.4, 0, 0, 0]).q.round(6)
        array([0.4272, 0.4272, 0.4272, 0.4272, 0.4272, 0.4272])
        >>> res = st.ik([[0, 0, 0.4, 0, 0, 0], [0, 0, 1.0, 0, 0, 0]], on_unreachable="nan")
        >>> res.valid, bool(np.isnan(res.q[1]).all())
        (array([ True, False]), True)
        """
        branch = choice(branch, "branch", self.branches + ("all",))
        mode = on_unreachable_mode(on_unreachable)
        q = as_array(pose, "pose", trailing=(6,))
        L = self._legs(q)[2]
        ok = np.all(L > 1e-12, axis=-1)
        reason = "zero-length leg"
        if self.stroke is not None:
            ok &= np.all((L >= self.stroke[0]) & (L <= self.stroke[1]), axis=-1)
            reason = f"leg length outside stroke [{self.stroke[0]:g}, {self.stroke[1]:g}] m"
        if mode == "raise" and not np.all(ok):
            bad = q[~ok] if q.ndim > 1 else q[None]
            raise UnreachableError(
                int(np.size(ok) - np.count_nonzero(ok)), bad[0], total=int(np.size(ok)), reason=reason
            )
        lengths = np.where(ok[..., None], L, np.nan)
        # closed form: the returned lengths are the leg lengths of the pose, so the recomputed error is 0
        residual = np.where(ok, 0.0, np.nan)
        if branch == "all":
            return IKResult(lengths[..., None, :], ok[..., None], residual[..., None], self.branches)
        return IKResult(lengths, ok, residual, branch)

    def reachable(self, pose: ArrayLike) -> np.bool_ | np.ndarray:
        """True where all six lengths lie within ``stroke``: ``(..., 6) -> (...)`` bool.

        The ``valid`` mask of ``ik(pose, on_unreachable="nan")``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0), stroke=(0.3, 0.6))
        >>> st.reachable([[0, 0, 0.4, 0, 0, 0], [0, 0, 0.7, 0, 0, 0]])
        array([ True, False])
        """
        return self.ik(pose, on_unreachable="nan").valid

    # ---------------------------------------------------------------- Jacobians
    def jacobian(self, pose: ArrayLike) -> np.ndarray:
        """Twist Jacobian: leg rates from ``[v_centre; omega]`` (equation :eq:`eq-ch09-jac`).

        Row ``i`` is ``[n_i^T, ((R p_i) x n_i)^T]`` with ``n_i`` the unit leg
        vector. The twist is the platform-centre velocity ``v`` and the angular
        velocity ``omega``, both in the world frame. ``J^T f`` is the wrench
        (force; moment about the platform centre) of leg forces ``f``.

        Parameters
        ----------
        pose : array_like, shape (..., 6)

        Returns
        -------
        ndarray, shape (..., 6, 6)

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> J = st.jacobian([0, 0, 0.4, 0, 0, 0])
        >>> J.shape, float(np.abs(J[:, 5]).max().round(12))  # vertical legs: no yaw authority
        ((6, 6), 0.0)
        """
        q = as_array(pose, "pose", trailing=(6,))
        Rp, s, L = self._legs(q)
        _check_legs(L)
        n = s / L[..., None]
        return np.concatenate([n, cross(Rp, n)], axis=-1)

    def rate_map(self, pose: ArrayLike) -> np.ndarray:
        """``S(q) = blockdiag(I, E(rpy))`` with ``[v; omega] = S(q) dq/dt``: ``(..., 6, 6)``.

        ``E`` is :func:`robokin.transforms.zyx_rate_matrix` with ``frame="world"``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> np.allclose(st.rate_map([0, 0, 0.4, 0, 0, 0]), np.eye(6))
        True
        """
        q = as_array(pose, "pose", trailing=(6,))
        S = np.zeros(q.shape[:-1] + (6, 6))
        S[..., :3, :3] = np.eye(3)
        S[..., 3:, 3:] = zyx_rate_world(q[..., 3:])
        return S

    def jacobian_pose_rates(self, pose: ArrayLike) -> np.ndarray:
        """``dL/dq``: leg rates from pose rates, ``J(q) @ S(q)`` (equation :eq:`eq-ch09-jq`).

        Equals the finite-difference derivative of :meth:`leg_lengths` with respect to
        ``[x, y, z, roll, pitch, yaw]``.

        Parameters
        ----------
        pose : array_like, shape (..., 6)

        Returns
        -------
        ndarray, shape (..., 6, 6)

        Examples
        --------
        >>> from robokin.checks import check_jacobian
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> check_jacobian(st.jacobian_pose_rates, st.leg_lengths, [0.01, 0.02, 0.4, 0.1, -0.2, 0.3]).passed
        True
        """
        q = as_array(pose, "pose", trailing=(6,))
        return self._jq(q)

    def twist_from_leg_rates(
        self, pose: ArrayLike, leg_rates: ArrayLike, *, damping: float = 0.0, warn_cond: float = SINGULAR_COND
    ) -> np.ndarray:
        """Platform twist ``[v; omega]`` from leg rates (forward velocity problem).

        Solves ``J t = Ldot``; with ``damping = lam > 0`` the damped least-squares
        solution ``t = J^T (J J^T + lam^2 I)^-1 Ldot`` stays bounded near singularities.

        Parameters
        ----------
        pose : array_like, shape (..., 6)
        leg_rates : array_like, shape (..., 6)
            Leg length rates (m/s).
        damping : float, keyword-only
            DLS damping ``lam`` (same units as ``J``, i.e. m for the angular columns).
        warn_cond : float
            Undamped solves emit :class:`~robokin.errors.SingularityWarning` when
            ``cond(J)`` exceeds this.

        Returns
        -------
        ndarray, shape (..., 6)

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> q = np.array([0.0, 0, 0.4, 0, 0, 0]); t = np.array([0.1, 0, 0, 0, 0, 0.2])
        >>> np.allclose(st.twist_from_leg_rates(q, st.jacobian(q) @ t), t)
        True
        """
        q = as_array(pose, "pose", trailing=(6,))
        ld = as_array(leg_rates, "leg_rates", trailing=(6,))
        lam = finite_scalar(damping, "damping")
        if lam < 0:
            raise ValueError(f"damping must be >= 0, got {damping!r}")
        warn_cond = positive(warn_cond, "warn_cond", max_abs=MAX_COND)
        J = self.jacobian(q)
        J, ld = np.broadcast_arrays(J, ld[..., None])
        if lam > 0:
            A = J @ np.swapaxes(J, -1, -2) + lam**2 * np.eye(6)
            return (np.swapaxes(J, -1, -2) @ np.linalg.solve(A, ld))[..., 0]
        c = np.linalg.cond(J)
        if np.any(~np.isfinite(c) | (c > warn_cond)):
            worst = np.max(np.where(np.isfinite(c), c, np.inf))
            warnings.warn(SingularityWarning(worst, "twist_from_leg_rates"), stacklevel=2)
        return (np.linalg.pinv(J) @ ld)[..., 0]

    # ---------------------------------------------------------------- statics and scaling
    def static_leg_forces(self, pose: ArrayLike, wrench: ArrayLike, *, warn_cond: float = SINGULAR_COND) -> np.ndarray:
        """Leg forces that hold a wrench on the platform: solve ``J^T f = w`` (statics).

        By the principle of virtual work the legs' forces ``f`` apply the wrench ``J^T f``
        to the platform (the transpose of the twist Jacobian :meth:`jacobian`). Near a
        parallel (type II) singularity ``J`` loses rank and ``|f|`` grows like
        ``1 / sigma_min(J)`` for every wrench with a component along the weak direction.

        Parameters
        ----------
        pose : array_like, shape (..., 6)
        wrench : array_like, shape (..., 6)
            Wrench the legs must apply to the platform, ``[force (N); moment (N m)]``, world
            frame, the moment about the platform centre. To carry a weight ``m g`` it is
            ``[0, 0, m g, 0, 0, 0]``.
        warn_cond : float, keyword-only
            Emit :class:`~robokin.errors.SingularityWarning` when ``cond(J)`` exceeds this.

        Returns
        -------
        ndarray, shape (..., 6)
            Leg forces (N); positive pushes the platform away from the base.

        Raises
        ------
        SingularityError
            If ``cond(J)`` exceeds ``UNSOLVABLE_COND`` (1e13) at some pose: ``J`` is singular to
            working precision, the round-off error bound ``cond(J) eps`` passes 0.2 %, and no
            finite forces (or none with a correct digit) hold a general wrench.
            The message names the first such index into ``pose``.
        ValueError
            Bad ``pose`` or ``wrench`` (wrong shape, non-finite, bool), or ``warn_cond <= 0``.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> q = np.array([0.0, 0, 0.4, 0, 0, 0]); w = np.array([0, 0, 600.0, 0, 0, 0])
        >>> f = st.static_leg_forces(q, w)
        >>> bool(np.allclose(f, f[0])), bool(np.allclose(st.jacobian(q).T @ f, w))  # symmetric pose, weight
        (True, True)
        """
        q = as_array(pose, "pose", trailing=(6,))
        if _is_bool_array(wrench):
            raise ValueError("wrench must be a real numeric array of forces (N) and moments (N m), got a bool array")
        w = as_array(wrench, "wrench", trailing=(6,))
        warn_cond = positive(warn_cond, "warn_cond", max_abs=MAX_COND)
        J = self.jacobian(q)
        c = np.linalg.cond(J)  # (...,) one per pose: cond(J^T) = cond(J)
        bad = ~np.isfinite(c) | (c > UNSOLVABLE_COND)
        if np.any(bad):
            where = "pose" if q.ndim == 1 else f"pose[{', '.join(str(int(i)) for i in np.argwhere(bad)[0])}]"
            raise SingularityError(
                float(np.max(np.where(np.isfinite(c), c, np.inf))),
                f"static_leg_forces: J^T at {where} ({int(np.count_nonzero(bad))} of {bad.size} pose(s)) is "
                "singular to working precision: no finite leg forces hold a general wrench there",
            )
        if np.any(c > warn_cond):
            warnings.warn(SingularityWarning(float(np.max(c)), "static_leg_forces"), stacklevel=2)
        Jt, w = np.broadcast_arrays(np.swapaxes(J, -1, -2), w[..., None])
        return np.linalg.solve(Jt, w)[..., 0]

    def homogenized_jacobian(self, pose: ArrayLike, length: float) -> np.ndarray:
        """Dimensionless twist Jacobian: the angular columns divided by a characteristic length.

        ``J_h = J diag(1, 1, 1, 1/L, 1/L, 1/L)`` maps the homogenised twist
        ``[v; L omega]`` (both parts in m/s) to leg rates, so every entry is a pure number.
        Its condition number does not depend on the length unit as long as ``L`` is given
        in the unit of the anchors (cond of the plain :meth:`jacobian` does).

        Parameters
        ----------
        pose : array_like, shape (..., 6)
        length : float
            Characteristic length ``L`` (same unit as the anchors), e.g. from
            :meth:`characteristic_length` or the top anchor radius.

        Returns
        -------
        ndarray, shape (..., 6, 6)

        Examples
        --------
        >>> b, p = paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35)
        >>> q, q_mm = np.array([0.01, 0, 0.4, 0.1, 0, 0.2]), np.array([10.0, 0, 400, 0.1, 0, 0.2])
        >>> c_m = np.linalg.cond(Stewart(b, p).homogenized_jacobian(q, 0.35))
        >>> c_mm = np.linalg.cond(Stewart(1e3 * b, 1e3 * p).homogenized_jacobian(q_mm, 350.0))
        >>> bool(np.isclose(c_m, c_mm, rtol=1e-10))
        True
        """
        L = positive(length, "length")
        scale = np.array([1.0, 1.0, 1.0, 1.0 / L, 1.0 / L, 1.0 / L])
        return self.jacobian(pose) * scale

    def characteristic_length(
        self,
        poses: ArrayLike,
        *,
        objective: Literal["max", "mean"] = "max",
        bounds: tuple[float, float] | None = None,
        tol: float = 1e-6,
    ) -> float:
        """The length ``L`` that minimises the condition number of :meth:`homogenized_jacobian`.

        Minimises ``max`` (or ``mean``) of ``cond(J_h(q, L))`` over the sample ``poses``
        by a scan of ``log L`` followed by golden-section refinement of the best bracket.

        Parameters
        ----------
        poses : array_like, shape (n, 6) or (6,)
            Workspace sample (at least one pose).
        objective : {"max", "mean"}, keyword-only
            Worst-case or average condition number over the sample.
        bounds : (float, float), optional, keyword-only
            Search interval for ``L`` (anchor units). Default: 1/100 to 100 times the
            largest anchor radius.
        tol : float, keyword-only
            Relative tolerance on ``L`` (the width of the final bracket in ``log L``), in
            ``[1e-12, 1e-2]``.

        Returns
        -------
        float
            ``L`` in the unit of the anchors.

        Raises
        ------
        SingularityError
            If some pose of ``poses`` is singular (``cond`` of ``J`` with unit-norm columns above
            ``UNSOLVABLE_COND``): its ``cond(J_h)`` is round-off at every ``L`` and would swamp
            the objective. The message names the first such index into ``poses``.
        ValueError
            Bad ``poses``, ``objective``, ``bounds`` or ``tol``.

        Warns
        -----
        RuntimeWarning
            If the minimum lies at an end of ``bounds``: the optimum is outside the interval
            and the returned value is that end.

        Examples
        --------
        >>> b, p = paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35)
        >>> L_m = Stewart(b, p).characteristic_length([0, 0, 0.4, 0, 0, 0])
        >>> L_mm = Stewart(1e3 * b, 1e3 * p).characteristic_length([0, 0, 400.0, 0, 0, 0])
        >>> bool(0.01 < L_m < 10 and np.isclose(L_mm, 1e3 * L_m, rtol=1e-4))
        True
        """
        q = as_array(poses, "poses", trailing=(6,)).reshape(-1, 6)
        if q.shape[0] == 0:
            raise ValueError("poses must hold at least one pose, got an empty array")
        objective = choice(objective, "objective", ("max", "mean"))
        tol = tolerance(tol, "tol", max=1e-2, min=1e-12)
        if bounds is None:
            r = float(max(np.linalg.norm(self.base[:2], axis=0).max(), np.linalg.norm(self.top[:2], axis=0).max()))
            lo, hi = 0.01 * r, 100.0 * r
        else:
            b = as_array(bounds, "bounds", trailing=(2,))
            if b.ndim != 1 or not (0 < b[0] < b[1]):
                raise ValueError(f"bounds must be (L_min, L_max) with 0 < L_min < L_max, got {bounds!r}")
            lo, hi = float(b[0]), float(b[1])
        J = self.jacobian(q)  # (n, 6, 6), computed once
        # singular poses: cond with unit-norm columns is within sqrt(6) of the best column scaling (van der Sluis),
        # so above UNSOLVABLE_COND no L makes J_h regular
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero column (a degenerate leg) is singular: inf
            Ju = J / np.linalg.norm(J, axis=-2, keepdims=True)
        ok = np.isfinite(Ju).all(axis=(-2, -1))  # a leg of zero length has no direction: singular too
        c_unit = np.full(ok.shape, np.inf)
        c_unit[ok] = np.linalg.cond(Ju[ok])
        bad = ~np.isfinite(c_unit) | (c_unit > UNSOLVABLE_COND)
        if np.any(bad):
            i = int(np.argmax(bad))
            raise SingularityError(
                float(c_unit[i]) if np.isfinite(c_unit[i]) else float("inf"),
                f"characteristic_length: J at poses[{i}] ({int(bad.sum())} of {bad.size} pose(s)) is singular at "
                "every L; drop the singular poses from the sample",
            )
        reduce = np.max if objective == "max" else np.mean

        def cost(logL):
            s = np.exp(-logL)
            c = np.linalg.cond(J * np.array([1.0, 1.0, 1.0, s, s, s]))
            return float(reduce(np.where(np.isfinite(c), c, np.inf)))

        grid = np.linspace(np.log(lo), np.log(hi), 41)
        k = int(np.argmin([cost(g) for g in grid]))
        a, b_ = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
        g = (np.sqrt(5.0) - 1.0) / 2.0
        c_, d_ = b_ - g * (b_ - a), a + g * (b_ - a)
        fc, fd = cost(c_), cost(d_)
        while b_ - a > tol:
            if fc < fd:
                b_, d_, fd = d_, c_, fc
                c_ = b_ - g * (b_ - a)
                fc = cost(c_)
            else:
                a, c_, fc = c_, d_, fd
                d_ = a + g * (b_ - a)
                fd = cost(d_)
        L = float(np.exp((a + b_) / 2))
        if min(abs(np.log(L) - grid[0]), abs(grid[-1] - np.log(L))) <= tol:
            warnings.warn(
                RuntimeWarning(
                    f"characteristic_length: the minimum is at the end L = {L:.6g} of bounds ({lo:g}, {hi:g}): "
                    "the optimum lies outside; widen bounds"
                ),
                stacklevel=2,
            )
        return L

    # ---------------------------------------------------------------- forward kinematics

    def home_guess(self, lengths: ArrayLike) -> np.ndarray:
        """Level pose ``[0, 0, z, 0, 0, 0]`` whose RMS leg length matches ``lengths``: ``(..., 6)``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> st.home_guess(st.ik([0, 0, 0.4, 0, 0, 0]).q).round(12)
        array([0. , 0. , 0.4, 0. , 0. , 0. ])
        """
        L = as_array(lengths, "lengths", trailing=(6,))
        return self._home_guess(L)

    def _home_guess(self, L):
        d2 = np.mean(np.sum((self.top[:2] - self.base[:2]) ** 2, axis=0))
        z = np.sqrt(np.maximum(np.mean(L**2, axis=-1) - d2, 1e-6))
        g = np.zeros(L.shape[:-1] + (6,))
        g[..., 2] = z
        return g

    def _newton(self, lengths, guess, tol, max_iter):
        """Check the FK arguments, run the batched Newton iteration; returns (pose, ok, residual, iterations)."""
        L = as_array(lengths, "lengths", trailing=(6,))
        if np.any(L <= 0):
            raise ValueError("lengths must be positive (m)")
        tol = tolerance(tol, "tol", max=1e-3)
        max_iter = count(max_iter, "max_iter", max=10_000)
        g = self._home_guess(L) if guess is None else as_array(guess, "guess", trailing=(6,))
        shape = np.broadcast_shapes(L.shape, g.shape)
        L = np.broadcast_to(L, shape).reshape(-1, 6)
        q = np.array(np.broadcast_to(g, shape).reshape(-1, 6))
        iters = np.zeros(len(q), dtype=int)
        r = L - self._legs(q)[2]
        res = np.abs(r).max(axis=-1)
        for _ in range(max_iter):
            act = res > tol
            if not np.any(act):
                break
            qa = q[act]
            Jq = self._jq(qa)
            try:
                dq = np.linalg.solve(Jq, r[act][..., None])[..., 0]
            except np.linalg.LinAlgError:  # an exactly singular sample: fall back to least squares
                dq = (np.linalg.pinv(Jq) @ r[act][..., None])[..., 0]
            # cap the step: the Newton model is only trusted within ~0.1 m / 0.3 rad
            scale = np.maximum(1.0, np.max(np.abs(dq) / [0.1, 0.1, 0.1, 0.3, 0.3, 0.3], axis=-1))
            q[act] = qa + dq / scale[:, None]
            iters[act] += 1
            r[act] = L[act] - self._legs(q[act])[2]
            res[act] = np.abs(r[act]).max(axis=-1)
        conv = np.isfinite(res) & (res <= tol)
        reason = np.full(len(q), "no convergence", dtype=object)
        reason[conv] = "converged"
        if self.stroke is not None:
            out = conv & ~np.all((L >= self.stroke[0]) & (L <= self.stroke[1]), axis=-1)
            reason[out] = f"lengths outside stroke [{self.stroke[0]:g}, {self.stroke[1]:g}] m"
        ok = reason == "converged"
        if np.any(ok):  # a converged pose at a singularity is not locally unique: other poses share its lengths
            with np.errstate(all="ignore"):
                c = np.linalg.cond(self._jq(q[ok]))
            bad = ~np.isfinite(c) | (c > SINGULAR_COND)
            idx = np.flatnonzero(ok)[bad]
            reason[idx] = [f"near-singular (cond(Jq) = {v:.3g}): other poses share these leg lengths" for v in c[bad]]
            ok[idx] = False
        lead = shape[:-1]
        return q.reshape(shape), ok.reshape(lead), res.reshape(lead), iters.reshape(lead), reason.reshape(lead)

    def fk(
        self, lengths: ArrayLike, *, guess: ArrayLike | None = None, tol: float = 1e-10, max_iter: int = 50
    ) -> np.ndarray:
        """Pose from leg lengths by Newton iteration on ``L(q) - L = 0`` (equation :eq:`eq-ch09-newton`).

        ``q <- q + Jq(q)^-1 (L - L(q))`` with ``Jq`` = :meth:`jacobian_pose_rates`,
        run on the whole batch at once; converged samples are frozen and each step is
        capped at 0.1 m and 0.3 rad. The forward problem has many solutions (assembly
        modes): Newton returns the one its ``guess`` leads to. Always returns the pose;
        :meth:`fk_solve` returns the per-sample outcome instead of raising.

        Parameters
        ----------
        lengths : array_like, shape (..., 6)
            Leg lengths (m), positive.
        guess : array_like, shape (..., 6), optional
            Start poses (broadcast against ``lengths``); default :meth:`home_guess`.
        tol : float
            Convergence when ``max_i |L_i(q) - L_i| <= tol`` (m).
        max_iter : int
            Newton steps allowed.

        tol : float
            In ``(0, 1e-3]`` m.
        max_iter : int
            At most 10000.

        Returns
        -------
        ndarray, shape (..., 6)
            ``[x, y, z, roll, pitch, yaw]`` (m, rad).

        Raises
        ------
        ValueError
            If the platform has a ``stroke`` and some lengths lie outside it (no pose of the real platform has
            them; :meth:`fk_solve` marks them invalid instead).
        robokin.errors.ConvergenceError
            If any sample did not converge; carries the worst residual (m) and the iteration count.

        Warns
        -----
        robokin.errors.SingularityWarning
            If a solution is near a singularity (``cond(Jq) > SINGULAR_COND``): other poses then have the same leg
            lengths (on the architecturally singular uniform layout, always), so the pose returned is ambiguous.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> q = np.array([0.02, -0.01, 0.42, 0.05, -0.1, 0.2])
        >>> np.allclose(st.fk(st.leg_lengths(q)), q, atol=1e-9)
        True
        """
        if self.stroke is not None:  # fail fast: no pose of this platform has such lengths
            L = as_array(lengths, "lengths", trailing=(6,))
            out = ~np.all((L >= self.stroke[0]) & (L <= self.stroke[1]), axis=-1)
            if np.any(out):
                first = L.reshape(-1, 6)[int(np.argmax(out.ravel()))]
                raise ValueError(
                    f"lengths outside the stroke [{self.stroke[0]:g}, {self.stroke[1]:g}] m in {int(out.sum())} of "
                    f"{out.size} samples (first: {np.round(first, 6).tolist()}); fk_solve marks them invalid"
                )
        q, ok, res, iters, reason = self._newton(lengths, guess, tol, max_iter)
        conv = np.isfinite(res) & (res <= tol)
        if not np.all(conv):
            worst = np.max(np.where(np.isfinite(res), res, np.inf))
            raise ConvergenceError(
                worst,
                int(iters.max()),
                f"Newton FK ({np.count_nonzero(~conv)} of {conv.size} samples); "
                "try another guess, or check that the lengths are assemblable",
            )
        if not np.all(ok):
            with np.errstate(all="ignore"):
                c = np.linalg.cond(self._jq(q.reshape(-1, 6)[~ok.ravel()]))
            warnings.warn(
                SingularityWarning(
                    float(np.max(np.where(np.isfinite(c), c, np.inf))),
                    f"Stewart.fk ({int((~ok).sum())} of {ok.size} samples): other poses share these leg lengths",
                ),
                stacklevel=2,
            )
        return q

    def fk_solve(
        self, lengths: ArrayLike, *, guess: ArrayLike | None = None, tol: float = 1e-10, max_iter: int = 50
    ) -> FKResult:
        """Newton forward kinematics as :meth:`fk`, returning an :class:`FKResult` and never raising on failure.

        Use it to scan many guesses (assembly modes) or lengths that may not be assemblable: the samples that
        did not converge have ``valid`` False and keep their last iterate.

        Parameters
        ----------
        lengths, guess, tol, max_iter
            As in :meth:`fk`.

        Returns
        -------
        FKResult
            ``pose`` (..., 6), ``valid`` (...), ``residual`` (..., m), ``iterations`` (...) and ``reason`` (...):
            ``valid`` is False where Newton did not converge, where the lengths lie outside the ``stroke`` and at
            near-singular (ambiguous) solutions.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> res = st.fk_solve(st.leg_lengths([0.02, -0.01, 0.42, 0.05, -0.1, 0.2]))
        >>> bool(res.valid), int(res.iterations) < 10, float(res.residual) <= 1e-10
        (True, True, True)
        """
        return FKResult(*self._newton(lengths, guess, tol, max_iter))


# ====================================================================== dynamics
def leg_friction(
    leg_rates: ArrayLike,
    *,
    viscous: float,
    coulomb: float,
    coulomb_speed: float,
    static: float | None = None,
    stribeck_speed: float | None = None,
) -> np.ndarray:
    """Actuator friction ``b Ldot + Fc tanh(Ldot / v_s)`` (N) opposing each leg's motion (equation :eq:`eq-ch10-fric`).

    The tanh replaces ``Fc sign(Ldot)``: smooth, so ODE solvers can integrate it,
    and within 1 % of Coulomb friction once ``|Ldot| > 2.6 v_s``. :class:`StewartDynamics`
    applies the same formula (both call ``robokin._primitives.smoothed_friction``).

    With ``static`` and ``stribeck_speed`` the Coulomb level carries a Stribeck peak (chapter 10):
    ``b Ldot + (Fc + (Fs - Fc) exp(-(Ldot / v_st)^2)) tanh(Ldot / v_s)``, the static (breakaway) friction
    ``Fs >= Fc`` decaying to the sliding level ``Fc`` over the Stribeck speed ``v_st``. Its slope at
    ``Ldot = 0`` is ``b + Fs / v_s``.

    Parameters
    ----------
    leg_rates : array_like, shape (..., 6)
        Leg rates (m/s).
    viscous : float
        ``b`` (N s/m), >= 0.
    coulomb : float
        ``Fc`` (N), >= 0.
    coulomb_speed : float
        Smoothing speed ``v_s`` (m/s), > 0.
    static : float or None, keyword-only
        ``Fs`` (N), ``>= coulomb``; None (default): no Stribeck peak. Give it together with ``stribeck_speed``.
    stribeck_speed : float or None, keyword-only
        ``v_st`` (m/s), > 0; only with ``static``.

    Returns
    -------
    ndarray, shape (..., 6)

    Raises
    ------
    ValueError
        Bad shapes or values; ``static < coulomb``; only one of ``static`` and ``stribeck_speed`` given.

    Examples
    --------
    >>> leg_friction([0.1, -0.1, 0, 0, 0, 0], viscous=10.0, coulomb=5.0, coulomb_speed=1e-3).round(6)
    array([ 6., -6.,  0.,  0.,  0.,  0.])
    >>> f = leg_friction([1e-3, 0.1, 0, 0, 0, 0], viscous=0.0, coulomb=5.0, coulomb_speed=1e-4, static=8.0,
    ...                  stribeck_speed=1e-2)
    >>> f.round(3)  # near the static level at 1 mm/s, back to Coulomb at 100 mm/s
    array([7.97, 5.  , 0.  , 0.  , 0.  , 0.  ])
    """
    ld = as_array(leg_rates, "leg_rates", trailing=(6,))
    b, fc = finite_scalar(viscous, "viscous"), finite_scalar(coulomb, "coulomb")
    if b < 0 or fc < 0:
        raise ValueError("viscous and coulomb friction coefficients must be >= 0")
    vs = positive(coulomb_speed, "coulomb_speed")
    if (static is None) != (stribeck_speed is None):
        raise ValueError("give static and stribeck_speed together (the Stribeck peak needs both), or neither")
    f = smoothed_friction(ld, b, fc, vs)
    if static is None:
        return f
    fs, vst = finite_scalar(static, "static"), positive(stribeck_speed, "stribeck_speed")
    if fs < fc:
        raise ValueError(f"static friction must be >= coulomb friction ({fc!r} N), got {fs!r}")
    with np.errstate(over="ignore"):  # (ld / vst)^2 -> inf far above the Stribeck speed: exp(-inf) = 0, exact
        peak = np.exp(-((ld / vst) ** 2))
    return f + (fs - fc) * peak * np.tanh(ld / vs)


@dataclass(frozen=True, eq=False)
class PlatformParams:
    """Inertial and friction parameters of a Stewart platform (chapter 10).

    Parameters
    ----------
    mass : float
        Platform mass (kg).
    inertia : array_like, shape (3, 3)
        Platform inertia about its centre of mass, platform frame (kg m^2);
        symmetric positive definite, principal moments obeying the triangle
        inequality ``I_a + I_b >= I_c`` (every rigid body does; others are rejected).
    com : array_like, shape (3,), keyword-only
        Centre of mass in the platform frame, relative to the platform centre (m).
    leg_mass : float, keyword-only
        Moving mass of each leg (kg), lumped at its top anchor (the rod of a
        cylinder riding with the platform; the leg's rotational inertia is
        neglected). 0 gives massless legs.
    viscous, coulomb, coulomb_speed : float, keyword-only
        Actuator friction, see :func:`leg_friction`.
    gravity : float, keyword-only
        ``g`` (m/s^2) along ``-z`` of the world frame.

    Examples
    --------
    >>> PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])).mass
    10.0
    """

    mass: float
    inertia: np.ndarray
    com: np.ndarray = field(default=(0.0, 0.0, 0.0), kw_only=True)
    leg_mass: float = field(default=0.0, kw_only=True)
    viscous: float = field(default=0.0, kw_only=True)
    coulomb: float = field(default=0.0, kw_only=True)
    coulomb_speed: float = field(default=1e-3, kw_only=True)
    gravity: float = field(default=9.81, kw_only=True)

    def __post_init__(self):
        object.__setattr__(self, "mass", positive(self.mass, "mass"))
        I = as_array(self.inertia, "inertia", trailing=(3, 3))
        if I.ndim != 2 or not np.allclose(I, I.T, atol=1e-12) or np.linalg.eigvalsh(I).min() <= 0:
            raise ValueError("inertia must be a symmetric positive definite (3, 3) array (kg m^2)")
        check_inertias(I, "inertia")
        c = as_array(self.com, "com", trailing=(3,))
        if c.ndim != 1:
            raise ValueError(f"com must have shape (3,), got {c.shape}")
        for name in ("leg_mass", "viscous", "coulomb", "gravity"):
            v = finite_scalar(getattr(self, name), name)
            if v < 0:
                raise ValueError(f"{name} must be >= 0, got {v!r}")
            object.__setattr__(self, name, v)
        object.__setattr__(self, "coulomb_speed", positive(self.coulomb_speed, "coulomb_speed"))
        I, c = I.copy(), c.copy()
        I.flags.writeable = c.flags.writeable = False
        object.__setattr__(self, "inertia", I)
        object.__setattr__(self, "com", c)


@dataclass(frozen=True, eq=False)
class StrutParams:
    """Inertial parameters of one prismatic leg as two bodies, the same for all six legs (chapter 10).

    The **cylinder** turns about the base anchor with the leg's direction ``n``; the **rod** (piston) slides in it
    and ends at the top anchor. Each is axisymmetric about the leg axis with no inertia about it (the spin of a
    UPS leg is not driven), so each has a mass, a centre of mass on the axis and a transverse inertia.

    Parameters
    ----------
    cylinder_mass, rod_mass : float
        Masses (kg), >= 0.
    cylinder_com : float
        Distance of the cylinder's centre of mass from the base anchor along the leg (m), >= 0.
    rod_com : float
        Distance of the rod's centre of mass from the top anchor, towards the base (m), >= 0.
    cylinder_inertia, rod_inertia : float
        Transverse moments of inertia about each body's own centre of mass (kg m^2), >= 0.

    Notes
    -----
    The centres of mass are points on the leg's axis at these distances, whatever the leg's length: the formulas
    (:eq:`eq-ch10-strut`) hold for any value, and no length is checked here (the leg's length is known only at a
    pose). A real leg keeps ``cylinder_com`` and ``rod_com`` below its shortest length; a larger value places the
    centre beyond the other anchor, which the caller must mean.

    Examples
    --------
    >>> StrutParams(1.2, 0.12, 0.01, 0.4, 0.1, 0.002).total_mass
    1.6
    """

    cylinder_mass: float
    cylinder_com: float
    cylinder_inertia: float
    rod_mass: float
    rod_com: float
    rod_inertia: float

    def __post_init__(self):
        for name in ("cylinder_mass", "cylinder_com", "cylinder_inertia", "rod_mass", "rod_com", "rod_inertia"):
            v = finite_scalar(getattr(self, name), name)
            if v < 0:
                raise ValueError(f"{name} must be >= 0, got {v!r}")
            object.__setattr__(self, name, v)

    @property
    def total_mass(self) -> float:
        """Mass of one leg, cylinder plus rod (kg)."""
        return round(self.cylinder_mass + self.rod_mass, 12)

    def scaled(self, k: float) -> StrutParams:
        """The same leg with every mass and inertia times ``k`` >= 0 (centres of mass unchanged)."""
        k = finite_scalar(k, "k")
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k!r}")
        c, r = self.cylinder_mass, self.rod_mass
        return StrutParams(
            k * c, self.cylinder_com, k * self.cylinder_inertia, k * r, self.rod_com, k * self.rod_inertia
        )


def _strut_anchor_force(s, sd, sdd, sp, g):
    """Force (N, world axes, (..., 6, 3)) the platform must apply at each top anchor to move the leg's two bodies
    (:eq:`eq-ch10-strut`): leg vectors ``s`` (base to top anchor), their rates and accelerations, gravity ``g`` (m/s^2).

    Kane's projection: each body's ``m (a_c - g)`` and ``I_t dw/dt`` mapped back to the anchor through the
    partial velocities ``dv_c/dsd``, ``dw/dsd`` (the leg's angular velocity ``w = s x sd / L^2``).
    """
    L = np.linalg.norm(s, axis=-1)[..., None]
    n = s / L
    Ld = np.sum(n * sd, -1)[..., None]
    Ldd = (np.sum(sd * sd, -1)[..., None] + np.sum(s * sdd, -1)[..., None]) / L - Ld**2 / L
    ndd = sdd / L - 2 * sd * Ld / L**2 - s * Ldd / L**2 + 2 * s * Ld**2 / L**3
    wd = cross(s, sdd) / L**2 - 2 * Ld * cross(s, sd) / L**3
    gv = np.array([0.0, 0.0, -g])
    F1 = sp.cylinder_mass * (sp.cylinder_com * ndd - gv)
    F2 = sp.rod_mass * (sdd - sp.rod_com * ndd - gv)

    def perp(x):
        return x - n * np.sum(n * x, -1)[..., None]

    It = sp.cylinder_inertia + sp.rod_inertia
    return (
        (sp.cylinder_com / L) * perp(F1)
        + n * np.sum(n * F2, -1)[..., None]
        + ((L - sp.rod_com) / L) * perp(F2)
        + (It / L) * cross(wd, n)
    )


def _guard(value, name, shape, t):
    """``value`` as a float array when it is real, finite, bounded and of ``shape``; else the full check raises.

    The fast path costs a few microseconds; anything unusual goes through ``callback_output``, which either
    accepts it (an integer array, a list) or raises with the precise reason.
    """
    a = value if isinstance(value, np.ndarray) else None
    if a is not None and a.dtype == np.float64 and a.shape == shape and np.all(np.abs(a) <= MAX_ABS):
        return a  # NaN fails the comparison, inf exceeds the bound
    return callback_output(value, name, shape, t=t)


def _edot_qd(q, qd):
    """``dE/dt @ rpy_dot`` for the world-frame ZYX rate matrix (rad/s^2), shape (..., 3)."""
    p, y = q[..., 4], q[..., 5]
    rd, pd, yd = qd[..., 3], qd[..., 4], qd[..., 5]
    cp, sp, cy, sy = np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    col0 = np.stack([-sy * cp * yd - cy * sp * pd, cy * cp * yd - sy * sp * pd, -cp * pd], -1)
    col1 = np.stack([-cy * yd, -sy * yd, np.zeros_like(yd)], -1)
    return col0 * rd[..., None] + col1 * pd[..., None]


@dataclass(frozen=True, eq=False)
class StewartDynamics:
    """Task-space rigid-body dynamics of a Stewart platform (chapter 10).

    Generalised coordinates are the pose ``q = [x, y, z, roll, pitch, yaw]``;
    the equations of motion are (equation :eq:`eq-ch10-eom`)

    ``M(q) qdd + h(q, qd) + G(q) = Jq(q)^T (f - f_fric(Ldot))``

    with ``M = S^T M_t S``, ``S`` = :meth:`Stewart.rate_map`, ``M_t`` the
    spatial inertia about the platform centre, ``h = C(q, qd) qd`` the
    Coriolis/centrifugal vector (:meth:`bias`, without gravity), ``G`` the
    generalised gravity, ``f`` the actuator forces along the legs and
    ``f_fric`` the friction of :func:`leg_friction` (the same formula, evaluated
    without re-checking the parameters).

    Protocol methods (``book/conventions.md``): :meth:`mass_matrix`, :meth:`bias`,
    :meth:`gravity`, :meth:`inverse_dynamics` (the generalised force
    ``tau = M qdd + h + G + Jq^T f_fric``) and :meth:`forward_dynamics` (its
    inverse). The actuators are the legs, ``tau = Jq^T f``: :meth:`leg_forces` is
    the inverse dynamics in leg forces, and :meth:`ode` takes leg forces.

    The model is built once: ``robot`` and ``params`` are checked here, and the
    right-hand side of :meth:`ode` does no further argument checking beyond its
    guard against non-finite states and forces.

    Parameters
    ----------
    robot : Stewart
    params : PlatformParams

    Examples
    --------
    >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
    >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
    >>> f = dyn.leg_forces([0, 0, 0.4, 0, 0, 0], np.zeros(6), np.zeros(6))
    >>> round(float(f.sum() * dyn.robot.jacobian([0, 0, 0.4, 0, 0, 0])[0, 2]), 6)  # legs carry m g
    98.1
    """

    robot: Stewart
    params: PlatformParams

    def __post_init__(self):
        if not isinstance(self.robot, Stewart):
            raise ValueError(f"robot must be a Stewart, got {type(self.robot).__name__}")
        if not isinstance(self.params, PlatformParams):
            raise ValueError(f"params must be a PlatformParams, got {type(self.params).__name__}")
        object.__setattr__(self, "_rigid", self._body())

    # rigid body including the lumped leg masses: total mass, COM and inertia about the COM (platform frame)
    def _body(self):
        pr, P = self.params, self.robot.top
        m = pr.mass + 6 * pr.leg_mass
        c = (pr.mass * pr.com + pr.leg_mass * P.sum(axis=1)) / m
        d = pr.com - c
        I = pr.inertia + pr.mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        for i in range(6):
            d = P[:, i] - c
            I = I + pr.leg_mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        return m, c, I

    def _terms(self, q, qd=None):
        """Everything the equations of motion need, computed once (q, qd already validated)."""
        m, c, Ic = self._rigid
        R = rpy_matrix(q[..., 3:])
        Rt = np.swapaxes(R, -1, -2)
        E = zyx_rate_world(q[..., 3:])
        cw = R @ c
        Io = R @ Ic @ Rt + m * (np.sum(cw * cw, -1)[..., None, None] * np.eye(3) - cw[..., :, None] * cw[..., None, :])
        mC = m * hat(cw)
        # M = S^T M_t S with S = blockdiag(I, E), M_t = [[m I, -m [c]], [m [c], I_o]]
        M = np.zeros(q.shape[:-1] + (6, 6))
        M[..., :3, :3] = m * np.eye(3)
        M[..., :3, 3:] = -mC @ E
        M[..., 3:, :3] = np.swapaxes(M[..., :3, 3:], -1, -2)
        M[..., 3:, 3:] = np.swapaxes(E, -1, -2) @ Io @ E
        g = np.array([0.0, 0.0, -self.params.gravity])
        G = np.zeros(q.shape[:-1] + (6,))
        G[..., :3] = -m * g
        G[..., 3:] = -(np.swapaxes(E, -1, -2) @ (m * cross(cw, g))[..., None])[..., 0]
        out = {"m": m, "cw": cw, "E": E, "M": M, "G": G}
        # leg Jacobian, reusing R: rows [n, (R p) x n] then times S
        Rp = np.swapaxes(R @ self.robot.top, -1, -2)
        s = Rp + q[..., None, :3] - self.robot.base.T
        L = np.linalg.norm(s, axis=-1)
        _check_legs(L)
        n = s / L[..., None]
        Jq = np.concatenate([n, cross(Rp, n) @ E], axis=-1)
        out["Jq"] = Jq
        if qd is not None:
            w = (E @ qd[..., 3:, None])[..., 0]
            wd = _edot_qd(q, qd)  # angular acceleration from Edot alone
            # h = S^T (M_t [0; Edot rd] + [m w x (w x c); w x I_o w])
            hv = -(mC @ wd[..., None])[..., 0] + m * cross(w, cross(w, cw))
            hw = (Io @ wd[..., None])[..., 0] + cross(w, (Io @ w[..., None])[..., 0])
            h = np.concatenate([hv, (np.swapaxes(E, -1, -2) @ hw[..., None])[..., 0]], -1)
            ld = (Jq @ qd[..., None])[..., 0]
            p = self.params
            out["h"] = h
            out["fric"] = smoothed_friction(ld, p.viscous, p.coulomb, p.coulomb_speed)
        return out

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """``M(q) = S^T M_t S`` (kg, kg m, kg m^2 blocks): ``(..., 6) -> (..., 6, 6)``, SPD away from gimbal lock.

        ``S`` = :meth:`Stewart.rate_map`; ``M_t = [[m I, -m [c_w]], [m [c_w], I_o]]`` is the
        spatial inertia about the platform centre (``c_w``: COM offset, world axes).

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> np.diag(dyn.mass_matrix([0, 0, 0.4, 0, 0, 0]))
        array([10. , 10. , 10. ,  0.3,  0.3,  0.5])
        """
        q = as_array(q, "q", trailing=(6,))
        return self._terms(q)["M"]

    def bias(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Coriolis and centrifugal vector ``h = C(q, qd) qd`` (N, N m), **without gravity**: ``(..., 6) -> (..., 6)``.

        ``h = S^T (M_t [0; Edot rpy_dot] + [m w x (w x c_w); w x (I_o w)])``; gravity is
        :meth:`gravity` and friction :meth:`friction`, neither is included.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> dyn.bias([0, 0, 0.4, 0, 0, 0], np.zeros(6))
        array([0., 0., 0., 0., 0., 0.])
        """
        q = as_array(q, "q", trailing=(6,))
        qd = as_array(qd, "qd", trailing=(6,))
        q, qd = broadcast([q, qd], ("q", "qd"))
        return self._terms(q, qd)["h"]

    def gravity(self, q: ArrayLike) -> np.ndarray:
        """Generalised gravity ``G(q) = -S^T [m g; m c_w x g]`` with ``g = [0, 0, -g]``: ``(..., 6)``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> dyn.gravity([0, 0, 0.4, 0, 0, 0]).round(6) + 0.0  # + 0.0 turns -0. into 0.
        array([ 0. ,  0. , 98.1,  0. ,  0. ,  0. ])
        """
        q = as_array(q, "q", trailing=(6,))
        return self._terms(q)["G"]

    def friction(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Leg friction forces (N) at pose rate ``qd``: :func:`leg_friction` of ``Ldot = Jq qd``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.eye(3), viscous=100.0))
        >>> dyn.friction([0, 0, 0.4, 0, 0, 0], [0, 0, 0.1, 0, 0, 0]).round(4)
        array([9.3633, 9.3633, 9.3633, 9.3633, 9.3633, 9.3633])
        """
        q = as_array(q, "q", trailing=(6,))
        qd = as_array(qd, "qd", trailing=(6,))
        q, qd = broadcast([q, qd], ("q", "qd"))
        return self._terms(q, qd)["fric"]

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """Generalised force for a task-space motion: ``tau = M qdd + h + G + Jq^T f_fric`` (N, N m): ``(..., 6)``.

        The protocol's inverse dynamics in the pose coordinates (``h`` = :meth:`bias`, ``G`` = :meth:`gravity`,
        ``f_fric`` = :meth:`friction`): the force and ZYX-angle torques that must act on the platform. The legs
        supply it as ``tau = Jq^T f``; :meth:`leg_forces` solves for those actuator forces ``f``.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (..., 6)
            Pose, pose rates and pose accelerations (m, rad; per s; per s^2).

        Returns
        -------
        ndarray, shape (..., 6)
            ``[force (N); torques conjugate to roll, pitch, yaw (N m)]``.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> q, qd, qdd = np.array([0, 0, 0.4, 0.1, 0, 0]), np.zeros(6), np.ones(6)
        >>> np.allclose(dyn.forward_dynamics(q, qd, dyn.inverse_dynamics(q, qd, qdd)), qdd)
        True
        >>> dyn.inverse_dynamics([0, 0, 0.4, 0, 0, 0], np.zeros(6), np.zeros(6)).round(6) + 0.0  # holds m g
        array([ 0. ,  0. , 98.1,  0. ,  0. ,  0. ])
        """
        q, qd, qdd = self._states(q=q, qd=qd, qdd=qdd)
        t = self._terms(q, qd)
        Q = (t["M"] @ qdd[..., None])[..., 0] + t["h"] + t["G"]
        return Q + (np.swapaxes(t["Jq"], -1, -2) @ t["fric"][..., None])[..., 0]

    def leg_forces(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """Actuator leg forces (N) for a task-space motion: ``f = Jq^-T (M qdd + h + G) + f_fric``.

        Equation :eq:`eq-ch10-eom` solved for ``f``: the inverse dynamics in actuator space,
        ``Jq^T f`` equals :meth:`inverse_dynamics`.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (..., 6)
            Pose, pose rates and pose accelerations (m, rad; per s; per s^2).

        Returns
        -------
        ndarray, shape (..., 6)
            Forces along the legs, positive pushing the platform away from the base.

        Warns
        -----
        SingularityWarning
            When ``cond(Jq)`` exceeds 1e8: the forces blow up.

        Raises
        ------
        robokin.errors.SingularityError
            (a ``ValueError``) where ``Jq`` is exactly singular.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> f = dyn.leg_forces([0, 0, 0.4, 0, 0, 0], np.zeros(6), np.zeros(6))
        >>> round(float(f.sum() * st.jacobian([0, 0, 0.4, 0, 0, 0])[0, 2]), 6)  # legs carry m g
        98.1
        """
        q, qd, qdd = self._states(q=q, qd=qd, qdd=qdd)
        t = self._terms(q, qd)
        Q = (t["M"] @ qdd[..., None])[..., 0] + t["h"] + t["G"]
        c = np.linalg.cond(t["Jq"])
        if np.any(~np.isfinite(c) | (c > SINGULAR_COND)):
            warnings.warn(SingularityWarning(np.max(c), "leg_forces"), stacklevel=2)
        try:
            return np.linalg.solve(np.swapaxes(t["Jq"], -1, -2), Q[..., None])[..., 0] + t["fric"]
        except np.linalg.LinAlgError:
            raise SingularityError(
                np.inf,
                "StewartDynamics.leg_forces: the leg Jacobian is singular (the legs cannot hold this pose)",
            ) from None

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
        """Pose accelerations ``qdd = M^-1 (tau - h - G - Jq^T f_fric)``: ``(..., 6)``.

        The inverse of :meth:`inverse_dynamics`. Leg forces ``f`` enter as ``tau = Jq^T f``
        (:meth:`ode` takes leg forces directly).

        Parameters
        ----------
        q, qd : array_like, shape (..., 6)
        tau : array_like, shape (..., 6)
            Generalised force ``[force (N); torques conjugate to roll, pitch, yaw (N m)]``.

        Raises
        ------
        robokin.errors.SingularityError
            (a ``ValueError``) at the ZYX gimbal lock ``|cos(pitch)| < 1e-6``, where ``S(q)``
            and so ``M(q)`` are singular: the pose rates are undefined there.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> dyn.forward_dynamics([0, 0, 0.4, 0, 0, 0], np.zeros(6), np.zeros(6)).round(6) + 0.0  # free fall
        array([ 0.  ,  0.  , -9.81,  0.  ,  0.  ,  0.  ])
        """
        q, qd, tau = self._states(q=q, qd=qd, tau=tau)
        return self._accel(q, qd, tau=tau)

    @staticmethod
    def _states(**arrays):
        """Check (..., 6) arrays and broadcast them against each other."""
        return broadcast([as_array(v, k, trailing=(6,)) for k, v in arrays.items()], tuple(arrays))

    def _accel(self, q, qd, f=None, *, tau=None):
        """``qdd`` of checked states under leg forces ``f`` or a generalised force ``tau`` (exactly one given)."""
        lock = np.abs(np.cos(q[..., 4])) < GIMBAL_COS
        if np.any(lock):
            raise SingularityError(
                1.0 / max(float(np.min(np.abs(np.cos(q[..., 4])))) ** 2, 1e-300),
                f"StewartDynamics.forward_dynamics: mass matrix at {int(np.count_nonzero(lock))} "
                "pose(s) with pitch = +-pi/2 (ZYX gimbal lock)",
            )
        t = self._terms(q, qd)
        JqT = np.swapaxes(t["Jq"], -1, -2)
        if tau is None:
            Q = (JqT @ (f - t["fric"])[..., None])[..., 0]
        else:
            Q = tau - (JqT @ t["fric"][..., None])[..., 0]
        return np.linalg.solve(t["M"], (Q - t["h"] - t["G"])[..., None])[..., 0]

    def _anchor_kinematics(self, q, qd, qdd):
        """Leg vectors, their rates and accelerations (..., 6, 3), and the rows ``A_i = [I, -[R p_i] E]`` packed as
        ``(R p_i, E)`` (checked states)."""
        R = rpy_matrix(q[..., 3:])
        E = zyx_rate_world(q[..., 3:])
        Rp = np.swapaxes(R @ self.robot.top, -1, -2)  # (..., 6, 3)
        s = Rp + q[..., None, :3] - self.robot.base.T
        _check_legs(np.linalg.norm(s, axis=-1))
        w = (E @ qd[..., 3:, None])[..., 0][..., None, :]
        al = ((E @ qdd[..., 3:, None])[..., 0] + _edot_qd(q, qd))[..., None, :]
        sd = qd[..., None, :3] + cross(w, Rp)
        sdd = qdd[..., None, :3] + cross(al, Rp) + cross(w, cross(w, Rp))
        return s, sd, sdd, Rp, E

    def strut_wrench(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, struts: StrutParams) -> np.ndarray:
        """Generalised force (N, N m) the legs' own two bodies require along a motion, weight included: ``(..., 6)``.

        ``Q = sum_i A_i^T F_i`` with ``F_i`` the force at top anchor ``i`` that moves leg ``i``'s cylinder and rod
        (equation :eq:`eq-ch10-strut`) and ``A_i = [I, -[R p_i] E]`` the map from pose rates to that anchor's
        velocity. Add it to :meth:`inverse_dynamics` of a platform whose ``leg_mass`` is 0; the leg forces become
        ``Jq^-T (tau + Q)`` (:meth:`leg_forces` plus ``Jq^-T Q``). ``Q`` is linear in the struts' masses and
        inertias, and its motion part is quadratic in the rates: playing a motion ``k`` times faster multiplies it
        by ``k^2``. A rod of mass ``m_r`` with its centre of mass at the anchor on a massless cylinder gives
        ``F_i = m_r (sdd_i - g)``: the chapter's lumped leg mass.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (..., 6)
            Pose, pose rates and pose accelerations (m, rad; per s; per s^2).
        struts : StrutParams

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> lumped = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5]), leg_mass=0.4))
        >>> q, qd, qdd = np.array([0, 0, 0.4, 0.1, 0, 0]), np.full(6, 0.2), np.ones(6)
        >>> Q = dyn.strut_wrench(q, qd, qdd, StrutParams(0.0, 0.0, 0.0, 0.4, 0.0, 0.0))
        >>> bool(np.allclose(dyn.inverse_dynamics(q, qd, qdd) + Q, lumped.inverse_dynamics(q, qd, qdd)))
        True
        """
        if not isinstance(struts, StrutParams):
            raise ValueError(f"struts must be a StrutParams, got {type(struts).__name__}")
        q, qd, qdd = self._states(q=q, qd=qd, qdd=qdd)
        s, sd, sdd, Rp, E = self._anchor_kinematics(q, qd, qdd)
        F = _strut_anchor_force(s, sd, sdd, struts, self.params.gravity)
        Qv = F.sum(-2)
        Qr = (np.swapaxes(E, -1, -2) @ cross(Rp, F).sum(-2)[..., None])[..., 0]
        return np.concatenate([Qv, Qr], -1)

    def strut_mass_matrix(self, q: ArrayLike, struts: StrutParams) -> np.ndarray:
        """The legs' two bodies' contribution to the mass matrix (kg, kg m, kg m^2 blocks): ``(..., 6) -> (..., 6, 6)``.

        ``M_s = sum_i A_i^T K_i A_i`` with the anchor mass ``K_i = m_r n n^T + mu_i (I - n n^T)``,
        ``mu_i = (m_c e_c^2 + m_r (L_i - e_r)^2 + I_c + I_r) / L_i^2`` (equation :eq:`eq-ch10-strut-mass`): the
        rod's mass along the leg, a length-dependent effective mass across it. It is the ``qdd`` part of
        :meth:`strut_wrench`.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> np.diag(dyn.strut_mass_matrix([0, 0, 0.4, 0, 0, 0], StrutParams(0, 0, 0, 0.4, 0, 0)))[:3].round(6)
        array([2.4, 2.4, 2.4])
        """
        if not isinstance(struts, StrutParams):
            raise ValueError(f"struts must be a StrutParams, got {type(struts).__name__}")
        q = as_array(q, "q", trailing=(6,))
        z = np.zeros_like(q)
        s, _, _, Rp, E = self._anchor_kinematics(q, z, z)
        L = np.linalg.norm(s, axis=-1)[..., None, None]
        n = (s / L[..., 0])[..., :, None]
        nnT = n * np.swapaxes(n, -1, -2)
        sp = struts
        mu = (
            sp.cylinder_mass * sp.cylinder_com**2
            + sp.rod_mass * (L - sp.rod_com) ** 2
            + sp.cylinder_inertia
            + sp.rod_inertia
        ) / L**2
        K = sp.rod_mass * nnT + mu * (np.eye(3) - nnT)  # (..., 6, 3, 3)
        A = np.concatenate(
            [np.broadcast_to(np.eye(3), K.shape), -hat(Rp) @ E[..., None, :, :]], axis=-1
        )  # (..., 6, 3, 6)
        return np.einsum("...kij,...kil,...klm->...jm", A, K, A)

    def energy(self, q: ArrayLike, qd: ArrayLike) -> float | np.ndarray:
        """Kinetic plus potential energy (J), potential zero at ``z_com = 0``: ``(..., 6) -> (...)``.

        Examples
        --------
        >>> st = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> round(float(dyn.energy([0, 0, 0.4, 0, 0, 0], [1.0, 0, 0, 0, 0, 0])), 6)
        44.24
        """
        q = as_array(q, "q", trailing=(6,))
        qd = as_array(qd, "qd", trailing=(6,))
        q, qd = broadcast([q, qd], ("q", "qd"))
        t = self._terms(q)
        T = 0.5 * np.einsum("...i,...ij,...j->...", qd, t["M"], qd)
        return T + t["m"] * self.params.gravity * (q[..., 2] + t["cw"][..., 2])

    def ode(
        self, force: Callable[[float, np.ndarray, np.ndarray], ArrayLike] | None
    ) -> Callable[[float, np.ndarray], np.ndarray]:
        """Right-hand side ``y' = F(t, y)`` for :func:`scipy.integrate.solve_ivp`, ``y = [q, qd]`` (12,).

        ``force`` is checked once here; the returned function then calls the unchecked
        internals, keeping only a guard: the state it is handed and the forces ``force``
        returns must be real, of shape (12,) and (6,), finite and below 1e12 in magnitude,
        otherwise it raises ``ValueError`` (a NaN handed to ``solve_ivp`` can make it loop forever).

        Parameters
        ----------
        force : callable or None
            ``force(t, q, qd) -> (6,)`` actuator leg forces (N); None means no input.

        Examples
        --------
        >>> st = Stewart(*paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
        >>> dyn = StewartDynamics(st, PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
        >>> float(dyn.ode(None)(0.0, np.r_[0, 0, 0.4, 0, 0, 0, np.zeros(6)])[8].round(6))
        -9.81
        """
        if force is not None and not callable(force):
            raise ValueError("force must be a callable force(t, q, qd) -> (6,) or None")
        zero = np.zeros(6)

        def rhs(t, y):
            y = _guard(y, "y", (12,), t)  # the state solve_ivp hands in
            q, qd = y[:6], y[6:]
            f = zero if force is None else _guard(force(t, q, qd), "force", (6,), t)
            return np.concatenate([qd, self._accel(q, qd, f)])

        return rhs


# ====================================================================== task-space paths
def _corner_coords(T, Tc, method):
    """Exponential coordinates of poses ``T`` about the corner ``Tc``: ``[dp, w]`` (decoupled) or a twist (screw)."""
    if method == "screw":
        return se3_log(transform_inverse(Tc) @ T)
    w = so3_log(np.swapaxes(Tc[:3, :3], -1, -2) @ T[..., :3, :3])
    return np.concatenate([T[..., :3, 3] - Tc[:3, 3], w], axis=-1)


def _corner_pose(x, Tc, method):
    if method == "screw":
        return Tc @ se3_exp(x)
    T = np.zeros(x.shape[:-1] + (4, 4))
    T[..., :3, :3] = Tc[:3, :3] @ so3_exp(x[..., 3:])
    T[..., :3, 3] = Tc[:3, 3] + x[..., :3]
    T[..., 3, 3] = 1.0
    return T


def corner_path(
    T0: ArrayLike,
    T1: ArrayLike,
    T2: ArrayLike,
    sigma: ArrayLike,
    *,
    blend: float,
    method: Literal["decoupled", "screw"] = "decoupled",
) -> np.ndarray:
    """Two straight pose segments ``T0 -> T1 -> T2`` joined at the corner ``T1``, with a parabolic blend (chapter 10).

    Each segment is the straight interpolation of :func:`robokin.transforms.interpolate_pose` (same
    ``method``), parameterised by ``sigma``: segment 1 for ``sigma`` in ``[0, 1]``, segment 2 for ``[1, 2]``.
    About the corner both are straight lines in its exponential coordinates ``x``
    (``T = T1 exp(x)``: a twist for ``"screw"``; ``[p - p1, log(R1^T R)]`` for ``"decoupled"``):
    ``x = (sigma - 1) xi1`` before and ``x = (sigma - 1) xi2`` after it, with ``xi1, xi2`` the coordinates of
    ``T0`` and ``T2`` (``xi1 = -x(T0)``, ``xi2 = x(T2)``). With ``blend = d > 0`` the part
    ``sigma`` in ``[1 - d, 1 + d]`` is replaced by the quadratic Bezier curve with control points
    ``-d xi1, 0, d xi2`` (the corner is the middle control point):

    ``x(u) = -(1 - u)^2 d xi1 + u^2 d xi2``,  ``u = (sigma - 1 + d) / (2 d)``,

    whose derivative ``dx/dsigma`` equals ``xi1`` and ``xi2`` at the two ends: the path and its tangent
    are continuous (a sharp corner, ``d = 0``, has a tangent jump), and ``d^2x/dsigma^2 = (xi2 - xi1) / (2 d)``
    inside the blend (a blend of constant "acceleration" in the corner coordinates). The blend passes
    ``x(1/2) = d (xi2 - xi1) / 4`` from the corner.

    Parameters
    ----------
    T0, T1, T2 : array_like, shape (4, 4)
        Start, corner and end poses (rigid transforms; position in m).
    sigma : array_like, shape (...)
        Path parameter in ``[0, 2]``.
    blend : float, keyword-only
        Blend half-width ``d`` in ``[0, 1)`` (fraction of each segment); 0 keeps the sharp corner.
    method : {"decoupled", "screw"}, keyword-only
        Segment interpolation, as in :func:`robokin.transforms.interpolate_pose`.

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Raises
    ------
    ValueError
        Poses that are not rigid transforms of shape (4, 4), ``sigma`` outside ``[0, 2]`` or non-finite,
        ``blend`` outside ``[0, 1)``, an unknown ``method``, or a segment rotating by pi or more in the
        corner's coordinates (its logarithm is not unique).

    Examples
    --------
    >>> from robokin.transforms import make_transform, rotz
    >>> T0, T1, T2 = np.eye(4), make_transform(rotz(0.4), [0.1, 0, 0]), make_transform(rotz(0.8), [0.1, 0.1, 0])
    >>> np.allclose(corner_path(T0, T1, T2, [0.0, 1.0, 2.0], blend=0.0), [T0, T1, T2])
    True
    >>> corner_path(T0, T1, T2, 1.0, blend=0.2)[:3, 3].round(4)  # passes inside the corner
    array([0.095, 0.005, 0.   ])
    """
    method = choice(method, "method", ("decoupled", "screw"))
    Ts = [_check_pose4(T, name) for T, name in ((T0, "T0"), (T1, "T1"), (T2, "T2"))]
    s = as_array(sigma, "sigma")
    if s.size and (s.min() < 0.0 or s.max() > 2.0):
        raise ValueError(
            f"sigma must lie in [0, 2] (segment 1: [0, 1], segment 2: [1, 2]); got [{s.min():g}, {s.max():g}]"
        )
    d = finite_scalar(blend, "blend")
    if not 0.0 <= d < 1.0:
        raise ValueError(f"blend must be in [0, 1) (a fraction of each segment), got {d!r}")
    Tc = Ts[1]
    xi1 = -_corner_coords(Ts[0], Tc, method)
    xi2 = _corner_coords(Ts[2], Tc, method)
    for xi, name in ((xi1, "T0 -> T1"), (xi2, "T1 -> T2")):
        if np.linalg.norm(xi[3:]) >= np.pi - 1e-9:
            raise ValueError(f"segment {name} rotates by pi or more: its straight interpolation is not unique")
    r = (s - 1.0)[..., None]  # signed parameter from the corner
    x = np.where(r < 0, r * xi1, r * xi2)
    if d > 0:
        u = np.clip((r + d) / (2 * d), 0.0, 1.0)
        xb = -((1 - u) ** 2) * d * xi1 + u**2 * d * xi2
        x = np.where(np.abs(r) < d, xb, x)
    return _corner_pose(x, Tc, method)


def _check_pose4(T, name):
    T = as_array(T, name, trailing=(4, 4))
    if T.ndim != 2:
        raise ValueError(f"{name} must be one pose of shape (4, 4), got shape {T.shape}")
    R = T[:3, :3]
    if (
        np.abs(T[3] - [0.0, 0.0, 0.0, 1.0]).max() > 1e-9
        or np.abs(R.T @ R - np.eye(3)).max() > 1e-9
        or np.linalg.det(R) < 0
    ):
        raise ValueError(f"{name} must be a rigid transform (orthonormal rotation block, bottom row [0, 0, 0, 1])")
    return T
