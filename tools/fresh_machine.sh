#!/usr/bin/env bash
# fresh_machine.sh - README.md's Quick start on a fresh machine: a minimal Debian 12 root
# (debootstrap, variant minbase), in it only the packages the Quick start's prerequisites line
# names (apt-get install, no recommended packages), the CUDA toolkit of this machine bind-mounted
# read-only at /usr/local/cuda, a copy of this source tree (the files git tracks or would track),
# and the Quick start's commands run as written, as root, from the tree's root, with a clean
# environment (HOME and PATH only: no CUDA on PATH, no LD_LIBRARY_PATH, a loader configuration
# without the toolkit).  Fails when a command fails or when the first (configure, build, report)
# prints a warning: a prerequisite missing from the README fails the configuration (a compiler,
# make, libcsv) or makes it warn (python3, jq: tests left out).
#   tools/fresh_machine.sh [LOG_DIR]
# Root, debootstrap and the Debian mirror of this machine's apt sources are needed.  Everything
# runs in a mount namespace of its own (unshare): the root's mounts end with it, whatever ends
# it; the root is removed at the end.  LOG_DIR (default: none) keeps command1.log, command2.log.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd -P)
logs=${1:-}
cuda=/usr/local/cuda
suite=bookworm
start=$SECONDS
say() { echo "fresh_machine: $*"; }
die() { echo "fresh_machine: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, mounts, chroot)"
command -v debootstrap >/dev/null || die "needs debootstrap (apt-get install debootstrap)"
command -v unshare >/dev/null || die "needs unshare (util-linux)"
[ -x "$cuda/bin/nvcc" ] || die "no CUDA toolkit at $cuda"
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || die "$src is not a git checkout"

# The Quick start section; its prerequisites (the `apt-get install ...` of the line that starts
# "Prerequisites on Debian") and its commands (the lines of its first ``` block).
quick=$(awk '/^## Quick start/ { f = 1; next } /^## / { f = 0 } f' "$src/README.md")
# shellcheck disable=SC2016 # backquotes in single quotes: Markdown's
packages=$(printf '%s\n' "$quick" | awk '/^Prerequisites on Debian/ { f = 1 } f && /^$/ { exit } f' | tr '\n' ' ' |
           sed -n 's/^[^`]*`apt-get install \([^`]*\)`.*$/\1/p')
[ -n "$packages" ] || die "README.md's Quick start has no 'Prerequisites on Debian...: \`apt-get install ...\`' line"
mapfile -t commands < <(printf '%s\n' "$quick" | awk '/^```/ { if (f) exit; f = 1; next } f && NF')
[ ${#commands[@]} -gt 0 ] || die "README.md's Quick start has no command block"

# the Debian mirror this machine's apt uses (deb822 or one-line sources), else Debian's own
mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
         awk '/^URIs:/ { u = $2 } /^Suites:/ && / '"$suite"'( |$)/ && u ~ /debian\/?$/ { print u; exit }')
[ -n "$mirror" ] || mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
         awk '$1 == "deb" && $3 == "'"$suite"'" && $2 ~ /debian\/?$/ { print $2; exit }')
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d /var/tmp/fresh-machine.XXXXXX)
root=$work/root
cleanup() {
    local rc=$?
    # the mounts were made in the namespace only; never remove through one that is still there
    if grep -qF " $root" /proc/self/mountinfo; then
        echo "fresh_machine: mounts left under $root: not removed" >&2
    else
        rm -rf --one-file-system "$work"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say "README prerequisites: $packages"
say "README commands: ${#commands[@]}; mirror $mirror; root $root"

# Inside a private mount namespace: the root, its mounts (unmounted by a trap on every way out,
# and gone with the namespace anyway), the packages, the source copy, the commands.
export root cuda suite mirror packages src logs
export commands_text
commands_text=$(printf '%s\n' "${commands[@]}")
# shellcheck disable=SC2016 # the inner script expands its own variables
unshare --mount --propagation private bash -euo pipefail -c '
    mounts=()
    unmount() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" || true; done; }
    trap unmount EXIT
    mnt() { mount "$@"; mounts+=("${@: -1}"); }
    t=$SECONDS
    fail() { tail -n 20 "$1"; echo "fresh_machine: $2" >&2; exit 1; }
    # in two stages, to set dpkg up in between: no fsyncs (the root is thrown away), no
    # documentation, manual pages or translations (nothing here reads them)
    debootstrap --foreign --variant=minbase "$suite" "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
        fail "$root.debootstrap.log" "debootstrap failed"
    mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
    printf "%s\n" force-unsafe-io path-exclude=/usr/share/doc/* path-exclude=/usr/share/man/* \
        path-exclude=/usr/share/info/* path-exclude=/usr/share/locale/* >"$root/etc/dpkg/dpkg.cfg.d/fresh-machine"
    # (the second stage mounts /proc for itself, and unmounts it)
    chroot "$root" /debootstrap/debootstrap --second-stage >>"$root.debootstrap.log" 2>&1 ||
        fail "$root.debootstrap.log" "debootstrap --second-stage failed"
    echo "fresh_machine: Debian $suite minbase root in $((SECONDS - t)) s"
    mnt -t proc proc "$root/proc"
    mnt --rbind /dev "$root/dev"
    mnt -t sysfs sys "$root/sys"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    t=$SECONDS
    # shellcheck disable=SC2086 # the package list is words
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages" \
        >"$root.apt.log" 2>&1 || fail "$root.apt.log" "apt-get install $packages failed"
    echo "fresh_machine: README prerequisites installed in $((SECONDS - t)) s"
    mkdir -p "$root$cuda" "$root/root/atomutil"
    mnt --bind "$cuda" "$root$cuda"
    mount -o remount,bind,ro "$root$cuda"
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        tar -c -C "$src" --null --no-recursion -T - -f - | tar -x -C "$root/root/atomutil"
    n=0
    while IFS= read -r cmd; do
        n=$((n + 1))
        log="$root.command$n.log"
        echo "fresh_machine: command $n: $cmd"
        t=$SECONDS
        set +e
        chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            bash -c "cd /root/atomutil && $cmd" </dev/null >"$log" 2>&1
        rc=$?
        set -e
        [ -z "$logs" ] || { mkdir -p "$logs" && cp "$log" "$logs/command$n.log"; }
        if [ $rc != 0 ]; then
            tail -n 60 "$log"
            echo "fresh_machine: command $n exited $rc after $((SECONDS - t)) s" >&2
            exit 1
        fi
        tail -n 50 "$log"
        echo "fresh_machine: command $n passed in $((SECONDS - t)) s"
        if [ $n = 1 ] && grep -qi warning "$log"; then
            grep -ni warning "$log" | head -n 40
            echo "fresh_machine: command 1 printed $(grep -ci warning "$log") lines with a warning (above)" >&2
            exit 1
        fi
    done <<<"$commands_text"
'
say "passed in $((SECONDS - start)) s"
