#!/usr/bin/env python3
"""Prints, from an IpcParallelReadBenchmarks console log, the table of docs/parallel-read.md: per stream, the medians of
the separate cases (one process each: Codec_2cores, Wrapper_2cores, the ceilings, Codec_1core, Wrapper_1core,
Arrow_alone_decompressed), computed from their measured iterations, beside the interleaved case's medians and
per-operation ratios (`// interleaved 2 cores: …`, printed by its cleanup), in which the three 2-core paths share each
moment.
Usage: interleaved.py <BenchmarkDotNet log>"""
import re
import statistics
import sys

case = None
iterations = {}  # (stream, method) -> [ms per op]
interleaved = {}  # stream -> dict
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"// Benchmark: IpcParallelReadBenchmarks\.(\w+): .*\[Stream=(.*)\]\s*$", line)
    if m:
        case = (m.group(2), m.group(1))
        iterations[case] = []
        continue
    m = re.match(r"WorkloadResult\s+\d+: (\d+) op, ([0-9.]+) ns", line)
    if m and case:
        iterations[case].append(float(m.group(2)) / int(m.group(1)) / 1e6)
        continue
    m = re.match(r"// interleaved 2 cores: (.*?): (\d+) operations; medians codec ([0-9.]+) ms, wrapper ([0-9.]+) ms, "
                 r"ceiling hot ([0-9.]+) ms; per operation codec/wrapper ([0-9.]+), ceiling/wrapper ([0-9.]+)", line)
    if m:
        interleaved[m.group(1)] = dict(n=int(m.group(2)), codec=float(m.group(3)), wrapper=float(m.group(4)),
                                       ceiling=float(m.group(5)), ratio=float(m.group(6)), ceiling_ratio=float(m.group(7)))


def name(stream):
    # BenchmarkDotNet shortens long parameter values in its log: "64k-i(...)meric [31]".
    return {"64k-i(...)meric [31]": "64k-independent/pyarrow/numeric",
            "64k-i(...)rings [31]": "64k-independent/pyarrow/strings"}.get(stream, stream)


def ms(stream, method):
    values = iterations.get((stream, method))
    return statistics.median(values) if values else None


def show(value):
    if value is None or value == 0:
        return "n/a"
    return f"{value:.2f} ms" if value >= 1 else f"{value * 1000:.0f} µs"


print("| stream | interleaved: codec / wrapper / ceiling hot | **codec/wrapper** (per operation) | ceiling/wrapper |"
      " separate cases: codec 2c / wrapper 2c | ratio | ceiling hot / cold | 1 core: codec / wrapper | ratio |"
      " Arrow alone |")
print("|---|---|---:|---:|---|---:|---|---|---:|---:|")
for stream in sorted({s for s, _ in iterations}, key=name):
    i = interleaved.get(name(stream)) or interleaved.get(stream)
    c2, w2 = ms(stream, "Codec_2cores"), ms(stream, "Wrapper_2cores")
    c1, w1 = ms(stream, "Codec_1core"), ms(stream, "Wrapper_1core")
    hot, cold = ms(stream, "Ceiling_2cores_hot"), ms(stream, "Ceiling_2cores_cold")
    has_ceiling = hot is not None and hot > 0.001
    cells = [name(stream)]
    if i:
        cells += [f"{show(i['codec'])} / {show(i['wrapper'])} / {show(i['ceiling']) if has_ceiling else 'n/a'} ({i['n']} ops)",
                  f"**{i['ratio']:.2f}×**", f"{i['ceiling_ratio']:.2f}" if has_ceiling else "n/a"]
    else:
        cells += ["", "", ""]
    cells += [f"{show(c2)} / {show(w2)}", f"{c2 / w2:.2f}×" if c2 and w2 else "",
              f"{show(hot)} / {show(cold)}" if has_ceiling else "n/a",
              f"{show(c1)} / {show(w1)}", f"{c1 / w1:.2f}×" if c1 and w1 else "", show(ms(stream, "Arrow_alone_decompressed"))]
    print("| " + " | ".join(cells) + " |")
