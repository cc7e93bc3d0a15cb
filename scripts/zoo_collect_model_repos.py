#!/usr/bin/env python3
"""Grow tests/fixtures/zoo with chat templates from model repositories (issue #27): the `chat_template.jinja`,
`tokenizer_config.json` and `chat_template.json` files of the repositories below (found through the public code
index: model checkpoints, fine-tunes and deployment repositories of many families, sizes and vintages) and the
original (model-shipped) templates GPT4All lists in its model catalogue and its GGUF substitution table; and, for the
model families the zoo lacked (issue #26), the chat templates of Xinference's model registry (every version in its
history), OpenVINO GenAI's tokenizer-config test data and text-generation-webui's since-deleted instruction templates.

Reads bare git snapshots as the session's `fetch` tool leaves them under $ZOO_MIRRORS (default /work/.mirror,
`<owner>+<name>/repo`). Keeps each template byte-exact (JSON strings decoded by JSON's rules, C++ raw strings as
written), drops templates already in the zoo or the conformance set and duplicates, and appends the new ones to
tests/fixtures/zoo/*.jinja and PROVENANCE.jsonl (family and traits by zoo_collect.py's rules). Never reads the
held-back sources (llama.cpp's models/templates, vLLM's and SGLang's tests and vLLM's examples, axolotl's
templates, openai/harmony, mistral.rs). Then run scripts/zoo_goldens.py.
"""
import ast
import glob
import hashlib
import json
import os
import re
import subprocess

M = os.environ.get("ZOO_MIRRORS", "/work/.mirror")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = os.path.join(ROOT, "tests", "fixtures", "zoo")

REPOS = """
0su0su0/BORA-1.1B-A0.4B A1maan/smail-vlm Abiaselli/mhlatest AhmedA1559/maistrl AnasMSN/PhoneLM-extended
Anipaleja/iLLuMinator-4.9B AriesChen-UPC/GeoLLM Avent-IQ/pythia-410m Bader-CN/Note-for-LLM-Training
Beniko95J/eval_llm BigBIueWhale/qwen_38_agent_setup BirgerMoell/swe-gpt Brain2nd/NeuronSpark-V1 Caia-Tech/onyx
CNMagicturtle/vincuna-13b CogniX-LTD/Cogni-OpenModel DEVELOPERYUMIN/GeM2-14B-Korean-RAG-QLoRA DMalakhov1/PROJECT_LORA
Danvin-44/FS8B-finetuned Datta0/spt David2020525/llm Decentralised-AI/WizardCoder-15B-1.0-GPTQ
Decentralised-AI/falcon-40b EchoCog/gpt-oss-20b Emon2358/serial-lain-ai Evilcarbon/DeepSeek-R1-Distill-Qwen-32B
GiorgioOppo/ds4 GriffinDevelopments/TraXLMistraLForCausalLM HakunaMatata888/gemma2-poem HashirDS/smart-tutor-phi2-model
HelpingAI/HelpingAI Herutriana44/TinyPeLLM HuengchI/Atom-7B HwwwwwwwH/MiniCPM-V-2 HxCodeWarrior/StellarByte
IEIT-Yuan/Yuan-2.0 JiangYingjin/r1 JohanLi233/Viby-Model Kaisanya/NanoTabVLM Knightler/LLMind Koko12137/myllm
Lavi-Vu/EdgeLocate Li-Lee/vllm-qwen3.5-nvfp4-5090 Lifunn/Pipeline-Training-SFT-DFK Mahrnoud/custom_llm
MichaelCrowe11/CroweCode NC0DER/Maistros OpenBMB/Scicore-Omics QvQKing/prompt-agent ResonantAlive/SLM-Solmen
Sannainmf/GmshApp-Hexera Shran21/LoraAI-Server Sshg2000/CSP2 Sujit81/minimind SymbolicLight-AGI/SymbolicLight-V1
TOM-SLM/TOM TheSethRose/mlx-server-gemma Timestep-AI/timestep Timothy-Trinh/Ollama-Template-Builder
Vedika-advanced-AI/Vedika-4.1-flash WSZYO/LLama3FineTuning-Python Web3-League/llm-dynamics Wollaston/turing-poker
aabbdev/state-model-interface aajonaa/AlergieAI agassiyzh/spark-hackathon agentica-project/R2E-Gym
alainalin/summarization apomelo/llama-starter avishake-miniontek/zoyel_converse binarrii/unsloth_peft
bradley-mankoff/llm-gauntlet christian-bick/edugraph-classify-qwen3vl cilabuniba/artseek crippleboli/llm-basic
dancegit/deployDeekseek dsl2009/vlm_learn ekhadley/subliminal euclidgame/mathconstruct forcepusher/gemma4_jinja
gkjuwon-ui/ai-master govindramesh/emergent-alignment hanxiao/Qwen3.5-35B-A3B-L4-deploy
hanxiao/knowledge-graph-extractor harshray23/smolify haticenurcakr/Repository-name-turkish-books-tool-calling-assistant
hhh2210/RuscaRL hugobarragon/react-ai-chat-full-client-side iatomica/chatbot_llama
igal-abachi-dev/AI-LLM-Transformers-Edu-Model itme-brain/Qwen3.8-27B_Benchmarks jingyaogong/minimind jvpflum/Crystal
kpratik41/gpt-oss-ckpt kyleavery/LLM-Training lawjarp-simplismart/autoresearch-inference-optimization
linyubupa/glm_asr_vllm longhoag/slm-ft-serving loris3/ceelm masidyai/model mjschock/timestep ml-jku/EVA
mrfelinux/IA nedeadinside/fqw nicolasberlin/ProductInfo-AI nytud/hugme pok14575-ops/Vivianna qycy0/plugins
rain-1/replicate-taken-out-of-context ruijunfeng/CGP-tuning sVarlog/fine-tune saivimenthanvl-ai/Qwen2VLBInstruct
sandeep5000/Health_ai_ seaberger/ask-llama shiroko98/RWKV-LM-V7 shivaylamba/gemma4-finetuning-on-legaldata
skrkc/hydrology-tool-assistant srose69/Loomformer-Paraplex thats-your-fate/ktulhu-main yijie-cheng/SLM-ToG
yizhilsy/multimodilty-interface-using-idcor Jmh0527/minimind-audio Nukually/miniGPT
AtulDeshpande09/Fine-tuned-Economics-QA-using-smolLM Complexity-ML/complexity-framework CodeHalwell/OSRT-Ostinato Iro96/FracM-LLM
LoserCheems/WonderfulMatrices Pickupppp/custom-llm MitsuhiroTaniguchi/MahjongLM Jatin-Mehra119/Plagiarism-detector-using-smolLM-
""".split()

GPT4ALL = "nomic-ai/gpt4all"

# Issue #26: model families the zoo did not have yet. Xinference's model registry carries each model's Hugging Face
# chat template (`chat_template` of every entry; every version in the file's history, a template taken from the
# newest commit that has it, since models leave the registry), and OpenVINO GenAI's test data carries
# the tokenizer configurations of 160+ Hugging Face models (a dict literal: `chat_template` by model id).
XINFERENCE = "xorbitsai/inference"
XINFERENCE_FILES = ["xinference/model/llm/llm_family.json", "xinference/model/llm/llm_family_modelscope.json",
                    "xinference/model/llm/llm_family_csghub.json", "xinference/model/llm/llm_family_openmind_hub.json"]
# text-generation-webui's instruction templates (zoo_collect.py reads the six left at HEAD): each template the project
# has since deleted, at the newest commit that has it as a Jinja `instruction_template`.
TEXTGEN = "oobabooga/text-generation-webui"
OPENVINO = "openvinotoolkit/openvino.genai"
OPENVINO_CONFIGS = "tests/python_tests/data/tokenizer_configs.py"
NEW_FAMILY_SOURCES = (XINFERENCE, TEXTGEN, OPENVINO)


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", f"{M}/{repo.replace('/', '+')}/repo", *args], capture_output=True, check=True).stdout


def head(repo):
    return git(repo, "rev-parse", "HEAD").decode().strip()


def family_rule():
    """`family(name, text)` from zoo_collect.py, taken from its source (that script runs on import)."""
    src = open(os.path.join(ROOT, "scripts", "zoo_collect.py"), encoding="utf-8").read()
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "family")
    scope = {"re": re}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), "zoo_collect.py", "exec"), scope)
    return scope["family"]


def candidates():
    for repo in REPOS:
        if not os.path.isdir(f"{M}/{repo.replace('/', '+')}/repo"):
            print("missing snapshot:", repo)
            continue
        commit = head(repo)
        for p in git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines():
            base = os.path.basename(p)
            try:
                if base.endswith((".jinja", ".jinja2", ".j2")):
                    yield repo, p, p, commit, git(repo, "show", f"HEAD:{p}").decode("utf-8")
                elif base in ("tokenizer_config.json", "chat_template.json"):
                    ct = json.loads(git(repo, "show", f"HEAD:{p}")).get("chat_template")
                    if isinstance(ct, str):
                        yield repo, p, p + "#chat_template", commit, ct
                    elif isinstance(ct, list):
                        for e in ct:
                            yield repo, p, f"{p}#chat_template[{e['name']}]", commit, e["template"]
            except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
                continue
    for p in XINFERENCE_FILES:
        for commit in git(XINFERENCE, "log", "--format=%H", "--", p).decode().split():  # newest first
            try:
                entries = json.loads(git(XINFERENCE, "show", f"{commit}:{p}"))
            except (subprocess.CalledProcessError, ValueError):
                continue
            for e in entries:
                if isinstance(e.get("chat_template"), str):
                    yield XINFERENCE, e["model_name"], f"{p}#{e['model_name']}.chat_template", commit, e["chat_template"]
    import yaml
    dirs = ["instruction-templates", "user_data/instruction-templates"]
    for p in sorted({l for l in git(TEXTGEN, "log", "--format=", "--name-only", "--", *dirs).decode().splitlines() if l.endswith(".yaml")}):
        for commit in git(TEXTGEN, "log", "--format=%H", "--", p).decode().split():  # newest first
            try:
                d = yaml.safe_load(git(TEXTGEN, "show", f"{commit}:{p}").decode("utf-8"))
            except (subprocess.CalledProcessError, yaml.YAMLError):
                continue
            if isinstance(d, dict) and isinstance(d.get("instruction_template"), str):
                yield TEXTGEN, p, f"{p}#instruction_template", commit, d["instruction_template"]
                break
    src = git(OPENVINO, "show", f"HEAD:{OPENVINO_CONFIGS}").decode("utf-8")
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "get_tokenizer_configs")
    ret = next(n for n in ast.walk(fn) if isinstance(n, ast.Return))
    commit = head(OPENVINO)
    for model, cfg in ast.literal_eval(ret.value).items():
        if isinstance(cfg.get("chat_template"), str):
            yield OPENVINO, model, f"{OPENVINO_CONFIGS}#{model}.chat_template", commit, cfg["chat_template"]
    commit = head(GPT4ALL)
    p = "gpt4all-chat/metadata/models3.json"
    for e in json.loads(git(GPT4ALL, "show", f"HEAD:{p}")):
        if e.get("chatTemplate"):
            yield GPT4ALL, e.get("filename", ""), f"{p}#{e.get('filename')}.chatTemplate", commit, e["chatTemplate"]
    p = "gpt4all-chat/src/jinja_replacements.cpp"
    src = git(GPT4ALL, "show", f"HEAD:{p}").decode("utf-8")
    # Each entry: `// original` then the model's own template as a raw string (the replacement is GPT4All's).
    for i, m in enumerate(re.finditer(r'// original\s*\n\s*R"TEMPLATE\((.*?)\)TEMPLATE"', src, re.S)):
        yield GPT4ALL, f"substitution-{i}", f"{p}#original[{i}]", commit, m.group(1)


def name_for(repo, path, fname):
    owner, project = repo.split("/")
    stem = os.path.splitext(os.path.basename(path))[0]
    if repo == GPT4ALL:
        return "gpt4all-" + re.sub(r"\.gguf$", "", os.path.basename(path))
    if repo == TEXTGEN:
        return "textgen-" + stem
    if repo == XINFERENCE:
        return "xinference-" + path
    if repo == OPENVINO:
        return "openvino-" + path.replace("/", "-")
    if stem in ("chat_template", "tokenizer_config"):
        sub = os.path.dirname(path).replace("/", "-")
        return f"{project}" + (f"-{sub}" if sub else "")
    return f"{project}-{stem}"


def main():
    family = family_rule()
    # newline="": byte-exact (universal newlines would turn a CRLF template into another one).
    have = {open(f, encoding="utf-8", newline="").read().strip() for f in glob.glob(os.path.join(ZOO, "*.jinja"))}
    have |= {open(f, encoding="utf-8", newline="").read().strip() for f in glob.glob(os.path.join(ROOT, "tests", "fixtures", "conformance", "templates", "*.jinja"))}
    names = {os.path.basename(f)[:-6].lower() for f in glob.glob(os.path.join(ZOO, "*.jinja"))}
    prov_path = os.path.join(ZOO, "PROVENANCE.jsonl")
    prov = [json.loads(l) for l in open(prov_path, encoding="utf-8") if l.strip()]
    # The issue #26 sources are taken for the model families the zoo lacks: their templates of families the zoo
    # already has (127 of them: DeepSeek, GLM, Qwen, Mistral, Llama … versions and fine-tunes) are left out.
    known_families = {p["family"] for p in prov if p["repo"] not in NEW_FAMILY_SOURCES}
    added = 0
    for repo, fpath, path, commit, text in candidates():
        if "{%" not in text and "{{" not in text or "messages" not in text:
            continue
        key = text.strip()
        if key in have:
            continue
        base = re.sub(r"[^A-Za-z0-9._]+", "-", name_for(repo, fpath, path)).strip("-")
        if repo in NEW_FAMILY_SOURCES and family(base, text) in known_families:
            continue
        have.add(key)
        nm, i = base, 2
        while nm.lower() in names:
            nm, i = f"{base}-{i}", i + 1
        names.add(nm.lower())
        data = text.encode("utf-8")
        with open(os.path.join(ZOO, nm + ".jinja"), "wb") as f:
            f.write(data)
        traits = [k for k, c in [("tools", "tools" in text), ("reasoning", "reasoning_content" in text or "<think>" in text or "thinking" in text),
                                 ("generation", "{% generation" in text or "{%- generation" in text),
                                 ("multimodal", "'image'" in text or '"image"' in text or "image_url" in text)] if c]
        prov.append(dict(file=nm + ".jinja", repo=repo, path=path, commit=commit, sha256=hashlib.sha256(data).hexdigest(),
                         family=family(nm, text), traits=traits))
        added += 1
    prov.sort(key=lambda p: p["file"])
    with open(prov_path, "w", encoding="utf-8") as f:
        for p in prov:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    print(f"added {added}; zoo now {len(prov)} templates")


if __name__ == "__main__":
    main()
