"""``python3 -m tools <command>``: enter the project's virtual environment, then run the CLI."""

import sys

from tools import bootstrap

if not bootstrap.inside_venv():
    bootstrap.reexec_in_venv(sys.argv[1:])

from tools.cli import exit_with, main

exit_with(main(sys.argv[1:]))
