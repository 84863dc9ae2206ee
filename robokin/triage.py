"""Divergence triage for MuJoCo simulations: the practitioners' procedure as a checked function (issue 32).

When a multibody simulation blows up, teams run the same three checks by hand: shrink the step — does the
divergence move? Is a joint turning faster than it physically can (the "more than 0.1 rad per 1 ms step" rule)?
Which joint explodes first? :func:`divergence_triage` runs one simulation per step size and answers all three:

* **numerical** — the run diverges at a larger step and not at the smallest one: the step is too large for the
  stiffest element (a stiff servo, a soft-constraint loop closure, a contact); shrink the step, use an implicit
  integrator or soften the element.
* **physical** — every step size diverges at the same simulated time (within ``t_tol``): the model or the controller
  drives the blow-up (a sign error, an unstable gain, energy injected); a smaller step will not help.
* **inconclusive** — every run diverges, at times that move with the step: shrink further.
* **stable** — no run diverges.

A run counts as diverged at the first MuJoCo step after which the state is not finite, MuJoCo reports a bad
acceleration, ``|qacc|`` exceeds ``max_qacc``, or a joint speed ``|qvel|`` exceeds ``max_rate`` (default 100 rad/s
or m/s: the practitioners' 0.1 rad per 1 ms step, as a speed, so the test does not itself change with the step).

Examples
--------
>>> import numpy as np
>>> from robokin.robots import FIVEBAR
>>> from robokin import sim
>>> q0 = sim.fivebar_qpos(FIVEBAR, FIVEBAR.ik([0.035, -0.12]).q)
>>> def make(dt):   # a very stiff motor servo, explicit Euler
...     return sim.fivebar_model(FIVEBAR, masses=(0.05, 0.08, 0.05, 0.08), kp=2000.0, kv=0.0, timestep=dt,
...                              integrator="Euler")
>>> def init(model, data):
...     data.qpos[:] = q0
>>> hold = lambda t, data: q0[[0, 2]]   # command the starting motor angles
>>> tri = divergence_triage(make, hold, t_end=0.2, rate=1000.0, timesteps=(1e-3, 5e-4), init=init)
>>> tri.verdict, [bool(np.isfinite(r.t_diverge)) for r in tri.runs]
('numerical', [True, False])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._validate import positive
from .sim import require_mujoco, run_controller

__all__ = ["DivergenceRun", "Triage", "divergence_triage", "VERDICTS"]

#: The possible verdicts of :func:`divergence_triage`.
VERDICTS = ("stable", "numerical", "physical", "inconclusive")
_MAX_RUNS = 8


@dataclass(frozen=True)
class DivergenceRun:
    """One simulation of the triage.

    Attributes
    ----------
    timestep : float
        MuJoCo step (s).
    t_diverge : float
        Simulated time of the first diverged step (s); NaN if the run did not diverge.
    joint : str
        Name of the joint whose speed was largest at that step ("" if none diverged or the joint is unnamed).
    reason : str
        ``"non-finite"``, ``"bad acceleration"`` (MuJoCo's warning or ``|qacc| > max_qacc``), ``"speed"``
        (``|qvel| > max_rate``) or ``""``.
    max_step_jump : float
        Largest change of a hinge or slide joint in one step before divergence (rad or m): the practitioners'
        "jumping by more than 0.1 rad per step" number.
    """

    timestep: float
    t_diverge: float
    joint: str
    reason: str
    max_step_jump: float

    @property
    def diverged(self) -> bool:
        return bool(np.isfinite(self.t_diverge))


@dataclass(frozen=True)
class Triage:
    """Result of :func:`divergence_triage`: one :class:`DivergenceRun` per step size (largest first) and a verdict."""

    runs: tuple[DivergenceRun, ...]
    verdict: Literal["stable", "numerical", "physical", "inconclusive"]
    message: str


def _scalar_joint_qpos(model):
    """qpos addresses and names of the hinge and slide joints (the ones whose angle can 'jump')."""
    mujoco = require_mujoco()
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    adr = [int(model.jnt_qposadr[j]) for j in range(model.njnt) if int(model.jnt_type[j]) in kinds]
    return np.array(adr, dtype=int)


def _one_run(make_model, controller, init, dt, t_end, rate, max_rate, max_qacc):
    mujoco = require_mujoco()
    model = make_model(dt)
    if not isinstance(model, mujoco.MjModel):
        raise ValueError(f"make_model({dt:g}) must return a mujoco.MjModel, got {type(model).__name__}")
    if not np.isclose(model.opt.timestep, dt, rtol=1e-12, atol=0):
        raise ValueError(f"make_model({dt:g}) returned a model with timestep {model.opt.timestep:g}: it must use dt")
    data = mujoco.MjData(model)
    if init is not None:
        init(model, data)
    adr = _scalar_joint_qpos(model)

    def step_record(t, d):
        return np.concatenate([d.qpos[adr], d.qvel])

    with np.errstate(all="ignore"):
        res = run_controller(
            model,
            data,
            controller,
            t_end=t_end,
            rate=rate,
            max_qacc=max_qacc,
            step_record=step_record,
            on_diverge="stop",
        )
    rec = res.signals["step_record"]
    times = res.signals["step_t"]
    q, v = rec[:, : adr.size], rec[:, adr.size :]
    fast = ~np.all(np.abs(v) <= max_rate, axis=1)  # NaN counts as too fast
    k = int(np.argmax(fast)) if fast.any() else None
    reason, t_div, joint = "", float("nan"), ""
    if k is not None:
        t_div, reason = float(times[k]), "speed"
        vk = np.nan_to_num(np.abs(v[k]), nan=np.inf)
        joint = model.joint(int(model.dof_jntid[int(np.argmax(vk))])).name
        if not np.all(np.isfinite(v[k])):
            reason = "non-finite"
    elif not bool(res.stable):  # run_controller stopped: the step after the last record diverged
        t_div = float(times[-1] + dt) if times.size else float(dt)
        reason = "bad acceleration"
    upto = q if k is None else q[: k + 1]
    jumps = np.abs(np.diff(upto, axis=0)) if upto.shape[0] > 1 else np.zeros((1, adr.size))
    jump = float(np.nanmax(jumps)) if jumps.size and np.isfinite(jumps).any() else 0.0
    return DivergenceRun(float(dt), t_div, joint, reason, jump)


def divergence_triage(
    make_model: Callable[[float], Any],
    controller: Callable[[float, Any], ArrayLike],
    *,
    t_end: float,
    rate: float,
    timesteps: ArrayLike,
    init: Callable[[Any, Any], None] | None = None,
    max_rate: float = 100.0,
    max_qacc: float = 1e8,
    t_tol: float | None = None,
) -> Triage:
    """Run the same simulation at several step sizes and classify a divergence (see the module docstring).

    Parameters
    ----------
    make_model : callable ``dt -> mujoco.MjModel``
        Builds the model with MuJoCo step ``dt`` (s); everything else must be the same for every ``dt``.
    controller : callable ``(t, data) -> array (nu,)``
        As in :func:`robokin.sim.run_controller`, called at ``rate`` and held between ticks.
    t_end : float, keyword-only
        Simulated duration of each run (s).
    rate : float, keyword-only
        Controller rate (Hz); ``1 / rate`` must be a whole number of every timestep.
    timesteps : array_like, keyword-only
        2 to 8 distinct positive step sizes (s), in any order; the runs are reported largest first.
    init : callable ``(model, data) -> None``, optional, keyword-only
        Sets the initial state (``data.qpos``, ``data.qvel``, ...) of each run.
    max_rate : float, keyword-only
        Joint speed (rad/s or m/s) above which a run counts as diverged.
    max_qacc : float, keyword-only
        Joint acceleration above which MuJoCo's state counts as diverged (as in ``run_controller``).
    t_tol : float, optional, keyword-only
        Two divergence times count as "the same" when they differ by at most this (s); default 5 % of the earliest
        divergence time. A divergence is seen at a step boundary, so one within about 20 steps of the start reads
        as "inconclusive" rather than "physical" at the default: shrink the steps and run again.

    Returns
    -------
    Triage

    Raises
    ------
    ValueError
        Fewer than 2 or more than 8 step sizes, repeated or non-positive ones, a step that does not divide the
        control period, non-callable arguments, ``make_model`` returning something else than a model with that
        step, or a controller returning NaN/inf or the wrong shape (from ``run_controller``).
    """
    if not callable(make_model):
        raise ValueError("make_model must be a callable dt -> mujoco.MjModel")
    if not callable(controller):
        raise ValueError("controller must be a callable (t, data) -> actuator inputs")
    if init is not None and not callable(init):
        raise ValueError("init must be None or a callable (model, data) -> None")
    t_end, rate = positive(t_end, "t_end"), positive(rate, "rate")
    max_rate = positive(max_rate, "max_rate", max_abs=None)
    max_qacc = positive(max_qacc, "max_qacc", max_abs=None)
    if t_tol is not None:
        t_tol = positive(t_tol, "t_tol", max_abs=None)
    try:
        steps = np.asarray(timesteps, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"timesteps must be 2 to {_MAX_RUNS} positive step sizes (s), got {timesteps!r}") from None
    if steps.ndim != 1 or not 2 <= steps.size <= _MAX_RUNS or not np.all(np.isfinite(steps)) or np.any(steps <= 0):
        raise ValueError(f"timesteps must be 2 to {_MAX_RUNS} positive, finite step sizes (s), got {np.ravel(steps)}")
    if np.unique(steps).size != steps.size:
        raise ValueError(f"timesteps must be distinct, got {steps.tolist()}")
    steps = np.sort(steps)[::-1]
    runs = tuple(_one_run(make_model, controller, init, float(dt), t_end, rate, max_rate, max_qacc) for dt in steps)
    div = [r for r in runs if r.diverged]
    if not div:
        return Triage(runs, "stable", f"no run diverged in {t_end:g} s at steps {steps.tolist()} s")
    finest = runs[-1]
    if not finest.diverged:
        first = div[-1]
        return Triage(
            runs,
            "numerical",
            f"diverged at dt = {first.timestep:g} s (t = {first.t_diverge:g} s, joint {first.joint!r} first) but not "
            f"at dt = {finest.timestep:g} s: the step is too large for the stiffest element; shrink the step, use an "
            "implicit integrator or soften that element",
        )
    t = np.array([r.t_diverge for r in runs])
    tol = 0.05 * float(t.min()) if t_tol is None else t_tol
    if len(div) == len(runs) and float(t.max() - t.min()) <= tol:
        return Triage(
            runs,
            "physical",
            f"every step size diverges at t = {t.min():g}..{t.max():g} s (joint {finest.joint!r} first): the model or "
            "the controller drives the blow-up (check signs, gains, units); a smaller step will not help",
        )
    return Triage(
        runs,
        "inconclusive",
        f"the divergence moves with the step (t = {t.min():g}..{t.max():g} s) but persists at dt = "
        f"{finest.timestep:g} s: shrink the step further",
    )
