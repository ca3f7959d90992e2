#!/usr/bin/env bash
# Builds (once, then cached) a real kube-apiserver and etcd from Go modules for
# Protean's integration tests. Shipped in @protean/envtest (run it as
# `npx protean-envtest build`); in the repository `tools/kube-apiserver/build.sh`
# runs this file. See tools/kube-apiserver/README.md in the repository.
#
# Usage: build.sh [--print-dir]
#   --print-dir  print the directory a build would use and do nothing else:
#                exit 0 when its binaries are there, 3 when they are not.
#
# Output contract:
#   - progress/log messages go to stderr;
#   - the LAST line of stdout is the absolute path of a directory containing
#     the executables `kube-apiserver`, `etcd` and `kube-controller-manager`;
#   - ${cache}/current is a symlink to the most recently built/used directory.
#
# Environment:
#   PROTEAN_KUBE_CACHE         cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/protean/kube-apiserver)
#   PROTEAN_KUBE_BUILD_JOBS    value for `go build -p` (default: Go's default, i.e. #CPUs)
#   PROTEAN_KUBE_EXTRA_GOFLAGS extra flags for `go build` (default: none)
#   GO                         go binary (default: `go` on PATH, else /usr/local/go/bin/go)
set -euo pipefail

# Bump when this script's build logic changes in a way that should invalidate caches.
BUILD_SCRIPT_VERSION="protean-kube-build-1"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
cd "$here"

log() { printf '[kube-apiserver/build] %s\n' "$*" >&2; }

print_dir=0
if (( $# > 1 )); then log "error: expected at most one argument (--print-dir), got $#: $*"; exit 64; fi
case "${1-}" in
  "") ;;
  --print-dir) print_dir=1 ;;
  *) log "error: unknown argument '$1' (the only option is --print-dir)"; exit 64 ;;
esac

# ---- cache key (must stay cheap: this is the warm path) -------------------------
# sha256 over: script version string, go.mod, go.sum and every .go file (sorted),
# each prefixed by its relative path so renames also change the key.
key="$(
  {
    printf '%s\n' "$BUILD_SCRIPT_VERSION"
    while IFS= read -r f; do
      printf '\n== %s\n' "$f"
      cat -- "$f"
    done < <(
      printf '%s\n' go.mod go.sum
      find . -name '*.go' -type f -not -path './.*' | sed 's|^\./||' | LC_ALL=C sort
    )
  } | sha256sum | cut -c1-16
)"

cache_root="${PROTEAN_KUBE_CACHE:-${XDG_CACHE_HOME:-${HOME:?HOME or PROTEAN_KUBE_CACHE must be set}/.cache}/protean/kube-apiserver}"
dest="$cache_root/$key"

update_current() {
  # Atomically repoint ${cache_root}/current -> <key> (relative symlink).
  local tmp_link="$cache_root/.current.$$"
  ln -sfn "$key" "$tmp_link"
  mv -Tf "$tmp_link" "$cache_root/current"
}

have_binaries() { [[ -x "$dest/kube-apiserver" && -x "$dest/etcd" && -x "$dest/kube-controller-manager" ]]; }

if (( print_dir )); then
  printf '%s\n' "$dest"
  have_binaries && exit 0
  log "not built yet: $dest lacks kube-apiserver, etcd or kube-controller-manager (run without --print-dir to build)"
  exit 3
fi

if have_binaries; then
  update_current
  printf '%s\n' "$dest"
  exit 0
fi

# ---- slow path: build ---------------------------------------------------------
mkdir -p "$cache_root"

# Serialise concurrent builders (e.g. parallel test workers); re-check after locking.
exec 9>"$cache_root/.build.lock"
if ! flock -n 9; then
  log "another build is running; waiting for $cache_root/.build.lock"
  flock 9
fi
if have_binaries; then
  update_current
  printf '%s\n' "$dest"
  exit 0
fi

GO="${GO:-}"
if [[ -z "$GO" ]]; then
  if command -v go >/dev/null 2>&1; then GO="$(command -v go)"
  elif [[ -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go
  else log "error: no Go toolchain found (set GO=/path/to/go)"; exit 1
  fi
fi

# Versions come from go.mod so a bump there is all that is needed.
kube_version="$(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' go.mod)"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3" && $2 ~ /^v/ {print $2; exit}' go.mod)"
[[ -n "$kube_version" && -n "$etcd_version" ]] || { log "error: cannot read versions from go.mod"; exit 1; }
kube_major="${kube_version#v}"; kube_major="${kube_major%%.*}"
kube_minor="${kube_version#v*.}"; kube_minor="${kube_minor%%.*}"

# Hermetic-ish Go settings: ignore a user's GOFLAGS / go.work / cross-compile vars.
export CGO_ENABLED=0 GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false"
unset GOOS GOARCH

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$kube_version"
  ldflags+=" -X $pkg.gitMajor=$kube_major -X $pkg.gitMinor=$kube_minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=go-module-$kube_version"
done
ldflags+=" -X go.etcd.io/etcd/api/v3/version.GitSHA=go-module-$etcd_version"

build_args=(-trimpath -ldflags "$ldflags")
[[ -n "${PROTEAN_KUBE_BUILD_JOBS:-}" ]] && build_args+=(-p "$PROTEAN_KUBE_BUILD_JOBS")
if [[ -n "${PROTEAN_KUBE_EXTRA_GOFLAGS:-}" ]]; then
  # shellcheck disable=SC2206 # intentional word splitting
  build_args+=($PROTEAN_KUBE_EXTRA_GOFLAGS)
fi

tmp="$(mktemp -d "$cache_root/.tmp.$key.XXXXXX")"
trap 'rm -rf -- "$tmp"' EXIT

start=$SECONDS
log "building kube-apiserver + kube-controller-manager $kube_version + etcd $etcd_version with $("$GO" env GOVERSION) into $dest (cold: ~13 min on 2 cores + ~2.8 GB of Go caches; warm Go cache: ~10 s)"
log "go mod download"
"$GO" mod download >&2
log "go build ${build_args[*]} ./cmd/kube-apiserver ./cmd/etcd ./cmd/kube-controller-manager"
"$GO" build "${build_args[@]}" -o "$tmp/" ./cmd/kube-apiserver ./cmd/etcd ./cmd/kube-controller-manager >&2

# Sanity check the binaries before publishing them.
"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version >&2
"$tmp/kube-controller-manager" --version >&2

{
  printf 'kube-apiserver %s\netcd %s\ngo %s\nkey %s\nscript %s\nbuilt %s\n' \
    "$kube_version" "$etcd_version" "$("$GO" env GOVERSION)" "$key" "$BUILD_SCRIPT_VERSION" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$tmp/BUILDINFO"
chmod 0755 "$tmp"

# Publish atomically: rename(2) of the fully built directory.
rm -rf -- "$dest"
mv -T -- "$tmp" "$dest"
trap - EXIT
update_current
log "done in $((SECONDS - start))s"
printf '%s\n' "$dest"
