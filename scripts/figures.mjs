// The package figures the README states, measured on the built package (run after scripts/build.sh):
// the wasm's size (raw and gzip -9, what a browser downloads), what `npm pack` ships (tarball, unpacked), and the
// parse-only module's wasm (`chat-autoparser/parser`: raw, gzip -9, brotli).
//   node scripts/figures.mjs           print them
//   node scripts/figures.mjs --write   rewrite the README's figures line (between <!-- figures --> markers)
// pkg-tests/readme.test.mjs requires the README's line to match these within rounding.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `{ wasm, wasmGzip, tarball, unpacked, parser, parserGzip, parserBrotli }` in bytes. */
export function measure() {
  const wasm = readFileSync(join(root, 'pkg/web/chat_autoparser_bg.wasm'));
  const [pack] = JSON.parse(execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
  const parser = readFileSync(join(root, 'pkg/parser/web/chat_autoparser_parser_bg.wasm'));
  return {
    wasm: wasm.length, wasmGzip: gzipSync(wasm, { level: 9 }).length, tarball: pack.size, unpacked: pack.unpackedSize,
    parser: parser.length, parserGzip: gzipSync(parser, { level: 9 }).length,
    parserBrotli: brotliCompressSync(parser, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const kb = (n) => `${Math.round(n / 1000).toLocaleString('en-US')} KB`;

/** The README's figures line. */
export function figuresLine(f) {
  return `<!-- figures -->The full wasm module, ${kb(f.wasm)} (${kb(f.wasmGzip)} gzipped: what a browser downloads); \`npm pack\`: ${kb(f.tarball)} tarball, ${kb(f.unpacked)} unpacked. `
    + `Parsing only, from a compiled parser spec (\`chat-autoparser/parser\`): ${kb(f.parser)} (${kb(f.parserGzip)} gzipped, ${kb(f.parserBrotli)} brotli).<!-- /figures -->`;
}

export const FIGURES_RE = /<!-- figures -->.*?<!-- \/figures -->/;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const f = measure();
  const line = figuresLine(f);
  if (process.argv.includes('--write')) {
    const path = join(root, 'README.md');
    const readme = readFileSync(path, 'utf8');
    if (!FIGURES_RE.test(readme)) throw new Error('README.md has no <!-- figures --> line');
    writeFileSync(path, readme.replace(FIGURES_RE, line));
  }
  console.log(line);
}
