//! The leniency rules' catalogue: every departure from a template's canonical form that the parser
//! accepts (README "Leniency: what models really write"), one entry each, in the order of the
//! README table, which is generated from it ([`readme_table`]; `tests/rules.rs` fails when README
//! differs, `UPDATE_README=1` rewrites it).
//!
//! A diagnostic of an accepted departure names its rule in its message (`… (rule R16)`), and
//! [`crate::api::Diagnostic::rule`] carries the id: JS `diagnostics[].rule`, the CLI, TypeScript.
//! Ids are stable and never reused. R3, R6 and R32 name no parser rule: R1–R6 were also the labels
//! of the analysis' reasoning phases (now `reasoning.1`–`reasoning.6`, and `content.1`–`2`,
//! `tools.1`–`8` for the others, so no label looks like a rule id); R3 and R6 were only phases (R6:
//! reasoning the prompt opens, README "Reasoning the prompt opens", an analysis diagnostic); R32
//! was renumbered R28 when two branches merged. Two rows share R5 (the same rule in the engine and
//! in the Ministral format); the row without an id is not a departure (no diagnostic).

/// One leniency rule (a row of the README table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// `R1` … `R34`; empty for a departure accepted silently (no diagnostic names it).
    pub id: &'static str,
    /// A short name.
    pub name: &'static str,
    /// Where the rule lives, under `src/` (a file, or a directory for a dimension's rules): its
    /// configuration half (what it adds to the parser's configuration) and its run-time half.
    pub home: &'static str,
    /// What the model writes (markdown, the README's "departure" column).
    pub departure: &'static str,
    /// What the parser does (markdown, the README's "what the parser does" column).
    pub action: &'static str,
    /// A model output that departs so (abridged with `…` where the rest does not matter).
    pub example: &'static str,
}

/// Every rule, in the README's order.
pub const RULES: &[Rule] = &[
    Rule {
        id: "R1",
        name: "call in open reasoning",
        home: "parse/auto/mod.rs",
        departure: r#"a tool call written while reasoning is still open"#,
        action: r#"reasoning ends at the call if no reasoning end marker follows (one that does makes the call part of the reasoning, as llama.cpp expects)"#,
        example: r#"<think>I will check.<tool_call>{"name": "f", "arguments": {}}</tool_call>"#,
    },
    Rule {
        id: "R2",
        name: "repeated reasoning opener",
        home: "parse/auto/mod.rs",
        departure: r#"the reasoning opener repeated after the prompt already wrote it, or a stray token right before the opener: its head repeated (`<|channel><|channel>thought`) or the opener in another spelling"#,
        action: r#"dropped (an empty repeated block `<think></think>` keeps it, as llama.cpp does)"#,
        example: r#"<think><think>Let me think.</think>Hi"#,
    },
    Rule {
        id: "R4",
        name: "stray reasoning end marker",
        home: "parse/auto/mod.rs",
        departure: r#"a reasoning end marker after reasoning ended, or with thinking off"#,
        action: r#"kept as content text; with thinking on, one at the very end of the output is dropped (llama.cpp)"#,
        example: r#"Hello.</think> World"#,
    },
    Rule {
        id: "R5",
        name: "reasoning without its opener",
        home: "parse/missing_opener.rs",
        departure: r#"thinking on, the prompt did not open reasoning, the output starts with reasoning and an end marker"#,
        action: r#"the text up to the end marker is reasoning, unless a tool call or the opener comes first (then it is content)"#,
        example: r#"Let me think.</think>Hello"#,
    },
    Rule {
        id: "R5",
        name: "reasoning without its opener (Ministral)",
        home: "formats/ministral.rs",
        departure: r#"the same in the Ministral format (`[/THINK]` without `[THINK]`), when the request turns thinking on"#,
        action: r#"the same rule (`parse/missing_opener.rs`, shared by the engine and the format)"#,
        example: r#"Let me think.[/THINK]Hello"#,
    },
    Rule {
        id: "R7",
        name: "end-of-turn token in content",
        home: "parse/auto/dropped.rs",
        departure: r#"the template's end-of-turn token (`analysis.turnEnd`: `<|im_end|>`, `<|eot_id|>`, `<|END_OF_TURN_TOKEN|>`, `<end_of_turn>`, …, what the template writes after every message whatever its role, e.g. MiniMax-M2's `[e~[`, the tokenizer's EOS token when the template was given one (`eosToken`, a tokenizer_config.json's `eos_token`), and what the template writes after a call turn's last call, e.g. Gemma 4's `<|tool_response>`) in content"#,
        action: r#"dropped; inside a content wrapper it also closes the wrapper"#,
        example: r#"Hello<|im_end|>"#,
    },
    Rule {
        id: "R8",
        name: "missing comma between calls",
        home: "parse/auto/call_body.rs",
        departure: r#"two calls of a JSON array without the comma between them (`[{…}{…}]`)"#,
        action: r#"both calls are read"#,
        example: r#"[{"name": "f", "arguments": {}}{"name": "g", "arguments": {}}]"#,
    },
    Rule {
        id: "R9",
        name: "marker in another spelling",
        home: "parse/auto/markers",
        departure: r#"a marker in another spelling: ASCII `|` for `｜`, `_` or a space for `▁`, other letter case, a spelling the template source writes elsewhere (`analysis.sourceTokens`), an opener without its word (`<|channel>` for `<|channel>thought`), the closer the template's token convention pairs with an opener it never closes (`[/TOOL_CALLS]`), or a call section marker that holds the list's bracket written with blanks between its token and the bracket (`<|tool_call_start|> [` for `<|tool_call_start|>[`, `]\n<|tool_call_end|>`)"#,
        action: r#"read as that marker; a call section opened in another spelling is read with all its markers in that spelling"#,
        example: r#"<|tool▁calls▁begin|> for <｜tool▁calls▁begin｜>"#,
    },
    Rule {
        id: "R10",
        name: "repeated end marker",
        home: "parse/auto/markers",
        departure: r#"a call's (or section's) end marker written again right after it"#,
        action: r#"dropped"#,
        example: r#"<tool_call>{…}</tool_call></tool_call>"#,
    },
    Rule {
        id: "R11",
        name: "call-prefix token",
        home: "parse/auto/markers",
        departure: r#"a lone token of the template source right before a call (`<|python_tag|>{"name": …}`), or a special-token-shaped word (`<|word|>`) the template does not write right before a call that starts the content"#,
        action: r#"read as part of the call"#,
        example: r#"<|python_tag|>{"name": "f", "parameters": {}}"#,
    },
    Rule {
        id: "R12",
        name: "second call section",
        home: "parse/auto/markers",
        departure: r#"a second call section after the first one closed"#,
        action: r#"both sections are read (content between them stays content)"#,
        example: r#"<tool_calls>…</tool_calls> and <tool_calls>…</tool_calls>"#,
    },
    Rule {
        id: "R13",
        name: "tool-call fallback",
        home: "parse/auto/fallback.rs",
        departure: r#"tool calls from a template that renders none (it lists the tools, or only describes the call syntax in its system text)"#,
        action: r#"read by the fallback, see below"#,
        example: r#"<tool_call>{"name": "f", "arguments": {}}</tool_call> from a template that renders no calls"#,
    },
    Rule {
        id: "R50",
        name: "OpenAI wrapper or parameters",
        home: "parse/jsoncall.rs",
        departure: r#"the OpenAI wrapper `{"type": "function", "function": {…}}`, or `parameters` for `arguments` (or the reverse), in a JSON call"#,
        action: r#"accepted in every JSON call format, with a diagnostic"#,
        example: r#"{"type": "function", "function": {"name": "f", "parameters": {}}}"#,
    },
    Rule {
        id: "R14",
        name: "schema-less JSON value",
        home: "parse/auto/untyped_value.rs",
        departure: r#"a tagged argument value whose parameter has no schema, written as a whole JSON object or array"#,
        action: r#"kept as JSON; any other value (numbers and booleans too) stays the string it was written as"#,
        example: r#"<arg_value>[{"city": "Paris"}]</arg_value>"#,
    },
    Rule {
        id: "R15",
        name: "tool-result wrapper in content",
        home: "parse/auto/dropped.rs",
        departure: r#"the template's tool-result wrapper (`analysis.toolResultMarkers`: the markers it prints only around a `tool` message, e.g. `<｜tool▁output▁begin｜>`, `<tool_response>`, `[TOOL_RESULTS]`) in content"#,
        action: r#"the markers are dropped, the text they wrap stays content"#,
        example: r#"<tool_response>22 °C</tool_response>"#,
    },
    Rule {
        id: "R16",
        name: "other call layout",
        home: "parse/auto/json_departures.rs",
        departure: r#"calls laid out otherwise than the template shows: several JSON call objects in one call block, several literal calls in one call block (`call:f{…}call:g{…}`), pythonic calls one per line in a JSON call block (`<function_calls>f(a=1)\ng(b=2)</function_calls>`, with R20), calls separated by `;` (JSON or pythonic), an array where it writes one object, one object where it writes an array"#,
        action: r#"every call is parsed"#,
        example: r#"<tool_call>{…}
{…}</tool_call>"#,
    },
    Rule {
        id: "R17",
        name: "arguments as a JSON string",
        home: "parse/auto/json_departures.rs",
        departure: r#"tool-call arguments written as a JSON-encoded string (`"arguments": "{\"city\": \"Paris\"}"`)"#,
        action: r#"decoded to the object it encodes (any other string stays as written)"#,
        example: r#""arguments": "{\"city\": \"Paris\"}""#,
    },
    Rule {
        id: "R18",
        name: "JSON call where calls are pythonic",
        home: "parse/auto/json_departures.rs",
        departure: r#"a JSON call object (`{"name": …, "arguments": {…}}`) where the template writes pythonic calls (`[f(a=1)]`)"#,
        action: r#"read as a JSON call (the name must still be a declared tool)"#,
        example: r#"{"name": "f", "arguments": {"a": 1}} for [f(a=1)]"#,
    },
    Rule {
        id: "R19",
        name: "Python-syntax JSON call",
        home: "parse/auto/json_departures.rs",
        departure: r#"a JSON call written with Python syntax (`{'name': 'f', 'arguments': {'a': None}}`)"#,
        action: r#"read as the JSON it stands for"#,
        example: r#"{'name': 'f', 'arguments': {'a': None}}"#,
    },
    Rule {
        id: "R20",
        name: "pythonic call where calls are JSON",
        home: "parse/auto/call_syntax.rs",
        departure: r#"a pythonic call (`get_weather(city="Paris")`, alone or in a `[…]` list) where the template (or the fallback's JSON convention, R13) writes JSON call objects — inside its markers (`<tool_call>get_weather(city="Paris")</tool_call>`, `[TOOL_CALLS][f(a=1), g()]`) or as a bare list where it writes bare objects (`[f(a=1)]`)"#,
        action: r#"read as that call with Python literal values (the name must be a declared tool); the template's own layout around it (markers, `[ … ]`, `,`) is read as always"#,
        example: r#"<tool_call>get_weather(city="Paris")</tool_call>"#,
    },
    Rule {
        id: "R21",
        name: "call list brackets left out or added",
        home: "parse/auto/call_syntax.rs",
        departure: r#"a call list's brackets where nothing else marks the calls: a pythonic section opener written without the `[` the template (or the fallback's convention, R13) puts in it (`<|tool_call_start|>f(a=1)<|tool_call_end|>`, JSON objects too), or a bare array of calls (`[{"name": …}, …]`) where the template writes bare call objects with no marker"#,
        action: r#"every call is read (a bare `[` starts calls only as `[{` or `[` + a declared tool's name + `(`)"#,
        example: r#"<|tool_call_start|>f(a=1)<|tool_call_end|>"#,
    },
    Rule {
        id: "R22",
        name: "call of an undeclared tool",
        home: "parse/auto/tool.rs",
        departure: r#"a call of a tool the request did not declare, in the template's own call layout"#,
        action: r#"read as a call (with no schema: tagged values follow R14) when the layout delimits the name — a JSON call object's `"name"` inside the template's markers, a name suffix marker (`>`, `</function>`-like, `[ARGS]`, `<｜tool▁sep｜>`), a numbered header's `:` counter, a literal call's `(` / `{`, or the arguments' first marker right after a call opener (`<tool_call>f<arg_key>`) — and the name is a tool name (`[A-Za-z0-9_.-]{1,64}`); the diagnostic names it. Not in a bare JSON object without markers, another call syntax (R16's extra literal calls, R18, R20, R21) or the fallback (R13); with no tools declared calls stay content"#,
        example: r#"<tool_call>{"name": "search", "arguments": {}}</tool_call> with only get_weather declared"#,
    },
    Rule {
        id: "R23",
        name: "JSON call object in tagged markers",
        home: "parse/auto/json_in_tagged.rs",
        departure: r#"a JSON call object (`{"name": …, "arguments"|"parameters": …}`) right after a tagged call's opener, where the template writes the name and argument markers (`<tool_call>{"name": "f", …}</tool_call>` in `<tool_call>f<arg_key>…` or `<tool_call><function=f>…` markers)"#,
        action: r#"read as a JSON call (the name must be declared, or follow R22), then the call's end marker; broken JSON stays content (the call goes out only once its object is closed: `{"name": "f", "arguments": {}</tool_call>` is content, said so)"#,
        example: r#"<tool_call>{"name": "f", "arguments": {}}</tool_call> for <tool_call>f<arg_key>…"#,
    },
    Rule {
        id: "R24",
        name: "key=value arguments",
        home: "parse/auto/key_value_args.rs",
        departure: r#"a tagged call's arguments written as `key=value` pairs after its name, where the template writes argument markers (`<tool_call>multiply a=12 b=34</tool_call>` for `<tool_call>multiply<arg_key>a</arg_key><arg_value>12</arg_value>…`); a value runs to whitespace or the call's closing marker, or is quoted (`"…"`, `'…'`)"#,
        action: r#"read as the call's arguments when the pairs run whole up to the call's closing marker, each value typed as a tagged value is (the schema; R14 without one; a quoted value is a string); anything else is read as before"#,
        example: r#"<tool_call>multiply a=12 b=34</tool_call>"#,
    },
    Rule {
        id: "R25",
        name: "call opener in reasoning without tools",
        home: "parse/auto/mod.rs",
        departure: r#"the template's tool-call opener (its section or per-call start marker) written while reasoning is still open, in a request that declares no tools (or `tool_choice: none`)"#,
        action: r#"reasoning ends at the opener as R1 decides for a call (unless a reasoning end marker follows; at once where the template renders reasoning only before calls); the markup stays content, since no tools means no calls"#,
        example: r#"<think>Maybe <tool_call>"#,
    },
    Rule {
        id: "R26",
        name: "JSON arguments in a tagged call",
        home: "parse/auto/json_in_tagged.rs",
        departure: r#"a JSON object where a tagged call's first argument marker is due (`<function=f>{"city": "Paris"}</function>`, `<｜DSML｜invoke name="f">{…}</｜DSML｜invoke>`)"#,
        action: r#"read as the call's arguments (held until whole and valid, like all JSON arguments), then the call's closing markers; broken JSON stays content"#,
        example: r#"<function=f>{"city": "Paris"}</function>"#,
    },
    Rule {
        id: "R27",
        name: "reasoning with thinking off",
        home: "parse/auto/mod.rs",
        departure: r#"a reasoning block although the request turned thinking off (`enableThinking: false`; the prompt's own closed block is not one)"#,
        action: r#"read as reasoning, not content"#,
        example: r#"<think>Hmm.</think>Hello (enableThinking: false)"#,
    },
    Rule {
        id: "R28",
        name: "bare JSON call",
        home: "parse/auto/bare_json_call.rs",
        departure: r#"a JSON call object (`{"name": …, "arguments": …}`), or a `[…]` array of them, at the start of a line with none of the call markers the template writes (left out by the model, or by a decoder that skipped special tokens: Mistral's `[TOOL_CALLS]`)"#,
        action: r#"read as calls once the whole object (or array) is seen to be calls of declared tools, with valid JSON arguments and no member a call does not have, in the template's own call object where it writes JSON calls (else `name` / `arguments` / `id`); anything else stays content as written, and the template's markers in it are read as always (an undeclared name is said in a diagnostic). Composed with R20's syntax: a `[…]` list of pythonic calls (`[get_weather(city="Paris")]`) alone on its line, with keyword arguments whose literal values parse, is read the same way, and so is one pythonic call without its list where the content starts (after reasoning), alone on its line, after a special-token-shaped word (rule R11: `<|python_tag|>get_weather(city="Paris")`)"#,
        example: r#"{"name": "get_weather", "arguments": {"city": "Paris"}} without [TOOL_CALLS]"#,
    },
    Rule {
        id: "R29",
        name: "call in a role tag",
        home: "parse/auto/tag_wrapped_call.rs",
        departure: r#"a whole call wrapped in one of the template's role tags instead of its call markers (`<user>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</user>` or `<user>{"name": …, "arguments": …}</user>` where the template writes `<tool_call>…</tool_call>` and its user turn is `<user>…</user>`): role markers that are tags (`<X>`, closed by `</X>` in the source) and no other marker, for a template that wraps each call in a marker pair (no section); other tags are left out on purpose (`<tools>…</tools>` holds the tool definitions, which a model may echo)"#,
        action: r#"read as that call, in content only (not in reasoning), for a declared tool, and only whole: held until its closing tag, and given back to the content as written when anything else comes there"#,
        example: r#"<user>{"name": "f", "arguments": {}}</user>"#,
    },
    Rule {
        id: "R30",
        name: "addressed messages",
        home: "formats/addressed.rs",
        departure: r#"in a template whose reply is a run of messages headed by their recipient (`analysis.messages`, handler `addressed messages`: `<|start|>assistant to=self<|message|>…<|eom|>`), a call block in a message to the user, to a namespace (`to=muse`) or to no recipient; a message without its end token before the next one; the header-end token inside a call's name (`name="read<|message|>"`); a name that repeats the recipient's namespace (`read.read`); a JSON object as the body of a message to a declared tool where the template writes a call block"#,
        action: r#"the body decides: a whole call block of the template's tool format is read as the calls (an end token inside an argument value is text), a JSON object to a declared tool as its arguments, anything else stays content with the header's recipient named in the diagnostic"#,
        example: r#"<|start|>assistant to=user<|message|><tool_call>…"#,
    },
    Rule {
        id: "R31",
        name: "missing per-call opener",
        home: "parse/auto/missing_call_opener.rs",
        departure: r#"a call without its per-call opener right after the section opener (`<｜tool▁calls▁begin｜>f<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`, no `<｜tool▁call▁begin｜>`), or without its per-call closer right before the section closer"#,
        action: r#"read from what the opener would have introduced: the template's name marker, or a declared tool's name followed by what follows a name; a section that reads no call gives its opener back to the content. A closer left out: the call ends at the section's closer"#,
        example: r#"<｜tool▁calls▁begin｜>f<｜tool▁sep｜>{…}<｜tool▁call▁end｜>"#,
    },
    Rule {
        id: "R33",
        name: "markers without their special-token part",
        home: "parse/auto/markers",
        departure: r#"tool-call markers written without their special-token part, as text decoded with special tokens skipped reads (`<function_calls><invoke name="f"><parameter name="a" string="true">…</parameter></invoke></function_calls>` for `<｜DSML｜function_calls><｜DSML｜invoke name="f">…`): only a pipe-delimited token right after a tag's `<` or `</` and followed by the tag's own name is the dropped part, so a marker that is a token itself (`<|tool_call_start|>`) has no such spelling"#,
        action: r#"read as those markers (the call section in that spelling, like R9's dialects); an opener that no call follows stays content"#,
        example: r#"<function_calls><invoke name="f">…</invoke></function_calls>"#,
    },
    Rule {
        id: "R34",
        name: "fenced JSON call",
        home: "parse/auto/bare_json_call.rs",
        departure: r#"an output that is only a ```` ```json ```` fenced JSON call (or array of calls)"#,
        action: r#"read as R28 reads it, the fence dropped; a fenced call with prose before or after it is an example: content"#,
        example: r#"```json
{"name": "f", "arguments": {}}
```"#,
    },
    Rule {
        id: "R35",
        name: "undecorated call name",
        home: "parse/auto/name_decoration.rs",
        departure: r#"a call's name without the decoration the template writes around it, right after the call opener: its name prefix (`<|tool_call_begin|>get_weather:0` for `functions.get_weather:0`, `<｜tool▁call▁begin｜>f` for `function<｜tool▁sep｜>f`, `<|tool_call>f{…}` for `call:f{…}`) or a numbered header's counter (`functions.f<|tool_call_argument_begin|>` without `:0`)"#,
        action: r#"read as that call when the name is declared, or delimited as R22 requires; the id a counter-less header would have carried is generated"#,
        example: r#"<|tool_calls_section_begin|><|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>{…}<|tool_call_end|><|tool_calls_section_end|>"#,
    },
    Rule {
        id: "R36",
        name: "headed segments",
        home: "formats/segments.rs",
        departure: r#"in a template whose reply is several headed segments (`analysis.segments`, handler `headed segments`: `<|im_start|>assistant/think\n…<|im_end|>\n<|im_start|>assistant\n…`, `<|open|>think<|sep|>…<|close|>think<|sep|><|open|>response<|sep|>…`), a header whose word names no part; a segment that runs into the next header without its end; text outside any segment; a segment end where no segment is open, or another part's end; a call segment whose body holds no call"#,
        action: r#"the header's word decides: an unknown word's header and its body stay content, a segment ends where the next header starts, text outside a segment is content, a stray end is dropped, and a call segment's body that is not a whole call (a JSON call or list of them in the template's call object, or a block of its tool format) is content"#,
        example: r#"<|im_start|>assistant/plan\n…<|im_end|>"#,
    },
    Rule {
        id: "R37",
        name: "arguments that are not an object",
        home: "parse/auto/json_hold.rs",
        departure: r#"a JSON call whose arguments are valid JSON but not an object (`"arguments": []`, a number, a plain string, `null`)"#,
        action: r#"no call: its text stays content, said so (a string that encodes an object is decoded, R17); a call that went out already (`streamArguments`, a dedicated format) is reported by the exit check"#,
        example: r#"<tool_call>{"name": "f", "arguments": []}</tool_call>"#,
    },
    Rule {
        id: "R38",
        name: "arguments under a `properties` key",
        home: "parse/auto/wrapped_args.rs",
        departure: r#"a call whose only argument is `properties` holding an object (`get_weather(properties={"location": "Tokyo"})`, the JSON Schema's word for the parameters), in any call syntax (pythonic, JSON, `key=value`, tagged), where the declared tool has no `properties` parameter"#,
        action: r#"the object is read as the call's arguments when its keys are parameters the tool declares (or it declares none); such arguments are held until they end. Otherwise kept as written"#,
        example: r#"<|tool_call_start|>[get_weather(properties={"location": "Tokyo"})]<|tool_call_end|>"#,
    },
    Rule {
        id: "R39",
        name: "blank before the arguments marker",
        home: "formats/ministral.rs",
        departure: r#"spaces or tabs between a call's name (or its id) and `[ARGS]` in the Ministral / Mistral format (`[TOOL_CALLS]get_weather [ARGS]{…}`)"#,
        action: r#"read as the call, the name trimmed; a name followed by anything else stays content as before"#,
        example: r#"[TOOL_CALLS]get_weather [ARGS]{"location": "Paris"}"#,
    },
    Rule {
        id: "R40",
        name: "list closed, section not",
        home: "parse/auto/call_header.rs",
        departure: r#"the call list's `]` written, the rest of a section end marker that begins with it left out (`<|tool_call_start|>[get_weather()]` then text, for `]<|tool_call_end|>`)"#,
        action: r#"the section ends after the `]`; what follows is content"#,
        example: r#"<|tool_call_start|>[get_weather(city="Paris")]Checking."#,
    },
    Rule {
        id: "R41",
        name: "raw code as a code-interpreter call",
        home: "parse/auto/raw_code_call.rs",
        departure: r#"a call of the code-interpreter tool (`python`, `ipython`, `code_interpreter`, declared in the request) whose arguments are raw code, not JSON: written as the template writes such a call where it writes it otherwise than an ordinary call (`analysis.tools.rawCodeCall`: `<|python_tag|>code<|eom_id|>`, a call whose arguments are a ```` ```python ```` fence), or as the body of a message to that tool in an addressed-messages template"#,
        action: r#"read as a call of that tool with the code (line breaks around it dropped) as a JSON string under the tool's one string parameter, or under `code` when it declares none or more; the call goes out once its code ends (the template's end of such a call, an end-of-turn token or the end of the output); text that merely mentions python stays content"#,
        example: r#"I'll run it<|python_tag|>print(1 + 1)<|eom_id|>"#,
    },
    Rule {
        id: "R43",
        name: "reasoning between taught phrases",
        home: "parse/auto/phrase_reasoning.rs",
        departure: r#"with thinking on, reasoning written after a plain phrase and the answer after another, as the template's thinking-on instructions teach in quotes (`analysis.reasoning.phrases`: Granite 3.2's `Here is my thought process:` … `Here is my response:`), in those words or with English contractions (`Here's my response:`)"#,
        action: r#"the text between the phrases is reasoning, the phrases (and the blanks after each) are dropped, the rest is content; only a pair counts: a start phrase the output never follows with the end phrase is content, said so, and an end phrase alone is content. From the start phrase the text is held until the end phrase. With thinking off the phrases are content"#,
        example: r#"Here is my thought process: The user wants … Here's my response: Hello"#,
    },
    Rule {
        id: "R44",
        name: "number too large for a double",
        home: "parse/json_numbers.rs",
        departure: r#"a number a double cannot hold (`1e10000`) in a call's JSON arguments or in a schema-less JSON value (R14), which strict JSON readers refuse"#,
        action: r#"kept as the string the model wrote (`"1e10000"`), the rest read as JSON (held JSON arguments only: streamed ones are not rewritten)"#,
        example: r#"<parameter=metadata>{"score": 1e10000}</parameter>"#,
    },
    Rule {
        id: "R45",
        name: "argument name in the string delimiter",
        home: "parse/auto/call_body.rs",
        departure: r#"in a literal call syntax with its own string delimiter (Gemma 4's `<|"|>`), an argument name written inside it, closed or not (`{<|"|>flag:true}`)"#,
        action: r#"read as the name"#,
        example: r#"<|tool_call>call:lookup{<|"|>flag:true}<tool_call|>"#,
    },
    Rule {
        id: "R46",
        name: "the call's own id",
        home: "parse/jsoncall.rs",
        departure: r#"an `"id"` member in a JSON call object (also inside an OpenAI `function` object) where the template writes none; an id the model repeats within a message"#,
        action: r#"kept as the call's id instead of dropped; a repeated one is replaced by a generated id (a client answers each call by its id)"#,
        example: r#"<tool_call>{"id": "call_1", "name": "f", "arguments": {}}</tool_call>"#,
    },
    Rule {
        id: "R47",
        name: "content label",
        home: "parse/auto/content_label.rs",
        departure: r#"the label a template writes in its own words in front of past replies but not in its generation prompt (`analysis.contentLabel`: `Asistente:` after `<|im_start|>assistant\n`), written by the model where its content begins (after blanks and any reasoning block)"#,
        action: r#"dropped with one space after it; the label anywhere else is content"#,
        example: r#"Asistente: Hola, ¿en qué puedo ayudarte?"#,
    },
    Rule {
        id: "R48",
        name: "call id in the name's place",
        home: "parse/auto/id_head.rs",
        departure: r#"in a template that writes the call's id where a name goes and no name at all (`analysis.tools.callId.pos` `IN_NAME_PLACE`: huggingface.js' Kimi K2 Thinking writes `<|tool_call_begin|>{{ id }}<|tool_call_argument_begin|>…`), a call head that is an id naming the tool (`functions.get_weather:0`, `get_weather:0`, `call_get_weather_1`)"#,
        action: r#"the head (one word up to the marker after it) is the call's id, and the call's name is the declared tool it names as a word delimited by characters other than letters and digits (a name inside another declared name's occurrence is that one's); a head that names no declared tool, or more than one, is no call: its text stays content"#,
        example: r#"<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"location": "London"}<|tool_call_end|><|tool_calls_section_end|>"#,
    },
    Rule {
        id: "R49",
        name: "literal of another scalar type",
        home: "parse/auto/scalar_coercion.rs",
        departure: r#"in a literal argument syntax (pythonic calls, Gemma's `{key:<|"|>…<|"|>}`), a value spelled as another scalar type than the one its schema declares (`value='25'` for an integer, `enabled='true'` for a boolean, `count=5` or `flag=True` for a string)"#,
        action: r#"converted where the text written is the new value's own spelling (`'25'` → `25`, `'true'` → `true`, `5` → `"5"`, `True` → `"True"`); anything else kept as written. JSON arguments are never converted"#,
        example: r#"<|tool_call_start|>[set_temperature(value='25')]<|tool_call_end|> for {"value": {"type": "integer"}}"#,
    },
    Rule {
        id: "R51",
        name: "stray harmony token",
        home: "formats/harmony.rs",
        departure: r#"a harmony structure token where no message is open and none can start (`<|end|>` or `<|constrain|>` between messages)"#,
        action: r#"dropped (a token of the format's structure, not text)"#,
        example: r#"<|start|>assistant<|channel|>final<|message|>Hi<|end|><|end|>"#,
    },
    Rule {
        id: "R52",
        name: "call not closed",
        home: "parse/auto/call_body.rs",
        departure: r#"a call, call section or harmony message whose closing marker is not where it is due, or a call that breaks after its name went out (`<tool_call>{"name": "f", "arguments": {}}` then text)"#,
        action: r#"the call ends there, as far as it was read; what follows is read as content (a call that breaks before its name went out is content as written)"#,
        example: r#"<tool_call>{"name": "f", "arguments": {}} and then text"#,
    },
    Rule {
        id: "R53",
        name: "cut off by the end of the output",
        home: "parse/exit.rs",
        departure: r#"the output ends inside a call, or a call's arguments end inside a JSON value"#,
        action: r#"the call keeps what was parsed, closed to valid JSON (open strings, arrays and objects closed, a dangling key dropped); `finishReason: 'length'` when the output ends inside it"#,
        example: r#"<tool_call>{"name": "f", "arguments": {"city": "Par"#,
    },
    Rule {
        id: "",
        name: "nullable string null",
        home: "parse/auto/untyped_value.rs",
        departure: r#"a tagged value `null` for a string parameter whose schema also admits null (`anyOf: [{type: null}, {type: string}]`, `type: ["string", "null"]`)"#,
        action: r#"null, as the template writes None (not a departure: no diagnostic); any other text is the string written"#,
        example: r#"<parameter=note>null</parameter> for type ["string", "null"]"#,
    },
];

/// Ids that name no parser rule, and why (see the module docs).
pub const NOT_PARSER_RULES: &[(&str, &str)] = &[
    ("R3", "never a rule: an analysis phase's label (now reasoning.3)"),
    ("R6", "never a parser rule: the analysis phase for reasoning the prompt opens (now reasoning.6)"),
    ("R32", "renumbered R28 when two branches merged"),
];

/// The rule with this id (the first row, for R5).
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| !r.id.is_empty() && r.id == id)
}

/// Every row's id, in [`RULES`]' order, computed at compile time: the parsers need only the ids at
/// run time, so the catalogue's descriptions (≈ 20 KB of text) stay out of the wasm module (RULES is a
/// `const`, emitted only where it is read at run time: the README table and the tests).
const RULE_IDS: [&str; RULES.len()] = {
    let mut ids = [""; RULES.len()];
    let mut i = 0;
    while i < RULES.len() {
        ids[i] = RULES[i].id;
        i += 1;
    }
    ids
};

/// `id` as the catalogue spells it, when a rule has it (what a diagnostic carries).
pub fn known_id(id: &str) -> Option<&'static str> {
    RULE_IDS.iter().copied().find(|known| !known.is_empty() && *known == id)
}

/// The id a diagnostic message names (`… (rule R16)`, `rule R13: …`): the first `rule R<digits>`.
pub fn rule_named_in(message: &str) -> Option<&str> {
    message.match_indices("rule R").find_map(|(at, _)| {
        let id = message.get(at + 5..)?;
        let digits = id[1..].bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then(|| &id[..1 + digits])
    })
}

/// The README's rule table (markdown), generated from [`RULES`].
pub fn readme_table() -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = String::from("| rule | departure | what the parser does | code |\n|---|---|---|---|\n");
    for r in RULES {
        let id = if r.id.is_empty() { "—" } else { r.id };
        out.push_str(&format!("| {id} | {} | {} | `{}` |\n", cell(r.departure), cell(r.action), r.home));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_names_its_rule() {
        assert_eq!(rule_named_in("tool call read … (rule R16)"), Some("R16"));
        assert_eq!(rule_named_in("read by the fallback (rule R13), which no field expresses"), Some("R13"));
        assert_eq!(rule_named_in("no rule here"), None);
        assert_eq!(rule_named_in("the rule R"), None);
        assert_eq!(rule("R16").map(|r| r.name), Some("other call layout"));
        assert!(rule("R3").is_none() && rule("").is_none());
        assert_eq!(known_id("R16"), Some("R16"));
        assert!(known_id("R3").is_none() && known_id("").is_none() && known_id("R99").is_none());
        for r in RULES.iter().filter(|r| !r.id.is_empty()) {
            assert_eq!(known_id(r.id), Some(r.id));
        }
    }

    #[test]
    fn ids_are_unique_but_for_r5s_two_rows_and_none_is_retired() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES.iter().filter(|r| !r.id.is_empty()) {
            assert!(seen.insert(r.id) || r.id == "R5", "{} twice", r.id);
            assert!(NOT_PARSER_RULES.iter().all(|(id, _)| *id != r.id));
            assert!(!r.name.is_empty() && !r.example.is_empty() && !r.departure.is_empty() && !r.action.is_empty());
        }
    }
}
