"""Test configuration: deterministic hypothesis runs.

The same commit gives the same examples (``derandomize=True``), so CI cannot fail by luck. To explore new
random examples locally, run with ``HYPOTHESIS_PROFILE=explore``.
"""

import os

from hypothesis import settings

settings.register_profile("robokin", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None, max_examples=500, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "robokin"))
