"""The service room: transport-agnostic, the only code that changes match state. It imports no
discord and no database driver, and returns structured results: what happened and to whom
(:mod:`bot.service.events`), or why it refused (:class:`Refused`, with a :class:`Refusal` code).
It writes no sentences: the adapter's ``bot.discord.wording`` does.

Match actions go through one entry point, ``MatchService.act(command)``, with one frozen
command per action (:mod:`bot.service.commands`)."""

from bot.service.commands import (
    AcceptDraw,
    AcceptResignation,
    ClaimWin,
    DeclineDraw,
    DeclineResignation,
    LeaveMatch,
    MatchCommand,
    OfferDouble,
    OfferDraw,
    OfferResignation,
    PassDouble,
    PlayMove,
    RollDice,
    TakeDouble,
)
from bot.service.errors import (
    NotFoundError,
    NotYourTurn,
    NotYourTurnError,
    Refusal,
    Refused,
    StaleActionError,
    WrongPhase,
)
from bot.service.events import MatchEvent
from bot.service.handlers import COMMAND_HANDLERS
from bot.service.model import (
    Challenge,
    ChallengeStatus,
    DiceFactory,
    ExportFile,
    HintKind,
    HintRequest,
    HistoryEntry,
    IdleMatch,
    LastMove,
    LeaderboardRow,
    MatchAwareDice,
    MatchDice,
    MatchStatus,
    MatchUpdate,
    MatchView,
    Player,
    RatingChange,
    RobotRecord,
    RobotTurn,
    StatLine,
    VerifyReport,
)
from bot.service.service import MatchService
from bot.service.settings import GuildSettings

__all__ = [
    "COMMAND_HANDLERS",
    "AcceptDraw",
    "AcceptResignation",
    "Challenge",
    "ChallengeStatus",
    "ClaimWin",
    "DeclineDraw",
    "DeclineResignation",
    "DiceFactory",
    "ExportFile",
    "GuildSettings",
    "HintKind",
    "HintRequest",
    "HistoryEntry",
    "IdleMatch",
    "LastMove",
    "LeaderboardRow",
    "LeaveMatch",
    "MatchAwareDice",
    "MatchCommand",
    "MatchDice",
    "MatchEvent",
    "MatchService",
    "MatchStatus",
    "MatchUpdate",
    "MatchView",
    "NotFoundError",
    "NotYourTurn",
    "NotYourTurnError",
    "OfferDouble",
    "OfferDraw",
    "OfferResignation",
    "PassDouble",
    "PlayMove",
    "Player",
    "RatingChange",
    "Refusal",
    "Refused",
    "RobotRecord",
    "RobotTurn",
    "RollDice",
    "StaleActionError",
    "StatLine",
    "TakeDouble",
    "VerifyReport",
    "WrongPhase",
]
