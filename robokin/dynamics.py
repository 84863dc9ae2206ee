"""Rigid-body dynamics: the planar 2-link arm in M/C/G form and serial-arm dynamics (RNEA, CRBA).

Chapter 11 derives the 2-link equations with sympy (and ``sympy.physics.mechanics``);
this module keeps the hand-written vectorised result (:class:`TwoLinkArm`), and
:class:`SerialDynamics`, the recursive Newton-Euler algorithm (RNEA) and composite-rigid-body
mass matrix for revolute DH chains, which is checked against it.

Both are model objects of the mechanism protocol (``book/conventions.md``): parameters are checked once
when the object is built; ``mass_matrix(q)``, ``bias(q, qd)`` (``C(q, qd) qd``, without gravity),
``gravity(q)``, ``inverse_dynamics(q, qd, qdd)`` and ``forward_dynamics(q, qd, tau)``.

Conventions of :class:`TwoLinkArm`
----------------------------------
* Planar arm in the x-y plane, both joints rotate about +z (counter-clockwise positive,
  seen from +z), gravity acts along -y (``g > 0`` is its magnitude).
* Zero pose ``q = (0, 0)``: both links stretched along +x. ``q1`` is the angle of link 1
  from +x, ``q2`` the angle of link 2 relative to link 1.
* ``lc1``, ``lc2``: distance from the joint to the link's centre of mass, along the link.
  ``I1``, ``I2``: moment of inertia about the z-axis through the centre of mass (kg m^2).
* Equation of motion: ``M(q) qdd + C(q, qd) qd + G(q) = tau`` with ``C`` in Christoffel
  form (:meth:`TwoLinkArm.coriolis_matrix`), so ``Mdot - 2 C`` is skew-symmetric.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, Self

import numpy as np
from numpy.typing import ArrayLike

from . import _kernels as _k
from ._primitives import dh_rotation_origin
from ._validate import (
    as_array,
    broadcast,
    check_inertias,
    choice,
    count,
    ivp_options,
    positive,
    solve_ivp_guarded,
)
from .errors import SingularityError
from .serial import SerialArm

__all__ = [
    "TwoLinkArm",
    "SerialDynamics",
    "energy_drift",
    "add_reflected_inertia",
    "pd_gravity_lyapunov",
]


def _param(value, name, *, allow_zero=False):
    """Scalar or 1-D batch of positive parameters (a batch of arms, e.g. a Monte Carlo)."""
    try:
        nd = np.ndim(value)
    except ValueError:  # a ragged list
        raise ValueError(f"{name} must be a scalar or a 1-D array (a batch of arms), got a ragged sequence") from None
    if nd == 0:
        if (
            allow_zero
            and isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, bool)
            and value == 0
        ):
            return 0.0
        return positive(value, name)
    a = as_array(value, name)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a scalar or a 1-D array (a batch of arms), got shape {a.shape}")
    if np.any(a < 0) or (not allow_zero and np.any(a == 0)):
        raise ValueError(f"{name} must be positive, got minimum {a.min()!r}")
    a = a.copy()
    a.setflags(write=False)
    return a


def _two_link_regressor_rows(c1, c2, s2, c12, v1, v2, w1, w2, a1, a2, g):
    """Rows of the 2-link regressor: ``Y theta = M(q) a + C(q, v) w + G(q)`` (the one copy of the formula).

    ``theta = (I1 + m1 lc1^2 + m2 l1^2, I2 + m2 lc2^2, m2 l1 lc2, m1 lc1 + m2 l1, m2 lc2)`` (robokin.ident); ``C`` is
    the Christoffel matrix of :meth:`TwoLinkArm.coriolis_matrix`. ``w = v`` gives inverse dynamics (the
    identification regressor); ``w = qd_r``, ``a = qdd_r`` the Slotine-Li regressor of robokin.control. Inputs are
    cos q1, cos q2, sin q2, cos(q1 + q2), rates ``v``, the vector ``w`` that C multiplies and accelerations ``a``;
    zero entries are returned as the scalar 0.0 (broadcast by the caller).
    """
    row1 = [a1, a1 + a2, c2 * (2 * a1 + a2) - s2 * (v2 * w1 + (v1 + v2) * w2), g * c1, g * c12]
    row2 = [0.0, a1 + a2, c2 * a1 + s2 * v1 * w1, 0.0, g * c12]
    return row1, row2


@dataclass(frozen=True, eq=False)
class TwoLinkArm:
    """Planar two-link arm with revolute joints about z and gravity along -y.

    Parameters
    ----------
    m1, m2 : float
        Link masses (kg).
    l1, l2 : float
        Link lengths, joint to joint / joint to tip (m).
    lc1, lc2 : float
        Joint-to-centre-of-mass distances along each link (m), ``0 < lc_i`` (``lc_i <= l_i``
        is typical but not required).
    I1, I2 : float
        Moments of inertia about the centre of mass, z-axis (kg m^2); zero allowed (point masses).
    g : float
        Gravity magnitude (m/s^2), acting along -y; zero allowed (horizontal arm).

    Any parameter may instead be a 1-D array of length ``S``: the object then describes
    ``S`` arms at once, and the batch axis broadcasts against the *last* batch axis of ``q``
    (used by the vectorised Monte Carlo of chapter 12).

    Zero pose ``q = (0, 0)``: both links along +x; positive angles counter-clockwise
    about +z; ``q2`` is relative to link 1.

    Examples
    --------
    >>> arm = TwoLinkArm(m1=1.0, m2=1.0, l1=1.0, l2=1.0, lc1=0.5, lc2=0.5, I1=0.1, I2=0.1)
    >>> np.round(arm.mass_matrix([0.0, 0.0]), 4)
    array([[2.7 , 0.85],
           [0.85, 0.35]])
    >>> np.round(arm.gravity([0.0, 0.0]), 4)    # holding torque, both links horizontal
    array([19.62 ,  4.905])
    """

    m1: float
    m2: float
    l1: float
    l2: float
    lc1: float
    lc2: float
    I1: float
    I2: float
    g: float = 9.81

    def __post_init__(self):
        for f in dataclasses.fields(self):
            zero_ok = f.name in ("I1", "I2", "g")
            object.__setattr__(self, f.name, _param(getattr(self, f.name), f.name, allow_zero=zero_ok))
        sizes = {np.size(getattr(self, f.name)) for f in dataclasses.fields(self)} - {1}
        if len(sizes) > 1:
            raise ValueError(f"batched parameters must all have the same length, got lengths {sorted(sizes)}")
        object.__setattr__(self, "_p", self._compute_pi())  # cached: the simulators call _terms 4x per step

    # ----------------------------------------------------------------- helpers
    @property
    def batch_size(self) -> int:
        """Number of arms described (1 for scalar parameters)."""
        return max(int(np.size(getattr(self, f.name))) for f in dataclasses.fields(self))

    def replace(self, **changes) -> TwoLinkArm:
        """Copy with some parameters changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def _pi(self):
        """Dynamic parameter combinations (the arm is linear in these; see robokin.ident)."""
        return self._p

    def _compute_pi(self):
        p1 = self.I1 + self.m1 * self.lc1**2 + self.m2 * self.l1**2
        p2 = self.I2 + self.m2 * self.lc2**2
        p3 = self.m2 * self.l1 * self.lc2
        p4 = (self.m1 * self.lc1 + self.m2 * self.l1) * self.g
        p5 = self.m2 * self.lc2 * self.g
        return p1, p2, p3, p4, p5

    def _terms(self, q1, q2):
        """Scalar entries m11, m12, m22, h (C-factor), g1, g2 as arrays (fast path)."""
        return self._terms_cs(np.cos(q1), np.cos(q2), np.sin(q2), np.cos(q1 + q2))

    def _terms_cs(self, c1, c2, s2, c12):
        """As :meth:`_terms` from precomputed cos q1, cos q2, sin q2, cos(q1 + q2) (shared by simulators)."""
        p1, p2, p3, p4, p5 = self._p
        m12 = p2 + p3 * c2
        m11 = m12 + p1 + p3 * c2
        m22 = p2 + 0 * c2
        h = -p3 * s2
        g2 = p5 * c12
        g1 = p4 * c1 + g2
        return m11, m12, m22, h, g1, g2

    @staticmethod
    def _velocity_terms(h, v1, v2):
        """``C(q, qd) qd`` from the factor ``h = -m2 l1 lc2 sin q2`` (the one copy of the formula)."""
        return h * (2 * v1 * v2 + v2 * v2), -h * v1 * v1

    def _inverse(self, q1, q2, v1, v2, a1, a2, cs=None):
        """``M qdd + C qd + G`` on unpacked arrays (inverse dynamics, and computed torque in robokin.control)."""
        m11, m12, m22, h, g1, g2 = self._terms(q1, q2) if cs is None else self._terms_cs(*cs)
        b1, b2 = self._velocity_terms(h, v1, v2)
        return m11 * a1 + m12 * a2 + b1 + g1, m12 * a1 + m22 * a2 + b2 + g2

    @staticmethod
    def _q(q, name="q"):
        return as_array(q, name, trailing=(2,))

    # ----------------------------------------------------------------- public API
    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space mass matrix ``M(q)``, symmetric positive definite.

        Parameters
        ----------
        q : array_like, shape (..., 2)
            Joint angles (rad).

        Returns
        -------
        ndarray, shape (..., 2, 2), kg m^2.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> arm.mass_matrix(np.zeros((5, 2))).shape
        (5, 2, 2)
        """
        q = self._q(q)
        m11, m12, m22, *_ = self._terms(q[..., 0], q[..., 1])
        return np.stack([np.stack([m11, m12], -1), np.stack([m12, m22], -1)], -2)

    def mass_matrix_dot(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Time derivative of ``M(q(t))`` along a motion with rates ``qd``, shape (..., 2, 2).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.mass_matrix_dot([0.0, np.pi / 2], [0.0, 1.0]), 3) + 0.0
        array([[-1. , -0.5],
               [-0.5,  0. ]])
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        _, _, _, h, _, _ = self._terms(q[..., 0], q[..., 1])
        d12 = h * qd[..., 1]
        return np.stack([np.stack([2 * d12, d12], -1), np.stack([d12, 0 * d12], -1)], -2)

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form (``Mdot - 2 C`` is skew).

        ``C(q, qd) @ qd`` is :meth:`bias`; the matrix itself matters for the skew property that passivity-based
        controllers and Lyapunov proofs use.

        Parameters
        ----------
        q, qd : array_like, shape (..., 2)
            Joint angles (rad) and rates (rad/s).

        Returns
        -------
        ndarray, shape (..., 2, 2); ``C(q, qd) @ qd`` is the velocity torque (N m).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.coriolis_matrix([0.0, np.pi / 2], [1.0, 0.0]), 3) + 0.0
        array([[ 0. , -0.5],
               [ 0.5,  0. ]])
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        _, _, _, h, _, _ = self._terms(q[..., 0], q[..., 1])
        a, b = qd[..., 0], qd[..., 1]
        try:
            h, a, b = np.broadcast_arrays(h, a, b)
        except ValueError:
            raise ValueError(
                f"q and qd must broadcast against each other and the arm batch, got shapes {q.shape} and {qd.shape}"
            ) from None
        return np.stack([np.stack([h * b, h * (a + b)], -1), np.stack([-h * a, 0 * h], -1)], -2)

    def bias(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Velocity torques ``C(q, qd) qd`` (N m), shape (..., 2): Coriolis and centrifugal, without gravity.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.bias([0.0, np.pi / 2], [1.0, 0.0]), 3) + 0.0   # centrifugal pull of link 1's spin
        array([0. , 0.5])
        >>> bool(np.all(arm.bias([0.3, 0.2], [0.0, 0.0]) == 0))          # no motion, no bias (gravity excluded)
        True
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        q, qd = broadcast([q, qd], ("q", "qd"))
        return np.stack(self._velocity_terms(-self._p[2] * np.sin(q[..., 1]), qd[..., 0], qd[..., 1]), -1)

    def gravity(self, q: ArrayLike) -> np.ndarray:
        """Gravity torque ``G(q) = dV/dq`` (N m), shape (..., 2): the torque that holds the arm still.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.gravity([np.pi / 2, 0.0]), 12)    # pointing straight up: no torque
        array([0., 0.])
        """
        q = self._q(q)
        *_, g1, g2 = self._terms(q[..., 0], q[..., 1])
        return np.stack([g1, g2], -1)

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """Joint torques ``tau = M(q) qdd + bias(q, qd) + gravity(q)`` (N m), shape (..., 2).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.allclose(arm.inverse_dynamics([0.3, 0.2], [0.0, 0.0], [0.0, 0.0]), arm.gravity([0.3, 0.2]))
        True
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        qdd = self._q(qdd, "qdd")
        return np.stack(self._inverse(q[..., 0], q[..., 1], qd[..., 0], qd[..., 1], qdd[..., 0], qdd[..., 1]), -1)

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - bias - gravity)`` (rad/s^2), shape (..., 2).

        The 2x2 solve is written in closed form, so it vectorises over any batch shape
        without ``np.linalg``. ``det M > 0`` for every physical arm; parameters so lopsided that
        ``det M <= 1e-13 m11 m22`` (e.g. ``m1 = 1e-20`` kg with point masses and ``q2 = 0``)
        make the solve meaningless and raise.

        Raises
        ------
        robokin.errors.SingularityError
            (a ``ValueError``) where the mass matrix is numerically singular.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> q, qd, qdd = [0.3, -0.7], [1.0, 2.0], [0.5, -1.5]
        >>> np.allclose(arm.forward_dynamics(q, qd, arm.inverse_dynamics(q, qd, qdd)), qdd)
        True
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        tau = self._q(tau, "tau")
        m11, m12, m22, *_ = self._terms(q[..., 0], q[..., 1])
        det = m11 * m22 - m12 * m12
        bad = ~(det > 1e-13 * m11 * m22)
        if np.any(bad):
            cond = float(np.max(np.where(bad, (m11 + m22) ** 2 / np.maximum(det, 1e-300), 0.0)))
            raise SingularityError(
                cond,
                f"TwoLinkArm.forward_dynamics: mass matrix singular at "
                f"{int(np.count_nonzero(bad))} sample(s) (check the inertial parameters)",
            )
        return np.stack(self._accel(q[..., 0], q[..., 1], qd[..., 0], qd[..., 1], tau[..., 0], tau[..., 1]), -1)

    def _accel(self, q1, q2, v1, v2, t1, t2, cs=None):
        """Closed-form forward dynamics on unpacked arrays (used by the fast simulators)."""
        m11, m12, m22, h, g1, g2 = self._terms(q1, q2) if cs is None else self._terms_cs(*cs)
        b1, b2 = self._velocity_terms(h, v1, v2)
        r1 = t1 - b1 - g1
        r2 = t2 - b2 - g2
        det = m11 * m22 - m12 * m12
        return (m22 * r1 - m12 * r2) / det, (m11 * r2 - m12 * r1) / det

    def energy(self, q: ArrayLike, qd: ArrayLike) -> float | np.ndarray:
        """Total mechanical energy ``T + V`` (J); ``V = 0`` at height ``y = 0`` of the base.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> round(float(arm.energy([np.pi / 2, 0.0], [0.0, 0.0])), 4)   # m1 g lc1 + m2 g (l1 + lc2)
        19.62
        """
        q = self._q(q)
        qd = self._q(qd, "qd")
        m11, m12, m22, *_ = self._terms(q[..., 0], q[..., 1])
        a, b = qd[..., 0], qd[..., 1]
        kin = 0.5 * (m11 * a * a + 2 * m12 * a * b + m22 * b * b)
        return kin + self.potential(q)

    def potential(self, q: ArrayLike) -> float | np.ndarray:
        """Potential energy (J), zero at base height, shape (...)."""
        q = self._q(q)
        s1, s12 = np.sin(q[..., 0]), np.sin(q[..., 0] + q[..., 1])
        return self.g * ((self.m1 * self.lc1 + self.m2 * self.l1) * s1 + self.m2 * self.lc2 * s12)

    def potential_min(self) -> float | np.ndarray:
        """Lowest potential energy (arm hanging straight down), for relative energy drift."""
        return -self.g * (self.m1 * self.lc1 + self.m2 * self.l1 + self.m2 * self.lc2)

    def fk(self, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """Elbow and tip positions (m): ``(elbow (..., 2), tip (..., 2))`` in the base x-y plane."""
        q = self._q(q)
        q1, q12 = q[..., 0], q[..., 0] + q[..., 1]
        elbow = np.stack([self.l1 * np.cos(q1), self.l1 * np.sin(q1)], -1)
        tip = elbow + np.stack([self.l2 * np.cos(q12), self.l2 * np.sin(q12)], -1)
        return elbow, tip

    def _tip_jacobian_entries(self, q1, q2):
        """``J = [[a, b], [c, d]]`` of the tip on unpacked angles (the one copy of the formula)."""
        s1, c1 = np.sin(q1), np.cos(q1)
        s12, c12 = np.sin(q1 + q2), np.cos(q1 + q2)
        b, d = -self.l2 * s12, self.l2 * c12
        return -self.l1 * s1 + b, b, self.l1 * c1 + d, d

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Tip Jacobian ``J(q) = d tip / dq`` (m/rad), shape (..., 2, 2), in the base x-y frame.

        The tip is the second output of :meth:`fk`; rows are ``(x, y)``, columns the joints. ``det J = l1 l2 sin q2``:
        singular with the arm stretched (``q2 = 0``) or folded (``q2 = pi``).

        Parameters
        ----------
        q : array_like, shape (..., 2)
            Joint angles (rad).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.jacobian([0.0, np.pi / 2]), 12) + 0.0   # elbow at a right angle, tip at (1, 1)
        array([[-1., -1.],
               [ 1.,  0.]])
        """
        q = self._q(q)
        a, b, c, d = self._tip_jacobian_entries(q[..., 0], q[..., 1])
        return np.stack([np.stack([a, b], -1), np.stack([c, d], -1)], -2)

    def tip_force(
        self,
        q: ArrayLike,
        tau: ArrayLike,
        *,
        min_sin: float = 1e-3,
        on_singular: Literal["raise", "nan"] = "raise",
    ) -> np.ndarray:
        """Force at the tip (N, base x-y frame) whose joint torques are ``tau``: the solution of ``J(q)^T F = tau``.

        Statics of the arm: a force ``F`` applied at the tip point (no moment) loads the joints with
        ``J^T F`` (:meth:`jacobian`). With ``tau`` the torque a person must supply (e.g. the gravity-compensation
        residual of chapter 12), ``F`` is the force the person feels at the tool. ``det J = l1 l2 sin q2``, so the
        force grows like ``1 / |sin q2|`` towards the stretched or folded arm, where a tip force cannot produce
        an arbitrary pair of joint torques.

        Parameters
        ----------
        q : array_like, shape (..., 2)
            Joint angles (rad).
        tau : array_like, shape (..., 2)
            Joint torques to produce (N m), broadcast against ``q``.
        min_sin : float
            Configurations with ``|sin q2| < min_sin`` count as singular (dimensionless, in (0, 1)).
        on_singular : {"raise", "nan"}
            ``"raise"``: :class:`robokin.errors.SingularityError` (a ``ValueError``) naming how many are singular;
            ``"nan"``: NaN rows there (documented mask ``|sin q2| < min_sin``).

        Returns
        -------
        ndarray, shape (..., 2)
            ``(F_x, F_y)`` in N.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> q = [0.3, 1.1]
        >>> F = arm.tip_force(q, [2.0, -1.0])
        >>> bool(np.allclose(arm.jacobian(q).T @ F, [2.0, -1.0]))
        True
        >>> arm.tip_force([0.3, 0.0], [2.0, -1.0], on_singular="nan")   # stretched arm
        array([nan, nan])
        """
        q = self._q(q)
        tau = self._q(tau, "tau")
        min_sin = positive(min_sin, "min_sin")
        if min_sin >= 1:
            raise ValueError(f"min_sin must be in (0, 1), got {min_sin}")
        choice(on_singular, "on_singular", ("raise", "nan"))
        q, tau = broadcast([q, tau], ("q", "tau"))
        a, b, c, d = self._tip_jacobian_entries(q[..., 0], q[..., 1])
        sing = np.abs(np.sin(q[..., 1])) < min_sin
        if on_singular == "raise" and np.any(sing):
            k = int(np.count_nonzero(sing))
            first = q[sing][0].tolist()
            raise SingularityError(
                float("inf"),
                f"TwoLinkArm.tip_force: {k} configuration(s) with |sin q2| < {min_sin:g} (arm stretched or folded), "
                f"first q = {first}; pass on_singular='nan' to mask them",
            )
        det = np.where(sing, 1.0, a * d - b * c)  # J^T = [[a, c], [b, d]], det J^T = det J
        t1, t2 = tau[..., 0], tau[..., 1]
        F = np.stack([(d * t1 - c * t2) / det, (a * t2 - b * t1) / det], -1)
        return np.where(sing[..., None], np.nan, F)

    def rnea_params(self) -> dict[str, Any]:
        """Keyword arguments of :meth:`SerialDynamics.from_dh` for this arm (standard DH, frame i at the tip of link i).

        Link i's centre of mass sits at ``(lc_i - l_i, 0, 0)`` in frame i, its inertia is
        ``diag(0, I_i, I_i)`` about the centre of mass (a thin rod along x: physically
        consistent, and only the z entry matters in the plane), gravity ``(0, -g, 0)``.

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> sorted(arm.rnea_params())
        ['a', 'alpha', 'coms', 'convention', 'd', 'gravity', 'inertias', 'masses']
        >>> dyn = SerialDynamics.from_dh(**arm.rnea_params())
        >>> bool(np.allclose(dyn.mass_matrix([0.3, -0.7]), arm.mass_matrix([0.3, -0.7]), atol=1e-12))
        True
        """
        if self.batch_size != 1:
            raise ValueError("rnea_params needs scalar parameters (one arm)")
        return dict(
            a=[self.l1, self.l2],
            alpha=[0.0, 0.0],
            d=[0.0, 0.0],
            convention="standard",
            masses=[self.m1, self.m2],
            coms=[[self.lc1 - self.l1, 0.0, 0.0], [self.lc2 - self.l2, 0.0, 0.0]],
            inertias=[np.diag([0.0, self.I1, self.I1]), np.diag([0.0, self.I2, self.I2])],
            gravity=[0.0, -self.g, 0.0],
        )


# ------------------------------------------------------------------------- RNEA
def _rnea_inputs(a, alpha, d, offset, masses, coms, inertias, convention):
    a = as_array(a, "a", trailing=(None,))
    n = a.shape[-1]
    if a.ndim != 1 or n == 0:
        raise ValueError(f"a must be a 1-D array with one entry per joint, got shape {a.shape}")
    alpha = as_array(alpha, "alpha", trailing=(n,))
    d = as_array(d, "d", trailing=(n,))
    offset = (
        np.broadcast_to(as_array(offset, "offset"), (n,))
        if np.ndim(offset) == 0
        else as_array(offset, "offset", trailing=(n,))
    )
    masses = as_array(masses, "masses", trailing=(n,))
    if alpha.ndim != 1 or d.ndim != 1 or offset.ndim != 1 or masses.ndim != 1:
        raise ValueError("alpha, d, offset and masses must be 1-D with one entry per joint")
    if np.any(masses < 0):
        raise ValueError(f"masses must be non-negative, got {masses}")
    coms = as_array(coms, "coms", trailing=(n, 3))
    inertias = as_array(inertias, "inertias", trailing=(n, 3, 3))
    if coms.ndim != 2 or inertias.ndim != 3:
        raise ValueError("coms must have shape (n, 3) and inertias (n, 3, 3)")
    if not np.allclose(inertias, np.swapaxes(inertias, -1, -2), atol=1e-12, rtol=1e-9):
        raise ValueError("inertias must be symmetric 3x3 matrices (about each centre of mass, link frame)")
    check_inertias(inertias, "inertias")
    choice(convention, "convention", ("standard", "modified"))
    return a, alpha, d, offset, masses, coms, inertias, n


@dataclass(frozen=True, eq=False)
class SerialDynamics:
    """Rigid-body dynamics of a revolute DH arm: checked once when built, then fast per call and batched.

    Holds the kinematics (a :class:`~robokin.serial.SerialArm`, either DH convention) and the inertial parameters
    of every link; all checks run here, once, so the methods only check the joint arrays they are given.

    Parameters
    ----------
    arm : SerialArm
        Kinematics; frame ``i`` is fixed to link ``i``, ``theta_i = q_i + offset_i``. ``arm.base`` orients the
        chain in the world (gravity is given in the world frame); ``arm.tool`` plays no part in the dynamics.
    masses : array_like, shape (n,)
        Link masses (kg), non-negative.
    coms : array_like, shape (n, 3)
        Centre of mass of link i in frame i (m).
    inertias : array_like, shape (n, 3, 3)
        Inertia tensor of link i about its centre of mass, axes of frame i (kg m^2); checked by
        ``robokin._validate.check_inertias``.
    gravity : array_like, shape (3,)
        Gravity acceleration in the world frame (m/s^2), default ``(0, 0, -9.81)``.

    Notes
    -----
    Equation of motion ``M(q) qdd + C(q, qd) qd + G(q) = tau``. :meth:`inverse_dynamics` is the recursive
    Newton-Euler algorithm (``O(n)``); :meth:`bias` (``C qd``) and :meth:`gravity` are the same pass with
    ``qdd = 0`` and without gravity, or with ``qd = qdd = 0``; :meth:`mass_matrix` is the composite-rigid-body
    algorithm (CRBA, one backward pass of composite inertias, not ``n`` RNEA passes);
    :meth:`forward_dynamics` solves ``M qdd = tau - C qd - G`` after a Cholesky
    check that ``M`` is positive definite. Each algorithm is written once on scalar components and specialised to
    the arm's structure (``robokin._kernels``); the readable matrix form is ``dynamics._rnea_reference``, which
    the tests compare it with (and with pinocchio).

    Examples
    --------
    >>> arm2 = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> p = arm2.rnea_params()
    >>> dyn = SerialDynamics.from_dh(p["a"], p["alpha"], p["d"], convention="standard", masses=p["masses"],
    ...                              coms=p["coms"], inertias=p["inertias"], gravity=p["gravity"])  # or **p
    >>> q, qd, qdd = [0.3, -0.7], [1.0, 2.0], [0.5, -1.5]
    >>> bool(np.allclose(dyn.inverse_dynamics(q, qd, qdd), arm2.inverse_dynamics(q, qd, qdd), atol=1e-12))
    True
    >>> bool(np.allclose(dyn.mass_matrix(q), arm2.mass_matrix(q), atol=1e-12))
    True
    >>> bool(np.allclose(dyn.bias(q, qd), arm2.bias(q, qd), atol=1e-12))
    True
    >>> bool(np.allclose(dyn.forward_dynamics(q, qd, dyn.inverse_dynamics(q, qd, qdd)), qdd, atol=1e-12))
    True
    """

    arm: SerialArm
    masses: np.ndarray
    coms: np.ndarray
    inertias: np.ndarray
    gravity_vector: np.ndarray = dataclasses.field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))

    def __init__(
        self,
        arm: SerialArm,
        *,
        masses: ArrayLike,
        coms: ArrayLike,
        inertias: ArrayLike,
        gravity: ArrayLike = (0.0, 0.0, -9.81),
    ) -> None:
        if not isinstance(arm, SerialArm):
            raise ValueError(f"arm must be a robokin.serial.SerialArm, got {type(arm).__name__}")
        n = arm.n
        masses = as_array(masses, "masses", trailing=(n,))
        if masses.shape != (n,):
            raise ValueError(f"masses must have shape ({n},), got {masses.shape}")
        if np.any(masses < 0):
            raise ValueError(f"masses must be non-negative, got {masses}")
        coms = as_array(coms, "coms", trailing=(n, 3))
        if coms.shape != (n, 3):
            raise ValueError(f"coms must have shape ({n}, 3), got {coms.shape}")
        inertias = as_array(inertias, "inertias", trailing=(n, 3, 3))
        if inertias.shape != (n, 3, 3):
            raise ValueError(f"inertias must have shape ({n}, 3, 3), got {inertias.shape}")
        check_inertias(inertias, "inertias")
        g = as_array(gravity, "gravity", trailing=(3,))
        if g.shape != (3,):
            raise ValueError(f"gravity must have shape (3,), got {g.shape}")
        for name, v in (
            ("arm", arm),
            ("masses", masses.copy()),
            ("coms", coms.copy()),
            ("inertias", inertias.copy()),
            ("gravity_vector", g.copy()),
        ):
            if isinstance(v, np.ndarray):
                v.setflags(write=False)
            object.__setattr__(self, name, v)
        g0 = arm.base[:3, :3].T @ g  # gravity in frame 0 of the chain
        K = (
            _k.dh_constants(arm.a, arm.alpha, arm.d)
            + _k.inertial_constants(masses, coms, inertias)
            + tuple(float(x) for x in g0)
        )
        object.__setattr__(self, "_K", K)
        object.__setattr__(self, "_K0", K[:-3] + (0.0, 0.0, 0.0))  # gravity-free constants: bias = C qd only
        object.__setattr__(self, "_kern", {})
        # entry (r, c) of M is entry (min, max) of the kernel's row-major upper triangle
        tri = {rc: k for k, rc in enumerate((r, c) for r in range(n) for c in range(r, n))}
        object.__setattr__(self, "_sym", np.array([tri[min(r, c), max(r, c)] for r in range(n) for c in range(n)]))

    @classmethod
    def from_dh(
        cls,
        a: ArrayLike,
        alpha: ArrayLike,
        d: ArrayLike,
        *,
        convention: Literal["standard", "modified"],
        offset: ArrayLike = 0.0,
        masses: ArrayLike,
        coms: ArrayLike,
        inertias: ArrayLike,
        gravity: ArrayLike = (0.0, 0.0, -9.81),
    ) -> Self:
        """Build from DH columns (as :meth:`robokin.serial.SerialArm.from_dh`) and the inertial parameters."""
        arm = SerialArm.from_dh(a, alpha, d, offset=offset, convention=convention)
        return cls(arm, masses=masses, coms=coms, inertias=inertias, gravity=gravity)

    @property
    def n(self) -> int:
        """Number of joints."""
        return self.arm.n

    def _kernel(self, kind, *, arrays, terms="full", K=None):
        K = self._K if K is None else K
        key = (kind, arrays, terms, K is self._K0)
        kern = self._kern.get(key)
        if kern is None:
            extra = (("terms", terms),) if kind == "rnea" else ()
            kern = self._kern[key] = _k._compile(
                kind, self.n, self.arm.convention, _k._structure(K), extra, arrays=arrays
            )
        return kern

    def _joint(self, x, name):
        return as_array(x, name, trailing=(self.n,))

    def _call(self, kind, terms, args, width, K=None):
        """Run a kernel on checked joint arrays ``args`` (q first); returns (batch shape, (m, width) or tuple).

        ``K``: the constants (default ``self._K``; ``self._K0`` drops gravity).
        """
        n = self.n
        K = self._K if K is None else K
        fast = [_k.floats_or_none(x, n) for x in args]
        if all(f is not None for f in fast):
            c, s = _k.cos_sin(fast[0], self.arm._offsets)
            return None, self._kernel(kind, arrays=False, terms=terms, K=K)(K, c, s, *fast[1:])
        names = ("q", "qd", "qdd", "tau")
        arrs = broadcast([self._joint(x, nm) for x, nm in zip(args, names)], names[: len(args)])
        lead = arrs[0].shape[:-1]
        if not lead:
            c, s = _k.cos_sin(arrs[0].tolist(), self.arm._offsets)
            kern = self._kernel(kind, arrays=False, terms=terms, K=K)
            return None, kern(K, c, s, *[x.tolist() for x in arrs[1:]])
        flat = [x.reshape(-1, n) for x in arrs]
        out = np.empty((len(flat[0]), width))
        _k.run_batched(self._kernel(kind, arrays=True, terms=terms, K=K), K, flat[0], self.arm.offset, out, *flat[1:])
        return lead, out

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """Inverse dynamics ``tau = M(q) qdd + C(q, qd) qd + G(q)`` by recursive Newton-Euler.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (..., n)
            Joint angles (rad), rates (rad/s), accelerations (rad/s^2); broadcast together.

        Returns
        -------
        ndarray, shape (..., n)
            Joint torques (N m).
        """
        n = self.n
        a, b, c = _k.floats_or_none(q, n), _k.floats_or_none(qd, n), _k.floats_or_none(qdd, n)
        if a is not None and b is not None and c is not None:  # one configuration: the float kernel directly
            kern = self._kern.get(("rnea", False, "full", False)) or self._kernel("rnea", arrays=False)
            return _k.to_array(kern(self._K, *_k.cos_sin(a, self.arm._offsets), b, c), (n,))
        lead, out = self._call("rnea", "full", (q, qd, qdd), n)
        return _k.to_array(out, (n,)) if lead is None else out.reshape(lead + (n,))

    def gravity(self, q: ArrayLike) -> np.ndarray:
        """Gravity torque ``G(q)`` (N m), shape (..., n): the torque that holds the arm still.

        Examples
        --------
        >>> dyn = SerialDynamics.from_dh([1.0], [0.0], [0.0], convention="standard", masses=[2.0],
        ...                              coms=[[-0.5, 0.0, 0.0]], inertias=np.zeros((1, 3, 3)), gravity=[0, -9.81, 0])
        >>> np.round(dyn.gravity([0.0]), 12)   # 2 kg at 0.5 m, arm horizontal
        array([9.81])
        """
        lead, out = self._call("rnea", "gravity", (q,), self.n)
        return _k.to_array(out, (self.n,)) if lead is None else out.reshape(lead + (self.n,))

    def bias(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Velocity torques ``C(q, qd) qd`` (N m), shape (..., n), without gravity: RNEA with ``qdd = 0``, ``g = 0``.

        Examples
        --------
        >>> dyn = SerialDynamics.from_dh([1.0], [0.0], [0.0], convention="standard", masses=[2.0],
        ...                              coms=[[-0.5, 0.0, 0.0]], inertias=np.zeros((1, 3, 3)), gravity=[0, -9.81, 0])
        >>> dyn.bias([0.3], [2.0]) + 0.0   # one joint: no Coriolis or centrifugal torque, and no gravity
        array([0.])
        """
        return self._bias(q, qd, self._K0)

    def _bias(self, q, qd, K):
        lead, out = self._call("rnea", "bias", (q, qd), self.n, K=K)
        return _k.to_array(out, (self.n,)) if lead is None else out.reshape(lead + (self.n,))

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space mass matrix ``M(q)`` (kg m^2), shape (..., n, n), by the composite-rigid-body algorithm.

        Examples
        --------
        >>> dyn = SerialDynamics.from_dh([1.0], [0.0], [0.0], convention="standard", masses=[2.0],
        ...                              coms=[[-0.5, 0.0, 0.0]], inertias=np.diag([0.0, 0.1, 0.1])[None])
        >>> dyn.mass_matrix([0.3])   # I_zz + m r^2 = 0.1 + 2 * 0.25
        array([[0.6]])
        """
        n = self.n
        lead, out = self._call("crba", None, (q,), n * (n + 1) // 2)
        if lead is None:
            return np.array(out)[self._sym].reshape(n, n)
        return out[:, self._sym].reshape(lead + (n, n))

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - C qd - G)`` (rad/s^2), shape (..., n).

        ``M`` from CRBA, ``C qd + G`` from one RNEA pass with ``qdd = 0``. A Cholesky factorisation checks that ``M`` is
        numerically positive definite (squared smallest to largest pivot ratio above 1e-13); then ``M qdd = rhs``
        is solved.

        Raises
        ------
        robokin.errors.SingularityError
            (a ``ValueError``) where ``M`` is not numerically positive definite (e.g. massless distal links).
        """
        q, qd, tau = broadcast(
            [self._joint(q, "q"), self._joint(qd, "qd"), self._joint(tau, "tau")], ("q", "qd", "tau")
        )
        M = self.mass_matrix(q)
        rhs = tau - self._bias(q, qd, self._K)  # C qd + G in one pass
        try:
            L = np.linalg.cholesky(M)
        except np.linalg.LinAlgError:
            L = None
        if L is not None:
            d = np.diagonal(L, axis1=-2, axis2=-1)
            ratio = (d.min(axis=-1) / d.max(axis=-1)) ** 2
        if L is None or np.any(ratio < 1e-13):
            cond = float(np.max(np.linalg.cond(M)))
            raise SingularityError(
                cond,
                "SerialDynamics.forward_dynamics: mass matrix not positive definite (check the inertial parameters)",
            )
        return np.linalg.solve(M, rhs[..., None])[..., 0]

    def forward_dynamics_aba(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
        """Joint accelerations by Featherstone's articulated-body algorithm (ABA), ``O(n)`` per configuration.

        The same ``qdd = M^{-1} (tau - C qd - G)`` as :meth:`forward_dynamics`, without forming or factorising
        ``M``: one outward pass (link velocities, velocity-product accelerations ``c_i`` and bias forces
        ``p_i = v_i x* I_i v_i``), one inward pass (articulated inertias ``I^A_i`` and bias forces ``p^A_i``, each
        joint's ``U_i = I^A_i s_i``, ``D_i = s_i^T U_i``, ``u_i = tau_i - s_i^T p^A_i`` handed to the parent) and
        one outward pass for the accelerations, starting from the base accelerating at ``-g``.

        Spatial vectors are Plücker coordinates in the arm's base frame (angular part first, the linear part
        referred to the base origin), so no coordinate transforms are needed between links; the link frames come
        from :meth:`robokin.serial.SerialArm.fk_all`. Vectorised over the batch with numpy (a loop over the ``n``
        joints, each step on the whole batch); :meth:`forward_dynamics` (CRBA + Cholesky + solve) runs on the
        package's generated kernels.
        The algorithm is the one of R. Featherstone, *Rigid Body Dynamics Algorithms*, Springer, 2008.

        Parameters
        ----------
        q, qd, tau : array_like, shape (..., n)
            Joint angles (rad), rates (rad/s), torques (N m); broadcast together.

        Returns
        -------
        ndarray, shape (..., n)
            Joint accelerations (rad/s^2).

        Raises
        ------
        robokin.errors.SingularityError
            Where a joint's articulated inertia ``D_i`` is not positive (below 1e-13 times the largest ``D_j`` of
            that configuration): the distal chain has no inertia about that axis (e.g. massless links), ``M`` is
            singular.

        Examples
        --------
        >>> dyn = SerialDynamics.from_dh([1.0], [0.0], [0.0], convention="standard", masses=[2.0],
        ...                              coms=[[-0.5, 0.0, 0.0]], inertias=np.diag([0.0, 0.1, 0.1])[None],
        ...                              gravity=[0, -9.81, 0])
        >>> np.round(dyn.forward_dynamics_aba([0.0], [0.0], [0.0]), 12)   # -m g r / (I + m r^2) = -9.81 / 0.6
        array([-16.35])
        >>> q, qd, tau = [0.3], [2.0], [1.0]
        >>> bool(np.allclose(dyn.forward_dynamics_aba(q, qd, tau), dyn.forward_dynamics(q, qd, tau), atol=1e-12))
        True
        """
        for x, nm in ((q, "q"), (qd, "qd"), (tau, "tau")):
            _refuse_bool(x, nm, "joint angles (rad)" if nm == "q" else "joint rates (rad/s) or torques (N m)")
        q, qd, tau = broadcast(
            [self._joint(q, "q"), self._joint(qd, "qd"), self._joint(tau, "tau")], ("q", "qd", "tau")
        )
        n, lead = self.n, q.shape[:-1]
        q, qd, tau = (x.reshape(-1, n) for x in (q, qd, tau))
        F = self.arm.fk_all(q)  # (B, n + 1, 4, 4), base frame
        sel = slice(0, n) if self.arm.convention == "standard" else slice(1, n + 1)
        z, o = F[:, sel, :3, 2], F[:, sel, :3, 3]
        S = np.concatenate([z, np.cross(o, z)], axis=-1)  # joint axes as unit twists, (B, n, 6)
        R, p = F[:, 1:, :3, :3], F[:, 1:, :3, 3]
        com = p + np.einsum("bkij,kj->bki", R, self.coms)  # centres of mass, base frame
        Ic = np.einsum("bkij,kjl,bkml->bkim", R, self.inertias, R)  # about the centre of mass, base axes
        m = self.masses[None, :, None, None]
        cx = _skew(com)
        Isp = np.empty(q.shape + (6, 6))  # spatial inertia about the base origin
        Isp[..., :3, :3] = Ic - m * cx @ cx
        Isp[..., :3, 3:] = m * cx
        Isp[..., 3:, :3] = -m * cx
        Isp[..., 3:, 3:] = m * np.eye(3)
        B = q.shape[0]
        v = np.zeros((B, 6))
        c = np.empty((B, n, 6))
        pA = np.empty((B, n, 6))
        for i in range(n):  # outward: velocities, velocity-product accelerations, bias forces
            vj = S[:, i] * qd[:, i, None]
            v = v + vj
            c[:, i] = _cross_motion(v, vj)
            pA[:, i] = _cross_force(v, np.einsum("bij,bj->bi", Isp[:, i], v))
        IA = Isp.copy()
        U = np.empty((B, n, 6))
        D = np.empty((B, n))
        u = np.empty((B, n))
        with np.errstate(all="ignore"):  # a singular chain divides by D_i = 0: detected below, then raised
            for i in range(n - 1, -1, -1):  # inward: articulated inertias and bias forces
                U[:, i] = np.einsum("bij,bj->bi", IA[:, i], S[:, i])
                D[:, i] = np.einsum("bi,bi->b", S[:, i], U[:, i])
                u[:, i] = tau[:, i] - np.einsum("bi,bi->b", S[:, i], pA[:, i])
                if i > 0:
                    Ia = IA[:, i] - U[:, i, :, None] * U[:, i, None, :] / D[:, i, None, None]
                    IA[:, i - 1] += Ia
                    pA[:, i - 1] += (
                        pA[:, i] + np.einsum("bij,bj->bi", Ia, c[:, i]) + U[:, i] * (u[:, i] / D[:, i])[:, None]
                    )
        bad = ~(D > 1e-13 * D.max(axis=-1, keepdims=True))
        if np.any(bad):
            raise SingularityError(
                float("inf"),
                "SerialDynamics.forward_dynamics_aba: articulated inertia of joint "
                f"{n - int(np.argmax(bad.any(axis=0)[::-1]))} not positive (check the inertial parameters)",
            )
        a = np.zeros((B, 6))
        a[:, 3:] = -self.gravity_vector  # gravity as an upward acceleration of the base
        qdd = np.empty((B, n))
        for i in range(n):  # outward: accelerations
            a = a + c[:, i]
            qdd[:, i] = (u[:, i] - np.einsum("bi,bi->b", U[:, i], a)) / D[:, i]
            a = a + S[:, i] * qdd[:, i, None]
        return qdd.reshape(lead + (n,))


def _rnea_reference(a, alpha, d, q, qd, qdd, *, convention, offset=0, masses, coms, inertias, gravity):
    """Readable matrix form of RNEA (3x3 rotations, ``np.cross``): the reference the fast kernels are tested on.

    Same frames and result as :meth:`SerialDynamics.inverse_dynamics` of ``SerialDynamics.from_dh(a, alpha, d, ...)``.
    """
    a, alpha, d, offset, masses, coms, inertias, n = _rnea_inputs(
        a, alpha, d, offset, masses, coms, inertias, convention
    )
    q = as_array(q, "q", trailing=(n,))
    qd = as_array(qd, "qd", trailing=(n,))
    qdd = as_array(qdd, "qdd", trailing=(n,))
    gravity = as_array(gravity, "gravity", trailing=(3,))
    if gravity.ndim != 1:
        raise ValueError(f"gravity must have shape (3,), got {gravity.shape}")
    q, qd, qdd = broadcast([q, qd, qdd], ("q", "qd", "qdd"))
    batch = q.shape[:-1]
    R, p = dh_rotation_origin(a, alpha, d, q + offset, convention == "standard")  # (..., n, 3, 3), (..., n, 3)
    Rt = np.swapaxes(R, -1, -2)
    e3 = np.array([0.0, 0.0, 1.0])
    std = convention == "standard"
    # Joint axis of joint i in frame i: z_{i-1} = R^T e3 (standard) or e3 (modified).
    axis = Rt[..., :, 2] if std else np.broadcast_to(e3, batch + (n, 3))
    # s: joint point of joint i relative to origin i (frame i); e: joint point of joint i+1.
    s = -np.einsum("...ij,...j->...i", Rt, p) if std else np.zeros(batch + (n, 3))
    e = np.zeros(batch + (n, 3))
    if not std:
        e[..., :-1, :] = p[..., 1:, :]

    def mv(A, v):
        return np.einsum("...ij,...j->...i", A, v)

    w = np.zeros(batch + (3,))
    wd = np.zeros(batch + (3,))
    acc = np.broadcast_to(-gravity, batch + (3,))  # acceleration of the joint point, frame i-1
    Fs, Ns, arms = [], [], []
    for i in range(n):
        Ri = Rt[..., i, :, :]
        zi = axis[..., i, :]
        w_prev = mv(Ri, w)
        w = w_prev + zi * qd[..., i, None]
        wd = mv(Ri, wd) + zi * qdd[..., i, None] + np.cross(w_prev, zi * qd[..., i, None])
        acc_J = mv(Ri, acc)
        rc = coms[i] - s[..., i, :]
        a_c = acc_J + np.cross(wd, rc) + np.cross(w, np.cross(w, rc))
        Fs.append(masses[i] * a_c)
        Iw = mv(inertias[i], w)
        Ns.append(mv(inertias[i], wd) + np.cross(w, Iw))
        arms.append((rc, e[..., i, :] - s[..., i, :]))
        re = e[..., i, :] - s[..., i, :]
        acc = acc_J + np.cross(wd, re) + np.cross(w, np.cross(w, re))  # next joint point, frame i
    tau = np.empty(batch + (n,))
    f = np.zeros(batch + (3,))
    nm = np.zeros(batch + (3,))
    for i in range(n - 1, -1, -1):
        rc, re = arms[i]
        if i + 1 < n:
            Rn = R[..., i + 1, :, :]
            f_child, n_child = mv(Rn, f), mv(Rn, nm)
        else:
            f_child = n_child = np.zeros(batch + (3,))
        f = Fs[i] + f_child
        nm = Ns[i] + np.cross(rc, Fs[i]) + n_child + np.cross(re, f_child)
        # nm is the moment about joint point i, which the parent sees at its e_{i-1}: no shift needed.
        tau[..., i] = np.einsum("...i,...i->...", nm, axis[..., i, :])
    return tau


def _rnea_mass_matrix_reference(a, alpha, d, q, *, convention, offset=0, masses, coms, inertias):
    """Mass matrix from ``n`` passes of :func:`_rnea_reference` (unit accelerations, no velocity, no gravity)."""
    a = as_array(a, "a", trailing=(None,))
    n = a.shape[-1]
    q = as_array(q, "q", trailing=(n,))
    eye = np.eye(n)
    qb = np.broadcast_to(q[..., None, :], q.shape[:-1] + (n, n))
    cols = _rnea_reference(
        a,
        alpha,
        d,
        qb,
        np.zeros_like(qb),
        np.broadcast_to(eye, qb.shape),
        convention=convention,
        offset=offset,
        masses=masses,
        coms=coms,
        inertias=inertias,
        gravity=np.zeros(3),
    )
    return np.swapaxes(cols, -1, -2)  # cols[..., j, :] is column j


# ------------------------------------------------------------------------- energy
def energy_drift(
    arm: TwoLinkArm,
    q0: ArrayLike,
    qd0: ArrayLike,
    *,
    t_end: float = 5.0,
    rtol: float = 1e-12,
    atol: float = 1e-12,
    method: Literal["RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA"] = "DOP853",
    max_nfev: int = 2_000_000,
) -> tuple[float, Any]:
    """Simulate the unforced arm with ``solve_ivp`` and return the relative energy drift.

    The drift is ``max_t |E(t) - E(0)| / (E(0) - V_min)``: relative to the mechanical energy
    measured above the lowest potential (arm hanging down), which is always positive.

    The integration is guarded: ``rtol`` must lie in ``[100 eps, 0.1]``, ``atol`` in ``(0, 1]`` and
    ``max_nfev`` in ``[1, 1e8]``; more than ``max_nfev`` right-hand-side evaluations, a
    non-finite derivative or a solver failure raise :class:`~robokin.errors.IntegrationError`.

    Returns
    -------
    drift : float
    sol : scipy OdeResult (dense output off; ``sol.t``, ``sol.y`` with rows q1, q2, qd1, qd2)

    Examples
    --------
    >>> arm = TwoLinkArm(m1=1.2, m2=0.8, l1=0.5, l2=0.4, lc1=0.22, lc2=0.17, I1=0.03, I2=0.012)
    >>> drift, _ = energy_drift(arm, [0.3, 0.5], [0.0, 1.0], t_end=0.5)
    >>> drift < 1e-9
    True
    """
    if not isinstance(arm, TwoLinkArm) or arm.batch_size != 1:
        raise ValueError("arm must be a TwoLinkArm with scalar parameters (one arm)")
    q0 = as_array(q0, "q0", trailing=(2,))
    qd0 = as_array(qd0, "qd0", trailing=(2,))
    if q0.ndim != 1 or qd0.ndim != 1:
        raise ValueError("energy_drift simulates one initial state: q0 and qd0 must have shape (2,)")
    t_end = positive(t_end, "t_end")
    rtol, atol, method = ivp_options(rtol, atol, method)
    max_nfev = count(max_nfev, "max_nfev")
    arm.forward_dynamics(q0, qd0, [0.0, 0.0])  # a singular mass matrix fails here, with a clear error

    def rhs(t, x):
        qdd = arm._accel(x[0], x[1], x[2], x[3], 0.0, 0.0)
        return [x[2], x[3], qdd[0], qdd[1]]

    sol = solve_ivp_guarded(
        rhs,
        (0.0, t_end),
        np.r_[q0, qd0],
        name="energy_drift",
        max_nfev=max_nfev,
        method=method,
        rtol=rtol,
        atol=atol,
        t_eval=np.linspace(0.0, t_end, 501),
    )
    E = arm.energy(sol.y[:2].T, sol.y[2:].T)
    scale = E[0] - arm.potential_min()
    return float(np.max(np.abs(E - E[0])) / scale), sol


def _skew(v):
    """``[v]x`` for v of shape (..., 3): the matrix of ``v x .``."""
    S = np.zeros(v.shape + (3,))
    S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    S[..., 1, 0], S[..., 2, 0], S[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return S


def _cross_motion(v, m):
    """Spatial cross product ``v x m`` of motion vectors (angular part first), shape (..., 6)."""
    w, vo = v[..., :3], v[..., 3:]
    return np.concatenate([np.cross(w, m[..., :3]), np.cross(w, m[..., 3:]) + np.cross(vo, m[..., :3])], axis=-1)


def _cross_force(v, f):
    """Spatial cross product ``v x* f`` of a motion vector with a force vector (moment first), shape (..., 6)."""
    w, vo = v[..., :3], v[..., 3:]
    return np.concatenate([np.cross(w, f[..., :3]) + np.cross(vo, f[..., 3:]), np.cross(w, f[..., 3:])], axis=-1)


def _refuse_bool(x, name, what):
    """Raise a ValueError naming ``name`` when ``x`` is a bool array or scalar (True would silently become 1)."""
    try:
        kind = np.asarray(x).dtype.kind
    except (TypeError, ValueError):
        return  # ragged or odd input: as_array reports it
    if kind == "b":
        raise ValueError(f"{name} must be a real numeric array of {what}, got a bool array")


def add_reflected_inertia(M: ArrayLike, *, gear_ratios: ArrayLike, rotor_inertias: ArrayLike) -> np.ndarray:
    """Mass matrix with each motor's reflected rotor inertia ``N_i^2 J_i`` added to its diagonal entry.

    A rotor of inertia ``J_i`` (motor side) behind a gear of ratio ``N_i`` (motor turns per joint turn) spins at
    ``N_i qd_i``; its kinetic energy ``1/2 J_i N_i^2 qd_i^2`` adds ``N_i^2 J_i`` to ``M_ii``. This is the usual
    model for rotors mounted on the preceding link with large ``N``: it neglects the inertial cross terms between
    the rotors and the links' motion (of order ``N J``, not ``N^2 J``; in a planar two-link arm with the second
    rotor on link 1 they are ``N_2 J_2`` in ``M_12`` and ``J_2`` in ``M_11``) and the rotors' mass, which
    belongs in the link parameters.

    Parameters
    ----------
    M : array_like, shape (..., n, n)
        Joint-space mass matrices (kg m^2), symmetric.
    gear_ratios : array_like, shape (n,) or (..., n)
        Reduction ratios ``N_i`` (dimensionless), positive.
    rotor_inertias : array_like, shape (n,) or (..., n)
        Rotor inertias about their axes, motor side (kg m^2), non-negative.

    Returns
    -------
    ndarray, shape (..., n, n)

    Raises
    ------
    ValueError
        Naming the argument: ``M`` not square or not symmetric (to 1e-12 of its largest entry), a bool array for
        any argument, non-positive ``gear_ratios``, negative ``rotor_inertias``, shapes that do not broadcast.

    Examples
    --------
    >>> add_reflected_inertia(np.diag([0.4, 0.05]), gear_ratios=[10.0, 10.0], rotor_inertias=[1.4e-5, 1.4e-5])
    array([[0.4014, 0.    ],
           [0.    , 0.0514]])
    """
    _refuse_bool(M, "M", "mass-matrix entries (kg m^2)")
    _refuse_bool(gear_ratios, "gear_ratios", "reduction ratios")
    _refuse_bool(rotor_inertias, "rotor_inertias", "rotor inertias (kg m^2)")
    M = as_array(M, "M", trailing=(None, None))
    if M.ndim < 2 or M.shape[-1] != M.shape[-2] or M.shape[-1] == 0:
        raise ValueError(f"M must have shape (..., n, n), got {M.shape}")
    if M.size == 0:
        raise ValueError(f"M is empty (shape {M.shape}): give at least one mass matrix")
    n = M.shape[-1]
    asym = np.abs(M - np.swapaxes(M, -1, -2))
    tol = 1e-12 * max(float(np.abs(M).max()), np.finfo(float).tiny)
    if np.any(asym > tol):
        raise ValueError(
            f"M must be symmetric (a mass matrix), got max |M - M^T| = {float(asym.max()):.3g} (tolerance {tol:.3g})"
        )
    N = as_array(gear_ratios, "gear_ratios", trailing=(n,))
    J = as_array(rotor_inertias, "rotor_inertias", trailing=(n,))
    if N.ndim == 0 or J.ndim == 0:
        raise ValueError(f"gear_ratios and rotor_inertias need one entry per joint (n = {n})")
    if np.any(N <= 0):
        raise ValueError(f"gear_ratios must be positive (motor turns per joint turn), got {N}")
    if np.any(J < 0):
        raise ValueError(f"rotor_inertias must be non-negative (kg m^2), got {J}")
    add = N**2 * J
    try:
        out = np.array(np.broadcast_to(M, np.broadcast_shapes(M.shape, add.shape[:-1] + (n, n))), dtype=float)
    except ValueError:
        raise ValueError(f"gear_ratios/rotor_inertias {add.shape} do not broadcast with M {M.shape}") from None
    idx = np.arange(n)
    out[..., idx, idx] += add
    return out


def pd_gravity_lyapunov(model: Any, q: ArrayLike, qd: ArrayLike, *, q_ref: ArrayLike, kp: ArrayLike) -> np.ndarray:
    """Takegaki-Arimoto Lyapunov function ``V = 1/2 qd^T M(q) qd + 1/2 e^T Kp e``, ``e = q - q_ref`` (J).

    For the regulator ``tau = Kp (q_ref - q) - Kd qd + G(q)`` with ``Kp, Kd`` symmetric positive definite,
    ``dV/dt = -qd^T Kd qd`` (chapter 11 derives it from the energy identity ``qd^T (Mdot - 2C) qd = 0``, which
    the skew-symmetry of ``Mdot - 2C`` implies): M. Takegaki and
    S. Arimoto, J. Dyn. Sys., Meas., Control 103(2):119-125, 1981.

    Parameters
    ----------
    model : a dynamics model with ``mass_matrix(q)`` (e.g. :class:`TwoLinkArm` or :class:`SerialDynamics`)
    q, qd : array_like, shape (..., n)
        Joint angles (rad) and rates (rad/s); broadcast together.
    q_ref : array_like, shape (n,) or (..., n)
        Set point (rad).
    kp : array_like, shape (n,) or (n, n)
        Proportional gain (N m/rad): a diagonal as a vector, or a symmetric matrix.

    Returns
    -------
    ndarray, shape (...)

    Raises
    ------
    ValueError
        Naming the argument: a model without ``mass_matrix``, ``kp`` not symmetric positive definite, wrong
        trailing shapes, non-finite values, ``q_ref`` that does not broadcast with ``q``.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> float(pd_gravity_lyapunov(arm, [0.2, 0.0], [0.0, 0.0], q_ref=[0.0, 0.0], kp=[50.0, 50.0]))  # 1/2 50 0.2^2
    1.0
    """
    if not callable(getattr(model, "mass_matrix", None)):
        raise ValueError(f"model must have a mass_matrix(q) method, got {type(model).__name__}")
    q = as_array(q, "q", trailing=(None,))
    if q.ndim == 0 or q.shape[-1] == 0:
        raise ValueError(f"q must have shape (..., n), got {q.shape}")
    n = q.shape[-1]
    qd = as_array(qd, "qd", trailing=(n,))
    q_ref = as_array(q_ref, "q_ref", trailing=(n,))
    K = as_array(kp, "kp")
    if K.shape == (n,):
        K = np.diag(K)
    if K.shape != (n, n):
        raise ValueError(f"kp must have shape ({n},) or ({n}, {n}), got {K.shape}")
    if not np.allclose(K, K.T, rtol=1e-12, atol=0.0) or np.linalg.eigvalsh(K).min() <= 0:
        raise ValueError("kp must be symmetric positive definite")
    q, qd = broadcast([q, qd], ("q", "qd"))
    try:
        e = q - q_ref
    except ValueError:
        raise ValueError(f"q_ref {q_ref.shape} does not broadcast with q {q.shape}") from None
    Mq = np.asarray(model.mass_matrix(q))
    return 0.5 * np.einsum("...i,...ij,...j->...", qd, Mq, qd) + 0.5 * np.einsum("...i,ij,...j->...", e, K, e)
