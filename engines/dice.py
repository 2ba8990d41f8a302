"""Dice drawn from an injected source, and a fair, verifiable source for real matches.

Tests inject :class:`RandomDice` around ``random.Random(seed)``. Real matches use
:class:`FairDice`: a secret 32-byte seed per match; die number ``i`` (counting from 0 over the
whole match) is HMAC-SHA256(seed, i as 8 big-endian bytes), read byte by byte and mapped to 1..6
by rejection sampling (bytes >= 252 are skipped, so there is no modulo bias). The SHA-256 of the
seed is published when the match starts and the seed when it ends; :func:`verify` then rechecks
every die of the match.

>>> seed = bytes(32)
>>> dice = FairDice(seed)
>>> rolls = [dice.roll_die() for _ in range(6)]
>>> rolls
[4, 3, 4, 6, 1, 5]
>>> verify(commitment(seed), seed.hex(), rolls)
True
>>> verify(commitment(seed), seed.hex(), [*rolls[:-1], 6])
False
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable
from typing import Protocol

SEED_BYTES = 32
_LIMIT = 252  # the largest multiple of 6 that fits in a byte


class DiceSource(Protocol):
    """Anything that rolls one fair six-sided die."""

    def roll_die(self) -> int: ...


class RandomDice:
    """Dice from a :class:`random.Random`, for tests and simulations.

    >>> dice = RandomDice(random.Random(1))
    >>> sorted({dice.roll_die() for _ in range(200)})
    [1, 2, 3, 4, 5, 6]
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng if rng is not None else random.Random()

    def roll_die(self) -> int:
        return self._rng.randint(1, 6)


def die_at(seed: bytes, index: int) -> int:
    """The die number ``index`` of the match whose secret seed is ``seed``."""
    if index < 0:
        raise ValueError(f"die index must be >= 0, not {index}")
    block = 0
    while True:
        message = index.to_bytes(8, "big") + (block.to_bytes(4, "big") if block else b"")
        digest = hmac.new(seed, message, hashlib.sha256).digest()
        for byte in digest:
            if byte < _LIMIT:
                return byte % 6 + 1
        block += 1  # all 32 bytes rejected: probability (4/256)**32, but stay exact


class FairDice:
    """The verifiable dice of one match: HMAC-SHA256(seed, counter), no modulo bias."""

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a dice seed has {SEED_BYTES} bytes, not {len(seed)}")
        self.seed = seed
        self.counter = counter

    @classmethod
    def new(cls) -> FairDice:
        """A fresh match's dice, from the operating system's secure generator."""
        return cls(secrets.token_bytes(SEED_BYTES))

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    def roll_die(self) -> int:
        value = die_at(self.seed, self.counter)
        self.counter += 1
        return value


def commitment(seed: bytes) -> str:
    """The published SHA-256 commitment of a seed, as hex."""
    return hashlib.sha256(seed).hexdigest()


def verify(commitment_hex: str, seed_hex: str, rolls: Iterable[int]) -> bool:
    """True when the seed matches its commitment and produced exactly these dice, in order."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        return False
    if len(seed) != SEED_BYTES or not hmac.compare_digest(commitment(seed), commitment_hex.lower()):
        return False
    return all(die_at(seed, i) == value for i, value in enumerate(rolls))
