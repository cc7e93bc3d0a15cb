// The package loads everywhere it claims (issue #15 item 2). Node 20.0–20.18 and 22.0–22.11 cannot
// require() an ES module; `--no-experimental-require-module` gives this Node the same limitation, so the
// CommonJS entry must be plain CommonJS all the way down. The wasm ships once, next to the browser entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';

const OLD_NODE = ['--no-experimental-require-module'];
const run = (args, code) => execFileSync(process.execPath, [...OLD_NODE, ...args, code], { cwd: repoRoot, encoding: 'utf8' }).trim();

test('require() and import work without require(esm), through the package name', () => {
  assert.equal(run(['-e'], "const c = require('chat-autoparser'); console.log(c.renderTemplate('{{ 1 }}', { messages: [] }))"), '1');
  assert.equal(run(['--input-type=module', '-e'],
    "import init, { renderTemplate, ChatAutoparserError } from 'chat-autoparser'; await init(); console.log(renderTemplate('{{ 2 }}', { messages: [] }), typeof ChatAutoparserError)"),
  '2 function');
  // CommonJS and ESM in one process share one instance (no dual-package hazard).
  assert.equal(run(['--input-type=module', '-e'],
    "import { createRequire } from 'node:module'; import { ChatTemplate } from 'chat-autoparser'; console.log(createRequire(import.meta.url)('chat-autoparser').ChatTemplate === ChatTemplate)"),
  'true');
});

test('the entries are self-contained: no ESM inside the CommonJS entry, one wasm file', () => {
  const cjs = readFileSync(join(repoRoot, 'pkg/node/chat_autoparser.js'), 'utf8');
  assert.doesNotMatch(cjs, /^\s*(import|export)\s/m);
  assert.doesNotMatch(cjs, /import\.meta/);
  assert.ok(!existsSync(join(repoRoot, 'pkg/node/snippets')) && !existsSync(join(repoRoot, 'pkg/web/snippets')));
  assert.ok(!existsSync(join(repoRoot, 'pkg/node/chat_autoparser_bg.wasm')), 'the wasm ships once, in pkg/web');
  const web = readFileSync(join(repoRoot, 'pkg/web/chat_autoparser.js'), 'utf8');
  assert.match(web, /new URL\('chat_autoparser_bg\.wasm', import\.meta\.url\)/, 'bundlers see the wasm URL pattern');
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  for (const f of ['pkg/node/', 'pkg/web/']) assert.ok(pkg.files.includes(f));
});
