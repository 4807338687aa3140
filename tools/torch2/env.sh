#!/usr/bin/env bash
# The torch 2.x environment: a Debian 13 (trixie) chroot with python3-torch 2.6 under build/, made by
# debootstrap from the Debian mirror this machine's apt already uses, and a way to run a command in it.
#
#   tools/torch2/env.sh create            create the chroot (or reuse a complete one); prints its path
#   tools/torch2/env.sh run CMD [ARGS]    run CMD inside with the repository at /etmcu (cwd /etmcu,
#                                         PYTHONPATH=/etmcu/python), creating the chroot first if needed
#   tools/torch2/env.sh status            exit 0 when a complete chroot exists (prints its path)
#   tools/torch2/env.sh remove            delete it
#
# The chroot is a cache of this machine's, as the Debian packages `./etmcu deps` installs are: by
# default ~/.cache/etmcu/torch2-KEY (XDG_CACHE_HOME if set; build/torch2-root without a writable
# home), KEY from the suite and package list below, so a clean clone (CI) reuses the one an
# earlier run made and a changed list makes a new one (the old one stays until removed with that
# list's env.sh). ETMCU_TORCH2_ROOT overrides the location; ETMCU_TORCH2_MIRROR the mirror.
# Concurrent creates wait for each other (a lock file beside the chroot).
# Needs root (debootstrap and chroot do). The repository (and ../shared, when present) is bind-mounted
# inside a private mount namespace (unshare -m), so the mounts vanish with the command, even on a crash.
# Exit codes: 0 ok, 3 the environment cannot be made here (the message says why), else the command's code.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SUITE=trixie
# A complete chroot is reused as it is (`env.sh remove` and create again to refresh it); changing
# this list changes the default location's KEY, so the next create makes a new one.
PACKAGES=python3-torch,python3-numpy,python3-flatbuffers,python3-pytest,flatbuffers-compiler
# (Debootstrap took 133 s alone here and 262 s in CI, beside the host build, whose step it slowed
# from about 155 to 289 s: the reason the chroot outlives a clone.)
cache_home=${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}
key=$(printf '%s %s' "$SUITE" "$PACKAGES" | sha256sum | cut -c1-12)
if [[ -n "${ETMCU_TORCH2_ROOT:-}" ]]; then
  CHROOT=$ETMCU_TORCH2_ROOT
elif [[ -n "$cache_home" ]] && mkdir -p "$cache_home/etmcu" 2>/dev/null && [[ -w "$cache_home/etmcu" ]]; then
  CHROOT=$cache_home/etmcu/torch2-$key
else
  CHROOT=$ROOT/build/torch2-root
fi
STAMP="$CHROOT/.etmcu-torch2-complete"

say() { printf '[torch2] %s\n' "$*" >&2; }
cannot() { say "cannot $1: $2"; exit 3; }

# The first Debian archive URI among the machine's apt sources (one-line .list or deb822 .sources),
# skipping the security archive; the host name is never written into the repository.
apt_mirror() {
  local f uri=""
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [[ -r "$f" ]] || continue
    uri=$(awk '
      /^[[:space:]]*#/ { next }
      /^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { u = $i; break }
                          if (u ~ /\/debian\/?$/) { print u; exit } u = "" }
      /^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }
    ' "$f")
    [[ -n "$uri" ]] && break
  done
  printf '%s' "$uri"
}

create() {
  mkdir -p "$(dirname "$CHROOT")"
  # one create at a time per chroot (two clean clones' CI runs on one machine); an exit inside
  # (cannot) closes the lock's descriptor with the process
  { flock 9 && create_locked; } 9>"$CHROOT.lock"
}

create_locked() {
  if [[ -f "$STAMP" ]]; then
    printf '%s\n' "$CHROOT"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || cannot "create the torch 2.x chroot" "debootstrap and chroot need root (run as root, or use sudo)"
  if ! command -v debootstrap >/dev/null; then
    say "debootstrap is missing; installing it with apt-get"
    local apt=(apt-get -o DPkg::Lock::Timeout=600 -y -q)   # wait for another apt-get rather than fail
    DEBIAN_FRONTEND=noninteractive "${apt[@]}" install --no-install-recommends debootstrap >&2 ||
      { "${apt[@]}" update >&2 && DEBIAN_FRONTEND=noninteractive "${apt[@]}" install --no-install-recommends debootstrap >&2; } ||
      cannot "install debootstrap" "apt-get failed (see above; no network to the Debian mirror?)"
  fi
  local mirror=${ETMCU_TORCH2_MIRROR:-$(apt_mirror)}
  [[ -n "$mirror" ]] || cannot "create the torch 2.x chroot" \
    "no Debian archive (a URI ending in /debian) in /etc/apt/sources.list*; set ETMCU_TORCH2_MIRROR"
  local log="$CHROOT.debootstrap.log" t0=$SECONDS
  if [[ -e "$CHROOT" ]] && ! grep -q "^I: Base system installed successfully" "$log" 2>/dev/null; then
    say "removing the incomplete chroot $CHROOT (an interrupted debootstrap)"
    remove_tree
  fi
  if [[ ! -e "$CHROOT" ]]; then
    say "creating $CHROOT: debootstrap $SUITE from $mirror with $PACKAGES (about 1.3 GB; log: $log)"
    # One retry: a debootstrap here once stopped while unpacking (2026-12-02, the mirror reachable
    # and the next attempt fine), which failed the whole CI run.
    local attempt
    for attempt in 1 2; do
      debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$CHROOT" "$mirror" >"$log" 2>&1 && break
      tail -n 5 "$log" >&2
      remove_tree
      ((attempt == 1)) && { say "debootstrap failed; retrying once in 10 s"; sleep 10; continue; }
      cannot "create the torch 2.x chroot" "debootstrap failed twice (no network to $mirror?); full log: $log"
    done
    rm -rf "$CHROOT/var/cache/apt/archives/"*.deb
  fi
  local version
  version=$(enter /usr/bin/python3 -c 'import torch, numpy, flatbuffers; print(torch.__version__)' |
    tail -n 1) || cannot "use the new chroot" "python3 -c 'import torch' failed inside $CHROOT"
  printf '%s\n' "$version" >"$STAMP"
  say "ready in $((SECONDS - t0)) s: torch $version"
  printf '%s\n' "$CHROOT"
}

remove_tree() {
  # never follow a bind mount into the repository: refuse while anything is mounted below the chroot
  if grep -q " $CHROOT/" /proc/mounts; then
    cannot "remove $CHROOT" "something is still mounted below it (see /proc/mounts)"
  fi
  rm -rf --one-file-system "$CHROOT"
}

run() {
  [[ $# -gt 0 ]] || { say "run: no command given"; exit 2; }
  create >/dev/null
  enter "$@"
}

# Run a command in the chroot, in a private mount namespace (the mounts vanish with the command):
# the repository at /etmcu, ../shared at /shared (read-only, when present), /proc, /dev, a tmpfs /tmp.
enter() {
  [[ $(id -u) -eq 0 ]] || cannot "enter the torch 2.x chroot" "chroot and its mounts need root"
  local shared
  shared=$(cd "$ROOT/.." && pwd)/shared
  unshare --mount --propagation private bash -c '
    set -e
    c=$1 repo=$2 shared=$3; shift 3
    mkdir -p "$c/etmcu" "$c/shared"
    mount --bind "$repo" "$c/etmcu"
    if [[ -d "$shared" ]]; then mount --bind -o ro "$shared" "$c/shared"; fi
    mount -t proc proc "$c/proc"
    mount --rbind /dev "$c/dev"
    mount -t tmpfs tmpfs "$c/tmp"
    exec chroot "$c" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
      PYTHONPATH=/etmcu/python PYTHONDONTWRITEBYTECODE=1 ETMCU_TORCH2=1 CI="${CI:-}" \
      sh -c "cd /etmcu && exec \"\$@\"" sh "$@"
  ' bash "$CHROOT" "$ROOT" "$shared" "$@"
}

cmd=${1:-}
[[ $# -gt 0 ]] && shift
case "$cmd" in
  create) create ;;
  run) run "$@" ;;
  status) [[ -f "$STAMP" ]] && { printf '%s (torch %s)\n' "$CHROOT" "$(cat "$STAMP")"; exit 0; }; exit 1 ;;
  remove) [[ -e "$CHROOT" ]] && remove_tree; rm -f "$CHROOT.debootstrap.log" ;;
  *) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
