#!/usr/bin/env python3
"""Run a command RUNS times (after one warm-up) and print min / median / max wall time in ms.

usage: median.py RUNS CMD [ARGS...]   (stdout/stderr of the command are discarded; exit codes are reported)
"""
import statistics
import subprocess
import sys
import time

runs = int(sys.argv[1])
cmd = sys.argv[2:]
subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
times, codes = [], set()
for _ in range(runs):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - t0) * 1000)
    codes.add(r.returncode)
print(f"runs={runs} min={min(times):.1f}ms median={statistics.median(times):.1f}ms max={max(times):.1f}ms exit={sorted(codes)}")
