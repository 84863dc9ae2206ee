"""C99 emitter: a kernel is a list of sympy steps printed by sympy's C99 printer after common-subexpression elimination.

A kernel never allocates and touches no global state: parameters come in through a ``const`` struct pointer, inputs
through ``const`` arrays, and outputs are written only once every check has passed and every output is finite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp
from sympy.codegen.ast import float32, float64, real
from sympy.printing.c import C99CodePrinter

#: Status codes returned by every generated function (``rk_status`` in the header); 0 is success.
STATUS = {
    "RK_OK": (0, "success; every output is finite"),
    "RK_NONFINITE_INPUT": (1, "an input is NaN or infinite"),
    "RK_BAD_ARGUMENT": (2, "a NULL pointer, a parameter that is not positive and finite, or an unknown selector"),
    "RK_UNREACHABLE": (3, "the target is outside the workspace, or the linkage cannot be assembled"),
    "RK_SINGULAR": (4, "the configuration is within the singularity tolerance of the precision"),
    "RK_NONFINITE_OUTPUT": (5, "an output overflowed to inf or NaN (it is not written)"),
}

#: Precision variants: C type, function suffix, sympy real type, per-precision tolerance macros.
PRECISIONS = {"d": ("double", float64), "f": ("float", float32)}

PI = sp.Symbol("RK_PI")  # printed as a typed constant so the float variant never promotes to double


class Tol(sp.Symbol):
    """A tolerance whose value depends on the precision: printed as the macro ``RK_<NAME>_<D|F>``."""


class _Printer(C99CodePrinter):
    """C99 printer: small integer powers as products (exact and portable: no ``pow`` differences between libms)."""

    def __init__(self, prec):
        ctype, rtype = PRECISIONS[prec]
        super().__init__({"type_aliases": {real: rtype}})
        self._prec = prec

    def _print_Symbol(self, expr):
        if isinstance(expr, Tol):
            return f"RK_{expr.name}_{self._prec.upper()}"
        if expr == PI:
            return f"RK_PI_{self._prec.upper()}"
        return super()._print_Symbol(expr)

    def _print_Pow(self, expr):
        b, e = expr.as_base_exp()
        if e.is_Integer and 2 <= abs(int(e)) <= 4:
            prod = "*".join([self.parenthesize(b, 50)] * abs(int(e)))
            one = "1.0F" if self._prec == "f" else "1.0"
            return f"({prod})" if e > 0 else f"({one}/({prod}))"
        if e == -1:
            one = "1.0F" if self._prec == "f" else "1.0"
            return f"({one}/{self.parenthesize(b, 50)})"
        return super()._print_Pow(expr)


@dataclass(frozen=True)
class Arg:
    """An array argument: C name, length, unit and meaning (for the header and README)."""

    name: str
    size: int
    doc: str

    def symbols(self) -> list[sp.Symbol]:
        return [sp.Symbol(f"{self.name}{i}", real=True) for i in range(self.size)]


@dataclass(frozen=True)
class Selector:
    """An ``int`` argument choosing a branch; ``values[i]`` maps sympy symbols to the numbers of choice ``i``."""

    name: str
    choices: tuple[str, ...]
    values: tuple[dict, ...]
    doc: str


@dataclass(frozen=True)
class Let:
    """Local values ``sym = expr`` (CSE'd together)."""

    pairs: tuple[tuple[sp.Symbol, sp.Expr], ...]


@dataclass(frozen=True)
class Check:
    """Return ``status`` unless ``cond`` holds (a NaN operand makes ``cond`` false, so NaN trips it too)."""

    cond: sp.Basic
    status: str
    doc: str


@dataclass(frozen=True)
class Params:
    """The parameter struct ``rk_<name>_<d|f>``: array fields (a size-1 field is a scalar) and the positive ones."""

    name: str
    fields: tuple[Arg, ...]
    positive: tuple[str, ...]
    extra_checks: tuple[tuple[sp.Basic, str], ...] = ()  # (condition on the field symbols, what it means)
    doc: str = ""

    def sym(self, name: str) -> sp.Symbol:
        """Symbol of the scalar field ``name``."""
        return sp.Symbol(name, real=True)

    def syms(self, name: str) -> list[sp.Symbol]:
        """Symbols of the array field ``name``."""
        return next(f for f in self.fields if f.name == name).symbols()

    def locals(self) -> list[tuple[sp.Symbol, str]]:
        """(symbol, C access expression) of every field element."""
        out = []
        for f in self.fields:
            if f.size == 1:
                out.append((self.sym(f.name), f"prm->{f.name}"))
            else:
                out += [(s, f"prm->{f.name}[{i}]") for i, s in enumerate(f.symbols())]
        return out


@dataclass(frozen=True)
class Kernel:
    """One generated function ``rk_<name>_<d|f>(const params*, inputs..., selector, outputs...)``."""

    name: str
    params: Params
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    steps: tuple[Let | Check, ...]
    results: tuple[sp.Expr, ...]  # one per output element, in order
    doc: str
    selector: Selector | None = None

    @property
    def statuses(self) -> tuple[str, ...]:
        """The kernel-specific statuses its checks return, in order."""
        return tuple(dict.fromkeys(s.status for s in self.steps if isinstance(s, Check)))

    def free_symbols(self) -> set:
        syms = set()
        for s in self.steps:
            if isinstance(s, Let):
                for _, e in s.pairs:
                    syms |= sp.sympify(e).free_symbols
            else:
                syms |= s.cond.free_symbols
        for e in self.results:
            syms |= sp.sympify(e).free_symbols
        return syms

    def signature(self, prec: str) -> str:
        ctype = PRECISIONS[prec][0]
        args = [f"const rk_{self.params.name}_{prec} *prm"]
        args += [f"const {ctype} {a.name}[{a.size}]" for a in self.inputs]
        if self.selector is not None:
            args.append(f"int {self.selector.name}")
        args += [f"{ctype} {a.name}[{a.size}]" for a in self.outputs]
        return f"rk_status rk_{self.name}_{prec}({', '.join(args)})"

    def batch_signature(self, prec: str) -> str:
        ctype = PRECISIONS[prec][0]
        args = [f"const rk_{self.params.name}_{prec} *prm", "size_t n"]
        args += [f"const {ctype} *{a.name}" for a in self.inputs]
        if self.selector is not None:
            args.append(f"int {self.selector.name}")
        args += [f"{ctype} *{a.name}" for a in self.outputs]
        args.append("int *status")
        return f"void rk_{self.name}_batch_{prec}({', '.join(args)})"


def _cse_lines(pr, pairs, ctype, tmp):
    exprs = [e for _, e in pairs]
    subs, reduced = sp.cse(exprs, symbols=tmp, optimizations="basic")
    lines = [f"    const {ctype} {pr.doprint(s)} = {pr.doprint(e)};" for s, e in subs]
    lines += [f"    const {ctype} {pr.doprint(s)} = {pr.doprint(e)};" for (s, _), e in zip(pairs, reduced)]
    return lines


def emit_kernel(k: Kernel, prec: str) -> str:
    """C source of one kernel in one precision."""
    ctype = PRECISIONS[prec][0]
    pr = _Printer(prec)
    tmp = sp.numbered_symbols("cse", cls=sp.Symbol)
    out = [f"/* {k.doc.splitlines()[0]} */", f"{k.signature(prec)}", "{"]
    ptrs = ["prm"] + [a.name for a in k.inputs + k.outputs]
    out.append(f"    if ({' || '.join(f'{p} == NULL' for p in ptrs)}) return RK_BAD_ARGUMENT;")
    out.append(f"    if (rk_{k.params.name}_check_{prec}(prm) != RK_OK) return RK_BAD_ARGUMENT;")
    used = k.free_symbols()
    for s, access in k.params.locals():
        if s in used:
            out.append(f"    const {ctype} {s.name} = {access};")
    for a in k.inputs:
        for i, s in enumerate(a.symbols()):
            if s in used:
                out.append(f"    const {ctype} {s.name} = {a.name}[{i}];")
        out.append(f"    for (int i = 0; i < {a.size}; ++i) if (!isfinite({a.name}[i])) return RK_NONFINITE_INPUT;")
    if k.selector is not None:
        sel = k.selector
        names = sorted({str(s) for v in sel.values for s in v}, key=str)
        for n in names:
            out.append(f"    {ctype} {n};")
        out.append(f"    switch ({sel.name}) {{")
        for i, (choice, vals) in enumerate(zip(sel.choices, sel.values)):
            assigns = " ".join(f"{s} = {pr.doprint(sp.sympify(v))};" for s, v in vals.items())
            out.append(f"    case {i}: /* {choice} */ {assigns} break;")
        out.append("    default: return RK_BAD_ARGUMENT;")
        out.append("    }")
    for step in k.steps:
        if isinstance(step, Let):
            out += _cse_lines(pr, step.pairs, ctype, tmp)
        else:
            out.append(f"    if (!({pr.doprint(step.cond)})) return {step.status}; /* {step.doc} */")
    res = [(sp.Symbol(f"res{i}"), e) for i, e in enumerate(k.results)]
    out += _cse_lines(pr, res, ctype, tmp)
    n = len(res)
    out.append(f"    const {ctype} res[{n}] = {{{', '.join(s.name for s, _ in res)}}};")
    out.append(f"    for (int i = 0; i < {n}; ++i) if (!isfinite(res[i])) return RK_NONFINITE_OUTPUT;")
    i = 0
    for a in k.outputs:
        for j in range(a.size):
            out.append(f"    {a.name}[{j}] = res[{i}];")
            i += 1
    out += ["    return RK_OK;", "}", ""]
    return "\n".join(out)


def emit_params_check(p: Params, prec: str) -> str:
    ctype = PRECISIONS[prec][0]
    pr = _Printer(prec)
    lines = [f"rk_status rk_{p.name}_check_{prec}(const rk_{p.name}_{prec} *prm)", "{"]
    lines.append("    if (prm == NULL) return RK_BAD_ARGUMENT;")
    for _, access in p.locals():
        lines.append(f"    if (!isfinite({access})) return RK_BAD_ARGUMENT;")
    for f in p.positive:
        lines.append(f"    if (!(prm->{f} > 0)) return RK_BAD_ARGUMENT;")
    if p.extra_checks:
        used = set().union(*(c.free_symbols for c, _ in p.extra_checks))
        for s, access in p.locals():
            if s in used:
                lines.append(f"    const {ctype} {s.name} = {access};")
        for cond, why in p.extra_checks:
            lines.append(f"    if (!({pr.doprint(cond)})) return RK_BAD_ARGUMENT; /* {why} */")
    lines += ["    return RK_OK;", "}", ""]
    return "\n".join(lines)


def emit_batch(k: Kernel, prec: str) -> str:
    """Loop over ``n`` rows (row-major arrays): for the host tests and benchmarks, not needed on the target."""
    call = ["prm"] + [f"{a.name} + i * {a.size}" for a in k.inputs]
    if k.selector is not None:
        call.append(k.selector.name)
    call += [f"{a.name} + i * {a.size}" for a in k.outputs]
    return "\n".join(
        [
            k.batch_signature(prec),
            "{",
            f"    for (size_t i = 0; i < n; ++i) status[i] = (int)rk_{k.name}_{prec}({', '.join(call)});",
            "}",
            "",
        ]
    )


def emit_struct(p: Params, prec: str) -> str:
    ctype = PRECISIONS[prec][0]
    lines = [f"/* {p.doc} */", "typedef struct {"]
    for f in p.fields:
        dim = "" if f.size == 1 else f"[{f.size}]"
        lines.append(f"    {ctype} {f.name}{dim}; /* {f.doc} */")
    lines.append(f"}} rk_{p.name}_{prec};")
    lines.append(f"rk_status rk_{p.name}_check_{prec}(const rk_{p.name}_{prec} *prm);")
    return "\n".join(lines) + "\n"


def kernel_doc(k: Kernel) -> str:
    """A C comment block documenting a kernel's arguments and statuses."""
    lines = ["/*", *(f" * {ln}" if ln else " *" for ln in k.doc.splitlines())]
    for a in k.inputs:
        lines.append(f" * in  {a.name}[{a.size}]: {a.doc}")
    if k.selector is not None:
        opts = ", ".join(f"{i} = {c}" for i, c in enumerate(k.selector.choices))
        lines.append(f" * in  {k.selector.name}: {k.selector.doc} ({opts})")
    for a in k.outputs:
        lines.append(f" * out {a.name}[{a.size}]: {a.doc}")
    sts = ("RK_OK", "RK_NONFINITE_INPUT", "RK_BAD_ARGUMENT") + tuple(k.statuses) + ("RK_NONFINITE_OUTPUT",)
    lines.append(f" * returns {', '.join(sts)}; outputs are written only on RK_OK.")
    lines.append(" */")
    return "\n".join(lines)


def params_of(kernels: Sequence[Kernel]) -> list[Params]:
    seen = {}
    for k in kernels:
        seen.setdefault(k.params.name, k.params)
    return list(seen.values())
