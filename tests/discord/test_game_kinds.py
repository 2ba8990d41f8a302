"""Per-game behaviour outside engines/ and render/ asks the game's traits (engines.spec) instead
of switching on GameKind: few places in bot/ may name a specific game (``GameKind.NANNON``).
In bot/discord the one such place is the style table (embed colour, /rules text)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from bot.discord import invitations, presenter, wording
from bot.discord.catalogue import text
from bot.discord.cogs import info
from bot.discord.style import STYLES, style_of
from bot.service import events as ev
from bot.service.errors import Refusal, refused
from bot.service.model import Challenge, ChallengeStatus, MatchStatus, MatchView, Player, StatLine
from engines.base import GameKind, GameResult, Phase, ResignLevel, ResultKind
from engines.spec import SPECS, spec_of
from engines.values import MatchRules

ROOT = Path(__file__).resolve().parents[2]
MEMBERS = frozenset(GameKind.__members__)


def _names_game_kind(node: ast.expr) -> bool:
    """``GameKind`` or ``something.GameKind``."""
    if isinstance(node, ast.Name):
        return node.id == "GameKind"
    return isinstance(node, ast.Attribute) and node.attr == "GameKind"


def member_lines(tree: ast.AST) -> list[int]:
    """The lines of every ``GameKind.<member>`` attribute access in ``tree``."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in MEMBERS and _names_game_kind(node.value)
    )


def member_references(folder: str) -> list[str]:
    """Every ``GameKind.<member>`` in the Python files under ``folder``, as "path:line"."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in member_lines(tree)]
    return found


def test_the_counter_sees_member_references() -> None:
    code = (
        "from engines import base\n"
        "x = GameKind.NANNON\n"
        "y = base.GameKind.CHECKERS\n"
        "z = GameKind('nannon'), GameKind.__members__, kind.NANNON\n"
    )
    assert member_lines(ast.parse(code)) == [2, 3]


def test_bot_discord_names_the_games_only_in_its_style_table() -> None:
    found = member_references("bot/discord")
    assert len(found) <= 3, found
    assert all(ref.startswith("bot/discord/style.py:") for ref in found), found


def test_bot_names_specific_games_at_most_five_times() -> None:
    found = member_references("bot")
    assert len(found) <= 5, found


def test_every_game_has_a_style_and_a_spec() -> None:
    assert set(STYLES) == set(GameKind) == set(SPECS)
    assert len({style.colour.value for style in STYLES.values()}) == len(STYLES)
    for kind in GameKind:
        assert style_of(kind.value) is STYLES[kind]
        assert text(style_of(kind).rules).startswith("**")


# --- the words the traits choose, pinned per game -------------------------------------------

PLAYERS = (Player(1, "alice"), Player(2, "bob"))


def view(kind: GameKind, **changes: Any) -> MatchView:
    """A view of a match in progress, enough for the presenter's text."""
    dice = kind is not GameKind.CHECKERS
    fields: dict[str, Any] = dict(
        match_id=5, guild_id=1, channel_id=2, thread_id=None, board_message_id=None,
        kind=kind, rules=MatchRules(1), status=MatchStatus.ACTIVE, version=3, players=PLAYERS,
        colours=("black", "white") if not dice else ("white", "black"), phase=Phase.ROLL,
        turn=0, actor=0, score=(0, 0), game_number=1, crawford=False, cube_value=1,
        cube_owner=None, cube_offered_by=None, can_double=(False, False), resign_offer=None,
        draw_offered_by=None, dice=None, opening_dice=None, position_id="ID",
        gnubg_match_id=None, position=None, pips=None, legal_moves=(), last_move=None,
        games=(), winner_seat=None, dice_commitment=None, dice_seed=None, created_at=0.0,
        last_action_at=0.0,
    )  # fmt: skip
    fields.update(changes)
    return MatchView(**fields)


def test_the_cube_and_its_unturned_face() -> None:
    assert presenter.cube_text(view(GameKind.NANNON)) == "64, centred"
    assert presenter.cube_text(view(GameKind.NANNON, cube_value=2)) == "2, centred"
    assert presenter.cube_text(view(GameKind.BACKGAMMON)) == "1, centred"
    assert presenter.cube_text(view(GameKind.BACKGAMMON, cube_value=2, cube_owner=1)) == (
        "2, owned by bob"
    )


@pytest.mark.parametrize(
    ("kind", "fields", "title"),
    [
        (GameKind.NANNON, ["Turn", "Dice", "Score", "Cube", "Position"], "to 1 · game 1"),
        (GameKind.BACKGAMMON, ["Turn", "Dice", "Score", "Cube", "Position ID"], "to 1 · game 1"),
        (GameKind.CHECKERS, ["Turn", "Score", "FEN"], "1 game"),
    ],
)
def test_the_board_embed_per_game(kind: GameKind, fields: list[str], title: str) -> None:
    embed = presenter.turn_embed(view(kind))
    assert [field.name for field in embed.fields] == fields
    assert embed.title == f"{spec_of(kind).title} · alice vs bob · {title}"
    assert embed.colour == style_of(kind).colour
    # A checkers match of one game numbers its games once a draw needs a second.
    assert presenter.turn_embed(view(kind, game_number=2)).title.endswith(" · game 2")
    no_cube = presenter.turn_embed(view(kind, rules=MatchRules(1, cube=False)))
    assert "Cube" not in [field.name for field in no_cube.fields]


def test_units_and_lengths() -> None:
    assert presenter.length_text(GameKind.CHECKERS, 3) == "3 games"
    assert presenter.length_text(GameKind.CHECKERS, 1) == "1 game"
    assert presenter.length_text(GameKind.NANNON, 3) == "to 3"
    assert presenter.length_text(GameKind.BACKGAMMON, 0) == "money game"
    won = GameResult(1, 0, ResultKind.SINGLE, 1)
    assert presenter.result_text(view(GameKind.CHECKERS), won) == "Game 1: alice wins 1 game."
    two = GameResult(1, 1, ResultKind.SINGLE, 2, 2)
    assert presenter.result_text(view(GameKind.NANNON), two) == "Game 1: bob wins 2 points."
    for kind, unit in [(GameKind.CHECKERS, "games"), (GameKind.BACKGAMMON, "points")]:
        error = refused(Refusal.LENGTH_OUT_OF_RANGE, game=kind, lowest=1, highest=9, length=10)
        assert wording.refusal_text(error) == (
            f"A {kind.value} match is 1 to 9 {unit} long, not 10."
        )


def test_resignation_offers_and_the_opening_per_game() -> None:
    offer = {"phase": Phase.RESIGN_OFFERED, "actor": 1, "resign_offer": (0, ResignLevel.GAMMON)}
    assert presenter.prompt(view(GameKind.NANNON, **offer)) == (
        "alice offers to resign (a NANNON). bob: accept or decline?"
    )
    assert presenter.prompt(view(GameKind.BACKGAMMON, **offer)) == (
        "alice offers to resign (gammon). bob: accept or decline?"
    )
    move = {"phase": Phase.MOVE, "dice": (6, 1)}
    assert presenter.prompt(view(GameKind.CHECKERS, **move)) == "alice (black) to move."
    assert presenter.prompt(view(GameKind.NANNON, **move)) == "alice rolled 6-1: pick a move."
    opening = ev.OpeningRolled((6, 1), 0)
    assert wording.describe_event(opening, view(GameKind.NANNON)) == (
        "Opening roll: alice 6, bob 1: alice moves first with a 5."
    )
    assert wording.describe_event(opening, view(GameKind.BACKGAMMON)) == (
        "Opening roll: alice 6, bob 1: alice plays 6-1 first."
    )


def test_the_invitation_lists_cube_options_only_for_cube_games() -> None:
    def described(kind: GameKind) -> str | None:
        challenge = Challenge(
            4, 1, 2, kind, MatchRules(5), PLAYERS[0], None, ChallengeStatus.OPEN, 0.0, 1.0
        )
        return invitations.invitation(challenge)[1].description

    assert described(GameKind.NANNON) == (
        "alice challenges anyone to Nannon, to 5 (cube, Crawford). First to accept plays."
    )
    assert described(GameKind.CHECKERS) == (
        "alice challenges anyone to Checkers, 5 games. First to accept plays."
    )


def test_stats_show_each_games_result_counters() -> None:
    def counters(kind: GameKind) -> str:
        line = StatLine(1, kind, 1, "x", 1500, 4, 2, 1, 1, 0, 3, 2, 1, 2, 3, 4, 5, 6, 7)
        return info.counters_text(line)

    assert counters(GameKind.NANNON) == "NANNONs 5-6, shouted 7"
    assert counters(GameKind.BACKGAMMON) == "Gammons 1-2, backgammons 3-4"
    assert counters(GameKind.CHECKERS) == ""
