"""Benchmark: MuJoCo steps per second for the whole wheel-legged robot, and chapter 13's run time.

Run from the repository root: ``.venv/bin/python benchmarks/bench_sim.py [--quick] [--no-chapter]``.

Rows (median of repeats, wall time):

* ``mj_step`` of the robot built by ``robokin.sim.wheel_leg_model`` (free body, two closed five-bar
  legs, two wheels in contact with the ground), torques held constant: the engine alone;
* the same robot under chapter 13's controller at 1 kHz (state from ``sim.wheel_leg_state``, scheduled
  LQR, ``wheel_leg.vmc_torques``, one ``mj_step`` per tick through ``sim.run_controller``): what the
  chapter pays per simulated second, as a real-time factor;
* the chapter notebook executed end to end by ``jupyter nbconvert`` (full size and ``ROBOKIN_FAST=1``),
  unless ``--no-chapter``.

Correctness first: the controlled robot must still be upright and near its start after the timed run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np
from _timing import median_time  # benchmarks/ is on sys.path when a script runs

from robokin import sim
from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR
from robokin.wheel_leg import WheelLegDynamics, gain_schedule, vmc_torques

ROOT = Path(__file__).resolve().parents[1]
P = WHEEL_LEG
FB = WHEEL_LEG_FIVEBAR  # chapter 4's leg
LS = np.linspace(0.12, 0.34, 12)


def controller(model, sched):
    """Chapter 13's balance controller without noise (same gains), for timing."""

    def ctrl(t, d):
        st = sim.wheel_leg_state(model, d)
        T, Tp = -sched(np.clip(st["L0"].mean(), LS[0], LS[-1])) @ st["s"]
        F = (P.m_b + 0.5 * P.m_l) * P.g / (2 * np.cos(st["theta_b"])) + 800.0 * (0.2 - st["L0"]) - 100.0 * st["L0_dot"]
        split = 20.0 * np.diff(st["theta_b"])[0] + 2.0 * np.diff(st["theta_b_dot"])[0]
        tau = vmc_torques(FB, st["q"], F, Tp / 2 + np.array([split, -split]) / 2).ravel()
        dT = -1.0 * st["yaw_rate"]
        return np.r_[np.clip(tau, -10.0, 10.0), np.clip([T / 2 - dT / 2, T / 2 + dT / 2], -2.5, 2.5)]

    return ctrl


def run_chapter(fast):
    env = dict(os.environ, MPLBACKEND="Agg")
    if fast:
        env["ROBOKIN_FAST"] = "1"
    else:
        env.pop("ROBOKIN_FAST", None)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "jupyter",
                "nbconvert",
                "--to",
                "notebook",
                "--execute",
                "--output-dir",
                tmp,
                str(ROOT / "notebooks" / "13_multibody_simulation.ipynb"),
            ],
            check=True,
            env=env,
            capture_output=True,
        )
        return time.perf_counter() - t0


def main(quick=False, chapter=True):
    model = sim.wheel_leg_model(P, FB, timestep=1e-3, solref=(0.004, 1.0))
    data = mujoco.MjData(model)
    n_steps = 1000 if quick else 5000
    reps = 3 if quick else 5

    def bare():
        sim.wheel_leg_pose(model, data, P, FB, L0=0.2)
        data.ctrl[:] = [6.2, -6.2, 6.2, -6.2, 0.0, 0.0]  # about the holding torques at L0 = 0.2 m
        for _ in range(n_steps):
            mujoco.mj_step(model, data)

    t_bare = median_time(bare, reps)
    sched = gain_schedule(WheelLegDynamics(P), LS, degree=3)
    ctrl = controller(model, sched)
    t_sim = 0.5 if quick else 2.0

    def controlled():
        sim.wheel_leg_pose(model, data, P, FB, L0=0.2, theta=0.05)
        res = sim.run_controller(model, data, ctrl, t_end=t_sim, rate=1000)
        assert res.t.size == round(t_sim * 1000) and bool(res.stable)

    t_ctrl = median_time(controlled, reps)
    st = sim.wheel_leg_state(model, data)
    assert abs(st["s"][0]) < 0.05 and abs(st["s"][4]) < 0.05 and abs(st["s"][2]) < 0.2, st["s"]

    print("MuJoCo wheel-legged robot (robokin.sim.wheel_leg_model, 1 ms step, RK4); median of repeats")
    print(f"{'case':48s} {'steps':>7s} {'time [s]':>9s} {'steps/s':>10s} {'x real time':>11s}")
    print(
        f"{'mj_step, torques held':48s} {n_steps:7d} {t_bare:9.3f} {n_steps / t_bare:10.0f} "
        f"{n_steps * 1e-3 / t_bare:11.1f}"
    )
    n_c = int(t_sim * 1000)
    print(
        f"{'1 kHz Python controller + mj_step (run_controller)':48s} {n_c:7d} {t_ctrl:9.3f} {n_c / t_ctrl:10.0f} "
        f"{t_sim / t_ctrl:11.2f}"
    )
    if chapter:
        for fast in (True, False):
            print(
                f"chapter 13 notebook, {'ROBOKIN_FAST=1' if fast else 'full size'}: {run_chapter(fast):.1f} s "
                "(nbconvert, including kernel start)"
            )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, chapter="--no-chapter" not in sys.argv)
