"""Truth checks that run chapters (issue 28, mechanisms 1-3); marked ``seeds``, skipped unless ``ROBOKIN_SEEDS=1``
or ``-m seeds`` (tests/conftest.py). Each chapter runs in a fresh kernel under ``ROBOKIN_FAST=1`` (tools/truth.py).

- Seed robustness (CI tier): every chapter under ONE extra seed, which rotates with the commit:
  ``seed = int(sha256(f"{commit}:{chapter}")[:8], 16) % 100000``. The commit is in every CI log and the seed is in
  the test id (``ch08-seed41234``), so a failure is reproduced with ``ROBOKIN_SEED=41234`` on that commit; the same
  commit always draws the same seeds (no date-dependent flakiness), each new commit explores new ones. Override
  with ``ROBOKIN_CI_SEED=<n>`` (all chapters). ``make seeds`` (tools/seeds.py) runs five seeds per chapter.
- Native rate: each chapter with ``[[native]]`` entries in tests/truth/native.toml runs with and without
  ``ROBOKIN_FINE=1``; the listed keys must print the same at the Markdown's formats, and the fine run must pass.
- Causes by intervention: each ``[[cause]]`` of tests/truth/causes/NN.toml with an ``expect`` expression over its
  keys (the intervention's effect, e.g. "the gap stays with a finer step, goes with the impedance") is evaluated on
  the chapter's glued values; the fast test only checks that the keys exist.
- One source: each ``[[quote]]`` of tests/truth/quotes.toml runs the quoting and the quoted chapter and requires the
  two glued values to print the same at the quoting sentence's format.
Each is shown failing on a fixture of a case issue 28 lists (tests/truth/fixtures/).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import truth  # noqa: E402

pytestmark = pytest.mark.seeds
FIXTURES = ROOT / "tests" / "truth" / "fixtures"
NATIVE = truth.load_toml(ROOT / "tests" / "truth" / "native.toml")
QUOTES = truth.load_toml(ROOT / "tests" / "truth" / "quotes.toml")
_RUNS: dict[tuple[str, tuple], truth.Run] = {}


def run(path: Path, **env: str) -> truth.Run:
    """One run per notebook and environment in this session (the quotes and native tests share them)."""
    key = (str(path), tuple(sorted(env.items())))
    if key not in _RUNS:
        _RUNS[key] = truth.run_chapter(path, env=env)
    return _RUNS[key]


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "no-git"


def rotating_seed(chapter: int, head: str | None = None) -> int:
    """The CI seed of a chapter: from the commit hash (reproducible from the log), or ``ROBOKIN_CI_SEED``.

    >>> rotating_seed(8, "0" * 40) == rotating_seed(8, "0" * 40) != rotating_seed(9, "0" * 40)
    True
    """
    if os.environ.get("ROBOKIN_CI_SEED", "").strip():
        return int(os.environ["ROBOKIN_CI_SEED"])
    digest = hashlib.sha256(f"{head or commit()}:{chapter}".encode()).hexdigest()
    return int(digest[:8], 16) % 100_000


def seed_chapters(paths, head: str, *, mode: str | None = None) -> list:
    """The chapters the extra-seed test runs: all (``ROBOKIN_SEED_CHAPTERS=all``, the default), or under ``half``
    every other chapter, under ``third`` (CI) every third, the share the commit hash picks, so that two (three)
    commits in a row cover them all on average.
    Every chapter still runs under its own seed in ``make test``, and the native-rate, quote and cause tests below
    run whatever they name.

    >>> paths = list("abcdef")
    >>> seed_chapters(paths, "0" * 40, mode="all") == paths
    True
    >>> half = seed_chapters(paths, "0" * 40, mode="half")
    >>> len(half), half == seed_chapters(paths, "0" * 40, mode="half"), half in (list("ace"), list("bdf"))
    (3, True, True)
    >>> third = seed_chapters(paths, "0" * 40, mode="third")
    >>> len(third), third in (list("ad"), list("be"), list("cf"))
    (2, True)
    """
    mode = os.environ.get("ROBOKIN_SEED_CHAPTERS", "all") if mode is None else mode
    if mode == "all":
        return list(paths)
    stride = {"half": 2, "third": 3}.get(mode)
    if stride is None:
        raise ValueError(f"ROBOKIN_SEED_CHAPTERS must be 'all', 'half' or 'third', got {mode!r}")
    offset = int(hashlib.sha256(f"{head}:seed-half".encode()).hexdigest()[:8], 16) % stride
    return [p for i, p in enumerate(paths) if i % stride == offset]


_HEAD = commit()
CASES = [(p, rotating_seed(truth.chapter_of(p), _HEAD)) for p in seed_chapters(truth.NOTEBOOKS, _HEAD)]


@pytest.mark.parametrize(("path", "seed"), CASES, ids=[f"ch{truth.chapter_of(p):02d}-seed{s}" for p, s in CASES])
def test_chapter_holds_under_another_seed(path, seed):
    r = run(path, ROBOKIN_SEED=str(seed))
    assert r.ok, (
        f"{path.name} fails under ROBOKIN_SEED={seed} (commit {_HEAD[:12]}): {r.error}\n"
        f"reproduce: ROBOKIN_SEED={seed} ROBOKIN_FAST=1 .venv/bin/python -m pytest --nbval-lax --nbval-current-env "
        f"notebooks/{path.name}"
    )


BOUND_TODO = {(e["chapter"], e["key"]): e["note"] for e in NATIVE.get("bound_todo", [])}


@pytest.mark.parametrize(("path", "seed"), CASES, ids=[f"ch{truth.chapter_of(p):02d}-seed{s}" for p, s in CASES])
def test_bounds_are_rounded_on_the_safe_side(path, seed):
    """ "at least X" / "at most X" / "stays below X": the printed X is on the safe side of the value (same runs)."""
    r = run(path, ROBOKIN_SEED=str(seed))
    if not r.ok:
        pytest.skip("the run failed (reported by test_chapter_holds_under_another_seed)")
    chapter = truth.chapter_of(path)
    bad = [
        b
        for b in truth.unsafe_bounds(truth.read(path), r.glued)
        if not any(f" {k}:" in b for (c, k) in BOUND_TODO if c == chapter)
    ]
    assert not bad, f"{path.name} under ROBOKIN_SEED={seed}: bounds printed on the wrong side:\n  " + "\n  ".join(bad)


def test_seed_check_catches_the_old_ch8_coverage_test():
    """Issue 28: ch 8's three 95 % coverage tests, uncorrected, fail for some seeds (5 of 40)."""
    path = FIXTURES / "08_pwm_coverage_old.ipynb"
    assert run(path).ok  # passes under the chapter's own seed, as it did in the book
    bad = run(path, ROBOKIN_SEED=str(OLD_CH8_FAILING_SEED))
    assert not bad.ok and "AssertionError" in bad.error, bad.summary()


#: a seed under which the old ch 8 coverage cell fails (found with tools/seeds.py on the fixture)
OLD_CH8_FAILING_SEED = 6  # tools/seeds.py on the fixture, seeds 1-9: 6 and 7 fail


# --- native rate -----------------------------------------------------------------------------------------------------


def native_differences(path: Path, keys: list[str]) -> list[str]:
    """Printed values of ``keys`` that change (or a run that fails) when the chapter runs with ROBOKIN_FINE=1."""
    coarse, fine = run(path), run(path, ROBOKIN_FINE="1")
    assert coarse.ok, coarse.summary()
    if not fine.ok:
        return [f"the run at the native rate fails: {fine.error}"]
    fmts = truth.printed_formats(truth.read(path))
    out = []
    for key in keys:
        for fmt in sorted(fmts.get(key, {""})):
            a, b = truth.printed(coarse.glued.get(key), fmt), truth.printed(fine.glued.get(key), fmt)
            if a != b:
                out.append(f"{key}:{fmt} prints {a} from the log, {b} at the native rate")
    return out


NATIVE_CHAPTERS = sorted({e["chapter"] for e in NATIVE.get("native", [])})


@pytest.mark.parametrize("chapter", NATIVE_CHAPTERS, ids=[f"ch{c:02d}" for c in NATIVE_CHAPTERS])
def test_native_rate_claims_are_stable(chapter):
    path = next(p for p in truth.NOTEBOOKS if truth.chapter_of(p) == chapter)
    keys = [k for e in NATIVE["native"] if e["chapter"] == chapter for k in e["keys"]]
    diffs = native_differences(path, keys)
    assert not diffs, f"{path.name}: claims that depend on the output step:\n  " + "\n  ".join(diffs)


def test_native_rate_catches_the_old_ch4_bumpless_ratio():
    """Issue 28: "more than five times the VMC's per-tick change" held on 20 ms samples, not at 1 ms."""
    diffs = native_differences(FIXTURES / "04_bumpless_old.ipynb", ["ch04_sw_tick", "ch04_sw_jump_n_min"])
    assert diffs, "the fixture's claim should change at the native rate"
    assert any("native rate fails" in d and "AssertionError" in d or "ch04_sw_tick" in d for d in diffs), diffs


# --- one source across chapters --------------------------------------------------------------------------------------


def quote_mismatch(quote: dict, quoting: Path, quoted: Path) -> str | None:
    """Why the quoting chapter's value does not print as the quoted chapter's, or None."""
    a, b = run(quoting), run(quoted)
    assert a.ok and b.ok, (a.summary(), b.summary())
    fmts = truth.printed_formats(truth.read(quoting)).get(quote["key"], {""})
    for fmt in sorted(fmts):
        mine, theirs = truth.printed(a.glued[quote["key"]], fmt), truth.printed(b.glued[quote["source_key"]], fmt)
        if mine != theirs:
            return (
                f"{quoting.name} prints {quote['key']}:{fmt} = {mine}, chapter {quote['source']} has "
                f"{quote['source_key']} = {theirs}"
            )
    return None


def _chapter(n: int) -> Path:
    return next(p for p in truth.NOTEBOOKS if truth.chapter_of(p) == n)


QUOTE_CASES = [
    pytest.param(q, marks=pytest.mark.xfail(reason=q["xfail"], strict=True)) if q.get("xfail") else q
    for q in QUOTES.get("quote", [])
]


@pytest.mark.parametrize("quote", QUOTE_CASES, ids=[q["key"] for q in QUOTES.get("quote", [])])
def test_quotes_print_the_quoted_value(quote):
    why = quote_mismatch(quote, _chapter(quote["chapter"]), _chapter(quote["source"]))
    assert why is None, why


def test_quotes_catch_the_old_ch13_gear_band_value():
    """Issue 28: chapter 13 quoted chapter 3's gear band as 5 to 17.25; chapter 3's result is 5.75 to 18."""
    registry = truth.load_toml(FIXTURES / "13_gear_band_old.toml")
    found = [quote_mismatch(q, FIXTURES / "13_gear_band_old.ipynb", _chapter(3)) for q in registry["quote"]]
    assert found[0] and "ch13_static_lo:g = 5," in found[0] and "= 5.75" in found[0], found
    assert found[1] and "ch13_static_hi:g = 17.25," in found[1] and "= 18" in found[1], found


# --- causes by intervention ------------------------------------------------------------------------------------------

CAUSES = [
    (truth.chapter_of(p), e)
    for p in truth.NOTEBOOKS
    for e in truth.load_toml(ROOT / "tests" / "truth" / "causes" / f"{truth.chapter_of(p):02d}.toml").get("cause", [])
    if e.get("expect")
]


def intervention_holds(path: Path, entry: dict) -> bool:
    r = run(path)
    assert r.ok, r.summary()
    missing = [k for k in entry["keys"] if k not in r.glued]
    assert not missing, f"not glued by the run: {missing}"
    return bool(eval(entry["expect"], {"__builtins__": {"abs": abs, "min": min, "max": max}}, dict(r.glued)))


@pytest.mark.parametrize(("chapter", "entry"), CAUSES, ids=[f"ch{c:02d}-{e['keys'][0]}" for c, e in CAUSES])
def test_interventions_show_the_stated_effect(chapter, entry):
    assert intervention_holds(_chapter(chapter), entry), (
        f"ch{chapter:02d} {entry['match']!r}: the intervention does not show {entry['expect']!r}"
    )
