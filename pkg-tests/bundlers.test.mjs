// A small browser app that imports the package by name, bundled with esbuild and with Vite (both from npm),
// runs in Debian chromium (issue #15 item 2). The package is the packed one, as installed into a fresh project
// (pkg-tests/fresh.mjs). Vite resolves the entry's `new URL('…_bg.wasm',
// import.meta.url)` itself, so a bare `await init()` works; esbuild does not rewrite that pattern, so the app
// imports the wasm's URL from `chat-autoparser/wasm` (esbuild's `file` loader) and passes it to `init`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { repoRoot } from './helpers.mjs';
import { freshProjects } from './fresh.mjs';

const CHROMIUM = '/usr/bin/chromium';
const NO_BROWSER = !existsSync(CHROMIUM) && 'no /usr/bin/chromium';
const app = join(repoRoot, 'target', 'bundle-app');

// The app: the README's browser example, plus the parts where bundling could go wrong (the wasm load,
// error classes, a streamed emoji split across chunks).
const APP = (initLine) => `import init, { renderTemplate, StreamParser, ChatAutoparserError } from 'chat-autoparser';
${initLine}
const p = new StreamParser('{% for m in messages %}{{ m.content }}{% endfor %}');
p.push('hi \\ud83d');
p.push('\\ude00');
p.finish();
let kind = '';
try { renderTemplate(42, {}); } catch (e) { kind = e instanceof ChatAutoparserError ? e.kind : 'not ours'; }
document.title = 'done';
window.result = [renderTemplate('{{ 6 * 7 }}', { messages: [] }), p.message.content, kind].join('|');
`;
const EXPECTED = '42|hi 😀|InvalidInput';

let server;
let browser;
let base;

function serve(root) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  return createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    const file = path.endsWith('/') ? join(path, 'index.html') : path;
    if (!file.startsWith(root) || !existsSync(file)) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
}

before(async () => {
  if (NO_BROWSER) return;
  rmSync(app, { recursive: true, force: true });
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  symlinkSync(join((await freshProjects()).dir('core'), 'node_modules', 'chat-autoparser'), join(app, 'node_modules', 'chat-autoparser'), 'dir');
  // esbuild: the wasm URL comes from the `./wasm` export through the file loader.
  mkdirSync(join(app, 'esbuild-src'));
  writeFileSync(join(app, 'esbuild-src', 'main.js'), APP("import wasmUrl from 'chat-autoparser/wasm';\nawait init(wasmUrl);"));
  // The esbuild API (its binary is the platform package's; npm may keep the JS shim or the binary in bin/).
  const { buildSync } = await import('esbuild');
  buildSync({ entryPoints: [join(app, 'esbuild-src', 'main.js')], bundle: true, format: 'esm', platform: 'browser',
    loader: { '.wasm': 'file' }, outdir: join(app, 'dist', 'esbuild'), logLevel: 'warning', absWorkingDir: app });
  writeFileSync(join(app, 'dist', 'esbuild', 'index.html'), '<!doctype html><script type="module" src="main.js"></script>');
  // Vite: a bare `await init()`.
  mkdirSync(join(app, 'vite-src'));
  writeFileSync(join(app, 'vite-src', 'main.js'), APP('await init();'));
  writeFileSync(join(app, 'vite-src', 'index.html'), '<!doctype html><script type="module" src="./main.js"></script>');
  await build({ root: join(app, 'vite-src'), base: '/vite/', logLevel: 'warn', configFile: false,
    build: { outDir: join(app, 'dist', 'vite'), target: 'esnext', emptyOutDir: true } });
  server = serve(join(app, 'dist'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chr-')), {
    executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

for (const bundler of ['esbuild', 'vite']) {
  test(`a ${bundler} bundle runs in chromium`, { skip: NO_BROWSER }, async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${base}${bundler}/`);
    await page.waitForFunction(() => window.result !== undefined || document.title === 'failed', null, { timeout: 20000 })
      .catch(() => assert.fail(`no result; page errors: ${errors.join('; ')}`));
    assert.equal(await page.evaluate(() => window.result), EXPECTED, errors.join('; '));
    await page.close();
  });
}
