"""`python -m etmcu export ...` is the same as `python -m etmcu.cli export ...`."""

import sys

from .cli import main

sys.exit(main())
