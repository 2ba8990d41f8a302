"""Discord's size limits on what a bot sends, checked as Discord checks them: a body over a
limit gets 400 Invalid Form Body (code 50035) with the field's path, so a bot bug fails the test
instead of passing silently. (https://discord.com/developers/docs/resources/message#embed-object-
embed-limits, .../interactions/message-components, .../receiving-and-responding#autocomplete.)
"""

from __future__ import annotations

from typing import Any

CONTENT = 2000
EMBEDS = 10
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
EMBED_TOTAL = 6000  # title, description, field names and values, footer, author: all embeds
ACTION_ROWS = 5
ROW_ITEMS = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
SELECT_OPTIONS = 25
OPTION_LABEL = 100
OPTION_VALUE = 100
OPTION_DESCRIPTION = 100
SELECT_PLACEHOLDER = 150
MODAL_TITLE = 45
TEXT_INPUT_LABEL = 45
CHOICES = 25
CHOICE_NAME = 100
CHOICE_VALUE = 100  # a string choice's value
ALT_TEXT = 1024  # an attachment's description
# An integer or number option's value, min_value and max_value: within +-(2**53 - 1), the range
# Discord's OpenAPI schema gives them (JavaScript's safe integers; the prose docs say "between
# -2^53 and 2^53"). A command declaring a bound outside it is refused, the whole sync with it.
INTEGER_OPTION = 2**53 - 1
FLAG_IS_COMPONENTS_V2 = 1 << 15


class FormError(Exception):
    """One field over a limit: ``path`` as Discord names it ("embeds.0.fields.3.value")."""

    def __init__(self, path: str, code: str, message: str) -> None:
        super().__init__(f"Invalid Form Body: {path}: {message}")
        self.path, self.code, self.message = path, code, message

    def errors(self) -> dict[str, Any]:
        """Discord's nested ``errors`` object for this field."""
        tree: dict[str, Any] = {"_errors": [{"code": self.code, "message": self.message}]}
        for part in reversed(self.path.split(".")):
            tree = {part: tree}
        return tree


def too_long(path: str, limit: int) -> FormError:
    return FormError(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def too_short(path: str, least: int = 1) -> FormError:
    return FormError(path, "BASE_TYPE_MIN_LENGTH", f"Must be {least} or more in length.")


def too_many(path: str, limit: int) -> FormError:
    return FormError(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _length(path: str, value: Any, limit: int, *, least: int = 0) -> int:
    text = "" if value is None else str(value)
    if len(text) > limit:
        raise too_long(path, limit)
    if len(text) < least:
        raise too_short(path, least)
    return len(text)


def check_embeds(embeds: list[dict[str, Any]]) -> None:
    """At most 10 embeds; each field within its limit; 6,000 characters in all of them."""
    if len(embeds) > EMBEDS:
        raise too_many("embeds", EMBEDS)
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds.{i}"
        total += _length(f"{where}.title", embed.get("title"), EMBED_TITLE)
        total += _length(f"{where}.description", embed.get("description"), EMBED_DESCRIPTION)
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS:
            raise too_many(f"{where}.fields", EMBED_FIELDS)
        for j, item in enumerate(fields):
            # Both are required: an empty name or value is refused.
            total += _length(
                f"{where}.fields.{j}.name", item.get("name"), EMBED_FIELD_NAME, least=1
            )
            total += _length(
                f"{where}.fields.{j}.value", item.get("value"), EMBED_FIELD_VALUE, least=1
            )
        footer = embed.get("footer") or {}
        total += _length(f"{where}.footer.text", footer.get("text"), EMBED_FOOTER)
        author = embed.get("author") or {}
        total += _length(f"{where}.author.name", author.get("name"), EMBED_AUTHOR)
    if total > EMBED_TOTAL:
        raise FormError(
            "embeds",
            "BASE_TYPE_MAX_LENGTH",
            f"Embed size exceeds maximum size of {EMBED_TOTAL} ({total} characters)",
        )


def check_components(components: list[dict[str, Any]], flags: int = 0) -> None:
    """Rows, custom_ids (1-100, unique), button labels (80), select menus: options (25) with
    label, value and description of at most 100, placeholder 150."""
    if len(components) > ACTION_ROWS and not flags & FLAG_IS_COMPONENTS_V2:
        raise too_many("components", ACTION_ROWS)
    seen: set[str] = set()

    def check(items: list[dict[str, Any]], path: str) -> None:
        for i, item in enumerate(items):
            where = f"{path}.{i}"
            custom_id = item.get("custom_id")
            if custom_id is not None:
                _length(f"{where}.custom_id", custom_id, CUSTOM_ID, least=1)
                if custom_id in seen:
                    raise FormError(
                        f"{where}.custom_id",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(custom_id)
            if item.get("type") == 2:
                _length(f"{where}.label", item.get("label"), BUTTON_LABEL)
            if item.get("type") == 1 and len(item.get("components", [])) > ROW_ITEMS:
                raise too_many(f"{where}.components", ROW_ITEMS)
            if "placeholder" in item:
                _length(f"{where}.placeholder", item["placeholder"], SELECT_PLACEHOLDER)
            options = item.get("options")
            if options is not None:
                if len(options) > SELECT_OPTIONS:
                    raise too_many(f"{where}.options", SELECT_OPTIONS)
                for j, option in enumerate(options):
                    at = f"{where}.options.{j}"
                    _length(f"{at}.label", option.get("label"), OPTION_LABEL, least=1)
                    _length(f"{at}.value", option.get("value"), OPTION_VALUE, least=1)
                    _length(f"{at}.description", option.get("description"), OPTION_DESCRIPTION)
            check(item.get("components", []), f"{where}.components")
            if "accessory" in item:
                check([item["accessory"]], f"{where}.accessory")

    check(components, "components")


def check_attachments(entries: list[dict[str, Any]]) -> None:
    """An attachment's description (its alt text) holds at most 1,024 characters."""
    for i, entry in enumerate(entries):
        _length(f"attachments.{i}.description", entry.get("description"), ALT_TEXT)


def check_choices(choices: Any) -> None:
    """Autocomplete results: at most 25, each name 1-100 characters, a string value at most
    100."""
    if not isinstance(choices, list):
        raise FormError("data.choices", "BASE_TYPE_REQUIRED", "This field is required")
    if len(choices) > CHOICES:
        raise too_many("data.choices", CHOICES)
    for i, choice in enumerate(choices):
        _length(f"data.choices.{i}.name", choice.get("name"), CHOICE_NAME, least=1)
        value = choice.get("value")
        if isinstance(value, str):
            _length(f"data.choices.{i}.value", value, CHOICE_VALUE)


def check_modal(data: dict[str, Any]) -> None:
    """A modal's title (45) and its text inputs' labels (45)."""
    _length("data.title", data.get("title"), MODAL_TITLE, least=1)
    for i, row in enumerate(data.get("components") or []):
        for j, item in enumerate(row.get("components") or []):
            if item.get("type") == 4:
                path = f"data.components.{i}.components.{j}.label"
                _length(path, item.get("label"), TEXT_INPUT_LABEL)


def check_message_body(body: dict[str, Any]) -> None:
    """What Discord refuses in a message body (create or edit; interaction data too)."""
    _length("content", body.get("content"), CONTENT)
    check_embeds(body.get("embeds") or [])
    check_components(body.get("components") or [], int(body.get("flags") or 0))
    if body.get("attachments"):
        check_attachments(body["attachments"])


def is_empty(body: dict[str, Any], has_files: bool) -> bool:
    """Nothing to show: Discord refuses to create such a message (50006)."""
    keys = ("content", "embeds", "components", "sticker_ids", "poll")
    return not has_files and not any(body.get(key) for key in keys)
