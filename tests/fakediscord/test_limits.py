"""Discord's size limits in the fake: embeds, select options, autocomplete choices, modals and
attachment alt text, each at its limit (accepted) and one past it (400 Invalid Form Body, 50035,
naming the field)."""

from __future__ import annotations

from typing import Any

import pytest

from fakediscord import limits
from fakediscord.conftest import Rest
from fakediscord.server import InteractionState

pytestmark = pytest.mark.asyncio


def field(name: str = "n", value: str = "v") -> dict[str, str]:
    return {"name": name, "value": value}


CASES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    # (what, at the limit, one past it, the path Discord names)
    ("title", {"title": "t" * 256}, {"title": "t" * 257}, "embeds.0.title"),
    (
        "description",
        {"description": "d" * 4096},
        {"description": "d" * 4097},
        "embeds.0.description",
    ),
    ("fields", {"fields": [field()] * 25}, {"fields": [field()] * 26}, "embeds.0.fields"),
    (
        "field name",
        {"fields": [field(name="n" * 256)]},
        {"fields": [field(name="n" * 257)]},
        "embeds.0.fields.0.name",
    ),
    (
        "field value",
        {"fields": [field(value="v" * 1024)]},
        {"fields": [field(value="v" * 1025)]},
        "embeds.0.fields.0.value",
    ),
    (
        "empty value",
        {"fields": [field()]},
        {"fields": [field(value="")]},
        "embeds.0.fields.0.value",
    ),
    (
        "footer",
        {"footer": {"text": "f" * 2048}},
        {"footer": {"text": "f" * 2049}},
        "embeds.0.footer.text",
    ),
    (
        "author",
        {"author": {"name": "a" * 256}},
        {"author": {"name": "a" * 257}},
        "embeds.0.author.name",
    ),
]


@pytest.mark.parametrize(("what", "fits", "over", "path"), CASES, ids=[c[0] for c in CASES])
async def test_embed_limits(
    rest: Rest, what: str, fits: dict[str, Any], over: dict[str, Any], path: str
) -> None:
    fake = rest.fake
    assert (await rest.send(fake.channel, "", embeds=[fits])).status == 200
    refused = await rest.send(fake.channel, "", embeds=[over])
    assert refused.status == 400 and refused.body["code"] == 50035, refused
    assert path in refused.body["message"]
    # Discord's nested errors object, which discord.py prints as "In embeds.0.title: ...".
    node: Any = refused.body["errors"]
    for part in path.split("."):
        node = node[part]
    expected = "BASE_TYPE_MIN_LENGTH" if what == "empty value" else "BASE_TYPE_MAX_LENGTH"
    assert node["_errors"][0]["code"] == expected


async def test_6000_characters_in_all_the_embeds_of_a_message(rest: Rest) -> None:
    fake = rest.fake
    two = [{"description": "d" * 4000}, {"description": "d" * 2000}]
    assert (await rest.send(fake.channel, "", embeds=two)).status == 200
    two[1]["title"] = "t"
    refused = await rest.send(fake.channel, "", embeds=two)
    assert refused.status == 400 and "6000" in refused.body["message"]
    assert (await rest.send(fake.channel, "", embeds=[{"title": "x"}] * 11)).status == 400


def select(**option: Any) -> list[dict[str, Any]]:
    menu = {"type": 3, "custom_id": "pick", "options": [{"label": "l", "value": "v", **option}]}
    return [{"type": 1, "components": [menu]}]


@pytest.mark.parametrize("key", ["label", "value", "description"])
async def test_select_option_label_value_and_description_hold_100(rest: Rest, key: str) -> None:
    fake = rest.fake
    path = f"/channels/{fake.channel.id}/messages"
    assert (await rest.post(path, {"components": select(**{key: "x" * 100})})).status == 200
    refused = await rest.post(path, {"components": select(**{key: "x" * 101})})
    assert refused.status == 400
    assert f"components.0.components.0.options.0.{key}" in refused.body["message"]


async def test_interaction_answers_are_held_to_the_same_limits(rest: Rest) -> None:
    fake = rest.fake
    alice = await fake.add_member("alice")
    states = {}
    for kind, token in ((2, "cmd"), (4, "auto"), (3, "modal")):
        state = InteractionState(
            id=len(states) + 1, token=token, type=kind, user=alice, channel=fake.channel, data={}
        )
        state.created_at = fake.now()
        fake.remember_interaction(state)
        states[token] = state

    async def answer(state: InteractionState, body: dict[str, Any]) -> Any:
        url = f"/interactions/{state.id}/{state.token}/callback"
        return await rest.post(url, body, token=False)

    too_long = await answer(states["cmd"], {"type": 4, "data": {"embeds": [{"title": "t" * 257}]}})
    assert too_long.status == 400 and "embeds.0.title" in too_long.body["message"]
    assert states["cmd"].response is None

    choice = {"name": "n" * 100, "value": "v" * 101}
    refused = await answer(states["auto"], {"type": 8, "data": {"choices": [choice]}})
    assert refused.status == 400 and "data.choices.0.value" in refused.body["message"]
    choice = {"name": "n" * 101, "value": "v"}
    refused = await answer(states["auto"], {"type": 8, "data": {"choices": [choice]}})
    assert refused.status == 400 and "data.choices.0.name" in refused.body["message"]
    choice = {"name": "n" * 100, "value": "v" * 100}
    assert (await answer(states["auto"], {"type": 8, "data": {"choices": [choice]}})).status == 200

    text = {"type": 4, "custom_id": "note", "label": "l" * 46, "style": 1}
    modal = {"custom_id": "m", "title": "A note", "components": [{"type": 1, "components": [text]}]}
    refused = await answer(states["modal"], {"type": 9, "data": modal})
    assert refused.status == 400 and "label" in refused.body["message"]


async def test_attachment_alt_text_holds_1024(rest: Rest) -> None:
    fake = rest.fake
    path = f"/channels/{fake.channel.id}/messages"

    def body(alt: str) -> dict[str, Any]:
        return {"attachments": [{"id": 0, "filename": "b.png", "description": alt}]}

    files = {"files[0]": ("b.png", b"not really a png")}
    sent = await rest.post(path, body("a" * 1024), files=files)
    assert sent.status == 200 and rest.message(sent).attachments[0].description == "a" * 1024
    refused = await rest.post(path, body("a" * 1025), files=files)
    assert refused.status == 400 and "attachments.0.description" in refused.body["message"]


async def test_the_limits_are_discords_numbers() -> None:
    assert (limits.EMBED_TITLE, limits.EMBED_DESCRIPTION, limits.EMBED_FIELDS) == (256, 4096, 25)
    assert (limits.EMBED_FIELD_VALUE, limits.EMBED_TOTAL) == (1024, 6000)
    assert (limits.OPTION_LABEL, limits.OPTION_VALUE, limits.OPTION_DESCRIPTION) == (100,) * 3
    assert (limits.CHOICE_NAME, limits.CHOICE_VALUE, limits.ALT_TEXT) == (100, 100, 1024)
