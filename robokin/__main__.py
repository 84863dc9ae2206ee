"""``python -m robokin`` prints the validation report (same as ``python -m robokin.report``)."""

import sys

from .report import main

sys.exit(main())
