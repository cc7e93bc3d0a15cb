// Node ESM entry: the CommonJS build loads the wasm synchronously; re-export its named exports.
export * from './chat_autoparser.js';
import pkg from './chat_autoparser.js';
export default pkg;
