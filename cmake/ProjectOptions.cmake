# Language level, warnings and build switches shared by every target.
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
# Every library may end up in the media module (libhdstream-media.so, media_module/), so all code
# is position-independent. -fno-semantic-interposition keeps a call within one source file
# direct (as without -fPIC); calls between files still go through the dynamic symbol table,
# which is what binds the module to the binary's copy of the core.
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_compile_options(-fno-semantic-interposition)
# Every file compiles as GStreamer's pkg-config asks of its users (-pthread, which defines
# _REENTRANT): one set of flags, so that the shared precompiled headers
# (cmake/PrecompiledHeaders.cmake) are valid in every target.
add_compile_options(-pthread)
# Install layout: bin/, share/hdstream/, share/doc/hdstream/ under the prefix (GNU conventions).
include(GNUInstallDirs)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

option(HDSTREAM_BUILD_TESTS "Build the test suite" ON)
option(HDSTREAM_WERROR "Treat warnings as errors" ON)
# Building the hdstream binary builds its media module (libhdstream-media.so: libav*, GStreamer,
# Qt) too. The tsan preset turns this off: its tests carry synthetic frames, and without the
# module its tree compiles 155 objects instead of 203 (404 s against 511 s in a fresh-clone CI).
# A command that needs the module then says it is missing (media_module/loader.cpp).
option(HDSTREAM_MEDIA_MODULE "Build the media module with the hdstream binary" ON)
# libFuzzer targets (fuzz/) need clang; on by default when clang++ is installed.
find_program(HDSTREAM_FUZZ_CXX NAMES clang++ clang++-14)
if(HDSTREAM_FUZZ_CXX)
  option(HDSTREAM_FUZZ "Build the libFuzzer targets with clang and run them briefly in ctest" ON)
else()
  option(HDSTREAM_FUZZ "Build the libFuzzer targets with clang and run them briefly in ctest" OFF)
endif()
# Ten seconds a target in ctest: the committed corpus is replayed in full by fuzz_replay_<target>
# (label unit) either way; longer runs are for `fuzz/run.sh` (docs/SECURITY.md).
set(HDSTREAM_FUZZ_SECONDS 10 CACHE STRING "Seconds each fuzz target runs in ctest")
# The tests' own code (hdstream_add_test, the WAN runner) compiles at -O1: what runs at line rate
# is the libraries', at the build type's level, and -O1 compiles the test files faster than -O2
# (cli_test.cpp 7.8 s against 12.4 s; all of them 1,079 compile-job seconds against 1,344 in a
# fresh-clone CI build), which are half the normal build's compiling.
# It reuses the -O2 precompiled headers (GCC requires only that both optimize). The asan preset
# keeps its -O0.
set(HDSTREAM_TEST_OPTIMIZATION "-O1" CACHE STRING "Optimization flag of the tests' own code")

# hdstream_warning_options(<target>): the warning set every project target compiles with.
function(hdstream_warning_options target)
  # Designated initializers may leave members at their defaults on purpose.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wno-missing-field-initializers)
  if(HDSTREAM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# hdstream_target_defaults(<target> [TEST]): every project target's warnings, and the
# precompiled headers of its kind (cmake/PrecompiledHeaders.cmake; TEST: a GoogleTest executable).
function(hdstream_target_defaults target)
  hdstream_warning_options(${target})
  hdstream_use_pch(${target} ${ARGN})
endfunction()
