#!/usr/bin/env bash
# Runs trustframe and the floor (bench/floor) on the same seeded database and
# prints the ratios of docs/benchmarks.md "Against the floor" (bench/compare
# interleaves the two so that both see the same background load).
#
#   bench/compare.sh [ORGANISATIONS] [DURATION] [ROUNDS]     default 100000 2s 3
#
# The data directory is kept in ${TRUSTFRAME_BENCH_DIR:-$TMPDIR/trustframe-compare-N} and seeded once.
# TRUSTFRAME_BIN=path runs that trustframe binary instead of this checkout's (an older build, "before").
set -euo pipefail
n=${1:-100000}
duration=${2:-2s}
rounds=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}
dir=${TRUSTFRAME_BENCH_DIR:-$tmp/trustframe-compare-$n}
bin=$(mktemp -d)
trap 'kill $tf_pid $floor_pid 2>/dev/null || true; rm -rf "$bin"' EXIT
tf_pid= floor_pid=

(cd "$root" && go build -o "$bin/trustframe" ./cmd/trustframe && go build -o "$bin/floor" ./bench/floor && go build -o "$bin/compare" ./bench/compare)
if [ -n "${TRUSTFRAME_BIN:-}" ]; then cp "$TRUSTFRAME_BIN" "$bin/trustframe"; fi
if [ ! -e "$dir/trustframe.db" ]; then
	mkdir -p "$dir"
	echo "seeding $n organisations into $dir (once)" >&2
	"$bin/trustframe" seed --organisations "$n" --data-dir "$dir" >&2
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tf_port=$(free_port)
floor_port=$(free_port)
"$bin/trustframe" serve --data-dir "$dir" --addr "127.0.0.1:$tf_port" --base-url "http://127.0.0.1:$tf_port" >"$bin/tf.log" 2>&1 &
tf_pid=$!
"$bin/floor" --db "$dir/trustframe.db" --addr "127.0.0.1:$floor_port" >"$bin/floor.log" 2>&1 &
floor_pid=$!
for url in "http://127.0.0.1:$tf_port/healthz" "http://127.0.0.1:$floor_port/api/organisations?size=1"; do
	for _ in $(seq 100); do curl -fsS -o /dev/null "$url" 2>/dev/null && break; sleep 0.1; done
done

echo "# $(date -u +%FT%TZ), $n organisations, $(nproc) cores, runs of $duration × $rounds pairs"
"$bin/compare" --floor "http://127.0.0.1:$floor_port" --trustframe "http://127.0.0.1:$tf_port" --duration "$duration" --rounds "$rounds"
echo "RSS after the run: trustframe $(ps -o rss= -p $tf_pid | awk '{printf "%.0f MB", $1/1024}'), floor $(ps -o rss= -p $floor_pid | awk '{printf "%.0f MB", $1/1024}')"
