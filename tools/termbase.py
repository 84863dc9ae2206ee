"""The Chinese edition's term base: one Chinese term per concept, checked and fixed in the catalogues.

The concepts, their variants and their rewrites are in ``locales/zh_CN/termbase.yml``; each names a row of
``book/glossary.md`` (the bilingual source), whose Chinese must contain the concept's term. A message whose English
prose (maths, code and roles left out) matches a concept must not use one of its variants in its Chinese prose.

    python tools/termbase.py            # list every variant in use (exit 1 if any)
    python tools/termbase.py --fix      # rewrite those msgstrs (and the known corrections), printing each change
    python tools/termbase.py --fix locales/zh_CN/LC_MESSAGES/notebooks/06_arm_inverse_kinematics.po

``--fix`` changes only msgstr text, only in prose (never maths, inline code or roles), and is deterministic: run
twice, the second run changes nothing. Entries it does not touch keep their bytes.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import i18n  # noqa: E402

TERMBASE = i18n.LOCALES / i18n.LANG / "termbase.yml"
WIDTH = 120  # the catalogues' line width (tools/i18n.py update: sphinx-intl -w 120)

# spans a rewrite must never touch: display and inline maths, roles, inline code, URLs
_PROTECTED = re.compile(r"\$\$.*?\$\$|(?<![\\$])\$[^$]+\$|\{[\w:.-]+\}`[^`]*`|`[^`]+`|https?://\S+", re.S)


@dataclass(frozen=True)
class Concept:
    glossary: str
    english: re.Pattern
    zh: str
    variants: tuple
    fix: tuple
    exceptions: tuple = ()  # msgids (substrings) where a variant is the right word, e.g. a wheel *layout* 构型

    def applies(self, msgid):
        return bool(self.english.search(prose(msgid))) and not any(e in msgid for e in self.exceptions)


@dataclass(frozen=True)
class Use:
    """A variant found in a catalogue."""

    po: Path
    concept: str
    variant: str
    msgid: str

    def __str__(self):
        head = self.msgid if len(self.msgid) <= 80 else self.msgid[:77] + "..."
        return f"{_rel(self.po)}: {self.variant!r} for {self.concept!r} in {head!r}"


def _rel(path):
    path = Path(path).resolve()
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def load(path=TERMBASE, glossary=i18n.GLOSSARY):
    """(concepts, corrections) of the term base; raises if a concept's term is not its glossary row's Chinese."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    rows = i18n.glossary_terms(glossary)
    concepts, bad = [], []
    for c in data["concepts"]:
        if c["zh"] not in rows.get(c["glossary"], ""):
            bad.append(f"{c['glossary']!r}: {c['zh']!r} (glossary: {rows.get(c['glossary'])!r})")
        concepts.append(
            Concept(
                c["glossary"],
                re.compile(c["english"], re.I),
                c["zh"],
                tuple(re.compile(v) for v in c["variants"]),
                tuple((re.compile(a), b) for a, b in c.get("fix", ())),
                tuple(c.get("except", ())),
            )
        )
    if bad:
        raise ValueError("term base concepts not in book/glossary.md as written there: " + "; ".join(bad))
    return concepts, list(data.get("corrections", ()))


def prose(text):
    """``text`` without maths, roles, inline code and URLs (each replaced by a space)."""
    return _PROTECTED.sub(" ", text)


def _in_prose(text, pattern, repl):
    """``pattern.sub(repl)`` applied to the prose of ``text`` only (protected spans kept byte for byte)."""
    out, last = [], 0
    for m in _PROTECTED.finditer(text):
        out += [pattern.sub(repl, text[last : m.start()]), m.group(0)]
        last = m.end()
    out.append(pattern.sub(repl, text[last:]))
    return "".join(out)


def uses(msgid, msgstr, concepts):
    """(concept, variant) pairs of the variants that ``msgstr`` uses for concepts its English names."""
    chinese = prose(msgstr)
    return [
        (c.glossary, m.group(0))
        for c in concepts
        if c.applies(msgid)
        for v in c.variants
        for m in [v.search(chinese)]
        if m
    ]


def fixed(msgid, msgstr, concepts, corrections=()):
    """``msgstr`` with the concepts' rewrites (where its English names them) and the corrections applied."""
    new = msgstr
    for corr in corrections:
        if corr["where"] in msgid:
            new = new.replace(corr["old"], corr["new"])
    for c in concepts:
        if c.applies(msgid) and any(v.search(prose(new)) for v in c.variants):
            for pattern, repl in c.fix:
                new = _in_prose(new, pattern, repl)
    return bold_fixed(new) if "**" in new and "**" in msgid else new


_SENTENCE_PUNCT = "：，。；！？、"


def bold_fixed(msgstr):
    """``**预备知识：**后文`` -> ``**预备知识**：后文``: CommonMark does not close a ``**`` that follows punctuation
    and precedes a letter, so the reader saw the asterisks. Only when the result renders (else unchanged)."""
    if not i18n.literal_markers(msgstr):
        return msgstr
    parts = msgstr.split("**")
    for i in range(1, len(parts) - 1, 2):  # the bold spans, paired in order
        if parts[i] and parts[i][-1] in _SENTENCE_PUNCT:
            parts[i], parts[i + 1] = parts[i][:-1], parts[i][-1] + parts[i + 1]
    new = "**".join(parts)
    return new if not i18n.literal_markers(new) else msgstr


def catalogues(paths=None):
    if paths:
        return [Path(p).resolve() for p in paths]
    return sorted(i18n.PO_DIR.rglob("*.po"))


def find(paths=None, *, termbase=TERMBASE, glossary=i18n.GLOSSARY):
    """Every variant in use in the catalogues (the glossary page itself lists terms on purpose: left out), and every
    ``**`` that a translation leaves unparsed."""
    concepts, _ = load(termbase, glossary)
    out = []
    for po in catalogues(paths):
        if po.resolve() == (i18n.PO_DIR / "book" / "glossary.po").resolve():
            continue
        for mid, mstr, _ in i18n.read_catalog(po):
            out += [Use(po, concept, variant, mid) for concept, variant in uses(mid, mstr, concepts)]
            if "**" in mstr and i18n.literal_markers(mstr) and not i18n.literal_markers(mid):
                out.append(Use(po, "bold markers shown as text", i18n.literal_markers(mstr)[0], mid))
    return out


# ---------------------------------------------------------------- rewriting .po files in place


def _unquote(lines):
    from babel.messages.pofile import unescape

    return "".join(unescape(line.strip()) for line in lines)


def _entries(text):
    """(start, end, msgid, msgstr_start) of each entry's msgstr block in a .po text."""
    lines = text.split("\n")
    i, offsets, pos = 0, [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    while i < len(lines):
        if lines[i].startswith("msgid "):
            j = i + 1
            while j < len(lines) and lines[j].startswith('"'):
                j += 1
            msgid = _unquote([lines[i][len("msgid ") :]] + lines[i + 1 : j])
            if j < len(lines) and lines[j].startswith("msgstr "):
                k = j + 1
                while k < len(lines) and lines[k].startswith('"'):
                    k += 1
                msgstr = _unquote([lines[j][len("msgstr ") :]] + lines[j + 1 : k])
                yield offsets[j], offsets[k - 1] + len(lines[k - 1]), msgid, msgstr
                i = k
                continue
        i += 1


def fix_file(po, concepts, corrections):
    """Rewrite the msgstrs of one .po file in place; returns [(msgid, old, new)] of the changed messages."""
    from babel.messages.pofile import normalize

    text = Path(po).read_text(encoding="utf-8")
    changes, pieces, last = [], [], 0
    for start, end, msgid, msgstr in _entries(text):
        if not msgid:
            continue  # the header
        new = fixed(msgid, msgstr, concepts, corrections)
        if new != msgstr:
            changes.append((msgid, msgstr, new))
            pieces += [text[last:start], "msgstr " + normalize(new, prefix="", width=WIDTH)]
            last = end
    if changes:
        pieces.append(text[last:])
        Path(po).write_text("".join(pieces), encoding="utf-8")
    return changes


def _show(old, new):
    """The changed stretch of a message, with a little context."""
    i = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    j = 0
    while j < min(len(old), len(new)) - i and old[len(old) - 1 - j] == new[len(new) - 1 - j]:
        j += 1
    a, b = max(0, i - 12), 12
    return f"...{old[a : len(old) - j + b]}... -> ...{new[a : len(new) - j + b]}..."


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fix", action="store_true", help="rewrite the variants (only msgstr), printing each change")
    parser.add_argument("po", nargs="*", help="catalogues (default: every .po of locales/zh_CN)")
    args = parser.parse_args(argv)
    if args.fix:
        concepts, corrections = load()
        total = 0
        for po in catalogues(args.po):
            if po.resolve() == (i18n.PO_DIR / "book" / "glossary.po").resolve():
                continue
            for msgid, old, new in fix_file(po, concepts, corrections):
                total += 1
                print(f"{_rel(po)}: {msgid[:60]!r}\n    {_show(old, new)}")
        print(f"{total} message(s) changed")
    found = find(args.po)
    for use in found:
        print(use, file=sys.stderr)
    print(f"{len(found)} variant(s) of glossary terms in use" + (": see above" if found else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
