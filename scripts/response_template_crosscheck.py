#!/usr/bin/env python3
"""Cross-check derived response templates against transformers' own response parser.

For every conformance template, derive its `response_template` (Rust example
`response_template_dump`), parse every case's model output with transformers 5.23's
`parse_response` (prefix = the case's rendered prompt, tools = the case's tools) and compare with
our parser's message (reasoning extracted). Prints agreement per template and every disagreement;
fails when a disagreement on an expressible case is not listed with its reason in
tests/fixtures/response-template-crosscheck.json, or when agreement over expressible cases < 98%.

Usage: python3 scripts/response_template_crosscheck.py [DUMP.jsonl]
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIN = "5.23.0"
# What `transformers.utils.chat_parsing` needs at import time (transformers' own import-time
# version checks); no torch, no model download.
IMPORT_DEPS = ["packaging", "numpy", "huggingface_hub", "safetensors", "pyyaml", "regex>=2025.10.22", "tqdm", "filelock"]


def ensure_transformers():
    def installed_version():
        try:
            from importlib.metadata import version
            return version("transformers")
        except Exception:
            return None

    if installed_version() != PIN:
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(pip + ["--no-deps", f"transformers=={PIN}"], check=True)
    try:
        import transformers.utils.chat_parsing  # noqa: F401
    except ImportError:
        pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(pip + IMPORT_DEPS, check=True)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from transformers.utils.chat_parsing import parse_response
    assert "torch" not in sys.modules, "chat_parsing must not need torch"
    return parse_response


def conformance_dir():
    vendored = os.path.join(ROOT, "tests", "fixtures", "conformance")
    if os.path.exists(os.path.join(vendored, "cases.jsonl")):
        return vendored
    return os.path.join(ROOT, "..", "shared", "conformance")


def load_dump(path, cdir):
    if path:
        text = open(path, encoding="utf-8").read()
    else:
        text = subprocess.run(
            ["cargo", "run", "-q", "--example", "response_template_dump", "--", cdir],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    templates, ours = {}, {}
    for line in text.splitlines():
        rec = json.loads(line)
        if rec["kind"] == "template":
            templates[rec["name"]] = rec
        else:
            ours[rec["id"]] = rec
    return templates, ours


def norm_text(v):
    return (v or "").strip()


def norm_args(a):
    if isinstance(a, str):
        try:
            return json.loads(a)
        except ValueError:
            return a
    return a


def norm_calls(calls, with_ids):
    out = []
    for c in calls or []:
        if not isinstance(c, dict):
            out.append(("?", c))
            continue
        fn = c.get("function") if isinstance(c.get("function"), dict) else {}
        item = (fn.get("name"), norm_args(fn.get("arguments")))
        if with_ids:
            item += (c.get("id"),)
        out.append(item)
    return out


def compare(ours, theirs, with_ids):
    """A list of (field, ours, theirs) differences."""
    diffs = []
    pairs = [
        ("content", norm_text(ours.get("content")), norm_text(theirs.get("content"))),
        ("reasoning", norm_text(ours.get("reasoning_content")), norm_text(theirs.get("thinking"))),
        ("tool_calls", norm_calls(ours.get("tool_calls"), with_ids), norm_calls(theirs.get("tool_calls"), with_ids)),
    ]
    for field, a, b in pairs:
        if a != b:
            diffs.append((field, a, b))
    return diffs


def same_json(a, b):
    """Equal as JSON values (1.5 == 1.5, ints and floats kept apart as Python keeps them)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b and type(a) is type(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b and type(a) is type(b)


def short(v, n=160):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= n else s[: n - 3] + "..."


def main():
    parse_response = ensure_transformers()
    cdir = conformance_dir()
    templates, ours = load_dump(sys.argv[1] if len(sys.argv) > 1 else None, cdir)
    known_path = os.path.join(ROOT, "tests", "fixtures", "response-template-crosscheck.json")
    known = json.load(open(known_path, encoding="utf-8")) if os.path.exists(known_path) else {}
    known_cases = {int(k): v for k, v in known.get("cases", {}).items()}

    rows = {}
    spec_total, spec_diffs = [0, 0], []
    disagreements, unexplained, stale = [], [], []
    na = {}
    for line in open(os.path.join(cdir, "cases.jsonl"), encoding="utf-8"):
        case = json.loads(line)
        cid, name = case["id"], case["template"]
        tmpl = templates.get(name)
        row = rows.setdefault(name, {"handler": (tmpl or {}).get("handler", "?"), "n": 0, "agree": 0, "expressible": 0, "exp_agree": 0})
        reason_na = None
        if case.get("json_schema"):
            reason_na = "response-format schema (not a response-template concept)"
        elif case.get("is_partial"):
            reason_na = "partial output (transformers parses only finished regions)"
        elif tmpl is None or "error" in tmpl:
            reason_na = "template did not compile"
        elif "error" in ours.get(cid, {"error": "missing"}):
            reason_na = "our parser raised: " + ours.get(cid, {}).get("error", "missing")
        if reason_na:
            na[reason_na] = na.get(reason_na, 0) + 1
            continue
        rt = tmpl["responseTemplate"]
        losses = tmpl["losses"]
        our_msg = ours[cid]["ours"]
        unsupported = [l["feature"] for l in losses if l["severity"] == "unsupported"]
        # A tools.* limitation only matters for outputs that hold tool calls.
        relevant = [f for f in unsupported if not f.startswith("tools.") or our_msg.get("tool_calls")]
        with_ids = "{id}" in json.dumps(rt.get("fields", {}).get("tool_calls", {}).get("transform", {}))
        try:
            theirs = parse_response(case["input"], rt, prefix=case["prompt_side"]["prompt"], tools=case.get("tools") or None)
            diffs = compare(our_msg, theirs, with_ids)
        except Exception as e:  # transformers rejects the output (bad JSON in a region, transform key missing)
            theirs = None
            diffs = [("error", None, f"{type(e).__name__}: {str(e)[:200]}")]
        # Our own interpreter of the spec must give transformers' dict exactly (or fail where it fails).
        spec = ours[cid].get("spec", {})
        spec_total[0] += 1
        if (theirs is None and "error" in spec) or (theirs is not None and same_json(spec.get("ok"), theirs)):
            spec_total[1] += 1
        else:
            spec_diffs.append((cid, name, short(spec), short(theirs)))
        row["n"] += 1
        known_feature = known_cases.get(cid, {}).get("feature")
        if diffs and known_feature:
            relevant = relevant + [known_feature]
        expressible = not relevant
        row["expressible"] += expressible
        if not diffs:
            row["agree"] += 1
            row["exp_agree"] += expressible
            if cid in known_cases:
                stale.append(cid)
            continue
        reason = known_cases[cid]["reason"] if cid in known_cases else None
        reason = ("spec cannot express: " + ", ".join(relevant) + (" (" + reason + ")" if reason else "")) if relevant else reason
        disagreements.append((cid, name, expressible, diffs, reason))
        if expressible and cid not in known_cases:
            unexplained.append(cid)

    print("response_template cross-check against transformers %s (conformance: %s)" % (PIN, os.path.relpath(cdir, ROOT)))
    print("%-52s %-28s %9s %13s" % ("template", "handler", "agree", "expressible"))
    tot = [0, 0, 0, 0]
    for name in sorted(rows):
        r = rows[name]
        if r["n"] == 0:
            continue
        print("%-52s %-28s %4d/%-4d %6d/%-4d" % (name[:52], r["handler"][:28], r["agree"], r["n"], r["exp_agree"], r["expressible"]))
        tot = [tot[0] + r["agree"], tot[1] + r["n"], tot[2] + r["exp_agree"], tot[3] + r["expressible"]]
    print("all comparable cases: %d/%d agree" % (tot[0], tot[1]))
    pct = 100.0 * tot[2] / max(tot[3], 1)
    print("expressible cases: %d/%d agree (%.1f%%)" % (tot[2], tot[3], pct))
    for why, n in sorted(na.items()):
        print("not comparable: %d (%s)" % (n, why))
    for cid, name, expressible, diffs, reason in disagreements:
        print("DIFF #%d %s%s: %s" % (cid, name, "" if expressible else " [not expressible]", reason or "UNEXPLAINED"))
        for field, a, b in diffs:
            print("    %s: ours %s | transformers %s" % (field, short(a), short(b)))
    print("our response_template interpreter vs transformers on the same derived templates: %d/%d identical" % (spec_total[1], spec_total[0]))
    for cid, name, a, b in spec_diffs:
        print("SPEC DIFF #%d %s: ours %s | transformers %s" % (cid, name, a, b))
    for cid in stale:
        print("note: case #%d is listed as a known difference but now agrees; remove it" % cid)
    ok = not unexplained and pct >= 98.0 and not spec_diffs
    if unexplained:
        print("FAIL: unexplained disagreements on expressible cases: %s" % unexplained)
    if pct < 98.0:
        print("FAIL: agreement over expressible cases below 98%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
