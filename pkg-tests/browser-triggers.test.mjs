// The playground's lazy-grammar start (www/triggers.js), which decides what part of an output it checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grammarStart, byteLength } from '../www/triggers.js';

const lazy = (...triggers) => ({ lazy: true, triggers });

test('a non-lazy grammar applies from the start', () => {
  assert.equal(grammarStart({ lazy: false, triggers: [] }, 'abc').start, 0);
});

test('word triggers: the earliest occurrence wins; none means the grammar never activates', () => {
  const g = lazy({ type: 'word', value: '<b>' }, { type: 'word', value: '<a>' });
  assert.equal(grammarStart(g, 'xx<a>y<b>').start, 2);
  assert.equal(grammarStart(g, 'plain text').start, -1);
});

test('patterns start at their first group; `$` and full patterns are tested on prefixes', () => {
  assert.equal(grammarStart(lazy({ type: 'pattern', value: 'S(\\s+to)' }), 'abcS to=f').start, 4);
  assert.equal(grammarStart(lazy({ type: 'pattern', value: '^\\s+to$' }), ' to=functions.x').start, 0);
  assert.equal(grammarStart(lazy({ type: 'pattern', value: 'a\\$' }), 'xa$').start, 1);
  const full = lazy({ type: 'pattern_full', value: '\\s*(\\{[\\s\\S]*"name")' });
  assert.equal(grammarStart(full, '  {"name": 1}').start, 2);
  assert.equal(grammarStart(full, 'hi {"name": 1}').start, -1);
});

test('a pattern JS cannot compile is reported, not thrown', () => {
  const r = grammarStart(lazy({ type: 'pattern', value: '(?<' }), 'x');
  assert.equal(r.start, -1);
  assert.equal(r.errors.length, 1);
});

test('byte lengths count UTF-8', () => {
  assert.equal(byteLength('a｜é'), 1 + 3 + 2);
});

test('a tool call inside a closed reasoning block does not fire the trigger', () => {
  const g = { lazy: true, triggers: [{ type: 'word', value: '<tool_call>' }], reasoningStart: '<think>', reasoningEnd: '</think>' };
  const text = '<think>maybe <tool_call>{"name": "x"}</tool_call>?</think>Answer <tool_call>{"name": "f"}';
  assert.equal(grammarStart(g, text).start, text.lastIndexOf('<tool_call>'));
  const noThink = { ...g, reasoningStart: '', reasoningEnd: '' };
  assert.equal(grammarStart(noThink, text).start, text.indexOf('<tool_call>'));
});
