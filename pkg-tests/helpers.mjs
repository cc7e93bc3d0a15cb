// Helpers for the Node tests: load the built package the way users do, and read the vendored reference
// corpus (tests/fixtures, refreshed by scripts/refresh-fixtures.sh).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const fixturesDir = join(repoRoot, 'tests', 'fixtures');

export function loadJsonl(name) {
  return readFileSync(join(fixturesDir, 'conformance', name), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

export function templateSource(name) {
  return readFileSync(join(fixturesDir, 'conformance', 'templates', name), 'utf8');
}

/** 2024-07-26 12:00:00 UTC, the reference renders' `strftime_now` time. */
export const REFERENCE_NOW = 1721995200;
