"""Match exports: the engine writes them now (:mod:`engines.exports`, with
:func:`~engines.exports.export_match` choosing by the game's spec). Re-exported here for the bot
code that still imports them from this module; the bot restructure switches to the engine
module and removes this one.
"""

from __future__ import annotations

from engines.exports import _concession_points, _plain_play, export_match, mat_export, pdn_export

__all__ = ["_concession_points", "_plain_play", "export_match", "mat_export", "pdn_export"]
