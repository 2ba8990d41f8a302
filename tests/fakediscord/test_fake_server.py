"""The fake Discord's smoke path, driven through a small test-only discord.py bot."""

from __future__ import annotations

import io
import re
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route
from PIL import Image

from fakediscord import FakeDiscord, FakeDiscordError, Member, fake_discord_fixture
from fakediscord.model import Channel, Message, User
from fakediscord.server import RECENT_INTERACTION, FakeServer, InteractionState

FRUITS = ["apple", "apricot", "banana", "cherry"]


def board_png() -> bytes:
    image = Image.new("RGB", (24, 16), (200, 30, 30))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


class SeatButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"seat:(?P<id>[0-9]+)"
):
    """A stateless button: its custom_id carries the seat id, so it survives restarts."""

    def __init__(self, seat: int) -> None:
        super().__init__(discord.ui.Button(label=f"Seat {seat}", custom_id=f"seat:{seat}"))
        self.seat = seat

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SeatButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"seat {self.seat} taken", ephemeral=True)


class BoardView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)  # no timeout task left behind at shutdown
        self.add_item(SeatButton(7))

    @discord.ui.button(label="Roll", custom_id="roll")
    async def roll(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content="rolled 6-5", view=None)

    @discord.ui.button(label="Close", custom_id="close")
    async def close(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        # Defer, then edit the clicked message through the channel route (PATCH with bot auth).
        await interaction.response.defer()
        assert interaction.message is not None
        await interaction.message.edit(content="closed", view=None)


class SmokeBot(commands.Bot):
    def __init__(self, guild_id: int, **options: Any) -> None:
        intents = discord.Intents.default()  # no privileged intents, like the real bot
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, **options)
        self.guild_id = guild_id
        self.threads_seen: list[int] = []

    async def setup_hook(self) -> None:
        self.add_dynamic_items(SeatButton)
        guild = discord.Object(self.guild_id)
        for command in (board, pick, whoami, thread, slow, choose, game):
            self.tree.add_command(command, guild=guild)
        await self.tree.sync(guild=guild)

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        if payload.user_id == self.user.id:  # type: ignore[union-attr]
            return
        channel = self.get_channel(payload.channel_id)
        assert isinstance(channel, discord.TextChannel)
        message = channel.get_partial_message(payload.message_id)
        await message.add_reaction("✅")
        await channel.send(f"{payload.member} reacted {payload.emoji} on {payload.message_id}")

    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.threads_seen.append(thread.id)


@app_commands.command(description="Show a board")
async def board(interaction: discord.Interaction) -> None:
    file = discord.File(io.BytesIO(board_png()), "board.png", description="A red board")
    await interaction.response.send_message("Your board", file=file, view=BoardView())


async def fruit_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=f.title(), value=f) for f in FRUITS if f.startswith(current)]


@app_commands.command(description="Pick a fruit")
@app_commands.autocomplete(fruit=fruit_choices)
async def pick(interaction: discord.Interaction, fruit: str) -> None:
    await interaction.response.send_message(f"picked {fruit}")


@app_commands.command(description="Who am I")
async def whoami(interaction: discord.Interaction) -> None:
    assert isinstance(interaction.user, discord.Member)
    perms = interaction.user.guild_permissions
    await interaction.response.send_message(
        f"{interaction.user.name} manage={perms.manage_guild} bot={interaction.user.bot} "
        f"guild={interaction.guild_id}",
        ephemeral=True,
    )


@app_commands.command(description="Open a thread")
async def thread(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("thread below")
    message = await interaction.original_response()
    opened = await message.create_thread(name="the game")
    await opened.send("inside the thread")


@app_commands.command(description="Think first")
async def slow(interaction: discord.Interaction) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.followup.send("thought about it")


class KindSelect(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="kind",
        options=[discord.SelectOption(label=k, value=k) for k in ("nannon", "checkers")],
    )
    async def kind(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_modal(NoteModal(select.values[0]))


class NoteModal(discord.ui.Modal, title="A note"):
    note: discord.ui.TextInput[NoteModal] = discord.ui.TextInput(label="Note", custom_id="note")

    def __init__(self, kind: str) -> None:
        super().__init__(custom_id=f"note-modal:{kind}")
        self.kind = kind

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"{self.kind}: {self.note.value}", ephemeral=True)


@app_commands.command(description="Choose a game")
async def choose(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("Which game?", view=KindSelect())


game = app_commands.Group(name="game", description="Games")


@game.command(description="Start a game")
@app_commands.describe(opponent="who", length="points", ranked="rated?", note="a note")
@app_commands.choices(kind=[app_commands.Choice(name=n, value=n) for n in ("nannon", "checkers")])
async def start(
    interaction: discord.Interaction,
    opponent: discord.Member,
    kind: str,
    length: app_commands.Range[int, 1, 25] = 1,
    ranked: bool = False,
    note: str = "",
) -> None:
    await interaction.response.send_message(
        f"{interaction.user.name} vs {opponent.name}: {kind} to {length} "
        f"ranked={ranked} note={note!r}"
    )


fake = fake_discord_fixture(lambda fake, tmp_path: lambda **o: SmokeBot(fake.guild.id, **o))


@pytest_asyncio.fixture
async def alice(fake: FakeDiscord) -> Member:
    return await fake.add_member("alice")


# ----------------------------------------------------------------------- 1. login and sync


@pytest.mark.asyncio
async def test_bot_logs_in_and_syncs_its_commands(fake: FakeDiscord) -> None:
    assert fake.bot is not None and fake.bot.is_ready()
    assert fake.bot.user is not None and fake.bot.user.id == fake.bot_user.id
    assert fake.bot.get_guild(fake.guild.id) is not None
    login = [(c.method, c.path) for c in fake.calls[:2]]
    assert login == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    assert fake.command_names() == {"board", "pick", "whoami", "thread", "slow", "choose", "game"}
    assert fake.command_names(None) == set()  # nothing global
    start_options = fake.command("game")["options"][0]["options"]
    assert [(o["name"], o["type"], o.get("required", False)) for o in start_options] == [
        ("opponent", 6, True),
        ("kind", 3, True),
        ("length", 4, False),
        ("ranked", 5, False),
        ("note", 3, False),
    ]
    assert fake.gateway_connections == ["gateway"]


# ----------------------------------------------------------------------- 2. a PNG answer


@pytest.mark.asyncio
async def test_slash_command_is_answered_with_a_png(fake: FakeDiscord, alice: Member) -> None:
    it = await fake.slash("board", by=alice)
    response = await it.response()
    assert response.type == 4 and not response.ephemeral
    message = await it.message()
    assert message is fake.last_message() and message.content == "Your board"
    attachment = message.attachments[0]
    assert (attachment.filename, attachment.description) == ("board.png", "A red board")
    image = message.image()
    assert image.size == (24, 16) and image.convert("RGB").getpixel((3, 3)) == (200, 30, 30)
    assert message.custom_ids == ["roll", "close", "seat:7"]
    callback = fake.calls_matching(
        route="/interactions/{interaction_id}/{interaction_token}/callback"
    )
    assert callback[0].files[0].filename == "board.png" and callback[0].query == {
        "with_response": "1"
    }


# ----------------------------------------------------------------------- 3. buttons


@pytest.mark.asyncio
async def test_button_click_updates_the_message(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("board", by=alice)).message()
    it = await fake.click(message, label="Roll", by=alice)
    response = await it.response()
    assert response.type == 7 and response.message is message
    assert message.content == "rolled 6-5" and message.components == []
    assert message.edits[-1]["components"] == []
    with pytest.raises(FakeDiscordError, match="no button"):
        await fake.click(message, "roll", by=alice)


@pytest.mark.asyncio
async def test_deferred_click_then_channel_edit(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("board", by=alice)).message()
    mark = fake.mark()
    it = await fake.click(message, "close", by=alice)
    assert (await it.response()).type == 6
    patch = await fake.wait_for_call(method="PATCH", since=mark)
    assert patch.route == "/channels/{channel_id}/messages/{message_id}" and patch.status == 200
    assert message.content == "closed" and message.components == []


@pytest.mark.asyncio
async def test_dynamic_button_still_works_after_a_restart(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("board", by=alice)).message()
    old_bot = await_bot(fake)
    new_bot = await fake.restart_bot()
    assert new_bot is not old_bot and old_bot.is_closed() and new_bot.is_ready()
    assert fake.gateway_connections == ["gateway", "gateway"]  # a fresh IDENTIFY
    it = await fake.click(message, "seat:7", by=alice)
    answer = await it.message()
    assert answer.content == "seat 7 taken" and answer.ephemeral
    assert answer.id == int(fake.calls[-1].response["interaction"]["response_message_id"])


def await_bot(fake: FakeDiscord) -> discord.Client:
    assert fake.bot is not None
    return fake.bot


# ----------------------------------------------------------------------- 4. autocomplete


@pytest.mark.asyncio
async def test_autocomplete_returns_choices(fake: FakeDiscord, alice: Member) -> None:
    it = await fake.autocomplete("pick", {"fruit": "ap"}, focused="fruit", by=alice)
    assert await it.choices() == [
        {"name": "Apple", "value": "apple"},
        {"name": "Apricot", "value": "apricot"},
    ]
    done = await (await fake.slash("pick", {"fruit": "cherry"}, by=alice)).message()
    assert done.content == "picked cherry"


# ----------------------------------------------------------------------- 5. reactions


@pytest.mark.asyncio
async def test_a_reaction_reaches_the_bot(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("board", by=alice)).message()
    mark = fake.mark()
    await fake.react(message, "👍", by=alice)
    put = await fake.wait_for_call(method="PUT", since=mark)
    assert put.params["emoji"] == "✅" and put.params["message_id"] == str(message.id)
    said = await fake.wait_until(
        lambda: "reacted" in fake.last_message().content and fake.last_message()
    )
    assert said.content == f"alice reacted 👍 on {message.id}"
    assert message.reaction("👍").user_ids == [alice.id]  # type: ignore[union-attr]
    assert message.reaction("✅").user_ids == [fake.bot_user.id]  # type: ignore[union-attr]


# ----------------------------------------------------------------------- 6. gateway resume


@pytest.mark.asyncio
async def test_a_dropped_gateway_resumes_and_replays_missed_events(
    fake: FakeDiscord, alice: Member
) -> None:
    bot = await_bot(fake)
    message = await (await fake.slash("board", by=alice)).message()
    await fake.drop_gateway()
    assert fake.gateway_connections == ["gateway", "resume"] and bot.is_ready()
    # An event sent while the bot is away reaches it on the next RESUME.
    await fake.drop_gateway(wait_resumed=False)
    mark = fake.mark()
    await fake.react(message, "🎲", by=alice)
    await fake.wait_resumed(2)
    call = await fake.wait_for_call(
        method="POST", route="/channels/{channel_id}/messages", since=mark
    )
    assert "reacted 🎲" in call.json["content"]
    assert (await (await fake.slash("pick", {"fruit": "apple"}, by=alice)).message()).content == (
        "picked apple"
    )


# ----------------------------------------------------------------------- 7. 429 and 5xx


@pytest.mark.asyncio
async def test_a_429_is_retried(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("board", by=alice)).message()
    fault = fake.fail_next(429, method="POST", path=r"^/channels/\d+/messages$")
    mark = fake.mark()
    await fake.react(message, "👍", by=alice)
    await fake.wait_until(lambda: "reacted" in fake.last_message().content)
    posts = fake.calls_matching(method="POST", route="/channels/{channel_id}/messages", since=mark)
    assert [c.status for c in posts] == [429, 200] and fault.hits == posts[:1]
    assert posts[0].json == posts[1].json


@pytest.mark.asyncio
async def test_a_5xx_on_the_interaction_callback_is_retried(
    fake: FakeDiscord, alice: Member
) -> None:
    fault = fake.fail_next(502, path="/callback$")
    message = await (await fake.slash("pick", {"fruit": "banana"}, by=alice)).message()
    assert message.content == "picked banana" and len(fault.hits) == 1
    callbacks = fake.calls_matching(
        route="/interactions/{interaction_id}/{interaction_token}/callback"
    )
    assert [c.status for c in callbacks] == [502, 200]


# ----------------------------------------------------------------------- the rest of the surface


@pytest.mark.asyncio
async def test_subcommand_with_user_int_bool_and_string_options(
    fake: FakeDiscord, alice: Member
) -> None:
    bob = await fake.add_member("bob")
    options = {"opponent": bob, "kind": "nannon", "length": 5, "ranked": True, "note": "gl"}
    message = await (await fake.slash("game start", options, by=alice)).message()
    assert message.content == "alice vs bob: nannon to 5 ranked=True note='gl'"
    with pytest.raises(FakeDiscordError, match="missing required"):
        await fake.slash("game start", {"opponent": bob}, by=alice)
    with pytest.raises(FakeDiscordError, match="not one of the choices"):
        await fake.slash("game start", {"opponent": bob, "kind": "chess"}, by=alice)
    with pytest.raises(FakeDiscordError, match="above max_value"):
        await fake.slash("game start", {"opponent": bob, "kind": "nannon", "length": 26}, by=alice)
    with pytest.raises(FakeDiscordError, match="needs a subcommand"):
        await fake.slash("game", by=alice)


@pytest.mark.asyncio
async def test_permissions_bots_and_a_second_guild(fake: FakeDiscord, alice: Member) -> None:
    mod = await fake.add_member("mod", manage_guild=True)
    robot = await fake.add_member("robot", bot=True)
    second = await fake.add_guild("Second")
    assert await_bot(fake).get_guild(second.id) is not None
    await fake.wait_for_call(
        route="/applications/{application_id}/guilds/{guild_id}/commands", since=0
    )
    answers = []
    for member in (alice, mod, robot):
        answers.append((await (await fake.slash("whoami", by=member)).message()).content)
    assert answers == [
        f"alice manage=False bot=False guild={fake.guild.id}",
        f"mod manage=True bot=False guild={fake.guild.id}",
        f"robot manage=False bot=True guild={fake.guild.id}",
    ]
    # Commands were synced to the first guild only: the second one does not have them.
    alice_there = await fake.add_member("alice", second, user=alice.user)
    with pytest.raises(FakeDiscordError, match="not synced"):
        await fake.slash("whoami", by=alice_there)


@pytest.mark.asyncio
async def test_thread_from_a_response_message(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("thread", by=alice)).message()
    inside = await fake.wait_until(lambda: fake.threads() and fake.threads()[0].last_message)
    (opened,) = fake.threads()
    assert opened.id == message.id and opened.name == "the game"  # Discord reuses the id
    assert inside.content == "inside the thread"
    bot = await_bot(fake)
    assert isinstance(bot, SmokeBot)
    await fake.wait_until(lambda: bot.threads_seen == [opened.id])


@pytest.mark.asyncio
async def test_defer_then_followup_fills_the_thinking_message(
    fake: FakeDiscord, alice: Member
) -> None:
    it = await fake.slash("slow", by=alice)
    response = await it.response()
    assert response.type == 5 and response.deferred
    message = await it.message()
    assert message.content == "thought about it" and not message.loading
    assert (await it.followup(0)) is message and fake.messages().count(message) == 1


@pytest.mark.asyncio
async def test_unknown_routes_are_answered_404_and_reported(fake: FakeDiscord) -> None:
    bot = await_bot(fake)
    with pytest.raises(discord.NotFound):
        await bot.http.request(Route("GET", "/guilds/{guild_id}/bans", guild_id=fake.guild.id))
    assert fake.calls[-1].unknown and fake.calls[-1].status == 404
    with pytest.raises(FakeDiscordError, match="unknown route: GET /guilds/"):
        fake.check_clean()
    fake.calls.clear()  # handled: keep the strict end-of-test check green


@pytest.mark.asyncio
async def test_select_then_modal(fake: FakeDiscord, alice: Member) -> None:
    message = await (await fake.slash("choose", by=alice)).message()
    with pytest.raises(FakeDiscordError, match="not among the options"):
        await fake.select(message, ["chess"], by=alice)
    modal = await (await fake.select(message, ["checkers"], by=alice)).modal()
    assert modal["custom_id"] == "note-modal:checkers" and modal["title"] == "A note"
    it = await fake.submit_modal("note-modal:checkers", {"note": "good luck"}, by=alice)
    answer = await it.message()
    assert answer.content == "checkers: good luck" and answer.ephemeral


@pytest.mark.asyncio
async def test_patches_are_restored_after_the_run() -> None:
    saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    fake = FakeDiscord()
    async with fake.run(lambda **o: SmokeBot(fake.guild.id, **o)):
        assert f"http://127.0.0.1:{fake.port}/api/v10" == Route.BASE
        assert fake.bot is not None and fake.bot.is_ready()
        bot = fake.bot
    assert saved == (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) and bot.is_closed()
    assert fake.bot is None and fake.session is not None and not fake.session.valid


@pytest.mark.asyncio
async def test_the_start_fake_discord_fixture(start_fake_discord: Any) -> None:
    fake = await start_fake_discord(lambda fake, tmp_path: lambda **o: SmokeBot(fake.guild.id, **o))
    alice = await fake.add_member("alice")
    message = await (await fake.slash("pick", {"fruit": "apple"}, by=alice)).message()
    assert message.content == "picked apple"


@pytest.mark.asyncio
async def test_a_history_limit_bounds_the_logs_and_marks_still_work() -> None:
    # For long load runs: the fake keeps only recent calls, frames and interactions.
    fake = FakeDiscord(history_limit=3)
    async with fake.run(lambda **o: SmokeBot(fake.guild.id, **o)):
        alice = await fake.add_member("alice")
        for _ in range(6):
            await fake.advance(RECENT_INTERACTION)  # older ones may go
            mark = fake.mark()
            it = await fake.slash("pick", {"fruit": "apple"}, by=alice)
            assert (await it.message()).content == "picked apple"  # found by token
            [callback] = fake.calls_matching(method="POST", since=mark)
            assert callback.index >= mark
        assert fake.calls_made > 6 and len(fake.calls) <= 6
        assert fake.calls[-1].index == fake.calls_made - 1
        assert len(fake.interactions) <= 6 and len(fake.interactions_by_token) <= 6
        assert fake.session is not None and len(fake.session.events) <= 6
        # Messages nobody can click any more go too; a message with components stays.
        board = await (await fake.slash("board", by=alice)).message()
        for _ in range(6):
            await fake.advance(RECENT_INTERACTION)
            await (await fake.slash("pick", {"fruit": "apple"}, by=alice)).message()
        assert len(fake.messages_by_id) <= 6 and fake.get_message(board.id) is board
        assert fake.channel.messages_sent > len(fake.channel.all_messages)


async def _form_bytes(form: Any) -> tuple[bytes, str]:
    """A FormData as aiohttp sends it: the body and its Content-Type."""
    writer = form()
    sent = bytearray()

    class Sink:
        async def write(self, chunk: bytes) -> None:
            sent.extend(chunk)

        async def write_eof(self, *args: object) -> None:
            return None

        async def drain(self) -> None:
            return None

        def enable_compression(self, *args: object, **kwargs: object) -> None:
            return None

        def enable_chunking(self) -> None:
            return None

    await writer.write(Sink())
    return bytes(sent), writer.headers["Content-Type"]


@pytest.mark.asyncio
async def test_quick_form_split_reads_what_discord_py_sends() -> None:
    """The fake's quick multipart split gives the parts aiohttp's reader gives, binary data
    with CRLFs and dashes included, and declines what it doesn't handle."""
    import aiohttp

    from fakediscord.server import _split_form

    form = aiohttp.FormData()
    form.add_field("payload_json", '{"content": "hi", "attachments": [{"id": 0}]}')
    png = b"\x89PNG\r\n\x1a\n--not-a-boundary\r\n\r\n\x00\xff"
    form.add_field("files[0]", png, filename="board.png", content_type="image/png")
    form.add_field("files[1]", b"; [Site]\r\n", filename="match-7.mat", content_type="text/plain")
    data, content_type = await _form_bytes(form)
    boundary = content_type.split("boundary=")[1].strip('"').encode()
    split = _split_form(data, boundary)
    assert split is not None
    body, files = split
    assert body == {"content": "hi", "attachments": [{"id": 0}]}
    assert [(f.field, f.filename, f.content_type, f.data) for f in files] == [
        ("files[0]", "board.png", "image/png", png),
        ("files[1]", "match-7.mat", "text/plain", b"; [Site]\r\n"),
    ]
    assert _split_form(data[:-10], boundary) is None  # no closing delimiter
    odd = data.replace(b'filename="board.png"', b"filename*=utf-8''b%C3%B6ard.png")
    assert _split_form(odd, boundary) is None  # left to aiohttp's reader


def test_a_history_limit_never_forgets_an_interaction_that_awaits_its_answer_or_a_live_board() -> (
    None
):
    # Under overload a deferred command's follow-up can come after 2 * limit newer interactions;
    # Discord would still take it (a token lasts 15 minutes), so the fake must find it too.
    server = FakeServer(history_limit=2)
    user = User(1, "alice")
    channel = Channel(2, None, "general")

    def state(n: int, response: dict[str, Any] | None) -> InteractionState:
        # Sent long enough ago that only what the bot may still use keeps it.
        it = InteractionState(n, f"token{n}", 2, user, channel, {}, created_at=-60.0)
        if response is not None:
            it.callbacks.append(response)
        return it

    unanswered = state(0, None)
    deferred = state(1, {"type": 5})
    followed_up = state(2, {"type": 5})
    followed_up.followups.append(Message(100, channel, user, "done"))
    answered = state(3, {"type": 4})
    # A follow-up with buttons: the bot may edit it through this webhook while it lives.
    live_board = state(4, {"type": 7})
    live_board.followups.append(Message(101, channel, user, components=[{"type": 1}]))
    for it in (unanswered, deferred, followed_up, answered, live_board):
        server.remember_interaction(it)
    for n in range(5, 30):
        server.remember_interaction(state(n, {"type": 4}))
    assert server.interactions_by_token["token0"] is unanswered
    assert server.interactions_by_token["token1"] is deferred
    assert server.interactions_by_token["token4"] is live_board
    assert "token2" not in server.interactions_by_token
    assert "token3" not in server.interactions_by_token
    assert len(server.interactions) <= 2 * 5 and "token29" in server.interactions_by_token
    # One answered a moment ago stays, whatever the limit: its follow-up may be on its way.
    recent = InteractionState(99, "token99", 2, user, channel, {}, created_at=server.now())
    recent.callbacks.append({"type": 6})
    server.remember_interaction(recent)
    for n in range(30, 60):
        server.remember_interaction(state(n, {"type": 4}))
    assert server.interactions_by_token["token99"] is recent
