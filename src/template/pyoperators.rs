//! Python operator semantics that minijinja's VM does not have, reached by rewriting the source.
//!
//! Jinja2 evaluates operators with Python's objects: `str + Markup` is `Markup.__radd__`, which escapes
//! the plain operand; `'%s' % x` is printf formatting; `for x in None` raises `TypeError`. minijinja
//! concatenates, refuses `%` on strings and iterates `None` as empty, and it has no hook for operators.
//! So before compiling, the template is parsed with minijinja's own parser and, where it matters, an
//! operator is turned into a call of a function here that implements Python's semantics:
//!
//! * `for x in E` → `for x in __py_iter(E)` in every template (raises on `None`);
//! * `a % b` → `__py_mod(a, b)` in every template, unless `a` is a number literal;
//! * `a + b` → `__py_add(a, b)` and `a ~ b` → `__py_concat(a, b)` only in templates that can make a
//!   `Markup` at all (they apply `safe`, `escape`, `e` or `forceescape`): without one, Python's `+`
//!   and `~` on the values a chat template sees are minijinja's.
//!
//! The rewrite only inserts text and replaces operator tokens; [`Rewritten::original_offset`] maps
//! positions in errors back to the source as given. Lines never change.

use super::env::note_fuel;
use super::markup::{is_markup, markup_escape};
use super::tojson::{too_large, MAX_SERIALIZED_BYTES};
use minijinja::machinery::ast::{CallArg, Expr, Stmt};
use minijinja::machinery::{self, ast::BinOpKind, Token};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

/// The function names the rewrite calls.
pub const PY_ADD: &str = "__py_add";
pub const PY_CONCAT: &str = "__py_concat";
pub const PY_MOD: &str = "__py_mod";
pub const PY_ITER: &str = "__py_iter";
/// Python's ordering comparisons and `in` (type errors, `Undefined` refusing to compare).
pub const PY_COMPARE: [&str; 6] = ["__py_lt", "__py_le", "__py_gt", "__py_ge", "__py_in", "__py_not_in"];

/// Register the functions the rewrite calls, and the comparison tests (`is lt 3`), which are Python's
/// `operator.lt` and friends.
pub fn add_operator_functions(env: &mut Environment<'static>) {
    for (names, op) in [(&["lt", "lessthan", "<"][..], "<"), (&["le", "<="][..], "<="), (&["gt", "greaterthan", ">"][..], ">"), (&["ge", ">="][..], ">=")] {
        for name in names {
            env.add_test(*name, move |a: Value, b: Value| {
                py_order(a, b, op).map(|o| {
                    o.is_some_and(|o| match op {
                        "<" => o.is_lt(),
                        "<=" => o.is_le(),
                        ">" => o.is_gt(),
                        _ => o.is_ge(),
                    })
                })
            });
        }
    }
    // Jinja2: `x is filter` / `x is test` are false for anything but a name.
    env.add_test("filter", move |s: &State, v: Value| unhashable(&v).map(|()| v.as_str().is_some_and(|n| minijinja::tests::is_filter(s, n))));
    env.add_test("test", move |s: &State, v: Value| unhashable(&v).map(|()| v.as_str().is_some_and(|n| minijinja::tests::is_test(s, n))));
    env.add_function(PY_ADD, py_add);
    env.add_function(PY_CONCAT, py_concat);
    env.add_function(PY_MOD, py_mod);
    env.add_function(PY_ITER, py_iter);
    env.add_function("__py_lt", |a: Value, b: Value| py_order(a, b, "<").map(|o| Value::from(o.is_some_and(|o| o.is_lt()))));
    env.add_function("__py_le", |a: Value, b: Value| py_order(a, b, "<=").map(|o| Value::from(o.is_some_and(|o| o.is_le()))));
    env.add_function("__py_gt", |a: Value, b: Value| py_order(a, b, ">").map(|o| Value::from(o.is_some_and(|o| o.is_gt()))));
    env.add_function("__py_ge", |a: Value, b: Value| py_order(a, b, ">=").map(|o| Value::from(o.is_some_and(|o| o.is_ge()))));
    env.add_function("__py_in", |s: &State, a: Value, b: Value| py_in(s, a, b).map(Value::from));
    env.add_function("__py_not_in", |s: &State, a: Value, b: Value| py_in(s, a, b).map(|r| Value::from(!r)));
}

/// Most rewritten calls nested in one another. Each costs the parser a bracket level of stack (a chain
/// `a + b + …` costs none before the rewrite); a template needing more keeps minijinja's operators.
/// Real templates nest under 10.
const MAX_NESTED_CALLS: i32 = 16;

/// Filters that make a `Markup` in Jinja2 without auto-escaping.
const MARKUP_FILTERS: [&str; 4] = ["safe", "escape", "e", "forceescape"];

/// A rewritten source and the edits that made it.
#[derive(Debug, Clone, Default)]
pub struct Rewritten {
    pub source: String,
    /// The template applies a filter that makes a `Markup`.
    pub makes_markup: bool,
    /// Jinja2's compile-time error for a filter or test it does not have, used outside an `if`.
    pub unknown_name: Option<String>,
    /// (offset in the original, bytes removed, bytes inserted), in source order.
    edits: Vec<(usize, usize, usize)>,
}

impl Rewritten {
    /// The rewrite changed nothing.
    pub fn is_identity(&self) -> bool {
        self.edits.is_empty()
    }

    /// The same facts about the template, for its source compiled as it is.
    pub fn without_edits(self) -> Rewritten {
        Rewritten { source: String::new(), makes_markup: self.makes_markup, unknown_name: self.unknown_name, edits: Vec::new() }
    }

    /// The offset in the original source of `offset` in the rewritten one (text the rewrite inserted
    /// maps to where it was inserted).
    pub fn original_offset(&self, offset: usize) -> usize {
        let mut shift: isize = 0;
        for &(at, removed, inserted) in &self.edits {
            let start = (at as isize + shift) as usize;
            if offset < start {
                break;
            }
            if offset < start + inserted {
                return at;
            }
            shift += inserted as isize - removed as isize;
        }
        (offset as isize - shift).max(0) as usize
    }
}

/// One edit: at `at` (original offset) remove `remove` bytes and insert `text`. `rank` orders edits at
/// the same offset: closing parentheses (innermost first), then token replacements, then openings
/// (outermost first).
struct Edit {
    at: usize,
    rank: (u8, i32),
    remove: usize,
    text: &'static str,
}

struct Collector<'s> {
    tokens: Vec<(Token<'s>, machinery::Span)>,
    edits: Vec<Edit>,
    markup: bool,
    /// An operator whose token could not be located: the rewrite is abandoned.
    failed: bool,
}

/// Rewrite `source` (see the module doc). A source minijinja cannot parse is returned unchanged: compiling
/// it reports the syntax error.
pub fn rewrite(source: &str, syntax: &SyntaxConfig) -> Rewritten {
    let unchanged = || Rewritten { source: source.to_string(), makes_markup: false, unknown_name: None, edits: Vec::new() };
    let Ok(ast) = machinery::parse(source, "chat_template", syntax.clone()) else { return unchanged() };
    let unknown_name = unknown_name(&ast);
    let unchanged = || Rewritten { unknown_name: unknown_name.clone(), ..unchanged() };
    let tokens: Result<Vec<_>, _> = machinery::tokenize(source, false, syntax.clone()).collect();
    let Ok(tokens) = tokens else { return unchanged() };
    let mut c = Collector { tokens, edits: Vec::new(), markup: false, failed: false };
    c.markup = makes_markup(&ast);
    c.stmt(&ast);
    if c.failed || c.edits.is_empty() {
        return Rewritten { makes_markup: c.markup, ..unchanged() };
    }
    let mut edits = c.edits;
    edits.sort_by_key(|e| (e.at, e.rank));
    let mut out = String::with_capacity(source.len() + edits.len() * 12);
    let mut record = Vec::with_capacity(edits.len());
    let mut pos = 0;
    for e in &edits {
        if e.at < pos || !source.is_char_boundary(e.at) {
            return Rewritten { makes_markup: c.markup, ..unchanged() };
        }
        out.push_str(&source[pos..e.at]);
        // A call opened right after a keyword (`for x in[1]`, `if(a)<b`) would join it into one name
        // (`in__py_iter`): a space keeps them apart.
        let pad = e.text.starts_with('_') && out.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
        if pad {
            out.push(' ');
        }
        out.push_str(e.text);
        record.push((e.at, e.remove, e.text.len() + usize::from(pad)));
        pos = e.at + e.remove;
    }
    out.push_str(&source[pos..]);
    Rewritten { source: out, makes_markup: c.markup, unknown_name, edits: record }
}

/// Jinja2's filters and tests (transformers adds `tojson`); a template naming another fails in Python.
const JINJA2_FILTERS: &[&str] = &[
    "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape", "filesizeformat",
    "first", "float", "forceescape", "format", "groupby", "indent", "int", "items", "join", "last", "length", "list", "lower",
    "map", "max", "min", "pprint", "random", "reject", "rejectattr", "replace", "reverse", "round", "safe", "select",
    "selectattr", "slice", "sort", "string", "striptags", "sum", "title", "tojson", "trim", "truncate", "unique", "upper",
    "urlencode", "urlize", "wordcount", "wordwrap", "xmlattr",
];
const JINJA2_TESTS: &[&str] = &[
    "!=", "<", "<=", "==", ">", ">=", "boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even",
    "false", "filter", "float", "ge", "greaterthan", "gt", "in", "integer", "iterable", "le", "lessthan", "lower", "lt",
    "mapping", "ne", "none", "number", "odd", "sameas", "sequence", "string", "test", "true", "undefined", "upper",
];

/// Jinja2 checks filter and test names when it compiles, except inside an `if` statement or an inline
/// `if` expression (its "soft" frames, which a loop, macro, call, `with`, `set` or `filter` block inside
/// them ends); there an unknown name fails only when it runs, as minijinja's always do.
fn unknown_name(ast: &Stmt<'_>) -> Option<String> {
    fn expr(e: &Expr<'_>, soft: bool, out: &mut Option<String>) {
        if out.is_some() {
            return;
        }
        let soft = soft || matches!(e, Expr::IfExpr(_));
        // Jinja2's optimiser folds `const or x` / `const and x` to the constant when the constant decides
        // it, before the check, so `x` is never checked (`{{ 1 or x|bogus }}` renders 1).
        if let Expr::BinOp(b) = e {
            let or = matches!(b.op, BinOpKind::ScOr);
            if (or || matches!(b.op, BinOpKind::ScAnd)) && b.left.as_const().is_some_and(|v| v.is_true() == or) {
                return;
            }
        }
        match e {
            Expr::Filter(f) if !soft && !JINJA2_FILTERS.contains(&f.name) => *out = Some(format!("No filter named '{}'.", f.name)),
            Expr::Test(t) if !soft && !JINJA2_TESTS.contains(&t.name) => *out = Some(format!("No test named '{}'.", t.name)),
            _ => {}
        }
        expr_children(e, &mut |c| expr(c, soft, out));
    }
    fn stmt(s: &Stmt<'_>, soft: bool, out: &mut Option<String>) {
        let visit = |st: &Stmt<'_>, soft: bool, out: &mut Option<String>| stmt(st, soft, out);
        match s {
            Stmt::IfCond(i) => {
                expr(&i.expr, true, out);
                i.true_body.iter().chain(&i.false_body).for_each(|st| visit(st, true, out));
            }
            Stmt::ForLoop(l) => {
                expr(&l.iter, soft, out);
                // The loop's `if` filter is checked at run time, as in an `if`.
                if let Some(f) = &l.filter_expr {
                    expr(f, true, out);
                }
                l.body.iter().for_each(|st| visit(st, false, out));
                l.else_body.iter().for_each(|st| visit(st, soft, out));
            }
            Stmt::Macro(_) | Stmt::CallBlock(_) | Stmt::WithBlock(_) | Stmt::SetBlock(_) | Stmt::FilterBlock(_) => {
                let inner = |st: &Stmt<'_>, out: &mut Option<String>| visit(st, false, out);
                for_each_child(s, &mut |c| match c {
                    Child::Stmt(st) => inner(st, out),
                    Child::Expr(e) => expr(e, soft, out),
                });
            }
            _ => for_each_child(s, &mut |c| match c {
                Child::Stmt(st) => visit(st, soft, out),
                Child::Expr(e) => expr(e, soft, out),
            }),
        }
    }
    let mut out = None;
    stmt(ast, false, &mut out);
    out
}

/// Does the template apply a filter that makes a `Markup` (directly, or named to `map` and the like)?
fn makes_markup(ast: &Stmt<'_>) -> bool {
    let mut found = false;
    walk_stmt(ast, &mut |e| match e {
        Expr::Filter(f) if MARKUP_FILTERS.contains(&f.name) => found = true,
        Expr::Const(c) if c.value.as_str().is_some_and(|s| MARKUP_FILTERS.contains(&s)) => found = true,
        _ => {}
    });
    found
}

impl<'s> Collector<'s> {
    fn stmt(&mut self, s: &Stmt<'_>) {
        if let Stmt::ForLoop(f) = s {
            self.wrap_iterable(f.span().start_offset as usize);
        }
        // A loop's iterable sits inside `__py_iter(…)`; nothing else a statement holds is enclosed.
        let iter = match s {
            Stmt::ForLoop(f) => Some(&f.iter as *const Expr<'_>),
            _ => None,
        };
        for_each_child(s, &mut |child| match child {
            Child::Stmt(st) => self.stmt(st),
            Child::Expr(e) => self.expr(e, i32::from(iter == Some(e as *const Expr<'_>))),
        });
    }

    /// `nest`: how many rewritten calls enclose `e`.
    fn expr(&mut self, e: &Expr<'_>, nest: i32) {
        if let Expr::BinOp(b) = e {
            // A single comparison is a `BinOp` (`a not in b`: `not` around `a in b`, whose tokens are
            // both between the operands); a chain (`a < b < c`) keeps minijinja's comparisons.
            let negated_in = matches!(b.op, BinOpKind::In) && self.token_after(&b.left).is_some_and(|t| matches!(t, Token::Ident("not")));
            let target: Option<(&'static str, &[Token<'_>])> = match b.op {
                BinOpKind::Add if self.markup => Some((PY_ADD, &[Token::Plus])),
                BinOpKind::Concat if self.markup => Some((PY_CONCAT, &[Token::Tilde])),
                BinOpKind::Rem if !matches!(&b.left, Expr::Const(c) if c.value.is_number()) => Some((PY_MOD, &[Token::Mod])),
                BinOpKind::Lt => Some((PY_COMPARE[0], &[Token::Lt])),
                BinOpKind::Lte => Some((PY_COMPARE[1], &[Token::Lte])),
                BinOpKind::Gt => Some((PY_COMPARE[2], &[Token::Gt])),
                BinOpKind::Gte => Some((PY_COMPARE[3], &[Token::Gte])),
                BinOpKind::In if negated_in => Some((PY_COMPARE[5], &[Token::Ident("not"), Token::Ident("in")])),
                BinOpKind::In => Some((PY_COMPARE[4], &[Token::Ident("in")])),
                _ => None,
            };
            let inner = match target {
                Some((function, op)) => {
                    self.call_tokens(b.span(), &b.left, &b.right, function, op, nest);
                    nest + 1
                }
                None => nest,
            };
            self.expr(&b.left, inner);
            self.expr(&b.right, inner);
            return;
        }
        expr_children(e, &mut |child| self.expr(child, nest));
    }

    /// Where the left operand `e` of an operator at `op_at` starts, with the parentheses around it.
    fn operand_start(&self, e: &Expr<'_>, op_at: usize) -> usize {
        // A filter, attribute or subscript spans from its own token, not from the value it applies to.
        fn leftmost(e: &Expr<'_>) -> usize {
            let mut start = e.span().start_offset as usize;
            expr_children(e, &mut |c| start = start.min(leftmost(c)));
            start
        }
        let mut start = leftmost(e);
        let mut i = self.first_token_at(start);
        if i >= self.tokens.len() {
            return start;
        }
        while i > 0 && matches!(self.tokens[i - 1].0, Token::ParenOpen) {
            // Its matching `)` must come before the operator.
            let mut depth = 0i32;
            let mut closes = None;
            for (t, s) in &self.tokens[i - 1..] {
                match t {
                    Token::ParenOpen => depth += 1,
                    Token::ParenClose => {
                        depth -= 1;
                        if depth == 0 {
                            closes = Some(s.end_offset as usize);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            if !closes.is_some_and(|c| c <= op_at) {
                break;
            }
            i -= 1;
            start = self.tokens[i].1.start_offset as usize;
        }
        start
    }

    /// The index of the first token starting at or after `offset` (tokens are in source order).
    fn first_token_at(&self, offset: usize) -> usize {
        self.tokens.partition_point(|(_, s)| (s.start_offset as usize) < offset)
    }

    /// The first token after `e` that is not a closing parenthesis (an operator after its left operand).
    fn token_after(&self, e: &Expr<'_>) -> Option<&Token<'s>> {
        let after = e.span().end_offset as usize;
        self.tokens[self.first_token_at(after)..].iter().find(|(t, _)| !matches!(t, Token::ParenClose | Token::BracketClose | Token::BraceClose)).map(|(t, _)| t)
    }

    /// `left OP right` spanning `span` becomes `function(left, right)`; `op` is the operator's tokens.
    fn call_tokens(&mut self, span: machinery::Span, left: &Expr<'_>, right: &Expr<'_>, function: &'static str, op: &[Token<'_>], nest: i32) {
        if nest >= MAX_NESTED_CALLS {
            self.failed = true;
            return;
        }
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        let after_left = left.span().end_offset as usize;
        let before_right = right.span().start_offset as usize;
        // Between the left operand and the operator there can only be closing brackets (a slice's
        // span ends before its `]`).
        let from = self.first_token_at(after_left);
        let first = self.tokens[from..].iter().position(|(t, _)| !matches!(t, Token::ParenClose | Token::BracketClose | Token::BraceClose)).map(|p| from + p);
        let found = first.and_then(|i| self.tokens.get(i..i + op.len())).filter(|toks| {
            toks.iter().zip(op).all(|((t, _), want)| match (t, want) {
                (Token::Ident(a), Token::Ident(b)) => a == b,
                _ => std::mem::discriminant(t) == std::mem::discriminant(want),
            }) && toks.last().is_some_and(|(_, s)| (s.end_offset as usize) <= before_right)
        });
        let Some(toks) = found else {
            self.failed = true;
            return;
        };
        let (op_at, op_end) = (toks[0].1.start_offset as usize, toks[toks.len() - 1].1.end_offset as usize);
        // minijinja starts a single comparison's span at the token before it (`{{`): start at the left
        // operand, with the parentheses that enclose just it.
        let start = if function.starts_with("__py_") && PY_COMPARE.contains(&function) { self.operand_start(left, op_at) } else { start };
        let opening = match function {
            PY_ADD => "__py_add(",
            PY_CONCAT => "__py_concat(",
            "__py_lt" => "__py_lt(",
            "__py_le" => "__py_le(",
            "__py_gt" => "__py_gt(",
            "__py_ge" => "__py_ge(",
            "__py_in" => "__py_in(",
            "__py_not_in" => "__py_not_in(",
            _ => "__py_mod(",
        };
        self.edits.push(Edit { at: start, rank: (2, nest), remove: 0, text: opening });
        self.edits.push(Edit { at: op_at, rank: (1, 0), remove: op_end - op_at, text: "," });
        self.edits.push(Edit { at: end, rank: (0, -nest), remove: 0, text: ")" });
    }

    /// Wrap the iterable of the for loop whose tag starts at `tag` (the tokens after its first `in` at
    /// bracket depth 0, up to `if`, `recursive` or the block end at depth 0) in `__py_iter(…)`. It is the
    /// outermost call at its offsets.
    fn wrap_iterable(&mut self, tag: usize) {
        let mut depth = 0i32;
        let keyword = self.tokens.iter().enumerate().skip(self.first_token_at(tag)).find(|(_, (t, _))| {
            match t {
                Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => depth += 1,
                Token::ParenClose | Token::BracketClose | Token::BraceClose => depth -= 1,
                _ => {}
            }
            depth == 0 && matches!(t, Token::Ident("in"))
        });
        let Some((in_at, _)) = keyword else {
            self.failed = true;
            return;
        };
        let mut depth = 0i32;
        let mut first = None;
        let mut last = None;
        for (t, s) in &self.tokens[in_at + 1..] {
            match t {
                Token::ParenOpen | Token::BracketOpen | Token::BraceOpen => depth += 1,
                Token::ParenClose | Token::BracketClose | Token::BraceClose => depth -= 1,
                Token::Ident("if" | "recursive") | Token::BlockEnd if depth == 0 => break,
                _ => {}
            }
            first.get_or_insert(s.start_offset as usize);
            last = Some(s.end_offset as usize);
        }
        let (Some(first), Some(last)) = (first, last) else {
            self.failed = true;
            return;
        };
        self.edits.push(Edit { at: first, rank: (2, -1), remove: 0, text: "__py_iter(" });
        self.edits.push(Edit { at: last, rank: (0, 1), remove: 0, text: ")" });
    }
}

/// The name Python gives the type of `v` in a `TypeError`.
pub fn python_type(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::String if v.is_safe() => "Markup",
        ValueKind::String => "str",
        ValueKind::None => "NoneType",
        ValueKind::Undefined => "Undefined",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::Map => "dict",
        _ if v.is_tuple() => "tuple",
        _ => "list",
    }
}

fn joined(a: &str, b: &str) -> Result<String, Error> {
    if a.len() + b.len() > MAX_SERIALIZED_BYTES {
        return Err(too_large("string concatenation"));
    }
    Ok([a, b].concat())
}

/// minijinja's own operator, for operands whose Python semantics it already has.
fn native(state: &State, expression: &'static str, a: Value, b: Value) -> Result<Value, Error> {
    state.env().compile_expression(expression)?.eval(minijinja::context! { a => a, b => b })
}

/// Python's `a + b` (`__py_add`).
fn py_add(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    note_fuel(state);
    match (a.kind(), b.kind()) {
        (ValueKind::String, ValueKind::String) => {
            let (x, y) = (a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default());
            Ok(match (a.is_safe(), b.is_safe()) {
                (false, false) => Value::from(joined(x, y)?),
                (true, true) => Value::from_safe_string(joined(x, y)?),
                (true, false) => Value::from_safe_string(joined(x, &markup_escape(y))?),
                (false, true) => Value::from_safe_string(joined(&markup_escape(x), y)?),
            })
        }
        _ if is_markup(&a) || is_markup(&b) => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("unsupported operand type(s) for +: '{}' and '{}'", python_type(&a), python_type(&b)),
        )),
        (ValueKind::Number, ValueKind::Number) if a.is_integer() && b.is_integer() => {
            match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) if x.checked_add(y).is_some() => Ok(Value::from(x + y)),
                _ => native(state, "a + b", a, b),
            }
        }
        _ => native(state, "a + b", a, b),
    }
}

/// Python's `a ~ b` (`__py_concat`): Jinja2's `str_join`, a plain string even of two `Markup`s.
fn py_concat(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    note_fuel(state);
    if a.kind() == ValueKind::String && b.kind() == ValueKind::String {
        return Ok(Value::from(joined(a.as_str().unwrap_or_default(), b.as_str().unwrap_or_default())?));
    }
    native(state, "a ~ b", a, b)
}

/// Python's `a % b` (`__py_mod`): printf formatting for a string (escaping the arguments of a `Markup`),
/// Python's floor modulo for integers.
fn py_mod(state: &mut State, a: Value, b: Value) -> Result<Value, Error> {
    note_fuel(state);
    if a.kind() == ValueKind::String {
        // A tuple gives the arguments, a mapping serves `%(name)s`, anything else is one argument; a
        // `Markup` escapes them (MarkupSafe's `__mod__`).
        let fmt = a.as_str().unwrap_or_default();
        if !is_markup(&a) {
            return super::pyformat::percent(fmt, &b).map(Value::from);
        }
        let b = if b.is_tuple() {
            super::pylist::tuple(b.try_iter()?.map(|v| super::markup::escape_argument(&v)).collect::<Result<Vec<_>, _>>()?)
        } else {
            super::markup::escape_argument(&b)?
        };
        return super::pyformat::percent(fmt, &b).map(Value::from_safe_string);
    }
    let int = |v: &Value| match v.kind() {
        ValueKind::Bool => Some(v.is_true() as i64),
        ValueKind::Number if v.is_integer() => v.as_i64(),
        _ => None,
    };
    if let (Some(x), Some(y)) = (int(&a), int(&b)) {
        if y == 0 {
            return Err(Error::new(ErrorKind::InvalidOperation, "integer modulo by zero"));
        }
        let (x, y) = (x as i128, y as i128);
        let r = x % y;
        let r = if r != 0 && (r < 0) != (y < 0) { r + y } else { r };
        return Ok(Value::from(r as i64));
    }
    let number = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    if number(&a) && number(&b) {
        // Python's float modulo: the sign of the divisor, always a float.
        let (x, y) = (f64::try_from(a.clone()).unwrap_or(a.is_true() as i64 as f64), f64::try_from(b.clone()).unwrap_or(b.is_true() as i64 as f64));
        if y == 0.0 {
            return Err(Error::new(ErrorKind::InvalidOperation, "float modulo"));
        }
        let r = x % y;
        let r = if r != 0.0 && (r < 0.0) != (y < 0.0) { r + y } else if r == 0.0 { 0.0f64.copysign(y) } else { r };
        return Ok(Value::from(r));
    }
    native(state, "a % b", a, b)
}

/// Python's `a OP b` for `<` `<=` `>` `>=`: numbers (and booleans) with numbers, strings with strings,
/// lists with lists and tuples with tuples (item by item); anything else is Python's `TypeError`, and an
/// `Undefined` operand raises. `None` for an unordered pair (NaN).
pub fn py_order(a: Value, b: Value, op: &str) -> Result<Option<std::cmp::Ordering>, Error> {
    use std::cmp::Ordering;
    if a.is_undefined() || b.is_undefined() {
        return Err(Error::new(ErrorKind::UndefinedError, "an undefined value cannot be compared"));
    }
    let numeric = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    let unsupported = || {
        Error::new(
            ErrorKind::InvalidOperation,
            format!("'{op}' not supported between instances of '{}' and '{}'", python_type(&a), python_type(&b)),
        )
    };
    if numeric(&a) && numeric(&b) {
        // A bool is an int (True is 1).
        let int = |v: &Value| if v.kind() == ValueKind::Bool { Some(v.is_true() as i64) } else { v.as_i64().filter(|_| v.is_integer()) };
        let float = |v: &Value| if v.kind() == ValueKind::Bool { Ok(v.is_true() as i64 as f64) } else { f64::try_from(v.clone()).map_err(|_| unsupported()) };
        if let (Some(x), Some(y)) = (int(&a), int(&b)) {
            return Ok(Some(x.cmp(&y)));
        }
        return Ok(float(&a)?.partial_cmp(&float(&b)?));
    }
    match (a.kind(), b.kind()) {
        (ValueKind::String, ValueKind::String) => Ok(Some(a.as_str().unwrap_or_default().cmp(b.as_str().unwrap_or_default()))),
        (ValueKind::Seq, ValueKind::Seq) if a.is_tuple() == b.is_tuple() => {
            let (x, y): (Vec<Value>, Vec<Value>) = (a.try_iter()?.collect(), b.try_iter()?.collect());
            for (p, q) in x.iter().zip(&y) {
                if p != q {
                    return py_order(p.clone(), q.clone(), op);
                }
            }
            Ok(Some(x.len().cmp(&y.len())))
        }
        _ => Err(unsupported()).map(|o: Option<Ordering>| o),
    }
}

/// A list or dict (unhashable in Python), a lazy list (a slice, `a + b`) included.
fn is_list_or_dict(v: &Value) -> bool {
    match v.kind() {
        ValueKind::Seq => !v.is_tuple(),
        ValueKind::Map => true,
        ValueKind::Iterable => v.len().is_some(),
        _ => false,
    }
}

/// Python's `TypeError` for hashing `v` (a dict key, `x in d`): a list or dict, or a tuple holding
/// one (`([1],)` is as unhashable as the list, and Python names the list's type).
fn unhashable(v: &Value) -> Result<(), Error> {
    if is_list_or_dict(v) {
        return Err(Error::new(ErrorKind::InvalidOperation, format!("unhashable type: '{}'", python_type(v))));
    }
    if v.is_tuple() {
        v.try_iter()?.try_for_each(|item| unhashable(&item))?;
    }
    Ok(())
}

/// Python's `a in b`: a string holds only strings; `None`, numbers and booleans hold nothing (they
/// raise); an `Undefined` container is empty.
fn py_in(state: &State, a: Value, b: Value) -> Result<bool, Error> {
    note_fuel(state);
    match b.kind() {
        ValueKind::Undefined => Ok(false),
        ValueKind::String if a.kind() != ValueKind::String => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("'in <string>' requires string as left operand, not {}", python_type(&a)),
        )),
        ValueKind::None | ValueKind::Number | ValueKind::Bool => Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("argument of type '{}' is not iterable", python_type(&b)),
        )),
        ValueKind::Map => {
            unhashable(&a)?;
            Ok(native(state, "a in b", a, b)?.is_true())
        }
        _ => Ok(native(state, "a in b", a, b)?.is_true()),
    }
}

/// A for loop's iterable (`__py_iter`): Python raises on `None`, which minijinja iterates as empty.
/// A string iterates as a list of its characters (minijinja's own string iteration has no length, so
/// `loop.last` and `loop.length` were wrong).
fn py_iter(state: &State, v: Value) -> Result<Value, Error> {
    note_fuel(state);
    not_none(&v)?;
    match v.as_str() {
        Some(s) if v.kind() == ValueKind::String => Ok(Value::from(s.chars().map(|c| Value::from(c.to_string())).collect::<Vec<_>>())),
        _ => Ok(v),
    }
}

/// Python's `TypeError` for iterating `None` (a for loop, `|join`, `|list`).
pub fn not_none(v: &Value) -> Result<(), Error> {
    match v.is_none() {
        true => Err(Error::new(ErrorKind::InvalidOperation, "'NoneType' object is not iterable")),
        false => Ok(()),
    }
}

/// A child of a statement.
enum Child<'a, 'b> {
    Stmt(&'b Stmt<'a>),
    Expr(&'b Expr<'a>),
}

fn for_each_child<'a, 'b>(s: &'b Stmt<'a>, f: &mut dyn FnMut(Child<'a, 'b>)) {
    let stmts = |f: &mut dyn FnMut(Child<'a, 'b>), body: &'b [Stmt<'a>]| body.iter().for_each(|s| f(Child::Stmt(s)));
    match s {
        Stmt::Template(t) => stmts(f, &t.children),
        Stmt::EmitExpr(e) => f(Child::Expr(&e.expr)),
        Stmt::ForLoop(l) => {
            f(Child::Expr(&l.target));
            f(Child::Expr(&l.iter));
            if let Some(e) = &l.filter_expr {
                f(Child::Expr(e));
            }
            stmts(f, &l.body);
            stmts(f, &l.else_body);
        }
        Stmt::IfCond(i) => {
            f(Child::Expr(&i.expr));
            stmts(f, &i.true_body);
            stmts(f, &i.false_body);
        }
        Stmt::WithBlock(w) => {
            for (t, e) in &w.assignments {
                f(Child::Expr(t));
                f(Child::Expr(e));
            }
            stmts(f, &w.body);
        }
        Stmt::Set(s) => {
            f(Child::Expr(&s.target));
            f(Child::Expr(&s.expr));
        }
        Stmt::SetBlock(s) => {
            f(Child::Expr(&s.target));
            if let Some(e) = &s.filter {
                f(Child::Expr(e));
            }
            stmts(f, &s.body);
        }
        Stmt::AutoEscape(a) => {
            f(Child::Expr(&a.enabled));
            stmts(f, &a.body);
        }
        Stmt::FilterBlock(b) => {
            f(Child::Expr(&b.filter));
            stmts(f, &b.body);
        }
        Stmt::Macro(m) => {
            m.args.iter().chain(&m.defaults).for_each(|e| f(Child::Expr(e)));
            stmts(f, &m.body);
        }
        Stmt::CallBlock(c) => {
            f(Child::Expr(&c.call.expr));
            c.call.args.iter().for_each(|a| f(Child::Expr(call_arg(a))));
            c.macro_decl.args.iter().chain(&c.macro_decl.defaults).for_each(|e| f(Child::Expr(e)));
            stmts(f, &c.macro_decl.body);
        }
        Stmt::Do(d) => {
            f(Child::Expr(&d.call.expr));
            d.call.args.iter().for_each(|a| f(Child::Expr(call_arg(a))));
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
}

fn call_arg<'a, 'b>(a: &'b CallArg<'a>) -> &'b Expr<'a> {
    match a {
        CallArg::Pos(e) | CallArg::Kwarg(_, e) | CallArg::PosSplat(e) | CallArg::KwargSplat(e) => e,
    }
}

fn expr_children<'a, 'b>(e: &'b Expr<'a>, f: &mut dyn FnMut(&'b Expr<'a>)) {
    match e {
        Expr::Var(_) | Expr::Const(_) => {}
        Expr::Slice(s) => {
            f(&s.expr);
            [&s.start, &s.stop, &s.step].into_iter().flatten().for_each(|e| f(e));
        }
        Expr::UnaryOp(u) => f(&u.expr),
        Expr::BinOp(b) => {
            f(&b.left);
            f(&b.right);
        }
        Expr::Compare(c) => {
            f(&c.expr);
            c.ops.iter().for_each(|o| f(&o.expr));
        }
        Expr::IfExpr(i) => {
            f(&i.test_expr);
            f(&i.true_expr);
            if let Some(e) = &i.false_expr {
                f(e);
            }
        }
        Expr::Filter(x) => {
            if let Some(e) = &x.expr {
                f(e);
            }
            x.args.iter().for_each(|a| f(call_arg(a)));
        }
        Expr::Test(t) => {
            f(&t.expr);
            t.args.iter().for_each(|a| f(call_arg(a)));
        }
        Expr::GetAttr(g) => f(&g.expr),
        Expr::GetItem(g) => {
            f(&g.expr);
            f(&g.subscript_expr);
        }
        Expr::Call(c) => {
            f(&c.expr);
            c.args.iter().for_each(|a| f(call_arg(a)));
        }
        Expr::List(l) => l.items.iter().for_each(|e| f(e)),
        Expr::Tuple(t) => t.items.iter().for_each(|e| f(e)),
        Expr::Map(m) => m.keys.iter().chain(&m.values).for_each(|e| f(e)),
    }
}

/// Visit every expression of a statement tree.
fn walk_stmt<'a>(s: &Stmt<'a>, f: &mut dyn FnMut(&Expr<'a>)) {
    for_each_child(s, &mut |child| match child {
        Child::Stmt(st) => walk_stmt(st, f),
        Child::Expr(e) => walk_expr(e, f),
    });
}

fn walk_expr<'a>(e: &Expr<'a>, f: &mut dyn FnMut(&Expr<'a>)) {
    f(e);
    expr_children(e, &mut |child| walk_expr(child, f));
}

#[cfg(test)]
mod tests {
    use super::rewrite;
    use crate::template::env::syntax_config;
    use crate::{render_template, RenderOptions};
    use serde_json::json;

    fn rewritten(src: &str) -> String {
        rewrite(src, &syntax_config()).source
    }

    #[test]
    fn operators_become_calls_only_where_python_differs() {
        // No Markup filter: `+` and `~` stay minijinja's; `%` is rewritten unless its left side is a number.
        assert_eq!(rewritten("{{ a + b ~ c }}{{ 7 % 2 }}{{ x % 2 }}"), "{{ a + b ~ c }}{{ 7 % 2 }}{{ __py_mod(x , 2) }}");
        // `~` binds tighter than `+`: the inner call closes first.
        assert_eq!(rewritten("{{ a|safe + b ~ c }}"), "{{ __py_add(a|safe , __py_concat(b , c)) }}");
        assert_eq!(rewritten("{{ ('x'|safe) + (y) }}"), "{{ __py_add(('x'|safe) , (y)) }}");
        assert_eq!(rewritten("{{ a + b + c|e }}"), "{{ __py_add(__py_add(a , b) , c|e) }}");
        assert_eq!(
            rewritten("{% for x in (a + b)|list if x recursive %}{% endfor %}"),
            "{% for x in __py_iter((a + b)|list) if x recursive %}{% endfor %}"
        );
        assert_eq!(rewritten("{% for k, v in m|items %}{% endfor %}"), "{% for k, v in __py_iter(m|items) %}{% endfor %}");
        // A template minijinja cannot parse is left for the compiler to report.
        assert_eq!(rewritten("{% for x in %}"), "{% for x in %}");
    }

    #[test]
    fn original_offsets_skip_inserted_text() {
        let r = rewrite("{{ x % 2 }}", &syntax_config());
        assert_eq!(r.source, "{{ __py_mod(x , 2) }}");
        assert_eq!(r.original_offset(0), 0);
        assert_eq!(r.original_offset(5), 3); // inside `__py_mod(` → where it was inserted
        assert_eq!(r.original_offset(12), 3); // `x`
        assert_eq!(r.original_offset(14), 5); // `,` replaced `%`
        assert_eq!(r.original_offset(16), 7); // `2`
        assert_eq!(r.original_offset(r.source.len()), 11);
    }

    fn render(src: &str) -> Result<String, crate::Error> {
        render_template(src, &json!({ "n": null, "l": [1, 2] }), RenderOptions::default())
    }

    #[test]
    fn iterating_none_raises_as_in_python() {
        for src in ["{% for x in n %}x{% endfor %}", "{% for x in n if x %}x{% else %}e{% endfor %}", "{{ n|join(',') }}", "{{ n|list }}"] {
            let err = render(src).unwrap_err();
            assert!(err.to_string().contains("'NoneType' object is not iterable"), "{src}: {err}");
        }
        // Undefined iterates as empty in Jinja2; lists and recursive loops are unchanged.
        assert_eq!(render("{% for x in missing %}x{% else %}e{% endfor %}").unwrap(), "e");
        assert_eq!(render("{% for x in [[1, [2]]] recursive %}{{ x if x is number else loop(x) }}{% endfor %}").unwrap(), "12");
        assert_eq!(render("{% for x in l %}{{ x }}{% endfor %}{{ l|join(',') }}").unwrap(), "121,2");
    }

    #[test]
    fn errors_point_into_the_source_as_given() {
        let err = render("{{ 1 }}\n{% for x in n %}x{% endfor %}").unwrap_err();
        assert_eq!(err.location(), Some((2, 13)), "{err:?}");
    }

    /// A chain the rewrite would nest too deep keeps minijinja's own `+`.
    #[test]
    fn a_rewrite_too_deep_to_compile_falls_back_to_the_source() {
        let src = format!("{{{{ ('a'|safe){} }}}}", " + '<'".repeat(180));
        assert_eq!(render(&src).unwrap(), format!("a{}", "<".repeat(180)));
        // Within the limit the rewrite applies.
        let src = format!("{{{{ ('a'|safe){} }}}}", " + '<'".repeat(16));
        assert_eq!(render(&src).unwrap(), format!("a{}", "&lt;".repeat(16)));
    }

    /// Found by jinja_diff (seed 801): a call opened right after a keyword (`in[`, `if(`) joined it into
    /// one name, the rewritten source failed to compile and the template fell back to minijinja's
    /// operators, so `x in d` and `<` lost Python's errors.
    #[test]
    fn a_call_after_a_keyword_keeps_them_apart() {
        assert_eq!(rewritten("{%for x in[1]%}{%endfor%}"), "{%for x in __py_iter([1])%}{%endfor%}");
        assert_eq!(rewritten("{%if(a)<b%}{%endif%}"), "{%if __py_lt((a),b)%}{%endif%}");
        let ctx = json!({ "tools": [], "d": {}, "l": [] });
        let run = |src: &str| render_template(src, &ctx, RenderOptions::default());
        // unhashable-membership: `x in dict` hashes x.
        for (src, ty) in [
            ("{%for item in['']recursive%}{{loop([])}}{%endfor%}{{ tools in d }}", "list"),
            ("{%for x in['']%}{%if(tools in d)%}{%endif%}{%endfor%}", "list"),
            ("{{ [] in {} }}", "list"),
            ("{{ {} not in {'a': 1} }}", "dict"),
            ("{{ ([1],) in {} }}", "list"),
            ("{{ (1, ({},)) in d }}", "dict"),
            ("{{ ([1],) is filter }}", "list"),
        ] {
            let err = run(src).unwrap_err().to_string();
            assert!(err.contains(&format!("unhashable type: '{ty}'")), "{src}: {err}");
        }
        assert_eq!(run("{{ (1, 'a') in {} }}{{ missing in {} }}{{ [] in [] }}{{ {} in (1, 2) }}").unwrap(), "FalseFalseFalseFalse");
        // undefined-ordering: an Undefined operand of `<` `<=` `>` `>=` raises.
        for src in ["{%for v in[1]if(0[2]<1)%}{%endfor%}", "{%for v in{'':2} if 0[2]>=l %}{%endfor%}", "{{ (0[2] < '') }}", "{{ 1 <= missing }}"] {
            let err = run(src).unwrap_err().to_string();
            assert!(err.contains("an undefined value cannot be compared"), "{src}: {err}");
        }
    }

    #[test]
    fn percent_is_pythons() {
        let cases = [
            ("{{ -7 % 3 }}|{{ 7 % -3 }}|{{ 7.5 % 2 }}", "2|-2|1.5"),
            ("{{ '%d items' % 3 }}|{{ '%s-%s' % ('a', 'b') }}|{{ '%s' % [1, 'b'] }}", "3 items|a-b|[1, 'b']"),
            ("{{ '%5.1f|%-3s|%03d' % (3.14159, 'a', 7) }}", "  3.1|a  |007"),
            ("{% set i = 5 %}{{ i % 2 }}{{ (i + 1) % 2 }}", "10"),
        ];
        for (src, want) in cases {
            assert_eq!(render(src).unwrap(), want, "{src}");
        }
        assert!(render("{{ 7 % x }}").is_err() || render("{{ 7 % 0 }}").is_err());
        assert!(render("{% set z = 0 %}{{ 7 % z }}").is_err());
    }
}
