#!/usr/bin/env bash
# Build the container images the Docker tests use, without pulling anything: each image is a root
# filesystem assembled from Debian packages and loaded with `docker import`. Idempotent: an image that
# already exists is skipped.
#
#   claudius-test-tiny:latest    busybox-static + bash-static, ~4 MB, builds in under a second
#   claudius-test-debian:latest  debootstrap --variant=minbase bookworm, ~65 s (only with --debian)
#
# Usage: build_images.sh [--debian] [--force]
#   --debian   also build claudius-test-debian:latest
#   --force    rebuild images that already exist
# Environment: DOCKER (engine CLI, default docker), DEBIAN_MIRROR (default: the first http(s) URI of
# the apt sources for bookworm, else http://deb.debian.org/debian).
set -euo pipefail

docker_cli="${DOCKER:-docker}"
want_debian=0
force=0
for arg in "$@"; do
  case "$arg" in
    --debian) want_debian=1 ;;
    --force) force=1 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_images.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Install the Debian packages named in "$@" that are missing (apt-get update once, first).
apt_updated=0
ensure_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

image_exists() {
  [ "$force" -eq 0 ] && "$docker_cli" image inspect "$1" >/dev/null 2>&1
}

build_tiny() {
  local image=claudius-test-tiny:latest
  if image_exists "$image"; then
    echo "build_images.sh: $image exists, skipped"
    return 0
  fi
  ensure_packages busybox-static bash-static
  local root
  root="$(mktemp -d)"
  trap 'rm -rf "$root"' RETURN
  mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,workspace,root,home/agent,proc,sys,dev}
  chmod 1777 "$root/tmp" "$root/workspace" "$root/home/agent"
  cp /bin/busybox "$root/bin/busybox"
  cp /bin/bash-static "$root/bin/bash"
  local applet
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
agent:x:1000:1000:agent:/home/agent:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
  cat >"$root/etc/group" <<'EOF'
root:x:0:
agent:x:1000:
nogroup:x:65534:
EOF
  echo 'export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' >"$root/etc/profile"
  # Numeric owners: the rootfs is root-owned inside the image whoever built it.
  tar --numeric-owner --owner=0 --group=0 -C "$root" -c . |
    "$docker_cli" import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin' \
      -c 'WORKDIR /' - "$image" >/dev/null
  echo "build_images.sh: built $image"
}

debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return 0
  fi
  local uri
  uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ')" || true
  echo "${uri:-http://deb.debian.org/debian}"
}

build_debian() {
  local image=claudius-test-debian:latest
  if image_exists "$image"; then
    echo "build_images.sh: $image exists, skipped"
    return 0
  fi
  ensure_packages debootstrap
  local root mirror
  root="$(mktemp -d)"
  trap 'as_root rm -rf "$root"' RETURN
  mirror="$(debian_mirror)"
  echo "build_images.sh: debootstrap bookworm from $mirror (about a minute)"
  as_root debootstrap --variant=minbase bookworm "$root" "$mirror" >/tmp/claudius-debootstrap.log 2>&1 || {
    echo "build_images.sh: debootstrap failed; last lines of /tmp/claudius-debootstrap.log:" >&2
    tail -n 20 /tmp/claudius-debootstrap.log >&2
    return 1
  }
  as_root chroot "$root" useradd -m -u 1000 agent >/dev/null 2>&1 || true
  as_root mkdir -p "$root/workspace"
  as_root rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  as_root tar --numeric-owner -C "$root" -c . |
    "$docker_cli" import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      -c 'WORKDIR /' - "$image" >/dev/null
  echo "build_images.sh: built $image"
}

build_tiny
if [ "$want_debian" -eq 1 ]; then build_debian; fi
