"""``python -m rdskit.frames > docs/columns.md``: print the column catalogue as markdown."""

import sys

from rdskit.frames.columns import render_markdown

sys.stdout.write(render_markdown())
