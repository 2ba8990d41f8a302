"""A local fake Discord for end-to-end tests, driven by the real discord.py client.

An aiohttp server on 127.0.0.1 serves Discord's REST API (v10) and the websocket gateway from an
in-memory world (guilds, channels, threads, members, roles, messages, reactions, commands). The real
`discord.py` bot logs into it: gateway events in, REST calls out. Test code only; never shipped.

Starting
--------
    fake = FakeDiscord()                  # a guild `fake.guild` with `fake.channel` (#general)
    async with fake.run(bot_factory):     # serve, patch Route.BASE + DEFAULT_GATEWAY, log in
        ...                               # the bot is ready and has every guild cached

`bot_factory(**client_options)` must build a `discord.Client`/`commands.Bot` and pass the options
through (the fake supplies `guild_ready_timeout`, so `on_ready` comes in 0.1 s, not 2 s). The real
bot: `lambda **o: create_bot(Settings(token=TOKEN, db_path=tmp_path / "t.db",
dev_guild_id=fake.guild.id, log_level="INFO"), **o)`. On exit: `bot.close()`, the connect task is
awaited, the server stops, patches are restored; then (`strict=True`) the block fails if the bot hit
an unknown route, the fake crashed, or discord.py logged an ERROR (e.g. an exception in a command;
clear `fake.bot_errors` in tests that cause one on purpose).

Fixtures: `tests/conftest.py` has `start_fake_discord` (`fake = await start_fake_discord(
lambda fake, tmp_path: bot_factory)`), and `fake_discord_fixture(bot_factory_for, name="fake")`
makes a module-level fixture from the same kind of callable.

People and places (async: they reach the running bot, which has parsed them when they return)
-------------------------------------------------------------------------------------------------
    alice = await fake.add_member("alice")                      # Member in fake.guild
    mod = await fake.add_member("mod", manage_guild=True)       # has the Manage Server permission
    robot = await fake.add_member("robot", bot=True)            # a bot account
    g2 = await fake.add_guild("Second")                         # GUILD_CREATE; g2.text_channels
    alice2 = await fake.add_member("alice", g2, user=alice.user)  # same person, second guild
    chan = await fake.add_channel("games")                      # CHANNEL_CREATE
`fake.owner` owns every guild; `fake.bot_user` is the bot; `fake.application_id` its application.

Permissions (computed per channel as Discord does: `model.Guild.permissions_in`)
--------------------------------------------------------------------------------
By default @everyone grants nothing, the bot's managed role has exactly the README's permissions
integer (`model.README_PERMISSIONS`, 309237763136: no Manage Messages, no Manage Threads), and
every member added gets the "Members" role (people's usual permissions, Use Application Commands
included). The bot's REST calls are held to them: 403 Missing Access (50001) where it can't see
the channel, 403 Missing Permissions (50013) for what it lacks (Send Messages, or Send Messages in
Threads in a thread; Attach Files; Read Message History for history, replies and reactions; Add
Reactions for a new reaction; Create Public Threads; Manage Messages for others' messages;
Manage Threads/Channels for channel edits and deletes); without Embed Links its embeds are
dropped (a message of nothing else: 403). Interaction answers go through the interaction's
webhook and are not held to them (as on Discord). People are held to theirs in the harness.
    fake.permissions(alice, channel) / fake.bot_permissions(channel)   # ints
    await fake.set_bot_permissions(README_PERMISSIONS | MANAGE_THREADS)  # the bot's role
    await fake.set_role_permissions(fake.guild.everyone, VIEW_CHANNEL)   # GUILD_ROLE_UPDATE
    red = await fake.add_role("red", SEND_MESSAGES)             # add_member(roles=[red])
    await fake.set_overwrite(channel, fake.bot_member(fake.guild), deny=ADD_REACTIONS)
    await fake.set_overwrite(channel, fake.guild.everyone)      # allow=deny=0: removed
Threads have no overwrites of their own: they follow their parent channel.

Threads
-------
    await fake.archive_thread(thread)        # THREAD_UPDATE (archived=False unarchives)
    await fake.lock_thread(thread)           # only Manage Threads may post or edit there
    await fake.delete_thread(thread)         # THREAD_DELETE; REST on it: 404 10003
    await fake.delete_channel_as_user(chan)  # CHANNEL_DELETE (its threads go too)
A post to an archived thread unarchives it (THREAD_UPDATE), by the bot, an interaction answer
or a person; to a locked one without Manage Threads it gets 403 Thread is locked (160005).
Edits and reactions in an archived thread: 400 (50083). A thread inactive for its
`auto_archive_duration` archives itself when the clock is advanced past it. discord.py keeps
only active threads in its cache (`bot.get_channel` of an archived thread is None).

Time and deadlines (`FakeDiscord(clock=...)`, see ratelimits.py)
----------------------------------------------------------------
The fake reads its own clock, frozen by default (`FakeClock`): `await fake.advance(seconds)`
moves it (and waits until the bot parsed what that caused); `clock=time.monotonic` runs it on
real time. An interaction's first callback after 3 s gets 404 Unknown interaction (10062); its
webhook (follow-ups, @original) after 15 minutes 401 Invalid Webhook Token (50027).

Rate limits and counters (see ratelimits.py)
--------------------------------------------
Off by default (discord.py would wait them out in real time). `FakeDiscord(rate_limits=True)`
or `fake.set_rate_limits(True | False | RateLimits(...))`: the global 50 requests/s per bot
token (interaction endpoints exempt), per-route buckets per channel/guild/webhook with the
X-RateLimit-* headers (5 messages per 5 s per channel), 429s with {message, retry_after,
global}, Retry-After, Via and X-RateLimit-Scope/-Global. `RateLimits().scaled(0.01)` shrinks the
windows for a bot test on a real clock. Counters, always on:
    before = fake.stats.snapshot(); ...; done = fake.stats.since(before)
    done.bot_token["POST /channels/{channel_id}/messages"], done.bot_token_total
    done.interaction_total, done.rate_limited (429s by route), done.global_rate_limited

Size limits (limits.py)
-----------------------
Messages, interaction answers and follow-ups are checked as Discord checks them: content 2,000;
embeds (10; title 256, description 4,096, 25 fields, field name 256 and value 1,024, both
required, footer 2,048, author 256, 6,000 characters over all of a message's embeds); components
(custom_id 1-100 and unique, button label 80, select options 25 with label, value and description
of at most 100, placeholder 150); autocomplete choices (25; name and string value 100); modal
title and text input labels 45; attachment alt text 1,024. Past one: 400 Invalid Form Body
(50035) with Discord's nested `errors` naming the field.

Acting as users
---------------
    it = await fake.slash("match start", {"opponent": bob, "length": 3, "ranked": True}, by=alice)
    it = await fake.slash("config times", {"reminder": -5}, by=mod, within_limits=False)
    it = await fake.autocomplete("play", {"move": "8/"}, focused="move", by=alice)
    it = await fake.click(message, "accept:42", by=bob)         # or label="Accept"
    it = await fake.select(message, ["nannon"], by=alice)       # custom_id= if several menus
    it = await fake.submit_modal("resign-modal", {"reason": "bored"}, by=alice)
    await fake.react(message, "👍", by=alice)                   # MESSAGE_REACTION_ADD
    await fake.say("hello", by=alice)                           # a plain MESSAGE_CREATE
Clicks, selects and modal submits first wait until the bot has no REST request in flight
(`await fake.wait_bot_idle()`): discord.py registers a view right after the request that sent it
returns, so a click never beats the bot to its own view. Slash commands must be synced first (as
on Discord); option types, subcommands, required options, choices and min/max come from the synced
payload. A sync Discord would refuse (a bad name, a long description, over 25 options or choices,
an integer min_value/max_value past +-(2**53 - 1)) is refused whole: 400 Invalid Form Body.
Options: str/int/float/bool, Member/User (user options), Channel, Role. `channel=` picks the
channel (default: the member's guild's first one).

Interaction answers (`it` is an InteractionHandle)
-------------------------------------------------
    r = await it.response()     # .type 4 message, 5 defer, 6 deferred update, 7 update, 8, 9
    r.data, r.ephemeral, r.message   # the Message created (4, 5) or updated (6, 7)
    m = await it.message()      # the response message once filled in (after a defer + edit)
    f = await it.followup(0)    # follow-ups (after a "thinking" defer the first one fills it in)
    await it.choices()          # autocomplete [{"name", "value"}]; await it.modal() for type 9
    it.original_edits           # bodies of PATCH .../@original
Responses and follow-ups are real messages in the channel whose ids are the `response_message_id`
returned to the bot, so they can be clicked. Ephemeral ones are kept too (`m.ephemeral`).

Reading the world
-----------------
    fake.messages(channel) / fake.last_message(channel) / fake.threads(channel)
    m.content, m.embeds (dicts), m.components, m.buttons, m.custom_ids, m.component(label="Roll")
    m.attachments[0].filename / .description / .data / .image() (a PIL Image), m.image()
    m.reactions, m.reaction("👍").user_ids, m.edits (every PATCH body), m.deleted, m.flags
    fake.command("match") / fake.command_names() / await fake.wait_for_commands()
    fake.guild.threads, fake.channels[id], fake.get_message(id)

REST log and waiting (never sleep)
----------------------------------
    mark = fake.mark()                                           # "calls from now on"
    call = await fake.wait_for_call(method="PUT", route="/channels/{channel_id}/messages/"
                                    "{message_id}/reactions/{emoji}/@me", since=mark)
    call.json, call.files, call.status, call.query, call.params
    await fake.wait_until(lambda: len(fake.messages(thread)) == 2)
Every call and world change wakes the waiters (`fake.poke()`); all waits take `timeout=` (5 s) and
fail with the last calls listed. Unknown routes get a 404 JSON and are recorded (`call.unknown`).

Faults
------
    fault = fake.fail_next(429, method="POST", path=r"/channels/\\d+/messages$")  # retried
    fault = fake.fail_next(502, path="/callback$")   # discord.py retries 500/502/504 after 1 s
    fault.hits                                       # the calls that got the failure
    await fake.drop_gateway()   # close the websocket; the bot RESUMEs, missed events replayed
    await fake.drop_gateway(code=4009, resumable=False)  # session over: RESUME refused, IDENTIFY
    await fake.invalidate_session()  # INVALID_SESSION (d=false): the bot IDENTIFYs anew
    fake.identifies, fake.session.resumes, fake.gateway_connections  # what the bot did
    fake.allowed_intents = 0    # the next IDENTIFY asks for more: closed with 4014, as Discord
                                # closes it for a privileged intent not enabled in the portal
    await fake.restart_bot()    # close the bot, build a new one from the factory, log in again

Shards (several bot processes)
------------------------------
    fake = FakeDiscord(shard_count=2)     # GET /gateway/bot advises 2; IDENTIFY must say [k, 2]
    async with fake.run(lambda **o: Bot(shard_count=2, shard_ids=[0], **o)):
        other = await fake.add_bot(lambda **o: Bot(shard_count=2, shard_ids=[1], **o))
        g1 = await fake.add_guild("one", shard=1)   # an id with (id >> 22) % 2 == 1
One session per shard id (`fake.sessions`; `fake.session` is shard 0's). Each guild's events
(GUILD_CREATE on IDENTIFY included) go to the session of `fake.shard_of(guild)`, the rest to
shard 0's, so each bot sees only its own shards' guilds; the harness waits until the bot
running that shard has parsed them. `fake.bot` is the first bot, `fake.other_bots` the rest.
An AutoShardedBot pauses 5 s before each IDENTIFY but its first (discord.py's
`before_identify_hook`): give a test bot one shard per process, or override the hook.

Not modelled: JSON text frames (no zlib); guild channels are text channels and
threads; no DMs from users, voice, presences, webhooks other than interaction follow-ups; no
per-resource ("shared") 429s, sub-limits (a channel's two renames per 10 minutes), buckets on
the interaction endpoints or the invalid-request (Cloudflare) limit; no member timeouts or
member role changes after joining; Discord's limit of active threads per guild.
"""

from .harness import (
    FakeDiscord,
    FakeDiscordError,
    InteractionHandle,
    InteractionResponse,
    fake_discord_fixture,
)
from .model import (
    README_PERMISSIONS,
    Attachment,
    Channel,
    Guild,
    Member,
    Message,
    Overwrite,
    Reaction,
    Role,
    User,
)
from .ratelimits import FakeClock, RateLimits, RequestStats
from .server import TOKEN, Call, Fault

__all__ = [
    "README_PERMISSIONS",
    "TOKEN",
    "Attachment",
    "Call",
    "Channel",
    "FakeClock",
    "FakeDiscord",
    "FakeDiscordError",
    "Fault",
    "Guild",
    "InteractionHandle",
    "InteractionResponse",
    "Member",
    "Message",
    "Overwrite",
    "RateLimits",
    "Reaction",
    "RequestStats",
    "Role",
    "User",
    "fake_discord_fixture",
]
