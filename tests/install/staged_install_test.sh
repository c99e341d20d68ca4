#!/usr/bin/env bash
# The installed tree works on its own (ctest label `install`):
#   1. `cmake --install` into a fresh staging prefix puts the binary, presets, systemd units, docs
#      and examples in their GNUInstallDirs places; the units' ExecStart names the staged binary;
#   2. `systemd-analyze verify` accepts both units (as instances) without a single warning, and
#      `systemd-analyze security --offline` rates each at most $max_exposure;
#   3. the staged binary, run from elsewhere with a bare environment, loads the installed presets
#      (not the checkout's);
#   4. a receiver and a sender started with the units' own ExecStart lines (%i and $HDSTREAM_ARGS
#      substituted as systemd does) carry a feed over loopback: both exit 0 with a passing verdict;
#   5. the staged binary loads the installed media module (LIBDIR/hdstream/libhdstream-media.so):
#      a media source's own error comes back, not a module that failed to load.
# usage: staged_install_test.sh BUILD_DIR WORK_DIR BINDIR DATADIR DOCDIR UNITDIR LIBDIR (dirs
# relative to the prefix, as configured)
set -euo pipefail
build=$1 work=$2
max_exposure=2.0  # systemd-analyze's scale: 0 (locked down) .. 10 (exposed); the units score 1.7

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
bindir=$prefix/$3 datadir=$prefix/$4 docdir=$prefix/$5 unitdir=$prefix/$6 libdir=$prefix/$7

# 1. Install into the staging prefix.
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  fail "cmake --install: $(cat "$work/install.log")"
hdstream=$bindir/hdstream
[ -x "$hdstream" ] || fail "no executable $hdstream"
for file in "$datadir/hdstream/presets/hdstream.toml" \
  "$unitdir/hdstream-recv@.service" "$unitdir/hdstream-send@.service" \
  "$docdir/README.md" "$docdir/systemd.md" "$docdir/docs/ARCHITECTURE.md" \
  "$docdir/examples/recv-studio.env" "$docdir/examples/send-portland.env" \
  "$libdir/hdstream/libhdstream-media.so"; do
  [ -f "$file" ] || fail "not installed: $file"
done
for unit in recv send; do
  grep -q "^ExecStart=$hdstream $unit " "$unitdir/hdstream-$unit@.service" ||
    fail "hdstream-$unit@.service does not start $hdstream: $(grep ExecStart= "$unitdir/hdstream-$unit@.service")"
  # Both ends run keyed: the key is a credential the transient user can read.
  grep -qx "LoadCredential=key:/etc/hdstream/$unit-%i.key" "$unitdir/hdstream-$unit@.service" &&
    grep -qx 'Environment=HDSTREAM_KEY_FILE=%d/key' "$unitdir/hdstream-$unit@.service" ||
    fail "hdstream-$unit@.service does not hand its key over as HDSTREAM_KEY_FILE"
done

# 2. systemd's own checks. Its verify exits 0 on unknown keys (it only warns), so any output fails.
command -v systemd-analyze >/dev/null ||
  fail "systemd-analyze not found (Debian package systemd; scripts/install-deps.sh installs it)"
instances=("$unitdir/hdstream-recv@studio.service" "$unitdir/hdstream-send@portland.service")
verify_out=$(systemd-analyze verify "${instances[@]}" 2>&1) ||
  fail "systemd-analyze verify failed: $verify_out"
[ -z "$verify_out" ] || fail "systemd-analyze verify warns: $verify_out"
echo "systemd-analyze verify: clean"
for instance in "${instances[@]}"; do
  security_out=$(systemd-analyze security --offline=yes --threshold=100 "$instance" 2>&1) ||
    fail "systemd-analyze security $instance: $security_out"
  exposure=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' <<<"$security_out")
  [ -n "$exposure" ] || fail "no exposure level in: $security_out"
  echo "systemd-analyze security $(basename "$instance"): $exposure"
  awk -v e="$exposure" -v max="$max_exposure" 'BEGIN { exit !(e <= max) }' ||
    fail "$(basename "$instance") exposure $exposure > $max_exposure: $security_out"
done

# The staged binary, away from the checkout: another working directory, no inherited environment
# (no DISPLAY, no XDG_CONFIG_HOME pointing anywhere but here).
bare_env=(env -i PATH=/usr/bin:/bin HOME="$work/home" XDG_CONFIG_HOME="$work/config")
mkdir -p "$work/home" "$work/config/hdstream"

# 3. It loads the installed presets.
presets_out=$(cd "$work" && "${bare_env[@]}" "$hdstream" presets list 2>&1) ||
  fail "hdstream presets list: $presets_out"
grep -q '^  portland ' <<<"$presets_out" || fail "no portland preset in: $presets_out"
loaded_from=$(sed -n '/^loaded from/,$p' <<<"$presets_out")
grep -qxF "  $datadir/hdstream/presets/hdstream.toml" <<<"$loaded_from" ||
  fail "the staged binary did not load the staged presets: $presets_out"

# 4. A unit's command line as systemd runs it: ExecStart with %i replaced and the unbraced
# $HDSTREAM_ARGS split on whitespace. Anything else systemd would expand fails the test rather
# than run differently here.
unit_command() {  # unit-file instance args -> sets the array `command`
  local line
  line=$(sed -n 's/^ExecStart=//p' "$1")
  line=${line//%i/$2}
  [[ $line == *'$HDSTREAM_ARGS'* ]] || fail "$1: ExecStart lacks \$HDSTREAM_ARGS: $line"
  line=${line//'$HDSTREAM_ARGS'/$3}
  [[ $line != *[%\$\\\"\']* ]] || fail "$1: ExecStart needs expansion this test does not do: $line"
  read -ra command <<<"$line"
}

mkdir -p "$work/recv" "$work/send"
unit_command "$unitdir/hdstream-recv@.service" test \
  "--listen 127.0.0.1:0 --streams 1 --stats json --interval 250ms"
(cd "$work/recv" && exec "${bare_env[@]}" timeout 60 "${command[@]}" >recv.out 2>recv.err) &
recv_pid=$!
# Ready when it logs its port (picked by the kernel: --listen :0).
port=""
for _ in $(seq 300); do
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$work/recv/recv.err" 2>/dev/null)
  [ -n "$port" ] && break
  kill -0 "$recv_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || fail "the receiver did not listen: $(cat "$work/recv/recv.err")"

# The sender unit's instance is the destination preset `loopback`, pointed at that port the way an
# operator overrides a preset (a user preset file).
printf '[destinations.loopback]\nport = %s\n' "$port" >"$work/config/hdstream/loopback.toml"
unit_command "$unitdir/hdstream-send@.service" loopback \
  "--streams 1 --rate 50M --duration 2s --stats json --interval 250ms"
send_rc=0
(cd "$work/send" && exec "${bare_env[@]}" timeout 60 "${command[@]}" >send.out 2>send.err) ||
  send_rc=$?
recv_rc=0
wait "$recv_pid" || recv_rc=$?
[ "$send_rc" -eq 0 ] || fail "sender exited $send_rc: $(cat "$work/send/send.err")"
[ "$recv_rc" -eq 0 ] || fail "receiver exited $recv_rc: $(cat "$work/recv/recv.err")"

check_summary() {  # stats-file role
  python3 - "$1" "$2" <<'EOF' || fail "$2 summary: $(cat "$1")"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
summary = [line for line in lines if line["type"] == "summary"]
assert len(summary) == 1, "one summary line"
s = summary[0]
assert s["role"] == sys.argv[2] and s["streams"] == 1, s
assert s["verdict"] == "pass" and s["drops"] == 0 and s["checksum_errors"] == 0, s
assert s["frames"] >= 50, s  # 2 s at 29.97 fps
print(f"{sys.argv[2]}: {s['frames']} frames, {s['mbps']} Mbps, verdict {s['verdict']}")
EOF
}
check_summary "$work/recv/recv.out" recv
check_summary "$work/send/send.out" send

# 5. The installed media module, loaded by the staged binary for a file source (the dynamic
#    loader names what it loads), whose own error comes back.
media_rc=0
(cd "$work" && exec "${bare_env[@]}" LD_DEBUG=files LD_DEBUG_OUTPUT="$work/ld" "$hdstream" send \
  --dest 127.0.0.1:9 --format dnxhd220 --source "file:$work/missing.mov" >media.out \
  2>media.err) || media_rc=$?
[ "$media_rc" -eq 2 ] || fail "a missing clip: exit $media_rc, not 2: $(cat "$work/media.err")"
grep -q "missing.mov" "$work/media.err" ||
  fail "a missing clip: not the file's own error: $(cat "$work/media.err")"
grep -q "file=$libdir/hdstream/libhdstream-media.so " "$work"/ld.* ||
  fail "the installed module was not loaded: $(grep libhdstream-media "$work"/ld.* | head -3)"
echo "PASS"
