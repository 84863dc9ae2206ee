"""Status codes of the generated C (robokin.codegen) at the edges tests/test_firmware.py does not sample:
parameters on the boundary of their domain and outputs that overflow."""

from __future__ import annotations

import numpy as np
import pytest

from robokin.codegen.host import CODES, HostLibrary, build, compiler

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler (install gcc) for the generated C library")

LEGP = {"l1": 0.21, "l2": 0.19}
FBP = {"l1": 0.10, "l2": 0.09, "l3": 0.12, "l4": 0.13, "d": 0.08}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return HostLibrary(build(tmp_path_factory.mktemp("codegen")))


@pytest.mark.parametrize("prec", ["d", "f"])
@pytest.mark.parametrize("field", ["l1", "l2", "l3", "l4", "d"])
def test_a_zero_length_parameter_is_a_bad_argument(lib, prec, field):
    """ind2-cg-positive-param: lengths must be > 0; a zero link is refused like a negative one, nothing written."""
    q = [[0.5, 2.5]]
    (E,), st = lib.call("fivebar_fk", prec, FBP, [q], 0)
    assert st[0] == CODES["RK_OK"] and np.isfinite(E).all()
    (E,), st = lib.call("fivebar_fk", prec, {**FBP, field: 0.0}, [q], 0)
    assert st[0] == CODES["RK_BAD_ARGUMENT"] and np.isnan(E).all()


@pytest.mark.parametrize("prec, big", [("d", 1e308), ("f", 3e38)])
def test_an_overflowing_output_is_reported_and_not_written(lib, prec, big):
    """ind2-cg-nonfinite-output: legal (finite, positive) links whose foot position overflows return
    RK_NONFINITE_OUTPUT and leave the output untouched, never an inf with RK_OK."""
    (p,), st = lib.call("leg2_fk", prec, {"l1": big, "l2": big}, [[[0.3, 0.0]]])
    assert st[0] == CODES["RK_NONFINITE_OUTPUT"] and np.isnan(p).all()
    (p,), st = lib.call("leg2_fk", prec, {"l1": big / 4, "l2": big / 4}, [[[0.3, 0.0]]])
    assert st[0] == CODES["RK_OK"] and np.isfinite(p).all()


def test_double_jacobian_is_singular_exactly_where_the_package_warns(lib):
    """ind2-cg-sing-double, -typeII-scale: in double the C five-bar Jacobian returns RK_SINGULAR where
    FiveBar.jacobian warns, |sin(CE, DE)| <= 1e-7, and RK_OK above it (samples 1e-9..1e-3, a 5 % band at the
    threshold left out for round-off)."""
    from robokin.fivebar import FiveBar

    fb = FiveBar(**FBP)
    rng = np.random.default_rng(7)
    n = 4000
    # knees at |CD| = (l3 + l4)(1 - eta): sin(CE, DE) ~ sqrt(eta) sweeps the type II boundary
    t1 = rng.uniform(-np.pi, np.pi, n)
    L = (fb.l3 + fb.l4) * (1 - 10.0 ** rng.uniform(-18, -5, n))
    C = fb.l1 * np.stack([np.cos(t1), np.sin(t1)], -1)
    rB = C - [fb.d, 0.0]
    dB = np.linalg.norm(rB, axis=-1)
    c = np.clip((fb.l2**2 + dB**2 - L**2) / (2 * fb.l2 * dB), -1, 1)
    q = np.stack([t1, np.arctan2(rB[:, 1], rB[:, 0]) + rng.choice([-1.0, 1.0], n) * np.arccos(c)], -1)
    ok = np.isfinite(fb.fk(q, on_unreachable="nan")).all(-1)
    q = q[ok]
    sin2 = np.abs(fb.singularity_measures(q, assembly="down")[1])
    keep = (sin2 < 0.95e-7) | (sin2 > 1.05e-7)
    q, sin2 = q[keep], sin2[keep]
    assert (sin2 < 1e-7).sum() > 50 and ((sin2 > 1e-7) & (sin2 < 1e-5)).sum() > 50  # both sides sampled
    _, st = lib.call("fivebar_jacobian", "d", FBP, [q], 0)
    assert set(st.tolist()) <= {CODES["RK_OK"], CODES["RK_SINGULAR"]}
    np.testing.assert_array_equal(st == CODES["RK_SINGULAR"], sin2 < 1e-7)


@pytest.mark.parametrize("rel, reachable", [(-1e-10, True), (0.0, True), (1e-10, False), (1e-8, False)])
def test_double_leg_ik_reach_matches_the_package_at_the_boundary(lib, rel, reachable):
    """ind2-cg-leg2-far, -rel-double: in double a target (l1 + l2)(1 + rel) from the hip is reachable exactly when
    TwoLinkLeg.ik says so (round-off slack 1e-12): 1e-10 beyond full stretch is RK_UNREACHABLE."""
    from robokin.leg2 import TwoLinkLeg

    leg = TwoLinkLeg(**LEGP)
    u = np.array([np.sin(0.4), -np.cos(0.4)])
    p = (leg.l1 + leg.l2) * (1 + rel) * u
    assert bool(leg.ik(p, on_unreachable="nan").valid) == reachable
    (q,), st = lib.call("leg2_ik", "d", LEGP, [p[None]], 0)
    assert st[0] == (CODES["RK_OK"] if reachable else CODES["RK_UNREACHABLE"])
    assert np.isfinite(q).all() == reachable
