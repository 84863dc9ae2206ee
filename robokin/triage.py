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

The solver knobs come with their own probe. :func:`solver_settings` returns a copy of a model with MuJoCo's
constraint-solver options changed (``opt.solver``, ``opt.iterations``, ``opt.tolerance``) and the soft-constraint
parameters ``solref`` / ``solimp`` of its equality constraints; :func:`solver_run` steps it and measures what a knob
changes: the largest distance between two sites that an equality should keep together (the loop-closure
violation, after every step), the solver iterations used (``data.solver_niter``), the wall time of ``mj_step``, and
the energy books of the run (:class:`SolverRun`).

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

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from ._validate import callback_output, choice, count, finite_scalar, positive
from .errors import IntegrationError
from .sim import MAX_STEPS, _soft, require_mujoco, run_controller

__all__ = [
    "DivergenceRun",
    "Triage",
    "divergence_triage",
    "VERDICTS",
    "SOLVERS",
    "solver_settings",
    "SolverRun",
    "solver_run",
]

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


# --- solver knobs and energy books ----------------------------------------------------------------------------------

#: MuJoCo's constraint solvers, as accepted by :func:`solver_settings`.
SOLVERS = ("Newton", "CG", "PGS")


def solver_settings(
    model: Any,
    *,
    solver: Literal["Newton", "CG", "PGS"] | None = None,
    iterations: int | None = None,
    tolerance: float | None = None,
    solref: ArrayLike | None = None,
    solimp: ArrayLike | None = None,
) -> Any:
    """A copy of ``model`` with MuJoCo's solver options and the equalities' soft-constraint parameters changed.

    Only the options given change (``None`` keeps the model's value), so a comparison of two copies is an
    intervention on one knob.

    Parameters
    ----------
    model : mujoco.MjModel
        Left unchanged.
    solver : {"Newton", "CG", "PGS"}, optional
        ``opt.solver``: the constraint solver (MuJoCo's default is Newton).
    iterations : int, optional
        ``opt.iterations``: the most solver iterations per step (>= 1; MuJoCo's default 100).
    tolerance : float, optional
        ``opt.tolerance``: the solver stops when the relative cost improvement falls below it (>= 0, 0 never stops
        early; MuJoCo's default 1e-8).
    solref : array_like, shape (2,), optional
        ``(timeconst s, dampratio)`` of every equality constraint (``eq_solref``): a shorter time constant is a
        stiffer constraint (MuJoCo uses at least two timesteps).
    solimp : array_like, shape (3,) or (5,), optional
        ``(dmin, dmax, width m[, midpoint, power])`` of every equality (``eq_solimp``); the impedance ``d`` near 1
        makes the constraint harder. Three values keep the model's midpoint and power.

    Returns
    -------
    mujoco.MjModel

    Raises
    ------
    ValueError
        ``model`` not an ``MjModel``, an unknown solver, ``iterations`` not an integer >= 1, a negative or
        non-finite ``tolerance``, ``solref``/``solimp`` out of MuJoCo's ranges (as in the model builders), or
        ``solref``/``solimp`` for a model without equality constraints.

    Examples
    --------
    >>> from robokin.robots import FIVEBAR
    >>> from robokin import sim
    >>> m = sim.fivebar_model(FIVEBAR, masses=(0.05, 0.08, 0.05, 0.08))
    >>> m2 = solver_settings(m, solver="CG", iterations=5, solref=(0.005, 1.0))
    >>> int(m2.opt.iterations), m2.eq_solref[0].tolist(), m.eq_solref[0].tolist()
    (5, [0.005, 1.0], [0.02, 1.0])
    >>> solver_settings(m, solver="newton")
    Traceback (most recent call last):
    ...
    ValueError: solver must be one of 'Newton', 'CG', 'PGS'; got 'newton'
    """
    mujoco = require_mujoco()
    if not isinstance(model, mujoco.MjModel):
        raise ValueError(f"model must be a mujoco.MjModel, got {type(model).__name__}")
    out = copy.copy(model)
    if solver is not None:
        solver = choice(solver, "solver", SOLVERS)
        out.opt.solver = int(getattr(mujoco.mjtSolver, "mjSOL_" + solver.upper()))
    if iterations is not None:
        out.opt.iterations = count(iterations, "iterations", max=100_000)
    if tolerance is not None:
        tol = finite_scalar(tolerance, "tolerance")
        if tol < 0:
            raise ValueError(f"tolerance must be >= 0 (0: never stop early), got {tolerance!r}")
        out.opt.tolerance = tol
    if solref is not None or solimp is not None:
        if model.neq == 0:
            raise ValueError("solref/solimp: the model has no equality constraints to soften or stiffen")
        _soft(solref, solimp)  # the same checks as the model builders
        if solref is not None:
            out.eq_solref[:] = np.asarray(solref, dtype=float)
        if solimp is not None:
            si = np.asarray(solimp, dtype=float)
            out.eq_solimp[:, : si.size] = si
    return out


@dataclass(frozen=True)
class SolverRun:
    """What one run of :func:`solver_run` measured.

    Attributes
    ----------
    steps : int
        MuJoCo steps taken.
    violation_max : float
        Largest distance between the two sites over the run (m), at the start and at the new state after every step
        (``mj_kinematics`` on it): the equality's violation at the native step.
    niter_mean, niter_max : float, int
        Solver iterations per step (``data.solver_niter``, summed over constraint islands): mean and largest.
    wall_per_step : float
        Wall-clock time of ``mj_step`` per step (s), the controller and the bookkeeping excluded.
    energy0, energy1 : float
        Total mechanical energy (potential + kinetic, ``data.energy``) at the start and at the end (J).
    work_actuator, work_damping, work_constraint : float
        Work done on the system over the run (J) by the actuator forces (``qfrc_actuator``), the joint damping
        (``dof_damping``, negative: dissipated) and the constraint forces (``qfrc_constraint``): each step's
        generalized force times the step's displacement ``dt * qvel``.
    work_actuator_positive : float
        The actuators' gross positive work (J): the sum over the steps of ``max(0, step work)``, the energy they put
        in before any of it is taken back.
    work_constraint_rows : float
        ``work_constraint`` recomputed from the constraint rows, ``dt * efc_force . (efc_J qvel)`` (J): an
        independent check of the books (it equals ``work_constraint`` only if ``qfrc_constraint = efc_J^T efc_force``
        holds for the pair booked).
    """

    steps: int
    violation_max: float
    niter_mean: float
    niter_max: int
    wall_per_step: float
    energy0: float
    energy1: float
    work_actuator: float
    work_damping: float
    work_constraint: float
    work_actuator_positive: float
    work_constraint_rows: float

    @property
    def residual(self) -> float:
        """Energy change not paid for by the actuators and the damping (J): what the constraints (and the integrator) absorb."""
        return self.energy1 - self.energy0 - self.work_actuator - self.work_damping

    @property
    def unbooked(self) -> float:
        """``residual - work_constraint`` (J): the part no force accounts for, the integrator's error.

        ``work_constraint`` has a first-order step error of its own (the soft constraint's force is held over the
        step), so the split of ``residual`` into the two is itself step-dependent: compare runs at two steps.
        """
        return self.residual - self.work_constraint


def solver_run(
    model: Any,
    controller: Callable[[float, Any], ArrayLike],
    *,
    t_end: float,
    rate: float,
    sites: tuple[str, str] = ("foot_C", "foot_D"),
    init: Callable[[Any, Any], None] | None = None,
) -> SolverRun:
    """Step ``model`` under a zero-order-hold controller and measure the solver's work (see :class:`SolverRun`).

    The energy books are kept for MuJoCo's default integrator, semi-implicit Euler (``integrator="Euler"``), in
    which a step moves the joints by exactly ``dt * qvel`` of the new velocity and joint damping acts on that new
    velocity: then the work of each force over a step is its generalized force (computed at the step's start)
    times that displacement, and ``energy1 - energy0 = work_actuator + work_damping + work_constraint + unbooked``,
    where ``unbooked`` is the integrator's energy error (first order in the step). Forces not booked (gravity is in
    the potential energy; Coriolis forces do no work) such as fluid drag or tendon damping end up in ``unbooked``.
    ``work_constraint`` is computed the same way and so carries a first-order step error too.

    Parameters
    ----------
    model : mujoco.MjModel
        Integrator ``Euler`` with MuJoCo's implicit joint damping (``mjDSBL_EULERDAMP`` not set). Its
        ``mjENBL_ENERGY`` flag is set during the run and restored after.
    controller : callable ``(t, data) -> array (nu,)``
        Called at ``t = k / rate`` (Hz), ``k = 0, 1, ...``, and held in between, as in
        :func:`robokin.sim.run_controller`.
    t_end : float, keyword-only
        Simulated duration (s): a whole number of control periods ``1 / rate``.
    rate : float, keyword-only
        Controller rate (Hz); ``1 / rate`` must be a whole number of timesteps.
    sites : (str, str), keyword-only
        The two sites whose distance is the violation (default: the five-bar's loop closure).
    init : callable ``(model, data) -> None``, optional, keyword-only
        Sets the initial state.

    Returns
    -------
    SolverRun

    Raises
    ------
    ValueError
        ``model`` not an ``MjModel``, not integrated with ``Euler`` or with ``mjDSBL_EULERDAMP`` set (damping then
        acts on the old velocity, which the books do not charge), unknown site names, a bad ``t_end``/``rate``, a
        ``t_end`` that is not a whole number of control periods, a rate that does not divide the step, non-callable
        ``controller``/``init``, or a controller output that is not ``nu`` finite numbers.
    robokin.errors.IntegrationError
        A bad state: non-finite (or beyond MuJoCo's 1e10 limit) after ``init``, or the simulation diverged: a
        non-finite state, or one of MuJoCo's bad-position, bad-velocity or bad-acceleration warnings (MuJoCo then
        resets the state, which would corrupt the books).

    Examples
    --------
    >>> import numpy as np
    >>> from robokin.robots import FIVEBAR
    >>> from robokin import sim
    >>> m = sim.fivebar_model(FIVEBAR, masses=(0.05, 0.08, 0.05, 0.08), kp=20.0, kv=0.2, integrator="Euler",
    ...                       damping=0.01)
    >>> q0 = sim.fivebar_qpos(FIVEBAR, FIVEBAR.ik([0.035, -0.12]).q)
    >>> def init(model, data):
    ...     data.qpos[:] = q0
    >>> wave = lambda t, d: q0[[0, 2]] + 0.1 * np.sin(2 * np.pi * t)   # a smooth motor command
    >>> r = solver_run(m, wave, t_end=0.5, rate=1000.0, init=init)
    >>> r.steps, r.niter_max, r.work_damping < 0 < r.work_actuator <= r.work_actuator_positive
    (500, 1, True)
    >>> abs(r.work_constraint_rows - r.work_constraint) < 1e-12
    True
    """
    mujoco = require_mujoco()
    if not isinstance(model, mujoco.MjModel):
        raise ValueError(f"model must be a mujoco.MjModel, got {type(model).__name__}")
    if int(model.opt.integrator) != int(mujoco.mjtIntegrator.mjINT_EULER):
        name = mujoco.mjtIntegrator(int(model.opt.integrator)).name
        raise ValueError(
            f"model.opt.integrator is {name}: solver_run keeps the energy books for semi-implicit Euler only "
            '(build the model with integrator="Euler")'
        )
    if int(model.opt.disableflags) & int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP):
        raise ValueError(
            "model.opt.disableflags has mjDSBL_EULERDAMP: the joint damping would act on the old velocity and "
            "the energy books charge the new one; clear the flag (MuJoCo's default implicit damping)"
        )
    if not callable(controller):
        raise ValueError("controller must be a callable (t, data) -> actuator inputs")
    if init is not None and not callable(init):
        raise ValueError("init must be None or a callable (model, data) -> None")
    t_end, rate = positive(t_end, "t_end"), positive(rate, "rate")
    if not (isinstance(sites, (tuple, list)) and len(sites) == 2 and all(isinstance(x, str) for x in sites)):
        raise ValueError(f"sites must be two site names, got {sites!r}")
    ids = []
    for name in sites:
        try:
            ids.append(int(model.site(name).id))
        except KeyError:
            valid = [model.site(i).name for i in range(model.nsite)]
            raise ValueError(f"sites: the model has no site named {name!r}; its sites are {valid}") from None
    dt = float(model.opt.timestep)
    sub = 1.0 / (rate * dt)
    n_sub = int(round(sub))
    if n_sub < 1 or abs(sub - n_sub) > 1e-6 * sub:
        raise ValueError(f"the control period 1/rate = {1 / rate:g} s must be a whole number of timesteps ({dt:g} s)")
    n_ticks = int(round(t_end * rate))
    if abs(t_end * rate - n_ticks) > 1e-6 * max(1.0, t_end * rate):
        raise ValueError(
            f"t_end = {t_end:g} s must be a whole number of control periods 1/rate = {1 / rate:g} s "
            f"(t_end * rate = {t_end * rate:.6g})"
        )
    if not 1 <= n_ticks * n_sub <= MAX_STEPS:
        raise ValueError(f"t_end * rate = {t_end * rate:.6g} ticks of {n_sub} steps: need 1 to {MAX_STEPS} steps")
    flags = int(model.opt.enableflags)
    model.opt.enableflags = flags | int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    warns = [mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL, mujoco.mjtWarning.mjWARN_BADQACC]

    def bad_state():
        x = np.concatenate([data.qpos, data.qvel])
        return not (np.all(np.isfinite(x)) and np.all(np.abs(x) < 1e10))  # MuJoCo's mjMAXVAL reset limit

    def violation():
        return float(np.linalg.norm(data.site_xpos[ids[0]] - data.site_xpos[ids[1]]))

    try:
        data = mujoco.MjData(model)
        if init is not None:
            init(model, data)
        if bad_state():
            raise IntegrationError(
                0.0, t_end, 0, "robokin.triage.solver_run: init left a non-finite or out-of-range qpos/qvel"
            )
        mujoco.mj_forward(model, data)
        e0 = float(data.energy.sum())
        bad0 = [int(data.warning[w].number) for w in warns]
        b = model.dof_damping.copy()
        w_act = w_pos = w_damp = w_con = w_rows = wall = 0.0
        viol, niter = violation(), np.empty(n_ticks * n_sub, dtype=int)
        for k in range(n_ticks):
            t = k / rate
            data.ctrl[:] = callback_output(controller(t, data), "controller", (model.nu,), t=t)
            for j in range(n_sub):
                t0 = time.perf_counter()
                mujoco.mj_step(model, data)
                wall += time.perf_counter() - t0
                v = data.qvel  # the new velocity; the forces below were computed at the step's start
                p = dt * float(data.qfrc_actuator @ v)
                w_act += p
                w_pos += max(p, 0.0)
                w_damp -= dt * float((b * v) @ v)
                w_con += dt * float(data.qfrc_constraint @ v)
                if data.nefc:
                    jv = np.empty(int(data.nefc))
                    mujoco.mj_mulJacVec(model, data, jv, v)
                    w_rows += dt * float(data.efc_force[: data.nefc] @ jv)
                niter[k * n_sub + j] = int(data.solver_niter[: max(1, int(data.nisland))].sum())
                mujoco.mj_kinematics(model, data)  # the sites of the new state (mj_step left the old ones)
                viol = max(viol, violation())
            bad = any(int(data.warning[w].number) > n for w, n in zip(warns, bad0))
            if bad or bad_state():
                raise IntegrationError(
                    float(data.time),
                    t_end,
                    (k + 1) * n_sub,
                    "robokin.triage.solver_run: the simulation diverged (non-finite state or MuJoCo's bad-position, "
                    "-velocity or -acceleration reset); the energy books would be meaningless",
                )
        mujoco.mj_forward(model, data)
        e1 = float(data.energy.sum())
    finally:
        model.opt.enableflags = flags
    n = niter.size
    return SolverRun(
        n, viol, float(niter.mean()), int(niter.max()), wall / n, e0, e1, w_act, w_damp, w_con, w_pos, w_rows
    )
