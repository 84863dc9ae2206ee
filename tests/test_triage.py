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
