#!/usr/bin/env python3
"""Hand checks of precision findings: raw JSON-RPC over stdio, no harness.

Starts COMMAND in a network namespace of its own (unshare -n: no network at
all), sends initialize (2025-06-18 unless --version), notifications/initialized,
then each --call NAME JSON (tools/call) or --send JSON (a raw request line,
its id kept), and prints every line the server wrote, waiting for the answer
with each request's id (at most --wait seconds each; every read bounded).

  rawcall.py --cwd /tmp/fx/root --env K=V --call read_file '{"path":"x"}' -- node server.js ARGS
"""
import argparse
import json
import os
import select
import subprocess
import sys
import time

LIMIT = 1 << 20  # bytes of one line kept for printing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cwd", default=".")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--version", default="2025-06-18")
    ap.add_argument("--wait", type=float, default=20)
    ap.add_argument("--no-init", action="store_true", help="send only the --send lines")
    ap.add_argument("--call", nargs=2, action="append", default=[], metavar=("NAME", "JSON"))
    ap.add_argument("--send", action="append", default=[], metavar="JSON")
    ap.add_argument("--net", action="store_true", help="do not unshare the network (loopback services)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": a.cwd}
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    if not a.net:
        cmd = ["unshare", "-n"] + cmd
    p = subprocess.Popen(cmd, cwd=a.cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    buf = b""

    def send(obj):
        line = json.dumps(obj) if not isinstance(obj, str) else obj
        print(">>> " + line[:2000])
        p.stdin.write(line.encode() + b"\n")
        p.stdin.flush()

    def wait_for(rid):
        nonlocal buf
        deadline = time.time() + a.wait
        while time.time() < deadline:
            r, _, _ = select.select([p.stdout, p.stderr], [], [], max(0.0, deadline - time.time()))
            if p.stderr in r:
                chunk = os.read(p.stderr.fileno(), 65536)
                if chunk:
                    sys.stdout.write("[stderr] " + chunk.decode(errors="replace")[:2000].rstrip() + "\n")
            if p.stdout in r:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    print("<<< (server closed stdout; exit %s)" % p.poll())
                    return None
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    text = line.decode(errors="replace")
                    print("<<< " + text[:LIMIT] + (" …(%d bytes)" % len(text) if len(text) > LIMIT else ""))
                    try:
                        msg = json.loads(text)
                    except ValueError:
                        continue
                    if isinstance(msg, dict) and msg.get("id") == rid and ("result" in msg or "error" in msg):
                        return msg
        print("<<< (no answer to id %r in %.0fs)" % (rid, a.wait))
        return None

    n = 0
    if not a.no_init:
        n += 1
        send({"jsonrpc": "2.0", "id": n, "method": "initialize", "params": {"protocolVersion": a.version, "capabilities": {}, "clientInfo": {"name": "hand-check", "version": "1"}}})
        wait_for(n)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for line in a.send:
        obj = json.loads(line)
        send(line)
        if "id" in obj:
            wait_for(obj["id"])
    for name, args in a.call:
        n += 1
        send({"jsonrpc": "2.0", "id": 100 + n, "method": "tools/call", "params": {"name": name, "arguments": json.loads(args)}})
        wait_for(100 + n)
    p.stdin.close()
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=5)


if __name__ == "__main__":
    main()
