// Every offset the JS API reports is a UTF-16 index into the JS string the user passed (issue #15 item 4):
// diagnostics, err.offset, checkGrammar's errorAt, template error columns. And parseOutput can return the
// diagnostics (item 5). Each check puts non-ASCII text (2-, 3- and 4-byte UTF-8) before the position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatTemplate, StreamParser, parseOutput, checkGrammar } from '../pkg/node/index.mjs';
import { templateSource } from './helpers.mjs';

const HERMES = templateSource('NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja');
const WEATHER = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
const WIDE = 'é€😀 ';   // 2 + 3 + 4 + 1 bytes, 1 + 1 + 2 + 1 UTF-16 units

test('err.offset of a truncated call is a UTF-16 index', () => {
  const call = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Par';
  const offsetOf = (text) => {
    try { parseOutput(HERMES, text, { tools: WEATHER }); } catch (e) { assert.equal(e.kind, 'Parse'); return e.offset; }
    assert.fail('expected a Parse error');
  };
  const ascii = offsetOf(`Hi ${call}`);
  const wide = offsetOf(`Hi ${WIDE}${call}`);
  assert.equal(wide - ascii, WIDE.length);
  // The same offset from a stream whose chunks split the wide characters.
  const p = new StreamParser(HERMES, { tools: WEATHER });
  const text = `Hi ${WIDE}${call}`;
  for (let i = 0; i < text.length; i += 3) p.push(text.slice(i, i + 3));
  assert.throws(() => p.finish(), (e) => e.kind === 'Parse' && e.offset === wide);
});

test('diagnostics offsets are UTF-16 indexes; parseOutput returns them with { diagnostics: true }', () => {
  const bad = '<tool_call>{"name": "nope", "arguments": {]}</tool_call> after';
  const diagnosticsOf = (text) => {
    const { message, diagnostics } = parseOutput(HERMES, text, { tools: WEATHER, isPartial: true, diagnostics: true });
    assert.deepEqual(message, parseOutput(HERMES, text, { tools: WEATHER, isPartial: true }), 'same message as without diagnostics');
    const p = new StreamParser(HERMES, { tools: WEATHER, isPartial: true });
    for (const unit of text.split('')) p.push(unit);
    p.finish();
    assert.deepEqual(p.diagnostics, diagnostics, 'the stream reports the same diagnostics');
    return diagnostics;
  };
  const ascii = diagnosticsOf(`before ${bad}`);
  const wide = diagnosticsOf(`before ${WIDE.repeat(3)}${bad}`);
  assert.ok(ascii.length > 0, 'malformed output is diagnosed');
  assert.deepEqual(wide.map((d) => d.offset - 3 * WIDE.length), ascii.map((d) => d.offset));
  assert.throws(() => parseOutput(HERMES, 'x', { diagnostics: 'yes' }), (e) => e.kind === 'InvalidInput' && /diagnostics/.test(e.message));
  assert.equal(typeof parseOutput(HERMES, 'x', { diagnostics: false }).role, 'string', 'diagnostics: false keeps the plain shape');
});

test('checkGrammar errorAt is a UTF-16 index', () => {
  const g = 'root ::= "h\u00e9llo\u{1F600}" "x"';
  assert.deepEqual(checkGrammar(g, 'h\u00e9llo\u{1F600}x'), { accepted: true });
  const r = checkGrammar(g, 'h\u00e9llo\u{1F600}y');
  assert.equal(r.accepted, false);
  assert.equal(r.errorAt, 'h\u00e9llo\u{1F600}'.length);
});

test('template error columns count UTF-16 units', () => {
  const columnOf = (src) => {
    try { new ChatTemplate(src); } catch (e) { assert.equal(e.kind, 'TemplateSyntax'); return e.column; }
    assert.fail('expected a syntax error');
  };
  const ascii = columnOf('{{ "ab" + }}');
  const wide = columnOf('{{ "\u{1F600}\u{1F600}" + }}');
  assert.equal(wide - ascii, 2, 'two astral characters are four UTF-16 units, two more than "ab"');
});
