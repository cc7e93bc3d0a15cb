// The README is written for users (issue #29): installing and using the package come first, building it is in
// CONTRIBUTING.md; its package figures are the built package's (scripts/figures.mjs); the two repository
// commands are still given, in a section of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIGURES_RE, figuresLine, measure } from '../scripts/figures.mjs';
import { repoRoot } from './helpers.mjs';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);

test('README: Install and Quick start first, for users; building is in CONTRIBUTING.md', () => {
  assert.deepEqual(sections.slice(0, 3), ['Install', 'Quick start', 'Developing']);
  const forUsers = readme.slice(0, readme.indexOf('\n## Developing'));
  assert.match(forUsers, /^npm install chat-autoparser$/m);
  for (const topic of ['### Node, Bun', '### Deno', '### Browser and bundlers', '### Cloudflare Workers', '### CLI', '### SDK adapters']) {
    assert.ok(forUsers.includes(topic), `Quick start covers ${topic}`);
  }
  assert.doesNotMatch(forUsers, /cargo|rustup|npm (start|test)\b/, 'no toolchain or repository commands before "Developing"');
  assert.doesNotMatch(readme, /installable here|not tested either/, 'nothing about the machine the package was built on');
  assert.ok(readme.includes('(CONTRIBUTING.md)'));
  const contributing = readFileSync(join(repoRoot, 'CONTRIBUTING.md'), 'utf8');
  assert.match(contributing, /scripts\/setup\.sh/);
});

test('README: the two repository commands, once each, in "Developing"', () => {
  const developing = readme.slice(readme.indexOf('\n## Developing'), readme.indexOf('\n## ', readme.indexOf('\n## Developing') + 1));
  assert.match(developing, /^npm start {3}# .*127\.0\.0\.1/m);
  assert.match(developing, /^npm test {4}# /m);
  assert.equal(readme.match(/^npm (start|test) /gm).length, 2);
});

test('README: the package figures are the built package\'s (node scripts/figures.mjs --write)', () => {
  const line = readme.match(FIGURES_RE)?.[0];
  assert.ok(line, 'README has the figures line');
  const f = measure();
  const stated = [...line.matchAll(/([\d,]+) KB/g)].map((m) => Number(m[1].replaceAll(',', '')));
  const now = [f.wasm, f.wasmGzip, f.tarball, f.unpacked, f.parser, f.parserGzip, f.parserBrotli].map((n) => n / 1000);
  assert.equal(stated.length, now.length, line);
  // Within 1 KB (rounding; the README's own size moves the tarball figures by a few bytes).
  stated.forEach((kb, i) => assert.ok(Math.abs(kb - now[i]) <= 1.5, `README says ${line}\nbuilt: ${figuresLine(f)}`));
});
