"""Tests for robokin.fivebar (chapter 3: five-bar leg)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robokin.checks import check_jacobian
from robokin.errors import ConvergenceError, SingularityWarning, UnreachableError
from robokin.fivebar import FiveBar, segment_distance
from robokin.results import IKResult
from robokin.robots import FIVEBAR
from robokin.validation.fivebar import validate

LEG = FIVEBAR  # l1 = l2 = 60 mm, l3 = l4 = 100 mm, d = 70 mm
BRANCHES = ("out", "in", "in-out", "out-in")
ASYM = FiveBar(0.05, 0.07, 0.11, 0.09, 0.06)  # unequal links catch swapped l1/l2 or l3/l4


def cross(u, v):
    return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]


def random_targets(leg, n, rng, box=((-0.15, 0.2), (-0.2, 0.2))):
    return np.stack([rng.uniform(*box[0], n), rng.uniform(*box[1], n)], -1)


# ----------------------------------------------------------------------- FK
def test_fk_symmetric_pose_by_hand():
    # thighs horizontal and out: C = (-l1, 0), D = (d + l2, 0); E on the perpendicular bisector
    E = LEG.fk([np.pi, 0.0])
    half = (LEG.d + 2 * LEG.l1) / 2
    expected_y = -np.sqrt(LEG.l3**2 - half**2)
    np.testing.assert_allclose(E, [LEG.d / 2, expected_y], atol=1e-15)
    np.testing.assert_allclose(LEG.fk([np.pi, 0.0], assembly="up"), [LEG.d / 2, -expected_y], atol=1e-15)


@pytest.mark.parametrize("leg", [LEG, ASYM])
@pytest.mark.parametrize("assembly", ["down", "up"])
def test_fk_closes_loop_and_has_named_sign(leg, assembly):
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, (4000, 2))
    E = leg.fk(q, assembly=assembly, on_unreachable="nan")
    ok = np.isfinite(E).all(-1)
    assert E.shape == q.shape and ok.sum() > 500
    # the pitfall leg always assembles (|CD| <= l1 + l2 + d < l3 + l4); the asymmetric one does not
    assert (~ok).sum() > 0 or leg.l1 + leg.l2 + leg.d < leg.l3 + leg.l4
    J = leg.joints(q[ok], assembly=assembly)
    A, B, C, D, E = (J[:, k] for k in range(5))
    np.testing.assert_allclose(np.linalg.norm(C - A, axis=-1), leg.l1, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(D - B, axis=-1), leg.l2, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(E - C, axis=-1), leg.l3, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(E - D, axis=-1), leg.l4, rtol=1e-9)
    s = cross(D - C, E - C)
    assert np.all(s <= 0) if assembly == "down" else np.all(s >= 0)
    if (~ok).any():
        assert np.all(np.isnan(leg.fk(q[~ok], assembly=assembly, on_unreachable="nan")))


def test_down_is_not_larger_y():
    # crossed thighs (the practitioner's guess): the hanging foot is the "up" branch by the sign rule
    q0 = np.array([0.8, 2.5])
    assert LEG.fk(q0, assembly="up")[1] < 0 < LEG.fk(q0, assembly="down")[1]
    # the usual knees-out leg: "down" is the foot below
    assert LEG.fk([np.pi, 0.0], assembly="down")[1] < 0


def test_fk_batch_shapes():
    q = np.tile([np.pi, 0.0], (3, 4, 1))
    assert LEG.fk(q).shape == (3, 4, 2)
    assert LEG.joints(q).shape == (3, 4, 5, 2)
    assert LEG.jacobian(q).shape == (3, 4, 2, 2)
    assert LEG.condition_number(q).shape == (3, 4)
    assert LEG.fk(q).dtype == np.float64


# ----------------------------------------------------------------------- IK
@pytest.mark.parametrize("leg", [LEG, ASYM])
@pytest.mark.parametrize("branch", BRANCHES)
def test_ik_roundtrip_and_knee_sides(leg, branch):
    rng = np.random.default_rng(2)
    p = random_targets(leg, 20000, rng)
    res = leg.ik(p, branch=branch, on_unreachable="nan")
    q, ok = res.q, res.valid
    assert ok.sum() > 2000
    qk, pk = q[ok], p[ok]
    C, D = leg._knees(qk)
    # each side is a genuine 2-link chain through the target
    np.testing.assert_allclose(np.linalg.norm(pk - C, axis=-1), leg.l3, rtol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(pk - D, axis=-1), leg.l4, rtol=1e-9)
    sL = cross(pk, C)
    sR = cross(pk - [leg.d, 0], D - [leg.d, 0])
    left_out, right_out = {"out": (1, 1), "in": (0, 0), "out-in": (1, 0), "in-out": (0, 1)}[branch]
    tol = 1e-12
    assert np.all(sL <= tol) if left_out else np.all(sL >= -tol)
    assert np.all(sR >= -tol) if right_out else np.all(sR <= tol)
    # FK on the branch the solution lands in returns the target
    s = leg.assembly_sign(qk, pk)
    keep = np.abs(s) > 1e-6
    back = np.where(
        (s < 0)[:, None],
        leg.fk(qk, assembly="down", on_unreachable="nan"),
        leg.fk(qk, assembly="up", on_unreachable="nan"),
    )
    err = np.linalg.norm(back - pk, axis=-1)[keep] / leg.scale
    assert err.max() <= 1e-9
    # the result's residual is that FK check, in the solution's own assembly mode
    np.testing.assert_allclose(res.residual[ok][keep], (err * leg.scale), atol=1e-15)
    assert res.residual[ok].max() <= 1e-9 * leg.scale and np.all(np.isnan(res.residual[~ok]))
    assert np.all((q[ok] >= -np.pi) & (q[ok] < np.pi))


def test_knees_out_below_means_far_from_other_motor():
    p = np.array([[0.035, -0.12], [0.0, -0.09], [0.05, -0.13]])
    q = LEG.ik(p, branch="out").q
    C, D = LEG._knees(q)
    assert np.all(C[:, 0] < p[:, 0]) and np.all(D[:, 0] > p[:, 0])
    assert np.all(LEG.assembly_of(q, p) == "down")
    assert np.all(LEG.assembly_of(LEG.ik(p, branch="in").q, p) == "up")


def test_branch_and_assembly_vocabulary():
    assert FiveBar.branches == BRANCHES and FiveBar.default_branch == "out"
    assert FiveBar.assemblies == ("down", "up")
    p = [0.035, -0.12]
    np.testing.assert_array_equal(LEG.ik(p).q, LEG.ik(p, branch="out").q)
    # each branch name means the working mode of its solution
    assert [str(LEG.working_mode(LEG.ik(p, branch=b).q, p)) for b in BRANCHES] == list(BRANCHES)


@pytest.mark.parametrize("branch", [*BRANCHES, "all"])
@pytest.mark.parametrize("mode", ["raise", "nan"])
def test_ik_always_returns_ikresult(branch, mode):
    p = np.array([[0.035, -0.12], [0.01, -0.10]])
    res = LEG.ik(p, branch=branch, on_unreachable=mode)
    assert isinstance(res, IKResult) and res.iterations is None and res.reason is None
    k = (4,) if branch == "all" else ()
    assert res.q.shape == (2, *k, 2) and res.valid.shape == (2, *k) and res.residual.shape == (2, *k)
    assert res.valid.dtype == bool and res.valid.all() and np.all(res.residual < 1e-15)
    assert res.branch == (BRANCHES if branch == "all" else branch)


def test_ik_all_order_and_unreachable():
    p = np.array([[0.035, -0.12], [0.035, -0.5], [0.02, -0.10]])
    res = LEG.ik(p, branch="all", on_unreachable="nan")
    for k, b in enumerate(BRANCHES):
        one = LEG.ik(p, branch=b, on_unreachable="nan")
        np.testing.assert_array_equal(res.q[:, k], one.q)
        np.testing.assert_array_equal(res.valid[:, k], one.valid)
        np.testing.assert_array_equal(res.residual[:, k], one.residual)
    assert res.valid.tolist() == [[True] * 4, [False] * 4, [True] * 4]
    assert np.all(np.isnan(res.q[1])) and np.all(np.isnan(res.residual[1]))
    with pytest.raises(UnreachableError) as exc:
        LEG.ik(p, branch="all")
    assert exc.value.count == 1 and exc.value.total == 3 and np.allclose(exc.value.first, [0.035, -0.5])
    # scalar target
    one = LEG.ik([0.035, -0.12], branch="all")
    assert one.q.shape == (4, 2) and one.valid.shape == (4,)


@pytest.mark.parametrize("bad", ["outward", "OUT", "down", 1, -1, None, True, ("out",), ["out", "in"]])
def test_unknown_branch_is_a_value_error(bad):
    with pytest.raises(ValueError, match="branch must be one of 'out', 'in', 'in-out', 'out-in', 'all'"):
        LEG.ik([0.035, -0.12], branch=bad)


def test_old_knees_keyword_is_gone():
    with pytest.raises(TypeError):
        LEG.ik([0.035, -0.12], knees="out")


def test_ik_numeric_agrees_with_closed_form():
    p = np.array([[0.035, -0.12], [0.01, -0.10], [0.05, -0.14]])
    q_cf = LEG.ik(p, branch="out").q
    res = LEG.ik_numeric(p, q0=q_cf + 0.2, assembly="down")
    assert isinstance(res, IKResult) and res.branch == "down"
    np.testing.assert_allclose(res.q, q_cf, atol=1e-8)
    assert res.valid.all() and list(res.reason) == ["converged"] * 3
    assert np.all(res.iterations > 0) and res.iterations.dtype.kind == "i"
    np.testing.assert_allclose(res.residual, np.linalg.norm(LEG.fk(res.q) - p, axis=-1), atol=1e-15)
    assert np.all(res.residual <= 1e-10 * LEG.scale)
    q_in = LEG.ik(p, branch="in").q
    res = LEG.ik_numeric(p, q0=[0.8, 2.5], assembly="up")
    np.testing.assert_allclose(res.q, q_in, atol=1e-8)
    np.testing.assert_allclose(res.residual, np.linalg.norm(LEG.fk(res.q, assembly="up") - p, axis=-1), atol=1e-15)


def test_ik_numeric_previous_warm_start_follows_trajectory():
    x = np.linspace(0.0, 0.07, 15)
    p = np.stack([x, -0.12 + 0 * x], -1)
    q = LEG.ik_numeric(p, q0=LEG.ik(p[0]).q + 0.05, warm_start="previous").q
    np.testing.assert_allclose(q, LEG.ik(p).q, atol=1e-8)


def test_ik_numeric_failure_reported():
    with pytest.raises(ConvergenceError) as exc:
        LEG.ik_numeric([0.035, -0.3], q0=[np.pi, 0.0])
    assert exc.value.residual > 0.01
    res = LEG.ik_numeric([[0.035, -0.3], [0.035, -0.12]], q0=[-2.0, -1.0], on_failure="report")
    assert res.valid.tolist() == [False, True] and res.reason.tolist() == ["residual above tol", "converged"]
    # a failed row holds the last iterate (finite) and its honest residual
    assert np.all(np.isfinite(res.q)) and res.residual[0] > 0.01 and res.iterations.shape == (2,)
    # a scalar target gives 0-d fields
    one = LEG.ik_numeric([0.035, -0.12], q0=[-2.0, -1.0])
    assert one.q.shape == (2,) and one.valid.shape == () and one.reason.shape == () and one.iterations.shape == ()


# ----------------------------------------------------------------- Jacobian
@pytest.mark.parametrize("leg", [LEG, ASYM])
@pytest.mark.parametrize("assembly", ["down", "up"])
def test_jacobian_matches_finite_differences(leg, assembly):
    rng = np.random.default_rng(4)
    q = rng.uniform(-np.pi, np.pi, (3000, 2))
    q = q[np.isfinite(leg.fk(q, assembly=assembly, on_unreachable="nan")).all(-1)]
    t1, t2 = leg.singularity_measures(q, assembly=assembly)
    okp = np.isfinite(leg.fk(q + 1e-5, assembly=assembly, on_unreachable="nan")).all(-1)
    okm = np.isfinite(leg.fk(q - 1e-5, assembly=assembly, on_unreachable="nan")).all(-1)
    q = q[(t2 > 0.05) & okp & okm][:500]
    rep = check_jacobian(
        lambda x: leg.jacobian(x, assembly=assembly), lambda x: leg.fk(x, assembly=assembly), q, eps=1e-6, tol=1e-6
    )
    assert rep.samples == 4 * len(q) // 4 and rep.passed


def test_static_torques_virtual_work():
    rng = np.random.default_rng(5)
    q = LEG.ik(np.stack([rng.uniform(0, 0.07, 50), rng.uniform(-0.13, -0.08, 50)], -1)).q
    F = rng.normal(size=(50, 2)) * 100
    dq = rng.normal(size=(50, 2)) * 1e-7
    tau = LEG.static_torques(q, F)
    dE = LEG.fk(q + dq) - LEG.fk(q)
    np.testing.assert_allclose(np.sum(tau * dq, -1), np.sum(F * dE, -1), rtol=1e-5, atol=1e-12)


def test_type2_singularity_warns():
    leg = FiveBar(0.1, 0.1, 0.1, 0.1, 0.1)
    q = np.array([np.pi, np.arccos(-0.25)])  # |CD| = l3 + l4: distal links stretched in line
    with pytest.warns(SingularityWarning):
        leg.jacobian(q)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        leg.jacobian(q, warn=False)
    assert leg.condition_number(q) > 1e6
    assert leg.singularity_measures(q)[1] < 1e-6


def test_type1_singularity_measure_and_conditioning():
    # foot on the outer circle of the left side: shank CE in line with thigh AC
    p = (LEG.l1 + LEG.l3) * np.array([np.cos(-1.2), np.sin(-1.2)])
    q = LEG.ik(p, branch="out").q
    t1, t2 = LEG.singularity_measures(q)
    assert t1 < 1e-6 and t2 > 0.1
    assert LEG.condition_number(q) > 1e6
    q_ok = LEG.ik([0.035, -0.12]).q
    assert LEG.condition_number(q_ok) < 10


@settings(deadline=None)
@given(x=st.floats(-0.2, 0.3), y=st.floats(-0.25, 0.25), branch=st.sampled_from(BRANCHES))
def test_ik_property_never_silent(x, y, branch):
    try:
        q = LEG.ik([x, y], branch=branch).q
    except UnreachableError:
        r1 = np.hypot(x, y)
        r2 = np.hypot(x - LEG.d, y)
        assert not (
            LEG.l3 - LEG.l1 + 1e-9 < r1 < LEG.l1 + LEG.l3 - 1e-9
            and LEG.l4 - LEG.l2 + 1e-9 < r2 < LEG.l2 + LEG.l4 - 1e-9
        )
        return
    assert np.all(np.isfinite(q))
    C, D = LEG._knees(q)
    assert abs(np.linalg.norm(np.array([x, y]) - C) - LEG.l3) < 1e-9
    assert abs(np.linalg.norm(np.array([x, y]) - D) - LEG.l4) < 1e-9


@settings(deadline=None)
@given(t1=st.floats(-4.0, 4.0), t2=st.floats(-4.0, 4.0), assembly=st.sampled_from(["down", "up"]))
def test_fk_property_raise_or_finite(t1, t2, assembly):
    try:
        E = LEG.fk([t1, t2], assembly=assembly)
    except UnreachableError as e:
        assert e.count == 1
        return
    assert np.all(np.isfinite(E))


# ---------------------------------------------------------------- bad input
BAD_Q = [[np.nan, 0.0], [np.inf, 0.0], [1.0, 2.0, 3.0], [[1.0], [2.0]], "abc"]


@pytest.mark.parametrize("bad", BAD_Q)
@pytest.mark.parametrize("method", ["fk", "joints", "jacobian", "singularity_measures", "condition_number"])
def test_bad_q(method, bad):
    with pytest.raises(ValueError):
        getattr(LEG, method)(bad)


@pytest.mark.parametrize("bad", BAD_Q)
def test_bad_p(bad):
    with pytest.raises(ValueError):
        LEG.ik(bad)
    with pytest.raises(ValueError):
        LEG.ik_numeric(bad, q0=[0.0, 0.0])
    with pytest.raises(ValueError):
        LEG.assembly_sign([0.0, 0.0], bad)
    with pytest.raises(ValueError):
        LEG.static_torques([np.pi, 0.0], bad)


def test_unknown_option_names():
    with pytest.raises(ValueError, match="assembly"):
        LEG.fk([np.pi, 0.0], assembly="lower")
    with pytest.raises(ValueError, match="branch"):
        LEG.ik([0.035, -0.12], branch="outward")
    with pytest.raises(ValueError, match="on_unreachable"):
        LEG.ik([0.035, -0.12], on_unreachable="ignore")
    with pytest.raises(ValueError, match="on_unreachable"):
        LEG.fk([np.pi, 0.0], on_unreachable="skip")
    with pytest.raises(ValueError, match="warm_start"):
        LEG.ik_numeric([0.035, -0.12], q0=[0, 0], warm_start="last")
    with pytest.raises(ValueError, match="on_failure"):
        LEG.ik_numeric([0.035, -0.12], q0=[0, 0], on_failure="ignore")
    with pytest.raises(ValueError, match="assembly"):
        LEG.jacobian([np.pi, 0.0], assembly="Down")
    with pytest.raises(ValueError, match="tol"):
        LEG.ik_numeric([0.035, -0.12], q0=[0, 0], tol=-1)
    with pytest.raises(ValueError, match="broadcast"):
        LEG.ik_numeric([[0.035, -0.12]] * 3, q0=[[0, 0]] * 2)
    with pytest.raises(TypeError):
        LEG.ik([0.035, -0.12], "out")  # options are keyword-only


def test_unreachable_raise_and_mask():
    p = np.array([[0.035, -0.12], [0.035, -0.5], [0.035, 0.0]])
    with pytest.raises(UnreachableError) as exc:
        LEG.ik(p)
    assert exc.value.count == 2 and np.allclose(exc.value.first, [0.035, -0.5])
    res = LEG.ik(p, on_unreachable="nan")
    q, ok = res.q, res.valid
    assert list(ok) == [True, False, False] and np.all(np.isnan(q[1:])) and np.all(np.isfinite(q[0]))
    # fk with on_unreachable="nan": still one array, NaN rows where the linkage cannot be assembled
    E = FiveBar(0.1, 0.1, 0.1, 0.1, 0.1).fk([[np.pi, 0.0], [np.pi, np.arccos(-0.25)]], on_unreachable="nan")
    assert isinstance(E, np.ndarray) and E.shape == (2, 2)
    assert np.all(np.isnan(E[0])) and np.all(np.isfinite(E[1]))
    # knees too far apart (thighs horizontal outwards on a long-thigh leg) and C = D (degenerate)
    leg = FiveBar(0.1, 0.1, 0.1, 0.1, 0.1)
    with pytest.raises(UnreachableError):
        leg.fk([np.pi, 0.0])
    cd = np.array([np.arccos(0.5), np.pi - np.arccos(0.5)])  # C = D at (0.05, 0.0866)
    with pytest.raises(UnreachableError):
        leg.fk(cd)
    with pytest.raises(UnreachableError):
        leg.jacobian([np.pi, 0.0])
    assert np.isnan(leg.condition_number([np.pi, 0.0]))


@pytest.mark.parametrize("bad", [0.0, -0.1, np.nan, np.inf, "1", None, True])
def test_bad_parameters(bad):
    with pytest.raises(ValueError):
        FiveBar(bad, 0.06, 0.1, 0.1, 0.07)
    with pytest.raises(ValueError):
        FiveBar(0.06, 0.06, 0.1, 0.1, bad)


def test_frozen():
    with pytest.raises(AttributeError):
        LEG.l1 = 0.2


def test_no_validation_or_demo_robots_in_the_mechanism_module():
    import robokin.fivebar as fb

    for gone in ("validate", "PITFALL_LEG", "KNEES", "ASSEMBLIES", "_cross"):
        assert not hasattr(fb, gone), gone


def test_validate_reports_pass():
    reps = validate(fast=True)
    assert len(reps) >= 2 and all(r.passed for r in reps)


# ------------------------------------------------------- modes and margins
@pytest.mark.parametrize("leg", [LEG, ASYM])
def test_working_mode_labels_ik_solutions(leg):
    rng = np.random.default_rng(6)
    p = random_targets(leg, 5000, rng)
    for branch in BRANCHES:
        res = leg.ik(p, branch=branch, on_unreachable="nan")
        qk, pk = res.q[res.valid], p[res.valid]
        C, D = leg._knees(qk)
        # skip targets on a type I circle, where both sides coincide
        far = (np.abs(cross(pk, C)) > 1e-9) & (np.abs(cross(pk - [leg.d, 0], D - [leg.d, 0])) > 1e-9)
        assert np.all(leg.working_mode(qk[far], pk[far]) == branch)


def test_working_mode_of_numeric_solution():
    p = np.array([0.035, -0.12])
    q = LEG.ik_numeric(p, q0=[0.8, 2.5], assembly="up").q
    assert str(LEG.working_mode(q, p)) == "in"


@pytest.mark.parametrize("margin", [0.0, 0.005, 0.01])
def test_clamp_to_workspace(margin):
    rng = np.random.default_rng(7)
    p = np.stack([rng.uniform(-0.3, 0.35, 5000), rng.uniform(-0.3, 0.3, 5000)], -1)
    x = LEG.clamp_to_workspace(p, margin=margin)
    rA = np.linalg.norm(x, axis=-1)
    rB = np.linalg.norm(x - [LEG.d, 0], axis=-1)
    lo, hi = LEG.l3 - LEG.l1 + margin, LEG.l1 + LEG.l3 - margin
    assert np.all((rA >= lo - 1e-12) & (rA <= hi + 1e-12) & (rB >= lo - 1e-12) & (rB <= hi + 1e-12))
    inside = (
        (np.linalg.norm(p, axis=-1) >= lo)
        & (np.linalg.norm(p, axis=-1) <= hi)
        & (np.linalg.norm(p - [LEG.d, 0], axis=-1) >= lo)
        & (np.linalg.norm(p - [LEG.d, 0], axis=-1) <= hi)
    )
    assert inside.sum() > 100
    np.testing.assert_array_equal(x[inside], p[inside])  # safe targets are left alone
    assert np.all(LEG.ik(x, on_unreachable="nan").valid)


def test_clamp_bad_input():
    for bad in (-0.001, np.nan, np.inf, "5mm"):
        with pytest.raises(ValueError, match="margin"):
            LEG.clamp_to_workspace([0.0, -0.1], margin=bad)
    with pytest.raises(ValueError, match="no workspace"):
        LEG.clamp_to_workspace([0.0, -0.1], margin=0.07)
    with pytest.raises(ValueError, match="motor axis"):
        LEG.clamp_to_workspace([0.0, 0.0], margin=0.005)
    for bad in BAD_Q:
        with pytest.raises(ValueError):
            LEG.clamp_to_workspace(bad)
        with pytest.raises(ValueError):
            LEG.working_mode([0.0, 0.0], bad)
        with pytest.raises(ValueError):
            LEG.assembly_of(bad, [0.0, -0.1])


def test_ik_numeric_bad_numbers():
    for kw in (
        dict(tol=0.0),
        dict(tol=np.nan),
        dict(tol="1e-9"),
        dict(max_nfev=0),
        dict(max_nfev=2.5),
        dict(max_nfev=True),
    ):
        with pytest.raises(ValueError):
            LEG.ik_numeric([0.035, -0.12], q0=[-2.0, -1.0], **kw)
    with pytest.raises(ValueError):
        LEG.ik_numeric([0.035, -0.12], q0=[np.nan, 0.0])


# ------------------------------------------------------------------ issue 16: options cannot hang or slip through
def test_clamp_iterations_validated_instead_of_looping_forever():
    """iterations=1e300 used to become a 10**300-step Python loop."""
    leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
    for bad in (1e300, 2.5, 0, -1, "50", 10_001):
        with pytest.raises(ValueError, match="iterations"):
            leg.clamp_to_workspace([0.0, -0.03], margin=0.008, iterations=bad)
    assert leg.clamp_to_workspace([0.0, -0.03], margin=0.008, iterations=10_000).shape == (2,)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_jacobian_warn_flag_is_a_bool(bad):
    leg = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
    with pytest.raises(ValueError, match="warn"):
        leg.jacobian(leg.ik([0.035, -0.12]).q, warn=bad)


@pytest.mark.parametrize("kw", [dict(l1=1j), dict(d="0.07"), dict(l3=1e300), dict(l4=np.nan)])
def test_geometry_rejects_complex_text_huge(kw):
    args = dict(l1=0.06, l2=0.06, l3=0.10, l4=0.10, d=0.07) | kw
    with pytest.raises(ValueError):
        FiveBar(**args)


@pytest.mark.parametrize(
    "call",
    [
        lambda leg: leg.ik([0.035 + 1j, -0.12]),
        lambda leg: leg.fk([np.pi, 1e300]),
        lambda leg: leg.ik_numeric([0.035, -0.12], q0=[-2.0, -1.0], max_nfev=1e300),
        lambda leg: leg.ik_numeric([0.035, -0.12], q0=[-2.0, -1.0], tol=1j),
        lambda leg: leg.clamp_to_workspace([0.0, -0.03], margin=1j),
        lambda leg: leg.fk([np.pi, 0.0], assembly=np.array(["down"])),
    ],
)
def test_hostile_calls_raise_value_error(call):
    with pytest.raises(ValueError):
        call(FiveBar(0.06, 0.06, 0.10, 0.10, 0.07))


def test_type2_warning_threshold_is_1e_minus_7():
    """Warn only within round-off of a type II singularity (|sin(CE, DE)| <= 1e-7), not merely near it."""
    leg = FiveBar(0.06, 0.06, 0.08, 0.08, 0.07)

    def pose(target):  # bisection on theta2 towards the stretched distal links
        lo, hi = -1.5, 0.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            m = leg.singularity_measures([np.pi, mid])[1]
            lo, hi = (lo, mid) if (np.isnan(m) or m < target) else (mid, hi)
        return np.array([np.pi, lo])

    q_near, q_at = pose(1e-6), pose(3e-8)
    assert 5e-7 < leg.singularity_measures(q_near)[1] < 2e-6 and leg.singularity_measures(q_at)[1] < 1e-7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        leg.jacobian(q_near)
    with pytest.warns(SingularityWarning, match="type II"):
        leg.jacobian(q_at)


# ------------------------------------------------------------ link interference (segment distance, capsules)
def _brute_segment_distance(p0, p1, q0, q1, n=401):
    """Dense sampling of both segments: an upper bound within half a sample spacing of each."""
    s = np.linspace(0.0, 1.0, n)[:, None]
    P = p0 + s * (p1 - p0)
    Q = q0 + s * (q1 - q0)
    return np.linalg.norm(P[:, None] - Q[None], axis=-1).min()


def test_segment_distance_by_hand():
    assert segment_distance([0, 0], [1, 0], [0.5, -1], [0.5, 1]) == 0.0  # cross
    assert segment_distance([0, 0], [1, 0], [1, 0], [2, 3]) == 0.0  # shared end point
    assert segment_distance([0, 0], [2, 0], [1, 0], [3, 0]) == 0.0  # collinear overlap
    np.testing.assert_allclose(segment_distance([0, 0], [1, 0], [2, 0], [3, 0]), 1.0)  # collinear, apart
    np.testing.assert_allclose(segment_distance([0, 0], [1, 0], [0.5, 0.3], [0.5, 2]), 0.3)  # T shape
    np.testing.assert_allclose(segment_distance([0, 0], [1, 0], [2, 1], [3, 1]), np.sqrt(2))
    np.testing.assert_allclose(segment_distance([0, 0], [0, 0], [-1, 1], [1, 1]), 1.0)  # a point
    np.testing.assert_allclose(segment_distance([0, 0], [0, 0], [3, 4], [3, 4]), 5.0)  # two points


def test_segment_distance_against_dense_sampling():
    rng = np.random.default_rng(11)
    n = 400
    pts = rng.uniform(-1, 1, (4, n, 2))
    pts[3, :50] = pts[2, :50] + 0.3 * (pts[1, :50] - pts[0, :50])  # parallel pairs
    d = segment_distance(*pts)
    brute = np.array([_brute_segment_distance(*pts[:, i]) for i in range(n)])
    spacing = (np.linalg.norm(pts[1] - pts[0], axis=-1) + np.linalg.norm(pts[3] - pts[2], axis=-1)) / 400
    assert np.all(d <= brute + 1e-12)  # exact is a lower bound of any sample pair
    assert np.all(brute - d <= spacing / 2 + 1e-12)  # and the samples come within half a spacing
    assert (d == 0).sum() > 20  # some pairs cross


@settings(deadline=None, max_examples=60)
@given(
    c=st.lists(st.floats(-1.0, 1.0), min_size=8, max_size=8),
    angle=st.floats(-np.pi, np.pi),
    shift=st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=2),
)
def test_segment_distance_properties(c, angle, shift):
    p0, p1, q0, q1 = np.array(c).reshape(4, 2)
    d = float(segment_distance(p0, p1, q0, q1))
    assert d >= 0
    # symmetric in the two segments and in the direction of each
    np.testing.assert_allclose(segment_distance(q1, q0, p0, p1), d, atol=1e-12)
    np.testing.assert_allclose(segment_distance(p1, p0, q1, q0), d, atol=1e-12)
    # invariant under a rigid motion
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    moved = [R @ v + np.array(shift) for v in (p0, p1, q0, q1)]
    np.testing.assert_allclose(segment_distance(*moved), d, atol=1e-12)
    # never above any end-point distance; never below the dense sampling's bound
    assert d <= min(np.linalg.norm(a - b) for a in (p0, p1) for b in (q0, q1)) + 1e-12
    assert d <= _brute_segment_distance(p0, p1, q0, q1, n=101) + 1e-12


def test_segment_distance_broadcasts():
    q0 = np.array([[0.5, -1.0], [0.5, 0.5]])
    d = segment_distance([0, 0], [1, 0], q0, q0 + [0.0, 2.0])
    assert d.shape == (2,)
    np.testing.assert_allclose(d, [0.0, 0.5])


@pytest.mark.parametrize(
    "args",
    [
        ([0, 0], [1, 0], [0, 0, 1], [1, 1, 1]),
        ([0, np.nan], [1, 0], [0, 1], [1, 1]),
        ([0, np.inf], [1, 0], [0, 1], [1, 1]),
        ([0, 1j], [1, 0], [0, 1], [1, 1]),
        ("ab", [1, 0], [0, 1], [1, 1]),
        (np.zeros((3, 2)), np.ones((2, 2)), [0, 1], [1, 1]),
    ],
)
def test_segment_distance_bad_input(args):
    with pytest.raises(ValueError):
        segment_distance(*args)


def test_link_clearance_pairs_and_crossed_thighs():
    assert FiveBar.link_pairs == ("AC-DE", "AC-BD", "CE-BD", "CE-AB", "DE-AB")
    p = np.array([LEG.d / 2, -0.10])
    q_out = LEG.ik(p, branch="out").q
    q_in = LEG.ik(p, branch="in").q
    asm_in = str(LEG.assembly_of(q_in, p))
    c_out = LEG.link_clearance(q_out)
    c_in = LEG.link_clearance(q_in, assembly=asm_in)
    assert c_out.shape == (5,) and c_out.min() > 0.01  # knees out, foot low: > 10 mm everywhere
    assert c_in[1] == 0.0  # knees in: the thighs cross
    # against a direct computation from the joints, and the width shifts every pair
    A, B, C, D, E = LEG.joints(q_in, assembly=asm_in)
    direct = [
        segment_distance(A, C, D, E),
        segment_distance(A, C, B, D),
        segment_distance(C, E, B, D),
        segment_distance(C, E, A, B),
        segment_distance(D, E, A, B),
    ]
    np.testing.assert_allclose(c_in, direct, atol=1e-15)
    np.testing.assert_allclose(LEG.link_clearance(q_in, assembly=asm_in, width=0.008), c_in - 0.008, atol=1e-15)


def test_link_clearance_batch_and_unassembled_rows():
    short = FiveBar(0.06, 0.06, 0.08, 0.08, 0.07)  # short shanks: thighs spread out cannot be assembled
    rng = np.random.default_rng(5)
    q = rng.uniform(-np.pi, np.pi, (3, 7, 2))
    c = short.link_clearance(q)
    assert c.shape == (3, 7, 5)
    ok = np.isfinite(short.fk(q, on_unreachable="nan")).all(-1)
    assert (~ok).any() and ok.any()
    assert np.isnan(c[~ok]).all() and np.isfinite(c[ok]).all()
    for i in np.argwhere(ok)[:5]:
        np.testing.assert_allclose(c[tuple(i)], short.link_clearance(q[tuple(i)]), atol=0)


@settings(deadline=None, max_examples=40)
@given(t1=st.floats(-np.pi, np.pi), t2=st.floats(-np.pi, np.pi), width=st.floats(0.0, 0.02))
def test_link_clearance_property_capsules(t1, t2, width):
    q = np.array([t1, t2])
    c = LEG.link_clearance(q, width=width)
    if not np.isfinite(LEG.fk(q, on_unreachable="nan")).all():
        assert np.isnan(c).all()
        return
    # the clearance is at least -width and at most the distance between any end points of the pair
    assert np.all(c >= -width - 1e-15)
    J = dict(zip("ABCDE", LEG.joints(q)))
    for k, pair in enumerate(FiveBar.link_pairs):
        (a0, a1), (b0, b1) = pair.split("-")
        ends = min(np.linalg.norm(J[x] - J[y]) for x in (a0, a1) for y in (b0, b1))
        assert c[k] <= ends - width + 1e-12


@pytest.mark.parametrize("bad", [-0.001, np.nan, np.inf, 1j, "0.01", None, [0.01, 0.02]])
def test_link_clearance_bad_width(bad):
    with pytest.raises(ValueError):
        LEG.link_clearance(LEG.ik([0.035, -0.1]).q, width=bad)


@pytest.mark.parametrize("bad", BAD_Q)
def test_link_clearance_bad_q_and_assembly(bad):
    with pytest.raises(ValueError):
        LEG.link_clearance(bad)
    with pytest.raises(ValueError):
        LEG.link_clearance([np.pi, 0.0], assembly="sideways")


# ------------------------------------------------------------------ issue 29: numerical IK options
def test_ik_numeric_options():
    p = np.array([0.035, -0.12])
    with pytest.raises(ValueError, match="tol must be at most 0.001"):  # tol=1e12 called any answer converged
        FIVEBAR.ik_numeric(p, q0=np.array([-2.0, -1.0]), tol=1e12)
    with pytest.raises(ValueError, match="max_nfev must be at most"):  # OverflowError from scipy before
        FIVEBAR.ik_numeric(p, q0=np.array([-2.0, -1.0]), max_nfev=10**30)
    with pytest.raises(ValueError, match="^p: a target sits exactly on a motor axis"):
        FIVEBAR.clamp_to_workspace(np.zeros(2))
