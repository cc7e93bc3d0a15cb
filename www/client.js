// Main-thread side of worker.js: promise-returning calls, and a restart that abandons a busy or trapped
// worker (a long analysis of a template that was since edited, or a wasm trap that poisoned the instance).

export class WasmClient {
  constructor(url = 'worker.js') {
    this.url = url;
    this.generation = 0;
    this.onrestart = null;
    this.onfatal = null;
    this.start();
  }

  start() {
    this.generation += 1;
    this.pending = new Map();
    this.nextId = 1;
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = ({ data }) => {
      const p = this.pending.get(data.id);
      if (!p) return;
      this.pending.delete(data.id);
      if (data.ok) p.resolve(data.result);
      else {
        p.reject(Object.assign(new Error(data.error.message), data.error));
        if (data.error.fatal) this.restart('the wasm instance trapped; restarted');
      }
    };
    // A worker that fails to load (e.g. missing pkg/) reports here, not through a message.
    this.worker.onerror = (ev) => {
      ev.preventDefault?.();
      const err = Object.assign(new Error(ev.message || 'worker failed to load'), { kind: 'Worker' });
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.onfatal?.(err);
    };
  }

  /** Call an op in the worker. Rejects with the wasm error (kind, line, column, offset preserved). */
  call(op, args) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, op, since: performance.now() });
      this.worker.postMessage({ id, op, args });
    });
  }

  /** Milliseconds the oldest pending call has been running (0 when idle). */
  busyFor() {
    let oldest = Infinity;
    for (const p of this.pending.values()) oldest = Math.min(oldest, p.since);
    return oldest === Infinity ? 0 : performance.now() - oldest;
  }

  /** Kill the worker and start a fresh one; pending calls reject with kind "Cancelled". */
  restart(reason = 'cancelled') {
    this.worker.terminate();
    const err = Object.assign(new Error(reason), { kind: 'Cancelled' });
    const old = this.pending;
    this.start();
    for (const p of old.values()) p.reject(err);
    this.onrestart?.(reason);
  }
}
