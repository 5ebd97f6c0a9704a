"""``python3 -m practice ...`` in the downloaded workspace (``python3 -m tools.practice`` here)."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
