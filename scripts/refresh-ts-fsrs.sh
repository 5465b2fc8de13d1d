#!/usr/bin/env bash
# Refreshes the vendored ts-fsrs bundle (the FSRS library the handbook's study mode schedules with) from the
# npm registry at a pinned version: its UMD build, minified with esbuild (also pinned), with its licence.
#
#   scripts/refresh-ts-fsrs.sh                 (TS_FSRS=5.4.2 ESBUILD=0.28.2 by default)
#
# Writes app/static/vendor/ts-fsrs/{ts-fsrs.min.js,LICENSE,VERSION}; `git diff --stat` shows whether anything
# changed. Needs Node.js 20+ and npm, and a network that reaches the npm registry. Nothing is fetched at run
# time: the handbook inlines the committed file (app/export/handbook.py).
set -euo pipefail
version=${TS_FSRS:-5.4.2}
esbuild=${ESBUILD:-0.28.2}
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/app/static/vendor/ts-fsrs"
build=$(mktemp -d /tmp/ts-fsrs-build.XXXXXX)
trap 'rm -rf "$build"' EXIT

cd "$build"
npm pack --silent "ts-fsrs@$version" >/dev/null
tar xzf "ts-fsrs-$version.tgz"
npm install --silent --no-audit --no-fund --prefix "$build/tools" "esbuild@$esbuild" >/dev/null
# the UMD build defines the global FSRS; its sourceMappingURL comment is dropped (nothing to fetch)
grep -v '^//# sourceMappingURL=' package/dist/index.umd.js > ts-fsrs.umd.js
"$build/tools/node_modules/.bin/esbuild" ts-fsrs.umd.js --minify --target=es2017 --log-level=warning \
  --banner:js="/*! ts-fsrs $version (MIT, Open Spaced Repetition; app/static/vendor/ts-fsrs/LICENSE) */" \
  --outfile=ts-fsrs.min.js
node -e 'const vm = require("vm"); const box = {}; vm.runInNewContext(require("fs").readFileSync("ts-fsrs.min.js", "utf8"), box);
  if (typeof box.FSRS.FSRSAlgorithm !== "function") { throw new Error("no FSRS.FSRSAlgorithm in the bundle"); }'
mkdir -p "$out"
cp ts-fsrs.min.js "$out/ts-fsrs.min.js"
cp package/LICENSE "$out/LICENSE"
echo "$version" > "$out/VERSION"
echo "refreshed $out from ts-fsrs $version ($(wc -c < "$out/ts-fsrs.min.js") bytes)"
