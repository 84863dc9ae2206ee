"""``python -m robokin.codegen OUTDIR``: write the generated C library (header, sources, README) into OUTDIR."""

import argparse

from . import generate

parser = argparse.ArgumentParser(prog="python -m robokin.codegen", description=__doc__)
parser.add_argument("outdir", help="output directory, e.g. _build/firmware")
args = parser.parse_args()
for path in generate(args.outdir):
    print(path)
