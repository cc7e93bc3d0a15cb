//! The auto format's tool-call grammar, read off the analysis: JSON-native calls, tagged calls with
//! JSON or tagged arguments, literal (pythonic) arguments, call ids, sections and parallel calls — as the
//! template itself writes them (issue #26 item 4, tests/zoo_grammars.rs): Python dicts and `str()` values
//! where it prints those, fixed fields of a call object, a section end it leaves out after a lone call, a
//! per-call end it writes after the last call only, the separator it writes between literal calls.

use crate::findings::{Analysis, CallIdPosition, ToolFormat};
use crate::gbnf::{join_optional, json_str, leading_token, literal_value, regex_escape, Expr, SchemaConverter, Shape, Tool, ToolGrammar, Trigger, TriggerKind};
use crate::{Error, ErrorKind, Result};
use serde_json::Value;

/// The tool-call section of the analysed format.
pub fn shape(g: &mut ToolGrammar, a: &Analysis, tools: &[Tool]) -> Result<Shape> {
    Gen { g, a }.general(tools)
}

struct Gen<'a> {
    g: &'a mut ToolGrammar,
    a: &'a Analysis,
}

impl Gen<'_> {
    fn marker(&mut self, m: &str) -> Expr {
        self.g.marker(m)
    }

    fn repeated(&self, item: Expr, sep: Expr) -> Expr {
        self.g.repeated(item, sep)
    }

    /// JSON arguments, or a Python dict where the template prints one (`{{ arguments }}`: `{'a': True}`).
    fn json_args(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        if self.a.tools.format.uses_python_dicts {
            return SchemaConverter::new(&mut self.g.b, &tool.params).python().json(&tool.params, hint);
        }
        self.g.json_args(tool, hint)
    }

    /// Between two calls of one section with no per-call markers: the template's separator (`, ` of a
    /// literal list, a newline between lines of a code block), a comma when the analysis read none.
    fn section_separator(&mut self) -> Expr {
        let sp = self.g.b.space();
        let between = self.a.tools.format.call_separator.clone();
        match between.trim() {
            "" if !between.is_empty() => Expr::seq([Expr::lit(between), sp]),
            "" => Expr::seq([sp.clone(), Expr::lit(","), sp]),
            core => Expr::seq([sp.clone(), Expr::lit(core), sp]),
        }
    }

    fn general(&mut self, tools: &[Tool]) -> Result<Shape> {
        let f = self.a.tools.format.clone();
        let sp = self.g.b.space();
        let mut alts = Vec::new();
        for tool in tools {
            let hint = format!("tool-{}", tool.name);
            let body = match f.mode {
                ToolFormat::JsonNative => self.json_native_call(tool, &hint)?,
                ToolFormat::TagWithJson | ToolFormat::TagWithTagged => self.tagged_call(tool, &hint, f.mode)?,
                ToolFormat::None => return Err(Error::new(ErrorKind::Grammar, "template has no tool-call format")),
            };
            alts.push(self.g.b.add(&hint, body));
        }
        let any = self.g.b.add("tool-call", Expr::alt(alts));
        // Closing markers may follow optional whitespace (`}\n</tool_call>`).
        let closing = |g: &mut Self, m: &str| if m.is_empty() { Expr::Empty } else { Expr::seq([g.g.b.space(), g.marker(m)]) };
        let (start, mut end) = (self.marker(&f.per_call_start), closing(self, &f.per_call_end));
        // Sectioned JSON calls are delimited by their own start marker and the section end, so a
        // left-out per-call end is recoverable: the parser tolerates it and llama.cpp's grammar
        // for such a protocol (Kimi K2) makes it optional.
        let self_delimited = f.mode == ToolFormat::TagWithJson && !f.section_start.trim().is_empty() && !f.per_call_start.trim().is_empty();
        if self_delimited {
            end = Expr::opt(end);
        }
        // A per-call end the template writes only after the last call closes the calls once.
        let last_end = if f.per_call_end_last_only { std::mem::replace(&mut end, Expr::Empty) } else { Expr::Empty };
        let call = Expr::seq([start.clone(), any.clone(), end.clone()]);
        let calls = if f.tools_array_wrapped {
            // The call markers wrap the whole array (`<TOOLCALL>[{…}, {…}]</TOOLCALL>`), as the parser reads them.
            let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
            let list = self.repeated(any, sep);
            Expr::seq([start, Expr::lit("["), sp.clone(), list, sp.clone(), Expr::lit("]"), end])
        } else if self.a.tools.arguments.literal_values && f.per_call_start.is_empty() {
            // Literal calls in one section are a list: `[f(a=1), g(b=2)]`.
            let sep = self.section_separator();
            self.repeated(call, sep)
        } else {
            // Marked calls are separated by blanks, or by the template's own separator (tools.12).
            let between = f.call_separator.trim_matches(crate::text::is_space);
            let sep = if between.is_empty() { sp.clone() } else { Expr::seq([sp.clone(), Expr::opt(Expr::seq([Expr::lit(between), sp.clone()]))]) };
            self.repeated(call, sep)
        };
        let calls = Expr::seq([calls, last_end]);
        let (ss, mut se) = (self.marker(&f.section_start), closing(self, &f.section_end));
        if f.section_end_optional {
            se = Expr::opt(se);
        }
        // Calls may also start at their own marker without the section (as the parser accepts; the
        // trigger stays the section marker, as llama.cpp's for these formats).
        let bare_calls = !f.section_start.trim().is_empty() && !f.per_call_start.trim().is_empty() && f.mode != ToolFormat::JsonNative;
        let section = if bare_calls {
            Expr::alt([Expr::seq([ss, calls.clone(), se.clone()]), Expr::seq([calls, Expr::opt(se)])])
        } else {
            Expr::seq([ss, calls, se])
        };
        // The trigger: the first fixed text of a call section.
        let fn_prefix = self.a.tools.function.name_prefix.clone();
        let word = [f.section_start.trim(), f.per_call_start.trim(), if f.mode == ToolFormat::JsonNative { "" } else { fn_prefix.trim() }]
            .into_iter()
            .find(|w| !w.is_empty())
            .map(str::to_string);
        let triggers = match &word {
            // Calls the grammar accepts without their section must also switch it on.
            Some(w) if bare_calls => vec![Trigger::word(leading_token(w)), Trigger::word(leading_token(f.per_call_start.trim()))],
            Some(w) => vec![Trigger::word(leading_token(w))],
            None if f.mode == ToolFormat::JsonNative => vec![self.raw_json_trigger(tools)],
            None => tools.iter().map(|t| Trigger::word(format!("{}{}", fn_prefix, t.name).trim().to_string())).collect(),
        };
        Ok(Shape { calls: section, triggers, content_stop: word, preserved: Vec::new() })
    }

    /// Output that is a bare JSON call: the whole output must start with it.
    fn raw_json_trigger(&self, tools: &[Tool]) -> Trigger {
        let f = &self.a.tools.format;
        let names: Vec<String> = tools.iter().map(|t| regex_escape(&t.name)).collect();
        let names = names.join("|");
        let open = if f.tools_array_wrapped { r"\[\s*\{" } else { r"\{" };
        let value = if f.fun_name_is_key {
            format!(r#"\s*({open}\s*"(?:{names})"[\s\S]*)"#)
        } else {
            let name_key = f.name_field.rsplit('.').next().unwrap_or(&f.name_field);
            format!(r#"\s*({open}[\s\S]*"{}"\s*:\s*"(?:{names})"[\s\S]*)"#, regex_escape(name_key))
        };
        Trigger { kind: TriggerKind::PatternFull, value }
    }

    fn json_native_call(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        let f = self.a.tools.format.clone();
        let sp = self.g.b.space();
        let args = self.json_args(tool, &format!("{hint}-args"))?;
        let colon = Expr::seq([sp.clone(), Expr::lit(":"), sp.clone()]);
        let quoted_name = Expr::lit(json_str(&tool.name));
        if f.fun_name_is_key || f.name_field.is_empty() {
            return Ok(Expr::seq([Expr::lit("{"), sp.clone(), quoted_name, colon, args, sp, Expr::lit("}")]));
        }
        let mut order: Vec<String> = f.parameter_order.clone();
        for field in [&f.name_field, &f.args_field, &f.id_field, &f.gen_id_field] {
            if !field.is_empty() && !order.contains(field) {
                order.push(field.clone());
            }
        }
        // Fields the template writes with one value for every call (`"type":"tool"`), in its order.
        let mut fixed = Vec::new();
        for x in &f.fixed_fields {
            let at = order.iter().position(|o| *o == x.before || o.starts_with(&format!("{}.", x.before))).filter(|_| !x.before.is_empty());
            let at = at.unwrap_or(order.len());
            order.insert(at, x.key.clone());
            fixed.push((x.key.clone(), x.value.clone()));
        }
        let id_value = {
            let s = self.g.b.json_string();
            let n = self.g.b.json_integer();
            Expr::alt([s, n])
        };
        let field_expr = |field: &str| {
            let key = Expr::lit(json_str(field.rsplit('.').next().unwrap_or(field)));
            if field == f.name_field {
                (Expr::seq([key, colon.clone(), quoted_name.clone()]), false)
            } else if field == f.args_field {
                (Expr::seq([key, colon.clone(), args.clone()]), false)
            } else if let Some((_, value)) = fixed.iter().find(|(k, _)| *k == field) {
                (Expr::seq([key, colon.clone(), Expr::lit(value.clone())]), true)
            } else {
                (Expr::seq([key, colon.clone(), id_value.clone()]), true)
            }
        };
        let sep = Expr::seq([sp.clone(), Expr::lit(","), sp.clone()]);
        // Fields under one object (`"function": {"name": …, "arguments": …}`): written where the first
        // of them is.
        let nest = |field: &str| field.split_once('.').map(|(p, _)| p.to_string());
        let mut fields = Vec::new();
        let mut nested_done = Vec::new();
        for field in &order {
            let Some(parent) = nest(field) else {
                fields.push(field_expr(field));
                continue;
            };
            if nested_done.contains(&parent) {
                continue;
            }
            let inner: Vec<(Expr, bool)> = order.iter().filter(|o| nest(o).as_ref() == Some(&parent)).map(|o| field_expr(o)).collect();
            let optional = inner.iter().all(|(_, o)| *o);
            let body = join_optional(&mut self.g.b, &format!("{hint}-{parent}"), inner, &sep);
            let object = Expr::seq([Expr::lit("{"), sp.clone(), body, sp.clone(), Expr::lit("}")]);
            fields.push((Expr::seq([Expr::lit(json_str(&parent)), colon.clone(), object]), optional));
            nested_done.push(parent);
        }
        let body = join_optional(&mut self.g.b, hint, fields, &sep);
        Ok(Expr::seq([Expr::lit("{"), sp.clone(), body, sp, Expr::lit("}")]))
    }

    fn call_id(&mut self) -> Expr {
        let id = self.a.tools.call_id.clone();
        // An id in the name's place is written by the name (`tagged_call`).
        if matches!(id.pos, CallIdPosition::None | CallIdPosition::InNamePlace) {
            return Expr::Empty;
        }
        let value = if id.suffix.trim().is_empty() {
            Expr::plus(Expr::ranges(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_'), ('-', '-')]))
        } else {
            self.g.b.until(id.suffix.trim())
        };
        // `<|tool_call:begin|>ID<|tool_call:name|>f`: markers the id shares with the call start and
        // the name prefix are written once, by the call start and the name (see `tagged_call`).
        let f = &self.a.tools;
        let pre = id.pos == CallIdPosition::PreFuncName;
        let shared_prefix = pre && id.prefix.trim() == f.format.per_call_start.trim();
        let shared_suffix = pre && id.suffix.trim() == f.function.name_prefix.trim();
        let prefix = if shared_prefix { Expr::Empty } else { self.marker(&id.prefix) };
        let suffix = if shared_suffix { Expr::Empty } else { self.marker(&id.suffix) };
        Expr::seq([Expr::opt(Expr::seq([prefix, value])), suffix])
    }

    fn tagged_call(&mut self, tool: &Tool, hint: &str, mode: ToolFormat) -> Result<Expr> {
        let t = self.a.tools.clone();
        let np = self.marker(&t.function.name_prefix);
        // A numbered header (`functions.f:0`) counts calls: any number where the first call has 0.
        let split = t.call_id.header_counter_at.and_then(|at| Some((t.function.name_suffix.get(..at)?, t.function.name_suffix.get(at + 1..)?)));
        let ns = match split {
            Some((head, rest)) => Expr::seq([Expr::lit(head), Expr::plus(Expr::ranges(&[('0', '9')])), self.marker(rest)]),
            None => self.marker(&t.function.name_suffix),
        };
        let name = if t.call_id.pos == CallIdPosition::InNamePlace {
            // The head is the call's id, naming the tool as a delimited word (`functions.f:0`, rule R48).
            let id_char = || Expr::star(Expr::ranges(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_'), ('.', '.'), (':', ':'), ('-', '-')]));
            let delimiter = || Expr::ranges(&[('_', '_'), ('.', '.'), (':', ':'), ('-', '-')]);
            let before = Expr::opt(Expr::seq([id_char(), delimiter()]));
            let after = Expr::opt(Expr::seq([delimiter(), id_char()]));
            Expr::seq([np, before, Expr::lit(tool.name.clone()), after, ns])
        } else {
            Expr::seq([np, Expr::lit(tool.name.clone()), ns])
        };
        let id = self.call_id();
        let (pre_id, mid_id, post_id) = match t.call_id.pos {
            CallIdPosition::PreFuncName => (id, Expr::Empty, Expr::Empty),
            CallIdPosition::BetweenFuncAndArgs => (Expr::Empty, id, Expr::Empty),
            CallIdPosition::PostArgs => (Expr::Empty, Expr::Empty, id),
            CallIdPosition::None | CallIdPosition::InNamePlace => (Expr::Empty, Expr::Empty, Expr::Empty),
        };
        let (astart, aend) = (self.marker(&t.arguments.start), self.marker(&t.arguments.end));
        let args = if mode == ToolFormat::TagWithJson {
            self.json_args(tool, &format!("{hint}-args"))?
        } else {
            self.tagged_args(tool, hint)?
        };
        let close = if t.function.close.is_empty() { Expr::Empty } else { Expr::seq([self.g.b.space(), self.marker(&t.function.close)]) };
        Ok(Expr::seq([pre_id, name, mid_id, astart, args, aend, post_id, close]))
    }

    /// `<name_prefix>k<name_suffix><value_prefix>v<value_suffix>` per parameter, in declared order,
    /// optional parameters optional; string values raw up to the value's closing marker.
    fn tagged_args(&mut self, tool: &Tool, hint: &str) -> Result<Expr> {
        let t = self.a.tools.clone();
        let params = &tool.params;
        let props: Vec<(String, Value)> = params
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let required: Vec<String> =
            params.get("required").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default();
        let terminator = [&t.arguments.value_suffix, &t.function.close, &t.arguments.end, &t.format.per_call_end, &t.format.section_end]
            .into_iter()
            .map(|s| s.trim())
            .find(|s| !s.is_empty())
            .unwrap_or("")
            .to_string();
        let mut fields = Vec::new();
        for (k, schema) in &props {
            let arg_hint = format!("{hint}-arg-{k}");
            let mut value = if t.arguments.literal_values {
                literal_value(&mut self.g.b, schema, &t.arguments.string_delimiter)
            } else if t.arguments.python_repr_values {
                // Non-string values as the template's `| string` writes them (`['a', 'b']`, `True`), or JSON.
                SchemaConverter::new(&mut self.g.b, params).python().raw(schema, &arg_hint, &terminator)?
            } else {
                SchemaConverter::new(&mut self.g.b, params).raw(schema, &arg_hint, &terminator)?
            };
            let is_string = schema.get("type").and_then(Value::as_str) == Some("string");
            let (raw_open, raw_close) = (&t.arguments.raw_value_start, &t.arguments.raw_value_end);
            if is_string && !raw_open.is_empty() && !raw_close.is_empty() {
                // Or verbatim inside the template's raw wrapper (`<![CDATA[…]]>`).
                // An enum (or const) keeps its values inside the wrapper too.
                let allowed: Option<Vec<Expr>> = match (schema.get("enum").and_then(Value::as_array), schema.get("const")) {
                    (Some(vals), _) => Some(vals.iter().filter_map(Value::as_str).map(Expr::lit).collect()),
                    (None, Some(v)) => Some(v.as_str().map(Expr::lit).into_iter().collect()),
                    (None, None) => None,
                };
                let body = match allowed {
                    Some(vals) => Expr::alt(vals),
                    None => self.g.b.until(raw_close),
                };
                let raw = Expr::seq([Expr::lit(raw_open.clone()), body, Expr::lit(raw_close.clone())]);
                value = Expr::alt([raw, value]);
            }
            let (np, ns) = (self.marker(&t.arguments.name_prefix), self.marker(&t.arguments.name_suffix));
            // A typed value prefix (`string="false"`) introduces every non-string value.
            let typed = !is_string && !t.arguments.typed_value_prefix.is_empty();
            let vp = self.marker(if typed { &t.arguments.typed_value_prefix } else { &t.arguments.value_prefix });
            let vs = self.marker(&t.arguments.value_suffix);
            let arg = Expr::seq([np, Expr::lit(k.clone()), ns, vp, value, vs]);
            fields.push((self.g.b.add(&arg_hint, arg), !required.contains(k)));
        }
        let sp = self.g.b.space();
        let sep = if t.arguments.separator.trim().is_empty() { sp.clone() } else { Expr::seq([sp.clone(), Expr::lit(t.arguments.separator.trim()), sp.clone()]) };
        // Models write tagged arguments in any order (each tag names its argument). Required ones
        // stay in declared order so none can be left out; optional ones may appear between them.
        let optional: Vec<Expr> = fields.iter().filter(|f| f.1).map(|f| f.0.clone()).collect();
        let required: Vec<Expr> = fields.iter().filter(|f| !f.1).map(|f| f.0.clone()).collect();
        if optional.is_empty() {
            let all = required.into_iter().map(|r| (r, false)).collect();
            return Ok(Expr::seq([sp.clone(), join_optional(&mut self.g.b, hint, all, &sep), sp]));
        }
        let any_opt = self.g.b.add(&format!("{hint}-optional"), Expr::alt(optional));
        if required.is_empty() {
            let list = Expr::opt(Expr::seq([any_opt.clone(), Expr::star(Expr::seq([sep.clone(), any_opt]))]));
            return Ok(Expr::seq([sp.clone(), list, sp]));
        }
        let opts_before = Expr::star(Expr::seq([any_opt.clone(), sep.clone()]));
        let opts_after = Expr::star(Expr::seq([sep.clone(), any_opt]));
        let mut seq = vec![sp.clone(), opts_before.clone()];
        for (i, r) in required.into_iter().enumerate() {
            if i > 0 {
                seq.push(sep.clone());
                seq.push(opts_before.clone());
            }
            seq.push(r);
        }
        seq.push(opts_after);
        seq.push(sp);
        Ok(Expr::seq(seq))
    }
}
