"""Discord's limits on slash command options, shared by every cog."""

from __future__ import annotations

from discord import app_commands

# An integer option's value, min_value and max_value lie within +-(2**53 - 1) (Discord's
# published schema); a command declaring more is refused, and the whole sync with it.
MAX_INTEGER_OPTION = 2**53 - 1

# A stored row's id (a match, a tournament): ids beyond Discord's integers can't exist anyway.
RowId = app_commands.Range[int, 1, MAX_INTEGER_OPTION]
