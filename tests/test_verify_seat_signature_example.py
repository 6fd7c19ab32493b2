"""The seat-signature worked example of docs/verification.md (section 2) is what the code computes: the canonical key,
the bytes a seat signs and the Ed25519 signature, and the verifier's check accepts it."""

from __future__ import annotations

import base64
import pathlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.seat_keys import canonical_public_key, signed_message
from service.seat_signatures import seat_signature_holds as signature_holds

DOC = (pathlib.Path(__file__).parent.parent / "docs" / "verification.md").read_text()


def test_the_documented_seat_signature_example_is_what_the_code_computes():
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    raw = base64.b64encode(key.public_key().public_bytes(serialization.Encoding.Raw,
                                                         serialization.PublicFormat.Raw)).decode()
    recorded = canonical_public_key({"alg": "ed25519", "key": raw})
    message = signed_message("m", 7, {"type": "play", "card": "4-yellow"})
    signature = base64.b64encode(key.sign(message)).decode()
    assert f"raw public key\n`{raw}`" in DOC
    assert f'"public_key": {{"alg": "ed25519", "key": "{recorded["key"]}"}}' in DOC
    assert f"\n{message.decode()}\n" in DOC
    assert f"Gambit-Signature: {signature}\n" in DOC
    assert signature_holds(recorded, message, signature)


def test_a_p256_signature_is_raw_r_and_s_and_holds_only_for_its_message():
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(serialization.Encoding.X962,
                                              serialization.PublicFormat.UncompressedPoint)
    recorded = canonical_public_key({"alg": "p256", "key": base64.b64encode(point).decode()})
    message = signed_message("m", 7, {"type": "pass"})
    r, s = decode_dss_signature(private.sign(message, ec.ECDSA(hashes.SHA256())))
    signature = base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode()
    assert signature_holds(recorded, message, signature)
    assert not signature_holds(recorded, signed_message("m", 8, {"type": "pass"}), signature)
    der = base64.b64encode(private.sign(message, ec.ECDSA(hashes.SHA256()))).decode()
    assert not signature_holds(recorded, message, der), "only the raw r‖s form (as WebCrypto makes it) is taken"
