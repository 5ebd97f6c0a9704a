"""``python3 -m practice ...`` in the download; ``-m snippets.practice`` in the course."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
