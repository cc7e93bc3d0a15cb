// Shared by the adapters (not a package subpath).

/**
 * `parser.finish()` that never throws for model output: `{ deltas, cut }`, where `cut` says the
 * output ended inside a tool call (the parser's error carries the deltas flushed before it).
 * Errors that are not about the output (a freed parser, …) are rethrown.
 */
export function finishParser(parser) {
  try {
    return { deltas: parser.finish(), cut: false };
  } catch (err) {
    if (!Array.isArray(err?.deltas)) throw err;
    return { deltas: err.deltas, cut: true };
  }
}
