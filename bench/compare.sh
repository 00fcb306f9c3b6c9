#!/usr/bin/env bash
# Runs trustframe and the floor (bench/floor) on the same seeded database and
# prints the ratios of docs/benchmarks.md "Against the floor" (bench/compare
# interleaves the two so that both see the same background load): the reads
# at N organisations, the public participants list at 5,000 (as issue 19
# measured it).
#
#   bench/compare.sh [N] [DURATION] [ROUNDS]     default 100000 2s 3
#   bench/compare.sh soak [N] [DURATION]         default 100000 3m: reads and
#       writes together for DURATION, RSS sampled (docs/benchmarks.md "Soak")
#
# Data directories are kept in $TMPDIR/trustframe-compare-N (seeded once).
# TRUSTFRAME_BIN=path runs that trustframe binary instead of this
# checkout's (an older build: "before").
set -euo pipefail
mode=measure
if [ "${1:-}" = soak ]; then
	mode=soak
	shift
	set -- "${1:-100000}" "${2:-3m}" 1
fi
n=${1:-100000}
duration=${2:-2s}
rounds=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=${TMPDIR:-/tmp}
bin=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$bin"' EXIT

(cd "$root" && go build -o "$bin/trustframe" ./cmd/trustframe && go build -o "$bin/floor" ./bench/floor && go build -o "$bin/compare" ./bench/compare)
if [ -n "${TRUSTFRAME_BIN:-}" ]; then cp "$TRUSTFRAME_BIN" "$bin/trustframe"; fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run N ONLY: seed (once), start both servers, measure, stop them.
run() {
	local n=$1 only=$2 dir=$tmp/trustframe-compare-$1
	if [ ! -e "$dir/trustframe.db" ]; then
		mkdir -p "$dir"
		echo "seeding $n organisations into $dir (once)" >&2
		"$bin/trustframe" seed --organisations "$n" --data-dir "$dir" >&2
	fi
	local tf_port floor_port tf_pid floor_pid
	tf_port=$(free_port)
	floor_port=$(free_port)
	"$bin/trustframe" serve --data-dir "$dir" --addr "127.0.0.1:$tf_port" --base-url "http://127.0.0.1:$tf_port" >"$bin/tf.log" 2>&1 &
	tf_pid=$!
	"$bin/floor" --db "$dir/trustframe.db" --addr "127.0.0.1:$floor_port" >"$bin/floor.log" 2>&1 &
	floor_pid=$!
	pids+=("$tf_pid" "$floor_pid")
	for url in "http://127.0.0.1:$tf_port/healthz" "http://127.0.0.1:$floor_port/api/organisations?size=1"; do
		for _ in $(seq 100); do curl -fsS -o /dev/null "$url" 2>/dev/null && break; sleep 0.1; done
	done
	echo "RSS idle: trustframe $(ps -o rss= -p "$tf_pid" | awk '{printf "%.0f MB", $1/1024}'), floor $(ps -o rss= -p "$floor_pid" | awk '{printf "%.0f MB", $1/1024}')"
	"$bin/compare" --floor "http://127.0.0.1:$floor_port" --trustframe "http://127.0.0.1:$tf_port" --duration "$duration" --rounds "$rounds" --only "$only" --soak "$duration" --pid "$tf_pid"
	echo "RSS loaded: trustframe $(ps -o rss= -p "$tf_pid" | awk '{printf "%.0f MB", $1/1024}'), floor $(ps -o rss= -p "$floor_pid" | awk '{printf "%.0f MB", $1/1024}')"
	kill "$tf_pid" "$floor_pid"
	wait "$tf_pid" "$floor_pid" 2>/dev/null || true
}

if [ "$mode" = soak ]; then
	echo "# $(date -u +%FT%TZ), $(nproc) cores, soak of $duration at $n organisations"
	run "$n" soak
	exit 0
fi
echo "# $(date -u +%FT%TZ), $(nproc) cores, runs of $duration × $rounds pairs"
echo "## reads at $n organisations"
run "$n" reads
echo "## public participants list at 5000 organisations"
run 5000 participants
