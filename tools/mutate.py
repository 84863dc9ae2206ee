"""Mutation testing with a fixed list of meaningful mutations (``make mutate``).

Every mutation in ``tools/mutations.py`` replaces one exact source snippet of a robokin module (a sign, a
constant, a tolerance, an index, a branch choice). For each mutant this script runs the mutation's test files
(``python -m pytest -x -q -p no:randomly``) with a timeout; the mutant is *killed* when they fail (or time out)
and *survives* when they pass. Score = killed / non-equivalent mutants.

Safety: the repository is never touched. ``robokin/``, ``tests/`` and ``pyproject.toml`` are copied into one
temporary directory per worker; mutants are applied there (restored in ``finally`` after each run, and the
directories are deleted at the end), and pytest runs there with ``PYTHONPATH`` pointing at the copy, so other
people's concurrent edits and the installed package are never disturbed.

Usage::

    python tools/mutate.py               # all mutations, 2 workers, report and score
    python tools/mutate.py --check       # only verify that every snippet occurs exactly once
    python tools/mutate.py --only ID ... # a subset
    python tools/mutate.py --list independent  # tools/mutations_independent.py (written without the tests)
    python tools/mutate.py --list all    # both lists, one baseline, a score per list (``make mutate``)
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutations import MUTATIONS  # noqa: E402

#: ``--list`` names: the module under tools/ that holds each mutation list.
LISTS = {"default": "mutations", "independent": "mutations_independent"}


def load_list(name):
    """The mutations of list ``name`` (a key of :data:`LISTS`, or ``"all"``), each tagged with its list's name."""
    if name == "all":
        return [m for n in LISTS for m in load_list(n)]
    muts = MUTATIONS if name == "default" else importlib.import_module(LISTS[name]).MUTATIONS
    return [dict(m, list=name) for m in muts]


def check_snippets(root=ROOT, mutations=MUTATIONS):
    """Problems with the list: unknown files, snippets not found exactly once, no-op or duplicate mutations."""
    problems, seen = [], set()
    for m in mutations:
        if m["id"] in seen:
            problems.append(f"{m['id']}: duplicate id")
        seen.add(m["id"])
        path = root / m["file"]
        if not path.is_file():
            problems.append(f"{m['id']}: no file {m['file']}")
            continue
        n = path.read_text().count(m["find"])
        if n != 1:
            problems.append(f"{m['id']}: snippet found {n} times in {m['file']} (must be exactly once): {m['find']!r}")
        if m["find"] == m["replace"]:
            problems.append(f"{m['id']}: replacement equals the snippet")
        for t in m["tests"]:
            if not (root / t.split("::")[0]).exists():
                problems.append(f"{m['id']}: no test path {t}")
    return problems


def make_copy(dest):
    """Copy what the tests need into ``dest`` (no caches)."""
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", ".pytest_cache", "*.pyc")
    # tests also read the chapters, the example parameter files, the report notebooks, the firmware harness and
    # the book pages that quote the package (the parameter-file schemas)
    for d in ("robokin", "tests", "notebooks", "examples", "reports", "firmware", "book"):
        if (ROOT / d).is_dir():
            shutil.copytree(ROOT / d, dest / d, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def pytest_cmd(paths):
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:nbval",
        "-m",
        "not site",
    ]
    if any(p.startswith("robokin/") for p in paths):
        cmd.append("--doctest-modules")
    return cmd + list(paths)


def run_tests(copy, paths, timeout):
    """Run pytest on ``paths`` inside ``copy``; returns (status, seconds, tail of output)."""
    env = dict(os.environ, PYTHONPATH=str(copy), MPLBACKEND="Agg", ROBOKIN_FAST="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("HYPOTHESIS_PROFILE", None)  # the derandomised default profile: same examples every run
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        pytest_cmd(paths),
        cwd=copy,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        status = (
            "passed" if proc.returncode == 0 else ("failed" if proc.returncode == 1 else f"error {proc.returncode}")
        )
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the pytest we started, and its children
        out, _ = proc.communicate()
        status = "timeout"
    tail = " | ".join(line for line in out.strip().splitlines()[-3:])
    return status, time.perf_counter() - t0, tail


def run_mutant(copy, m, timeout):
    path = copy / m["file"]
    original = path.read_text()
    assert original.count(m["find"]) == 1, m["id"]
    try:
        path.write_text(original.replace(m["find"], m["replace"]))
        status, secs, tail = run_tests(copy, m["tests"], timeout)
    finally:
        path.write_text(original)  # never leave a mutant behind, whatever happened
    killed = status != "passed"
    return dict(m, status=status, killed=killed, seconds=secs, tail=tail)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2, help="parallel workers (default 2)")
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per mutant before it counts as killed")
    ap.add_argument("--only", nargs="*", help="mutation ids to run")
    ap.add_argument("--check", action="store_true", help="only verify the snippets")
    ap.add_argument(
        "--list", choices=[*sorted(LISTS), "all"], default="default", help="mutation list (default: mutations.py)"
    )
    ap.add_argument("--min-score", type=float, default=0.95, help="exit status 1 below this score")
    args = ap.parse_args(argv)

    mutations = load_list(args.list)
    problems = check_snippets(mutations=mutations)
    if problems:
        print("The mutation list is out of date:\n  " + "\n  ".join(problems))
        return 2
    muts = [m for m in mutations if not args.only or m["id"] in args.only]
    modules = sorted({m["file"] for m in mutations})
    print(f"{len(mutations)} mutations over {len(modules)} modules: every snippet occurs exactly once.")
    if args.check:
        return 0

    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="robokin-mutate-") as tmp:
        copies = [Path(tmp) / f"w{i}" for i in range(max(1, args.jobs))]
        originals = {}
        for c in copies:
            make_copy(c)
            originals[c] = {m["file"]: (c / m["file"]).read_text() for m in muts}
        # baseline: the unmutated copy must pass every test file used, or "killed" would mean nothing
        paths = sorted({p for m in muts for p in m["tests"]})
        status, secs, tail = run_tests(copies[0], paths, timeout=max(args.timeout, 900))
        print(f"baseline ({len(paths)} test paths, unmutated): {status} in {secs:.0f} s")
        if status != "passed":
            print(tail)
            return 2
        free = list(copies)
        results = []

        def work(m):
            c = free.pop()
            try:
                r = run_mutant(c, m, args.timeout)
            finally:
                free.append(c)
            mark = "killed  " if r["killed"] else "SURVIVED"
            eq = "  (equivalent)" if m["equivalent"] else ""
            print(f"{mark} {m['id']:<34} {r['status']:<8} {r['seconds']:5.1f} s{eq}", flush=True)
            return r

        with ThreadPoolExecutor(max_workers=len(copies)) as ex:
            results = list(ex.map(work, muts))
        # every copy must hold exactly the sources it was made from: nothing left mutated
        for c in copies:
            for f, text in originals[c].items():
                assert (c / f).read_text() == text, f"{c / f} was left mutated"

    ok = True
    for name in dict.fromkeys(r["list"] for r in results):  # a score per list: each must reach the bar
        scored = [r for r in results if r["list"] == name and not r["equivalent"]]
        killed = sum(r["killed"] for r in scored)
        score = killed / len(scored) if scored else 1.0
        ok &= score >= args.min_score
        n_eq = sum(1 for r in results if r["list"] == name and r["equivalent"])
        print(
            f"\n{name} list: {killed} of {len(scored)} non-equivalent mutants killed: score {score:.1%} "
            f"(bar {args.min_score:.0%}; {n_eq} equivalent left out)"
        )
    print(f"{len(results)} mutants in {time.perf_counter() - t_start:.0f} s")
    for r in results:
        if not r["killed"]:
            why = f"equivalent: {r['equivalent']}" if r["equivalent"] else "NOT equivalent: add a killing test"
            print(f"  survivor {r['id']} ({r['file']}): {why}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
