"""Three-DOF quadruped leg with hip abduction: FK, closed-form IK with its four branches, Jacobian, stance
force control ``tau = J^T F``, and Raibert's foot placement on the linear inverted pendulum (chapter 2).

Frames and conventions (chapter 2, "A leg with hip abduction"):

* Hip frame: origin on the abduction axis, ``x`` forward, ``y`` left, ``z`` up.
* ``q = [theta0, theta1, theta2]`` (rad). ``theta0`` is the abduction angle about the body ``x`` axis (right-handed:
  positive swings a hanging foot towards ``+y``, i.e. out for a left leg). ``theta1`` and ``theta2`` are the hip and
  knee pitch of :class:`robokin.leg2.TwoLinkLeg`, measured in the leg plane after the abduction.
* The thigh sits at the lateral offset ``d = +l0`` (left leg) or ``d = -l0`` (right leg) along the abducted ``y``
  axis. With ``(x_s, z_s)`` the planar foot position of the two-link leg, eq. ``eq-ch02-fk``::

      p = R_x(theta0) [x_s, d, z_s]
        = [x_s,  d cos(theta0) - z_s sin(theta0),  d sin(theta0) + z_s cos(theta0)]

* IK branches (:attr:`ThreeDofLeg.branches`): the knee as in the two-link leg (``"knee-back"``: ``theta2 > 0``,
  ``"knee-front"``: ``theta2 < 0``), and the abduction: the leg below the abduction axis in its own plane
  (``z_s < 0``, the offset pointing out; the usual one) or above it (``z_s > 0``: the leg turned over the body, the
  offset pointing in, names ending in ``"-inner"``).
* Forces: ``F`` (N, hip frame) is the force the foot exerts on the ground; ``tau = J(q)^T F`` (N m) are the joint
  torques that produce it in static equilibrium (virtual work: ``tau . dq = F . dp``).

All functions are vectorised over leading batch axes and return float64 arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import wrap
from ._validate import as_array, choice, count, finite_scalar, on_unreachable_mode, positive
from .errors import UnreachableError
from .leg2 import TwoLinkLeg
from .results import IKResult

__all__ = ["ThreeDofLeg", "raibert_foot", "lip_stance", "raibert_steps"]

_REACH_TOL = 1e-12  # slack (relative to l0^2) on the distance from the abduction axis, for targets made by FK
#: ``(knee sign, z_s sign)`` of each IK branch
_BRANCH = {
    "knee-back": (1.0, -1.0),
    "knee-front": (-1.0, -1.0),
    "knee-back-inner": (1.0, 1.0),
    "knee-front-inner": (-1.0, 1.0),
}
G = 9.81  # m/s^2, the chapter's gravity


@dataclass(frozen=True)
class ThreeDofLeg:
    """Quadruped leg: hip abduction about ``x``, then hip and knee pitch; offset ``l0``, thigh ``l1``, shank ``l2``.

    Parameters
    ----------
    l0 : float
        Abduction offset (m, positive): the distance from the abduction axis to the leg plane.
    l1, l2 : float
        Thigh and shank lengths (m, positive).
    side : {"left", "right"}, keyword-only
        Which side of the body: the offset is ``+l0`` along ``y`` on the left, ``-l0`` on the right.

    Examples
    --------
    >>> leg = ThreeDofLeg(0.08, 0.2, 0.2)
    >>> leg.fk([0.0, 0.0, 0.0])
    array([ 0.  ,  0.08, -0.4 ])
    >>> res = leg.ik([0.05, 0.12, -0.3])
    >>> bool(res.valid), bool(res.residual < 1e-12), res.q.shape
    (True, True, (3,))
    """

    #: IK branch names, in the order of ``branch="all"``.
    branches: ClassVar[tuple[str, ...]] = tuple(_BRANCH)
    default_branch: ClassVar[str] = "knee-back"

    l0: float
    l1: float
    l2: float
    side: str = "left"

    def __post_init__(self):
        object.__setattr__(self, "l0", positive(self.l0, "l0"))
        object.__setattr__(self, "l1", positive(self.l1, "l1"))
        object.__setattr__(self, "l2", positive(self.l2, "l2"))
        choice(self.side, "side", ("left", "right"))

    @property
    def d(self) -> float:
        """Signed lateral offset (m): ``+l0`` for a left leg, ``-l0`` for a right leg."""
        return self.l0 if self.side == "left" else -self.l0

    @property
    def planar(self) -> TwoLinkLeg:
        """The two-link leg in the leg plane (thigh ``l1``, shank ``l2``)."""
        return TwoLinkLeg(self.l1, self.l2)

    # -- kinematics ---------------------------------------------------------------------------
    def fk(self, q: ArrayLike) -> np.ndarray:
        """Foot position ``[x, y, z]`` (m, hip frame) from ``q = [theta0, theta1, theta2]`` (rad), eq.
        ``eq-ch02-fk3``.

        Parameters
        ----------
        q : array_like, shape (..., 3)

        Returns
        -------
        ndarray, shape (..., 3)

        Examples
        --------
        >>> np.round(ThreeDofLeg(0.08, 0.2, 0.2, side="right").fk([np.pi / 2, 0.0, 0.0]), 12) + 0.0
        array([ 0.  ,  0.4 , -0.08])
        """
        return self._fk(as_array(q, "q", trailing=(3,)))

    def _fk(self, q):
        xs, zs = self.planar._fk_xz(q[..., 1], q[..., 1] + q[..., 2])
        c0, s0 = np.cos(q[..., 0]), np.sin(q[..., 0])
        d = self.d
        return np.stack([xs, d * c0 - zs * s0, d * s0 + zs * c0], axis=-1)

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Analytic Jacobian ``d[x, y, z]/d[theta0, theta1, theta2]`` (m/rad), eq. ``eq-ch02-jac3``.

        The abduction column is ``e_x x p``; the pitch columns are the two-link Jacobian's columns rotated by
        ``R_x(theta0)``. ``det J = l1 l2 sin(theta2) z_s``: singular with a straight or folded knee, and when the
        foot lies in the horizontal plane of the abduction axis in the leg's own frame (``z_s = 0``).

        Parameters
        ----------
        q : array_like, shape (..., 3)

        Returns
        -------
        ndarray, shape (..., 3, 3)
            Rows ``[dx, dy, dz]``, columns ``[dtheta0, dtheta1, dtheta2]``.

        Examples
        --------
        >>> ThreeDofLeg(0.08, 0.2, 0.2).jacobian([0.0, 0.0, 0.0]) + 0.0  # + 0.0 turns -0. into 0.
        array([[0.  , 0.4 , 0.2 ],
               [0.4 , 0.  , 0.  ],
               [0.08, 0.  , 0.  ]])
        """
        q = as_array(q, "q", trailing=(3,))
        p = self._fk(q)
        Jp = self.planar.jacobian(q[..., 1:])  # (..., 2, 2): rows [x_s, z_s]
        c0, s0 = np.cos(q[..., 0]), np.sin(q[..., 0])
        J = np.empty(q.shape[:-1] + (3, 3))
        J[..., 0, 0], J[..., 1, 0], J[..., 2, 0] = 0.0, -p[..., 2], p[..., 1]
        J[..., 0, 1:] = Jp[..., 0, :]
        J[..., 1, 1:] = -s0[..., None] * Jp[..., 1, :]
        J[..., 2, 1:] = c0[..., None] * Jp[..., 1, :]
        return J

    def joint_torques(self, q: ArrayLike, F: ArrayLike) -> np.ndarray:
        """Joint torques ``tau = J(q)^T F`` (N m) that make the foot push on the ground with ``F``, eq.
        ``eq-ch02-jtf``.

        Parameters
        ----------
        q : array_like, shape (..., 3)
            Joint angles (rad).
        F : array_like, shape (..., 3)
            Force of the foot on the ground (N) in the **hip frame** (not the abducted leg frame); broadcast
            against ``q``. Holding a body weight share ``m g`` is ``F = [0, 0, -m g]``.

        Returns
        -------
        ndarray, shape (..., 3)

        Examples
        --------
        >>> leg = ThreeDofLeg(0.08, 0.2, 0.2)
        >>> np.round(leg.joint_torques([0.0, 0.5, -1.0], [0.0, 0.0, -30.0]), 6) + 0.0
        array([-2.4     ,  0.      ,  2.876553])
        """
        q = as_array(q, "q", trailing=(3,))
        F = as_array(F, "F", trailing=(3,))
        return np.einsum("...ji,...j->...i", self.jacobian(q), F)

    def ik(
        self,
        p: ArrayLike,
        *,
        branch: Literal["knee-back", "knee-front", "knee-back-inner", "knee-front-inner", "all"] = "knee-back",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Closed-form inverse kinematics: abduction from the ``y``-``z`` projection, then the two-link IK in the
        leg plane, eqs. ``eq-ch02-ik3`` and ``eq-ch02-ik1``/``eq-ch02-ik2``.

        Parameters
        ----------
        p : array_like, shape (..., 3)
            Foot targets ``[x, y, z]`` (m, hip frame).
        branch : str, keyword-only
            One of :attr:`branches` or ``"all"`` (every branch, in that order).
        on_unreachable : {"raise", "nan"}, keyword-only
            ``"raise"``: :class:`~robokin.errors.UnreachableError` naming how many targets fail and why;
            ``"nan"``: NaN rows and ``valid`` False instead.

        Returns
        -------
        IKResult
            ``q`` ``(..., 3)`` (``(..., 4, 3)`` for ``"all"``) wrapped to ``[-pi, pi)``; ``valid``; ``residual``
            ``|fk(q) - p|`` (m); ``branch``.

        Examples
        --------
        >>> leg = ThreeDofLeg(0.08, 0.2, 0.2)
        >>> leg.ik([0.0, 0.0, -0.05])
        Traceback (most recent call last):
        ...
        robokin.errors.UnreachableError: 1 of 1 targets are unreachable (distance from the abduction axis < l0: 1); first: [0, 0, -0.05]. Pass on_unreachable="nan" to get NaN rows and a mask instead.
        >>> leg.ik([0.1, 0.1, -0.3], branch="all").q.shape
        (4, 3)
        """
        p = as_array(p, "p", trailing=(3,))
        branch = choice(branch, "branch", self.branches + ("all",))
        mode = on_unreachable_mode(on_unreachable)
        names = self.branches if branch == "all" else (branch,)
        lead, pf = p.shape[:-1], p.reshape(-1, 3)
        n, k = len(pf), len(names)
        x, y, z = pf[:, 0], pf[:, 1], pf[:, 2]
        d = self.d
        with np.errstate(over="ignore", invalid="ignore"):  # |p| ~ 1e154 overflows to inf: correctly "too far"
            r2 = y * y + z * z - d * d
            too_near = r2 < -_REACH_TOL * d * d
            zs_abs = np.sqrt(np.maximum(r2, 0.0))
            q = np.empty((n, k, 3))
            bad = np.empty((n, k), bool)
            too_far = np.zeros(n, bool)
            too_close = np.zeros(n, bool)
            planar = self.planar
            for j, name in enumerate(names):
                knee, zsign = _BRANCH[name]
                zs = zsign * zs_abs
                q[:, j, 0] = wrap(np.arctan2(z, y) - np.arctan2(zs, d))
                pl = np.stack([x, zs], axis=-1)
                qj, res_j = np.empty((n, 1, 2)), np.empty((n, 1))
                far, close = np.empty(n, bool), np.empty(n, bool)
                planar._ik_chunk(pl, (knee,), qj, res_j, far, close)
                q[:, j, 1:] = qj[:, 0]
                too_far |= far & ~too_near
                too_close |= close & ~too_near
                bad[:, j] = too_near | far | close
            residual = np.linalg.norm(self._fk(q) - pf[:, None, :], axis=-1)
        failed = np.all(bad, axis=-1)
        if mode == "raise" and np.any(failed):
            parts = [
                f"{label}: {int(np.count_nonzero(m & failed))}"
                for label, m in (
                    ("distance from the abduction axis < l0", too_near),
                    ("distance > l1 + l2 in the leg plane", too_far),
                    ("distance < |l1 - l2| in the leg plane", too_close),
                )
                if np.any(m & failed)
            ]
            raise UnreachableError(
                int(np.count_nonzero(failed)), pf[int(np.argmax(failed))], total=n, reason=", ".join(parts)
            )
        q[bad] = np.nan
        residual[bad] = np.nan
        if branch == "all":
            return IKResult(
                q=q.reshape(lead + (k, 3)),
                valid=~bad.reshape(lead + (k,)),
                residual=residual.reshape(lead + (k,)),
                branch=self.branches,
            )
        res = residual.reshape(lead)
        return IKResult(
            q=q.reshape(lead + (3,)), valid=~bad.reshape(lead), residual=res if lead else res[()], branch=branch
        )


# -- Raibert foot placement on the linear inverted pendulum --------------------------------------------------
def raibert_foot(v: ArrayLike, v_des: ArrayLike, *, t_stance: float, k: float) -> np.ndarray:
    """Raibert's foot placement ``x_f = v T_st / 2 + k (v - v_des)`` (m ahead of the hip), eq. ``eq-ch02-raibert``.

    Raibert measures ``x_f`` from the projection of the centre of gravity; the linear inverted pendulum of
    :func:`lip_stance` takes the hip as the centre of mass, so "ahead of the hip" here is ``-x0`` there.

    Parameters
    ----------
    v, v_des : array_like
        Forward speed and desired speed (m/s), broadcast together.
    t_stance : float
        Stance duration ``T_st`` (s, positive), keyword-only.
    k : float
        Speed feedback gain (s, i.e. m of foot offset per m/s of speed error, >= 0), keyword-only.

    Returns
    -------
    ndarray
        Foot position ahead of the hip at touchdown (m), the broadcast shape of ``v`` and ``v_des``.

    Examples
    --------
    >>> raibert_foot([0.5, 0.7], 0.6, t_stance=0.2, k=0.1)
    array([0.04, 0.08])
    """
    v = as_array(v, "v")
    v_des = as_array(v_des, "v_des")
    t_stance = positive(t_stance, "t_stance")
    k = finite_scalar(k, "k")
    if k < 0:
        raise ValueError(f"k must be >= 0 s (a negative gain pushes the speed away from v_des), got {k:g}")
    return v * t_stance / 2 + k * (v - v_des)


def lip_stance(
    x0: ArrayLike, v0: ArrayLike, *, height: float, t: ArrayLike, g: float = G
) -> tuple[np.ndarray, np.ndarray]:
    """Linear inverted pendulum ``x'' = (g / h) x``: centre of mass ``x`` relative to the foot after time ``t``,
    eq. ``eq-ch02-lip``.

    Parameters
    ----------
    x0, v0 : array_like
        Position of the centre of mass relative to the stance foot (m) and its speed (m/s) at touchdown.
    height : float
        Constant height ``h`` of the centre of mass (m, positive), keyword-only.
    t : array_like
        Time since touchdown (s, >= 0), keyword-only; broadcast against ``x0`` and ``v0``.
    g : float
        Gravity (m/s^2, positive), keyword-only.

    Returns
    -------
    x, v : ndarray
        Position (m) and speed (m/s), the broadcast shape.

    Examples
    --------
    >>> x, v = lip_stance(-0.05, 0.6, height=0.3, t=0.0)
    >>> float(x), float(v)
    (-0.05, 0.6)
    """
    x0 = as_array(x0, "x0")
    v0 = as_array(v0, "v0")
    t = as_array(t, "t")
    height = positive(height, "height")
    g = positive(g, "g")
    if np.any(t < 0):
        raise ValueError("t must be >= 0 s (time since touchdown)")
    w = np.sqrt(g / height)
    with np.errstate(over="ignore"):
        ch, sh = np.cosh(w * t), np.sinh(w * t)
    if not (np.all(np.isfinite(ch))):
        raise ValueError(
            f"t sqrt(g / height) overflows cosh (t = {np.max(t):g} s, height = {height:g} m, g = {g:g}): "
            "a stance this long or a height this small leaves the pendulum's range"
        )
    return x0 * ch + v0 / w * sh, x0 * w * sh + v0 * ch


def raibert_steps(
    v0: ArrayLike, v_des: ArrayLike, *, k: float, height: float, t_stance: float, n_steps: int = 10, g: float = G
) -> np.ndarray:
    """Touchdown speeds of a hopper whose stance is a linear inverted pendulum and whose foot follows
    :func:`raibert_foot`; the flight keeps the horizontal speed (ballistic), so the stride map is
    ``v_{n+1} = v(T_st)`` of :func:`lip_stance` from ``x0 = -x_f``.

    Parameters
    ----------
    v0, v_des : array_like
        Touchdown speed of the first step and desired speed (m/s), broadcast together.
    k, height, t_stance, g : float, keyword-only
        As in :func:`raibert_foot` and :func:`lip_stance`.
    n_steps : int, keyword-only
        Number of steps (>= 1).

    Returns
    -------
    ndarray, shape (n_steps + 1, ...)
        Speed at each touchdown, ``v[0] = v0``.

    Examples
    --------
    >>> v = raibert_steps(0.3, 0.6, k=0.1, height=0.3, t_stance=0.2, n_steps=20)
    >>> bool(abs(v[-1] - 0.6) < abs(v[0] - 0.6))
    True
    """
    v0 = as_array(v0, "v0")
    v_des = as_array(v_des, "v_des")
    n_steps = count(n_steps, "n_steps", max=1_000_000)
    v0, v_des = np.broadcast_arrays(v0, v_des)
    t_stance = positive(t_stance, "t_stance")
    k = finite_scalar(k, "k")
    height = positive(height, "height")
    g = positive(g, "g")
    a = np.sqrt(g / height) * t_stance
    if not a < 700.0:  # cosh and sinh overflow float64 beyond ~710
        raise ValueError(
            f"omega t_stance = sqrt(g / height) t_stance = {a:.4g} is too large (height = {height:g} m, t_stance = "
            f"{t_stance:g} s): the pendulum's stance map overflows; height is the hip height in m"
        )
    with np.errstate(over="ignore"):
        lam = float(np.cosh(a) - (a / 2 + np.sqrt(g / height) * k) * np.sinh(a))  # v_{n+1} = lam v_n + const
    out = np.empty((n_steps + 1,) + v0.shape)
    out[0] = v0
    for i in range(n_steps):
        if abs(lam) > 1 and np.any(np.abs(out[i]) > 1e6):
            raise ValueError(
                f"the stride map diverges: v_(n+1) = lambda v_n + omega k sinh(omega T_st) v_des with lambda = "
                f"{lam:.4g} (|lambda| > 1 for t_stance = {t_stance:g} s, height = {height:g} m, k = {k:g} s), and "
                f"|v| passed 1e6 m/s after {i} steps; a shorter stance or a larger gain k brings |lambda| below 1"
            )
        xf = raibert_foot(out[i], v_des, t_stance=t_stance, k=k)
        out[i + 1] = lip_stance(-xf, out[i], height=height, t=t_stance, g=g)[1]
    return out
