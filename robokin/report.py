"""Validation report: run every mechanism's headline checks and print one table.

Usage::

    python -m robokin.report            # plain-text table; exit status 1 if any check fails
    python -m robokin.report --markdown # the same table in Markdown
    python -m robokin.report --fast     # smaller samples

The checks live in :mod:`robokin.validation`, one module per mechanism (listed in book order in
``MODULES``), each with a ``LABEL`` and ``validate(*, rng=None, fast=False)`` returning a list of
:class:`robokin.checks.CheckReport`.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from . import validation as _validation

__all__ = ["MODULES", "collect", "format_table", "main"]

MODULES = _validation.MODULES


def collect(*, fast: bool = False, seed: int = 0, only: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Run every validation module's ``validate``.

    Parameters
    ----------
    fast : bool
        Smaller samples.
    seed : int
        Seed of the generator handed to each ``validate``.
    only : iterable of str, optional
        Module names to run (default: all of ``MODULES``).

    Returns
    -------
    list of dict
        One per check, with keys mechanism, check, samples, max_error, tol, unit, passed, seconds.

    Examples
    --------
    >>> rows = collect(fast=True, only=["transforms"])
    >>> rows[0]["mechanism"]
    'Spatial foundations'
    """
    if only is not None:
        unknown = sorted(set(only) - set(MODULES))
        if unknown:
            raise ValueError(f"no validation module named {unknown}; known: {', '.join(MODULES)}")
    rows = []
    for name in MODULES:
        if only is not None and name not in only:
            continue
        mod = importlib.import_module(f"robokin.validation.{name}")
        label = mod.LABEL
        t0 = time.perf_counter()
        try:
            reports = mod.validate(rng=np.random.default_rng(seed), fast=fast)
        except Exception as exc:  # a crashing validation is a failed check, not a crashed report
            rows.append(
                {
                    "mechanism": label,
                    "check": f"validate() raised {type(exc).__name__}: {exc}",
                    "samples": 0,
                    "max_error": float("inf"),
                    "tol": 0.0,
                    "unit": "",
                    "passed": False,
                    "seconds": time.perf_counter() - t0,
                }
            )
            continue
        dt = time.perf_counter() - t0
        for rep in reports:
            row = rep.as_row()
            row["mechanism"] = label
            row["seconds"] = dt / max(len(reports), 1)
            rows.append(row)
    return rows


def format_table(rows: Iterable[dict[str, Any]], *, markdown: bool = False) -> str:
    """Format report rows as a plain-text or Markdown table.

    Examples
    --------
    >>> print(format_table([{"mechanism": "m", "check": "c", "samples": 3, "max_error": 1e-16,
    ...                      "tol": 1e-12, "unit": "m", "passed": True}], markdown=True))
    | mechanism | check | samples | max error | tolerance | pass |
    | --- | --- | ---: | ---: | ---: | :---: |
    | m | c | 3 | 1.0e-16 m | 1e-12 m | yes |

    A ``|`` inside a check name is escaped, so each row keeps one cell per column:

    >>> row = format_table([{"mechanism": "m", "check": "|fk(q) - t|", "samples": 1, "max_error": 0.0,
    ...                      "tol": 1.0, "unit": "", "passed": True}], markdown=True).splitlines()[2]
    >>> print(row)
    | m | \\|fk(q) - t\\| | 1 | 0.0e+00 | 1e+00 | yes |
    >>> "A.mass_matrix" in format_table([{"mechanism": "m", "check": "A.mass_matrix", "samples": 1, "max_error": 0.0,
    ...                                   "tol": 1.0, "unit": "", "passed": True}], markdown=True)
    False
    """
    head = ["mechanism", "check", "samples", "max error", "tolerance", "pass"]
    body = []
    for r in rows:
        unit = f" {r['unit']}" if r.get("unit") else ""
        body.append(
            [
                r["mechanism"],
                r["check"],
                str(r["samples"]),
                f"{r['max_error']:.1e}{unit}",
                f"{r['tol']:.0e}{unit}",
                "yes" if r["passed"] else "NO",
            ]
        )
    if markdown:
        # a zero-width space after "." and "_" lets long identifiers (SerialDynamics.inverse_dynamics) wrap in a
        # narrow page column instead of widening the table; the plain-text table keeps the names intact
        for b in body:
            b[1] = re.sub(r"(?<=\w)([._])(?=\w)", "\\1\u200b", b[1])
            b[:] = [c.replace("|", "\\|") for c in b]  # a bare | would end the cell and shift the row
        lines = ["| " + " | ".join(head) + " |", "| --- | --- | ---: | ---: | ---: | :---: |"]
        lines += ["| " + " | ".join(b) + " |" for b in body]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*head), fmt.format(*["-" * w for w in widths])] + [fmt.format(*b) for b in body])


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (0 when every check passes)."""
    parser = argparse.ArgumentParser(prog="python -m robokin.report", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--fast", action="store_true", help="smaller samples")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = collect(fast=args.fast, seed=args.seed)
    print(format_table(rows, markdown=args.markdown))
    failed = [r for r in rows if not r["passed"]]
    print(f"\n{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
