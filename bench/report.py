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


# A figure whose repetitions differ by more than this (max − min, over the median) is flagged:
# the machine set it as much as hdstream did, and another machine of the same kind may not
# reproduce it.
WIDE_SPREAD = 0.25
# Targets (issue #20): ahead of iperf3 in goodput, and no more CPU per byte at the feed rate.
BULK_TARGET = 1.0
PACED_TARGET = 1.0


def too_wide(s):
    return bool(s) and s["n"] > 1 and s["median"] != 0 and \
        (s["max"] - s["min"]) / abs(s["median"]) > WIDE_SPREAD


def show(s, digits=2, unit=""):
    if not s:
        return "n/a"
    f = f"{{:.{digits}f}}"
    spread = "" if s["n"] == 1 else f" ({f.format(s['min'])}–{f.format(s['max'])})"
    flag = " ⚠ spread too wide to trust" if too_wide(s) else ""
    return f"{f.format(s['median'])}{unit}{spread}{flag}"


def verdict(value, target, higher_is_better):
    if value is None:
        return "not measured"
    met = value >= target if higher_is_better else value <= target
    return "**met**" if met else "**not met**"


def gbps(r):
    return r["mbps"] / 1e3 if r.get("mbps") else None


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


def media_section(media):
    out = []
    w = out.append
    if media.get("ffmpeg_error"):
        w(f"The clip could not be made: {media['ffmpeg_error']}\n")
        return "\n".join(out)
    if not media.get("pairs"):
        w(f"hdstream side not measured: {media.get('why')}.\n")
        return "\n".join(out)
    d = media.get("duration_s")
    w("Both sides carry and decode **the same frames**: the demo's own 1080p29.97 DNxHD 220 "
      "bars clip (as `hdstream demo` makes it: CID 1238, 917,504 bytes a frame, with its "
      "sound; `bench/decode_clips.py` sets it beside harder and easier content), looped at "
      "29.97 fps for "
      f"{d} s per feed. hdstream: `hdstream send --format dnxhd220 --source file:clip.mov` "
      "(frames as stored) into `hdstream recv --output null`, which verifies every chunk and "
      "decodes every frame with libavcodec (one decoder thread per feed, the xvid IDCT for "
      "8-bit DNxHD). Peer: `ffmpeg -re -stream_loop -1 -i clip.mov -c copy -f nut tcp://…` "
      "senders into `ffmpeg -i tcp://…?listen=1 -f null -` receivers (default threads and "
      "IDCT), one pair per feed; a second peer decodes as hdstream does (`-threads 1 -idct "
      "xvid`), which separates what hdstream's own path saves from what the decoder setting "
      "saves. Only the **receiving** processes' CPU (user + system, `wait4()`, start-up "
      "included) is compared, per decoded frame (ffmpeg's count from `-progress`, hdstream's "
      "from its media lines). Decode latency runs with the feeds spread over the frame period "
      "(the default) and, in the last column, all on one frame boundary (`--phase aligned`, "
      "like genlocked sources).\n")
    w("| rep | hdstream rx CPU s | decoded | ms/frame | ffmpeg rx CPU s | decoded | ms/frame | "
      "ratio | ffmpeg `-threads 1 -idct xvid` ms/frame | ratio | hdstream decode latency "
      "p50 / p99 ms, worst feed | the same, `--phase aligned` |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for k, p in enumerate(media["pairs"]):
        h, f = p["hdstream"], p["ffmpeg"]
        t, a = p.get("ffmpeg_tuned") or {}, p.get("hdstream_aligned") or {}
        w(f"| {k} | {h['rx_cpu_s']:.2f} | {h['decoded']} of {h['sent']} | "
          f"{h['rx_cpu_ms_per_frame'] or 0:.2f} | {f['rx_cpu_s']:.2f} | {f['decoded']} of "
          f"{f['expected']} | {f['rx_cpu_ms_per_frame'] or 0:.2f} | {p['ratio'] or 0:.2f} | "
          f"{t.get('rx_cpu_ms_per_frame') or 0:.2f} | {p.get('ratio_tuned') or 0:.2f} | "
          f"{h['decode_p50_ms']} / {h['decode_p99_ms']} | "
          f"{a.get('decode_p50_ms')} / {a.get('decode_p99_ms')} |")
    per_frame = stats([p["hdstream"]["rx_cpu_ms_per_frame"] for p in media["pairs"]])
    if per_frame:
        ceiling = 2 * 1000 / per_frame["median"] / (30000 / 1001)
        w(f"\nAt {per_frame['median']:.2f} ms of receiver CPU per frame, two idle cores would "
          f"decode {ceiling:.1f} feeds at 29.97 fps (derived, not measured).\n")
    w("**Feeds decoded in real time**: the feed count steps up; a step passes when neither end "
      "drops a frame, nothing is dropped before decode, and every frame sent is decoded "
      "without error. A failing step is run once more (marked retry) before the ladder stops. "
      "This figure is absolute, not a ratio: it depends on how much of the 2 shared cores "
      "other work leaves (1-minute load average in the last column).\n")
    w("| feeds | sent | decoded | drops tx / rx | dropped before decode | rx CPU s (cores) | "
      "decode p99 ms | real time | load |")
    w("|---:|---:|---:|---|---:|---:|---:|---|---:|")
    for r in media.get("ladder", []):
        cores = r["rx_cpu_s"] / d if d else 0
        w(f"| {r['feeds']}{' (retry)' if r.get('retry') else ''} | {r['sent']} | "
          f"{r['decoded']} | {r['tx_drops']} / {r['rx_drops']} | {r['dropped_before_decode']} | "
          f"{r['rx_cpu_s']:.2f} ({cores:.2f}) | {r['decode_p99_ms']} | "
          f"{'yes' if r['real_time'] else 'no'} | {r.get('load1', 0):.1f} |")
    w("")
    return "\n".join(out)


def ceiling_cell(c):
    if not c or not c.get("mbps"):
        return "n/a"
    return f"{c['mbps'] / 1e3:.1f}, {cpu_per_gb(c):.3f}"


def limits_section(results, hz):
    out = []
    w = out.append
    micro = {m["name"]: m for m in results.get("micro") or []}
    memcpy = micro.get("BM_Memcpy/1048576")
    ceilings = [p.get("ceiling") for p in results["bulk"] if (p.get("ceiling") or {}).get("mbps")]
    start = results.get("startup") or {}
    w("What the machine allows, measured in the same run, so every figure above can be read "
      "against it:\n")
    w("| limit | measured | how |")
    w("|---|---|---|")
    if memcpy and memcpy.get("ns_per_byte"):
        w(f"| memcpy, one core, 1 MiB in cache | {1 / memcpy['ns_per_byte']:.1f} GB/s | `hdstream_micro` "
          "BM_Memcpy, 1 MiB frames in 1 MiB pieces |")
    if ceilings:
        gbps = stats([c["mbps"] / 1e3 for c in ceilings])
        per_gb = stats([cpu_per_gb(c) for c in ceilings])
        w(f"| loopback TCP, 5 streams, no process touching a byte | {show(gbps, 1, ' Gbps')}, "
          f"{show(per_gb, 3)} CPU s/GB | `bench/splice_peer.py`: sendfile() from /dev/shm → "
          "splice() to /dev/null, one rep beside each bulk rep |")
    if start:
        w(f"| one process start | hdstream {start['hdstream'] * 1e3:.0f} ms CPU, iperf3 "
          f"{start['iperf3'] * 1e3:.0f} ms | median of 20 `hdstream send --help` / "
          "`iperf3 --version`, wait4() |")
    paced = results["paced"]
    measured = [p for p in paced if p["hdstream"].get("bytes") and p["hdstream"].get("cpu_s")
                and p["iperf3"].get("bytes") and p["iperf3"].get("cpu_s")]
    if start and measured:
        def steady(r, one_start):
            return (r["cpu_s"] - 2 * one_start) / (r["bytes"] / 1e9)
        h = stats([steady(p["hdstream"], start["hdstream"]) for p in measured])
        i = stats([steady(p["iperf3"], start["iperf3"]) for p in measured])
        r = stats([steady(p["hdstream"], start["hdstream"]) / steady(p["iperf3"], start["iperf3"])
                   for p in measured])
        share = stats([2 * start["hdstream"] / p["hdstream"]["cpu_s"] for p in measured])
        w(f"\nStart-up is part of every paced figure: at 5 × 270 Mbps for "
          f"{measured[0]['hdstream'].get('wall_s', 10):.0f} s its two starts are "
          f"{share['median']:.0%} of hdstream's CPU. "
          f"Taken out (derived: each run's CPU less two starts), the paced CPU per GB is "
          f"hdstream {show(h, 3)}, iperf3 {show(i, 3)}, ratio {show(r)}.\n")
    w("")
    return "\n".join(out)


def uncompressed_section(raw):
    out = []
    w = out.append
    w("`hdstream send --format uyvy1080 --source file:clip.mov --streams 5 --cc cubic` (a 2 s "
      "raw UYVY 1080p29.97 clip, looped from the page cache: the source costs next to nothing) "
      "into `hdstream recv`, which verifies every chunk and checks every picture (frozen, "
      "black), against `iperf3 -b 1G -P 5 -C cubic`.\n")
    w("| rep | hdstream Mbps | drops | hdstream CPU s/GB | iperf3 Mbps | iperf3 CPU s/GB | ratio |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    for k, p in enumerate(raw):
        h, i = p["hdstream"], p["iperf3"]
        drops = "n/a" if h.get("drops") is None else h["drops"]
        w(f"| {k} | {h['mbps'] or 0:.0f} | {drops} | {cpu_per_gb(h) or 0:.3f} | "
          f"{i['mbps'] or 0:.0f} | {cpu_per_gb(i) or 0:.3f} | {p['ratio'] or 0:.2f} |")
    w("")
    return "\n".join(out)


def load_at_start(results):
    start = results.get("load_start")
    return f"at the start {', '.join(f'{x:.1f}' for x in start)}, " if start else ""


def render(results, plots):
    hz = results.get("hz") or 0
    bulk = results["bulk"]
    paced = results["paced"]
    bulk_ratio = stats([p["ratio"] for p in bulk])
    bulk_ratio_big = stats([p.get("ratio_big_chunks") for p in bulk])
    big_chunk = next((p["big_chunk"] for p in bulk if p.get("big_chunk")), None)
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
      f"({results.get('cpu', 'unknown CPU')}, {results['nproc']} cores, nominal clock "
      f"{hz / 1e9:.2f} GHz, kernel {results.get('kernel', 'unknown')}, default congestion "
      f"control {results.get('cc_default', 'unknown')}, load average "
      f"{load_at_start(results)}at the end "
      f"{', '.join(f'{x:.1f}' for x in results.get('load', []))}). Every figure is a ratio "
      "against a peer measured in the same run: each pair runs back to back, pairs are "
      "repeated and interleaved, and the table gives the **median with the min–max spread**; "
      f"a spread wider than {WIDE_SPREAD:.0%} of the median is flagged as too wide to trust. "
      "CPU is the sender's plus the receiver's user + system seconds, read with `wait4()` for "
      "every process alike; cycles per byte = CPU seconds × nominal clock ÷ bytes.\n")
    w("## Targets\n")
    w("| what | peer, same run | hdstream ÷ peer | target | verdict |")
    w("|---|---|---|---|---|")
    w(f"| loopback bulk goodput, 5 streams, every byte verified (bbr) | `iperf3 -P 5 -C bbr` | "
      f"{show(bulk_ratio)} | ≥ {BULK_TARGET} | "
      f"{verdict(bulk_ratio and bulk_ratio['median'], BULK_TARGET, True)} |")
    if big_chunk:
        w(f"| the same, `hdstream bench --chunk-size {big_chunk}` | `iperf3 -P 5 -C bbr` | "
          f"{show(bulk_ratio_big)} | ≥ {BULK_TARGET} | "
          f"{verdict(bulk_ratio_big and bulk_ratio_big['median'], BULK_TARGET, True)} |")
    # Runs before 2026-11-28 measured 1 and 16 streams once, in the scaling table.
    targets = results.get("stream_targets") or [
        {"streams": r["streams"], "from_scaling": True,
         "pairs": [{"ratio": r["hdstream"]["mbps"] / r["iperf3"]["mbps"]
                    if r["hdstream"].get("mbps") and r["iperf3"].get("mbps") else None}]}
        for r in results.get("scaling", []) if r["streams"] in (1, 16)]
    for r in targets:
        ratio = stats([p["ratio"] for p in r["pairs"]])
        reps = " (one rep, from the scaling table)" if r.get("from_scaling") else ""
        w(f"| the same at {r['streams']} stream{'s' if r['streams'] > 1 else ''}{reps} | "
          f"`iperf3 -P {r['streams']} -C bbr` | {show(ratio)} | ≥ {BULK_TARGET} | "
          f"{verdict(ratio and ratio['median'], BULK_TARGET, True)} |")
    w(f"| CPU s per GB at 5 × 270 Mbps paced (sender + receiver; cubic; start-up included) | "
      f"`iperf3 -b 270M -P 5 -C cubic` | {show(paced_ratio)} | ≤ {PACED_TARGET} | "
      f"{verdict(paced_ratio and paced_ratio['median'], PACED_TARGET, False)} |")
    paced_bbr = stats([p.get("ratio_bbr") for p in paced])
    if paced_bbr:
        w(f"| the same with bbr on both sides | `iperf3 -b 270M -P 5 -C bbr` | {show(paced_bbr)} "
          f"| ≤ {PACED_TARGET} | {verdict(paced_bbr['median'], PACED_TARGET, False)} |")
    raw = results.get("uncompressed") or []
    if raw:
        raw_ratio = stats([p["ratio"] for p in raw])
        raw_drops = ["n/a" if p["hdstream"].get("drops") is None else p["hdstream"]["drops"]
                     for p in raw]
        w(f"| CPU s per GB at 5 × uyvy1080 (994 Mbps a feed) from a file, paced; drops "
          f"{raw_drops} | `iperf3 -b 1G -P 5 -C cubic` | {show(raw_ratio)} | ≤ {PACED_TARGET} | "
          f"{verdict(raw_ratio and raw_ratio['median'], PACED_TARGET, False)} |")
    if media.get("pairs"):
        mr = stats([p["ratio"] for p in media["pairs"]])
        w(f"| CPU per decoded frame at 5 dnxhd220 feeds (receivers only) | 5 × `ffmpeg -i "
          f"tcp://…?listen=1 -f null -`, same clip, same frames | {show(mr)} | ≤ 0.6 | "
          f"{verdict(mr and mr['median'], 0.6, False)} |")
        tr = stats([p.get("ratio_tuned") for p in media["pairs"]])
        w(f"| the same, against a peer decoding as hdstream does | 5 × `ffmpeg -threads 1 "
          f"-idct xvid -i tcp://…?listen=1 -f null -` | {show(tr)} | (no target) | — |")
        w(f"| dnxhd220 feeds decoded in real time, zero drops, every frame decoded | — | "
          f"{media.get('max_feeds')} feeds (absolute, load-dependent: see below) | ≥ 10 | "
          f"{verdict(media.get('max_feeds'), 10, True)} |")
    else:
        why = media.get("why") or "not run"
        w(f"| CPU at 5 dnxhd220 feeds decoded (receivers) | 5 × `ffmpeg -i tcp:// -f null` | "
          f"not measured ({why}) | ≤ 0.6 | not measured |")
        w(f"| dnxhd220 feeds decoded in real time, zero drops | — | not measured ({why}) "
          "| ≥ 10 | not measured |")
    w(f"| added latency p99, frame ready → received whole, loopback tcp, 5 feeds | — | "
      f"{show(p99, 3, ' ms')} | ≤ 10 ms | {verdict(p99 and p99['median'], 10, False)} |")
    if media.get("pairs"):
        dp99 = stats([p["hdstream"].get("decode_p99_ms") for p in media["pairs"]])
        w(f"| added latency p99, frame ready → **decoded**, loopback tcp, 5 dnxhd220 feeds "
          f"(worst feed) | — | {show(dp99, 1, ' ms')} | ≤ 10 ms | "
          f"{verdict(dp99 and dp99['median'], 10, False)} |")
        ap99 = stats([(p.get("hdstream_aligned") or {}).get("decode_p99_ms")
                      for p in media["pairs"]])
        w(f"| the same with the 5 feeds on one frame boundary (`--phase aligned`) | — | "
          f"{show(ap99, 1, ' ms')} | (worst case, no target) | — |")
    w("")
    w("## Loopback bulk, 5 streams, memory to memory\n")
    w("`hdstream bench` (unpaced; XXH3 of every chunk checked where it lands in the frame, and "
      "every frame's stamp and canaries) against `iperf3 -P 5` (no verification). Goodput "
      "is the receiver's verified bytes.\n")
    w(f"Each rep runs hdstream with its default 64 KiB chunks, then with `--chunk-size "
      f"{big_chunk or '—'}`, then iperf3.\n")
    w(f"| rep | hdstream Gbps (64K) | hdstream Gbps ({big_chunk}) | iperf3 Gbps | ratio (64K) | "
      f"ratio ({big_chunk}) | cycles/byte 64K / {big_chunk} / iperf3 | CPU s/GB 64K / "
      f"{big_chunk} / iperf3 | limit: sendfile → splice Gbps, CPU s/GB |")
    w("|---:|---:|---:|---:|---:|---:|---|---|---|")
    for k, p in enumerate(bulk):
        h, i = p["hdstream"], p["iperf3"]
        hb = p.get("hdstream_big_chunks") or {}
        hc, ic = cycles_per_byte(h, hz), cycles_per_byte(i, hz)
        hbc = cycles_per_byte(hb, hz) if hb else None
        w(f"| {k} | {(h['mbps'] or 0) / 1e3:.2f} | {(hb.get('mbps') or 0) / 1e3:.2f} | "
          f"{(i['mbps'] or 0) / 1e3:.2f} | {p['ratio'] or 0:.2f} | "
          f"{p.get('ratio_big_chunks') or 0:.2f} | {hc or 0:.2f} / {hbc or 0:.2f} / "
          f"{ic or 0:.2f} | {cpu_per_gb(h) or 0:.3f} / {(cpu_per_gb(hb) if hb else 0) or 0:.3f}"
          f" / {cpu_per_gb(i) or 0:.3f} | {ceiling_cell(p.get('ceiling'))} |")
    h_big_cpb = stats([cycles_per_byte(p.get("hdstream_big_chunks") or {}, hz) for p in bulk])
    w(f"\nMedian cycles per byte (sender + receiver): hdstream {show(h_bulk_cpb)} "
      f"({big_chunk} chunks: {show(h_big_cpb)}), iperf3 {show(i_bulk_cpb)}.\n")
    w("## 5 × 270 Mbps paced feeds: CPU per GB and latency\n")
    w("`hdstream send --format synthetic --rate 270M --streams 5 --cc cubic` (what `--cc auto` "
      "picks on loopback) into `hdstream recv` against `iperf3 -b 270M -P 5 -C cubic` "
      "(iperf3's `-b` is per stream). Feeds are spread over the frame period (the default).\n")
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
    if any(p.get("hdstream_bbr") for p in paced):
        w("The same pairs with bbr on both sides (`--cc bbr`, `iperf3 -C bbr`):\n")
        w("| rep | hdstream Mbps | drops | hdstream CPU s/GB | iperf3 CPU s/GB | ratio | "
          "latency p50 / p99 / max ms |")
        w("|---:|---:|---:|---:|---:|---:|---|")
        for k, p in enumerate(paced):
            h, i = p.get("hdstream_bbr") or {}, p.get("iperf3_bbr") or {}
            lat = h.get("latency") or {}
            w(f"| {k} | {h.get('mbps') or 0:.0f} | {h.get('drops')} | "
              f"{cpu_per_gb(h) or 0:.3f} | {cpu_per_gb(i) or 0:.3f} | "
              f"{p.get('ratio_bbr') or 0:.2f} | {lat.get('p50_ms', 'n/a')} / "
              f"{lat.get('p99_ms', 'n/a')} / {lat.get('max_ms', 'n/a')} |")
        w("")
    if results.get("uncompressed"):
        w("## Uncompressed HD: 5 × uyvy1080 paced from a file\n")
        w(uncompressed_section(results["uncompressed"]))
    w("## The machine's limits\n")
    w(limits_section(results, hz))
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
    for r in results.get("stream_targets", []):
        w(f"At {r['streams']} stream{'s' if r['streams'] > 1 else ''}, measured again for the "
          f"target in {len(r['pairs'])} interleaved pairs: hdstream "
          f"{show(stats([gbps(p['hdstream']) for p in r['pairs']]), unit=' Gbps')}, iperf3 "
          f"{show(stats([gbps(p['iperf3']) for p in r['pairs']]), unit=' Gbps')}, ratio "
          f"{show(stats([p['ratio'] for p in r['pairs']]))}.\n")
    w("## Real media: DNxHD 220\n")
    w(media_section(media))
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
    # bench/report.py docs/performance.json [plot names present in docs/images, e.g. scaling.png]
    print(render(json.loads(Path(sys.argv[1]).read_text()), sys.argv[2:]), end="")
