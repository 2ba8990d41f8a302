"""Security: the authorization matrix through Discord. tests/service/test_security.py runs
the same matrix against the service; here every cell is a real interaction from the fake Discord to
the real bot: the slash command and, where there is one, the button (or menu).

Rows are an action on one surface (``/roll``, the Roll button, ...) in the state it is made for;
columns are roles:

- ``on_turn``: the player the match waits for (for an invitation, the challenger; for a finished
  match, the player who was on turn when it ended);
- ``opponent``: the other player (the named opponent of an invitation);
- ``third``: a member of the same server who is not playing;
- ``other_guild``: a member of another server. They can't see the first server's messages, so
  they type commands in their own server (which finds no match there, or refuses the other
  server's match id as unknown), or forge a click carrying the first server's ``custom_id``
  (:func:`forge_component`: what a modified client could send);
- ``player_elsewhere``: the player the action belongs to (``Row.owner``), with the same Discord
  account, acting from that other server: same user id, wrong server.

``/config`` rows have their own columns: a ``manager`` (Manage Server), a member without it
(``no_manage_server``), and in the other server a member without it and a manager, whose change
must stay in their own server.

A cell is either allowed, with its effect checked, or refused with the exact ephemeral text the
bot uses and nothing changed: the match version, the stored event count, the challenge, both
servers' settings and every public message (content, embeds, components, edits) everywhere.
Refusals run first on one shared set-up; an allowed cell that changes the match gets a fresh
match (in the same fake Discord), so each row costs one or two set-ups.

Backgammon to 5 with scripted dice: alice (seat 0) wins the opening 6-1 and moves, then bob may
double, so he is not rolled for. Checkers to one game: alice plays Black and moves first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
from fakediscord import Channel, FakeDiscord, Guild, InteractionHandle, Member, Message
from support.db import sql_rows
from support.discord_driver import (
    Clock,
    DiceScript,
    fire_due,
    footer,
    forge_component,
    lift_rate_limit,
    next_board,
    next_board_or_end,
    reply_to,
    results,
    service_of,
)
from support.nannon_driver import faces

from bot.discord.app import TableBot
from bot.discord.cogs.admin import NOT_MANAGER, AdminCog, describe_settings
from bot.discord.cogs.play import PlayCog
from bot.service import (
    ChallengeStatus,
    GetChallenge,
    GetSettings,
    GuildSettings,
    MatchService,
    MatchView,
    UpdateSettings,
    ViewMatch,
)
from engines.base import Phase, ResignLevel, ResultKind

ROLES = ("on_turn", "opponent", "third", "other_guild", "player_elsewhere")
CONFIG_ROLES = ("manager", "no_manage_server", "other_guild", "other_guild_manager")
# The actions of the matrix: a row may not be dropped (see the last test).
ACTIONS = (
    "roll", "move", "double", "take", "pass", "resign", "draw", "claim", "export", "config",
    "cancel",
)  # fmt: skip
# Every button and menu of those actions.
COMPONENTS = (
    "Roll", "move menu", "Double", "Take", "Pass", "Yes, pass", "Resign", "Resign this game",
    "Accept resignation", "Offer draw", "Accept draw", "Claim win", "Export", "Cancel", "Accept",
    "Decline",
)  # fmt: skip

NO_MATCH_HERE = (
    "You have no active match here. Start one with /challenge, or use /games to find yours."
)
NOT_PLAYING = "You are not playing in match #{match}."
NOT_YOUR_MATCH = "This is not your match: only its two players can use it."
NOT_HERE = "There is no match #{match} in this server."
NO_CHALLENGE_HERE = "There is no challenge #{challenge} in this server."


# --- the people and the places ---------------------------------------------------------------


@dataclass
class World:
    """One fake Discord: alice and bob play in the first server, carol watches, mod manages; in a
    second server dave and mod2 (a manager), and alice's and bob's own accounts."""

    fake: FakeDiscord
    dice: DiceScript
    clock: Clock
    monkeypatch: pytest.MonkeyPatch
    alice: Member
    bob: Member
    carol: Member
    mod: Member
    other: Guild
    dave: Member
    mod2: Member
    elsewhere: dict[int, Member]  # user id -> the same account in the other server

    @property
    def svc(self) -> MatchService:
        return service_of(self.fake)


async def world(
    fake: FakeDiscord, dice: DiceScript, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> World:
    alice = await fake.add_member("alice")
    bob = await fake.add_member("bob")
    carol = await fake.add_member("carol")
    mod = await fake.add_member("mod", manage_guild=True)
    other = await fake.add_guild("Elsewhere")
    dave = await fake.add_member("dave", other)
    mod2 = await fake.add_member("mod2", other, manage_guild=True)
    elsewhere = {m.id: await fake.add_member(m.name, other, user=m.user) for m in (alice, bob)}
    bot = fake.bot
    assert isinstance(bot, TableBot)
    await bot.tree.sync()  # global commands, so the other server has them too
    await lift_rate_limit(fake)
    await bot.service.handle(UpdateSettings(other.id, {"rate_limit_actions": 1000}))
    bot.rate_limit.invalidate(other.id)
    return World(
        fake, dice, clock, monkeypatch, alice, bob, carol, mod, other, dave, mod2, elsewhere
    )


@dataclass
class Scene:
    """The state a row starts from: a match (with its thread and latest board), an invitation,
    or nothing (for /config); ``message`` is what the row's buttons are on."""

    w: World
    on_turn: Member
    opponent: Member
    match_id: int | None = None
    thread: Channel | None = None
    board: Message | None = None
    message: Message | None = None
    challenge_id: int | None = None
    move: str = ""  # a legal move, for /move and the menu

    @property
    def fake(self) -> FakeDiscord:
        return self.w.fake

    @property
    def where(self) -> Channel:
        assert self.thread is not None
        return self.thread

    @property
    def mid(self) -> int:
        assert self.match_id is not None
        return self.match_id

    def texts(self) -> dict[str, Any]:
        return {
            "on_turn": self.on_turn.name,
            "opponent": self.opponent.name,
            "match": self.match_id,
            "challenge": self.challenge_id,
        }

    def seat(self, who: Member) -> int:
        return 0 if who.id == self.w.alice.id else 1

    async def view(self) -> MatchView:
        return await self.w.svc.handle(ViewMatch(self.mid))

    # acting: members of the first server act where the match is; others from their own server

    def home(self, who: Member) -> bool:
        return who.guild is self.fake.guild

    async def command(self, name: str, who: Member, **options: Any) -> InteractionHandle:
        where = (self.thread or self.fake.channel) if self.home(who) else None
        return await self.fake.slash(name, options, by=who, channel=where)

    async def click(self, label: str, who: Member) -> InteractionHandle:
        target = self.message or self.board
        assert target is not None
        if self.home(who):
            return await self.fake.click(target, label=label, by=who)
        return await forge_component(self.fake, target, label=label, by=who)

    async def choose(self, who: Member) -> InteractionHandle:
        assert self.board is not None
        if self.home(who):
            return await self.fake.select(self.board, [self.move], by=who)
        return await forge_component(self.fake, self.board, values=[self.move], by=who)

    # what must not change on a refusal

    async def state(self) -> State:
        svc = self.w.svc
        version = events = status = None
        if self.match_id is not None:
            version = (await self.view()).version
            events = await svc.store.event_count(self.mid)
        if self.challenge_id is not None:
            status = (await svc.handle(GetChallenge(self.challenge_id, self.fake.guild.id))).status
        return State(
            {g.id: await svc.handle(GetSettings(g.id)) for g in (self.fake.guild, self.w.other)},
            len(await sql_rows(svc.store, "SELECT id FROM matches", ())),
            public_messages(self.fake),
            version,
            events,
            status,
        )


@dataclass(frozen=True)
class State:
    """What a refusal must leave as it was."""

    settings: dict[int, GuildSettings]  # of both servers
    matches: int
    public: list[tuple[Any, ...]]  # public_messages()
    version: int | None  # the match's
    events: int | None  # stored for the match
    challenge: ChallengeStatus | None


def public_messages(fake: FakeDiscord) -> list[tuple[Any, ...]]:
    """Every public message in every channel and thread of both servers, as users see it."""
    return [
        (
            message.id,
            message.content,
            json.dumps(message.embeds, sort_keys=True),
            json.dumps(message.components, sort_keys=True),
            len(message.attachments),
            len(message.edits),
            message.deleted,
        )
        for channel in list(fake.channels.values())
        for message in fake.messages(channel)
        if not message.ephemeral
    ]


# --- set-ups (each a real Discord conversation) ----------------------------------------------


async def invite(w: World, game: str, points: int) -> Scene:
    it = await w.fake.slash(
        "challenge", {"game": game, "opponent": w.bob, "points": points}, by=w.alice
    )
    invitation = (await it.response()).message
    assert invitation is not None and not invitation.ephemeral
    challenge_id = int(invitation.custom_ids[0].rsplit(":", 1)[1])
    return Scene(w, w.alice, w.bob, message=invitation, challenge_id=challenge_id)


async def accepted(w: World, game: str, points: int) -> Scene:
    w.dice.face = faces(6, 1, then=(3,))
    invitation = (await invite(w, game, points)).message
    assert invitation is not None
    it = await w.fake.click(invitation, label="Accept", by=w.bob)
    assert (await it.response()).type == 7  # the invitation, edited in the click's answer
    thread = await w.fake.wait_until(lambda: w.fake.channels.get(invitation.id), what="a thread")
    first = await w.fake.wait_until(
        lambda: next((m for m in w.fake.messages(thread) if footer(m).startswith("Match #")), None),
        what="the first board",
    )
    match_id = int(footer(first).split("#")[1].split(" ")[0])
    board = await next_board(w.fake, thread, match_id, None)
    await w.fake.wait_bot_idle()
    view = await w.svc.handle(ViewMatch(match_id))
    assert view.actor == 0, view  # alice won the opening (or plays Black)
    return Scene(w, w.alice, w.bob, match_id, thread, board, move=view.legal_moves[0])


async def typed(scene: Scene, command: str, who: Member, done: str, **options: Any) -> None:
    """A set-up step by command; waits for its board."""
    answer = await reply_to(await scene.command(command, who, **options))
    assert answer.content == done, answer.content
    scene.board = await next_board_or_end(scene.fake, scene.where, scene.mid, scene.board)
    await scene.fake.wait_bot_idle()


async def opened_menu(scene: Scene, label: str, who: Member) -> Message:
    assert scene.board is not None
    it = await scene.fake.click(scene.board, label=label, by=who)
    menu = (await it.response()).message
    assert menu is not None and menu.ephemeral and menu.buttons, menu
    return menu


async def scene_move(w: World) -> Scene:
    """alice on turn with her opening 6-1 to move."""
    scene = await accepted(w, "backgammon", 5)
    assert (await scene.view()).phase is Phase.MOVE
    return scene


async def scene_roll(w: World) -> Scene:
    """bob on roll, free to double."""
    scene = await scene_move(w)
    await typed(scene, "move", w.alice, "Played.", play=scene.move)
    view = await scene.view()
    assert (view.phase, view.actor, view.can_double[1]) == (Phase.ROLL, 1, True)
    scene.on_turn, scene.opponent = w.bob, w.alice
    return scene


async def scene_doubled(w: World) -> Scene:
    """bob doubled: alice, on turn, takes or passes."""
    scene = await scene_roll(w)
    await typed(scene, "double", w.bob, "Doubled.")
    assert (await scene.view()).phase is Phase.CUBE_OFFERED
    scene.on_turn, scene.opponent = w.alice, w.bob
    return scene


async def scene_pass_confirm(w: World) -> Scene:
    """As doubled, and alice clicked Pass: her ephemeral "Yes, pass" question is open."""
    scene = await scene_doubled(w)
    scene.message = await opened_menu(scene, "Pass", w.alice)
    return scene


async def scene_resign_menu(w: World) -> Scene:
    """bob on roll opened the Resign menu."""
    scene = await scene_roll(w)
    scene.message = await opened_menu(scene, "Resign", w.bob)
    return scene


async def scene_resigned(w: World) -> Scene:
    """bob offered to resign a single game: alice, on turn, accepts or declines."""
    scene = await scene_roll(w)
    await typed(scene, "resign", w.bob, "Resignation offered.")
    assert (await scene.view()).phase is Phase.RESIGN_OFFERED
    scene.on_turn, scene.opponent = w.alice, w.bob
    return scene


async def scene_checkers(w: World) -> Scene:
    """alice (Black) to move."""
    return await accepted(w, "checkers", 1)


async def scene_draw_offered(w: World) -> Scene:
    """alice offered a draw: bob, on turn, answers."""
    scene = await scene_checkers(w)
    await typed(scene, "draw", w.alice, "Done.")
    assert (await scene.view()).phase is Phase.DRAW_OFFERED
    scene.on_turn, scene.opponent = w.bob, w.alice
    return scene


async def scene_idle(w: World) -> Scene:
    """bob has been idle past the claim time: the reminder pass offered alice Claim win."""
    scene = await scene_roll(w)
    svc = w.svc
    view = await scene.view()
    claim = (await svc.handle(GetSettings(w.fake.guild.id))).claim_minutes * 60
    sent = await fire_due(scene.fake, view.last_action_at + claim + 1)
    assert sent == [("claim", scene.mid)]
    scene.message = await w.fake.wait_until(
        lambda: next((m for m in reversed(w.fake.messages(scene.where)) if m.buttons), None),
        what="the claim message",
    )
    assert scene.message.buttons[0]["label"] == "Claim win"
    await w.fake.wait_bot_idle()
    # The service checks the idle time on its own clock: move it past the claim time.
    w.clock.advance(claim + 10)
    return scene


async def scene_finished(w: World) -> Scene:
    """bob, on roll, conceded the match: the result carries Export."""
    scene = await scene_roll(w)
    await typed(scene, "resign", w.bob, "You conceded the match.", level="match")
    assert (await scene.view()).match_over
    over = [m for m in results(w.fake, scene.where) if m.embeds[0]["title"].startswith("Match")]
    assert len(over) == 1 and over[0].embeds[0]["title"].startswith("Match over"), over
    scene.message = over[0]
    return scene


async def scene_invitation(w: World) -> Scene:
    """alice challenged bob, who has not answered."""
    return await invite(w, "nannon", 3)


async def scene_settings(w: World) -> Scene:
    return Scene(w, w.mod, w.carol)


# --- what may happen in a cell ---------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    """Refused with this exact ephemeral text (``{on_turn}``, ``{opponent}``, ``{match}``,
    ``{challenge}`` filled in), and nothing changed anywhere."""

    text: str


@dataclass(frozen=True)
class Moves:
    """Allowed: the match moves on and its next board (or result) is posted. ``reply`` is the
    exact ephemeral confirmation of a typed command; None for a click (a deferred update of the
    board, no message). ``then`` checks the new view, given the actor's seat."""

    reply: str | None
    then: Callable[[MatchView, int], bool]
    closes_menu: bool = False  # the ephemeral menu clicked says "Done." and loses its buttons


@dataclass(frozen=True)
class Opens:
    """Allowed: an ephemeral question with these buttons; nothing changes until it's answered."""

    text: str
    buttons: tuple[str, ...]


@dataclass(frozen=True)
class Exports:
    """Allowed: the match's file, publicly (/export) or to the clicker only (the button)."""

    text: str
    ephemeral: bool


@dataclass(frozen=True)
class Answers:
    """Allowed on an invitation: its challenge gets ``status`` and the invitation reads ``text``
    (``{new_match}``: the match an accept started), without buttons."""

    text: str
    status: ChallengeStatus


@dataclass(frozen=True)
class Saves:
    """Allowed /config: the member's own server's settings become ``changes(member)`` (empty: a
    plain /config show), and the answer lists them."""

    changes: Callable[[Member], dict[str, Any]]


Cell = Refused | Moves | Opens | Exports | Answers | Saves
Act = Callable[[Scene, Member], Awaitable[InteractionHandle]]


@dataclass(frozen=True)
class Row:
    action: str  # one of ACTIONS (or the invitation's other answers)
    surface: str  # "/command" or the button's label
    scene: Callable[[World], Awaitable[Scene]]
    act: Act
    cells: dict[str, Cell]
    owner: str = "on_turn"  # whose account acts as ``player_elsewhere``

    @property
    def id(self) -> str:
        return f"{self.action}:{self.surface}"


# --- acting ----------------------------------------------------------------------------------


def command(name: str, **options: Any) -> Act:
    async def act(scene: Scene, who: Member) -> InteractionHandle:
        return await scene.command(name, who, **options)

    return act


async def typed_move(scene: Scene, who: Member) -> InteractionHandle:
    return await scene.command("move", who, play=scene.move)


async def typed_export(scene: Scene, who: Member) -> InteractionHandle:
    return await scene.command("export", who, match=scene.mid)


async def menu_move(scene: Scene, who: Member) -> InteractionHandle:
    return await scene.choose(who)


def button(label: str) -> Act:
    async def act(scene: Scene, who: Member) -> InteractionHandle:
        return await scene.click(label, who)

    return act


def from_own_menu(opener: str, label: str) -> Act:
    """A player opens their own ephemeral menu (``opener`` on the board) and clicks ``label``
    there; anyone else clicks it on the menu of the scene (``scene.message``), which Discord
    would show to its owner only."""

    async def act(scene: Scene, who: Member) -> InteractionHandle:
        if who is scene.on_turn or who is scene.opponent:
            scene.message = await opened_menu(scene, opener, who)
        return await scene.click(label, who)

    return act


def config(sub: str, options: Callable[[Member], dict[str, Any]] = lambda who: {}) -> Act:
    """/config ``sub`` typed in the member's own server."""

    async def act(scene: Scene, who: Member) -> InteractionHandle:
        return await scene.fake.slash(f"config {sub}", options(who), by=who)

    return act


# --- the matrix ------------------------------------------------------------------------------

OFF_TURN = "It's not your turn: the match waits for {on_turn}."
THEIR_TURN = "It's {on_turn}'s turn."
ONLY_TAKER = "Only {on_turn} can take or pass your double."
PASS_QUESTION = "Pass the double and lose this game at the current stake?"
RESIGN_QUESTION = (
    "Resign how much? The opponent accepts or declines a game resignation; conceding the match "
    "ends it at once."
)
RESIGN_CHOICES = ("Resign this game", "Resign a gammon", "Resign a backgammon", "Concede the match")


def typed_cells(on_turn: Cell, opponent: Cell) -> dict[str, Cell]:
    """A turn command: typed in the match's thread by the first server's members, in their own
    server by the others (where they have no match)."""
    return {
        "on_turn": on_turn,
        "opponent": opponent,
        "third": Refused(NOT_PLAYING),
        "other_guild": Refused(NO_MATCH_HERE),
        "player_elsewhere": Refused(NO_MATCH_HERE),
    }


def clicked_cells(on_turn: Cell, opponent: Cell) -> dict[str, Cell]:
    """A match component: clicked by the first server's members, forged from the other."""
    return {
        "on_turn": on_turn,
        "opponent": opponent,
        "third": Refused(NOT_YOUR_MATCH),
        "other_guild": Refused(NOT_HERE),
        "player_elsewhere": Refused(NOT_HERE),
    }


def invitation_cells(challenger: Cell, opponent: Cell, third: Cell) -> dict[str, Cell]:
    return {
        "on_turn": challenger,
        "opponent": opponent,
        "third": third,
        "other_guild": Refused(NO_CHALLENGE_HERE),
        "player_elsewhere": Refused(NO_CHALLENGE_HERE),
    }


def config_cells(changes: Callable[[Member], dict[str, Any]]) -> dict[str, Cell]:
    return {
        "manager": Saves(changes),
        "no_manage_server": Refused(NOT_MANAGER),
        "other_guild": Refused(NOT_MANAGER),
        "other_guild_manager": Saves(changes),  # their own server's settings only
    }


def rolled(v: MatchView, seat: int) -> bool:
    return v.phase is Phase.MOVE and v.actor == seat


def moved(v: MatchView, seat: int) -> bool:
    return v.phase is Phase.ROLL and v.actor == 1 - seat


def doubled(v: MatchView, seat: int) -> bool:
    return v.phase is Phase.CUBE_OFFERED and v.cube_offered_by == seat


def took(v: MatchView, seat: int) -> bool:
    return (v.cube_value, v.cube_owner) == (2, seat)


def dropped(v: MatchView, seat: int) -> bool:
    return v.game_number == 2 and v.score[1 - seat] == 1 and v.games[-1].kind is ResultKind.DROP


def resigning(v: MatchView, seat: int) -> bool:
    return v.phase is Phase.RESIGN_OFFERED and v.resign_offer == (seat, ResignLevel.SINGLE)


def resignation_won(v: MatchView, seat: int) -> bool:
    return v.game_number == 2 and v.score[seat] == 1 and v.games[-1].kind is ResultKind.RESIGN


def offering_draw(v: MatchView, seat: int) -> bool:
    return v.phase is Phase.DRAW_OFFERED and v.draw_offered_by == seat


def drawn(v: MatchView, seat: int) -> bool:
    return v.games[-1].kind is ResultKind.DRAW and v.score == (0.5, 0.5)


def claimed(v: MatchView, seat: int) -> bool:
    return v.match_over and v.winner_seat == seat and v.games[-1].kind is ResultKind.FORFEIT


def only_channel(who: Member) -> dict[str, Any]:
    return {"action": "only", "channel": who.guild.text_channels[0]}


EXPORTED = "Match #{match}: `tablebot-{match}.mat`"

ROWS: list[Row] = [
    Row("roll", "/roll", scene_roll, command("roll"),
        typed_cells(Moves("Rolled.", rolled), Refused(THEIR_TURN))),
    Row("roll", "Roll", scene_roll, button("Roll"),
        clicked_cells(Moves(None, rolled), Refused(OFF_TURN))),
    Row("move", "/move", scene_move, typed_move,
        typed_cells(Moves("Played.", moved), Refused(THEIR_TURN))),
    Row("move", "move menu", scene_move, menu_move,
        clicked_cells(Moves(None, moved), Refused(OFF_TURN))),
    Row("double", "/double", scene_roll, command("double"),
        typed_cells(Moves("Doubled.", doubled), Refused(THEIR_TURN))),
    Row("double", "Double", scene_roll, button("Double"),
        clicked_cells(Moves(None, doubled), Refused(OFF_TURN))),
    Row("take", "/take", scene_doubled, command("take"),
        typed_cells(Moves("Taken.", took), Refused(ONLY_TAKER))),
    Row("take", "Take", scene_doubled, button("Take"),
        clicked_cells(Moves(None, took), Refused(OFF_TURN))),
    Row("pass", "/pass", scene_doubled, command("pass"),
        typed_cells(Moves("Passed.", dropped), Refused(ONLY_TAKER))),
    Row("pass", "Pass", scene_doubled, button("Pass"),
        clicked_cells(Opens(PASS_QUESTION, ("Yes, pass",)), Refused(OFF_TURN))),
    # The confirmation is ephemeral: the others can only forge a click on the taker's.
    Row("pass", "Yes, pass", scene_pass_confirm, button("Yes, pass"),
        clicked_cells(Moves(None, dropped, closes_menu=True), Refused(OFF_TURN))),
    # Resigning costs only the one who does it: either player, on turn or not.
    Row("resign", "/resign", scene_roll, command("resign"),
        typed_cells(Moves("Resignation offered.", resigning),
                    Moves("Resignation offered.", resigning))),
    Row("resign", "Resign", scene_roll, button("Resign"),
        clicked_cells(Opens(RESIGN_QUESTION, RESIGN_CHOICES),
                      Opens(RESIGN_QUESTION, RESIGN_CHOICES))),
    Row("resign", "Resign this game", scene_resign_menu,
        from_own_menu("Resign", "Resign this game"),
        clicked_cells(Moves(None, resigning, closes_menu=True),
                      Moves(None, resigning, closes_menu=True))),
    Row("resign", "Accept resignation", scene_resigned, button("Accept resignation"),
        clicked_cells(Moves(None, resignation_won), Refused(OFF_TURN))),
    # Either player may offer a draw; /draw accepts the other's open offer.
    Row("draw", "/draw", scene_checkers, command("draw"),
        typed_cells(Moves("Done.", offering_draw), Moves("Done.", offering_draw))),
    Row("draw", "Offer draw", scene_checkers, button("Offer draw"),
        clicked_cells(Moves(None, offering_draw), Moves(None, offering_draw))),
    Row("draw", "/draw (an offer open)", scene_draw_offered, command("draw"),
        typed_cells(Moves("Done.", drawn),
                    Refused("Waiting for bob to answer your draw offer."))),
    Row("draw", "Accept draw", scene_draw_offered, button("Accept draw"),
        clicked_cells(Moves(None, drawn), Refused(OFF_TURN))),
    # The idle player is on turn; the claim is the waiting opponent's.
    Row("claim", "Claim win", scene_idle, button("Claim win"), {
        "on_turn": Refused("The match is waiting for you: you can't claim it."),
        "opponent": Moves(None, claimed),
        "third": Refused(NOT_PLAYING),
        "other_guild": Refused(NOT_HERE),
        "player_elsewhere": Refused(NOT_HERE),
    }, owner="opponent"),
    # A finished match is public in its own server.
    Row("export", "/export", scene_finished, typed_export, {
        "on_turn": Exports(EXPORTED, ephemeral=False),
        "opponent": Exports(EXPORTED, ephemeral=False),
        "third": Exports(EXPORTED, ephemeral=False),
        "other_guild": Refused(NOT_HERE),
        "player_elsewhere": Refused(NOT_HERE),
    }),
    Row("export", "Export", scene_finished, button("Export"), {
        "on_turn": Exports("Match #{match}:", ephemeral=True),
        "opponent": Exports("Match #{match}:", ephemeral=True),
        "third": Exports("Match #{match}:", ephemeral=True),
        "other_guild": Refused(NOT_HERE),
        "player_elsewhere": Refused(NOT_HERE),
    }),
    Row("cancel", "Cancel", scene_invitation, button("Cancel"), invitation_cells(
        Answers("{on_turn} withdrew the challenge.", ChallengeStatus.CANCELLED),
        Refused("Only {on_turn} can cancel this challenge."),
        Refused("Only {on_turn} can cancel this challenge."),
    )),
    Row("accept", "Accept", scene_invitation, button("Accept"), invitation_cells(
        Refused("You can't play against yourself."),
        Answers("{opponent} accepted {on_turn}'s challenge: match #{new_match}.",
                ChallengeStatus.ACCEPTED),
        Refused("This challenge is for {opponent}."),
    ), owner="opponent"),
    Row("decline", "Decline", scene_invitation, button("Decline"), invitation_cells(
        Refused("Only {opponent} can decline this challenge."),
        Answers("{opponent} declined the challenge.", ChallengeStatus.DECLINED),
        Refused("Only {opponent} can decline this challenge."),
    ), owner="opponent"),
    Row("config", "/config show", scene_settings, config("show"),
        config_cells(lambda who: {})),
    Row("config", "/config lengths", scene_settings, config("lengths", lambda who: {"nannon": 7}),
        config_cells(lambda who: {"nannon_length": 7})),
    Row("config", "/config cube", scene_settings, config("cube", lambda who: {"crawford": False}),
        config_cells(lambda who: {"crawford": False})),
    Row("config", "/config automation", scene_settings,
        config("automation", lambda who: {"auto_roll": False}),
        config_cells(lambda who: {"auto_roll": False})),
    Row("config", "/config times", scene_settings,
        config("times", lambda who: {"reminder": 30, "claim": 90, "challenge": 45}),
        config_cells(lambda who: {"reminder_minutes": 30, "claim_minutes": 90,
                                  "challenge_minutes": 45})),
    Row("config", "/config threads", scene_settings,
        config("threads", lambda who: {"enabled": False}),
        config_cells(lambda who: {"use_threads": False})),
    Row("config", "/config channels", scene_settings, config("channels", only_channel),
        config_cells(lambda who: {"challenge_channels": (who.guild.text_channels[0].id,)})),
    Row("config", "/config ratelimit", scene_settings,
        config("ratelimit", lambda who: {"actions": 999, "seconds": 20}),
        config_cells(lambda who: {"rate_limit_actions": 999, "rate_limit_seconds": 20})),
    Row("config", "/config robot", scene_settings,
        config("robot", lambda who: {"rated": True, "hints": True, "pause_ms": 0,
                                     "think_s": 5}),
        config_cells(lambda who: {"robot_rated": True, "hints_in_human_matches": True,
                                  "robot_pause_ms": 0, "robot_think_s": 5})),
    Row("config", "/config analysis", scene_settings,
        config("analysis", lambda who: {"robot": False, "people": True}),
        config_cells(lambda who: {"analyse_robot_matches": False,
                                  "analyse_human_matches": True})),
    Row("config", "/config tournaments", scene_settings,
        config("tournaments", lambda who: {"role": who.guild.role("Members")}),
        config_cells(lambda who: {"tournament_role": who.guild.role("Members").id})),
    Row("config", "/config puzzles", scene_settings,
        config("puzzles", lambda who: {"time": "18:30", "name_players": True}),
        config_cells(lambda who: {"puzzles_time": 18 * 60 + 30,
                                  "puzzles_name_players": True})),
    Row("config", "/config language", scene_settings,
        config("language", lambda who: {"language": "it"}),
        config_cells(lambda who: {"language": "it"})),
]  # fmt: skip


# --- running a row ---------------------------------------------------------------------------


def member(w: World, scene: Scene, row: Row, role: str) -> Member:
    owner: Member = getattr(scene, row.owner)
    return {
        "on_turn": scene.on_turn,
        "opponent": scene.opponent,
        "third": w.carol,
        "other_guild": w.dave,
        "player_elsewhere": w.elsewhere.get(owner.id, w.dave),
        "manager": w.mod,
        "no_manage_server": w.carol,
        "other_guild_manager": w.mod2,
    }[role]


@pytest.mark.asyncio
@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
async def test_authorization_matrix(
    tablebot: FakeDiscord,
    dice: DiceScript,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    row: Row,
) -> None:
    w = await world(tablebot, dice, clock, monkeypatch)
    scene = await row.scene(w)
    # Refusals first, all on the same set-up; an allowed cell that changed it leaves a fresh
    # set-up to the next one.
    cells = sorted(row.cells.items(), key=lambda item: not isinstance(item[1], Refused))
    fresh = True
    for role, cell in cells:
        if not fresh:
            scene = await row.scene(w)
        who = member(w, scene, row, role)
        before = await scene.state()
        w.dice.face = faces(6, 1, then=(3,))  # a next game opens 6-1, never tied for ever
        it = await row.act(scene, who)
        fresh = await check(cell, scene, who, it, before, role)


async def check(
    cell: Cell, scene: Scene, who: Member, it: InteractionHandle, before: State, role: str
) -> bool:
    """Check one cell's outcome; whether the set-up is unchanged (still usable)."""
    fake, svc = scene.fake, scene.w.svc
    texts = scene.texts()
    if isinstance(cell, Refused):
        answer = await reply_to(it)
        assert answer.ephemeral, (role, answer)
        assert answer.content == cell.text.format(**texts), role
        await fake.wait_bot_idle()
        assert await scene.state() == before, f"{role}: a refusal changed something"
        return True
    if isinstance(cell, Opens):
        menu = (await it.response()).message
        assert menu is not None and menu.ephemeral, (role, menu)
        assert (menu.content, tuple(b["label"] for b in menu.buttons)) == (cell.text, cell.buttons)
        await fake.wait_bot_idle()
        assert await scene.state() == before, f"{role}: opening a menu changed something"
        return True
    if isinstance(cell, Exports):
        answer = await reply_to(it)
        assert answer.ephemeral is cell.ephemeral, (role, answer)
        assert answer.content == cell.text.format(**texts), role
        assert [a.filename for a in answer.attachments] == [f"tablebot-{scene.mid}.mat"]
        text = answer.attachments[0].data.decode()
        assert "alice" in text and "bob" in text, text
        await fake.wait_bot_idle()
        # Read only: nothing changes but the public answer of /export.
        unchanged = before if cell.ephemeral else replace(before, public=public_messages(fake))
        assert await scene.state() == unchanged, role
        return True
    if isinstance(cell, Moves):
        view = await scene.view()
        events = await svc.store.event_count(scene.mid)
        if cell.reply is None:
            # The board (or the ephemeral menu) is edited in the click's answer, no message.
            assert (await it.response()).type == 7, role
        else:
            answer = await reply_to(it)
            assert answer.ephemeral and answer.content == cell.reply, (role, answer.content)
        scene.board = await next_board_or_end(fake, scene.where, scene.mid, scene.board)
        if cell.closes_menu:
            menu = scene.message
            assert menu is not None
            await fake.wait_until(
                lambda: menu.content == "Done." and not menu.components, what="the menu closed"
            )
        await fake.wait_bot_idle()
        assert not [m.content for m in it.followups if m.ephemeral and m.content != cell.reply]
        after = await scene.view()
        assert after.version > view.version, role
        assert await svc.store.event_count(scene.mid) > events, role
        assert cell.then(after, scene.seat(who)), (role, after)
        return False
    if isinstance(cell, Answers):
        assert (await it.response()).type == 7, role  # the invitation, edited in the answer
        invitation, challenge_id = scene.message, scene.challenge_id
        assert invitation is not None and challenge_id is not None
        await fake.wait_until(lambda: not invitation.components, what="the invitation answered")
        challenge = await svc.handle(GetChallenge(challenge_id, fake.guild.id))
        assert challenge.status is cell.status, role
        assert invitation.content == cell.text.format(**texts, new_match=challenge.match_id)
        if challenge.status is ChallengeStatus.ACCEPTED:
            assert challenge.match_id is not None
            thread = await fake.wait_until(
                lambda: fake.channels.get(invitation.id), what="the thread"
            )
            await next_board(fake, thread, challenge.match_id, None)
        else:
            assert challenge.match_id is None
        await fake.wait_bot_idle()
        return False
    assert isinstance(cell, Saves)
    answer = await reply_to(it)
    changes = cell.changes(who)
    settings = await svc.handle(GetSettings(who.guild.id))
    assert settings == replace(before.settings[who.guild.id], **changes), role
    saved = "Saved.\n" if changes else ""
    assert answer.ephemeral and answer.content == saved + describe_settings(settings), role
    await fake.wait_bot_idle()
    # Nothing else: the other server's settings and every public message are as they were.
    expected = replace(before, settings={**before.settings, who.guild.id: settings})
    assert await scene.state() == expected, role
    return True


# --- the matrix is complete ------------------------------------------------------------------


def test_matrix_covers_every_action_role_and_surface() -> None:
    rows_by_action: dict[str, list[Row]] = {}
    for row in ROWS:
        rows_by_action.setdefault(row.action, []).append(row)
        roles = CONFIG_ROLES if row.action == "config" else ROLES
        assert tuple(row.cells) == roles, row.id
    assert set(ACTIONS) <= set(rows_by_action), set(ACTIONS) - set(rows_by_action)
    surfaces = {row.surface for row in ROWS}
    assert set(COMPONENTS) <= surfaces, set(COMPONENTS) - surfaces
    # Every turn command of the play cog and every /config subcommand has its row.
    turn_commands = {"roll", "move", "double", "take", "pass", "resign", "draw"}
    play = {c.name for c in PlayCog.__cog_app_commands__}
    assert turn_commands <= play
    assert {f"/{name}" for name in turn_commands} <= surfaces
    subcommands = {c.name for c in AdminCog.config.commands}
    assert {f"/config {name}" for name in subcommands} == {
        row.surface for row in rows_by_action["config"]
    }
    assert len(ROWS) == len({row.id for row in ROWS})
