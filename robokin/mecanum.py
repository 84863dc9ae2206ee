"""Mecanum-wheel chassis: wheel-speed map, odometry, heading fusion, PWM calibration.

Conventions (chapter 8 of the course):

* Body frame: origin at the chassis centre, **x forward, y left, z up**.
  Body twist ``[vx, vy, omega]`` in m/s, m/s, rad/s; ``omega > 0`` is
  **counter-clockwise seen from above**.
* Wheel order **FL, FR, RL, RR** (front-left, front-right, rear-left,
  rear-right). This is *not* clockwise: clockwise numbering is FL, FR, RR, RL
  (see :func:`reorder_wheels`). A positive wheel speed (rad/s) drives the
  chassis forward (+x).
* Wheel ``i`` touches the ground at ``p_i = (±lx, ±ly)``; ``lx`` is half the
  wheelbase, ``ly`` half the track, ``r`` the wheel radius (metres).
* The roller touching the ground has its axis at angle ``gamma_i`` from the
  body x axis. ``config="X"`` (the usual chassis) has
  ``gamma = (-a, +a, +a, -a)`` for FL, FR, RL, RR, ``a = roller_angle``: seen
  from above, the *top* rollers form an X (the ground-contact rollers, their
  mirror image, form an O; some Chinese sources name the same chassis "O").
  ``config="O"`` mirrors every wheel; it cannot rotate a square chassis.
* World pose ``[x, y, theta]`` (m, m, rad), theta wrapped to ``[-pi, pi)``.

Rolling constraint: only the velocity of the contact point along the roller
axis ``a_i`` is driven by the wheel, the component along the roller's free
direction is unconstrained, hence ``a_i . (v + omega x p_i) = r w_i a_i . e_x``:

    w_i = (vx - omega y_i + tan(gamma_i) (vy + omega x_i)) / r
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import least_squares

from ._primitives import wrap
from ._validate import as_array, broadcast, choice, finite_scalar, on_unreachable_mode, positive
from .errors import SingularityWarning, UnreachableError
from .results import IKResult

__all__ = [
    "WHEELS",
    "Mecanum",
    "SignTestResult",
    "reorder_wheels",
    "integrate_twist",
    "odometry",
    "fuse_heading",
    "pwm_model",
    "fit_pwm",
    "PWMFit",
]

WHEELS = ("FL", "FR", "RL", "RR")
"""Wheel order of every (..., 4) array in this module."""

_GAMMA_SIGNS = {"X": (-1.0, 1.0, 1.0, -1.0), "O": (1.0, -1.0, -1.0, 1.0)}
_COND_MAX = 1e8  # beyond this the 4x3 map has (numerically) lost a direction
# ik: relative twist error |fk(ik(t)) - t| / max(1, |t|) above which the layout cannot produce t. Round-off
# there grows like eps * cond(M) (measured about 2.4 eps cond), hence the cond term; only a rank-deficient map
# (cond capped at _COND_MAX) misses a twist by more.
_IK_TOL = 1e-9


def reorder_wheels(w: ArrayLike, order: Sequence[str], *, source: Sequence[str] = WHEELS) -> np.ndarray:
    """Permute the last axis of wheel data from one wheel order to another.

    Parameters
    ----------
    w : array_like, shape (..., 4) or (..., 4, k)
        Wheel quantities in ``source`` order. If the last axis has length 4 it
        is permuted; otherwise the second-to-last is (the rows of a wheel
        matrix such as :attr:`Mecanum.matrix`).
    order : sequence of str
        Target order, a permutation of ``"FL", "FR", "RL", "RR"``; clockwise
        numbering is ``("FL", "FR", "RR", "RL")``.
    source : sequence of str
        Order of ``w`` (default :data:`WHEELS`).

    Returns
    -------
    ndarray
        Same shape, entries (or rows) in ``order``.

    Examples
    --------
    >>> reorder_wheels([1.0, 2.0, 3.0, 4.0], ("FL", "FR", "RR", "RL"))
    array([1., 2., 4., 3.])
    """
    for name, o in (("order", order), ("source", source)):
        try:
            ok = not isinstance(o, str) and all(isinstance(n, str) for n in o) and sorted(o) == sorted(WHEELS)
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"{name} must be a permutation of {WHEELS}, got {o!r}")
    idx = [list(source).index(n) for n in order]
    a = as_array(w, "w")
    if a.ndim >= 1 and a.shape[-1] == 4:
        return a[..., idx]
    a = as_array(a, "w", trailing=(4, None))
    return a[..., idx, :]


@dataclass(frozen=True)
class SignTestResult:
    """Outcome of the three sign tests (pure vx, pure vy, pure omega).

    Attributes
    ----------
    executed : ndarray, shape (3, 3)
        Column ``j`` is the twist the chassis actually performs (least-squares
        fit of the real wheel speeds) when unit command ``j`` is sent:
        ``[1, 0, 0]`` (1 m/s forward), ``[0, 1, 0]`` (1 m/s left),
        ``[0, 0, 1]`` (1 rad/s counter-clockwise). Identity when all is well.
    inconsistency : ndarray, shape (3,)
        Slip residual (rad/s) of the wheel speeds of each test: non-zero means
        the wheels fight each other.
    passed : ndarray of bool, shape (3,)
        Per test: executed twist equals the command and the wheels agree.
    """

    executed: np.ndarray
    inconsistency: np.ndarray
    passed: np.ndarray

    @property
    def ok(self) -> bool:
        """True when all three tests pass."""
        return bool(np.all(self.passed))

    def __str__(self):
        names = ("vx", "vy", "omega")
        parts = []
        for j, n in enumerate(names):
            e = self.executed[:, j]
            tag = "ok" if self.passed[j] else "FAIL"
            parts.append(f"{n}: {tag} -> [{e[0]:+.2f}, {e[1]:+.2f}, {e[2]:+.2f}] slip {self.inconsistency[j]:+.2f}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Mecanum:
    """Four-wheel mecanum chassis (wheel order FL, FR, RL, RR).

    Parameters
    ----------
    r : float
        Wheel radius (m), to the roller contact.
    lx : float
        Half wheelbase (m): distance from the centre to the front axle along x.
    ly : float
        Half track (m): distance from the centre to a wheel's contact along y.
    roller_angle : float, keyword-only
        Angle ``a`` between the roller axis and the wheel's rolling direction,
        in (0, pi/2) rad; pi/4 for standard wheels.
    config : {"X", "O"}, keyword-only
        Roller handedness layout (see the module docstring). "X" is the
        standard, fully mobile chassis.

    Notes
    -----
    The mechanism protocol (``book/conventions.md``) with the four wheel speeds ``w`` (rad/s) as the joint
    coordinates and the body twist ``[vx, vy, omega]`` as the task-space value: :meth:`fk` maps wheel speeds to
    the twist (least squares), :meth:`ik` a twist to the wheel speeds (one solution: ``branches = ("unique",)``),
    :meth:`jacobian` is the constant ``d twist / d w``.

    Examples
    --------
    >>> car = Mecanum(0.076, 0.2, 0.2)
    >>> np.round(car.ik([1.0, 0.0, 0.0]).q, 3)   # forward: all wheels forward
    array([13.158, 13.158, 13.158, 13.158])
    >>> np.round(car.ik([0.0, 1.0, 0.0]).q, 3)   # left: FL, RR backwards
    array([-13.158,  13.158,  13.158, -13.158])
    >>> np.round(car.fk(car.ik([0.3, -0.2, 0.5]).q), 12)
    array([ 0.3, -0.2,  0.5])
    """

    branches: ClassVar[tuple[str, ...]] = ("unique",)
    """Branch names of :meth:`ik`: the wheel speeds of a twist are unique."""
    default_branch: ClassVar[str] = "unique"

    r: float
    lx: float
    ly: float
    roller_angle: float = field(default=np.pi / 4, kw_only=True)
    config: str = field(default="X", kw_only=True)

    def __post_init__(self):
        for name in ("r", "lx", "ly"):
            object.__setattr__(self, name, positive(getattr(self, name), name))
        a = finite_scalar(self.roller_angle, "roller_angle")
        if not 0.0 < a < np.pi / 2:
            raise ValueError(f"roller_angle must lie in (0, pi/2) rad, got {a!r} (pi/4 for standard wheels)")
        object.__setattr__(self, "roller_angle", a)
        choice(self.config, "config", ("X", "O"))
        M = self._build_matrix()
        M.flags.writeable = False
        object.__setattr__(self, "_M", M)
        # least-squares inverse and the unit left null vector n (n^T M = 0)
        U, s, _ = np.linalg.svd(M)
        object.__setattr__(self, "_cond", float(s[0] / s[-1]) if s[-1] > 0 else np.inf)
        pinv = np.linalg.pinv(M)
        pinv.flags.writeable = False
        object.__setattr__(self, "_pinv", pinv)
        n = U[:, 3] * np.sign(U[0, 3]) if U[0, 3] != 0 else U[:, 3]
        n.flags.writeable = False
        object.__setattr__(self, "_n", n)

    def _build_matrix(self):
        x = np.array([1.0, 1.0, -1.0, -1.0]) * self.lx
        y = np.array([1.0, -1.0, 1.0, -1.0]) * self.ly
        t = np.array(_GAMMA_SIGNS[self.config]) * np.tan(self.roller_angle)
        return np.stack([np.ones(4), t, x * t - y], axis=-1) / self.r

    # ------------------------------------------------------------------ geometry
    @property
    def matrix(self) -> np.ndarray:
        """The 4x3 map ``w = M @ [vx, vy, omega]`` (rows FL, FR, RL, RR), read-only.

        For the X layout with 45 degree rollers ``M = (1/r) [[1, -1, -(lx+ly)],
        [1, 1, lx+ly], [1, 1, -(lx+ly)], [1, -1, lx+ly]]``.
        """
        return self._M

    @property
    def contact_points(self) -> np.ndarray:
        """Wheel contact points ``(4, 2)`` in the body frame (m), rows FL, FR, RL, RR."""
        return np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=float) * [self.lx, self.ly]

    @property
    def roller_axes(self) -> np.ndarray:
        """Unit axis of each ground-contact roller ``(4, 2)``, body frame."""
        g = np.array(_GAMMA_SIGNS[self.config]) * self.roller_angle
        return np.stack([np.cos(g), np.sin(g)], axis=-1)

    @property
    def null_vector(self) -> np.ndarray:
        """Unit vector ``n`` with ``n @ M = 0`` (shape (4,)): the one wheel pattern no twist produces.

        For the X layout ``n = (1, 1, -1, -1) / 2``: consistent wheel speeds obey
        ``w_FL + w_FR = w_RL + w_RR``.
        """
        return self._n

    @property
    def cond(self) -> float:
        """Condition number of :attr:`matrix` (``inf`` when rank deficient)."""
        return self._cond

    # ------------------------------------------------------------------ maps
    def ik(
        self,
        twist: ArrayLike,
        *,
        branch: Literal["unique", "all"] = "unique",
        on_unreachable: Literal["raise", "nan"] = "raise",
    ) -> IKResult:
        """Wheel speeds for a body twist (inverse kinematics): ``w = M @ twist``.

        Parameters
        ----------
        twist : array_like, shape (..., 3)
            ``[vx, vy, omega]`` in the body frame (m/s, m/s, rad/s, omega
            counter-clockwise positive).
        branch : {"unique", "all"}
            The only branch is ``"unique"``; ``"all"`` adds a branch axis of length 1.
        on_unreachable : {"raise", "nan"}
            What to do with a twist the layout cannot produce (only a rank-deficient chassis has one, e.g.
            ``config="O"`` with ``lx == ly`` asked to spin): raise :class:`~robokin.errors.UnreachableError`,
            or return NaN wheel speeds with ``valid`` False.

        Returns
        -------
        robokin.results.IKResult
            ``q``: wheel speeds (rad/s), shape (..., 4) in order FL, FR, RL, RR, positive drives +x
            (``(..., 1, 4)`` for ``branch="all"``). ``valid``: the twist is produced, i.e. :meth:`fk` of ``q``
            returns it to ``1e-9`` relative to ``max(1, |twist|)`` (``100 eps cond(M)`` if larger).
            ``residual``: ``|fk(q) - twist|`` (m/s and rad/s combined), round-off for a full-rank chassis.

        Raises
        ------
        UnreachableError
            With ``on_unreachable="raise"``, when some twist cannot be produced.

        Examples
        --------
        >>> res = Mecanum(0.05, 0.2, 0.15).ik([[0, 0, 1.0]])   # spin CCW
        >>> np.round(res.q, 3), res.valid, res.branch
        (array([[-7.,  7., -7.,  7.]]), array([ True]), 'unique')
        >>> Mecanum(0.076, 0.2, 0.2, config="O").ik([0.0, 0.0, 1.0])   # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        robokin.errors.UnreachableError: 1 target is unreachable (the layout cannot produce this twist...
        """
        t = as_array(twist, "twist", trailing=(3,))
        choice(branch, "branch", self.branches + ("all",))
        mode = on_unreachable_mode(on_unreachable)
        w = t @ self._M.T
        residual = np.linalg.norm(w @ self._pinv.T - t, axis=-1)
        tol = max(_IK_TOL, 100 * np.finfo(float).eps * min(self._cond, _COND_MAX))
        valid = residual <= tol * np.maximum(1.0, np.linalg.norm(t, axis=-1))
        if not np.all(valid):
            if mode == "raise":
                bad = ~valid
                raise UnreachableError(
                    int(bad.sum()),
                    t[bad][0],
                    total=int(valid.size) if valid.ndim else None,
                    reason=f"the layout cannot produce this twist: the wheel map has rank < 3 (cond {self._cond:.3g})",
                )
            w = np.where(valid[..., None], w, np.nan)
            residual = np.where(valid, residual, np.nan)
        if branch == "all":
            return IKResult(
                q=w[..., None, :], valid=valid[..., None], residual=residual[..., None], branch=self.branches
            )
        return IKResult(q=w, valid=valid, residual=residual, branch=branch)

    def fk(self, w: ArrayLike) -> np.ndarray:
        """Body twist from four wheel speeds (forward kinematics), by least squares (pseudo-inverse).

        Four wheel speeds for three twist components: the map is over-determined.
        The result minimises ``||M t - w||``; when the wheels slip or disagree the
        remainder is reported by :meth:`inconsistency` / :meth:`residual`.

        Parameters
        ----------
        w : array_like, shape (..., 4)
            Wheel speeds (rad/s), order FL, FR, RL, RR.

        Returns
        -------
        ndarray, shape (..., 3)
            ``[vx, vy, omega]`` (body frame).

        Warns
        -----
        SingularityWarning
            If the layout cannot produce every twist (e.g. ``config="O"`` with
            ``lx == ly``): the twist is then the minimum-norm solution.

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> np.round(car.fk([10.0, 10.0, 10.0, 10.0]), 12)
        array([0.5, 0. , 0. ])
        """
        w = as_array(w, "w", trailing=(4,))
        self._warn_singular("Mecanum.fk")
        return w @ self._pinv.T

    def jacobian(self, w: ArrayLike | None = None) -> np.ndarray:
        """The constant Jacobian ``d twist / d w`` of :meth:`fk`: the pseudo-inverse ``M^+`` (3, 4), read-only.

        Parameters
        ----------
        w : array_like, shape (..., 4), optional
            Wheel speeds; the map is linear, so they only set the batch shape of the result.

        Returns
        -------
        ndarray, shape (3, 4), or (..., 3, 4) when ``w`` is given
            Rows ``vx, vy, omega``; columns FL, FR, RL, RR.

        Warns
        -----
        SingularityWarning
            As :meth:`fk`, for a layout that cannot produce every twist.

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> np.round(car.jacobian() @ car.matrix, 12) + 0.0   # M^+ M = I
        array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]])
        >>> car.jacobian(np.zeros((5, 4))).shape
        (5, 3, 4)
        """
        self._warn_singular("Mecanum.jacobian")
        if w is None:
            return self._pinv
        w = as_array(w, "w", trailing=(4,))
        return np.broadcast_to(self._pinv, w.shape[:-1] + (3, 4))

    # ------------------------------------------------------------------ forces
    def wrench(self, tau: ArrayLike) -> np.ndarray:
        """Body wrench ``[Fx, Fy, Mz]`` that four wheel torques apply to the chassis: ``F = M^T tau``.

        By virtual work (:eq:`eq-ch08-wrench`): the motors' power ``tau . w`` with ``w = M t`` equals the power
        ``F . t`` the ground delivers to the body for every twist ``t``, so ``F = M^T tau``. Wheel ``i`` pushes
        along its ground roller's axis ``a_i`` with ``(tau_i / r) [1, tan(gamma_i)]`` (the free roller carries
        no force across it), applied at the contact point; ``M^T tau`` is the resultant and its moment.
        Assumes massless wheels, frictionless roller bearings and no slip along ``a_i``.

        Parameters
        ----------
        tau : array_like, shape (..., 4)
            Wheel torques (N m), order FL, FR, RL, RR; positive drives the chassis forward (+x).

        Returns
        -------
        ndarray, shape (..., 3)
            ``[Fx, Fy, Mz]`` in the body frame (N, N, N m; ``Mz`` counter-clockwise seen from above).

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> np.round(car.wrench([1.0, 1.0, 1.0, 1.0]), 12) + 0.0   # 1 N m on every wheel: 4 N / 0.05 m forward
        array([80.,  0.,  0.])
        >>> np.round(car.wrench([-1.0, 1.0, -1.0, 1.0]), 12) + 0.0  # spin pattern: moment 4 (lx + ly) / r
        array([ 0.,  0., 28.])
        """
        t = as_array(tau, "tau", trailing=(4,))
        return t @ self._M

    def traction_torque(self, normal_force: ArrayLike, *, mu: float) -> np.ndarray:
        """Largest wheel torque each wheel can apply before its contact slides: ``mu N_i r cos(gamma_i)``.

        The ground force of wheel ``i`` lies along its roller axis (see :meth:`wrench`) and has magnitude
        ``|tau_i| / (r cos(gamma_i))``; Coulomb friction bounds it by ``mu N_i`` (:eq:`eq-ch08-traction`). The
        drive force ``tau_i / r`` is therefore limited to ``mu N_i cos(alpha)``, not ``mu N_i``.

        Parameters
        ----------
        normal_force : array_like, shape (..., 4)
            Normal load on each wheel (N), non-negative, order FL, FR, RL, RR.
        mu : float, keyword-only
            Coulomb friction coefficient between roller and ground, non-negative.

        Returns
        -------
        ndarray, shape (..., 4)
            Torque limits (N m), the ``tau_max`` of :meth:`max_wrench`.

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> np.round(car.traction_torque([25.0, 25.0, 25.0, 25.0], mu=0.6), 6)   # 0.6 * 25 N * 0.05 m / sqrt(2)
        array([0.53033, 0.53033, 0.53033, 0.53033])
        """
        N = as_array(normal_force, "normal_force", trailing=(4,))
        if np.any(N < 0):
            raise ValueError(f"normal_force must be non-negative (N), got {N.min()!r}: a wheel cannot pull the ground")
        mu = finite_scalar(mu, "mu")
        if mu < 0:
            raise ValueError(f"mu must be non-negative, got {mu!r}")
        return mu * N * self.r * np.cos(self.roller_angle)

    def max_wrench(self, direction: ArrayLike, *, tau_max: ArrayLike) -> np.ndarray:
        """Largest scale ``s >= 0`` such that the wrench ``s * direction`` is ``M^T tau`` with ``|tau_i| <= tau_max_i``.

        The achievable wrenches form the zonotope ``{M^T tau : |tau_i| <= tau_max_i}``. The torques for a wrench
        are ``tau = s g + c n`` with ``g = (M^T)^+ direction`` and the free amount ``c`` of the null vector ``n``
        (:attr:`null_vector`), so ``s`` is the largest value for which some ``c`` meets the four bounds; each
        pair of bounds limits ``s`` linearly and the result is the smallest of those limits (closed form,
        vectorised; it agrees with a linear program, see the tests).

        Parameters
        ----------
        direction : array_like, shape (..., 3)
            Wrench direction ``[Fx, Fy, Mz]`` (N, N, N m; ``Mz`` about the chassis centre), not zero. For the
            largest acceleration ``[ax, ay, alpha]`` of the chassis centre at rest, pass ``D_O @ [ax, ay, alpha]``
            with the inertia about the centre ``D_O = [[m, 0, -m cy], [0, m, m cx], [-m cy, m cx, I_c + m |c|^2]]``
            (centre of mass at ``c = (cx, cy)``, ``I_c`` the yaw inertia about it); ``s`` is then the acceleration
            scale. ``[m ax, m ay, I_z alpha]`` is right only with the centre of mass at the chassis centre: a pure
            translation of an off-centre mass needs the moment ``m (cx ay - cy ax)``, or the chassis turns.
        tau_max : array_like, shape (..., 4)
            Non-negative torque limit of each wheel (N m), e.g. :meth:`traction_torque` or the motors' peak
            torque, whichever is smaller.

        Returns
        -------
        ndarray, shape (...)
            ``s`` (dimensionless multiple of ``direction``).

        Raises
        ------
        ValueError
            Zero direction, negative or non-finite limits, or a rank-deficient layout (``config="O"`` with
            ``lx == ly``), whose wrenches do not span the plane.

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> round(float(car.max_wrench([1.0, 0.0, 0.0], tau_max=[0.5, 0.5, 0.5, 0.5])), 9)   # 4 x 0.5 / 0.05 N
        40.0
        >>> round(float(car.max_wrench([1.0, 1.0, 0.0], tau_max=[0.5, 0.5, 0.5, 0.5])), 9)   # diagonal: 2 wheels
        20.0
        """
        d = as_array(direction, "direction", trailing=(3,))
        b = as_array(tau_max, "tau_max", trailing=(4,))
        if not np.all(np.any(d != 0, axis=-1)):  # not the norm: it underflows to 0 for tiny non-zero wrenches
            raise ValueError("direction must be a non-zero wrench [Fx, Fy, Mz]")
        if np.any(b < 0):
            raise ValueError(f"tau_max must be non-negative (N m), got {b.min()!r}")
        if self._cond > _COND_MAX:
            raise ValueError(
                f"max_wrench needs a layout whose wheels span every wrench (cond {self._cond:.3g}); "
                "this one (config='O' with lx == ly?) cannot produce a yaw moment"
            )
        return _max_scale(d @ self._pinv, b, self._n)

    def _warn_singular(self, where):
        if self._cond > _COND_MAX:
            warnings.warn(SingularityWarning(self._cond, f"{where}: the wheel map has lost a direction"), stacklevel=3)

    def inconsistency(self, w: ArrayLike) -> float | np.ndarray:
        """Signed slip residual ``n . w`` (rad/s): zero when the wheel speeds fit one rigid twist.

        Its magnitude equals ``||w - M fk(w)||``. For the X layout it is
        ``(w_FL + w_FR - w_RL - w_RR) / 2``.

        Parameters
        ----------
        w : array_like, shape (..., 4)

        Returns
        -------
        ndarray, shape (...)

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> round(float(car.inconsistency([10.0, 10.0, 10.0, 12.0])), 12)   # RR spins 2 rad/s too fast
        -1.0
        """
        w = as_array(w, "w", trailing=(4,))
        return w @ self._n

    def residual(self, w: ArrayLike) -> np.ndarray:
        """Least-squares residual vector ``w - M fk(w)`` (rad/s), shape (..., 4).

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> np.round(car.residual([10.0, 10.0, 10.0, 12.0]), 12)
        array([-0.5, -0.5,  0.5,  0.5])
        """
        w = as_array(w, "w", trailing=(4,))
        return w - (w @ self._pinv.T) @ self._M.T

    def sign_tests(self, wiring: ArrayLike | None = None, *, tol: float = 1e-9) -> SignTestResult:
        """Run the three sign tests (pure vx, pure vy, pure omega).

        Parameters
        ----------
        wiring : array_like, shape (4, 3), optional
            The map from commanded twist to the wheel speeds the chassis really
            gets (firmware matrix combined with the wiring). Default: this
            chassis' correct :attr:`matrix`. Pass a broken matrix to see the
            failure signature of a wiring mistake.
        tol : float
            Tolerance on the executed twist and the slip residual.

        Returns
        -------
        SignTestResult

        Examples
        --------
        >>> car = Mecanum(0.05, 0.2, 0.15)
        >>> car.sign_tests().ok
        True
        >>> swapped = car.matrix[[1, 0, 2, 3]]   # FL and FR plugs swapped
        >>> car.sign_tests(swapped).passed
        array([ True, False, False])
        """
        A = self._M if wiring is None else as_array(wiring, "wiring", trailing=(4, 3))
        if A.ndim != 2:
            raise ValueError(f"wiring must be a single (4, 3) matrix, got shape {A.shape}")
        tol = finite_scalar(tol, "tol")
        if tol < 0:
            raise ValueError(f"tol must be a finite non-negative number, got {tol!r}")
        W = A @ np.eye(3)  # columns: wheel speeds of the three unit commands
        executed = self._pinv @ W
        slip = self._n @ W
        err = np.abs(executed - np.eye(3)).max(axis=0)
        passed = (err <= tol) & (np.abs(slip) <= tol * np.abs(W).max(initial=1.0))
        return SignTestResult(executed=executed, inconsistency=slip, passed=passed)


def _max_scale(g, b, n):
    """Largest ``s >= 0`` with ``|s g_i + c n_i| <= b_i`` for some ``c`` (kernel of :meth:`Mecanum.max_wrench`)."""
    g, b = np.broadcast_arrays(g, b)
    nz = np.abs(n) > 1e-12 * np.abs(n).max()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # 1 / tiny -> inf: no limit
        # wheels the null vector does not move: |s g_i| <= b_i directly
        lim = np.where(np.abs(g[..., ~nz]) > 0, b[..., ~nz] / np.abs(g[..., ~nz]), np.inf)
        h, e = g[..., nz] / n[nz], b[..., nz] / np.abs(n[nz])  # c in [-h_i s - e_i, -h_i s + e_i]
        i, j = np.triu_indices(h.shape[-1], k=1)  # the intervals intersect iff |h_i - h_j| s <= e_i + e_j
        den = np.abs(h[..., i] - h[..., j])
        pair = np.where(den > 0, (e[..., i] + e[..., j]) / den, np.inf)
    return np.minimum(lim.min(axis=-1, initial=np.inf), pair.min(axis=-1, initial=np.inf))


# ---------------------------------------------------------------------- odometry
def _dtheta_terms(phi):
    """``sin(phi)/phi`` and ``(1 - cos(phi))/phi`` with series near 0.

    ``1 - cos(phi)`` is evaluated as ``2 sin^2(phi/2)``: the subtraction cancels and, just above the series
    threshold, kept only about 8 digits.
    """
    small = np.abs(phi) < 1e-4
    ps = np.where(small, 1.0, phi)
    p2 = phi * phi
    a = np.where(small, 1 - p2 / 6 + p2 * p2 / 120, np.sin(ps) / ps)
    b = np.where(small, phi / 2 - phi * p2 / 24, 2 * np.sin(ps / 2) ** 2 / ps)
    return a, b


def _increments(theta, twist, dt, method):
    """World-frame displacement of each step, starting heading ``theta``."""
    vx, vy, w = twist[..., 0] * dt, twist[..., 1] * dt, twist[..., 2] * dt
    if method == "exact":
        a, b = _dtheta_terms(w)
        dx_b, dy_b = a * vx - b * vy, b * vx + a * vy  # V(phi) @ v dt, body frame at step start
    else:  # "euler": velocity frozen at the start heading
        dx_b, dy_b = vx, vy
    c, s = np.cos(theta), np.sin(theta)
    return c * dx_b - s * dy_b, s * dx_b + c * dy_b, w


def integrate_twist(
    pose: ArrayLike, twist: ArrayLike, dt: float, *, method: Literal["exact", "euler"] = "exact"
) -> np.ndarray:
    """One odometry step: move a world pose by a constant body twist for ``dt``.

    ``"exact"`` is the SE(2) exponential (the chassis follows a circular arc);
    ``"euler"`` moves straight along the start heading, error ``O(omega dt^2 v)``.

    Parameters
    ----------
    pose : array_like, shape (..., 3)
        ``[x, y, theta]`` in the world frame (m, m, rad).
    twist : array_like, shape (..., 3)
        Body twist ``[vx, vy, omega]``, constant over the step.
    dt : float
        Step (s), positive.
    method : {"exact", "euler"}

    Returns
    -------
    ndarray, shape (..., 3)
        New pose, theta wrapped to ``[-pi, pi)``.

    Examples
    --------
    >>> np.round(integrate_twist([0, 0, 0], [np.pi / 2, 0, np.pi / 2], 1.0), 6)  # quarter circle, radius 1
    array([1.      , 1.      , 1.570796])
    """
    pose = as_array(pose, "pose", trailing=(3,))
    twist = as_array(twist, "twist", trailing=(3,))
    dt = positive(dt, "dt")
    method = choice(method, "method", ("exact", "euler"))
    pose, twist = broadcast([pose, twist], ("pose", "twist"))
    dx, dy, dth = _increments(pose[..., 2], twist, dt, method)
    return np.stack([pose[..., 0] + dx, pose[..., 1] + dy, wrap(pose[..., 2] + dth)], axis=-1)


def odometry(
    twists: ArrayLike, dt: float, *, pose0: ArrayLike = (0.0, 0.0, 0.0), method: Literal["exact", "euler"] = "exact"
) -> np.ndarray:
    """Integrate a sequence of body twists into world poses, vectorised (no Python loop).

    The heading is a cumulative sum, so every step's start heading is known at
    once and the displacements are summed with ``cumsum``.

    Parameters
    ----------
    twists : array_like, shape (..., N, 3)
        Body twists ``[vx, vy, omega]``, each held for ``dt`` (zero-order hold).
    dt : float
        Sample period (s).
    pose0 : array_like, shape (..., 3)
        Initial world pose ``[x, y, theta]``.
    method : {"exact", "euler"}
        Per-step integration (see :func:`integrate_twist`).

    Returns
    -------
    ndarray, shape (..., N + 1, 3)
        Poses at ``t = 0, dt, ..., N dt``; theta wrapped to ``[-pi, pi)``.

    Examples
    --------
    >>> tw = np.tile([1.0, 0.0, 2 * np.pi / 100], (100, 1))   # one full circle in 100 steps
    >>> bool(np.abs(odometry(tw, 1.0)[-1]).max() < 1e-12)          # exact: back at the start
    True
    """
    tw = as_array(twists, "twists", trailing=(None, 3))
    dt = positive(dt, "dt")
    method = choice(method, "method", ("exact", "euler"))
    p0 = as_array(pose0, "pose0", trailing=(3,))
    lead = np.broadcast_shapes(tw.shape[:-2], p0.shape[:-1])
    tw = np.broadcast_to(tw, lead + tw.shape[-2:])
    p0 = np.broadcast_to(p0, lead + (3,))
    th_all = p0[..., 2:3] + np.concatenate([np.zeros(lead + (1,)), np.cumsum(tw[..., 2] * dt, axis=-1)], axis=-1)
    dx, dy, _ = _increments(th_all[..., :-1], tw, dt, method)
    zero = np.zeros(lead + (1,))
    x = p0[..., 0:1] + np.concatenate([zero, np.cumsum(dx, axis=-1)], axis=-1)
    y = p0[..., 1:2] + np.concatenate([zero, np.cumsum(dy, axis=-1)], axis=-1)
    return np.stack([x, y, wrap(th_all)], axis=-1)


def _initial(value, name, lead):
    """An initial value (scalar, or one per batch element of shape ``lead``) broadcast to ``lead``."""
    a = as_array(value, name)
    try:
        return np.broadcast_to(a, lead)
    except ValueError:
        raise ValueError(
            f"{name} must be a scalar or have shape {lead} (one per batch element), got {a.shape}"
        ) from None


def fuse_heading(
    omega_gyro: ArrayLike,
    omega_wheel: ArrayLike,
    dt: float,
    *,
    tau: float = 2.0,
    trusted: ArrayLike | None = None,
    theta0: ArrayLike = 0.0,
    bias0: ArrayLike = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Wheel + gyro heading fusion: a complementary filter on the yaw rate.

    The gyro is immune to wheel slip but has a bias; the wheel yaw rate has no
    bias but jumps when a wheel slips. The filter keeps the gyro's fast
    content and takes the slow content (its bias) from the wheels:

        b_{k+1} = b_k + (dt / tau) (omega_gyro_k - omega_wheel_k - b_k)   when trusted_k
        theta_{k+1} = theta_k + dt (omega_gyro_k - b_k)

    i.e. ``omega_hat = highpass(omega_gyro) + lowpass(omega_wheel)`` with time
    constant ``tau``. Samples with ``trusted == False`` (for example a large
    :meth:`Mecanum.inconsistency`, a slipping wheel) freeze the bias estimate
    instead of letting the slip into it.

    Parameters
    ----------
    omega_gyro, omega_wheel : array_like, shape (..., N)
        Yaw rates (rad/s) from the gyro and from the wheels (``Mecanum.fk(w)[..., 2]``).
    dt : float
        Sample period (s).
    tau : float
        Filter time constant (s), at least ``dt``.
    trusted : array_like of bool, shape (..., N), optional
        Where the wheel rate may update the bias (default: everywhere).
    theta0, bias0 : float or array_like, shape (...)
        Initial heading (rad) and gyro bias estimate (rad/s).

    Returns
    -------
    theta : ndarray, shape (..., N + 1)
        Fused heading, wrapped to ``[-pi, pi)``.
    bias : ndarray, shape (..., N + 1)
        Gyro bias estimate (rad/s).

    Examples
    --------
    >>> g = np.full(2000, 0.02)          # robot at rest, gyro bias 0.02 rad/s
    >>> th, b = fuse_heading(g, np.zeros(2000), 0.01, tau=1.0)
    >>> round(float(b[-1]), 6), abs(float(th[-1])) < 0.03   # bias learnt, heading bounded
    (0.02, True)
    """
    g = as_array(omega_gyro, "omega_gyro", trailing=(None,))
    wz = as_array(omega_wheel, "omega_wheel", trailing=(None,))
    if g.shape != wz.shape:
        raise ValueError(f"omega_gyro and omega_wheel must have the same shape, got {g.shape} and {wz.shape}")
    dt = positive(dt, "dt")
    tau = positive(tau, "tau")
    if tau < dt:
        raise ValueError(f"tau must be at least dt (got tau={tau}, dt={dt}): the filter would overshoot")
    if trusted is None:
        ok = np.ones(g.shape, dtype=bool)
    else:
        try:
            ok = np.asarray(trusted)
        except ValueError:
            raise ValueError(f"trusted must be a boolean array of shape {g.shape}, got a ragged sequence") from None
        if ok.dtype != bool or ok.shape != g.shape:
            raise ValueError(f"trusted must be a boolean array of shape {g.shape}, got {ok.dtype} {ok.shape}")
    th0, b = (_initial(v, nm, g.shape[:-1]) for v, nm in ((theta0, "theta0"), (bias0, "bias0")))
    b = np.array(b, dtype=float)
    n = g.shape[-1]
    bias = np.empty(g.shape[:-1] + (n + 1,))
    bias[..., 0] = b
    k = dt / tau
    for i in range(n):  # the recursion over time is sequential; batch axes are vectorised
        b = b + np.where(ok[..., i], k * (g[..., i] - wz[..., i] - b), 0.0)
        bias[..., i + 1] = b
    rate = g - bias[..., :-1]
    theta = th0[..., None] + np.concatenate([np.zeros(g.shape[:-1] + (1,)), np.cumsum(rate * dt, axis=-1)], axis=-1)
    return wrap(theta), bias


# ---------------------------------------------------------------------- PWM calibration
_PWM_PARAMS = {"linear": ("k", "deadzone"), "saturating": ("k", "deadzone", "w_max")}


def pwm_model(u: ArrayLike, params: ArrayLike, *, model: Literal["linear", "saturating"] = "linear") -> np.ndarray:
    """Wheel speed (rad/s) produced by a PWM command, with a dead zone.

    ``linear``:     ``w = k sign(u) max(|u| - d, 0)``
    ``saturating``: ``w = w_max sign(u) tanh(k max(|u| - d, 0) / w_max)``
    (slope ``k`` just past the dead zone, tending to ``w_max``).

    Parameters
    ----------
    u : array_like, any shape
        PWM duty (any consistent unit, e.g. -1..1 or counts).
    params : array_like, shape (2,) or (3,)
        ``[k, d]`` (linear) or ``[k, d, w_max]`` (saturating); ``k`` in
        rad/s per PWM unit, ``d`` the dead zone in PWM units, ``w_max`` in rad/s.
    model : {"linear", "saturating"}

    Returns
    -------
    ndarray, same shape as ``u``

    Examples
    --------
    >>> pwm_model([-0.5, 0.05, 0.5], [40.0, 0.1])
    array([-16.,   0.,  16.])
    """
    model = choice(model, "model", tuple(_PWM_PARAMS))
    u = as_array(u, "u")
    p = as_array(params, "params", trailing=(len(_PWM_PARAMS[model]),))
    if p.ndim != 1:
        raise ValueError(f"params must be one parameter vector, got shape {p.shape}")
    return _pwm_eval(u, p, model)


def _pwm_eval(u, p, model):
    e = np.sign(u) * np.maximum(np.abs(u) - p[1], 0.0)
    if model == "linear":
        return p[0] * e
    return p[2] * np.tanh(p[0] * e / p[2])


@dataclass(frozen=True)
class PWMFit:
    """Result of :func:`fit_pwm`.

    Attributes
    ----------
    model : str
    names : tuple of str
        Parameter names, e.g. ``("k", "deadzone")``.
    params : ndarray
        Least-squares estimates.
    stderr : ndarray
        Standard errors (1 sigma) from ``s^2 (J^T J)^-1``.
    cov : ndarray
        Parameter covariance.
    rms : float
        RMS residual (rad/s), the noise estimate ``s``.
    dof : int
        Degrees of freedom ``n - p``.
    """

    model: str
    names: tuple
    params: np.ndarray
    stderr: np.ndarray
    cov: np.ndarray
    rms: float
    dof: int

    def __str__(self):
        body = ", ".join(f"{n} = {v:.4g} ± {s:.2g}" for n, v, s in zip(self.names, self.params, self.stderr))
        return f"{self.model} PWM fit: {body} (rms {self.rms:.3g} rad/s, dof {self.dof})"


def fit_pwm(
    u: ArrayLike, w: ArrayLike, *, model: Literal["linear", "saturating"] = "linear", p0: ArrayLike | None = None
) -> PWMFit:
    """Fit a dead-zone PWM -> wheel-speed model by least squares.

    Uses :func:`scipy.optimize.least_squares` (trust region reflective, with
    ``k, d, w_max >= 0``); parameter standard errors come from the Jacobian at
    the optimum, ``cov = s^2 (J^T J)^-1`` with ``s^2 = SSR / (n - p)``. They are
    meaningful when the noise is independent with equal variance and the data
    reach both sides of the dead zone.

    Parameters
    ----------
    u : array_like, shape (n,)
        PWM commands.
    w : array_like, shape (n,)
        Measured steady wheel speeds (rad/s).
    model : {"linear", "saturating"}
    p0 : array_like, optional
        Initial guess; by default from the data (slope of the largest commands,
        dead zone 0, ``w_max`` = largest speed).

    Returns
    -------
    PWMFit

    Raises
    ------
    ValueError
        If the wheel turns *backwards* for positive commands (a reversed motor or
        encoder): the least-squares slope of the largest commands is negative by more
        than three standard errors. The model has ``k >= 0``, so fitting on would
        silently return ``k = 0``; flip the motor's sign (or fit ``-w``) instead.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> u = np.linspace(-1, 1, 81)
    >>> w = pwm_model(u, [40.0, 0.12]) + rng.normal(0, 0.3, u.size)
    >>> fit = fit_pwm(u, w)
    >>> bool(np.all(np.abs(fit.params - [40.0, 0.12]) < 4 * fit.stderr))
    True
    >>> fit_pwm(u, -w)   # the same motor wired backwards
    Traceback (most recent call last):
    ...
    ValueError: the wheel turns backwards for positive PWM: slope -34.6 rad/s per PWM unit, 287 standard errors below zero; the motor or its encoder is reversed. Flip its sign (or fit -w) and refit: the model keeps k >= 0 and would return k = 0
    """
    model = choice(model, "model", tuple(_PWM_PARAMS))
    u = as_array(u, "u", trailing=(None,))
    w = as_array(w, "w", trailing=(None,))
    if u.ndim != 1 or u.shape != w.shape:
        raise ValueError(f"u and w must be 1-D arrays of equal length, got shapes {u.shape} and {w.shape}")
    names = _PWM_PARAMS[model]
    n, p = u.size, len(names)
    if n <= p + 1:
        raise ValueError(f"need more than {p + 1} samples to fit {p} parameters and the noise, got {n}")
    if np.ptp(u) == 0:
        raise ValueError("u must vary: all PWM commands are equal, nothing to fit")
    big = np.abs(u) >= np.quantile(np.abs(u), 0.75)
    ub, wb = u[big], w[big]
    k_big = float(np.sum(wb * ub) / np.sum(ub**2))
    if k_big < 0:
        dof_big = max(ub.size - 1, 1)
        se = float(np.sqrt(np.sum((wb - k_big * ub) ** 2) / dof_big / np.sum(ub**2)))
        if k_big < -3 * se:
            raise ValueError(
                f"the wheel turns backwards for positive PWM: slope {k_big:.3g} rad/s per PWM unit, "
                f"{-k_big / se if se > 0 else np.inf:.3g} standard errors below zero; the motor or its encoder is "
                "reversed. Flip its sign (or fit -w) and refit: the model keeps k >= 0 and would return k = 0"
            )
    if p0 is None:
        k0 = max(k_big, 1e-6)
        p0 = [k0, 0.0] + ([max(float(np.abs(w).max()), 1e-6)] if model == "saturating" else [])
    p0 = as_array(p0, "p0", trailing=(p,))
    lower = np.zeros(p)
    x0 = np.maximum(p0, lower + 1e-12)
    res = least_squares(lambda q: _pwm_eval(u, q, model) - w, x0, bounds=(lower, np.inf), method="trf", x_scale="jac")
    J = res.jac
    dof = n - p
    s2 = 2 * res.cost / dof
    cov = s2 * np.linalg.pinv(J.T @ J)
    return PWMFit(
        model=model,
        names=names,
        params=res.x,
        stderr=np.sqrt(np.diag(cov)),
        cov=cov,
        rms=float(np.sqrt(s2)),
        dof=int(dof),
    )
