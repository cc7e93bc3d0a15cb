// Build-time list of the templates the playground's picker offers: copies them under www/templates/<set>/
// and writes www/templates/index.json ([{name, set, path, bytes}]). Run by scripts/build.sh.
// Adding a corpus (e.g. the zoo, tests/fixtures/zoo/) is one line in SOURCES.
import { readdirSync, readFileSync, writeFileSync, mkdirSync, rmSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = [
  { set: 'samples', dirs: ['www/samples'] },
  // The vendored conformance set; before it is vendored, the shared reference copy next to the repository.
  { set: 'conformance', dirs: ['tests/fixtures/conformance/templates', '../shared/conformance/templates'] },
  // 300+ real templates never used to build the analysis (#14), provenance in tests/fixtures/zoo/PROVENANCE.jsonl.
  { set: 'zoo', dirs: ['tests/fixtures/zoo'] },
];

/** Every .jinja file under dir (recursively), sorted. */
function jinjaFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...jinjaFiles(p));
    else if (/\.jinja2?$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

const outDir = join(root, 'www', 'templates');
rmSync(outDir, { recursive: true, force: true });
const seen = new Map(); // content hash → entry already listed (same bytes under another set)
const index = [];
for (const { set, dirs } of SOURCES) {
  const dir = dirs.map((d) => join(root, d)).find((d) => existsSync(d) && statSync(d).isDirectory());
  if (!dir) continue;
  for (const file of jinjaFiles(dir)) {
    const bytes = readFileSync(file);
    const hash = createHash('sha256').update(bytes).digest('hex');
    const name = relative(dir, file).replace(/\.jinja2?$/, '');
    if (seen.has(hash)) { seen.get(hash).sets.push(set); continue; }
    const path = `templates/${set}/${relative(dir, file)}`;
    mkdirSync(join(root, 'www', path, '..'), { recursive: true });
    writeFileSync(join(root, 'www', path), bytes);
    const entry = { name, set, sets: [set], path, bytes: bytes.length };
    seen.set(hash, entry);
    index.push(entry);
  }
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'index.json'), `[\n${index.map((e) => JSON.stringify(e)).join(',\n')}\n]\n`);
console.log(`playground templates: ${index.length} (${SOURCES.map((s) => `${s.set} ${index.filter((e) => e.sets.includes(s.set)).length}`).join(', ')})`);
