#!/usr/bin/env bash
# Hand check of the modern-era findings (core/discover, modern-*): a clean
# 2026-07-28 session over stdio, nothing before server/discover. Sends
# discover, waits for the server to settle, then tools/list with _meta,
# tools/list without _meta (want -32602), ping (removed: want -32601) and
# tools/list at protocol 1900-01-01 (want -32022), and prints what each got.
# Runs the server in a network namespace of its own (unshare -n).
#
#   scripts/precision/modern-session.sh [ENV=VALUE ...] -- node ENTRY ARGS
set -euo pipefail
envs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
shift
M='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
{
	printf '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{%s}}\n' "$M"
	sleep "${SETTLE:-6}"
	printf '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{%s}}\n' "$M"
	sleep 1
	printf '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}\n'
	printf '{"jsonrpc":"2.0","id":4,"method":"ping","params":{%s}}\n' "$M"
	printf '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}\n'
	sleep 3
} | env -i PATH=/usr/bin:/bin HOME=/tmp "${envs[@]}" timeout 40 unshare -n "$@" 2>/dev/null | head -c 1000000 | python3 -c '
import json, sys
want = {1: "discover", 2: "tools/list with _meta", 3: "tools/list without _meta (want -32602)", 4: "ping (want -32601)", 5: "tools/list at 1900-01-01 (want -32022)"}
for line in sys.stdin:
    try:
        d = json.loads(line)
    except ValueError:
        print("non-JSON line:", line[:120].rstrip()); continue
    if "id" not in d:
        print("notification", d.get("method")); continue
    r = d.get("result") or {}
    shape = {k: r[k] for k in ("resultType", "ttlMs", "cacheScope", "supportedVersions") if k in r}
    print(d["id"], want.get(d["id"], ""), "->", ("error %s" % d["error"].get("code")) if "error" in d else "result %s" % shape)
'
