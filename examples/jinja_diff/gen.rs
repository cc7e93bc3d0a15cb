//! Template programs and chat-shaped data for the differential fuzzer, from a grammar of what real chat
//! templates use. Every filter, test, global, method and `loop` attribute the zoo and conformance
//! templates call (counted with Jinja2's parser: 28 filters, 10 tests, 16 methods, 7 `loop`
//! attributes; BENCHMARKS.md) is generated, plus the rest of Jinja2's built-ins a template could
//! reach for. Expressions are typed loosely, so most programs render while some still mix types the
//! way a template meets unexpected data.

use serde_json::{json, Map, Value};

/// splitmix64: deterministic from the seed on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The loose type an expression is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Str,
    Int,
    Float,
    Bool,
    List,
    Dict,
    /// A message (`role`, `content`, maybe `tool_calls`, `reasoning_content`, …).
    Msg,
    Any,
}

const TYPES: [Ty; 8] = [Ty::Str, Ty::Int, Ty::Float, Ty::Bool, Ty::List, Ty::Dict, Ty::Msg, Ty::Any];

/// Text inside string literals: plain, unicode, quotes, markers, format directives.
const WORDS: &[&str] = &[
    "", "a", "hi", "Hello", " x ", "  pad  ", "a,b,c", "a b  c", "<|im_start|>", "</s>", "[INST]", "ü", "日本", "😀", "é", "naïve",
    "it's", "say \"hi\"", "%s", "%d", "{}", "{0}-{1}", "{name}", "<tool_call>", "\t", "line1\nline2", "A-B_c", "TRUE", "None",
    "0", "42", "-3", "2.5", "1e3", "nan", "&<>", "{{x}}", "%}", "{#", "\\", "user", "assistant", "system", "tool",
];

/// Escape sequences of a Jinja2 string literal (decoded with Python's `unicode-escape` rules).
const ESCAPES: &[&str] = &[
    "\\n", "\\t", "\\r", "\\\\", "\\'", "\\\"", "\\x41", "\\xe9", "\\u00e9", "\\u2022", "\\U0001F600", "\\0", "\\101", "\\7", "\\a", "\\b", "\\f", "\\v", "\\q", "\\d", "\\ ", "\\\n",
    "\\{", "\\%", "\\é", "\\x4", "\\u12", "\\8", "\\z",
];

const FORMATS: &[&str] = &[
    "%s", "%d", "%5d", "%-4s|", "%.2f", "%r", "%x", "%05.1f", "%%", "%s and %s", "%(a)s", "%i", "%e", "%g", "%c", "%o", "%+d",
];

const STRFTIME: &[&str] = &["%Y-%m-%d", "%d %B %Y", "%A", "%H:%M:%S", "%b %-d", "%j", "%I%p", "%y/%m", "%Z%z", "%a, %d %b %Y", "%%", "%e", "%U"];

/// A program: template source and context.
pub struct Program {
    pub template: String,
    pub context: Value,
}

pub struct Gen<'r> {
    rng: &'r mut Rng,
    /// Names in scope and their types (context names, loop variables, set variables, macro args).
    scope: Vec<(String, Ty)>,
    /// Loops enclosing the point of generation (for `loop.*`, `break`, `continue`).
    loops: usize,
    /// A loop marked `recursive` encloses the point of generation.
    recursive: bool,
    /// Inside a macro called with a call block (`caller()` exists).
    caller: bool,
    macros: Vec<(String, usize)>,
    namespaces: Vec<String>,
    depth: usize,
    counter: usize,
}

impl<'r> Gen<'r> {
    pub fn new(rng: &'r mut Rng) -> Self {
        Gen { rng, scope: Vec::new(), loops: 0, recursive: false, caller: false, macros: Vec::new(), namespaces: Vec::new(), depth: 0, counter: 0 }
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.counter += 1;
        format!("{stem}{}", self.counter)
    }

    fn var_of(&mut self, ty: Ty) -> Option<String> {
        let names: Vec<&String> = self.scope.iter().filter(|(_, t)| *t == ty || ty == Ty::Any).map(|(n, _)| n).collect();
        if names.is_empty() {
            None
        } else {
            Some(names[self.rng.below(names.len())].clone())
        }
    }

    // ---- literals -----------------------------------------------------------------------------------

    pub fn str_lit(&mut self) -> String {
        let quote = if self.rng.chance(60) { '\'' } else { '"' };
        let mut body = String::new();
        for _ in 0..1 + self.rng.below(3) {
            if self.rng.chance(30) {
                let e = self.rng.pick(ESCAPES);
                // Rare invalid escapes (`\x4`, unknown names) make whole programs fail to compile.
                if ["\\x4", "\\u12"].contains(&e) && !self.rng.chance(3) {
                    continue;
                }
                body.push_str(e);
            } else {
                let w = self.rng.pick(WORDS);
                for c in w.chars() {
                    match c {
                        '\\' => body.push_str("\\\\"),
                        c if c == quote => {
                            body.push('\\');
                            body.push(c);
                        }
                        '\n' if self.rng.chance(50) => body.push_str("\\n"),
                        c => body.push(c),
                    }
                }
            }
        }
        format!("{quote}{body}{quote}")
    }

    fn int_lit(&mut self) -> String {
        (self.rng.pick(&["0", "1", "2", "3", "-1", "7", "10", "-4", "100", "255", "1_000", "0x1f", "0o17", "0b101", "2147483648"])).to_string()
    }

    fn float_lit(&mut self) -> String {
        (self.rng.pick(&["0.0", "1.5", "-2.25", "0.1", "3.0", "1e3", "2.5e-3", "1e16", "123456789.123", "0.30000000000000004", "-0.0", "1E2", "1_0.5"])).to_string()
    }

    // ---- expressions --------------------------------------------------------------------------------

    pub fn expr(&mut self, ty: Ty) -> String {
        self.depth += 1;
        let e = if self.depth > 3 { self.leaf(ty) } else { self.expr_inner(ty) };
        self.depth -= 1;
        e
    }

    fn leaf(&mut self, ty: Ty) -> String {
        if self.rng.chance(50) {
            if let Some(v) = self.var_of(ty) {
                return v;
            }
        }
        match ty {
            Ty::Str => self.str_lit(),
            Ty::Int => self.int_lit(),
            Ty::Float => self.float_lit(),
            Ty::Bool => (self.rng.pick(&["true", "false", "True", "False", "(none is none)"])).to_string(),
            Ty::List => (self.rng.pick(&["[]", "[1, 2, 3]", "['b', 'a', 'c']", "messages", "tools", "[none, 0, '']", "(1, 'x')", "[[1, 2], [3]]", "l", "range(4)|list"])).to_string(),
            Ty::Dict => (self.rng.pick(&["{}", "{'a': 1, 'b': 'x'}", "d", "{'k': [1, {'n': none}]}", "messages[0]", "{'b': 2, 'a': 1}"])).to_string(),
            Ty::Msg => (self.rng.pick(&["messages[0]", "messages[-1]", "(messages|last)", "(messages|first)"])).to_string(),
            Ty::Any => {
                let t = self.rng.pick(&TYPES[..7]);
                match self.rng.below(20) {
                    0 => (self.rng.pick(&["none", "None", "missing", "d.nokey", "messages[0].nokey", "x", "none", "missing.attr"])).to_string(),
                    _ => self.leaf(t),
                }
            }
        }
    }

    fn expr_inner(&mut self, ty: Ty) -> String {
        match ty {
            Ty::Str => self.str_expr(),
            Ty::Int => self.int_expr(),
            Ty::Float => self.float_expr(),
            Ty::Bool => self.bool_expr(),
            Ty::List => self.list_expr(),
            Ty::Dict => self.dict_expr(),
            Ty::Msg => self.msg_expr(),
            Ty::Any => {
                let t = self.rng.pick(&TYPES[..7]);
                match self.rng.below(24) {
                    0 => self.generic(t),
                    1 => (self.rng.pick(&["none", "missing", "d.nokey", "messages[0].nokey", "messages[0].content", "messages[-1].tool_calls", "tools[0].function.parameters"])).to_string(),
                    _ => self.expr(t),
                }
            }
        }
    }

    /// Constructs valid for any type.
    fn generic(&mut self, ty: Ty) -> String {
        match self.rng.below(7) {
            0 => format!("({} if {} else {})", self.expr(ty), self.expr(Ty::Bool), self.expr(ty)),
            1 => format!("({} if {})", self.expr(ty), self.expr(Ty::Bool)),
            2 => format!("({}|default({}))", self.expr(Ty::Any), self.expr(ty)),
            3 => format!("({}|default({}, true))", self.expr(Ty::Any), self.expr(ty)),
            4 => format!("({}).get({}, {})", self.expr(Ty::Dict), self.key(), self.expr(ty)),
            5 => format!("({} or {})", self.expr(Ty::Any), self.expr(ty)),
            _ => format!("({} and {})", self.expr(Ty::Any), self.expr(ty)),
        }
    }

    fn key(&mut self) -> String {
        (self.rng.pick(&["'a'", "'b'", "'k'", "'role'", "'content'", "'name'", "'type'", "'x'", "'tool_calls'", "'function'", "'arguments'"])).to_string()
    }

    fn attr(&mut self) -> &'static str {
        self.rng.pick(&["role", "content", "name", "tool_calls", "reasoning_content", "function", "arguments", "type", "text", "a", "k", "id", "description", "parameters", "properties", "required"])
    }

    fn str_expr(&mut self) -> String {
        match self.rng.below(44) {
            0..=3 => self.leaf(Ty::Str),
            4 => format!("{} ~ {}", self.expr(Ty::Any), self.expr(Ty::Any)),
            5 => format!("({} + {})", self.expr(Ty::Str), self.expr(Ty::Str)),
            6 => {
                let f = self.rng.pick(&["upper", "lower", "trim", "title", "capitalize", "string", "e", "safe", "striptags", "urlencode", "wordcount", "reverse", "center(9)", "truncate(5)", "wordwrap(4)", "indent(2)", "indent(2, true)", "indent(first=true, blank=true)", "trim('x')", "replace('a', 'Z')", "replace('', '-')", "replace('a', 'b', 1)", "format(1, 2)", "forceescape", "striptags", "filesizeformat"]);
                format!("({}|{f})", self.expr(Ty::Str))
            }
            7 => {
                let m = self.rng.pick(&["strip()", "lstrip()", "rstrip()", "upper()", "lower()", "title()", "capitalize()", "strip('a<')", "lstrip(' \\n')", "rstrip('>')", "replace('a', 'b')", "replace(' ', '')", "format(1, 'x')", "format(name='n')", "swapcase()", "center(7, '*')", "ljust(5)", "rjust(5, '0')", "zfill(4)", "removeprefix('<')", "removesuffix('>')", "casefold()", "expandtabs(2)"]);
                format!("({}).{m}", self.expr(Ty::Str))
            }
            8 => format!("{}|join({})", self.expr(Ty::List), self.str_lit()),
            9 => format!("{}|join", self.expr(Ty::List)),
            10 => format!("{}.join({})", self.str_lit(), self.expr(Ty::List)),
            11 => {
                let args = self.rng.pick(&["", "(indent=2)", "(indent=4)", "(separators=(',', ':'))", "(sort_keys=true)", "(ensure_ascii=true)", "(indent='\\t')", "(indent=2, sort_keys=true)", "(2)"]);
                format!("({}|tojson{args})", self.expr(Ty::Any))
            }
            12 => format!("({}|string)", self.expr(Ty::Any)),
            13 => format!("({} % {})", self.fmt_lit(), self.expr(Ty::Any)),
            14 => format!("({} % ({}, {}))", self.fmt_lit(), self.expr(Ty::Any), self.expr(Ty::Any)),
            15 => format!("({}|format({}))", self.fmt_lit(), self.expr(Ty::Any)),
            16 => format!("{}.format({})", self.str_lit(), self.expr(Ty::Any)),
            17 => format!("({})[{}]", self.expr(Ty::Str), self.expr(Ty::Int)),
            18 => format!("({})[{}]", self.expr(Ty::Str), self.slice()),
            19 => format!("strftime_now('{}')", self.rng.pick(STRFTIME)),
            20 => format!("({}).{}", self.expr(Ty::Msg), self.rng.pick(&["role", "content", "name"])),
            21 => format!("({})['{}']", self.expr(Ty::Msg), self.rng.pick(&["role", "content"])),
            22 => format!("({}|first)", self.expr(Ty::Str)),
            23 => format!("({}|last)", self.expr(Ty::Str)),
            24 => format!("({}|map('string')|join(','))", self.expr(Ty::List)),
            25 => format!("({}|map(attribute='{}')|join)", self.expr(Ty::List), self.attr()),
            26 => format!("({}).split({})[{}]", self.expr(Ty::Str), self.split_arg(), self.expr(Ty::Int)),
            27 => format!("({} * {})", self.expr(Ty::Str), self.small_int()),
            28 => {
                if !self.macros.is_empty() {
                    let (name, n) = self.macros[self.rng.below(self.macros.len())].clone();
                    self.macro_call(&name, n)
                } else {
                    self.leaf(Ty::Str)
                }
            }
            29 if self.caller => "caller()".to_string(),
            30 => format!("({}|items|list|string)", self.expr(Ty::Dict)),
            31 => format!("({}|dictsort|string)", self.expr(Ty::Dict)),
            32 => format!("({}|truncate({}, {}, {}))", self.expr(Ty::Str), self.small_int(), self.expr(Ty::Bool), self.str_lit()),
            33 => format!("{}|sum(start='')", self.expr(Ty::List)),
            34 => format!("({}|wordcount|string)", self.str_lit()),
            35 => format!("({}|filesizeformat)", self.expr(Ty::Int)),
            36 => format!("({}|pprint)", self.expr(Ty::Any)),
            37 => format!("(({} | string).{})", self.expr(Ty::Any), self.rng.pick(&["upper()", "strip()", "split()|join('/')", "startswith('<')|string"])),
            38 => format!("({}|tojson|safe)", self.expr(Ty::Any)),
            39 => format!("({}).get({})", self.expr(Ty::Dict), self.key()),
            40 => format!("({}|center({}))", self.expr(Ty::Str), self.small_int()),
            41 => format!("({}).{}", self.expr(Ty::Str), self.rng.pick(&["splitlines()|join('|')", "isdigit()", "isspace()", "isalpha()", "rsplit(',', 1)|join('+')", "partition(' ')|join('/')", "zfill(3)", "ljust(4, '.')"])),
            _ => self.generic(Ty::Str),
        }
    }

    fn fmt_lit(&mut self) -> String {
        let f = if self.rng.chance(60) { "%s" } else { self.rng.pick(FORMATS) };
        format!("'{}{}'", if self.rng.chance(30) { "<" } else { "" }, f)
    }

    fn split_arg(&mut self) -> String {
        (self.rng.pick(&["", "','", "' '", "'\\n'", "'<'", "none", "',', 1", "maxsplit=1"])).to_string()
    }

    fn small_int(&mut self) -> String {
        (self.rng.pick(&["0", "1", "2", "3", "-1", "5"])).to_string()
    }

    fn slice(&mut self) -> String {
        let part = |g: &mut Self| {
            if g.rng.chance(40) {
                String::new()
            } else {
                (g.rng.pick(&["0", "1", "-1", "2", "-2", "10", "-10", "none"])).to_string()
            }
        };
        let a = part(self);
        let b = part(self);
        if self.rng.chance(35) {
            let c = self.rng.pick(&["-1", "2", "-2", "1", "none", ""]);
            format!("{a}:{b}:{c}")
        } else {
            format!("{a}:{b}")
        }
    }

    fn int_expr(&mut self) -> String {
        match self.rng.below(24) {
            0..=3 => self.leaf(Ty::Int),
            4 => format!("({}|length)", { let t = self.rng.pick(&[Ty::List, Ty::Str, Ty::Dict, Ty::Msg]); self.expr(t) }),
            5 => format!("({} {} {})", self.expr(Ty::Int), self.rng.pick(&["+", "-", "*", "//", "%", "**"]), self.small_int()),
            6 => format!("({} {} {})", self.expr(Ty::Int), self.rng.pick(&["+", "-", "*", "//", "%"]), self.expr(Ty::Int)),
            7 => format!("-{}", self.expr(Ty::Int)),
            8 => format!("({}|int)", self.expr(Ty::Any)),
            9 => format!("({}|int({}))", self.expr(Ty::Any), self.int_lit()),
            10 => format!("({}|abs)", self.expr(Ty::Int)),
            11 => format!("({}|count)", self.expr(Ty::List)),
            12 => format!("({}).count({})", self.expr(Ty::Str), self.str_lit()),
            13 => format!("({}).find({})", self.expr(Ty::Str), self.str_lit()),
            14 if self.loops > 0 => format!("loop.{}", self.rng.pick(&["index", "index0", "length", "revindex", "revindex0", "depth", "depth0"])),
            15 => format!("({}|sum)", self.rng.pick(&["[1, 2, 3]", "range(5)", "[]", "[1, 2.5]", "[true, true]"])),
            16 => format!("({}|round|int)", self.expr(Ty::Float)),
            17 => format!("{}|{}", self.rng.pick(&["[3, 1, 2]", "['b', 'a']", "[]", "range(3)"]), self.rng.pick(&["min", "max", "first", "last"])),
            18 => format!("({}|list|length)", self.lazy()),
            19 => format!("{}.index({})", self.rng.pick(&["'abc'", "[1, 2, 3]"]), self.rng.pick(&["'b'", "2", "'z'"])),
            20 => format!("({}|wordcount)", self.expr(Ty::Str)),
            _ => self.generic(Ty::Int),
        }
    }

    fn float_expr(&mut self) -> String {
        match self.rng.below(12) {
            0..=2 => self.leaf(Ty::Float),
            3 => format!("({} / {})", self.expr(Ty::Int), self.expr(Ty::Int)),
            4 => format!("({} {} {})", self.expr(Ty::Float), self.rng.pick(&["+", "-", "*", "/", "//", "%", "**"]), { let t = self.rng.pick(&[Ty::Int, Ty::Float]); self.expr(t) }),
            5 => format!("({}|float)", self.expr(Ty::Any)),
            6 => format!("({}|round({}))", self.expr(Ty::Float), self.rng.pick(&["", "1", "2", "0", "-1"])),
            7 => format!("({}|round(1, '{}'))", self.expr(Ty::Float), self.rng.pick(&["floor", "ceil", "common"])),
            8 => format!("({}|float(1.5))", self.expr(Ty::Str)),
            9 => format!("({}|abs)", self.expr(Ty::Float)),
            _ => self.generic(Ty::Float),
        }
    }

    fn bool_expr(&mut self) -> String {
        match self.rng.below(22) {
            0..=1 => self.leaf(Ty::Bool),
            2 => {
                // Ordering mostly between strings and numbers (anything else raises in Python).
                let op = self.rng.pick(&["==", "!=", "<", "<=", ">", ">="]);
                let t = if op.len() == 2 && op != "<=" && op != ">=" { self.rng.pick(&TYPES[..6]) } else { self.rng.pick(&[Ty::Str, Ty::Int, Ty::Float, Ty::Int]) };
                let other = match t {
                    Ty::Int | Ty::Float if self.rng.chance(95) => self.rng.pick(&[Ty::Int, Ty::Float]),
                    _ if self.rng.chance(95) => t,
                    _ => self.rng.pick(&TYPES),
                };
                format!("({} {op} {})", self.expr(t), self.expr(other))
            }
            3 => format!("({} in {})", self.expr(Ty::Str), { let t = self.rng.pick(&[Ty::Str, Ty::List, Ty::Dict, Ty::Msg]); self.expr(t) }),
            4 => format!("({} not in {})", self.expr(Ty::Any), { let t = self.rng.pick(&[Ty::Str, Ty::List, Ty::Dict]); self.expr(t) }),
            5 => format!("({} in {})", self.expr(Ty::Any), self.lazy()),
            6 => format!("not {}", self.expr(Ty::Bool)),
            7 => format!("({} and {})", self.expr(Ty::Bool), self.expr(Ty::Bool)),
            8 => format!("({} or {})", self.expr(Ty::Bool), self.expr(Ty::Bool)),
            9..=11 => {
                let t = self.rng.pick(&[
                    "defined", "undefined", "none", "string", "mapping", "iterable", "sequence", "number", "integer", "float", "boolean",
                    "true", "false", "odd", "even", "divisibleby(3)", "eq(1)", "ne('a')", "lt(2)", "gt(0)", "le 3", "ge 1", "in([1, 'a'])",
                    "sameas(none)", "lower", "upper", "callable", "escaped", "filter", "test", "equalto 2", "greaterthan 1", "lessthan 1",
                ]);
                let neg = if self.rng.chance(25) { "not " } else { "" };
                format!("({} is {neg}{t})", self.expr(Ty::Any))
            }
            12 => format!("({}).{}({})", self.expr(Ty::Str), self.rng.pick(&["startswith", "endswith"]), self.str_lit()),
            13 => format!("({}).startswith(({}, {}))", self.expr(Ty::Str), self.str_lit(), self.str_lit()),
            14 if self.loops > 0 => format!("loop.{}", self.rng.pick(&["first", "last", "previtem is defined", "nextitem is defined", "changed(1)"])),
            15 if self.rng.chance(3) => format!("({}|bool)", self.expr(Ty::Any)),
            16 => format!("({} == {})", self.expr(Ty::Any), self.expr(Ty::Any)),
            17 => format!("({} < {} < {})", self.expr(Ty::Int), self.expr(Ty::Int), self.expr(Ty::Int)),
            18 => format!("({}).{}()", self.expr(Ty::Str), self.rng.pick(&["isdigit", "isspace", "isalpha", "isalnum", "islower", "isupper", "istitle"])),
            _ => self.generic(Ty::Bool),
        }
    }

    /// The lazy sequences `map` / `select` / `reject` / `selectattr` / `rejectattr` return.
    fn lazy(&mut self) -> String {
        let l = self.expr(Ty::List);
        match self.rng.below(9) {
            0 => format!("{l}|map('string')"),
            1 => format!("{l}|map(attribute='{}')", self.attr()),
            2 => format!("{l}|select"),
            3 => format!("{l}|select('string')"),
            4 => format!("{l}|reject('none')"),
            5 => format!("{l}|selectattr('{}')", self.attr()),
            6 => format!("{l}|rejectattr('{}', 'equalto', {})", self.attr(), self.str_lit()),
            7 => format!("{l}|selectattr('{}', 'defined')", self.attr()),
            _ => format!("{l}|map('upper')"),
        }
    }

    fn list_expr(&mut self) -> String {
        match self.rng.below(32) {
            0..=2 => self.leaf(Ty::List),
            3 => {
                let n = self.rng.below(4);
                let items: Vec<String> = (0..n).map(|_| self.expr(Ty::Any)).collect();
                format!("[{}]", items.join(", "))
            }
            4 => format!("({}).split({})", self.expr(Ty::Str), self.split_arg()),
            5..=7 => self.lazy(),
            8 => format!("({}|list)", self.lazy()),
            9 => format!("({}|{})", self.expr(Ty::List), self.rng.pick(&["list", "list", "reverse", "batch(2)|list", "slice(2)|list", "list|reverse|list", "first|default('x')|string|list"])),
            26 => format!("({}|{})", self.rng.pick(&["['b', 'a', 'c']", "[3, 1, 2]", "[2.5, 1]", "s.split()", "['B', 'a']"]), self.rng.pick(&["sort", "unique|list", "sort(reverse=true)", "sort(case_sensitive=true)", "min|string|list", "max|string|list"])),
            10 => format!("{}[{}]", self.expr(Ty::List), self.slice()),
            11 => format!("({} + {})", self.expr(Ty::List), self.expr(Ty::List)),
            12 => format!("({}|items)", self.expr(Ty::Dict)),
            13 => format!("({}|dictsort)", self.expr(Ty::Dict)),
            14 => format!("(({}).{}()|list)", self.expr(Ty::Dict), self.rng.pick(&["items", "keys", "values"])),
            15 => format!("(range({})|list)", self.rng.pick(&["3", "0", "1, 4", "5, 0, -2", "-2"])),
            16 => format!("({}|list)", self.expr(Ty::Str)),
            17 => format!("({}|groupby('{}')|map(attribute='{}')|list)", self.rng.pick(&["messages", "[{'a': 1}, {'a': 2}, {'a': 1}]"]), self.rng.pick(&["role", "a"]), self.rng.pick(&["grouper", "list"])),
            18 => format!("({}|dictsort(by='value'))", self.rng.pick(&["{'b': 1, 'a': 2}", "d"])),
            19 => format!("({} * {})", self.expr(Ty::List), self.small_int()),
            20 => format!("({}|map({}))", self.expr(Ty::List), self.rng.pick(&["'length'", "'tojson'", "'trim'", "'int'", "'lower'", "'first'", "'default', 'z'", "'string'"])),
            21 => format!("({}|selectattr('role', 'equalto', '{}')|list)", self.rng.pick(&["messages", "messages[1:]"]), self.rng.pick(&["user", "assistant", "tool"])),
            22 => format!("({}).split()", self.expr(Ty::Str)),
            23 => format!("({}).rsplit({})", self.expr(Ty::Str), self.rng.pick(&["','", "',', 1", ""])),
            24 => format!("({}|map('string')|list)", self.lazy()),
            25 => format!("({}|sort(attribute='{}'))", self.rng.pick(&["[{'a': 2}, {'a': 1}]", "[{'a': 'x'}, {'a': 'b'}]"]), "a"),
            _ => self.generic(Ty::List),
        }
    }

    fn dict_expr(&mut self) -> String {
        match self.rng.below(12) {
            0..=2 => self.leaf(Ty::Dict),
            3 => {
                let n = self.rng.below(3);
                let items: Vec<String> = (0..n).map(|_| format!("{}: {}", self.key(), self.expr(Ty::Any))).collect();
                format!("{{{}}}", items.join(", "))
            }
            4 => format!("{}.function", self.tool_call()),
            5 => format!("{}.function.arguments", self.tool_call()),
            6 => format!("tools[{}].function.parameters", self.rng.pick(&["0", "-1"])),
            7 => format!("dict({})", self.rng.pick(&["", "a=1", "a=1, b='x'"])),
            8 => format!("({}).{}", self.expr(Ty::Msg), self.rng.pick(&["role", "content", "content", "tool_calls", "nokey"])),
            _ => self.generic(Ty::Dict),
        }
    }

    fn tool_call(&mut self) -> String {
        (self.rng.pick(&[
            "(messages|selectattr('tool_calls')|list|first|default({'tool_calls': [{'function': {'name': 'f', 'arguments': {}}}]})).tool_calls[0]",
            "(messages|selectattr('tool_calls')|list|last|default({'tool_calls': [{'function': {'name': 'f', 'arguments': '{}'}}]})).tool_calls[-1]",
        ]))
        .to_string()
    }

    fn msg_expr(&mut self) -> String {
        if self.rng.chance(50) {
            if let Some(v) = self.var_of(Ty::Msg) {
                return v;
            }
        }
        match self.rng.below(5) {
            0 => format!("messages[{}]", self.rng.pick(&["0", "1", "-1", "-2", "loop_index|default(0)"])),
            1 => "messages|last".to_string(),
            2 => "(messages|selectattr('role', 'equalto', 'user')|list|first)".to_string(),
            _ => self.leaf(Ty::Msg),
        }
    }

    fn macro_call(&mut self, name: &str, params: usize) -> String {
        let n = if self.rng.chance(90) { self.rng.below(params + 1) } else { params + 1 };
        let mut args: Vec<String> = (0..n).map(|_| self.expr(Ty::Any)).collect();
        if self.rng.chance(20) && n < params {
            args.push(format!("{}={}", ["a", "b", "c"][params - 1], self.expr(Ty::Any)));
        }
        format!("{name}({})", args.join(", "))
    }

    // ---- statements ---------------------------------------------------------------------------------

    fn open(&mut self) -> &'static str {
        self.rng.pick(&["{%", "{%", "{%", "{%-", "{%+"])
    }

    fn close(&mut self) -> &'static str {
        self.rng.pick(&["%}", "%}", "%}", "-%}", "+%}"])
    }

    fn text(&mut self) -> String {
        (self.rng.pick(&["", "\n", "x", "  ", "\n  ", " y \n", "<|im_end|>\n", "\t", "\n\n", "ü", "{#c#}", " {# c #}\n", "  \n  "])).to_string()
    }

    pub fn block(&mut self, n: usize) -> String {
        let mut out = String::new();
        for _ in 0..n {
            out.push_str(&self.text());
            out.push_str(&self.stmt());
        }
        out.push_str(&self.text());
        out
    }

    fn output(&mut self) -> String {
        let ty = self.rng.pick(&TYPES);
        let (o, c) = self.rng.pick(&[("{{ ", " }}"), ("{{- ", " }}"), ("{{ ", " -}}"), ("{{", "}}"), ("{{- ", " -}}")]);
        format!("{o}{}{c}", self.expr(ty))
    }

    fn stmt(&mut self) -> String {
        if self.depth > 2 {
            return self.output();
        }
        self.depth += 1;
        let s = match self.rng.below(26) {
            0..=7 => self.output(),
            8..=9 => self.if_stmt(),
            10..=12 => self.for_stmt(),
            13..=14 => self.set_stmt(),
            15 => self.set_block(),
            16 => self.ns_stmt(),
            17 => self.macro_stmt(),
            18 => self.call_block(),
            19 => {
                let f = self.rng.pick(&["upper", "trim", "indent(2)", "replace('a', 'b')", "lower|title"]);
                let (o, c) = (self.open(), self.close());
                let body = { let n = 1 + self.rng.below(2); self.block(n) };
                format!("{o} filter {f} {c}{body}{{% endfilter %}}")
            }
            20 if self.loops > 0 => {
                let w = self.rng.pick(&["break", "continue"]);
                format!("{{% if {} %}}{{% {w} %}}{{% endif %}}", self.expr(Ty::Bool))
            }
            21 => format!("{{% if {} %}}{{{{ raise_exception({}) }}}}{{% endif %}}", self.expr(Ty::Bool), self.str_lit()),
            22 => {
                let v = self.fresh("w");
                let e = self.expr(Ty::Any);
                self.scope.push((v.clone(), Ty::Any));
                let body = self.block(1);
                self.scope.pop();
                format!("{{% with {v} = {e} %}}{body}{{% endwith %}}")
            }
            23 if self.recursive => format!("{{{{ loop({}) }}}}", self.rng.pick(&["item.children|default([])", "[]", "item if item is iterable and item is not string else []"])),
            24 => format!("{{% set {} = {} %}}", self.fresh("t"), self.expr(Ty::Any)),
            _ => self.output(),
        };
        self.depth -= 1;
        s
    }

    fn if_stmt(&mut self) -> String {
        let (o, c) = (self.open(), self.close());
        let mut s = format!("{o} if {} {c}{}", self.expr(Ty::Bool), { let n = 1 + self.rng.below(2); self.block(n) });
        for _ in 0..self.rng.below(2) {
            s += &format!("{{% elif {} %}}{}", self.expr(Ty::Bool), self.block(1));
        }
        if self.rng.chance(50) {
            s += &format!("{} else {}{}", self.open(), self.close(), self.block(1));
        }
        s += &format!("{} endif {}", self.open(), self.close());
        s
    }

    fn for_stmt(&mut self) -> String {
        let (o, c) = (self.open(), self.close());
        let (target, iter, tys): (String, String, Vec<(String, Ty)>) = match self.rng.below(9) {
            0..=2 => {
                let v = self.fresh("m");
                (v.clone(), (self.rng.pick(&["messages", "messages[1:]", "messages|reverse", "messages|selectattr('role', 'equalto', 'user')", "messages|rejectattr('content', 'none')"])).to_string(), vec![(v, Ty::Msg)])
            }
            3 => {
                let (k, v) = (self.fresh("k"), self.fresh("v"));
                (format!("{k}, {v}"), format!("{}|{}", self.expr(Ty::Dict), self.rng.pick(&["items", "dictsort"])), vec![(k, Ty::Str), (v, Ty::Any)])
            }
            4 => {
                let (k, v) = (self.fresh("k"), self.fresh("v"));
                (format!("({k}, {v})"), format!("{}.items()", self.expr(Ty::Dict)), vec![(k, Ty::Str), (v, Ty::Any)])
            }
            5 => {
                let v = self.fresh("tool");
                (v.clone(), "tools".to_string(), vec![(v, Ty::Dict)])
            }
            6 => {
                let v = self.fresh("i");
                (v.clone(), format!("range({})", self.rng.pick(&["3", "messages|length", "1, 4", "0"])), vec![(v, Ty::Int)])
            }
            7 => {
                let v = self.fresh("c");
                (v.clone(), self.expr(Ty::Str), vec![(v, Ty::Str)])
            }
            _ => {
                let v = self.fresh("x");
                (v.clone(), self.expr(Ty::List), vec![(v, Ty::Any)])
            }
        };
        let recursive = self.rng.chance(8);
        let filter = if self.rng.chance(20) {
            self.scope.extend(tys.iter().cloned());
            let f = format!(" if {}", self.expr(Ty::Bool));
            self.scope.truncate(self.scope.len() - tys.len());
            f
        } else {
            String::new()
        };
        let n = self.scope.len();
        self.scope.extend(tys);
        if recursive {
            self.scope.push(("item".into(), Ty::Any));
        }
        self.loops += 1;
        let was = self.recursive;
        self.recursive = recursive;
        let body = { let n = 1 + self.rng.below(3); self.block(n) };
        self.recursive = was;
        self.loops -= 1;
        self.scope.truncate(n);
        let (target, iter) = if recursive { ("item".to_string(), "[1, [2, [3]], 'a']".to_string()) } else { (target, iter) };
        let mut s = format!("{o} for {target} in {iter}{filter}{} {c}{body}", if recursive { " recursive" } else { "" });
        if self.rng.chance(20) {
            s += &format!("{{% else %}}{}", self.block(1));
        }
        s += &format!("{} endfor {}", self.open(), self.close());
        s
    }

    fn set_stmt(&mut self) -> String {
        let ty = self.rng.pick(&TYPES);
        let v = self.fresh("v");
        let s = if self.rng.chance(15) {
            let w = self.fresh("v");
            let s = format!("{{% set {v}, {w} = {}, {} %}}", self.expr(ty), self.expr(Ty::Any));
            self.scope.push((w, Ty::Any));
            s
        } else {
            format!("{{% set {v} = {} %}}", self.expr(ty))
        };
        self.scope.push((v, ty));
        s
    }

    fn set_block(&mut self) -> String {
        let v = self.fresh("b");
        let filter = if self.rng.chance(30) { format!(" | {}", self.rng.pick(&["upper", "trim", "length", "tojson"])) } else { String::new() };
        let body = { let n = 1 + self.rng.below(2); self.block(n) };
        self.scope.push((v.clone(), Ty::Str));
        format!("{{% set {v}{filter} %}}{body}{{% endset %}}")
    }

    fn ns_stmt(&mut self) -> String {
        if self.namespaces.is_empty() || self.rng.chance(30) {
            let ns = self.fresh("ns");
            let init = format!("a={}, b={}, found=false, items=[]", self.expr(Ty::Any), self.expr(Ty::Int));
            self.namespaces.push(ns.clone());
            for (a, t) in [("a", Ty::Any), ("b", Ty::Int), ("found", Ty::Bool), ("items", Ty::List)] {
                self.scope.push((format!("{ns}.{a}"), t));
            }
            return format!("{{% set {ns} = namespace({init}) %}}");
        }
        let ns = self.namespaces[self.rng.below(self.namespaces.len())].clone();
        match self.rng.below(4) {
            0 => format!("{{% set {ns}.found = {} %}}", self.expr(Ty::Bool)),
            1 => format!("{{% set {ns}.b = {ns}.b + {} %}}", self.expr(Ty::Int)),
            2 => format!("{{% set {ns}.items = {ns}.items + [{}] %}}", self.expr(Ty::Any)),
            _ => format!("{{% set {ns}.a = {} %}}", self.expr(Ty::Any)),
        }
    }

    fn macro_stmt(&mut self) -> String {
        let name = self.fresh("mac");
        let params: Vec<&str> = ["a", "b", "c"][..self.rng.below(4)].to_vec();
        let mut decl = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if i > 0 && self.rng.chance(60) || i == 0 && self.rng.chance(20) {
                let t = self.rng.pick(&TYPES[..6]);
                decl.push(format!("{p}={}", self.leaf(t)));
            } else if decl.iter().any(|d: &String| d.contains('=')) {
                decl.push(format!("{p}=none"));
            } else {
                decl.push(p.to_string());
            }
        }
        let saved = std::mem::take(&mut self.scope);
        self.scope = saved.iter().filter(|(n, _)| !n.starts_with('v') && !n.starts_with('b') && !n.starts_with('t')).cloned().collect();
        for p in &params {
            self.scope.push((p.to_string(), Ty::Any));
        }
        // `varargs` / `kwargs` are a known difference (macro-varargs): rare.
        let extra = match self.rng.below(200) {
            0 => "{{ varargs }}",
            1 => "{{ kwargs }}",
            _ => "",
        };
        let was_caller = self.caller;
        let (loops, recursive) = (self.loops, self.recursive);
        (self.loops, self.recursive) = (0, false);
        self.caller = self.rng.chance(40);
        let body = { let n = 1 + self.rng.below(2); self.block(n) };
        self.caller = was_caller;
        (self.loops, self.recursive) = (loops, recursive);
        self.scope = saved;
        self.macros.push((name.clone(), params.len()));
        format!("{{% macro {name}({}) %}}{body}{extra}{{% endmacro %}}{{{{ {} }}}}", decl.join(", "), self.macro_call(&name, params.len()))
    }

    fn call_block(&mut self) -> String {
        let name = self.fresh("cm");
        let callee_body = match self.rng.below(3) {
            0 => "[{{ caller() }}]".to_string(),
            1 => "{{ caller()|upper }}{{ caller()|length }}".to_string(),
            _ => "{% for i in [1, 2] %}{{ caller(i) }}{% endfor %}".to_string(),
        };
        let args = if callee_body.contains("caller(i)") { "(n)" } else { "" };
        self.scope.push(("n".into(), Ty::Any));
        let (loops, recursive) = (self.loops, self.recursive);
        (self.loops, self.recursive) = (0, false);
        let body = self.block(1);
        (self.loops, self.recursive) = (loops, recursive);
        self.scope.pop();
        format!("{{% macro {name}() %}}{callee_body}{{% endmacro %}}{{% call{args} {name}() %}}{body}{{% endcall %}}")
    }
}

// ---- data ---------------------------------------------------------------------------------------------

const CONTENTS: &[&str] = &[
    "Hello", "What is the weather in Paris?", "", " padded \n", "naïve \"quoted\" <tag> & ünïcode", "line1\nline2\n", "😀 emoji",
    "<think>reason</think>answer", "{\"a\": 1}", "It's 21°C", "\\backslash\\", "tab\there", "<|im_end|>", "  ", "[INST] x [/INST]",
];

fn content(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => Value::Null,
        1 => json!([{"type": "text", "text": rng.pick(CONTENTS)}, {"type": "image"}]),
        2 => json!([{"type": "text", "text": rng.pick(CONTENTS)}]),
        _ => json!(rng.pick(CONTENTS)),
    }
}

fn arguments(rng: &mut Rng) -> Value {
    let args = match rng.below(4) {
        0 => json!({"location": "Paris", "unit": "celsius"}),
        1 => json!({"query": "naïve \"q\" <t>", "limit": 3, "filters": {"tags": ["a", "b"], "on": true, "x": null, "f": 1.5}}),
        2 => json!({}),
        _ => json!({"expr": "2+2"}),
    };
    if rng.chance(40) {
        Value::String(serde_json::to_string(&args).unwrap_or_default())
    } else {
        args
    }
}

/// A chat request: messages (contents as strings, parts or null; tool calls with dict or string
/// arguments; reasoning; missing keys), tools with nested schemas, flags, and a few plain values.
pub fn context(rng: &mut Rng) -> Value {
    let mut messages = Vec::new();
    if rng.chance(60) {
        messages.push(json!({"role": "system", "content": rng.pick(CONTENTS)}));
    }
    messages.push(json!({"role": "user", "content": content(rng)}));
    let calls = rng.below(3);
    if calls > 0 || rng.chance(50) {
        let mut m = Map::new();
        m.insert("role".into(), "assistant".into());
        if !rng.chance(10) {
            m.insert("content".into(), if calls > 0 && rng.chance(50) { Value::Null } else { content(rng) });
        }
        if rng.chance(30) {
            m.insert("reasoning_content".into(), json!("I should think."));
        }
        if calls > 0 {
            let tcs: Vec<Value> = (0..calls)
                .map(|i| {
                    let mut f = json!({"name": if i == 0 { "get_weather" } else { "search" }, "arguments": arguments(rng)});
                    if rng.chance(10) {
                        f.as_object_mut().map(|o| o.remove("arguments"));
                    }
                    if rng.chance(70) {
                        json!({"id": format!("call_{i}"), "type": "function", "function": f})
                    } else {
                        json!({"function": f})
                    }
                })
                .collect();
            m.insert("tool_calls".into(), Value::Array(tcs));
            messages.push(Value::Object(m));
            messages.push(json!({"role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": rng.pick(&["{\"temp\": 21}", "sunny", ""])}));
        } else {
            messages.push(Value::Object(m));
        }
        if rng.chance(50) {
            messages.push(json!({"role": "user", "content": content(rng)}));
        }
    }
    let mut ctx = Map::new();
    ctx.insert("messages".into(), Value::Array(messages));
    if rng.chance(70) {
        let mut tools = vec![json!({"type": "function", "function": {"name": "get_weather", "description": "Get the weather ☀",
            "parameters": {"type": "object", "properties": {"location": {"type": "string", "description": "City"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}}})];
        if rng.chance(50) {
            tools.push(json!({"type": "function", "function": {"name": "search", "description": "Search \"docs\"",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "default": 3},
                    "filters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}}}}}));
        }
        ctx.insert("tools".into(), Value::Array(tools));
    } else if rng.chance(20) {
        ctx.insert("tools".into(), Value::Null);
    }
    ctx.insert("add_generation_prompt".into(), Value::Bool(rng.chance(60)));
    // transformers always passes the tokenizer's special tokens.
    ctx.insert("bos_token".into(), json!("<s>"));
    ctx.insert("eos_token".into(), json!("</s>"));
    if rng.chance(40) {
        ctx.insert("enable_thinking".into(), Value::Bool(rng.chance(50)));
    }
    ctx.insert("s".into(), json!(rng.pick(CONTENTS)));
    ctx.insert("n".into(), json!(rng.pick(&[0, 1, 3, -2, 10])));
    ctx.insert("f".into(), json!(rng.pick(&[0.5, 2.0, -1.25, 1e20, 3.14159])));
    ctx.insert("l".into(), json!(["x", 1, null, {"a": 1}]));
    ctx.insert("d".into(), json!({"a": 1, "b": "two", "c": [1, 2], "z": null}));
    Value::Object(ctx)
}

/// Program `index` of the run seeded with `seed`.
pub fn program(seed: u64, index: u64) -> Program {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01B3) ^ index.wrapping_mul(0x9E37_79B9));
    let context = context(&mut rng);
    let mut g = Gen::new(&mut rng);
    for (name, ty) in [("messages", Ty::List), ("tools", Ty::List), ("s", Ty::Str), ("n", Ty::Int), ("f", Ty::Float), ("l", Ty::List), ("d", Ty::Dict), ("add_generation_prompt", Ty::Bool), ("bos_token", Ty::Str)] {
        g.scope.push((name.to_string(), ty));
    }
    // Small programs: Python's compile dominates the run, and one failing construct fails a whole program.
    let n = 1 + g.rng.below(3);
    let template = g.block(n);
    Program { template, context }
}
