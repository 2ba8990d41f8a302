"""What the service shows of a match: the :class:`MatchView` and the turn's legal moves, ordered
with hits first and formatted as they are read."""

from __future__ import annotations

from bot.service.model import LastMove, MatchStatus, MatchView
from bot.service.state import LiveMatch
from engines.base import Phase
from engines.gnubg import match_id_of
from engines.legal_moves import MoveNotation
from engines.match import NO_MOVE, DiceMatch


def legal(live: LiveMatch) -> MoveNotation:
    """The legal moves' notation now, hitting moves first, written as it is read (a doubles
    roll has hundreds; the menu reads 25); computed once per state."""
    match = live.match
    applied = len(match.actions)  # apply() is the only way the service changes a match
    cached = live.legal
    if cached is not None and cached[0] == applied:
        return cached[1]
    texts = match.legal_moves().sorted(key=lambda m: -m.hits).notation
    live.legal = (applied, texts)
    return texts


def must_pass(live: LiveMatch) -> bool:
    """The roll just made can't be played and waits for its player (auto_pass off)."""
    match = live.match
    if match.rules.auto_pass or match.phase is not Phase.MOVE:
        return False
    texts = legal(live)
    return len(texts) == 1 and texts[0] == NO_MOVE


def colours(live: LiveMatch) -> tuple[str, str]:
    """Each seat's colour in the current game."""
    return live.match.colours()


def build_view(live: LiveMatch) -> MatchView:
    """Everything a client needs to show the match now."""
    record, match = live.record, live.match
    kind, spec = record.game, match.spec
    over = record.status is MatchStatus.FINISHED
    cube = match.cube
    phase = match.phase
    position = match.position
    pips: tuple[int, int] | None = None
    if spec.pip_count:
        mine, theirs = position.pips()
        pips = (mine, theirs) if match.turn == 0 else (theirs, mine)
    gnubg_id: str | None = None
    if spec.gnubg_match_id and isinstance(match, DiceMatch):
        try:
            gnubg_id = match_id_of(match)
        except ValueError:  # a score past gnubg's 15 bits (a runaway cube): no Match ID
            gnubg_id = None
    last = match.last_move
    last_move = None if last is None else LastMove(last[0], match.format_move(last[1]), last[1])
    can_double = (match.can_double(0), match.can_double(1))
    return MatchView(
        match_id=record.id,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        thread_id=record.thread_id,
        board_message_id=record.board_message_id,
        kind=kind,
        rules=record.rules,
        status=record.status,
        version=record.version,
        players=record.players,
        colours=colours(live),
        phase=phase,
        turn=match.turn,
        actor=match.actor,
        score=match.score,
        game_number=match.game_number,
        crawford=match.crawford_game,
        cube_value=1 if cube is None else cube.value,
        cube_owner=None if cube is None else cube.owner,
        cube_offered_by=match.cube_offered_by,
        can_double=can_double,
        resign_offer=match.resign_offer,
        draw_offered_by=match.draw_offered_by,
        dice=match.dice,
        opening_dice=match.opening_dice,
        position_id=match.position_id,
        gnubg_match_id=gnubg_id,
        position=position,
        pips=pips,
        legal_moves=legal(live),
        last_move=last_move,
        games=tuple(match.games),
        winner_seat=record.winner_seat if over else None,
        dice_commitment=record.commitment,
        dice_seed=record.seed.hex() if over else None,
        created_at=record.created_at,
        last_action_at=record.last_action_at,
        robot_seat=record.robot_seat,
        robot_level=record.robot_level,
    )
