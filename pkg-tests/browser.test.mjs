// The playground in a real browser: Debian chromium driven by playwright-core. Panels whose API is not in
// the build yet are skipped by a `typeof` check of the export, so they run as soon as it lands.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import * as api from 'chat-autoparser';
import { startServer } from '../scripts/serve.mjs';
import { repoRoot } from './helpers.mjs';

const CHROMIUM = '/usr/bin/chromium';
const NO_BROWSER = !existsSync(CHROMIUM) && 'no /usr/bin/chromium';
/** Skip reason when any of `names` is not a function export of this build. */
const needs = (...names) => {
  const missing = names.filter((n) => typeof api[n] !== 'function');
  return NO_BROWSER || (missing.length ? `${missing.join(', ')} not in this build yet` : false);
};

const HERMES = readFileSync(join(repoRoot, 'www', 'samples', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja'), 'utf8');
const TOOL_OUTPUT = '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>';
const shot = (name) => join(repoRoot, 'target', `shot-${name}.png`);

let server;
let browser;
let url;

before(async () => {
  if (NO_BROWSER) return;
  mkdirSync(join(repoRoot, 'target'), { recursive: true });
  server = await startServer(0);
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chr-')), {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** A fresh page on the playground; `errors` collects page errors and console errors. */
async function open(viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage();
  await page.setViewportSize(viewport);
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(url);
  // The default template is analysed once the worker is up.
  await page.waitForFunction(() => window.playground?.firstAnalysisMs !== null && window.playground?.firstAnalysisMs !== undefined,
    null, { timeout: 20000 });
  return { page, errors };
}

/** Paste a template and wait until its analysis (or its error) is shown. */
async function pasteTemplate(page, source) {
  const before = await page.evaluate(() => window.playground.seq.analyze);
  await page.locator('#template').fill(source);
  await page.waitForFunction((n) => window.playground.seq.analyze > n && !document.querySelector('#status.busy'), before, { timeout: 20000 });
  // The request-dependent panels follow the analysis; wait for the grammar/verify round to settle.
  await page.waitForFunction(() => !document.querySelector('#verify')?.textContent.includes('running…'), null, { timeout: 20000 });
}

async function pasteOutput(page, text) {
  await page.locator('#output').fill(text);
  await page.waitForTimeout(400); // the output box is debounced
}

test('default template: prompt, capabilities and first analysis within a second', { skip: NO_BROWSER }, async () => {
  const { page, errors } = await open();
  const ms = await page.evaluate(() => window.playground.firstAnalysisMs);
  console.log(`first analysis of the default template shown ${ms.toFixed(0)} ms after the page script started`);
  assert.ok(ms < 1000, `first analysis took ${ms} ms`);
  await page.waitForFunction(() => document.querySelector('#prompt').textContent.length > 0, null, { timeout: 10000 });
  assert.match(await page.locator('#prompt').textContent(), /<\|im_start\|>user\nWhat's the weather in Paris\?<\|im_end\|>/);
  assert.ok(await page.locator('#caps .chip').count() >= 4, 'capability chips shown');
  assert.match(await page.locator('#status').textContent(), /ready|analysed/);
  // The output box was filled from the template's own fixtures.
  await page.waitForFunction(() => document.querySelector('#output').value.length > 0, null, { timeout: 10000 });
  await page.screenshot({ path: shot('1280-default'), fullPage: false });
  await page.setViewportSize({ width: 420, height: 900 });
  await page.screenshot({ path: shot('420-default'), fullPage: false });
  await page.screenshot({ path: shot('420-full'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 420, `narrow window overflows horizontally: ${overflow}px`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('template errors show inline with their location', { skip: NO_BROWSER }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, 'hello\n{% if %}\n');
  const box = page.locator('#template-error');
  assert.ok(await box.isVisible());
  const text = await box.textContent();
  assert.match(text, /TemplateSyntax/);
  assert.match(text, /line 2/);
  await page.screenshot({ path: shot('template-error') });
  await pasteTemplate(page, HERMES);
  assert.equal(await box.isVisible(), false, 'error cleared once the template is fixed');
  // Invalid tools JSON is reported with its position, and the grammar/verify panels say why they wait.
  await page.locator('#tools').fill('[\n  {"type": "function",\n}]');
  await page.waitForTimeout(500);
  assert.ok(await page.locator('#tools-error').isVisible());
  assert.match(await page.locator('#tools-error').textContent(), /Tools JSON: .*line 3/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a slow analysis runs in the worker: the page keeps painting', { skip: NO_BROWSER }, async () => {
  const { page, errors } = await open();
  // ~90k loop iterations per render: the analysis (dozens of renders) takes about a second.
  const heavy = `{%- for i in range(90000) %}{%- endfor %}${readFileSync(join(repoRoot, 'www', 'samples', 'openai-gpt-oss-120b.jinja'), 'utf8')}`;
  await page.evaluate(() => {
    window.__maxGap = 0;
    let last = performance.now();
    const tick = (t) => { window.__maxGap = Math.max(window.__maxGap, t - last); last = t; window.__raf = requestAnimationFrame(tick); };
    window.__raf = requestAnimationFrame(tick);
  });
  // Set the value the way a paste does (playwright's fill types it, which itself blocks for a while).
  const t0 = Date.now();
  const before = await page.evaluate(() => window.playground.seq.analyze);
  await page.evaluate((src) => {
    const ta = document.querySelector('#template');
    ta.value = src;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }, heavy);
  await page.waitForFunction((n) => window.playground.seq.analyze > n && !document.querySelector('#status.busy'), before, { timeout: 20000 });
  const took = Date.now() - t0;
  const gap = await page.evaluate(() => { cancelAnimationFrame(window.__raf); return window.__maxGap; });
  console.log(`slow template: results after ${took} ms, longest frame gap on the page ${gap.toFixed(0)} ms`);
  assert.ok(gap < 250, `the main thread was blocked for ${gap} ms`);
  assert.equal(await page.locator('#template-error').isVisible(), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('output can be generated from the template fixtures', { skip: NO_BROWSER }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  const options = await page.locator('#fixture option').count();
  assert.ok(options > 1, 'fixture menu has entries');
  await page.locator('#fixture').selectOption({ index: 1 });
  assert.ok((await page.locator('#output').inputValue()).length > 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('analysis: handler, modes and the markers table with visible whitespace', { skip: needs('analyzeTemplate') }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  await page.locator('#markers').waitFor({ timeout: 10000 });
  const markers = await page.locator('#markers').textContent();
  assert.match(markers, /<tool_call>/);
  assert.match(markers, /<\/tool_call>/);
  assert.ok(await page.locator('#markers .ws').count() > 0, 'whitespace inside markers is made visible');
  assert.match(await page.locator('#handler').textContent(), /autoparser/);
  assert.match(await page.locator('#modes').textContent(), /TAG_WITH_JSON|JSON_NATIVE/);
  await page.screenshot({ path: shot('analysis') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('diff splits: every comparison with coloured prefix/left/right/suffix', { skip: needs('analyzeTemplate') }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  await page.locator('[data-tab=diffs]').click();
  const items = page.locator('.diff-item');
  assert.ok(await items.count() > 3, 'diffs listed');
  assert.ok(await page.locator('.diff-item .d-right').count() > 0);
  assert.ok(await page.locator('.diff-item .d-left').count() > 0);
  const changed = await page.evaluate(() => [...document.querySelectorAll('.d-right')].some((e) => e.textContent.includes('tool_call')));
  assert.ok(changed, 'some comparison shows the tool-call markers on the right');
  await page.locator('.diff-item button').first().click(); // expand the whole prefix/suffix
  await page.screenshot({ path: shot('diffs') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('grammar: GBNF, triggers, and acceptance of the sample output', { skip: needs('buildGrammar', 'checkGrammar') }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  await pasteOutput(page, TOOL_OUTPUT);
  await page.locator('[data-tab=grammar]').click();
  assert.match(await page.locator('#gbnf').textContent(), /root\s*::=/);
  assert.match(await page.locator('#accept').textContent(), /accepted/);
  await pasteOutput(page, TOOL_OUTPUT.replace('"arguments"', '"argz"'));
  await page.locator('#accept .g-bad').waitFor({ timeout: 15000 });
  assert.match(await page.locator('#accept').textContent(), /rejected/);
  await page.screenshot({ path: shot('grammar') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('live parse: the stream runs to the end and gives the tool call', { skip: needs('StreamParser') }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  await pasteOutput(page, TOOL_OUTPUT);
  await page.locator('[data-tab=live]').click();
  await page.locator('#chunk').fill('3');
  await page.locator('#chunk').dispatchEvent('change');
  await page.locator('#delay').fill('0');
  await page.locator('#step').click();
  await page.locator('#step').click();
  await page.waitForFunction(() => /^2\//.test(document.querySelector('#progress').textContent), null, { timeout: 15000 });
  await page.locator('#play').click();
  await page.waitForFunction(() => document.querySelector('#progress').textContent.startsWith('done'), null, { timeout: 20000 });
  const final = JSON.parse(await page.locator('#final-json').textContent());
  assert.equal(final.role, 'assistant');
  assert.equal(final.tool_calls?.[0]?.function?.name, 'get_weather');
  assert.deepEqual(JSON.parse(final.tool_calls[0].function.arguments), { location: 'Paris' });
  assert.match(await page.locator('#live-tools').textContent(), /get_weather/);
  assert.ok(await page.locator('#live-log li').count() > 0);
  await page.screenshot({ path: shot('live') });
  await page.setViewportSize({ width: 420, height: 900 });
  await page.locator('#tab-live').scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot('420-live') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('verify: the round-trip self-test', { skip: needs('verifyTemplate') }, async () => {
  const { page, errors } = await open();
  await pasteTemplate(page, HERMES);
  await page.locator('[data-tab=verify]').click();
  await page.waitForFunction(() => /round-trips ok/.test(document.querySelector('#verify-summary').textContent), null, { timeout: 20000 });
  assert.ok(await page.locator('.verify-item').count() > 0);
  await page.screenshot({ path: shot('verify') });
  assert.deepEqual(errors, []);
  await page.close();
});
