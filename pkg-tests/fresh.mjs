// Fresh projects that install the packed package as a user does (`npm pack`, then `npm install` of the tarball
// into an empty project), shared by the tests that need them. Packed and installed once per package content:
// target/fresh/.done holds a fingerprint of every packed file, and a lock directory keeps test processes
// that start together from installing twice. Installs read the npm cache `npm ci` filled (--prefer-offline).
//   core  the tarball alone (+ @types/node): Node ESM/CJS, the CLI, Bun, Deno, Workers, bundlers, types
//   ai6   + ai 6 and @ai-sdk/provider 3 (what `npm install ai` gives on Node 20)
//   ai7   + ai 7, @ai-sdk/provider 4 and openai
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from './helpers.mjs';

export const freshRoot = join(repoRoot, 'target', 'fresh');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const repoPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const dev = repoPackage.devDependencies;
/** The exact version of an installed dev package (an alias like `ai6` reads its own package.json). */
const installed = (name) => JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')).version;
const TYPES = { '@types/node': dev['@types/node'], '@types/json-schema': dev['@types/json-schema'] };
const ai6 = installed('ai6');
const provider3 = JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'ai6', 'package.json'), 'utf8')).dependencies['@ai-sdk/provider'];

export const PROJECTS = {
  core: { '@types/node': dev['@types/node'] },
  ai6: { ai: ai6, '@ai-sdk/provider': provider3, ...TYPES },
  ai7: { ai: dev.ai, '@ai-sdk/provider': dev['@ai-sdk/provider'], openai: dev.openai, zod: installed('zod'), ...TYPES },
};

/** What `npm pack` would put in the tarball: `[{ path, size }]` (npm's own list). */
export function packList() {
  const [info] = JSON.parse(execFileSync(NPM, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8' }));
  return info.files.map((f) => ({ path: f.path, size: f.size }));
}

function fingerprint(files) {
  const h = createHash('sha256');
  h.update(JSON.stringify(PROJECTS));
  for (const f of files) h.update(f.path).update(readFileSync(join(repoRoot, f.path)));
  return h.digest('hex');
}

function npm(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(NPM, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (b) => { log += b; });
    child.stderr.on('data', (b) => { log += b; });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(log) : reject(new Error(`npm ${args.join(' ')} in ${cwd} failed (${code}):\n${log}`))));
  });
}

async function withLock(f) {
  const lock = join(freshRoot, '.lock');
  mkdirSync(freshRoot, { recursive: true });
  for (let waited = 0; ; waited += 500) {
    try { mkdirSync(lock); break; } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      // A lock older than 10 minutes was left by a killed run.
      if (Date.now() - statSync(lock).mtimeMs > 600_000) { rmSync(lock, { recursive: true, force: true }); continue; }
      await sleep(500);
    }
  }
  try { return await f(); } finally { rmSync(lock, { recursive: true, force: true }); }
}

/**
 * Pack the package and install it into the fresh projects (once per package content).
 * Returns `{ tarball, files, dir(name), seconds }`; `seconds` is 0 when an earlier process did the work.
 */
export async function freshProjects() {
  const files = packList();
  const id = fingerprint(files);
  const done = join(freshRoot, '.done');
  const result = (seconds) => ({ tarball: join(freshRoot, tarballName()), files, dir: (name) => join(freshRoot, name), seconds });
  if (existsSync(done) && readFileSync(done, 'utf8') === id) return result(0);
  return withLock(async () => {
    if (existsSync(done) && readFileSync(done, 'utf8') === id) return result(0);
    const started = Date.now();
    rmSync(done, { force: true });
    for (const name of Object.keys(PROJECTS)) rmSync(join(freshRoot, name), { recursive: true, force: true });
    await npm(['pack', '--ignore-scripts', '--pack-destination', freshRoot], repoRoot);
    const tarball = join(freshRoot, tarballName());
    await Promise.all(Object.entries(PROJECTS).map(async ([name, deps]) => {
      const dir = join(freshRoot, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `fresh-${name}`, private: true, version: '1.0.0' }, null, 2));
      await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-exact', tarball,
        ...Object.entries(deps).map(([pkg, version]) => `${pkg}@${version}`)], dir);
    }));
    writeFileSync(done, id);
    return result((Date.now() - started) / 1000);
  });
}

function tarballName() {
  return `${repoPackage.name}-${repoPackage.version}.tgz`;
}
