"""Build the generated library with the host C compiler and call its row loops from numpy through ``ctypes``.

Used by the tests (``tests/test_firmware.py``) and by software-in-the-loop runs. The compiler flags are the issue's:
``-std=c99 -Wall -Wextra -Werror -O2``, plus ``-ffp-contract=off`` so that no multiply-add is fused: the float
results are then those of IEEE single operations in source order, the same on the host and the Cortex-M4.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from . import generate, kernels
from ._emit import STATUS, Kernel

__all__ = ["CFLAGS", "compiler", "build", "HostLibrary"]

CFLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-ffp-contract=off", "-shared", "-fPIC")
_CT = {"d": (ctypes.c_double, np.float64), "f": (ctypes.c_float, np.float32)}


def compiler() -> str | None:
    """The host C compiler: ``$CC``, else ``cc`` or ``gcc`` on the PATH, else None."""
    for cc in (os.environ.get("CC"), "cc", "gcc"):
        if cc and shutil.which(cc):
            return cc
    return None


def build(
    outdir: str | Path,
    *,
    ks: Sequence[Kernel] | None = None,
    patch: Callable[[str], str] | None = None,
    name: str = "librobokin.so",
) -> Path:
    """Generate the sources into ``outdir`` and compile them into a shared library; returns its path.

    ``patch`` rewrites the text of ``robokin.c`` before compiling (the tests plant transcription slips with it).
    Raises ``RuntimeError`` with the compiler's output when the build fails, or when no compiler is found.
    """
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler found (set CC, or install gcc)")
    ks = list(kernels() if ks is None else ks)
    out = Path(outdir)
    generate(out, ks)
    if patch is not None:
        src = out / "robokin.c"
        src.write_text(patch(src.read_text()))
    lib = out / name
    cmd = [cc, *CFLAGS, "robokin.c", "robokin_batch.c", "-o", lib.name, "-lm"]
    res = subprocess.run(cmd, cwd=out, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stdout}{res.stderr}")
    return lib


class HostLibrary:
    """A compiled library and the kernel specs it was built from; :meth:`call` runs a row loop on numpy arrays.

    Examples
    --------
    >>> import tempfile
    >>> from robokin.codegen.kinematics import leg2_kernels
    >>> with tempfile.TemporaryDirectory() as d:
    ...     lib = HostLibrary(build(d, ks=leg2_kernels()), leg2_kernels())
    ...     (p,), status = lib.call("leg2_fk", "d", {"l1": 0.2, "l2": 0.2}, [[0.0, 0.0]])
    >>> p.tolist(), status.tolist()
    ([[0.0, -0.4]], [0])
    """

    def __init__(self, path: str | Path, ks: Sequence[Kernel] | None = None):
        self.path = Path(path)
        self.dll = ctypes.CDLL(str(self.path))
        self.kernels = {k.name: k for k in (kernels() if ks is None else ks)}
        self._structs: dict[tuple[str, str], type] = {}

    def struct(self, kernel: Kernel, prec: str, values: Mapping[str, object]) -> ctypes.Structure:
        """The ``rk_<params>_<prec>`` struct filled from ``values`` (field name -> number or sequence)."""
        key = (kernel.params.name, prec)
        if key not in self._structs:
            ct = _CT[prec][0]
            fields = [(f.name, ct if f.size == 1 else ct * f.size) for f in kernel.params.fields]
            self._structs[key] = type(f"rk_{key[0]}_{prec}", (ctypes.Structure,), {"_fields_": fields})
        s = self._structs[key]()
        for f in kernel.params.fields:
            v = values[f.name]
            if f.size == 1:
                setattr(s, f.name, float(v))
            else:
                arr = np.asarray(v, dtype=float).ravel()
                if arr.size != f.size:
                    raise ValueError(f"{f.name} needs {f.size} numbers, got {arr.size}")
                getattr(s, f.name)[:] = arr.tolist()
        return s

    def call(
        self,
        name: str,
        prec: str,
        params: Mapping[str, object],
        inputs: Sequence[object],
        selector: int | None = None,
    ) -> tuple[list[np.ndarray], np.ndarray]:
        """Run ``rk_<name>_batch_<prec>`` on rows of ``inputs``; returns (outputs, status), each with a row axis.

        Outputs keep NaN in rows whose status is not ``RK_OK`` (the C leaves them unwritten).
        """
        k = self.kernels[name]
        ct, dt = _CT[prec]
        arrs = [np.ascontiguousarray(np.atleast_2d(np.asarray(x, dtype=dt))) for x in inputs]
        n = arrs[0].shape[0]
        for a, spec in zip(arrs, k.inputs):
            if a.shape != (n, spec.size):
                raise ValueError(f"{spec.name} must have shape (n, {spec.size}), got {a.shape}")
        outs = [np.full((n, a.size), np.nan, dtype=dt) for a in k.outputs]
        status = np.full(n, -1, dtype=np.intc)
        ptr = ctypes.POINTER(ct)
        args = [ctypes.byref(self.struct(k, prec, params)), ctypes.c_size_t(n)]
        args += [a.ctypes.data_as(ptr) for a in arrs]
        if k.selector is not None:
            if selector is None:
                raise ValueError(f"{name} needs a selector ({k.selector.name}: {k.selector.choices})")
            args.append(ctypes.c_int(selector))
        args += [o.ctypes.data_as(ptr) for o in outs]
        args.append(status.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
        fn = getattr(self.dll, f"rk_{name}_batch_{prec}")
        fn.restype = None
        fn(*args)
        return outs, status


#: Status values by name, for readable test assertions.
CODES = {name: code for name, (code, _) in STATUS.items()}
