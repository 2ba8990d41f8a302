"""The analysis chart: a small PNG of the expected size, one line (seat 0's chance, in its
colour; seat 1's would only mirror it), blunder markers on it in the blunderer's colour, a
legend saying whose line and whose colour, one separator per game boundary and every game
labelled in full, colours readable on Discord's themes, words passed in by the caller, and alt
text that names the players and counts the blunders."""

from __future__ import annotations

import doctest
import io
import random

import pytest
from PIL import Image
from support.render_spy import DrawnTexts

import render.analysis_chart
from engines.analysis import Decision, DecisionKind
from render.analysis_chart import (
    BLUNDER_RING,
    CARD,
    CHART_HEIGHT,
    CHART_WIDTH,
    LEGEND_Y,
    LINE_COLOURS,
    MAX_CHART_PNG_BYTES,
    PLOT,
    SEPARATOR,
    ChartWords,
    chart_alt_text,
    decision_x,
    game_labels,
    game_runs,
    win_chance_chart,
    y_of,
)
from render.common import EBONY, IVORY, RGB, clean_name, text_width

NAMES = ("Alice", "Bob")
DISCORD_THEMES = {
    "dark": (0x31, 0x33, 0x38),
    "dark embed": (0x2B, 0x2D, 0x31),
    "light": (0xFF, 0xFF, 0xFF),
    "light embed": (0xF2, 0xF3, 0xF5),
}


def decision(
    index: int,
    chance: float,
    *,
    game: int = 1,
    player: int | None = None,
    loss: float = 0.0,
    forced: bool = False,
    kind: DecisionKind = DecisionKind.MOVE,
) -> Decision:
    return Decision(
        game=game,
        action_index=index,
        player=index % 2 if player is None else player,
        kind=kind,
        played="13/8 6/5",
        best="24/18 13/11",
        equity_loss=loss,
        forced=forced,
        luck=None,
        win_chance=chance,
    )


def flat(count: int, chance: float, games: int = 1) -> list[Decision]:
    """``count`` decisions at one chance, split into ``games`` nearly equal games."""
    return [decision(i, chance, game=1 + i * games // count) for i in range(count)]


def random_match(count: int, games: int, seed: int = 1) -> list[Decision]:
    rng = random.Random(seed)
    out, chance = [], 0.5
    for i in range(count):
        chance = min(1.0, max(0.0, chance + rng.gauss(0, 0.06)))
        loss = rng.choice((0.0, 0.01, 0.03, 0.09, 0.2)) if rng.random() < 0.3 else 0.0
        kind = DecisionKind.CUBE if i % 10 == 9 else DecisionKind.MOVE  # a cube's now and then
        out.append(decision(i, chance, game=1 + i * games // count, loss=loss, kind=kind))
    return out


def image_of(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def luminance(colour: RGB) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def plot_colours(image: Image.Image) -> set[object]:
    colours = image.crop(PLOT).getcolors(maxcolors=PLOT[2] * PLOT[3]) or []
    return {colour for _, colour in colours}


def near(image: Image.Image, xy: tuple[int, int], colour: RGB, tolerance: int = 40) -> bool:
    """Whether the pixel at ``xy`` is within ``tolerance`` (summed over R, G, B) of ``colour``."""
    pixel = image.getpixel(xy)
    assert isinstance(pixel, tuple)
    return sum(abs(p - c) for p, c in zip(pixel, colour, strict=True)) <= tolerance


def test_doctests() -> None:
    assert doctest.testmod(render.analysis_chart).failed == 0


# --- size and shape ----------------------------------------------------------------------------


CASES = {
    "one decision": [decision(0, 0.6)],
    "no decisions": [],
    "500 decisions, 15 games": random_match(500, 15),
    "every chance 0 or 1": [decision(i, float(i % 2), game=1 + i // 34) for i in range(500)],
    "all forced": [decision(i, 0.5, forced=True, loss=0.3) for i in range(40)],
}


@pytest.mark.parametrize("decisions", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("match_play", [True, False], ids=["match", "money"])
def test_chart_is_a_small_png_of_the_chart_size(
    decisions: list[Decision], match_play: bool
) -> None:
    data = win_chance_chart(decisions, NAMES, match_play=match_play)
    image = image_of(data)
    assert image.size == (CHART_WIDTH, CHART_HEIGHT)
    assert CHART_WIDTH <= 1200 and CHART_HEIGHT <= 500
    assert len(data) < MAX_CHART_PNG_BYTES <= 200_000
    alt = chart_alt_text(decisions, NAMES, match_play=match_play)
    assert alt.strip() and len(alt) <= 1024  # Discord's limit for an attachment's description


def test_same_input_gives_the_same_bytes() -> None:
    decisions = random_match(300, 5)
    assert win_chance_chart(decisions, NAMES) == win_chance_chart(list(decisions), NAMES)
    assert chart_alt_text(decisions, NAMES) == chart_alt_text(decisions, NAMES)


# --- the lines ---------------------------------------------------------------------------------


def test_one_line_seat_0s_chance_in_its_colour_and_no_mirror_line() -> None:
    image = image_of(win_chance_chart(flat(60, 0.8), NAMES))
    assert LINE_COLOURS == (IVORY, EBONY)
    for i in (0, 30, 59):
        x = round(decision_x(i, 60))
        assert image.getpixel((x, round(y_of(0.8)))) == IVORY  # seat 0: p
        assert image.getpixel((x, round(y_of(0.2)))) == CARD  # no line for seat 1's 1 - p
        assert image.getpixel((x, round(y_of(0.6)))) == CARD
    assert EBONY not in plot_colours(image)


@pytest.mark.parametrize("chance", [0.0, 1.0])
def test_a_chance_of_exactly_0_or_1_is_drawn_on_the_plot_edge(chance: float) -> None:
    image = image_of(win_chance_chart(flat(10, chance), NAMES))
    x = round(decision_x(5, 10))
    assert image.getpixel((x, round(y_of(chance)))) == IVORY
    assert image.getpixel((x, round(y_of(1 - chance)))) != EBONY  # no mirror line
    assert y_of(1.0) == PLOT[1] and y_of(0.0) == PLOT[3]


def test_one_decision_is_a_visible_dot() -> None:
    image = image_of(win_chance_chart([decision(0, 0.7)], NAMES))
    x = round(decision_x(0, 1))
    for dx in (-3, 0, 3):
        assert image.getpixel((x + dx, round(y_of(0.7)))) == IVORY
        assert image.getpixel((x + dx, round(y_of(0.3)))) == CARD  # no mirrored dot


def test_lines_run_through_game_boundaries_in_match_play_only() -> None:
    """Match play: one match-winning chance, one line; money play: each game its own."""
    decisions = [decision(i, 0.9 if i < 5 else 0.1, game=1 if i < 5 else 2) for i in range(10)]
    x = round((decision_x(4, 10) + decision_x(5, 10)) / 2) + 4  # past the separator
    column = range(round(y_of(0.85)), round(y_of(0.15)))
    match = image_of(win_chance_chart(decisions, NAMES, match_play=True))
    money = image_of(win_chance_chart(decisions, NAMES, match_play=False))
    assert LINE_COLOURS[0] in {match.getpixel((x, y)) for y in column}
    assert not {money.getpixel((x, y)) for y in column} & set(LINE_COLOURS)


# --- blunders and games ------------------------------------------------------------------------


def marker_columns(image: Image.Image) -> list[int]:
    """The x of every amber pixel on the plot (only blunder markers are amber there)."""
    left, top, right, bottom = PLOT
    return [
        x
        for x in range(left - 12, right + 12)
        for y in range(top - 12, bottom + 12)
        if near(image, (x, y), BLUNDER_RING)
    ]


@pytest.mark.parametrize("blunderer", [0, 1])
def test_a_blunder_is_marked_on_the_line_in_the_blunderers_colour(blunderer: int) -> None:
    decisions = flat(100, 0.7)
    decisions[37] = decision(37, 0.7, player=blunderer, loss=0.15)
    image = image_of(win_chance_chart(decisions, NAMES))
    xs = marker_columns(image)
    assert xs, "no marker drawn"
    assert abs((min(xs) + max(xs)) / 2 - decision_x(37, 100)) <= 1.5
    assert max(xs) - min(xs) < 30  # one marker
    y = round(y_of(0.7))  # on the one line, whoever blundered
    x = round(decision_x(37, 100))
    # The diamond's middle is the blunderer's colour, its ring amber.
    assert near(image, (x, y), LINE_COLOURS[blunderer], 20)
    assert any(near(image, (x, y + dy), BLUNDER_RING) for dy in range(-12, 13))


def test_no_marker_without_a_blunder_nor_for_a_forced_or_small_loss() -> None:
    decisions = flat(50, 0.6)
    decisions[10] = decision(10, 0.6, loss=0.5, forced=True)
    decisions[20] = decision(20, 0.6, loss=0.05)  # an error, not a blunder
    assert marker_columns(image_of(win_chance_chart(decisions, NAMES))) == []


def separators(image: Image.Image) -> int:
    """Runs of the separator colour along a row of the plot no line crosses."""
    y = round(y_of(0.95))
    row = [image.getpixel((x, y)) == SEPARATOR for x in range(CHART_WIDTH)]
    return sum(1 for x in range(1, CHART_WIDTH) if row[x] and not row[x - 1])


@pytest.mark.parametrize("games", [1, 2, 5, 15])
def test_one_separator_between_each_two_games(games: int) -> None:
    assert separators(image_of(win_chance_chart(flat(300, 0.7, games), NAMES))) == games - 1


def test_separators_follow_the_games_played_even_when_numbers_skip() -> None:
    decisions = [decision(i, 0.6, game=(1, 3, 4)[i // 4]) for i in range(12)]
    image = image_of(win_chance_chart(decisions, NAMES))
    assert separators(image) == 2
    x = round((decision_x(3, 12) + decision_x(4, 12)) / 2)
    assert any(image.getpixel((x + dx, round(y_of(0.95)))) == SEPARATOR for dx in (-1, 0, 1))


# --- colours -----------------------------------------------------------------------------------


def test_line_colours_stand_out_on_the_card() -> None:
    for colour in LINE_COLOURS:
        assert contrast(colour, CARD) >= 3.0


@pytest.mark.parametrize("theme", DISCORD_THEMES.values(), ids=DISCORD_THEMES.keys())
def test_the_card_edge_stands_apart_from_discord_themes(theme: RGB) -> None:
    image = image_of(win_chance_chart(random_match(80, 2), NAMES))
    w, h = image.size
    edge = {image.getpixel((x, y)) for x in range(w) for y in (0, h - 1)}
    edge |= {image.getpixel((x, y)) for x in (0, w - 1) for y in range(h)}
    assert edge == {CARD}  # opaque, one colour all round
    assert contrast(CARD, theme) >= 2.5


# --- names -------------------------------------------------------------------------------------


LONG_NAMES = (
    "Ζωή Παπαδοπούλου-Κωνσταντίνου the Magnificent",
    "Александр Христофорович Бенкендорф",
)


@pytest.mark.parametrize(
    "names",
    [LONG_NAMES, ("日本語の名前", "名前"), ("W" * 40, "\u202eevil\u200b"), ("", "")],
    ids=["long", "cjk", "wide-and-hostile", "empty"],
)
def test_names_stay_in_their_legend_slot(names: tuple[str, str]) -> None:
    """Seat 1's swatch and the blunder key are where short names leave them."""
    short = image_of(win_chance_chart(flat(20, 0.6), NAMES))
    other = image_of(win_chance_chart(flat(20, 0.6), names))
    row = [short.getpixel((x, LEGEND_Y)) for x in range(CHART_WIDTH)]
    swatch = row.index(EBONY)
    box = (swatch - 10, LEGEND_Y - 16, swatch + 40, LEGEND_Y + 16)
    assert short.crop(box).tobytes() == other.crop(box).tobytes()
    key = (CHART_WIDTH - 160, LEGEND_Y - 16, CHART_WIDTH, LEGEND_Y + 16)
    assert short.crop(key).tobytes() == other.crop(key).tobytes()
    # The plot is untouched by the names.
    assert short.crop(PLOT).tobytes() == other.crop(PLOT).tobytes()


# --- alt text ----------------------------------------------------------------------------------


def test_alt_text_names_the_players_the_leader_the_swing_and_the_blunders() -> None:
    decisions = [
        decision(0, 0.55),
        decision(1, 0.6),
        decision(2, 0.25, player=0, loss=0.2),  # Alice blunders: 60% to 25%
        decision(3, 0.3, game=2),
        decision(4, 0.2, game=2, player=1, loss=0.1),
        decision(5, 0.1, game=2, player=1, loss=0.09),
    ]
    alt = chart_alt_text(decisions, NAMES)
    assert "match-winning chance" in alt
    assert "Alice" in alt and "Bob" in alt
    assert "6 decisions, 2 games" in alt
    assert "Alice was ahead after 2 of 6 decisions, Bob after 4." in alt
    assert "Biggest swings: decision 3, game 1, Alice played 13/8 6/5" in alt
    assert "Alice 60% to 25%" in alt
    assert "Blunders (diamonds): Alice 1, Bob 2." in alt
    money = chart_alt_text(decisions, NAMES, match_play=False)
    assert "match-winning" not in money and "winning chance" in money


def test_alt_text_without_blunders_or_decisions() -> None:
    assert "No blunders." in chart_alt_text(flat(10, 0.5), NAMES)
    assert "no decisions" in chart_alt_text([], NAMES)


def test_alt_text_keeps_real_names_cleaned() -> None:
    names = ("日本語の名前", "\u202eMallory\u200b" + "x" * 40)
    alt = chart_alt_text(random_match(500, 15), names)
    assert "日本語の名前" in alt
    assert clean_name(names[1], 1) in alt and "\u202e" not in alt
    assert len(alt) <= 1024


# --- the legend, the game labels, the words ----------------------------------------------------


def test_the_legend_says_whose_line_and_whose_diamond_colour() -> None:
    """Seat 0's entry carries the line's swatch and an ivory diamond, seat 1's an ebony one;
    the blunder key's diamond is both colours."""
    image = image_of(win_chance_chart(flat(20, 0.6), NAMES))
    row = [image.getpixel((x, LEGEND_Y)) for x in range(CHART_WIDTH)]
    assert row[22] == IVORY  # the line's swatch, at the start of seat 0's entry
    first_ebony = row.index(EBONY)
    assert 300 < first_ebony < 600  # seat 1's entry, past seat 0's
    key = range(CHART_WIDTH - 200, CHART_WIDTH)
    assert any(near(image, (x, LEGEND_Y), IVORY, 20) for x in key)
    assert any(near(image, (x, LEGEND_Y), EBONY, 20) for x in key)


def test_a_short_game_keeps_its_full_label(drawn_texts: DrawnTexts) -> None:
    """Game 2 of 4 decisions and game 3 of 2 among long games: "Game 2", never "2"."""
    games = [1] * 60 + [2] * 4 + [3] * 2 + [4] * 54
    decisions = [decision(i, 0.6, game=g) for i, g in enumerate(games)]
    drawn = drawn_texts(render.analysis_chart)
    win_chance_chart(decisions, NAMES)
    texts = [text for text, _ in drawn]
    for game in (1, 2, 3, 4):
        assert f"Game {game}" in texts
    assert "2" not in texts and "3" not in texts  # (the x axis has 1, 20, 40 ...)
    labels = game_labels(game_runs(decisions), len(decisions))
    assert [text for _, _, text in labels] == ["Game 1", "Game 2", "Game 3", "Game 4"]
    assert len({row for row, _, _ in labels}) == 2  # the short games' labels share no row
    for (_, x, _), run in zip(labels, game_runs(decisions), strict=True):
        # Each starts inside its own game.
        assert decision_x(run.start, 120) - 5 <= x < decision_x(run.stop - 1, 120) + 5


def test_a_chart_without_cube_decisions_names_only_moves(drawn_texts: DrawnTexts) -> None:
    """Issue 33: the checkers chart spoke of "cube actions"; checkers has no cube. The axis
    names the cube only when some decision is a cube's."""
    drawn = drawn_texts(render.analysis_chart)
    win_chance_chart(flat(30, 0.6), NAMES)
    texts = [text for text, _ in drawn]
    assert ChartWords().axis_moves in texts
    assert not any("cube" in text for text in texts)
    drawn.clear()
    win_chance_chart(random_match(30, 1), NAMES)
    assert ChartWords().axis in [text for text, _ in drawn]


def test_fifteen_games_all_labelled_in_full() -> None:
    decisions = random_match(500, 15)
    labels = game_labels(game_runs(decisions), len(decisions))
    assert [text for _, _, text in labels] == [f"Game {n}" for n in range(1, 16)]


def test_words_are_the_callers_and_long_ones_are_not_clipped(drawn_texts: DrawnTexts) -> None:
    words = ChartWords(
        title_match="Wahrscheinlichkeit, das ganze Match zu gewinnen, nach jeder Entscheidung",
        blunder="Grober Patzer des Spielers",
        game="Partie {number}",
        axis="Entscheidungen der Reihe nach (Züge und Aktionen mit dem Verdopplungswürfel)",
    )
    drawn = drawn_texts(render.analysis_chart)
    win_chance_chart(random_match(300, 5), NAMES, words=words)
    texts = dict(drawn)
    assert "Partie 1" in texts and "Game 1" not in texts
    title = next(t for t, _ in drawn if t.startswith("Wahrscheinlichkeit"))
    assert text_width(title, texts[title]) <= CHART_WIDTH - 40
    key = next(t for t, _ in drawn if t.startswith("Grober"))
    assert text_width(key, texts[key]) <= 150  # its slot at the legend's right
    axis = next(t for t, _ in drawn if t.startswith("Entscheidungen"))
    assert text_width(axis, texts[axis]) <= PLOT[2] - PLOT[0]
