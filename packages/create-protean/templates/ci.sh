#!/usr/bin/env bash
# What CI runs: install, typecheck, test, build, and the image when docker is available.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
npm run typecheck
npm test
npm run build
if command -v docker >/dev/null 2>&1; then
  docker build -t {{name}}:0.1.0 .
else
  echo "ci.sh: docker not found, image not built"
fi
