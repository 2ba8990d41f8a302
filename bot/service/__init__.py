"""The service room: transport-agnostic, the only code that changes match state. It imports no
discord and no database driver, and returns structured results: what happened and to whom
(:mod:`bot.service.events`), or why it refused (:class:`Refused`, with a :class:`Refusal` code).
It writes no sentences: the adapter's ``bot.discord.wording`` does.

Every operation goes through one entry point, ``MatchService.handle(command)``, with one frozen
command per operation (:mod:`bot.service.commands`) and one table of handlers
(:data:`bot.service.service.HANDLERS`); what happened is published on the service's event bus
(:mod:`bot.service.bus`) after the commit."""

from bot.service import commands, tournament_model
from bot.service.analysis import (
    AnalysisQueue,
    AnalysisRunner,
    GetAnalysis,
    RequestAnalysis,
    SetAnalysisMessage,
    ViewsAfterActions,
)
from bot.service.bus import EventBus
from bot.service.commands import *  # noqa: F403
from bot.service.errors import (
    NotFoundError,
    NotYourTurn,
    NotYourTurnError,
    Refusal,
    Refused,
    StaleActionError,
    WrongPhase,
)
from bot.service.events import (
    MatchEvent,
    MatchUpdated,
    RobotStuck,
    RobotTurnWaiting,
    waits_for_robot,
)
from bot.service.model import (
    AnalysisStatus,
    AnalysisView,
    BoardPlace,
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
from bot.service.service import HANDLERS, MatchService
from bot.service.settings import GuildSettings
from bot.service.tournament_model import *  # noqa: F403

__all__ = [
    "HANDLERS",
    "AnalysisQueue",
    "AnalysisRunner",
    "AnalysisStatus",
    "AnalysisView",
    "BoardPlace",
    "Challenge",
    "ChallengeStatus",
    "DiceFactory",
    "EventBus",
    "ExportFile",
    "GetAnalysis",
    "GuildSettings",
    "HintKind",
    "HintRequest",
    "HistoryEntry",
    "IdleMatch",
    "LastMove",
    "LeaderboardRow",
    "MatchAwareDice",
    "MatchDice",
    "MatchEvent",
    "MatchService",
    "MatchStatus",
    "MatchUpdate",
    "MatchUpdated",
    "MatchView",
    "NotFoundError",
    "NotYourTurn",
    "NotYourTurnError",
    "Player",
    "RatingChange",
    "Refusal",
    "Refused",
    "RequestAnalysis",
    "RobotRecord",
    "RobotStuck",
    "RobotTurn",
    "RobotTurnWaiting",
    "SetAnalysisMessage",
    "StaleActionError",
    "StatLine",
    "VerifyReport",
    "ViewsAfterActions",
    "WrongPhase",
    "waits_for_robot",
]
__all__ += commands.__all__  # every command, named once: in its module
__all__ += tournament_model.__all__
