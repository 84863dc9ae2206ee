"""Hostile-input sweep over every public entry point of every robokin module.

Entry points are discovered by introspection (``__all__`` of each module: functions,
constructors, public methods). Valid arguments come from the small table below (per
entry point, else per parameter name). Each numeric argument is then replaced, one at a
time, by a complex value, NaN, inf, 1e300, a wrong shape and a string; the call must
raise ``ValueError`` (or a documented subclass such as ``UnreachableError``) with a
message, within a few seconds: never a silent result, a hang or another exception type.

Cases that fail in modules owned by other maintainers are marked
``xfail(strict=True)`` in ``KNOWN``: the sweep turns red when one of them is fixed,
so the mark can be removed.

The full sweep (issue 29, bottom of this file) goes further: every parameter, keywords included, >= 20 variants
each, in worker subprocesses under a memory limit and a per-call timer, with outcomes counted as clean / correct /
by design / undocumented / silent NaN / wrong / hang. ``python tests/test_hostile.py [out.json]`` prints the table.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import signal
import warnings
from pathlib import Path

import numpy as np
import pytest

import robokin

# ----------------------------------------------------------------------------- discovery
#: Modules whose entry points take no numeric input a user could get wrong, with the reason.
SKIP_MODULES = {
    "errors": "exception classes (their arguments are produced by robokin itself)",
    "symbolic": "sympy constructors: complex and symbolic arguments are legitimate there",
    "nb": "notebook set-up (seed only)",
    "report": "the validation-report command line",
    "cli": "the command line (argv strings; tested in its own tests)",
    "codegen": "the C code generator (writes files from robokin's own kernel tables)",
    "params": "parameter files (text input, validated against their schema in its own tests)",
}
#: Result containers: constructed by robokin, never from user input (their methods are still swept).
RESULT_TYPES = {
    "checks.CheckReport",
    "results.IKResult",
    "results.SimResult",
    "checks.CheckFailed",
    "control.MonteCarloResult",
    "ident.IdentResult",
    "ident.BaseParameterSet",
    "ident.ConsistentFit",
    "leg2.Calibration",
    "mecanum.SignTestResult",
    "mecanum.PWMFit",
    "stewart.FKResult",
    "trajectory.LimitReport",
    "trajectory.TimeOptResult",
    "trajectory.SwitchProfile",
    "wheel_leg.GainSchedule",
    "triage.DivergenceRun",
    "triage.Triage",
    "triage.SolverRun",
    "scenarios.ScenarioResult",
}


def _entry_points():
    out = {}
    for info in pkgutil.iter_modules(robokin.__path__):
        if info.name.startswith("_") or info.name in SKIP_MODULES:
            continue
        try:
            mod = importlib.import_module(f"robokin.{info.name}")
        except ImportError:  # an optional dependency (e.g. mujoco for robokin.sim) is missing
            continue
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            key = f"{info.name}.{name}"
            if inspect.isfunction(obj):
                out[key] = obj
            elif inspect.isclass(obj):
                if key not in RESULT_TYPES and not issubclass(obj, BaseException):
                    out[key] = obj
                for attr, val in vars(obj).items():
                    if attr.startswith("_") and attr != "__call__":
                        continue
                    if inspect.isfunction(val) or isinstance(val, (classmethod, staticmethod)):
                        out[f"{key}.{attr}"] = obj
    return out


ENTRIES = _entry_points()

# ----------------------------------------------------------------------------- valid arguments
_CACHE = {}


def _obj(name):
    """Sample instances, built once."""
    if name in _CACHE:
        return _CACHE[name]
    from robokin import control, dynamics, fivebar, leg2, mecanum, serial, stewart, trajectory, ur5, wheel_leg

    if name == "arm":
        v = dynamics.TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    elif name == "leg":
        v = leg2.TwoLinkLeg(0.2, 0.2)
    elif name == "leg3":
        from robokin import leg3

        v = leg3.ThreeDofLeg(0.08, 0.2, 0.2)
    elif name == "cal":
        q = np.random.default_rng(0).uniform([-1, 0.3], [1, 2.5], size=(12, 2))
        v = leg2.calibrate(q, leg2.TwoLinkLeg(0.2, 0.21).fk(q + [0.02, -0.01]), guess=leg2.TwoLinkLeg(0.2, 0.2))
    elif name == "fb":
        v = fivebar.FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
    elif name == "wlfb":
        v = fivebar.FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
    elif name == "car":
        v = mecanum.Mecanum(0.076, 0.2, 0.2)
    elif name == "st":
        v = stewart.Stewart(*stewart.paired_layout(0.5, 0.35, base_pair_angle=0.35, top_pair_angle=0.35))
    elif name == "dyn":
        v = stewart.StewartDynamics(_obj("st"), stewart.PlatformParams(10.0, np.diag([0.3, 0.3, 0.5])))
    elif name == "sdyn":
        p = dynamics.TwoLinkArm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1).rnea_params()
        v = dynamics.SerialDynamics.from_dh(
            p["a"],
            p["alpha"],
            p["d"],
            convention="standard",
            masses=p["masses"],
            coms=p["coms"],
            inertias=p["inertias"],
            gravity=p["gravity"],
        )
    elif name == "wlp":
        v = wheel_leg.WheelLegParams()
    elif name == "wlm":
        v = wheel_leg.WheelLegDynamics(_obj("wlp"))
    elif name == "sched":
        v = wheel_leg.gain_schedule(_obj("wlm"), np.linspace(0.12, 0.32, 5), degree=2)
    elif name == "serial":
        v = serial.SerialArm.from_dh([1.0, 1.0], [0.0, 0.0], [0.0, 0.0], convention="standard")
    elif name == "ur5":
        v = ur5.make_ur5()
    elif name == "ctl":
        v = control.tracking_controller(_obj("arm"), kind="computed_torque", kp=100.0, kd=20.0)
    elif name == "ref":
        v = control.quintic_reference([0.0, 0.0], [1.0, -1.0], 0.2)
    elif name == "simres":
        v = control.simulate(_obj("arm"), _obj("ctl"), q0=[0.0, 0.0], qd0=[0.0, 0.0], ref=_obj("ref"), t_end=0.3)
    elif name == "traj":
        v = trajectory.plan_quintic([[0.0], [1.0]], [0.0, 1.0])
    elif name == "limrep":
        v = trajectory.check_limits(_obj("traj"), vmax=2.0, amax=5.0)
    elif name == "fbmodel":
        from robokin import sim

        v = sim.fivebar_model(_obj("fb"), masses=(0.05, 0.05, 0.08, 0.08), g=0.0)
    elif name == "armmodel":
        from robokin import sim

        v = sim.two_link_model(_obj("arm"))
    elif name == "motor":
        from robokin import sim

        v = sim.MotorModel(3.0, 220.0, 0.85, 2e-5)
    elif name == "ax":
        import matplotlib

        matplotlib.use("Agg")
        from robokin.plotting import new_3d_axes

        v = new_3d_axes()[1]
    elif name == "anim":  # a two-frame animation on a 1-inch figure: a hostile dpi cannot make a huge image
        import tempfile

        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.animation import FuncAnimation

        fig, ax = plt.subplots(figsize=(1.0, 1.0))
        (line,) = ax.plot([0, 1], [0, 1])
        v = FuncAnimation(fig, lambda k: (line.set_ydata([0, k]),), frames=2, interval=100)
        _CACHE["anim_dir"] = tempfile.mkdtemp(prefix="robokin-hostile-")
    else:  # pragma: no cover - table error
        raise KeyError(name)
    _CACHE[name] = v
    return v


def _ur5_pose():
    return _obj("ur5").fk(np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))


def _poly(x):
    return np.stack([x[..., 0] * x[..., 1], np.sin(x[..., 0])], -1)


def _poly_jac(x):
    return np.stack([np.stack([x[..., 1], x[..., 0]], -1), np.stack([np.cos(x[..., 0]), 0 * x[..., 0]], -1)], -2)


HOME6 = np.array([0.0, 0.0, 0.4, 0.0, 0.0, 0.0])
# Each recipe: () -> (callable, kwargs). Only numeric kwargs (numbers, numeric arrays/lists) are made hostile.
RECIPES = {
    # checks
    "checks.check_errors": lambda: (
        robokin.checks.check_errors,
        dict(name="e", errors=np.array([1e-12, 0.0]), tol=1e-9),
    ),
    "checks.check_close": lambda: (
        robokin.checks.check_close,
        dict(name="c", actual=np.array([1.0, 2.0]), expected=np.array([1.0, 2.0]), tol=1e-9),
    ),
    "checks.jacobian_fd": lambda: (robokin.checks.jacobian_fd, dict(f=_poly, x=np.array([1.0, 2.0]))),
    "checks.check_jacobian": lambda: (
        robokin.checks.check_jacobian,
        dict(jac=_poly_jac, f=_poly, x=np.array([[1.0, 2.0]])),
    ),
    "checks.residual_scan": lambda: (
        robokin.checks.residual_scan,
        dict(forward=np.exp, inverse=np.log, targets=np.array([[1.5], [2.0]]), tol=1e-9),
    ),
    "checks.fk_ik_roundtrip": lambda: (
        robokin.checks.fk_ik_roundtrip,
        dict(fk=np.sin, ik=np.arcsin, q=np.array([[0.1], [0.2]]), tol=1e-9),
    ),
    "checks.check_rigid": lambda: (robokin.checks.check_rigid, dict(T=np.eye(4))),
    "checks.check_answer": lambda: (robokin.checks.check_answer, dict(name="a", value=0.5, expected=0.5, quiet=True)),
    "checks.CheckReport.as_row": None,
    "checks.check_rate": lambda: (
        robokin.checks.check_rate,
        dict(name="r", failed=np.arange(100) == 0, max_rate=0.05, alpha=1e-3),
    ),
    # control
    "control.quintic_reference": lambda: (
        robokin.control.quintic_reference,
        dict(q0=np.array([0.0, 0.0]), qf=np.array([1.0, -1.0]), T=2.0),
    ),
    "control.friction_torque": lambda: (
        robokin.control.friction_torque,
        dict(qd=np.array([1.0, -1.0]), fv=0.1, fc=0.5),
    ),
    "control.gravity_compensation": lambda: (
        robokin.control.gravity_compensation,
        dict(model=_obj("arm"), q=np.array([0.2, 0.3])),
    ),
    "control.Controller": lambda: (
        robokin.control.Controller,
        dict(model=_obj("arm"), kind="pd", kp=np.array([10.0, 10.0]), kd=np.array([1.0, 1.0]), ki=np.array([0.0, 0.0])),
    ),
    "control.Controller.torque": lambda: (
        _obj("ctl").torque,
        dict(
            q=np.array([0.1, 0.2]),
            qd=np.zeros(2),
            z=np.zeros(2),
            q_ref=np.array([0.1, 0.2]),
            qd_ref=np.zeros(2),
            qdd_ref=np.zeros(2),
        ),
    ),
    "control.tracking_controller": lambda: (
        robokin.control.tracking_controller,
        dict(model=_obj("arm"), kind="computed_torque", kp=100.0, kd=20.0, tau_max=np.array([5.0, 5.0])),
    ),
    "control.simulate": lambda: (
        robokin.control.simulate,
        dict(plant=_obj("arm"), controller=_obj("ctl"), q0=np.zeros(2), qd0=np.zeros(2), ref=_obj("ref"), t_end=0.2),
    ),
    "control.simulate_ivp": lambda: (
        robokin.control.simulate_ivp,
        dict(
            plant=_obj("arm"),
            controller=_obj("ctl"),
            q0=np.zeros(2),
            qd0=np.zeros(2),
            ref=_obj("ref"),
            t_end=0.2,
            t_eval=np.array([0.1, 0.2]),
        ),
    ),
    "control.steady_state_error": lambda: (
        robokin.control.steady_state_error,
        dict(plant=_obj("arm"), controller=_obj("ctl"), q_ref=np.array([0.3, 0.2])),
    ),
    "control.sample_arms": lambda: (
        robokin.control.sample_arms,
        dict(nominal=_obj("arm"), n=5, rng=np.random.default_rng(0)),
    ),
    "control.tracking_metrics": lambda: (
        robokin.control.tracking_metrics,
        dict(res=_obj("simres"), q_start=np.zeros(2)),
    ),
    "control.tracking_error": lambda: (robokin.control.tracking_error, dict(res=_obj("simres"))),
    "control.converged": lambda: (robokin.control.converged, dict(res=_obj("simres"), tol=1e-3, hold=0.1)),
    "checks.clopper_pearson": lambda: (robokin.checks.clopper_pearson, dict(k=3, n=10)),
    "control.monte_carlo": lambda: (
        robokin.control.monte_carlo,
        dict(
            nominal=_obj("arm"),
            controller=_obj("ctl"),
            n=3,
            rng=np.random.default_rng(1),
            q0=np.zeros(2),
            qf=np.array([1.0, -1.0]),
            t_move=0.1,
            t_end=0.2,
        ),
    ),
    # dynamics
    "dynamics.TwoLinkArm": lambda: (
        robokin.dynamics.TwoLinkArm,
        dict(m1=1.0, m2=1.0, l1=1.0, l2=1.0, lc1=0.5, lc2=0.5, I1=0.1, I2=0.1),
    ),
    "dynamics.TwoLinkArm.replace": lambda: (_obj("arm").replace, dict(m2=1.5)),
    "dynamics.TwoLinkArm.potential_min": None,
    "dynamics.TwoLinkArm.rnea_params": None,
    "dynamics.SerialDynamics": lambda: (
        robokin.dynamics.SerialDynamics,
        dict(
            arm=_obj("sdyn").arm,
            masses=np.array(_obj("sdyn").masses),
            coms=np.array(_obj("sdyn").coms),
            inertias=np.array(_obj("sdyn").inertias),
            gravity=np.array([0, -9.81, 0.0]),
        ),
    ),
    "dynamics.SerialDynamics.from_dh": lambda: (
        robokin.dynamics.SerialDynamics.from_dh,
        dict(
            a=np.array(_obj("sdyn").arm.a),
            alpha=np.array(_obj("sdyn").arm.alpha),
            d=np.array(_obj("sdyn").arm.d),
            convention="standard",
            masses=np.array(_obj("sdyn").masses),
            coms=np.array(_obj("sdyn").coms),
            inertias=np.array(_obj("sdyn").inertias),
        ),
    ),
    "dynamics.energy_drift": lambda: (
        robokin.dynamics.energy_drift,
        dict(arm=_obj("arm"), q0=np.array([0.3, 0.5]), qd0=np.array([0.0, 1.0]), t_end=0.05),
    ),
    "dynamics.add_reflected_inertia": lambda: (
        robokin.dynamics.add_reflected_inertia,
        dict(M=np.eye(2), gear_ratios=np.array([10.0, 6.0]), rotor_inertias=np.array([1.4e-5, 3.4e-4])),
    ),
    "dynamics.pd_gravity_lyapunov": lambda: (
        robokin.dynamics.pd_gravity_lyapunov,
        dict(
            model=_obj("arm"),
            q=np.array([0.3, -0.4]),
            qd=np.array([1.0, 0.5]),
            q_ref=np.array([0.1, 0.1]),
            kp=np.array([40.0, 25.0]),
        ),
    ),
    "control.teach_residual": lambda: (
        robokin.control.teach_residual,
        dict(
            plant=_obj("arm").replace(m2=1.1),
            model=_obj("arm"),
            q=np.array([0.3, -0.7]),
            qd=np.array([1.0, 2.0]),
            qdd=np.array([0.5, -1.5]),
            fv=np.array([0.1, 0.1]),
            fc=np.array([0.2, 0.2]),
        ),
    ),
    "control.AdaptiveController": lambda: (
        robokin.control.AdaptiveController,
        dict(model=_obj("arm"), lam=np.array([10.0, 10.0]), kd=np.array([5.0, 5.0]), gamma=np.ones(5)),
    ),
    "control.adaptive_controller": lambda: (
        robokin.control.adaptive_controller,
        dict(model=_obj("arm"), lam=10.0, kd=5.0, gamma=np.array([1.0, 1.0, 1.0, 50.0, 50.0])),
    ),
    "control.SlidingModeController": lambda: (
        robokin.control.SlidingModeController,
        dict(model=_obj("arm"), lam=np.array([10.0, 10.0]), k=np.array([2.0, 1.0]), phi=np.array([0.1, 0.1])),
    ),
    "control.SlidingModeController.torque": lambda: (
        robokin.control.sliding_mode_controller(_obj("arm"), lam=10.0, k=2.0, phi=0.1).torque,
        dict(
            q=np.array([0.1, 0.2]),
            qd=np.zeros(2),
            q_ref=np.array([0.15, 0.1]),
            qd_ref=np.zeros(2),
            qdd_ref=np.zeros(2),
        ),
    ),
    "control.sliding_mode_controller": lambda: (
        robokin.control.sliding_mode_controller,
        dict(model=_obj("arm"), lam=10.0, k=2.0, phi=0.1),
    ),
    "control.ImpedanceController": lambda: (
        robokin.control.ImpedanceController,
        dict(
            model=_obj("arm"),
            stiffness=np.diag([400.0, 300.0]),
            damping=np.diag([20.0, 20.0]),
            q_ref=np.array([0.3, 1.2]),
        ),
    ),
    "control.ImpedanceController.hold": lambda: (
        robokin.control.impedance_controller(_obj("arm"), stiffness=400.0, damping=20.0, q_ref=[0.3, 1.2]).hold,
        dict(t=np.array([0.0, 0.5, 1.0])),
    ),
    "control.ImpedanceController.torque": lambda: (
        robokin.control.impedance_controller(_obj("arm"), stiffness=400.0, damping=20.0, q_ref=[0.3, 1.2]).torque,
        dict(q=np.array([0.35, 1.1]), qd=np.array([0.2, -0.1])),
    ),
    "control.impedance_controller": lambda: (
        robokin.control.impedance_controller,
        dict(model=_obj("arm"), stiffness=np.array([400.0, 300.0]), damping=20.0, q_ref=np.array([0.3, 1.2])),
    ),
    "ident.segment_excitation": lambda: (
        robokin.ident.segment_excitation,
        dict(
            t=np.array([0.0, 0.3, 0.9]), v=np.array([[1.0, -0.5], [0.0, 0.0]]), t_acc=0.5, t_cruise=0.5, q0=np.zeros(2)
        ),
    ),
    "ident.motion_segments": lambda: (
        robokin.ident.motion_segments,
        dict(
            qd=np.array([[1.0, 0.0], [0.5, 0.2]]),
            qdd=np.array([[0.0, 0.0], [2.0, 0.0]]),
            v_min=0.1,
            a_tol=0.0,
            a_min=1.0,
        ),
    ),
    "ident.residual_rms": lambda: (
        robokin.ident.residual_rms,
        dict(Y=np.ones((4, 2, 1)), tau=np.ones((4, 2)), theta=np.array([1.0])),
    ),
    # fivebar
    "fivebar.FiveBar": lambda: (robokin.fivebar.FiveBar, dict(l1=0.06, l2=0.06, l3=0.1, l4=0.1, d=0.07)),
    "fivebar.FiveBar.assembly_sign": lambda: (
        _obj("fb").assembly_sign,
        dict(q=_obj("fb").ik([0.035, -0.12]).q, p=np.array([0.035, -0.12])),
    ),
    "fivebar.FiveBar.assembly_of": lambda: (
        _obj("fb").assembly_of,
        dict(q=_obj("fb").ik([0.035, -0.12]).q, p=np.array([0.035, -0.12])),
    ),
    "fivebar.FiveBar.working_mode": lambda: (
        _obj("fb").working_mode,
        dict(q=_obj("fb").ik([0.035, -0.12]).q, p=np.array([0.035, -0.12])),
    ),
    "fivebar.FiveBar.ik": lambda: (_obj("fb").ik, dict(p=np.array([0.035, -0.12]))),
    "fivebar.FiveBar.clamp_to_workspace": lambda: (
        _obj("fb").clamp_to_workspace,
        dict(p=np.array([0.0, -0.03]), margin=0.008),
    ),
    "fivebar.FiveBar.ik_numeric": lambda: (
        _obj("fb").ik_numeric,
        dict(p=np.array([0.035, -0.12]), q0=np.array([-2.0, -1.0])),
    ),
    "fivebar.FiveBar.static_torques": lambda: (
        _obj("fb").static_torques,
        dict(q=_obj("fb").ik([0.035, -0.12]).q, force=np.array([0.0, -100.0])),
    ),
    "fivebar.segment_distance": lambda: (
        robokin.fivebar.segment_distance,
        dict(p0=np.array([0.0, 0.0]), p1=np.array([1.0, 0.0]), q0=np.array([2.0, 1.0]), q1=np.array([3.0, 1.0])),
    ),
    "fivebar.FiveBar.link_clearance": lambda: (
        _obj("fb").link_clearance,
        dict(q=_obj("fb").ik([0.035, -0.12]).q, width=0.008),
    ),
    # ident
    "ident.qr_base_parameters": lambda: (robokin.ident.qr_base_parameters, dict(Y=np.eye(3)[[0, 1, 2, 0]], tol=1e-9)),
    "ident.consistency_margin": lambda: (
        robokin.ident.consistency_margin,
        dict(theta=robokin.ident.base_parameters(_obj("arm"), minimal=True), l1=1.0),
    ),
    "ident.consistent_least_squares": lambda: (
        robokin.ident.consistent_least_squares,
        dict(
            Y=robokin.ident.regressor(*np.random.default_rng(0).uniform(-2, 2, (3, 40, 2)), l1=1.0),
            tau=np.random.default_rng(1).normal(size=(40, 2)),
            l1=1.0,
            margin=1e-6,
            maxiter=50,
        ),
    ),
    "ident.BaseParameterSet.combine": lambda: (
        robokin.ident.qr_base_parameters(np.eye(3)[[0, 1, 2, 0]]).combine,
        dict(phi=np.array([1.0, 2.0, 3.0])),
    ),
    "ident.base_parameters": lambda: (
        robokin.ident.base_parameters,
        dict(arm=_obj("arm"), fv=np.array([0.1, 0.1]), fc=np.array([0.2, 0.2]), minimal=True),
    ),
    "ident.arm_from_base_parameters": lambda: (
        robokin.ident.arm_from_base_parameters,
        dict(theta=robokin.ident.base_parameters(_obj("arm")), l1=1.0, l2=1.0, m1=1.0, m2=1.0),
    ),
    "ident.regressor": lambda: (
        robokin.ident.regressor,
        dict(q=np.array([0.3, -0.7]), qd=np.array([1.0, 2.0]), qdd=np.array([0.5, -1.5]), l1=1.0),
    ),
    "ident.fourier_excitation": lambda: (
        robokin.ident.fourier_excitation,
        dict(
            t=np.array([0.0, 1.0]),
            a=np.array([[1.0], [0.0]]),
            b=np.array([[0.0], [0.0]]),
            wf=1.0,
            q0=np.array([0.0, 0.5]),
        ),
    ),
    "ident.encoder_reading": lambda: (
        robokin.ident.encoder_reading,
        dict(q=np.array([0.1234, -0.5]), counts_per_rev=4096),
    ),
    "ident.estimate_derivatives": lambda: (
        robokin.ident.estimate_derivatives,
        dict(
            q=np.stack([np.linspace(0, 1, 40) ** 2] * 2, -1),
            dt=0.01,
            method="savgol",
            window=11,
            polyorder=4,
            cutoff=5.0,  # given so that it is swept (validated whatever the method)
        ),
    ),
    "ident.lowpass": lambda: (robokin.ident.lowpass, dict(x=np.sin(np.linspace(0, 6, 200)), dt=0.001, cutoff=20.0)),
    "ident.least_squares": lambda: (
        robokin.ident.least_squares,
        dict(Y=np.random.default_rng(0).normal(size=(20, 2, 3)), tau=np.random.default_rng(1).normal(size=(20, 2))),
    ),
    # ik
    "ik.ik_dls": lambda: (
        robokin.ik.ik_dls,
        dict(arm=_obj("ur5"), T=_ur5_pose(), q0=np.array([0.4, -1.1, 1.6, -0.3, 1.2, 0.8])),
    ),
    "ik.damping_squared": lambda: (
        robokin.ik.damping_squared,
        dict(sigma_min=np.array([0.02, 0.005]), err=np.array([1.0, 1.0]), damping=0.1, sigma_threshold=0.01),
    ),
    # leg2
    "leg2.TwoLinkLeg": lambda: (
        robokin.leg2.TwoLinkLeg,
        dict(l1=0.2, l2=0.2, q_min=np.array([-1.0, 0.0]), q_max=np.array([1.0, 2.5])),
    ),
    "leg2.TwoLinkLeg.joint_rates": lambda: (
        _obj("leg").joint_rates,
        dict(q=np.array([0.0, 1.5]), v=np.array([0.1, 0.0])),
    ),
    "leg2.TwoLinkLeg.ik": lambda: (_obj("leg").ik, dict(p=np.array([0.1, -0.3]))),
    # leg3
    "leg3.ThreeDofLeg": lambda: (robokin.leg3.ThreeDofLeg, dict(l0=0.08, l1=0.2, l2=0.2)),
    "leg3.ThreeDofLeg.ik": lambda: (_obj("leg3").ik, dict(p=np.array([0.05, 0.12, -0.3]))),
    "leg3.raibert_foot": lambda: (robokin.leg3.raibert_foot, dict(v=0.5, v_des=0.6, t_stance=0.2, k=0.1)),
    "leg3.lip_stance": lambda: (robokin.leg3.lip_stance, dict(x0=-0.05, v0=0.6, height=0.3, t=0.2)),
    "leg3.raibert_steps": lambda: (
        robokin.leg3.raibert_steps,
        dict(v0=0.3, v_des=0.6, k=0.1, height=0.3, t_stance=0.2, n_steps=5),
    ),
    "leg2.Calibration.leg": None,
    "leg2.Calibration.predict": lambda: (_obj("cal").predict, dict(q_enc=np.array([0.1, 1.0]))),
    "leg2.Calibration.command": lambda: (_obj("cal").command, dict(p=np.array([0.1, -0.3]))),
    "leg2.calibrate": lambda: (
        robokin.leg2.calibrate,
        dict(
            q_enc=np.random.default_rng(0).uniform([-1, 0.3], [1, 2.5], size=(8, 2)),
            p_meas=_obj("leg").fk(np.random.default_rng(0).uniform([-1, 0.3], [1, 2.5], size=(8, 2))),
            guess=np.array([0.2, 0.2]),
        ),
    ),
    "leg2.gait_phase": lambda: (robokin.leg2.gait_phase, dict(t=0.3, period=0.4, offsets=np.array(robokin.leg2.TROT))),
    "leg2.gait_state": lambda: (robokin.leg2.gait_state, dict(phase=np.array([0.1, 0.75]), duty=0.5)),
    "leg2.foot_offset": lambda: (
        robokin.leg2.foot_offset,
        dict(phase=0.3, duty=0.5, period=0.4, v_body=0.5, height=0.05),
    ),
    "leg2.foot_targets": lambda: (
        robokin.leg2.foot_targets,
        dict(t=0.1, neutral=np.array([0.0, -0.3]), period=0.4, v_body=0.5, height=0.05),
    ),
    "leg2.ik_track": lambda: (
        robokin.leg2.ik_track,
        dict(leg=_obj("leg"), p=np.array([[0.1, -0.3], [0.11, -0.3]]), q0=np.array([0.0, 1.0]), tol=1e-9),
    ),
    "leg2.smooth_joint_path": lambda: (
        robokin.leg2.smooth_joint_path,
        dict(
            leg=_obj("leg"),
            q=np.linspace([0.0, 1.0], [0.2, 1.2], 9),
            p=_obj("leg").fk(np.linspace([0.0, 1.0], [0.2, 1.2], 9)),
            window=5,
            tol=1e-3,
        ),
    ),
    "leg2.hold_commands": lambda: (
        robokin.leg2.hold_commands,
        dict(
            q_cmd=np.array([[0.0, 1.0], [0.1, 1.0], [0.2, 1.0]]),
            dt=0.01,
            lateness=np.array([0.0, 0.004, 0.02]),
            t=0.015,
            deadline=0.01,
        ),
    ),
    # mecanum
    "mecanum.Mecanum": lambda: (robokin.mecanum.Mecanum, dict(r=0.076, lx=0.2, ly=0.2, roller_angle=0.7)),
    "mecanum.Mecanum.ik": lambda: (_obj("car").ik, dict(twist=np.array([0.3, -0.2, 0.5]))),
    "mecanum.Mecanum.fk": lambda: (_obj("car").fk, dict(w=np.array([10.0, 10.0, 10.0, 12.0]))),
    "mecanum.Mecanum.jacobian": lambda: (_obj("car").jacobian, dict(w=np.array([10.0, 10.0, 10.0, 12.0]))),
    "mecanum.Mecanum.inconsistency": lambda: (_obj("car").inconsistency, dict(w=np.array([10.0, 10.0, 10.0, 12.0]))),
    "mecanum.Mecanum.residual": lambda: (_obj("car").residual, dict(w=np.array([10.0, 10.0, 10.0, 12.0]))),
    "mecanum.Mecanum.sign_tests": lambda: (_obj("car").sign_tests, dict(wiring=np.array(_obj("car").matrix), tol=1e-9)),
    "mecanum.Mecanum.wrench": lambda: (_obj("car").wrench, dict(tau=np.array([1.0, -0.5, 0.2, 0.3]))),
    "mecanum.Mecanum.traction_torque": lambda: (
        _obj("car").traction_torque,
        dict(normal_force=np.array([30.0, 30.0, 25.0, 25.0]), mu=0.6),
    ),
    "mecanum.Mecanum.max_wrench": lambda: (
        _obj("car").max_wrench,
        dict(direction=np.array([1.0, 0.5, 0.1]), tau_max=np.array([1.0, 1.0, 0.8, 0.8])),
    ),
    "mecanum.reorder_wheels": lambda: (
        robokin.mecanum.reorder_wheels,
        dict(w=np.array([1.0, 2.0, 3.0, 4.0]), order=("FL", "FR", "RR", "RL")),
    ),
    "mecanum.integrate_twist": lambda: (
        robokin.mecanum.integrate_twist,
        dict(pose=np.zeros(3), twist=np.array([1.0, 0.0, 0.5]), dt=0.1),
    ),
    "mecanum.odometry": lambda: (
        robokin.mecanum.odometry,
        dict(twists=np.tile([1.0, 0.0, 0.1], (5, 1)), dt=0.1, pose0=np.zeros(3)),
    ),
    "mecanum.fuse_heading": lambda: (
        robokin.mecanum.fuse_heading,
        dict(omega_gyro=np.full(5, 0.02), omega_wheel=np.zeros(5), dt=0.01, tau=1.0, theta0=0.0, bias0=0.0),
    ),
    "mecanum.pwm_model": lambda: (robokin.mecanum.pwm_model, dict(u=0.5, params=np.array([40.0, 0.1]))),
    "mecanum.fit_pwm": lambda: (
        robokin.mecanum.fit_pwm,
        dict(
            u=np.linspace(-1, 1, 21),
            w=robokin.mecanum.pwm_model(np.linspace(-1, 1, 21), [40.0, 0.1]) + 0.1 * np.sin(np.arange(21.0)),
        ),
    ),
    # plotting
    "plotting.draw_frame": lambda: (robokin.plotting.draw_frame, dict(ax=_obj("ax"), T=np.eye(4), length=0.5)),
    "plotting.draw_arm": lambda: (
        robokin.plotting.draw_arm,
        dict(ax=_obj("ax"), arm=_obj("ur5"), q=np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]), frame_length=0.05),
    ),
    "plotting.tidy3d": lambda: (robokin.plotting.tidy3d, dict(ax=_obj("ax"), lim=0.8, zlim=(-0.3, 0.9))),
    "plotting.new_3d_axes": None,
    "plotting.animation_html": None,
    "plotting.save_animation": lambda: (
        robokin.plotting.save_animation,
        dict(anim=_obj("anim"), path=Path(_CACHE["anim_dir"]) / "a.gif", fps=5.0, dpi=20.0),
    ),
    # serial
    "serial.dh_transform": lambda: (
        robokin.serial.dh_transform,
        dict(a=0.5, alpha=0.3, d=0.1, theta=0.2, convention="standard"),
    ),
    "serial.SerialArm": lambda: (
        robokin.serial.SerialArm,
        dict(a=np.array([1.0, 1.0]), alpha=np.zeros(2), d=np.zeros(2), offset=np.zeros(2), convention="standard"),
    ),
    "serial.SerialArm.from_dh": lambda: (
        robokin.serial.SerialArm.from_dh,
        dict(a=np.array([1.0, 1.0]), alpha=np.zeros(2), d=np.zeros(2), convention="standard"),
    ),
    "serial.pose_error": lambda: (robokin.serial.pose_error, dict(T_target=np.eye(4), T_current=np.eye(4))),
    # urdf (URDF export; MuJoCo compiles it, tests/test_urdf.py)
    "urdf.serial_urdf": lambda: (
        robokin.urdf.serial_urdf,
        dict(arm=robokin.robots.UR5, **robokin.robots.ur5_inertials()),
    ),
    "urdf.two_link_leg_urdf": lambda: (
        robokin.urdf.two_link_leg_urdf,
        dict(leg=robokin.robots.LEG2, masses=np.array([0.3, 0.2])),
    ),
    # triage (takes a model factory and a controller; bad input in tests/test_triage.py)
    "triage.divergence_triage": None,
    "triage.solver_settings": None,  # takes a compiled MjModel; bad input in tests/test_triage.py
    "triage.solver_run": None,  # takes a model and a controller; bad input in tests/test_triage.py
    # scenarios (chapter 16's MuJoCo scenarios; the runner with a 10 ms run, bad input in tests/test_scenarios.py)
    "scenarios.Gains": lambda: (robokin.scenarios.Gains, dict(kL=800.0, k_yaw=1.0, ki_roll=0.5)),
    "scenarios.ScenarioResult.torque_steps": None,  # a method of a result, no input
    "scenarios.terrain_model": lambda: (
        robokin.scenarios.terrain_model,
        dict(slope=0.05, cross_slope=0.02, friction=0.5),
    ),
    "scenarios.place_robot": None,  # needs a model and its data (tests/test_scenarios.py)
    "scenarios.yaw_inertia": None,
    "scenarios.roll_from_legs": lambda: (
        robokin.scenarios.roll_from_legs,
        dict(dL=np.array([0.01, -0.02]), track=0.4, cross_slope=0.05),
    ),
    "scenarios.legs_for_roll": lambda: (robokin.scenarios.legs_for_roll, dict(roll=np.array([0.02, 0.0]), track=0.4)),
    "scenarios.max_slope": lambda: (
        robokin.scenarios.max_slope,
        dict(friction=0.5, wheel_torque=2.5, mass=14.8, R=0.06),
    ),
    "scenarios.yaw_acceleration": lambda: (
        robokin.scenarios.yaw_acceleration,
        dict(dT=np.array([0.5, -1.0]), track=0.4, R=0.06, inertia=0.4),
    ),
    "scenarios.run_scenario": lambda: (
        robokin.scenarios.run_scenario,
        dict(kind="slope", t_end=0.01, slope=0.05, friction=0.8, speed=0.1),
    ),
    # stewart_mujoco (the Stewart platform in MuJoCo, tests/test_stewart_mujoco.py)
    "stewart_mujoco.stewart_mjcf": lambda: (
        robokin.stewart_mujoco.stewart_mjcf,
        dict(
            robot=robokin.robots.STEWART, params=robokin.robots.STEWART_PAYLOAD, pose=np.array([0, 0, 0.42, 0, 0, 0.0])
        ),
    ),
    "stewart_mujoco.stewart_model": lambda: (
        robokin.stewart_mujoco.stewart_model,
        dict(
            robot=robokin.robots.STEWART, params=robokin.robots.STEWART_PAYLOAD, pose=np.array([0, 0, 0.42, 0, 0, 0.0])
        ),
    ),
    "stewart_mujoco.stewart_set_state": None,  # needs a model and its data (tests/test_stewart_mujoco.py)
    "stewart_mujoco.stewart_pose": None,
    "stewart_mujoco.stewart_leg_lengths": None,
    "stewart_mujoco.stewart_accel": None,
    "stewart_mujoco.stewart_force_map": None,
    "stewart_mujoco.stewart_engine_leg_forces": None,
    # render (MuJoCo's offscreen renderer, chapter 13)
    "render.render_frames": lambda: (
        robokin.render.render_frames,
        dict(
            model=_obj("fbmodel"),
            qpos=robokin.sim.fivebar_qpos(_obj("fb"), _obj("fb").ik([0.035, -0.12]).q),
            width=32,
            height=24,
        ),
    ),
    "render.encode_mp4": lambda: (robokin.render.encode_mp4, dict(frames=np.zeros((2, 8, 8, 3), np.uint8), fps=10.0)),
    "render.encode_png": lambda: (robokin.render.encode_png, dict(frame=np.zeros((8, 8, 3), np.uint8))),
    "render.video_html": None,  # bytes and text only (tests/test_render.py)
    "render.image_html": None,  # a list of frames and text (tests/test_render.py)
    # sim (MuJoCo)
    "sim.fivebar_mjcf": lambda: (
        robokin.sim.fivebar_mjcf,
        dict(fivebar=_obj("fb"), masses=np.array([0.05, 0.05, 0.08, 0.08])),
    ),
    "sim.fivebar_model": lambda: (
        robokin.sim.fivebar_model,
        dict(fivebar=_obj("fb"), masses=np.array([0.05, 0.05, 0.08, 0.08])),
    ),
    "sim.fivebar_qpos": lambda: (robokin.sim.fivebar_qpos, dict(fivebar=_obj("fb"), q=_obj("fb").ik([0.035, -0.12]).q)),
    "sim.fivebar_feet": None,
    "sim.fivebar_motor_angles": None,
    "sim.fivebar_static_torques": lambda: (
        robokin.sim.fivebar_static_torques,
        dict(
            model=_obj("fbmodel"), fivebar=_obj("fb"), q=_obj("fb").ik([0.035, -0.12]).q, force=np.array([0.0, -10.0])
        ),
    ),
    "sim.two_link_mjcf": None,
    "sim.two_link_model": None,
    "sim.two_link_terms": lambda: (
        robokin.sim.two_link_terms,
        dict(model=_obj("armmodel"), q=np.array([0.3, -0.7]), qd=np.array([1.0, 2.0])),
    ),
    "sim.dh_mjcf": lambda: (robokin.sim.dh_mjcf, dict(arm=_obj("ur5"), **robokin.ur5.inertial_parameters())),
    "sim.dh_model": None,
    "sim.inverse_dynamics": lambda: (
        robokin.sim.inverse_dynamics,
        dict(model=_obj("armmodel"), q=np.array([0.3, -0.7]), qd=np.array([1.0, 2.0]), qdd=np.array([0.5, -1.5])),
    ),
    "sim.run_controller": None,
    "sim.contact_normal_force": None,
    "sim.wheel_leg_mjcf": lambda: (
        robokin.sim.wheel_leg_mjcf,
        dict(params=_obj("wlp"), fivebar=_obj("wlfb"), track=0.4),
    ),
    "sim.wheel_leg_model": lambda: (
        robokin.sim.wheel_leg_model,
        dict(params=_obj("wlp"), fivebar=_obj("wlfb"), track=0.4),
    ),
    "sim.wheel_leg_pose": None,
    "sim.wheel_leg_state": None,
    "sim.MotorModel": lambda: (
        robokin.sim.MotorModel,
        dict(tau_stall=3.0, omega_free=220.0, eta=0.85, rotor_inertia=2e-5),
    ),
    "sim.MotorModel.max_joint_torque": lambda: (_obj("motor").max_joint_torque, dict(N=10.0, joint_speed=5.0)),
    "sim.MotorModel.saturate": lambda: (
        _obj("motor").saturate,
        dict(tau=np.array([1.0, 30.0]), N=10.0, joint_speed=5.0),
    ),
    "sim.integrate_fixed_step": lambda: (
        robokin.sim.integrate_fixed_step,
        dict(
            rhs=lambda t, y: np.array([y[1], -4.0 * y[0] - 0.4 * y[1]]),
            y0=np.array([1.0, 0.0]),
            dt=0.01,
            t_end=0.1,
            method="rk4",
            bound=1e3,
        ),
    ),
    "sim.step_limit": lambda: (
        robokin.sim.step_limit,
        dict(A=np.array([[0.0, 1.0], [-400.0, -30.0]]), method="semi_implicit_euler", tol=1e-9),
    ),
    # actuators (chapter 15)
    "actuators.MotorDrive": lambda: (
        robokin.actuators.MotorDrive,
        dict(
            torque_constant=0.1,
            current_limit=10.0,
            stall_torque=2.0,
            free_speed=300.0,
            gear_ratio=10.0,
            efficiency=0.9,
            rotor_inertia=1e-5,
            coulomb=0.05,
            viscous=0.01,
        ),
    ),
    "actuators.MotorDrive.from_electrical": lambda: (
        robokin.actuators.MotorDrive.from_electrical,
        dict(torque_constant=0.05, supply_voltage=24.0, resistance=0.5, current_limit=20.0),
    ),
    "actuators.MotorDrive.from_output_ratings": lambda: (
        robokin.actuators.MotorDrive.from_output_ratings,
        dict(stall_torque=2.5, stall_current=4.0, free_speed=30.0, gear_ratio=10.0, efficiency=0.9, current_limit=4.0),
    ),
    "actuators.MotorDrive.deliver": lambda: (
        robokin.actuators.MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0).deliver,
        dict(tau_cmd=np.array([1.0, 30.0]), joint_speed=np.array([5.0, -5.0])),
    ),
    "actuators.MotorDrive.joint_options": None,
    "actuators.MotorFile": None,  # built by load_motor from a file (text input, tested in tests/test_actuators.py)
    "actuators.load_motor": None,
    "actuators.parse_motor": None,
    "actuators.Encoder": lambda: (robokin.actuators.Encoder, dict(counts_per_rev=8192, gear_ratio=10.0)),
    "actuators.Encoder.counts": lambda: (robokin.actuators.Encoder(8192).counts, dict(angle=0.1)),
    "actuators.Encoder.quantise": lambda: (robokin.actuators.Encoder(8192).quantise, dict(angle=0.1)),
    "actuators.Encoder.rate_error_bound": lambda: (robokin.actuators.Encoder(8192).rate_error_bound, dict(dt=1e-3)),
    "actuators.rate_filter_step": lambda: (
        robokin.actuators.rate_filter_step,
        dict(
            prev_angle=np.array([0.0, 0.1]),
            prev_rate=np.array([0.0, 1.0]),
            angle=np.array([0.01, 0.2]),
            dt=1e-3,
            tau=0.005,
        ),
    ),
    "actuators.ImuNoise": lambda: (
        robokin.actuators.ImuNoise,
        dict(
            gyro_sigma=0.005,
            gyro_bias=np.array([0.0, 0.01, 0.0]),
            accel_sigma=0.05,
            accel_bias=np.array([-0.05, 0.0, 0.0]),
        ),
    ),
    "actuators.wheel_leg_imu_model": lambda: (
        robokin.actuators.wheel_leg_imu_model,
        dict(params=_obj("wlp"), fivebar=_obj("wlfb"), imu_pos=np.array([0.0, 0.0, 0.05])),
    ),
    "actuators.read_imu": None,  # reads MjData (engine output)
    "actuators.accel_pitch": lambda: (robokin.actuators.accel_pitch, dict(accel=np.array([-1.0, 0.0, 9.7]))),
    "actuators.complementary_step": lambda: (
        robokin.actuators.complementary_step,
        dict(pitch=np.array([0.0, 0.1]), rate=np.array([0.01, 0.0]), pitch_acc=np.array([0.0, 0.1]), dt=1e-3, tau=0.5),
    ),
    "actuators.complementary_bias_error": lambda: (
        robokin.actuators.complementary_bias_error,
        dict(gyro_bias=0.01, tau=0.5),
    ),
    "actuators.pitch_kalman_model": lambda: (
        robokin.actuators.pitch_kalman_model,
        dict(dt=1e-3, accel_psd=0.1, bias_psd=1e-6),
    ),
    "actuators.pitch_kalman_gain": lambda: (
        robokin.actuators.pitch_kalman_gain,
        dict(dt=1e-3, accel_psd=0.1, bias_psd=1e-6, pitch_sigma=0.005, gyro_sigma=0.005),
    ),
    "actuators.pitch_kalman_step": lambda: (
        robokin.actuators.pitch_kalman_step,
        dict(
            state=np.zeros((2, 3)),
            rate=np.array([0.01, 0.0]),
            pitch_acc=np.array([0.0, 0.1]),
            dt=1e-3,
            gain=np.asarray(
                robokin.actuators.pitch_kalman_gain(
                    1e-3, accel_psd=0.1, bias_psd=1e-6, pitch_sigma=0.005, gyro_sigma=0.005
                )
            ),
        ),
    ),
    "actuators.wheel_leg_encoder_state": lambda: (
        robokin.actuators.wheel_leg_encoder_state,
        dict(
            fivebar=_obj("wlfb"),
            q_motor=np.tile(robokin.wheel_leg.virtual_leg_inverse(_obj("wlfb"), [0.2, -1.6]), (2, 1)),
            wheel_angle=np.array([0.0, 0.1]),
            pitch=0.02,
            R=0.06,
        ),
    ),
    # stewart
    "stewart.corner_path": lambda: (
        robokin.stewart.corner_path,
        dict(
            T0=np.eye(4),
            T1=robokin.transforms.make_transform(robokin.transforms.rotz(0.4), [0.1, 0.0, 0.0]),
            T2=robokin.transforms.make_transform(robokin.transforms.rotz(0.8), [0.1, 0.1, 0.0]),
            sigma=np.array([0.0, 0.9, 1.0, 2.0]),
            blend=0.2,
            method="decoupled",
        ),
    ),
    "stewart.Stewart": lambda: (
        robokin.stewart.Stewart,
        dict(base=np.array(_obj("st").base), top=np.array(_obj("st").top), stroke=np.array([0.3, 0.6])),
    ),
    "stewart.Stewart.twist_from_leg_rates": lambda: (
        _obj("st").twist_from_leg_rates,
        dict(pose=HOME6, leg_rates=np.full(6, 0.01)),
    ),
    "stewart.Stewart.static_leg_forces": lambda: (
        _obj("st").static_leg_forces,
        dict(pose=HOME6, wrench=np.array([0.0, 0.0, 600.0, 0.0, 0.0, 0.0])),
    ),
    "stewart.Stewart.homogenized_jacobian": lambda: (_obj("st").homogenized_jacobian, dict(pose=HOME6, length=0.3)),
    "stewart.Stewart.characteristic_length": lambda: (_obj("st").characteristic_length, dict(poses=HOME6)),
    "stewart.Stewart.home_guess": lambda: (_obj("st").home_guess, dict(lengths=_obj("st").ik(HOME6).q)),
    "stewart.Stewart.fk": lambda: (_obj("st").fk, dict(lengths=_obj("st").ik(HOME6).q)),
    "stewart.Stewart.fk_solve": lambda: (_obj("st").fk_solve, dict(lengths=_obj("st").ik(HOME6).q)),
    "stewart.uniform_layout": lambda: (robokin.stewart.uniform_layout, dict(r_base=0.5, r_top=0.35, phase=0.5)),
    "stewart.paired_layout": lambda: (
        robokin.stewart.paired_layout,
        dict(r_base=0.5, r_top=0.35, base_pair_angle=0.35, top_pair_angle=0.35),
    ),
    "stewart.PlatformParams": lambda: (
        robokin.stewart.PlatformParams,
        dict(mass=10.0, inertia=np.diag([0.3, 0.3, 0.5]), com=np.zeros(3), leg_mass=0.1),
    ),
    "stewart.StewartDynamics": None,
    "stewart.StewartDynamics.inverse_dynamics": lambda: (
        _obj("dyn").inverse_dynamics,
        dict(q=HOME6, qd=np.zeros(6), qdd=np.ones(6)),
    ),
    "stewart.StewartDynamics.forward_dynamics": lambda: (
        _obj("dyn").forward_dynamics,
        dict(q=HOME6, qd=np.zeros(6), tau=np.full(6, 20.0)),
    ),
    "stewart.StewartDynamics.ode": None,
    "stewart.StrutParams": lambda: (
        robokin.stewart.StrutParams,
        dict(cylinder_mass=1.2, cylinder_com=0.12, cylinder_inertia=0.01, rod_mass=0.4, rod_com=0.1, rod_inertia=0.002),
    ),
    "stewart.StrutParams.scaled": lambda: (
        robokin.stewart.StrutParams(1.2, 0.12, 0.01, 0.4, 0.1, 0.002).scaled,
        dict(k=2.0),
    ),
    "stewart.StewartDynamics.strut_wrench": lambda: (
        _obj("dyn").strut_wrench,
        dict(
            q=HOME6,
            qd=np.zeros(6),
            qdd=np.ones(6),
            struts=robokin.stewart.StrutParams(1.2, 0.12, 0.01, 0.4, 0.1, 0.002),
        ),
    ),
    "stewart.StewartDynamics.strut_mass_matrix": lambda: (
        _obj("dyn").strut_mass_matrix,
        dict(q=HOME6, struts=robokin.stewart.StrutParams(1.2, 0.12, 0.01, 0.4, 0.1, 0.002)),
    ),
    "stewart.StewartDynamics.leg_forces": lambda: (
        _obj("dyn").leg_forces,
        dict(q=HOME6, qd=np.zeros(6), qdd=np.ones(6)),
    ),
    "stewart.leg_friction": lambda: (
        robokin.stewart.leg_friction,
        dict(
            leg_rates=np.full(6, 0.1),
            viscous=10.0,
            coulomb=5.0,
            coulomb_speed=1e-3,
            static=8.0,
            stribeck_speed=5e-3,
        ),
    ),
    # trajectory
    "trajectory.quintic_step": lambda: (
        robokin.trajectory.quintic_step,
        dict(t=0.5, t0=0.0, t1=1.0, v0=0.0, v1=1.0),
    ),
    "trajectory.quintic_boundary_matrix": lambda: (robokin.trajectory.quintic_boundary_matrix, dict(T=1.0)),
    "trajectory.quintic_coeffs": lambda: (robokin.trajectory.quintic_coeffs, dict(q0=0.0, qf=1.0, T=1.0)),
    "trajectory.quintic_eval": lambda: (
        robokin.trajectory.quintic_eval,
        dict(coeffs=robokin.trajectory.quintic_coeffs(0.0, 1.0, 2.0), tau=1.0),
    ),
    "trajectory.PiecewiseQuintic": lambda: (
        robokin.trajectory.PiecewiseQuintic,
        dict(times=np.array(_obj("traj").times), coeffs=np.array(_obj("traj").coeffs)),
    ),
    "trajectory.PiecewiseQuintic.evaluate": lambda: (_obj("traj").evaluate, dict(t=0.5)),
    "trajectory.PiecewiseQuintic.sample": lambda: (_obj("traj").sample, dict(per_segment=20)),
    "trajectory.PiecewiseQuintic.join_jumps": None,
    "trajectory.plan_quintic": lambda: (
        robokin.trajectory.plan_quintic,
        dict(waypoints=np.array([[0.0], [1.0], [0.0]]), times=np.array([0.0, 1.0, 2.0])),
    ),
    "trajectory.allocate_times": lambda: (
        robokin.trajectory.allocate_times,
        dict(waypoints=np.array([[0.0], [1.0], [4.0]]), total=4.0, method="distance"),
    ),
    "trajectory.segment_peaks": None,
    "trajectory.LimitReport.check": None,
    "trajectory.check_limits": lambda: (
        robokin.trajectory.check_limits,
        dict(traj=_obj("traj"), vmax=2.0, amax=5.0, jmax=100.0),
    ),
    "trajectory.minimum_time": lambda: (
        robokin.trajectory.minimum_time,
        dict(waypoints=np.array([[0.0, 0.0], [1.0, 0.2]]), vmax=1.0, amax=2.0),
    ),
    "trajectory.branch_sequence": lambda: (
        robokin.trajectory.branch_sequence,
        dict(
            q_branches=np.array([[[0.0], [3.0]], [[2.9], [0.2]], [[0.1], [3.1]]]),
            valid=np.ones((3, 2), bool),
            q_start=np.array([0.0]),
        ),
    ),
    "trajectory.sphere_penalty": lambda: (
        robokin.trajectory.sphere_penalty,
        dict(points=np.array([[0.0, 0.0, 0.5]]), centre=np.zeros(3), radius=1.0),
    ),
    "trajectory.scaled_total": lambda: (
        robokin.trajectory.scaled_total,
        dict(waypoints=np.array([[0.0], [1.0], [0.0]]), durations=np.array([1.0, 1.0]), vmax=1.0, amax=2.0),
    ),
    "trajectory.integral_square": lambda: (robokin.trajectory.integral_square, dict(traj=_obj("traj"), order=2)),
    "trajectory.cubic_coeffs": lambda: (robokin.trajectory.cubic_coeffs, dict(q0=0.0, qf=1.0, T=1.0)),
    "trajectory.plan_cubic": lambda: (
        robokin.trajectory.plan_cubic,
        dict(waypoints=np.array([[0.0], [1.0], [0.0]]), times=np.array([0.0, 1.0, 2.0])),
    ),
    "trajectory.trapezoidal": lambda: (robokin.trajectory.trapezoidal, dict(q0=0.0, qf=1.0, vmax=1.0, amax=2.0)),
    "trajectory.s_curve": lambda: (robokin.trajectory.s_curve, dict(q0=0.0, qf=1.0, vmax=1.0, amax=2.0, jmax=10.0)),
    "trajectory.SwitchProfile.evaluate": lambda: (
        robokin.trajectory.s_curve(0.0, 1.0, vmax=1.0, amax=2.0, jmax=10.0).evaluate,
        dict(t=np.array([0.0, 0.5])),
    ),
    "trajectory.SwitchProfile.join_jumps": None,
    "trajectory.weighted_objective": lambda: (
        robokin.trajectory.weighted_objective,
        dict(traj=_obj("traj"), time=1.0, jerk=0.1, effort=0.1),
    ),
    "trajectory.pareto_mask": lambda: (robokin.trajectory.pareto_mask, dict(points=np.array([[1.0, 2.0], [2.0, 1.0]]))),
    "trajectory.via_blend": lambda: (
        robokin.trajectory.via_blend,
        dict(waypoints=np.array([[0.0, 0.0], [1.0, 0.5], [0.0, 1.0]]), durations=np.array([1.0, 1.0]), t_acc=0.2),
    ),
    "trajectory.capsule_sphere_distance": lambda: (
        robokin.trajectory.capsule_sphere_distance,
        dict(
            a=np.array([[-1.0, 0.0, 0.5]]),
            b=np.array([[1.0, 0.0, 0.5]]),
            link_radius=0.1,
            centre=np.zeros(3),
            radius=0.2,
        ),
    ),
    "trajectory.barrier_penalty": lambda: (
        robokin.trajectory.barrier_penalty,
        dict(distance=np.array([0.02, 0.05]), margin=0.01, width=0.02, kind="log"),
    ),
    # transforms
    "transforms.euler_to_matrix": lambda: (
        robokin.transforms.euler_to_matrix,
        dict(angles=np.array([0.1, 0.2, 0.3]), order="zyx"),
    ),
    "transforms.zyx_rate_matrix": lambda: (
        robokin.transforms.zyx_rate_matrix,
        dict(rpy=np.array([0.1, 0.2, 0.3]), frame="world"),
    ),
    "transforms.make_transform": lambda: (
        robokin.transforms.make_transform,
        dict(R=np.eye(3), p=np.array([1.0, 0.0, 0.0])),
    ),
    "transforms.quat_from_matrix": lambda: (robokin.transforms.quat_from_matrix, dict(R=np.eye(3), order="xyzw")),
    "transforms.matrix_from_quat": lambda: (
        robokin.transforms.matrix_from_quat,
        dict(q=np.array([0.5, 0.5, 0.5, 0.5]), order="wxyz"),
    ),
    "transforms.quat_multiply": lambda: (
        robokin.transforms.quat_multiply,
        dict(p=np.array([0.5, 0.5, 0.5, 0.5]), q=np.array([1.0, 0.0, 0.0, 0.0]), order="wxyz"),
    ),
    "transforms.rotation_distance": lambda: (
        robokin.transforms.rotation_distance,
        dict(R1=np.eye(3), R2=robokin.transforms.rotz(0.2)),
    ),
    "transforms.transform_points": lambda: (
        robokin.transforms.transform_points,
        dict(T=np.eye(4), points=np.array([1.0, 2.0, 3.0])),
    ),
    "transforms.interpolate_pose": lambda: (
        robokin.transforms.interpolate_pose,
        dict(T0=np.eye(4), T1=robokin.transforms.make_transform(robokin.transforms.rotz(0.5), [1.0, 0.0, 0.0]), s=0.5),
    ),
    # ur5
    "ur5.UR5Arm": lambda: (
        robokin.ur5.UR5Arm,
        dict(a=_obj("ur5").a, alpha=_obj("ur5").alpha, d=_obj("ur5").d, offset=np.zeros(6), convention="standard"),
    ),
    "ur5.wrist_singular": lambda: (robokin.ur5.wrist_singular, dict(q=np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]))),
    "ur5.make_ur5": lambda: (robokin.ur5.make_ur5, dict(d1=0.089159)),
    "ur5.URArm.ik": lambda: (_obj("ur5").ik, dict(T=_ur5_pose())),
    "ur5.URArm": lambda: (
        robokin.ur5.URArm,
        dict(a=_obj("ur5").a, alpha=_obj("ur5").alpha, d=_obj("ur5").d, offset=np.zeros(6), convention="standard"),
    ),
    "ur5.make_ur_arm": lambda: (robokin.ur5.make_ur_arm, dict(geometry=robokin.ur5.UR5_GEOMETRY)),
    "ur5.ur_geometry": lambda: (
        robokin.ur5.ur_geometry,
        dict(a=np.array(_obj("ur5").a), alpha=np.array(_obj("ur5").alpha), d=np.array(_obj("ur5").d)),
    ),
    "serial.to_modified": lambda: (robokin.serial.to_modified, dict(arm=_obj("serial"))),
    "serial.to_standard": lambda: (robokin.serial.to_standard, dict(arm=_obj("serial"))),
    "ur5.nearest": lambda: (
        robokin.ur5.nearest,
        dict(
            q_branches=_obj("ur5").ik(_ur5_pose()).q,
            valid=_obj("ur5").ik(_ur5_pose()).valid,
            q_ref=np.array([0.3, -1.1, 1.4, -0.4, 1.0, 0.7]),
        ),
    ),
    "ur5.joint_representatives": lambda: (
        robokin.ur5.joint_representatives,
        dict(q=np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]), qlim=robokin.ur5.QLIM),
    ),
    "ur5.nearest_representative": lambda: (
        robokin.ur5.nearest_representative,
        dict(q=np.array([0.3, -1.2, 1.5, -0.4, 1.1, 0.7]), q_ref=np.zeros(6), qlim=robokin.ur5.QLIM),
    ),
    "serial.screw_axes": lambda: (robokin.serial.screw_axes, dict(arm=_obj("serial"), frame="space")),
    "serial.poe_fk": lambda: (
        robokin.serial.poe_fk,
        dict(M=np.eye(4), screws=np.array([[0.0, -1.0, 0.0, 0.0, 0.0, 1.0]]), q=np.array([0.3]), frame="space"),
    ),
    "ur5.pose_residual": lambda: (robokin.ur5.pose_residual, dict(T_a=np.eye(4), T_b=np.eye(4))),
    "ur5.inertial_parameters": None,
    "ur5.contest_table": lambda: (
        robokin.ur5.contest_table,
        dict(traj=_obj("traj"), branch=["a", "a"], decimals=4, time_decimals=2),
    ),
    "serial.pose_error_bound": lambda: (robokin.serial.pose_error_bound, dict(arm=_obj("ur5"), dq=np.full(6, 5e-5))),
    # wheel_leg
    "wheel_leg.WheelLegParams": lambda: (robokin.wheel_leg.WheelLegParams, dict(m_b=12.0, I_b=0.25, I_w=0.00288)),
    "wheel_leg.GainSchedule.__call__": lambda: (_obj("sched"), dict(L0=0.2)),
    "wheel_leg.WheelLegDynamics": lambda: (robokin.wheel_leg.WheelLegDynamics, dict(params=_obj("wlp"))),
    "wheel_leg.WheelLegDynamics.bias": lambda: (
        _obj("wlm").bias,
        dict(q=np.array([0.0, 0.1, 0.0]), qd=np.array([0.1, 0.2, 0.0]), L0=0.2, L0_dot=0.1),
    ),
    "wheel_leg.WheelLegDynamics.inverse_dynamics": lambda: (
        _obj("wlm").inverse_dynamics,
        dict(q=np.array([0.0, 0.1, 0.0]), qd=np.zeros(3), qdd=np.ones(3), L0=0.2, f_body=1.0),
    ),
    "wheel_leg.WheelLegDynamics.forward_dynamics": lambda: (
        _obj("wlm").forward_dynamics,
        dict(q=np.array([0.0, 0.1, 0.0]), qd=np.zeros(3), u=np.zeros(2), L0=0.2, L0_dot=0.1),
    ),
    "wheel_leg.WheelLegDynamics.state_derivative": lambda: (
        _obj("wlm").state_derivative,
        dict(state=np.zeros(6), u=np.zeros(2), L0=0.2, L0_dot=0.1),
    ),
    "wheel_leg.WheelLegDynamics.normal_force": lambda: (
        _obj("wlm").normal_force,
        dict(q=np.zeros(3), qd=np.zeros(3), u=np.zeros(2), L0=0.2, L0_ddot=0.1),
    ),
    "wheel_leg.WheelLegDynamics.input_matrix": None,
    "wheel_leg.to_state": lambda: (robokin.wheel_leg.to_state, dict(q=np.array([0.1, 0.2, 0.3]), qd=np.zeros(3))),
    "wheel_leg.from_state": lambda: (robokin.wheel_leg.from_state, dict(state=np.arange(6.0))),
    "wheel_leg.linearize": lambda: (robokin.wheel_leg.linearize, dict(model=_obj("wlm"), L0=0.2)),
    "wheel_leg.lqr_gain": lambda: (
        robokin.wheel_leg.lqr_gain,
        dict(model=_obj("wlm"), L0=0.2, Q=np.diag(robokin.wheel_leg.Q_DEFAULT), R=np.diag(robokin.wheel_leg.R_DEFAULT)),
    ),
    "wheel_leg.gain_schedule": lambda: (
        robokin.wheel_leg.gain_schedule,
        dict(model=_obj("wlm"), L0_grid=np.linspace(0.12, 0.32, 4), degree=2),
    ),
    "wheel_leg.closed_loop_eigs": lambda: (
        robokin.wheel_leg.closed_loop_eigs,
        dict(model=_obj("wlm"), L0=0.2, K=robokin.wheel_leg.lqr_gain(_obj("wlm"), L0=0.2)),
    ),
    "wheel_leg.simulate": lambda: (
        robokin.wheel_leg.simulate,
        dict(
            model=_obj("wlm"),
            controller=_obj("sched"),
            q0=np.array([0.0, 0.05, 0.0]),
            qd0=np.zeros(3),
            t_end=0.1,
            L0=0.2,
            u_max=np.array([5.0, 5.0]),
            n_out=3,
        ),
    ),
    "wheel_leg.speed_reference": lambda: (robokin.wheel_leg.speed_reference, dict(v=1.0, t0=0.5, t1=1.5)),
    "wheel_leg.dlqr_gain": lambda: (robokin.wheel_leg.dlqr_gain, dict(model=_obj("wlm"), L0=0.2, dt=0.01)),
    "wheel_leg.discretize": lambda: (robokin.wheel_leg.discretize, dict(model=_obj("wlm"), L0=0.2, dt=0.01)),
    "wheel_leg.simulate_sampled": lambda: (
        robokin.wheel_leg.simulate_sampled,
        dict(
            model=_obj("wlm"),
            K=robokin.wheel_leg.lqr_gain(_obj("wlm"), L0=0.2),
            q0=np.array([0.0, 0.05, 0.0]),
            qd0=np.zeros(3),
            t_end=0.05,
            L0=0.2,
            dt=0.01,
            u_max=np.array([5.0, 5.0]),
            substeps=2,
        ),
    ),
    "wheel_leg.push_recovery": lambda: (
        robokin.wheel_leg.push_recovery,
        dict(
            model=_obj("wlm"),
            K=robokin.wheel_leg.lqr_gain(_obj("wlm"), L0=0.2),
            L0=0.2,
            dt=0.01,
            amplitudes=np.array([10.0, 20.0]),
            push_start=0.01,
            push_duration=0.02,
            t_end=0.05,
            u_max=np.array([5.0, 5.0]),
            tol=0.01,
            substeps=1,
            mu=0.6,
        ),
    ),
    "wheel_leg.WheelLegDynamics.ground_force": lambda: (
        _obj("wlm").ground_force,
        dict(q=np.zeros(3), qd=np.zeros(3), u=np.zeros(2), L0=0.2, L0_ddot=0.1, f_body=1.0),
    ),
    "wheel_leg.normal_force_estimate": lambda: (
        robokin.wheel_leg.normal_force_estimate,
        dict(
            params=_obj("wlp"),
            F=150.0,
            Tp=0.5,
            T=0.2,
            L0=0.2,
            L0_dot=0.1,
            L0_ddot=0.5,
            theta=0.05,
            theta_dot=0.1,
            theta_ddot=0.2,
            x_ddot=0.3,
            z_hip_ddot=0.1,
        ),
    ),
    "wheel_leg.joint_handover": lambda: (
        robokin.wheel_leg.joint_handover,
        dict(
            fivebar=_obj("wlfb"),
            q=robokin.wheel_leg.virtual_leg_inverse(_obj("wlfb"), [0.2, -1.5]),
            qd=np.array([0.3, -0.2]),
            F=75.0,
            Tp=1.0,
            K_leg=np.diag([800.0, 20.0]),
            D_leg=np.diag([40.0, 1.0]),
        ),
    ),
    "wheel_leg.virtual_leg": lambda: (
        robokin.wheel_leg.virtual_leg,
        dict(fivebar=_obj("wlfb"), q=robokin.wheel_leg.virtual_leg_inverse(_obj("wlfb"), [0.2, -1.5])),
    ),
    "wheel_leg.virtual_leg_jacobian": lambda: (
        robokin.wheel_leg.virtual_leg_jacobian,
        dict(fivebar=_obj("wlfb"), q=robokin.wheel_leg.virtual_leg_inverse(_obj("wlfb"), [0.2, -1.5])),
    ),
    "wheel_leg.virtual_leg_inverse": lambda: (
        robokin.wheel_leg.virtual_leg_inverse,
        dict(fivebar=_obj("wlfb"), leg=np.array([0.2, -1.5])),
    ),
    "wheel_leg.vmc_torques": lambda: (
        robokin.wheel_leg.vmc_torques,
        dict(fivebar=_obj("wlfb"), q=robokin.wheel_leg.virtual_leg_inverse(_obj("wlfb"), [0.2, -1.5]), F=75.0, Tp=1.0),
    ),
}

#: Method recipes by parameter name, for the many methods that take a single joint/pose array.
_METHOD_DEFAULTS = {
    "dynamics.TwoLinkArm": ("arm", {"q": [0.3, -0.7], "qd": [1.0, 2.0], "qdd": [0.5, -1.5], "tau": [1.0, 0.5]}),
    "leg2.TwoLinkLeg": ("leg", {"q": [0.2, 1.0]}),
    "leg3.ThreeDofLeg": ("leg3", {"q": [0.1, 0.2, 1.0], "F": [0.0, 0.0, -30.0]}),
    "fivebar.FiveBar": ("fb", {"q": [np.pi, 0.0]}),
    "stewart.Stewart": ("st", {"pose": HOME6}),
    "stewart.StewartDynamics": ("dyn", {"q": HOME6, "qd": np.full(6, 0.1)}),
    "wheel_leg.WheelLegDynamics": ("wlm", {"q": np.array([0.0, 0.1, 0.0]), "L0": 0.2}),
    "serial.SerialArm": ("serial", {"q": [0.1, 0.5]}),
    "dynamics.SerialDynamics": ("sdyn", {"q": [0.3, -0.7], "qd": [1.0, 2.0], "qdd": [0.5, -1.5], "tau": [1.0, 0.5]}),
}
#: Functions by parameter name (transforms and similar single-array functions).
_FUNCTION_DEFAULTS = {
    "angle": 0.3,
    "theta": 0.3,
    "rpy": [0.1, 0.2, 0.3],
    "R": np.eye(3),
    "S": robokin.transforms.hat([0.1, 0.2, 0.3]),
    "w": [0.1, 0.2, 0.3],
    "omega": [0.1, 0.2, 0.3],
    "T": np.eye(4),
    "xi": [0.1, 0.2, 0.3, 0.01, 0.02, 0.03],
    "q": [0.3, -0.4],
}


def recipe(key):
    """(callable, kwargs) for entry point ``key``; None when it takes no numeric input."""
    if key in RECIPES:
        r = RECIPES[key]
        return None if r is None else r()
    parts = key.split(".")
    cls = ".".join(parts[:2])
    if len(parts) == 3 and cls in _METHOD_DEFAULTS:
        inst, table = _METHOD_DEFAULTS[cls]
        fn = getattr(_obj(inst), parts[2])
        defaults = table
    elif len(parts) == 2:
        fn, defaults = ENTRIES[key], _FUNCTION_DEFAULTS
    else:
        raise LookupError(f"no recipe for {key}")
    kw = {}
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or name == "self":
            continue
        if p.default is p.empty:
            if name not in defaults:
                if name in ("rng", "fast"):
                    continue
                raise LookupError(f"no recipe for {key}: required parameter {name!r}")
            kw[name] = np.asarray(defaults[name], dtype=float)
    if not kw and set(inspect.signature(fn).parameters) <= {"self", "rng", "fast"}:
        return None
    return fn, kw


# ----------------------------------------------------------------------------- hostile variants
VARIANTS = ("complex", "nan", "inf", "huge", "shape", "string")


def _is_numeric(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "if" and v.size > 0
    return False


def hostile(v, variant):
    if variant == "string":
        return "abc"
    a = np.array(v, dtype=float)
    if variant == "complex":
        return complex(float(a), 1.0) if a.ndim == 0 else a + 1j
    if variant == "shape":
        return np.concatenate([a, a[..., :1]], axis=-1)
    bad = {"nan": np.nan, "inf": np.inf, "huge": 1e300}[variant]
    if a.ndim == 0:
        return bad if isinstance(v, float) or isinstance(v, np.floating) else (bad if variant != "huge" else 10**300)
    a.flat[0] = bad
    return a


#: (entry point, argument) pairs where a variant is accepted by design, with the reason.
ACCEPTED = {
    ("leg2.TwoLinkLeg", "q_min", "inf"): "an infinite joint limit means unlimited",
    ("control.tracking_controller", "tau_max", "inf"): "tau_max = inf on a joint is the documented no limit",
    ("control.Controller", "tau_max", "inf"): "tau_max = inf on a joint is the documented no limit",
    ("leg2.TwoLinkLeg", "q_max", "inf"): "an infinite joint limit means unlimited",
    ("ur5.nearest", "q_branches", "nan"): "NaN rows mark invalid IK branches",
    ("ur5.nearest", "q_branches", "inf"): "non-finite rows are invalid branches, masked by valid",
    ("ur5.wrist_singular", "q", "nan"): "NaN rows (invalid IK branches) are documented to give False",
    ("ur5.wrist_singular", "q", "inf"): "non-finite rows (invalid IK branches) are documented to give False",
    ("ur5.wrist_singular", "q", "-inf"): "non-finite rows (invalid IK branches) are documented to give False",
    ("trajectory.branch_sequence", "q_branches", "nan"): "NaN rows mark invalid IK branches",
    ("trajectory.branch_sequence", "q_branches", "inf"): "non-finite rows are invalid branches, masked by valid",
    ("ik.damping_squared", "sigma_threshold", "inf"): "sigma_threshold = inf is the documented constant damping",
    **{
        ("ur5.ur_geometry", x, "shape"): "a table of another length is not a UR arm: None is the documented answer"
        for x in ("a", "alpha", "d")
    },
    **{
        (f"trajectory.{f}", lim, "inf"): "an infinite limit leaves that derivative unconstrained"
        for f in ("check_limits", "minimum_time", "scaled_total")
        for lim in ("vmax", "amax", "jmax")
    },
    **{
        (f"trajectory.{f}", lim, "inf"): "an infinite limit leaves that derivative unconstrained"
        for f, lim in (("trapezoidal", "vmax"), ("s_curve", "vmax"), ("s_curve", "amax"))
    },
}
#: Arguments whose length is free (any trailing size is valid), so "shape" is not hostile for them.
SHAPE_FREE = {
    ("wheel_leg.push_recovery", "amplitudes"),  # one run per push: any number of pushes
    ("trajectory.scaled_total", "waypoints"),
    ("trajectory.barrier_penalty", "distance"),
    ("ident.segment_excitation", "t"),
    ("ident.qr_base_parameters", "Y"),  # any number of parameter columns
    ("stewart.corner_path", "sigma"),
    ("checks.check_errors", "errors"),
    ("scenarios.roll_from_legs", "dL"),  # batched, any leading shape (broadcast with cross_slope)
    ("scenarios.roll_from_legs", "cross_slope"),
    ("scenarios.legs_for_roll", "roll"),
    ("scenarios.legs_for_roll", "cross_slope"),
    ("scenarios.yaw_acceleration", "dT"),
    ("checks.check_close", "actual"),
    ("checks.check_close", "expected"),
    ("checks.jacobian_fd", "x"),
    ("control.quintic", "t"),
    ("control.simulate_ivp", "t_eval"),
    ("control.ImpedanceController.hold", "t"),  # times of any shape (the simulators pass (K,))
    ("leg2.gait_state", "phase"),
    ("leg2.gait_phase", "offsets"),
    ("mecanum.fit_pwm", "u"),
    ("mecanum.fit_pwm", "w"),
    ("trajectory.plan_quintic", "waypoints"),
    ("trajectory.allocate_times", "waypoints"),
    ("ident.lowpass", "x"),
    ("ident.encoder_reading", "q"),
    ("checks.residual_scan", "targets"),
    ("checks.fk_ik_roundtrip", "q"),
    ("wheel_leg.gain_schedule", "L0_grid"),
    ("ident.least_squares", "Y"),
    ("trajectory.branch_sequence", "q_start"),
    ("control.quintic_reference", "q0"),
    ("mecanum.fuse_heading", "omega_gyro"),
    ("mecanum.fuse_heading", "omega_wheel"),
    ("trajectory.minimum_time", "waypoints"),
    ("trajectory.plan_cubic", "waypoints"),
    ("trajectory.SwitchProfile.evaluate", "t"),
    ("trajectory.pareto_mask", "points"),
    ("trajectory.via_blend", "waypoints"),
    ("serial.SerialArm", "a"),
    ("serial.SerialArm.from_dh", "a"),
    ("ident.fourier_excitation", "t"),
    ("ident.fourier_excitation", "a"),
    ("ident.estimate_derivatives", "q"),
    ("sim.MotorModel.saturate", "tau"),
}


# Failures in modules owned by other maintainers, kept visible as strict xfails (see the module docstring):
# (entry point, argument, variant) -> what happened. Regenerate after fixes with
# ROBOKIN_HOSTILE_NO_XFAIL=1 pytest tests/test_hostile.py (which lists every failure without the marks).
KNOWN = {}  # empty: every entry point of every module passes the sweep
if os.environ.get("ROBOKIN_HOSTILE_NO_XFAIL"):
    KNOWN = {}
#: Modules maintained with this sweep: they may not appear in KNOWN.
OWN = ("_validate", "errors", "wheel_leg", "dynamics", "mecanum", "leg2", "stewart", "fivebar")
OWN += ("plotting", "ident", "trajectory", "ur5", "sim", "serial")


def test_known_failures_are_not_in_swept_modules_of_this_issue():
    assert not [k for k in KNOWN if k[0].split(".")[0] in OWN]


def _cases():
    out = []
    for key in sorted(ENTRIES):
        try:
            r = recipe(key)
        except LookupError:
            continue  # reported by test_every_entry_point_has_a_recipe
        if r is None:
            continue
        _, kw = r
        for arg, val in kw.items():
            if not _is_numeric(val):
                continue
            for variant in VARIANTS:
                if variant == "shape" and (np.ndim(val) == 0 or (key, arg) in SHAPE_FREE):
                    continue
                if (key, arg, variant) in ACCEPTED:
                    continue
                marks = ()
                reason = KNOWN.get((key, arg, variant))
                if reason:
                    marks = (pytest.mark.xfail(strict=True, reason=reason),)
                out.append(pytest.param(key, arg, variant, id=f"{key}-{arg}-{variant}", marks=marks))
    return out


class _Timeout(Exception):
    pass


def _call_with_timeout(fn, kw, seconds=20.0):
    def handler(signum, frame):
        raise _Timeout(f"no answer within {seconds} s (hang)")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(**kw)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_every_entry_point_has_a_recipe():
    missing = []
    for key in ENTRIES:
        try:
            recipe(key)
        except LookupError as e:
            missing.append(str(e))
    assert not missing, "add valid arguments to tests/test_hostile.py for: " + "; ".join(missing)
    assert len(ENTRIES) > 150


def test_no_recipe_for_a_name_that_is_gone():
    """A recipe whose entry point was renamed or removed would silently test nothing."""
    stale = sorted(set(RECIPES) - set(ENTRIES))
    assert not stale, f"recipes for entry points that no longer exist: {stale}"


@pytest.mark.parametrize(
    "key", sorted(k for k in ENTRIES if k in RECIPES and RECIPES[k] is not None or k not in RECIPES)
)
def test_valid_arguments_work(key):
    """The table itself is right: the unmodified call succeeds (so a hostile failure is the input's fault)."""
    r = recipe(key)
    if r is None:
        pytest.skip("no numeric input")
    fn, kw = r
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _call_with_timeout(fn, kw)


@pytest.mark.parametrize("key, arg, variant", _cases())
def test_hostile_argument_raises_value_error(key, arg, variant):
    fn, kw = recipe(key)
    kw = dict(kw)
    kw[arg] = hostile(kw[arg], variant)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # an overflow/invalid warning is a silent failure
        warnings.filterwarnings("ignore", category=robokin.errors.SingularityWarning)
        try:
            out = _call_with_timeout(fn, kw)
        except ValueError as e:
            assert str(e).strip(), "ValueError without a message"
            return
        except AssertionError as e:
            if key.startswith("checks.") and variant in ("nan", "inf", "huge") and arg not in ("tol",):
                return  # a machine check's documented verdict on bad data is CheckFailed (an AssertionError)
            pytest.fail(f"{key}({arg}={variant}) raised {type(e).__name__}: {e}")
        except _Timeout as e:
            pytest.fail(f"{key}({arg}={variant}) hung: {e}")
        except Exception as e:  # noqa: BLE001 - the point of the sweep
            pytest.fail(f"{key}({arg}={variant}) raised {type(e).__name__}: {e}")
    pytest.fail(f"{key}({arg}={variant}) returned silently: {type(out).__name__}")


# ============================================================================= full sweep (issue 29)
# Every parameter of every swept entry point, keywords included (their valid value is the recipe's or the
# signature's default), replaced by each of >= 20 variants. Each call runs in a worker subprocess under an address
# space limit (resource.setrlimit) and a per-call timer; the parent restarts a worker that dies or stops answering
# and charges the case in progress as a hang. Outcomes:
#   clean         robokin's own exception (robokin.errors, checks.CheckFailed) or a ValueError/TypeError raised
#                 inside robokin whose message names the argument; a user callback's own exception passing through
#   correct       an equivalent input (float32, 0-d, list, int) gives the float64 call's answer; a plausible one
#                 (zero, tiny, negative, large batch, bool) gives a finite answer without warnings
#   by design     accepted on purpose (SWEEP_BY_DESIGN, with the reason)
#   undocumented  any other exception: numpy's ValueError text, LinAlgError, AttributeError, a RuntimeWarning...
#   silent NaN    returned NaN/inf where the float64 call did not
#   wrong         accepted an input that is never valid, or an equivalent input changed the answer
#   hang          no answer within the time limit, or the memory limit hit
#: Modules maintained with this sweep: every failure there fails the test. Failures in any other module are
#: listed as "owned elsewhere" and printed, not asserted.
SWEEP_OWNED = (
    "plotting",
    "leg3",
    "ident",
    "trajectory",
    "ur5",
    "sim",
    "serial",
    "checks",
    "control",
    "ik",
    "transforms",
    "leg2",
    "fivebar",
    "wheel_leg",
    "stewart",
    "mecanum",
    "dynamics",
    "results",
    "render",
    "urdf",
    "stewart_mujoco",
)
SWEEP_TIME = 10.0  # s per call (generous: the machine may be shared; a hang costs this much)
SWEEP_BATCH_TIME = 30.0  # s per call for the large-batch variant
SWEEP_MEMORY = 3 << 30  # bytes of address space per worker
SWEEP_BATCH = 10_000  # rows of the large-batch variant (capped so the sweep stays near two minutes)
SWEEP_OUTCOMES = ("clean", "correct", "by design", "undocumented", "silent NaN", "wrong", "hang")
#: (entry point, parameter, variant or "*") accepted on purpose, with the reason.
SWEEP_BY_DESIGN = {
    ("control.tracking_controller", "tau_max", "inf"): "tau_max = inf on a joint is the documented no limit",
    ("control.Controller", "tau_max", "inf"): "tau_max = inf on a joint is the documented no limit",
    ("checks.residual_scan", "targets", "zeros"): "the user's inverse (np.log) warns at 0: the callback's own warning",
    ("checks.residual_scan", "targets", "tiny-entry"): "the user's inverse (np.log) at 1e-300: its own warning",
    ("fivebar.FiveBar.ik_numeric", "p", "batch"): "one scipy least_squares per target (~1.4 ms, documented): "
    "10,000 targets take ~14 s, linear in the batch",
    ("leg2.TwoLinkLeg", "q_min", "-inf"): "an infinite joint limit means unlimited",
    ("leg2.TwoLinkLeg", "q_max", "inf"): "an infinite joint limit means unlimited",
    **{
        (key, frame, "None"): "None means no fixed transform (the identity), as documented in SerialArm.from_dh"
        for key in ("serial.SerialArm", "ur5.UR5Arm", "ur5.URArm")
        for frame in ("base", "tool")
    },
    **{
        (key, "label", "string"): "a label is a string (the variant's text is a valid label)"
        for key in ("plotting.draw_arm", "plotting.draw_frame")
    },
    ("ur5.make_ur5", "qlim", "None"): "qlim=None is the documented arm without joint limits",
    ("ur5.make_ur_arm", "qlim", "None"): "qlim=None is the documented arm without joint limits",
    ("trajectory.branch_sequence", "max_step", "None"): "max_step=None is the documented, explicit opt-out of the "
    "branch-jump check (sparse waypoints)",
    ("trajectory.check_limits", "jmax", "None"): "jmax=None means unlimited jerk: the report's jerk limit is inf "
    "and its ratio 0, as documented",
    **{
        ("trajectory.barrier_penalty", "distance", v): "the barrier is documented to be +inf at and below the "
        "margin: it forbids the inflated obstacle outright"
        for v in ("tiny", "zero", "negative", "tiny-entry", "zeros")
    },
}


class _UserError(Exception):
    """Raised by a hostile callback: passing it through unchanged is the documented behaviour."""


def _nan_like(out):
    try:
        return np.asarray(out, dtype=float) * np.nan
    except (TypeError, ValueError):
        return np.nan


def _callback_variants(cb):
    def make(kind):
        def f(*a, **k):
            if kind == "raise":
                raise _UserError("callback failed")
            out = cb(*a, **k)
            if kind == "nan":
                return _nan_like(out)
            if kind == "inf":
                return np.asarray(out, dtype=float) + np.inf
            if kind == "complex":
                return np.asarray(out) + 1j
            if kind == "huge":
                return np.asarray(out, dtype=float) * 0 + 1e300
            if kind == "shape":
                return np.append(np.asarray(out, dtype=float).ravel(), 0.0)
            if kind == "none":
                return None
            if kind == "text":
                return "abc"
            if kind == "float32":
                return np.asarray(out).astype(np.float32) if np.asarray(out).dtype.kind == "f" else out
            if kind == "list":
                return np.asarray(out).tolist() if isinstance(out, np.ndarray) else out
            raise AssertionError(kind)

        return f

    out = [(f"cb_{k}", make(k), "hostile") for k in ("raise", "nan", "inf", "complex", "huge", "shape", "none", "text")]
    return out + [(f"cb_{k}", make(k), "equal") for k in ("float32", "list")]


def _ragged():
    return [[1.0, 2.0], [1.0]]


def sweep_variants(value, default_none=False):
    """[(variant, value, expectation)] for one parameter whose valid value is ``value``.

    expectation: "hostile" (must be refused), "plausible" (a finite answer or a clean refusal), or "equal"
    (must give the float64 call's answer, computed with the same value converted to float64, or be refused cleanly).
    """
    none = "plausible" if default_none or value is None else "hostile"
    generic = [
        ("nan", np.nan, "hostile"),
        ("inf", np.inf, "hostile"),
        ("-inf", -np.inf, "hostile"),
        ("complex", 1.0 + 1.0j, "hostile"),
        ("huge", 1e300, "hostile"),
        ("hugeint", 10**30, "hostile"),
        ("1e13", 1e13, "plausible"),  # just above robokin's SI bound: issue 29's atol=1e13 ran past 120 s
        ("tiny", 1e-300, "plausible"),
        ("zero", 0.0, "plausible"),
        ("negative", -1.0, "plausible"),
        ("bool", True, "plausible"),
        ("None", None, none),
        ("string", "abc", "hostile"),
        ("object", object(), "hostile"),
        ("empty", np.array([]), "plausible"),
        ("ragged", _ragged(), "hostile"),
        ("cb_nan", lambda *a, **k: np.nan, "hostile"),
        ("cb_raise", lambda *a, **k: (_ for _ in ()).throw(_UserError("callback failed")), "hostile"),
        ("class", float, "hostile"),
        ("dict", {}, "hostile"),
        ("objects", [object(), object()], "hostile"),
        ("module", np, "hostile"),
    ]
    if isinstance(value, bool) or isinstance(value, np.bool_):
        generic = [(n, v, "equal" if n == "bool" else e) for n, v, e in generic]
        return generic + [("np.bool_", np.bool_(value), "equal"), ("int01", int(value), "plausible")]
    if isinstance(value, str):
        generic = [(n, v, "plausible" if n == "string" else e) for n, v, e in generic]
        return generic + [("upper", value.upper(), "plausible"), ("padded", f" {value} ", "plausible")]
    if callable(value) and not isinstance(value, type) and inspect.isfunction(value) or isinstance(value, np.ufunc):
        return [v for v in generic if not v[0].startswith("cb_")] + _callback_variants(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        out = generic + [
            ("float32", np.float32(v), "equal"),
            ("0-d", np.array(v), "equal"),
            ("-v", -v, "plausible"),
            ("vector", np.array([v, v]), "plausible"),
            ("batch", np.full(SWEEP_BATCH, v), "plausible"),
        ]
        if isinstance(value, (int, np.integer)):
            out += [("np.int64", np.int64(value), "equal"), ("as-float", float(value), "plausible")]
        elif v.is_integer() and abs(v) < 2**31:
            out += [("int", int(v), "equal")]
        return out
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size:
        a = value.astype(float)
        first = lambda x: np.concatenate([[x], a.ravel()[1:]]).reshape(a.shape)  # noqa: E731
        rows = max(1, min(SWEEP_BATCH, 10**6 // a.size))
        out = [v for v in generic if v[0] not in ("nan", "inf", "-inf", "huge", "complex")] + [
            ("nan", first(np.nan), "hostile"),
            ("inf", first(np.inf), "hostile"),
            ("-inf", first(-np.inf), "hostile"),
            ("huge", first(1e300), "hostile"),
            ("complex", a + 1j, "hostile"),
            ("tiny-entry", first(1e-300), "plausible"),
            ("zeros", np.zeros_like(a), "plausible"),
            ("float32", a.astype(np.float32), "equal"),
            ("list", a.tolist(), "equal"),
            ("shape", np.concatenate([a, a[..., :1]], axis=-1), "plausible"),
            ("scalar", float(a.ravel()[0]), "plausible"),
            ("empty-rows", np.empty((0,) + a.shape), "plausible"),
            ("batch", np.broadcast_to(a, (rows,) + a.shape).copy(), "plausible"),
        ]
        if value.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)) and np.abs(a).max() < 2**31:
            out.append(("int", a.astype(np.int64), "equal"))
        return out
    # an object (model, controller, generator, result...): only None (when it is the default) may pass
    return generic


def _to64(v):
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray) and v.dtype.kind in "fiu":
        return v.astype(float)
    if isinstance(v, list):
        return np.asarray(v, dtype=float)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def _leaves(x, depth=0):
    """Float arrays inside a result (arrays, tuples, dicts, dataclasses, named tuples)."""
    if depth > 4:
        return
    if isinstance(x, (bool, np.bool_, str, bytes)) or x is None:
        return
    if isinstance(x, (float, int, np.number)):
        yield np.asarray(x, dtype=float)
    elif isinstance(x, np.ndarray):
        if x.dtype.kind in "fc":
            yield x
    elif isinstance(x, dict):
        for v in list(x.values())[:50]:
            yield from _leaves(v, depth + 1)
    elif isinstance(x, (tuple, list)):
        for v in list(x)[:50]:
            yield from _leaves(v, depth + 1)
    elif hasattr(x, "__dataclass_fields__"):
        for f in list(x.__dataclass_fields__)[:50]:
            yield from _leaves(getattr(x, f, None), depth + 1)


def _non_finite(x):
    return any(not np.all(np.isfinite(a)) for a in _leaves(x))


def _same(a, b):
    la, lb = list(_leaves(a)), list(_leaves(b))
    if len(la) != len(lb):
        return False
    for u, v in zip(la, lb):
        if u.shape != v.shape or not np.allclose(u, v, rtol=1e-12, atol=1e-12, equal_nan=True):
            return False
    return True


def _raise_file(exc):
    tb, last = exc.__traceback__, None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return "" if last is None else last.tb_frame.f_code.co_filename


def _raise_site_in_robokin(exc):
    return f"{os.sep}robokin{os.sep}" in _raise_file(exc)


def classify_exception(exc, arg, variant):
    """'clean' or 'undocumented' (with a one-line description)."""
    if isinstance(exc, _UserError):
        return "clean", "callback's exception passed through"
    mod = type(exc).__module__ or ""
    if mod.startswith("robokin"):
        return "clean", f"{type(exc).__name__}: {exc}"[:160]
    if isinstance(exc, Warning) and (type(exc).__module__ or "").startswith("robokin"):
        return "clean", str(exc)[:160]
    msg = str(exc)
    if type(exc) is AssertionError and _raise_site_in_robokin(exc) and "checks.py" in _raise_file(exc):
        return "clean", f"a check's documented verdict: {msg}"[:160]
    if type(exc) in (ValueError, TypeError) and _raise_site_in_robokin(exc) and arg in msg:
        return "clean", msg[:160]
    return "undocumented", f"{type(exc).__module__}.{type(exc).__name__}: {msg}"[:200]


def sweep_cases():
    """[(entry, parameter)] with the parameter's valid value, for every entry point that has a recipe."""
    cases = []
    for key in sorted(ENTRIES):
        try:
            r = recipe(key)
        except LookupError:
            continue
        if r is None:
            continue
        fn, kw = r
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for name, p in params.items():
            if name == "self" or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            if name in kw or p.default is not p.empty:
                cases.append((key, name))
    return cases


def _timed(fn, kw, seconds):
    def handler(signum, frame):
        raise _Timeout(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(**kw)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _call(fn, kw, seconds):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        return _timed(fn, kw, seconds)


def run_sweep_case(key, arg):
    """Yield one result dict per variant of (key, arg)."""
    fn, kw = recipe(key)
    params = inspect.signature(fn).parameters
    p = params[arg]
    base = kw[arg] if arg in kw else p.default
    default_none = p.default is None
    try:
        ref = _call(fn, dict(kw), SWEEP_TIME)
        ref_ok = True
    except BaseException:  # noqa: BLE001 - a recipe that fails is reported by test_valid_arguments_work
        ref, ref_ok = None, False
    for variant, value, expect in sweep_variants(base, default_none):
        rec = dict(key=key, arg=arg, variant=variant)
        fn, kw = recipe(key)  # afresh: a generator among the arguments is consumed by each call
        k2 = dict(kw)
        k2[arg] = value
        seconds = SWEEP_BATCH_TIME if variant == "batch" else SWEEP_TIME
        designed = SWEEP_BY_DESIGN.get((key, arg, variant)) or SWEEP_BY_DESIGN.get((key, arg, "*"))
        try:
            out = _call(fn, k2, seconds)
        except _Timeout as e:
            rec.update(outcome="by design" if designed else "hang", detail=designed or str(e))
        except MemoryError:
            rec.update(outcome="hang", detail="memory limit")
        except BaseException as e:  # noqa: BLE001 - the point of the sweep
            if isinstance(e, KeyboardInterrupt):
                raise
            outcome, detail = classify_exception(e, arg, variant)
            if outcome != "clean" and designed:
                outcome, detail = "by design", designed
            rec.update(outcome=outcome, detail=detail)
        else:
            if (key, arg, variant) in SWEEP_BY_DESIGN or (key, arg, "*") in SWEEP_BY_DESIGN:
                rec.update(outcome="by design", detail=SWEEP_BY_DESIGN.get((key, arg, variant), ""))
            elif (key, arg, variant) in ACCEPTED:
                rec.update(outcome="by design", detail=ACCEPTED[(key, arg, variant)])
            elif expect == "equal":
                fn, kw = recipe(key)
                k3 = dict(kw)
                k3[arg] = _to64(value)
                try:
                    ref64 = _call(fn, k3, seconds)
                except BaseException as e:  # noqa: BLE001
                    ref64 = e
                if isinstance(ref64, BaseException):
                    rec.update(outcome="wrong", detail=f"float64 call raised {type(ref64).__name__}, this one did not")
                elif _same(out, ref64):
                    rec.update(outcome="correct", detail="")
                elif _non_finite(out) and not _non_finite(ref64):
                    rec.update(outcome="silent NaN", detail="non-finite result, the float64 call is finite")
                else:
                    rec.update(outcome="wrong", detail="differs from the float64 call")
            elif _non_finite(out) and not (ref_ok and _non_finite(ref)) and expect != "hostile":
                rec.update(outcome="silent NaN", detail=f"returned non-finite {type(out).__name__}")
            elif _non_finite(out) and variant in ("nan", "inf", "-inf", "cb_nan", "cb_inf"):
                rec.update(outcome="silent NaN", detail=f"returned non-finite {type(out).__name__}")
            elif expect == "hostile":
                rec.update(outcome="wrong", detail=f"accepted, returned {type(out).__name__}")
            else:
                rec.update(outcome="correct", detail="")
        yield rec


def _worker(cases):
    import json
    import resource
    import sys

    resource.setrlimit(resource.RLIMIT_AS, (SWEEP_MEMORY, SWEEP_MEMORY))
    out = os.fdopen(os.dup(1), "w")  # results go here; whatever the package prints goes to /dev/null
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the worker

    def emit(rec):
        out.write(json.dumps(rec) + "\n")
        out.flush()

    for i, (key, arg) in enumerate(cases):
        emit(dict(start=i))
        try:
            for rec in run_sweep_case(key, arg):
                emit(rec)
        except BaseException as e:  # noqa: BLE001 - a recipe that cannot be built
            emit(dict(key=key, arg=arg, variant="*", outcome="undocumented", detail=repr(e)[:200]))
        emit(dict(done=i))


def run_sweep(workers=2, stall=90.0):
    """Run the whole sweep in ``workers`` subprocesses; return the list of result dicts."""
    import json
    import selectors
    import subprocess
    import sys
    import time

    cases = sweep_cases()
    todo = [list(range(w, len(cases), workers)) for w in range(workers)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg")
    results, procs = [], {}

    def spawn(w):
        if not todo[w]:
            return
        idx = ",".join(map(str, todo[w]))
        p = subprocess.Popen(
            [sys.executable, __file__, "--sweep-worker", idx],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        procs[w] = dict(p=p, current=None, last=time.monotonic(), seen=set())

    for w in range(workers):
        spawn(w)
    sel = selectors.DefaultSelector()
    for w, s in procs.items():
        sel.register(s["p"].stdout, selectors.EVENT_READ, w)
    while procs:
        for sk, _ in sel.select(timeout=1.0):
            w = sk.data
            s = procs[w]
            line = sk.fileobj.readline()
            if not line:
                sel.unregister(sk.fileobj)
                s["p"].wait()
                gone = s["current"]
                del procs[w]
                if gone is not None:  # died inside a case: charge it, then go on with the rest
                    key, arg = cases[gone]
                    results.append(dict(key=key, arg=arg, variant="?", outcome="hang", detail="worker died"))
                    todo[w] = todo[w][todo[w].index(gone) + 1 :]
                    spawn(w)
                    if w in procs:
                        sel.register(procs[w]["p"].stdout, selectors.EVENT_READ, w)
                continue
            s["last"] = time.monotonic()
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in msg:
                s["current"] = todo[w][msg["start"]]
            elif "done" in msg:
                s["current"] = None
            else:
                results.append(msg)
        now = time.monotonic()
        for s in list(procs.values()):
            if now - s["last"] > stall:  # stuck in C code where the timer cannot interrupt it
                s["p"].kill()
                s["last"] = now
    return results


def sweep_table(results):
    """{module group: {outcome: count}} with groups 'owned' and 'owned elsewhere'."""
    table = {}
    for r in results:
        group = "owned" if r["key"].split(".")[0] in SWEEP_OWNED else "owned elsewhere"
        row = table.setdefault(group, dict.fromkeys(SWEEP_OUTCOMES, 0))
        row[r["outcome"]] += 1
    return table


def format_table(results):
    table = sweep_table(results)
    lines = [f"{'':16s}" + "".join(f"{o:>13s}" for o in SWEEP_OUTCOMES) + f"{'calls':>8s}"]
    for group in ("owned", "owned elsewhere"):
        row = table.get(group, dict.fromkeys(SWEEP_OUTCOMES, 0))
        lines.append(f"{group:16s}" + "".join(f"{row[o]:13d}" for o in SWEEP_OUTCOMES) + f"{sum(row.values()):8d}")
    return "\n".join(lines)


SWEEP_FAILURES = ("undocumented", "silent NaN", "wrong", "hang")


def test_full_sweep_every_parameter_every_variant(capsys):
    """Issue 29: every parameter (keywords included) of every entry point, >= 20 variants, under time and memory
    limits. Prints the outcome table; the modules of SWEEP_OWNED may have no failure at all."""
    import collections

    res = run_sweep()
    elsewhere = collections.Counter(
        r["key"].split(".")[0]
        for r in res
        if r["outcome"] in SWEEP_FAILURES and r["key"].split(".")[0] not in SWEEP_OWNED
    )
    with capsys.disabled():
        print("\nhostile sweep (tests/test_hostile.py):\n" + format_table(res))
        print("failures owned elsewhere, by module: " + ", ".join(f"{m} {n}" for m, n in sorted(elsewhere.items())))
    per_param = collections.Counter((r["key"], r["arg"]) for r in res)
    assert min(per_param.values()) >= 20, min(per_param.items(), key=lambda kv: kv[1])
    swept = {k.split(".")[0] for k, _ in per_param}
    assert set(SWEEP_OWNED) - {"results"} <= swept  # results holds containers only (RESULT_TYPES)
    bad = [r for r in res if r["outcome"] in SWEEP_FAILURES and r["key"].split(".")[0] in SWEEP_OWNED]
    assert not bad, "\n".join(f"{r['key']}({r['arg']}={r['variant']}): {r['outcome']}: {r['detail']}" for r in bad[:40])


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "--sweep-worker":
        all_cases = sweep_cases()
        _worker([all_cases[int(i)] for i in sys.argv[2].split(",")])
    else:
        import json
        import time

        t0 = time.monotonic()
        res = run_sweep()
        print(format_table(res))
        print(f"{len(res)} calls in {time.monotonic() - t0:.0f} s")
        if len(sys.argv) > 1:
            with open(sys.argv[1], "w") as fh:
                json.dump(res, fh)
