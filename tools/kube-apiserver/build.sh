#!/usr/bin/env bash
# The build of kube-apiserver, etcd and kube-controller-manager lives in
# packages/envtest/kube/ (shipped with @protean/envtest, run there as
# `npx protean-envtest build`). This wrapper keeps the repository's command:
# same arguments, same output, same cache. See README.md in this directory.
set -euo pipefail
exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/../../packages/envtest/kube/build.sh" "$@"
