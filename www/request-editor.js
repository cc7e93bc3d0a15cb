// The request editor: the conversation (roles, content, reasoning, tool calls, an assistant prefill with
// its continuation mode), tools, a response JSON schema and extra template variables. It produces the
// API's RequestOptions and shows every validation error next to the field it is about.
import { $, h, fill } from './show.js';

const ROLES = ['system', 'user', 'assistant', 'tool'];
export const DEFAULT_MESSAGES = [{ role: 'user', content: "What's the weather in Paris?" }];

// Names every template gets from the caller or from Jinja itself: not "extra" switches.
const KNOWN = new Set(`messages tools add_generation_prompt bos_token eos_token enable_thinking loop namespace range
  raise_exception strftime_now true false none True False None if elif else endif for in endfor set endset macro
  endmacro call endcall not and or is filter endfilter recursive with endwith generation endgeneration break continue
  do import include from as block endblock extends raw endraw self varargs kwargs caller dict lipsum cycler joiner
  zip len tojson items keys values`.split(/\s+/));

/**
 * Variables a template reads that the request does not set: the template's own switches (`thinking`,
 * `reasoning_effort`, `documents`, …). Identifiers read in tags and expressions before the template binds
 * them itself (a `{% set thinking = … %}` default after `thinking is defined` still counts), minus
 * attributes, filters, tests, keyword arguments and the standard context.
 */
export function templateVariables(source) {
  const bound = new Set();
  const inputs = new Set();
  for (const [, body] of source.matchAll(/\{[{%]-?([\s\S]*?)-?[}%]\}/g)) {
    const code = body.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
    const loop = /^\s*for\s+([\w\s,()]+?)\s+in\b/.exec(code);
    const macro = /^\s*macro\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/.exec(code);
    // Loop variables and macro parameters are bound before the tag's own expressions are read.
    if (loop) for (const n of loop[1].match(/[A-Za-z_]\w*/g) || []) bound.add(n);
    if (macro) { bound.add(macro[1]); for (const a of macro[2].split(',')) { const n = /[A-Za-z_]\w*/.exec(a); if (n) bound.add(n[0]); } }
    for (const t of code.matchAll(/([.|]\s*|\bis\s+(?:not\s+)?)?\b([A-Za-z_]\w*)\b(\s*=(?!=))?/g)) {
      if (t[1] || t[3]) continue; // attribute, filter, test, keyword argument or assignment target
      if (!bound.has(t[2])) inputs.add(t[2]);
    }
    const set = /^\s*set\s+([A-Za-z_]\w*)/.exec(code);
    if (set) bound.add(set[1]);
  }
  return [...inputs].filter((n) => !KNOWN.has(n)).sort();
}

/** A JSON field: parsed value, or an error with line/column, shown under the textarea. */
function parseJsonField(text, what, check) {
  const t = text.trim();
  if (!t) return { value: undefined };
  try {
    const v = JSON.parse(t);
    const problem = check?.(v);
    if (problem) return { error: `${what}: ${problem}` };
    return { value: v };
  } catch (e) {
    const m = /position (\d+)/.exec(e.message);
    let loc = '';
    if (m && !/line \d/.test(e.message)) {
      const before = t.slice(0, Number(m[1])).split('\n');
      loc = ` (line ${before.length}, column ${before.at(-1).length + 1})`;
    }
    return { error: `${what}: ${e.message}${loc}` };
  }
}

function showError(el, message) {
  el.textContent = message || '';
  el.hidden = !message;
  const box = el.closest('details');
  if (message && box) box.open = true; // an error inside a closed section must still be seen
}

export class RequestEditor {
  constructor({ onChange }) {
    this.onChange = onChange;
    this.messages = DEFAULT_MESSAGES.map((m) => ({ ...m }));
    this.list = $('messages');
    $('add-message').addEventListener('click', () => {
      const last = this.messages.at(-1)?.role;
      this.messages.push({ role: last === 'user' ? 'assistant' : 'user', content: '' });
      this.renderMessages();
      this.onChange();
    });
    for (const id of ['tools', 'schema', 'extra']) $(id).addEventListener('input', () => this.onChange());
    for (const id of ['enable-thinking', 'parallel', 'reasoning-format', 'tool-choice', 'continue-mode']) $(id).addEventListener('change', () => this.onChange());
    this.renderMessages();
  }

  renderMessages() {
    fill(this.list, this.messages.map((m, i) => this.messageRow(m, i)));
  }

  messageRow(m, i) {
    const changed = () => this.onChange();
    const role = h('select', { 'aria-label': `message ${i + 1} role`, class: 'm-role' }, ROLES.map((r) => h('option', { selected: r === m.role || undefined }, r)));
    role.addEventListener('change', () => { m.role = role.value; this.renderMessages(); changed(); });
    const field = (key, label, rows, placeholder) => {
      const ta = h('textarea', { rows, spellcheck: 'false', 'aria-label': `message ${i + 1} ${label}`, placeholder, class: `m-${key}` });
      ta.value = m[key] ?? '';
      ta.addEventListener('input', () => { m[key] = ta.value; changed(); });
      return h('label', { class: 'm-field' }, h('span', { class: 'muted' }, label), ta);
    };
    const move = (d) => { const j = i + d; if (j < 0 || j >= this.messages.length) return; [this.messages[i], this.messages[j]] = [this.messages[j], this.messages[i]]; this.renderMessages(); changed(); };
    const btn = (text, title, fn, disabled) => h('button', { class: 'small secondary', title, 'aria-label': `${title} (message ${i + 1})`, disabled, onclick: fn }, text);
    const isAssistant = m.role === 'assistant';
    return h('div', { class: 'message', 'data-index': i },
      h('div', { class: 'row m-head' }, h('span', { class: 'muted' }, `#${i + 1}`), role,
        btn('↑', 'move up', () => move(-1), i === 0 || undefined),
        btn('↓', 'move down', () => move(1), i === this.messages.length - 1 || undefined),
        btn('✕', 'remove', () => { this.messages.splice(i, 1); this.renderMessages(); changed(); })),
      field('content', 'content', 2, isAssistant ? 'text (a prefill when this is the last message)' : ''),
      isAssistant ? field('reasoning', 'reasoning_content', 1, 'optional') : null,
      isAssistant ? field('toolCalls', 'tool_calls (JSON array)', 2, '[{"function": {"name": "get_weather", "arguments": {"location": "Paris"}}}]') : null,
      m.role === 'tool' ? field('toolCallId', 'tool_call_id', 1, 'call id this result answers') : null,
      h('div', { class: 'error m-error', hidden: true }));
  }

  /** The editor's state, as saved in links and localStorage. */
  get state() {
    return {
      messages: this.messages.map((m) => ({ ...m })),
      continueMode: $('continue-mode').value,
      enableThinking: $('enable-thinking').checked,
      parallel: $('parallel').checked,
      reasoningFormat: $('reasoning-format').value,
      toolChoice: $('tool-choice').value,
      tools: $('tools').value, schema: $('schema').value, extra: $('extra').value,
    };
  }

  set state(s) {
    this.messages = Array.isArray(s.messages) && s.messages.length ? s.messages.map((m) => ({ ...m })) : DEFAULT_MESSAGES.map((m) => ({ ...m }));
    const pick = (id, v) => { if (v !== undefined) $(id).value = v; };
    pick('continue-mode', s.continueMode);
    if (typeof s.enableThinking === 'boolean') $('enable-thinking').checked = s.enableThinking;
    if (typeof s.parallel === 'boolean') $('parallel').checked = s.parallel;
    pick('reasoning-format', s.reasoningFormat);
    pick('tool-choice', s.toolChoice);
    pick('tools', s.tools);
    pick('schema', s.schema);
    pick('extra', s.extra);
    this.renderMessages();
  }

  /** True when the conversation ends with an assistant message that the output continues. */
  get continuing() {
    return $('continue-mode').value !== 'none' && this.messages.at(-1)?.role === 'assistant';
  }

  /**
   * RequestOptions for the API, or null when a field is invalid (each error is shown in place).
   * The result also carries `context` extras for rendering the prompt.
   */
  options() {
    let ok = true;
    const tools = parseJsonField($('tools').value, 'Tools JSON', (v) => (Array.isArray(v) ? null : 'tools must be a JSON array'));
    showError($('tools-error'), tools.error);
    const schema = parseJsonField($('schema').value, 'JSON schema', (v) => (v && typeof v === 'object' && !Array.isArray(v) ? null : 'a JSON schema is an object'));
    showError($('schema-error'), schema.error);
    const extra = parseJsonField($('extra').value, 'Template variables', (v) => (v && typeof v === 'object' && !Array.isArray(v) ? null : 'template variables are a JSON object: {"name": value}'));
    showError($('extra-error'), extra.error);
    if (tools.error || schema.error || extra.error) ok = false;
    const n = Array.isArray(tools.value) ? tools.value.length : 0;
    $('tools-count').textContent = tools.error ? '' : `— ${n ? `${n} tool${n > 1 ? 's' : ''}` : 'none'}`;

    const messages = [];
    this.messages.forEach((m, i) => {
      const row = this.list.children[i];
      const errors = [];
      const out = { role: m.role, content: m.content ?? '' };
      if (m.role === 'assistant') {
        if (m.reasoning) out.reasoning_content = m.reasoning;
        const calls = parseJsonField(m.toolCalls || '', 'tool_calls', (v) => {
          if (!Array.isArray(v)) return 'a JSON array of calls';
          const bad = v.findIndex((c) => typeof c?.function?.name !== 'string');
          return bad >= 0 ? `call ${bad} needs function.name (a string)` : null;
        });
        if (calls.error) errors.push(calls.error);
        else if (calls.value?.length) out.tool_calls = calls.value.map((c, k) => ({ id: c.id ?? `call_${i}_${k}`, type: 'function', ...c }));
      }
      if (m.role === 'tool') {
        if (m.toolCallId) out.tool_call_id = m.toolCallId;
        else errors.push('a tool result needs the tool_call_id it answers');
      }
      if (row) showError(row.querySelector('.m-error'), errors.join('\n'));
      if (errors.length) ok = false;
      messages.push(out);
    });
    const mode = $('continue-mode').value;
    const contErr = mode !== 'none' && messages.at(-1)?.role !== 'assistant'
      ? `continuing needs an assistant message last (the prefill); the last message is ${messages.at(-1)?.role ?? 'missing'}` : '';
    showError($('continue-error'), contErr);
    if (contErr) ok = false;
    if (!messages.length) { showError($('continue-error'), 'the conversation needs at least one message'); ok = false; }
    if (!ok) return null;
    const options = {
      messages,
      tools: tools.value && tools.value.length ? tools.value : undefined,
      jsonSchema: schema.value,
      extraContext: extra.value,
      continueFinalMessage: mode === 'none' ? undefined : mode,
      enableThinking: $('enable-thinking').checked,
      reasoningFormat: $('reasoning-format').value,
      parallelToolCalls: $('parallel').checked,
      toolChoice: $('tool-choice').value,
    };
    // Absent, not undefined: the options cross postMessage and serde, where undefined is not "missing".
    for (const k of Object.keys(options)) if (options[k] === undefined) delete options[k];
    return options;
  }

  /** Offer the template's own switches as one-click additions to the template variables. */
  showTemplateVariables(source) {
    const names = templateVariables(source);
    let current = {};
    try { current = JSON.parse($('extra').value || '{}') || {}; } catch { current = null; }
    fill($('extra-vars'), names.length ? [h('span', { class: 'muted' }, 'this template also reads: '),
      names.map((n) => h('button', {
        class: `small chip-btn ${current && n in current ? 'set' : ''}`, title: `add "${n}" to the template variables`,
        onclick: () => {
          let obj = {};
          try { obj = JSON.parse($('extra').value || '{}'); } catch { return; }
          if (!(n in obj)) obj[n] = true;
          $('extra').value = JSON.stringify(obj, null, 2);
          this.showTemplateVariables(source);
          this.onChange();
        },
      }, n))] : null);
  }
}
