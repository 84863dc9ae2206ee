"""The Stewart platform in MuJoCo (robokin.stewart_mujoco, issue 32 item 6) against chapter 10's hand-derived model.

What would trip each check: a wrong sign or frame in the free-joint conversion (round trip), a leg built along the
wrong axis (closure at build), a dynamics term missing on either side (force agreement at 8e-5), a mis-scaled
leg-body mass or constraint softness (the two interventions), an engine that does not lose authority at the
singular yaw (smallest singular value), and missing argument checks (bad-input table).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from robokin import stewart_mujoco as sm  # noqa: E402
from robokin.robots import STEWART, STEWART_PAYLOAD  # noqa: E402
from robokin.stewart import Stewart, StewartDynamics  # noqa: E402

FREE = Stewart(STEWART.base, STEWART.top)
HOME = np.array([0, 0, 0.42, 0, 0, 0.0])
# chapter 10's 100 Hz replay motion (notebooks/10_stewart_dynamics.ipynb, "Replaying a 100 Hz trajectory")
AMP = np.array([0.02, 0.015, 0.01, 0.05, 0.04, 0.10])
OMG = np.array([2.0, 3.0, 4.0, 2.5, 3.5, 1.5]) * np.pi / 2


def plan(t):
    return HOME + AMP * np.sin(OMG * t), AMP * OMG * np.cos(OMG * t), -AMP * OMG**2 * np.sin(OMG * t)


def force_gap(params=STEWART_PAYLOAD, times=np.linspace(0, 2, 21), **options):
    """Largest |engine leg force - chapter 10 leg force| (N) along the replay motion, and the largest force."""
    dyn = StewartDynamics(FREE, params)
    m = sm.stewart_model(FREE, params, pose=HOME, **options)
    d = mujoco.MjData(m)
    gap, fmax = 0.0, 0.0
    for t in times:
        q, qd, qdd = plan(t)
        f10 = dyn.leg_forces(q, qd, qdd)
        fmj = sm.stewart_engine_leg_forces(m, d, FREE, q, qd, qdd, build=HOME)
        gap, fmax = max(gap, float(np.abs(fmj - f10).max())), max(fmax, float(np.abs(f10).max()))
    return gap, fmax


def test_build_closes_the_loops_exactly():
    m = sm.stewart_model(STEWART, STEWART_PAYLOAD, pose=HOME)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert (m.nq, m.nv, m.nu, m.neq) == (25, 24, 6, 6)
    assert d.nefc == 18 and np.abs(d.efc_pos).max() < 1e-14
    A = STEWART.anchors_world(HOME)
    tips = np.array([d.site(f"tip{i}").xpos for i in range(6)])
    assert np.abs(tips - A).max() < 1e-14
    # mass: platform + six lumped leg masses + 12 leg bodies of leg_body_mass / 2
    assert abs(m.body_mass.sum() - (12.0 + 6 * 0.4 + 6 * 1e-3)) < 1e-12


def test_state_round_trip_and_closure():
    m = sm.stewart_model(FREE, STEWART_PAYLOAD, pose=HOME)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(5)
    for _ in range(20):
        q = HOME + rng.uniform(-1, 1, 6) * [0.03, 0.03, 0.03, 0.1, 0.1, 0.2]
        qd = rng.uniform(-1, 1, 6) * [0.2, 0.2, 0.2, 0.5, 0.5, 0.5]
        sm.stewart_set_state(m, d, FREE, q, qd, build=HOME)
        q2, qd2 = sm.stewart_pose(m, d)
        assert np.abs(q2 - q).max() < 1e-13 and np.abs(qd2 - qd).max() < 1e-12
        assert np.abs(d.efc_pos).max() < 1e-13 and np.abs(d.efc_vel).max() < 1e-12  # loops closed, no drift rate
        L = sm.stewart_leg_lengths(m, d, FREE.leg_lengths(HOME))
        assert np.abs(L - FREE.leg_lengths(q)).max() < 1e-13


def test_engine_leg_forces_match_chapter_10_along_its_trajectory():
    gap, fmax = force_gap(leg_body_mass=1e-4)
    assert fmax > 30  # the motion loads the legs (38 N peak)
    assert gap < 1e-4 * fmax, (gap, fmax)  # 3.0e-3 N of 38 N measured


def test_force_gap_causes_by_intervention():
    """The remaining gap has two causes: the leg bodies' own mass (absent from chapter 10) and the closures'
    softness (MuJoCo caps the impedance at 0.9999). Ten times the leg-body mass raises the gap about eightfold; a
    softer closure (impedance 0.99) about a hundredfold."""
    times = np.linspace(0, 2, 6)
    g4, _ = force_gap(times=times, leg_body_mass=1e-4)
    g3, _ = force_gap(times=times, leg_body_mass=1e-3)
    g2, _ = force_gap(times=times, leg_body_mass=1e-2)
    assert 5 < g2 / g3 < 10 and g3 / g4 > 2  # linear in the mass above a floor
    soft, _ = force_gap(times=times, leg_body_mass=1e-4, solimp=(0.99, 0.99, 0.001))
    assert soft / g4 > 30


def test_open_loop_replay_follows_the_plan():
    dyn = StewartDynamics(FREE, STEWART_PAYLOAD)
    m = sm.stewart_model(FREE, STEWART_PAYLOAD, pose=HOME, leg_body_mass=1e-4, timestep=2.5e-4)
    d = mujoco.MjData(m)
    q0, qd0, _ = plan(0.0)
    sm.stewart_set_state(m, d, FREE, q0, qd0, build=HOME)
    err = 0.0
    for _ in range(1200):  # 0.3 s at the native step, the error read after every step
        d.ctrl[:] = dyn.leg_forces(*plan(d.time))
        mujoco.mj_step(m, d)
        err = max(err, float(np.abs(sm.stewart_pose(m, d)[0] - plan(d.time)[0]).max()))
    assert err < 2e-5, err  # open loop: a double integrator, so any model gap grows like t^2


def test_singular_yaw_in_the_engine():
    """At the paired layout's singular yaw (90 deg, chapter 9's exercise) the engine loses authority along one
    direction exactly as chapter 10's M^-1 Jq^T does, and the holding forces grow like 1 / (90 deg - yaw)."""
    dyn = StewartDynamics(FREE, STEWART_PAYLOAD)
    hold = {}
    for yaw_deg in (0.0, 89.0, 89.9):
        q = HOME.copy()
        q[5] = np.deg2rad(yaw_deg)
        m = sm.stewart_model(FREE, STEWART_PAYLOAD, pose=q, leg_body_mass=1e-4)
        d = mujoco.MjData(m)
        sm.stewart_set_state(m, d, FREE, q, np.zeros(6), build=q)
        _, B = sm.stewart_force_map(m, d)
        B10 = np.linalg.solve(dyn.mass_matrix(q), FREE.jacobian_pose_rates(q).T)
        s_mj, s_10 = np.linalg.svd(B, compute_uv=False), np.linalg.svd(B10, compute_uv=False)
        assert np.abs(s_mj / s_10 - 1).max() < 2e-3
        f_mj = sm.stewart_engine_leg_forces(m, d, FREE, q, np.zeros(6), np.zeros(6), build=q)
        f_10 = dyn.leg_forces(q, np.zeros(6), np.zeros(6))
        assert np.abs(f_mj - f_10).max() < 2e-4 * np.abs(f_10).max()
        hold[yaw_deg] = np.abs(f_mj).max()
    assert 9 < hold[89.9] / hold[89.0] < 11  # 1/(90 - yaw): ten times closer, ten times the force
    assert hold[89.9] > 1000 * hold[0.0]
    q = HOME.copy()
    q[5] = np.pi / 2
    m = sm.stewart_model(FREE, STEWART_PAYLOAD, pose=q)
    with pytest.raises(ValueError, match="singular"):  # exactly at the singular yaw: refused, not a huge answer
        sm.stewart_engine_leg_forces(m, mujoco.MjData(m), FREE, q, np.zeros(6), np.zeros(6), build=q)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(robot="leg"), "robot must be"),
        (dict(params=3.0), "params must be"),
        (dict(pose=[0, 0, 0.42]), "pose"),
        (dict(pose=[0, 0, np.nan, 0, 0, 0]), "pose"),
        (dict(pose=np.zeros((2, 6))), "pose must have shape"),
        (dict(leg_body_mass=0.0), "leg_body_mass"),
        (dict(leg_body_mass=np.inf), "leg_body_mass"),
        (dict(timestep=-1e-3), "timestep"),
        (dict(integrator="rk4"), "integrator"),
        (dict(solref=(0.001, 1.0)), "twice the timestep"),
        (dict(solref=(0.01, -1.0)), "solref"),
        (dict(solimp=(1.0, 0.9, 0.001)), "solimp"),
        (dict(solimp=(0.9, 0.9)), "solimp"),
    ],
)
def test_bad_build_arguments(kwargs, match):
    args = dict(robot=STEWART, params=STEWART_PAYLOAD, pose=HOME) | kwargs
    with pytest.raises(ValueError, match=match):
        sm.stewart_mjcf(args.pop("robot"), args.pop("params"), **args)


def test_bad_state_arguments():
    m = sm.stewart_model(FREE, STEWART_PAYLOAD, pose=HOME)
    d = mujoco.MjData(m)
    other = mujoco.MjModel.from_xml_string("<mujoco><worldbody/></mujoco>")
    with pytest.raises(ValueError, match="not a Stewart model"):
        sm.stewart_pose(other, mujoco.MjData(other))
    with pytest.raises(ValueError, match="data must be"):
        sm.stewart_pose(m, "data")
    with pytest.raises(ValueError, match="robot must be"):
        sm.stewart_set_state(m, d, "robot", HOME, np.zeros(6), build=HOME)
    with pytest.raises(ValueError, match="qd"):
        sm.stewart_set_state(m, d, FREE, HOME, [0, 0, np.inf, 0, 0, 0], build=HOME)
    with pytest.raises(ValueError, match="build_lengths"):
        sm.stewart_leg_lengths(m, d, np.ones(5))
    with pytest.raises(ValueError, match="qdd"):
        sm.stewart_engine_leg_forces(m, d, FREE, HOME, np.zeros(6), np.zeros(7), build=HOME)


def test_leg_mass_lumping_matches_chapter_10_without_it():
    """The lumped leg mass is what chapter 10 adds: without it both models lose the same 6 x 0.4 kg."""
    gap, _ = force_gap(params=replace(STEWART_PAYLOAD, leg_mass=0.0), times=np.linspace(0, 2, 6), leg_body_mass=1e-4)
    assert gap < 1e-4 * 38


def test_a_planted_error_in_chapter_10s_rate_derivative_is_seen(monkeypatch):
    """The engine side converts accelerations with its own dE/dt (not chapter 10's): zeroing chapter 10's closed
    form must open the gap (velocity terms of this motion are about ten times the 3e-3 N floor)."""
    import robokin.stewart as st_mod

    base, _ = force_gap(times=np.linspace(0, 2, 6), leg_body_mass=1e-4)
    monkeypatch.setattr(st_mod, "_edot_qd", lambda q, qd: np.zeros(q.shape[:-1] + (3,)))
    planted, _ = force_gap(times=np.linspace(0, 2, 6), leg_body_mass=1e-4)
    assert planted > 5 * base, (planted, base)
