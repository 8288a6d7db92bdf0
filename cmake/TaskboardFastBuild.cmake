# What makes a cold build of the main job fast (docs/performance.md, "First
# run"): precompiled headers and unity builds for the libraries it builds. Most of a cold build is the same few headers parsed again in
# every file: the generated protobuf/gRPC headers (scheduler.pb.h alone is
# about 1 MB), grpc++ and absl behind them. Each library below parses its set
# once, into a .pch that all of its files load.
#
# Headers are named with angle brackets, as found on the include path, so
# the generated cmake_pch.hxx holds no absolute path; cmake/ccache_launcher.sh
# keeps the .pch's own absolute paths out of ccache's keys. Only third-party
# and generated headers go in: a project header in a .pch would rebuild the
# whole library on every edit to it.

set(TASKBOARD_PCH_BASE
    <algorithm> <cstdint> <functional> <map> <memory> <optional> <string> <utility>
    <vector> <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>
    <absl/strings/string_view.h> <absl/container/flat_hash_map.h> <absl/time/time.h>)
# Messages only: the core libraries (no gRPC in sight) get these.
set(TASKBOARD_PCH_PROTO <taskboard/v1/common.pb.h> <taskboard/v1/flow.pb.h>
                        <taskboard/v1/worker.pb.h> <taskboard/v1/scheduler.pb.h>)
# The gRPC layer: the services, the worker's session and the CLI.
set(TASKBOARD_PCH_GRPC <grpcpp/grpcpp.h> <taskboard/v1/scheduler.grpc.pb.h>
                       <taskboard/v1/worker.grpc.pb.h>)

option(TASKBOARD_PCH "Precompile the heavy shared headers of the main libraries" ON)

# taskboard_precompile_headers(TARGET HEADERS...): TARGET's files load a .pch of
# HEADERS. A no-op with TASKBOARD_PCH off.
function(taskboard_precompile_headers target)
  if(TASKBOARD_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

option(TASKBOARD_UNITY "Compile the largest libraries as unity builds" ON)

# taskboard_unity_build(TARGET): TARGET's files are compiled 8 to a translation
# unit. Even with a .pch, each file spent most of its time generating code for
# the same inline protobuf, absl and CLI11 functions it uses; a unity unit does
# that once for its 8 files. Files in one unit share one anonymous namespace,
# so two files of TARGET must not define the same internal name. A no-op with
# TASKBOARD_UNITY off.
function(taskboard_unity_build target)
  if(TASKBOARD_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
