"""Source scans and chapter runs behind the truth tests (issue 28's mechanisms; tests/test_truth.py, tests/test_seeds.py).

Scans (fast, no execution):
- :func:`sentences`: the English prose of a chapter split into sentences, ``{eval}`glued("key:fmt")``` roles kept;
- :func:`causal_sentences`: sentences that state a cause ("because", "comes from", "sets", ...);
- :func:`quote_sentences`: sentences that quote another chapter ("chapter 3's ...") and state a number;
- :func:`glue_sites`: which code cell glues which key (f-string keys as patterns);
- :func:`vacuous_asserts`: asserts that no input can trip (AST).

Runs (slow): :func:`run_chapter` executes a notebook with nbclient under chosen environment variables
(``ROBOKIN_SEED``, ``ROBOKIN_FINE``, ``ROBOKIN_FAST``) and returns what it glued (``ROBOKIN_GLUE_DUMP``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
TRUTH = ROOT / "tests" / "truth"

#: {eval}`glued("key:fmt")`: the key and the format the page prints it with
EVAL = re.compile(r'\{eval\}`glued\("(?P<key>[^":]+)(?::(?P<fmt>[^"]*))?"\)`')
GLUE_CALL = re.compile(r"\bglue\(\s*(?P<f>f?)(?P<q>[\"'])(?P<key>.+?)(?P=q)")

#: words that state a cause (issue 28, mechanism 4); "sets" only as a verb, before its object ("sets the limit")
CAUSAL = re.compile(
    r"\b(because|comes? from|came from|caused|causes|so that|sets(?= (?:the|a|an|its|their|both|each|every|how|what|which|[\w-]+'s)\b)|due to|is why|the cause|"
    r"leads? to|costs|reason (?:is|why|for))\b",
    re.I,
)
#: "chapter 3", "Chapter 3's", "chapters 5 and 11", "[Chapter 13](13_x.ipynb)"
CHAPTER_REF = re.compile(r"\b[Cc]hapters?\s+(?P<n>\d{1,2})(?P<more>(?:\s*(?:,|and|or|to)\s*\d{1,2}\b)*)")
_FENCE = re.compile(r"^(```+|~~~+|:::+)[^\n]*\n.*?^\1\s*$", re.S | re.M)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ABBREV = re.compile(r"\b(e\.g|i\.e|cf|vs|etc|Eq|Fig|approx)\.", re.I)
# a sentence ends at . ! ? followed by space and something that can start one (a capital, emphasis, maths, a role)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*_(\[`${\x01])")
_PLACEHOLDER = re.compile("\x01(\\d+)\x02")
_ROLE = re.compile(r"\{[a-z:\-]+\}`[^`]*`")
_PROTECT = re.compile(r"\{[a-z:\-]+\}`[^`]*`|`[^`]*`|\$[^$]*\$")
_INLINE_MATH = re.compile(r"\$[^$]*\$")
_INLINE_CODE = re.compile(r"`[^`]*`")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_GROUP_NAME = re.compile(r"\b(?:S[EO]\(\d\)|\d-link\b|\d-D\b)")  # SE(3), 2-link, 3-D: names, not numbers
_NUMBER = re.compile(r"(?<![\w.\\^{])\d+(?:[.,]\d+)*(?![\w])")


def chapter_of(path: Path | str) -> int:
    """The chapter number of ``notebooks/NN_name.ipynb`` (or of a fixture ``NN_*.ipynb``)."""
    return int(Path(path).name[:2])


def read(path: Path | str):
    return nbformat.read(str(path), as_version=4)


def normalize(text: str) -> str:
    """Whitespace collapsed, emphasis markers dropped: what registry substrings are matched against.

    >>> normalize("the **switch**\\n  sets both")
    'the switch sets both'
    """
    return " ".join(text.replace("**", "").replace("*", "").split())


@dataclass(frozen=True)
class Sentence:
    chapter: int
    cell: int
    text: str  # normalized, {eval} roles kept

    @property
    def keys(self) -> list[tuple[str, str]]:
        """(key, fmt) of every glued number the sentence prints."""
        return [(m["key"], m["fmt"] or "") for m in EVAL.finditer(self.text)]

    def where(self) -> str:
        return f"ch{self.chapter:02d} cell {self.cell}: {self.text[:160]!r}"


def _blocks(source: str) -> list[str]:
    """Paragraphs and list items of a Markdown cell, code fences, directives' bodies and display maths removed."""
    text = _COMMENT.sub(" ", source)
    text = _FENCE.sub("\n\n", text)
    text = _DISPLAY_MATH.sub(" ", text)
    blocks, cur = [], []
    for line in text.splitlines():
        s = line.strip()
        starts_item = bool(re.match(r"([-*+]|\d+\.)\s", s))
        if not s or s.startswith("#") or starts_item:
            if cur:
                blocks.append(" ".join(cur))
            cur = []
            if s.startswith("#"):
                continue
            if starts_item:
                s = re.sub(r"^([-*+]|\d+\.)\s+", "", s)
        if s:
            cur.append(s)
    if cur:
        blocks.append(" ".join(cur))
    return blocks


def split_sentences(source: str) -> list[str]:
    """Sentences of one Markdown cell (normalized).

    >>> split_sentences("The gap, e.g. 5 um, grows. **The trade:** a stiffer\\nloop costs steps.\\n\\n- item one")
    ['The gap, e.g. 5 um, grows.', 'The trade: a stiffer loop costs steps.', 'item one']
    """
    out = []
    for block in _blocks(source):
        kept = _PROTECT.findall(block)  # inline maths, code and roles are never split: held out as placeholders
        parts = iter(range(len(kept)))
        protected = _PROTECT.sub(lambda m: f"\x01{next(parts)}\x02", block)
        protected = _ABBREV.sub(lambda m: m.group(1) + "\0", protected)
        for s in _SENTENCE_END.split(protected):
            s = normalize(_PLACEHOLDER.sub(lambda m: kept[int(m.group(1))], s.replace("\0", ".")))
            if s:
                out.append(s)
    return out


def sentences(nb, chapter: int) -> list[Sentence]:
    return [
        Sentence(chapter, i, s)
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
        for s in split_sentences(cell.source)
    ]


def causal_sentences(nb, chapter: int) -> list[Sentence]:
    """Sentences that state a cause.

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("It fails. It fails because of x.")])
    >>> [s.text for s in causal_sentences(nb, 1)]
    ['It fails because of x.']
    """
    return [s for s in sentences(nb, chapter) if CAUSAL.search(_INLINE_CODE.sub(" ", s.text))]


def plain_numbers(text: str) -> list[str]:
    """Numbers typed into a sentence: not glued, not in maths, code, roles or chapter references.

    >>> plain_numbers('chapter 3\\'s 20 N load, {eval}`glued("k:.1f")` mm, $3mg/2$, {eq}`eq-ch3-x`, chapters 5 and 11')
    ['20']
    """
    t = EVAL.sub(" ", text)
    t = _ROLE.sub(" ", t)
    t = _INLINE_MATH.sub(" ", t)
    t = _INLINE_CODE.sub(" ", t)
    t = _LINK_TARGET.sub("]", t)
    t = CHAPTER_REF.sub(" ", t)
    t = _GROUP_NAME.sub(" ", t)
    return _NUMBER.findall(t)


def referenced_chapters(text: str) -> set[int]:
    found = set()
    for m in CHAPTER_REF.finditer(text):
        found.add(int(m["n"]))
        found.update(int(x) for x in re.findall(r"\d{1,2}", m["more"] or ""))
    return found


def quote_sentences(nb, chapter: int) -> list[Sentence]:
    """Sentences that name another chapter and state a number (glued or typed).

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
    ...     'Chapter 3 found {eval}`glued("k:g")`. In chapter 13 we see. Chapter 3 uses 16 kg.')])
    >>> [s.text[:14] for s in quote_sentences(nb, 13)]
    ['Chapter 3 foun', 'Chapter 3 uses']
    """
    out = []
    for s in sentences(nb, chapter):
        others = referenced_chapters(_INLINE_CODE.sub(" ", s.text)) - {chapter}
        if others and (s.keys or plain_numbers(s.text)):
            out.append(s)
    return out


@dataclass(frozen=True)
class GlueSite:
    cell: int
    key: str  # as written; f-string keys keep their {fields}
    pattern: re.Pattern
    source: str  # the code cell's source
    tags: tuple[str, ...] = field(default=())


def _key_pattern(key: str, fstring: bool) -> re.Pattern:
    if not fstring:
        return re.compile(re.escape(key) + r"\Z")
    return re.compile(".+".join(re.escape(p) for p in re.split(r"\{[^}]*\}", key)) + r"\Z")


def glue_sites(nb) -> list[GlueSite]:
    """Every ``glue("key", ...)`` call in the code cells."""
    out = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = tuple(cell.metadata.get("tags", ()))
        for m in GLUE_CALL.finditer(cell.source):
            out.append(GlueSite(i, m["key"], _key_pattern(m["key"], bool(m["f"])), cell.source, tags))
    return out


def glue_site(nb, key: str) -> GlueSite | None:
    return next((g for g in glue_sites(nb) if g.pattern.match(key)), None)


def printed_formats(nb) -> dict[str, set[str]]:
    """Every format each key is printed with in the Markdown."""
    fmts: dict[str, set[str]] = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for m in EVAL.finditer(cell.source):
                fmts.setdefault(m["key"], set()).add(m["fmt"] or "")
    return fmts


def printed(value, fmt: str) -> str:
    """``value`` as the page prints it (``format(value, fmt)``), or its repr when the format does not apply."""
    try:
        return format(value, fmt)
    except (TypeError, ValueError):
        return repr(value)


def load_toml(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


# --- registries -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    entry: dict
    sentence: Sentence | None


def match_registry(found: list[Sentence], entries: list[dict]) -> tuple[list[Sentence], list[dict], list[str]]:
    """Pair each sentence with the registry entry whose ``match`` substring it contains.

    Returns (unregistered sentences, stale entries (match nothing), ambiguities). Matching is on normalized text,
    case-insensitive, so re-wrapping or re-emphasising a sentence keeps its entry.
    """
    used = [0] * len(entries)
    unregistered, ambiguous = [], []
    needles = [normalize(e["match"]).lower() for e in entries]
    for s in found:
        hay = s.text.lower()
        hits = [k for k, n in enumerate(needles) if n and n in hay]
        if not hits:
            unregistered.append(s)
        elif len(hits) > 1 and len({needles[k] for k in hits}) > 1:
            ambiguous.append(f"{s.where()} matches several entries: {[entries[k]['match'] for k in hits]}")
        for k in hits:
            used[k] += 1
    stale = [e for e, n in zip(entries, used) if n == 0]
    return unregistered, stale, ambiguous


# --- asserts that cannot fail (mechanism 5) --------------------------------------------------------------------------


def _same(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _strip_calls(node: ast.AST) -> ast.AST:
    """``float(x)``, ``np.asarray(x)``, ``abs(x)`` ... -> ``x``: a wrapper does not make a second quantity."""
    while (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and ast.unparse(node.func) in {"float", "int", "np.asarray", "np.array", "np.float64", "abs", "np.abs"}
    ):
        node = node.args[0]
    return node


def _assigned(tree: ast.AST) -> dict[str, ast.AST]:
    """name -> the expression last assigned to it (simple ``name = expr`` statements)."""
    out: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
    return out


def _resolve(node: ast.AST, env: dict[str, ast.AST]) -> ast.AST:
    node = _strip_calls(node)
    seen = 0
    while isinstance(node, ast.Name) and node.id in env and seen < 5:
        node, seen = _strip_calls(env[node.id]), seen + 1
    return node


_COMPARE_FUNCS = {"np.allclose", "np.isclose", "np.array_equal", "np.testing.assert_allclose", "math.isclose"}


def _vacuous(test: ast.AST, env: dict[str, ast.AST]) -> str | None:
    """Why an assert's test cannot be False, or None."""
    if _literal(test):
        return "a constant"
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        vals = test.values
        for a in vals:
            for b in vals:
                if isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.Not) and _same(a, b.operand):
                    return "'x or not x'"
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if _literal(left) and _literal(right):
            return "two literals"
        if isinstance(test.ops[0], (ast.Eq, ast.LtE, ast.GtE, ast.Is)) and _same(
            _resolve(left, env), _resolve(right, env)
        ):
            return "a quantity compared with itself"
    if isinstance(test, ast.Call) and ast.unparse(test.func) in _COMPARE_FUNCS and len(test.args) >= 2:
        if _same(_resolve(test.args[0], env), _resolve(test.args[1], env)):
            return "a quantity compared with itself"
    return None


def vacuous_asserts(source: str) -> list[tuple[int, str, str]]:
    """(line, assert source, why) for each assert in ``source`` that no input can trip.

    Caught: ``assert True`` (any constant), ``assert x or not x``, a comparison of two literals, and ``a == b``,
    ``a <= b``, ``np.allclose(a, b)`` ... where ``a`` and ``b`` are the same expression, also through plain
    assignments (``b = a; assert np.allclose(a, b)``) and through wrappers such as ``float(...)``.

    >>> vacuous_asserts("x = f()\\ny = x\\nassert np.allclose(x, y)\\nassert 1 < 2\\nassert x < 3")
    [(3, 'assert np.allclose(x, y)', 'a quantity compared with itself'), (4, 'assert 1 < 2', 'two literals')]
    """
    text = "\n".join("" if re.match(r"\s*[%!]", ln) else ln for ln in source.splitlines())  # IPython magics
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    env = _assigned(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            terms = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else []
            why = _vacuous(node.test, env) or next((w for t in terms if (w := _vacuous(t, env))), None)
            if why:
                out.append((node.lineno, ast.unparse(node), why))
    return sorted(out)


# --- running a chapter -----------------------------------------------------------------------------------------------


@dataclass
class Run:
    path: Path
    env: dict[str, str]
    ok: bool
    error: str
    seconds: float
    glued: dict[str, object]  # key -> last value glued

    def summary(self) -> str:
        state = "pass" if self.ok else "FAIL"
        return f"{self.path.name} {self.env} {state} in {self.seconds:.0f} s" + (
            f": {self.error}" if self.error else ""
        )


def run_chapter(path: Path | str, *, env: dict[str, str] | None = None, timeout: int = 900, fast: bool = True) -> Run:
    """Execute a notebook with nbclient in a fresh kernel; return whether every cell ran and what it glued.

    ``env`` adds environment variables (``ROBOKIN_SEED``, ``ROBOKIN_FINE``); ``ROBOKIN_FAST=1`` (``fast``) and
    ``MPLBACKEND=Agg`` are set as in ``make notebooks``. The kernel runs in the notebook's folder.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    extra = {"MPLBACKEND": "Agg", **({"ROBOKIN_FAST": "1"} if fast else {}), **(env or {})}
    nb = read(path)
    with tempfile.TemporaryDirectory(prefix="robokin-truth-") as tmp:
        dump = Path(tmp) / "glue.jsonl"
        kernel_env = {**os.environ, **extra, "ROBOKIN_GLUE_DUMP": str(dump)}
        if not fast:
            kernel_env.pop("ROBOKIN_FAST", None)
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        )
        t0 = time.perf_counter()
        ok, error = True, ""
        try:
            client.execute(env=kernel_env)
        except CellExecutionError as exc:
            ok, error = False, _short_error(exc)
        except Exception as exc:  # noqa: BLE001 - a dead kernel or a timeout is a failed run, reported
            ok, error = False, f"{type(exc).__name__}: {exc}"[:400]
        seconds = time.perf_counter() - t0
        glued: dict[str, object] = {}
        if dump.exists():
            for line in dump.read_text(encoding="utf-8").splitlines():
                rec = json.loads(line)
                glued[rec["name"]] = rec["value"]
    return Run(path, extra, ok, error, seconds, glued)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _short_error(exc: Exception) -> str:
    lines = [ln for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    tail = [ln for ln in lines if re.match(r"^\w*(Error|Exception|Failed)\b", ln)]
    where = [ln.strip() for ln in lines if re.match(r"\s*-{2,}> ", ln)]  # the failing line of the cell
    text = tail[-1] if tail else lines[-1] if lines else type(exc).__name__
    return (text + (f" at {where[-1]}" if where else ""))[:400]


def claim_changes(nb, base: dict[str, object], other: dict[str, object]) -> list[str]:
    """Printed glued numbers (at every format the Markdown prints them with) that differ between two runs."""
    out = []
    for key, fmts in sorted(printed_formats(nb).items()):
        if key not in base and key not in other:
            continue
        for fmt in sorted(fmts):
            a = printed(base[key], fmt) if key in base else "<not glued>"
            b = printed(other[key], fmt) if key in other else "<not glued>"
            if a != b:
                out.append(f"{key}:{fmt} {a} -> {b}")
    return out


# --- bounds rounded on the safe side ---------------------------------------------------------------------------------

_LOWER = r"at least|no less than|never less than|stays? above|keeps? at least"
_UPPER = r"at most|no more than|never more than|stays? below"
_BOUND = re.compile(rf"\b(?P<word>{_LOWER}|{_UPPER})\s+(?:\$[^$]*\$\s*)?" + EVAL.pattern, re.I)


def _as_number(text: str) -> float | None:
    t = text.strip().replace(",", "")
    scale = 0.01 if t.endswith("%") else 1.0
    try:
        return float(t.rstrip("%")) * scale
    except ValueError:
        return None


def unsafe_bounds(nb, glued: dict[str, object]) -> list[str]:
    """Bounds in prose ("at least X", "at most X", "stays below X") whose printed X is on the wrong side of the value.

    CONTRIBUTING: a bound is rounded on the safe side before it is glued; "keeps at least 90 N" for 89.93 N is false.

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
    ...     'the wheels keep at least {eval}`glued("n:.0f")` N; at most {eval}`glued("e:.1e")` m')])
    >>> unsafe_bounds(nb, {"n": 89.93, "e": 1.17e-9})
    ["'keep at least' n:.0f prints 90 for 89.93"]
    >>> unsafe_bounds(nb, {"n": 89.0, "e": 1.3e-9})
    []
    """
    out = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = " ".join(cell.source.split())
        for m in _BOUND.finditer(text):
            key, fmt = m["key"], m["fmt"] or ""
            value = glued.get(key)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            shown = _as_number(printed(value, fmt))
            if shown is None:
                continue
            lower = re.fullmatch(_LOWER, m["word"], re.I) is not None
            slack = 1e-12 * max(abs(value), 1e-300)  # "95%" is 0.9500000000000001: not a wrong side
            if (lower and shown > value + slack) or (not lower and shown < value - slack):
                out.append(f"{m['word']!r} {key}:{fmt} prints {printed(value, fmt)} for {value:.6g}")
    return out
