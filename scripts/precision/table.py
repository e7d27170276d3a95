#!/usr/bin/env python3
"""The precision table: every critical and high finding of the corpus
reports, joined with the hand checks of docs/precision-checks.tsv.

A check applies to a finding of the same server and probe with the same
fingerprint, or else with the same key: a hash of the probe id and the
message with its numbers, hex runs and quoted temp names blanked, so a check
survives a fingerprint that moves and a rerun reuses it. A finding no check
covers is listed "unchecked". Writes a TSV (one finding a line) and a
markdown table with the share true, the false ones by cause, and what went
wrong with the harness itself (no report, exit codes past 1, harness errors,
probes in error).
"""
import argparse
import collections
import hashlib
import json
import os
import re
import sys

SEVERE = ("critical", "high")


def norm(message):
    """The message with what moves between identical runs blanked."""
    m = re.sub(r"\b[0-9a-f]{8,}\b", "H", message)
    m = re.sub(r"\d+", "#", m)
    m = re.sub(r"/tmp/[^\s\"']+", "/tmp/X", m)
    return m


def key(probe, message):
    return hashlib.sha1((probe + "\n" + norm(message)).encode()).hexdigest()[:12]


def one_line(s, limit=None):
    s = " ".join(str(s).split())
    if limit and len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def cell(s):
    return one_line(s).replace("|", "\\|")


def manifest(path):
    names = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            names.append(line.split("\t")[0])
    return names


def checks(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l.strip()]


def findings(reports, names):
    rows, harness = [], []
    for name in names:
        rc = None
        rcpath = os.path.join(reports, name + ".rc")
        if os.path.exists(rcpath):
            rc = open(rcpath).read().strip()
        jpath = os.path.join(reports, name + ".json")
        if rc is None:
            harness.append((name, "not run", ""))
            continue
        if not os.path.exists(jpath):
            tail = ""
            tpath = os.path.join(reports, name + ".txt")
            if os.path.exists(tpath):
                lines = [l for l in open(tpath, errors="replace").read().splitlines() if l.strip()]
                tail = " / ".join(lines[-3:])
            harness.append((name, "no report (exit %s)" % rc, one_line(tail, 400)))
            continue
        rep = json.load(open(jpath))
        if rc not in ("0", "1"):
            harness.append((name, "exit %s" % rc, one_line(rep.get("harnessError", ""), 400)))
        elif rep.get("harnessError"):
            harness.append((name, "harness error", one_line(rep["harnessError"], 400)))
        for pack in rep.get("packs", []):
            start = pack.get("start", "")
            for probe in pack.get("probes", []):
                if probe.get("verdict") == "error":
                    harness.append((name, "probe error %s/%s" % (pack["name"], probe["id"]), one_line(probe.get("reason", ""), 400)))
                for f in probe.get("findings") or []:
                    if f.get("severity") not in SEVERE:
                        continue
                    rows.append({
                        "server": name,
                        "start": start,
                        "probe": probe["id"],
                        "severity": f["severity"],
                        "fingerprint": f.get("fingerprint", ""),
                        "key": key(probe["id"], f.get("message", "")),
                        "message": one_line(f.get("message", "")),
                    })
    return rows, harness


def join(rows, cks):
    by_fp = {(c["server"], c["probe"], c["fingerprint"]): c for c in cks if c.get("fingerprint")}
    by_key = {(c["server"], c["probe"], c["key"]): c for c in cks if c.get("key")}
    for r in rows:
        c = by_fp.get((r["server"], r["probe"], r["fingerprint"])) or by_key.get((r["server"], r["probe"], r["key"]))
        r["verdict"] = c["verdict"] if c else "unchecked"
        r["cause"] = c.get("cause", "") if c else ""
        r["how"] = c.get("how", "") if c else ""
        r["why"] = c.get("why", "") if c else ""
    return rows


def grouped(path, rows, harness):
    """One row per server, probe, verdict and cause: the count, one message
    for example, and the check (how, why) once."""
    groups = collections.OrderedDict()
    for r in sorted(rows, key=lambda r: (r["server"], r["probe"], r["verdict"], r["cause"])):
        k = (r["server"], r["probe"], r["verdict"], r["cause"])
        if k not in groups:
            groups[k] = {"n": 0, "sev": set(), "example": r["message"], "how": r["how"], "why": r["why"]}
        g = groups[k]
        g["n"] += 1
        g["sev"].add(r["severity"])
    with open(path, "w") as f:
        w = f.write
        w("| server | probe | findings | sev | for example | verdict | cause | how checked | why |\n")
        w("|---|---|---|---|---|---|---|---|---|\n")
        for (server, probe, verdict, cause), g in groups.items():
            w("| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n" % (
                cell(server), cell(probe), g["n"], "/".join(sorted(g["sev"])), cell(one_line(g["example"], 160)),
                verdict, cell(cause), cell(g["how"]), cell(g["why"])))
        if harness:
            w("\nThe harness itself:\n\n| server | what | detail |\n|---|---|---|\n")
            for h in harness:
                w("| %s | %s | %s |\n" % tuple(cell(x) for x in h))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--reports", required=True)
    ap.add_argument("--checks", required=True)
    ap.add_argument("--tsv", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--grouped", help="also write a markdown table with one row per server, probe, verdict and cause")
    a = ap.parse_args()

    names = manifest(a.manifest)
    rows, harness = findings(a.reports, names)
    rows = join(rows, checks(a.checks))
    cols = ["server", "start", "probe", "severity", "fingerprint", "key", "verdict", "cause", "message"]
    with open(a.tsv, "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(one_line(r[c]).replace("\t", " ") for c in cols) + "\n")

    n = len(rows)
    count = collections.Counter(r["verdict"] for r in rows)
    causes = collections.Counter(r["cause"] for r in rows if r["verdict"] == "false")
    with open(a.md, "w") as f:
        w = f.write
        w("%d critical and high findings on %d servers: %d true, %d false, %d unsure, %d unchecked" % (n, len({r["server"] for r in rows}), count["true"], count["false"], count["unsure"], count["unchecked"]))
        if count["true"] + count["false"]:
            w("; %.0f%% of the checked ones true" % (100.0 * count["true"] / (count["true"] + count["false"])))
        w(".\n\n")
        groups = collections.Counter()
        for v, _, _ in {(r["verdict"], r["server"], r["probe"]) for r in rows}:
            groups[v] += 1
        w("By distinct (server, probe): %d true, %d false, %d unsure, %d unchecked.\n\n" % (groups["true"], groups["false"], groups["unsure"], groups["unchecked"]))
        if causes:
            w("False findings by cause:\n\n| cause | findings |\n|---|---|\n")
            for c, k in sorted(causes.items(), key=lambda x: (-x[1], x[0])):
                w("| %s | %d |\n" % (cell(c or "(none given)"), k))
            w("\n")
        w("| server | probe | sev | fingerprint | key | message | verdict | cause | how checked / why |\n")
        w("|---|---|---|---|---|---|---|---|---|\n")
        for r in sorted(rows, key=lambda r: (r["server"], r["probe"], r["message"])):
            probe = (r["start"] + "/" if r["start"] else "") + r["probe"]
            hw = "; ".join(x for x in (r["how"], r["why"]) if x)
            w("| %s | %s | %s | `%s` | `%s` | %s | %s | %s | %s |\n" % (
                cell(r["server"]), cell(probe), r["severity"], r["fingerprint"], r["key"],
                cell(one_line(r["message"], 240)), r["verdict"], cell(r["cause"]), cell(hw)))
        if harness:
            w("\nThe harness itself:\n\n| server | what | detail |\n|---|---|---|\n")
            for h in harness:
                w("| %s | %s | %s |\n" % tuple(cell(x) for x in h))
    if a.grouped:
        grouped(a.grouped, rows, harness)
    print("%d findings (%d unchecked); %d harness notes" % (n, count["unchecked"], len(harness)), file=sys.stderr)


if __name__ == "__main__":
    main()
