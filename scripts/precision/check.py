#!/usr/bin/env python3
"""Record a hand check: add (or replace) in docs/precision-checks.tsv one
row for every finding of findings.tsv (run.sh's output) of SERVER whose
probe matches PROBE (fnmatch) and whose message contains --match, with the
verdict (true or false), the cause, how it was checked and why.

  check.py --findings /tmp/sealmark-precision/findings.tsv --server NAME \
      --probe 'FS-READ-*' --verdict true --how 'rawcall.py ...' --why '...'
"""
import argparse
import fnmatch
import os
import sys

COLS = ["probe", "server", "fingerprint", "key", "verdict", "cause", "how", "why"]


def read_tsv(path):
    """Rows of a tab-separated file with a header line; no quoting."""
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", required=True)
    ap.add_argument("--checks", default=os.path.join(os.path.dirname(__file__), "..", "..", "docs", "precision-checks.tsv"))
    ap.add_argument("--server", required=True)
    ap.add_argument("--probe", default="*")
    ap.add_argument("--match", default="")
    ap.add_argument("--verdict", required=True, choices=["true", "false", "unsure"])
    ap.add_argument("--cause", default="")
    ap.add_argument("--how", required=True)
    ap.add_argument("--why", required=True)
    a = ap.parse_args()

    found = [r for r in read_tsv(a.findings)
             if r["server"] == a.server and fnmatch.fnmatch(r["probe"], a.probe) and a.match in r["message"]]
    if not found:
        sys.exit("check.py: no finding of %s matches %s %r" % (a.server, a.probe, a.match))
    rows = []
    if os.path.exists(a.checks):
        rows = read_tsv(a.checks)
    keys = {(r["server"], r["probe"], r["fingerprint"]) for r in found}
    rows = [r for r in rows if (r["server"], r["probe"], r["fingerprint"]) not in keys]
    for r in found:
        rows.append({"probe": r["probe"], "server": r["server"], "fingerprint": r["fingerprint"], "key": r["key"],
                     "verdict": a.verdict, "cause": a.cause, "how": " ".join(a.how.split()), "why": " ".join(a.why.split())})
    rows.sort(key=lambda r: (r["server"], r["probe"], r["fingerprint"]))
    with open(a.checks, "w") as f:
        f.write("\t".join(COLS) + "\n")
        for r in rows:
            f.write("\t".join(" ".join(r.get(c, "").split()) for c in COLS) + "\n")
    print("%d findings checked %s" % (len(found), a.verdict))


if __name__ == "__main__":
    main()
