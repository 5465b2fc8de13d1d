#!/usr/bin/env bash
# Rebuilds sr-parser.cjs (the Obsidian Spaced Repetition plugin's parser, bundled for Node.js) from the
# plugin's source at the pinned tag and the harness in harness/. Needs git, Node.js 20+ and npm, and a
# network that reaches github.com and the npm registry.
#
#   vendor/obsidian-sr/rebuild.sh [TAG]        (TAG defaults to 1.15.4, the version the tests read)
#
# Layout of the build (a temporary folder, removed at the end):
#   plugin/    git clone of st3v3nmw/obsidian-spaced-repetition at TAG, with its npm dependencies
#   harness/   harness.ts (the command line) and obsidian-stub.js (the "obsidian" module outside Obsidian)
# esbuild bundles harness.ts with every import resolved into one CommonJS file; "obsidian" is aliased to the
# stub. The result replaces sr-parser.cjs here; `git diff --stat` shows whether it changed.
set -euo pipefail
tag=${1:-1.15.4}
here=$(cd "$(dirname "$0")" && pwd)
build=$(mktemp -d /tmp/obsidian-sr-build.XXXXXX)
trap 'rm -rf "$build"' EXIT

git clone --quiet --depth 1 --branch "$tag" https://github.com/st3v3nmw/obsidian-spaced-repetition "$build/plugin"
(cd "$build/plugin" && npm ci --no-audit --no-fund --loglevel=error)
cp -r "$here/harness" "$build/harness"
cd "$build"
# harness/ sits beside plugin/, so its bare imports (js-yaml, moment) resolve through plugin/node_modules
NODE_PATH="$build/plugin/node_modules" "$build/plugin/node_modules/.bin/esbuild" harness/harness.ts \
  --bundle --platform=node --format=cjs --target=node20 \
  --alias:obsidian=./harness/obsidian-stub.js \
  --tsconfig=plugin/tsconfig.json \
  --outfile="$build/sr-parser.cjs" --log-level=warning
node "$build/sr-parser.cjs" --detail "$here/harness" >/dev/null  # it runs (an empty vault: {})
cp "$build/sr-parser.cjs" "$here/sr-parser.cjs"
echo "rebuilt $here/sr-parser.cjs from obsidian-spaced-repetition $tag"
