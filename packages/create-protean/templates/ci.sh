#!/usr/bin/env bash
# What CI runs: install, typecheck, lint, test, build, and the image when a docker daemon answers.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
npm run typecheck
npm run lint
npm test
npm run build
if ! command -v docker >/dev/null 2>&1; then
  echo "ci.sh: docker not found, image not built"
elif ! docker info >/dev/null 2>&1; then
  echo "ci.sh: docker is installed but its daemon does not answer (docker info failed), image not built"
else
  docker build -t {{name}}:0.1.0 .
fi
