# Precompiled headers: the heavy third-party headers (Asio, spdlog, fmt, nlohmann-json, and
# GoogleTest for the tests) are parsed once per build instead of once per source file (~3 s of
# each transport or app file's compile on the 2-core machine).
#
# Two small targets compile them: hdstream_pch_library for every library and executable, and
# hdstream_pch_test (the same and gtest.h) for the GoogleTest executables. hdstream_target_defaults()
# (cmake/ProjectOptions.cmake) makes each project target reuse one. GCC takes a precompiled
# header only into a compile with the same flags and definitions, so every project target
# compiles with the same ones: the defaults, common's BOOST_/SPDLOG_/FMT_ definitions, -pthread,
# and -fPIC (libraries are PIC anyway, and Qt asks it of executables, which would otherwise be
# -fPIE). A compile whose flags differ fails with -Winvalid-pch (an error with -Werror), so a
# mismatch is seen at once rather than silently costing the time.
# HDSTREAM_PCH=OFF turns it off (e.g. to check that each file includes what it uses).
option(HDSTREAM_PCH "Precompile the heavy third-party headers" ON)

set(hdstream_pch_headers
    "${PROJECT_SOURCE_DIR}/common/asio.hpp"
    <spdlog/spdlog.h>
    <fmt/format.h>
    <nlohmann/json.hpp>
    <algorithm>
    <chrono>
    <functional>
    <memory>
    <optional>
    <string>
    <vector>)

# What the precompiled headers are compiled with (their include paths and definitions), given to
# every target that reuses them, whether or not it uses the libraries itself.
add_library(hdstream_pch_flags INTERFACE)
target_link_libraries(hdstream_pch_flags INTERFACE Boost::headers Threads::Threads spdlog::spdlog
                                                   fmt::fmt nlohmann_json::nlohmann_json)
target_compile_definitions(hdstream_pch_flags INTERFACE BOOST_ASIO_NO_DEPRECATED)

function(hdstream_add_pch_target name)
  add_library(${name} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch/empty.cpp)
  target_link_libraries(${name} PRIVATE hdstream_pch_flags ${ARGN})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  hdstream_warning_options(${name})
  target_precompile_headers(${name} PRIVATE ${hdstream_pch_headers})
endfunction()

if(HDSTREAM_PCH)
  hdstream_add_pch_target(hdstream_pch_library)
  if(HDSTREAM_BUILD_TESTS)
    find_package(GTest REQUIRED)
    hdstream_add_pch_target(hdstream_pch_test GTest::gtest)
    target_precompile_headers(hdstream_pch_test PRIVATE <gtest/gtest.h>)
  endif()
endif()

# hdstream_use_pch(<target> [TEST]): the target reuses the precompiled headers (TEST: with
# GoogleTest's).
function(hdstream_use_pch target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    target_compile_options(${target} PRIVATE -fPIC)  # as every library: one set of flags
  endif()
  if(NOT HDSTREAM_PCH OR type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_link_libraries(${target} PRIVATE hdstream_pch_flags)
  if(ARGV1 STREQUAL "TEST" AND TARGET hdstream_pch_test)
    target_precompile_headers(${target} REUSE_FROM hdstream_pch_test)
  else()
    target_precompile_headers(${target} REUSE_FROM hdstream_pch_library)
  endif()
endfunction()
