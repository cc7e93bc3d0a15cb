// Template picker over the repository's templates (www/templates/index.json, written by
// scripts/playground-templates.mjs at build time), with search; and reading a dropped or opened file:
// a Jinja template, or a tokenizer_config.json whose `chat_template` is taken.
import { $, h } from './show.js';

/**
 * {source, label, responseTemplate?, notes[]} from a file's name and text. A tokenizer_config.json gives its
 * `chat_template` (a string, or a list of {name, template}: "default" else the first) and its
 * `response_template`, checked in the Response template tab (#16).
 */
export function templateFromFile(name, text) {
  // A .json file is a config; a file without a template extension is one when it parses as a JSON object
  // (a Jinja template may also start with "{").
  let cfg;
  if (/\.json$/i.test(name)) {
    try { cfg = JSON.parse(text); } catch (e) { throw new Error(`${name} is not valid JSON: ${e.message}`); }
  } else if (!/\.(jinja2?|j2|txt)$/i.test(name) && /^\s*\{/.test(text)) {
    try { cfg = JSON.parse(text); } catch { cfg = undefined; }
  }
  if (!cfg || typeof cfg !== 'object') return { source: text, label: `file: ${name}`, notes: [] };
  const ct = cfg?.chat_template;
  const notes = [];
  let source;
  let which = '';
  if (typeof ct === 'string') source = ct;
  else if (Array.isArray(ct) && ct.length) {
    const pick = ct.find((t) => t?.name === 'default') || ct[0];
    source = pick?.template;
    which = pick?.name ? ` [${pick.name}]` : '';
    const others = ct.filter((t) => t !== pick).map((t) => t?.name).filter(Boolean);
    if (others.length) notes.push(`also in the file: ${others.join(', ')} (not loaded)`);
  }
  if (typeof source !== 'string') throw new Error(`${name} has no chat_template (a string or a list of {name, template})`);
  const responseTemplate = cfg.response_template;
  if (responseTemplate !== undefined) notes.push('response_template found: checked against the analysis in the Response template tab');
  return { source, label: `${name}${which}`, responseTemplate, notes };
}

export class TemplatePicker {
  constructor({ onPick }) {
    this.onPick = onPick;
    this.entries = [];
    this.select = $('sample');
    this.search = $('template-search');
    this.current = null; // path of the loaded entry, or null
    this.label = '';
    this.search.addEventListener('input', () => this.fillOptions());
    this.search.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        const first = this.matches()[0];
        if (first) this.onPick(first);
      }
    });
    this.select.addEventListener('change', () => {
      const e = this.entries.find((x) => x.path === this.select.value);
      if (e) this.onPick(e);
    });
  }

  async load() {
    try {
      const res = await fetch('templates/index.json');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      this.entries = await res.json();
    } catch {
      this.entries = []; // the page still works with pasted templates
    }
    this.search.placeholder = `search ${this.entries.length} templates`;
    this.fillOptions();
  }

  matches() {
    const words = this.search.value.toLowerCase().split(/\s+/).filter(Boolean);
    return this.entries.filter((e) => words.every((w) => `${e.name} ${e.sets.join(' ')}`.toLowerCase().includes(w)));
  }

  byName(name) { return this.entries.find((e) => e.name === name) || null; }

  /** What the selector shows: the loaded entry, or `label` (e.g. "pasted") for text from elsewhere. */
  show(entry, label) {
    this.current = entry ? entry.path : null;
    this.label = entry ? '' : label;
    this.fillOptions();
  }

  fillOptions() {
    const shown = this.matches();
    const groups = new Map();
    for (const e of shown) {
      if (!groups.has(e.set)) groups.set(e.set, []);
      groups.get(e.set).push(e);
    }
    const opts = [];
    if (!this.current) opts.push(h('option', { value: '', selected: true }, this.label || 'pasted'));
    else if (!shown.some((e) => e.path === this.current)) {
      const cur = this.entries.find((e) => e.path === this.current);
      if (cur) opts.push(h('option', { value: cur.path, selected: true }, cur.name));
    }
    for (const [set, list] of groups) {
      opts.push(h('optgroup', { label: `${set} (${list.length})` },
        list.map((e) => h('option', { value: e.path, selected: e.path === this.current || undefined }, e.name))));
    }
    if (!shown.length) opts.push(h('option', { disabled: true }, 'no template matches'));
    this.select.replaceChildren(...opts);
  }
}
