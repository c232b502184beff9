"""`python -m casebook.cli`: the `casebook` command."""
from . import run

run()
