"""What a match needs of the bot's permissions where it is played, read from an interaction's
``app_permissions`` (Discord computes them for the interaction's channel, overwrites included).

Boards and results reach Discord through the interactions' webhooks, which the channel's
permissions do not govern; the bot's own messages (the first board in a thread, reminders,
claims, a board moved out of a closed thread, /board) do need them, so a challenge is refused
where they are missing, naming them (:func:`bot.discord.wording.missing_permissions`).
"""

from __future__ import annotations

import discord

# Permission attributes (discord.Permissions) a match needs in its channel.
MATCH_NEEDS = (
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "read_message_history",
)
# ... and to be played in a thread of its own; without them it is played in the channel.
THREAD_NEEDS = ("create_public_threads", "send_messages_in_threads")


def missing(perms: discord.Permissions, needed: tuple[str, ...]) -> list[str]:
    """The attributes of ``needed`` that ``perms`` lacks (Administrator lacks none)."""
    if perms.administrator:
        return []
    return [name for name in needed if not getattr(perms, name)]


# Discord's implicit denies: without View Channels a member has nothing in the channel, and
# without Send Messages no Embed Links or Attach Files. Only the cause is named.
IMPLIED = {
    "view_channel": MATCH_NEEDS,
    "send_messages": ("embed_links", "attach_files"),
    "send_messages_in_threads": ("embed_links", "attach_files"),
}


def match_missing(perms: discord.Permissions, *, in_thread: bool) -> list[str]:
    """What a match played in this channel lacks (the causes: see IMPLIED); in a thread, Send
    Messages in Threads takes the place of Send Messages."""
    needed: tuple[str, ...] = MATCH_NEEDS
    if in_thread:
        needed = tuple("send_messages_in_threads" if n == "send_messages" else n for n in needed)
    lacking = missing(perms, needed)
    for cause in lacking[:]:
        implied = IMPLIED.get(cause, ())
        lacking = [name for name in lacking if name == cause or name not in implied]
    return lacking


def can_open_thread(perms: discord.Permissions) -> bool:
    return not missing(perms, THREAD_NEEDS)


def is_thread(channel: object) -> bool:
    return isinstance(channel, discord.Thread)


# What the invite asks for: all a match needs, in its channel and in a thread of its own, and
# Add Reactions (the bot's own 📣 under a NANNON announcement). The README's integer.
INVITE_PERMISSIONS = discord.Permissions(
    **dict.fromkeys((*MATCH_NEEDS, *THREAD_NEEDS, "add_reactions"), True)
)
INVITE_SCOPES = ("bot", "applications.commands")


def invite_url(client_id: int) -> str:
    """The URL that adds the bot, and its commands, to a server, with the permissions it uses."""
    return discord.utils.oauth_url(client_id, permissions=INVITE_PERMISSIONS, scopes=INVITE_SCOPES)
