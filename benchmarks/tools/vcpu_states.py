#!/usr/bin/env python3
"""Prints, from a BenchmarkDotNet console log, each case's mean with the vCPU speeds its process printed at setup and
cleanup (`// vCPU speed …`, see Harness/VcpuSpeed.cs): the project's VM has episodes in which one vCPU runs up to
~1.8x slower than the other, so a 2-core / 1-core ratio is read with the state it was measured in.
Usage: vcpu_states.py <BenchmarkDotNet log>"""
import re
import sys

case = None
cases = []  # [name, [states], [per-iteration us]]
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"// Benchmark: (\S+): .*? \[(.*)\]\s*$", line)
    if m:
        case = [m.group(1).split(".")[-1] + " " + m.group(2), [], []]
        cases.append(case)
        continue
    if case is None:
        continue
    m = re.search(r"// vCPU speed at (setup|cleanup): (.*?), slow/fast ([0-9.]+)", line)
    if m:
        case[1].append(float(m.group(3)))
        continue
    m = re.match(r"WorkloadResult\s+\d+: \d+ op, [0-9.]+ ns, ([0-9.,]+) (us|ms|ns)/op", line)
    if m:
        value = float(m.group(1).replace(",", ""))
        case[2].append(value * {"us": 1.0, "ms": 1000.0, "ns": 0.001}[m.group(2)])

print("| case | mean of iterations (µs) | vCPU slow/fast at each setup, cleanup |")
print("|---|---:|---|")
for name, states, times in cases:
    mean = sum(times) / len(times) if times else float("nan")
    print(f"| {name} | {mean:,.1f} | {' '.join(f'{s:.2f}' for s in states)} |")
