"""Renders docs/PERFORMANCE.md from bench/run.py's results (also usable on a saved JSON).

    python3 bench/report.py docs/performance.json > docs/PERFORMANCE.md
"""

import json
import statistics
import sys
from pathlib import Path


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def show(s, digits=2, unit=""):
    if not s:
        return "n/a"
    f = f"{{:.{digits}f}}"
    spread = "" if s["n"] == 1 else f" ({f.format(s['min'])}–{f.format(s['max'])})"
    return f"{f.format(s['median'])}{unit}{spread}"


def verdict(value, target, higher_is_better):
    if value is None:
        return "not measured"
    met = value >= target if higher_is_better else value <= target
    return "**met**" if met else "**not met**"


def cpu_per_gb(r):
    return r["cpu_s"] / (r["bytes"] / 1e9) if r.get("bytes") else None


def cycles_per_byte(r, hz):
    return r["cpu_s"] * hz / r["bytes"] if r.get("bytes") and hz else None


def micro_table(micro):
    if not micro:
        return "_hdstream_micro not built._\n"
    memcpy = {m["name"].split("/")[-1]: m for m in micro if m["name"].startswith("BM_Memcpy/")}
    lines = ["| benchmark | chunk | ns/byte | ns/chunk (or per call) | × memcpy of the same bytes |",
             "|---|---:|---:|---:|---:|"]
    for m in micro:
        parts = m["name"].split("/")
        chunk = parts[1] if len(parts) > 1 else "—"
        base = memcpy.get(chunk) if parts[0] not in ("BM_StatsSample",) else None
        if m["ns_per_byte"] and base is None and parts[0].startswith("BM_Synthetic"):
            base = memcpy.get("1048576")
        ratio = (f"{m['ns_per_byte'] / base['ns_per_byte']:.1f}"
                 if m["ns_per_byte"] and base and base["ns_per_byte"] else "—")
        nb = f"{m['ns_per_byte']:.4f}" if m["ns_per_byte"] else "—"
        nc = f"{m['ns_per_chunk']:.1f}" if m["ns_per_chunk"] else "—"
        label = {"16384": "16 KiB", "65536": "64 KiB", "262144": "256 KiB",
                 "1048576": "1 MiB"}.get(chunk, chunk)
        if parts[0] == "BM_StatsSample":
            label = f"{chunk} streams"
        lines.append(f"| {parts[0].replace('BM_', '')} | {label} | {nb} | {nc} | {ratio} |")
    return "\n".join(lines) + "\n"


def render(results, plots):
    hz = results.get("hz") or 0
    bulk = results["bulk"]
    paced = results["paced"]
    bulk_ratio = stats([p["ratio"] for p in bulk])
    paced_ratio = stats([p["ratio"] for p in paced])
    h_cpb = stats([cycles_per_byte(p["hdstream"], hz) for p in paced])
    i_cpb = stats([cycles_per_byte(p["iperf3"], hz) for p in paced])
    h_bulk_cpb = stats([cycles_per_byte(p["hdstream"], hz) for p in bulk])
    i_bulk_cpb = stats([cycles_per_byte(p["iperf3"], hz) for p in bulk])
    p50 = stats([p["hdstream"]["latency"].get("p50_ms") for p in paced])
    p99 = stats([p["hdstream"]["latency"].get("p99_ms") for p in paced])
    drops = [p["hdstream"].get("drops") for p in paced]
    media = results.get("media", {})
    ff = media.get("ffmpeg")

    out = []
    w = out.append
    w("# hdstream performance\n")
    w(f"Fresh run of `bench/run.sh` started {results['started']} on this machine "
      f"({results['nproc']} cores, nominal clock {hz / 1e9:.2f} GHz, load average at the end "
      f"{', '.join(f'{x:.1f}' for x in results.get('load', []))}). Every figure is a ratio "
      "against a peer measured in the same run: each pair runs back to back, pairs are "
      "repeated and interleaved, and the table gives the **median with the min–max spread**. "
      "CPU is the sender's plus the receiver's user + system seconds, read with `wait4()` for "
      "every process alike; cycles per byte = CPU seconds × nominal clock ÷ bytes.\n")
    w("## Targets\n")
    w("| what | peer, same run | hdstream ÷ peer | target | verdict |")
    w("|---|---|---|---|---|")
    w(f"| loopback bulk goodput, 5 streams, every byte verified | `iperf3 -P 5` | "
      f"{show(bulk_ratio)} | ≥ 0.9 | "
      f"{verdict(bulk_ratio and bulk_ratio['median'], 0.9, True)} |")
    w(f"| CPU s per GB at 5 × 270 Mbps paced (sender + receiver) | `iperf3 -b 270M -P 5` | "
      f"{show(paced_ratio)} | ≤ 1.3 | "
      f"{verdict(paced_ratio and paced_ratio['median'], 1.3, False)} |")
    if media.get("available") and media.get("hdstream5") and ff:
        h5 = media["hdstream5"]
        mr = h5["rx_cpu_s"] / ff["rx_cpu_s"] if ff["rx_cpu_s"] else None
        w(f"| CPU at 5 dnxhd220 feeds decoded (receivers) | 5 × `ffmpeg -i tcp:// -f null` | "
          f"{mr:.2f} | ≤ 0.6 | {verdict(mr, 0.6, False)} |")
        w(f"| dnxhd220 feeds decoded in real time, zero drops | — | "
          f"{media.get('max_feeds')} feeds | ≥ 10 | "
          f"{verdict(media.get('max_feeds'), 10, True)} |")
    else:
        w("| CPU at 5 dnxhd220 feeds decoded (receivers) | 5 × `ffmpeg -i tcp:// -f null` | "
          "not available in this build | ≤ 0.6 | not measured |")
        w("| dnxhd220 feeds decoded in real time, zero drops | — | not available in this build "
          "| ≥ 10 | not measured |")
    w(f"| added latency p99, frame ready → received whole, loopback tcp, 5 feeds | — | "
      f"{show(p99, 3, ' ms')} | ≤ 10 ms | {verdict(p99 and p99['median'], 10, False)} |")
    w("")
    w("## Loopback bulk, 5 streams, memory to memory\n")
    w("`hdstream bench` (unpaced; XXH3 of every chunk checked on receipt and the synthetic "
      "end-to-end stamp of every frame) against `iperf3 -P 5` (no verification). Goodput is "
      "the receiver's verified bytes.\n")
    w("| rep | hdstream Gbps | iperf3 Gbps | ratio | hdstream cycles/byte | iperf3 cycles/byte |")
    w("|---:|---:|---:|---:|---:|---:|")
    for k, p in enumerate(bulk):
        h, i = p["hdstream"], p["iperf3"]
        hc, ic = cycles_per_byte(h, hz), cycles_per_byte(i, hz)
        w(f"| {k} | {(h['mbps'] or 0) / 1e3:.2f} | {(i['mbps'] or 0) / 1e3:.2f} | "
          f"{p['ratio'] or 0:.2f} | {hc or 0:.2f} | {ic or 0:.2f} |")
    w(f"\nMedian cycles per byte (sender + receiver): hdstream {show(h_bulk_cpb)}, "
      f"iperf3 {show(i_bulk_cpb)}.\n")
    w("## 5 × 270 Mbps paced feeds: CPU per GB and latency\n")
    w("`hdstream send --format synthetic --rate 270M --streams 5` into `hdstream recv` against "
      "`iperf3 -b 270M -P 5` (iperf3's `-b` is per stream).\n")
    w("| rep | hdstream Mbps | drops | hdstream CPU s/GB | iperf3 Mbps | iperf3 CPU s/GB | ratio "
      "| latency p50 / p99 / max ms |")
    w("|---:|---:|---:|---:|---:|---:|---:|---|")
    for k, p in enumerate(paced):
        h, i = p["hdstream"], p["iperf3"]
        lat = h["latency"]
        w(f"| {k} | {h['mbps'] or 0:.0f} | {h['drops']} | {cpu_per_gb(h) or 0:.3f} | "
          f"{i['mbps'] or 0:.0f} | {cpu_per_gb(i) or 0:.3f} | {p['ratio'] or 0:.2f} | "
          f"{lat.get('p50_ms', 'n/a')} / {lat.get('p99_ms', 'n/a')} / {lat.get('max_ms', 'n/a')} |")
    w(f"\nCycles per byte at 5 × 270 Mbps: hdstream {show(h_cpb)}, iperf3 {show(i_cpb)}. "
      f"Latency p50 {show(p50, 3, ' ms')}, p99 {show(p99, 3, ' ms')}; drops per rep {drops}.\n")
    w("## Scaling: 1 to 16 feeds\n")
    if "scaling.png" in plots:
        w("![scaling](images/scaling.png)\n")
    w("| streams | hdstream Gbps | iperf3 Gbps | ratio | hdstream CPU s/GB | iperf3 CPU s/GB |")
    w("|---:|---:|---:|---:|---:|---:|")
    for r in results["scaling"]:
        h, i = r["hdstream"], r["iperf3"]
        ratio = h["mbps"] / i["mbps"] if h["mbps"] and i["mbps"] else 0
        w(f"| {r['streams']} | {(h['mbps'] or 0) / 1e3:.2f} | {(i['mbps'] or 0) / 1e3:.2f} | "
          f"{ratio:.2f} | {cpu_per_gb(h) or 0:.3f} | {cpu_per_gb(i) or 0:.3f} |")
    w("")
    w("## Real media: DNxHD 220\n")
    if ff:
        w(f"Peer, measured: 5 `ffmpeg -re -stream_loop -1 -i clip -c copy -f nut tcp://…` "
          f"senders into 5 `ffmpeg -i tcp://…?listen=1 -f null -` receivers decoding a 1080p29.97 "
          f"DNxHD 220 clip for {ff['wall_s']} s: receivers {ff['rx_cpu_s']:.2f} CPU s "
          f"({100 * ff['rx_cpu_s'] / ff['wall_s']:.0f}% of one core), senders "
          f"{ff['tx_cpu_s']:.2f} CPU s; all receivers exited cleanly: {ff['ok']}.\n")
    elif media.get("ffmpeg_error"):
        w(f"ffmpeg peer could not run: {media['ffmpeg_error']}\n")
    if not media.get("available"):
        w(f"hdstream side: **not available in this build** ({media.get('why', '')}). The "
          "harness (`run_media` in bench/run.py) measures it as soon as `hdstream send "
          "--format dnxhd220` exists: 5 feeds for the CPU ratio, then 8, 10, 12, … feeds until "
          "the first drop.\n")
    elif media.get("hdstream5"):
        h5 = media["hdstream5"]
        w(f"hdstream, 5 feeds: receiver {h5['rx_cpu_s']:.2f} CPU s, sender {h5['tx_cpu_s']:.2f} "
          f"CPU s, drops {h5['drops']}; most feeds with zero drops: {media.get('max_feeds')}.\n")
    w("## Micro-benchmarks (Google Benchmark, `build/bench/micro/hdstream_micro`)\n")
    w("One 1 MiB frame per iteration, cut into chunks of the size shown; memcpy of the same "
      "bytes in the same chunks is the physical limit beside every stage. Single-threaded, so "
      "less sensitive to the shared machine than the socket runs, but still noisy.\n")
    if "micro.png" in plots:
        w("![micro](images/micro.png)\n")
    w(micro_table(results.get("micro")))
    extra = Path(__file__).resolve().parent / "PERFORMANCE.notes.md"
    if extra.exists():
        w(extra.read_text())
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(json.loads(Path(sys.argv[1]).read_text()), []), end="")
