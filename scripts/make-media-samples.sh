#!/usr/bin/env bash
# Makes test clips in hdstream's feed formats with FFmpeg (moving testsrc2 pattern + a frame
# counter), for `hdstream send --source file:PATH`. Longer clips than the ones in git.
#   scripts/make-media-samples.sh OUT_DIR [SECONDS] [FORMAT...]
#   scripts/make-media-samples.sh /tmp/clips 10 dnxhd220 sdi270
# FORMAT: dnxhd220 (1080 29.97 DNxHD 220, .mov), dnxhd45 (1080 29.97 DNxHD 45, .mov),
#         sdi270 (720x486 29.97 v210, .mov), uyvy1080 (1080 29.97 UYVY, .mov),
#         v210-1080p60 (1080 59.94 v210, .mov). Default: all.
# Sizes per second: dnxhd220 27.5 MB, dnxhd45 5.6 MB, sdi270 28 MB, uyvy1080 124 MB,
# v210-1080p60 331 MB.
set -euo pipefail
out=${1:?usage: make-media-samples.sh OUT_DIR [SECONDS] [FORMAT...]}
seconds=${2:-10}
shift $(( $# >= 2 ? 2 : 1 ))
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(dnxhd220 dnxhd45 sdi270 uyvy1080 v210-1080p60)
mkdir -p "$out"

make() {  # name size rate codec-args...
  local name=$1 size=$2 rate=$3
  shift 3
  local file="$out/$name-${seconds}s.mov"
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=$rate" -t "$seconds" \
    -vf "drawtext=text='%{n}':fontsize=64:x=40:y=40:fontcolor=white:box=1:boxcolor=black" \
    "$@" "$file" 2>/dev/null ||
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=$rate" -t "$seconds" "$@" "$file"
  echo "$file: $(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height,r_frame_rate -of csv=p=0 "$file")"
}

for format in "${formats[@]}"; do
  case $format in
    dnxhd220) make dnxhd220 1920x1080 30000/1001 -c:v dnxhd -profile:v dnxhd -b:v 220M -pix_fmt yuv422p ;;
    dnxhd45) make dnxhd45 1920x1080 30000/1001 -c:v dnxhd -profile:v dnxhd -b:v 45M -pix_fmt yuv422p ;;
    sdi270) make sdi270 720x486 30000/1001 -c:v v210 -pix_fmt yuv422p10le ;;
    uyvy1080) make uyvy1080 1920x1080 30000/1001 -c:v rawvideo -pix_fmt uyvy422 -tag:v 2vuy ;;
    v210-1080p60) make v210-1080p60 1920x1080 60000/1001 -c:v v210 -pix_fmt yuv422p10le ;;
    *) echo "make-media-samples: unknown format '$format'" >&2; exit 2 ;;
  esac
done
