#!/usr/bin/env node
// `npx chat-autoparser`: the command-line interface over the package's JS API (no Rust toolchain needed).
// Same commands, flags, output and exit codes as the native CLI (src/bin/chat-autoparser.rs; the test
// pkg-tests/cli.test.mjs compares them), plus `verify`, output read from stdin (`-` or no OUTPUT file) and
// templates given as a tokenizer_config.json. Positions are UTF-8 bytes, as the native CLI prints them.
import { readFileSync } from 'node:fs';
import { ChatTemplate, StreamParser, buildGrammar, compileParser, verifyTemplate, responseTemplate, version } from 'chat-autoparser';

const USAGE = `usage:
  chat-autoparser analyze FILE.jinja [--json]
  chat-autoparser compile FILE.jinja [--options OPTIONS.json]
  chat-autoparser grammar FILE.jinja --tools TOOLS.json [--options OPTIONS.json] [--json]
  chat-autoparser parse FILE.jinja OUTPUT.txt [--tools TOOLS.json] [--options OPTIONS.json] [--stream N] [--stream-arguments]
  chat-autoparser render FILE.jinja [CONTEXT.json]
  chat-autoparser response-template FILE.jinja [--json]
  chat-autoparser version
  chat-autoparser help [COMMAND]   (or --help / -h)`;

const NPX_USAGE = `${USAGE}
  chat-autoparser verify FILE.jinja [--json]

FILE.jinja may also be a tokenizer_config.json (its chat_template, and its response_template if it declares one).
OUTPUT.txt may be - or left out: the output is read from stdin. Exit status: 0 on success, 1 on an error.`;

const HELP = {
  analyze: `usage: chat-autoparser analyze FILE.jinja [--json]
  How the template's model writes reasoning, content and tool calls: modes, markers and every diff split.
  --json   the whole analysis as JSON`,
  compile: `usage: chat-autoparser compile FILE.jinja [--options OPTIONS.json]
  The template's parser as a portable parser spec (JSON, on stdout), for chat-autoparser/parser:
  parse its model output in a browser without the template engine (ship the spec, not the template).
  --options O.json   {"extraContext": {...}}: template variables for the generation-prompt renders`,
  grammar: `usage: chat-autoparser grammar FILE.jinja --tools TOOLS.json [--options OPTIONS.json] [--json]
  The GBNF grammar, lazy triggers and preserved tokens for constrained tool calling.
  --tools T.json     an array of tools, or {"tools": [...]}
  --options O.json   request options (camelCase, as the JS API)
  --json             the result as JSON`,
  parse: `usage: chat-autoparser parse FILE.jinja OUTPUT.txt [--tools TOOLS.json] [--options OPTIONS.json] [--stream N] [--stream-arguments]
  Parse model output into an OpenAI-style message (diagnostics go to stderr).
  --tools T.json     an array of tools, or {"tools": [...]}
  --options O.json   request options (camelCase, as the JS API)
  --stream N         push the output in N-byte chunks and print each delta as a JSON line
  --stream-arguments stream JSON tool-call arguments as written (streamArguments: true); by default a
                     JSON call goes out whole once its arguments are valid JSON`,
  render: `usage: chat-autoparser render FILE.jinja [CONTEXT.json]
  Render the template once (default context: one user message and the generation prompt).`,
  'response-template': `usage: chat-autoparser response-template FILE.jinja [--json]
  The analysis as a Hugging Face transformers response_template, with what the spec cannot express.
  --json   the template and its losses as JSON`,
  verify: `usage: chat-autoparser verify FILE.jinja [--json]
  Render assistant messages (text, reasoning, tool calls) through the template and parse them back.
  Exit status 1 when a round trip fails.
  --json   the whole report as JSON`,
  version: `usage: chat-autoparser version
  Print the version.`,
  help: NPX_USAGE,
};

class CliError extends Error {}

/** `--help` / `-h` anywhere, or `help [COMMAND]`: the help text, if help was asked for. */
function helpRequest(args) {
  if (args[0] === 'help') return HELP[args[1]] ?? NPX_USAGE;
  if (args.some((a) => a === '--help' || a === '-h')) return HELP[args[0]] ?? NPX_USAGE;
  return undefined;
}

const flag = (args, name) => args.includes(name);
const value = (args, name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };

function read(path) {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw new CliError(`${path}: ${e.message}`);
  }
}

function readJson(path) {
  try {
    return JSON.parse(read(path));
  } catch (e) {
    throw e instanceof CliError ? e : new CliError(`${path}: ${e.message}`);
  }
}

/** A `.jinja` source, or a tokenizer_config.json (`chat_template` as a string or a named list, and an optional `response_template`). */
function template(path) {
  const text = read(path);
  let source = text;
  let declared;
  if (/\.json$/i.test(path) || /^\s*\{\s*"/.test(text)) {
    let config;
    try { config = JSON.parse(text); } catch { config = undefined; }
    if (config !== null && typeof config === 'object' && 'chat_template' in config) {
      source = config.chat_template;
      if (Array.isArray(source)) source = (source.find((t) => t?.name === 'default') ?? source[0])?.template;
      if (typeof source !== 'string') throw new CliError(`${path}: chat_template is not a template string`);
      declared = config.response_template ?? undefined;
    }
  }
  try {
    return new ChatTemplate(source, declared ? { responseTemplate: declared } : undefined);
  } catch (e) {
    throw new CliError(`${path}: ${e.message}`);
  }
}

/** Request options from `--options O.json`, with `--tools T.json` (an array, or `{"tools": [...]}`). */
function requestOptions(args) {
  const options = value(args, '--options') !== undefined ? readJson(value(args, '--options')) : {};
  const toolsPath = value(args, '--tools');
  if (toolsPath !== undefined) {
    const v = readJson(toolsPath);
    const tools = v !== null && typeof v === 'object' && !Array.isArray(v) && 'tools' in v ? v.tools : v;
    if (!Array.isArray(tools)) throw new CliError(`${toolsPath}: expected an array of tools`);
    options.tools = tools;
  }
  return options;
}

/** A string with its whitespace visible. */
const vis = (s) => (s === '' ? '∅' : s.replaceAll('\n', '↵').replaceAll('\t', '⇥'));
/** A value as compact JSON, without the quotes of a string (enums print as their wire names). */
const j = (v) => JSON.stringify(v).replace(/^"+|"+$/g, '');
const utf8 = (s) => Buffer.byteLength(s, 'utf8');
/** The last `n` bytes of `s` (at a character boundary), the first `n`. */
const tail = (s, n) => { const b = Buffer.from(s, 'utf8'); let i = Math.max(0, b.length - n); while (i < b.length && (b[i] & 0xc0) === 0x80) i++; return b.subarray(i).toString('utf8'); };
const head = (s, n) => { const b = Buffer.from(s, 'utf8'); let i = Math.min(n, b.length); while (i > 0 && i < b.length && (b[i] & 0xc0) === 0x80) i--; return b.subarray(0, i).toString('utf8'); };

function printAnalysis(a, out) {
  out(`handler:   ${j(a.handler)}`);
  out(`caps:      ${j(a.caps)}`);
  out(`roles:     user_start=${vis(a.userStart)}  assistant_start=${vis(a.assistantStart)}`);
  out(`reasoning: ${j(a.reasoning.mode)}  start=${vis(a.reasoning.start)}  end=${vis(a.reasoning.end)}`);
  out(`content:   ${j(a.content.mode)}  start=${vis(a.content.start)}  end=${vis(a.content.end)}  requires_nonnull_content=${a.content.requiresNonnullContent}`);
  const m = a.messages;
  if (m) {
    const reasoning = m.reasoningRecipient != null ? `  reasoning_recipient=${m.reasoningRecipient}` : '';
    out(`messages:  start=${vis(m.messageStart)}  recipient_prefix=${vis(m.recipientPrefix)}  header_end=${vis(m.headerEnd)}  content_recipient=${m.contentRecipient}${reasoning}  ends=${m.messageEnds.join(' ')}`);
  }
  const t = a.tools;
  const f = t.format;
  const wire = t.requiresWireShape ? '  requires_wire_shape=true (calls sent as content null, arguments a JSON string)' : '';
  out(`tools:     ${j(f.mode)}${wire}`);
  const rows = [
    ['section_start', f.sectionStart], ['section_end', f.sectionEnd], ['per_call_start', f.perCallStart], ['per_call_end', f.perCallEnd],
    ['function.name_prefix', t.function.namePrefix], ['function.name_suffix', t.function.nameSuffix], ['function.close', t.function.close],
    ['arguments.start', t.arguments.start], ['arguments.end', t.arguments.end], ['arguments.name_prefix', t.arguments.namePrefix],
    ['arguments.name_suffix', t.arguments.nameSuffix], ['arguments.value_prefix', t.arguments.valuePrefix],
    ['arguments.value_suffix', t.arguments.valueSuffix], ['arguments.separator', t.arguments.separator],
    ['call_id.prefix', t.callId.prefix], ['call_id.suffix', t.callId.suffix],
  ];
  for (const [k, v] of rows) if (v) out(`  ${k.padEnd(24)}${vis(v)}`);
  if (f.mode === 'JSON_NATIVE') {
    out(`  json fields: function=${f.functionField} name=${f.nameField} args=${f.argsField} id=${f.idField} gen_id=${f.genIdField} name_is_key=${f.funNameIsKey} array_wrapped=${f.toolsArrayWrapped}`);
  }
  out(`  call_id.pos             ${j(t.callId.pos)}`);
  out(`preserved: ${a.preservedTokens.map(vis).join('  ')}`);
  if (a.workarounds.length) out(`workarounds: ${a.workarounds.join(', ')}`);
  for (const d of a.diagnostics) out(`diagnostic: ${d}`);
  out(`complete:  ${a.analysisComplete}`);
  out(`\ndiff splits (${a.diffs.length}):`);
  for (const d of a.diffs) {
    out(`  [${d.step}] ${d.changed}${d.ok ? '' : '  (render failed)'}`);
    out(`      prefix …${vis(tail(d.prefix, 60))}`);
    out(`      left   ${vis(d.left)}`);
    out(`      right  ${vis(d.right)}`);
    out(`      suffix ${vis(head(d.suffix, 60))}…`);
  }
}

/** `Verified::summary` of the native CLI. */
const summary = (v) => {
  const s = (p) => ({ ok: 'ok', failed: 'FAILED', untested: 'untested' }[p] ?? p);
  return `content ${s(v.content)}, reasoning ${s(v.reasoning)}, tool calls ${s(v.toolCalls)}`;
};

/** Split UTF-8 `bytes` into chunks of `n` bytes, each extended to a character boundary (as the native CLI does). */
function* byteChunks(bytes, n) {
  for (let start = 0; start < bytes.length;) {
    let end = Math.min(start + n, bytes.length);
    while (end < bytes.length && (bytes[end] & 0xc0) === 0x80) end++;
    yield bytes.subarray(start, end).toString('utf8');
    start = end;
  }
}

/** Runs a command; returns the exit status. `out`/`err` write whole lines. */
function run(args, out, err, write) {
  const positional = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tools' || args[i] === '--options' || args[i] === '--stream') { i++; continue; }
    if (!args[i].startsWith('--')) positional.push(args[i]);
  }
  const [command] = positional;
  const json = flag(args, '--json');
  if (command === 'analyze' && positional.length >= 2) {
    const a = template(positional[1]).analysis;
    if (json) out(JSON.stringify(a, null, 2));
    else {
      printAnalysis(a, out);
      out(`verified:  ${a.verified.ok} (${summary(a.verified)})`);
    }
    return 0;
  }
  if (command === 'grammar' && positional.length >= 2) {
    const g = buildGrammar(template(positional[1]), requestOptions(args));
    if (json) out(JSON.stringify(g, null, 2));
    else {
      out(`# lazy: ${g.lazy}`);
      for (const tr of g.triggers) out(`# trigger (${tr.type}): ${vis(tr.value)}`);
      out(`# preserved tokens: ${g.preservedTokens.map(vis).join('  ')}`);
      out(g.gbnf);
    }
    return 0;
  }
  if (command === 'parse' && positional.length >= 2) {
    const t = template(positional[1]);
    const output = read(positional[2] ?? '-');
    const options = requestOptions(args);
    if (flag(args, '--stream-arguments')) options.streamArguments = true;
    const streamArg = value(args, '--stream');
    let size = Infinity;
    if (streamArg !== undefined) {
      if (!/^\+?\d+$/.test(streamArg)) throw new CliError(`--stream takes a chunk size in bytes, not ${JSON.stringify(streamArg)}`);
      size = Math.max(1, Number(streamArg));
    }
    const streaming = size !== Infinity;
    const parser = new StreamParser(t, options);
    const bytes = Buffer.from(output, 'utf8');
    for (const chunk of streaming ? byteChunks(bytes, size) : [output]) {
      for (const d of parser.push(chunk)) if (streaming) out(JSON.stringify(d));
    }
    let failure;
    let finished = [];
    try {
      finished = parser.finish();
    } catch (e) {
      failure = e;
      finished = e.deltas ?? [];
    }
    if (streaming) for (const d of finished) out(JSON.stringify(d));
    for (const d of parser.diagnostics) err(`diagnostic at byte ${utf8(output.slice(0, d.offset))}: ${d.message}`);
    const { finishReason: _, ...message } = parser.message;   // the native message has no finishReason
    out(JSON.stringify(message, null, 2));
    if (failure) throw new CliError(failure.message);
    return 0;
  }
  if (command === 'compile' && positional.length >= 2) {
    const options = value(args, '--options') !== undefined ? readJson(value(args, '--options')) : undefined;
    out(JSON.stringify(compileParser(template(positional[1]), options)));
    return 0;
  }
  if (command === 'render' && positional.length >= 2) {
    const t = template(positional[1]);
    const context = positional[2] !== undefined ? readJson(positional[2])
      : { messages: [{ role: 'user', content: 'Hello' }], add_generation_prompt: true };
    write(t.render(context));
    return 0;
  }
  if (command === 'response-template' && positional.length >= 2) {
    const d = responseTemplate(template(positional[1]));
    if (json) out(JSON.stringify(d, null, 2));
    else {
      // The template on stdout (ready for tokenizer_config.json); what it loses on stderr.
      out(JSON.stringify(d.responseTemplate, null, 2));
      for (const l of d.losses) err(`# ${l.feature} (${l.severity}): ${l.detail}`);
    }
    return 0;
  }
  if (command === 'verify' && positional.length >= 2) {
    const report = verifyTemplate(template(positional[1]));
    if (json) out(JSON.stringify(report, null, 2));
    else {
      for (const r of report.results) {
        const status = r.skipped ? `skipped (${r.skipped})` : r.ok ? 'ok' : `FAILED${r.error ? `: ${r.error}` : ''}`;
        out(`${r.name.padEnd(24)}${status}`);
      }
      out(`verified:  ${report.verified.ok} (${summary(report.verified)})`);
    }
    return report.ok ? 0 : 1;
  }
  if (command === 'version') {
    out(version());
    return 0;
  }
  throw new CliError(USAGE);
}

const args = process.argv.slice(2);
// A reader that stops reading (`chat-autoparser analyze T --json | head`) ends the tool quietly.
process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
const out = (line) => process.stdout.write(`${line}\n`);
const err = (line) => process.stderr.write(`${line}\n`);
const help = helpRequest(args);
if (help !== undefined) {
  out(help);
} else {
  try {
    process.exitCode = run(args, out, err, (s) => process.stdout.write(s));
  } catch (e) {
    err(`error: ${e instanceof CliError ? e.message : e?.message ?? String(e)}`);
    process.exitCode = 1;
  }
}
