// Turn wasm-bindgen's `--target web` glue plus the hand-written facade (src/wasm/js/facade.js and the
// module's own facade-full.js / facade-parser.js) into the package entries. The full package, all sharing
// one wasm file:
//   pkg/web/chat_autoparser.js   browser / bundler ESM: `await init(input?)`, wasm URL resolved by bundlers
//   pkg/node/chat_autoparser.js  Node CommonJS (loads the wasm synchronously; plain CJS, no ESM inside,
//                                so it loads on every Node ≥ 20.0)
//   pkg/node/index.mjs           Node ESM: re-exports the CommonJS entry (one instance per process)
// and the same three for the parse-only module (`chat-autoparser/parser`, chat_autoparser_parser) under
// pkg/parser/web and pkg/parser/node.
// Usage: node scripts/bundle-js.mjs GLUE_DIR
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const glueDir = process.argv[2];

function fail(message) {
  console.error(`bundle-js: ${message} (did the wasm-bindgen version change? it is pinned in Cargo.toml)`);
  process.exit(1);
}

/** Replace exactly one occurrence, or stop: the glue's shape is pinned with wasm-bindgen's version. */
function replaceOnce(text, from, to) {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) fail(`expected exactly one ${JSON.stringify(from)} in the glue`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/**
 * One module's entries: `NAME` its wasm-bindgen out-name, `ownFacade` its facade file after facade.js, `PKG` the
 * import path users write (in load-error hints), `webDir` / `nodeDir` where its entries go. `moduleEntries`:
 * also the workerd and deno entries and the wasm.d.ts (the full package).
 */
function bundle({ NAME, ownFacade, PKG, webDir, nodeDir, moduleEntries }) {
// (The body is not indented: its template literals are the generated files' text.)
// --- The glue as a function body whose result is its export object.
let glue = readFileSync(join(glueDir, `${NAME}.js`), 'utf8');
glue = glue.replace(/^\/\* @ts-self-types=.*\*\/\n/, '');
// Inline JS snippets (`#[wasm_bindgen(inline_js)]`) become local functions: no extra ESM files.
const namedImports = new Map();   // snippet path → the names the glue imports from it directly
glue = glue.replace(/^import \{([^}]*)\} from ["'](\.\/snippets\/[^"']+)["'];?\n/gm, (_, names, path) => {
  namedImports.set(path, names);
  return '';
});
glue = glue.replace(/^import \* as (\w+) from ["'](\.\/snippets\/[^"']+)["'];?\n/gm, (_, ns, path) => {
  const code = readFileSync(join(glueDir, path), 'utf8');
  const fns = [...code.matchAll(/^export function (\w+)/gm)].map((m) => m[1]);
  const named = namedImports.has(path) ? `const {${namedImports.get(path)}} = ${ns};\n` : '';
  namedImports.delete(path);
  return `const ${ns} = (() => {\n${code.replace(/^export /gm, '')}\nreturn { ${fns.join(', ')} };\n})();\n${named}`;
});
if (namedImports.size > 0) fail('a snippet imported by name only');
if (/^import /m.test(glue)) fail('an import the bundler does not know');
const exported = [...glue.matchAll(/^export (?:class|function) (\w+)/gm)].map((m) => m[1]);
glue = glue.replace(/^export (class|function) /gm, '$1 ');
glue = replaceOnce(glue, 'export { initSync, __wbg_init as default };', '');
if (/^export /m.test(glue)) fail('an export the bundler does not know');
// Strings into wasm: the glue copies the ASCII prefix one character at a time in JS before handing the rest to
// `encodeInto`, which made passing a 30 KB reply cost as much as parsing it (issue #25). One `encodeInto` into
// a buffer as long as the string does the same for the ASCII prefix natively, then the rest goes on as before
// (the same bytes: `encodeInto` stops at the first character that does not fit, `read` tells where). A short
// string (a streamed chunk) keeps the loop: `encodeInto`'s fixed cost is several times the loop's for 4 bytes.
const SHORT = 64;
glue = replaceOnce(glue, `    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }`, `    if (len > ${SHORT}) {
        const ascii = cachedTextEncoder.encodeInto(arg, mem.subarray(ptr, ptr + len));
        offset = ascii.read === ascii.written ? ascii.written : 0;
    } else {
        for (; offset < len; offset++) {
            const code = arg.charCodeAt(offset);
            if (code > 0x7F) break;
            mem[ptr + offset] = code;
        }
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }`);
// Strings out of wasm (each streamed delta's text): \`TextDecoder.decode\` costs far more than reading a few ASCII
// bytes in JS; short ASCII strings are read directly (any other byte: the decoder, as before).
glue = replaceOnce(glue, `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`, `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    if (len <= ${SHORT}) {
        const mem = getUint8ArrayMemory0();
        let s = '';
        for (let i = ptr; i < ptr + len; i++) {
            if (mem[i] > 0x7F) return decodeText(mem.subarray(ptr, ptr + len));
            s += String.fromCharCode(mem[i]);
        }
        return s;
    }
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`);
const WASM_URL = `new URL('${NAME}_bg.wasm', import.meta.url)`;
replaceOnce(glue, WASM_URL, WASM_URL);

const facade = ['facade.js', ownFacade].map((f) => readFileSync(join(root, 'src/wasm/js', f), 'utf8')).join('\n');
const apiNames = facade.match(/^const API = \{([^}]*)\};/m);
if (!apiNames) fail(`${ownFacade} must end with \`const API = { … };\``);
const names = apiNames[1].split(',').map((s) => s.trim()).filter(Boolean);

const header = `// Generated by scripts/bundle-js.mjs from wasm-bindgen's glue and src/wasm/js/facade.js + ${ownFacade}. Do not edit.\n`;
// Both wrapped in functions: the glue's names stay out of the module scope (the facade reuses them), and
// the facade's classes do not clash with the ESM export names.
// `afterLoad` (facade-parser.js only): work to do once the wasm is instantiated; its warm-up spec is pasted in here.
const warmUp = ownFacade === 'facade-parser.js'
  ? `const WARM_UP_SPEC = ${JSON.stringify(JSON.stringify(JSON.parse(readFileSync(join(root, 'src/wasm/js/warm-up-spec.json'), 'utf8'))))};\n`
  : 'function afterLoad() {}\n';
const apiBlock = `const [api, afterLoad] = (() => {\n${warmUp}${facade}\nreturn [API, afterLoad];\n})();\n`;
const rawBlock = (g) => `const raw = (() => {\n${g}\nreturn { ${[...exported, 'initSync', '__wbg_init'].join(', ')} };\n})();\n`;

// Browser / bundler ESM. The wasm URL stays the literal `new URL('…_bg.wasm', import.meta.url)` that
// bundlers (esbuild, Vite, webpack) rewrite to the emitted asset. A load that fails (no URL for the module
// in Cloudflare Workers, Node's fetch on a file: URL, a 404) is a \`Load\` error that says what to pass.
const web = `${header}${rawBlock(glue)}
let instance;
const wasm = () => instance;
/** Load the wasm module: \`input\` is a URL, Response, BufferSource or WebAssembly.Module (default: next to this file). */
async function init(input) {
  if (instance !== undefined) return;
  try {
    instance = await raw.__wbg_init(input === undefined ? undefined : { module_or_path: input });
  } catch (e) {
    throw loadError(e, input);
  }
  afterLoad();
}
/** Instantiate the wasm synchronously from a WebAssembly.Module (or its bytes), as Workers and Deno import it. */
function initSync(module) {
  if (instance !== undefined) return;
  try {
    instance = raw.initSync({ module });
  } catch (e) {
    throw loadError(e, module);
  }
  afterLoad();
}
function loadError(e, input) {
  const why = e instanceof Error ? \`\${e.name}: \${e.message}\` : String(e);
  let url;
  if (input === undefined) {
    try { url = new URL('${NAME}_bg.wasm', import.meta.url); } catch { /* stays undefined */ }
  } else if (typeof input === 'string' || input instanceof URL) {
    url = input;
  }
  let hint = 'pass the wasm to init(): its URL, a fetch() Response, its bytes or a WebAssembly.Module';
  if (input === undefined && url === undefined) {
    hint = 'this runtime gives the module no URL to find ${NAME}_bg.wasm next to it (Cloudflare Workers): '
      + "import from '${PKG}' with wrangler (its \`workerd\` entry loads the wasm itself), or import the module "
      + "and pass it: import wasm from '${PKG}/${NAME}.wasm'; await init(wasm)";
  } else if (String(url).startsWith('file:')) {
    hint = "fetch() cannot read a file: URL here (Node): in Node import '${PKG}' (its \`node\` entry loads the wasm "
      + "itself), or pass the bytes: await init(readFileSync(new URL(import.meta.resolve('${PKG}/${NAME}.wasm'))))";
  }
  const err = new api.ChatAutoparserError('Load', \`could not load the wasm module\${url === undefined ? '' : \` from \${url}\`} (\${why}): \${hint}\`);
  err.cause = e;
  return err;
}
${apiBlock}
export const { ${names.filter((n) => n !== 'init' && n !== 'initSync').join(', ')} } = api;
export { initSync };
export default init;
`;

// Runtimes that import a .wasm file as a compiled module: Cloudflare Workers (the `workerd` condition;
// wrangler's default rules turn a `*.wasm` import into a WebAssembly.Module) and Deno (the `deno` condition;
// a source-phase import needs no permission, unlike reading the file). The wasm is instantiated on import.
const moduleEntry = (importLine) => `${header}${importLine}
import { initSync } from './${NAME}.js';
initSync(wasmModule);
export * from './${NAME}.js';
export { default } from './${NAME}.js';
`;

// Node CommonJS: the wasm is read from the web directory (shipped once) and instantiated synchronously.
const nodeGlue = replaceOnce(glue, WASM_URL, 'undefined');
const node = `${header}'use strict';
${rawBlock(nodeGlue)}
const instance = raw.initSync({ module: require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'web', '${NAME}_bg.wasm')) });
const wasm = () => instance;
/** Node loads the wasm synchronously when the package is required: a no-op, for isomorphic code. */
async function init(input) {}
function initSync(module) {}
${apiBlock}
afterLoad();
module.exports = api;
module.exports.default = init;
`;

const esm = `${header}import api from './${NAME}.js';
export const { ${names.join(', ')} } = api;
export default api.init;
`;

mkdirSync(join(root, webDir), { recursive: true });
mkdirSync(join(root, nodeDir), { recursive: true });
writeFileSync(join(root, webDir, `${NAME}.js`), web);
// `chat-autoparser/wasm` and `chat-autoparser/chat_autoparser.wasm`: what a bundler makes of a .wasm import
// (wrangler: a WebAssembly.Module; esbuild's file loader, Vite's ?url: its URL), for init().
if (moduleEntries) {
  writeFileSync(join(root, webDir, 'wasm.d.ts'), '/** The wasm file, as your bundler imports it: a WebAssembly.Module (wrangler) or its URL (esbuild\'s file loader). Pass it to init(). */\ndeclare const wasm: WebAssembly.Module | string;\nexport default wasm;\n');
  writeFileSync(join(root, webDir, 'workerd.js'), moduleEntry(`import wasmModule from './${NAME}_bg.wasm';`));
  writeFileSync(join(root, webDir, 'deno.js'), moduleEntry(`import source wasmModule from './${NAME}_bg.wasm';`));
}
writeFileSync(join(root, webDir, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(root, nodeDir, `${NAME}.js`), node);
writeFileSync(join(root, nodeDir, 'package.json'), '{ "type": "commonjs" }\n');
writeFileSync(join(root, nodeDir, 'index.mjs'), esm);
copyFileSync(join(glueDir, `${NAME}_bg.wasm`), join(root, webDir, `${NAME}_bg.wasm`));
}

bundle({ NAME: 'chat_autoparser', ownFacade: 'facade-full.js', PKG: 'chat-autoparser', webDir: 'pkg/web', nodeDir: 'pkg/node', moduleEntries: true });
bundle({ NAME: 'chat_autoparser_parser', ownFacade: 'facade-parser.js', PKG: 'chat-autoparser/parser', webDir: 'pkg/parser/web', nodeDir: 'pkg/parser/node', moduleEntries: false });
