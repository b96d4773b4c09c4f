#!/usr/bin/env python3
"""Prints, from an IpcParallelReadBenchmarks console log, the table of docs/parallel-read.md: per stream, the medians of
the separate cases (one process each: Codec_2cores, Wrapper_2cores, the ceilings, Codec_1core, Wrapper_1core,
Arrow_alone_decompressed), computed from their measured iterations, beside the interleaved case's medians and
per-operation ratios (`// interleaved 2 cores: …` and `// interleaved 1 core: …`, printed by its cleanup), in which
the paths of each line share each moment. Logs from before the wrapper-from-memory path and the 1-core line (9773816)
still parse, as do those from before the input-copy path; those columns stay empty. The input copy is the
input read out of a stream like the wrapper's and nothing else: a reader from a stream takes at least the ceiling plus
half of it on two cores, so (ceiling + copy/2)/wrapper is the wrapper's share of what a stream allows. The ceiling
from input measures that bound: the two threads copy each buffer they claim out of the input, then decode it (logs
from before it leave its column empty).
The file lines (`// interleaved 2 cores from a file: …`) give a second table.
Usage: interleaved.py <BenchmarkDotNet log>"""
import re
import statistics
import sys

case = None
iterations = {}  # (stream, method) -> [ms per op]
interleaved = {}  # stream -> dict
interleaved1 = {}  # stream -> dict
from_file = {}  # stream -> dict

# Each interleaved line: its prefix, where its numbers go, and their names after the operation count; the 2-core
# line's later parts (from memory, the input copy, the ceiling from input) are optional, as older logs lack them.
NUMBER = r"([0-9.]+)"
LINES = [
    (r"// interleaved 2 cores: (.*?): (\d+) operations; medians codec {0} ms, wrapper {0} ms, ceiling hot {0} ms; "
     r"per operation codec/wrapper {0}, ceiling/wrapper {0}", interleaved, ["codec", "wrapper", "ceiling", "ratio", "ceiling_ratio"]),
    (r"// interleaved 2 cores from a file: (.*?): (\d+) operations; medians codec {0} ms, wrapper {0} ms, "
     r"ceiling from input {0} ms(?:, ceiling hot {0} ms)?; per operation codec/wrapper {0}, ceiling from input/wrapper {0}"
     r"(?:, ceiling hot/wrapper {0})?", from_file,
     ["codec", "wrapper", "from_input", "hot", "ratio", "from_input_ratio", "hot_ratio"]),
    (r"// interleaved 1 core: (.*?): (\d+) operations; medians codec {0} ms, wrapper {0} ms; per operation codec/wrapper {0}",
     interleaved1, ["codec", "wrapper", "ratio"]),
]
PARTS = [
    (r"; from memory: wrapper {0} ms, codec/wrapper {0}, ceiling/wrapper {0}", ["memory", "memory_ratio", "memory_ceiling_ratio"]),
    (r"; input copy {0} ms, \(ceiling \+ copy/2\)/wrapper {0}", ["copy", "stream_bound_ratio"]),
    (r"; ceiling from input {0} ms, ceiling from input/wrapper {0}", ["from_input", "from_input_ratio"]),
]


def numbers(match, names, first=1):
    # An optional group an older log lacks (the file line's decode-only ceiling) is 0.
    return {key: float(match.group(first + i) or 0) for i, key in enumerate(names)}


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
    for pattern, table, names in LINES:
        m = re.match(pattern.format(NUMBER), line)
        if m:
            table[m.group(1)] = dict(n=int(m.group(2)), **numbers(m, names, first=3))
            if table is interleaved:
                for part, part_names in PARTS:
                    p = re.search(part.format(NUMBER), line)
                    if p:
                        table[m.group(1)].update(numbers(p, part_names))
            break

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


print("| stream | interleaved 2 cores: codec / wrapper / wrapper from memory / ceiling hot |"
      " **codec/wrapper** | ceiling/wrapper | input copy | (ceiling + copy/2)/wrapper | ceiling from input | its share |"
      " from memory: codec/wrapper | ceiling/wrapper |"
      " interleaved 1 core: codec / wrapper | ratio | separate cases: codec 2c / wrapper 2c / from memory 2c |"
      " Arrow alone |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|")
raw = {name(s): s for s, _ in iterations}  # full stream name -> the name in the separate cases' log lines
for full in sorted(set(raw) | set(interleaved)):
    stream = raw.get(full, full)
    i = interleaved.get(full)
    one = interleaved1.get(full)
    hot = ms(stream, "Ceiling_2cores_hot")
    has_ceiling = (hot is None or hot > 0.001) and (i is None or i["ceiling"] > 0.001)
    cells = [full]
    if i:
        memory = show(i["memory"]) if "memory" in i else "n/a"
        cells += [f"{show(i['codec'])} / {show(i['wrapper'])} / {memory} / {show(i['ceiling']) if has_ceiling else 'n/a'} ({i['n']} ops)",
                  f"**{i['ratio']:.2f}×**", f"{i['ceiling_ratio']:.2f}" if has_ceiling else "n/a",
                  show(i["copy"]) if "copy" in i else "n/a",
                  f"{i['stream_bound_ratio']:.2f}" if "copy" in i and has_ceiling else "n/a",
                  show(i["from_input"]) if "from_input" in i and has_ceiling else "n/a",
                  f"{i['from_input_ratio']:.2f}" if "from_input" in i and has_ceiling else "n/a",
                  f"{i['memory_ratio']:.2f}×" if "memory" in i else "",
                  f"{i['memory_ceiling_ratio']:.2f}" if "memory" in i and has_ceiling else "n/a"]
    else:
        cells += ["", "", "", "", "", "", "", "", ""]
    cells += [f"{show(one['codec'])} / {show(one['wrapper'])} ({one['n']} ops)" if one else "",
              f"{one['ratio']:.2f}×" if one else ""]
    c2, w2, m2 = ms(stream, "Codec_2cores"), ms(stream, "Wrapper_2cores"), ms(stream, "Wrapper_2cores_memory")
    cells += [f"{show(c2)} / {show(w2)} / {show(m2)}" if c2 else "", show(ms(stream, "Arrow_alone_decompressed"))]
    print("| " + " | ".join(cells) + " |")

if from_file:
    # Interleaved_2cores_file: the codec path and the wrapper from a file (File.OpenRead), with the ceiling from input
    # and (newer logs) the decode-only ceiling.
    print()
    print("| stream | from a file, interleaved 2 cores: codec / wrapper / ceiling from input / decode-only ceiling | **codec/wrapper** | ceiling from input/wrapper | decode-only ceiling/wrapper |")
    print("|---|---|---:|---:|---:|")
    for full in sorted(name(s) for s in from_file):
        f = next(v for s, v in from_file.items() if name(s) == full)
        # A stream with no LZ4 body (the ZSTD one) has nothing for the ceiling to decode: microseconds.
        has = f["from_input"] > 0.01
        ceiling = f"{f['from_input_ratio']:.2f}" if has else "n/a"
        hot = has and f["hot"] > 0
        hot_ratio = f"{f['hot_ratio']:.2f}" if hot else "n/a"
        print(f"| {full} | {show(f['codec'])} / {show(f['wrapper'])} / {show(f['from_input']) if has else 'n/a'} / "
              f"{show(f['hot']) if hot else 'n/a'} ({f['n']} ops) | **{f['ratio']:.2f}×** | {ceiling} | {hot_ratio} |")
