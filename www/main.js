import init, { ChatTemplate, version } from './pkg/chat_autoparser.js';

const SAMPLES = [
  'Qwen3-Coder.jinja', 'NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja', 'openai-gpt-oss-120b.jinja',
  'Qwen3.5-4B.jinja', 'deepseek-ai-DeepSeek-V3.1.jinja', 'meta-llama-Llama-3.1-8B-Instruct.jinja',
  'mistralai-Mistral-Nemo-Instruct-2407.jinja', 'GLM-4.6.jinja', 'MiniMax-M2.jinja', 'ibm-granite-granite-3.3-2B-Instruct.jinja',
];
const DEFAULT_CONTEXT = {
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: "What's the weather in Paris?" },
  ],
  add_generation_prompt: true,
};

const $ = (id) => document.getElementById(id);

function showError(e) {
  const where = e && e.line ? ` (line ${e.line}, column ${e.column})` : '';
  $('error').textContent = `${e && e.kind ? e.kind + ': ' : ''}${e && e.message ? e.message : e}${e && e.message && e.message.includes('line') ? '' : where}`;
  $('error').hidden = false;
}

function render() {
  $('error').hidden = true;
  try {
    const ctx = JSON.parse($('context').value);
    const t = new ChatTemplate($('template').value);
    try { $('out').textContent = t.render(ctx); } finally { t.free(); }
  } catch (e) {
    $('out').textContent = '';
    showError(e);
  }
}

async function loadSample(name) {
  const res = await fetch(`samples/${name}`);
  $('template').value = await res.text();
  render();
}

await init();
$('status').textContent = `v${version()} ready`;
for (const s of SAMPLES) $('sample').append(new Option(s.replace(/\.jinja$/, ''), s));
$('context').value = JSON.stringify(DEFAULT_CONTEXT, null, 2);
$('sample').addEventListener('change', () => loadSample($('sample').value));
$('file').addEventListener('change', async () => {
  const f = $('file').files[0];
  if (f) { $('template').value = await f.text(); render(); }
});
$('render').addEventListener('click', render);
$('render').disabled = false;
await loadSample(SAMPLES[0]);
