"""Dice: fair faces, a plausible distribution, commitments that verify, and counter resume."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from engines.dice import FairDice, RandomDice, commitment, die_at, verify

SEED = bytes(range(32))
# Chi-square critical value for 5 degrees of freedom at p = 0.001.
CHI2_5DOF_P001 = 20.515


def chi_square(counts: Counter[int], n: int) -> float:
    expected = n / 6
    return sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))


def test_fair_dice_show_all_six_faces_and_nothing_else() -> None:
    dice = FairDice(SEED)
    faces = {dice.roll_die() for _ in range(300)}
    assert faces == {1, 2, 3, 4, 5, 6}


def test_random_dice_show_all_six_faces_and_nothing_else() -> None:
    dice = RandomDice(random.Random(7))
    assert {dice.roll_die() for _ in range(300)} == {1, 2, 3, 4, 5, 6}


def test_random_dice_are_reproducible_from_a_seed() -> None:
    a, b = RandomDice(random.Random(42)), RandomDice(random.Random(42))
    assert [a.roll_die() for _ in range(50)] == [b.roll_die() for _ in range(50)]


def test_chi_square_of_60000_fair_dice_is_plausible() -> None:
    n = 60_000
    dice = FairDice(SEED)
    counts = Counter(dice.roll_die() for _ in range(n))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert chi_square(counts, n) < CHI2_5DOF_P001
    assert dice.counter == n


def test_chi_square_rejects_a_loaded_die() -> None:
    # The statistic itself must be able to fail: a die that shows 6 a bit too often.
    n = 60_000
    counts = Counter({1: 9800, 2: 9800, 3: 9800, 4: 9800, 5: 9800, 6: 11000})
    assert chi_square(counts, n) > CHI2_5DOF_P001


def test_commitment_is_the_sha256_of_the_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert FairDice(SEED).commitment == commitment(SEED)


def test_verify_accepts_the_true_rolls() -> None:
    dice = FairDice(SEED)
    rolls = [dice.roll_die() for _ in range(100)]
    assert verify(commitment(SEED), SEED.hex(), rolls)
    assert verify(commitment(SEED).upper(), SEED.hex(), rolls)
    assert verify(commitment(SEED), SEED.hex(), [])


def test_verify_rejects_a_wrong_seed() -> None:
    dice = FairDice(SEED)
    rolls = [dice.roll_die() for _ in range(100)]
    other = bytes(32)
    assert not verify(commitment(SEED), other.hex(), rolls)
    # Even with a matching commitment, the other seed's dice differ.
    assert not verify(commitment(other), other.hex(), rolls)
    assert not verify(commitment(SEED), "not hex", rolls)
    assert not verify(commitment(SEED), SEED.hex()[:-2], rolls)  # 31 bytes


def test_verify_rejects_a_wrong_commitment() -> None:
    dice = FairDice(SEED)
    rolls = [dice.roll_die() for _ in range(20)]
    assert not verify(commitment(bytes(32)), SEED.hex(), rolls)
    assert not verify("", SEED.hex(), rolls)


def test_verify_rejects_any_changed_roll() -> None:
    dice = FairDice(SEED)
    rolls = [dice.roll_die() for _ in range(60)]
    for i in range(len(rolls)):
        changed = list(rolls)
        changed[i] = changed[i] % 6 + 1
        assert not verify(commitment(SEED), SEED.hex(), changed)
    assert not verify(commitment(SEED), SEED.hex(), rolls[1:])  # a dropped roll shifts the rest


def test_counter_resume_continues_the_same_sequence() -> None:
    whole = FairDice(SEED)
    rolls = [whole.roll_die() for _ in range(40)]
    for k in (0, 1, 17, 39):
        resumed = FairDice(SEED, counter=k)
        assert [resumed.roll_die() for _ in range(40 - k)] == rolls[k:]
        assert resumed.counter == 40
    assert [die_at(SEED, i) for i in range(40)] == rolls


def test_new_fair_dice_have_fresh_seeds() -> None:
    a, b = FairDice.new(), FairDice.new()
    assert len(a.seed) == 32 and a.seed != b.seed
    assert a.counter == 0


def test_bad_seeds_and_indexes_are_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        FairDice(b"short")
    with pytest.raises(ValueError, match=">= 0"):
        die_at(SEED, -1)
