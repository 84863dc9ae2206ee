"""Check a reader's own IK, FK or Jacobian against the course's, and name the mistake it looks like.

``python -m robokin verify FAMILY FILE --impl SPEC [--kind ik|fk|jacobian]`` runs three checks of the chapters on the
reader's implementation of the design in FILE (a parameter file): the residual scan (FK∘IK over reachable targets,
special inputs included: the foot straight below the hip, targets near the boundary), the branch-consistency check
(one working mode everywhere) and, for a Jacobian, the central finite-difference check. When a check fails it tests
the practitioners' usual mistakes as hypotheses (each a model of the wrong code built from the course's answers)
and reports the one that explains the failures, with the range of inputs where it bites.

Implementations (``SPEC``)
--------------------------
``module:function`` or ``path/to/file.py:function``
    A Python callable of one input point, all floats (rad, m):

    * ``ik``: ``f(x, y) -> (theta1, theta2)`` (the leg: ``f(x, z)``); return None or NaN for a target it cannot
      reach;
    * ``fk``: ``f(theta1, theta2) -> (x, y)`` (the leg: ``(x, z)``);
    * ``jacobian``: ``f(theta1, theta2) -> [[J11, J12], [J21, J22]]`` (``d(x, y) / d(theta1, theta2)``).
``path/to/lib.so`` or ``path/to/lib.so:symbol``
    A C shared library loaded with ctypes. Default symbol ``robokin_<kind>``. Signatures (``double`` is float64,
    arrays row-major, the return value 0 on success and non-zero for an unreachable input)::

        int robokin_ik(const double p[2], double q[2]);
        int robokin_fk(const double q[2], double p[2]);
        int robokin_jacobian(const double q[2], double J[4]);
``path/to/table.csv``
    Inputs and outputs exported from MATLAB or firmware, with a header row: ``x,y,q1,q2`` (ik), ``q1,q2,x,y``
    (fk) or ``q1,q2,J11,J12,J21,J22`` (jacobian); for the two-link leg, whose hip frame is ``[x, z]``,
    ``x,z,q1,q2`` and ``q1,q2,x,z`` (``x,y`` is accepted too). The header must start with these columns (more
    columns after them are ignored); another header is refused with the accepted ones named. An empty or NaN
    output marks an unreachable input. The checks then run on the file's own inputs.
``course``
    The package's own implementation (it must pass).

Angle convention of an IK answer (``two_link_leg``, ``fivebar``): every returned angle must lie in ``[-pi, pi]``
(to within ``ANGLE_TOL``): the wrap ``(q + pi) % (2 pi) - pi`` gives ``[-pi, pi)``, ``atan2`` gives ``(-pi, pi]``,
and both pass. An answer that is right only up to a multiple of 2 pi (angles in ``[0, 2 pi)``, say) fails with the
finding "missing wrap" and the range of your angles. The arm's IK and the wheel leg's are compared modulo 2 pi.

Conventions: the leg's ``theta1`` is the hip angle from the downward vertical, positive when the thigh swings
forward (``+x``), ``theta2`` the knee angle of the shank relative to the thigh (``q = 0``: the straight leg
hanging down; ``x = l1 sin theta1 + l2 sin(theta1 + theta2)``, ``z = -l1 cos theta1 - l2 cos(theta1 + theta2)``);
the five-bar's motor angles are measured from ``+x``, positive counter-clockwise, motors at ``(0, 0)`` and
``(d, 0)``.

Findings beyond the hypotheses: a refusal of reachable targets (None, NaN or a ``ValueError``) is its own finding
("refuses reachable targets (N of M)"), an answer to a target no configuration reaches is one ("answers N
unreachable targets": a clamped ``acos``?), and a five-bar IK in one working mode other than ``out`` everywhere
is named as that working mode (with the y-down frame when the two answer the same). Two mistakes that predict the
same answers on the inputs (the five-bar FK's ``up`` assembly and mirrored angles and y) are one finding naming
both. A branch is matched to within the angle error the residual tolerance allows at that target
(``_branch_tol``: looser near full stretch), so a float32 implementation passes. Every CSV row is a check,
two rows with one input included.

Exit status of ``python -m robokin verify``: 0 when the implementation passes, 1 when it fails (the findings say
what the failures look like), 2 when the check cannot run (a bad parameter file or command, an ``--impl`` that
cannot be loaded, a CSV with another header, or the reader's code raising an exception other than ``ValueError``
or ``ArithmeticError``, which count as refusals).

Families: ``two_link_leg`` (hip frame ``[x, z]``, chapter 2) and ``fivebar`` (motor frame ``[x, y]``, chapter 3,
``down`` assembly), both for ik, fk and jacobian; ``serial_arm`` for fk and, on a UR-family arm, ik. For an arm the
Python callables are ``fk(q) -> 4x4`` (``q`` a list of n angles) and ``ik(T) -> q`` (``T`` a 4x4 array, one
solution or None); the C signatures ``int robokin_fk(const double q[n], double T[16])`` and
``int robokin_ik(const double T[16], double q[n])`` (row-major); the CSV columns ``q1..qn,x,y,z,roll,pitch,yaw``
(fk) or ``x,y,z,roll,pitch,yaw,q1..qn`` (ik), with ZYX roll-pitch-yaw in rad. The arm's mistakes: the convention
mix-up (a modified table with standard formulas or the reverse), the tool or base transform ignored, joint offsets
ignored, degrees for radians and, for IK, a branch mismatch.

The vector-map families (``robokin.params._maps``), checked against the course's answer to ``TOL`` of the
output scale, with their mistakes named the same way:

* ``stewart``, ``ik``: ``f([x, y, z, roll, pitch, yaw]) -> [L1..L6]`` (m, rad, ZYX angles, R = Rz Ry Rx); C
  ``int robokin_ik(const double pose[6], double L[6])``; CSV ``x,y,z,roll,pitch,yaw,L1,...,L6``. Mistakes:
  eul2rotm argument order, rotation transposed, XYZ order, the anchor row/column bug, degrees, base and top
  swapped, squared lengths, actuator extension for leg length.
* ``mecanum``, ``ik``: ``f(vx, vy, omega) -> [w_fl, w_fr, w_rl, w_rr]`` (m/s, rad/s); ``fk``: the reverse
  (least squares). C ``int robokin_ik(const double t[3], double w[4])``, ``int robokin_fk(const double w[4],
  double t[3])``; CSV ``vx,vy,omega,w_fl,w_fr,w_rl,w_rr`` (ik) or ``w_fl,w_fr,w_rl,w_rr,vx,vy,omega`` (fk).
  Mistakes: roller sign (O for X), swapped lx and ly (visible only with rollers other than 45 degrees: at 45 the
  map depends on lx + ly alone, and the swap passes because it is harmless), contact coordinates swapped, clockwise
  wheel order, spin or lateral sign, full for half lengths, diameter for radius, rpm, FK from three wheels.
* ``wheel_leg`` (the virtual leg of the ``[linkage]`` five-bar, chapter 4): ``fk`` ``f(theta1, theta2) -> (L0,
  phi0)``, ``ik`` ``f(L0, phi0) -> (theta1, theta2)`` (working mode ``out``), ``jacobian`` ``f(theta1, theta2) ->
  [[dL0/dtheta1, dL0/dtheta2], [dphi0/dtheta1, dphi0/dtheta2]]``; C as for the five-bar; CSV
  ``theta1,theta2,L0,phi0`` / ``L0,phi0,theta1,theta2`` / ``theta1,theta2,J11,J12,J21,J22``. Mistakes: the leg
  from motor 1 (the d/2 offset forgotten), the angle from the vertical, degrees, swapped lengths, a branch
  mismatch, the foot Jacobian for the leg's.
* ``serial_arm``, ``jacobian``: ``f(q) -> 6 x n`` geometric Jacobian, rows ``[v; omega]`` of the tool point in the
  world frame; C ``int robokin_jacobian(const double q[n], double J[6 n])`` (row-major); CSV ``q1..qn,J11,...,J6n``.
  Mistakes: rows ``[omega; v]``, the body (tool-frame) Jacobian, the spatial twist, degrees, reversed columns,
  transposed, and the arm's convention, tool, base and offset mistakes.
"""

from __future__ import annotations

import csv
import ctypes
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .. import checks
from ..fivebar import FiveBar
from ..leg2 import TwoLinkLeg
from ..serial import SerialArm
from . import _maps

__all__ = ["Finding", "VerifyReport", "load_impl", "verify", "main", "TOL"]

#: Relative tolerance of the residual scans (of the link scale) and of the Jacobian check: 1e-6, loose enough for a
#: float32 firmware or a table printed with 7 digits, far below any of the mistakes' effects.
TOL = 1e-6
#: Slack of the angle-range convention (rad): an IK answer must lie in [-pi - ANGLE_TOL, pi + ANGLE_TOL].
ANGLE_TOL = 1e-12
#: The fix of the missing-wrap mistake.
WRAP_FIX = "wrap each angle into [-pi, pi]: (q + pi) % (2 pi) - pi, or atan2(sin q, cos q)"
#: The families verify checks.
FAMILIES = ("two_link_leg", "fivebar", "serial_arm", "stewart", "mecanum", "wheel_leg")
KINDS = ("ik", "fk", "jacobian")
OUT_DIM = {"ik": 2, "fk": 2, "jacobian": 4}


@dataclass(frozen=True)
class Finding:
    """One named mistake: what it is, the share of failing inputs it explains, where it bites and the fix."""

    mistake: str
    explained: float
    where: str
    fix: str


@dataclass(frozen=True, eq=False)
class VerifyReport:
    """Outcome of :func:`verify`."""

    family: str
    kind: str
    samples: int
    max_error: float
    passed: bool
    lines: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def __str__(self):
        head = f"[{'PASS' if self.passed else 'FAIL'}] {self.family} {self.kind}: {self.samples} inputs"
        body = list(self.lines)
        for f in self.findings:
            body.append(
                f"looks like: {f.mistake} (explains {100 * f.explained:.0f} % of the failing inputs); bites {f.where}. "
                f"Fix: {f.fix}"
            )
        return "\n".join([head] + ["  " + b for b in body])


# ---- implementations ------------------------------------------------------------------------------------------
class _Impl:
    """Uniform view of an implementation: ``__call__(inputs (N, m)) -> outputs (N, k)``, NaN where it refuses."""

    inputs: np.ndarray | None = None  # a CSV fixes its own inputs

    def __init__(self, fn, k):
        self.fn, self.k = fn, k

    def __call__(self, X):
        out = np.full((len(X), self.k), np.nan)
        for i, x in enumerate(X):
            out[i] = self.fn(x)
        return out


@dataclass(frozen=True)
class _Shape:
    """What crosses the boundary: input and output sizes, and whether the design is an arm (poses as 4x4)."""

    kind: str
    m: int
    k: int
    arm: bool
    n: int = 2
    spec: object = None  # a _maps.MapSpec for the vector-map families
    frame: tuple[str, ...] = ("x", "y")  # names of the task coordinates: the leg's hip frame is [x, z]


def _shape(design, kind):
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    mech = design.mechanism if design is not None else None
    if design is not None and design.family not in FAMILIES:
        raise ValueError(
            f"verify supports the {', '.join(FAMILIES)} families, got {design.family!r}"
            + (" (give the task's arm file, family serial_arm)" if design.family == "contest" else "")
        )
    if design is not None and design.family in _maps.FAMILIES:
        spec = _maps.spec_for(design, kind, _arm_variants(design) if isinstance(mech, SerialArm) else None)
        if spec is not None:
            return _Shape(kind, len(spec.inputs), len(spec.outputs), False, len(spec.inputs), spec)
    if isinstance(mech, SerialArm):
        n = mech.n
        return _Shape(kind, n if kind == "fk" else 16, 16 if kind == "fk" else n, True, n)
    return _Shape(kind, 2, OUT_DIM[kind], False, frame=_frame(mech))


def _frame(mech):
    """Names of the task coordinates: ``("x", "z")`` for the two-link leg's hip frame, else ``("x", "y")``."""
    return ("x", "z") if isinstance(mech, TwoLinkLeg) else ("x", "y")


def _load_module(mod_name):
    if mod_name.endswith(".py"):
        import sys

        path = Path(mod_name)
        if not path.is_file():
            raise ValueError(f"--impl: no such file {mod_name!r}")
        mspec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(mspec)
        sys.path.insert(0, str(path.resolve().parent))  # the reader's module may import its neighbours
        try:
            mspec.loader.exec_module(mod)
        except Exception as exc:  # the reader's code: any failure to import is reported, not raised
            raise ValueError(f"--impl: importing {mod_name!r} failed: {type(exc).__name__}: {exc}") from None
        finally:
            sys.path.remove(str(path.resolve().parent))
        return mod
    try:
        return importlib.import_module(mod_name)
    except Exception as exc:  # noqa: BLE001 - any failure of the reader's module is reported as such
        raise ValueError(f"--impl: cannot import {mod_name!r} ({exc})") from None


def _py(spec, sh):
    mod_name, _, fn_name = spec.rpartition(":")
    mod = _load_module(mod_name)
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        raise ValueError(f"--impl: {mod_name!r} has no function {fn_name!r}")

    def call(x):
        try:
            if sh.spec is not None:
                y = fn([float(v) for v in x]) if sh.spec.python_vector else fn(*(float(v) for v in x))
            elif not sh.arm:
                y = fn(float(x[0]), float(x[1]))
            elif sh.kind == "fk":
                y = fn([float(v) for v in x])
            else:
                y = fn(np.array(x, dtype=float).reshape(4, 4))
        except (ValueError, ArithmeticError) as exc:  # the reader's code refused the input: counted, first one shown
            if call.first_error is None:
                call.first_error = f"{type(exc).__name__}: {exc} (first at input {np.round(np.asarray(x), 6).tolist()})"
            call.n_errors += 1
            return np.full(sh.k, np.nan)
        except Exception as exc:  # noqa: BLE001 - a bug in the reader's code, not a refusal: stop with its message
            raise ValueError(
                f"--impl {spec} raised {type(exc).__name__}: {exc} at input {np.round(np.asarray(x), 6).tolist()}"
            ) from None
        if y is None:
            return np.full(sh.k, np.nan)
        at = np.round(np.asarray(x, dtype=float), 6).tolist()
        try:
            flat = np.asarray(y, dtype=object).reshape(-1)
            if any(isinstance(v, (str, bytes)) for v in flat):
                raise TypeError("strings")
            y = flat.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"--impl {spec}: returned {y!r} at input {at}: not numbers ({exc}); return floats"
            ) from None
        if y.size != sh.k:
            raise ValueError(f"--impl {spec}: returned {y.size} numbers, expected {sh.k} for {sh.kind}")
        return y

    call.first_error, call.n_errors = None, 0
    impl = _Impl(call, sh.k)
    impl.errors = call  # read by _refusal_line
    return impl


def _refusal_line(impl):
    """'your code raised ...' when refusals came from exceptions of the reader's code, else None."""
    src = getattr(impl, "errors", None)
    if src is None or not src.n_errors:
        return None
    return f"your code raised {src.n_errors} exception(s), e.g. {src.first_error}"


def _c(spec, sh):
    path, _, sym = spec.partition(".so:") if ".so:" in spec else (spec, "", "")
    if sym:
        path = path + ".so"
    sym = sym or f"robokin_{sh.kind}"
    try:
        lib = ctypes.CDLL(str(Path(path).resolve()))
        fn = getattr(lib, sym)
    except (OSError, AttributeError) as exc:
        raise ValueError(f"--impl: cannot load {sym!r} from {path!r} ({exc})") from None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]

    def call(x):
        xin = (ctypes.c_double * sh.m)(*(float(v) for v in x))
        out = (ctypes.c_double * sh.k)()
        if fn(xin, out) != 0:
            return np.full(sh.k, np.nan)
        return np.array(out[:], dtype=float)

    return _Impl(call, sh.k)


POSE6 = ["x", "y", "z", "roll", "pitch", "yaw"]


def _csv_columns(sh):
    """The accepted headers (first columns) of a CSV implementation, the preferred one first.

    The two-link leg's task coordinates are the hip frame's ``x, z``; ``x, y`` (the planar name) is accepted too.

    >>> _csv_columns(_Shape("ik", 2, 2, False, frame=("x", "z")))
    [['x', 'z', 'q1', 'q2'], ['x', 'y', 'q1', 'q2']]
    >>> _csv_columns(_Shape("fk", 2, 2, False))
    [['q1', 'q2', 'x', 'y']]
    """
    if sh.spec is not None:
        return [list(sh.spec.inputs) + list(sh.spec.outputs)]
    if not sh.arm:
        out = []
        for a, b in (sh.frame, ("x", "y")):
            cols = {
                "ik": [a, b, "q1", "q2"],
                "fk": ["q1", "q2", a, b],
                "jacobian": ["q1", "q2", "J11", "J12", "J21", "J22"],
            }
            if cols[sh.kind] not in out:
                out.append(cols[sh.kind])
        return out
    qs = [f"q{j + 1}" for j in range(sh.n)]
    return [qs + POSE6 if sh.kind == "fk" else POSE6 + qs]


def _pose16(v):
    """xyz + ZYX rpy (m, rad) to a flattened 4x4 pose."""
    from ..transforms import make_transform, rpy_to_matrix

    return make_transform(rpy_to_matrix(v[3:6]), v[:3]).reshape(16)


def _csv(spec, sh):
    path = Path(spec)
    if not path.is_file():
        raise ValueError(f"--impl: no such CSV file {spec!r}")
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    accepted = _csv_columns(sh)
    head = [h.strip() for h in rows[0]] if rows else []
    want = next((w for w in accepted if head[: len(w)] == w), None)
    if want is None:
        alt = "".join(f" (or {','.join(w)})" for w in accepted[1:])
        raise ValueError(
            f"--impl {spec}: header must start with {','.join(accepted[0])}{alt} for {sh.kind}, "
            f"got {','.join(head) if head else 'an empty file'}"
        )
    lineno = [i + 1 for i, r in enumerate(rows) if i and any(c.strip() for c in r)]  # blank lines are no rows
    rows = [rows[0]] + [rows[i - 1] for i in lineno]
    if len(rows) < 2:
        raise ValueError(f"--impl {spec}: the file has a header ({','.join(head)}) but no rows of data")
    data = np.full((len(rows) - 1, len(want)), np.nan)
    for i, r in enumerate(rows[1:]):
        for j in range(len(want)):
            v = r[j].strip() if j < len(r) else ""
            try:
                data[i, j] = float(v) if v else np.nan
            except ValueError:
                raise ValueError(f"--impl {spec}: row {lineno[i]}, column {want[j]!r}: {v!r} is not a number") from None
    m_in = 6 if (sh.arm and sh.kind == "ik") else sh.m
    bad_in = ~np.isfinite(data[:, :m_in]).all(-1)
    if bad_in.any():
        i = int(np.argmax(bad_in))
        raise ValueError(
            f"--impl {spec}: every row needs finite inputs ({', '.join(want[:m_in])}); row {lineno[i]} has "
            f"{', '.join(f'{c}={v:g}' for c, v in zip(want[:m_in], data[i, :m_in]))}"
            + (f" ({int(bad_in.sum())} such rows)" if bad_in.sum() > 1 else "")
        )
    X, Y = data[:, :m_in], data[:, m_in:]
    if sh.arm and sh.kind == "ik":
        X = np.array([_pose16(x) for x in X])
    if sh.arm and sh.kind == "fk":
        Y = np.array([_pose16(y) if np.all(np.isfinite(y)) else np.full(16, np.nan) for y in Y])
    return _Table(X, Y, sh.k)


class _Table(_Impl):
    """A CSV's answers: every row kept, in the file's order (two rows with one input are two checks)."""

    def __init__(self, X, Y, k):
        self.inputs, self.Y, self.k = X, np.asarray(Y, dtype=float), k

    def __call__(self, X):
        X = np.asarray(X, dtype=float)
        if X.shape == self.inputs.shape and np.array_equal(X, self.inputs):
            return self.Y.copy()
        first = {}
        for x, y in zip(map(tuple, self.inputs), self.Y):
            first.setdefault(x, y)
        try:
            return np.array([first[tuple(x)] for x in X], dtype=float).reshape(len(X), self.k)
        except KeyError as exc:
            raise ValueError(f"a CSV answers only its own inputs; {list(exc.args[0])} is not one of them") from None


class _Vectorised(_Impl):
    """The course's own map of a MapSpec family, on the whole input array at once (its default branch)."""

    def __init__(self, spec):
        self.spec, self.k = spec, len(spec.outputs)
        self.b = spec.branches.index(spec.default_branch)

    def __call__(self, X):
        return self.spec.course(np.asarray(X, dtype=float))[:, self.b]


def _course(design, sh):
    mech = design.mechanism
    if sh.spec is not None:
        return _Vectorised(sh.spec)

    def call(x):
        x = np.asarray(x, dtype=float)
        if sh.arm:
            if sh.kind == "fk":
                return mech.fk(x).reshape(16)
            return _arm_course_ik(mech, x.reshape(4, 4))
        if sh.kind == "ik":
            r = mech.ik(x, on_unreachable="nan")
            return r.q if bool(r.valid) else np.full(sh.k, np.nan)
        if sh.kind == "fk":
            return mech.fk(x, on_unreachable="nan") if isinstance(mech, FiveBar) else mech.fk(x)
        J = mech.jacobian(x, warn=False) if isinstance(mech, FiveBar) else mech.jacobian(x)
        return J.reshape(-1)

    return _Impl(call, sh.k)


def _arm_course_ik(arm, T):
    from ..ur5 import URArm

    if not isinstance(arm, URArm):
        raise ValueError("the course's arm IK here is the UR-family closed form; this arm has none")
    r = arm.ik(T, branch=arm.branches[0], on_unreachable="nan", warn=False)
    return r.q if bool(r.valid) else np.full(arm.n, np.nan)


def load_impl(spec: str, kind: str, design=None) -> Callable:
    """An implementation from its ``SPEC`` (module docstring)."""
    sh = _shape(design, kind)
    if spec == "course":
        return _course(design, sh)
    if spec.endswith(".csv"):
        return _csv(spec, sh)
    if spec.endswith(".so") or ".so:" in spec or spec.endswith(".dylib") or spec.endswith(".dll"):
        return _c(spec, sh)
    if ":" in spec:
        return _py(spec, sh)
    raise ValueError(f"--impl must be module:function, file.py:function, a .so library or a .csv file; got {spec!r}")


# ---- the course's side ----------------------------------------------------------------------------------------
def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def _all_ik(mech, P):
    """Every branch of the course IK at P: (N, B, 2) with NaN where a branch does not exist."""
    r = mech.ik(P, branch="all", on_unreachable="nan")
    return np.where(r.valid[..., None], r.q, np.nan), list(mech.branches)


def _fk(mech, Q):
    if isinstance(mech, FiveBar):
        return mech.fk(Q, on_unreachable="nan")
    return mech._fk(Q)


def _variants(mech):
    """Mechanisms with swapped lengths (the 'swapped lengths' mistake)."""
    if isinstance(mech, TwoLinkLeg):
        return {"l1 and l2": TwoLinkLeg(mech.l2, mech.l1)}
    return {
        "driving and distal links (l1 <-> l3, l2 <-> l4)": FiveBar(mech.l3, mech.l4, mech.l1, mech.l2, mech.d),
        "the two sides (l1 <-> l2, l3 <-> l4)": FiveBar(mech.l2, mech.l1, mech.l4, mech.l3, mech.d),
    }


def _targets(mech, rng, n):
    """Reachable targets: FK of random configurations, plus the special ones the pitfalls hit."""
    if isinstance(mech, TwoLinkLeg):
        lo, hi = mech.limits
        lo, hi = np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)
        q = rng.uniform(lo, hi, (n, 2))
        q = q[np.abs(np.sin(q[:, 1])) > 0.05]
        P = mech.fk(q)
        # straight below the hip (x = 0 exactly, both signs of zero): the atan-with-a-case-split pitfall
        r = np.linspace(abs(mech.l1 - mech.l2) + 0.05 * mech.l2, 0.95 * (mech.l1 + mech.l2), 9)
        special = np.concatenate([np.stack([np.zeros_like(r), -r], -1), np.stack([-np.zeros_like(r), -r], -1)])
        special = special[mech.ik(special, on_unreachable="nan").valid]
        return np.concatenate([P, special])
    q = rng.uniform(-np.pi, np.pi, (4 * n, 2))
    P = mech.fk(q, on_unreachable="nan")
    ok = np.isfinite(P).all(-1)
    P = P[ok][:n]
    P = P[mech.ik(P, on_unreachable="nan").valid]
    below = np.stack([np.full(9, mech.d / 2), -np.linspace(0.5, 0.9, 9) * mech.scale], -1)
    below = below[mech.ik(below, on_unreachable="nan").valid]
    return np.concatenate([P, below])


def _scale(mech):
    return mech.scale if isinstance(mech, FiveBar) else mech.l1 + mech.l2


def _explain(hyp, X, bad, names, *, fallback, dedup=False, top=None):
    """Findings for the failing inputs ``bad`` of ``X`` (its columns named ``names`` in the text).

    ``hyp`` lists ``(name, hit, fix)``: ``hit`` marks the inputs where the mistake ``name`` reproduces the
    implementation's answer. A hypothesis that explains at least half of the failing inputs is a finding. With
    ``dedup`` the hypotheses that explain the same inputs are one finding naming them all (the checker cannot tell
    them apart on these inputs: an "up" assembly and mirrored angles predict the same five-bar FK); with
    ``top`` only the ``top`` findings that explain most, best first. When none explains half, the one finding is
    that no usual mistake explains the failures, with the fix ``fallback``.

    >>> bad = np.array([True, True, False])
    >>> X = np.array([[0.1, -0.2], [0.2, -0.2], [0.3, -0.2]])
    >>> [f.mistake for f in _explain([("a", bad, "fa"), ("b", bad, "fb")], X, bad, ("x", "z"), fallback="?")]
    ['a', 'b']
    >>> [f.mistake for f in _explain([("a", bad, "fa"), ("b", bad, "fb")], X, bad, ("x", "z"), fallback="?",
    ...                               dedup=True)]
    ['a, or b (these predict the same answers here)']
    >>> _explain([("a", ~bad, "fa")], X, bad, ("x", "z"), fallback="compare").pop().mistake
    'an error none of the usual mistakes explains'
    """
    found, seen = [], []
    for name, hit, fix in hyp:
        both = hit & bad
        share = float(np.sum(both) / bad.sum())
        if share < 0.5:
            continue
        same = next((i for i, s in enumerate(seen) if np.array_equal(both, s)), None) if dedup else None
        if same is None:
            seen.append(both)
            found.append(Finding(name, share, _box(X, both, names), fix))
        else:  # mistakes that predict the same answers here: all named, the reader tells them apart
            f = found[same]
            first = f.mistake.split(", or ")[0]
            others = f.mistake[len(first) :].split(" (these predict")[0]
            found[same] = replace(
                f, mistake=f"{first}{others}, or {name} (these predict the same answers here)", fix=f"{f.fix}; or {fix}"
            )
    if not found:
        found.append(Finding("an error none of the usual mistakes explains", 1.0, _box(X, bad, names), fallback))
    if top is not None:
        found = sorted(found, key=lambda f: -f.explained)[:top]
    return found


def _hits(distance, hyp):
    """``(name, pred, fix)`` hypotheses as ``(name, hit, fix)``: hit where ``distance(pred) <= TOL``."""
    out = []
    for name, pred, fix in hyp:
        with np.errstate(invalid="ignore"):
            out.append((name, distance(pred) <= TOL, fix))
    return out


def _box(X, mask, names):
    """Text of the input range where ``mask`` holds."""
    pts = X[mask]
    if not len(pts):
        return "nowhere"
    parts = []
    for j, nm in enumerate(names):
        lo, hi = pts[:, j].min(), pts[:, j].max()
        parts.append(f"{nm} = {lo + 0.0:.4g}" if lo == hi else f"{nm} in [{lo:.4g}, {hi:.4g}]")
    extra = ""
    if names[0] == "x" and np.all(pts[:, 0] == 0.0):
        extra = " (only at x = 0 exactly: atan with a case split instead of atan2?)"
    return f"{int(mask.sum())} of {len(X)} inputs, {', '.join(parts)}{extra}"


def _match(U, C, tol, *, wrap=True):
    """Per input, the index of the candidate row of C (N, B, 2) that equals U (N, 2), or -1.

    ``tol`` (rad) is a number, one per input (N,) or one per input and branch (N, B).
    """
    d = U[:, None, :] - C
    if wrap:
        d = _wrap(d)
    tol = np.asarray(tol, dtype=float)
    tol = tol[:, None] if tol.ndim == 1 else tol
    with np.errstate(invalid="ignore"):
        ok = np.all(np.abs(d) <= (tol[..., None] if tol.ndim else tol), axis=-1)
    ok &= np.isfinite(C).all(-1)
    return np.where(ok.any(-1), np.argmax(ok, axis=-1), -1)


#: Bounds of the branch-match angle tolerance (rad): never tighter than 1e-6, never so loose that two branches merge.
BRANCH_TOL = (1e-6, 1e-3)


def _branch_tol(mech, X, C, scale):
    """Angle tolerance (N, B) of the branch match, consistent with the residual tolerance ``TOL``.

    An answer with the position error ``TOL * scale`` (which the residual scan accepts) is off in angle by up to
    ``|dq/dp| TOL scale``: near full stretch the IK's sensitivity is large, and a float32 answer that passes the
    residual scan differs from the course's branch by more than 1e-6 rad. The sensitivity of each branch is
    measured by differences of the course IK (one-sided where a step leaves the workspace); the tolerance is twice
    that bound, within :data:`BRANCH_TOL`.

    >>> from robokin.leg2 import TwoLinkLeg
    >>> leg = TwoLinkLeg(0.2, 0.2)
    >>> P = leg.fk(np.array([[0.1, 0.02], [0.1, 1.5]]))
    >>> C, _ = _all_ik(leg, P)
    >>> t = _branch_tol(leg, P, C, 0.4)
    >>> [f"{v:.1e}" for v in t[:, 0]]   # near full stretch (q2 = 0.02) 90 times looser than at q2 = 1.5
    ['4.0e-04', '4.4e-06']
    """
    h = 1e-7 * scale
    sens = np.zeros(C.shape[:2])
    with np.errstate(invalid="ignore"):
        for j in range(X.shape[1]):
            for sgn in (1.0, -1.0):
                Xs = X.copy()
                Xs[:, j] += sgn * h
                Cs, _ = _all_ik(mech, Xs)
                dq = np.abs(_wrap(Cs - C)).max(-1) / h
                sens = np.fmax(sens, np.where(np.isfinite(dq), dq, 0.0))
    return np.clip(2 * TOL * scale * sens, *BRANCH_TOL)


# ---- the checks -----------------------------------------------------------------------------------------------
def _verify_ik(mech, impl, rng, n):
    X = impl.inputs if impl.inputs is not None else _targets(mech, rng, n)
    U = impl(X)
    scale = _scale(mech)
    C, names = _all_ik(mech, X)
    reach = np.isfinite(C).all(-1).any(-1)
    with np.errstate(invalid="ignore"):
        res = np.linalg.norm(_fk(mech, np.where(np.isfinite(U), U, 0.0)) - X, axis=-1) / scale
    res = np.where(np.isfinite(U).all(-1) & np.isfinite(res), res, np.inf)
    bad = reach & ~(res <= TOL)
    lines = [
        f"residual scan |FK(IK(p)) - p| / scale over {int(reach.sum())} reachable targets: max "
        f"{np.max(np.where(reach, res, 0)):.2e} (tol {TOL:.0e}), {int(bad.sum())} fail"
    ]
    tolq = _branch_tol(mech, X, C, scale)
    br = _match(U, C, tolq)
    used = sorted({int(b) for b in br[reach & (br >= 0)]})
    findings = []
    frame = _frame(mech)
    # the convention: every angle in [-pi, pi] (the wrap (q + pi) % (2 pi) - pi gives [-pi, pi), atan2 (-pi, pi])
    with np.errstate(invalid="ignore"):
        inside = np.all(np.abs(U) <= np.pi + ANGLE_TOL, axis=-1)
    wrapped_ok = reach & (br >= 0) & ~inside
    if len(used) > 1:
        counts = [(int(np.sum(br == b)), b) for b in used]
        main_b = max(counts)[1]
        minority = reach & (br >= 0) & (br != main_b)
        lines.append("branches used: " + ", ".join(f"{names[b]} ({c})" for c, b in sorted(counts, reverse=True)))
        findings.append(
            Finding(
                "branch mismatch (the working mode changes between targets)",
                1.0,
                f"where it returns {', '.join(names[b] for b in used if b != main_b)} instead of {names[main_b]}: "
                + _box(X, minority, frame),
                f"pick one branch explicitly (the course's default is {mech.default_branch!r}) and keep it",
            )
        )
    elif used:
        lines.append(f"branch: {names[used[0]]} everywhere it is right")
        only = reach & bad & (br == used[0])
        if names[used[0]] != mech.default_branch and only.any():
            # one working mode everywhere, not the one the course's FK (the 'down' assembly) closes on: the
            # answers are a branch of the IK but FK(IK(p)) misses p. A y-down implementation answers the same.
            name = (
                f"working mode {names[used[0]]!r} everywhere; the course's FK (assembly 'down') expects "
                f"{mech.default_branch!r}"
            )
            fix = f"solve the working mode {mech.default_branch!r}"
            if isinstance(mech, FiveBar):
                fix += " (both knees outward)"
                Cm, _ = _all_ik(mech, X * [1, -1])  # the course's IK solved in a y-down frame
                Cm = -Cm[:, [names.index(mech.default_branch)]]
                ydown = _match(U, Cm, tolq.max(-1)) >= 0
                if np.sum(ydown & only) == only.sum():
                    name += ", or the y axis pointing down (the two predict the same answers here)"
                    fix += "; or y up, motors on the x axis (the foot below has y < 0)"
            findings.append(Finding(name, float(only.sum() / bad.sum()), _box(X, only, frame), fix))
    if wrapped_ok.any():
        fin = U[np.isfinite(U).all(-1)]
        lo, hi = float(fin.min()), float(fin.max())
        zero_2pi = lo >= -ANGLE_TOL and hi < 2 * np.pi + ANGLE_TOL  # every answer in [0, 2 pi): a wrap to [0, 2 pi)
        lines.append(
            f"angle range: {int(wrapped_ok.sum())} answers outside [-pi, pi] (right up to a multiple of 2 pi); "
            f"your angles span [{lo:.4g}, {hi:.4g}] rad"
        )
        findings.append(
            Finding(
                "missing wrap (angles in [0, 2 pi) instead of [-pi, pi])"
                if zero_2pi
                else "missing wrap (angles outside [-pi, pi])",
                float(wrapped_ok.sum() / max(1, (reach & (wrapped_ok | (br < 0) | bad)).sum())),
                _box(X, wrapped_ok, frame),
                WRAP_FIX,
            )
        )
    refused = reach & np.isnan(U).any(-1)  # None / NaN / a raised ValueError; an inf is a wrong answer
    mis = reach & (br < 0) & ~refused  # wrong answers; a refusal is its own finding, not a wrong answer
    if mis.any():
        fallback = "compare your formula with the chapter's derivation at the first failing input"
        findings += _explain(_ik_hypotheses(mech, X, U, C), X, mis, frame, fallback=fallback, dedup=True, top=2)
    if refused.any():
        findings.append(
            Finding(
                f"refuses reachable targets ({int(refused.sum())} of {int(reach.sum())})",
                float(refused.sum() / max(1, bad.sum())),
                _box(X, refused, frame),
                "answer every target inside the workspace: check the reachability test (|p| against the link "
                "lengths, with rounding slack) and the exception your code raises",
            )
        )
    # an answer to a target the course cannot reach (its FK misses the target): a clamped acos or a missing check
    answered = ~reach & np.isfinite(U).all(-1) & ~(res <= TOL)
    if answered.any():
        findings.append(
            Finding(
                f"answers {int(answered.sum())} unreachable target(s) (clamped acos, or no reachability check?)",
                1.0,
                _box(X, answered, frame),
                "return None / NaN (C: a non-zero status) for a target outside the workspace",
            )
        )
    passed = not bad.any() and not findings
    raised = _refusal_line(impl)
    if raised:
        lines.append(raised)
    return int(len(X)), float(np.max(np.where(reach, res, 0))), passed, lines, findings


def _ik_hypotheses(mech, X, U, C):
    """``(name, hit, fix)`` of the usual IK mistakes, for the inputs whose answer matches no course branch."""
    hyp = []
    if isinstance(mech, TwoLinkLeg):
        hyp.append(
            (
                "atan with a case split instead of atan2 (wrong straight below the hip)",
                X[:, 0] == 0.0,
                "use atan2(x, -z) for the hip-foot direction",
            )
        )
    deg = _match(U, np.rad2deg(C), 1e-4, wrap=False)
    hyp.append(
        (
            "degrees for radians (the answer is in degrees)",
            deg >= 0,
            "convert at the boundary: np.deg2rad / return radians",
        )
    )
    raw = U[:, None, :] - C
    k = np.round(raw / (2 * np.pi))
    multiple = np.all(np.abs(raw - 2 * np.pi * k) <= 1e-6, axis=-1) & np.any(k != 0, axis=-1)
    hyp.append(("missing wrap (angles outside [-pi, pi])", multiple.any(-1), WRAP_FIX))
    if getattr(mech, "q_min", None) is not None or getattr(mech, "q_max", None) is not None:
        free = replace(mech, q_min=None, q_max=None)  # the same mechanism without its joint limits
        Cf, names_f = _all_ik(free, X)
        hyp.append(
            (
                "a branch outside the joint limits (right without the limits, outside q_min..q_max with them)",
                _match(U, Cf, 1e-6) >= 0,
                f"pick the branch inside the limits (the course's default is {mech.default_branch!r}) and check "
                "q_min <= q <= q_max",
            )
        )
    for what, other in _variants(mech).items():
        Cs, _ = _all_ik(other, X)
        hyp.append((f"swapped lengths ({what})", _match(U, Cs, 1e-6) >= 0, f"swap back {what}"))
    if isinstance(mech, TwoLinkLeg):
        for off, name in (
            (np.pi / 2, "measured from the forward horizontal"),
            (-np.pi / 2, "from the backward horizontal"),
            (np.pi, "from the upward vertical"),
        ):
            Cs = C.copy()
            Cs[..., 0] = C[..., 0] - off
            hyp.append(
                (
                    f"wrong sign convention of theta1 ({name})",
                    _match(U, Cs, 1e-6) >= 0,
                    "use the chapter's convention: theta1 from the downward vertical, positive forward",
                )
            )
        Cs = -C
        hyp.append(
            (
                "wrong sign convention (angles positive the other way)",
                _match(U, Cs, 1e-6) >= 0,
                "angles positive when they swing the link forward: x = l1 sin q1 + l2 sin(q1 + q2)",
            )
        )
    else:
        hyp.append(
            (
                "wrong sign convention (angles positive clockwise)",
                _match(U, -C, 1e-6) >= 0,
                "angles from +x, positive counter-clockwise",
            )
        )
        Cm, _ = _all_ik(mech, X * [1, -1])
        hyp.append(
            (
                "wrong sign convention (y axis pointing down)",
                _match(U, -Cm, 1e-6) >= 0,
                "y up, motors on the x axis; the foot below has y < 0",
            )
        )
    return hyp


def _configs(mech, rng, n):
    if isinstance(mech, TwoLinkLeg):
        lo, hi = mech.limits
        lo, hi = np.where(np.isfinite(lo), lo, -np.pi), np.where(np.isfinite(hi), hi, np.pi)
        q = rng.uniform(lo, hi, (n, 2))
        return q[np.abs(np.sin(q[:, 1])) > 0.05]
    P = _targets(mech, rng, n)
    return mech.ik(P).q


def _verify_fk(mech, impl, rng, n):
    X = impl.inputs if impl.inputs is not None else _configs(mech, rng, n)
    U = impl(X)
    ref = _fk(mech, X)
    scale = _scale(mech)
    with np.errstate(invalid="ignore"):
        err = np.linalg.norm(U - ref, axis=-1) / scale
    ok = np.isfinite(ref).all(-1)
    err = np.where(np.isfinite(err), err, np.inf)
    bad = ok & ~(err <= TOL)
    lines = [
        f"FK against the course over {int(ok.sum())} configurations: max error "
        f"{np.max(np.where(ok, err, 0)):.2e} of the scale (tol {TOL:.0e}), {int(bad.sum())} fail"
    ]
    findings = []
    if bad.any():
        hyp = [
            (
                "degrees for radians (the angles are read as degrees)",
                _fk(mech, np.deg2rad(X)),
                "your FK takes degrees: pass radians or convert inside",
            )
        ]
        for what, other in _variants(mech).items():
            hyp.append((f"swapped lengths ({what})", _fk(other, X), f"swap back {what}"))
        if isinstance(mech, TwoLinkLeg):
            q = X.copy()
            q[:, 0] += np.pi / 2
            hyp.append(
                (
                    "wrong sign convention of theta1 (measured from the forward horizontal)",
                    _fk(mech, q),
                    "theta1 from the downward vertical, positive forward",
                )
            )
        if isinstance(mech, FiveBar):
            # the other circle intersection; mirroring the angles and y predicts exactly the same foot, so the
            # two are one finding naming both
            hyp.append(
                (
                    "assembly mode 'up' (the other intersection of the distal circles: the foot above the knees)",
                    mech.fk(X, assembly="up", on_unreachable="nan"),
                    "take the intersection with (D - C) x (E - C) < 0, the course's 'down' (foot below the knees)",
                )
            )
        hyp.append(
            (
                "wrong sign convention (angles positive the other way"
                + (", y mirrored)" if isinstance(mech, FiveBar) else ")"),
                _fk(mech, -X) * [1, -1] if isinstance(mech, FiveBar) else _fk(mech, -X),
                "angles positive counter-clockwise",
            )
        )
        hits = _hits(lambda pred: np.linalg.norm(U - pred, axis=-1) / scale, hyp)
        findings += _explain(hits, X, bad, ("q1", "q2"), fallback="compare with the chapter's FK", dedup=True)
    return int(len(X)), float(np.max(np.where(ok, err, 0))), not bad.any(), lines, findings


def _verify_jacobian(mech, impl, rng, n):
    X = impl.inputs if impl.inputs is not None else _configs(mech, rng, min(n, 500))
    U = impl(X).reshape(-1, 2, 2)

    J_fd = _fd(mech, X)
    ok = np.isfinite(J_fd).all(axis=(-2, -1))  # the course FK is defined around the configuration
    with np.errstate(invalid="ignore"):
        scale = np.abs(J_fd).max(axis=(-2, -1))[:, None, None] + 1e-12
        err = (np.abs(U - J_fd) / scale).max(axis=(-2, -1))
    err = np.where(np.isfinite(err), err, np.inf)
    bad = ok & ~(err <= TOL)
    maxerr = float(np.max(np.where(ok, err, 0.0), initial=0.0))
    lines = [
        f"Jacobian against central differences of the course FK over {int(ok.sum())} configurations: max "
        f"{maxerr:.2e} relative (tol {TOL:.0e}), {int(bad.sum())} fail"
    ]
    findings = []
    if bad.any():
        hyp = [
            (
                "transposed Jacobian (rows and columns swapped)",
                np.swapaxes(J_fd, -1, -2),
                "J[i, j] = d x_i / d q_j: rows are the task coordinates",
            ),
            ("wrong sign (the whole Jacobian negated)", -J_fd, "differentiate FK again; check the sign convention"),
            ("degrees for radians (per degree instead of per radian)", J_fd * np.pi / 180, "differentiate in radians"),
            ("columns swapped (joint order)", J_fd[..., ::-1], "column j belongs to joint j"),
        ]
        for what, other in _variants(mech).items():
            # a swapped-length linkage may not close at every configuration: that hypothesis is tested only
            # where its FK is defined (NaN elsewhere, never a hit)
            hyp.append((f"swapped lengths ({what})", _fd(other, X), f"swap back {what}"))
        hits = _hits(lambda pred: (np.abs(U - pred) / scale).max(axis=(-2, -1)), hyp)
        # the inverse Jacobian, compared in the Jacobian's own space (inverting U back) so that its large entries
        # near a singularity do not magnify the finite-difference error of the reference
        with np.errstate(all="ignore"):
            Uf = np.where(np.isfinite(U), U, 0.0)
            invU = np.linalg.inv(np.where((np.abs(np.linalg.det(Uf)) > 1e-300)[:, None, None], Uf, np.nan))
            hit_inv = (np.abs(invU - J_fd) / scale).max(axis=(-2, -1)) <= 10 * TOL
        hits.append(
            (
                "inverse Jacobian (d(q1, q2) / d(x, y) returned instead of d(x, y) / d(q1, q2))",
                hit_inv,
                "return dp/dq; invert it only where you map a velocity from the task to the joints",
            )
        )
        findings += _explain(hits, X, bad, ("q1", "q2"), fallback="compare with the chapter's Jacobian", dedup=True)
    return int(len(X)), maxerr, not bad.any(), lines, findings


def _fd(mech, X):
    """Central differences of the course FK of ``mech`` at X (N, 2, 2), NaN where the FK is not defined nearby."""
    with np.errstate(all="ignore"):
        return checks._jacobian_fd(lambda q: _fk(mech, q), X, 1e-6, True, finite=False)


# ---- serial arms ----------------------------------------------------------------------------------------------
def _arm_variants(design):
    """The wrong arms a reader's code often implements: other convention, no tool, no base, no offsets."""
    arm, w = design.mechanism, design.extra.get("as_written", design.mechanism)
    other = "standard" if w.convention == "modified" else "modified"
    out = {
        f"convention mix-up (the {w.convention}-DH table used with {other}-DH formulas)": SerialArm.from_dh(
            w.a, w.alpha, w.d, offset=w.offset, convention=other, base=w.base, tool=w.tool
        ),
    }
    if not np.array_equal(arm.tool, np.eye(4)):
        out["tool transform ignored (the flange solved or reported instead of the tool point)"] = SerialArm(
            w.a, w.alpha, w.d, w.offset, w.convention, None, w.base, np.eye(4)
        )
    if not np.array_equal(arm.base, np.eye(4)):
        out["base transform ignored"] = SerialArm(w.a, w.alpha, w.d, w.offset, w.convention, None, np.eye(4), w.tool)
    if np.any(w.offset):
        out["joint offsets ignored"] = SerialArm(w.a, w.alpha, w.d, np.zeros(w.n), w.convention, None, w.base, w.tool)
    return out


def _pose_err(A, B, reach):
    """Per-pose error of flattened poses: position / reach + rotation Frobenius / sqrt(2)."""
    A, B = A.reshape(-1, 4, 4), B.reshape(-1, 4, 4)
    with np.errstate(invalid="ignore"):
        e = np.linalg.norm(A[:, :3, 3] - B[:, :3, 3], axis=-1) / reach + np.sqrt(
            np.sum((A[:, :3, :3] - B[:, :3, :3]) ** 2, axis=(-2, -1)) / 2
        )
    return np.where(np.isfinite(e), e, np.inf)


def _verify_arm(design, impl, kind, rng, n):
    arm = design.mechanism
    reach = float(np.sum(np.abs(arm.a)) + np.sum(np.abs(arm.d)) + np.linalg.norm(arm.tool[:3, 3]))
    lim = arm.qlim if arm.qlim is not None else np.tile([-np.pi, np.pi], (arm.n, 1))
    lo, hi = np.maximum(lim[:, 0], -np.pi), np.minimum(lim[:, 1], np.pi)
    findings, lines = [], []
    wrong = _arm_variants(design)
    if kind == "fk":
        X = impl.inputs if impl.inputs is not None else rng.uniform(lo, hi, (min(n, 500), arm.n))
        U = impl(X)
        ref = arm.fk(X).reshape(-1, 16)
        err = _pose_err(U, ref, reach)
        bad = ~(err <= TOL)
        lines.append(
            f"FK against the course over {len(X)} configurations: max {err.max():.2e} (position / reach + "
            f"rotation; tol {TOL:.0e}), {int(bad.sum())} fail"
        )
        hyp = [("degrees for radians (the angles are read as degrees)", arm.fk(np.deg2rad(X)))]
        hyp += [(name, other.fk(X)) for name, other in wrong.items()]
        for name, pred in hyp:
            hit = _pose_err(U, pred.reshape(-1, 16), reach) <= TOL
            share = float(np.sum(hit & bad) / max(1, bad.sum()))
            if bad.any() and share >= 0.5:
                findings.append(
                    Finding(
                        name,
                        share,
                        f"{int((hit & bad).sum())} of {len(X)} configurations",
                        "build the chain as the file states it (robokin.serial.SerialArm.fk)",
                    )
                )
        if bad.any() and not findings:
            findings.append(
                Finding(
                    "an error none of the usual mistakes explains",
                    1.0,
                    f"{int(bad.sum())} of {len(X)} configurations",
                    "compare with robokin.serial.SerialArm.fk at the first failing configuration",
                )
            )
        return len(X), float(err.max()), not bad.any(), lines, findings
    from ..ur5 import URArm

    if impl.inputs is not None:
        X = impl.inputs
    else:
        q = rng.uniform(lo, hi, (min(n, 300), arm.n))
        T = arm.fk(q)
        if isinstance(arm, URArm):  # interior targets, where every branch exists
            full = arm.ik(T, on_unreachable="nan", warn=False).valid.all(-1)
            T = T[full]
        X = T.reshape(-1, 16)
    U = impl(X)
    fin = np.isfinite(U).all(-1)
    F = np.full((len(X), 16), np.nan)
    F[fin] = arm.fk(U[fin]).reshape(-1, 16)
    err = _pose_err(F, X, reach)
    bad = ~(err <= TOL)
    lines.append(
        f"residual scan FK(IK(T)) vs T over {len(X)} targets: max {err.max():.2e} (tol {TOL:.0e}), "
        f"{int(bad.sum())} fail"
    )
    if isinstance(arm, URArm):
        C = arm.ik(X.reshape(-1, 4, 4), on_unreachable="nan", warn=False)
        Cq = np.where(C.valid[..., None], C.q, np.nan)
        with np.errstate(invalid="ignore"):
            d = np.abs(_wrap(U[:, None, :] - Cq)).max(-1)
        br = np.where(
            np.nanmin(np.where(np.isfinite(d), d, np.inf), -1) < 1e-6,
            np.nanargmin(np.where(np.isfinite(d), d, np.inf), -1),
            -1,
        )
        used = sorted({int(b) for b in br[br >= 0]})
        if len(used) > 1:
            counts = sorted(((int(np.sum(br == b)), b) for b in used), reverse=True)
            lines.append("branches used: " + ", ".join(f"{arm.branches[b]} ({c})" for c, b in counts))
            findings.append(
                Finding(
                    "branch mismatch (the IK branch changes between targets)",
                    1.0,
                    f"{len(X) - counts[0][0]} of {len(X)} targets leave {arm.branches[counts[0][1]]}",
                    "choose the branch by name (robokin.ur5.URArm.branches) and keep it",
                )
            )
        elif used:
            lines.append(f"branch: {arm.branches[used[0]]} everywhere it is right")
        with np.errstate(invalid="ignore"):
            dd = np.abs(U[:, None, :] - np.rad2deg(Cq)).max(-1)
        deg = np.where(np.isfinite(dd), dd, np.inf).min(-1) <= 1e-4
        if bad.any() and np.sum(deg & bad) >= 0.5 * bad.sum():
            findings.append(
                Finding(
                    "degrees for radians (the answer is in degrees)",
                    float(np.sum(deg & bad) / bad.sum()),
                    f"{int((deg & bad).sum())} of {len(X)} targets",
                    "return radians",
                )
            )
    for name, other in wrong.items():
        if not bad.any():
            break
        Fo = np.full((len(X), 16), np.nan)
        Fo[fin] = other.fk(U[fin]).reshape(-1, 16)
        hit = _pose_err(Fo, X, reach) <= TOL
        share = float(np.sum(hit & bad) / bad.sum())
        if share >= 0.5:
            findings.append(
                Finding(
                    name,
                    share,
                    f"{int((hit & bad).sum())} of {len(X)} targets",
                    "solve for the arm as the file states it (base @ chain @ tool)",
                )
            )
    if bad.any() and not findings:
        findings.append(
            Finding(
                "an error none of the usual mistakes explains",
                1.0,
                f"{int(bad.sum())} targets",
                "compare with robokin.ur5.URArm.ik at the first failing target",
            )
        )
    return len(X), float(err.max()), not bad.any() and not findings, lines, findings


def verify(design, impl, *, kind: str = "ik", fast: bool = False, seed: int = 30) -> VerifyReport:
    """Run the checks of ``kind`` on ``impl`` (from :func:`load_impl`) for ``design``.

    Families: ``two_link_leg`` and ``fivebar`` (ik, fk, jacobian), ``serial_arm`` (fk; ik for UR-family arms, whose
    branches the course knows).
    """
    mech = design.mechanism
    rng = np.random.default_rng(seed)
    n = 500 if fast else 5000
    spec = getattr(impl, "spec", None) if isinstance(impl, _Vectorised) else None
    if spec is None and design.family in _maps.FAMILIES:
        spec = _maps.spec_for(design, kind, _arm_variants(design) if isinstance(mech, SerialArm) else None)
    if spec is not None:
        X = impl.inputs if impl.inputs is not None else spec.sample(rng, n)
        with np.errstate(all="ignore"):
            err, passed, lines, findings = _maps.check(spec, X, impl(X), TOL, _box, Finding)
        return VerifyReport(design.family, kind, len(X), err, passed, lines, findings)
    if isinstance(mech, SerialArm):
        with np.errstate(all="ignore"):
            samples, err, passed, lines, findings = _verify_arm(design, impl, kind, rng, n)
        return VerifyReport(design.family, kind, samples, err, passed, lines, findings)
    if not isinstance(mech, (TwoLinkLeg, FiveBar)):
        raise ValueError(f"verify supports the {', '.join(FAMILIES)} families, got {design.family!r}")
    fn = {"ik": _verify_ik, "fk": _verify_fk, "jacobian": _verify_jacobian}[kind]
    with np.errstate(all="ignore"):  # a reader's inf or 1e308 is a failing answer, not a warning
        samples, err, passed, lines, findings = fn(mech, impl, rng, n)
    return VerifyReport(design.family, kind, samples, err, passed, lines, findings)


def main(args) -> int:
    """``python -m robokin verify``: 0 when the implementation passes, 1 when it fails, 2 when it cannot run."""
    import sys

    from . import ParameterFileError, load

    try:
        design = load(args.file, family=args.family)
        spec = args.impl if args.symbol is None else f"{args.impl}:{args.symbol}"
        impl = load_impl(spec, args.kind, design)
        rep = verify(design, impl, kind=args.kind, fast=args.fast)
    except (ParameterFileError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        print(rep)
        sys.stdout.flush()
    except BrokenPipeError:  # `verify ... | head -1`: the reader has what they asked for; no traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0 if rep.passed else 1
