// In-browser engines (`chat-autoparser/engines`): fake engines that stream token texts through the
// same callback shapes as transformers.js' TextStreamer, wllama's onNewToken (UTF-8 bytes per token)
// and WebLLM's streamed completions; each must give parseOutput's message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatTemplate, parseOutput } from 'chat-autoparser';
import { createTextSink, parseTextStream } from 'chat-autoparser/engines';
import { templateSource } from './helpers.mjs';

const TMPL = new ChatTemplate(templateSource('Qwen-Qwen3-0.6B.jinja'));
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const OPTIONS = { tools: TOOLS, messages: [{ role: 'user', content: 'Météo à Paris ?' }] };
const OUTPUT = '<think>\nIl veut la météo.\n</think>\n\nJe regarde ☀️.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
// "Tokens": a few code points each; the emoji is split inside its UTF-8 bytes for the byte engine.
const TOKENS = OUTPUT.match(/[\s\S]{1,3}/gu);
const WANT = parseOutput(TMPL, OUTPUT, OPTIONS);

test('transformers.js TextStreamer callback_function', () => {
  // The shape of transformers.js: new TextStreamer(tokenizer, { skip_prompt, skip_special_tokens, callback_function }).
  class FakeTextStreamer {
    constructor(_tokenizer, { callback_function }) { this.callback = callback_function; }
    put(text) { this.callback(text); }
    end() {}
  }
  const fakeGenerate = ({ streamer }) => { for (const t of TOKENS) streamer.put(t); streamer.end(); };
  const deltas = [];
  const sink = createTextSink(TMPL, OPTIONS, (d) => deltas.push(d));
  fakeGenerate({ streamer: new FakeTextStreamer(null, { skip_prompt: true, skip_special_tokens: false, callback_function: sink.write }) });
  assert.deepEqual(sink.end(), WANT);
  assert.ok(deltas.some((d) => d.tool_calls?.[0].id === WANT.tool_calls[0].id));
});

test('wllama onNewToken(token, piece: Uint8Array, currentText)', () => {
  const bytes = new TextEncoder().encode(OUTPUT);
  const fakeCreateCompletion = (_prompt, { onNewToken }) => {
    for (let i = 0; i < bytes.length; i += 3) onNewToken(i, bytes.slice(i, i + 3), '', {});
  };
  const sink = createTextSink(TMPL, OPTIONS);
  fakeCreateCompletion('prompt', { onNewToken: (_token, piece) => sink.write(piece) });
  assert.deepEqual(sink.end(), WANT);
});

test('WebLLM engine.completions.create({ stream: true }) chunks', async () => {
  async function* fakeCompletions() {
    for (const text of TOKENS) yield { id: 'cmpl-1', object: 'text_completion', choices: [{ index: 0, text, finish_reason: null }] };
  }
  const gen = parseTextStream(fakeCompletions(), TMPL, OPTIONS);
  const deltas = [];
  let r;
  while (!(r = await gen.next()).done) deltas.push(r.value);
  assert.deepEqual(r.value, WANT);
  assert.ok(deltas.length > 3);
});

test('a stream cut inside a call: end() does not throw and says so', () => {
  const sink = createTextSink(TMPL, OPTIONS);
  sink.write('<tool_call>\n{"name": "get_weather", "arguments": {"ci');
  const message = sink.end();
  assert.equal(sink.cutInsideCall, true);
  assert.equal(message.tool_calls[0].function.name, 'get_weather');
});
