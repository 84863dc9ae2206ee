"""Wheel-legged balance: virtual leg, wheeled inverted pendulum, scheduled LQR and VMC.

The planar model (chapter 4) is a wheel of radius ``R`` rolling without slip,
a leg of prescribed length ``L0(t)`` from the wheel axle to the hip, and a body
hinged at the hip. Both sides of the robot are lumped into one plane (masses and
torques are the sums over the two legs).

Conventions
-----------
* World frame: ``x`` forward along the ground, ``z`` up, metres.
* Every angle is positive when it turns ``+z`` towards ``+x`` (leaning forward).
* ``theta``: leg angle from the vertical, world frame (hip ahead of the wheel > 0).
* ``phi``: body pitch, world frame (nose down > 0), zero when the body is level.
* ``x``: wheel displacement; the wheel angle is ``x / R`` (rolling without slip).
* Generalised coordinates ``q = [x, theta, phi]`` (m, rad, rad) and rates ``qd``: the order of
  :class:`WheelLegDynamics` (mass matrix, bias, gravity, forward and inverse dynamics) and of
  :func:`simulate`'s ``q0``, ``qd0`` and ``SimResult.q``, ``.qd``.
* Controller state ``s = [theta, theta_dot, x, x_dot, phi, phi_dot]`` (rad, rad/s, m, m/s, rad, rad/s): the
  order of :func:`linearize`, the LQR gains and the references (:func:`to_state`, :func:`from_state`).
* Input ``u = [T, Tp]`` (N m): ``T`` wheel-motor torque on the wheel (reaction on
  the leg), ``Tp`` hip torque that the body applies to the leg (reaction on the body).
* Five-bar frame (chapter 3): fixed to the body, ``x`` forward, ``y`` up, motors at
  ``(0, 0)`` and ``(d, 0)``; the virtual leg runs from the hip midpoint ``(d/2, 0)``
  to the foot (wheel axle): length ``L0`` and polar angle ``phi0 = atan2(y, x - d/2)``
  (``-pi/2`` when the foot is straight below the hip). The leg angle relative to the
  body is ``theta_b = -pi/2 - phi0`` and in the world ``theta = theta_b + phi``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from ._validate import (
    MAX_ABS,
    MAX_COND,
    as_array,
    broadcast,
    callback_output,
    choice,
    count,
    finite_scalar,
    flag,
    integer,
    ivp_options,
    positive,
    solve_ivp_guarded,
    tolerance,
)
from .fivebar import FiveBar
from .results import SimResult

__all__ = [
    "WheelLegParams",
    "PARAM_UNITS",
    "WheelLegDynamics",
    "to_state",
    "from_state",
    "GainSchedule",
    "Q_DEFAULT",
    "R_DEFAULT",
    "FALL_ANGLE",
    "linearize",
    "lqr_gain",
    "gain_schedule",
    "closed_loop_eigs",
    "simulate",
    "speed_reference",
    "virtual_leg",
    "virtual_leg_jacobian",
    "virtual_leg_inverse",
    "vmc_torques",
    "joint_handover",
    "dlqr_gain",
    "discretize",
    "simulate_sampled",
    "normal_force_estimate",
    "push_recovery",
]

#: Default LQR state weight for ``[theta, theta_dot, x, x_dot, phi, phi_dot]``.
Q_DEFAULT = np.diag([100.0, 1.0, 200.0, 20.0, 1000.0, 1.0])
#: Default LQR input weight for ``[T, Tp]``.
R_DEFAULT = np.diag([10.0, 1.0])


@dataclass(frozen=True)
class WheelLegParams:
    """Physical parameters of the planar wheel-legged robot (both sides lumped).

    Parameters
    ----------
    m_b : float
        Body mass, kg (includes the hip motors).
    I_b : float
        Body pitch inertia about its centre of mass, kg m^2.
    l_c : float
        Distance from the hip axis up to the body centre of mass, m (zero pitch = level body).
    m_l : float
        Mass of the legs, kg; each leg is a uniform rod from axle to hip, so its
        centre of mass is at ``L0/2`` and its inertia ``m_l L0^2 / 12``.
    m_w : float
        Mass of the wheels, kg.
    I_w : float
        Wheel spin inertia, kg m^2; at most ``m_w R^2`` (all the wheel mass on the rim),
        larger values are physically impossible and rejected.
    R : float
        Wheel radius, m.
    g : float
        Gravity, m/s^2.

    Examples
    --------
    >>> p = WheelLegParams()
    >>> round(p.total_mass, 2)
    14.8
    >>> WheelLegParams(m_b=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: m_b must be a positive finite number, got -1.0
    >>> WheelLegParams(I_w=0.01)   # 1.6 kg wheels of radius 0.06 m hold at most 0.00576 kg m^2
    Traceback (most recent call last):
    ...
    ValueError: I_w = 0.01 kg m^2 exceeds m_w R^2 = 0.00576 kg m^2 (all the wheel mass on the rim): physically impossible
    """

    m_b: float = 12.0
    I_b: float = 0.25
    l_c: float = 0.03
    m_l: float = 1.2
    m_w: float = 1.6
    I_w: float = 0.00288
    R: float = 0.06
    g: float = 9.81

    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, positive(getattr(self, f.name), f.name))
        rim = self.m_w * self.R**2
        if self.I_w > rim * (1 + 1e-12):
            raise ValueError(
                f"I_w = {self.I_w:.6g} kg m^2 exceeds m_w R^2 = {rim:.6g} kg m^2 (all the wheel mass "
                "on the rim): physically impossible"
            )

    @property
    def total_mass(self) -> float:
        """Total mass in kg."""
        return self.m_b + self.m_l + self.m_w


#: Units of the :class:`WheelLegParams` fields, for tables.
PARAM_UNITS = {
    "m_b": "kg",
    "I_b": "kg m^2",
    "l_c": "m",
    "m_l": "kg",
    "m_w": "kg",
    "I_w": "kg m^2",
    "R": "m",
    "g": "m/s^2",
}


#: Shortest leg length accepted, m. Below it the leg-pitch terms degenerate: at 1e-9 m the LQR gain no longer
#: stabilises the linear model, at 1e-12 m the Riccati solver fails and at 1e-300 m the dynamics overflow.
MIN_LEG_LENGTH = 1e-3


def _length(L0, name="L0"):
    L = as_array(L0, name)
    if L.size and L.min() < MIN_LEG_LENGTH:
        raise ValueError(
            f"{name} must be positive and at least {MIN_LEG_LENGTH:g} m (leg length in metres; shorter legs make "
            f"the model degenerate), got min {L.min():.3g}"
        )
    return L


def _h(p, q, qd, L, Ld, Ldd, fb, g):
    """``h`` of ``M qdd + h = B u`` (velocity, leg-stroke, gravity ``g`` and push ``fb`` terms); unchecked, batched.

    With ``g = 0`` and ``fb = 0`` this is the Coriolis, centrifugal and leg-stroke part alone.
    """
    th, ph = q[..., 1], q[..., 2]
    thd, phd = qd[..., 1], qd[..., 2]
    s, c, sp_, cp = np.sin(th), np.cos(th), np.sin(ph), np.cos(ph)
    a, ad, add = 0.5 * L, 0.5 * Ld, 0.5 * Ldd
    lc = p.l_c
    # accelerations of the centres of mass at qdd = 0 (Coriolis, centripetal, leg stroke)
    blx = add * s + 2 * ad * c * thd - a * s * thd**2
    blz = add * c - 2 * ad * s * thd - a * c * thd**2
    bbx = Ldd * s + 2 * Ld * c * thd - L * s * thd**2 - lc * sp_ * phd**2
    bbz = Ldd * c - 2 * Ld * s * thd - L * c * thd**2 - lc * cp * phd**2
    ml, mb = p.m_l, p.m_b
    # h = sum m J^T (bias + [0, g]) - J_b^T [f_body, 0] + d(I_leg)/dt * theta_dot
    hx = ml * blx + mb * bbx - fb
    hth = (
        ml * (a * c * blx - a * s * (blz + g))
        + mb * (L * c * bbx - L * s * (bbz + g))
        - fb * L * c
        + ml * L * Ld / 6 * thd
    )
    hph = mb * (lc * cp * bbx - lc * sp_ * (bbz + g)) - fb * lc * cp
    return np.stack(np.broadcast_arrays(hx, hth, hph), axis=-1)


@dataclass(frozen=True, eq=False)
class WheelLegDynamics:
    """Planar wheel-leg-body dynamics ``M(q) qdd + C(q, qd) qd + g(q) = B u + J_b^T f`` (chapter 4).

    Generalised coordinates ``q = [x, theta, phi]`` (m, rad, rad): wheel displacement, leg angle and body pitch
    (module docstring). The leg length ``L0(t)`` is prescribed, so every method takes it as the keyword ``L0``
    (m), and the velocity terms also take its rates ``L0_dot`` (m/s) and ``L0_ddot`` (m/s^2). The input is
    ``u = [T, Tp]`` (N m); ``f_body`` is a horizontal push on the body centre of mass (N). The parameters are
    checked once, when the model is built; the methods check only their array inputs.

    Parameters
    ----------
    params : WheelLegParams
        Masses, inertias, lengths, gravity.

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> q, qd = np.array([0.0, 0.1, -0.05]), np.array([0.2, -0.3, 0.1])
    >>> qdd = model.forward_dynamics(q, qd, [0.5, -1.0], L0=0.2)
    >>> tau = model.inverse_dynamics(q, qd, qdd, L0=0.2)        # = M qdd + bias + gravity
    >>> bool(np.allclose(tau, model.input_matrix() @ [0.5, -1.0]))
    True
    >>> model.bias(q, np.zeros(3), L0=0.2).tolist()              # no velocity, no gravity
    [0.0, 0.0, 0.0]
    >>> WheelLegDynamics({"m_b": 12.0})
    Traceback (most recent call last):
    ...
    ValueError: params must be a WheelLegParams, got dict
    """

    params: WheelLegParams

    def __post_init__(self):
        if not isinstance(self.params, WheelLegParams):
            raise ValueError(f"params must be a WheelLegParams, got {type(self.params).__name__}")

    # ------------------------------------------------------------------ terms of the equations of motion
    def mass_matrix(self, q: ArrayLike, *, L0: ArrayLike) -> np.ndarray:
        """Mass matrix ``M(q)`` (..., 3, 3) for ``q = [x, theta, phi]``.

        ``M = sum_i m_i J_i^T J_i + diag(I_w/R^2, m_l L0^2/12, I_b)`` with ``J_i`` the Jacobians of the centres
        of mass (eq. ``eq-ch04-eom`` of the chapter).

        Parameters
        ----------
        q : array_like, shape (..., 3)
            ``[x, theta, phi]`` in m, rad, rad.
        L0 : array_like, broadcastable to q's leading shape
            Leg length, m.

        Returns
        -------
        ndarray, shape (..., 3, 3), symmetric positive definite (kg, kg m, kg m^2 entries).

        Examples
        --------
        >>> M = WheelLegDynamics(WheelLegParams()).mass_matrix([0.0, 0.0, 0.0], L0=0.2)
        >>> bool(np.allclose(M, M.T)), bool(np.all(np.linalg.eigvalsh(M) > 0))
        (True, True)
        """
        q = as_array(q, "q", trailing=(3,))
        return self._mass(q, _length(L0))

    def _mass(self, q, L):
        p = self.params
        th, ph = q[..., 1], q[..., 2]
        s, c, sp_, cp = np.sin(th), np.cos(th), np.sin(ph), np.cos(ph)
        shape = np.broadcast_shapes(q.shape[:-1], L.shape)
        s, c, sp_, cp, L = (np.broadcast_to(v, shape) for v in (s, c, sp_, cp, L))
        a = 0.5 * L  # leg centre of mass from the axle
        mw = p.m_w + p.I_w / p.R**2
        M = np.empty(shape + (3, 3))
        M[..., 0, 0] = mw + p.m_l + p.m_b
        M[..., 0, 1] = M[..., 1, 0] = (p.m_l * a + p.m_b * L) * c
        M[..., 0, 2] = M[..., 2, 0] = p.m_b * p.l_c * cp
        M[..., 1, 1] = p.m_l * a**2 + p.m_b * L**2 + p.m_l * L**2 / 12
        M[..., 1, 2] = M[..., 2, 1] = p.m_b * L * p.l_c * (c * cp + s * sp_)  # m_b L l_c cos(theta - phi)
        M[..., 2, 2] = p.m_b * p.l_c**2 + p.I_b
        return M

    def _rates(self, q, qd, L0, L0_dot, L0_ddot):
        q = as_array(q, "q", trailing=(3,))
        qd = as_array(qd, "qd", trailing=(3,))
        return q, qd, _length(L0), as_array(L0_dot, "L0_dot"), as_array(L0_ddot, "L0_ddot")

    def bias(
        self, q: ArrayLike, qd: ArrayLike, *, L0: ArrayLike, L0_dot: ArrayLike = 0.0, L0_ddot: ArrayLike = 0.0
    ) -> np.ndarray:
        """Coriolis, centrifugal and leg-stroke terms ``C(q, qd) qd`` (..., 3), without gravity.

        With a moving leg they include the terms in ``L0_dot`` and ``L0_ddot`` (the leg stroke accelerates
        the leg and body centres of mass even at ``qd = 0``).

        Parameters
        ----------
        q, qd : array_like, shape (..., 3)
            ``[x, theta, phi]`` and their rates (m, rad, rad; per second).
        L0, L0_dot, L0_ddot : array_like
            Prescribed leg length (m) and its first two time derivatives (m/s, m/s^2).

        Returns
        -------
        ndarray, shape (..., 3)
            Generalised forces in N, N m, N m.

        Examples
        --------
        >>> model = WheelLegDynamics(WheelLegParams())
        >>> h = model.bias([0, 0.1, 0], [0, 0, 0], L0=0.2, L0_ddot=1.0)
        >>> bool(h[0] > 0)  # a leg stroke with the leg tilted forward pushes the body forward
        True
        """
        q, qd, L, Ld, Ldd = self._rates(q, qd, L0, L0_dot, L0_ddot)
        return _h(self.params, q, qd, L, Ld, Ldd, 0.0, 0.0)

    def gravity(self, q: ArrayLike, *, L0: ArrayLike) -> np.ndarray:
        """Gravity terms ``g(q) = dV/dq`` (..., 3): ``[0, -g (m_l/2 + m_b) L0 sin(theta), -g m_b l_c sin(phi)]``.

        Examples
        --------
        >>> g = WheelLegDynamics(WheelLegParams()).gravity([0, 0.1, 0], L0=0.2)
        >>> bool(g[1] < 0)  # gravity pulls a forward-leaning leg further forward
        True
        """
        q = as_array(q, "q", trailing=(3,))
        # h at rest with no leg stroke and no push is the gravity term alone: one formula, in _h
        return _h(self.params, q, np.zeros_like(q), _length(L0), 0.0, 0.0, 0.0, self.params.g)

    def input_matrix(self) -> np.ndarray:
        """Input matrix ``B`` (3, 2) mapping ``[T, Tp]`` to generalised forces on ``[x, theta, phi]``.

        From virtual work: ``T (dx/R - dtheta) + Tp (dtheta - dphi)``.

        Examples
        --------
        >>> WheelLegDynamics(WheelLegParams(R=0.05)).input_matrix().tolist()
        [[20.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
        """
        return np.array([[1.0 / self.params.R, 0.0], [-1.0, 1.0], [0.0, -1.0]])

    # ------------------------------------------------------------------ dynamics
    def inverse_dynamics(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        qdd: ArrayLike,
        *,
        L0: ArrayLike,
        L0_dot: ArrayLike = 0.0,
        L0_ddot: ArrayLike = 0.0,
        f_body: ArrayLike = 0.0,
    ) -> np.ndarray:
        """Generalised force ``M qdd + bias + gravity - J_b^T f_body`` (..., 3) that produces ``qdd``.

        The robot can only apply ``B u`` (two inputs for three coordinates), so a motion is feasible when the
        result lies in the range of :meth:`input_matrix`.

        Parameters
        ----------
        q, qd, qdd : array_like, shape (..., 3)
            Coordinates ``[x, theta, phi]``, rates and accelerations.
        L0, L0_dot, L0_ddot : array_like
            Leg length (m) and its derivatives.
        f_body : array_like
            Horizontal push on the body centre of mass, N.

        Returns
        -------
        ndarray, shape (..., 3)
            Generalised forces in N, N m, N m.

        Examples
        --------
        >>> model = WheelLegDynamics(WheelLegParams())
        >>> model.inverse_dynamics(np.zeros(3), np.zeros(3), np.zeros(3), L0=0.2).tolist()   # upright rest
        [0.0, 0.0, 0.0]
        """
        q, qd, L, Ld, Ldd = self._rates(q, qd, L0, L0_dot, L0_ddot)
        qdd = as_array(qdd, "qdd", trailing=(3,))
        fb = as_array(f_body, "f_body")
        M = self._mass(q, L)
        return np.einsum("...ij,...j->...i", M, qdd) + _h(self.params, q, qd, L, Ld, Ldd, fb, self.params.g)

    def forward_dynamics(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        u: ArrayLike,
        *,
        L0: ArrayLike,
        L0_dot: ArrayLike = 0.0,
        L0_ddot: ArrayLike = 0.0,
        f_body: ArrayLike = 0.0,
    ) -> np.ndarray:
        """Accelerations ``qdd`` (..., 3) from ``M qdd = B u - bias - gravity + J_b^T f_body``.

        Parameters
        ----------
        q, qd : array_like, shape (..., 3)
            ``[x, theta, phi]`` and their rates.
        u : array_like, shape (..., 2)
            ``[T, Tp]`` in N m.
        L0, L0_dot, L0_ddot : array_like
            Leg length (m) and its derivatives, broadcastable to the batch shape.
        f_body : array_like
            Horizontal push on the body centre of mass, N.

        Returns
        -------
        ndarray, shape (..., 3)
            ``[xdd, thetadd, phidd]`` (m/s^2, rad/s^2, rad/s^2).

        Examples
        --------
        >>> model = WheelLegDynamics(WheelLegParams())
        >>> bool(np.all(model.forward_dynamics(np.zeros(3), np.zeros(3), np.zeros(2), L0=0.2) == 0))
        True
        """
        q, qd, L, Ld, Ldd = self._rates(q, qd, L0, L0_dot, L0_ddot)
        u = as_array(u, "u", trailing=(2,))
        fb = as_array(f_body, "f_body")
        return self._qdd(q, qd, u, L, Ld, Ldd, fb)

    def _qdd(self, q, qd, u, L, Ld, Ldd, fb):
        M = self._mass(q, L)
        rhs = u @ self.input_matrix().T - _h(self.params, q, qd, L, Ld, Ldd, fb, self.params.g)
        M, rhs = np.broadcast_arrays(M, rhs[..., None])
        return np.linalg.solve(M, rhs)[..., 0]

    def state_derivative(
        self,
        state: ArrayLike,
        u: ArrayLike,
        *,
        L0: ArrayLike,
        L0_dot: ArrayLike = 0.0,
        L0_ddot: ArrayLike = 0.0,
        f_body: ArrayLike = 0.0,
    ) -> np.ndarray:
        """:meth:`forward_dynamics` in the controller's state order: ``d(state)/dt`` (..., 6).

        ``state = [theta, theta_dot, x, x_dot, phi, phi_dot]`` (:func:`to_state`); :func:`linearize` returns
        the Jacobians of this function at upright.

        Examples
        --------
        >>> sd = WheelLegDynamics(WheelLegParams()).state_derivative(np.zeros(6), np.zeros(2), L0=0.2)
        >>> bool(np.all(sd == 0))  # upright is an equilibrium
        True
        """
        s = as_array(state, "state", trailing=(6,))
        q, qd = from_state(s)
        qdd = self.forward_dynamics(q, qd, u, L0=L0, L0_dot=L0_dot, L0_ddot=L0_ddot, f_body=f_body)
        return to_state(qd, qdd)

    def normal_force(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        u: ArrayLike,
        *,
        L0: ArrayLike,
        L0_dot: ArrayLike = 0.0,
        L0_ddot: ArrayLike = 0.0,
        f_body: ArrayLike = 0.0,
    ) -> float | np.ndarray:
        """Vertical ground reaction on the wheel, N: ``sum_i m_i (g + zdd_i)``.

        The model keeps the wheel on the ground; a negative value means a real robot would have left it
        (take-off), so the simulation is no longer valid there.

        Parameters
        ----------
        q, qd, u, L0, L0_dot, L0_ddot, f_body
            As in :meth:`forward_dynamics`.

        Returns
        -------
        ndarray, shape (...)
            Normal force, N.

        Examples
        --------
        >>> p = WheelLegParams()
        >>> N = WheelLegDynamics(p).normal_force(np.zeros(3), np.zeros(3), np.zeros(2), L0=0.2)
        >>> bool(np.isclose(N, p.total_mass * p.g))
        True
        """
        q, qd, L, Ld, Ldd = self._rates(q, qd, L0, L0_dot, L0_ddot)
        u = as_array(u, "u", trailing=(2,))
        fb = as_array(f_body, "f_body")
        return self._normal(q, qd, self._qdd(q, qd, u, L, Ld, Ldd, fb), L, Ld, Ldd)

    def _normal(self, q, qd, qdd, L, Ld, Ldd):
        p = self.params
        th, thd, thdd = q[..., 1], qd[..., 1], qdd[..., 1]
        ph, phd, phdd = q[..., 2], qd[..., 2], qdd[..., 2]
        st, ct = np.sin(th), np.cos(th)
        zl = 0.5 * (Ldd * ct - 2 * Ld * st * thd - L * ct * thd**2 - L * st * thdd)
        zb = (
            Ldd * ct
            - 2 * Ld * st * thd
            - L * ct * thd**2
            - L * st * thdd
            - p.l_c * (np.cos(ph) * phd**2 + np.sin(ph) * phdd)
        )
        return p.m_w * p.g + p.m_l * (p.g + zl) + p.m_b * (p.g + zb)

    def ground_force(
        self,
        q: ArrayLike,
        qd: ArrayLike,
        u: ArrayLike,
        *,
        L0: ArrayLike,
        L0_dot: ArrayLike = 0.0,
        L0_ddot: ArrayLike = 0.0,
        f_body: ArrayLike = 0.0,
    ) -> np.ndarray:
        """Ground reaction on the wheel ``[F_t, N]`` (..., 2), N: tangential (``+x``) and normal force.

        Linear momentum of the whole robot: ``F_t + f_body = sum_i m_i xdd_i`` and ``N = sum_i m_i (g +
        zdd_i)`` (:meth:`normal_force`). The wheel keeps rolling only while ``|F_t| <= mu N`` (the friction
        cone, :eq:`eq-ch04-cone`); the model assumes it does, so this is the check.

        Parameters
        ----------
        q, qd, u, L0, L0_dot, L0_ddot, f_body
            As in :meth:`forward_dynamics`.

        Returns
        -------
        ndarray, shape (..., 2)
            ``[F_t, N]`` in N.

        Examples
        --------
        >>> p = WheelLegParams()
        >>> F = WheelLegDynamics(p).ground_force(np.zeros(3), np.zeros(3), [1.0, 0.0], L0=0.2)
        >>> bool(F[0] > 0)  # a forward wheel torque: the ground pushes the wheel forward
        True
        """
        q, qd, L, Ld, Ldd = self._rates(q, qd, L0, L0_dot, L0_ddot)
        u = as_array(u, "u", trailing=(2,))
        fb = as_array(f_body, "f_body")
        return self._ground(q, qd, u, L, Ld, Ldd, fb)

    def _ground(self, q, qd, u, L, Ld, Ldd, fb):
        return _ground_force(self, q, qd, self._qdd(q, qd, u, L, Ld, Ldd, fb), L, Ld, Ldd, fb)

    def _rhs_scalar(self, x, u, L, Ld, Ldd, fb):
        """Unchecked single-state :meth:`state_derivative` in plain floats (the ``solve_ivp`` inner loop)."""
        p = self.params
        th, thd, _, xd, ph, phd = (float(v) for v in x)
        s, c, sp_, cp = math.sin(th), math.cos(th), math.sin(ph), math.cos(ph)
        mb, ml, lc, g, R = p.m_b, p.m_l, p.l_c, p.g, p.R
        a, ad, add = 0.5 * L, 0.5 * Ld, 0.5 * Ldd
        m00 = p.m_w + p.I_w / R**2 + ml + mb
        m01 = (ml * a + mb * L) * c
        m02 = mb * lc * cp
        m11 = ml * a * a + mb * L * L + ml * L * L / 12
        m12 = mb * L * lc * (c * cp + s * sp_)
        m22 = mb * lc * lc + p.I_b
        blx = add * s + 2 * ad * c * thd - a * s * thd**2
        blz = add * c - 2 * ad * s * thd - a * c * thd**2
        bbx = Ldd * s + 2 * Ld * c * thd - L * s * thd**2 - lc * sp_ * phd**2
        bbz = Ldd * c - 2 * Ld * s * thd - L * c * thd**2 - lc * cp * phd**2
        T, Tp = float(u[0]), float(u[1])
        r0 = T / R - (ml * blx + mb * bbx - fb)
        r1 = (
            -T
            + Tp
            - (
                ml * (a * c * blx - a * s * (blz + g))
                + mb * (L * c * bbx - L * s * (bbz + g))
                - fb * L * c
                + ml * L * Ld / 6 * thd
            )
        )
        r2 = -Tp - (mb * (lc * cp * bbx - lc * sp_ * (bbz + g)) - fb * lc * cp)
        # symmetric 3x3 solve by the adjugate
        c00 = m11 * m22 - m12 * m12
        c01 = m02 * m12 - m01 * m22
        c02 = m01 * m12 - m02 * m11
        c11 = m00 * m22 - m02 * m02
        c12 = m01 * m02 - m00 * m12
        c22 = m00 * m11 - m01 * m01
        det = m00 * c00 + m01 * c01 + m02 * c02
        xdd = (c00 * r0 + c01 * r1 + c02 * r2) / det
        tdd = (c01 * r0 + c11 * r1 + c12 * r2) / det
        pdd = (c02 * r0 + c12 * r1 + c22 * r2) / det
        return np.array([thd, tdd, xd, xdd, phd, pdd])


_Q_OF_STATE = [2, 0, 4]  # state slots of x, theta, phi
_QD_OF_STATE = [3, 1, 5]


def to_state(q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """Controller state ``[theta, theta_dot, x, x_dot, phi, phi_dot]`` (..., 6) from ``q = [x, theta, phi]``, ``qd``.

    Examples
    --------
    >>> to_state([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]).tolist()
    [2.0, 5.0, 1.0, 4.0, 3.0, 6.0]
    """
    q, qd = broadcast([as_array(q, "q", trailing=(3,)), as_array(qd, "qd", trailing=(3,))], ("q", "qd"))
    return np.stack([q[..., 1], qd[..., 1], q[..., 0], qd[..., 0], q[..., 2], qd[..., 2]], axis=-1)


def from_state(state: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Split the controller state (..., 6) into ``q = [x, theta, phi]`` and ``qd`` (each (..., 3)).

    Examples
    --------
    >>> q, qd = from_state([2.0, 5.0, 1.0, 4.0, 3.0, 6.0])
    >>> q.tolist(), qd.tolist()
    ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    """
    s = as_array(state, "state", trailing=(6,))
    return s[..., _Q_OF_STATE], s[..., _QD_OF_STATE]


def _model(model):
    if not isinstance(model, WheelLegDynamics):
        raise ValueError(f"model must be a WheelLegDynamics, got {type(model).__name__}")
    return model


def linearize(model: WheelLegDynamics, *, L0: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Linearise the dynamics about upright (``state = 0``, ``u = 0``) at leg length ``L0``.

    At upright the velocity terms are second order, so ``M0 qdd + G q = B u`` with
    ``M0 = M(0)`` and ``G = diag(0, -g (m_l/2 + m_b) L0, -g m_b l_c)``.

    Parameters
    ----------
    model : WheelLegDynamics
    L0 : array_like
        Leg length(s), m, any shape ``(...)``.

    Returns
    -------
    A : ndarray, shape (..., 6, 6)
    B : ndarray, shape (..., 6, 2)
        ``d(state)/dt = A state + B u`` in the controller's state order (:meth:`WheelLegDynamics.state_derivative`).

    Examples
    --------
    >>> A, B = linearize(WheelLegDynamics(WheelLegParams()), L0=0.2)
    >>> A.shape, B.shape
    ((6, 6), (6, 2))
    >>> A[0, 1], A[2, 3], A[4, 5]
    (np.float64(1.0), np.float64(1.0), np.float64(1.0))
    """
    m = _model(model)
    p = m.params
    L = _length(L0)
    M0 = m._mass(np.zeros(3), L)
    G = np.zeros(L.shape + (3, 3))
    G[..., 1, 1] = -p.g * (0.5 * p.m_l + p.m_b) * L
    G[..., 2, 2] = -p.g * p.m_b * p.l_c
    Minv = np.linalg.inv(M0)
    Aq = -Minv @ G  # qdd = Aq q + Bq u, coordinates [x, theta, phi]
    Bq = Minv @ m.input_matrix()
    idx = [1, 0, 2]  # state slot k holds coordinate idx[k]
    A = np.zeros(L.shape + (6, 6))
    B = np.zeros(L.shape + (6, 2))
    for k in range(3):
        A[..., 2 * k, 2 * k + 1] = 1.0
        for j in range(3):
            A[..., 2 * k + 1, 2 * j] = Aq[..., idx[k], idx[j]]
        B[..., 2 * k + 1, :] = Bq[..., idx[k], :]
    return A, B


def _weights(Q, R):
    Q = as_array(Q_DEFAULT if Q is None else Q, "Q")
    R = as_array(R_DEFAULT if R is None else R, "R")
    if Q.ndim == 1:
        Q = np.diag(Q)
    if R.ndim == 1:
        R = np.diag(R)
    if Q.shape != (6, 6) or R.shape != (2, 2):
        raise ValueError(f"Q must be (6, 6) or (6,) and R (2, 2) or (2,); got {Q.shape} and {R.shape}")
    if not np.allclose(Q, Q.T) or np.linalg.eigvalsh(Q).min() < -1e-12 * max(1.0, np.abs(Q).max()):
        raise ValueError("Q must be symmetric positive semi-definite")
    if not np.allclose(R, R.T) or np.linalg.eigvalsh(R).min() <= 0:
        raise ValueError("R must be symmetric positive definite")
    ev = np.linalg.eigvalsh(R)
    if ev.max() > MAX_COND * ev.min():  # the Riccati solver inverts R
        raise ValueError(
            f"R must be well conditioned (condition number at most {MAX_COND:g}), got {ev.max() / ev.min():.3g}"
        )
    return Q, R


def lqr_gain(
    model: WheelLegDynamics, *, L0: float, Q: ArrayLike | None = None, R: ArrayLike | None = None
) -> np.ndarray:
    """Continuous LQR gain ``K`` (2, 6) at leg length ``L0``: ``u = -K (state - ref)``.

    Solves the algebraic Riccati equation with ``scipy.linalg.solve_continuous_are``
    and returns ``K = R^-1 B^T P``.

    Parameters
    ----------
    model : WheelLegDynamics
    L0 : float
        Leg length, m.
    Q : array_like, shape (6, 6) or (6,), optional
        State weight (default :data:`Q_DEFAULT`).
    R : array_like, shape (2, 2) or (2,), optional
        Input weight (default :data:`R_DEFAULT`).

    Returns
    -------
    ndarray, shape (2, 6)
        Gains in N m per state unit.

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> K = lqr_gain(model, L0=0.2)
    >>> A, B = linearize(model, L0=0.2)
    >>> bool(np.linalg.eigvals(A - B @ K).real.max() < 0)
    True
    """
    m = _model(model)
    L = _length(L0)
    if L.ndim != 0:
        raise ValueError(
            f"L0 must be a scalar leg length in lqr_gain, got shape {L.shape}; use gain_schedule for a grid"
        )
    Qm, Rm = _weights(Q, R)
    A, B = linearize(m, L0=float(L))
    P = scipy.linalg.solve_continuous_are(A, B, Qm, Rm)
    return np.linalg.solve(Rm, B.T @ P)


@dataclass(frozen=True)
class GainSchedule:
    """LQR gains fitted entry-wise by a polynomial in the leg length.

    Attributes
    ----------
    coeffs : ndarray, shape (degree + 1, 2, 6)
        Polynomial coefficients, lowest order first: ``K(L) = sum_k coeffs[k] L^k``.
    L_min, L_max : float
        Fitted range, m. Evaluating outside it raises (extrapolated gains are untested).
    L_grid : ndarray, shape (n,)
        Leg lengths of the LQR solutions, m.
    K_grid : ndarray, shape (n, 2, 6)
        Exact LQR gains on the grid.
    """

    coeffs: np.ndarray
    L_min: float
    L_max: float
    L_grid: np.ndarray
    K_grid: np.ndarray

    @property
    def degree(self) -> int:
        """Polynomial degree."""
        return self.coeffs.shape[0] - 1

    def __call__(self, L0: ArrayLike, *, extrapolate: bool = False) -> np.ndarray:
        """Gains ``K(L0)``, shape ``(..., 2, 6)`` for ``L0`` of shape ``(...)``.

        Raises ``ValueError`` outside ``[L_min, L_max]`` unless ``extrapolate=True``.
        """
        L = _length(L0)
        if not flag(extrapolate, "extrapolate"):
            span = 1e-9 * (self.L_max - self.L_min)
            if np.any(L < self.L_min - span) or np.any(L > self.L_max + span):
                raise ValueError(
                    f"L0 outside the fitted range [{self.L_min:.3g}, {self.L_max:.3g}] m "
                    f"(got {L.min():.3g}..{L.max():.3g}); pass extrapolate=True to evaluate anyway"
                )
        out = np.zeros(L.shape + (2, 6))
        for c in self.coeffs[::-1]:  # Horner
            out = out * L[..., None, None] + c
        return out


def gain_schedule(
    model: WheelLegDynamics,
    L0_grid: ArrayLike,
    *,
    degree: int = 3,
    Q: ArrayLike | None = None,
    R: ArrayLike | None = None,
) -> GainSchedule:
    """LQR gains on a grid of leg lengths, fitted by polynomials (as teams do on the MCU).

    Parameters
    ----------
    model : WheelLegDynamics
    L0_grid : array_like, shape (n,)
        Increasing leg lengths, m; needs ``n > degree``.
    degree : int
        Polynomial degree of every gain entry.
    Q, R : array_like, optional
        LQR weights, as in :func:`lqr_gain`.

    Returns
    -------
    GainSchedule

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> sched = gain_schedule(model, np.linspace(0.12, 0.32, 9), degree=3)
    >>> sched.coeffs.shape
    (4, 2, 6)
    >>> bool(np.abs(sched(0.2) - lqr_gain(model, L0=0.2)).max() < 0.05 * np.abs(sched.K_grid).max())
    True
    """
    m = _model(model)
    L = _length(L0_grid, "L0_grid")
    if L.ndim != 1 or L.size < 2 or np.any(np.diff(L) <= 0):
        raise ValueError("L0_grid must be a 1-D strictly increasing array of leg lengths")
    degree = integer(degree, "degree")
    if L.size <= degree:
        raise ValueError(f"need more grid points ({L.size}) than the polynomial degree ({degree})")
    Qm, Rm = _weights(Q, R)
    K = np.stack([lqr_gain(m, L0=float(Li), Q=Qm, R=Rm) for Li in L])
    coeffs = np.polynomial.polynomial.polyfit(L, K.reshape(L.size, -1), degree).reshape(degree + 1, 2, 6)
    return GainSchedule(coeffs=coeffs, L_min=float(L[0]), L_max=float(L[-1]), L_grid=L, K_grid=K)


def closed_loop_eigs(model: WheelLegDynamics, L0: ArrayLike, K: ArrayLike) -> np.ndarray:
    """Eigenvalues of ``A(L0) - B(L0) K``, shape (..., 6), for gains ``K`` (..., 2, 6).

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> ev = closed_loop_eigs(model, 0.2, lqr_gain(model, L0=0.2))
    >>> bool(ev.real.max() < 0)
    True
    """
    A, B = linearize(model, L0=L0)
    K = as_array(K, "K", trailing=(2, 6))
    return np.linalg.eigvals(A - B @ K)


def _profile(L0):
    if callable(L0):

        def prof(t):
            out = callback_output(L0(t), "L0", (3,), t=t)
            if not out[0] >= MIN_LEG_LENGTH:
                what = "a non-positive leg length" if out[0] <= 0 else f"a leg length below {MIN_LEG_LENGTH:g} m:"
                raise ValueError(f"L0(t={t:g}) returned {what} {float(out[0])!r} m")
            return out

        return prof
    L = positive(L0, "L0")
    if L < MIN_LEG_LENGTH:
        raise ValueError(f"L0 must be at least {MIN_LEG_LENGTH:g} m (leg length in metres), got {L!r}")
    return lambda t: (L, 0.0, 0.0)


def _vector(v, name, n):
    a = as_array(v, name, trailing=(n,))
    if a.ndim != 1:
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    return a


#: Falling-over bound of :func:`simulate`'s ``stable`` flag: leg and body within this angle of upright (rad).
FALL_ANGLE = 0.5 * np.pi


def _fixed_gain(K, name):
    """A state-feedback gain of shape (2, 6) (no batch), checked."""
    Kf = as_array(K, name, trailing=(2, 6))
    if Kf.ndim != 2:
        raise ValueError(f"{name}: a fixed gain must have shape (2, 6), got {Kf.shape}")
    return Kf


def _torque_limits(u_max):
    """``None`` or two positive limits ``[T_max, Tp_max]`` (N m) as an array."""
    umax = None if u_max is None else as_array(u_max, "u_max", trailing=(2,))
    if umax is not None and (umax.shape != (2,) or np.any(umax <= 0)):
        raise ValueError(f"u_max must be two positive torque limits [T_max, Tp_max] (N m), got {u_max!r}")
    return umax


def _time_callback(f, name):
    # a class is callable but is not a function of time (``push=float`` would return 0.0 for every t)
    if f is not None and (not callable(f) or isinstance(f, type)):
        raise ValueError(f"{name} must be a callable of time t (s) or None, got {type(f).__name__}")


def simulate(
    model: WheelLegDynamics,
    controller: GainSchedule | ArrayLike,
    *,
    q0: ArrayLike,
    qd0: ArrayLike,
    t_end: float,
    L0: float | Callable[[float], tuple[float, float, float]],
    ref: Callable[[float], ArrayLike] | None = None,
    push: Callable[[float], float] | None = None,
    u_max: ArrayLike | None = None,
    max_step: float = 0.01,
    n_out: int = 301,
    rtol: float = 1e-7,
    atol: float = 1e-9,
    max_nfev: int | None = None,
) -> SimResult:
    """Closed-loop simulation of the nonlinear model with gains scheduled on leg length.

    The controller is ``u = -K(L0(t)) (state - ref(t))`` on the state ``[theta, theta_dot, x, x_dot, phi,
    phi_dot]`` (:func:`to_state`), optionally saturated component-wise at ``u_max``; integration by
    ``scipy.integrate.solve_ivp`` (RK45).

    Parameters
    ----------
    model : WheelLegDynamics
    controller : GainSchedule or array_like (2, 6)
        Scheduled gains, or one fixed gain matrix.
    q0, qd0 : array_like, shape (3,)
        Initial ``[x, theta, phi]`` (m, rad, rad) and rates.
    t_end : float
        Duration, s.
    L0 : float or callable
        Leg length in m, or ``t -> (L0, L0_dot, L0_ddot)`` (e.g. from :func:`robokin.trajectory.quintic_step`).
    ref : callable, optional
        ``t -> state reference (6,)`` in the controller's state order (e.g. a speed command and its integral);
        default zero.
    push : callable, optional
        ``t -> horizontal force on the body centre of mass``, N (a scalar).
    u_max : array_like, shape (2,), optional
        Torque limits ``[T_max, Tp_max]``, N m.
    max_step : float
        Largest solver step, s (keep short pushes from being stepped over); ``t_end / max_step <= 1e7``.
    n_out : int
        Number of output samples, ``2 <= n_out <= 1e6``.
    rtol, atol : float
        Solver tolerances, ``rtol`` in ``[100 eps, 0.1]`` and ``atol`` in ``(0, 1]``.
    max_nfev : int, optional
        Budget of right-hand-side evaluations (at most 1e8); default ``120 (t_end / max_step + 1) + 10000``,
        twenty times what RK45 needs at its largest step.

    Returns
    -------
    robokin.results.SimResult
        ``t`` (K,) s; ``q``, ``qd`` (K, 3); ``u`` (K, 2) N m; ``stable``: the state stayed finite and the leg and
        the body within :data:`FALL_ANGLE` of upright at every sample. ``signals``: ``"x"`` the state (K, 6) in
        the controller's order, ``"x_ref"`` its reference (K, 6), ``"L0"``, ``"L0_dot"``, ``"L0_ddot"`` the leg
        length profile (K,) (m, m/s, m/s^2), ``"f_body"`` the push (K,) N, ``"N"`` the ground normal force (K,) N
        (negative: the wheel would have left the ground).

    Raises
    ------
    ValueError
        Bad arguments, or a callback (``L0``, ``ref``, ``push``) that returns a value of the
        wrong shape, NaN, inf or a magnitude above 1e12; checked at every call, so a bad
        value fails at once instead of stalling the solver.
    robokin.errors.IntegrationError
        If the integrator fails, the state derivative becomes non-finite, or the
        evaluation budget ``max_nfev`` is exhausted (a ``RuntimeError``).

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> sched = gain_schedule(model, np.linspace(0.12, 0.32, 9))
    >>> res = simulate(model, sched, q0=[0, 0.1, 0], qd0=np.zeros(3), t_end=2.0, L0=0.2, n_out=5)
    >>> bool(abs(res.q[-1, 1]) < 0.01), bool(res.stable), res.signals["x"].shape
    (True, True, (5, 6))
    >>> simulate(model, sched, q0=np.zeros(3), qd0=np.zeros(3), t_end=2.0, L0=0.2, push=lambda t: np.nan)
    Traceback (most recent call last):
    ...
    ValueError: push(t=0) returned an invalid value: push contains 1 non-finite value(s) (NaN or inf)
    """
    m = _model(model)
    x0 = to_state(_vector(q0, "q0", 3), _vector(qd0, "qd0", 3))
    t_end = positive(t_end, "t_end")
    max_step = tolerance(max_step, "max_step", max=MAX_ABS)
    if t_end / max_step > 1e7:
        raise ValueError(
            f"max_step = {max_step:g} s allows {t_end / max_step:.3g} steps over t_end = {t_end:g} s, more than 1e7 "
            "(a cap on time); use a larger max_step"
        )
    rtol, atol, _ = ivp_options(rtol, atol, "RK45")
    n_out = count(n_out, "n_out", minimum=2, max=10**6)
    budget = int(120 * (t_end / max_step + 1)) + 10_000 if max_nfev is None else count(max_nfev, "max_nfev")
    prof = _profile(L0)
    if isinstance(controller, GainSchedule):
        gains = controller
    else:
        Kf = _fixed_gain(controller, "controller")
        gains = lambda L: Kf  # noqa: E731
    umax = _torque_limits(u_max)
    _time_callback(ref, "ref")
    _time_callback(push, "push")
    zero6 = np.zeros(6)

    def ref_f(t):
        return zero6 if ref is None else callback_output(ref(t), "ref", (6,), t=t)

    def push_f(t):
        return 0.0 if push is None else float(callback_output(push(t), "push", (), t=t))

    def control(t, x, L):  # L: the leg length at t (prof is called once per evaluation: it may be costly)
        u = -gains(L) @ (x - ref_f(t))
        return u if umax is None else np.clip(u, -umax, umax)

    def rhs(t, x):
        L, Ld, Ldd = (float(v) for v in prof(t))
        return m._rhs_scalar(x, control(t, x, L), L, Ld, Ldd, push_f(t))

    t_eval = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp_guarded(
        rhs,
        (0.0, t_end),
        x0,
        name="wheel_leg.simulate",
        max_nfev=budget,
        t_eval=t_eval,
        max_step=max_step,
        rtol=rtol,
        atol=atol,
    )
    X = sol.y.T
    prof_t = np.array([[float(v) for v in prof(t)] for t in sol.t])
    U = np.array([control(t, x, L) for t, x, L in zip(sol.t, X, prof_t[:, 0])])
    fb = np.array([push_f(t) for t in sol.t])
    x_ref = np.array([ref_f(t) for t in sol.t])
    q, qd = from_state(X)
    L, Ld, Ldd = prof_t[:, 0], prof_t[:, 1], prof_t[:, 2]
    N = m._normal(q, qd, m._qdd(q, qd, U, L, Ld, Ldd, fb), L, Ld, Ldd)
    stable = bool(np.all(np.isfinite(X)) and np.abs(X[:, [0, 4]]).max() < FALL_ANGLE)
    signals = {"x": X, "x_ref": x_ref, "L0": L, "L0_dot": Ld, "L0_ddot": Ldd, "f_body": fb, "N": N}
    return SimResult(t=sol.t, q=q, qd=qd, u=U, stable=np.array(stable), signals=signals)


def speed_reference(v: float, *, t0: float, t1: float) -> Callable[[float], np.ndarray]:
    """A smooth speed command from rest to ``v`` over ``[t0, t1]``, as the balance loop's state reference.

    The wheel speed follows the quintic smooth step ``v p(s)``, ``p(s) = 10 s^3 - 15 s^4 + 6 s^5`` with
    ``s = (t - t0) / (t1 - t0)`` clipped to ``[0, 1]`` (as :func:`robokin.trajectory.quintic_step`), and the position
    reference is its integral, ``v (t1 - t0) (5/2 s^4 - 3 s^5 + s^6)``, plus ``v (t - t1)`` after ``t1``: the loop is
    not asked to close a position gap that the speed command never opened. Leg and body angle references are zero.

    Parameters
    ----------
    v : float
        Final speed, m/s.
    t0, t1 : float
        Start and end of the speed step, s, ``0 <= t0 < t1``.

    Returns
    -------
    callable
        ``t -> (6,)``: the state reference ``[theta, theta_dot, x, x_dot, phi, phi_dot]`` (rad, rad/s, m, m/s), for
        the ``ref`` argument of :func:`simulate`.

    Examples
    --------
    >>> ref = speed_reference(1.0, t0=0.5, t1=1.5)
    >>> [float(x) for x in ref(1.0)[2:4]], [float(x) for x in ref(2.0)[2:4]]
    ([0.078125, 0.5], [1.0, 1.0])
    >>> speed_reference(1.0, t0=1.0, t1=1.0)
    Traceback (most recent call last):
    ...
    ValueError: need t1 > t0 (the speed step takes time), got t0=1.0, t1=1.0
    """
    v = finite_scalar(v, "v")
    t0 = tolerance(t0, "t0", max=MAX_ABS, allow_zero=True)
    t1 = finite_scalar(t1, "t1")
    if not t1 - t0 >= 1e-9:
        raise ValueError(f"need t1 > t0 (the speed step takes time), got t0={t0!r}, t1={t1!r}")
    T = t1 - t0

    def ref(t):
        s = min(max((t - t0) / T, 0.0), 1.0)
        x = v * T * (2.5 * s**4 - 3 * s**5 + s**6) + v * max(t - t1, 0.0)
        return np.array([0.0, 0.0, x, v * (10 * s**3 - 15 * s**4 + 6 * s**5), 0.0, 0.0])  # as before (ch16)

    return ref


# --------------------------------------------------------------------------- virtual leg and VMC


def _fivebar(fb):
    if not isinstance(fb, FiveBar):
        raise ValueError(f"fivebar must be a robokin.fivebar.FiveBar, got {type(fb).__name__}")
    return fb


def _foot_and_jacobian(fb, q, assembly):
    """Foot relative to the hip midpoint ``r`` (..., 2) and the foot Jacobian ``J_f`` (..., 2, 2); q is checked."""
    foot = fb.fk(q, assembly=assembly)
    r = foot - np.array([0.5 * fb.d, 0.0])
    return r, fb.jacobian(q, assembly=assembly)


def virtual_leg(fivebar: FiveBar, q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
    """Five-bar motor angles to the virtual leg ``[L0, phi0]``.

    ``L0 = |foot - hip|``, ``phi0 = atan2(y_f, x_f - d/2)`` in the five-bar frame
    (``-pi/2``: foot straight below the hip midpoint ``(d/2, 0)``).

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    q : array_like, shape (..., 2)
        Motor angles ``[theta1, theta2]``, rad from ``+x``.
    assembly : {"down", "up"}
        Assembly mode passed to ``fivebar.fk``.

    Returns
    -------
    ndarray, shape (..., 2)
        ``[L0 (m), phi0 (rad)]``.

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> fb = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    >>> leg = virtual_leg(fb, virtual_leg_inverse(fb, [0.2, -np.pi / 2]))
    >>> np.round(leg, 9).tolist()
    [0.2, -1.570796327]
    """
    fb = _fivebar(fivebar)
    choice(assembly, "assembly", ("down", "up"))
    q = as_array(q, "q", trailing=(2,))
    r = fb.fk(q, assembly=assembly) - np.array([0.5 * fb.d, 0.0])
    return np.stack([np.hypot(r[..., 0], r[..., 1]), np.arctan2(r[..., 1], r[..., 0])], axis=-1)


def virtual_leg_jacobian(fivebar: FiveBar, q: ArrayLike, *, assembly: Literal["down", "up"] = "down") -> np.ndarray:
    """Jacobian ``d[L0, phi0]/d[theta1, theta2]``, shape (..., 2, 2).

    Chain rule through the five-bar foot Jacobian ``J_f``:
    ``dL0 = r_hat^T J_f dq``, ``dphi0 = (n^T / L0) J_f dq`` with ``r = foot - hip``,
    ``r_hat = r / L0``, ``n = [-r_hat_y, r_hat_x]``.

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> from robokin.checks import check_jacobian
    >>> fb = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    >>> q = virtual_leg_inverse(fb, [[0.2, -1.5], [0.3, -1.7]])
    >>> check_jacobian(lambda x: virtual_leg_jacobian(fb, x), lambda x: virtual_leg(fb, x), q).passed
    True
    """
    fb = _fivebar(fivebar)
    choice(assembly, "assembly", ("down", "up"))
    q = as_array(q, "q", trailing=(2,))
    r, Jf = _foot_and_jacobian(fb, q, assembly)
    L = np.hypot(r[..., 0], r[..., 1])
    rh = r / L[..., None]
    n = np.stack([-rh[..., 1], rh[..., 0]], axis=-1) / L[..., None]
    P = np.stack([rh, n], axis=-2)  # (..., 2, 2): d[L0, phi0]/d foot
    return P @ Jf


def virtual_leg_inverse(fivebar: FiveBar, leg: ArrayLike, *, branch: str = "out") -> np.ndarray:
    """Virtual leg ``[L0, phi0]`` to motor angles, through the five-bar closed-form IK.

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    leg : array_like, shape (..., 2)
        ``[L0 (m), phi0 (rad)]``; ``L0 > 0``.
    branch : str
        Working mode (knees) passed to ``fivebar.ik``, one of ``fivebar.branches``.

    Returns
    -------
    ndarray, shape (..., 2)
        Motor angles, rad (the ``q`` of the five-bar's ``IKResult``). An unreachable leg raises
        :class:`~robokin.errors.UnreachableError` (from ``fivebar.ik``).

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> fb = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    >>> virtual_leg_inverse(fb, [0.2, -np.pi / 2]).shape
    (2,)
    """
    fb = _fivebar(fivebar)
    leg = as_array(leg, "leg", trailing=(2,))
    if np.any(leg[..., 0] <= 0):
        raise ValueError("leg length L0 must be positive")
    foot = np.stack([0.5 * fb.d + leg[..., 0] * np.cos(leg[..., 1]), leg[..., 0] * np.sin(leg[..., 1])], axis=-1)
    return fb.ik(foot, branch=branch).q


def vmc_torques(
    fivebar: FiveBar, q: ArrayLike, F: ArrayLike, Tp: ArrayLike, *, assembly: Literal["down", "up"] = "down"
) -> np.ndarray:
    """Virtual model control: leg thrust ``F`` and leg torque ``Tp`` to the two motor torques.

    ``tau = J_v^T [F, -Tp]`` with ``J_v = d[L0, phi0]/dq`` (:func:`virtual_leg_jacobian`).
    ``F`` (N) pushes the foot away from the hip (extends the leg); ``Tp`` (N m) is the
    hip torque of the dynamics model, positive in the ``theta`` sense, which is the
    opposite of ``phi0``. Virtual work: ``tau . qdot = F L0dot + Tp theta_b_dot``.
    Computed as ``J_f^T f`` with the equivalent foot force ``f = F r_hat - (Tp / L0) n``
    (the same product, without forming ``J_v``).

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    q : array_like, shape (..., 2)
        Motor angles, rad.
    F, Tp : array_like, broadcastable to q's leading shape

    Returns
    -------
    ndarray, shape (..., 2)
        Motor torques ``[tau1, tau2]`` applied by the motors to their links, N m.

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> fb = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    >>> q = virtual_leg_inverse(fb, [0.2, -np.pi / 2])
    >>> tau = vmc_torques(fb, q, 75.0, 0.0)
    >>> bool(np.isclose(tau[0], -tau[1]))  # symmetric leg, pure thrust: mirror torques
    True
    """
    fb = _fivebar(fivebar)
    choice(assembly, "assembly", ("down", "up"))
    q = as_array(q, "q", trailing=(2,))
    F = as_array(F, "F")
    Tp = as_array(Tp, "Tp")
    r, Jf = _foot_and_jacobian(fb, q, assembly)
    rx, ry = r[..., 0], r[..., 1]
    L = np.hypot(rx, ry)
    # foot force F r_hat - (Tp / L) n_hat, n_hat = [-r_hat_y, r_hat_x]
    a, b = F / L, Tp / (L * L)
    fx = a * rx + b * ry
    fy = a * ry - b * rx
    return np.stack([fx * Jf[..., 0, 0] + fy * Jf[..., 1, 0], fx * Jf[..., 0, 1] + fy * Jf[..., 1, 1]], axis=-1)


def joint_handover(
    fivebar: FiveBar,
    q: ArrayLike,
    qd: ArrayLike,
    *,
    F: ArrayLike,
    Tp: ArrayLike,
    K_leg: ArrayLike,
    D_leg: ArrayLike,
    assembly: Literal["down", "up"] = "down",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bumpless switch from the virtual-leg controller to a joint-space PD (:eq:`eq-ch04-handover`).

    The virtual-leg controller commands ``tau = J_v^T w`` (:func:`vmc_torques`) with the load
    ``w = [F, -Tp]`` and, near the switch, the leg-space PD ``w = w_s + K_leg (x_s - x) - D_leg
    (xdot - xdot_s)`` on ``x = [L0, phi0]``. The joint-space law that takes over,
    ``tau = tau_ff + K_q (q_ref - q) - D_q qdot``, continues it when

    * ``q_ref = q_s`` (the reference starts where the leg is, not at a preset pose),
    * ``tau_ff = J_v^T w_s + D_q qdot_s`` (what the old controller's integrator and feed-forward
      carried, with the new damping term cancelled at the switch): the torque is continuous,
    * ``K_q = J_v^T K_leg J_v - d(J_v^T w)/dq`` (the leg stiffness seen from the motors, plus the
      geometric stiffness of the load) and ``D_q = J_v^T D_leg J_v``: the two laws then agree
      exactly at the switch pose for every ``qdot``, and to first order in ``q - q_s`` at rest
      (terms of order ``|q - q_s| |qdot|`` remain from the pose dependence of ``J_v``).

    ``d(J_v^T w)/dq`` at fixed ``w`` is taken by central differences of :func:`vmc_torques`
    (step 1e-6 rad; relative error about 1e-9).

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    q, qd : array_like, shape (..., 2)
        Motor angles (rad) and rates (rad/s) at the switch.
    F, Tp : array_like, broadcastable to q's leading shape
        The virtual-leg controller's thrust (N) and hip torque (N m) at the switch, as in :func:`vmc_torques`.
    K_leg, D_leg : array_like, shape (..., 2, 2)
        Its stiffness and damping on ``[L0, phi0]`` (N/m, N/rad, N m/m, N m/rad and the same per second).
    assembly : {"down", "up"}

    Returns
    -------
    q_ref : ndarray, shape (..., 2)
        Joint reference at the switch (rad), a copy of ``q``.
    tau_ff : ndarray, shape (..., 2)
        Joint feed-forward (N m).
    K_q, D_q : ndarray, shape (..., 2, 2)
        Joint stiffness (N m/rad) and damping (N m s/rad).

    Raises
    ------
    ValueError
        Not a FiveBar; wrong shapes, NaN, inf, complex or text; a pose where the five-bar cannot be
        assembled (``UnreachableError``).

    Examples
    --------
    >>> from robokin.fivebar import FiveBar
    >>> fb = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    >>> q, qd = virtual_leg_inverse(fb, [0.2, -1.5]), np.array([0.3, -0.2])
    >>> K, D = np.diag([800.0, 20.0]), np.diag([40.0, 1.0])
    >>> q_ref, tau_ff, K_q, D_q = joint_handover(fb, q, qd, F=60.0, Tp=2.0, K_leg=K, D_leg=D)
    >>> tau_leg = vmc_torques(fb, q, 60.0, 2.0)            # old controller at the switch
    >>> tau_joint = tau_ff + K_q @ (q_ref - q) - D_q @ qd  # new controller at the switch
    >>> bool(np.allclose(tau_joint, tau_leg, rtol=0, atol=1e-12))
    True
    >>> joint_handover(fb, q, qd, F=60.0, Tp=2.0, K_leg=np.eye(3), D_leg=D)
    Traceback (most recent call last):
    ...
    ValueError: K_leg must have shape (..., 2, 2), got shape (3, 3)
    """
    fb = _fivebar(fivebar)
    choice(assembly, "assembly", ("down", "up"))
    q = as_array(q, "q", trailing=(2,))
    qd = as_array(qd, "qd", trailing=(2,))
    F = as_array(F, "F")
    Tp = as_array(Tp, "Tp")
    K = as_array(K_leg, "K_leg", trailing=(2, 2))
    D = as_array(D_leg, "D_leg", trailing=(2, 2))
    try:
        lead = np.broadcast_shapes(q.shape[:-1], qd.shape[:-1], F.shape, Tp.shape, K.shape[:-2], D.shape[:-2])
    except ValueError as exc:
        raise ValueError(
            f"q {q.shape}, qd {qd.shape}, F {F.shape}, Tp {Tp.shape}, K_leg {K.shape} and D_leg {D.shape} "
            "do not broadcast to one batch"
        ) from exc
    q = np.broadcast_to(q, lead + (2,))
    Jv = virtual_leg_jacobian(fb, q, assembly=assembly)
    JvT = np.swapaxes(Jv, -1, -2)
    tau_w = vmc_torques(fb, q, F, Tp, assembly=assembly)
    h = 1e-6
    cols = []
    for j in range(2):
        dq = np.zeros(2)
        dq[j] = h
        cols.append(
            (vmc_torques(fb, q + dq, F, Tp, assembly=assembly) - vmc_torques(fb, q - dq, F, Tp, assembly=assembly))
            / (2 * h)
        )
    K_q = JvT @ K @ Jv - np.stack(cols, axis=-1)
    D_q = JvT @ D @ Jv
    tau_ff = tau_w + np.einsum("...ij,...j->...i", D_q, qd)
    return q.copy(), tau_ff, K_q, D_q


# --------------------------------------------------------------------------- sampled-data control (issue 33)


def dlqr_gain(
    model: WheelLegDynamics, *, L0: float, dt: float, Q: ArrayLike | None = None, R: ArrayLike | None = None
) -> np.ndarray:
    """Discrete-time LQR gain ``K`` (2, 6) for a controller that samples every ``dt`` and holds ``u`` (ZOH).

    The linearised model (:func:`linearize`) is discretised exactly under a zero-order hold
    (``scipy.signal.cont2discrete``, method ``"zoh"``): ``s[k+1] = A_d s[k] + B_d u[k]``. The discrete
    Riccati equation (``scipy.linalg.solve_discrete_are``) is solved with the weights ``Q dt`` and ``R dt``
    (the continuous cost sampled at the rate), and ``K = (R dt + B_d^T P B_d)^-1 B_d^T P A_d``, so the gain
    tends to :func:`lqr_gain` as ``dt -> 0`` (:eq:`eq-ch04-dlqr`).

    Parameters
    ----------
    model : WheelLegDynamics
    L0 : float
        Leg length, m.
    dt : float
        Control period, s, in ``(0, 1]``.
    Q, R : array_like, optional
        Continuous weights, as in :func:`lqr_gain`.

    Returns
    -------
    ndarray, shape (2, 6)
        Gains in N m per state unit: ``u[k] = -K (s[k] - ref)``.

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> Kd = dlqr_gain(model, L0=0.2, dt=0.01)
    >>> Ad, Bd = discretize(model, L0=0.2, dt=0.01)
    >>> bool(np.abs(np.linalg.eigvals(Ad - Bd @ Kd)).max() < 1)
    True
    >>> bool(np.allclose(dlqr_gain(model, L0=0.2, dt=1e-5), lqr_gain(model, L0=0.2), rtol=1e-3, atol=1e-3))
    True
    """
    m = _model(model)
    L = _length(L0)
    if L.ndim != 0:
        raise ValueError(f"L0 must be a scalar leg length in dlqr_gain, got shape {L.shape}")
    h = _period(dt)
    Qm, Rm = _weights(Q, R)
    Ad, Bd = _zoh(m, float(L), h)
    try:
        P = scipy.linalg.solve_discrete_are(Ad, Bd, Qm * h, Rm * h)
    except (np.linalg.LinAlgError, ValueError) as exc:  # e.g. a period so short that A_d rounds to the identity
        raise ValueError(
            f"dt = {h:g} s: the discrete Riccati equation has no solution in float64 ({exc}); use the controller's "
            "real period (lqr_gain is the continuous limit)"
        ) from None
    return np.linalg.solve(Rm * h + Bd.T @ P @ Bd, Bd.T @ P @ Ad)


def _period(dt):
    h = positive(dt, "dt")
    if h > 1.0:
        raise ValueError(f"dt must be a control period in (0, 1] s, got {h!r}")
    return h


def _zoh(m, L, h):
    import scipy.signal

    A, B = linearize(m, L0=L)
    Ad, Bd, *_ = scipy.signal.cont2discrete((A, B, np.eye(6), np.zeros((6, 2))), h, method="zoh")
    return Ad, Bd


def discretize(model: WheelLegDynamics, *, L0: float, dt: float) -> tuple[np.ndarray, np.ndarray]:
    """Zero-order-hold discretisation ``(A_d, B_d)`` of :func:`linearize` at leg length ``L0``, period ``dt``.

    ``A_d = exp(A dt)``, ``B_d = int_0^dt exp(A s) ds B`` (``scipy.signal.cont2discrete``, ``"zoh"``).

    Returns
    -------
    Ad : ndarray, shape (6, 6)
    Bd : ndarray, shape (6, 2)

    Examples
    --------
    >>> Ad, Bd = discretize(WheelLegDynamics(WheelLegParams()), L0=0.2, dt=0.005)
    >>> A, B = linearize(WheelLegDynamics(WheelLegParams()), L0=0.2)
    >>> bool(np.allclose(Ad, scipy.linalg.expm(A * 0.005)))
    True
    """
    m = _model(model)
    L = _length(L0)
    if L.ndim != 0:
        raise ValueError(f"L0 must be a scalar leg length in discretize, got shape {L.shape}")
    return _zoh(m, float(L), _period(dt))


def simulate_sampled(
    model: WheelLegDynamics,
    K: ArrayLike,
    *,
    q0: ArrayLike,
    qd0: ArrayLike,
    t_end: float,
    L0: float,
    dt: float,
    push: Callable[[float], float] | None = None,
    u_max: ArrayLike | None = None,
    substeps: int = 4,
) -> SimResult:
    """Nonlinear model under a sampled controller: ``u = -K s[k]`` computed every ``dt`` and held (ZOH).

    Between two samples the model is integrated by ``substeps`` classical Runge-Kutta steps with the held
    input; the push is evaluated at each Runge-Kutta stage. The optional torque limits clip the command
    before it is held (the motor saturates).

    Parameters
    ----------
    model : WheelLegDynamics
    K : array_like, shape (2, 6)
        Gain on the controller state (:func:`to_state` order).
    q0, qd0 : array_like, shape (3,)
        Initial ``[x, theta, phi]`` and rates.
    t_end : float
        Duration, s: a whole number of control periods ``dt`` (at most ``1e6``).
    L0 : float
        Fixed leg length, m.
    dt : float
        Control period, s.
    push : callable, optional
        ``t -> horizontal force on the body centre of mass`` (N).
    u_max : array_like, shape (2,), optional
        Torque limits ``[T_max, Tp_max]``, N m.
    substeps : int
        Runge-Kutta steps per sample, 1 to 1000.

    Returns
    -------
    robokin.results.SimResult
        Sampled at every control instant (the native step): ``t`` (K,), ``q``, ``qd`` (K, 3), ``u`` (K, 2)
        the held (clipped) command; ``signals``: ``"x"`` state (K, 6), ``"u_cmd"`` the unclipped command
        (K, 2), ``"N"`` normal force (K,) and ``"F_t"`` tangential ground force (K,) at the samples (with the
        held input and the push at that instant), ``"f_body"`` the push (K,). ``stable`` as in
        :func:`simulate`.

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> Kd = dlqr_gain(model, L0=0.2, dt=0.005)
    >>> res = simulate_sampled(model, Kd, q0=[0, 0.1, 0], qd0=np.zeros(3), t_end=2.0, L0=0.2, dt=0.005)
    >>> bool(res.stable), bool(abs(res.q[-1, 1]) < 0.01), res.t.shape
    (True, True, (401,))
    """
    m = _model(model)
    Kf = _fixed_gain(K, "K")
    x = to_state(_vector(q0, "q0", 3), _vector(qd0, "qd0", 3)).astype(float)
    t_end = positive(t_end, "t_end")
    h = _period(dt)
    if t_end / h > 10**6:
        raise ValueError(f"t_end / dt = {t_end / h:.3g} samples, more than 1e6; use a larger dt")
    n = int(round(t_end / h))
    # the record holds the control instants k dt: a run that silently stopped at another time than t_end (dt
    # longer than the run, or not dividing it) would be read at the wrong instant
    if n < 1 or abs(n * h - t_end) > 1e-9 * t_end:
        raise ValueError(
            f"t_end = {t_end:g} s must be a whole number of control periods dt = {h:g} s "
            f"(t_end / dt = {t_end / h:.6g}); choose t_end = k dt"
        )
    L = float(_profile(L0)(0.0)[0]) if not callable(L0) else None
    if L is None:
        raise ValueError("simulate_sampled takes a fixed leg length L0 (m); use simulate for a profile")
    sub = count(substeps, "substeps", max=1000)
    umax = _torque_limits(u_max)
    _time_callback(push, "push")

    def push_f(t):
        return 0.0 if push is None else float(callback_output(push(t), "push", (), t=t))

    pf = None if push is None else (lambda t: np.array([push_f(t)]))
    Xb, Ucb, Uhb, fbb = _rollout(m, Kf, x[None], L, h, n, sub, pf, umax)
    X, Ucmd, Uh, fb = Xb[:, 0], Ucb[:, 0], Uhb[:, 0], fbb[:, 0]
    t = h * np.arange(n + 1)
    q, qd = X[:, _Q_OF_STATE], X[:, _QD_OF_STATE]
    ok = np.all(np.isfinite(X), axis=1)
    N = np.full(n + 1, np.nan)
    Ft = np.full(n + 1, np.nan)
    if ok.any():
        Lv = np.full(ok.sum(), L)
        gf = m._ground(q[ok], qd[ok], Uh[ok], Lv, 0.0, 0.0, fb[ok])
        Ft[ok], N[ok] = gf[..., 0], gf[..., 1]
    stable = bool(ok.all() and np.abs(X[:, [0, 4]]).max() < FALL_ANGLE)
    signals = {"x": X, "u_cmd": Ucmd, "N": N, "F_t": Ft, "f_body": fb}
    return SimResult(t=t, q=q, qd=qd, u=Uh, stable=np.array(stable), signals=signals)


def _rollout(m, K, X0, L, h, n, sub, push, umax, trace=None):
    """Batched ZOH rollout: states (n+1, B, 6), commands and held inputs (n+1, B, 2), pushes (n+1, B).

    ``push(t)`` returns the pushes (B,) or is None. A run that diverges (non-finite, or leg or body beyond
    ten times :data:`FALL_ANGLE`) is frozen as NaN from there on. With a list ``trace``, every integration step is
    appended to it: per control period, the ``sub + 1`` states from its start to its end (sub + 1, B, 6) with the
    input held over it (sub + 1, B, 2) and the push at each (sub + 1, B). Unchecked.
    """
    B = X0.shape[0]
    if B == 1:
        return _rollout_one(m, K, X0[0], L, h, n, sub, push, umax, trace)
    X = np.full((n + 1, B, 6), np.nan)
    Ucmd = np.full((n + 1, B, 2), np.nan)
    Uh = np.full((n + 1, B, 2), np.nan)
    fb = np.full((n + 1, B), np.nan)
    hs = h / sub
    zero = np.zeros(B)
    Lb = np.full(B, float(L))
    pushf = (lambda t: zero) if push is None else push

    def f(x, u, fv):
        q, qd = x[:, _Q_OF_STATE], x[:, _QD_OF_STATE]
        qdd = m._qdd(q, qd, u, Lb, 0.0, 0.0, fv)
        out = np.empty_like(x)
        out[:, [0, 2, 4]] = qd[:, [1, 0, 2]]
        out[:, [1, 3, 5]] = qdd[:, [1, 0, 2]]
        return out

    x = X0.copy()
    alive = np.ones(B, bool)
    X[0] = x
    for k in range(n + 1):
        t0 = k * h
        uc = -x @ K.T
        u = uc if umax is None else np.clip(uc, -umax, umax)
        Ucmd[k, alive], Uh[k, alive], fb[k, alive] = uc[alive], u[alive], pushf(t0)[alive]
        if k == n:
            break
        steps = [] if trace is not None else None
        x = _rk4_hold(f, x, u, t0, hs, sub, pushf, steps)
        if steps is not None:
            xs, ps = np.stack([a for a, _ in steps]), np.stack([b for _, b in steps])
            trace.append((xs, np.broadcast_to(u, (sub + 1, B, 2)), ps))
        with np.errstate(invalid="ignore"):
            alive &= np.all(np.isfinite(x), axis=1) & (np.abs(x[:, [0, 4]]).max(axis=1) <= 10 * FALL_ANGLE)
        x = np.where(alive[:, None], x, 0.0)  # dead runs keep integrating a harmless zero state
        X[k + 1, alive] = x[alive]
        if not alive.any():
            break
    return X, Ucmd, Uh, fb


def _rk4_hold(f, x, u, t0, hs, sub, pushf, steps):
    """``sub`` RK4 steps of ``h = sub hs`` from ``t0`` with the input ``u`` held (the rollouts' inner loop).

    ``f(x, u, push)`` is the state derivative; with a list ``steps`` the state at the start of each step and at the
    end of the hold is appended to it with the push there, as ``(x, push)``."""
    for j in range(sub):
        t = t0 + j * hs
        pa, pm, pb = pushf(t), pushf(t + 0.5 * hs), pushf(t + hs)
        if steps is not None:
            steps.append((x, pa))
        k1 = f(x, u, pa)
        k2 = f(x + 0.5 * hs * k1, u, pm)
        k3 = f(x + 0.5 * hs * k2, u, pm)
        k4 = f(x + hs * k3, u, pb)
        x = x + hs / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    if steps is not None:
        steps.append((x, pb))
    return x


def _rollout_one(m, K, x0, L, h, n, sub, push, umax, trace=None):
    """:func:`_rollout` for a batch of one, in the plain-float right-hand side (``_rhs_scalar``).

    One run (``simulate_sampled``) is dominated by numpy's cost per call on (1, 6) arrays; this path takes the
    same RK4 steps about ten times faster and agrees with the batched one to round-off (tests/test_wheel_leg.py).
    """
    X = np.full((n + 1, 1, 6), np.nan)
    Ucmd = np.full((n + 1, 1, 2), np.nan)
    Uh = np.full((n + 1, 1, 2), np.nan)
    fb = np.full((n + 1, 1), np.nan)
    hs = h / sub
    pushf = (lambda t: 0.0) if push is None else (lambda t: float(push(t)[0]))
    rhs, L, lim = m._rhs_scalar, float(L), 10 * FALL_ANGLE

    def f(x, u, fv):
        return rhs(x, u, L, 0.0, 0.0, fv)

    x = np.array(x0, dtype=float)
    X[0, 0] = x
    for k in range(n + 1):
        t0 = k * h
        uc = -(K @ x)
        u = uc if umax is None else np.clip(uc, -umax, umax)
        Ucmd[k, 0], Uh[k, 0], fb[k, 0] = uc, u, pushf(t0)
        if k == n:
            break
        steps = [] if trace is not None else None
        x = _rk4_hold(f, x, u, t0, hs, sub, pushf, steps)
        if steps is not None:
            xs, ps = np.stack([a for a, _ in steps])[:, None], np.array([[b] for _, b in steps])
            trace.append((xs, np.broadcast_to(u, (sub + 1, 1, 2)), ps))
        if not (np.all(np.isfinite(x)) and max(abs(x[0]), abs(x[4])) <= lim):
            break  # diverged: NaN from here on, as in the batched rollout
        X[k + 1, 0] = x
    return X, Ucmd, Uh, fb


def push_recovery(
    model: WheelLegDynamics,
    K: ArrayLike,
    *,
    L0: float,
    dt: float,
    amplitudes: ArrayLike,
    push_start: float = 0.2,
    push_duration: float = 0.1,
    t_end: float = 3.0,
    u_max: ArrayLike | None = None,
    tol: float = 0.01,
    substeps: int = 2,
    mu: float | None = None,
) -> np.ndarray:
    """Which rectangular pushes the sampled loop recovers from: bool (n,), one batched rollout.

    Each run starts upright at rest and gets a horizontal push of ``amplitudes[i]`` N on the body centre of
    mass from ``push_start`` for ``push_duration`` s (edges within 1e-9 ``dt`` of a sample count as on it);
    the loop is that of :func:`simulate_sampled`. A run
    *recovers* when leg and body stay within :data:`FALL_ANGLE` of upright at every control sample (the
    native step) and at ``t_end`` ``|theta|``, ``|phi|`` (rad) and ``|x_dot|`` (m/s) are all below ``tol``.
    With a friction coefficient ``mu`` it must also keep rolling: the ground reaction ``[F_t, N]`` of
    :meth:`WheelLegDynamics.ground_force` has ``N > 0`` and ``|F_t| <= mu N`` at every integration step, each with
    the torque held over its period (the start and the end of every hold and the ``substeps - 1`` RK4 steps
    between; the force is not checked between them). The model's wheel never slips, so without ``mu`` a recovery
    may ask for a force the floor cannot give.

    Parameters
    ----------
    model, K, L0, dt, u_max, substeps
        As in :func:`simulate_sampled`.
    amplitudes : array_like, shape (n,)
        Push forces, N (1 to 10000 of them).
    push_start, push_duration, t_end : float
        Push timing and run length, s; the push ends before ``t_end``.
    tol : float
        Settling tolerance, in ``(0, 1]``.
    mu : float, optional
        Wheel-floor friction coefficient, in ``(0, 10]``; None (default): no friction-cone condition.

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> model = WheelLegDynamics(WheelLegParams())
    >>> Kd = dlqr_gain(model, L0=0.2, dt=0.005)
    >>> push_recovery(model, Kd, L0=0.2, dt=0.005, amplitudes=[20.0, 2000.0]).tolist()
    [True, False]
    >>> push_recovery(model, Kd, L0=0.2, dt=0.005, amplitudes=[20.0], mu=1e-3).tolist()  # an icy floor
    [False]
    """
    m = _model(model)
    Kf = _fixed_gain(K, "K")
    if callable(L0):
        raise ValueError("push_recovery takes a fixed leg length L0 (m), not a profile")
    L = _profile(L0)(0.0)[0]
    h = _period(dt)
    amp = as_array(amplitudes, "amplitudes")
    if amp.ndim != 1 or not 1 <= amp.size <= 10_000:
        raise ValueError(f"amplitudes must be a 1-D array of 1 to 10000 push forces (N), got shape {amp.shape}")
    t0 = tolerance(push_start, "push_start", max=MAX_ABS, allow_zero=True)
    dur = positive(push_duration, "push_duration")
    t_end = positive(t_end, "t_end")
    if t0 + dur >= t_end:
        raise ValueError(f"the push (ends at {t0 + dur:g} s) must end before t_end = {t_end:g} s")
    n = int(round(t_end / h))
    if n * amp.size > 10**7:
        raise ValueError(f"{n} samples x {amp.size} pushes is more than 1e7; use fewer pushes or a larger dt")
    tol = tolerance(tol, "tol", max=1.0)
    sub = count(substeps, "substeps", max=1000)
    umax = _torque_limits(u_max)
    mu = None if mu is None else tolerance(mu, "mu", max=10.0)
    if mu is not None and n * amp.size * (sub + 1) > 2 * 10**7:
        raise ValueError(
            f"with mu the ground force is checked at {n * amp.size * (sub + 1):.3g} integration steps, more than 2e7;"
            " use fewer pushes, fewer substeps or a larger dt"
        )
    zero = np.zeros(amp.size)
    eps = 1e-9 * h  # push edges that fall on a sample are not moved by round-off (0.2 + 0.1 > 0.3)
    t1 = t0 + dur - eps
    t0 = t0 - eps
    trace = None if mu is None else []
    X, *_ = _rollout(
        m, Kf, np.zeros((amp.size, 6)), float(L), h, n, sub, lambda t: amp if t0 <= t < t1 else zero, umax, trace
    )
    with np.errstate(invalid="ignore"):
        upright = np.all(np.abs(X[:, :, [0, 4]]) < FALL_ANGLE, axis=(0, 2))  # NaN (diverged) counts as a fall
        settled = np.all(np.abs(X[-1][:, [0, 3, 4]]) < tol, axis=1)
    ok = upright & settled
    if mu is not None and ok.any():
        # the ground reaction at every integration step of the recovered runs (finite throughout), each with the
        # torque held over its period: both ends of every hold, and the RK4 steps between them
        Xs = np.concatenate([x[:, ok] for x, _, _ in trace]).reshape(-1, 6)
        Us = np.concatenate([u[:, ok] for _, u, _ in trace]).reshape(-1, 2)
        Fs = np.concatenate([f[:, ok] for _, _, f in trace]).ravel()
        gf = m._ground(Xs[:, _Q_OF_STATE], Xs[:, _QD_OF_STATE], Us, np.full(Fs.size, float(L)), 0.0, 0.0, Fs)
        Ft, N = gf[:, 0].reshape(-1, ok.sum()), gf[:, 1].reshape(-1, ok.sum())
        ok[ok] = np.all((N > 0) & (np.abs(Ft) <= mu * N), axis=0)
    return ok


def _ground_force(m, q, qd, qdd, L, Ld, Ldd, fb):
    """Ground reaction on the wheel ``[F_t, N]`` (..., 2) from the accelerations; unchecked, batched."""
    p = m.params
    th, thd, thdd = q[..., 1], qd[..., 1], qdd[..., 1]
    ph, phd, phdd = q[..., 2], qd[..., 2], qdd[..., 2]
    st, ct = np.sin(th), np.cos(th)
    xdd = qdd[..., 0]
    # horizontal accelerations of the leg and body centres of mass
    dl = Ldd * st + 2 * Ld * ct * thd - L * st * thd**2 + L * ct * thdd  # d^2(L sin theta)/dt^2
    xl = xdd + 0.5 * dl
    xb = xdd + dl + p.l_c * (np.cos(ph) * phdd - np.sin(ph) * phd**2)
    Ft = p.m_w * xdd + p.m_l * xl + p.m_b * xb - fb
    return np.stack(np.broadcast_arrays(Ft, m._normal(q, qd, qdd, L, Ld, Ldd)), axis=-1)


def normal_force_estimate(
    params: WheelLegParams,
    *,
    F: ArrayLike,
    Tp: ArrayLike,
    T: ArrayLike,
    L0: ArrayLike,
    L0_dot: ArrayLike,
    L0_ddot: ArrayLike,
    theta: ArrayLike,
    theta_dot: ArrayLike,
    theta_ddot: ArrayLike,
    x_ddot: ArrayLike,
    z_hip_ddot: ArrayLike,
) -> np.ndarray:
    """Ground normal force estimated from measured signals (:eq:`eq-ch04-nhat`), N, shape (...).

    Newton on the leg and wheel below the hip: ``N = m_w (g + zdd_w) + m_l (g + zdd_l) + H_z``, with the
    hip force ``H`` (leg on body) from the leg loads: its component along the leg ``e_L = [sin theta, cos
    theta]`` is ``F - m_l (a_l . e_L / 2 - L0 theta_dot^2 / 12)`` and across it ``e_perp = [cos theta, -sin
    theta]`` is ``(Tp - T) / L0 - m_l (a_l . e_perp / 2 + (L0 theta_ddot + 2 L0_dot theta_dot) / 12)``
    (the Lagrange equations of ``L0`` and ``theta``), ``a_l`` the leg centre-of-mass acceleration plus
    ``g`` upward. The wheel and leg accelerations come from the hip's (IMU) and the leg kinematics:
    ``zdd_w = zdd_hip - d^2(L0 cos theta)/dt^2``, ``zdd_l = zdd_w + d^2(L0 cos theta)/dt^2 / 2``,
    ``xdd_l = xdd + d^2(L0 sin theta)/dt^2 / 2``.

    Parameters
    ----------
    params : WheelLegParams
    F : array_like
        Leg thrust, N (both legs), e.g. from measured motor torques through the inverse of :func:`vmc_torques`.
    Tp : array_like
        Hip torque on the legs, N m (both legs), likewise.
    T : array_like
        Wheel torque, N m (both wheels).
    L0, L0_dot, L0_ddot : array_like
        Leg length (m) and rates (m/s, m/s^2), from the joint encoders.
    theta, theta_dot, theta_ddot : array_like
        Leg angle from the vertical (rad) and rates, from IMU pitch and the encoders.
    x_ddot : array_like
        Wheel acceleration along the ground, m/s^2 (wheel encoder).
    z_hip_ddot : array_like
        Vertical acceleration of the hip, m/s^2, gravity removed (IMU at the hip axis).

    Returns
    -------
    ndarray, shape (...)
        Estimated normal force, N. Far below the weight (towards zero): the wheel is leaving the ground.

    Examples
    --------
    >>> p = WheelLegParams()
    >>> W_above = (p.m_b) * p.g  # standing still, upright: the legs carry the body
    >>> N = normal_force_estimate(p, F=W_above + p.m_l * p.g / 2, Tp=0.0, T=0.0, L0=0.2, L0_dot=0.0,
    ...                           L0_ddot=0.0, theta=0.0, theta_dot=0.0, theta_ddot=0.0, x_ddot=0.0, z_hip_ddot=0.0)
    >>> bool(np.isclose(N, p.total_mass * p.g))
    True
    """
    if not isinstance(params, WheelLegParams):
        raise ValueError(f"params must be a WheelLegParams, got {type(params).__name__}")
    p = params
    names = ("F", "Tp", "T", "L0_dot", "L0_ddot", "theta", "theta_dot", "theta_ddot", "x_ddot", "z_hip_ddot")
    vals = (F, Tp, T, L0_dot, L0_ddot, theta, theta_dot, theta_ddot, x_ddot, z_hip_ddot)
    arrs = [_length(L0)] + [as_array(v, k) for k, v in zip(names, vals)]
    try:
        L, F_, Tp_, T_, Ld, Ldd, th, thd, thdd, xdd, zh = np.broadcast_arrays(*arrs)
    except ValueError as exc:
        raise ValueError("the measured signals do not broadcast to one shape: " + str(exc)) from exc
    s, c = np.sin(th), np.cos(th)
    d2c = Ldd * c - 2 * Ld * s * thd - L * c * thd**2 - L * s * thdd  # d^2(L cos theta)/dt^2
    d2s = Ldd * s + 2 * Ld * c * thd - L * s * thd**2 + L * c * thdd  # d^2(L sin theta)/dt^2
    zw = zh - d2c
    zl = zw + 0.5 * d2c
    axl, azl = xdd + 0.5 * d2s, zl + p.g
    H_par = F_ - p.m_l * (0.5 * (axl * s + azl * c) - L * thd**2 / 12)
    H_perp = (Tp_ - T_) / L - p.m_l * (0.5 * (axl * c - azl * s) + (L * thdd + 2 * Ld * thd) / 12)
    return p.m_w * (p.g + zw) + p.m_l * (p.g + zl) + H_par * c - H_perp * s
