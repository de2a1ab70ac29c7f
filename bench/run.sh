#!/usr/bin/env bash
# npm run bench [-- --only ceilings,engine,crawlee,embedded,https,duplicates,kafka,stages,profile,large] [--with-large]
#                 [--hosts N --pages N --seeds N] [--crawlee-min 16,32] [--quiet-wait S]   (all options: bench/main.ts)
# Builds the project, installs the benchmark-only dependencies (Crawlee) into bench/node_modules when
# missing, then runs the harness (dist/bench/main.js). Results: bench/results/bench-<date>.json and .md;
# `node dist/bench/rerender.js FILE.json` renders a results file again (e.g. after bench/levers.json changed).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# tsc exits non-zero on type errors anywhere in the tree but still emits; the harness only needs its files.
npm run build >&2 || echo "bench: build reported errors (continuing with what was emitted)" >&2
[[ -f dist/bench/main.js ]] || { echo "bench: dist/bench/main.js was not built" >&2; exit 1; }
if [[ ! -d bench/node_modules/@crawlee/cheerio ]]; then
  echo "bench: installing Crawlee into bench/node_modules (first run only)" >&2
  npm --prefix bench ci --no-audit --no-fund >&2 || npm --prefix bench install --no-audit --no-fund >&2
fi
exec node dist/bench/main.js "$@"
