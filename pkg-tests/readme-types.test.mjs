// Every ```js and ```ts code block of the README type-checks under `tsc --strict` against the shipped declarations,
// as a TypeScript user would paste it. Each block becomes a module: its imports stay on top, the rest runs in
// an async function; the variables the README leaves to the reader are declared with the package's types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot } from './helpers.mjs';

// What the README's snippets use without defining (a snippet's own declaration shadows these). Node's types
// come from @types/node (the AI SDK's declarations need them too); engines are the reader's own objects.
const PRELUDE = `import type { ChatMessage as __Message, Tool as __Tool, ChatTemplate as __Template } from 'chat-autoparser';
declare const source: string, templateSource: string, modelText: string, templateUrl: string;
declare const messages: __Message[], tools: __Tool[];
declare const tmpl: __Template, modelTexts: string[], server: string, prompt: string;
declare function send(chunk: unknown): void;
declare function render(delta: unknown): void;
declare const generator: any, TextStreamer: any, engine: any;
declare const wllama: { createCompletion(prompt: string, o: { nPredict: number, onNewToken: (token: number, piece: Uint8Array) => void }): Promise<string> };
declare const rawTextModel: import('@ai-sdk/provider').LanguageModelV4;
declare const weatherTool: import('ai').Tool;
`;

test('the README\'s JavaScript examples compile under tsc --strict', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```(?:js|ts)\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length >= 3, 'the README has its JavaScript examples');
  const dir = join(repoRoot, 'target', 'readme-types');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((code, i) => {
    const lines = code.split('\n');
    const imports = lines.filter((l) => /^import\b/.test(l));
    // A module's default export (a Workers handler) is checked as a value.
    const body = lines.filter((l) => !/^import\b/.test(l)).map((l) => l.replace(/^export default /, 'const defaultExport = '));
    const name = `readme-${i + 1}.ts`;
    writeFileSync(join(dir, name), `${imports.join('\n')}\n${PRELUDE}\nexport async function example(): Promise<void> {\n${body.join('\n')}\n}\n`);
    return name;
  });
  // Node (NodeNext: the `node` + `import` conditions) and a browser bundler (the `browser` condition).
  const setups = {
    'tsconfig.node.json': { module: 'NodeNext', moduleResolution: 'NodeNext' },
    'tsconfig.browser.json': { module: 'ESNext', moduleResolution: 'Bundler', customConditions: ['browser'] },
  };
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const [config, resolution] of Object.entries(setups)) {
    writeFileSync(join(dir, config), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', ...resolution,
        lib: ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'], types: ['node'], skipLibCheck: false,
      },
      files,
    }));
    let out = '';
    try { execFileSync(process.execPath, [tsc, '-p', join(dir, config)], { encoding: 'utf8' }); } catch (e) { out = `${e.stdout}${e.stderr}`; }
    assert.equal(out, '', `tsc --strict over the README examples (${join(dir, config)}):\n${out}`);
  }
  console.log(`README examples type-checked: ${files.length} blocks, Node and browser resolution`);
});
