// Shared helpers for the Node tests: load the built package the way users do, and read ../shared data.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const sharedDir = process.env.CHAT_AUTOPARSER_SHARED || join(repoRoot, '..', 'shared');

export function loadJsonl(name) {
  return readFileSync(join(sharedDir, 'conformance', name), 'utf8')
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

export function templateSource(name) {
  return readFileSync(join(sharedDir, 'conformance', 'templates', name), 'utf8');
}

/** 2024-07-26 12:00:00 UTC, the reference renders' `strftime_now` time. */
export const REFERENCE_NOW = 1721995200;

/** A case of cases.jsonl as the package's request options. */
export function optionsOf(c) {
  return {
    tools: c.tools ?? [], messages: c.messages, addGenerationPrompt: c.add_generation_prompt,
    continueFinalMessage: c.continue_final_message, enableThinking: c.enable_thinking, reasoningFormat: c.reasoning_format,
    parallelToolCalls: c.parallel_tool_calls, toolChoice: c.tool_choice, jsonSchema: c.json_schema, isPartial: c.is_partial,
  };
}
