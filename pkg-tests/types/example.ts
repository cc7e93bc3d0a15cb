// Compiled with `tsc --noEmit` against the shipped declarations: uses every export once.
import init from 'chat-autoparser/web';
import nodeInit, {
  version, renderTemplate, ChatTemplate, analyzeTemplate, generationPrompt, parseOutput, StreamParser,
  buildGrammar, checkGrammar, verifyTemplate, responseTemplate, parseResponse,
  type RegionEvent,
  type HfResponseTemplate, type ResponseTemplateLoss,
  type Analysis, type Message, type Delta, type Grammar, type CheckResult, type VerifyReport, type RequestOptions,
  ChatAutoparserError, type ErrorKind, type Caps, type Diagnostic, compileParser, type ParserSpec,
} from 'chat-autoparser';
import parserInit, * as parseOnly from 'chat-autoparser/parser';

async function main(source: string): Promise<void> {
  await init();
  await nodeInit();   // a no-op in Node: isomorphic code may call it
  const v: string = version();
  const prompt: string = renderTemplate(source, { messages: [{ role: 'user', content: 'hi' }], add_generation_prompt: true }, { now: 0, fuel: 1e6 });
  const t = new ChatTemplate(source, { bosToken: '<s>' });
  const caps: Caps = t.caps;
  const a: Analysis = t.analysis;
  const a2: Analysis = analyzeTemplate(source);
  const opts: RequestOptions = {
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    reasoningFormat: 'auto', toolChoice: 'auto', parallelToolCalls: true, isPartial: false,
  };
  const gp: string = generationPrompt(t, opts);
  const m: Message = parseOutput(t, 'Hello', opts);
  const p = new StreamParser(source, opts);
  const deltas: Delta[] = [...p.push('Hel'), ...p.push('lo'), ...p.finish()];
  const msg: Message = p.message;
  const diags: Diagnostic[] = p.diagnostics;
  const stopped: boolean = p.stopped;
  p.free();
  const g: Grammar = buildGrammar(t, opts);
  const r: CheckResult = checkGrammar(g.gbnf, '<tool_call>');
  const rep: VerifyReport = verifyTemplate(t);
  try {
    t.render({ messages: [] });
  } catch (e) {
    if (e instanceof ChatAutoparserError) {
      const kind: ErrorKind = e.kind;
      console.log(kind, e.line, e.column, e.offset, e.deltas?.length);
    }
  }
  t.free();
  console.log(v, prompt, caps.supportsTools, a.reasoning.mode, a2.tools.format.mode, gp, m.content, deltas.length, msg.tool_calls?.length,
    diags.length, stopped, g.lazy, g.triggers[0]?.type, r.accepted, r.errorAt, rep.ok, rep.results[0]?.name);
}

async function derived(source: string): Promise<void> {
  await init();
  const d = responseTemplate(source, { reasoningField: 'thinking' });
  const rt: HfResponseTemplate = d.responseTemplate;
  const losses: ResponseTemplateLoss[] = d.losses;
  console.log(Object.keys(rt.fields), losses.map((l) => `${l.feature}:${l.severity}`));
  const declared = new ChatTemplate({ chat_template: source, response_template: rt }, { responseTemplate: rt });
  const dict: Record<string, unknown> = parseResponse('x', rt, { prefix: '', tools: [] });
  const p = new StreamParser(declared, { reasoningField: 'thinking' });
  const { deltas, events }: { deltas: Delta[]; events: RegionEvent[] } = p.pushEvents('x');
  const last = p.finishEvents();
  console.log(dict, deltas.length, events[0]?.type, last.events.length, declared.responseTemplate?.fields);
}

main('').catch(() => {});
derived('').catch(() => {});

export function withDiagnostics(t: ChatTemplate): number {
  const r = parseOutput(t, 'x', { diagnostics: true });
  const plain: Message = parseOutput(t, 'x', { diagnostics: false });
  return r.diagnostics.length + r.message.role.length + plain.role.length;
}

/** The parse-only module (issue #28): a spec from the full package, parsed without the template. */
export async function parseOnlyExample(source: string): Promise<number> {
  await parserInit();
  const spec: ParserSpec = compileParser(source, { extraContext: { thinking: true } });
  const v: 4 = spec.specVersion;
  const m: Message = parseOnly.parseOutput(spec, 'x', { enableThinking: true });
  const r: parseOnly.ParseResult = parseOnly.parseOutput(JSON.stringify(spec), 'x', { diagnostics: true });
  const p = new parseOnly.StreamParser(spec, { tools: [] });
  const d: parseOnly.Delta[] = [...p.push('x'), ...p.finish()];
  const reason: parseOnly.FinishReason | null = p.finishReason;
  const prompt: string = parseOnly.generationPrompt(spec, { enableThinking: false });
  try { parseOnly.parseOutput({ ...spec }, 'x'); } catch (e) { if (e instanceof parseOnly.ChatAutoparserError && e.kind === 'SpecVersion') return 0; }
  p.free();
  return v + m.role.length + r.diagnostics.length + d.length + (reason ?? '').length + prompt.length + parseOnly.version().length;
}
