"""robokin.actuators: motor drive, motor files, encoder, IMU and pitch estimator (chapter 15)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin import actuators as act
from robokin.robots import WHEEL_LEG, WHEEL_LEG_FIVEBAR

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "examples" / "motors").glob("motor_*.toml"))
DRV = act.MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0, efficiency=0.9, coulomb=0.05, viscous=0.01)


# ----------------------------------------------------------------------------- motor drive
def test_line_from_electrical_constants():
    d = act.MotorDrive.from_electrical(torque_constant=0.05, supply_voltage=24.0, resistance=0.5, current_limit=1e3)
    # on the line: the torque that V = R i + K w, tau = K i gives at full voltage
    w = np.linspace(0.0, 480.0, 7)
    tau, i = d.deliver(np.full(7, 1e3), w / d.gear_ratio, friction=False)
    assert np.allclose(tau, 0.05 * (24.0 - 0.05 * w) / 0.5)
    assert np.allclose(24.0, 0.5 * i + 0.05 * w)  # the voltage equation holds on the line


def test_current_limit_and_friction():
    tau, i = DRV.deliver([5.0, 50.0, -50.0, 1.0], [0.0, 0.0, 0.0, 2.0])
    assert np.allclose(i[:3], [5.0 / 0.9, 10.0, -10.0])
    assert np.allclose(tau[:3], [5.0, 9.0, -9.0])  # current limit 10 A: 0.9 * 10 * 0.1 * 10
    assert np.isclose(tau[3], 1.0 - 0.05 - 0.01 * 2.0)  # Coulomb + viscous at 2 rad/s
    tau0, _ = DRV.deliver(1.0, 2.0, friction=False)
    assert np.isclose(tau0, 1.0)


def test_past_free_speed_no_torque():
    tau, i = DRV.deliver(5.0, 31.0, friction=False)  # motor speed 310 > 300 rad/s
    assert tau == 0.0 and i == 0.0


def test_output_ratings_reproduce_the_stall_point():
    d = act.MotorDrive.from_output_ratings(
        stall_torque=35.0, stall_current=12.5, free_speed=20.0, gear_ratio=6.0, efficiency=0.8, current_limit=20.0
    )
    tau, i = d.deliver(100.0, 0.0, friction=False)
    assert np.isclose(tau, 35.0) and np.isclose(i, 12.5)
    tau, _ = d.deliver(100.0, 10.0, friction=False)  # half the output free speed: half the stall torque
    assert np.isclose(tau, 17.5)


def test_joint_options_reflect_the_rotor():
    d = act.MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=6.0, rotor_inertia=3.4e-4, coulomb=0.1, viscous=0.01)
    assert d.joint_options() == pytest.approx({"armature": 36 * 3.4e-4, "damping": 0.01, "frictionloss": 0.1})


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-100, 100, allow_nan=False),
    st.floats(-50, 50, allow_nan=False),
)
def test_delivered_torque_never_exceeds_request_or_limits(tau_cmd, w):
    tau, i = DRV.deliver(tau_cmd, w, friction=False)
    assert abs(tau) <= abs(tau_cmd) + 1e-12
    assert abs(i) <= DRV.current_limit + 1e-12
    assert tau * tau_cmd >= 0  # never reversed
    assert abs(tau) <= DRV.envelope.max_joint_torque(DRV.gear_ratio, w) + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.floats(-100, 100, allow_nan=False), st.floats(-50, 50, allow_nan=False))
def test_limits_switched_off_one_at_a_time(tau_cmd, w):
    both = DRV.deliver(tau_cmd, w, friction=False)[0]
    cap = DRV.deliver(tau_cmd, w, friction=False, torque_speed=False)[0]
    line = DRV.deliver(tau_cmd, w, friction=False, current_limit=False)[0]
    ideal, i = DRV.deliver(tau_cmd, w, friction=False, current_limit=False, torque_speed=False)
    assert np.isclose(ideal, tau_cmd) and np.isclose(i, tau_cmd / DRV.joint_torque_per_amp)  # an ideal source
    assert np.isclose(cap, np.clip(tau_cmd, -DRV.peak_joint_torque, DRV.peak_joint_torque))
    assert np.isclose(line, DRV.envelope.saturate(tau_cmd, DRV.gear_ratio, w))
    # both limits: the smaller magnitude of the two, the request's sign
    assert np.isclose(abs(both), min(abs(cap), abs(line))) and both * tau_cmd >= 0


def test_limits_off_example():
    # at 2/3 of the joint's free speed (30 rad/s) the line leaves 1/3 of the 20 N m stall torque at the joint
    d = act.MotorDrive(0.1, 10.0, 2.0, 300.0, gear_ratio=10.0)
    assert np.isclose(d.deliver(50.0, 20.0)[0], 20.0 / 3)
    assert np.isclose(d.deliver(50.0, 20.0, torque_speed=False)[0], 10.0)
    assert np.isclose(d.deliver(50.0, 20.0, current_limit=False)[0], 20.0 / 3)
    assert np.isclose(d.deliver(50.0, 20.0, current_limit=False, torque_speed=False)[0], 50.0)


@pytest.mark.parametrize("flag", ["current_limit", "torque_speed"])
def test_limit_switch_bad_value_names_the_argument(flag):
    with pytest.raises(ValueError, match=flag):
        DRV.deliver(1.0, 0.0, **{flag: "no"})


def test_batched_shapes():
    tau, i = DRV.deliver(np.ones((4, 3)), np.zeros(3))
    assert tau.shape == i.shape == (4, 3)


@pytest.mark.parametrize(
    "kw, word",
    [
        (dict(torque_constant=-0.1), "torque_constant"),
        (dict(current_limit=0.0), "current_limit"),
        (dict(efficiency=1.2), "efficiency"),
        (dict(coulomb=-1.0), "coulomb"),
        (dict(free_speed=np.nan), "free_speed"),
    ],
)
def test_bad_drive_names_the_argument(kw, word):
    base = dict(torque_constant=0.1, current_limit=10.0, stall_torque=2.0, free_speed=300.0)
    with pytest.raises(ValueError, match=word):
        act.MotorDrive(**{**base, **kw})


def test_deliver_bad_shapes():
    with pytest.raises(ValueError, match="broadcast"):
        DRV.deliver(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="tau_cmd"):
        DRV.deliver(np.nan, 0.0)


# ----------------------------------------------------------------------------- motor files
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_example_files_load_and_name_every_source(path):
    mf = act.load_motor(path)
    assert set(mf.sources) == set(act._UNITS)
    for k, s in mf.sources.items():
        assert len(s) > 10, k
        assert s.lower().startswith("assumed for this example") or "page" in s.lower(), (k, s)
    # the stall point of the file is reproduced by the drive
    tau, i = mf.drive.deliver(1e3, 0.0, friction=False)
    lim = min(mf.values["stall_torque"], mf.values["stall_current"] * mf.drive.joint_torque_per_amp)
    assert np.isclose(tau, min(lim, mf.drive.joint_torque_per_amp * mf.values["current_limit"]))


def _write(tmp_path, text):
    p = tmp_path / "motor_x.toml"
    p.write_text(text)
    return p


def test_file_errors_name_the_field(tmp_path):
    good = FILES[0].read_text()
    with pytest.raises(ValueError, match=r"\[motor\.gear_ratio\].*source"):
        act.load_motor(
            _write(
                tmp_path,
                good.replace(
                    'gear_ratio = { value = 10.0, unit = "-", source = "page, row \'Gear ratio\' (10:1), column MG4005" }',
                    'gear_ratio = { value = 10.0, unit = "-" }',
                ),
            )
        )
    with pytest.raises(ValueError, match=r"\[motor\.free_speed\]\.unit"):
        act.load_motor(_write(tmp_path, good.replace('unit = "rpm"', 'unit = "rps"')))
    with pytest.raises(ValueError, match="missing field \\[motor.stall_torque\\]"):
        lines = [ln for ln in good.splitlines() if not ln.startswith("stall_torque")]
        act.load_motor(_write(tmp_path, "\n".join(lines)))
    with pytest.raises(ValueError, match="not valid TOML"):
        act.load_motor(_write(tmp_path, good + "\n[[["))
    with pytest.raises(ValueError, match="cannot be read"):
        act.load_motor(tmp_path / "absent.toml")
    with pytest.raises(ValueError, match="efficiency"):
        act.load_motor(_write(tmp_path, good.replace("value = 0.9,", "value = 1.5,")))
    with pytest.raises(ValueError, match="unknown field"):
        act.load_motor(_write(tmp_path, good + '\nvoltage = { value = 24, unit = "V", source = "x" }\n'))


def _field(good, key, new):
    """``good`` with the line of field ``key`` replaced by ``key = new``."""
    lines = good.splitlines()
    hits = [k for k, ln in enumerate(lines) if ln.startswith(key + " =")]
    assert len(hits) == 1, key
    lines[hits[0]] = f"{key} = {new}"
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "key, new",
    [
        ("coulomb_friction", '{ value = -0.02, unit = "N m", source = "page" }'),
        ("viscous_friction", '{ value = -1.0, unit = "N m s/rad", source = "page" }'),
        ("rotor_inertia", '{ value = -1.0, unit = "g cm^2", source = "page" }'),
        ("encoder_counts", '{ value = 100.5, unit = "counts/rev", source = "page" }'),
        ("encoder_counts", '{ value = 0, unit = "counts/rev", source = "page" }'),
        ("efficiency", '{ value = 1.5, unit = "-", source = "page" }'),
        ("free_speed", '{ value = 0.0, unit = "rpm", source = "page" }'),
        ("current_limit", '{ value = -4.0, unit = "A", source = "page" }'),
    ],
)
def test_value_errors_name_the_file_field(tmp_path, key, new):
    """A bad value is reported under the file's own field name, not the constructor's argument."""
    with pytest.raises(ValueError, match=rf"\[motor\.{key}\]\.value"):
        act.load_motor(_write(tmp_path, _field(FILES[0].read_text(), key, new)))


@pytest.mark.parametrize(
    "source",
    ["assumed", "Assumed", "assumed for this example", "assumed for this example:", "assumed: a guess", "assumed, 1 %"],
)
def test_assumed_needs_the_prefix_and_a_reason(tmp_path, source):
    text = _field(FILES[0].read_text(), "efficiency", f'{{ value = 0.9, unit = "-", source = "{source}" }}')
    with pytest.raises(ValueError, match=r"\[motor\.efficiency\]\.source.*assumed for this example: <reason>"):
        act.load_motor(_write(tmp_path, text))
    ok = _field(
        FILES[0].read_text(), "efficiency", '{ value = 0.9, unit = "-", source = "assumed for this example: a test" }'
    )
    assert act.load_motor(_write(tmp_path, ok)).sources["efficiency"] == "assumed for this example: a test"


def test_unknown_key_in_a_field_is_refused(tmp_path):
    text = _field(
        FILES[0].read_text(), "gear_ratio", '{ value = 10.0, unit = "-", source = "page", tolerance = 0.1, note = "x" }'
    )
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['note', 'tolerance'\] in field \[motor\.gear_ratio\]"):
        act.load_motor(_write(tmp_path, text))


# ----------------------------------------------------------------------------- encoder
@settings(max_examples=50, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-50.0, 50.0), st.integers(256, 1 << 16))
def test_finite_difference_error_bound(a0, rate, cpr):
    enc = act.Encoder(cpr, gear_ratio=1.0)
    dt = 1e-3
    t = np.arange(200) * dt
    a = a0 + rate * t
    qa = enc.quantise(a)
    assert np.all((qa <= a + 1e-12) & (qa > a - enc.step - 1e-12))
    v = np.diff(qa) / dt
    assert np.all(np.abs(v - rate) < enc.rate_error_bound(dt) + 1e-9)


def test_filtered_rate_passes_a_steady_rate():
    enc = act.Encoder(8192, gear_ratio=10.0)
    a = 2.0 * np.arange(2000) * 1e-3
    qa = enc.quantise(a)
    r = 0.0
    for k in range(1, a.size):
        r = act.rate_filter_step(qa[k - 1], r, qa[k], dt=1e-3, tau=0.02)
    assert abs(r - 2.0) < enc.rate_error_bound(1e-3)


def test_encoder_bad_input():
    with pytest.raises(ValueError, match="counts_per_rev"):
        act.Encoder(0)
    with pytest.raises(ValueError, match="counts_per_rev"):
        act.Encoder(100.5)
    with pytest.raises(ValueError, match="tau"):
        act.rate_filter_step(0.0, 0.0, 1.0, dt=1e-3, tau=-1.0)


# ----------------------------------------------------------------------------- IMU and estimator
def test_accel_pitch_and_filter_bias():
    phi = np.linspace(-1.0, 1.0, 9)
    f = np.stack([-9.81 * np.sin(phi), 0 * phi, 9.81 * np.cos(phi)], -1)
    assert np.allclose(act.accel_pitch(f), phi)
    p = 0.0
    for _ in range(8000):
        p = act.complementary_step(p, 0.02, 0.1, dt=1e-3, tau=0.25)
    assert np.isclose(p - 0.1, act.complementary_bias_error(0.02, tau=0.25), atol=1e-9)


def test_accel_pitch_is_exact_under_roll():
    """Gravity's reaction in a body of pitch phi and roll psi (yaw-pitch-roll): the pitch comes back at any roll."""
    phi, psi = np.meshgrid(np.linspace(-1.2, 1.2, 9), np.linspace(-1.0, 1.0, 7))
    f = 9.81 * np.stack([-np.sin(phi), np.cos(phi) * np.sin(psi), np.cos(phi) * np.cos(psi)], -1)
    assert np.allclose(act.accel_pitch(f), phi, atol=1e-12)
    # the shorter atan2(-f_x, f_z) would not be: it is atan2(sin phi, cos phi cos psi)
    short = np.arctan2(-f[..., 0], f[..., 2])
    assert np.allclose(short, np.arctan2(np.sin(phi), np.cos(phi) * np.cos(psi)))
    assert np.abs(short - phi).max() > 0.1


def test_imu_model_reads_gravity_at_rest():
    import mujoco

    from robokin import sim

    m = act.wheel_leg_imu_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
    d = mujoco.MjData(m)
    sim.wheel_leg_pose(m, d, WHEEL_LEG, WHEEL_LEG_FIVEBAR, L0=0.2)
    d.qpos[2] += 0.0  # standing
    m.opt.gravity[:] = [0.0, 0.0, -9.81]
    # hold the torso still (no contact transient): zero velocity, zero acceleration
    mujoco.mj_forward(m, d)
    d.qacc[:] = 0.0
    mujoco.mj_rnePostConstraint(m, d)
    mujoco.mj_sensorAcc(m, d)
    g, a = act.read_imu(d, act.ImuNoise())
    assert np.allclose(g, 0.0) and np.allclose(a, [0.0, 0.0, 9.81], atol=1e-9)
    g2, _ = act.read_imu(d, act.ImuNoise(gyro_sigma=0.1, gyro_bias=(0.0, 0.5, 0.0)), np.random.default_rng(1))
    assert abs(g2[1] - 0.5) < 0.5 and not np.allclose(g2, [0.0, 0.5, 0.0])


def test_imu_bad_input():
    with pytest.raises(ValueError, match="gyro_bias"):
        act.ImuNoise(gyro_bias=(0.0, 1.0))
    with pytest.raises(ValueError, match="accel_sigma"):
        act.ImuNoise(accel_sigma=-1.0)
    with pytest.raises(ValueError, match="imu_pos"):
        act.wheel_leg_imu_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR, imu_pos=(0.0, 0.0))
    with pytest.raises(ValueError, match="noise"):
        act.read_imu(None, None)


def test_read_imu_needs_a_generator_for_noise():
    import mujoco

    m = act.wheel_leg_imu_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator when the noise"):
        act.read_imu(d, act.ImuNoise(gyro_sigma=0.01))
    with pytest.raises(ValueError, match="rng"):
        act.read_imu(d, act.ImuNoise(accel_sigma=0.01), 3)
    act.read_imu(d, act.ImuNoise(gyro_bias=(0.0, 0.1, 0.0)))  # bias alone: no generator needed


def test_encoder_state_matches_the_engine():
    """The encoder geometry agrees with robokin.sim.wheel_leg_state on a standing, leaning robot."""
    import mujoco

    from robokin import sim

    m = act.wheel_leg_imu_model(WHEEL_LEG, WHEEL_LEG_FIVEBAR)
    d = mujoco.MjData(m)
    sim.wheel_leg_pose(m, d, WHEEL_LEG, WHEEL_LEG_FIVEBAR, L0=0.25, theta=0.15)
    st_ = sim.wheel_leg_state(m, d)
    qm = d.qpos[[m.joint(j).qposadr[0] for j in act.WHEEL_LEG_JOINTS]]
    es = act.wheel_leg_encoder_state(WHEEL_LEG_FIVEBAR, qm[:4].reshape(2, 2), qm[4:], st_["s"][4], R=WHEEL_LEG.R)
    assert np.allclose(es["theta_b"], st_["theta_b"], atol=1e-6)
    assert np.allclose(es["L0"], st_["L0"], atol=1e-6)
    # rolling: turn both wheels by 0.1 rad and x moves by R * 0.1
    es2 = act.wheel_leg_encoder_state(WHEEL_LEG_FIVEBAR, qm[:4].reshape(2, 2), qm[4:] + 0.1, st_["s"][4], R=WHEEL_LEG.R)
    assert np.allclose(es2["x"] - es["x"], 0.1 * WHEEL_LEG.R)
    with pytest.raises(ValueError, match="q_motor"):
        act.wheel_leg_encoder_state(WHEEL_LEG_FIVEBAR, np.zeros((2, 3)), [0.0, 0.0], 0.0, R=0.06)
    with pytest.raises(ValueError, match="R"):
        act.wheel_leg_encoder_state(WHEEL_LEG_FIVEBAR, qm[:4].reshape(2, 2), [0.0, 0.0], 0.0, R=-1.0)


# ----------------------------------------------------------------------------- pitch Kalman filter
def test_kalman_model_matches_the_sampled_white_acceleration_model():
    F, Q = act.pitch_kalman_model(0.01, accel_psd=2.0, bias_psd=0.5)
    assert np.allclose(F, [[1, 0.01, 0], [0, 1, 0], [0, 0, 1]])
    assert np.allclose(Q, [[2 * 1e-6 / 3, 2 * 1e-4 / 2, 0], [2 * 1e-4 / 2, 2 * 0.01, 0], [0, 0, 0.5 * 0.01]])
    assert np.allclose(Q, Q.T) and np.all(np.linalg.eigvalsh(Q) >= -1e-18)


@settings(max_examples=30, deadline=None)
@given(st.floats(-0.5, 0.5), st.floats(-0.05, 0.05))
def test_kalman_still_body_estimates_pitch_and_bias(pitch, bias):
    K = act.pitch_kalman_gain(1e-3, accel_psd=1.0, bias_psd=1e-4, pitch_sigma=0.01, gyro_sigma=0.005)
    x = np.zeros(3)
    for _ in range(5000):
        x = act.pitch_kalman_step(x, bias, pitch, dt=1e-3, gain=K)
    assert np.allclose(x, [pitch, 0.0, bias], atol=1e-3)


def test_kalman_step_batches():
    K = act.pitch_kalman_gain(1e-3, accel_psd=1.0, bias_psd=0.0, pitch_sigma=0.01, gyro_sigma=0.005)
    x = act.pitch_kalman_step(np.zeros((4, 3)), np.ones(4), np.zeros(4), dt=1e-3, gain=K)
    assert x.shape == (4, 3)
    assert np.allclose(x[0], act.pitch_kalman_step(np.zeros(3), 1.0, 0.0, dt=1e-3, gain=K))


@pytest.mark.parametrize(
    "call, word",
    [
        (lambda: act.pitch_kalman_model(0.0, accel_psd=1.0), "dt"),
        (lambda: act.pitch_kalman_model(1e-3, accel_psd=-1.0), "accel_psd"),
        (lambda: act.pitch_kalman_model(1e-3, accel_psd=1.0, bias_psd=-1.0), "bias_psd"),
        (
            lambda: act.pitch_kalman_gain(1e-3, accel_psd=1.0, bias_psd=0.0, pitch_sigma=0.0, gyro_sigma=1.0),
            "pitch_sigma",
        ),
        (lambda: act.pitch_kalman_step(np.zeros(2), 0.0, 0.0, dt=1e-3, gain=np.zeros((3, 2))), "state"),
        (lambda: act.pitch_kalman_step(np.zeros(3), 0.0, 0.0, dt=1e-3, gain=np.zeros((2, 3))), "gain"),
    ],
)
def test_kalman_bad_input_names_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


def test_kalman_step_names_the_arguments_when_batches_do_not_broadcast():
    K = act.pitch_kalman_gain(1e-3, accel_psd=1.0, bias_psd=0.0, pitch_sigma=0.01, gyro_sigma=0.005)
    with pytest.raises(ValueError, match=r"state \(4, 3\).*rate \(5,\)"):
        act.pitch_kalman_step(np.zeros((4, 3)), np.zeros(5), 0.0, dt=1e-3, gain=K)
    with pytest.raises(ValueError, match="pitch_acc"):
        act.pitch_kalman_step(np.zeros((4, 3)), 0.0, np.zeros(3), dt=1e-3, gain=K)


def test_kalman_gain_remembers_dt_and_the_step_refuses_another():
    K = act.pitch_kalman_gain(1e-3, accel_psd=1.0, bias_psd=0.0, pitch_sigma=0.01, gyro_sigma=0.005)
    assert K.dt == 1e-3 and K.T.dt == 1e-3  # views keep it
    with pytest.raises(ValueError, match=r"dt = 0.5 s but the gain was solved for dt = 0.001 s"):
        act.pitch_kalman_step(np.zeros(3), 0.0, 0.0, dt=0.5, gain=K)
    # the gain's own dt is accepted; a plain array is taken as solved for the dt given
    x = act.pitch_kalman_step(np.zeros(3), 0.0, 0.1, dt=1e-3, gain=K)
    assert np.allclose(x, act.pitch_kalman_step(np.zeros(3), 0.0, 0.1, dt=1e-3, gain=np.asarray(K)))


def test_kalman_gain_refuses_an_underflowing_sigma_and_warns_on_a_degenerate_one():
    kw = dict(accel_psd=0.1, bias_psd=1e-6, gyro_sigma=0.005)
    with pytest.raises(ValueError, match="pitch_sigma.*underflows"):
        act.pitch_kalman_gain(1e-3, pitch_sigma=1e-200, **kw)
    with pytest.raises(ValueError, match="gyro_sigma.*underflows"):
        act.pitch_kalman_gain(1e-3, accel_psd=0.1, bias_psd=1e-6, pitch_sigma=0.01, gyro_sigma=1e-170)
    with pytest.warns(RuntimeWarning, match="pitch_sigma.*degenerate"):
        K = act.pitch_kalman_gain(1e-3, pitch_sigma=1e-10, **kw)
    assert K[0, 0] > 1 - 1e-6  # it only copies the accelerometer's pitch
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        act.pitch_kalman_gain(1e-3, pitch_sigma=0.05 / 9.81, **kw)  # the chapter's noise: no warning
