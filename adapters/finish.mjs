// Shared by the adapters (not a package subpath).

/**
 * `parser.finish()`: `{ deltas, cut }`, where `cut` says the output ended inside a tool call
 * (`finishReason: 'length'`; a `strict` parser throws there instead, its error carrying the deltas
 * flushed before it). Errors that are not about the output (a freed parser, …) are rethrown.
 */
export function finishParser(parser) {
  try {
    const deltas = parser.finish();
    return { deltas, cut: parser.finishReason === 'length' };
  } catch (err) {
    if (!Array.isArray(err?.deltas)) throw err;
    return { deltas: err.deltas, cut: true };
  }
}
