"""The mechanism protocol of book/conventions.md, checked on every mechanism class.

One parametrised test per rule: a mechanism that deviates (another name, another default, another return type,
a branch given by a sign, a silent NaN on bad input) fails here. The per-module test files test the mathematics;
this file tests that every module speaks the same language.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from robokin import robots
from robokin.checks import jacobian_fd
from robokin.dynamics import SerialDynamics
from robokin.errors import UnreachableError
from robokin.results import IKResult, SimResult
from robokin.stewart import StewartDynamics
from robokin.transforms import zyx_rate_matrix
from robokin.wheel_leg import WheelLegDynamics

RNG_SEED = 20


# ----------------------------------------------------------------------------------------------- kinematics
@dataclass(frozen=True)
class Kin:
    """A mechanism with reachable targets, one unreachable target, and how to compare fk(ik(x).q) with x."""

    name: str
    mech: Any
    targets: Any  # (rng) -> (B, ...) reachable task-space targets
    unreachable: Any  # a task-space target no branch reaches, or None when every target is reachable
    fk_of: Any = None  # (mech, q) -> task-space value comparable with the targets (default: mech.fk(q))
    tol: float = 1e-9


def _leg2_targets(rng):
    q = rng.uniform([-0.8, 0.3], [0.8, 2.5], (5, 2))
    return robots.LEG2.fk(q)


def _leg3_targets(rng):
    from robokin.leg3 import ThreeDofLeg

    return ThreeDofLeg(0.08, 0.2, 0.2).fk(rng.uniform([-0.5, -0.8, 0.3], [0.5, 0.8, 2.5], (5, 3)))


def _leg3():
    from robokin.leg3 import ThreeDofLeg

    return ThreeDofLeg(0.08, 0.2, 0.2)


def _fivebar_targets(rng):
    leg = robots.FIVEBAR
    p = np.stack([rng.uniform(0.01, 0.06, 5), rng.uniform(-0.14, -0.09, 5)], -1)
    assert np.all(leg.ik(p, on_unreachable="nan").valid), "contract targets must be reachable"
    return p


def _ur5_targets(rng):
    return robots.UR5.fk(rng.uniform(-2.5, 2.5, (5, 6)))


def _stewart_targets(rng):
    return np.array([0.0, 0.0, 0.5, 0.0, 0.0, 0.0]) + rng.uniform(-1, 1, (5, 6)) * [0.03, 0.03, 0.03, 0.05, 0.05, 0.05]


def _stewart_fk(mech, q):
    out = mech.fk(q)
    return getattr(out, "pose", out)


def _chassis_targets(rng):
    return rng.uniform(-1, 1, (5, 3)) * [1.0, 1.0, 2.0]


KINEMATICS = [
    Kin("TwoLinkLeg", robots.LEG2, _leg2_targets, np.array([0.0, -0.5])),
    Kin("ThreeDofLeg", _leg3(), _leg3_targets, np.array([0.0, 0.08, -0.5])),
    Kin("FiveBar", robots.FIVEBAR, _fivebar_targets, np.array([0.035, -0.5])),
    Kin("UR5", robots.UR5, _ur5_targets, np.array([[1, 0, 0, 3.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])),
    Kin(
        "Stewart",
        robots.STEWART,
        _stewart_targets,
        np.array([0.0, 0.0, 1.5, 0.0, 0.0, 0.0]),
        fk_of=_stewart_fk,
        tol=1e-8,
    ),
    Kin("Mecanum", robots.CHASSIS, _chassis_targets, None),
]
KIN_IDS = [k.name for k in KINEMATICS]


@pytest.fixture(params=KINEMATICS, ids=KIN_IDS)
def kin(request):
    return request.param


def test_branch_vocabulary_is_strings(kin):
    m = kin.mech
    assert isinstance(m.branches, tuple) and m.branches and all(isinstance(b, str) for b in m.branches)
    assert len(set(m.branches)) == len(m.branches) and "all" not in m.branches
    assert m.default_branch in m.branches + ("all",)


def test_ik_signature(kin):
    sig = inspect.signature(kin.mech.ik)
    params = list(sig.parameters.values())
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    for name, default in (("branch", kin.mech.default_branch), ("on_unreachable", "raise")):
        p = sig.parameters.get(name)
        assert p is not None, f"{kin.name}.ik has no {name}= option"
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{kin.name}.ik: {name} must be keyword-only"
        assert p.default == default, f"{kin.name}.ik: {name} defaults to {p.default!r}, the protocol says {default!r}"
    for p in params:
        assert p.name not in ("full_output", "knee", "knees"), f"{kin.name}.ik still has {p.name}="


def test_ik_returns_an_ik_result_that_fk_confirms(kin):
    rng = np.random.default_rng(RNG_SEED)
    x = kin.targets(rng)
    res = kin.mech.ik(x)
    assert isinstance(res, IKResult)
    fk = kin.fk_of or (lambda m, q: m.fk(q))
    if kin.mech.default_branch == "all":
        k = len(kin.mech.branches)
        assert res.valid.shape == (len(x), k) and res.residual.shape == (len(x), k)
        ok = res.valid
        assert ok.any(axis=-1).all()
        got = fk(kin.mech, res.q[ok])
        want = np.broadcast_to(x[:, None], (len(x), k) + x.shape[1:])[ok]
    else:
        assert res.valid.shape == (len(x),) and res.residual.shape == (len(x),)
        assert res.valid.all()
        got, want = fk(kin.mech, res.q), x
    assert np.abs(got - want).max() < kin.tol
    assert np.nanmax(res.residual[res.valid]) < kin.tol
    assert res.branch == kin.mech.default_branch or res.branch == kin.mech.branches


def test_branch_all_stacks_every_branch_in_order(kin):
    rng = np.random.default_rng(RNG_SEED + 1)
    x = kin.targets(rng)
    allb = kin.mech.ik(x, branch="all", on_unreachable="nan")
    k = len(kin.mech.branches)
    assert allb.valid.shape == (len(x), k) and allb.q.shape[:2] == (len(x), k)
    assert tuple(allb.branch) == kin.mech.branches
    for j, b in enumerate(kin.mech.branches):
        one = kin.mech.ik(x, branch=b, on_unreachable="nan")
        assert isinstance(one, IKResult) and one.branch == b
        np.testing.assert_array_equal(one.valid, allb.valid[:, j])
        np.testing.assert_allclose(one.q[one.valid], allb.q[:, j][allb.valid[:, j]], atol=1e-12)


def test_unknown_branch_is_a_clear_error(kin):
    x = kin.targets(np.random.default_rng(RNG_SEED))
    for bad in ("sideways", 1, -1, None):
        with pytest.raises(ValueError, match="branch"):
            kin.mech.ik(x, branch=bad)


def test_unreachable_raises_by_default_and_nan_on_request(kin):
    if kin.unreachable is None:
        pytest.skip(f"every target of {kin.name} is reachable")
    x = kin.targets(np.random.default_rng(RNG_SEED))
    batch = np.concatenate([x, kin.unreachable[None]], 0)
    with pytest.raises(UnreachableError):
        kin.mech.ik(batch)
    res = kin.mech.ik(batch, on_unreachable="nan")
    assert isinstance(res, IKResult)
    last_valid = np.asarray(res.valid)[-1]
    assert not np.any(last_valid)
    assert np.all(np.isnan(np.atleast_1d(res.q[-1][..., 0])[~np.atleast_1d(last_valid)]))
    assert np.any(res.valid[:-1])
    with pytest.raises(ValueError, match="on_unreachable"):
        kin.mech.ik(x, on_unreachable="ignore")


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1j])
def test_ik_rejects_non_finite_and_complex_targets(kin, bad):
    x = np.array(kin.targets(np.random.default_rng(RNG_SEED))[0], dtype=complex if bad == 1j else float)
    x.flat[0] = bad
    with pytest.raises(ValueError):
        kin.mech.ik(x)


def test_ik_rejects_wrong_shapes(kin):
    x = kin.targets(np.random.default_rng(RNG_SEED))
    with pytest.raises(ValueError):
        kin.mech.ik(x[..., :-1])


def test_jacobian_is_the_derivative_of_fk(kin):
    """``jacobian`` is the derivative of ``fk`` (position rows for the UR5, whose angular rows are tested in
    test_serial.py); for the Stewart platform it is the derivative of ``ik`` (leg rates from the twist)."""
    m = kin.mech
    rng = np.random.default_rng(RNG_SEED)
    if kin.name == "Stewart":
        # a parallel mechanism's Jacobian is taken at the pose and maps task rates to joint (leg) rates: the
        # pose-rate form is the derivative of ik; jacobian() itself maps the twist [v; omega] (chapter 9)
        pose = kin.targets(rng)[0]
        fd = jacobian_fd(lambda x: m.ik(x).q, pose)
        np.testing.assert_allclose(m.jacobian_pose_rates(pose), fd, atol=1e-8)
        E = np.eye(6)
        E[3:, 3:] = zyx_rate_matrix(pose[3:], frame="world")
        np.testing.assert_allclose(m.jacobian(pose) @ E, fd, atol=1e-8)
        return
    if kin.name == "Mecanum":
        w = rng.normal(size=4)
        np.testing.assert_allclose(m.jacobian() @ w, m.fk(w), atol=1e-12)  # fk is linear in the wheel speeds
        return
    x = kin.targets(rng)[0]
    res = m.ik(x)
    q = res.q[np.argmax(res.valid)] if m.default_branch == "all" else res.q
    J = m.jacobian(q)
    if kin.name == "UR5":
        fd = jacobian_fd(lambda qq: m.fk(qq)[..., :3, 3], q)
        np.testing.assert_allclose(J[:3], fd, atol=1e-8)
    else:
        fd = jacobian_fd(m.fk, q)
        np.testing.assert_allclose(J, fd, atol=1e-8)


# ----------------------------------------------------------------------------------------------- dynamics
def _serial_dynamics():
    ur = robots.UR5
    return SerialDynamics.from_dh(ur.a, ur.alpha, ur.d, convention="standard", **robots.ur5_inertials())


DYNAMICS = [
    ("TwoLinkArm", lambda: robots.ARM2, {}),
    ("SerialDynamics", _serial_dynamics, {}),
    ("StewartDynamics", lambda: StewartDynamics(robots.STEWART, robots.STEWART_PAYLOAD), {}),
    ("WheelLegDynamics", lambda: WheelLegDynamics(robots.WHEEL_LEG), {"L0": 0.22}),
]


def _state(name, n, rng):
    if name == "StewartDynamics":
        q = np.array([0.0, 0.0, 0.5, 0.0, 0.0, 0.0]) + rng.uniform(-1, 1, (4, 6)) * [0.02, 0.02, 0.02, 0.05, 0.05, 0.05]
    else:
        q = rng.uniform(-1.0, 1.0, (4, n))
    return q, rng.normal(size=(4, n)), rng.normal(size=(4, n))


@pytest.fixture(params=DYNAMICS, ids=[d[0] for d in DYNAMICS])
def dyn(request):
    name, make, kw = request.param
    model = make()
    n = model.mass_matrix(
        np.zeros(6) + [0, 0, 0.5, 0, 0, 0] if name == "StewartDynamics" else np.zeros(_dof(name)), **kw
    ).shape[-1]
    return name, model, kw, n


def _dof(name):
    return {"TwoLinkArm": 2, "SerialDynamics": 6, "StewartDynamics": 6, "WheelLegDynamics": 3}[name]


def test_dynamics_names_and_signatures(dyn):
    name, model, kw, n = dyn
    for meth, args in (
        ("mass_matrix", ["q"]),
        ("bias", ["q", "qd"]),
        ("gravity", ["q"]),
        ("inverse_dynamics", ["q", "qd", "qdd"]),
        ("forward_dynamics", ["q", "qd"]),
    ):
        fn = getattr(model, meth, None)
        assert callable(fn), f"{name} has no {meth}"
        params = [p for p in inspect.signature(fn).parameters.values() if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert [p.name for p in params][: len(args)] == args, f"{name}.{meth} positional arguments"
        extra = [p.name for p in params[len(args) + (1 if meth == "forward_dynamics" else 0) :]]
        assert not extra, f"{name}.{meth}: mechanism-specific inputs must be keyword-only, got {extra}"
    for old in ("M", "C", "G", "rnea", "bias_forces"):
        assert not hasattr(model, old), f"{name}.{old} is an old name"


def test_mass_matrix_is_symmetric_positive_definite(dyn):
    name, model, kw, n = dyn
    q, _, _ = _state(name, n, np.random.default_rng(RNG_SEED))
    M = model.mass_matrix(q, **kw)
    assert M.shape == (4, n, n)
    np.testing.assert_allclose(M, np.swapaxes(M, -1, -2), atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0


def test_bias_is_quadratic_in_the_rates_and_excludes_gravity(dyn):
    name, model, kw, n = dyn
    q, qd, _ = _state(name, n, np.random.default_rng(RNG_SEED))
    np.testing.assert_allclose(model.bias(q, np.zeros_like(qd), **kw), 0.0, atol=1e-12)
    b1, b2 = model.bias(q, qd, **kw), model.bias(q, 2 * qd, **kw)
    np.testing.assert_allclose(b2, 4 * b1, rtol=1e-9, atol=1e-12)
    assert np.abs(model.gravity(q, **kw)).max() > 0


def test_inverse_dynamics_is_m_qdd_plus_bias_plus_gravity(dyn):
    name, model, kw, n = dyn
    q, qd, qdd = _state(name, n, np.random.default_rng(RNG_SEED))
    tau = model.inverse_dynamics(q, qd, qdd, **kw)
    M = model.mass_matrix(q, **kw)
    want = np.einsum("...ij,...j->...i", M, qdd) + model.bias(q, qd, **kw) + model.gravity(q, **kw)
    np.testing.assert_allclose(tau, want, rtol=1e-9, atol=1e-9)


def test_forward_dynamics_inverts_inverse_dynamics(dyn):
    name, model, kw, n = dyn
    q, qd, qdd = _state(name, n, np.random.default_rng(RNG_SEED))
    if hasattr(model, "input_matrix"):  # underactuated: generalised force = B u
        B = model.input_matrix()
        u = np.random.default_rng(1).normal(size=(4, B.shape[-1]))
        acc = model.forward_dynamics(q, qd, u, **kw)
        M = model.mass_matrix(q, **kw)
        lhs = np.einsum("...ij,...j->...i", M, acc) + model.bias(q, qd, **kw) + model.gravity(q, **kw)
        np.testing.assert_allclose(lhs, np.einsum("ij,...j->...i", B, u), rtol=1e-9, atol=1e-9)
        return
    tau = model.inverse_dynamics(q, qd, qdd, **kw)
    np.testing.assert_allclose(model.forward_dynamics(q, qd, tau, **kw), qdd, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1j])
def test_dynamics_reject_non_finite_and_complex_states(dyn, bad):
    name, model, kw, n = dyn
    q, qd, _ = _state(name, n, np.random.default_rng(RNG_SEED))
    q = q[0].astype(complex if bad == 1j else float)
    q[0] = bad
    for call in (
        lambda: model.mass_matrix(q, **kw),
        lambda: model.bias(q, qd[0], **kw),
        lambda: model.gravity(q, **kw),
    ):
        with pytest.raises(ValueError):
            call()


def test_dynamics_reject_wrong_shapes(dyn):
    name, model, kw, n = dyn
    with pytest.raises(ValueError):
        model.mass_matrix(np.zeros(n + 1), **kw)
    with pytest.raises(ValueError):
        model.bias(np.zeros(n), np.zeros(n - 1), **kw)


# ----------------------------------------------------------------------------------------------- simulation
def _simulators():
    from robokin import control, wheel_leg
    from robokin.trajectory import quintic_step

    arm = robots.ARM2
    ctrl = control.tracking_controller(arm, kind="computed_torque", kp=100.0, kd=20.0)

    def ref(t):
        return quintic_step(t, t0=0.0, t1=0.2, v0=[0.0, 0.0], v1=[0.2, 0.1])

    model = WheelLegDynamics(robots.WHEEL_LEG)
    sched = wheel_leg.gain_schedule(model, np.linspace(0.14, 0.34, 5), degree=2)
    return [
        ("control.simulate", control.simulate, (arm, ctrl), dict(q0=np.zeros(2), qd0=np.zeros(2), ref=ref, t_end=0.3)),
        (
            "wheel_leg.simulate",
            wheel_leg.simulate,
            (model, sched),
            dict(q0=np.zeros(3), qd0=np.zeros(3), t_end=0.3, L0=0.22),
        ),
    ]


@pytest.mark.parametrize("index", [0, 1], ids=["control.simulate", "wheel_leg.simulate"])
def test_simulators_share_one_signature_and_result(index):
    name, fn, args, kw = _simulators()[index]
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    assert (
        names[:2] == ["model", "controller"]
        or len([p for p in sig.parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]) == 2
    )
    for k in ("q0", "qd0", "t_end"):
        assert sig.parameters[k].kind is inspect.Parameter.KEYWORD_ONLY, f"{name}: {k} must be keyword-only"
    assert "t_final" not in sig.parameters
    res = fn(*args, **kw)
    assert isinstance(res, SimResult)
    K = res.t.shape[0]
    assert res.q.shape[-2] == K and res.qd.shape == res.q.shape and res.u.shape[-2] == K
    assert res.t[0] == 0.0 and res.t[-1] == pytest.approx(kw["t_end"], abs=0.02)
    assert np.all(res.stable)
    np.testing.assert_allclose(res.q[..., 0, :], kw["q0"], atol=1e-12)


# ----------------------------------------------------------------------------------------------- the checker
class _Leg:
    """LEG2 behind the protocol, with one deviation switched on at a time (to show the rules above can fail)."""

    def __init__(self, *, nan_default=False, tuple_result=False, int_branches=False):
        self.nan_default, self.tuple_result = nan_default, tuple_result
        self.branches = (1, -1) if int_branches else robots.LEG2.branches
        self.default_branch = robots.LEG2.default_branch
        if nan_default:
            self.ik = self._ik_nan

    def fk(self, q):
        return robots.LEG2.fk(q)

    def jacobian(self, q):
        return robots.LEG2.jacobian(q)

    def ik(self, p, *, branch="knee-back", on_unreachable="raise"):
        r = robots.LEG2.ik(p, branch=branch, on_unreachable=on_unreachable)
        return (r.q, r.valid) if self.tuple_result else r

    def _ik_nan(self, p, *, branch="knee-back", on_unreachable="nan"):
        return robots.LEG2.ik(p, branch=branch, on_unreachable=on_unreachable)


class _GravityInBias:
    """ARM2 with gravity folded into bias: the deviation chapter 11 warns about."""

    def __getattr__(self, name):
        return getattr(robots.ARM2, name)

    def bias(self, q, qd):
        return robots.ARM2.bias(q, qd) + robots.ARM2.gravity(q)


@pytest.mark.parametrize(
    "rule, mech",
    [
        (test_ik_signature, _Leg(nan_default=True)),
        (test_ik_returns_an_ik_result_that_fk_confirms, _Leg(tuple_result=True)),
        (test_branch_vocabulary_is_strings, _Leg(int_branches=True)),
    ],
    ids=["nan default", "tuple result", "int branches"],
)
def test_a_deviating_mechanism_fails_the_contract(rule, mech):
    with pytest.raises((AssertionError, AttributeError)):
        rule(Kin("deviant", mech, _leg2_targets, np.array([0.0, -0.5])))


def test_gravity_in_bias_fails_the_contract():
    with pytest.raises(AssertionError):
        test_bias_is_quadratic_in_the_rates_and_excludes_gravity(("deviant", _GravityInBias(), {}, 2))
