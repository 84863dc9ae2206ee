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
* State ``s = [theta, theta_dot, x, x_dot, phi, phi_dot]`` (rad, rad/s, m, m/s, rad, rad/s).
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
from dataclasses import dataclass, fields

import numpy as np
import scipy.linalg

from ._validate import as_array, callback_output, choice, finite_scalar, integer, positive, solve_ivp_guarded
from .checks import check_close, check_errors, check_jacobian

__all__ = [
    "WheelLegParams",
    "PARAM_UNITS",
    "GainSchedule",
    "SimResult",
    "Q_DEFAULT",
    "R_DEFAULT",
    "mass_matrix",
    "bias_forces",
    "input_matrix",
    "dynamics",
    "normal_force",
    "linearize",
    "lqr_gain",
    "gain_schedule",
    "closed_loop_eigs",
    "simulate",
    "smooth_step",
    "virtual_leg",
    "virtual_leg_jacobian",
    "virtual_leg_inverse",
    "vmc_torques",
    "validate",
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
    def total_mass(self):
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


def _params(p):
    if not isinstance(p, WheelLegParams):
        raise ValueError(f"params must be a WheelLegParams, got {type(p).__name__}")
    return p


def _length(L0, name="L0"):
    L = as_array(L0, name)
    if np.any(L <= 0):
        raise ValueError(f"{name} must be positive (leg length in metres), got min {L.min():.3g}")
    return L


def mass_matrix(q, params, L0):
    """Mass matrix ``M(q)`` for the generalised coordinates ``[x, theta, phi]``.

    ``M = sum_i m_i J_i^T J_i + diag(I_w/R^2, m_l L0^2/12, I_b)`` with ``J_i`` the
    Jacobians of the centres of mass (eq. ``eq-ch04-eom`` of the chapter).

    Parameters
    ----------
    q : array_like, shape (..., 3)
        ``[x, theta, phi]`` in m, rad, rad.
    params : WheelLegParams
    L0 : array_like, broadcastable to q's leading shape
        Leg length, m.

    Returns
    -------
    ndarray, shape (..., 3, 3), symmetric positive definite (kg, kg m, kg m^2 entries).

    Examples
    --------
    >>> M = mass_matrix([0.0, 0.0, 0.0], WheelLegParams(), 0.2)
    >>> bool(np.allclose(M, M.T)), bool(np.all(np.linalg.eigvalsh(M) > 0))
    (True, True)
    """
    p = _params(params)
    q = as_array(q, "q", trailing=(3,))
    L = _length(L0)
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


def bias_forces(q, qd, params, L0, *, L0_dot=0.0, L0_ddot=0.0, f_body=0.0):
    """Velocity, leg-stroke, gravity and external terms ``h`` in ``M qdd + h = B u``.

    Parameters
    ----------
    q, qd : array_like, shape (..., 3)
        ``[x, theta, phi]`` and their rates (m, rad, rad; per second).
    params : WheelLegParams
    L0, L0_dot, L0_ddot : array_like
        Prescribed leg length (m) and its first two time derivatives (m/s, m/s^2).
    f_body : array_like
        Horizontal external force on the body centre of mass, N (a push).

    Returns
    -------
    ndarray, shape (..., 3)
        Generalised forces in N, N m, N m.

    Examples
    --------
    >>> h = bias_forces([0, 0.1, 0], [0, 0, 0], WheelLegParams(), 0.2)
    >>> bool(h[1] < 0)  # gravity pulls a forward-leaning leg further forward
    True
    """
    p = _params(params)
    q = as_array(q, "q", trailing=(3,))
    qd = as_array(qd, "qd", trailing=(3,))
    L = _length(L0)
    Ld = as_array(L0_dot, "L0_dot")
    Ldd = as_array(L0_ddot, "L0_ddot")
    fb = as_array(f_body, "f_body")
    th, ph = q[..., 1], q[..., 2]
    thd, phd = qd[..., 1], qd[..., 2]
    s, c, sp_, cp = np.sin(th), np.cos(th), np.sin(ph), np.cos(ph)
    a, ad, add = 0.5 * L, 0.5 * Ld, 0.5 * Ldd
    lc, g = p.l_c, p.g
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


def input_matrix(params):
    """Input matrix ``B`` (3, 2) mapping ``[T, Tp]`` to generalised forces on ``[x, theta, phi]``.

    From virtual work: ``T (dx/R - dtheta) + Tp (dtheta - dphi)``.

    Examples
    --------
    >>> input_matrix(WheelLegParams(R=0.05)).tolist()
    [[20.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
    """
    p = _params(params)
    return np.array([[1.0 / p.R, 0.0], [-1.0, 1.0], [0.0, -1.0]])


_SWAP = [1, 0, 2]  # [theta, x, phi] <-> [x, theta, phi]


def dynamics(state, u, params, L0, *, L0_dot=0.0, L0_ddot=0.0, f_body=0.0):
    """Nonlinear state derivative of the wheel-legged robot.

    Solves ``M(q) qdd = B u - h(q, qd)`` for ``q = [x, theta, phi]`` and returns it
    in the state order of the chapter.

    Parameters
    ----------
    state : array_like, shape (..., 6)
        ``[theta, theta_dot, x, x_dot, phi, phi_dot]``.
    u : array_like, shape (..., 2)
        ``[T, Tp]`` in N m.
    params : WheelLegParams
    L0, L0_dot, L0_ddot : array_like
        Leg length (m) and its derivatives, broadcastable to the batch shape.
    f_body : array_like
        Horizontal push on the body centre of mass, N.

    Returns
    -------
    ndarray, shape (..., 6)
        ``d(state)/dt``.

    Examples
    --------
    >>> sd = dynamics(np.zeros(6), np.zeros(2), WheelLegParams(), 0.2)
    >>> bool(np.all(sd == 0))  # upright is an equilibrium
    True
    """
    p = _params(params)
    s = as_array(state, "state", trailing=(6,))
    u = as_array(u, "u", trailing=(2,))
    q = s[..., [2, 0, 4]]
    qd = s[..., [3, 1, 5]]
    M = mass_matrix(q, p, L0)
    h = bias_forces(q, qd, p, L0, L0_dot=L0_dot, L0_ddot=L0_ddot, f_body=f_body)
    rhs = u @ input_matrix(p).T - h
    M, rhs = np.broadcast_arrays(M, rhs[..., None])
    qdd = np.linalg.solve(M, rhs)[..., 0]
    out = np.stack([qd[..., 1], qdd[..., 1], qd[..., 0], qdd[..., 0], qd[..., 2], qdd[..., 2]], axis=-1)
    return out


def normal_force(state, u, params, L0, *, L0_dot=0.0, L0_ddot=0.0, f_body=0.0):
    """Vertical ground reaction on the wheel, N: ``sum_i m_i (g + zdd_i)``.

    The model keeps the wheel on the ground; a negative value means a real robot
    would have left it (take-off), so the simulation is no longer valid there.

    Parameters
    ----------
    state, u, params, L0, L0_dot, L0_ddot, f_body
        As in :func:`dynamics`.

    Returns
    -------
    ndarray, shape (...)
        Normal force, N.

    Examples
    --------
    >>> p = WheelLegParams()
    >>> float(np.round(normal_force(np.zeros(6), np.zeros(2), p, 0.2), 6)) == round(p.total_mass * p.g, 6)
    True
    """
    p = _params(params)
    s = as_array(state, "state", trailing=(6,))
    L = _length(L0)
    Ldd = as_array(L0_ddot, "L0_ddot")
    Ld = as_array(L0_dot, "L0_dot")
    sd = dynamics(s, u, p, L, L0_dot=Ld, L0_ddot=Ldd, f_body=f_body)
    th, thd, thdd = s[..., 0], s[..., 1], sd[..., 1]
    ph, phd, phdd = s[..., 4], s[..., 5], sd[..., 5]
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


def _rhs_scalar(x, u, p, L, Ld, Ldd, fb):
    """Unvalidated single-state :func:`dynamics` in plain floats (solve_ivp inner loop)."""
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


def linearize(params, L0):
    """Linearise the dynamics about upright (``state = 0``, ``u = 0``) at leg length ``L0``.

    At upright the velocity terms are second order, so ``M0 qdd + G q = B u`` with
    ``M0 = M(0)`` and ``G = diag(0, -g (m_l/2 + m_b) L0, -g m_b l_c)``.

    Parameters
    ----------
    params : WheelLegParams
    L0 : array_like
        Leg length(s), m, any shape ``(...)``.

    Returns
    -------
    A : ndarray, shape (..., 6, 6)
    B : ndarray, shape (..., 6, 2)

    Examples
    --------
    >>> A, B = linearize(WheelLegParams(), 0.2)
    >>> A.shape, B.shape
    ((6, 6), (6, 2))
    >>> A[0, 1], A[2, 3], A[4, 5]
    (np.float64(1.0), np.float64(1.0), np.float64(1.0))
    """
    p = _params(params)
    L = _length(L0)
    M0 = mass_matrix(np.zeros(3), p, L)
    G = np.zeros(L.shape + (3, 3))
    G[..., 1, 1] = -p.g * (0.5 * p.m_l + p.m_b) * L
    G[..., 2, 2] = -p.g * p.m_b * p.l_c
    Minv = np.linalg.inv(M0)
    Aq = -Minv @ G  # qdd = Aq q + Bq u, coordinates [x, theta, phi]
    Bq = Minv @ input_matrix(p)
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
    return Q, R


def lqr_gain(params, L0, *, Q=None, R=None):
    """Continuous LQR gain ``K`` (2, 6) at leg length ``L0``: ``u = -K (state - ref)``.

    Solves the algebraic Riccati equation with ``scipy.linalg.solve_continuous_are``
    and returns ``K = R^-1 B^T P``.

    Parameters
    ----------
    params : WheelLegParams
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
    >>> K = lqr_gain(WheelLegParams(), 0.2)
    >>> A, B = linearize(WheelLegParams(), 0.2)
    >>> bool(np.linalg.eigvals(A - B @ K).real.max() < 0)
    True
    """
    p = _params(params)
    L = _length(L0)
    if L.ndim != 0:
        raise ValueError(
            f"L0 must be a scalar leg length in lqr_gain, got shape {L.shape}; use gain_schedule for a grid"
        )
    Qm, Rm = _weights(Q, R)
    A, B = linearize(p, float(L))
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
    def degree(self):
        """Polynomial degree."""
        return self.coeffs.shape[0] - 1

    def __call__(self, L0, *, extrapolate=False):
        """Gains ``K(L0)``, shape ``(..., 2, 6)`` for ``L0`` of shape ``(...)``.

        Raises ``ValueError`` outside ``[L_min, L_max]`` unless ``extrapolate=True``.
        """
        L = as_array(L0, "L0")
        if not extrapolate:
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


def gain_schedule(params, L0_grid, *, degree=3, Q=None, R=None):
    """LQR gains on a grid of leg lengths, fitted by polynomials (as teams do on the MCU).

    Parameters
    ----------
    params : WheelLegParams
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
    >>> sched = gain_schedule(WheelLegParams(), np.linspace(0.12, 0.32, 9), degree=3)
    >>> sched.coeffs.shape
    (4, 2, 6)
    >>> bool(np.abs(sched(0.2) - lqr_gain(WheelLegParams(), 0.2)).max() < 0.05 * np.abs(sched.K_grid).max())
    True
    """
    p = _params(params)
    L = _length(L0_grid, "L0_grid")
    if L.ndim != 1 or L.size < 2 or np.any(np.diff(L) <= 0):
        raise ValueError("L0_grid must be a 1-D strictly increasing array of leg lengths")
    degree = integer(degree, "degree")
    if L.size <= degree:
        raise ValueError(f"need more grid points ({L.size}) than the polynomial degree ({degree})")
    Qm, Rm = _weights(Q, R)
    K = np.stack([lqr_gain(p, float(Li), Q=Qm, R=Rm) for Li in L])
    coeffs = np.polynomial.polynomial.polyfit(L, K.reshape(L.size, -1), degree).reshape(degree + 1, 2, 6)
    return GainSchedule(coeffs=coeffs, L_min=float(L[0]), L_max=float(L[-1]), L_grid=L, K_grid=K)


def closed_loop_eigs(params, L0, K):
    """Eigenvalues of ``A(L0) - B(L0) K``, shape (..., 6), for gains ``K`` (..., 2, 6).

    Examples
    --------
    >>> p = WheelLegParams()
    >>> ev = closed_loop_eigs(p, 0.2, lqr_gain(p, 0.2))
    >>> bool(ev.real.max() < 0)
    True
    """
    A, B = linearize(params, L0)
    K = as_array(K, "K", trailing=(2, 6))
    return np.linalg.eigvals(A - B @ K)


@dataclass(frozen=True)
class SimResult:
    """Closed-loop simulation output.

    Attributes: times ``t`` (n,) s, states ``x`` (n, 6), inputs ``u`` (n, 2) N m,
    leg length ``L0`` (n,) m, ground normal force ``N`` (n,) N.
    """

    t: np.ndarray
    x: np.ndarray
    u: np.ndarray
    L0: np.ndarray
    N: np.ndarray


def smooth_step(t, t0, t1, v0, v1):
    """Quintic smooth step from ``v0`` (t <= t0) to ``v1`` (t >= t1) with its two derivatives.

    Returns ``(value, first derivative, second derivative)``, zero velocity and
    acceleration at both ends.

    Examples
    --------
    >>> [float(np.round(v, 6)) for v in smooth_step(0.5, 0.0, 1.0, 0.2, 0.4)]
    [0.3, 0.375, 0.0]
    """
    t = as_array(t, "t")
    t0, t1 = finite_scalar(t0, "t0"), finite_scalar(t1, "t1")
    v0, v1 = finite_scalar(v0, "v0"), finite_scalar(v1, "v1")
    if not t1 > t0:
        raise ValueError(f"need t1 > t0, got t0={t0!r}, t1={t1!r}")
    T = t1 - t0
    s = np.clip((t - t0) / T, 0.0, 1.0)
    inside = (t > t0) & (t < t1)
    dv = v1 - v0
    val = v0 + dv * (10 * s**3 - 15 * s**4 + 6 * s**5)
    vel = np.where(inside, dv * (30 * s**2 - 60 * s**3 + 30 * s**4) / T, 0.0)
    acc = np.where(inside, dv * (60 * s - 180 * s**2 + 120 * s**3) / T**2, 0.0)
    return val, vel, acc


def _profile(L0):
    if callable(L0):

        def prof(t):
            out = callback_output(L0(t), "L0", (3,), t=t)
            if not out[0] > 0:
                raise ValueError(f"L0(t={t:g}) returned a non-positive leg length {out[0]!r} m")
            return out

        return prof
    L = positive(L0, "L0")
    return lambda t: (L, 0.0, 0.0)


def simulate(
    params,
    schedule,
    x0,
    *,
    t_end,
    L0,
    ref=None,
    push=None,
    u_max=None,
    max_step=0.01,
    n_out=301,
    rtol=1e-7,
    atol=1e-9,
    max_nfev=None,
):
    """Closed-loop simulation of the nonlinear model with gains scheduled on leg length.

    The controller is ``u = -K(L0(t)) (state - ref(t))``, optionally saturated
    component-wise at ``u_max``; integration by ``scipy.integrate.solve_ivp`` (RK45).

    Parameters
    ----------
    params : WheelLegParams
    schedule : GainSchedule or array_like (2, 6)
        Scheduled gains, or one fixed gain matrix.
    x0 : array_like, shape (6,)
        Initial state.
    t_end : float
        Duration, s.
    L0 : float or callable
        Leg length in m, or ``t -> (L0, L0_dot, L0_ddot)`` (e.g. from :func:`smooth_step`).
    ref : callable, optional
        ``t -> state reference (6,)`` (e.g. a speed command and its integral); default zero.
    push : callable, optional
        ``t -> horizontal force on the body centre of mass``, N (a scalar).
    u_max : array_like, shape (2,), optional
        Torque limits ``[T_max, Tp_max]``, N m.
    max_step : float
        Largest solver step, s (keep short pushes from being stepped over).
    n_out : int
        Number of output samples.
    rtol, atol : float
        Solver tolerances.
    max_nfev : int, optional
        Budget of right-hand-side evaluations; default ``120 (t_end / max_step + 1) + 10000``,
        twenty times what RK45 needs at its largest step.

    Returns
    -------
    SimResult

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
    >>> p = WheelLegParams()
    >>> sched = gain_schedule(p, np.linspace(0.12, 0.32, 9))
    >>> res = simulate(p, sched, [0.1, 0, 0, 0, 0, 0], t_end=2.0, L0=0.2, n_out=5)
    >>> bool(abs(res.x[-1, 0]) < 0.01)
    True
    >>> simulate(p, sched, np.zeros(6), t_end=2.0, L0=0.2, push=lambda t: np.nan)
    Traceback (most recent call last):
    ...
    ValueError: push(t=0) returned an invalid value: push contains 1 non-finite value(s) (NaN or inf)
    """
    p = _params(params)
    x0 = as_array(x0, "x0", trailing=(6,))
    if x0.ndim != 1:
        raise ValueError(f"x0 must have shape (6,), got {x0.shape}")
    t_end = positive(t_end, "t_end")
    max_step = positive(max_step, "max_step")
    rtol, atol = positive(rtol, "rtol"), positive(atol, "atol")
    n_out = integer(n_out, "n_out", minimum=2)
    budget = (
        int(120 * (t_end / max_step + 1)) + 10_000 if max_nfev is None else integer(max_nfev, "max_nfev", minimum=1)
    )
    prof = _profile(L0)
    if isinstance(schedule, GainSchedule):
        gains = schedule
    else:
        Kf = as_array(schedule, "schedule", trailing=(2, 6))
        if Kf.ndim != 2:
            raise ValueError(f"a fixed gain must have shape (2, 6), got {Kf.shape}")
        gains = lambda L: Kf  # noqa: E731
    umax = None if u_max is None else as_array(u_max, "u_max", trailing=(2,))
    if umax is not None and (umax.shape != (2,) or np.any(umax <= 0)):
        raise ValueError(f"u_max must be two positive torque limits [T_max, Tp_max] (N m), got {u_max!r}")
    for name, f in (("ref", ref), ("push", push)):
        if f is not None and not callable(f):
            raise ValueError(f"{name} must be a callable of time t (s) or None, got {type(f).__name__}")
    zero6 = np.zeros(6)

    def ref_f(t):
        return zero6 if ref is None else callback_output(ref(t), "ref", (6,), t=t)

    def push_f(t):
        return 0.0 if push is None else float(callback_output(push(t), "push", (), t=t))

    def control(t, x):
        L = prof(t)[0]
        u = -gains(L) @ (x - ref_f(t))
        return u if umax is None else np.clip(u, -umax, umax)

    def rhs(t, x):
        L, Ld, Ldd = (float(v) for v in prof(t))
        return _rhs_scalar(x, control(t, x), p, L, Ld, Ldd, push_f(t))

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
    U = np.array([control(t, x) for t, x in zip(sol.t, X)])
    prof_t = np.array([[float(v) for v in prof(t)] for t in sol.t])
    fb = np.array([push_f(t) for t in sol.t])
    N = normal_force(X, U, p, prof_t[:, 0], L0_dot=prof_t[:, 1], L0_ddot=prof_t[:, 2], f_body=fb)
    return SimResult(t=sol.t, x=X, u=U, L0=prof_t[:, 0], N=N)


# --------------------------------------------------------------------------- virtual leg and VMC


def _fivebar(fb):
    for name in ("fk", "jacobian", "ik", "d"):
        if not hasattr(fb, name):
            raise ValueError(f"fivebar must be a robokin.fivebar.FiveBar, got {type(fb).__name__}")
    return fb


def virtual_leg(fivebar, q, *, assembly="down"):
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
    foot = np.asarray(fb.fk(q, assembly=assembly), dtype=float)
    r = foot - np.array([0.5 * fb.d, 0.0])
    return np.stack([np.hypot(r[..., 0], r[..., 1]), np.arctan2(r[..., 1], r[..., 0])], axis=-1)


def virtual_leg_jacobian(fivebar, q, *, assembly="down"):
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
    foot = np.asarray(fb.fk(q, assembly=assembly), dtype=float)
    Jf = np.asarray(fb.jacobian(q, assembly=assembly), dtype=float)
    r = foot - np.array([0.5 * fb.d, 0.0])
    L = np.hypot(r[..., 0], r[..., 1])
    rh = r / L[..., None]
    n = np.stack([-rh[..., 1], rh[..., 0]], axis=-1) / L[..., None]
    P = np.stack([rh, n], axis=-2)  # (..., 2, 2): d[L0, phi0]/d foot
    return P @ Jf


def virtual_leg_inverse(fivebar, leg, *, knees="out"):
    """Virtual leg ``[L0, phi0]`` to motor angles, through the five-bar closed-form IK.

    Parameters
    ----------
    fivebar : robokin.fivebar.FiveBar
    leg : array_like, shape (..., 2)
        ``[L0 (m), phi0 (rad)]``; ``L0 > 0``.
    knees : str
        Working mode passed to ``fivebar.ik``.

    Returns
    -------
    ndarray, shape (..., 2)
        Motor angles, rad. Whatever ``fivebar.ik`` raises for unreachable legs
        (``UnreachableError``) propagates.

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
    out = fb.ik(foot, knees=knees)
    return np.asarray(out[0] if isinstance(out, tuple) else out, dtype=float)


def vmc_torques(fivebar, q, F, Tp, *, assembly="down"):
    """Virtual model control: leg thrust ``F`` and leg torque ``Tp`` to the two motor torques.

    ``tau = J_v^T [F, -Tp]`` with ``J_v = d[L0, phi0]/dq`` (:func:`virtual_leg_jacobian`).
    ``F`` (N) pushes the foot away from the hip (extends the leg); ``Tp`` (N m) is the
    hip torque of the dynamics model, positive in the ``theta`` sense, which is the
    opposite of ``phi0``. Virtual work: ``tau . qdot = F L0dot + Tp theta_b_dot``.

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
    F = as_array(F, "F")
    Tp = as_array(Tp, "Tp")
    J = virtual_leg_jacobian(fivebar, q, assembly=assembly)
    w = np.stack(np.broadcast_arrays(F, -Tp), axis=-1)
    return np.einsum("...ji,...j->...i", J, w)


def _default_fivebar():
    from .fivebar import FiveBar

    return FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)


def validate(*, rng=None, fast=False):
    """Headline checks of the chapter, for the validation report.

    Returns
    -------
    list of robokin.checks.CheckReport

    Examples
    --------
    >>> reps = validate(fast=True)
    >>> all(r.passed for r in reps)
    True
    """
    rng = np.random.default_rng(4) if rng is None else rng
    p = WheelLegParams()
    reports = []
    # 1. linearisation vs finite differences of the nonlinear dynamics, at upright, over leg lengths
    Ls = np.linspace(0.12, 0.34, 5 if fast else 12)

    def f(z):
        return dynamics(z[..., :6], z[..., 6:], p, Ls.reshape((-1,) + (1,) * (z.ndim - 2)))

    def jac(z):
        A, B = linearize(p, Ls)
        return np.concatenate([A, B], axis=-1)

    reports.append(
        check_jacobian(
            jac,
            f,
            np.zeros((Ls.size, 8)),
            eps=1e-5,
            tol=1e-6,
            name="wheel-leg linearisation vs FD of nonlinear dynamics",
            raise_on_fail=False,
        )
    )
    # 2. scheduled gains: fit error and stability on a fine grid
    sched = gain_schedule(p, np.linspace(0.12, 0.34, 12), degree=3)
    fine = np.linspace(0.12, 0.34, 23 if fast else 89)
    K_exact = np.stack([lqr_gain(p, float(L)) for L in fine])
    K_fit = sched(fine)
    scale = np.abs(K_exact).max(axis=0) + 1e-12
    reports.append(
        check_errors(
            "LQR gain polynomial fit error (relative per entry)",
            (np.abs(K_fit - K_exact) / scale).max(axis=(-2, -1)),
            tol=1e-2,
            raise_on_fail=False,
        )
    )
    ev = closed_loop_eigs(p, fine, K_fit)
    reports.append(
        check_errors(
            "fitted-gain closed loop: Re(eig) above the -0.1 1/s margin",
            np.maximum(ev.real.max(axis=-1) + 0.1, 0.0),
            tol=0.0,
            unit="1/s",
            raise_on_fail=False,
        )
    )
    # 3. VMC virtual work, needs the five-bar module
    try:
        fb = _default_fivebar()
    except ImportError:  # pragma: no cover - chapter 3 not installed
        return reports
    n = 50 if fast else 400
    leg = np.stack([rng.uniform(0.15, 0.32, n), -np.pi / 2 + rng.uniform(-0.4, 0.4, n)], axis=-1)
    q = virtual_leg_inverse(fb, leg)
    qd = rng.normal(size=(n, 2))
    F, Tp = rng.normal(0, 100, n), rng.normal(0, 10, n)
    tau = vmc_torques(fb, q, F, Tp)
    h = 1e-6  # leg rates by central differences along qd: independent of the Jacobian
    legd = (virtual_leg(fb, q + h * qd) - virtual_leg(fb, q - h * qd)) / (2 * h)
    p_in = np.einsum("...i,...i->...", tau, qd)
    p_out = F * legd[:, 0] - Tp * legd[:, 1]
    reports.append(
        check_close(
            "VMC power balance tau.qdot = F L0dot + Tp theta_b_dot (FD rates)",
            p_in,
            p_out,
            tol=1e-7,
            scale=np.abs(p_in).max(),
            raise_on_fail=False,
        )
    )
    r = virtual_leg(fb, q)
    rh = np.stack([np.cos(r[:, 1]), np.sin(r[:, 1])], axis=-1)
    nh = np.stack([-rh[:, 1], rh[:, 0]], axis=-1)
    f_foot = F[:, None] * rh - (Tp / r[:, 0])[:, None] * nh  # the same load as a foot force
    reports.append(
        check_close(
            "VMC torques vs five-bar statics J_foot^T f_foot",
            tau,
            fb.static_torques(q, f_foot),
            tol=1e-9,
            scale=np.abs(tau).max(),
            raise_on_fail=False,
        )
    )
    reports.append(
        check_jacobian(
            lambda x: virtual_leg_jacobian(fb, x),
            lambda x: virtual_leg(fb, x),
            q,
            name="virtual leg Jacobian vs finite differences",
            raise_on_fail=False,
        )
    )
    return reports
