"""The faster canonical encoding is the published one, byte for byte and error for error.

The write path (`canonical`) and the verifier (`canonical_parsed`, for values read from JSON
text) both skip set-up the plain `json.dumps` call repeats; every stored chain must keep
verifying, so both must give exactly the bytes — and refuse exactly the values — of the formula.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from domain.records import (
    MAX_JSON_INT,
    canonical,
    canonical_parsed,
    chain_body,
    chain_body_parsed,
    chain_link,
    commitment,
    genesis,
    json_copy,
    linked,
    opening,
    opening_parsed,
)


def reference(value: object) -> bytes:
    """Canonical JSON as the record format defines it: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


VALUES = [
    None,
    True,
    False,
    0,
    -1,
    MAX_JSON_INT,
    -MAX_JSON_INT,
    1.5,
    -0.0,
    1e16,
    2.5e-300,
    "",
    "plain",
    "é ü 漢字 🎲 \u2028 \u00a0",
    'quote " backslash \\ slash / tab \t newline \n nul \u0000 bell \u0007',
    "colon: and \\u003a written out",
    "12345678901234567890",  # a long digit run inside a string is text, not an integer
    [],
    {},
    [1, "two", 3.0, None, [True, {"z": 1, "a": 2}]],
    {"b": 1, "a": {"d": [1, 2, {"y": None, "x": "é"}], "c": 2}, "A": 0, "é": "key order is by code point"},
    {"version": 12, "kind": "RoundDealt", "public": {"chance": {"draw": "permutation", "purpose": "v4/deal", "n": 3}}},
    {str(n): list(range(n)) for n in range(20)},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_both_encodings_give_the_bytes_of_the_formula(value):
    assert canonical(value) == reference(value)
    assert canonical_parsed(value) == reference(value)
    parsed = json.loads(json.dumps(value))
    assert canonical_parsed(parsed) == reference(parsed)


REFUSED = [
    (float("nan"), "Out of range float"),
    (float("inf"), "Out of range float"),
    ({"a": [float("-inf")]}, "Out of range float"),
    (MAX_JSON_INT + 1, "beyond"),
    (-MAX_JSON_INT - 1, "beyond"),
    ({"deep": [{"n": 2**64}]}, "beyond"),
    ("\udc80", "surrogate"),
    ({"key\ud800": 1}, "surrogate"),
]


@pytest.mark.parametrize("value, message", REFUSED, ids=range(len(REFUSED)))
def test_both_encodings_refuse_what_json_cannot_carry_with_the_same_error(value, message):
    errors = []
    for encode in (canonical, canonical_parsed):
        with pytest.raises(ValueError, match=message) as caught:
            encode(value)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]


def test_an_unencodable_object_is_a_type_error_in_both():
    for encode in (canonical, canonical_parsed):
        with pytest.raises(TypeError, match="not JSON serializable"):
            encode({"a": object()})


def test_chain_and_commitment_are_the_published_formulas():
    public = {"seat": "p1", "card": "c07", "note": "é: 漢字"}
    previous = genesis("m-1")
    assert previous == hashlib.sha256(b"gambit:m-1").hexdigest()
    body = {"version": 3, "kind": "CardDrawn", "timestamp": "2026-01-01T00:00:03+00:00", "public": public}
    expected_link = hashlib.sha256(bytes.fromhex(previous) + reference({**body, "commitment": "ab" * 32})).hexdigest()
    assert chain_link(previous, 3, "CardDrawn", body["timestamp"], public, "ab" * 32) == expected_link
    assert linked(previous, chain_body(3, "CardDrawn", body["timestamp"], public, "ab" * 32, canonical_parsed)) == (
        expected_link
    )
    secret = {"card": "c07", "values": [1, 2.5, None]}
    expected_commitment = hashlib.sha256(reference({"salt": "s-1", "secret": secret})).hexdigest()
    assert commitment(secret, "s-1") == expected_commitment
    assert hashlib.sha256(opening(secret, "s-1", canonical_parsed)).hexdigest() == expected_commitment


# Record parts as a reader may find them: the common shapes, and odd ones that must still give the formula.
PARTS = [
    (1, "MatchCreated", "2026-01-01T00:00:01+00:00", {"a": 1}, None),
    (2, "CardDrawn", "2026-01-01T00:00:02.5+00:00", {}, "ab" * 32),
    (MAX_JSON_INT, 'Kind "quoted" é', "t\n漢字", {"z": [1, 2.5, None], "A": "\u2028"}, "cd" * 32),
    (3, "K", "T", {"n": 12345678901234567890 // 10**4}, None),  # a long digit run that is a fine integer
    (-1, "", "", {"deep": {"b": [], "a": {}}}, ""),
]


@pytest.mark.parametrize("parts", PARTS, ids=range(len(PARTS)))
def test_the_direct_chain_body_is_the_formula_byte_for_byte(parts):
    assert chain_body_parsed(*parts) == chain_body(*parts) == chain_body(*parts, canonical_parsed)


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_direct_chain_body_and_opening_encode_any_value_as_the_formula_does(value):
    assert chain_body_parsed(7, "K", "T", value, None) == chain_body(7, "K", "T", value, None)
    assert opening_parsed(value, "salt") == opening(value, "salt")


@pytest.mark.parametrize("value, message", REFUSED, ids=range(len(REFUSED)))
def test_the_direct_encodings_refuse_what_the_formula_refuses(value, message):
    for encode in (lambda v: chain_body_parsed(7, "K", "T", v, None), lambda v: opening_parsed(v, "salt")):
        with pytest.raises(ValueError, match=message):
            encode(value)


@pytest.mark.parametrize(
    "parts",
    [
        (MAX_JSON_INT + 1, "K", "T", {}, None),
        (1, "K\udc80", "T", {}, None),
        (1, "K", "T\ud800", {}, None),
        (1, "K", "T", {}, "\udc80"),
    ],
    ids=range(4),
)
def test_the_direct_chain_body_refuses_an_unencodable_header_part_as_the_formula_does(parts):
    with pytest.raises(ValueError):
        chain_body(*parts)
    with pytest.raises(ValueError):
        chain_body_parsed(*parts)


def test_the_direct_encodings_fall_back_to_the_formula_for_parts_json_text_does_not_give():
    assert chain_body_parsed(True, "K", "T", {}, None) == chain_body(True, "K", "T", {}, None)
    assert opening_parsed({"x": 1}, None) == opening({"x": 1}, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        chain_body_parsed(1, "K", "T", {"a": object()}, None)


COPIED = [*VALUES, (1, (2, "three")), {1: "int key", None: "null key", False: "bool key", 2.5: "float key"}, {"lone": "\udc80"}]


@pytest.mark.parametrize("value", COPIED, ids=range(len(COPIED)))
def test_the_json_copy_is_what_a_json_round_trip_gives(value):
    copied = json_copy(value)
    assert copied == json.loads(json.dumps(value))
    assert json.dumps(copied) == json.dumps(json.loads(json.dumps(value)))


def test_the_json_copy_shares_nothing_with_the_original():
    original = {"hand": ["7-blue"], "nested": {"seen": [1]}}
    copied = json_copy(original)
    copied["hand"].append("8-red")
    copied["nested"]["seen"].clear()
    assert original == {"hand": ["7-blue"], "nested": {"seen": [1]}}


def test_the_json_copy_refuses_what_json_cannot_write():
    with pytest.raises(TypeError):
        json_copy({"a": object()})
