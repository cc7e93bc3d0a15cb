
/** Browser/bundler build only: load the wasm module. Call once before anything else. */
export default function init(input?: unknown): Promise<unknown>;
