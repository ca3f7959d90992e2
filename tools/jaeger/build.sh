#!/usr/bin/env bash
# Builds (once, then cached) the Jaeger v2 binary from Go modules, the trace
# store of the real tier's tracing test: it receives OTLP on 127.0.0.1:4317
# (gRPC) and :4318 (HTTP) and answers its query API on :16686. See README.md
# in this directory.
#
# Usage: build.sh [--print-dir]
#   --print-dir  print the directory a build would use and do nothing else:
#                exit 0 when its binary is there, 3 when it is not.
#
# Output contract (as tools/kube-apiserver/build.sh):
#   - progress/log messages go to stderr;
#   - the LAST line of stdout is the absolute path of a directory containing
#     the executable `jaeger`;
#   - ${cache}/current is a symlink to the most recently built/used directory.
#
# Environment:
#   PROTEAN_JAEGER_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/protean/jaeger)
#   GO                    go binary (default: `go` on PATH, else /usr/local/go/bin/go)
set -euo pipefail

JAEGER_MODULE="github.com/jaegertracing/jaeger"
JAEGER_VERSION="v1.76.0"
# Bump when the build below changes in a way that should invalidate caches.
BUILD_SCRIPT_VERSION="1"

log() { printf '[jaeger/build] %s\n' "$*" >&2; }

print_dir=0
if (( $# > 1 )); then log "error: expected at most one argument (--print-dir), got $#: $*"; exit 64; fi
case "${1-}" in
  "") ;;
  --print-dir) print_dir=1 ;;
  *) log "error: unknown argument '$1' (the only option is --print-dir)"; exit 64 ;;
esac

cache_root="${PROTEAN_JAEGER_CACHE:-${XDG_CACHE_HOME:-${HOME:?HOME or PROTEAN_JAEGER_CACHE must be set}/.cache}/protean/jaeger}"
key="${JAEGER_VERSION}-b${BUILD_SCRIPT_VERSION}"
dest="$cache_root/$key"

update_current() {
  local tmp_link="$cache_root/.current.$$"
  ln -sfn "$key" "$tmp_link"
  mv -Tf "$tmp_link" "$cache_root/current"
}

if (( print_dir )); then
  printf '%s\n' "$dest"
  [[ -x "$dest/jaeger" ]] && exit 0
  log "not built yet: $dest lacks jaeger (run without --print-dir to build)"
  exit 3
fi

if [[ -x "$dest/jaeger" ]]; then update_current; printf '%s\n' "$dest"; exit 0; fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
if ! flock -n 9; then
  log "another build is running; waiting for $cache_root/.build.lock"
  flock 9
fi
if [[ -x "$dest/jaeger" ]]; then update_current; printf '%s\n' "$dest"; exit 0; fi

GO="${GO:-}"
if [[ -z "$GO" ]]; then
  if command -v go >/dev/null 2>&1; then GO="$(command -v go)"
  elif [[ -x /usr/local/go/bin/go ]]; then GO=/usr/local/go/bin/go
  else log "error: no Go toolchain found (set GO=/path/to/go)"; exit 1
  fi
fi

export CGO_ENABLED=0 GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false"
unset GOOS GOARCH

# The module's go.mod has replace directives, so `go install module@version`
# refuses it: it is built as the main module, from its copy in the module cache.
log "downloading $JAEGER_MODULE@$JAEGER_VERSION"
src="$("$GO" mod download -json "$JAEGER_MODULE@$JAEGER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -n "$src" && -d "$src" ]] || { log "error: go mod download gave no directory for $JAEGER_MODULE@$JAEGER_VERSION"; exit 1; }

tmp="$(mktemp -d "$cache_root/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log "building cmd/jaeger in $src (several minutes on a cold Go cache)"
started=$SECONDS
(cd "$src" && "$GO" build -trimpath -ldflags "-s -w" -o "$tmp/jaeger" ./cmd/jaeger)
"$tmp/jaeger" version >/dev/null 2>&1 || { log "error: the built jaeger does not run"; exit 1; }
mkdir -p "$dest"
mv "$tmp/jaeger" "$dest/jaeger"
update_current
log "built in $((SECONDS - started))s: $dest/jaeger"
printf '%s\n' "$dest"
