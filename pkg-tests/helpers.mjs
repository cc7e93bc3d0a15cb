// Helpers for the Node tests: load the built package the way users do, and read the vendored reference
// corpus (tests/fixtures, refreshed by scripts/refresh-fixtures.sh).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const fixturesDir = join(repoRoot, 'tests', 'fixtures');

export function loadJsonl(name) {
  return readFileSync(join(fixturesDir, 'conformance', name), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

export function templateSource(name) {
  return readFileSync(join(fixturesDir, 'conformance', 'templates', name), 'utf8');
}

/** 2024-07-26 12:00:00 UTC, the reference renders' `strftime_now` time. */
export const REFERENCE_NOW = 1721995200;

/**
 * Per-case expectations, the same files and rules as the Rust tests (tests/common/expectations.rs):
 * `tests/expectations/<suite>.jsonl`, one `{"case", "expect": "pass" | {"known": reason}}` per line.
 * `record(id, failure)` takes `null` for a pass or a string saying what differs; `finish()` throws
 * naming every case that differs from its expectation, or with UPDATE_EXPECTATIONS=1 rewrites the file
 * (keeping the reasons of known differences that still fail).
 */
export function expectations(suite) {
  const path = join(repoRoot, 'tests', 'expectations', `${suite}.jsonl`);
  let text = '';
  try { text = readFileSync(path, 'utf8'); } catch { /* no file yet */ }
  const expected = new Map(text.split('\n').filter((l) => l.trim()).map((l) => {
    const v = JSON.parse(l);
    return [v.case, v.expect === 'pass' ? null : v.expect.known];
  }));
  const outcomes = new Map();
  return {
    /** The reason of a known difference, `null` for a case expected to pass, `undefined` if none. */
    expectation: (id) => expected.get(id),
    record(id, failure) {
      const prev = outcomes.get(id);
      outcomes.set(id, prev ?? failure ?? null);
    },
    counts: () => [[...outcomes.values()].filter((f) => f === null).length, outcomes.size],
    finish() {
      if (process.env.UPDATE_EXPECTATIONS && process.env.UPDATE_EXPECTATIONS !== '0') {
        const lines = [...outcomes].map(([id, f]) => {
          const known = f === null ? null : (expected.get(id) ?? `unexplained: ${f.replace(/\s+/g, ' ').slice(0, 160)}`);
          return JSON.stringify({ case: id, expect: known === null ? 'pass' : { known } });
        });
        writeFileSync(path, lines.join('\n') + '\n');
        return;
      }
      const problems = [];
      for (const [id, f] of outcomes) {
        if (!expected.has(id)) problems.push(`NEW CASE ${id} (${f === null ? 'passes' : 'fails'}): no expectation`);
        else if (expected.get(id) === null && f !== null) problems.push(`FAILS ${id}: ${f}`);
        else if (expected.get(id) !== null && f === null) problems.push(`NOW PASSES ${id} (was known: ${expected.get(id)}): update the expectation`);
      }
      for (const id of expected.keys()) if (!outcomes.has(id)) problems.push(`GONE ${id}: has an expectation but did not run`);
      if (problems.length) {
        throw new Error(`${suite}: ${problems.length} case(s) differ from tests/expectations/${suite}.jsonl (UPDATE_EXPECTATIONS=1 rewrites it):\n${problems.slice(0, 40).join('\n')}`);
      }
    },
  };
}

/** A case of cases.jsonl as the package's request options. */
export function optionsOf(c) {
  return {
    tools: c.tools ?? [], messages: c.messages, addGenerationPrompt: c.add_generation_prompt,
    continueFinalMessage: c.continue_final_message, enableThinking: c.enable_thinking, reasoningFormat: c.reasoning_format,
    parallelToolCalls: c.parallel_tool_calls, toolChoice: c.tool_choice, jsonSchema: c.json_schema, isPartial: c.is_partial,
  };
}
