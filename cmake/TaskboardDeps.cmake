# Every third-party dependency comes from Debian 12's packages
# (scripts/install-deps.sh installs them); nothing is downloaded at build time.
# GoogleTest and Benchmark are optional here: only tests/ and tools/bench use
# them, and the first run (`install-deps.sh`, `build.sh --main`) installs
# neither; `install-deps.sh --test` does, and build.sh then configures again.
find_package(PkgConfig REQUIRED)
# Debian ships gRPC's pkg-config files; its CMake config is incomplete.
pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++>=1.51)
# grpc++_reflection has no .pc file in Debian 12.
find_library(GRPCPP_REFLECTION_LIBRARY grpc++_reflection REQUIRED)
pkg_check_modules(PROTOBUF REQUIRED IMPORTED_TARGET protobuf>=3.21)
find_package(absl CONFIG REQUIRED)
find_package(RocksDB CONFIG REQUIRED)
find_package(GTest CONFIG)
find_package(nlohmann_json 3.10 CONFIG REQUIRED)
find_package(yaml-cpp CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(OpenSSL REQUIRED)
# The LLM agent's HTTP client and the small HTTP servers (fake LLM, metrics).
pkg_check_modules(CURL REQUIRED IMPORTED_TARGET libcurl>=7.88)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib>=0.11)
# The services' HTTP front door (common/http): event-driven, with per-address limits.
pkg_check_modules(MHD REQUIRED IMPORTED_TARGET libmicrohttpd>=0.9.75)
find_package(Threads REQUIRED)
# The scheduler's and worker's allocator: they allocate per task, and glibc's
# malloc (fragmentation, consolidation) cost them about a third more CPU
# (docs/performance.md). Linked into the service binaries and the benchmark.
pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc>=5)
if(TASKBOARD_BENCH)
  find_package(benchmark CONFIG)
endif()

find_program(PROTOC protoc REQUIRED)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
