"""Run chapters under several seeds and report which runs fail and which glued claims change (``make seeds``).

Every claim of a chapter must hold for any seed (issue 28, mechanism 1): the seed is an input of the run
(``ROBOKIN_SEED`` overrides the chapter's seed in ``robokin.nb.setup``). Each chapter runs once under its own seed
and once under each given seed, in a fresh kernel (nbclient), under ``ROBOKIN_FAST=1`` unless ``--full``. A run
fails when a cell raises (an assert trips); a printed number that changes with the seed is listed (at the format the
Markdown prints it with), so a sentence that rests on one draw ("consistent advantage", "100 times") shows up.

    .venv/bin/python tools/seeds.py                      # every chapter, seeds 11 23 37 41 59
    .venv/bin/python tools/seeds.py --chapters 08 12 --seeds 1 2 3 4 5 6 7 8
    .venv/bin/python tools/seeds.py --chapters tests/truth/fixtures/08_pwm_coverage_old.ipynb --seeds 1 2 3

Exit status 1 when any run fails.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import truth  # noqa: E402

DEFAULT_SEEDS = (11, 23, 37, 41, 59)


def resolve(chapters: list[str]) -> list[Path]:
    """``08`` or ``08_mecanum_chassis`` or a notebook path -> the notebook."""
    if not chapters:
        return list(truth.NOTEBOOKS)
    out = []
    for c in chapters:
        p = Path(c)
        if p.suffix == ".ipynb" and p.exists():
            out.append(p.resolve())
            continue
        hits = [nb for nb in truth.NOTEBOOKS if nb.name.startswith(c)]
        if len(hits) != 1:
            raise SystemExit(f"no single chapter matches {c!r}")
        out.append(hits[0])
    return out


def check(path: Path, seeds: list[int], *, fast: bool = True, out=print) -> list[truth.Run]:
    """Run ``path`` under its own seed and each of ``seeds``; print one line per run and the changed claims."""
    nb = truth.read(path)
    base = truth.run_chapter(path, fast=fast)
    out(f"{path.name}  own seed      {'pass' if base.ok else 'FAIL'}  {base.seconds:5.1f} s  {base.error}")
    runs = [base]
    for seed in seeds:
        run = truth.run_chapter(path, env={"ROBOKIN_SEED": str(seed)}, fast=fast)
        runs.append(run)
        changed = truth.claim_changes(nb, base.glued, run.glued) if base.ok and run.ok else []
        state = "pass" if run.ok else "FAIL"
        out(f"{path.name}  seed {seed:<8d} {state}  {run.seconds:5.1f} s  {run.error}")
        for line in changed:
            out(f"    changed: {line}")
    return runs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chapters", nargs="*", default=[], help="NN prefixes or notebook paths (default: all)")
    ap.add_argument("--seeds", nargs="*", type=int, default=list(DEFAULT_SEEDS), help="extra seeds (default: 5)")
    ap.add_argument("--full", action="store_true", help="book sizes (ROBOKIN_FAST unset); slow")
    args = ap.parse_args(argv)
    if any(s < 0 for s in args.seeds):
        ap.error("seeds must be non-negative integers")
    failed = []
    for path in resolve(args.chapters):
        runs = check(path, args.seeds, fast=not args.full)
        failed += [f"{path.name} {r.env.get('ROBOKIN_SEED', 'own seed')}" for r in runs if not r.ok]
    print(f"\n{len(failed)} failed run(s)" + (": " + ", ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
