"""``python -m robokin.codegen OUTDIR [--m4]``: write the generated C library (header, sources, README) into OUTDIR.

With ``--m4`` also cross-compile it for a Cortex-M4F, print the code size of every float function, and run the
self-test image under QEMU (mps2-an386), reporting whether every call's status and output matches the host build.
"""

import argparse
import subprocess
import sys

from . import generate, kernels

parser = argparse.ArgumentParser(prog="python -m robokin.codegen", description=__doc__)
parser.add_argument("outdir", help="output directory, e.g. _build/firmware")
parser.add_argument("--m4", action="store_true", help="cross-build for Cortex-M4F and run the self-test in QEMU")
args = parser.parse_args()
ks = kernels()
for path in generate(args.outdir, ks):
    print(path)
if args.m4:
    from pathlib import Path

    from .target import build_host_selftest, build_m4, cases, cross_tools, parse, run_qemu, section_sizes, sizes

    if cross_tools() is None:
        sys.exit(
            "arm-none-eabi-gcc / qemu-system-arm missing: apt-get install gcc-arm-none-eabi "
            "libnewlib-arm-none-eabi qemu-system-arm"
        )
    m4 = Path(args.outdir) / "m4"
    (m4 / "selftest.c").unlink(missing_ok=True)
    cs = cases(ks=ks)
    obj, elf = build_m4(m4, cs, ks)
    sz = sizes(obj)
    print(f"{'function (Cortex-M4F, -O2)':32s} {'bytes':>6s}")
    for k in ks:
        print(f"rk_{k.name}_f{'':{29 - len(k.name)}s} {sz[f'rk_{k.name}_f']:6d}")
    print(f"robokin.o: {section_sizes(obj)}; self-test image: {section_sizes(elf)}")
    target = parse(run_qemu(elf))
    host = parse(subprocess.run([str(build_host_selftest(m4, cs, ks))], capture_output=True, text=True).stdout)
    same = sum(target[i][1] == host[i][1] for i in host)
    exact = sum(target[i][1] == host[i][1] and target[i][2].tobytes() == host[i][2].tobytes() for i in host)
    print(f"QEMU mps2-an386: {len(target)}/{len(cs)} calls ran; statuses equal {same}; outputs bit-exact {exact}")
    if len(target) != len(cs) or same != len(cs):
        sys.exit(1)
