#!/usr/bin/env python3
"""Golden renders of the template zoo (tests/fixtures/zoo/*.jinja) with Python Jinja2, set up as Hugging Face
transformers does (the same setup as the conformance renders): sandboxed, trim_blocks, lstrip_blocks, the
loopcontrols extension, `{% generation %}` rendered as its body, transformers' `tojson`, `raise_exception`, and
`strftime_now` formatting the fixed time 2024-07-26 12:00:00.

Writes tests/fixtures/zoo/contexts.json (the render contexts, by name) and tests/fixtures/zoo/renders.jsonl
(one line per template x context x enable_thinking: `{template, context, enable_thinking?, expected | error}`).
The goldens are committed, so the Rust test (tests/zoo.rs) needs no Python; run this only to refresh them:

    python3 scripts/zoo_goldens.py
"""
import copy
import datetime
import json
import pathlib
import subprocess
import sys

try:
    import jinja2
except ImportError:  # the test suite does not need this script; install only when refreshing
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "jinja2>=3.1"])
    import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

ZOO = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "zoo"
BOS, EOS = "<|bos|>", "<|eos|>"
NOW = datetime.datetime(2024, 7, 26, 12, 0, 0)


class GenerationBlock(Extension):
    """transformers' AssistantTracker without the index bookkeeping: the block renders its body."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(fmt):
    return NOW.strftime(fmt)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationBlock, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


# ---- contexts -------------------------------------------------------------------------------------------
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city",
     "parameters": {"type": "object", "properties": {
         "location": {"type": "string", "description": "City name"},
         "unit": {"type": "string", "description": "Temperature unit", "enum": ["celsius", "fahrenheit"]}},
         "required": ["location"]}}},
    {"type": "function", "function": {"name": "calculate", "description": "Evaluate an arithmetic expression",
     "parameters": {"type": "object", "properties": {"expr": {"type": "string", "description": "Expression"}},
                    "required": ["expr"]}}},
]
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
USER = {"role": "user", "content": "What is the weather in Paris?"}
USER2 = {"role": "user", "content": "Thanks! And 2+2?"}
ANSWER = {"role": "assistant", "content": "Hello! How can I help you today?"}
REASONING = "The user asks about Paris weather; I should answer briefly."
WEATHER_ARGS = {"location": "Paris", "unit": "celsius"}


def call(id_, name, args):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": args}}


def tool_result(id_, name, content):
    return {"role": "tool", "tool_call_id": id_, "name": name, "content": content}


def contexts():
    weather = call("call00001", "get_weather", WEATHER_ARGS)
    calc = call("call00002", "calculate", {"expr": "2+2"})
    nested = call("call00003", "search_docs", {"query": "naïve \"quoted\" <tag> & ünïcode", "limit": 3,
                                                "filters": {"lang": "fr", "tags": ["a", "b"]}})
    c = {
        "user_only_gen": ([USER], True, False),
        "system_user_gen": ([SYSTEM, USER], True, False),
        "chat_no_gen": ([SYSTEM, USER, ANSWER], False, False),
        "chat_multi_turn": ([SYSTEM, USER, ANSWER, USER2], True, False),
        "reasoning_content_last": ([USER, {"role": "assistant", "content": "It is sunny in Paris.", "reasoning_content": REASONING}], False, False),
        "thinking_last": ([USER, {"role": "assistant", "content": "It is sunny in Paris.", "thinking": REASONING}], False, False),
        "reasoning_last": ([USER, {"role": "assistant", "content": "It is sunny in Paris.", "reasoning": REASONING}], False, False),
        "reasoning_history": ([USER, {"role": "assistant", "content": "It is sunny in Paris.", "reasoning_content": REASONING}, USER2], True, False),
        "tools_gen": ([SYSTEM, USER], True, True),
        "tool_call": ([USER, {"role": "assistant", "content": "", "tool_calls": [weather]}], False, True),
        "tool_call_null_content": ([USER, {"role": "assistant", "content": None, "tool_calls": [weather]}], False, True),
        "tool_call_with_text": ([USER, {"role": "assistant", "content": "Let me check.", "tool_calls": [weather]}], False, True),
        "parallel_calls": ([USER, {"role": "assistant", "content": "", "tool_calls": [weather, calc]}], False, True),
        "nested_args": ([USER, {"role": "assistant", "content": "", "tool_calls": [nested]}], False, True),
        "tool_call_reasoning": ([USER, {"role": "assistant", "content": "", "reasoning_content": "I need the weather tool.", "tool_calls": [weather]}], False, True),
        "tool_roundtrip": ([SYSTEM, USER, {"role": "assistant", "content": "", "tool_calls": [weather]},
                            tool_result("call00001", "get_weather", "{\"temperature\": 21, \"sky\": \"clear\"}"),
                            {"role": "assistant", "content": "It is 21°C and clear in Paris."}], False, True),
        "tool_roundtrip_gen": ([USER, {"role": "assistant", "content": "", "tool_calls": [weather, calc]},
                                tool_result("call00001", "get_weather", "{\"temperature\": 21, \"sky\": \"clear\"}"),
                                tool_result("call00002", "calculate", "4")], True, True),
    }
    out = {}
    for name, (messages, gen, tools) in c.items():
        kwargs = {"messages": messages, "add_generation_prompt": gen, "bos_token": BOS, "eos_token": EOS}
        if tools:
            kwargs["tools"] = TOOLS
        out[name] = kwargs
        if any(m.get("tool_calls") for m in messages):
            # Templates differ in whether they accept arguments as an object or as a JSON string.
            s = copy.deepcopy(kwargs)
            for m in s["messages"]:
                for tc in m.get("tool_calls") or []:
                    tc["function"]["arguments"] = json.dumps(tc["function"]["arguments"], ensure_ascii=False)
            out[name + "+args_string"] = s
    return out


# enable_thinking is rendered absent, true and false for these contexts when the template reads it.
THINKING_CONTEXTS = {"user_only_gen", "reasoning_history", "tools_gen", "tool_roundtrip_gen"}


def main():
    ctx = contexts()
    (ZOO / "contexts.json").write_text(json.dumps(ctx, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    env = environment()
    lines = []
    for path in sorted(ZOO.glob("*.jinja")):
        source = path.read_text(encoding="utf-8")
        try:
            template = env.from_string(source)
        except Exception as e:  # noqa: BLE001 — a template Python cannot compile is recorded per render
            template, compile_error = None, f"{type(e).__name__}: {e}"
        thinking = [None, True, False] if "enable_thinking" in source else [None]
        for name, kwargs in ctx.items():
            for et in thinking if name in THINKING_CONTEXTS else [None]:
                rec = {"template": path.name, "context": name}
                args = copy.deepcopy(kwargs)
                if et is not None:
                    rec["enable_thinking"] = et
                    args["enable_thinking"] = et
                if template is None:
                    rec["error"] = compile_error
                else:
                    try:
                        rec["expected"] = template.render(**args)
                    except Exception as e:  # noqa: BLE001 — Python raising is part of the golden
                        rec["error"] = f"{type(e).__name__}: {e}"
                lines.append(json.dumps(rec, ensure_ascii=False))
    (ZOO / "renders.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    errors = sum('"error"' in l for l in lines)
    print(f"{len(lines)} renders over {len(list(ZOO.glob('*.jinja')))} templates ({errors} raise in Python)")


if __name__ == "__main__":
    main()
