#!/usr/bin/env python3
"""Writes the small committed seed corpora in fuzz/corpus/ (run once; output is committed).
   python3 fuzz/make_seeds.py"""
import os, struct

here = os.path.dirname(os.path.abspath(__file__))
MAGIC = 0x48445354

def header(type_, stream=7, seq=0, frame_bytes=0, index=0, count=0, offset=0, payload=0, ts=0, xxh=0):
    return struct.pack(">IBBHQIHHIIQQ", MAGIC, 1, type_, stream, seq, frame_bytes, index, count,
                       offset, payload, ts, xxh)

def hello(flags=0, first=0, chunk=65536):
    return struct.pack(">BBHHIIQBBHIIIQ", 1, flags, 1920, 1080, 30000, 1001, 270_000_000,
                       1, 1, 0, chunk, 120, 1000, first)

def write(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# wire_reassembler: mode byte, then [header][payload] records (mode bit 0 fixes checksums).
def chunk(seq, index, count, frame_bytes, stride, stream=7):
    offset = index * stride
    size = min(stride, frame_bytes - offset)
    return header(1, stream, seq, frame_bytes, index, count, offset, size) + bytes([seq & 255]) * size

frame = b"".join(chunk(0, i, 4, 1000, 256) for i in range(4))
write("wire_reassembler", "one_frame", bytes([3]) + frame)
write("wire_reassembler", "reordered", bytes([3]) + chunk(0, 2, 4, 1000, 256) + chunk(0, 0, 4, 1000, 256)
      + chunk(0, 3, 4, 1000, 256) + chunk(0, 1, 4, 1000, 256) + chunk(1, 0, 1, 100, 100))
write("wire_reassembler", "gap_and_dup", bytes([7]) + chunk(0, 0, 2, 300, 200) + chunk(0, 0, 2, 300, 200)
      + chunk(2, 0, 1, 50, 50) + chunk(0, 1, 2, 300, 200) + chunk(3, 0, 1, 50, 50))
write("wire_reassembler", "bad_checksum", bytes([2]) + chunk(0, 0, 1, 64, 64))
write("wire_reassembler", "finish", bytes([3 | 8 | 0x30]) + chunk(0, 0, 1, 64, 64) + chunk(1, 0, 1, 64, 64))
write("wire_reassembler", "control_then_chunk", bytes([3]) + header(2, payload=len(hello())) + hello()
      + chunk(0, 0, 1, 10, 10))
write("wire_reassembler", "far_ahead", bytes([3]) + chunk(1 << 40, 0, 1, 10, 10) + chunk(0, 0, 1, 10, 10))

# handshake: selector byte (0 hello, 1 ack, 2 end, 3 challenge, 4 auth, 5 whole message).
write("handshake", "hello", bytes([0]) + hello())
write("handshake", "hello_probe_resume", bytes([0]) + hello(flags=1, first=123456))
write("handshake", "hello_extended", bytes([0]) + hello() + b"\0" * 16)
# A feed with audio: codec byte 0x82, extensions 1 and 2, then extension 3 (8 channels, 24-bit).
audio_hello = bytes([0x82]) + hello()[1:] + struct.pack(">BBQBBHQ", 0, 0, 42, 1, 0, 0, 0) \
    + struct.pack(">BBHI", 8, 24, 0, 48000)
write("handshake", "hello_audio", bytes([0]) + audio_hello)
write("handshake", "ack_accepted", bytes([1]) + struct.pack(">BBH", 1, 0, 0))
write("handshake", "ack_refused", bytes([1]) + struct.pack(">BBH", 5, 0, 18) + b"authentication bad")
write("handshake", "end", bytes([2]) + struct.pack(">Q", 300))
write("handshake", "challenge", bytes([3]) + struct.pack(">BBH", 1, 0, 0) + bytes(range(32)))
write("handshake", "auth", bytes([4]) + struct.pack(">BBH", 1, 0, 0) + bytes(range(32)) + bytes(range(64, 96)))
write("handshake", "auth_short", bytes([4]) + struct.pack(">BBH", 1, 0, 0) + bytes(range(40)))
write("handshake", "srt_stream_id", bytes([6]) + b"#!::m=publish,x-hdstream-rate=270000000,"
      b"x-hdstream-latency-ms=800,x-hdstream-rtt-ms=200")
write("handshake", "srt_stream_id_other_tool", bytes([6]) + b"#!::r=live/stream1,m=request,u=studio")
write("handshake", "srt_stream_id_leg_b", bytes([6]) + b"#!::m=publish,x-hdstream-rate=270000000,"
      b"x-hdstream-latency-ms=800,x-hdstream-rtt-ms=35,x-hdstream-leg=1")

# receiver_reports: selector byte (0 ACK body, 1 FEEDBACK body, 2 last FEEDBACK body, 3 whole
# message; | 4 recomputes the header's checksum), then the bytes a sender reads from its receiver.
def ack(next_seq=1200, chunks=5000, sub=2):
    return struct.pack(">QQBBHI", next_seq, chunks, sub, 0, 0, 0)

def feedback(report_ns=1_700_000_000_000_000_000, bytes_=123456789, frames=3600, drops=2,
             errors=1, jitter_us=318, fps_milli=29970, latency_us=-727, interval_ms=100):
    return struct.pack(">qQQQQIIiI", report_ns, bytes_, frames, drops, errors, jitter_us, fps_milli,
                       latency_us, interval_ms)

# FEEDBACK extension 1: five counters, transit_count, reserved, then (frame_seq, transit_us) pairs.
def feedback_ext(late=0, events=1, longest=2, dups=3, ooo=4,
                 transits=((3600, 1200), (3601, -40)), count=None, reserved=0):
    n = len(transits) if count is None else count
    return (struct.pack(">QQQQQHH", late, events, longest, dups, ooo, n, reserved) +
            b"".join(struct.pack(">Ii", s, t) for s, t in transits))

write("receiver_reports", "ack", bytes([0]) + ack())
write("receiver_reports", "ack_newer_revision", bytes([0]) + ack(sub=15) + b"\x7f" * 8)
write("receiver_reports", "ack_bad_subconnection", bytes([0]) + ack(sub=16))
write("receiver_reports", "ack_short", bytes([0]) + ack()[:23])
write("receiver_reports", "feedback", bytes([1]) + feedback())
write("receiver_reports", "feedback_last", bytes([2]) + feedback(drops=0, errors=0))
write("receiver_reports", "feedback_newer_revision",
      bytes([1]) + feedback() + feedback_ext(transits=()) + b"\0" * 8)
write("receiver_reports", "feedback_extended", bytes([1]) + feedback() + feedback_ext())
write("receiver_reports", "feedback_extension_truncated",
      bytes([1]) + feedback() + feedback_ext()[:20])
write("receiver_reports", "feedback_extended_samples_missing",
      bytes([1]) + feedback() + feedback_ext(count=3))
write("receiver_reports", "feedback_extended_too_many",
      bytes([1]) + feedback() + feedback_ext(count=257, transits=((1, 1),) * 257))
write("receiver_reports", "feedback_extended_late_above_drops",
      bytes([1]) + feedback() + feedback_ext(late=3))
write("receiver_reports", "feedback_extended_reserved", bytes([1]) + feedback() + feedback_ext(reserved=1))
write("receiver_reports", "feedback_limits", bytes([1]) + feedback(
    report_ns=1, frames=2**63, drops=2**63 - 1, jitter_us=60_000_000, fps_milli=1_000_000,
    latency_us=-2**31, interval_ms=60_000))
write("receiver_reports", "feedback_overflowing_counts", bytes([1]) + feedback(frames=2**64 - 1))
write("receiver_reports", "feedback_zero_interval", bytes([1]) + feedback(interval_ms=0))
write("receiver_reports", "message_ack", bytes([3 | 4]) + header(6, payload=24) + ack())
write("receiver_reports", "message_feedback_last",
      bytes([3 | 4]) + header(5, seq=1, payload=56) + feedback())
write("receiver_reports", "message_feedback_extended",
      bytes([3 | 4]) + header(5, payload=116) + feedback() + feedback_ext())
write("receiver_reports", "message_feedback_truncated_body",
      bytes([3 | 4]) + header(5, payload=40) + feedback()[:40])

# presets: small TOML files in the shapes hdstream.toml uses.
write("presets", "destination.toml", b'''[destinations.portland]
description = "SC99"
hosts = ["10.0.0.1", "10.0.0.2"]
port = 9000
transport = "tcp"
streams = 5
rate = "270M"
rtt = "4ms"
link_rate = "2.488G"
mtu = 9000
distance_km = 300
latency = "120ms"
cc = "bbr"
key_file = "/etc/hdstream/portland.key"
''')
write("presets", "format.toml", b'''[formats.dnxhd220]
codec = "dnxhd"
width = 1920
height = 1080
frame_rate = "30000/1001"
rate = "220M"
''')
write("presets", "profile.toml", b'''[profiles.show]
destination = "portland"
format = "dnxhd220"
streams = 5
rate = "270M"
transport = "tcp"

[destinations.portland]
hosts = ["[::1]"]
port = 65535
''')
write("presets", "errors.toml", b'[destinations.x]\nport = -1\nrate = "fast"\nhosts = []\n')

# audio_block: 12 feed bytes (codec, width, height, fps num-1 (u16), den-1 (u8), audio: channels-1 and
# bit 7 for 24-bit, 5-byte frame seq), then a frame: picture, PCM and the trailer.
def audio_params(codec_sel, num, den, audio_byte, seq):
    return bytes([codec_sel, 0, 0, (num - 1) >> 8, (num - 1) & 0xff, den - 1, audio_byte]) + seq.to_bytes(5, "big")

def audio_block(seq, num, den, channels, bits):
    at = lambda n: n * 48000 * den // num
    samples = at(seq + 1) - at(seq)
    pcm = bytes((i * 7 + seq) % 256 for i in range(samples * channels * bits // 8))
    return pcm + struct.pack(">IIQ", 0x48444155, samples, at(seq))

write("audio_block", "dnxhd-30fps-8ch24", audio_params(0, 30, 1, 0x87, 7) + b"\x11" * 100 + audio_block(7, 30, 1, 8, 24))
write("audio_block", "uyvy-25fps-2ch16", audio_params(2, 25, 1, 0x01, 3) + b"\x22" * 4 + audio_block(3, 25, 1, 2, 16))
write("audio_block", "dnxhd-7.5fps-1ch24", audio_params(0, 15, 2, 0x80, 12345) + b"\x33" * 10 + audio_block(12345, 15, 2, 1, 24))
