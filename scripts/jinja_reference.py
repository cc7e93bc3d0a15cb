#!/usr/bin/env python3
"""The reference side of the differential template fuzzer (examples/jinja_diff.rs): a long-lived worker
that renders templates with Python Jinja2 set up exactly as Hugging Face transformers sets it up (the
environment of scripts/zoo_goldens.py: ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
loop controls, `{% generation %}`, transformers' `tojson`, `raise_exception`, `strftime_now` at the
fixed time 2024-07-26 12:00:00).

Protocol: one JSON object per line on stdin, `{"id": N, "template": "...", "context": {...}}`; one line
per request on stdout, in order, `{"id": N, "ok": "<output>"}` or `{"id": N, "error": "<Type>: <msg>"}`.
A render that runs longer than 2 s is an error `Timeout`. `--check` prints the versions and exits.

Installs the pinned jinja2 when it is missing (idempotent), so a fresh machine needs only Python.
"""
import json
import os
import signal
import subprocess
import sys

JINJA2 = "3.1.6"  # the newest release; transformers requires jinja2>=3.1.0


def ensure_jinja2():
    try:
        import jinja2
        if jinja2.__version__ == JINJA2:
            return
    except ImportError:
        pass
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"jinja2=={JINJA2}"],
                          stdout=sys.stderr)


ensure_jinja2()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jinja2  # noqa: E402
from zoo_goldens import environment  # noqa: E402  the one reproduction of transformers' environment


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout("render took longer than 2 s")


def main():
    if "--check" in sys.argv:
        print(f"python {sys.version.split()[0]}, jinja2 {jinja2.__version__}")
        return
    sys.setrecursionlimit(3000)
    signal.signal(signal.SIGALRM, on_alarm)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        res = {"id": req.get("id")}
        env = environment()  # fresh per program: nothing a render does can leak into the next
        try:
            signal.setitimer(signal.ITIMER_REAL, 2.0)
            try:
                res["ok"] = env.from_string(req["template"]).render(**req.get("context", {}))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Timeout as e:
            res["error"] = f"Timeout: {e}"
        except RecursionError as e:
            res["error"] = f"RecursionError: {e}"
        except MemoryError:
            res["error"] = "MemoryError"
        except Exception as e:  # noqa: BLE001 — any exception is the reference's verdict
            res["error"] = f"{type(e).__name__}: {e}"
        out.write(json.dumps(res, ensure_ascii=False) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
