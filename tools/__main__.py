"""``python3 -m tools <command>`` from the checkout: enter the project's virtual environment, then
run the CLI there as the installed package (``python -m mkdocs_course <command>``, which runs this
module again under that name and goes straight to the CLI)."""

import sys

from . import bootstrap

if __package__ != bootstrap.PACKAGE:
    bootstrap.reexec_in_venv(sys.argv[1:])

from .cli import exit_with, main

exit_with(main(sys.argv[1:]))
