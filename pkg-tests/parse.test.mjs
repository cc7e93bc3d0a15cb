// Parsing through the built package: whole text, streams in random chunks, errors, and cases.jsonl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatTemplate, StreamParser, parseOutput, analyzeTemplate, generationPrompt, verifyTemplate } from 'chat-autoparser';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectations, loadJsonl, optionsOf, repoRoot, templateSource } from './helpers.mjs';

const WEATHER = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object',
  properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } } }];

const trim = (s) => (s ?? '').replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, '');
const normArgs = (a) => { try { return JSON.stringify(JSON.parse(a)); } catch { return ''; } };
function sameAsExpected(msg, exp) {
  if (trim(msg.content) !== trim(exp.content) || trim(msg.reasoning_content) !== trim(exp.reasoning_content)) return false;
  const calls = msg.tool_calls ?? [];
  if (calls.length !== exp.tool_calls.length) return false;
  return calls.every((c, i) => c.function.name === exp.tool_calls[i].name
    // Ids: the case's where it gives one, else ours is generated (never empty).
    && (exp.tool_calls[i].id ? c.id === exp.tool_calls[i].id : c.id !== '')
    && normArgs(c.function.arguments) === normArgs(exp.tool_calls[i].arguments));
}

function applyDelta(m, d) {
  if (d.content !== undefined) m.content = (m.content ?? '') + d.content;
  if (d.reasoning_content !== undefined) m.reasoning_content = (m.reasoning_content ?? '') + d.reasoning_content;
  for (const tc of d.tool_calls ?? []) {
    m.tool_calls ??= [];
    const call = (m.tool_calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
    if (tc.id) call.id = tc.id;   // a later id (the model's, written after the name) replaces
    if (tc.function?.name) call.function.name += tc.function.name;
    if (tc.function?.arguments) call.function.arguments += tc.function.arguments;
  }
}

test('a Qwen3-Coder tool call, whole and streamed one character at a time', () => {
  const tmpl = new ChatTemplate(templateSource('Qwen3-Coder.jinja'));
  const text = 'Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n</function>\n</tool_call>';
  const whole = parseOutput(tmpl, text, { tools: WEATHER });
  assert.equal(whole.role, 'assistant');
  assert.equal(whole.content.trim(), 'Let me check.');
  assert.equal(whole.tool_calls.length, 1);
  assert.equal(whole.tool_calls[0].type, 'function');
  assert.equal(whole.tool_calls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(whole.tool_calls[0].function.arguments), { location: 'Paris' });

  const p = new StreamParser(tmpl, { tools: WEATHER });
  const deltas = [];
  for (const ch of text) deltas.push(...p.push(ch));
  deltas.push(...p.finish());
  const rebuilt = { content: null, reasoning_content: null };
  for (const d of deltas) applyDelta(rebuilt, d);
  assert.deepEqual(p.message, whole);
  assert.equal(rebuilt.content, whole.content);
  assert.equal(rebuilt.tool_calls[0].function.arguments, whole.tool_calls[0].function.arguments);
  const first = deltas.find((d) => d.tool_calls);
  assert.equal(first.tool_calls[0].function.name, 'get_weather', 'the name arrives complete, in the first tool delta');
  assert.equal(first.tool_calls[0].type, 'function');
  p.free();
});

test('finishReason: stop or tool_calls for a normal end, length inside a call, on the parser and the message (none while partial)', () => {
  const src = templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja');
  const call = 'Let me check. <tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>';
  assert.equal(parseOutput(src, 'Hello there.', { tools: WEATHER }).finishReason, 'stop');
  assert.equal(parseOutput(src, call, { tools: WEATHER }).finishReason, 'tool_calls');
  assert.equal(parseOutput(src, call, { tools: WEATHER, diagnostics: true }).message.finishReason, 'tool_calls');
  assert.equal(parseOutput(src, call, { tools: WEATHER, isPartial: true }).finishReason, undefined);
  const p = new StreamParser(src, { tools: WEATHER });
  p.push(call);
  assert.equal(p.finishReason, null, 'not finished yet');
  assert.equal(p.message.finishReason, undefined);
  p.finish();
  assert.equal(p.finishReason, 'tool_calls');
  assert.deepEqual(p.message, parseOutput(src, call, { tools: WEATHER }), 'the streamed message is the whole-text one');
  const partial = new StreamParser(src, { tools: WEATHER, isPartial: true });
  partial.push('Hello');
  partial.finish();
  assert.equal(partial.finishReason, null);
  // strict: finish() throws at a cut call, and the parser still says why it ended.
  const strict = new StreamParser(src, { tools: WEATHER, strict: true });
  strict.push(call.slice(0, 50));
  assert.throws(() => strict.finish(), (e) => e.kind === 'Parse');
  assert.equal(strict.finishReason, 'length');
  assert.equal(strict.message.finishReason, 'length');
});

test('a truncated tool call: kept with finishReason length; strict: finish throws a Parse error with the offset', () => {
  const src = templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja');
  const text = 'Hi <tool_call>\n{"name": "get_weather", "arguments": {"location": "Par';
  const partial = parseOutput(src, text, { tools: WEATHER, isPartial: true });
  assert.equal(partial.tool_calls?.[0]?.function.name, 'get_weather');
  assert.equal(partial.finishReason, undefined);
  const cut = parseOutput(src, text, { tools: WEATHER });
  assert.equal(cut.tool_calls?.[0]?.function.name, 'get_weather');
  // Closed to valid JSON by appended text (issue #24's exit guarantee).
  assert.equal(cut.tool_calls[0].function.arguments, '{"location": "Par"}');
  assert.equal(cut.finishReason, 'length');
  assert.throws(() => parseOutput(src, text, { tools: WEATHER, strict: true }), (e) => e instanceof Error && e.kind === 'Parse' && typeof e.offset === 'number');
  const lenient = new StreamParser(src, { tools: WEATHER });
  lenient.push(text);
  lenient.finish();
  assert.equal(lenient.finishReason, 'length');
  assert.ok(lenient.diagnostics.some((d) => /inside a tool call/.test(d.message)));
  const p = new StreamParser(src, { tools: WEATHER, strict: true });
  for (let i = 0; i < text.length; i += 5) p.push(text.slice(i, i + 5)); // never throws while streaming
  assert.throws(() => p.finish(), (e) => e.kind === 'Parse' && Array.isArray(e.deltas));
});

test('malformed output streams without throwing and is reported as a diagnostic', () => {
  const p = new StreamParser(templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja'), { tools: WEATHER, isPartial: true });
  const text = 'before <tool_call>{"name": "nope", "arguments": {]}</tool_call> after';
  for (const ch of text) p.push(ch);
  p.finish();
  const m = p.message;
  const all = (m.content ?? '') + (m.reasoning_content ?? '') + JSON.stringify(m.tool_calls ?? []);
  assert.match(all, /before/);
  assert.match(all, /after/);
});

test('cases.jsonl through the wasm build: whole text and random chunks agree with the expected message', () => {
  const cases = loadJsonl('cases.jsonl').filter((c) => c.kind === 'parse');
  const compiled = new Map();
  // Whether each case gives the expected message: tests/expectations/wasm_cases.jsonl (`#id TEMPLATE`).
  const expect = expectations('wasm_cases');
  let agree = 0;
  let seed = 12345;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return 1 + (seed % n); };
  for (const c of cases) {
    if (!compiled.has(c.template)) compiled.set(c.template, new ChatTemplate(templateSource(c.template), { now: 1795305600 }));
    const t = compiled.get(c.template);
    const opts = optionsOf(c);
    const id = `#${c.id} ${c.template}`;
    let whole;
    try { whole = parseOutput(t, c.input, opts); } catch (e) { expect.record(id, `error: ${e.message}`); continue; }
    expect.record(id, sameAsExpected(whole, c.expected) ? null : `message differs: ${JSON.stringify(whole).slice(0, 120)}`);
    const p = new StreamParser(t, opts);
    for (let i = 0; i < c.input.length;) { const n = rand(7); p.push(c.input.slice(i, i + n)); i += n; }
    try { p.finish(); } catch { /* same error as whole */ }
    if (JSON.stringify(p.message) === JSON.stringify(whole)) agree++; else assert.fail(`case ${c.id}: stream differs from whole text`);
    p.free();
  }
  const [pass] = expect.counts();
  console.log(`wasm cases: ${pass}/${cases.length} as expected, ${agree} streams identical to whole-text parses`);
  expect.finish();
});

test('analysis, generation prompt and verify through wasm', () => {
  const src = templateSource('Qwen3-Coder.jinja');
  const a = analyzeTemplate(src);
  assert.equal(a.handler, 'autoparser');
  assert.equal(a.tools.format.mode, 'TAG_WITH_TAGGED');
  assert.equal(a.tools.function.namePrefix, '<function=');
  assert.ok(a.diffs.length > 5 && a.diffs.every((d) => typeof d.prefix === 'string' && typeof d.step === 'string'));
  const t = new ChatTemplate(src);
  assert.deepEqual(t.analysis.tools.format, a.tools.format);
  assert.match(generationPrompt(t, { messages: [{ role: 'user', content: 'hi' }] }), /<\|im_start\|>assistant\n$/);
  const v = verifyTemplate(t);
  assert.equal(v.ok, true, JSON.stringify(v.results.filter((r) => !r.ok)));
  assert.ok(v.results.some((r) => r.name === 'tool_call' && r.output.includes('<function=get_weather>')));
  assert.equal(analyzeTemplate(templateSource('openai-gpt-oss-120b.jinja')).handler, 'GPT-OSS');
});

test('analysis.verified: the round trip per part, also when the analysis looks complete', () => {
  const ok = analyzeTemplate(templateSource('Qwen3-Coder.jinja')).verified;
  assert.deepEqual(ok, { ok: true, content: 'ok', reasoning: ok.reasoning, toolCalls: 'ok' });
  // A zoo template whose second parallel call lacks its opening tag: complete analysis, failing tool calls.
  const src = readFileSync(join(repoRoot, 'tests/fixtures/zoo/hfjs-NousResearch-Hermes-2-Pro-Llama-3-8B.jinja'), 'utf8');
  const a = analyzeTemplate(src);
  assert.equal(a.analysisComplete, true);
  assert.deepEqual(a.verified, { ok: false, content: 'ok', reasoning: 'untested', toolCalls: 'failed' });
  assert.deepEqual(new ChatTemplate(src).analysis.verified, a.verified);
  assert.deepEqual(verifyTemplate(src).verified, a.verified);
});

test('templateOrSource must be a string or a live ChatTemplate', () => {
  assert.throws(() => parseOutput({}, 'x'), (e) => e.kind === 'InvalidInput' && /templateOrSource/.test(e.message));
  const t = new ChatTemplate('{{ messages[0].content }}');
  t.free();
  assert.throws(() => parseOutput(t, 'x'), (e) => e instanceof Error);
  assert.throws(() => parseOutput('x', 'y', { reasoningFmt: 'none' }), (e) => e.kind === 'InvalidInput' && /reasoningFmt/.test(e.message));
});

test('addressed messages (Muse Glimmer): reasoning, a call and the answer routed by recipient, streamed by characters', () => {
  const src = readFileSync(join(repoRoot, 'tests/fixtures/zoo/ollama-glimmer_chat_template.jinja'), 'utf8');
  const tmpl = new ChatTemplate(src);
  const a = analyzeTemplate(src);
  assert.equal(a.handler, 'addressed messages');
  assert.deepEqual([a.messages.recipientPrefix, a.messages.contentRecipient, a.messages.reasoningRecipient], [' to=', 'user', 'self']);
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const text = ' to=self<|message|>Weather first.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>\n'
    + '<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>'
    + '<|eom|><|start|>assistant to=user<|message|>Checking.<|eot|>';
  const whole = parseOutput(tmpl, text, { tools, parallelToolCalls: true });
  assert.equal(whole.reasoning_content, 'Weather first.');
  assert.equal(whole.content, 'Checking.');
  assert.deepEqual(whole.tool_calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [['get_weather', { city: 'Paris' }]]);
  assert.ok(whole.tool_calls[0].id);
  const p = new StreamParser(tmpl, { tools, parallelToolCalls: true });
  const built = {};
  for (const ch of text) for (const d of p.push(ch)) applyDelta(built, d);
  for (const d of p.finish()) applyDelta(built, d);
  assert.equal(built.content, whole.content);
  assert.equal(built.reasoning_content, whole.reasoning_content);
  assert.deepEqual(built.tool_calls.map((c) => c.function.arguments), whole.tool_calls.map((c) => c.function.arguments));
});

test('diagnostics[].rule names the leniency rule of an accepted departure', () => {
  const src = templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja');
  // A call's end marker written twice (rule R10) and a JSON-encoded arguments string (rule R17).
  const text = '<tool_call>\n{"name": "get_weather", "arguments": "{\\"location\\": \\"Paris\\"}"}\n</tool_call></tool_call>';
  const { message, diagnostics } = parseOutput(src, text, { tools: WEATHER, diagnostics: true });
  assert.deepEqual(JSON.parse(message.tool_calls[0].function.arguments), { location: 'Paris' }, JSON.stringify(message));
  for (const d of diagnostics) assert.equal(d.rule, /rule (R\d+)/.exec(d.message)?.[1], JSON.stringify(d));
  assert.ok(diagnostics.some((d) => d.rule === 'R17'), JSON.stringify(diagnostics));
});

test('a ChatTemplate from a tokenizer_config.json renders with its bos/eos tokens and ends a reply at its EOS token (R7)', () => {
  const chat_template = readFileSync(join(repoRoot, 'tests/fixtures/conformance/templates/mistralai-Mistral-Nemo-Instruct-2407.jinja'), 'utf8');
  const t = new ChatTemplate({ chat_template, bos_token: '<s>', eos_token: { content: '</s>', special: true } });
  assert.deepEqual(t.analysis.turnEnd, ['</s>']);
  const m = parseOutput(t, 'Hello.</s>');
  assert.equal(m.content, 'Hello.');
  const p = new StreamParser(t);
  for (const c of 'Hello.</s>') p.push(c);
  p.finish();
  assert.equal(p.message.content, 'Hello.');
  assert.ok(p.diagnostics.some((d) => d.rule === 'R7'), JSON.stringify(p.diagnostics));
  const rendered = t.render({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Yo' }] });
  assert.ok(rendered.startsWith('<s>') && rendered.includes('Yo</s>'), rendered);
  // The options' own tokens win; a template source alone has no EOS token.
  assert.deepEqual(new ChatTemplate({ chat_template, eos_token: '</s>' }, { eosToken: '<|eos|>' }).analysis.turnEnd, ['<|eos|>']);
  assert.deepEqual(new ChatTemplate(chat_template).analysis.turnEnd, []);
});
