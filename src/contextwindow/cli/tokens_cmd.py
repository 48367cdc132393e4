"""(placeholder: commands of this family are added by their issue)."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
