#!/usr/bin/env bash
# Compares the public participants list of two builds, each on its own
# seeded directory (docs/benchmarks.md "Participants with claims"): the
# first build after a start (ROUNDS starts each, alternating, each server
# alone and given 5 s to start before its first request) and the cached
# answer, plain and gzipped (REQUESTS requests each, alternating between
# the two servers, both up). Prints the medians, the best and the bytes.
#
#   bench/participants.sh OLD_BIN OLD_DIR NEW_BIN NEW_DIR [ROUNDS] [REQUESTS]
#
# OLD_DIR and NEW_DIR are data directories seeded by their own build
# (`trustframe seed --data-dir DIR --organisations 100000`).
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,12p' "$0"; exit 2; }
old_bin=$1 old_dir=$2 new_bin=$3 new_dir=$4 rounds=${5:-3} requests=${6:-25}
out=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$out"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
old_port=$(free_port) new_port=$(free_port)

# start BIN DIR PORT: the server's pid, once it is ready.
start() {
	"$1" serve --addr "127.0.0.1:$3" --data-dir "$2" --base-url "http://127.0.0.1:$3" >"$out/serve-$3.log" 2>&1 &
	local pid=$!
	for _ in $(seq 1 200); do
		curl -fs -o /dev/null "http://127.0.0.1:$3/readyz" && break
		sleep 0.2
	done
	echo "$pid"
}

ask() { # PORT LABEL [curl args]: one line "LABEL seconds bytes"
	local port=$1 label=$2
	shift 2
	echo "$label $(curl -fs -o /dev/null "$@" -w '%{time_total} %{size_download}' "http://127.0.0.1:$port/api/participants")"
}

for _ in $(seq 1 "$rounds"); do
	for side in old new; do
		if [ $side = old ]; then set -- "$old_bin" "$old_dir" "$old_port"; else set -- "$new_bin" "$new_dir" "$new_port"; fi
		pid=$(start "$@")
		pids+=("$pid")
		sleep 5
		ask "$3" "$side-first" >>"$out/times"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
done

pids+=("$(start "$old_bin" "$old_dir" "$old_port")" "$(start "$new_bin" "$new_dir" "$new_port")")
for port in "$old_port" "$new_port"; do ask "$port" warm >/dev/null; done
sleep 2
for _ in $(seq 1 "$requests"); do
	ask "$old_port" old-plain >>"$out/times"
	ask "$new_port" new-plain >>"$out/times"
	ask "$old_port" old-gzip -H 'Accept-Encoding: gzip' >>"$out/times"
	ask "$new_port" new-gzip -H 'Accept-Encoding: gzip' >>"$out/times"
done

# median LABEL: the median seconds of LABEL's lines.
median() { grep "^$1 " "$out/times" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
best() { grep "^$1 " "$out/times" | awk '{print $2}' | sort -n | head -1; }
bytes() { grep "^$1 " "$out/times" | head -1 | awk '{print $3}'; }
printf '| | old | new | ratio |\n|---|---:|---:|---:|\n'
for what in first plain gzip; do
	o=$(median old-$what) n=$(median new-$what)
	printf '| %s, median s | %s | %s | %.2f× |\n' "$what" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done
for what in plain gzip; do
	o=$(best old-$what) n=$(best new-$what)
	printf '| %s, best s | %s | %s | %.2f× |\n' "$what" "$o" "$n" "$(echo "$n / $o" | bc -l)"
	o=$(bytes old-$what) n=$(bytes new-$what)
	printf '| %s, bytes | %s | %s | %.2f× |\n' "$what" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
