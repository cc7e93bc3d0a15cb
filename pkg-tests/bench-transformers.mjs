// Side by side with Hugging Face transformers' `parse_response` (Python, given the response template we
// derive) on the four 30 KB bench replies (issue #25): our auto engine (`parseOutput`) and our
// declared-response-template path (`parseResponse`) through wasm, set-up included, against
// transformers on the same text, prefix and tools. Printed, not asserted (the Python side is another
// process); `node pkg-tests/bench-transformers.mjs` prints JSON, pkg-tests/bench.mjs puts it in BENCHMARKS.md.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { repoRoot, fixturesDir } from './helpers.mjs';
import { medianTime } from './bench-startup.mjs';

export const BENCH_INPUTS = { 'Qwen3.5-4B.jinja': 'qwen3.5-4b', 'Qwen3-Coder.jinja': 'qwen3-coder', 'openai-gpt-oss-120b.jinja': 'gpt-oss', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja': 'hermes-2-pro' };

const medianUs = (fn) => medianTime(fn, 500) * 1000;

export function measureTransformers() {
  const pkg = createRequire(import.meta.url)(join(process.env.BENCH_PKG_ROOT ?? repoRoot, 'pkg/node/chat_autoparser.js'));
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } } } }];
  const cases = [];
  const ours = {};
  for (const [name, family] of Object.entries(BENCH_INPUTS)) {
    const source = readFileSync(join(fixturesDir, 'conformance/templates', name), 'utf8');
    const t = new pkg.ChatTemplate(source);
    const text = readFileSync(join(fixturesDir, `bench/inputs/${family}-8k.txt`), 'utf8');
    const { responseTemplate } = pkg.responseTemplate(t);
    const prefix = pkg.generationPrompt(t, { tools });
    cases.push({ name, text, responseTemplate, prefix, tools });
    const opts = { tools };
    ours[name] = {
      bytes: Buffer.byteLength(text),
      parseOutputUs: medianUs(() => pkg.parseOutput(t, text, opts)),
      parseResponseUs: medianUs(() => pkg.parseResponse(text, responseTemplate, { prefix, tools })),
      parseResponseMessage: pkg.parseResponse(text, responseTemplate, { prefix, tools }),
    };
    t.free();
  }
  const py = spawnSync('python3', [join(repoRoot, 'scripts/bench_parse_response.py')], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (py.status !== 0) throw new Error(`transformers bench failed: ${py.stderr}`);
  const theirs = JSON.parse(py.stdout);
  return Object.entries(ours).map(([name, o]) => ({
    template: name,
    bytes: o.bytes,
    transformersUs: theirs[name].us,
    parseOutputUs: o.parseOutputUs,
    parseResponseUs: o.parseResponseUs,
    // Our interpreter and transformers give the same dict for the same template (else the timing compares different work).
    sameMessage: JSON.stringify(o.parseResponseMessage) === JSON.stringify(theirs[name].message),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(measureTransformers(), null, 1));
