"""Test configuration: deterministic hypothesis runs.

The same commit gives the same examples (``derandomize=True``), so CI cannot fail by luck. To explore new
random examples locally, run with ``HYPOTHESIS_PROFILE=explore``.
"""

import os
import re

import pytest
from hypothesis import settings

settings.register_profile("robokin", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "robokin"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "seeds: runs chapters (other seeds, ROBOKIN_FINE, cross-chapter quotes); ROBOKIN_SEEDS=1 or -m seeds"
    )


def pytest_collection_modifyitems(config, items):
    """Skip the chapter-running truth tests (tests/test_seeds.py) unless asked for: they take minutes."""
    expr = config.getoption("markexpr", "") or ""
    if os.environ.get("ROBOKIN_SEEDS") == "1" or re.search(r"(?<!not )\bseeds\b", expr):
        return
    skip = pytest.mark.skip(reason="runs chapters: set ROBOKIN_SEEDS=1 or select -m seeds")
    for item in items:
        if item.get_closest_marker("seeds") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium for the browser tests (tests/test_site.py and tests/test_site_checker.py)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="install the [site] extra (make check-site does)")
    import sitecheck

    exe = sitecheck.chromium()
    if exe is None:
        pytest.fail("Chromium not found: `apt-get install chromium` (make check-site does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=sitecheck.CHROMIUM_ARGS)
        yield b
        b.close()
