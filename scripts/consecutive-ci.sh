#!/usr/bin/env bash
# N consecutive fresh-clone CI runs of this repository's HEAD, as CI runs them, with the load sampled:
#   scripts/consecutive-ci.sh LABEL N      → one line per run in $OUT/summary.txt (OUT=/tmp/ci-results)
# Each run clones into a folder beside this checkout (so ../shared is found, as in CI), runs `bash .ci/run`
# with CI=true and no standard input, records the 1-minute load average every 30 s, and stops the series at
# the first failed run (its log is $OUT/LABEL-I.log). For extra load, start e.g. `stress-ng --cpu 2` beside it.
set -uo pipefail
label=$1
n=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/ci-results}
mkdir -p "$out"
for i in $(seq 1 "$n"); do
  dir=$(dirname "$repo")/ci-$label-$i
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  commit=$(git -C "$dir" rev-parse --short HEAD)
  (while true; do cut -d' ' -f1 /proc/loadavg; sleep 30; done) >"$out/$label-$i.load" &
  sampler=$!
  start=$(date +%s)
  from=$(date -u +%H:%M:%S)
  (cd "$dir" && CI=true bash .ci/run </dev/null) >"$out/$label-$i.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  kill "$sampler"
  loads=$(sort -n "$out/$label-$i.load" | awk '{a[NR]=$1} END {print a[1] " / " a[int((NR+1)/2)] " / " a[NR]}')
  echo "$label-$i $commit $from-$(date -u +%H:%M:%S) rc=$rc wall=${secs}s load(min/med/max)=$loads" >>"$out/summary.txt"
  grep -E "pass: exit|[0-9]+ passed" "$out/$label-$i.log" | tail -6 >>"$out/summary.txt"
  rm -rf "$dir"
  [ "$rc" = 0 ] || break
done
