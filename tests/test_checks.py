"""Tests for robokin.checks: every check must pass on correct input and fail on wrong input."""

import numpy as np
import pytest

from robokin import checks
from robokin.transforms import rotz


def f(x):
    return np.stack([np.sin(x[..., 0]) * x[..., 1], x[..., 0] ** 2 + x[..., 1] ** 3], axis=-1)


def jac(x):
    J = np.empty(x.shape[:-1] + (2, 2))
    J[..., 0, 0] = np.cos(x[..., 0]) * x[..., 1]
    J[..., 0, 1] = np.sin(x[..., 0])
    J[..., 1, 0] = 2 * x[..., 0]
    J[..., 1, 1] = 3 * x[..., 1] ** 2
    return J


X = np.random.default_rng(0).normal(size=(200, 2))


def test_jacobian_fd_vectorized_and_loop_agree():
    a = checks.jacobian_fd(f, X)
    b = checks.jacobian_fd(lambda x: f(np.asarray(x)), X[:5], vectorized=False)
    assert a.shape == (200, 2, 2)
    np.testing.assert_allclose(a[:5], b, atol=1e-12)
    np.testing.assert_allclose(a, jac(X), atol=1e-8)


def test_check_jacobian_passes_and_catches_a_wrong_jacobian():
    rep = checks.check_jacobian(jac, f, X)
    assert rep.passed and rep.samples == 200 and rep.max_error < 1e-8

    def wrong(x):  # transposed: a classic slip
        return np.swapaxes(jac(x), -1, -2)

    with pytest.raises(checks.CheckFailed) as info:
        checks.check_jacobian(wrong, f, X)
    assert not info.value.report.passed
    assert "FAIL" in str(info.value)


def test_check_errors_nan_is_failure_and_empty_refused():
    rep = checks.check_errors("nan", [0.0, np.nan], tol=1.0, raise_on_fail=False)
    assert not rep.passed and rep.max_error == np.inf and rep.worst == (1,)
    with pytest.raises(ValueError, match="no samples"):
        checks.check_errors("empty", [], tol=1.0)
    with pytest.raises(ValueError, match="tol"):
        checks.check_errors("bad tol", [0.0], tol=np.nan)


def test_check_failed_is_assertion_error():
    assert issubclass(checks.CheckFailed, AssertionError)


def test_residual_scan_and_roundtrip():
    good = checks.residual_scan(np.exp, np.log, np.linspace(1, 3, 30)[:, None], tol=1e-12)
    assert good.passed
    bad = checks.residual_scan(
        np.exp, lambda p: np.log(p) + 1e-3, np.linspace(1, 3, 30)[:, None], tol=1e-9, raise_on_fail=False
    )
    assert not bad.passed and bad.max_error > 1e-3
    # an inverse returning (result, mask) is accepted
    rep = checks.residual_scan(np.exp, lambda p: (np.log(p), np.ones(len(p), bool)), np.ones((3, 1)), tol=1e-15)
    assert rep.passed
    rt = checks.fk_ik_roundtrip(np.sin, np.arcsin, np.linspace(-1.5, 1.5, 11)[:, None], tol=1e-12)
    assert rt.passed


def test_check_rigid():
    T = np.eye(4)
    T[:3, :3] = rotz(0.3)
    assert checks.check_rigid(T).passed
    assert checks.check_rigid(np.stack([T, T])).samples == 2
    T[3, 0] = 1e-3
    with pytest.raises(checks.CheckFailed):
        checks.check_rigid(T)
    with pytest.raises(checks.CheckFailed):
        checks.check_rigid(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="shape"):
        checks.check_rigid(np.eye(2))


def test_check_close_shapes():
    assert checks.check_close("same", [1, 2], [1, 2], tol=0).passed
    with pytest.raises(ValueError, match="shapes"):
        checks.check_close("bad", [1, 2], [1, 2, 3], tol=0)


@pytest.mark.parametrize(
    "value, expected, hint",
    [
        (-np.ones(3), np.ones(3), "sign"),
        (np.rad2deg(0.3), 0.3, "degrees"),
        (np.arange(4.0).reshape(2, 2).T, np.arange(4.0).reshape(2, 2), "transpose"),
        (np.ones(2), np.ones(3), "shape"),
        ([np.nan], [1.0], "NaN"),
        (2.0, 1.0, "re-check"),
    ],
)
def test_check_answer_diagnoses(value, expected, hint):
    with pytest.raises(AssertionError, match=hint):
        checks.check_answer("x", value, expected)


def test_check_answer_success(capsys):
    assert checks.check_answer("x", [1.0, 2.0], [1.0, 2.0])
    assert "correct" in capsys.readouterr().out


# ---- issue #16 -------------------------------------------------------------------------------
def test_check_report_passes_only_within_tol():
    assert checks.CheckReport("x", 1, 1e-9, 1e-9).passed
    assert not checks.CheckReport("x", 1, 2e-9, 1e-9).passed  # not within a hidden factor of tol
    assert not checks.check_errors("x", [1.5e-9], tol=1e-9, raise_on_fail=False).passed


@pytest.mark.parametrize("scale", [np.inf, 0.0, -1.0, np.nan, [1.0, np.inf]])
def test_check_close_refuses_a_scale_that_decides_alone(scale):
    with pytest.raises(ValueError, match="scale"):
        checks.check_close("x", [1.0, 2.0], [5.0, 6.0], tol=1e-9, scale=scale)
    # a proper scale still makes the error relative
    rep = checks.check_close("x", [100.0], [101.0], tol=0.02, scale=100.0)
    assert rep.passed and rep.max_error == pytest.approx(0.01)


def test_checks_refuse_complex_input():
    with pytest.raises(ValueError, match="complex"):
        checks.check_close("x", [1.0 + 1e-3j], [1.0], tol=1e-9)
    with pytest.raises(ValueError, match="complex"):
        checks.check_errors("x", [1e-3j], tol=1e-9)


def test_check_errors_huge_or_inf_errors_are_failures_not_exceptions():
    rep = checks.check_errors("x", [1e300, 0.0], tol=1.0, raise_on_fail=False)
    assert not rep.passed and rep.max_error == 1e300
    assert not checks.check_errors("x", [np.inf], tol=1.0, raise_on_fail=False).passed


def test_check_rate_rule_and_false_alarm_probability():
    from scipy.stats import binom

    n, bar = 1000, 1e-3
    # one failure in 1000 passes (comparing 1 - 0.999 with 1e-3 failed: 1.0000000000000009e-3 > 1e-3)
    assert checks.check_rate("r", np.arange(n) < 1, max_rate=bar).passed
    # the smallest k that fails is the first with P(X >= k | n, bar) < 1e-3
    ks = [
        k for k in range(20) if not checks.check_rate("r", np.arange(n) < k, max_rate=bar, raise_on_fail=False).passed
    ]
    k_fail = ks[0]
    assert binom.sf(k_fail - 1, n, bar) < 1e-3 <= binom.sf(k_fail - 2, n, bar)
    assert ks == list(range(k_fail, 20))
    # false alarm at a true rate on the bar: P(X >= k_fail) <= alpha; measured by simulation, too
    rng = np.random.default_rng(0)
    alarms = sum(
        not checks.check_rate("r", rng.random(n) < bar, max_rate=bar, raise_on_fail=False).passed for _ in range(2000)
    )
    assert alarms <= 10  # expected <= 2 of 2000 at alpha = 1e-3
    # a clearly higher rate is caught, and raises by default
    with pytest.raises(checks.CheckFailed, match="FAIL"):
        checks.check_rate("r", rng.random(n) < 0.02, max_rate=bar)


def test_check_rate_bad_arguments():
    with pytest.raises(ValueError, match="boolean"):
        checks.check_rate("r", [0, 1], max_rate=0.1)
    with pytest.raises(ValueError, match="no samples"):
        checks.check_rate("r", np.array([], bool), max_rate=0.1)
    with pytest.raises(ValueError, match="max_rate"):
        checks.check_rate("r", np.zeros(3, bool), max_rate=1.5)
    with pytest.raises(ValueError, match="alpha"):
        checks.check_rate("r", np.zeros(3, bool), max_rate=0.1, alpha=0.0)


def test_tolerance_too_large_to_fail_is_refused():
    for call in (
        lambda: checks.check_errors("x", [1.0], tol=1e300),
        lambda: checks.check_close("x", [1.0], [2.0], tol=1e300),
        lambda: checks.check_rigid(np.eye(4), tol=1e300),
    ):
        with pytest.raises(ValueError, match="tol"):
            call()


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e300])
def test_check_rigid_bad_entries_are_failures_without_numpy_warnings(bad):
    T = np.eye(4)
    T[0, 1] = bad
    rep = checks.check_rigid(T, raise_on_fail=False)  # warnings are errors in the tests
    assert not rep.passed and rep.max_error == np.inf
    T = np.eye(4)
    T[3, 0] = bad
    assert not checks.check_rigid(T, raise_on_fail=False).passed
    with pytest.raises(ValueError, match="complex"):
        checks.check_rigid(np.eye(4) + 0j)


def test_check_answer_refuses_complex():
    with pytest.raises(ValueError, match="complex"):
        checks.check_answer("x", 0.5 + 1e-3j, 0.5, quiet=True)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (997, 1000), (1000, 1000)])
def test_clopper_pearson_matches_scipy(k, n):
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    lo, hi = checks.clopper_pearson(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)
    assert lo <= k / n <= hi


def test_clopper_pearson_bad_input():
    for args in ((5, 3), (-1, 3), (1, 0), (1.5, 3)):
        with pytest.raises(ValueError):
            checks.clopper_pearson(*args)
    with pytest.raises(ValueError):
        checks.clopper_pearson(1, 3, confidence=1.0)


def test_clopper_pearson_and_check_rate_share_one_bound():
    """check_rate's one-sided lower bound at alpha is the two-sided interval's lower end at 1 - 2 alpha."""
    k, n, alpha = 7, 500, 0.01
    rep = checks.check_rate("x", np.arange(n) < k, max_rate=0.5, alpha=alpha)
    assert rep.max_error == pytest.approx(checks.clopper_pearson(k, n, confidence=1 - 2 * alpha)[0], rel=1e-12)


# ------------------------------------------------------------------ issue 29: options that made a verdict vacuous
def _f(x):
    return np.stack([x[..., 0] * x[..., 1], np.sin(x[..., 0])], -1)


def _jac(x):
    return np.stack([np.stack([x[..., 1], x[..., 0]], -1), np.stack([np.cos(x[..., 0]), 0 * x[..., 0]], -1)], -2)


X29 = np.random.default_rng(3).normal(size=(20, 2))


def test_check_jacobian_refuses_an_atol_that_divides_the_error_away():
    wrong = lambda x: 5 * _jac(x)  # noqa: E731 - a Jacobian 5x wrong
    with pytest.raises(checks.CheckFailed):
        checks.check_jacobian(wrong, _f, X29)
    for atol in (np.inf, 1e300, 10.0):  # atol=inf used to pass it
        with pytest.raises(ValueError, match="atol"):
            checks.check_jacobian(wrong, _f, X29, atol=atol)
    assert checks.check_jacobian(_jac, _f, X29, atol=1e-3).passed  # within the bound: still a real check
    with pytest.raises(ValueError, match="tol must be at most 0.1"):
        checks.check_jacobian(wrong, _f, X29, tol=4.0)  # a relative bar above 1 passes a zero Jacobian


@pytest.mark.parametrize("scale", [1e300, np.inf, 1e13])
def test_check_close_and_residual_scan_refuse_a_scale_that_passes_anything(scale):
    with pytest.raises(ValueError, match="scale"):
        checks.check_close("c", [1.0], [1e6], tol=1e-9 if scale != 1e13 else 1.0, scale=scale)
    with pytest.raises(ValueError, match="scale"):
        checks.residual_scan(np.exp, lambda p: np.log(p) + 5.0, [[1.5], [2.0]], tol=1.0, scale=scale)


def test_residual_scan_still_fails_a_wrong_inverse_at_a_legal_scale():
    with pytest.raises(checks.CheckFailed):
        checks.residual_scan(np.exp, lambda p: np.log(p) + 5.0, [[1.5], [2.0]], tol=1e-9, scale=100.0)


def test_jacobian_fd_eps_zero_or_rounding_away_is_refused_not_nan():
    with pytest.raises(ValueError, match="eps"):
        checks.jacobian_fd(_f, [1.0, 2.0], eps=0)
    with pytest.raises(ValueError, match="eps = 1e-06 rounds away"):
        checks.jacobian_fd(_f, [1e11, 2.0])
    with pytest.raises(ValueError, match="f returned an invalid value"):
        checks.jacobian_fd(lambda x: x * np.nan, [1.0, 2.0])


def test_float32_tolerance_gives_no_overflow_warning():
    # pytest runs with filterwarnings=error: tol > 1e100 in float32 used to overflow
    rep = checks.check_errors("e", [1e-12], tol=np.float32(1e-9))
    assert type(rep.tol) is float and rep.passed


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(name=3.0), "name"),
        (dict(unit=None), "unit"),
        (dict(raise_on_fail="no"), "raise_on_fail"),
    ],
)
def test_labels_and_flags_are_validated(kw, name):
    with pytest.raises(ValueError, match=name):
        checks.check_errors(**(dict(name="e", errors=[1.0], tol=1e-9) | kw))


def test_callbacks_are_validated_with_their_names():
    with pytest.raises(ValueError, match="forward must be a callable"):
        checks.residual_scan(None, np.log, [[1.0]], tol=1e-9)
    with pytest.raises(ValueError, match="ik returned an invalid value"):
        checks.fk_ik_roundtrip(np.sin, lambda p: None, [[0.1]], tol=1e-9)
    with pytest.raises(ValueError, match="jac returned an invalid value"):
        checks.check_jacobian(lambda x: "abc", _f, X29)
    with pytest.raises(checks.CheckFailed):  # a NaN from the Jacobian is a failure, as documented
        checks.check_jacobian(lambda x: _jac(x) * np.nan, _f, X29)


def test_check_answer_bars_and_reference():
    with pytest.raises(ValueError, match="atol"):
        checks.check_answer("a", 10.0, 0.5, atol=100.0, quiet=True)
    with pytest.raises(ValueError, match="rtol"):
        checks.check_answer("a", 10.0, 0.5, rtol=np.inf, quiet=True)
    with pytest.raises(ValueError, match="expected"):
        checks.check_answer("a", 0.5, np.nan, quiet=True)
    with pytest.raises(ValueError, match="quiet"):
        checks.check_answer("a", 0.5, 0.5, quiet="yes")


# ---- independent mutants (issue 29, tools/mutations_independent.py) ----------------------------------------------
@pytest.mark.parametrize("scale", [1e-7, 1e-3, 1.0, 1e3])
def test_check_jacobian_is_relative_at_every_scale(scale):
    """ind-ch-jac-err-floor: a Jacobian twice too large fails and the right one passes, however small the function
    (the error is relative to max|J_fd|; only the atol floor, 1e-9 by default, guards all-zero Jacobians)."""
    x = np.linspace(-1.0, 1.0, 7)[:, None]

    def f(x):
        return scale * np.sin(x)

    assert checks.check_jacobian(lambda x: scale * np.cos(x)[..., None], f, x).passed
    rep = checks.check_jacobian(lambda x: 2 * scale * np.cos(x)[..., None], f, x, raise_on_fail=False)
    assert not rep.passed and rep.max_error == pytest.approx(1.0 / (1.0 + 1e-9 / scale), rel=1e-6)


def test_a_check_passes_at_its_tolerance_and_nan_always_fails():
    """ind2-ch-passed-strict, -nan-passes: pass means max error <= tol (so tol = 0 accepts exact agreement);
    a NaN error is a failure whatever the tolerance."""
    assert checks.check_errors("exact", [0.0, 0.0], tol=0.0).passed
    assert checks.check_errors("at the bar", [0.5e-9, 1e-9], tol=1e-9).passed
    rep = checks.check_errors("nan", [0.0, np.nan], tol=1e6, raise_on_fail=False)
    assert not rep.passed and rep.max_error == np.inf and rep.worst == (1,)


def test_absolute_tolerances_are_capped_at_robokin_magnitudes():
    """ind2-ch-max-tol: a tolerance above 1e12 (the bound on accepted inputs) could not fail: refused."""
    checks.check_errors("x", [1.0], tol=1e12)
    with pytest.raises(ValueError, match="tol"):
        checks.check_errors("x", [1.0], tol=1e13)


def test_check_rigid_catches_each_defect():
    """ind2-ch-rigid-det, -rigid-bottom-row, -rigid-tol-cap: a reflection, a bottom row other than [0 0 0 1] and
    a tolerance that would accept non-rotations are each caught."""
    T = np.eye(4)
    T[:3, :3] = rotz(0.4)
    assert checks.check_rigid(T).passed
    mirror = T.copy()
    mirror[2, 2] = -1.0  # orthogonal, det -1
    assert not checks.check_rigid(mirror, raise_on_fail=False).passed
    assert not checks.check_rigid(np.diag([1.0, 1.0, -1.0]), raise_on_fail=False).passed
    for row in ([0, 0, 0, 2.0], [0.1, 0, 0, 1.0]):
        bad = T.copy()
        bad[3] = row
        assert not checks.check_rigid(bad, raise_on_fail=False).passed
    with pytest.raises(ValueError, match="tol"):
        checks.check_rigid(T, tol=0.5)


def test_check_rate_and_answer_refuse_vacuous_bars():
    """ind2-ch-rate-one, -answer-atol-cap: max_rate = 1 cannot fail; an atol above 10 % of the answer accepts
    wrong answers."""
    with pytest.raises(ValueError, match="max_rate"):
        checks.check_rate("r", np.zeros(10, bool), max_rate=1.0)
    assert checks.check_answer("x", 2.0, 2.0, atol=0.2, quiet=True)
    with pytest.raises(ValueError, match="atol"):
        checks.check_answer("x", 2.0, 2.0, atol=0.5, quiet=True)


def test_residual_scan_divides_by_the_scale():
    """ind2-ch-residual-scale, -scale-zero: the residual is relative, |fk(ik(p)) - p| / scale; scale 0 is refused."""
    p = np.array([[1.0, 2.0], [3.0, 4.0]])
    rep = checks.residual_scan(lambda q: q + [3e-6, 4e-6], lambda t: t, p, tol=1e-5, scale=10.0)
    assert rep.max_error == pytest.approx(5e-7, rel=1e-6)
    with pytest.raises(ValueError, match="scale"):
        checks.residual_scan(lambda q: q, lambda t: t, p, tol=1e-5, scale=0.0)


def test_jacobian_fd_refuses_a_step_lost_to_rounding():
    """ind2-ch-fd-round-away: at |x| = 1e12 a step of 1e-6 rounds away (x + eps == x): refused, naming eps."""
    with pytest.raises(ValueError, match="eps"):
        checks.jacobian_fd(lambda x: x**2, [1e12], eps=1e-6)
    J = checks.jacobian_fd(lambda x: x**2, [1e3], eps=1e-6)
    assert J[0, 0] == pytest.approx(2e3, rel=1e-6)
