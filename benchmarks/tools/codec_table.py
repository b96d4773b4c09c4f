#!/usr/bin/env python3
"""Prints docs/performance.md's codec-level table from BenchmarkDotNet's CodecBenchmarks CSV (ratios from one run)."""
import csv
import sys
from collections import defaultdict

path = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/ArrowLz4Fast.Benchmarks.CodecBenchmarks-report.csv"


def ms(text):
    value, unit = text.replace(",", "").split()
    return float(value) * {"ns": 1e-6, "us": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3}[unit]


rows = defaultdict(dict)
alloc = defaultdict(dict)
for r in csv.DictReader(open(path, encoding="utf-8")):
    rows[r["Producer"]][r["Method"]] = ms(r["Mean"])
    alloc[r["Producer"]][r["Method"]] = r["Allocated"]

order = ["pyarrow", "pyarrow-numeric", "java", "java-numeric", "rust", "rust-numeric", "dotnet"]
print("| producer | official | ArrowLz4Fast | speed-up | ceiling (K4os) | vs ceiling | ported block decoder alone | no checksum verify | K4os + clear first | K4os + offset pre-scan | allocated (official → ours) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for p in order:
    m = rows.get(p)
    if not m:
        continue
    c = m["Ceiling"]
    print(f"| {p} | {m['Official']:.2f} ms | {m['ArrowLz4Fast']:.2f} ms | **{m['Official'] / m['ArrowLz4Fast']:.2f}×** | {c:.2f} ms "
          f"| {m['ArrowLz4Fast'] / c:.3f}× | {m['Ceiling_PortedBlockDecoder']:.2f} ms ({m['Ceiling_PortedBlockDecoder'] / c:.2f}×) "
          f"| {m['ArrowLz4Fast_NoVerify']:.2f} ms | {m['Ceiling_ClearFirst']:.2f} ms ({m['Ceiling_ClearFirst'] / c:.2f}×) "
          f"| {m['Ceiling_Prescan']:.2f} ms ({m['Ceiling_Prescan'] / c:.2f}×) | {alloc[p]['Official']} → {alloc[p]['ArrowLz4Fast']} |")
