// What each dependency and each of our modules costs in the wasm: runs `twiggy top` (cargo install
// twiggy) over the release wasm after wasm-bindgen with its name section kept (before wasm-opt, which
// drops names and shrinks code by about a third), sums code bytes per crate (per module for ours), and
// prints a Markdown table; with a file argument, writes it there too (scripts/bench.sh: target/size-report.md).
// Generic code is charged to the crate that defines it (a `Vec<minijinja::Value>` method is `alloc`'s).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { repoRoot } from '../pkg-tests/helpers.mjs';

// The full module by default; `--parser` for the parse-only one (scripts/build.sh keeps both as linked).
const parserOnly = process.argv.includes('--parser');
const raw = join(repoRoot, `target/${parserOnly ? 'chat_autoparser_parser' : 'chat_autoparser'}.linked.wasm`);
const dir = mkdtempSync(join(tmpdir(), 'size-'));
try {
  execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', dir, '--out-name', 'named', raw]);
  const csv = execFileSync('twiggy', ['top', '-n', '1000000', '--format', 'csv', join(dir, 'named_bg.wasm')], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const bytes = readFileSync(join(dir, 'named_bg.wasm'));
  const groups = new Map();
  for (const line of csv.split('\n').slice(1)) {
    const m = line.match(/^"?(.*?)"?,(\d+),/);
    if (!m) continue;
    // Names of a build-std build carry crate hashes (`core[1a2b…]::…`): dropped.
    const [name, size] = [m[1].replace(/""/g, '"').replace(/\[[0-9a-f]{6,}\]/g, ''), Number(m[2])];
    if (/subsection|custom section/.test(name)) continue; // names: dropped by wasm-opt
    let group;
    if (name.startsWith('data segment')) group = 'static data (.rodata: strings, tables)';
    else {
      const path = name.replace(/^[<&*(\s]+|dyn |mut /g, '');
      const crate = (path.match(/^[A-Za-z_][A-Za-z0-9_]*/) ?? ['other'])[0];
      if (crate === 'chat_autoparser') group = `ours: ${(path.match(/^chat_autoparser::([a-z_]+)/) ?? [, '?'])[1]}`;
      else if (['core', 'alloc', 'std', 'compiler_builtins', 'dlmalloc', 'str', 'char', 'f64', 'u64', 'u128', 'usize'].includes(crate)) group = 'Rust std (core, alloc, std, dlmalloc)';
      else if (/^(A|T|I|F|K|V|Func|elem|export|import|table|memory|global)$/.test(crate) || crate.length <= 1) group = 'unattributed (closures, tables, exports)';
      else group = crate;
    }
    groups.set(group, (groups.get(group) ?? 0) + size);
  }
  const total = [...groups.values()].reduce((a, b) => a + b, 0);
  const rows = [...groups].sort((a, b) => b[1] - a[1]);
  const out = [`| part | bytes | share |`, `|---|---:|---:|`];
  for (const [g, b] of rows) if (b >= 1000) out.push(`| ${g} | ${b} | ${((100 * b) / total).toFixed(1)}% |`);
  const small = rows.filter(([, b]) => b < 1000).reduce((a, [, b]) => a + b, 0);
  out.push(`| everything under 1 KB each | ${small} | ${((100 * small) / total).toFixed(1)}% |`);
  out.push(`| **total** (before wasm-opt, names excluded; file ${bytes.length} B with names, gzip -9 ${gzipSync(bytes, { level: 9 }).length} B) | ${total} | 100% |`);
  const text = out.join('\n');
  const outFile = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (outFile) writeFileSync(outFile, text + '\n');
  console.log(text);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
