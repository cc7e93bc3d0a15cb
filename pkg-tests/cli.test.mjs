// `npx chat-autoparser` (bin/chat-autoparser.mjs, the CLI over the wasm API) prints what the native CLI prints:
// same stdout, stderr and exit status for every command they share, over templates of several formats, whole
// and streamed output, non-ASCII text (diagnostic offsets are UTF-8 bytes in both), and errors. The native
// binary is the one `cargo test` builds (target/debug/chat-autoparser; `npm test` runs cargo test first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyTemplate } from 'chat-autoparser';
import { fixturesDir, loadJsonl, optionsOf, repoRoot, templateSource } from './helpers.mjs';

const NATIVE = join(repoRoot, 'target', 'debug', 'chat-autoparser');
const NODE_CLI = join(repoRoot, 'bin', 'chat-autoparser.mjs');
const dir = join(repoRoot, 'target', 'cli-parity');
const tmpl = (name) => join(fixturesDir, 'conformance', 'templates', name);

function runNode(args, input) {
  const r = spawnSync(process.execPath, [NODE_CLI, ...args], { cwd: dir, input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// JSON calls with reasoning, harmony, tagged parameters, a JSON call array (each Node CLI run loads the wasm: ≈ 0.5 s).
/** A process's status, stdout and stderr (async, so two run at once on two cores). */
function run(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: dir });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

async function inParallel(jobs, width = Math.max(2, availableParallelism())) {
  const results = new Array(jobs.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) { const i = next++; results[i] = await jobs[i](); }
  }));
  return results;
}

const TEMPLATES = ['Qwen3.5-4B.jinja', 'openai-gpt-oss-120b.jinja', 'Qwen3-Coder.jinja', 'mistralai-Mistral-Nemo-Instruct-2407.jinja'];

test('npx chat-autoparser prints what the native CLI prints (analyze, compile, grammar, parse, render, response-template, help, errors)', async () => {
  assert.ok(existsSync(NATIVE), `${NATIVE} is missing: cargo test (or cargo build --bin chat-autoparser) builds it`);
  mkdirSync(dir, { recursive: true });
  const cases = loadJsonl('cases.jsonl');
  // Not `--help` itself: the Node CLI's lists its extra command (verify) and inputs.
  const runs = [['help', 'parse'], ['parse', '-h'], ['version'], ['bogus'], ['analyze'], ['analyze', 'missing.jinja']];
  writeFileSync(join(dir, 'broken.jinja'), '{% for m in messages %}{{ m.content }\n');
  runs.push(['analyze', 'broken.jinja'], ['render', 'broken.jinja']);
  for (const name of TEMPLATES) {
    // A case of this template with tool calls (else any), its tools and its output, plus non-ASCII text.
    const c = cases.find((k) => k.template === name && k.tools?.length && /tool_call|TOOL|function|call/i.test(k.input))
      ?? cases.find((k) => k.template === name);
    assert.ok(c, `a case for ${name}`);
    const base = name.replace(/\.jinja$/, '');
    writeFileSync(join(dir, `${base}.tools.json`), JSON.stringify({ tools: c.tools ?? [] }));
    const { tools: _, ...options } = optionsOf(c);
    writeFileSync(join(dir, `${base}.options.json`), JSON.stringify(options));
    writeFileSync(join(dir, `${base}.out.txt`), `Grüße 😀 ${c.input}`);
    writeFileSync(join(dir, `${base}.ctx.json`), JSON.stringify({ messages: c.messages, tools: c.tools ?? [], add_generation_prompt: true }));
    const t = tmpl(name);
    const io = ['--tools', `${base}.tools.json`, '--options', `${base}.options.json`];
    runs.push(['analyze', t], ['grammar', t, '--tools', `${base}.tools.json`], ['parse', t, `${base}.out.txt`, ...io, '--stream', '5'],
      ['render', t, `${base}.ctx.json`], ['response-template', t], ['compile', t]);
    if (name === TEMPLATES[0]) {
      runs.push(['analyze', t, '--json'], ['grammar', t, '--tools', `${base}.tools.json`, '--json'], ['parse', t, `${base}.out.txt`, ...io],
        ['parse', t, `${base}.out.txt`, ...io, '--stream', '3', '--stream-arguments'], ['render', t], ['response-template', t, '--json']);
    }
  }
  const differ = [];
  const results = await inParallel(runs.map((args) => async () => [args, await run(NATIVE, args), await run(process.execPath, [NODE_CLI, ...args])]));
  for (const [args, native, node] of results) {
    // File errors are worded by each runtime (`No such file or directory (os error 2)` / `ENOENT: …`): status and prefix.
    if (args[1] === 'missing.jinja') {
      assert.deepEqual([node.status, node.stdout, node.stderr.startsWith('error: missing.jinja: ')], [native.status, native.stdout, true]);
      continue;
    }
    for (const k of ['status', 'stdout', 'stderr']) {
      if (node[k] !== native[k]) differ.push(`${args.join(' ')}: ${k} differs\n  native: ${JSON.stringify(native[k]).slice(0, 400)}\n  node:   ${JSON.stringify(node[k]).slice(0, 400)}`);
    }
  }
  console.log(`CLI parity: ${runs.length - differ.length}/${runs.length} invocations identical (stdout, stderr, exit status)`);
  assert.deepEqual(differ, []);
});

test('npx chat-autoparser: output from stdin, a tokenizer_config.json, verify, exit statuses', () => {
  mkdirSync(dir, { recursive: true });
  const name = 'Qwen-Qwen3-0.6B.jinja';
  const output = '<think>\nHm.\n</think>\n\nHi.';
  writeFileSync(join(dir, 'out.txt'), output);
  const fromFile = runNode(['parse', tmpl(name), 'out.txt', '--stream', '4']);
  assert.equal(fromFile.status, 0);
  assert.deepEqual(runNode(['parse', tmpl(name), '-', '--stream', '4'], output), fromFile);
  assert.deepEqual(runNode(['parse', tmpl(name), '--stream', '4'], output), fromFile, 'no OUTPUT file: stdin');
  // A tokenizer_config.json gives the same as its chat_template.
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ bos_token: '<s>', chat_template: templateSource(name) }));
  assert.deepEqual(runNode(['render', 'tokenizer_config.json']), runNode(['render', tmpl(name)]));
  writeFileSync(join(dir, 'named.json'), JSON.stringify({ chat_template: [{ name: 'tool_use', template: 'x' }, { name: 'default', template: templateSource(name) }] }));
  assert.deepEqual(runNode(['render', 'named.json']), runNode(['render', tmpl(name)]), 'a named-template list: its default');
  // verify: the JS API's report; status 1 when a round trip fails.
  const verify = runNode(['verify', tmpl(name), '--json']);
  assert.equal(verify.status, 0);
  assert.deepEqual(JSON.parse(verify.stdout), verifyTemplate(templateSource(name)));
  const text = runNode(['verify', tmpl(name)]);
  assert.match(text.stdout, /^verified: {2}true \(content ok, reasoning ok, tool calls ok\)$/m);
  writeFileSync(join(dir, 'lossy.jinja'), '{% for m in messages %}{{ m.role }}: {{ m.content[:3] }}\n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}');
  assert.equal(runNode(['verify', 'lossy.jinja']).status, 1, 'a template that does not round-trip');
  const usage = runNode(['parse']);
  assert.equal(usage.status, 1);
  assert.match(usage.stderr, /^error: usage:/);
  const help = runNode(['--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /chat-autoparser verify FILE\.jinja/);
  assert.match(help.stdout, /tokenizer_config\.json/);
});
