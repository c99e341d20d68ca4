#!/usr/bin/python3
"""The loopback ceiling: bytes moved by the kernel alone, with no copy into or out of a process.

The sender sendfile()s a file that lives in memory (/dev/shm) into each TCP connection; the
receiver splice()s each connection through a pipe into /dev/null. Neither side reads or writes a
byte in user space, so this is what the kernel's loopback path costs per byte (and how fast it
goes) when nothing else does: the limit beside hdstream's and iperf3's figures.

    splice_peer.py --listen PORT --streams 5          # prints one JSON line when all are done
    splice_peer.py --dest PORT --streams 5 --seconds 6 [--rate 270M]
"""

import argparse
import fcntl
import json
import os
import resource
import socket
import sys
import tempfile
import threading
import time

PIECE = 1 << 20  # bytes per sendfile()/splice() call (the receiver's pipe holds as much)
failures = []  # an exception in any thread: the run is not a measurement


def worker(target, *args):
    def run():
        try:
            target(*args)
        except Exception as error:  # noqa: BLE001 - reported, and the exit code says so
            failures.append(f"{target.__name__}: {error}")
    return threading.Thread(target=run)


def cpu_s():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def receive(conn, totals, index):
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIECE)
    null = os.open("/dev/null", os.O_WRONLY)
    total = 0
    try:
        while True:
            n = os.splice(conn.fileno(), write_end, PIECE)
            if n == 0:
                break
            total += n
            while n > 0:
                n -= os.splice(read_end, null, n)
    finally:
        for fd in (read_end, write_end, null):
            os.close(fd)
        conn.close()
    totals[index] = total


def send(port, seconds, rate_bps, source, totals, index):
    conn = socket.create_connection(("127.0.0.1", port))
    size = os.fstat(source).st_size
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    total, offset = 0, 0
    while time.monotonic() < deadline:
        if rate_bps:
            # Paced: never ahead of rate_bps since the start (iperf3 -b paces the same way).
            ahead = total * 8 / rate_bps - (time.monotonic() - started)
            if ahead > 0:
                time.sleep(ahead)
        n = os.sendfile(conn.fileno(), source, offset, min(PIECE, size - offset))
        total += n
        offset = (offset + n) % size
    conn.close()
    totals[index] = total


def parse_rate(text):
    scale = {"K": 1e3, "M": 1e6, "G": 1e9}
    return float(text[:-1]) * scale[text[-1]] if text[-1] in scale else float(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", type=int)
    p.add_argument("--dest", type=int)
    p.add_argument("--streams", type=int, default=5)
    p.add_argument("--seconds", type=float, default=6)
    p.add_argument("--rate", default=None, help="per stream, e.g. 270M; unpaced without")
    a = p.parse_args()
    totals = [0] * a.streams
    threads = []
    started = time.monotonic()
    if a.listen:
        server = socket.create_server(("127.0.0.1", a.listen), backlog=a.streams)
        print("listening", flush=True)
        for i in range(a.streams):
            conn, _ = server.accept()
            if i == 0:
                started = time.monotonic()
            threads.append(worker(receive, conn, totals, i))
            threads[-1].start()
    else:
        # In memory, gone when closed; what is in the pages does not matter to the kernel.
        with tempfile.TemporaryFile(dir="/dev/shm") as f:
            f.write(bytes(64 << 20))
            f.flush()
            source = os.dup(f.fileno())
        rate = parse_rate(a.rate) if a.rate else None
        for i in range(a.streams):
            threads.append(worker(send, a.dest, a.seconds, rate, source, totals, i))
            threads[-1].start()
    for t in threads:
        t.join()
    if failures:
        sys.exit("splice_peer: " + "; ".join(failures))
    seconds = time.monotonic() - started
    print(json.dumps({"type": "splice", "bytes": sum(totals), "seconds": seconds,
                      "mbps": sum(totals) * 8 / seconds / 1e6, "cpu_s": cpu_s()}))


if __name__ == "__main__":
    main()
