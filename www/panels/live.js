// Live parse: feed the sample output to a StreamParser (in the worker) chunk by chunk, showing each delta,
// the message filling in, and the final message compared with a whole-text parse.
import { $, h, ws, fill, note, pretty, errorText } from '../show.js';
import { apiOffsetToIndex } from '../offsets.js';
import { diagnosticList } from './parsed.js';

const LOG_LIMIT = 400; // DOM rows kept in the delta log (the count keeps going)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Split by code points so a chunk never ends inside a surrogate pair. */
export function chunkText(text, size) {
  const cps = Array.from(text);
  const n = Math.max(1, Math.floor(size) || 1);
  const out = [];
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(''));
  return out;
}

export class LivePlayer {
  /** ctx: {client, source(), request(), output(), features(), editor()} */
  constructor(ctx) {
    this.ctx = ctx;
    $('play').addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    $('step').addEventListener('click', () => { this.pause(); this.step(); });
    $('reset').addEventListener('click', () => this.reset());
    this.reset();
  }

  reset() {
    this.pause();
    this.run = (this.run || 0) + 1; // invalidates an in-flight step of a previous run
    this.chunks = null;
    this.pos = 0;
    this.started = false;
    this.finished = false;
    this.deltaCount = 0;
    this.tools = new Map();
    fill($('live-reasoning')); fill($('live-content')); fill($('live-tools').tBodies[0]);
    fill($('live-log')); fill($('live-diag')); fill($('live-final'));
    $('log-count').textContent = '';
    this.progress();
    const f = this.ctx.features();
    const missing = f && !f.StreamParser;
    fill($('live-note'), missing ? note(`StreamParser is not in this build (v${this.ctx.version()}): streaming appears once it lands.`, 'note missing') : null);
    for (const id of ['play', 'step']) $(id).disabled = !!missing;
  }

  progress() {
    const total = this.chunks ? this.chunks.length : chunkText(this.ctx.output(), Number($('chunk').value)).length;
    $('progress').textContent = this.finished ? `done: ${total} chunks, ${this.deltaCount} deltas`
      : `${this.pos}/${total} chunks`;
    $('meter-bar').style.width = `${this.finished ? 100 : total ? (100 * this.pos) / total : 0}%`;
    $('play').textContent = this.playing ? '⏸ Pause' : this.finished ? '▶ Replay' : '▶ Play';
  }

  async play() {
    if (this.finished) this.reset();
    this.playing = true;
    this.progress();
    const run = this.run;
    while (this.playing && !this.finished && run === this.run) {
      if (!(await this.step())) break;
      await sleep(Math.max(0, Number($('delay').value) || 0));
    }
    if (run === this.run) { this.playing = false; this.progress(); }
  }

  pause() { this.playing = false; if (this.chunks) this.progress(); }

  fail(e) {
    this.pause();
    fill($('live-note'), h('div', { class: 'error' }, errorText(e)));
  }

  /** One chunk (or the final finish()). Returns false when it failed or the run was reset meanwhile. */
  async step() {
    if (this.finished || this.busy) return !this.finished;
    this.busy = true;
    const run = this.run;
    const { client } = this.ctx;
    try {
      if (!this.started) {
        this.chunks = chunkText(this.ctx.output(), Number($('chunk').value));
        await client.call('streamStart', { source: this.ctx.source(), request: this.ctx.request() });
        if (run !== this.run) return false;
        this.started = true;
        this.generation = client.generation;
      }
      if (this.generation !== client.generation) throw new Error('the worker restarted; press Reset');
      if (this.pos < this.chunks.length) {
        const chunk = this.chunks[this.pos];
        const r = await client.call('streamPush', { chunk });
        if (run !== this.run) return false;
        this.pos += 1;
        this.apply(r.deltas, this.pos, chunk);
        this.diagnostics(r.diagnostics, r.stopped);
      } else {
        const r = await client.call('streamFinish', {});
        if (run !== this.run) return false;
        this.apply(r.deltas, 'end', '');
        this.diagnostics(r.diagnostics, r.stopped);
        this.finished = true;
        await this.final(r.message);
      }
      this.progress();
      return true;
    } catch (e) {
      if (run === this.run) this.fail(e);
      return false;
    } finally {
      this.busy = false;
    }
  }

  /** One log row per push: the chunk fed, then the deltas it produced (or none: the parser holds text back). */
  apply(deltas, at, chunk) {
    const log = $('live-log');
    const list = Array.isArray(deltas) ? deltas : [];
    log.append(h('li', { class: list.length ? '' : 'quiet' },
      h('span', { class: 'at' }, at === 'end' ? 'finish' : `#${at}`),
      at === 'end' ? null : h('span', { class: 'chunk' }, ws(chunk, '', true)),
      list.length ? list.map((d) => h('div', { class: 'delta' }, JSON.stringify(d))) : h('span', { class: 'muted' }, ' no delta')));
    for (const d of list) {
      this.deltaCount += 1;
      if (typeof d.reasoning_content === 'string') $('live-reasoning').append(ws(d.reasoning_content));
      if (typeof d.content === 'string') $('live-content').append(ws(d.content));
      for (const tc of d.tool_calls || []) this.tool(tc);
    }
    while (log.childElementCount > LOG_LIMIT) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
    $('log-count').textContent = `(${this.deltaCount})`;
  }

  tool(tc) {
    const idx = tc.index ?? 0;
    let t = this.tools.get(idx);
    if (!t) {
      t = { id: '', name: '', args: '' };
      t.row = h('tr', {}, h('td', {}, idx), h('td', {}), h('td', { class: 'name' }), h('td', { class: 'args' }));
      this.tools.set(idx, t);
      $('live-tools').tBodies[0].append(t.row);
    }
    if (tc.id) t.id = tc.id;
    if (tc.function?.name) t.name += tc.function.name;
    if (tc.function?.arguments) t.args += tc.function.arguments;
    const [, idCell, nameCell, argCell] = t.row.cells;
    idCell.textContent = t.id;
    nameCell.textContent = t.name;
    argCell.textContent = t.args;
  }

  diagnostics(diags, stopped) {
    const text = this.ctx.output();
    const list = (diags || []).map((d) => ({ ...d, index: apiOffsetToIndex(text, d.offset) }));
    fill($('live-diag'), diagnosticList(list, text, this.ctx.editor(), 'live-diags'),
      stopped ? note('The parser stopped: it saw the end of the message; later text is ignored.') : null);
  }

  /** Show the final message and whether a whole-text parse agrees with the streamed one. */
  async final(message) {
    const out = [h('pre', { id: 'final-json' }, pretty(message))];
    if (this.ctx.features()?.parseOutput) {
      try {
        const whole = await this.ctx.client.call('parse', { source: this.ctx.source(), request: this.ctx.request(), text: this.ctx.output() });
        out.push(JSON.stringify(whole) === JSON.stringify(message)
          ? h('div', { class: 'ok' }, '✓ same message as the whole-text parseOutput')
          : h('div', { class: 'error' }, '✗ differs from the whole-text parseOutput:', h('pre', {}, pretty(whole))));
      } catch (e) {
        out.push(h('div', { class: 'error' }, `parseOutput: ${errorText(e)}`));
      }
    }
    fill($('live-final'), out);
  }
}
