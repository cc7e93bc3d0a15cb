#!/usr/bin/env python3
"""How tests/fixtures/zoo was gathered: reads bare git snapshots of the source repositories (as the session's
`fetch` tool leaves them under $ZOO_MIRRORS, default /work/.mirror/<owner>+<name>/repo), extracts every chat
template byte-exact (Jinja files, JSON/YAML/Python/JS string values evaluated by their own language's rules),
drops duplicates by content and anything identical to the conformance templates ($CHAT_AUTOPARSER_SHARED or
../shared), then writes tests/fixtures/zoo/*.jinja and PROVENANCE.jsonl. Never reads llama.cpp's
models/templates, vLLM's examples or axolotl's template folder (held back as independent checks).
Kept for extending the zoo; the tests need only the committed files.
"""
import ast, json, subprocess, sys, re, os, hashlib
M = os.environ.get('ZOO_MIRRORS', '/work/.mirror')
out = []
def git(repo, *args):
    return subprocess.run(['git', '--git-dir', f'{M}/{repo.replace("/", "+")}/repo', *args], capture_output=True, check=True).stdout
def head(repo): return git(repo, 'rev-parse', 'HEAD').decode().strip()
def ls(repo): return git(repo, 'ls-tree', '-r', '--name-only', 'HEAD').decode().splitlines()
def show(repo, path): return git(repo, 'show', f'HEAD:{path}').decode('utf-8')
def add(name, text, repo, path, model=None, note=None):
    out.append(dict(name=name, text=text, repo=repo, path=path, commit=head(repo), model=model, note=note))

# 1. plain jinja files
for repo, pat in [('chujiezheng/chat_templates', r'^chat_templates/.*\.jinja$'),
                  ('huggingface/trl', r'^(trl/chat_templates/.*\.jinja|tests/data/template\.jinja|examples/scripts/.*\.jinja)$'),
                  ('mistralai/mistral-common', r'^tests/data/chat_templates/.*\.jinja$'),
                  ('MeetKai/functionary', r'^functionary/prompt_template/jinja_templates/.*\.txt$'),
                  ('ollama/ollama', r'^model/renderers/testdata/.*\.jinja2?$'),
                  ('NousResearch/Hermes-Function-Calling', r'^chat_templates/.*\.j2$'),
                  ('allenai/open-instruct', r'^open_instruct/test_data/tokenizer/chat_template\.jinja$'),
                  ('unslothai/unsloth', r'^studio/backend/assets/chat_templates/.*\.jinja$')]:
    for p in ls(repo):
        if re.match(pat, p) and 'json_to_ts_schema' not in p:
            add(repo.split('/')[0] + '-' + os.path.splitext(os.path.basename(p))[0], show(repo, p), repo, p)

# 2. ollama index.json
repo = 'ollama/ollama'
for i, e in enumerate(json.loads(show(repo, 'template/index.json'))):
    add(f'ollama-{e["name"]}-{i}', e['template'], repo, f'template/index.json#{i}', note=f'ollama template index entry {i} ({e["name"]})')

# 3. text-generation-webui instruction templates
import yaml
repo = 'oobabooga/text-generation-webui'
for p in ls(repo):
    if p.startswith('user_data/instruction-templates/') and p.endswith('.yaml'):
        d = yaml.safe_load(show(repo, p))
        add('textgen-' + os.path.basename(p)[:-5], d['instruction_template'], repo, p + '#instruction_template')

# 4. python module-level string constants
def py_strings(repo, path, namefilter):
    src = show(repo, path)
    tree = ast.parse(src)
    env = {}
    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str): return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            a, b = ev(node.left), ev(node.right)
            return None if a is None or b is None else a + b
        if isinstance(node, ast.Name): return env.get(node.id)
        if isinstance(node, ast.JoinedStr): return None
        return None
    res = []
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            v = ev(st.value)
            if v is not None:
                env[st.targets[0].id] = v
                if namefilter(st.targets[0].id) and '{%' in v or '{{' in (v or '') and namefilter(st.targets[0].id):
                    res.append((st.targets[0].id, v, st.lineno))
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Dict) and len(st.targets)==1 and isinstance(st.targets[0], ast.Name) and st.targets[0].id == 'CHAT_TEMPLATES':
            for k, v in zip(st.value.keys, st.value.values):
                s = ev(v)
                if s is not None and isinstance(k, ast.Constant):
                    res.append((k.value, s, v.lineno))
    return res
repo = 'unslothai/unsloth'
for nm, v, ln in py_strings(repo, 'unsloth/chat_templates.py', lambda n: n.endswith('_template') and 'ollama' not in n):
    add('unsloth-' + nm.replace('_template', ''), v, repo, f'unsloth/chat_templates.py#{nm}')
repo = 'abetlen/llama-cpp-python'
for nm, v, ln in py_strings(repo, 'llama_cpp/llama_chat_format.py', lambda n: n.endswith('_TEMPLATE')):
    add('llama-cpp-python-' + nm.lower().replace('_chat_template', ''), v, repo, f'llama_cpp/llama_chat_format.py#{nm}')
repo = 'allenai/open-instruct'
for nm, v, ln in py_strings(repo, 'open_instruct/dataset_transformation.py', lambda n: False):
    add('open-instruct-' + nm, v, repo, f'open_instruct/dataset_transformation.py#CHAT_TEMPLATES[{nm}]')

# 5. JS/TS template literals evaluated with node
def js_eval(repo, path, script_tail):
    src = show(repo, path)
    src = '\n'.join(l for l in src.splitlines() if not l.startswith('import '))
    src = re.sub(r'^export ', '', src, flags=re.M)
    prelude = 'const describe=()=>{},it=()=>{},expect=()=>{},beforeEach=()=>{},afterEach=()=>{},vi={fn:()=>{}},test=()=>{};\n'
    code = prelude + src + '\n' + script_tail
    open('/tmp/zoo_js.cjs','w').write(code)
    r = subprocess.run(['node', '/tmp/zoo_js.cjs'], capture_output=True)
    if r.returncode: print(r.stderr.decode()[:2000], file=sys.stderr); return {}
    return json.loads(r.stdout)
repo = 'huggingface/huggingface.js'
d = js_eval(repo, 'packages/jinja/test/e2e.test.js', 'process.stdout.write(JSON.stringify({...Object.fromEntries(Object.entries(TEST_DEFAULT_TEMPLATES).map(([k,v])=>["default:"+k,v.chat_template])), ...Object.fromEntries(Object.entries(TEST_CUSTOM_TEMPLATES).map(([k,v])=>[k,v.chat_template]))}))')
for k, v in d.items():
    if isinstance(v, str):
        model = k.split(' (')[0]
        add('hfjs-' + model, v, repo, f'packages/jinja/test/e2e.test.js#{k}', model=model if '/' in model else None)
repo = 'withcatai/node-llama-cpp'
p = 'test/standalone/chatWrappers/utils/jinjaTemplates.ts'
src = show(repo, p)
names = re.findall(r'^export const (\w+)', src, re.M)
srcs = dict(re.findall(r'^// source: (\S+)\nexport const (\w+)', src, re.M))
d = js_eval(repo, p, 'process.stdout.write(JSON.stringify({' + ','.join(names) + '}))')
for k, v in d.items():
    add('node-llama-cpp-' + k.replace('JinjaTemplate', ''), v, repo, f'{p}#{k}')


# 6. llama-cpp-python class CHAT_FORMAT strings (multimodal handlers)
repo = 'abetlen/llama-cpp-python'
tree = ast.parse(show(repo, 'llama_cpp/llama_chat_format.py'))
def ev2(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str): return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = ev2(node.left), ev2(node.right)
        return None if a is None or b is None else a + b
    return None
for cls in tree.body:
    if isinstance(cls, ast.ClassDef):
        for st in cls.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and st.targets[0].id == 'CHAT_FORMAT':
                v = ev2(st.value)
                if v: add('llama-cpp-python-' + cls.name, v, repo, f'llama_cpp/llama_chat_format.py#{cls.name}.CHAT_FORMAT')

# 7. huggingface.js ollama-utils automap: GGUF chat templates of ollama library models
repo = 'huggingface/huggingface.js'
p = 'packages/ollama-utils/src/chat-template-automap.ts'
src = show(repo, p)
src = re.sub(r'^import .*$', '', src, flags=re.M).replace('export const OLLAMA_CHAT_TEMPLATE_MAPPING: OllamaChatTemplateMapEntry[] =', 'const M =')
open('/tmp/zoo_js.cjs', 'w').write(src + '\nprocess.stdout.write(JSON.stringify(M.map(e=>[e.model,e.gguf])))')
r = subprocess.run(['node', '/tmp/zoo_js.cjs'], capture_output=True, check=True)
for model, g in json.loads(r.stdout):
    add('ollama-lib-' + model.replace('library/', '').replace(':', '-'), g, repo, f'{p}#{model}', model=model)

# 8. ollama template testdata (jinja keyed by template name)
repo = 'ollama/ollama'
for i, line in enumerate(show(repo, 'template/testdata/templates.jsonl').splitlines()):
    for k, v in json.loads(line).items():
        add(f'ollama-testdata-{k}-{i}', v, repo, f'template/testdata/templates.jsonl#L{i+1}')

# 9. model repos mirrored on GitHub
for repo, p, nm in [('RkFeeder/LG-AI-Research', 'exaone_baseline/chat_template.jinja', 'exaone-4.0-baseline'),
                    ('RkFeeder/LG-AI-Research', 'exaone_optimized/chat_template.jinja', 'exaone-4.0-optimized'),
                    ('pgadet-wq/granite-docling-258M', 'chat_template.jinja', 'granite-docling-258M')]:
    add(nm, show(repo, p), repo, p)
# tokenizer_config.json `chat_template` (a string, or a list of named templates)
for repo, p, nm in [('MiniMax-AI/MiniMax-M1', 'tokenizer_config.json', 'MiniMax-M1'),
                    ('Tencent-Hunyuan/Hunyuan-A13B', 'models/tokenizer_config.json', 'Tencent-Hunyuan-A13B'),
                    ('Tencent/Tencent-Hunyuan-Large', 'models/tokenizer_config.json', 'Tencent-Hunyuan-Large')]:
    ct = json.loads(show(repo, p))['chat_template']
    for e in ct if isinstance(ct, list) else [{'name': None, 'template': ct}]:
        add(nm + (f"-{e['name']}" if e['name'] else ''), e['template'], repo, p + '#chat_template' + (f"[{e['name']}]" if e['name'] else ''))

candidates = out

# ---- deduplicate ----
import glob, hashlib, collections
c = candidates
conf = {open(f, encoding='utf-8').read().strip() for f in glob.glob(os.path.join(os.environ.get('CHAT_AUTOPARSER_SHARED', os.path.join(os.path.dirname(__file__), '..', '..', 'shared')), 'conformance/templates/*.jinja'))}
seen = {}; keep = []; dropped = collections.Counter()
for e in c:
    t = e['text']
    if '{%' not in t and '{{' not in t: dropped['nojinja'] += 1; continue
    if 'generate_schema_from_functions' in t: dropped['needs-framework-helper'] += 1; continue
    k = t.strip()
    if k in conf: dropped['conformance'] += 1; continue
    if k in seen: dropped['dup'] += 1; continue
    seen[k] = e['name']; keep.append(e)
print(len(keep), dropped)
cnt = collections.Counter(e['repo'] for e in keep); print(cnt)

# ---- write ----


D = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'fixtures', 'zoo')
os.makedirs(D, exist_ok=True)
def family(name, t):
    n = name.lower()
    # Issue #26: families added with the Xinference, OpenVINO GenAI and text-generation-webui batch, named by the
    # model line (not the layout it shares with others); checked first, and none of them names an earlier template.
    lines = [
        ('seed-oss', '<seed:bos>' in t), ('bailing', '<role>HUMAN</role>' in t or re.search(r'(^|-)ling-', n) is not None), ('ernie', 'ernie' in n),
        ('baichuan', 'baichuan' in n), ('orion', 'orion' in n), ('xverse', 'xverse' in n), ('telechat', 'telechat' in n),
        ('aquila', 'aquila' in n), ('codegeex', 'codegeex' in n), ('codeshell', 'codeshell' in n), ('kat', 'kat-v1' in n),
        ('wukong', 'wukong' in n), ('gorilla', 'gorilla' in n), ('cogvlm', 'cogvlm' in n), ('seallm', 'seallm' in n),
        ('mpt', 'mosaicml-mpt' in n), ('neural-chat', 'neural-chat' in n), ('openbuddy', 'openbuddy' in n), ('gritlm', 'gritlm' in n),
        ('gpt-sw3', 'gpt-sw3' in n), ('vigogne', 'vigogne' in n or 'vigostral' in n), ('sea-lion', 'sea-lion' in n),
        ('breeze', 'breeze-7b' in n), ('taiwan-llm', 'taiwan-llm' in n), ('dictalm', 'dictalm' in n), ('phogpt', 'phogpt' in n),
        ('tenyx', 'tenyxchat' in n), ('mammoth', 'mammoth' in n), ('wingpt', 'wingpt' in n), ('instructlab', 'merlinite' in n),
        ('swallow', 'swallow' in n), ('kullm', 'kullm' in n), ('bllossom', 'bllossom' in n), ('luxia', 'luxia' in n),
        ('unichat', 'unichat' in n), ('galactica', 'galactica' in n), ('airoboros', 'airoboros' in n), ('bactrian', 'bactrian' in n),
        ('baize', 'baize' in n), ('bluemoon', 'bluemoon' in n), ('guanaco', 'guanaco' in n), ('hippogriff', 'hippogriff' in n),
        ('incite', 'incite' in n), ('koalpaca', 'koalpaca' in n), ('koala', 'koala' in n), ('manticore', 'manticore' in n),
        ('metharme', 'metharme' in n), ('moss', 'textgen-moss' in n), ('minotaur', 'minotaur' in n), ('newhope', 'newhope' in n),
        ('samantha', 'samantha' in n), ('stablebeluga', 'stablebeluga' in n),
        ('stablelm', 'textgen-stablelm' in n), ('starchat', 'starchat' in n), ('synthia', 'synthia' in n),
        ('wizard-mega', 'wizard-mega' in n), ('ziya', 'ziya' in n),
    ]
    for f, c in lines:
        if c: return f
    checks = [
        ('harmony', '<|channel|>' in t), ('kimi', '<|im_middle|>' in t or 'kimi' in n),
        ('minimax', ']~b]' in t), ('hunyuan', 'hy_' in t or 'hunyuan' in n), ('exaone', '[|assistant|]' in t or 'exaone' in n),
        ('jamba', '<|bom|>' in t or 'jamba' in n), ('command-r', 'START_OF_TURN_TOKEN' in t),
        ('openchat', 'openchat' in n or 'starling' in n or 'GPT4 Correct' in t), ('solar', 'solar' in n), ('chatqa', 'chatqa' in n),
        ('idefics', 'idefics' in n), ('llava', 'llava' in n or 'moondream' in n), ('firefunction', 'firefunction' in n),
        ('codellama', 'codellama' in n), ('r1-style', 'r1_simple' in n or 'simple_chat' in n or 'simple_concat' in n),
        ('minimax', 'minimax' in n or '<beginning_of_sentence>' in t), ('glm', 'gMASK' in t or 'glm' in n), ('deepseek', '｜Assistant｜' in t or 'deepseek' in n),
        ('granite', 'granite' in n or '<|start_of_role|>' in t), ('falcon', 'falcon' in n),
        ('internlm', 'internlm' in n), ('olmo', 'olmo' in n or 'tulu' in n), ('smollm', 'smollm' in n or 'SmolLM' in t),
        ('phi', 'phi' in n or '<|end|>' in t), ('functionary', 'functionary' in n or re.match(r'meetkai-v\d', n) is not None),
        ('gemma', 'gemma' in n or '<start_of_turn>' in t or '<|turn>' in t), ('llama4', '<|header_start|>' in t),
        ('llama3', '<|start_header_id|>' in t), ('mistral', 'mistral' in n or '[INST]' in t and '<<SYS>>' not in t),
        ('llama2', '<<SYS>>' in t or 'llama2' in n or 'llama-2' in n), ('qwen', 'qwen' in n or 'qwq' in n),
        ('lfm', 'lfm' in n or '<|startoftext|>' in t and '<|im_start|>' in t), ('nemotron', 'nemotron' in n),
        ('cohere', 'cohere' in n or 'aya' in n), ('chatml', '<|im_start|>' in t),
        ('zephyr', '<|user|>' in t or 'zephyr' in n), ('vicuna', 'USER:' in t or 'vicuna' in n),
        ('alpaca', '### Instruction' in t or '### Response' in t or 'alpaca' in n),
    ]
    for f, c in checks:
        if c: return f
    return 'other'
names = set(); prov = []
for e in keep:
    base = re.sub(r'[^A-Za-z0-9._]+', '-', e['name']).strip('-')
    base = re.sub(r'\.jinja$', '', base)
    nm = base; i = 2
    while nm.lower() in names: nm = f'{base}-{i}'; i += 1
    names.add(nm.lower())
    b = e['text'].encode('utf-8')
    open(f'{D}/{nm}.jinja', 'wb').write(b)
    t = e['text']
    traits = [k for k, c in [('tools', 'tools' in t), ('reasoning', 'reasoning_content' in t or '<think>' in t or 'thinking' in t),
                             ('generation', '{% generation' in t or '{%- generation' in t), ('multimodal', "'image'" in t or '"image"' in t or 'image_url' in t)] if c]
    prov.append(dict(file=f'{nm}.jinja', repo=e['repo'], path=e['path'], commit=e['commit'], sha256=hashlib.sha256(b).hexdigest(),
                     family=family(e['name'], t), traits=traits, **({'model': e['model']} if e.get('model') else {}), **({'note': e['note']} if e.get('note') else {})))
prov.sort(key=lambda p: p['file'])
with open(f'{D}/PROVENANCE.jsonl', 'w') as f:
    for p in prov: f.write(json.dumps(p, ensure_ascii=False) + '\n')
print(len(prov)); print(collections.Counter(p['family'] for p in prov).most_common())
print(collections.Counter(t for p in prov for t in p['traits']))
