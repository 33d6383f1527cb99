"""``python -m fisheye.checker.cli``: the same as the ``fisheye`` command."""

import sys

from .main import main

sys.exit(main())
