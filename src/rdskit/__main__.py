"""``python -m rdskit``: the ``rdskit`` command line."""

import sys

from rdskit.cli import main

sys.exit(main())
