#!/usr/bin/env python3
"""Prints docs/performance.md's whole-read tables from BenchmarkDotNet's Replay and Stream CSVs (ratios from one run each)."""
import csv
import os
import sys
from collections import defaultdict

# The CSVs are in benchmarks/results/, beside this folder.
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")


def ms(text):
    value, unit = text.replace(",", "").split()
    return float(value) * {"ns": 1e-6, "us": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def gen2(text):
    # MemoryDiagnoser's Gen2 column counts collections per 1,000 operations.
    return 0.0 if text in ("-", "") else float(text.replace(",", "")) / 1000.0


def replay(path):
    rows = defaultdict(dict)
    for r in csv.DictReader(open(path, encoding="utf-8")):
        rows[(r["Producer"], r["Method"].split("_")[0])][(r["Method"].split("_", 1)[1], r["Allocator"])] = r
    order = ["pyarrow", "pyarrow-numeric", "java", "java-numeric", "rust", "rust-numeric", "dotnet"]
    for mode in ("Memory", "Chunked"):
        print(f"\n{mode.lower()}:\n")
        print("| producer | official + native | ArrowLz4Fast + native | ArrowLz4Fast + arraypool | ArrowLz4Fast + slab | speed-up (official + native → ours + slab) | slab vs better of native/arraypool | gen-2 per read: official + native / ours + slab |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for p in order:
            m = rows.get((p, mode))
            if not m:
                continue
            on = ms(m[("Official", "native")]["Mean"])
            fn = ms(m[("ArrowLz4Fast", "native")]["Mean"])
            fa = ms(m[("ArrowLz4Fast", "arraypool")]["Mean"])
            fs = ms(m[("ArrowLz4Fast", "slab")]["Mean"])
            print(f"| {p} | {on:.2f} ms | {fn:.2f} ms | {fa:.2f} ms | {fs:.2f} ms | **{on / fs:.2f}×** | {fs / min(fn, fa):.2f}× "
                  f"| {gen2(m[('Official', 'native')]['Gen2']):.2f} / {gen2(m[('ArrowLz4Fast', 'slab')]['Gen2']):.2f} |")


def stream(path):
    rows = defaultdict(dict)
    for r in csv.DictReader(open(path, encoding="utf-8")):
        rows[r["Stream"]][r["Method"]] = r
    print("\nper stream (ArrowLz4Fast, from memory):\n")
    print("| stream | native | arraypool | slab | slab vs better of the two | slab, ClearBuffers = false (vs slab) | gen-2 per read (native / arraypool / slab) | allocated (slab) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for s in sorted(rows):
        m = rows[s]
        n, a, sl = (ms(m[k]["Mean"]) for k in ("Memory_Native", "Memory_ArrayPool", "Memory_Slab"))
        nc = f"{ms(m['Memory_SlabNoClear']['Mean']):.3f} ms ({ms(m['Memory_SlabNoClear']['Mean']) / sl:.2f}×)" if "Memory_SlabNoClear" in m else "–"
        g = "/".join(f"{gen2(m[k]['Gen2']):.2f}" for k in ("Memory_Native", "Memory_ArrayPool", "Memory_Slab"))
        print(f"| {s} | {n:.3f} ms | {a:.3f} ms | {sl:.3f} ms | {sl / min(n, a):.2f}× | {nc} | {g} | {m['Memory_Slab']['Allocated']} |")


if __name__ == "__main__":
    r = os.path.join(here, "ArrowLz4Fast.Benchmarks.ReplayBenchmarks-report.csv")
    s = os.path.join(here, "ArrowLz4Fast.Benchmarks.StreamBenchmarks-report.csv")
    if os.path.exists(r):
        replay(r)
    if os.path.exists(s):
        stream(s)
