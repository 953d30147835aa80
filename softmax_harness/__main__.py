"""``python -m softmax_harness``: the command line (see :mod:`softmax_harness.cli`)."""

import sys

from .cli import main

sys.exit(main())
