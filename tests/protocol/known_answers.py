#!/usr/bin/env python3
"""Derives the expected hashes and MAC of tests/protocol/*_known_answer_test.cpp independently
of hdstream's code: the bodies are written out by hand from docs/PROTOCOL.md, XXH3-64 comes from
python-xxhash (pip install xxhash) cross-checked with `xxhsum -H3` (Debian package xxhash), and
HMAC-SHA-256 from Python's hmac. Not run by ctest: the tests hold its output as literals.
   python3 tests/protocol/known_answers.py"""
import hashlib
import hmac
import subprocess

import xxhash


def h(text):
    return bytes.fromhex(text.replace(" ", ""))


def xxh3(data):
    value = xxhash.xxh3_64_intdigest(data)
    cli = subprocess.run(["xxhsum", "-H3", "-"], input=data, capture_output=True, check=True)
    digest = [t for t in cli.stdout.split() if len(t) == 16][0]
    assert int(digest, 16) == value, "python-xxhash and xxhsum disagree"
    return f"0x{value:016x}"


def pattern(n):  # byte i = (7 i + 3) mod 256
    return bytes((i * 7 + 3) & 0xFF for i in range(n))


for n in [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 4096, 5000]:
    print(f"XXH3 of pattern({n}): {xxh3(pattern(n))}")
frame = pattern(5000)
print("chunk 0 (bytes 0..4095):", xxh3(frame[:4096]), " chunk 1 (4096..4999):", xxh3(frame[4096:]))

hello_56 = h("02 00 0780 0438 00007530 000003e9 000000000d1cef00 02 04 0000 00010000 00000078"
             "00017ae8 0000000000003039 03 00 8877665544332211")  # base + extension 1
assert len(hello_56) == 56
hello = hello_56 + h("02 01 0000 0123456789abcdef")  # extension 2: leg 1 of 2, feed id
assert len(hello) == 68
reason = b"stream 2 is busy"
hello_ack = h("03 00") + len(reason).to_bytes(2, "big") + reason
end = h("000000000000012c")
ack = h("0000000100000002 0000000000001234 03 00 0000 00000000")
feedback = h("17979cfe362a0000 0000001cbe991a14 0000000000000e10 0000000000000002"
             "0000000000000001 0000013e 00007512 fffffd29 00000064")
assert len(ack) == 24 and len(feedback) == 56
for name, body in [("HELLO", hello), ("HELLO_ACK", hello_ack), ("END", end), ("ACK", ack),
                   ("FEEDBACK", feedback)]:
    print(f"{name} body ({len(body)} bytes): {xxh3(body)}")

key, receiver_nonce, sender_nonce = bytes(range(0, 32)), bytes(range(32, 64)), bytes(range(64, 96))
stream_id = (2).to_bytes(2, "big")
mac = hmac.new(key, b"hdstream-auth-v1" + receiver_nonce + sender_nonce + stream_id + hello_56,
               hashlib.sha256).digest()
print("MAC:", mac.hex())
print("CHALLENGE body:", xxh3(h("01 000000") + receiver_nonce))
print("AUTH body:", xxh3(h("01 000000") + sender_nonce + mac))
