"""What the machine itself allows, measured in the same run as hdstream and its peers.

- the loopback ceiling: bench/splice_peer.py moves bytes with sendfile()/splice() only, so no
  process copies, reads or verifies a byte: the kernel's own cost per GB and its top speed;
- start-up: CPU of one process start (`hdstream send --help`, `iperf3 --version`), since every
  short run pays it;
- uncompressed HD paced from a file: 5 x uyvy1080 (994 Mbps a feed) against `iperf3 -b 1G -P 5`.

    from limits import splice_ceiling, startup_cpu, uncompressed_paced
"""

import subprocess
from pathlib import Path

from run import HOST, PACED_CC, Proc, cpu_per_gb, free_port, wait_listening  # noqa: F401

BENCH = Path(__file__).resolve().parent
SPLICE_PEER = BENCH / "splice_peer.py"


def splice_ceiling(streams, duration_s):
    """`streams` loopback TCP connections moved by sendfile() -> splice(), unpaced."""
    port = free_port()
    rx = Proc(["/usr/bin/python3", str(SPLICE_PEER), "--listen", str(port), "--streams",
               str(streams)]).start()
    wait_listening(port)
    tx = Proc(["/usr/bin/python3", str(SPLICE_PEER), "--dest", str(port), "--streams",
               str(streams), "--seconds", str(duration_s)]).start()
    tx.wait(duration_s + 60)
    rx.wait(30)
    lines = rx.json_lines("splice")
    if tx.rc != 0 or rx.rc != 0 or not lines:
        return {"mbps": None, "bytes": 0, "cpu_s": 0, "err": (tx.err + rx.err)[-300:]}
    result = lines[-1]
    return {"mbps": result["mbps"], "bytes": result["bytes"], "cpu_s": tx.cpu_s + rx.cpu_s,
            "wall_s": result["seconds"]}


def startup_cpu(argv, runs=20):
    """CPU seconds (user + system, wait4) of one start of `argv`: the median of `runs`."""
    costs = []
    for _ in range(runs):
        p = Proc(list(argv)).start().wait(30)
        costs.append(p.cpu_s)
    costs.sort()
    return costs[len(costs) // 2]


def make_uyvy_clip(directory, seconds=2):
    """A raw UYVY 1080p29.97 clip (124 MB a second), looped by the sender."""
    clip = Path(directory) / "uyvy1080.mov"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size=1920x1080:rate=30000/1001:duration={seconds}", "-c:v",
                    "rawvideo", "-pix_fmt", "uyvy422", "-tag:v", "2vuy", str(clip)], check=True)
    return clip


def uncompressed_paced(runner, clip, reps, duration_s):
    """5 x uyvy1080 from `clip` (hdstream send --source file:) against iperf3 -b 1G -P 5."""
    pairs = []
    for rep in range(reps):
        h = runner.hdstream_paced(5, duration_s, rate=None, fmt="uyvy1080",
                                  extra=("--source", f"file:{clip}"))
        i = runner.iperf3(5, duration_s, rate="1G", cc=PACED_CC)
        hc, ic = cpu_per_gb(h), cpu_per_gb(i)
        ratio = hc / ic if hc and ic else None
        runner.note(f"uyvy1080 rep {rep}: hdstream {hc} CPU s/GB ({h['mbps']} Mbps, drops "
                    f"{h['drops']}), iperf3 {ic} ({i['mbps']} Mbps), ratio {ratio}")
        pairs.append({"hdstream": h, "iperf3": i, "ratio": ratio})
    return pairs
