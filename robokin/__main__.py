"""``python -m robokin``: the validation report without arguments (same as ``python -m robokin.report``);
``report`` and ``verify`` subcommands for a reader's own design (``robokin.cli``)."""

import sys

from .cli import main

sys.exit(main())
