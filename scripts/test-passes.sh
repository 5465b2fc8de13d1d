#!/usr/bin/env bash
# make test's two passes, run at the same time:
#   SQLite      every test, on SQLite files                                (SQLITE_WORKERS xdist workers, 3)
#   PostgreSQL  the tests whose backend matters (--db-dependent-only), on a private cluster
#               started and removed by scripts/with-postgres.sh           (PG_WORKERS xdist workers, 2)
#
#   scripts/test-passes.sh PYTHON [PYTEST_ARGS...]    (PYTEST_ARGS go to both passes)
#
# One after the other, the passes left a third of this 2-core machine idle (tests waiting on servers, ranks,
# Chromium, and each pass's last module running alone); side by side they fill it. Each pass writes to its
# own log and temp folder (--basetemp); a log is printed whole when its pass ends, with the pass's wall time
# and exit status, so the two never interleave. The exit status is non-zero if either pass failed. Ctrl-C or
# a TERM stops both passes and everything they started (each runs in its own process group).
set -uo pipefail

py=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/proofdeck-passes.XXXXXX)
xdist=(--dist loadfile --durations=20)

pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  wait
  rm -rf "$dir"
  exit 130
}
trap stop INT TERM

declare -A name start
launch() {  # launch LABEL CMD...: CMD in its own process group, its output in $dir/LABEL.log
  local label=$1
  shift
  setsid "$@" >"$dir/$label.log" 2>&1 &
  pids+=($!)
  name[$!]=$label
  start[$!]=$(date +%s)
}

launch SQLite "$py" -m pytest -n "${SQLITE_WORKERS:-3}" "${xdist[@]}" --basetemp "$dir/sqlite" "$@"
# the cache (--lf, --ff) is the SQLite pass's: two sessions writing .pytest_cache at once could tear its files
launch PostgreSQL "$here/with-postgres.sh" "$py" -m pytest -n "${PG_WORKERS:-2}" "${xdist[@]}" --db-dependent-only \
  -p no:cacheprovider --basetemp "$dir/pg" "$@"

failed=()
summary=()
left=("${pids[@]}")
while [ ${#left[@]} -gt 0 ]; do  # report each pass as it ends (polled: `wait -n` misses a job that ended meanwhile)
  still=()
  for pid in "${left[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then still+=("$pid"); continue; fi
    wait "$pid"
    rc=$?
    label=${name[$pid]}
    secs=$(( $(date +%s) - ${start[$pid]} ))
    took=$(printf '%dm%02ds' $((secs / 60)) $((secs % 60)))
    echo "==================== $label pass: exit $rc after $took ===================="
    cat "$dir/$label.log"
    summary+=("$label pass: exit $rc after $took")
    [ "$rc" = 0 ] || failed+=("$label")
  done
  left=("${still[@]}")
  [ ${#left[@]} -eq 0 ] || sleep 2
done
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]} pass; its temp folders (--basetemp) are kept in $dir" >&2
  exit 1
fi
rm -rf "$dir"
