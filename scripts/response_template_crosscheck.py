#!/usr/bin/env python3
"""Cross-check derived response templates against transformers' own response parser.

Over three corpora (tests/fixtures): `conformance` (every case of cases.jsonl, prefix = its rendered
prompt), `real-outputs` (every case, prefix = the prompt its options render, or its
`generationPrompt`) and `zoo` (templates without outputs: the assistant turns `verify_template`
renders and cuts out, prefix = the whole round-trip prompt). The Rust example
`response_template_dump` derives each template's `response_template` and gives our parser's message
per case; here transformers 5.23's `parse_response` parses the same output with the derived template
(tools = the case's tools) and the two messages are compared (text trimmed, arguments as JSON).

Prints per corpus a per-template table, the templates whose response template cannot express all our
parser does (per reason), every disagreement with its reason and the agreement figures. Fails when a
disagreement is not listed in tests/fixtures/response-template-crosscheck.json, when a listed one no
longer disagrees, when our own interpreter of the spec differs from transformers, or when agreement
over expressible cases of all corpora is below 98% (issue #16).

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


CORPORA = ["conformance", "real-outputs", "zoo"]


def load_dump(path):
    if path:
        text = open(path, encoding="utf-8").read()
    else:
        text = subprocess.run(
            ["cargo", "run", "-q", "--example", "response_template_dump"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    templates = {c: {} for c in CORPORA}
    cases = {c: [] for c in CORPORA}
    for line in text.splitlines():
        rec = json.loads(line)
        if rec["kind"] == "template":
            templates[rec["corpus"]][rec["name"]] = rec
        else:
            cases[rec["corpus"]].append(rec)
    return templates, cases


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


def unsupported(tmpl):
    return [l["feature"] for l in tmpl.get("losses", []) if l["severity"] == "unsupported"]


def check_corpus(corpus, templates, cases, known, parse_response):
    """Compare every case of one corpus; print its table and disagreements. Returns (ok, figures)."""
    rows = {}
    spec_total, spec_diffs = [0, 0], []
    disagreements, unexplained, stale = [], [], []
    na = {}
    by_feature = {}  # feature → disagreements it explains
    for name, tmpl in templates.items():
        rows[name] = {"handler": tmpl.get("handler", "?"), "n": 0, "agree": 0, "expressible": 0, "exp_agree": 0}
    for case in cases:
        cid, name = case["id"], case["template"]
        tmpl = templates.get(name) or {}
        row = rows.setdefault(name, {"handler": tmpl.get("handler", "?"), "n": 0, "agree": 0, "expressible": 0, "exp_agree": 0})
        reason_na = case.get("skip")
        if reason_na is None and "error" in tmpl:
            reason_na = "template unusable: " + tmpl["error"][:80]
        elif reason_na is None and "error" in case:
            reason_na = "our parser raised: " + case["error"][:80]
        if reason_na:
            na[reason_na] = na.get(reason_na, 0) + 1
            continue
        rt = tmpl["responseTemplate"]
        our_msg = case["ours"]
        # A tools.* limitation only matters for outputs that hold tool calls.
        relevant = [f for f in unsupported(tmpl) if not f.startswith("tools.") or our_msg.get("tool_calls")]
        with_ids = "{id}" in json.dumps(rt.get("fields", {}).get("tool_calls", {}).get("transform", {}))
        try:
            theirs = parse_response(case["output"], rt, prefix=case["prefix"], tools=case["tools"] or None)
            diffs = compare(our_msg, theirs, with_ids)
        except Exception as e:  # transformers rejects the output (bad JSON in a region, transform key missing)
            theirs = None
            diffs = [("error", None, f"{type(e).__name__}: {str(e)[:200]}")]
        # Our own interpreter of the spec must give transformers' dict exactly (or fail where it fails).
        spec = case.get("spec", {})
        spec_total[0] += 1
        if (theirs is None and "error" in spec) or (theirs is not None and same_json(spec.get("ok"), theirs)):
            spec_total[1] += 1
        else:
            spec_diffs.append((cid, name, short(spec), short(theirs)))
        row["n"] += 1
        known_feature = known.get(cid, {}).get("feature")
        if diffs and known_feature:
            relevant = relevant + [known_feature]
        expressible = not relevant
        row["expressible"] += expressible
        if not diffs:
            row["agree"] += 1
            row["exp_agree"] += expressible
            if cid in known:
                stale.append(cid)
            continue
        for f in relevant:
            by_feature[f] = by_feature.get(f, 0) + 1
        reason = known[cid]["reason"] if cid in known else None
        reason = ("spec cannot express: " + ", ".join(relevant) + (" (" + reason + ")" if reason else "")) if relevant else reason
        disagreements.append((cid, name, expressible, diffs, reason))
        if expressible and cid not in known:
            unexplained.append(cid)
    ids = {c["id"] for c in cases}
    stale += [cid for cid in known if cid not in ids]

    label = {"conformance": "#%s", "real-outputs": "%s", "zoo": "%s"}[corpus]
    print()
    print("-- %s: %d templates, %d cases" % (corpus, len(templates), len(cases)))
    print("%-56s %-28s %9s %13s" % ("template", "handler", "agree", "expressible"))
    tot = [0, 0, 0, 0]
    for name in sorted(rows):
        r = rows[name]
        if "error" in templates.get(name, {}):
            print("%-56s %s" % (name[:56], templates[name]["error"][:60]))
            continue
        print("%-56s %-28s %4d/%-4d %6d/%-4d" % (name[:56], r["handler"][:28], r["agree"], r["n"], r["exp_agree"], r["expressible"]))
        tot = [tot[0] + r["agree"], tot[1] + r["n"], tot[2] + r["exp_agree"], tot[3] + r["expressible"]]
    not_expr = {}
    for name, tmpl in templates.items():
        why = ["template unusable"] if "error" in tmpl else unsupported(tmpl)
        for f in why:
            not_expr.setdefault(f, []).append(name)
    n_not = len({n for names in not_expr.values() for n in names})
    print("%s: templates whose response template cannot express all our parser does: %d / %d" % (corpus, n_not, len(templates)))
    for f, names in sorted(not_expr.items()):
        print("    %d: %s" % (len(names), f))
    for cid, name, expressible, diffs, reason in disagreements:
        print("DIFF %s %s%s: %s" % (label % cid, name if corpus != "zoo" else "", "" if expressible else " [not expressible]", reason or "UNEXPLAINED"))
        if expressible or corpus != "zoo":
            for field, a, b in diffs:
                print("    %s: ours %s | transformers %s" % (field, short(a), short(b)))
    kinds = {}
    for c in cases:
        if "prefixKind" in c:
            kinds[c["prefixKind"]] = kinds.get(c["prefixKind"], 0) + 1
    for kind, n in sorted(kinds.items()):
        print("%s: prefix given to parse_response: %s: %d cases" % (corpus, kind, n))
    for f, n in sorted(by_feature.items()):
        print("%s: disagreements the spec cannot express: %s: %d" % (corpus, f, n))
    for why, n in sorted(na.items()):
        print("%s: not comparable: %d (%s)" % (corpus, n, why))
    print("%s: all comparable cases: %d/%d agree" % (corpus, tot[0], tot[1]))
    pct = 100.0 * tot[2] / max(tot[3], 1)
    print("%s: expressible cases: %d/%d agree (%.1f%%)" % (corpus, tot[2], tot[3], pct))
    print("%s: our response_template interpreter vs transformers on the same derived templates: %d/%d identical" % (corpus, spec_total[1], spec_total[0]))
    for cid, name, a, b in spec_diffs:
        print("SPEC DIFF %s %s: ours %s | transformers %s" % (label % cid, name, a, b))
    ok = True
    for cid in stale:
        print("FAIL: %s case %s is listed as a known difference but agrees or no longer exists; remove it" % (corpus, cid))
        ok = False
    if unexplained:
        print("FAIL: %s: unexplained disagreements on expressible cases: %s" % (corpus, unexplained))
        ok = False
    if spec_diffs:
        print("FAIL: %s: our interpreter of the spec differs from transformers" % corpus)
        ok = False
    return ok, (tot[2], tot[3], tot[0], tot[1])


def main():
    parse_response = ensure_transformers()
    templates, cases = load_dump(sys.argv[1] if len(sys.argv) > 1 else None)
    known_path = os.path.join(ROOT, "tests", "fixtures", "response-template-crosscheck.json")
    known = json.load(open(known_path, encoding="utf-8"))
    print("response_template cross-check against transformers %s (corpora under tests/fixtures: %s)" % (PIN, ", ".join(CORPORA)))
    ok, summary = True, []
    for corpus in CORPORA:
        c_ok, figures = check_corpus(corpus, templates[corpus], cases[corpus], known.get(corpus, {}), parse_response)
        ok &= c_ok
        summary.append((corpus, figures))
    print()
    for corpus, (ea, en, aa, an) in summary:
        print("response_template %s: %d/%d expressible cases agree (%.1f%%), %d/%d of all comparable" % (corpus, ea, en, 100.0 * ea / max(en, 1), aa, an))
    ea, en = sum(f[0] for _, f in summary), sum(f[1] for _, f in summary)
    pct = 100.0 * ea / max(en, 1)
    print("response_template all corpora: %d/%d expressible cases agree (%.1f%%)" % (ea, en, pct))
    if pct < 98.0:
        print("FAIL: agreement over expressible cases below 98% (issue #16)")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
