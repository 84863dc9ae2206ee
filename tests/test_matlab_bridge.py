"""Every row of the MATLAB -> NumPy bridge page (book/matlab.md) is checked here (issue 33).

Each row of the page names its test; each test states the MATLAB behaviour the row describes (as MathWorks and
Corke document it), asserts the NumPy/robokin equivalent, and asserts the size of the literal port's error. Numbers
the row prints are read back from the page (``quoted``), so a row that misquotes its test fails. With GNU Octave
installed (``octave-cli``), ``test_octave_agrees`` also runs the MATLAB column of the core-function rows in Octave.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from robokin.ik import damping_squared
from robokin.robots import UR5
from robokin.serial import SerialArm, pose_error, to_standard
from robokin.trajectory import quintic_coeffs, quintic_eval
from robokin.transforms import (
    euler_to_matrix,
    make_transform,
    matrix_to_rpy,
    rotation_distance,
    rotx,
    rotz,
    rpy_to_matrix,
    so3_exp,
    so3_log,
    transform_inverse,
    wrap_to_pi,
)

PAGE = Path(__file__).resolve().parents[1] / "book" / "matlab.md"
ROW = re.compile(r"^\| `([a-z0-9_]+)` \|(.*)\| `(test_[a-z0-9_]+)` \|\s*$", re.M)
ROWS = {m.group(1): (m.group(2), m.group(3)) for m in ROW.finditer(PAGE.read_text(encoding="utf-8"))}


def quoted(row_id: str, text: str) -> None:
    """The row ``row_id`` prints ``text`` (a number computed by the test, formatted as the page prints it)."""
    assert text in ROWS[row_id][0], f"book/matlab.md row {row_id!r} should say {text!r} (the test computes it)"


def test_every_row_has_its_test_and_every_test_a_row():
    assert len(ROWS) >= 25, f"only {len(ROWS)} rows parsed from {PAGE}"
    here = {n[5:] for n in dir(sys.modules[__name__]) if n.startswith("test_")}
    for row_id, (_, test) in ROWS.items():
        assert test == f"test_{row_id}", f"row {row_id!r} names {test}, expected test_{row_id}"
        assert row_id in here, f"row {row_id!r} has no test_{row_id} in {__file__}"
    rows_only = here - set(ROWS) - {"every_row_has_its_test_and_every_test_a_row", "octave_agrees"}
    assert not rows_only, f"tests without a row on the page: {sorted(rows_only)}"


# ---- arrays and indexing --------------------------------------------------------------------------------------------
def test_index():
    q = np.arange(1.0, 7.0)  # joints 1..6 as MATLAB numbers them
    assert q[0] == 1 and q[-1] == 6  # q(1), q(end)
    assert list(q[1:4]) == [2, 3, 4]  # q(2:4)
    assert len(q[2:4]) == 2 and q[2] == 3  # the literal port: two joints, starting at joint 3


def test_colon():
    assert np.linspace(0, 1, 11).size == 11  # 0:0.1:1
    assert np.arange(0, 1, 0.1).size == 10
    assert np.arange(1, 1.3, 0.1).size == 4  # a float step that keeps the end point 1.3 (round-off)


def test_shape():
    x = np.array([1.0, 2.0, 3.0])
    assert x.shape == (3,) and x.T.shape == (3,)
    assert np.ndim(x.T @ x) == 0  # a dot product ...
    assert np.outer(x, x).shape == (3, 3)  # ... where MATLAB's x'*x of a row x is the outer product
    A = np.arange(9.0).reshape(3, 3)
    assert np.array_equal(A @ x, (A @ x[:, None])[:, 0])  # A @ x treats x as a column
    row = x[None]  # MATLAB's 1x3 row
    assert (row.T @ row).shape == (3, 3) and (row @ row.T).shape == (1, 1)  # x'*x outer, x*x' inner


def test_transpose():
    z = np.array([[1 + 2j, 3j]])
    assert np.array_equal(z.T, np.array([[1 + 2j], [3j]]))  # .' in MATLAB
    assert np.array_equal(z.conj().T, np.array([[1 - 2j], [-3j]]))  # ' in MATLAB
    assert not np.array_equal(z.T, z.conj().T)


def test_length():
    L = np.zeros((3, 6))
    assert max(L.shape) == 6 and len(L) == 3


def test_colmajor():
    A = np.arange(1, 19).reshape(6, 3).T  # anchors as a 3x6 matrix: column j = anchor j = (3j+1, 3j+2, 3j+3)
    assert list(A.ravel(order="F")[:6]) == [1, 2, 3, 4, 5, 6]  # A(:) runs down the columns
    assert list(A.ravel()[:6]) == [1, 4, 7, 10, 13, 16]  # NumPy's default interleaves the anchors
    assert np.array_equal(A.ravel(order="F").reshape(3, 6, order="F"), A)


def test_times():
    R = rotz(0.4)
    P = rotx(0.2)
    assert not np.allclose(R * P, R @ P)  # elementwise, no shape error
    assert np.allclose((R @ P).T @ (R @ P), np.eye(3)) and not np.allclose((R * P).T @ (R * P), np.eye(3))


def test_mldivide():
    rng = np.random.default_rng(3)
    A, b = rng.standard_normal((4, 4)), rng.standard_normal(4)
    assert np.allclose(A @ np.linalg.solve(A, b), b, atol=1e-12)
    tall = rng.standard_normal((6, 3))
    x = np.linalg.lstsq(tall, rng.standard_normal(6), rcond=None)[0]
    assert x.shape == (3,)
    # near a singularity the explicit inverse usually leaves a larger residual than solve (solve is backward stable)
    medians, fewer = [], []
    for seed in range(4):
        r = np.random.default_rng(seed)
        ratios = []
        for _ in range(200):
            U = np.linalg.qr(r.standard_normal((6, 6)))[0]
            V = np.linalg.qr(r.standard_normal((6, 6)))[0]
            S, rhs = U @ np.diag(np.logspace(0, -12, 6)) @ V.T, r.standard_normal(6)
            r_solve = np.linalg.norm(S @ np.linalg.solve(S, rhs) - rhs)
            r_inv = np.linalg.norm(S @ (np.linalg.inv(S) @ rhs) - rhs)
            ratios.append(r_inv / r_solve)
        medians.append(np.median(ratios))
        fewer.append(np.mean(np.array(ratios) < 1))
    # the medians are round-off statistics: 1.29-1.66 with one numpy/OpenBLAS build, 1.4-1.7 with another, so the
    # row states bounds that both satisfy; a median <= 1.2 (inv as good as solve) or >= 2 trips it
    assert 1.2 < min(medians) and max(medians) < 2.0 and 0.1 < np.mean(fewer) < 0.4
    quoted("mldivide", "median ratio is above ×1.2 and below ×2 in each of four sets")


def test_arrayfun():
    rng = np.random.default_rng(5)
    Q = rng.uniform(-np.pi, np.pi, (50, 6))
    loop = np.stack([UR5.fk(q) for q in Q])  # what arrayfun does: one call per row
    assert np.allclose(UR5.fk(Q), loop, atol=1e-15)


# ---- norms, products, conditioning ----------------------------------------------------------------------------------
def test_norm():
    A = np.diag([3.0, 4.0])
    assert np.isclose(np.linalg.norm(A, 2), 4.0)  # MATLAB norm(A)
    assert np.isclose(np.linalg.norm(A), 5.0)  # Frobenius
    rng = np.random.default_rng(7)
    for _ in range(100):  # the "up to sqrt(rank)" bound of the row
        B = rng.standard_normal((4, 3))
        assert np.linalg.norm(B, 2) <= np.linalg.norm(B) <= np.sqrt(3) * np.linalg.norm(B, 2) + 1e-12
    assert np.isclose(np.linalg.norm(np.eye(3)), np.sqrt(3) * np.linalg.norm(np.eye(3), 2))  # attained


def test_vecnorm():
    rng = np.random.default_rng(11)
    L = rng.standard_normal((3, 6))  # six leg vectors as columns
    lengths = np.linalg.norm(L, axis=0)
    assert lengths.shape == (6,)
    assert np.allclose(lengths, [np.sqrt(L[:, j] @ L[:, j]) for j in range(6)])
    wrong = np.linalg.norm(L, axis=1)  # vecnorm(L, 2, 2)
    assert wrong.shape == (3,)


def test_cross():
    rng = np.random.default_rng(13)
    A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    cols = np.cross(A, B, axis=0)
    assert np.allclose(cols[:, 1], np.cross(A[:, 1], B[:, 1]))
    assert not np.allclose(np.cross(A, B), cols)  # the default crosses rows


def test_cond():
    J = np.diag([1.0, 1e-3])
    s = np.linalg.svd(J, compute_uv=False)
    assert np.isclose(np.linalg.cond(J), s.max() / s.min()) and np.isclose(np.linalg.cond(J), 1e3)
    assert np.isclose(s.min() / s.max(), 1e-3)


def test_dls():
    rng = np.random.default_rng(17)
    J, e, lam = rng.standard_normal((6, 6)), rng.standard_normal(6), 0.1
    dq = J.T @ np.linalg.solve(J @ J.T + lam**2 * np.eye(6), e)
    # the same step is the least-squares solution of [J; lam I] dq = [e; 0] (the definition of DLS)
    ref = np.linalg.lstsq(np.vstack([J, lam * np.eye(6)]), np.concatenate([e, np.zeros(6)]), rcond=None)[0]
    assert np.allclose(dq, ref, atol=1e-12)
    # robokin's damping is lambda: with constant damping its law returns lambda^2
    assert np.isclose(damping_squared(np.array([0.5]), np.array([1.0]), damping=lam, sigma_threshold=np.inf)[0], lam**2)
    # the unsquared port damps like lambda^2 = lambda: a different step, as large a change as lambda^2 -> 10 lambda^2
    dq_unsquared = J.T @ np.linalg.solve(J @ J.T + lam * np.eye(6), e)
    dq_tenfold = J.T @ np.linalg.solve(J @ J.T + 10 * lam**2 * np.eye(6), e)
    assert np.allclose(dq_unsquared, dq_tenfold) and not np.allclose(dq_unsquared, dq)


# ---- rotations and angles -------------------------------------------------------------------------------------------
def eul2rotm(eul):
    """MATLAB's eul2rotm(eul) with its default sequence 'ZYX': eul = [z y x], R = Rz(z) Ry(y) Rx(x)."""
    z, y, x = eul
    return Rotation.from_euler("ZYX", [z, y, x]).as_matrix()  # intrinsic Z-Y'-X'' = extrinsic x, y, z


def test_eul2rotm():
    roll, pitch, yaw = np.deg2rad([5.0, 3.0, -2.0])
    R = rpy_to_matrix([roll, pitch, yaw])
    assert np.allclose(eul2rotm([yaw, pitch, roll]), R, atol=1e-15)
    assert np.allclose(euler_to_matrix([yaw, pitch, roll], order="zyx"), R, atol=1e-15)
    err = np.rad2deg(rotation_distance(eul2rotm([roll, pitch, yaw]), R))
    quoted("eul2rotm", f"{err:.1f}°")


def test_rotm2eul():
    rpy = np.array([0.1, -0.2, 0.3])
    R = rpy_to_matrix(rpy)
    zyx = Rotation.from_matrix(R).as_euler("ZYX")  # MATLAB rotm2eul(R): [z y x]
    assert np.allclose(zyx, matrix_to_rpy(R)[::-1])
    assert not np.allclose(zyx, matrix_to_rpy(R))


def test_axang():
    axis, theta = np.array([1.0, 2.0, 2.0]) / 3.0, 0.7
    R = so3_exp(axis * theta)
    axang = np.concatenate([axis, [theta]])  # MATLAB rotm2axang(R): [x y z theta]
    v = so3_log(R)
    assert v.shape == (3,) and axang.shape == (4,)
    assert np.allclose(v / np.linalg.norm(v), axang[:3]) and np.isclose(np.linalg.norm(v), axang[3])


def test_quat():
    R = rpy_to_matrix([0.3, -0.1, 0.5])
    xyzw = Rotation.from_matrix(R).as_quat()
    wxyz = Rotation.from_matrix(R).as_quat(scalar_first=True)  # MATLAB rotm2quat order
    assert np.allclose(wxyz, np.roll(xyzw, 1))
    misread = Rotation.from_quat(wxyz).as_matrix()  # [w x y z] read as [x y z w]
    assert rotation_distance(misread, R) > 0.5


def test_atan2():
    assert np.isclose(np.arctan2(1.0, 0.0), np.pi / 2)  # y first, in both languages
    assert np.isclose(np.degrees(np.arctan2(1.0, 1.0)), 45.0)

    def excel_atan2(x_num, y_num):  # Excel's documented order: ATAN2(x_num, y_num) = the angle of (x, y)
        return np.arctan2(y_num, x_num)

    x, y = 0.3, 0.8  # a point in the first quadrant, above the diagonal
    assert np.isclose(excel_atan2(x, y), np.arctan2(y, x))
    assert not np.isclose(np.arctan2(x, y), np.arctan2(y, x))  # a spreadsheet's (x, y) order pasted into atan2


def test_degrees():
    assert np.isclose(np.sin(np.deg2rad(30.0)), 0.5)
    quoted("degrees", f"{np.sin(30.0):.3f}".replace("-", "−"))


def test_wrap():
    assert np.isclose(wrap_to_pi(np.pi), -np.pi) and np.isclose(wrap_to_pi(3 * np.pi / 2), -np.pi / 2)
    assert np.isclose(np.mod(-1.0, 2 * np.pi), 2 * np.pi - 1)  # MATLAB mod(-1, 2*pi)
    assert np.fmod(-1.0, 2 * np.pi) == -1.0  # MATLAB rem(-1, 2*pi)


# ---- polynomials and integration ------------------------------------------------------------------------------------
def test_polyval():
    c = quintic_coeffs(0.0, 1.0, 2.0)  # lowest power first
    assert np.isclose(quintic_eval(c, 2.0)[0], 1.0)
    p = c[::-1]  # highest first, as polyval wants
    assert np.isclose(np.polyval(p, 2.0), 1.0)
    wrong = np.polyval(p[::-1], 2.0)  # polyval(flip(p), T)
    quoted("polyval", f"{wrong:.2f}")


def test_polyfit():
    x = np.linspace(2.0, 3.0, 9)
    y = 1.0 + 2.0 * x - 0.5 * x**2
    assert np.allclose(np.polyfit(x, y, 2), [-0.5, 2.0, 1.0])
    low_first = np.polynomial.polynomial.polyfit(x, y, 2)  # the polynomial module: lowest power first, unscaled
    assert np.allclose(low_first, [1.0, 2.0, -0.5])
    assert np.abs(np.polyval(low_first, x) - y).min() > 1.0  # read in polyval's order: off at every point
    fit = np.polynomial.Polynomial.fit(x, y, 2)
    assert np.allclose(fit.convert().coef, [1.0, 2.0, -0.5])
    assert not np.allclose(fit.coef, [1.0, 2.0, -0.5])  # the scaled-domain coefficients


def test_ode45():
    sol = solve_ivp(lambda t, y: [y[1], -y[0]], (0.0, 3.0), [1.0, 0.0])
    assert sol.y.shape[0] == 2 and sol.y.shape[1] == sol.t.size  # n x N
    import inspect

    from scipy.integrate import RK45

    params = inspect.signature(RK45.__init__).parameters
    assert params["rtol"].default == 1e-3 and params["atol"].default == 1e-6  # ode45's RelTol and AbsTol
    assert sol.t.size < 40  # only the solver's steps: a handful, not a smooth curve


# ---- robotics toolboxes ---------------------------------------------------------------------------------------------
def test_serial_fk():
    rtb = pytest.importorskip("roboticstoolbox")
    robot = rtb.DHRobot([rtb.RevoluteDH(a=a, alpha=al, d=d) for a, al, d in zip(UR5.a, UR5.alpha, UR5.d)])
    q = np.random.default_rng(19).uniform(-np.pi, np.pi, 6)
    arm = SerialArm.from_dh(UR5.a, UR5.alpha, UR5.d, convention="standard")
    assert np.allclose(arm.fk(q), robot.fkine(q).A, atol=1e-12)
    mdh = SerialArm.from_dh(UR5.a, UR5.alpha, UR5.d, convention="modified")  # the same numbers, other convention
    assert np.linalg.norm(mdh.fk(q)[:3, 3] - arm.fk(q)[:3, 3]) > 0.05


def test_mdh():
    rtb = pytest.importorskip("roboticstoolbox")
    a, alpha, d = [0.0, 0.3, 0.25], [0.0, -np.pi / 2, 0.0], [0.1, 0.0, 0.05]
    arm = SerialArm.from_dh(a, alpha, d, convention="modified")
    robot = rtb.DHRobot([rtb.RevoluteMDH(a=ai, alpha=al, d=di) for ai, al, di in zip(a, alpha, d)])
    q = np.array([0.3, -0.7, 1.1])
    assert np.allclose(arm.fk(q), robot.fkine(q).A, atol=1e-12)
    std = to_standard(arm)
    assert np.allclose(std.fk(q), arm.fk(q), atol=1e-12)


def test_jtraj():
    rtb = pytest.importorskip("roboticstoolbox")
    q0, q1 = np.array([0.0, 0.5]), np.array([1.0, -0.5])
    t = np.linspace(0.0, 2.0, 21)
    ref = rtb.jtraj(q0, q1, t)
    c = quintic_coeffs(q0, q1, 2.0)
    q, qd, qdd, _ = quintic_eval(c, t[:, None])
    assert np.allclose(q, ref.q, atol=1e-12) and np.allclose(qd, ref.qd, atol=1e-12)
    assert np.allclose(qdd, ref.qdd, atol=1e-11)


def test_tr2delta():
    sb = pytest.importorskip("spatialmath.base")
    # in T0's frame: tr2delta works from inv(T0) T1 (a turned T0 shows the frame; T0 = I would hide it)
    T0 = make_transform(so3_exp([0.4, -0.9, 0.3]), [0.3, -0.2, 0.5])
    T1 = T0 @ make_transform(so3_exp([0.01, 0.02, -0.015]), [0.01, 0.0, 0.02])
    local = pose_error(transform_inverse(T0) @ T1, np.eye(4))
    assert np.allclose(sb.tr2delta(T0, T1), local, atol=1e-4)  # first order: agrees to the motion's square
    assert not np.allclose(sb.tr2delta(T0, T1), pose_error(T1, T0), atol=1e-3)  # not the base-frame error
    T0, T1 = np.eye(4), make_transform(rotz(0.3), [0.0, 0.0, 0.0])
    exact = pose_error(T1, T0)[5]
    first_order = sb.tr2delta(T0, T1)[5]
    assert np.isclose(exact, 0.3) and np.isclose(first_order, np.sin(0.3))
    short = 100 * (1 - first_order / exact)
    assert f"{short:.1f}" == "1.5"
    quoted("tr2delta", f"{short:.1f} % short")


def test_rng():
    a = np.random.default_rng(0).random(3)
    assert np.array_equal(a, np.random.default_rng(0).random(3))  # reproducible within NumPy
    # MATLAB's rng(0); rand(1, 3) (Mersenne Twister) starts 0.8147 0.9058 0.1270 (MathWorks' documented example)
    assert not np.allclose(a, [0.8147, 0.9058, 0.1270], atol=1e-4)


# ---- the MATLAB column in GNU Octave (core functions only) ----------------------------------------------------------
OCTAVE = {  # row id: (set-up statements, expression, expected value)
    "colon": ("", "numel(0:0.1:1)", 11.0),
    "length": ("", "length(zeros(3, 6))", 6.0),
    "colmajor": ("A = reshape(1:18, 3, 6); v = A(:)';", "v(1:6)", [1, 2, 3, 4, 5, 6]),
    "norm": ("", "norm(diag([3 4]))", 4.0),
    "vecnorm": ("", "size(vecnorm(ones(3, 6), 2, 2), 1)", 3.0),
    "cond": ("", "cond(diag([1 1e-3]))", 1e3),
    "polyval": ("", "polyval(fliplr([0.1875 -0.9375 1.25 0 0 0]), 2)", 3.3125),
    "polyfit": ("x = linspace(2, 3, 9);", "polyfit(x, 1 + 2*x - 0.5*x.^2, 2)", [-0.5, 2.0, 1.0]),
    "wrap": ("", "[mod(-1, 2*pi), rem(-1, 2*pi)]", [2 * np.pi - 1, -1.0]),
    "atan2": ("", "atan2(1, 0)", np.pi / 2),
    "cross": ("A = magic(3); B = eye(3); c = cross(A, B);", "c(:, 2)'", list(np.cross([1, 5, 9], [0, 1, 0]))),
    "mldivide": ("", "[2 1; 1 3] \\ [3; 5]", [0.8, 1.4]),
    "degrees": ("", "[sind(30), sin(30)]", [0.5, np.sin(30.0)]),
}


@pytest.fixture(scope="module")
def octave_values():
    exe = shutil.which("octave-cli")
    if exe is None:
        pytest.skip("GNU Octave (octave-cli) is not installed: the MATLAB column is checked by the Python tests only")
    script = "".join(
        f"disp('@@{k}'); {setup} vv = {expr}; disp(num2str(vv(:).', 17));\n" for k, (setup, expr, _) in OCTAVE.items()
    )
    out = subprocess.run([exe, "--no-gui", "--quiet", "--eval", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    values, key = {}, None
    for line in out.stdout.splitlines():
        if line.startswith("@@"):
            key = line[2:]
        elif key is not None and line.strip():
            values[key] = np.array([float(v) for v in line.split()])
            key = None
    return values


@pytest.mark.parametrize("row_id", sorted(OCTAVE))
def test_octave_agrees(row_id, octave_values):
    assert row_id in ROWS
    assert np.allclose(octave_values[row_id], np.atleast_1d(OCTAVE[row_id][2]), rtol=1e-12, atol=1e-12), (
        row_id,
        octave_values[row_id],
    )
