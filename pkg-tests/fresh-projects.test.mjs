// The packed package in fresh projects, used only as the README says (issue #29): what `npm pack` ships; Node ESM
// and CommonJS (also without require(esm)); `npx chat-autoparser`; strict TypeScript for the core and the adapters
// with ai 6, ai 7 or no AI SDK installed; the AI SDK middleware under ai 6 and ai 7; openai-node's accumulator;
// Bun; Deno without permission flags; Cloudflare Workers bundled by wrangler with its defaults and run in workerd
// (miniflare). Bundlers in chromium: pkg-tests/bundlers.test.mjs, over the same install. The runtimes and
// tools are the repository's devDependencies; the projects install only the tarball and the SDKs a user would.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOutput } from 'chat-autoparser';
import { freshProjects } from './fresh.mjs';
import { repoRoot, templateSource } from './helpers.mjs';

const BIN = join(repoRoot, 'node_modules', '.bin');
const TEMPLATE = 'Qwen-Qwen3-0.6B.jinja';
const OUTPUT = '<think>\nThe user wants the weather.\n</think>\n\nLet me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const WANT = parseOutput(templateSource(TEMPLATE), OUTPUT, { tools: TOOLS });

let fresh;

/** Run a command; returns stdout, or fails the test with everything it printed. */
function run(file, args, cwd, { input, env } = {}) {
  const r = spawnSync(file, args, { cwd, input, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) assert.fail(`${file} ${args.join(' ')} (in ${cwd}) exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** A command's exit status and everything it printed, without blocking the event loop. */
function runAsync(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b) => { output += b; });
    child.stderr.on('data', (b) => { output += b; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The check every runtime runs: the core API on the template, as JSON. */
const CHECK = (importLine) => `${importLine}
const source = ${JSON.stringify(templateSource(TEMPLATE))};
const tools = ${JSON.stringify(TOOLS)};
const parser = new StreamParser(source, { tools });
for (const piece of ${JSON.stringify(OUTPUT)}.match(/[\\s\\S]{1,5}/g)) parser.push(piece);
parser.finish();
let kind;
try { new ChatTemplate('{% if %}'); } catch (e) { kind = e instanceof ChatAutoparserError && e instanceof Error ? e.kind : 'not ours'; }
console.log(JSON.stringify({ message: parser.message, finishReason: parser.finishReason, kind }));
`;
const checked = (stdout) => {
  const got = JSON.parse(stdout.trim().split('\n').at(-1));
  assert.deepEqual(got, { message: WANT, finishReason: 'tool_calls', kind: 'TemplateSyntax' });
};

before(async () => {
  fresh = await freshProjects();
  console.log(`fresh projects: ${fresh.seconds ? `packed and installed in ${fresh.seconds.toFixed(1)} s` : 'reused (same package content)'}`);
});

test('npm pack ships what a user needs and nothing else', () => {
  const paths = fresh.files.map((f) => f.path).sort();
  assert.deepEqual(paths, [
    'LICENSE', 'README.md',
    'adapters/ai-sdk.d.ts', 'adapters/ai-sdk.mjs', 'adapters/engines.d.ts', 'adapters/engines.mjs', 'adapters/finish.mjs',
    'adapters/openai.d.ts', 'adapters/openai.mjs',
    'bin/chat-autoparser.mjs',
    'package.json',
    'pkg/node/chat_autoparser.d.ts', 'pkg/node/chat_autoparser.js', 'pkg/node/index.d.mts', 'pkg/node/index.mjs', 'pkg/node/package.json',
    'pkg/parser/node/chat_autoparser_parser.d.ts', 'pkg/parser/node/chat_autoparser_parser.js', 'pkg/parser/node/index.d.mts',
    'pkg/parser/node/index.mjs', 'pkg/parser/node/package.json',
    'pkg/parser/web/chat_autoparser_parser.d.ts', 'pkg/parser/web/chat_autoparser_parser.js', 'pkg/parser/web/chat_autoparser_parser_bg.wasm',
    'pkg/parser/web/package.json',
    'pkg/web/chat_autoparser.d.ts', 'pkg/web/chat_autoparser.js', 'pkg/web/chat_autoparser_bg.wasm', 'pkg/web/deno.js', 'pkg/web/package.json',
    'pkg/web/wasm.d.ts', 'pkg/web/workerd.js',
  ]);
  // Every export and the bin point into the tarball.
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const targets = new Set([pkg.main, pkg.types, ...Object.values(pkg.bin), ...JSON.stringify(pkg.exports).match(/"\.\/[^"]+"/g).map((s) => JSON.parse(s))]
    .filter((t) => t.startsWith('./') && !t.endsWith('/')).map((t) => t.slice(2)).filter((t) => !Object.hasOwn(pkg.exports, `./${t}`)));
  for (const t of targets) assert.ok(paths.includes(t) || t === 'package.json', `${t} is exported but not packed`);
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(join(repoRoot, 'LICENSE'), 'utf8'), /^MIT License/);
  const cargo = readFileSync(join(repoRoot, 'Cargo.toml'), 'utf8').match(/^repository = "(.*)"$/m)[1];
  assert.equal(pkg.repository.url, cargo, 'package.json and Cargo.toml name the same repository');
  assert.ok(pkg.homepage && pkg.bugs?.url);
  for (const peer of ['ai', '@ai-sdk/provider']) assert.equal(pkg.peerDependenciesMeta[peer]?.optional, true, `${peer}: optional peer`);
});

test('Node: ESM and CommonJS (also without require(esm)), the web entry\'s init() in Node says what to do', () => {
  const dir = fresh.dir('core');
  writeFileSync(join(dir, 'check.mjs'), CHECK("import init, { ChatTemplate, StreamParser, ChatAutoparserError } from 'chat-autoparser';\nawait init();"));
  writeFileSync(join(dir, 'check.cjs'), CHECK("const { ChatTemplate, StreamParser, ChatAutoparserError } = require('chat-autoparser');"));
  checked(run(process.execPath, ['check.mjs'], dir));
  checked(run(process.execPath, ['check.cjs'], dir));
  checked(run(process.execPath, ['--no-experimental-require-module', 'check.cjs'], dir));
  writeFileSync(join(dir, 'web-in-node.mjs'), `import init, { ChatAutoparserError } from 'chat-autoparser/web';
try { await init(); } catch (e) { console.log(JSON.stringify({ ours: e instanceof ChatAutoparserError, kind: e.kind, message: e.message })); }`);
  const err = JSON.parse(run(process.execPath, ['web-in-node.mjs'], dir));
  assert.equal(err.ours, true);
  assert.equal(err.kind, 'Load');
  assert.match(err.message, /fetch\(\) cannot read a file: URL here \(Node\): in Node import 'chat-autoparser'/);
});

test('npx chat-autoparser: --help and a command of each kind', () => {
  const dir = fresh.dir('core');
  writeFileSync(join(dir, 'template.jinja'), templateSource(TEMPLATE));
  writeFileSync(join(dir, 'tools.json'), JSON.stringify(TOOLS));
  const npx = (args, input) => run('npx', ['chat-autoparser', ...args], dir, { input });
  assert.match(npx(['--help']), /chat-autoparser analyze FILE\.jinja/);
  assert.match(npx(['analyze', 'template.jinja']), /^tools: {5}JSON_NATIVE$/m);
  assert.match(npx(['render', 'template.jinja']), /<\|im_start\|>user\nHello<\|im_end\|>\n<\|im_start\|>assistant\n$/);
  const streamed = npx(['parse', 'template.jinja', '--tools', 'tools.json', '--stream', '8'], OUTPUT).trim().split('\n');
  assert.ok(streamed.some((l) => l.startsWith('{"tool_calls":')), 'deltas as JSON lines');
  const { finishReason: _, ...message } = WANT;
  assert.deepEqual(JSON.parse(streamed.slice(streamed.indexOf('{')).join('\n')), message);
  assert.match(npx(['grammar', 'template.jinja', '--tools', 'tools.json']), /^root ::= /m);
  assert.match(npx(['verify', 'template.jinja']), /^verified: {2}true/m);
  assert.equal(JSON.parse(npx(['response-template', 'template.jinja'])).start_anchor, '<|im_start|>assistant', 'a response_template');
});

test('strict TypeScript: core and adapters with no AI SDK, with ai 6, with ai 7', async () => {
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const config = { compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'], types: ['node'] }, files: ['check.ts'] };
  const core = `import init, { ChatTemplate, StreamParser, parseOutput, ChatAutoparserError, type FinishReason } from 'chat-autoparser';
import { ChatCompletionChunker, accumulateReasoning } from 'chat-autoparser/openai';
import { createTextSink } from 'chat-autoparser/engines';
import { chatAutoparserMiddleware, type ChatAutoparserMiddleware } from 'chat-autoparser/ai-sdk';
export async function main(source: string): Promise<FinishReason | null> {
  await init();
  const parser = new StreamParser(new ChatTemplate(source), { tools: [] });
  parser.push('hi');
  parser.finish();
  const reason: FinishReason | undefined = parseOutput(source, 'hi').finishReason;
  const chunks = new ChatCompletionChunker(source).finish();
  const sink = createTextSink(source);
  const mw: ChatAutoparserMiddleware = chatAutoparserMiddleware({ template: source, options: (p) => ({ enableThinking: p.maxOutputTokens !== 1 }) });
  void [reason, chunks, sink, mw, accumulateReasoning, ChatAutoparserError];
  return parser.finishReason;
}
`;
  const withSdk = (v) => `import { wrapLanguageModel, streamText, generateText } from 'ai';
import type { LanguageModel${v} } from '@ai-sdk/provider';
import { chatAutoparserMiddleware } from 'chat-autoparser/ai-sdk';
declare const raw: LanguageModel${v};
const model = wrapLanguageModel({ model: raw, middleware: chatAutoparserMiddleware({ template: 'x', options: (p) => ({ enableThinking: p.maxOutputTokens !== 1 }) }) });
void streamText({ model, prompt: 'hi' });
void generateText({ model: wrapLanguageModel({ model: raw, middleware: [chatAutoparserMiddleware({ template: 'x' })] }), prompt: 'hi' });
`;
  const openai = `import OpenAI from 'openai';
import { accumulateReasoning } from 'chat-autoparser/openai';
const client = new OpenAI({ apiKey: 'x', baseURL: 'http://127.0.0.1:1/v1' });
export const reasoning = async () => (await accumulateReasoning(client.chat.completions.stream({ model: 'm', messages: [] })).finalMessage()) as { reasoning_content?: string };
`;
  // The three compile at once (the SDKs' declarations make each one take a while without skipLibCheck).
  await Promise.all([['core', core], ['ai6', withSdk('V3')], ['ai7', withSdk('V4') + openai]].map(async ([name, code]) => {
    const dir = fresh.dir(name);
    writeFileSync(join(dir, 'check.ts'), code);
    // ai 7 + openai: also every adapter export against the SDKs' own types (pkg-tests/types/adapters.ts).
    const files = name === 'ai7' ? ['check.ts', 'adapters.ts'] : ['check.ts'];
    if (name === 'ai7') writeFileSync(join(dir, 'adapters.ts'), readFileSync(join(repoRoot, 'pkg-tests', 'types', 'adapters.ts')));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...config, files }));
    const { output } = await runAsync(process.execPath, [tsc, '-p', dir]);
    assert.equal(output, '', `tsc --strict in the ${name} project`);
  }));
});

// The middleware under each AI SDK generation: streamText and generateText over a mock raw-text model.
const SDK_CHECK = (mock) => `import { wrapLanguageModel, streamText, generateText, jsonSchema, tool } from 'ai';
import { ${mock}, convertArrayToReadableStream } from 'ai/test';
import { chatAutoparserMiddleware } from 'chat-autoparser/ai-sdk';
const template = ${JSON.stringify(templateSource(TEMPLATE))};
const text = ${JSON.stringify(OUTPUT)};
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const finishReason = { unified: 'stop', raw: 'stop' };
const raw = new ${mock}({
  doStream: async () => ({ stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, { type: 'text-start', id: 't' },
    ...text.match(/[\\s\\S]{1,4}/g).map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }, { type: 'finish', finishReason, usage }]) }),
  doGenerate: async () => ({ content: [{ type: 'text', text }], finishReason, usage, warnings: [] }),
});
const model = wrapLanguageModel({ model: raw, middleware: chatAutoparserMiddleware({ template }) });
const tools = { get_weather: tool({ inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }) }) };
const s = streamText({ model, tools, prompt: 'Weather in Paris?' });
const g = await generateText({ model, tools, prompt: 'Weather in Paris?' });
const calls = (cs) => cs.map((c) => [c.toolName, c.input]);
console.log(JSON.stringify({
  stream: { reasoning: await s.reasoningText, text: await s.text, calls: calls(await s.toolCalls), finishReason: await s.finishReason },
  generate: { reasoning: g.reasoningText, text: g.text, calls: calls(g.toolCalls), finishReason: g.finishReason },
}));
`;

for (const [name, mock] of [['ai6', 'MockLanguageModelV3'], ['ai7', 'MockLanguageModelV4']]) {
  test(`AI SDK ${name === 'ai6' ? '6' : '7'}: the middleware turns raw text into reasoning, text and tool calls (streamText, generateText)`, () => {
    const dir = fresh.dir(name);
    writeFileSync(join(dir, 'sdk.mjs'), SDK_CHECK(mock));
    const got = JSON.parse(run(process.execPath, ['sdk.mjs'], dir));
    const want = { reasoning: WANT.reasoning_content, text: WANT.content, calls: [['get_weather', { city: 'Paris' }]], finishReason: 'tool-calls' };
    assert.deepEqual(got, { stream: want, generate: want });
  });
}

test('openai-node: ChatCompletionStream over our chunks, with the whole reasoning through accumulateReasoning', () => {
  const dir = fresh.dir('ai7');
  writeFileSync(join(dir, 'openai.mjs'), `import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { ChatCompletionChunker, accumulateReasoning } from 'chat-autoparser/openai';
const chunker = new ChatCompletionChunker(${JSON.stringify(templateSource(TEMPLATE))}, { tools: ${JSON.stringify(TOOLS)} }, { id: 'c1', model: 'm' });
const chunks = [...${JSON.stringify(OUTPUT)}.match(/[\\s\\S]{1,3}/g).flatMap((t) => chunker.push(t)), ...chunker.finish()];
const body = (chunks) => new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(chunks.map((k) => JSON.stringify(k) + '\\n').join(''))); c.close(); } });
const whole = await accumulateReasoning(ChatCompletionStream.fromReadableStream(body(chunks))).finalChatCompletion();
const bare = await ChatCompletionStream.fromReadableStream(body(chunks)).finalChatCompletion();
console.log(JSON.stringify({ choice: whole.choices[0], bare: bare.choices[0].message.reasoning_content }));`);
  const { choice, bare } = JSON.parse(run(process.execPath, ['openai.mjs'], dir));
  assert.equal(choice.finish_reason, 'tool_calls');
  assert.equal(choice.message.content, WANT.content);
  assert.equal(choice.message.reasoning_content, WANT.reasoning_content);
  assert.deepEqual(choice.message.tool_calls.map((c) => [c.id, c.function]), WANT.tool_calls.map((c) => [c.id, c.function]));
  assert.notEqual(bare, WANT.reasoning_content, 'openai-node alone keeps only the last reasoning delta');
});

test('Bun: ESM and CommonJS', () => {
  const dir = fresh.dir('core');
  const env = { BUN_INSTALL_CACHE_DIR: join(dir, '.bun-cache'), DO_NOT_TRACK: '1' };
  checked(run(join(BIN, 'bun'), ['check.mjs'], dir, { env }));
  checked(run(join(BIN, 'bun'), ['check.cjs'], dir, { env }));
});

test('Deno: no permission flags', () => {
  const dir = fresh.dir('core');
  writeFileSync(join(dir, 'deno.mjs'), CHECK("import init, { ChatTemplate, StreamParser, ChatAutoparserError } from 'chat-autoparser';\nawait init();"));
  checked(run(join(BIN, 'deno'), ['run', 'deno.mjs'], dir, { env: { DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(dir, '.deno'), NO_COLOR: '1' } }));
});

test('Cloudflare Workers: wrangler bundles with its defaults, workerd (miniflare) runs it; init() without a module says what to pass', async () => {
  const root = join(fresh.dir('core'), 'workers');
  rmSync(root, { recursive: true, force: true });
  // The README's recipe: import from 'chat-autoparser' (wrangler picks the workerd entry, which loads the wasm).
  const recipe = `${CHECK("import init, { ChatTemplate, StreamParser, ChatAutoparserError } from 'chat-autoparser';\nawait init();").replace(/console\.log\((.*)\);\n$/, 'const result = $1;\n')}
export default { async fetch() { return new Response(result); } };
`;
  // The web entry alone: init() finds no wasm URL there and says what to pass; the `.wasm` export (bundled by
  // wrangler's default rule) is what to pass.
  const web = `import init, { version, ChatAutoparserError } from 'chat-autoparser/web';
import wasm from 'chat-autoparser/chat_autoparser.wasm';
let load;
try { await init(); } catch (e) { load = { ours: e instanceof ChatAutoparserError, kind: e.kind, message: e.message }; }
await init(wasm);
export default { async fetch() { return new Response(JSON.stringify({ load, version: version() })); } };
`;
  const { Miniflare } = await import('miniflare');
  const results = {};
  for (const [name, code] of Object.entries({ recipe, web })) {
    const dir = join(root, name);
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'index.js'), code);
    writeFileSync(join(dir, 'wrangler.toml'), `name = "${name}"\nmain = "src/index.js"\ncompatibility_date = "2026-01-01"\n`);
    run(join(BIN, 'wrangler'), ['deploy', '--dry-run', '--outdir', 'dist'], dir, { env: { WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' } });
    const mf = new Miniflare({ modules: true, scriptPath: join(dir, 'dist', 'index.js'), compatibilityDate: '2026-01-01',
      modulesRules: [{ type: 'CompiledWasm', include: ['**/*.wasm'] }] });
    try {
      results[name] = await (await mf.dispatchFetch('http://localhost/')).text();
    } finally {
      await mf.dispose();
    }
  }
  checked(results.recipe);
  const got = JSON.parse(results.web);
  assert.equal(got.version, JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
  assert.equal(got.load?.ours, true, results.web);
  assert.equal(got.load.kind, 'Load');
  assert.match(got.load.message, /import wasm from 'chat-autoparser\/chat_autoparser\.wasm'; await init\(wasm\)/);
});
