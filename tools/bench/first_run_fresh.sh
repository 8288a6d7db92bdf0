#!/usr/bin/env bash
# Times the README's first command on a fresh Debian 12 system, in one run
# (docs/performance.md, "First run"): a minimal bookworm chroot, a fresh clone
# of this repository in it, and then, as root, with an empty ccache and under
# the build lock the whole time,
#   ./scripts/install-deps.sh && ./scripts/build.sh --main && ./scripts/demo.sh
# exactly as the README has it. Every line of its output gets the seconds since
# the start, and the end prints each part's time (apt-get update, apt download,
# apt unpack and configure, npm ci, configure, build, demo) and the wall time.
#
#   sudo tools/bench/first_run_fresh.sh [DIR]     # default DIR /var/tmp/fresh-bookworm
#   tools/bench/first_run_fresh.sh --summarize LOG   # the parts of an earlier run's DIR.log
#
# Needs: root, a Debian host that reaches the Debian archive and the npm
# registry, and debootstrap (installed here if missing: the only package this
# script touches on the host). Builds DIR.base once (debootstrap --variant=minbase
# bookworm, not timed), made like a machine a user logs into: Debian 12's stock
# apt sources (bookworm, bookworm-updates, bookworm-security; main), no apt
# lists or .debs cached, and git (a user who cloned the repository has it;
# installed with --no-install-recommends, so no ca-certificates). Each run
# copies DIR.base to DIR afresh, clones the repository's HEAD into DIR/src,
# mounts /proc, /sys, /dev and /dev/pts in DIR, and unmounts them on exit, also
# on failure or Ctrl-C; it ends any process still running in DIR (the demo's
# scheduler and worker, should the demo not end them).
#
# Knobs: FRESH_MIRROR (default http://deb.debian.org/debian), FRESH_LOCK (default
# /tmp/taskboard-build.lock; the timed run holds it so no build runs beside it),
# FRESH_REPO (default: this checkout). If the host sets NODE_EXTRA_CA_CERTS (a
# proxy that re-signs TLS), the chroot's npm gets the same file, as a machine
# behind that proxy would need. The log is DIR.log; the chroot stays for
# inspection. Clean up, once it has exited and `grep DIR /proc/mounts` shows
# nothing: `rm -rf DIR DIR.base DIR.base.*.log DIR.log` (the script itself never
# deletes or copies a directory with anything mounted under it).
set -euo pipefail

# --- each part, from the stamps -------------------------------------------------
# The parts' first lines: install-deps announces apt and npm; apt-get install
# prints its own "Reading package lists", its download ends at its "Fetched" and
# dpkg starts with "Selecting previously unselected"; CMake's configure begins
# with the compiler identification and ends with "Build files have been written";
# ninja's steps follow; the demo begins after the last step.
summarize() { # summarize LOG [STATUS] [COMMIT]: each part's time, from a stamped log
  awk -v status="${2:-?}" -v commit="${3:-?}" '
    function at(name, t) { if (!(name in seen)) { seen[name] = 1; when[name] = t } }
    !/^ *[0-9]+\.[0-9] / { next } # not the run'"'"'s output (e.g. an earlier summary)
    /first_run_fresh: timed run starts/ { t0 = $1 }
    { t = $1 - t0 }
    /install-deps: installing .*[a-z]/ && !/web console/ { at("apt", t) }
    /Reading package lists/ { lists++; if (lists == 2) at("apt_install", t) }
    /^ *[0-9.]+ Fetched/ { fetched++; if (fetched == 2) at("apt_fetched", t) }
    /Selecting previously unselected/ { at("dpkg", t) }
    /installing the web console/ { at("npm", t) }
    /install-deps: done/ { at("npm_done", t) }
    /The C compiler identification/ { at("configure", t) }
    /Build files have been written/ { at("configured", t) }
    /^ *[0-9.]+ \[[0-9]+\/[0-9]+\]/ {
      last_step = t; steps = $2; sub(/^\[[0-9]+\//, "", steps); sub(/\]$/, "", steps)
    }
    /taskflow repo-digest .* completed/ { completed = 1 }
    /^ *[0-9.]+ real/ { real = $3 }
    /^ *[0-9.]+ user/ { user = $3 }
    /^ *[0-9.]+ sys/ { sys = $3 }
    { end = t }
    function part(label, from, to) {
      if ((from in when) && (to in when)) printf "  %-34s %6.1f s\n", label, when[to] - when[from]
    }
    END {
      when["start"] = 0; when["end"] = end
      if (steps != "") when["built"] = last_step
      print "first_run_fresh: commit " commit ", exit " status \
        (completed ? ", the demo run completed" : ", the demo run did not complete")
      part("apt-get update", "apt", "apt_install")
      part("apt-get install: resolve + download", "apt_install", "apt_fetched")
      part("apt-get install: unpack + configure", "apt_fetched", "npm")
      part("npm ci (web/console)", "npm", "npm_done")
      part("cmake configure", "configure", "configured")
      part("build (ninja, " steps " steps)", "configured", "built")
      part("demo", "built", "end")
      printf "  %-34s %6.1f s (time: real %s, user %s, sys %s)\n", "total", end, real, user, sys
    }' "$1"
}

if [[ ${1:-} == --summarize ]]; then # re-reads the log of an earlier run
  [[ $# -eq 2 && -r $2 ]] || { echo "usage: first_run_fresh.sh --summarize LOG" >&2; exit 2; }
  summarize "$2"
  exit
fi

dir=$(realpath -m "${1:-/var/tmp/fresh-bookworm}")
base=$dir.base
log=$dir.log
mirror=${FRESH_MIRROR:-http://deb.debian.org/debian}
lock=${FRESH_LOCK:-/tmp/taskboard-build.lock}
repo=$(realpath "${FRESH_REPO:-$(dirname "$0")/../..}")

if [[ $(id -u) -ne 0 ]]; then
  echo "first_run_fresh: needs root (debootstrap, chroot, mount); run it with sudo" >&2
  exit 2
fi

# A directory must have nothing mounted under it before it is deleted or copied:
# `rm -rf` through a bind mount of /dev would delete the host's.
mounted_under() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/self/mounts; }

mounts=()
cleanup() {
  local status=$?
  # The demo ends its scheduler and worker itself; anything left in the chroot
  # (a failed run) is ended here, by pid, before its mounts go.
  local pids=() p
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$dir" ]] && pids+=("${p#/proc/}")
  done
  if ((${#pids[@]})); then
    echo "first_run_fresh: ending processes left in $dir: ${pids[*]}"
    kill "${pids[@]}" 2>/dev/null || true
    sleep 1
    kill -9 "${pids[@]}" 2>/dev/null || true
  fi
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" ||
      echo "first_run_fresh: could not unmount ${mounts[i]}" >&2
  done
  if [[ -n $(mounted_under "$dir") ]]; then
    echo "first_run_fresh: still mounted under $dir: $(mounted_under "$dir" | tr '\n' ' ')" >&2
    status=1
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The whole run is one function, read in full before it starts: bash reads a
# script as it goes, so editing this file during a run would change the run.
main() {
  # --- the base system, once (not timed) ---------------------------------------
  if [[ ! -f $base/.first-run-base ]]; then
    if ! command -v debootstrap >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
    fi
    [[ -z $(mounted_under "$base") ]] || { echo "first_run_fresh: $base has mounts" >&2; exit 1; }
    rm -rf "$base"
    echo "first_run_fresh: debootstrap --variant=minbase bookworm $base $mirror"
    debootstrap --variant=minbase bookworm "$base" "$mirror" >"$base.debootstrap.log" 2>&1 ||
      { tail -20 "$base.debootstrap.log"; exit 1; }
    # Debian 12's stock sources (a cloud image or the official container image).
    rm -f "$base/etc/apt/sources.list"
    cat >"$base/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cp /etc/resolv.conf "$base/etc/resolv.conf"
    # git: the user cloned the repository with it. Then forget the package lists and
    # the .debs, so the timed run pays apt-get update and every download.
    chroot "$base" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
      /bin/bash -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends git && apt-get clean &&
        rm -rf /var/lib/apt/lists/*' >"$base.git.log" 2>&1 || { tail -20 "$base.git.log"; exit 1; }
    touch "$base/.first-run-base"
  fi

  # --- this run's fresh copy ----------------------------------------------------
  [[ -z $(mounted_under "$dir") ]] || { echo "first_run_fresh: $dir has mounts: unmount first" >&2; exit 1; }
  rm -rf "$dir"
  cp -a "$base" "$dir"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  git clone -q "$repo" "$dir/src"
  commit=$(git -C "$dir/src" rev-parse --short HEAD)
  chroot_env=(HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  if [[ -n ${NODE_EXTRA_CA_CERTS:-} && -r $NODE_EXTRA_CA_CERTS ]]; then
    cp "$NODE_EXTRA_CA_CERTS" "$dir/etc/first-run-extra-ca.pem"
    chroot_env+=(NODE_EXTRA_CA_CERTS=/etc/first-run-extra-ca.pem)
  fi

  mount_in() { # mount_in TARGET MOUNT-ARGS...: mounts, and remembers it for cleanup
    local target=$dir$1
    shift
    mount "$@" "$target"
    mounts+=("$target")
  }
  mount_in /proc -t proc proc
  mount_in /sys -t sysfs sysfs
  mount_in /dev --bind /dev
  mount_in /dev/pts --bind /dev/pts

  # --- the timed run ------------------------------------------------------------
  first_command='./scripts/install-deps.sh && ./scripts/build.sh --main && ./scripts/demo.sh'
  echo "first_run_fresh: $(date -u +%FT%TZ), commit $commit, $(nproc) cores, in $dir"
  echo "first_run_fresh: waiting for $lock, then: cd /src && time ($first_command)"
  stamp() { # prefixes each line with the seconds since this started (the lock's wait included)
    local start=${EPOCHREALTIME/./} now line
    while IFS= read -r line; do
      now=${EPOCHREALTIME/./}
      printf '%7.1f %s\n' "$(((now - start) / 1000))e-3" "$line"
    done
  }
  set +e # a failed run still gets its parts printed
  flock "$lock" chroot "$dir" /usr/bin/env -i "${chroot_env[@]}" \
    /bin/bash -lc "cd /src && echo 'first_run_fresh: timed run starts' && time ($first_command)" 2>&1 |
    stamp | tee "$log"
  status=${PIPESTATUS[0]}
  set -e

  summarize "$log" "$status" "$commit" | tee -a "$log"
  return "$status"
}

main
