# Every third-party dependency is found once, here. All come from Debian 12 packages
# (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
# Media: GStreamer for capture sources, libav* for encode, decode, scaling and
# muxing. Only media/ links these.
pkg_check_modules(MEDIA REQUIRED IMPORTED_TARGET
  gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0 libavcodec libavformat libavutil)
# libsrt: the GnuTLS build (libsrt-gnutls-dev), the one Debian's GStreamer and FFmpeg load.
pkg_check_modules(SRT REQUIRED IMPORTED_TARGET srt)
# libav (FFmpeg) alone, for MPEG-TS in mux/: demux/decode, and MPEG-2 encode/mux (libswscale
# turns decoded 10-bit or packed pictures into the encoder's 8-bit planar 4:2:2; libswresample
# turns PCM into AAC's float planar and a TS's decoded sound into 48 kHz integers).
pkg_check_modules(LIBAV REQUIRED IMPORTED_TARGET libavformat libavcodec libavutil libswscale
                  libswresample)
pkg_check_modules(GNUTLS REQUIRED IMPORTED_TARGET gnutls)  # HMAC-SHA-256 and nonces (protocol/auth)
