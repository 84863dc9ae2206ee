"""Joint-space control of the 2-link arm when the model is wrong (chapter 12).

Gravity compensation, PD and computed-torque tracking (optionally with integral action), the Slotine-Li
adaptive law, a sliding-mode (robust) law and an impedance law at the tip (chapter 11), a fixed-step RK4
simulator that is vectorised across a *batch of plants* (the dynamics Monte Carlo) and takes an optional external
tip force, a ``solve_ivp`` reference simulator for one plant, the predicted
steady-state error under parameter mismatch, and tracking metrics.

Both simulators return a :class:`robokin.results.SimResult`: ``q``, ``qd``, ``u`` (the controller's torque, N m),
``stable``, and the signals ``"q_ref"`` (reference angles, rad, shape (K, 2), shared by all plants) and ``"z"``
(error integral, rad s, shape (B..., K, 2); ``"theta_hat"`` for the adaptive law, ``"s"`` for the sliding-mode law).
:func:`tracking_error` gives ``q_ref - q``.

Conventions: the plant is a :class:`robokin.dynamics.TwoLinkArm` (possibly batched, one arm per
Monte Carlo sample) plus joint friction ``tau_f = fv * qd + fc * tanh(qd / v_eps)`` that the
controller does not know (:func:`friction_torque`). The tracking error is ``e = q_ref - q`` (rad); the
integral state is ``z = int e dt`` (rad s).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from ._primitives import smoothed_friction
from ._validate import (
    MAX_ABS,
    as_array,
    choice,
    count,
    finite_scalar,
    flag,
    function,
    ivp_options,
    positive,
    solve_ivp_guarded,
    tolerance,
)
from .dynamics import TwoLinkArm, _two_link_regressor_rows
from .results import SimResult
from .trajectory import quintic_step

__all__ = [
    "quintic_reference",
    "friction_torque",
    "gravity_compensation",
    "teach_residual",
    "Controller",
    "tracking_controller",
    "AdaptiveController",
    "adaptive_controller",
    "SlidingModeController",
    "sliding_mode_controller",
    "ImpedanceController",
    "impedance_controller",
    "simulate",
    "simulate_ivp",
    "tracking_error",
    "steady_state_error",
    "sample_arms",
    "tracking_metrics",
    "converged",
    "MonteCarloResult",
    "monte_carlo",
]

V_EPS = 0.01  # rad/s, smoothing of the Coulomb term (keeps the ODE smooth for RK4 and solve_ivp)


# ---------------------------------------------------------------------------- references
def quintic_reference(
    q0: ArrayLike, qf: ArrayLike, T: float
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Callable ``ref(t) -> (q_ref, qd_ref, qdd_ref)`` for :func:`simulate`: a rest-to-rest move held at the goal.

    The move from ``q0`` to ``qf`` takes ``T`` seconds from ``t = 0`` (:func:`robokin.trajectory.quintic_step`:
    zero rate and acceleration at both ends); before ``t = 0`` the reference stays at ``q0``, after ``T`` at ``qf``.

    Parameters
    ----------
    q0, qf : array_like, shape (n,)
        Start and goal (rad).
    T : float
        Duration of the move (s), at least 1e-6 s.

    Examples
    --------
    >>> ref = quintic_reference([0.0, 0.0], [1.0, -1.0], 2.0)
    >>> ref(5.0)[0]
    array([ 1., -1.])
    >>> q, qd, qdd = ref(np.array([0.0, 1.0, 2.0]))
    >>> q[:, 0].tolist(), qd[:, 0].tolist()
    ([0.0, 0.5, 1.0], [0.0, 0.9375, 0.0])
    """
    q0 = as_array(q0, "q0", trailing=(None,))
    qf = as_array(qf, "qf", trailing=(None,))
    if q0.ndim != 1 or qf.ndim != 1 or q0.shape != qf.shape or q0.size == 0:
        raise ValueError(f"q0 and qf must have the same shape (n,) with n >= 1, got {q0.shape} and {qf.shape}")
    T = tolerance(T, "T", min=1e-6, max=MAX_ABS)  # shorter moves overflow the quintic's 1 / T^5
    return lambda t: quintic_step(t, t0=0.0, t1=T, v0=q0, v1=qf)


# ---------------------------------------------------------------------------- torques
def friction_torque(qd: ArrayLike, fv: ArrayLike, fc: ArrayLike, *, v_eps: float = V_EPS) -> np.ndarray:
    """Joint friction ``fv * qd + fc * tanh(qd / v_eps)`` (N m), shape (..., 2).

    Parameters
    ----------
    qd : array_like, shape (..., 2)
        Joint rates (rad/s).
    fv, fc : array_like, broadcastable to (..., 2)
        Viscous (N m s/rad) and Coulomb (N m) coefficients, non-negative.
    v_eps : float
        Smoothing speed of the Coulomb term (rad/s).

    Examples
    --------
    >>> np.round(friction_torque([1.0, -1.0], 0.1, 0.5), 4)
    array([ 0.6, -0.6])
    """
    qd = as_array(qd, "qd", trailing=(2,))
    fv, fc = _friction(fv, fc)
    try:
        np.broadcast_shapes(qd.shape, fv.shape, fc.shape)
    except ValueError:
        raise ValueError(
            f"qd, fv and fc must broadcast together, got shapes {qd.shape}, {fv.shape}, {fc.shape}"
        ) from None
    return smoothed_friction(qd, fv, fc, positive(v_eps, "v_eps"))


def _friction(fv, fc):
    fv = as_array(fv, "fv")
    fc = as_array(fc, "fc")
    if np.any(fv < 0) or np.any(fc < 0):
        raise ValueError("friction coefficients fv and fc must be non-negative")
    for name, f in (("fv", fv), ("fc", fc)):
        if f.ndim and f.shape[-1] != 2:
            raise ValueError(
                f"{name} must be a scalar or have shape (..., 2) (one coefficient per joint), got {f.shape}"
            )
    return fv, fc


def gravity_compensation(model: TwoLinkArm, q: ArrayLike) -> np.ndarray:
    """Gravity compensation torque ``G_hat(q)`` from the controller's model (N m), shape (..., 2).

    Holds the arm still only if the model is right; the mismatch ``G - G_hat`` is what sags.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> np.allclose(gravity_compensation(arm, [0.2, 0.3]), arm.gravity([0.2, 0.3]))
    True
    """
    _check_arm(model, "model", scalar=True)
    return model.gravity(q)


def teach_residual(
    plant: TwoLinkArm,
    model: TwoLinkArm,
    q: ArrayLike,
    *,
    qd: ArrayLike | None = None,
    qdd: ArrayLike | None = None,
    fv: ArrayLike = 0.0,
    fc: ArrayLike = 0.0,
) -> np.ndarray:
    """Joint torque a person must supply to hold or move the arm in drag-to-teach mode (N m), shape (..., 2).

    In teach (lead-through) mode the drives command only the gravity compensation ``G_hat(q)`` of the
    controller's model (:func:`gravity_compensation`); the person supplies the rest. From the plant
    ``M qdd + C qd + G + tau_f = G_hat + tau_h``:

    ``tau_h = M(q) qdd + C(q, qd) qd + tau_f(qd) + (G(q) - G_hat(q))``

    (eq. ``eq-ch12-teach``), which at rest is the gravity error ``G - G_hat`` alone. The force the person
    feels at the tool is ``plant.tip_force(q, tau_h)`` (``J^T F = tau_h``).

    Parameters
    ----------
    plant : TwoLinkArm
        The real arm (may be batched: its batch axis broadcasts against the last batch axis of ``q``).
    model : TwoLinkArm
        The controller's model, one arm.
    q : array_like, shape (..., 2)
        Joint angles (rad).
    qd, qdd : array_like, shape (..., 2), optional
        Joint rates (rad/s) and accelerations (rad/s^2) of the motion the person imposes; default zero (holding).
    fv, fc : float or array_like, shape (2,)
        Viscous (N m s/rad) and Coulomb (N m) joint friction of the plant, non-negative (:func:`friction_torque`).

    Examples
    --------
    >>> model = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> plant = model.replace(m2=1.1)
    >>> q = [0.3, 0.5]
    >>> bool(np.allclose(teach_residual(plant, model, q), plant.gravity(q) - model.gravity(q)))   # at rest
    True
    >>> bool(np.allclose(teach_residual(model, model, q), 0.0))   # exact model: the arm floats
    True
    """
    _check_arm(plant, "plant")
    _check_arm(model, "model", scalar=True)
    q = as_array(q, "q", trailing=(2,))
    qd = np.zeros_like(q) if qd is None else as_array(qd, "qd", trailing=(2,))
    qdd = np.zeros_like(q) if qdd is None else as_array(qdd, "qdd", trailing=(2,))
    fv, fc = _friction(fv, fc)
    for f, nm in ((fv, "fv"), (fc, "fc")):
        if f.shape not in ((), (2,)):
            raise ValueError(f"{nm} must be a scalar or shape (2,), got shape {f.shape}")
    tau_f = smoothed_friction(qd, fv, fc, V_EPS)
    return plant.inverse_dynamics(q, qd, qdd) + tau_f - model.gravity(q)


def _check_arm(arm, name, *, scalar=False):
    if not isinstance(arm, TwoLinkArm):
        raise ValueError(f"{name} must be a robokin.dynamics.TwoLinkArm, got {type(arm).__name__}")
    if scalar and arm.batch_size != 1:
        raise ValueError(f"{name} must describe one arm (scalar parameters), got a batch of {arm.batch_size}")


def _gain(k, name):
    k = as_array(k, name)
    if k.shape not in ((), (2,)):
        raise ValueError(f"{name} must be a scalar or shape (2,), got shape {k.shape}")
    if np.any(k < 0):
        raise ValueError(f"{name} must be non-negative, got {k}")
    k = np.broadcast_to(k, (2,)).copy()
    k.setflags(write=False)
    return k


def _gravity(model, q1, q2, cs):
    """The model's gravity torques (N m) at (q1, q2); ``cs``: the simulators' precomputed (cos, sin) terms."""
    *_, g1, g2 = model._terms(q1, q2) if cs is None else model._terms_cs(*cs)
    return g1, g2


@dataclass(frozen=True, eq=False)
class Controller:
    """Joint-space tracking law (build with :func:`tracking_controller`).

    ``kind="pd"``:               ``tau = Kp e + Kd de + Ki z``
    ``kind="pd_gravity"``:       ``tau = Kp e + Kd de + Ki z + G_hat(q)``
    ``kind="computed_torque"``:  ``tau = M_hat(q) (qdd_ref + Kd de + Kp e + Ki z) + C_hat(q, qd) qd + G_hat(q)``

    For the PD kinds the gains are torques (N m/rad, N m s/rad, N m/(rad s)); for computed
    torque they are accelerations (1/s^2, 1/s, 1/s^3). ``e = q_ref - q``, ``z = int e dt``.

    With ``tau_max`` (N m per joint) the drives saturate: the torque applied (and returned) is
    ``clip(tau, -tau_max, tau_max)`` (eq. ``eq-ch12-clamp``). ``anti_windup="clamp"`` is conditional integration:
    joint i stops integrating, ``dz_i/dt = 0``, while its law asks for more than the drive gives
    (``|tau_i| > tau_max_i``) and its error ``e_i`` has the sign of ``tau_i`` (integrating would push further into
    the limit); otherwise ``dz_i/dt = e_i``. ``anti_windup="none"`` integrates ``e`` regardless (the integrator
    winds up).
    """

    model: TwoLinkArm
    kind: str
    kp: np.ndarray
    kd: np.ndarray
    ki: np.ndarray
    tau_max: np.ndarray | None = None
    anti_windup: str = "none"

    def __post_init__(self):
        # Built directly or through tracking_controller: the same checks either way (gains real, finite, >= 0).
        _check_arm(self.model, "model", scalar=True)
        choice(self.kind, "kind", ("pd", "pd_gravity", "computed_torque"))
        for name in ("kp", "kd", "ki"):
            object.__setattr__(self, name, _gain(getattr(self, name), name))
        choice(self.anti_windup, "anti_windup", ("none", "clamp"))
        if self.tau_max is not None:
            try:
                raw = np.asarray(self.tau_max)
            except ValueError:  # a ragged sequence
                raise ValueError(
                    f"tau_max must be a torque (N m) or two, one per joint, got a ragged {self.tau_max!r}"
                ) from None
            if raw.dtype == bool:
                raise ValueError(f"tau_max must be a torque in N m, not a bool, got {self.tau_max!r}")
            numeric = raw.dtype.kind in "iuf"
            # +inf is allowed: no limit on that joint (every other value must be finite and positive)
            lim = _gain(np.where(np.isposinf(raw), 1.0, raw) if numeric else self.tau_max, "tau_max")
            lim = np.where(np.isposinf(np.broadcast_to(raw, (2,))), np.inf, lim)
            lim.setflags(write=False)
            if np.any(lim <= 0):
                raise ValueError(f"tau_max must be positive (N m per joint), got {lim}")
            object.__setattr__(self, "tau_max", lim)
        elif self.anti_windup != "none":
            raise ValueError(f"anti_windup={self.anti_windup!r} needs a torque limit tau_max (N m)")

    def torque(
        self, q: ArrayLike, qd: ArrayLike, z: ArrayLike, q_ref: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike
    ) -> np.ndarray:
        """Joint torques (N m), shape (..., 2), from state and reference (all (..., 2)).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
        >>> zero = np.zeros(2)
        >>> np.allclose(ctl.torque([0.1, 0.2], zero, zero, [0.1, 0.2], zero, zero), arm.gravity([0.1, 0.2]))
        True
        """
        args = [
            as_array(v, nm, trailing=(2,))
            for v, nm in zip((q, qd, z, q_ref, qd_ref, qdd_ref), ("q", "qd", "z", "q_ref", "qd_ref", "qdd_ref"))
        ]
        cols = [x for a in args for x in (a[..., 0], a[..., 1])]
        return np.stack(self._saturate(*self._torque(*cols)), -1)

    def _saturate(self, t1, t2):
        if self.tau_max is None:
            return t1, t2
        return np.clip(t1, -self.tau_max[0], self.tau_max[0]), np.clip(t2, -self.tau_max[1], self.tau_max[1])

    def _torque(self, q1, q2, v1, v2, z1, z2, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
        kp, kd, ki = self.kp, self.kd, self.ki
        u1 = kp[0] * (r1 - q1) + kd[0] * (rd1 - v1) + ki[0] * z1
        u2 = kp[1] * (r2 - q2) + kd[1] * (rd2 - v2) + ki[1] * z2
        if self.kind == "pd":
            return u1, u2
        m = self.model
        if self.kind == "pd_gravity":
            g1, g2 = _gravity(m, q1, q2, cs)
            return u1 + g1, u2 + g2
        return m._inverse(q1, q2, v1, v2, rdd1 + u1, rdd2 + u2, cs=cs)  # M_hat a + C_hat qd + G_hat

    # the simulators' interface: internal state (here z), its initial value and derivative, its signal name
    _signal = "z"

    def _state0(self):
        return np.zeros(2)

    def _law(self, q1, q2, v1, v2, xs, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
        t1, t2 = self._torque(q1, q2, v1, v2, xs[0], xs[1], r1, r2, rd1, rd2, rdd1, rdd2, cs=cs)
        e1, e2 = r1 - q1, r2 - q2
        if self.tau_max is None:
            return t1, t2, [e1, e2]
        s1, s2 = self._saturate(t1, t2)
        if self.anti_windup == "clamp":  # conditional integration: hold z_i while e_i pushes into the limit
            e1 = np.where((np.abs(t1) > self.tau_max[0]) & (e1 * t1 > 0), 0.0, e1)
            e2 = np.where((np.abs(t2) > self.tau_max[1]) & (e2 * t2 > 0), 0.0, e2)
        return s1, s2, [e1, e2]


def tracking_controller(
    model: TwoLinkArm,
    *,
    kind: Literal["pd", "pd_gravity", "computed_torque"],
    kp: ArrayLike,
    kd: ArrayLike,
    ki: ArrayLike = 0.0,
    tau_max: ArrayLike | None = None,
    anti_windup: Literal["none", "clamp"] = "none",
) -> Controller:
    """Build a :class:`Controller` from the controller's (possibly wrong) model.

    Parameters
    ----------
    model : TwoLinkArm
        The controller's model ``M_hat, C_hat, G_hat`` (one arm); unused by ``kind="pd"``.
    kind : {"pd", "pd_gravity", "computed_torque"}
    kp, kd, ki : float or array_like, shape (2,)
        Non-negative gains (units in :class:`Controller`).
    tau_max : float or array_like, shape (2,), optional
        Drive torque limit (N m), positive: the torque is clipped to ``[-tau_max, tau_max]``. None: no limit;
        ``inf`` on one joint: no limit on that joint. Bools are refused.
    anti_windup : {"none", "clamp"}
        What the integral does while a drive saturates (:class:`Controller`); ``"clamp"`` needs ``tau_max``.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> tracking_controller(arm, kind="computed_torque", kp=100, kd=20).kp
    array([100., 100.])
    >>> tracking_controller(arm, kind="pid", kp=1, kd=1)
    Traceback (most recent call last):
    ...
    ValueError: kind must be one of 'pd', 'pd_gravity', 'computed_torque'; got 'pid'
    >>> sat = tracking_controller(arm, kind="pd", kp=100, kd=0, ki=10, tau_max=2.0, anti_windup="clamp")
    >>> zero = np.zeros(2)
    >>> sat.torque(zero, zero, zero, [1.0, -0.01], zero, zero)   # 100 N m asked on joint 1, 2 N m given
    array([ 2., -1.])
    >>> tracking_controller(arm, kind="pd", kp=1, kd=1, anti_windup="clamp")
    Traceback (most recent call last):
    ...
    ValueError: anti_windup='clamp' needs a torque limit tau_max (N m)
    """
    return Controller(model, kind, kp, kd, ki, tau_max, anti_windup)


@dataclass(frozen=True, eq=False)
class AdaptiveController:
    """Slotine-Li adaptive tracking law on the base parameters (build with :func:`adaptive_controller`).

    With ``e = q_ref - q``, the reference rate and acceleration ``qd_r = qd_ref + Lambda e``,
    ``qdd_r = qdd_ref + Lambda de`` and the sliding variable ``s = qd_r - qd = de + Lambda e``::

        tau = Y(q, qd, qd_r, qdd_r) pi_hat + Kd s,        d(pi_hat)/dt = Gamma Y^T s

    where ``Y pi = M(q) qdd_r + C(q, qd) qd_r + G(q)`` (+ ``fv qd + fc tanh(qd / v_eps)`` with friction), ``C`` the
    Christoffel matrix (``Mdot - 2 C`` skew), so that ``V = s^T M s / 2 + pi_err^T Gamma^-1 pi_err / 2`` has
    ``dV/dt = -s^T Kd s`` (eq. ``eq-ch12-slotine``). The parameters ``pi`` are the base parameters with gravity folded
    in: ``(I1 + m1 lc1^2 + m2 l1^2, I2 + m2 lc2^2, m2 l1 lc2`` (kg m^2), ``(m1 lc1 + m2 l1) g, m2 lc2 g`` (N m)``)``,
    then ``fv1, fv2`` (N m s/rad) and ``fc1, fc2`` (N m) when ``friction`` is set. The estimate starts at the model's
    values (friction zero) and is the simulators' internal state (signal ``"theta_hat"``).

    Attributes
    ----------
    model : TwoLinkArm
        The initial model (one arm).
    lam : ndarray, shape (2,)
        ``Lambda`` (1/s), positive.
    kd : ndarray, shape (2,)
        ``Kd`` (N m s/rad), positive.
    gamma : ndarray, shape (p,)
        Diagonal of ``Gamma`` (unit of the parameter squared per N m rad), non-negative; p = 5, or 9 with friction.
    friction : bool
        Adapt the friction coefficients too.
    """

    model: TwoLinkArm
    lam: np.ndarray
    kd: np.ndarray
    gamma: np.ndarray
    friction: bool = False

    def __post_init__(self):
        _check_arm(self.model, "model", scalar=True)
        object.__setattr__(self, "friction", flag(self.friction, "friction"))
        for name in ("lam", "kd"):
            k = _gain(getattr(self, name), name)
            if np.any(k <= 0):
                raise ValueError(f"{name} must be positive, got {k}")
            object.__setattr__(self, name, k)
        p = 9 if self.friction else 5
        g = as_array(self.gamma, "gamma")
        if g.shape not in ((), (p,)):
            raise ValueError(
                f"gamma must be a scalar or shape ({p},) with friction={self.friction}, got shape {g.shape}"
            )
        if np.any(g < 0):
            raise ValueError(f"gamma must be non-negative, got {g}")
        g = np.broadcast_to(g, (p,)).copy()
        g.setflags(write=False)
        object.__setattr__(self, "gamma", g)

    @property
    def theta0(self) -> np.ndarray:
        """Initial estimate ``pi_hat(0)``: the model's parameters (friction zero), shape (p,)."""
        pi = np.array([float(x) for x in self.model._pi()])
        return np.r_[pi, np.zeros(4)] if self.friction else pi

    _signal = "theta_hat"

    def _state0(self):
        return self.theta0

    def _law(self, q1, q2, v1, v2, xs, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
        s1, s2, row1, row2 = _sliding_rows(self.lam, q1, q2, v1, v2, r1, r2, rd1, rd2, rdd1, rdd2, cs)
        if self.friction:
            row1 += [v1, 0.0, np.tanh(v1 / V_EPS), 0.0]
            row2 += [0.0, v2, 0.0, np.tanh(v2 / V_EPS)]
        t1 = self.kd[0] * s1 + sum(y * th for y, th in zip(row1, xs))
        t2 = self.kd[1] * s2 + sum(y * th for y, th in zip(row2, xs))
        return t1, t2, [gk * (y1 * s1 + y2 * s2) for gk, y1, y2 in zip(self.gamma, row1, row2)]


def adaptive_controller(
    model: TwoLinkArm, *, lam: ArrayLike, kd: ArrayLike, gamma: ArrayLike, friction: bool = False
) -> AdaptiveController:
    """Build a Slotine-Li :class:`AdaptiveController` that starts from the model's parameters.

    Parameters
    ----------
    model : TwoLinkArm
        Initial model (one arm).
    lam : float or array_like, shape (2,)
        ``Lambda`` (1/s), positive: the error ``e`` decays at this rate once ``s = 0``.
    kd : float or array_like, shape (2,)
        ``Kd`` (N m s/rad), positive.
    gamma : float or array_like, shape (5,) or (9,)
        Adaptation gains, the diagonal of ``Gamma``; zero freezes a parameter (``gamma = 0`` everywhere is a
        fixed-parameter passivity-based controller).
    friction : bool
        Also adapt viscous and Coulomb friction (the model starts with none).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = adaptive_controller(arm, lam=10.0, kd=5.0, gamma=[1.0, 1.0, 1.0, 50.0, 50.0])
    >>> ref = quintic_reference([0, 0], [1, -1], 1.0)
    >>> res = simulate(arm.replace(m2=1.2), ctl, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=4.0)   # link 2 heavier
    >>> res.signals["theta_hat"].shape, bool(np.abs(tracking_error(res)[-1]).max() < 1e-4)
    ((401, 5), True)
    >>> np.round(res.signals["theta_hat"][-1, 3:], 1)   # the gravity pair learned: (m1 lc1 + m2 l1) g, m2 lc2 g
    array([16.7,  5.9])
    >>> adaptive_controller(arm, lam=0.0, kd=5.0, gamma=0.5)
    Traceback (most recent call last):
    ...
    ValueError: lam must be positive, got [0. 0.]
    """
    return AdaptiveController(model, lam, kd, gamma, friction)


def _gain_array(k, name, *, shapes):
    """The common front end of the gain checks: ``k`` as a finite real array, with ragged sequences and bools
    refused by name (``shapes`` says what the gain may be)."""
    try:
        raw = np.asarray(k)
    except ValueError:  # a ragged sequence
        raise ValueError(f"{name} must be {shapes}, got a ragged {k!r}") from None
    if raw.dtype == bool:
        raise ValueError(f"{name} must be a number, not a bool, got {k!r}")
    return as_array(k, name)


def _sm_gain(k, name, *, strict):
    """A sliding-mode gain: a real number or one per joint, not a bool, ``> 0`` (strict) or ``>= 0``."""
    k = _gain_array(k, name, shapes="a number or two (one per joint)")
    if k.shape not in ((), (2,)):
        raise ValueError(f"{name} must be a scalar or shape (2,) (one value per joint), got shape {k.shape}")
    if np.any(k <= 0) if strict else np.any(k < 0):
        raise ValueError(f"{name} must be {'positive' if strict else 'non-negative'}, got {k}")
    k = np.broadcast_to(k, (2,)).copy()
    k.setflags(write=False)
    return k


@dataclass(frozen=True, eq=False)
class SlidingModeController:
    """Sliding-mode (robust) tracking law on a fixed model (build with :func:`sliding_mode_controller`).

    With ``e = q_ref - q``, ``qd_r = qd_ref + Lambda e``, ``qdd_r = qdd_ref + Lambda de`` and the sliding variable
    ``s = qd_r - qd = de + Lambda e`` (rad/s)::

        tau = M_hat(q) qdd_r + C_hat(q, qd) qd_r + G_hat(q) + K sat(s / phi)

    (eq. ``eq-ch12-smc``), with ``C`` the Christoffel matrix (``Mdot - 2 C`` skew) and ``sat(x) = clip(x, -1, 1)``
    per joint. If ``K_i`` exceeds the model-error torque ``|Delta_i|`` by ``eta`` on every joint,
    ``V = s^T M s / 2`` has ``dV/dt <= -eta sum_i |s_i|`` while every joint is outside its boundary layer
    (``|s_i| > phi_i``; with ``phi = 0``, whenever ``s != 0``). That is a statement about ``V``, not about each
    ``s_i``: with a coupled ``M`` a joint's ``s_i`` can leave its layer even though ``K > |Delta|``, so whether
    ``s`` stays in the layer is to be measured on the run. While ``|s_i| <= phi_i``, ``de_i + lambda_i e_i = s_i``
    and ``|e_i|`` settles below ``phi_i / lambda_i``. ``phi_i = 0`` switches with ``sign(s_i)``: the torque then
    jumps by ``2 K_i`` whenever ``s_i`` changes sign, and a sampled or simulated loop **chatters**: ``s_i`` changes
    sign every few steps, at a rate set by the step (:func:`simulate` evaluates the law at every RK4 stage).
    The law has no internal state; the simulators record the sliding variable as signal ``"s"``.

    Attributes
    ----------
    model : TwoLinkArm
        The controller's model ``M_hat, C_hat, G_hat`` (one arm).
    lam : ndarray, shape (2,)
        ``Lambda`` (1/s), positive.
    k : ndarray, shape (2,)
        Switching gain ``K`` (N m), non-negative.
    phi : ndarray, shape (2,)
        Boundary-layer width (rad/s), non-negative; 0 is the discontinuous ``sign(s)``.
    """

    model: TwoLinkArm
    lam: np.ndarray
    k: np.ndarray
    phi: np.ndarray

    def __post_init__(self):
        _check_arm(self.model, "model", scalar=True)
        object.__setattr__(self, "lam", _sm_gain(self.lam, "lam", strict=True))
        object.__setattr__(self, "k", _sm_gain(self.k, "k", strict=False))
        object.__setattr__(self, "phi", _sm_gain(self.phi, "phi", strict=False))

    def torque(
        self, q: ArrayLike, qd: ArrayLike, q_ref: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike
    ) -> np.ndarray:
        """Joint torques (N m), shape (..., 2), from state and reference (rad, rad/s, rad/s^2; all (..., 2)).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> smc = sliding_mode_controller(arm, lam=10.0, k=2.0, phi=0.1)
        >>> zero = np.zeros(2)
        >>> e = [0.001, -0.1]   # at rest: s = Lambda e = (0.01, -1) rad/s, sat(s / phi) = (0.1, -1)
        >>> np.round(smc.torque(zero, zero, e, zero, zero) - arm.gravity(zero), 6)   # K sat(s / phi)
        array([ 0.2, -2. ])
        """
        args = [
            as_array(v, nm, trailing=(2,))
            for v, nm in zip((q, qd, q_ref, qd_ref, qdd_ref), ("q", "qd", "q_ref", "qd_ref", "qdd_ref"))
        ]
        cols = [x for a in args for x in (a[..., 0], a[..., 1])]
        q1, q2, v1, v2 = cols[:4]
        t1, t2, _ = self._law(q1, q2, v1, v2, [], *cols[4:])
        return np.stack(np.broadcast_arrays(t1, t2), -1)

    _signal = None  # no internal state

    def _state0(self):
        return np.zeros(0)

    def _law(self, q1, q2, v1, v2, xs, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
        # M_hat qdd_r + C_hat(q, qd) qd_r + G_hat: the Slotine-Li regressor at the model's parameters (g folded in)
        s1, s2, row1, row2 = _sliding_rows(self.lam, q1, q2, v1, v2, r1, r2, rd1, rd2, rdd1, rdd2, cs)
        pi = self.model._p
        t1 = sum(y * p for y, p in zip(row1, pi)) + self.k[0] * _switch(s1, self.phi[0])
        t2 = sum(y * p for y, p in zip(row2, pi)) + self.k[1] * _switch(s2, self.phi[1])
        return t1, t2, []


def _sliding_rows(lam, q1, q2, v1, v2, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
    """Sliding variable ``s = e_dot + Lambda e`` and the regressor rows at the reference rates ``qd_r = qd_ref +
    Lambda e``, ``qdd_r = qdd_ref + Lambda e_dot`` (Slotine & Li), shared by the adaptive and sliding-mode laws."""
    lam1, lam2 = lam
    e1, e2 = r1 - q1, r2 - q2
    ed1, ed2 = rd1 - v1, rd2 - v2
    if cs is None:
        cs = (np.cos(q1), np.cos(q2), np.sin(q2), np.cos(q1 + q2))
    row1, row2 = _two_link_regressor_rows(
        *cs, v1, v2, rd1 + lam1 * e1, rd2 + lam2 * e2, rdd1 + lam1 * ed1, rdd2 + lam2 * ed2, 1.0
    )
    return ed1 + lam1 * e1, ed2 + lam2 * e2, row1, row2


def _switch(s, phi):
    """``sat(s / phi)``, or ``sign(s)`` for ``phi = 0``."""
    return np.sign(s) if phi == 0 else np.clip(s / phi, -1.0, 1.0)


def sliding_mode_controller(
    model: TwoLinkArm, *, lam: ArrayLike, k: ArrayLike, phi: ArrayLike = 0.1
) -> SlidingModeController:
    """Build a :class:`SlidingModeController` (robust tracking with a switching term) on a fixed model.

    ``tau = M_hat(q) qdd_r + C_hat(q, qd) qd_r + G_hat(q) + K sat(s / phi)``, ``s = de + Lambda e``
    (eq. ``eq-ch12-smc``). Choose ``K`` above the bound of the model-error torque
    ``|(M - M_hat) qdd_r + (C - C_hat) qd_r + (G - G_hat)|`` along the motion: then ``V = s^T M s / 2`` falls
    while every joint is outside its boundary layer ``|s_i| <= phi_i``. With a coupled ``M`` that does not keep each
    ``s_i`` in its layer; where ``s`` does stay in it (check on the run), the error settles within ``phi / lambda``.

    Parameters
    ----------
    model : TwoLinkArm
        The controller's (possibly wrong) model, one arm.
    lam : float or array_like, shape (2,)
        ``Lambda`` (1/s), positive: on the surface ``s = 0`` the error decays as ``exp(-lambda t)``.
    k : float or array_like, shape (2,)
        Switching gain ``K`` (N m), non-negative (0: no robust term; the law is then the fixed-parameter
        passivity-based feed-forward alone).
    phi : float or array_like, shape (2,)
        Boundary-layer width (rad/s), non-negative. ``phi = 0`` uses ``sign(s)``: a discontinuous torque that
        chatters (``s`` changes sign every few steps once near zero, at a rate set by the simulation or sample
        step); ``phi > 0`` replaces it by the linear ``K s / phi`` inside the layer.

    Returns
    -------
    SlidingModeController

    Raises
    ------
    ValueError
        A gain that is negative (``lam`` not positive), NaN or infinite, a bool, complex, or not a scalar or
        shape (2,); a model that is not one :class:`robokin.dynamics.TwoLinkArm`.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> smc = sliding_mode_controller(arm, lam=10.0, k=5.0, phi=0.05)
    >>> ref = quintic_reference([0, 0], [1, -1], 1.0)
    >>> res = simulate(arm.replace(m2=1.2), smc, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=2.0)   # link 2 heavier
    >>> bool(np.abs(tracking_error(res)[-1]).max() < 0.05 / 10.0)   # within phi / lambda at the end
    True
    >>> sliding_mode_controller(arm, lam=10.0, k=5.0, phi=-0.1)
    Traceback (most recent call last):
    ...
    ValueError: phi must be non-negative, got -0.1
    """
    return SlidingModeController(model, lam, k, phi)


def _tip_matrix(k, name, *, strict):
    """A 2x2 tip gain (stiffness N/m or damping N s/m): a number, a diagonal (2,) or a symmetric (2, 2) matrix,
    positive definite (``strict``) or semidefinite; returned as a read-only (2, 2) array."""
    k = _gain_array(k, name, shapes="a number, two (a diagonal) or a 2x2 matrix")
    if k.shape == ():
        k = k * np.eye(2)
    elif k.shape == (2,):
        k = np.diag(k)
    elif k.shape != (2, 2):
        raise ValueError(f"{name} must be a scalar, shape (2,) (a diagonal) or shape (2, 2), got shape {k.shape}")
    if np.abs(k - k.T).max() > 1e-12 * max(1.0, np.abs(k).max()):
        raise ValueError(f"{name} must be symmetric (a potential field at the tip), got {k.tolist()}")
    lo = float(np.linalg.eigvalsh(k).min())
    if lo <= 0 if strict else lo < 0:
        kind = "positive definite" if strict else "positive semidefinite"
        raise ValueError(f"{name} must be {kind}, got {k.tolist()} (smallest eigenvalue {lo:g})")
    k = k.copy()
    k.setflags(write=False)
    return k


@dataclass(frozen=True, eq=False)
class ImpedanceController:
    """A spring and damper at the tip, without force sensing (build with :func:`impedance_controller`).

    With the tip ``x(q)`` and its Jacobian ``J(q)`` of the controller's model (base x-y frame, m)::

        tau = J(q)^T (K (x_ref - x) - D xdot) + G_hat(q),    xdot = J(q) qd

    (eq. ``eq-ch11-impedance``): task-space PD plus gravity compensation. At rest under a constant tip force ``F``
    the balance is ``J^T (K (x_ref - x) + F) = 0``, so wherever ``J`` is nonsingular the tip sits at
    ``x_ref + K^-1 F``: the static stiffness is ``K`` exactly, in every configuration. The inertia the tip shows is
    the arm's own ``Lambda(q) = J^-T M J^-1``, which changes with ``q``; shaping it as well needs the measured
    force (the full impedance law), which this controller does not use.

    ``q_ref`` (rad) is the configuration whose tip is the set point: it fixes the branch and gives the simulators
    their reference (:meth:`ImpedanceController.hold`); the law itself uses only ``x_ref``.

    Attributes
    ----------
    model : TwoLinkArm
        The controller's model (kinematics for ``x`` and ``J``, ``G_hat``), one arm.
    stiffness : ndarray, shape (2, 2)
        ``K`` (N/m), symmetric positive definite.
    damping : ndarray, shape (2, 2)
        ``D`` (N s/m), symmetric positive semidefinite.
    q_ref : ndarray, shape (2,)
        Joint angles of the set point (rad).
    x_ref : ndarray, shape (2,)
        The set point ``x(q_ref)`` of the model (m).
    gravity : bool
        Whether ``G_hat(q)`` is added (True) or left out.
    """

    model: TwoLinkArm
    stiffness: np.ndarray
    damping: np.ndarray
    q_ref: np.ndarray
    gravity: bool = True
    x_ref: np.ndarray = field(init=False)

    def __post_init__(self):
        _check_arm(self.model, "model", scalar=True)
        object.__setattr__(self, "stiffness", _tip_matrix(self.stiffness, "stiffness", strict=True))
        object.__setattr__(self, "damping", _tip_matrix(self.damping, "damping", strict=False))
        q_ref = as_array(self.q_ref, "q_ref", trailing=(2,))
        if q_ref.shape != (2,):
            raise ValueError(f"q_ref must have shape (2,): one set point, got shape {q_ref.shape}")
        q_ref = q_ref.copy()
        q_ref.setflags(write=False)
        object.__setattr__(self, "q_ref", q_ref)
        object.__setattr__(self, "gravity", flag(self.gravity, "gravity"))
        x_ref = self.model.fk(q_ref)[1].copy()
        x_ref.setflags(write=False)
        object.__setattr__(self, "x_ref", x_ref)

    def hold(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The constant reference ``(q_ref, 0, 0)`` at times ``t`` (s, finite; shape (...) -> (..., 2)), for the
        simulators."""
        z = np.zeros(as_array(t, "t").shape + (2,))
        return z + self.q_ref, z, z.copy()

    def torque(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Joint torques (N m), shape (..., 2), from the joint angles and rates (rad, rad/s; both (..., 2)).

        Examples
        --------
        >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> imp = impedance_controller(arm, stiffness=[500.0, 200.0], damping=50.0, q_ref=[0.3, 1.2])
        >>> zero = np.zeros(2)
        >>> np.allclose(imp.torque(imp.q_ref, zero), arm.gravity(imp.q_ref))   # at the set point, at rest
        True
        """
        q = as_array(q, "q", trailing=(2,))
        qd = as_array(qd, "qd", trailing=(2,))
        q, qd = np.broadcast_arrays(q, qd)
        t1, t2, _ = self._law(q[..., 0], q[..., 1], qd[..., 0], qd[..., 1], [], *([None] * 6))
        return np.stack(np.broadcast_arrays(t1, t2), -1)

    _signal = None  # no internal state

    def _state0(self):
        return np.zeros(0)

    def _law(self, q1, q2, v1, v2, xs, r1, r2, rd1, rd2, rdd1, rdd2, cs=None):
        m = self.model
        a, b, c, d = m._tip_jacobian_entries(q1, q2)  # J = [[a, b], [c, d]]
        ex = self.x_ref[0] - (m.l1 * np.cos(q1) + m.l2 * np.cos(q1 + q2))
        ey = self.x_ref[1] - (m.l1 * np.sin(q1) + m.l2 * np.sin(q1 + q2))
        xd, yd = a * v1 + b * v2, c * v1 + d * v2
        (k11, k12), (_, k22) = self.stiffness
        (d11, d12), (_, d22) = self.damping
        fx = k11 * ex + k12 * ey - d11 * xd - d12 * yd
        fy = k12 * ex + k22 * ey - d12 * xd - d22 * yd
        t1, t2 = a * fx + c * fy, b * fx + d * fy  # J^T f
        if self.gravity:
            g1, g2 = _gravity(m, q1, q2, cs)
            t1, t2 = t1 + g1, t2 + g2
        return t1, t2, []


def impedance_controller(
    model: TwoLinkArm, *, stiffness: ArrayLike, damping: ArrayLike, q_ref: ArrayLike, gravity: bool = True
) -> ImpedanceController:
    """Build an :class:`ImpedanceController`: ``tau = J^T (K (x_ref - x) - D xdot) + G_hat(q)`` at the tip.

    Parameters
    ----------
    model : TwoLinkArm
        The controller's (possibly wrong) model, one arm.
    stiffness : float or array_like, shape (2,) or (2, 2)
        ``K`` (N/m, base x-y frame): a number (isotropic), a diagonal, or a symmetric positive definite matrix.
    damping : float or array_like, shape (2,) or (2, 2)
        ``D`` (N s/m): as ``stiffness``, symmetric positive semidefinite (0: an undamped spring).
    q_ref : array_like, shape (2,)
        Joint angles whose tip (by ``model``) is the set point ``x_ref`` (rad); they also choose the elbow branch.
    gravity : bool
        Add the model's gravity torque ``G_hat(q)`` (default True).

    Returns
    -------
    ImpedanceController

    Raises
    ------
    ValueError
        A gain that is not symmetric, not positive (semi)definite, NaN, infinite, complex, a bool or of another
        shape; ``q_ref`` not of shape (2,) or not finite; ``gravity`` not a bool; a model that is not one
        :class:`robokin.dynamics.TwoLinkArm`.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> imp = impedance_controller(arm, stiffness=400.0, damping=40.0, q_ref=[0.3, 1.2])
    >>> def push(t):   # a constant push at the tip (N)
    ...     return np.zeros(np.shape(t) + (2,)) + [0.0, -8.0]
    >>> res = simulate(arm, imp, q0=imp.q_ref, qd0=[0, 0], ref=imp.hold, t_end=3.0, f_tip=push)
    >>> np.round(arm.fk(res.q[-1])[1] - imp.x_ref, 6) + 0.0   # the tip has moved K^-1 F
    array([ 0.  , -0.02])
    >>> impedance_controller(arm, stiffness=[[400.0, 50.0], [0.0, 400.0]], damping=40.0, q_ref=[0.3, 1.2])
    Traceback (most recent call last):
    ...
    ValueError: stiffness must be symmetric (a potential field at the tip), got [[400.0, 50.0], [0.0, 400.0]]
    """
    return ImpedanceController(model, stiffness, damping, q_ref, gravity)


# ---------------------------------------------------------------------------- simulation
def tracking_error(res: SimResult) -> np.ndarray:
    """Tracking error ``e = q_ref - q`` (rad), shape (B..., K, 2), of a run of :func:`simulate` or :func:`simulate_ivp`.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm, kind="pd", kp=10.0, kd=5.0)
    >>> res = simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 1.0), t_end=1.0)
    >>> bool(np.array_equal(tracking_error(res), res.signals["q_ref"] - res.q))
    True
    """
    if not isinstance(res, SimResult) or "q_ref" not in res.signals:
        raise ValueError("res must be a SimResult from robokin.control.simulate or simulate_ivp (signal 'q_ref')")
    return res.signals["q_ref"] - res.q


def _plant_args(plant, controller, q0, qd0, t_end, dt, fv, fc):
    _check_arm(plant, "plant")
    if not isinstance(controller, (Controller, AdaptiveController, SlidingModeController, ImpedanceController)):
        raise ValueError(
            "controller must be a robokin.control.Controller, AdaptiveController, SlidingModeController or "
            "ImpedanceController, "
            f"got {type(controller).__name__}"
        )
    q0 = as_array(q0, "q0", trailing=(2,))
    qd0 = as_array(qd0, "qd0", trailing=(2,))
    if q0.ndim != 1 or qd0.ndim != 1:
        raise ValueError("q0 and qd0 must have shape (2,): every plant starts from the same state")
    t_end = positive(t_end, "t_end")
    dt = positive(dt, "dt")
    fv, fc = _friction(fv, fc)
    return q0, qd0, t_end, dt, fv, fc


def _batch_shape(plant, fv, fc):
    S = plant.batch_size
    batched = S > 1 or np.ndim(plant.m1) > 0
    for name, f in (("fv", fv), ("fc", fc)):
        ok = f.shape in ((), (2,)) or (batched and f.shape == (S, 2))
        if not ok:
            want = f"a scalar, shape (2,) or shape ({S}, 2)" if batched else "a scalar or shape (2,) for one plant"
            raise ValueError(f"{name} must be {want}; got shape {f.shape}")
    return (S,) if batched else ()


#: Cap on the number of fixed steps of one :func:`simulate` run, and on the plants of one Monte Carlo.
MAX_STEPS = 10**8
MAX_PLANTS = 10**6


def _step_count(t_end, dt, record_every):
    """Number of RK4 steps; the horizon must be a whole number of steps and of recording intervals.

    A step that does not divide the horizon would end the run before or after ``t_end`` while the
    result claims ``t_end`` (and ``dt > t_end`` would take no step at all), so both raise.
    """
    ratio = t_end / dt
    if ratio > MAX_STEPS:
        raise ValueError(
            f"dt = {dt:g} s gives {ratio:.3g} steps over t_end = {t_end:g} s, more than {MAX_STEPS:.0e} "
            "(a cap on time and memory); use a larger dt"
        )
    nsteps = int(round(ratio))
    if nsteps < 1:
        raise ValueError(f"dt = {dt:g} s is longer than the horizon t_end = {t_end:g} s: no step would be taken")
    if abs(ratio - nsteps) > 1e-9 * max(1.0, ratio):
        raise ValueError(
            f"dt = {dt:g} s does not divide t_end = {t_end:g} s into whole steps "
            f"(t_end / dt = {ratio:.6g}); use e.g. dt = {t_end / max(1, int(np.ceil(ratio))):.6g}"
        )
    if nsteps % record_every:
        raise ValueError(
            f"record_every = {record_every} does not divide the {nsteps} steps: the last record would "
            f"not be at t_end; choose a divisor of {nsteps}"
        )
    return nsteps


def _call_force(f_tip, t):
    """Evaluate the tip-force callback at the times ``t`` (shape (K,)): shape (K, 2), finite (N)."""
    function(f_tip, "f_tip")
    F = np.asarray(f_tip(t))
    if F.dtype.kind not in "iuf" or F.shape != np.shape(t) + (2,):
        raise ValueError(
            f"f_tip(t) must return real forces of shape {np.shape(t) + (2,)} (N), got {F.dtype} of shape {F.shape}"
        )
    F = F.astype(float)
    bad = ~np.isfinite(F).all(axis=-1)
    if bad.any():
        k = np.flatnonzero(bad)[0]
        raise ValueError(f"f_tip(t) returned a non-finite force ({F[k].tolist()}) at t = {np.ravel(t)[k]:.6g} s")
    return F


def _call_ref(ref, t):
    """Evaluate the reference callback at the times ``t`` (shape (K,)) and fail fast on bad output."""
    out = ref(t)
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        raise ValueError("ref(t) must return a tuple (q_ref, qd_ref, qdd_ref)")
    R = [np.asarray(x, dtype=float) for x in out]
    want = np.shape(t) + (2,)
    if any(x.shape != want for x in R):
        raise ValueError(f"ref(t) must return three arrays of shape {want}, got {[x.shape for x in R]}")
    for x, nm in zip(R, ("q_ref", "qd_ref", "qdd_ref")):
        bad = ~np.isfinite(x)
        if bad.any():
            k = np.flatnonzero(bad.any(axis=-1))[0]
            raise ValueError(f"ref(t) returned a non-finite {nm} ({x[k].tolist()}) at t = {np.ravel(t)[k]:.6g} s")
    return R


def simulate(
    plant: TwoLinkArm,
    controller: Controller | AdaptiveController | SlidingModeController | ImpedanceController,
    *,
    q0: ArrayLike,
    qd0: ArrayLike,
    ref: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
    t_end: float,
    dt: float = 1e-3,
    fv: ArrayLike = 0.0,
    fc: ArrayLike = 0.0,
    v_eps: ArrayLike = V_EPS,
    record_every: int = 10,
    f_tip: Callable[[np.ndarray], np.ndarray] | None = None,
) -> SimResult:
    """Closed-loop simulation with fixed-step RK4, vectorised across a batch of plants.

    Parameters
    ----------
    plant : TwoLinkArm
        True arm; batched parameters (length S) simulate S arms at once.
    controller : Controller, AdaptiveController or SlidingModeController
        Control law with the (possibly wrong) model; an :class:`AdaptiveController` carries its parameter
        estimate as internal state (a :class:`SlidingModeController` has none).
    q0, qd0 : array_like, shape (2,)
        Initial state shared by all plants (rad, rad/s).
    ref : callable
        ``ref(t) -> (q_ref, qd_ref, qdd_ref)``, vectorised over ``t`` (shape (...) -> (..., 2)),
        e.g. :func:`quintic_reference`.
    t_end, dt : float
        Duration and step (s); ``dt`` must divide ``t_end`` into a whole number of steps (else
        ``ValueError``: the run would not end at ``t_end``). The reference is sampled at the RK4
        stage times and must be finite there (else ``ValueError``).
    fv, fc : float or array_like, shape (2,) or (S, 2)
        True viscous / Coulomb friction (unknown to the controller).
    v_eps : float or array_like, shape (S,)
        Smoothing speed of the plant's Coulomb term ``fc * tanh(qd / v_eps)`` (rad/s), a finite number > 0 and at
        most 1e12 (else ``ValueError`` naming ``v_eps``), or one such number per plant of a batch of S (so that
        runs with different smoothings share one integration); the default is ``V_EPS`` = 0.01 rad/s. Neither extreme
        is refused; both are documented here. Near ``qd = 0`` the term is a damper of slope ``fc / v_eps``, so a
        small ``v_eps`` makes the ODE stiff, and a step beyond RK4's stability limit for that slope
        (:func:`robokin.sim.step_limit` of the closed loop linearised at rest) is not detected: the ``tanh``
        saturates, so the state stays bounded and ``stable`` True while the rates near rest chatter with an
        amplitude that scales with ``dt`` instead of settling (check by shrinking ``dt``). A ``v_eps`` far above
        the joint rates turns the Coulomb term into a weak viscous one (slope ``fc / v_eps``): Coulomb friction
        all but vanishes. An :class:`AdaptiveController`'s friction regressor keeps ``V_EPS``.
    record_every : int
        Keep every k-th step (memory: S x K x 6 floats); must divide the number of steps, so that the
        last record is the state at ``t_end``.
    f_tip : callable, optional
        ``f_tip(t) -> F`` (shape (...) -> (..., 2)): an external force at the tip (N, base x-y frame, no moment),
        e.g. a push or a contact, vectorised over ``t`` and sampled at the RK4 stage times like ``ref`` (finite
        there, else ``ValueError``). It loads the joints with ``J(q)^T F``, ``J`` the plant's tip Jacobian
        (:meth:`robokin.dynamics.TwoLinkArm.jacobian`).

    Returns
    -------
    robokin.results.SimResult
        ``t`` (K,), ``q``, ``qd`` (B..., K, 2); ``u`` (B..., K, 2): the controller's torque at the recorded
        states (N m, before friction); ``stable`` (B...): finite state throughout and never more than pi from the
        reference (whether and when it settles is measured by :func:`tracking_metrics` and :func:`converged`);
        ``signals["q_ref"]`` (K, 2): the reference (rad); ``signals["z"]`` (B..., K, 2): the error integral (rad s),
        or, for an :class:`AdaptiveController`, ``signals["theta_hat"]`` (B..., K, p): the parameter estimate, or,
        for a :class:`SlidingModeController`, ``signals["s"]`` (B..., K, 2): the sliding variable ``de + Lambda e``
        (rad/s).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
    >>> res = simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 1.0), t_end=2.0)
    >>> bool(np.abs(tracking_error(res)).max() < 1e-6)   # exact model: tracking is exact
    True
    >>> simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 1.0), t_end=1.0, dt=10.0)
    Traceback (most recent call last):
    ...
    ValueError: dt = 10 s is longer than the horizon t_end = 1 s: no step would be taken
    """
    q0, qd0, t_end, dt, fv, fc = _plant_args(plant, controller, q0, qd0, t_end, dt, fv, fc)
    if not callable(ref) or isinstance(ref, type):
        raise ValueError("ref must be a callable t -> (q_ref, qd_ref, qdd_ref)")
    record_every = count(record_every, "record_every", max=MAX_STEPS)
    shape = _batch_shape(plant, fv, fc)
    v_eps = _v_eps(v_eps, shape)
    nsteps = _step_count(t_end, dt, record_every)
    th = np.arange(2 * nsteps + 1) * (dt / 2)
    R = _call_ref(ref, th)
    rc = [R[0][:, 0], R[0][:, 1], R[1][:, 0], R[1][:, 1], R[2][:, 0], R[2][:, 1]]
    F = None if f_tip is None else _call_force(f_tip, th)
    fv = np.broadcast_to(fv, shape + (2,))
    fc = np.broadcast_to(fc, shape + (2,))
    fv1, fv2, fc1, fc2 = fv[..., 0], fv[..., 1], fc[..., 0], fc[..., 1]

    def f(x, k, u=None):
        """State derivative at stage time index k; the controller's torque is also written to u if given."""
        q1, q2, v1, v2 = x[:4]
        r = [c[k] for c in rc]
        cs = (np.cos(q1), np.cos(q2), np.sin(q2), np.cos(q1 + q2))  # shared by controller and plant
        t1, t2, dxs = controller._law(q1, q2, v1, v2, x[4:], *r, cs=cs)
        if u is not None:
            u[0], u[1] = t1, t2
        t1 = t1 - smoothed_friction(v1, fv1, fc1, v_eps)
        t2 = t2 - smoothed_friction(v2, fv2, fc2, v_eps)
        if F is not None:  # J^T F of the plant's tip
            ja, jb, jc, jd = plant._tip_jacobian_entries(q1, q2)
            t1, t2 = t1 + ja * F[k, 0] + jc * F[k, 1], t2 + jb * F[k, 0] + jd * F[k, 1]
        a1, a2 = plant._accel(q1, q2, v1, v2, t1, t2, cs=cs)
        out = np.empty_like(x)
        for i, row in enumerate((v1, v2, a1, a2, *dxs)):
            out[i] = row  # rows broadcast to the batch shape
        return out

    x0 = np.r_[q0, qd0, controller._state0()]
    x = np.empty((x0.size,) + shape)
    for i, v in enumerate(x0):
        x[i] = v
    K = nsteps // record_every + 1
    rec = np.empty((K, x0.size) + shape)
    u_rec = np.empty((K, 2) + shape)  # the controller's torque at each recorded state: the first stage's
    rec[0] = x
    h2, h6 = 0.5 * dt, dt / 6
    with np.errstate(all="ignore"):  # a diverging sample turns into inf/NaN and is flagged, not raised
        for n in range(nsteps):
            k0 = 2 * n
            k1 = f(x, k0, None if n % record_every else u_rec[n // record_every])
            k2 = f(x + h2 * k1, k0 + 1)
            k3 = f(x + h2 * k2, k0 + 1)
            k4 = f(x + dt * k3, k0 + 2)
            x = x + h6 * (k1 + 2 * (k2 + k3) + k4)
            if (n + 1) % record_every == 0:
                rec[(n + 1) // record_every] = x
        f(x, 2 * nsteps, u_rec[-1])  # the torque at the final state (its derivative is not needed)
    rec = np.moveaxis(rec, 0, -1)  # (6, B..., K)
    idx = np.arange(K) * record_every
    t = idx * dt
    return _result(controller, t, rec, [x[2 * idx] for x in R], u=np.moveaxis(u_rec, (0, 1), (-2, -1)))


def _v_eps(v_eps, shape):
    """The Coulomb smoothing speed(s) of :func:`simulate`: a positive scalar, or one per plant of the batch."""
    try:
        scalar = np.ndim(v_eps) == 0
    except ValueError:  # a ragged list: as_array below names v_eps
        scalar = False
    if scalar:
        return positive(v_eps, "v_eps")
    v = as_array(v_eps, "v_eps")
    if v.shape != shape:
        raise ValueError(f"v_eps must be a scalar or one value per plant, shape {shape}; got shape {v.shape}")
    if not (np.all(v > 0) and np.all(v <= MAX_ABS)):
        bad = v[~((v > 0) & (v <= MAX_ABS))][0]
        raise ValueError(f"v_eps must be positive finite numbers, at most {MAX_ABS:g} (SI units); got {bad!r}")
    return v


def _result(controller, t, rec, R, u=None):
    """The :class:`SimResult` of a run: ``rec`` (4 + states, B..., K) recorded states, ``R`` the reference at ``t``;
    ``u`` (B..., K, 2) the controller's torque at those states if the integrator kept it, else it is evaluated here."""
    q = np.moveaxis(rec[0:2], 0, -1)
    qd = np.moveaxis(rec[2:4], 0, -1)
    z = np.moveaxis(rec[4:], 0, -1)
    q_ref = R[0]
    with np.errstate(all="ignore"):
        finite = np.all(np.isfinite(rec), axis=(0, -1))
        max_err = np.abs(q_ref - q).max(axis=(-2, -1))
        stable = finite & (max_err < np.pi)
        if u is None:
            refs = [x[:, j] for x in R for j in (0, 1)]  # (K,) each, broadcast against (B..., K)
            u = np.stack(controller._law(*rec[:4], rec[4:], *refs)[:2], -1)  # the law at the recorded states
    signals = {"q_ref": q_ref}
    if controller._signal is not None:
        signals[controller._signal] = z
    if isinstance(controller, SlidingModeController):  # stateless: record its sliding variable s = de + Lambda e
        signals["s"] = (R[1] - qd) + controller.lam * (q_ref - q)
    return SimResult(t=t, q=q, qd=qd, u=u, stable=np.asarray(stable), signals=signals)


def simulate_ivp(
    plant: TwoLinkArm,
    controller: Controller | AdaptiveController | SlidingModeController | ImpedanceController,
    *,
    q0: ArrayLike,
    qd0: ArrayLike,
    ref: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
    t_end: float,
    t_eval: ArrayLike,
    fv: ArrayLike = 0.0,
    fc: ArrayLike = 0.0,
    v_eps: float = V_EPS,
    rtol: float = 1e-10,
    atol: float = 1e-10,
    method: str = "DOP853",
    max_nfev: int = 2_000_000,
    f_tip: Callable[[np.ndarray], np.ndarray] | None = None,
) -> SimResult:
    """Reference simulation of ONE plant with adaptive ``scipy.integrate.solve_ivp``.

    Same model as :func:`simulate` (used to validate it and as the per-sample baseline of the
    benchmark). ``t_eval`` (s) are the recorded times: a non-empty increasing 1-D array (at most 10**6 entries)
    within ``[0, t_end]``. Returns a :class:`robokin.results.SimResult` with the same fields and signals as
    :func:`simulate`. ``v_eps`` (rad/s) is the plant's Coulomb smoothing speed, as in :func:`simulate`; a small one
    makes the ODE stiff (an explicit ``method`` then needs many steps: use ``method="Radau"``, or the guard below
    raises). ``f_tip`` is the external tip force of :func:`simulate` (N), called with a time array of one entry.

    The integration is guarded (``robokin._validate.solve_ivp_guarded``): ``rtol`` must lie in
    ``[100 eps, 0.1]`` and ``atol`` in ``(0, 1]``; more than ``max_nfev`` right-hand-side evaluations, a
    non-finite derivative or a solver failure (e.g. ``atol=1e-300``, which no step can meet) raise
    :class:`~robokin.errors.IntegrationError`.

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm.replace(m2=1.1), kind="pd_gravity", kp=50.0, kd=10.0)
    >>> ref = quintic_reference([0, 0], [1, -1], 1.0)
    >>> a = simulate_ivp(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, t_eval=[0.5, 1.0])
    >>> b = simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=ref, t_end=1.0, record_every=500)
    >>> bool(np.abs(a.q - b.q[1:]).max() < 1e-8)
    True
    """
    q0, qd0, t_end, dt, fv, fc = _plant_args(plant, controller, q0, qd0, t_end, 1.0, fv, fc)
    v_eps = positive(v_eps, "v_eps")
    _check_arm(plant, "plant", scalar=True)
    rtol, atol, method = ivp_options(rtol, atol, method)
    max_nfev = count(max_nfev, "max_nfev")
    t_eval = as_array(t_eval, "t_eval")
    if t_eval.ndim != 1 or not 1 <= t_eval.size <= 10**6:
        raise ValueError(f"t_eval must be a 1-D array of 1 to 10**6 recording times (s), got shape {t_eval.shape}")
    if np.any(np.diff(t_eval) <= 0) or t_eval[0] < 0 or t_eval[-1] > t_end:
        raise ValueError(f"t_eval must increase strictly within [0, t_end = {t_end:g}] s")
    for nm, f in (("fv", fv), ("fc", fc)):
        if f.shape not in ((), (2,)):
            raise ValueError(f"{nm} must be a scalar or shape (2,) for one plant; got shape {f.shape}")
    fv = np.broadcast_to(fv, (2,))
    fc = np.broadcast_to(fc, (2,))

    function(ref, "ref")
    _call_ref(ref, t_eval)  # fail fast before integrating
    if f_tip is not None:
        _call_force(f_tip, t_eval)

    def rhs(t, x):
        qr, qdr, qddr = ref(t)
        if not (np.all(np.isfinite(qr)) and np.all(np.isfinite(qdr)) and np.all(np.isfinite(qddr))):
            raise ValueError(f"ref(t) returned a non-finite value at t = {t:.6g} s")
        t1, t2, dxs = controller._law(*x[:4], x[4:], qr[0], qr[1], qdr[0], qdr[1], qddr[0], qddr[1])
        tau = np.array([t1, t2]) - smoothed_friction(x[2:4], fv, fc, v_eps)
        if f_tip is not None:  # J^T F of the plant's tip
            tau = tau + plant.jacobian(x[:2]).T @ _call_force(f_tip, np.array([t]))[0]
        qdd = plant._accel(x[0], x[1], x[2], x[3], tau[0], tau[1])
        return np.r_[x[2:4], qdd, dxs]

    x0 = np.r_[q0, qd0, controller._state0()]
    sol = solve_ivp_guarded(
        rhs,
        (0.0, t_end),
        x0,
        name="simulate_ivp",
        max_nfev=max_nfev,
        method=method,
        rtol=rtol,
        atol=atol,
        t_eval=t_eval,
    )
    rec = sol.y.reshape(x0.size, -1)
    return _result(controller, sol.t, rec, [np.asarray(x, dtype=float) for x in ref(sol.t)])


# ---------------------------------------------------------------------------- error prediction
def steady_state_error(plant: TwoLinkArm, controller: Controller, q_ref: ArrayLike) -> np.ndarray:
    """Predicted steady-state error ``e_ss = q_ref - q`` at rest, for a set-point ``q_ref`` (rad), shape (2,).

    At rest (``qd = 0``, ``qdd = 0``, friction zero) the closed loop balances
    ``G(q) = tau(q)``: for ``pd`` ``Kp e = G(q)``, for ``pd_gravity`` ``Kp e = G(q) - G_hat(q)``,
    for ``computed_torque`` ``M_hat(q) Kp e = G(q) - G_hat(q)``, with ``q = q_ref - e``. The
    nonlinear equation is solved with ``scipy.optimize.root``. With integral action (``ki > 0``)
    the equilibrium has ``e = 0`` (the integral state absorbs the mismatch).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm, kind="pd_gravity", kp=100.0, kd=20.0)
    >>> np.round(steady_state_error(arm, ctl, [0.3, 0.2]), 12) + 0.0   # exact model: no error
    array([0., 0.])
    """
    from scipy.optimize import root

    _check_arm(plant, "plant", scalar=True)
    if not isinstance(controller, Controller):
        raise ValueError(f"controller must be a robokin.control.Controller, got {type(controller).__name__}")
    q_ref = as_array(q_ref, "q_ref", trailing=(2,))
    if q_ref.ndim != 1:
        raise ValueError("q_ref must have shape (2,)")
    if np.any(controller.ki > 0):
        return np.zeros(2)
    if np.any(controller.kp <= 0):
        raise ValueError("a steady state needs kp > 0 on both joints")
    zero = np.zeros(2)

    def residual(e):
        q = q_ref - e
        tau = controller.torque(q, zero, zero, q_ref, zero, zero)
        return tau - plant.gravity(q)

    sol = root(residual, zero, tol=1e-13)
    if np.max(np.abs(residual(sol.x))) > 1e-9:
        from .errors import ConvergenceError

        raise ConvergenceError(float(np.max(np.abs(residual(sol.x)))), int(sol.nfev), "steady_state_error")
    return sol.x


# ---------------------------------------------------------------------------- Monte Carlo
def sample_arms(
    nominal: TwoLinkArm, n: int, *, rng: np.random.Generator, rel: float = 0.1, fv_max: float = 0.5, fc_max: float = 0.3
) -> tuple[TwoLinkArm, np.ndarray, np.ndarray]:
    """Sample ``n`` perturbed arms around ``nominal`` for a Monte Carlo.

    Masses, centre-of-mass distances and inertias are scaled by independent factors
    ``U(1 - rel, 1 + rel)``; link lengths are kept (they are measured well). Friction is
    ``fv ~ U(0, fv_max)`` (N m s/rad) and ``fc ~ U(0, fc_max)`` (N m) per joint.

    Returns
    -------
    arms : TwoLinkArm with parameters of shape (n,)
    fv, fc : ndarray, shape (n, 2)

    Examples
    --------
    >>> nom = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> arms, fv, fc = sample_arms(nom, 100, rng=np.random.default_rng(0))
    >>> arms.batch_size, fv.shape, bool(np.all(np.abs(arms.m1 / nom.m1 - 1) <= 0.1))
    (100, (100, 2), True)
    """
    _check_arm(nominal, "nominal", scalar=True)
    n = count(n, "n", minimum=2, max=MAX_PLANTS)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator (seeded), e.g. np.random.default_rng(0)")
    rel = finite_scalar(rel, "rel")
    if not 0 <= rel < 1:
        raise ValueError(f"rel must be in [0, 1), got {rel}")
    for v, nm in ((fv_max, "fv_max"), (fc_max, "fc_max")):
        if finite_scalar(v, nm) < 0:
            raise ValueError(f"{nm} must be non-negative, got {v}")
    scaled = {k: getattr(nominal, k) * rng.uniform(1 - rel, 1 + rel, n) for k in ("m1", "m2", "lc1", "lc2", "I1", "I2")}
    arms = nominal.replace(**scaled, l1=np.full(n, nominal.l1), l2=np.full(n, nominal.l2))
    return arms, rng.uniform(0, fv_max, (n, 2)), rng.uniform(0, fc_max, (n, 2))


def tracking_metrics(res: SimResult, *, q_start: ArrayLike, band: float = 0.02) -> dict[str, np.ndarray]:
    """Per-run metrics of a set-point move: max error, overshoot, settling time, final error.

    Parameters
    ----------
    res : SimResult
    q_start : array_like, shape (2,)
        Start of the move; the step is ``q_goal - q_start`` with ``q_goal = res.signals["q_ref"][-1]``.
    band : float
        Settling band as a fraction of the step size per joint.

    Returns
    -------
    dict of ndarray, each shape (B...):
        ``max_error`` (rad, max over time and joints of ``|e|``), ``overshoot`` (fraction of the step,
        largest over joints, 0 if none), ``settling_time`` (s, first time after which every joint stays
        within ``band * |step|`` of its own final value; ``inf`` for unstable runs), ``final_error``
        (rad, ``max |q_goal - q(t_end)|``, the steady-state error).

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
    >>> res = simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 1.0), t_end=2.0)
    >>> m = tracking_metrics(res, q_start=[0, 0])
    >>> float(m["overshoot"]) < 1e-9 and float(m["settling_time"]) < 1.0
    True
    """
    e = tracking_error(res)
    q_start = as_array(q_start, "q_start", trailing=(2,))
    if q_start.shape != (2,):
        raise ValueError(f"q_start must have shape (2,), got {q_start.shape}")
    band = positive(band, "band")
    goal = res.signals["q_ref"][-1]
    step = goal - q_start
    if np.any(np.abs(step) < 1e-9):
        raise ValueError("tracking_metrics needs a non-zero step on both joints: q_start equals the goal")
    with np.errstate(invalid="ignore"):
        err = np.abs(e)
        max_error = np.max(np.where(np.isfinite(err), err, np.inf), axis=(-2, -1))
        beyond = (res.q - goal) * np.sign(step)  # > 0: past the goal
        overshoot = np.max(np.clip(beyond / np.abs(step), 0, None), axis=(-2, -1))
        # settling is judged against the run's own final value (a steady-state error is reported separately)
        outside = np.abs(res.q - res.q[..., -1:, :]) > band * np.abs(step)
        outside = outside.any(axis=-1)  # (B..., K)
        last = res.t.size - 1 - np.argmax(outside[..., ::-1], axis=-1)
        settling = np.where(outside.any(axis=-1), res.t[np.minimum(last + 1, res.t.size - 1)], 0.0)
        settling = np.where(res.stable, settling, np.inf)
        final = np.abs(res.q[..., -1, :] - goal).max(axis=-1)
    overshoot = np.where(np.isfinite(overshoot), overshoot, np.inf)
    final = np.where(np.isfinite(final), final, np.inf)
    return {"max_error": max_error, "overshoot": overshoot, "settling_time": settling, "final_error": final}


def converged(res: SimResult, *, tol: float, hold: float) -> np.ndarray:
    """Runs that end *settled*: finite throughout and ``|e| < tol`` on both joints for the last ``hold`` seconds.

    Stricter than ``res.stable`` (bounded, within pi of the reference): a run that stays bounded but
    keeps oscillating, drifts, or creeps towards the goal too slowly fails it.

    Parameters
    ----------
    res : SimResult
    tol : float
        Error bound (rad).
    hold : float
        Length of the final window (s), at most the recorded horizon.

    Returns
    -------
    ndarray of bool, shape (B...)

    Examples
    --------
    >>> arm = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)
    >>> res = simulate(arm, ctl, q0=[0, 0], qd0=[0, 0], ref=quintic_reference([0, 0], [1, -1], 1.0), t_end=2.0)
    >>> bool(converged(res, tol=1e-3, hold=0.5))
    True
    """
    e = tracking_error(res)
    tol = positive(tol, "tol")
    hold = positive(hold, "hold")
    span = res.t[-1] - res.t[0]
    if hold > span:
        raise ValueError(f"hold = {hold:g} s is longer than the recorded horizon ({span:g} s)")
    window = res.t >= res.t[-1] - hold - 1e-12
    with np.errstate(invalid="ignore"):
        err = np.abs(e[..., window, :])
        ok = np.all(np.isfinite(err), axis=(-2, -1)) & np.all(err < tol, axis=(-2, -1))
    return np.asarray(ok & res.stable)


@dataclass(frozen=True, eq=False)
class MonteCarloResult:
    """Outcome of :func:`monte_carlo`: the sampled arms and friction, the runs and their metrics."""

    arms: TwoLinkArm
    fv: np.ndarray
    fc: np.ndarray
    sim: SimResult
    metrics: dict

    @property
    def stability_rate(self) -> float:
        """Fraction of bounded runs (finite, never more than pi from the reference; ``SimResult.stable``)."""
        return float(np.mean(self.sim.stable))


def monte_carlo(
    nominal: TwoLinkArm,
    controller: Controller | AdaptiveController | SlidingModeController | ImpedanceController,
    *,
    n: int,
    rng: np.random.Generator,
    q0: ArrayLike,
    qf: ArrayLike,
    t_move: float,
    t_end: float,
    dt: float = 1e-3,
    rel: float = 0.1,
    fv_max: float = 0.5,
    fc_max: float = 0.3,
    record_every: int = 10,
) -> MonteCarloResult:
    """Dynamics Monte Carlo: ``n`` perturbed plants, one vectorised RK4 run, metrics per run.

    The controller keeps the nominal model; each plant is sampled by :func:`sample_arms`; the
    reference is a quintic from ``q0`` to ``qf`` in ``t_move`` seconds, then held until ``t_end``.

    Examples
    --------
    >>> nom = TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> ctl = tracking_controller(nom, kind="computed_torque", kp=100.0, kd=20.0)
    >>> mc = monte_carlo(nom, ctl, n=20, rng=np.random.default_rng(1), q0=[0, 0], qf=[1, -1],
    ...                  t_move=1.0, t_end=2.0)
    >>> mc.stability_rate, mc.metrics["max_error"].shape
    (1.0, (20,))
    """
    q0 = as_array(q0, "q0", trailing=(2,))
    qf = as_array(qf, "qf", trailing=(2,))
    t_move = tolerance(t_move, "t_move", min=1e-6, max=MAX_ABS)
    if qf.shape != (2,) or np.any(np.abs(qf - q0) < 1e-9):
        raise ValueError(f"qf must have shape (2,) and differ from q0 on both joints, got {qf.tolist()}")
    arms, fv, fc = sample_arms(nominal, n, rng=rng, rel=rel, fv_max=fv_max, fc_max=fc_max)
    sim = simulate(
        arms,
        controller,
        q0=q0,
        qd0=np.zeros(2),
        ref=quintic_reference(q0, qf, t_move),
        t_end=t_end,
        dt=dt,
        fv=fv,
        fc=fc,
        record_every=record_every,
    )
    return MonteCarloResult(arms, fv, fc, sim, tracking_metrics(sim, q_start=q0))
