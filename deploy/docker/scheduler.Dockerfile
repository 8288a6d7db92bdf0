# syntax=docker/dockerfile:1
# taskboard-scheduler: built from this repository with Debian 12's packages
# (the ones scripts/install-deps.sh installs), run on debian:12-slim with only
# the runtime libraries, as a non-root user. From the repository root:
#
#   docker build -f deploy/docker/scheduler.Dockerfile -t taskboard-scheduler:0.1.0 .
#
# The build stage is identical in worker.Dockerfile: the second image reuses
# the first one's cached build layers.

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
# Release, no fuzzers or benchmarks; only the service binaries and the CLI
# (workers put `taskboard` on their agents' PATH for `taskboard tool`).
RUN CC=clang CXX=clang++ cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTASKBOARD_FUZZ=OFF -DTASKBOARD_BENCH=OFF \
 && cmake --build /build --target taskboard-scheduler taskboard-worker taskboard \
 && strip /build/bin/taskboard-scheduler /build/bin/taskboard-worker /build/bin/taskboard

FROM debian:12-slim
# The shared libraries the binaries link (ldd build/bin/taskboard-*), nothing else.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      libgrpc++1.51 libgrpc29 libprotobuf32 libabsl20220623 librocksdb7.8 libyaml-cpp0.7 \
      libjemalloc2 libcurl4 libcpp-httplib0.11 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 taskboard \
 && useradd --system --uid 10001 --gid taskboard --home-dir /var/lib/taskboard \
      --shell /usr/sbin/nologin taskboard \
 && install -d -o taskboard -g taskboard /var/lib/taskboard
COPY --from=build /build/bin/taskboard-scheduler /build/bin/taskboard /usr/local/bin/
USER 10001:10001
WORKDIR /var/lib/taskboard
# gRPC (Scheduler, WorkerGateway, PolicyService, grpc.health.v1) and the
# /metrics, /healthz, /readyz endpoint; the manifests pass these flags too.
# On 0.0.0.0 the scheduler refuses to start without tokens: run the image
# with TASKBOARD_AUTH_TOKENS=FILE (and TASKBOARD_TLS_CERT/KEY), or with
# TASKBOARD_INSECURE=1 on a network you trust (docs/security.md).
EXPOSE 7233 9090
VOLUME ["/var/lib/taskboard"]
ENTRYPOINT ["/usr/local/bin/taskboard-scheduler"]
CMD ["--listen=0.0.0.0:7233", "--data-dir=/var/lib/taskboard/data", "--durability=sync", \
     "--metrics-listen=0.0.0.0:9090"]
