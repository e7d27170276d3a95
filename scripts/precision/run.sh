#!/usr/bin/env bash
# The precision corpus: a full default run of sealmark (every pack,
# --active --yes) over each real server of testdata/corpus, each installed
# alone with its own lock as npx gives it to a user, and the table of every
# critical and high finding joined with the hand checks of
# docs/precision-checks.tsv (docs/precision.md says how to read it).
#
#   scripts/precision/run.sh                 # install, run all, write the table
#   scripts/precision/run.sh --only NAME     # rerun one server (then the table)
#   scripts/precision/run.sh --table-only    # rewrite the table from the reports
#
# Options: --out DIR (default /tmp/sealmark-precision), --jobs N (at most 2),
# --server-timeout SECONDS (default 900: a bound on each server's whole run).
# Needs node, npm (the registry, for npm ci), go, and for server-postgres a
# PostgreSQL on 127.0.0.1:5432 (SEALMARK_DB_ADMIN_DSN overrides the DSN; it
# must name a loopback host). Servers run contained by sealmark (no network
# but loopback); no server is ever pointed at a non-loopback address.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$root/testdata/corpus
manifest=$here/servers.tsv
out=/tmp/sealmark-precision
jobs=2
only=
table_only=
server_timeout=900
one=

while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--server-timeout) server_timeout=$2; shift 2 ;;
	--table-only) table_only=1; shift ;;
	--one) one=$2; shift 2 ;; # internal: run one server (used by the parallel loop)
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$jobs" -ge 1 ] && [ "$jobs" -le 2 ] || { echo "run.sh: --jobs is 1 or 2" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export SEALMARK_DB_ADMIN_DSN=${SEALMARK_DB_ADMIN_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}

# line NAME prints the manifest line of NAME.
line() { awk -F'\t' -v n="$1" '$0 !~ /^#/ && $1 == n' "$manifest"; }

# runone NAME runs sealmark on one installed server, bounded by
# --server-timeout, writing NAME.json, NAME.txt (the text report and
# progress) and NAME.rc (sealmark's exit code; 124 when the bound killed it).
runone() {
	local name=$1 l entry args envs
	l=$(line "$name")
	[ -n "$l" ] || { echo "run.sh: no server $name in $manifest" >&2; return 2; }
	# cut, not read: read folds runs of tabs, so an empty args field would
	# shift the env into the args.
	entry=$(cut -f4 <<<"$l")
	args=$(cut -f5 <<<"$l")
	envs=$(cut -f6 <<<"$l")
	local flags=(--active --yes --json "$out/$name.json")
	local kv
	for kv in $envs; do flags+=(--env "$kv"); done
	case " $args " in
	*"{dsn}"*) flags+=(--service tcp:127.0.0.1:5432) ;;
	esac
	local start end rc=0
	start=$(date +%s)
	rm -f "$out/$name.json"
	# shellcheck disable=SC2086 # args are whitespace-separated words
	timeout -k 30 "$server_timeout" "$out/sealmark" run "${flags[@]}" -- node "$corpus/$name/$entry" $args \
		>"$out/$name.txt" 2>&1 || rc=$?
	end=$(date +%s)
	echo "$rc" >"$out/$name.rc"
	printf '%s\trc=%s\t%ss\tload %s\n' "$name" "$rc" "$((end - start))" "$(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.log"
}

if [ -n "$one" ]; then
	runone "$one"
	exit 0
fi

names() {
	if [ -n "$only" ]; then echo "$only"; else awk -F'\t' '$0 !~ /^#/ {print $1}' "$manifest"; fi
}

if [ -z "$table_only" ]; then
	echo "building sealmark into $out/sealmark"
	(cd "$root" && go build -o "$out/sealmark" ./cmd/sealmark)
	# Install every server (npm ci, its own lock; install scripts run as
	# npx runs them, but browsers are not downloaded). A failed install is
	# retried without scripts, and said so in install.log.
	for name in $(names); do
		d=$corpus/$name
		if [ -d "$d/node_modules" ] && [ "$d/node_modules/.package-lock.json" -nt "$d/package-lock.json" ]; then
			continue
		fi
		echo "installing $name"
		if ! (cd "$d" && PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >"$out/$name.install" 2>&1); then
			echo "$name: npm ci failed (see $out/$name.install); retried with --ignore-scripts" | tee -a "$out/install.log"
			(cd "$d" && npm ci --ignore-scripts --no-audit --no-fund >>"$out/$name.install" 2>&1) ||
				echo "$name: npm ci --ignore-scripts failed too" | tee -a "$out/install.log"
		fi
	done
	echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.log"
	names | xargs -P "$jobs" -I{} "$0" --one {} --out "$out" --server-timeout "$server_timeout"
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/runs.log"
fi

python3 "$here/table.py" --manifest "$manifest" --reports "$out" \
	--checks "$root/docs/precision-checks.tsv" --tsv "$out/findings.tsv" --md "$out/table.md" --grouped "$out/grouped.md"
echo "findings: $out/findings.tsv; tables: $out/table.md (every finding), $out/grouped.md (by server, probe and check)"
