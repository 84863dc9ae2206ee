"""Software in the loop: chapter 13's MuJoCo wheel-legged robot balanced at 1 kHz by the generated C controller.

Each 1 ms tick reads chapter 4's state from the engine (``robokin.sim.wheel_leg_state``), calls the generated
``rk_wheel_leg_step`` (scheduled LQR, saturation, leg-length loop) once per leg and ``rk_fivebar_vmc`` per leg for
the motor torques, through ctypes; the anti-scissor and yaw terms and the per-motor limits are chapter 13's glue.
The firmware runs with the MCU's imperfections, and only these: float32; the leg angle theta, the pitch phi and the
four leg-motor angles rounded to a 14-bit step (2 pi / 2**14 rad), the wheel travel x to the wheel encoder's step
(R 2 pi / 2**14); and a one-tick bus delay on all six motor commands (the torques computed at tick k are applied at
tick k + 1). The rates, the leg lengths and their rates, the scissor and yaw terms and the torques are not rounded. The reference
is the same law in the package, in double, with ideal sensors and no delay. Scenarios: chapter 4's 60 N push and
the crouch / stand-up. Sensor noise is off so that the differences have only the causes named here. The step kernel
is called twice per leg: once at the mean leg length (the schedule, as chapter 13) and once at the leg's own length
(its leg-length loop).
"""

from __future__ import annotations

import numpy as np
import pytest

from robokin.codegen.controller import chapter_schedule, controller_kernels
from robokin.codegen.host import CODES, HostLibrary, build, compiler
from robokin.codegen.kinematics import fivebar_kernels

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is needed for the software-in-the-loop test")
pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler (install gcc) for the generated C library")

from robokin import sim  # noqa: E402
from robokin import wheel_leg as wl  # noqa: E402
from robokin.robots import WHEEL_LEG as P  # noqa: E402
from robokin.robots import WHEEL_LEG_FIVEBAR as FB  # noqa: E402
from robokin.trajectory import quintic_step  # noqa: E402

LSB = 2 * np.pi / 2**14  # rad, a 14-bit encoder
LEG_MAX, WHEEL_MAX = 10.0, 2.5  # N m per motor (chapter 13)
K_SPLIT, D_SPLIT, K_YAW = 20.0, 2.0, 1.0  # chapter 13's anti-scissor PD and yaw damper
T_RUN = 2.0
OK = CODES["RK_OK"]


def _push(t):
    return 60.0 if 0.5 <= t < 0.6 else 0.0


def _crouch_stand(t):
    a = quintic_step(t, t0=0.3, t1=0.8, v0=0.32, v1=0.14)
    b = quintic_step(t, t0=1.4, t1=1.75, v0=0.0, v1=0.20)
    return tuple(float(u + v) for u, v in zip(a, b))


SCENARIOS = {
    "push": dict(profile=lambda t: (0.2, 0.0, 0.0), push=_push, theta0=0.0),
    "crouch_stand": dict(profile=_crouch_stand, push=None, theta0=0.1),
}


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    ks = fivebar_kernels() + controller_kernels()
    lib = HostLibrary(build(tmp_path_factory.mktemp("sil"), ks=ks), ks)
    par = chapter_schedule()
    sched = par.pop("schedule")
    robot = sim.wheel_leg_model(P, FB, timestep=1e-3, solref=(0.004, 1.0))
    return lib, par, sched, robot


def _quantise(x, step):
    return np.round(x / step) * step


def _run(setup, scenario, *, firmware=None, quantise=False, delay=False):
    """One run of 2 s; ``firmware`` None (the package's law in double) or "f" / "d" (the generated C)."""
    lib, par, sched, robot = setup
    sc = SCENARIOS[scenario]
    fb = {"l1": FB.l1, "l2": FB.l2, "l3": FB.l3, "l4": FB.l4, "d": FB.d}
    d = mujoco.MjData(robot)
    sim.wheel_leg_pose(robot, d, P, FB, L0=sc["profile"](0.0)[0], theta=sc["theta0"])
    tid = robot.body("torso").id
    umax = np.array([par["T_max"], par["Tp_max"]])
    held = {"u": np.zeros(robot.nu)}
    log, statuses = [], []

    def ctrl(t, d):
        st = sim.wheel_leg_state(robot, d)
        log.append(np.r_[t, st["s"], st["L0"].mean()])
        s, q = st["s"].copy(), st["q"].copy()
        if quantise:
            s[[0, 4]] = _quantise(s[[0, 4]], LSB)  # leg and pitch angles from encoders / attitude
            s[2] = _quantise(s[2], P.R * LSB)  # wheel travel from the wheel encoder
            q = _quantise(q, LSB)
        L, Ld, _ = sc["profile"](t)
        Lc = np.clip(st["L0"], sched.L_min, sched.L_max)
        split = K_SPLIT * np.diff(st["theta_b"])[0] + D_SPLIT * np.diff(st["theta_b_dot"])[0]
        if firmware is None:
            T, Tp = np.clip(-sched(Lc.mean()) @ s, -umax, umax)
            F = par["f_ff"] / np.cos(s[0] - s[4]) + par["kL"] * (L - Lc) + par["dL"] * (Ld - st["L0_dot"])
            tau = wl.vmc_torques(FB, q, F, Tp / 2 + np.array([split, -split]) / 2).ravel()
        else:
            tau = []
            for side, sg in ((0, 1.0), (1, -1.0)):
                leg = [Lc.mean(), st["L0_dot"][side], L, Ld]
                (w,), s1 = lib.call("wheel_leg_step", firmware, par, [s, np.zeros(6), leg])
                # the per-leg leg-length loop uses that leg's own length
                leg[0] = Lc[side]
                (w_side,), s2 = lib.call("wheel_leg_step", firmware, par, [s, np.zeros(6), leg])
                T, Tp, F = float(w[0, 0]), float(w[0, 1]), float(w_side[0, 2])
                (tq,), s3 = lib.call("fivebar_vmc", firmware, fb, [q[side], [F, Tp / 2 + sg * split / 2]], 0)
                statuses.extend([int(s1[0]), int(s2[0]), int(s3[0])])
                tau.extend(tq[0].tolist())
            tau = np.array(tau)
        dT = -K_YAW * st["yaw_rate"]
        u = np.r_[np.clip(tau, -LEG_MAX, LEG_MAX), np.clip([T / 2 - dT / 2, T / 2 + dT / 2], -WHEEL_MAX, WHEEL_MAX)]
        f = sc["push"](t) if sc["push"] else 0.0
        d.xfrc_applied[tid, :3] = [f, 0.0, 0.0]
        if delay:  # the bus delivers last tick's command
            u, held["u"] = held["u"], u
        return u

    sim.run_controller(robot, d, ctrl, t_end=T_RUN, rate=1000)
    A = np.array(log)
    return {"t": A[:, 0], "s": A[:, 1:7], "L0": A[:, 7], "statuses": np.array(statuses, dtype=int)}


@pytest.fixture(scope="module")
def runs(setup):
    out = {}
    for name in SCENARIOS:
        out[name] = {
            "python": _run(setup, name),
            "c_f": _run(setup, name, firmware="f", quantise=True, delay=True),
            "c_d": _run(setup, name, firmware="d", quantise=True, delay=True),
            "c_f_ideal": _run(setup, name, firmware="f"),
            "python_qd": _run(setup, name, quantise=True, delay=True),
        }
    return out


def _diff(a, b, cols=(0, 2, 4)):
    """Largest |a - b| of theta, x, phi over the run, relative to b's peak (chapter 13's comparison)."""
    cols = list(cols)
    return np.abs(a["s"][:, cols] - b["s"][:, cols]).max(0) / np.abs(b["s"][:, cols]).max(0)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_generated_controller_balances_the_robot(runs, name):
    r = runs[name]["c_f"]
    assert len(r["t"]) == round(T_RUN * 1000)  # every 1 ms tick ran the firmware
    assert np.all(r["statuses"] == OK)  # every call of every tick returned RK_OK
    assert np.abs(r["s"][:, [0, 4]]).max() < wl.FALL_ANGLE / 2  # stayed up through the push / the crouch
    assert np.abs(r["s"][-100:, [0, 4]]).max() < 0.02  # and settled upright (last 0.1 s)
    if name == "crouch_stand":  # the leg follows the crouch and the stand-up as under the Python controller
        plan = np.array([_crouch_stand(t)[0] for t in r["t"]])
        py = runs[name]["python"]
        assert np.abs(r["L0"] - plan)[r["t"] > 0.05].max() < 0.06  # the PD leg loop lags ~5 cm in the stand-up
        assert np.abs(r["L0"] - py["L0"]).max() < 2e-3


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_firmware_trajectories_match_the_python_controller(runs, name):
    """Measured (push, crouch/stand-up): firmware vs Python 1.3 %, 1.0 % of peak; ideal float firmware vs Python
    6e-7; float vs double with quantisation and delay 7e-5; C double vs Python with quantisation and delay 1e-12."""
    rr = runs[name]
    # the float firmware with quantisation and delay against the package's law with ideal sensors
    assert np.all(_diff(rr["c_f"], rr["python"]) < 0.04), _diff(rr["c_f"], rr["python"])
    # intervention: without quantisation and delay the float firmware is the Python controller to 1e-5 of peak,
    # so the percent above come from the sensors and the bus, not from the C or from float32 ...
    assert np.all(_diff(rr["c_f_ideal"], rr["python"]) < 1e-5), _diff(rr["c_f_ideal"], rr["python"])
    assert np.all(_diff(rr["c_f"], rr["python"]) > 100 * _diff(rr["c_f_ideal"], rr["python"]))
    # ... and with them in the Python controller too, the double firmware is the Python controller in the loop
    assert np.all(_diff(rr["c_d"], rr["python_qd"]) < 1e-9), _diff(rr["c_d"], rr["python_qd"])
    # float32 against float64, same sensors and delay
    assert np.all(_diff(rr["c_f"], rr["c_d"]) < 5e-4), _diff(rr["c_f"], rr["c_d"])
