// The playground in a real browser: Debian chromium driven by playwright-core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';
import { repoRoot } from './helpers.mjs';

const CHROMIUM = '/usr/bin/chromium';

export async function withPage(fn) {
  const server = await startServer(0);
  const { port } = server.address();
  const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chr-')), {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  try {
    const page = ctx.pages()[0] ?? await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await fn(page, `http://127.0.0.1:${port}/`, errors);
  } finally {
    await ctx.close();
    server.close();
  }
}

test('playground renders the default template in chromium', { skip: !existsSync(CHROMIUM) && 'no /usr/bin/chromium' }, async () => {
  await withPage(async (page, url, errors) => {
    await page.goto(url);
    await page.locator('#render:not([disabled])').waitFor({ timeout: 15000 });
    await page.waitForFunction(() => document.querySelector('#out').textContent.length > 0, null, { timeout: 15000 });
    const out = await page.locator('#out').textContent();
    assert.match(out, /<\|im_start\|>user\nWhat's the weather in Paris\?<\|im_end\|>/);
    await page.locator('#template').fill('{% if %}');
    await page.locator('#render').click();
    assert.match(await page.locator('#error').textContent(), /TemplateSyntax|syntax/);
    await page.screenshot({ path: join(repoRoot, 'target', 'shot-render.png') });
    assert.deepEqual(errors, []);
  });
});
