"""Divergence triage (robokin.triage): each verdict on a planted case, and bad input.

What trips each check: a step-dependent divergence criterion (the physical case would spread in time), a verdict
rule that ignores the finest run (the numerical case), a wrong joint attribution (the planted stiff loop closure
must be named, not the motor), and missing argument checks.
"""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from robokin import sim  # noqa: E402
from robokin.robots import FIVEBAR  # noqa: E402
from robokin.triage import VERDICTS, divergence_triage  # noqa: E402

MASSES = (0.05, 0.08, 0.05, 0.08)
Q0 = sim.fivebar_qpos(FIVEBAR, FIVEBAR.ik([0.035, -0.12]).q)


def init(model, data):
    data.qpos[:] = Q0


def servo(kp):
    return lambda dt: sim.fivebar_model(FIVEBAR, masses=MASSES, kp=kp, kv=0.0, timestep=dt, integrator="Euler")


def hold(t, data):
    return Q0[[0, 2]]


def torque_model(dt):
    return sim.fivebar_model(FIVEBAR, masses=MASSES, actuator="torque", timestep=dt, integrator="Euler")


def feedback(sign):
    """Motor PD to a point 0.01 rad away: sign = -1 is the correct law, +1 the sign error (positive feedback)."""

    def ctrl(t, d):
        e = d.qpos[[0, 2]] - (Q0[[0, 2]] + 0.01)
        return sign * 2.0 * e - 0.02 * d.qvel[[0, 2]]

    return ctrl


def test_stiff_servo_is_numerical_and_names_the_loop_closure():
    tri = divergence_triage(servo(2000.0), hold, t_end=0.2, rate=500.0, timesteps=(1e-3, 5e-4, 2e-3), init=init)
    assert tri.verdict == "numerical"
    assert [r.timestep for r in tri.runs] == [2e-3, 1e-3, 5e-4]  # largest first
    assert tri.runs[0].diverged and tri.runs[1].diverged and not tri.runs[2].diverged
    assert tri.runs[1].joint in ("knee_C", "knee_D")  # the soft closure at the knees goes first, not the servo
    assert tri.runs[1].max_step_jump > 0.05 and tri.runs[2].max_step_jump < 0.01
    assert "5e-04" in tri.message or "0.0005" in tri.message


def test_sign_error_is_physical_at_the_same_time_for_every_step():
    tri = divergence_triage(
        torque_model, feedback(+1.0), t_end=0.5, rate=1000.0, timesteps=(1e-3, 5e-4, 2.5e-4), init=init
    )
    assert tri.verdict == "physical", tri.message
    t = [r.t_diverge for r in tri.runs]
    assert max(t) - min(t) < 0.005 and 0.02 < min(t) < 0.2
    assert all(r.reason == "speed" for r in tri.runs)


def test_correct_sign_is_stable():
    tri = divergence_triage(torque_model, feedback(-1.0), t_end=0.3, rate=1000.0, timesteps=(1e-3, 5e-4), init=init)
    assert tri.verdict == "stable" and not any(r.diverged for r in tri.runs)


def test_divergence_that_moves_but_persists_is_inconclusive():
    # kp = 2e4 diverges at 1 ms and 0.5 ms (at different times); 0.25 ms would fix it but is not in the list
    tri = divergence_triage(servo(20000.0), hold, t_end=0.1, rate=1000.0, timesteps=(1e-3, 5e-4), init=init)
    assert tri.verdict == "inconclusive", tri.message
    assert all(r.diverged for r in tri.runs)
    assert tri.verdict in VERDICTS


def test_a_tight_t_tol_turns_physical_into_inconclusive():
    tri = divergence_triage(
        torque_model, feedback(+1.0), t_end=0.5, rate=1000.0, timesteps=(1e-3, 1.25e-4), init=init, t_tol=1e-5
    )
    assert tri.verdict == "inconclusive"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(timesteps=(1e-3,)), "2 to 8"),
        (dict(timesteps=(1e-3, 1e-3)), "distinct"),
        (dict(timesteps=(1e-3, -5e-4)), "positive"),
        (dict(timesteps=(1e-3, np.nan)), "finite"),
        (dict(timesteps="fast"), "timesteps"),
        (dict(timesteps=(1e-3, 3e-4)), "whole number"),
        (dict(t_end=0.0), "t_end"),
        (dict(rate=np.inf), "rate"),
        (dict(max_rate=-1.0), "max_rate"),
        (dict(init=3), "init"),
        (dict(t_tol=0.0), "t_tol"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = dict(t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4), init=init) | kwargs
    with pytest.raises(ValueError, match=match):
        divergence_triage(torque_model, feedback(-1.0), **args)


def test_bad_callables():
    with pytest.raises(ValueError, match="make_model must be"):
        divergence_triage("model", hold, t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4))
    with pytest.raises(ValueError, match="controller must be"):
        divergence_triage(torque_model, None, t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4))
    with pytest.raises(ValueError, match="must return a mujoco.MjModel"):
        divergence_triage(lambda dt: "xml", hold, t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4))
    with pytest.raises(ValueError, match="must use dt"):
        divergence_triage(lambda dt: torque_model(1e-3), hold, t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4))
    with pytest.raises(ValueError, match="controller"):
        divergence_triage(torque_model, lambda t, d: [np.nan, 0.0], t_end=0.05, rate=1000.0, timesteps=(1e-3, 5e-4))


# --- solver knobs and energy books (solver_settings, solver_run) ----------------------------------------------------
# What trips these: a knob applied to the original model (or to more than the named option), work paired with the
# wrong velocity (the books of a damped pendulum would not close at first order), constraint work booked where no
# constraint acts, a violation read once per tick instead of per step, and missing argument checks.

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402

from robokin.errors import IntegrationError  # noqa: E402
from robokin.triage import SOLVERS, solver_run, solver_settings  # noqa: E402


def circle_leg(dt=1e-3, **kw):
    return sim.fivebar_model(
        FIVEBAR, masses=MASSES, kp=20.0, kv=0.2, timestep=dt, integrator="Euler", damping=0.01, **kw
    )


def wave(t, d):
    return Q0[[0, 2]] + 0.1 * np.sin(2 * np.pi * t)


def pendulum(dt, integrator="Euler"):
    return mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{dt}" integrator="{integrator}"/><worldbody>'
        '<site name="o"/><body><joint name="j" type="hinge" axis="0 1 0" damping="0.05"/>'
        '<geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.01" mass="1"/><site name="tip" pos="0.3 0 0"/>'
        '</body></worldbody><actuator><motor joint="j"/></actuator></mujoco>'
    )


def test_solver_settings_changes_only_the_named_knob_on_a_copy():
    m = circle_leg()
    m2 = solver_settings(m, solver="PGS", iterations=7, tolerance=1e-3)
    assert int(m2.opt.solver) == int(mujoco.mjtSolver.mjSOL_PGS) and m2.opt.iterations == 7
    assert m2.opt.tolerance == 1e-3 and np.array_equal(m2.eq_solref, m.eq_solref)
    assert int(m.opt.solver) == int(mujoco.mjtSolver.mjSOL_NEWTON) and m.opt.iterations == 100  # original kept
    m3 = solver_settings(m, solimp=(0.99, 0.995, 0.002))
    assert np.allclose(m3.eq_solimp[0], [0.99, 0.995, 0.002, 0.5, 2.0])  # midpoint and power kept
    assert m3.opt.iterations == m.opt.iterations and int(m3.opt.solver) == int(m.opt.solver)
    assert set(SOLVERS) == {"Newton", "CG", "PGS"}


def test_books_of_a_damped_pendulum_close_at_first_order_without_constraint_work():
    runs = [
        solver_run(pendulum(dt), lambda t, d: [0.5 * np.sin(5 * t)], t_end=1.0, rate=1000.0, sites=("o", "tip"))
        for dt in (1e-3, 5e-4)
    ]
    for r in runs:
        assert r.work_constraint == 0.0 and r.niter_max == 0  # nothing to solve
        assert r.work_damping < 0 and abs(r.unbooked) < 0.05 * abs(r.work_damping)
        assert r.violation_max == pytest.approx(0.3, rel=1e-9)  # the two sites are simply 0.3 m apart
    assert 1.6 < runs[0].unbooked / runs[1].unbooked < 2.4  # halving the step halves the integrator's error


def test_stiffer_solref_shrinks_violation_and_constraint_work_only():
    soft = solver_run(circle_leg(), wave, t_end=0.5, rate=1000.0, init=init)
    stiff = solver_run(solver_settings(circle_leg(), solref=(0.004, 1.0)), wave, t_end=0.5, rate=1000.0, init=init)
    assert stiff.violation_max < 0.3 * soft.violation_max
    assert abs(stiff.work_constraint) < 0.5 * abs(soft.work_constraint)
    for r in (soft, stiff):  # the books' constraint work is the constraint rows' work (fails if mis-paired)
        assert r.work_constraint_rows == pytest.approx(r.work_constraint, rel=1e-9, abs=1e-15)
        assert r.work_actuator <= r.work_actuator_positive
    assert soft.energy0 == stiff.energy0  # same start: solref is not in the energy


def test_hard_constraint_work_is_a_first_order_step_error():
    # solimp near 1: a nearly hard loop does (almost) no work, so what W_con shows is the step's error: it halves
    hard = dict(solimp=(0.9999, 0.9999, 0.001))
    w = [
        solver_run(solver_settings(circle_leg(dt), **hard), wave, t_end=1.0, rate=1 / dt, init=init).work_constraint
        for dt in (1e-3, 5e-4)
    ]
    assert w[0] < 0 and 1.4 < w[0] / w[1] < 2.6


def test_violation_is_measured_on_the_new_state():
    m = circle_leg()
    r = solver_run(m, wave, t_end=0.01, rate=1000.0, init=init)
    d = mujoco.MjData(m)
    init(m, d)
    mujoco.mj_forward(m, d)
    viol = []
    for k in range(10):
        d.ctrl[:] = wave(k / 1000.0, d)
        mujoco.mj_step(m, d)
        mujoco.mj_kinematics(m, d)
        viol.append(np.linalg.norm(d.site_xpos[m.site("foot_C").id] - d.site_xpos[m.site("foot_D").id]))
    assert r.violation_max == pytest.approx(max(viol), rel=1e-12)  # read before the kinematics: the old state's


def test_solver_knobs_on_one_equality():
    newton = solver_run(circle_leg(), wave, t_end=0.3, rate=1000.0, init=init)
    cg1 = solver_run(solver_settings(circle_leg(), solver="CG", iterations=1), wave, t_end=0.3, rate=1000.0, init=init)
    pgs = solver_run(solver_settings(circle_leg(), solver="PGS"), wave, t_end=0.3, rate=1000.0, init=init)
    assert newton.niter_max == 1 < pgs.niter_max  # Newton solves the quadratic problem in one iteration
    assert pgs.violation_max == pytest.approx(newton.violation_max, rel=1e-3)  # converged solvers agree
    assert cg1.niter_max == 1 and cg1.violation_max > 1.5 * newton.violation_max  # a truncated CG does not
    assert newton.wall_per_step > 0


def test_solver_run_restores_the_energy_flag_and_stops_on_divergence():
    m = circle_leg()
    flags = int(m.opt.enableflags)
    solver_run(m, wave, t_end=0.01, rate=1000.0, init=init)
    assert int(m.opt.enableflags) == flags
    stiff = sim.fivebar_model(FIVEBAR, masses=MASSES, kp=2000.0, kv=0.0, timestep=1e-3, integrator="Euler")
    with pytest.raises(IntegrationError, match="diverged"):
        solver_run(stiff, hold, t_end=0.2, rate=1000.0, init=init)
    assert int(stiff.opt.enableflags) == int(circle_leg().opt.enableflags)  # restored after the raise too


def _set(qpos=None, qvel=None):
    def f(m, d):
        init(m, d)
        if qpos is not None:
            d.qpos[0] = qpos
        if qvel is not None:
            d.qvel[0] = qvel

    return f


@pytest.mark.parametrize("bad", [_set(qpos=np.nan), _set(qvel=np.inf), _set(qvel=2e10)])
def test_solver_run_rejects_a_bad_initial_state(bad):
    with pytest.raises(IntegrationError, match="init left"):
        solver_run(circle_leg(), wave, t_end=0.01, rate=1000.0, init=bad)


def test_solver_run_stops_on_mujocos_bad_velocity_reset():
    def kick(t, d):  # a velocity MuJoCo resets (> 1e10) written by the controller mid-run
        if t >= 0.005:
            d.qvel[0] = 5e9 / 1e-3
        return wave(t, d)

    with pytest.raises(IntegrationError, match="diverged"):
        solver_run(circle_leg(), kick, t_end=0.01, rate=1000.0, init=init)


@settings(max_examples=15, deadline=None)
@given(
    solver=hst.sampled_from(SOLVERS),
    iterations=hst.integers(1, 200),
    tol=hst.floats(0.0, 1.0),
    tc=hst.floats(1e-3, 0.1),
)
def test_solver_settings_round_trip(solver, iterations, tol, tc):
    m = circle_leg()
    m2 = solver_settings(m, solver=solver, iterations=iterations, tolerance=tol, solref=(tc, 1.0))
    assert int(m2.opt.solver) == int(getattr(mujoco.mjtSolver, "mjSOL_" + solver.upper()))
    assert m2.opt.iterations == iterations
    assert m2.opt.tolerance == tol and np.allclose(m2.eq_solref[0], [tc, 1.0])
    assert m.opt.iterations == 100 and np.allclose(m.eq_solref[0], [0.02, 1.0])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(solver="newton"), "solver must be one of"),
        (dict(iterations=0), "iterations"),
        (dict(iterations=2.0), "iterations"),
        (dict(iterations=True), "iterations"),
        (dict(tolerance=-1e-3), "tolerance"),
        (dict(tolerance=np.nan), "tolerance"),
        (dict(solref=(0.0, 1.0)), "solref"),
        (dict(solref=(0.02,)), "solref"),
        (dict(solimp=(1.2, 0.95, 0.001)), "solimp"),
    ],
)
def test_solver_settings_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solver_settings(circle_leg(), **kwargs)


def test_solver_settings_and_run_bad_models():
    with pytest.raises(ValueError, match="model must be a mujoco.MjModel"):
        solver_settings("model.xml")
    with pytest.raises(ValueError, match="no equality constraints"):
        solver_settings(pendulum(1e-3), solref=(0.01, 1.0))
    with pytest.raises(ValueError, match="integrator is mjINT_RK4"):
        solver_run(pendulum(1e-3, "RK4"), lambda t, d: [0.0], t_end=0.01, rate=1000.0, sites=("o", "tip"))
    with pytest.raises(ValueError, match="model must be a mujoco.MjModel"):
        solver_run(None, wave, t_end=0.01, rate=1000.0)
    explicit = circle_leg()
    explicit.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP)
    with pytest.raises(ValueError, match="mjDSBL_EULERDAMP"):
        solver_run(explicit, wave, t_end=0.01, rate=1000.0, init=init)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(sites=("foot_C", "toe")), "no site named 'toe'"),
        (dict(sites="foot_C"), "sites must be two site names"),
        (dict(t_end=-1.0), "t_end"),
        (dict(rate=300.0), "whole number"),
        (dict(t_end=1e9), "steps"),
        (dict(t_end=0.0015), "whole number of control periods"),
        (dict(init="q0"), "init"),
        (dict(controller=None), "controller must be"),
        (dict(controller=lambda t, d: [0.0]), "controller"),
        (dict(controller=lambda t, d: [np.inf, 0.0]), "controller"),
    ],
)
def test_solver_run_bad_arguments(kwargs, match):
    args = dict(controller=wave, t_end=0.01, rate=1000.0, init=init) | kwargs
    with pytest.raises(ValueError, match=match):
        solver_run(circle_leg(), args.pop("controller"), **args)
