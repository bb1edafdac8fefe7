#!/usr/bin/env bash
# Make a container engine (and bubblewrap) available for the sandbox tests, then build the test images.
#   1. No `docker` CLI: install Debian's docker.io (apt-get update first).
#   2. No `bwrap`: install Debian's bubblewrap.
#   3. No daemon answering `docker info`: start `dockerd` in the background (log in
#      $DOCKERD_LOG, default /tmp/dockerd.log) and wait up to $DOCKERD_WAIT seconds (default 60).
#   4. Build the test images (idempotent; `--debian` also builds claudius-test-debian).
# Usage: .ci/docker_setup.sh [--debian]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
log="${DOCKERD_LOG:-/tmp/dockerd.log}"
wait_seconds="${DOCKERD_WAIT:-60}"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# wait_for_engine HOST LOG: until `docker info` answers on HOST (empty: the default), or fail with LOG's tail.
wait_for_engine() {
  local deadline=$((SECONDS + wait_seconds))
  until DOCKER_HOST="$1" docker info >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "docker_setup: error: dockerd ${1:-(default)} did not answer within ${wait_seconds}s; last lines of $2:" >&2
      tail -n 20 "$2" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}

if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
  if ! docker info >/dev/null 2>&1; then
    echo "docker_setup: installing docker.io"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
  fi
fi

if ! command -v ip >/dev/null 2>&1; then
  echo "docker_setup: installing iproute2 (the second engine's bridge)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 >/dev/null
fi

if ! command -v bwrap >/dev/null 2>&1; then
  echo "docker_setup: installing bubblewrap (the bubblewrap environment's tests)"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "docker_setup: no daemon answers; starting dockerd (log: $log)"
  as_root setsid sh -c "nohup dockerd >'$log' 2>&1 &"
  wait_for_engine "${DOCKER_HOST:-}" "$log"
  echo "docker_setup: dockerd is up"
fi

"$repo/tests/testdata/images/build_images.sh" "$@"

docker2="${DOCKER2_HOST:-unix:///var/run/docker2.sock}"
log2="${DOCKERD2_LOG:-/tmp/dockerd2.log}"
if ! DOCKER_HOST="$docker2" docker info >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
    echo "docker_setup: warning: no root: second engine ($docker2) not started; multi-host batch test ignored" >&2
    exit 0
  fi
  echo "docker_setup: starting a second dockerd on $docker2 (log: $log2)"
  # Its own bridge: a daemon started with `--bridge none` deletes docker0 under the first daemon.
  if ! ip link show docker1 >/dev/null 2>&1; then
    as_root ip link add docker1 type bridge
    as_root ip addr add 172.31.0.1/24 dev docker1
    as_root ip link set docker1 up
  fi
  as_root setsid sh -c "nohup dockerd --host '$docker2' --data-root /var/lib/docker2 --exec-root /var/run/docker2 \
    --pidfile /var/run/docker2.pid --bridge docker1 --iptables=false >'$log2' 2>&1 &"
  wait_for_engine "$docker2" "$log2"
fi
if ! DOCKER_HOST="$docker2" docker image inspect claudius-test-tiny:latest >/dev/null 2>&1; then
  docker save claudius-test-tiny:latest | DOCKER_HOST="$docker2" docker load >/dev/null
  echo "docker_setup: claudius-test-tiny loaded into $docker2"
fi
