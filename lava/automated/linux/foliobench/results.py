#!/usr/bin/python3
"""One line a headline metric of each case of a foliobench run, in the
format of Linaro's test-definitions' result.txt ("NAME RESULT [MEASUREMENT
UNITS]"): the median of the case's valid samples (warm-ups left out) in
the unit stored, pass where the case ran and every sample verified, fail
otherwise (then the median of what did verify, where any did).

usage: results.py BENCH DB
"""
import json
import re
import statistics
import subprocess
import sys


def bench_json(bench, *args):
    out = subprocess.run([bench, *args], check=True, stdout=subprocess.PIPE)
    return json.loads(out.stdout)


def name_of(workload, params, varying, metric):
    parts = [workload] + ["%s-%s" % (k, params[k]) for k in varying]
    # LAVA's test case names: letters, digits, '-', '_' and '.'
    return re.sub(r"[^-_.a-zA-Z0-9]", "_", "_".join(parts) + "." + metric)


def main():
    bench, db = sys.argv[1:3]
    runs = subprocess.run([bench, "runs", "--db", db], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    uuid = runs.splitlines()[1].split()[1]
    doc = bench_json(bench, "export", "--run", uuid, "--db", db,
                     "--format", "run-json")
    label = doc["run"]["label"]
    primary = set()
    exp = subprocess.run([bench, "export", label, "--db", db, "--format",
                          "json"], stdout=subprocess.PIPE)
    if exp.returncode == 0:
        for row in json.loads(exp.stdout)["rows"]:
            if row["primary"]:
                primary.add((row["workload"], row["metric"]))
    by_wl = {}
    for c in doc["cases"]:
        by_wl.setdefault(c["workload"], []).append(c["params"])
    for c in doc["cases"]:
        wl, params = c["workload"], c["params"]
        varying = [k for k in params
                   if len({str(p.get(k)) for p in by_wl[wl]}) > 1]
        samples = [s for s in c["samples"] if not s["warmup"]]
        ok = (c["status"] == "done" and samples and
              all(s["valid"] for s in samples))
        metrics = [m["name"] for m in samples[0]["metrics"]] if samples else []
        heads = [m for m in metrics if (wl, m) in primary] or metrics[:1]
        if not heads:
            print(name_of(wl, params, varying, "case"), "fail")
            continue
        for m in heads:
            vals, unit = [], None
            for s in samples:
                for v in s["metrics"]:
                    if v["name"] == m and s["valid"] and v["supported"]:
                        vals.append(v["value"])
                        unit = v["unit"]
            line = [name_of(wl, params, varying, m),
                    "pass" if ok else "fail"]
            if vals:
                line += ["%.17g" % statistics.median(vals), unit]
            print(" ".join(line))


if __name__ == "__main__":
    main()
