"""The record formulas and the chance derivation are exactly those of docs/verification.md."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter

import pytest

from domain.chance import Chance, derive_draw
from domain.records import canonical, chain_link, commitment, genesis

SEED = bytes.fromhex("11" * 32)


def test_canonical_json_sorts_keys_and_keeps_unicode():
    assert canonical({"b": 1, "a": "é"}) == '{"a":"é","b":1}'.encode()


def test_commitment_is_sha256_of_canonical_salt_and_secret():
    expected = hashlib.sha256(b'{"salt":"00ff","secret":{"card":"7-red"}}').hexdigest()
    assert commitment({"card": "7-red"}, "00ff") == expected


def test_chain_links_each_record_to_the_previous_one():
    first = genesis("m-1")
    assert first == hashlib.sha256(b"gambit:m-1").hexdigest()
    body = b'{"commitment":null,"kind":"MatchCreated","public":{},"timestamp":"t","version":1}'
    assert chain_link(first, 1, "MatchCreated", "t", {}, None) == hashlib.sha256(bytes.fromhex(first) + body).hexdigest()


def test_draw_is_hmac_of_the_canonical_message_reduced_without_bias():
    message = json.dumps({"match": "m", "client_seeds": ["", "ab"], "purpose": "p", "counter": 0},
                         sort_keys=True, separators=(",", ":")).encode()
    x = int.from_bytes(hmac.new(SEED, message, hashlib.sha256).digest()[:8], "big")
    assert derive_draw(SEED, "m", ["", "ab"], "p", 6) == x % 6


def test_rejection_sampling_skips_values_in_the_biased_tail():
    # n = 2**63 + 1 makes almost half of all 64-bit values fall in the rejected tail,
    # so some purpose needs a second counter; the result is then from counter 1.
    n = 2**63 + 1
    for i in range(64):
        message = canonical({"match": "m", "client_seeds": [], "purpose": f"p{i}", "counter": 0})
        x = int.from_bytes(hmac.new(SEED, message, hashlib.sha256).digest()[:8], "big")
        if x >= 2**64 - (2**64 % n):
            second = canonical({"match": "m", "client_seeds": [], "purpose": f"p{i}", "counter": 1})
            y = int.from_bytes(hmac.new(SEED, second, hashlib.sha256).digest()[:8], "big")
            if y < 2**64 - (2**64 % n):
                assert derive_draw(SEED, "m", [], f"p{i}", n) == y % n
                return
    pytest.fail("no purpose hit the rejected tail")


def test_permutation_is_fisher_yates_with_one_draw_per_position():
    drawn = Chance(SEED, "m", ["", ""]).permutation("deal", 10)
    order = list(range(10))
    for i in range(9, 0, -1):
        j = derive_draw(SEED, "m", ["", ""], f"deal/{i}", i + 1)
        order[i], order[j] = order[j], order[i]
    assert drawn.result == order
    assert drawn.descriptor == {"draw": "permutation", "purpose": "deal", "n": 10}


def test_roll_is_a_draw_plus_one_and_covers_every_face():
    chance = Chance(SEED, "m", [""])
    faces = Counter(chance.roll(f"r{i}", 6).result for i in range(600))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(60 < count < 140 for count in faces.values())


def test_purposes_are_scoped_by_version_and_never_reused():
    chance = Chance(SEED, "m", [""], scope="v7")
    assert chance.draw("deal", 3).purpose == "v7/deal"
    with pytest.raises(ValueError):
        chance.draw("deal", 3)


def test_client_seeds_change_every_draw():
    assert Chance(SEED, "m", ["", ""]).permutation("p", 20).result != Chance(SEED, "m", ["", "ab"]).permutation("p", 20).result
