# syntax=docker/dockerfile:1
# taskboard-worker: built from this repository with Debian 12's packages
# (the ones scripts/install-deps.sh installs), run on debian:12-slim with only
# the runtime libraries, as a non-root user. From the repository root:
#
#   docker build -f deploy/docker/worker.Dockerfile -t taskboard-worker:0.1.0 .
#
# Command agents run inside this image: derive your own image from it to add
# the programs your agents call (git, python3, ...).

FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      build-essential clang cmake ninja-build pkg-config git ca-certificates \
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev \
      librocksdb-dev libgtest-dev libgmock-dev \
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcurl4-openssl-dev libcpp-httplib-dev \
      libssl-dev libjemalloc-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN CC=clang CXX=clang++ cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTASKBOARD_FUZZ=OFF -DTASKBOARD_BENCH=OFF \
 && cmake --build /build --target taskboard-scheduler taskboard-worker taskboard-reaper taskboard \
 && strip /build/bin/taskboard-scheduler /build/bin/taskboard-worker /build/bin/taskboard-reaper \
      /build/bin/taskboard

FROM debian:12-slim
# Runtime libraries only, plus tini: it forwards SIGTERM, which starts the
# worker's drain, and reaps whatever still reaches PID 1 (the worker and each
# agent's taskboard-reaper end what agents start, docs/security.md).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 librocksdb7.8 libyaml-cpp0.7 \
      libjemalloc2 libcurl4 libcpp-httplib0.11 libssl3 ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 taskboard \
 && useradd --system --uid 10001 --gid taskboard --home-dir /work \
      --shell /usr/sbin/nologin taskboard \
 && install -d -o taskboard -g taskboard /work
# taskboard next to taskboard-worker: command agents find it first on their
# PATH (`taskboard tool`). taskboard-reaper, also next to it, runs each agent
# process and ends what it starts (docs/security.md#agent-confinement).
COPY --from=build /build/bin/taskboard-worker /build/bin/taskboard-reaper /build/bin/taskboard \
     /usr/local/bin/
USER 10001:10001
WORKDIR /work
EXPOSE 9091
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/taskboard-worker"]
CMD ["--scheduler=taskboard-scheduler:7233", "--workspace-root=/work", "--metrics-listen=0.0.0.0:9091"]
