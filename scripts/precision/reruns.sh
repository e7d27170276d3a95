#!/usr/bin/env bash
# Reruns: are a server's findings the same from run to run? Runs each pinned
# real server of testdata/npm three times, exactly as run.sh runs the
# corpus (sealmark run --active --yes --json, every pack), at most two runs
# at a time, then per server:
#   - compares the multiset of (probe id, fingerprint) of every finding of a
#     failing probe across the three runs;
#   - writes a baseline from run 1 (sealmark baseline write) and checks that
#     runs 2 and 3 hold against it: no stale entry (an accepted finding the
#     run lacks), no new finding (one the baseline lacks); and the CLI's own
#     comparison, sealmark diff run1 runN, says 0 new and 0 fixed;
# and writes OUT/reruns.md (server, findings per run, identical, what
# differed) and OUT/reruns.tsv.
#
#   scripts/precision/reruns.sh                   # install, run all 3 times, compare
#   scripts/precision/reruns.sh --only NAME       # one server (NAME as in the list below)
#   scripts/precision/reruns.sh --compare-only    # compare the reports already in OUT
#
# Options: --out DIR (default /tmp/sealmark-reruns; run N of NAME is
# OUT/runN/NAME.json), --runs N (default 3), --jobs N (at most 2),
# --server-timeout SECONDS (default 1800: desktop-commander 0.2.52 took
# 15-25 minutes at load 6-10 on 2026-12-04, over run.sh's 900).
# Needs what run.sh needs (node, npm, go, PostgreSQL on 127.0.0.1:5432 for
# server-postgres). Servers run contained by sealmark; none is pointed at a
# non-loopback address.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
manifest=$here/servers.tsv
out=/tmp/sealmark-reruns
runs=3
jobs=2
only=
compare_only=
server_timeout=1800
one=

while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--server-timeout) server_timeout=$2; shift 2 ;;
	--compare-only) compare_only=1; shift ;;
	--one) one=$2; shift 2 ;; # internal: "NAME RUN" (used by the parallel loop)
	*) echo "reruns.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$jobs" -ge 1 ] && [ "$jobs" -le 2 ] || { echo "reruns.sh: --jobs is 1 or 2" >&2; exit 2; }
[ "$runs" -ge 2 ] || { echo "reruns.sh: --runs is 2 or more" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export SEALMARK_DB_ADMIN_DSN=${SEALMARK_DB_ADMIN_DSN:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}

# The pinned real servers of testdata/npm. Those of the corpus manifest run
# from testdata/corpus/NAME with servers.tsv's entry, args and env; mcp-sqlite
# is not in the corpus and runs from testdata/npm/sqlite-1.0.9 pointed at the
# harness's database, as packs/sqlite's real test starts it. One a line,
# tab-separated: name, directory (relative to the root), entry, args, env.
servers() {
	local n l
	for n in \
		modelcontextprotocol__server-filesystem-0.6.2 \
		modelcontextprotocol__server-filesystem-2026.8.31 \
		modelcontextprotocol__server-everything-2026.8.31 \
		modelcontextprotocol__server-postgres-0.6.2 \
		github-mcp-server-1.8.7 \
		mcp-git-0.0.4 \
		wonderwhy-er__desktop-commander-0.2.52 \
		mcp-fetch-server-1.1.2; do
		l=$(awk -F'\t' -v n="$n" '$0 !~ /^#/ && $1 == n' "$manifest")
		[ -n "$l" ] || { echo "reruns.sh: no server $n in $manifest" >&2; return 2; }
		printf '%s\ttestdata/corpus/%s\t%s\t%s\t%s\n' "$n" "$n" "$(cut -f4 <<<"$l")" "$(cut -f5 <<<"$l")" "$(cut -f6 <<<"$l")"
	done
	printf '%s\t%s\t%s\t%s\t%s\n' mcp-sqlite-1.0.9 testdata/npm/sqlite-1.0.9 node_modules/mcp-sqlite/mcp-sqlite-server.js '{sqlite}' ''
}

# selected prints the lines of servers() that --only keeps.
selected() {
	if [ -n "$only" ]; then
		servers | awk -F'\t' -v n="$only" '$1 == n'
	else
		servers
	fi
}

# runone NAME RUN runs sealmark once on one server, as run.sh's runone does,
# writing OUT/runRUN/NAME.{json,txt,rc} and a line of OUT/runs.log.
runone() {
	local name=$1 run=$2 l dir entry args envs
	l=$(servers | awk -F'\t' -v n="$name" '$1 == n')
	[ -n "$l" ] || { echo "reruns.sh: no server $name" >&2; return 2; }
	dir=$(cut -f2 <<<"$l")
	entry=$(cut -f3 <<<"$l")
	args=$(cut -f4 <<<"$l")
	envs=$(cut -f5 <<<"$l")
	local d=$out/run$run
	mkdir -p "$d"
	local flags=(--active --yes --json "$d/$name.json")
	local kv
	for kv in $envs; do flags+=(--env "$kv"); done
	case " $args " in
	*"{dsn}"*) flags+=(--service tcp:127.0.0.1:5432) ;;
	esac
	local start end rc=0 load0
	load0=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s)
	rm -f "$d/$name.json"
	# shellcheck disable=SC2086 # args are whitespace-separated words
	timeout -k 30 "$server_timeout" "$out/sealmark" run "${flags[@]}" -- node "$root/$dir/$entry" $args \
		>"$d/$name.txt" 2>&1 || rc=$?
	end=$(date +%s)
	echo "$rc" >"$d/$name.rc"
	printf '%s\trun%s\trc=%s\t%ss\tload %s..%s\n' "$name" "$run" "$rc" "$((end - start))" "$load0" \
		"$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/runs.log"
}

if [ -n "$one" ]; then
	read -r n r <<<"$one"
	runone "$n" "$r"
	exit 0
fi

[ -n "$(selected)" ] || { echo "reruns.sh: no server $only" >&2; exit 2; }

if [ -z "$compare_only" ]; then
	echo "building sealmark into $out/sealmark"
	(cd "$root" && go build -o "$out/sealmark" ./cmd/sealmark)
	selected | while IFS= read -r l; do
		name=$(cut -f1 <<<"$l")
		d=$root/$(cut -f2 <<<"$l")
		if [ -d "$d/node_modules" ] && [ "$d/node_modules/.package-lock.json" -nt "$d/package-lock.json" ]; then
			continue
		fi
		echo "installing $name"
		(cd "$d" && PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund >"$out/$name.install" 2>&1) ||
			{ echo "reruns.sh: npm ci failed in $d (see $out/$name.install)" >&2; exit 1; }
	done
	echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%FT%TZ)" | tee -a "$out/runs.log"
	# Run 1 of every server, then run 2, ...; within a run the longest
	# server (desktop-commander, 15-25 minutes) first, so that the other
	# slot runs the rest meanwhile.
	for r in $(seq 1 "$runs"); do
		selected | cut -f1 | sed "s/\$/ $r/"
	done | awk '{print ($1 ~ /desktop-commander/ ? 0 : 1) "\t" $2 "\t" $0}' | sort -s -k2,2n -k1,1n | cut -f3 |
		xargs -P "$jobs" -I{} "$0" --one {} --out "$out" --server-timeout "$server_timeout"
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%FT%TZ)" | tee -a "$out/runs.log"
fi

# The baseline of run 1 of each server, written by the CLI.
diffs=()
for name in $(selected | cut -f1); do
	b=$out/$name.baseline.json
	rm -f "$b"
	if [ -f "$out/run1/$name.json" ]; then
		"$out/sealmark" baseline write --force --out "$b" --justification "reruns: run 1" "$out/run1/$name.json" >/dev/null ||
			echo "reruns.sh: baseline write failed for $name" >&2
	fi
	for r in $(seq 2 "$runs"); do
		f=$out/$name.diff$r.txt
		if [ -f "$out/run1/$name.json" ] && [ -f "$out/run$r/$name.json" ]; then
			"$out/sealmark" diff --fail-on low "$out/run1/$name.json" "$out/run$r/$name.json" >"$f" 2>&1 || true
		else
			echo "missing report" >"$f"
		fi
	done
	diffs+=("$name")
done

python3 - "$out" "$runs" "${diffs[@]}" <<'EOF'
# Compares the runs of each server and writes OUT/reruns.tsv and reruns.md.
import collections, json, os, re, sys

out, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def findings(path):
    """The multiset of (probe id, fingerprint) of the findings of failing
    probes, with each pair's message; None when the report is missing."""
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        return None, {}
    c, msg = collections.Counter(), {}
    for pk in rep.get("packs") or []:
        for pr in pk.get("probes") or []:
            if pr.get("verdict") != "fail":
                continue
            for fd in pr.get("findings") or []:
                k = (pr.get("id") or pk.get("name", "") + "/" + pr.get("name", ""), fd.get("fingerprint", ""))
                c[k] += 1
                msg.setdefault(k, fd.get("message", ""))
    return c, msg

def verdicts(path):
    """Each probe's verdict by (pack, its place among the packs of that
    name, probe id); None when the report is missing."""
    try:
        with open(path) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        return None
    v, seen = {}, collections.Counter()
    for pk in rep.get("packs") or []:
        seen[pk.get("name", "")] += 1
        for pr in pk.get("probes") or []:
            v[(pk.get("name", ""), seen[pk.get("name", "")], pr.get("id") or pr.get("name", ""))] = pr.get("verdict", "")
    return v

def short(s, n=110):
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"

rows = []
for name in names:
    per = [findings(os.path.join(out, f"run{r}", f"{name}.json")) for r in range(1, runs + 1)]
    counts = [c for c, _ in per]
    msgs = {}
    for _, m in per:
        for k, v in m.items():
            msgs.setdefault(k, v)
    rcs = []
    for r in range(1, runs + 1):
        try:
            rcs.append(open(os.path.join(out, f"run{r}", f"{name}.rc")).read().strip())
        except OSError:
            rcs.append("-")
    differ, same = [], ""
    # A probe whose verdict changed (fail to pass, inconclusive, ...)
    # differs even when no finding did. Compared here, not by sealmark
    # diff's "verdict:" lines: diff matches probes by id, and a report
    # that holds a pack twice (server-postgres: pack db) gets verdict
    # changes against itself.
    vs = [verdicts(os.path.join(out, f"run{r}", f"{name}.json")) for r in range(1, runs + 1)]
    if all(v is not None for v in vs):
        for k in sorted(set().union(*vs)):
            got = [v.get(k, "-") for v in vs]
            if len(set(got)) > 1:
                differ.append(f"{k[0]}#{k[1]} {k[2]} verdict {'/'.join(got)}")
    if any(c is None for c in counts):
        same = "no"
        differ.append("missing report in run " + ",".join(str(i + 1) for i, c in enumerate(counts) if c is None))
    else:
        keys = set().union(*counts)
        for k in sorted(keys):
            ns = [c[k] for c in counts]
            if len(set(ns)) > 1:
                differ.append(f"{k[0]} {k[1]} ×{'/'.join(map(str, ns))}: {short(msgs.get(k, ''))}")
    # The baseline of run 1 against runs 2..N: stale entries and new findings.
    hold = []
    try:
        with open(os.path.join(out, f"{name}.baseline.json")) as f:
            base = {(e["probe"], e["fingerprint"]) for e in json.load(f).get("accepted", [])}
    except (OSError, ValueError, KeyError):
        base = None
    for r in range(2, runs + 1):
        c = counts[r - 1]
        if base is None or c is None:
            hold.append(f"run{r}: -")
            continue
        stale, new = len(base - set(c)), len(set(c) - base)
        d = open(os.path.join(out, f"{name}.diff{r}.txt")).read()
        m = re.search(r"summary: (\d+) new, (\d+) fixed", d)
        dn, df = (m.group(1), m.group(2)) if m else ("?", "?")
        ok = stale == 0 and new == 0 and dn == "0" and df == "0"
        hold.append(f"run{r}: " + ("holds" if ok else f"{stale} stale, {new} new (diff: {dn} new, {df} fixed)"))
    if same != "no":
        same = "yes" if not differ else "no"
    rows.append((name, "/".join("-" if c is None else str(sum(c.values())) for c in counts),
                 "/".join(rcs), same, "; ".join(hold), differ))

with open(os.path.join(out, "reruns.tsv"), "w") as f:
    f.write("server\tfindings per run\texit codes\tidentical\tbaseline of run 1\tdiffered\n")
    for name, n, rc, same, hold, differ in rows:
        f.write("\t".join([name, n, rc, same, hold, " | ".join(differ)]) + "\n")
with open(os.path.join(out, "reruns.md"), "w") as f:
    f.write("| server | findings per run | exit codes | identical | baseline of run 1 | what differed |\n")
    f.write("|---|---|---|---|---|---|\n")
    for name, n, rc, same, hold, differ in rows:
        d = "<br>".join(x.replace("|", "\\|") for x in differ) or "—"
        f.write(f"| {name} | {n} | {rc} | {same} | {hold} | {d} |\n")
print(open(os.path.join(out, "reruns.md")).read(), end="")
EOF
echo "tables: $out/reruns.md, $out/reruns.tsv; runs: $out/runs.log; diffs: $out/NAME.diffN.txt"
