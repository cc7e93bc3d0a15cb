// The wasm package must compute exactly what the native build computes, over the whole conformance
// corpus: every template's analysis, every case's generation prompt and parsed message (or error kind).
// `cargo test --test native_results` (run by `npm test` before this) writes the native side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChatTemplate, parseOutput, generationPrompt } from '../pkg/node/index.mjs';
import { loadJsonl, repoRoot, templateSource } from './helpers.mjs';

const resultsPath = join(repoRoot, 'target/tmp/native-results.json');

/** The case's request, as tests/case_support `options_of` builds it on the Rust side. */
function optionsOf(c) {
  const map = {
    tools: 'tools', messages: 'messages', addGenerationPrompt: 'add_generation_prompt',
    continueFinalMessage: 'continue_final_message', enableThinking: 'enable_thinking', reasoningFormat: 'reasoning_format',
    parallelToolCalls: 'parallel_tool_calls', toolChoice: 'tool_choice', jsonSchema: 'json_schema', isPartial: 'is_partial',
  };
  const o = {};
  for (const [ours, theirs] of Object.entries(map)) if (theirs in c) o[ours] = c[theirs];
  return o;
}

test('wasm ≡ native over the conformance corpus (49 analyses, 333 cases)', () => {
  assert.ok(existsSync(resultsPath), `${resultsPath} is missing: run \`cargo test --test native_results\` first`);
  const native = JSON.parse(readFileSync(resultsPath, 'utf8'));
  const templates = new Map();
  const template = (name) => {
    if (!templates.has(name)) templates.set(name, new ChatTemplate(templateSource(name), { now: native.now }));
    return templates.get(name);
  };
  const differ = [];
  for (const [name, analysis] of Object.entries(native.analyses)) {
    // `verified` is the round trip added by the JS binding (native: VerifyReport.verified, checked in tests/zoo.rs).
    const { verified, ...got } = template(name).analysis;
    try { assert.equal(typeof verified?.ok, 'boolean'); assert.deepStrictEqual(got, analysis); } catch (e) { differ.push(`analysis of ${name}: ${e.message.slice(0, 300)}`); }
  }
  const cases = new Map(loadJsonl('cases.jsonl').map((c) => [c.id, c]));
  for (const want of native.cases) {
    const c = cases.get(want.id);
    const t = template(c.template);
    const opts = optionsOf(c);
    const got = { id: c.id };
    try {
      got.generationPrompt = generationPrompt(t, opts);
      // The JS API adds how the parse ended (the native message has no such field): checked, then compared without it.
      const { finishReason, ...message } = parseOutput(t, c.input, opts);
      const ended = opts.isPartial ? undefined : (message.tool_calls?.length ? 'tool_calls' : 'stop');   // a partial parse has not ended
      if (finishReason !== ended && !(finishReason === 'length' && !opts.isPartial)) {
        differ.push(`case ${c.id}: finishReason ${finishReason} for ${message.tool_calls?.length ?? 0} calls`);
      }
      got.message = message;
    } catch (e) {
      got.error = e.kind;
      delete got.message;
    }
    try { assert.deepStrictEqual(got, want); } catch (e) { differ.push(`case ${c.id} (${c.template}): ${e.message.slice(0, 300)}`); }
  }
  console.log(`wasm ≡ native: ${Object.keys(native.analyses).length - differ.filter((d) => d.startsWith('analysis')).length}/${Object.keys(native.analyses).length} analyses, `
    + `${native.cases.length - differ.filter((d) => d.startsWith('case')).length}/${native.cases.length} cases`);
  assert.deepEqual(differ, []);
  for (const t of templates.values()) t.free();
});
