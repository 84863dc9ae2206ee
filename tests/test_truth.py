"""Every sentence true, the kinds a number scanner cannot see (issue 28): fast source scans, no execution.

- Mechanism 2, native rate: sentences that state an extremum, "never", "stays below" or a first time about a glued
  number are listed in ``tests/truth/native.toml`` (re-run finer, exempt with a reason, or counted as to do); a
  listed chapter must honour ``ROBOKIN_FINE`` (``robokin.nb.refine``). The re-runs are in tests/test_seeds.py.
- Mechanism 3, one source: a sentence that names another chapter and states a number is a quote; each glued key in
  it is registered in ``tests/truth/quotes.toml`` (a quote from one package call, the chapter's own result, or to
  do), each typed number in it is a stated input. The value comparison is in tests/test_seeds.py.
- Mechanism 4, causes by intervention: each causal sentence ("because", "comes from", "sets", "so that", ...) is
  registered in ``tests/truth/causes/NN.toml`` with the glue keys (or cell tag) of the intervention that removes
  the cause, or the reason it states no measurable cause, or as to do.
- Mechanism 5, asserts that can fail: no assert compares a quantity with itself, a literal with a literal, or is
  ``assert True`` / ``x or not x``; a modified-DH table's twists are not compared with a standard table's unshifted.

To-do entries are counted: ``tests/truth/limits.toml`` holds each count, which may only shrink (the test fails when
the count grows, and asks to lower the limit when it shrank), and the test xfails with the count while it is not 0.
Each check is also run on a fixture under ``tests/truth/fixtures/``: the old text or code of a case issue 28 lists,
which it must catch.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import truth  # noqa: E402

TRUTH = ROOT / "tests" / "truth"
FIXTURES = TRUTH / "fixtures"
NOTEBOOKS = truth.NOTEBOOKS
IDS = [f"ch{truth.chapter_of(p):02d}" for p in NOTEBOOKS]
LIMITS = truth.load_toml(TRUTH / "limits.toml")


def _ratchet(name: str, todos: list[str]) -> None:
    """The to-do count may only shrink; xfail with the list while it is not zero."""
    limit = int(LIMITS.get(name, 0))
    assert len(todos) <= limit, (
        f"{len(todos)} {name} entries, more than the {limit} of tests/truth/limits.toml: back the new sentence by a "
        "check instead of adding a to-do\n  " + "\n  ".join(todos)
    )
    assert len(todos) == limit, f"{name} went down to {len(todos)}: lower {name} in tests/truth/limits.toml to match"
    if todos:
        pytest.xfail(f"{len(todos)} {name} left (listed in tests/truth): " + "; ".join(todos))


# --- mechanism 4: causes by intervention -----------------------------------------------------------------------------


def cause_problems(nb, chapter: int, registry: dict) -> list[str]:
    """Unregistered causal sentences, stale or ambiguous entries, and entries whose intervention does not exist."""
    entries = [{**e, "kind": kind} for kind in ("cause", "not_cause", "todo") for e in registry.get(kind, [])]
    problems = []
    for e in entries:
        need = {"cause": ("keys", "tag", "how"), "not_cause": ("reason",), "todo": ("note",)}[e["kind"]]
        if not e.get("match") or not any(e.get(f) for f in need):
            problems.append(f"entry {e} needs `match` and one of {need}")
    unregistered, stale, ambiguous = truth.match_registry(truth.causal_sentences(nb, chapter), entries)
    problems += [f"unregistered causal sentence: {s.where()}" for s in unregistered]
    problems += [f"stale entry (matches no causal sentence): {e['match']!r}" for e in stale]
    problems += ambiguous
    sites = truth.glue_sites(nb)
    tags = {t for c in nb.cells for t in c.metadata.get("tags", ())}
    for e in entries:
        if e["kind"] != "cause":
            continue
        for key in e.get("keys", []):
            if not any(g.pattern.match(key) for g in sites):
                problems.append(f"{e['match']!r}: intervention key {key!r} is not glued in the chapter")
        if e.get("tag") and e["tag"] not in tags:
            problems.append(f"{e['match']!r}: no cell is tagged {e['tag']!r}")
        if not e.get("keys") and not e.get("tag"):
            problems.append(f"{e['match']!r}: a cause needs the keys or tag of its intervention cell")
        if e.get("expect"):
            try:
                names = {n.id for n in ast.walk(ast.parse(e["expect"], mode="eval")) if isinstance(n, ast.Name)}
            except SyntaxError:
                problems.append(f"{e['match']!r}: expect is not a Python expression: {e['expect']!r}")
                continue
            if names - set(e.get("keys", [])) - set(_EXPECT_FUNCS):
                problems.append(f"{e['match']!r}: expect uses {sorted(names - set(e['keys']))}, not among its keys")
    return problems


#: functions an ``expect`` expression may call (tests/test_seeds.py evaluates it on the run's glued values)
_EXPECT_FUNCS = ("abs", "min", "max")


def _causes(chapter: int) -> dict:
    return truth.load_toml(TRUTH / "causes" / f"{chapter:02d}.toml")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_causal_sentences_are_registered(path):
    chapter = truth.chapter_of(path)
    problems = cause_problems(truth.read(path), chapter, _causes(chapter))
    assert not problems, f"{path.name} (registry tests/truth/causes/{chapter:02d}.toml):\n  " + "\n  ".join(problems)


def test_causal_todo_count_only_shrinks():
    todos = [
        f"ch{f.stem}: {e['match']}"
        for f in sorted((TRUTH / "causes").glob("[0-9][0-9].toml"))
        for e in truth.load_toml(f).get("todo", [])
    ]
    _ratchet("causes_todo", todos)


def test_causes_catch_the_old_ch13_soft_constraint_text():
    """Issue 28: ch 13 attributed the loop gap to stiffness and step size; the impedance d < 1 sets it."""
    nb = truth.read(FIXTURES / "13_soft_constraint_old.ipynb")
    registry = truth.load_toml(FIXTURES / "13_soft_constraint_old.toml")
    problems = cause_problems(nb, 13, registry)
    assert any("unregistered" in p and "a stiffer constraint costs smaller steps" in p for p in problems), problems
    # the message names the sentence, its chapter and cell
    assert any(p.startswith("unregistered causal sentence: ch13 cell ") for p in problems)


def test_causal_scanner_finds_what_it_should():
    found = [
        s.text
        for s in truth.causal_sentences(
            truth.nbformat.v4.new_notebook(
                cells=[
                    truth.nbformat.v4.new_markdown_cell(
                        "The gap comes from the spring. It is 5 um. `solimp` sets the impedance. The two solution sets "
                        "differ. This is caused by d. It rings because of D, so that it settles."
                    )
                ]
            ),
            13,
        )
    ]
    assert found == [
        "The gap comes from the spring.",
        "`solimp` sets the impedance.",
        "This is caused by d.",
        "It rings because of D, so that it settles.",
    ]


# --- mechanism 3: one source across chapters -------------------------------------------------------------------------

QUOTES = truth.load_toml(TRUTH / "quotes.toml")


def _code_up_to(nb, cell: int) -> str:
    return "\n".join(c.source for c in nb.cells[: cell + 1] if c.cell_type == "code")


def quote_problems(nb, chapter: int, registry: dict, source_nbs: dict[int, object]) -> list[str]:
    """Quotes whose numbers are typed but not stated inputs, or whose glued keys are not registered."""
    quotes = [q for q in registry.get("quote", []) if q["chapter"] == chapter]
    local = [e for e in registry.get("local", []) + registry.get("todo", []) if e["chapter"] == chapter]
    inputs = [e for e in registry.get("input", []) if e["chapter"] == chapter]
    known = {q["key"] for q in quotes} | {k for e in local for k in e["keys"]}
    problems, seen, used_inputs = [], set(), set()
    for s in truth.quote_sentences(nb, chapter):
        for key, fmt in s.keys:
            seen.add(key)
            if key not in known:
                problems.append(f"unregistered quote {key}:{fmt} in {s.where()}")
        if truth.plain_numbers(s.text):
            hits = [e["match"] for e in inputs if truth.normalize(e["match"]).lower() in s.text.lower()]
            used_inputs.update(hits)
            if not hits:
                problems.append(f"typed numbers {truth.plain_numbers(s.text)} in a quote (glue them): {s.where()}")
    problems += [f"stale entry: {k!r} is in no quote sentence" for k in sorted(known - seen)]
    problems += [f"stale input entry: {e['match']!r}" for e in inputs if e["match"] not in used_inputs]
    for q in quotes:
        site = truth.glue_site(nb, q["key"])
        src_nb = source_nbs.get(q["source"])
        src_site = truth.glue_site(src_nb, q["source_key"]) if src_nb is not None else None
        if site is None or src_site is None:
            problems.append(f"{q['key']} / ch{q['source']:02d} {q['source_key']}: not glued")
            continue
        for where, book, gs in (("quoting", nb, site), ("quoted", src_nb, src_site)):
            if q["call"] not in _code_up_to(book, gs.cell):
                problems.append(f"{q['key']}: the {where} chapter does not compute it with {q['call']!r}")
    return problems


def _notebook_of(chapter: int) -> Path:
    return next(p for p in NOTEBOOKS if truth.chapter_of(p) == chapter)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_cross_chapter_quotes_are_one_source(path):
    chapter = truth.chapter_of(path)
    sources = {q["source"] for q in QUOTES.get("quote", []) if q["chapter"] == chapter}
    problems = quote_problems(truth.read(path), chapter, QUOTES, {c: truth.read(_notebook_of(c)) for c in sources})
    assert not problems, f"{path.name} (registry tests/truth/quotes.toml):\n  " + "\n  ".join(problems)


def test_quote_todo_count_only_shrinks():
    _ratchet("quotes_todo", [f"ch{e['chapter']:02d}: {e['keys']}" for e in QUOTES.get("todo", [])])


def test_quotes_catch_the_old_ch13_gear_band():
    """Issue 28: chapter 13 quoted "chapter 3's static sweep" from its own recomputation of the quasi-static band."""
    nb = truth.read(FIXTURES / "13_gear_band_old.ipynb")
    problems = quote_problems(nb, 13, {}, {})
    assert any("unregistered quote ch13_static_lo:g" in p for p in problems), problems
    assert any("unregistered quote ch13_static_hi:g" in p for p in problems), problems
    assert any("typed numbers ['5', '17.25']" in p for p in problems), problems
    # registered as a quote of chapter 3's result, the fast check accepts it: the slow test compares the values
    fixture_registry = truth.load_toml(FIXTURES / "13_gear_band_old.toml")
    problems = quote_problems(nb, 13, fixture_registry, {3: truth.read(_notebook_of(3))})
    assert problems == [f"typed numbers ['5', '17.25'] in a quote (glue them): {_typed_summary(nb)}"], problems


def _typed_summary(nb) -> str:
    return next(s for s in truth.quote_sentences(nb, 13) if truth.plain_numbers(s.text)).where()


# --- mechanism 2: native rate (registry; the re-runs are in tests/test_seeds.py) -------------------------------------

NATIVE = truth.load_toml(TRUTH / "native.toml")
#: words of an extremum / never / at every instant / first-time claim
NATIVE_WORDS = re.compile(
    r"\b(never|always|at every instant|at every tick|every instant|every tick|at any time|at all times|throughout|"
    r"first time|first fails|turns? negative|unload\w*|lift-off|leaves? the ground|takes? off|keeps? at least|"
    r"stays? (?:below|above|within|inside))\b",
    re.I,
)


def native_sentences(nb, chapter: int) -> list[truth.Sentence]:
    return [s for s in truth.sentences(nb, chapter) if s.keys and NATIVE_WORDS.search(s.text)]


def native_problems(nb, chapter: int, registry: dict) -> list[str]:
    entries = [
        {**e, "kind": kind}
        for kind in ("native", "exempt", "todo")
        for e in registry.get(kind, [])
        if e["chapter"] == chapter
    ]
    unregistered, stale, ambiguous = truth.match_registry(native_sentences(nb, chapter), entries)
    problems = [f"unregistered extremum/never/first-time claim: {s.where()}" for s in unregistered]
    problems += [f"stale entry: {e['match']!r}" for e in stale] + ambiguous
    fmts = truth.printed_formats(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for e in entries:
        if e["kind"] != "native":
            continue
        if not re.search(r"\b(refine|fine_mode)\(", code):
            problems.append(f"{e['match']!r}: the chapter never reads ROBOKIN_FINE (robokin.nb.refine / fine_mode)")
        for key in e.get("keys", []):
            if key not in fmts:
                problems.append(f"{e['match']!r}: {key!r} is not printed by an {{eval}} role")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_native_rate_claims_are_registered(path):
    chapter = truth.chapter_of(path)
    problems = native_problems(truth.read(path), chapter, NATIVE)
    assert not problems, f"{path.name} (registry tests/truth/native.toml):\n  " + "\n  ".join(problems)


def test_native_todo_count_only_shrinks():
    _ratchet("native_todo", [f"ch{e['chapter']:02d}: {e['match']}" for e in NATIVE.get("todo", [])])


def test_native_registry_accepts_the_bumpless_fixture():
    """The ch 4 fixture honours ROBOKIN_FINE and prints its native keys (the slow test re-runs it)."""
    nb = truth.read(FIXTURES / "04_bumpless_old.ipynb")
    registry = truth.load_toml(FIXTURES / "04_bumpless_old.toml")
    assert native_problems(nb, 4, registry) == []
    # the same sentence in a chapter that never reads ROBOKIN_FINE is refused: a re-run would change nothing
    for cell in nb.cells:
        cell.source = cell.source.replace("refine(", "max(")
    assert any("never reads ROBOKIN_FINE" in p for p in native_problems(nb, 4, registry))


# --- mechanism 5: asserts that can fail ------------------------------------------------------------------------------


def dh_convention_mismatches(nb) -> list[str]:
    """Asserts comparing a modified-DH arm's ``a``/``alpha`` with another arm's, index for index.

    A modified table stores ``a_{i-1}, alpha_{i-1}`` in row i, a standard one ``a_i, alpha_i``: compared unshifted,
    the rows differ for any two tables (the ch 5 twist assert), so ``not array_equal`` cannot fail.
    """
    modified: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(_parse(cell.source)):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1:
                kw = {k.arg: k.value for k in node.value.keywords}
                conv = kw.get("convention")
                if (
                    isinstance(conv, ast.Constant)
                    and conv.value == "modified"
                    and isinstance(node.targets[0], ast.Name)
                ):
                    modified.add(node.targets[0].id)
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for node in ast.walk(_parse(cell.source)):
            if not isinstance(node, ast.Assert):
                continue
            for call in ast.walk(node.test):
                if not (isinstance(call, ast.Call) and ast.unparse(call.func) in truth._COMPARE_FUNCS):
                    continue
                owners = [_dh_row_owner(a) for a in call.args[:2]]
                if all(owners) and len(set(owners)) == 2 and sum(o in modified for o in owners) == 1:
                    out.append(f"cell {i}: {ast.unparse(call)} compares DH rows of two conventions unshifted")
    return out


def _dh_row_owner(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and node.attr in {"a", "alpha"} and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def _parse(source: str) -> ast.AST:
    text = "\n".join("" if re.match(r"\s*[%!]", ln) else ln for ln in source.splitlines())
    try:
        return ast.parse(text)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def assert_problems(nb) -> list[str]:
    out = [
        f"cell {i} line {line}: {src}: {why}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for line, src, why in truth.vacuous_asserts(cell.source)
    ]
    return out + dh_convention_mismatches(nb)


ASSERTS = truth.load_toml(TRUTH / "asserts.toml")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_asserts_can_fail(path):
    chapter = truth.chapter_of(path)
    known = [e["match"] for e in ASSERTS.get("todo", []) if e["chapter"] == chapter]
    problems = assert_problems(truth.read(path))
    new = [p for p in problems if not any(k in p for k in known)]
    assert not new, f"{path.name}: asserts no input can trip:\n  " + "\n  ".join(new)
    fixed = [k for k in known if not any(k in p for p in problems)]
    assert not fixed, f"fixed (delete from tests/truth/asserts.toml and lower asserts_todo): {fixed}"


def test_assert_todo_count_only_shrinks():
    _ratchet("asserts_todo", [f"ch{e['chapter']:02d}: {e['match']}" for e in ASSERTS.get("todo", [])])


def test_assert_lint_catches_the_old_ch5_twist_assert():
    """Issue 28: ch 5 asserted "its twists have other signs" as not array_equal(MDH.alpha, UR5.alpha)."""
    problems = assert_problems(truth.read(FIXTURES / "05_twist_assert_old.ipynb"))
    assert any("np.array_equal(MDH.alpha, UR5.alpha) compares DH rows of two conventions" in p for p in problems)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("assert True", "a constant"),
        ("assert ok or not ok", "'x or not x'"),
        ("assert 3 < 4", "two literals"),
        ("e = f(x)\nassert e <= e", "a quantity compared with itself"),
        ("e = f(x)\nb = float(e)\nassert np.allclose(e, b)", "a quantity compared with itself"),
        ("assert n > 0 and float(g(2)) == g(2)", "a quantity compared with itself"),
    ],
)
def test_vacuous_assert_patterns_are_caught(source, why):
    assert [w for _, _, w in truth.vacuous_asserts(source)] == [why]


@pytest.mark.parametrize("source", ["assert e < 1e-9", "e = f(x)\nassert e <= g(x)", "assert a < b", "assert x != x"])
def test_honest_asserts_pass_the_lint(source):
    # x != x is how NaN is tested: it can fail
    assert truth.vacuous_asserts(source) == []


# --- the sentence splitter the scans share ---------------------------------------------------------------------------


def test_sentences_skip_code_maths_and_headings():
    src = "## Title\n\nFirst one, e.g. here. Second $x. Y$ one.\n\n```{math}\na. B\n```\n- item because x\n"
    assert truth.split_sentences(src) == ["First one, e.g. here.", "Second $x. Y$ one.", "item because x"]


def test_truth_library_doctests():
    import doctest

    result = doctest.testmod(truth)
    assert result.failed == 0 and result.attempted > 5


def test_bound_check_catches_the_old_ch13_wheel_load():
    """Issue 28: "the wheels keep at least 90 N" printed 89.93 N (read from a 100 Hz log) rounded up."""
    nb = truth.read(FIXTURES / "13_wheel_unload_old.ipynb")
    old_run = {"ch13_jump_Nmin": 89.934014848993, "ch13_Nmin_red_cs": 26.69365486452915}  # the old chapter's glue
    assert truth.unsafe_bounds(nb, old_run) == [
        "'keeps at least' ch13_Nmin_red_cs:.0f prints 27 for 26.6937",  # the reduced model's bound, rounded up too
        "'keep at least' ch13_jump_Nmin:.0f prints 90 for 89.934",
    ]
