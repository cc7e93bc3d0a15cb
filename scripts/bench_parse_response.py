#!/usr/bin/env python3
"""Time Hugging Face transformers' `parse_response` on the bench replies (pkg-tests/bench-transformers.mjs).

Reads a JSON list on stdin: [{"name", "text", "responseTemplate", "prefix", "tools"}], parses each text
with transformers' own `parse_response` (the pinned version the cross-check installs) and prints, per
case, the median time of one call in microseconds and the message it gave: {"name": {"us", "message"}}.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from response_template_crosscheck import ensure_transformers  # noqa: E402


def median_us(fn, budget_s=0.5):
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-6)
    reps = min(2000, max(5, int(budget_s / once)))
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    return samples[len(samples) // 2] * 1e6


def main():
    parse_response = ensure_transformers()
    out = {}
    for case in json.load(sys.stdin):
        def call():
            return parse_response(case["text"], case["responseTemplate"], prefix=case["prefix"], tools=case["tools"])
        out[case["name"]] = {"us": median_us(call), "message": call()}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
