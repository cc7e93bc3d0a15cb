//! `Template`: a compiled chat template with limits, rendered from a JSON context.

use super::env::{build_environment, Flavor, Limits};
use super::Caps;
use crate::{Error, ErrorKind, Result};
use minijinja::Environment;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use std::io::Write;

/// Options for compiling and rendering a template. camelCase in JS.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RenderOptions {
    /// Unix time in seconds (fractions allowed) that `strftime_now` formats; default: the current time.
    pub now: Option<f64>,
    /// Fuel per render (≈ template instructions). Default 1,000,000: the largest shared template uses a few percent.
    pub fuel: Option<u64>,
    /// Maximum nesting depth of loops / macro calls. Default 200.
    pub recursion_limit: Option<usize>,
    /// Maximum rendered size in bytes. Default 8 MiB.
    pub max_output_bytes: Option<usize>,
    /// `bos_token` used when the context has none. Default `""`.
    pub bos_token: Option<String>,
    /// `eos_token` used when the context has none. Default `""`.
    pub eos_token: Option<String>,
    /// Fuel for a whole analysis: all probe renders of [`ChatTemplate::caps`] and
    /// [`ChatTemplate::analysis`] together (each render is also held to `fuel`). Default 1,000,000.
    pub analysis_fuel: Option<u64>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions { now: None, fuel: None, recursion_limit: None, max_output_bytes: None, bos_token: None, eos_token: None, analysis_fuel: None }
    }
}

/// Range of `now`: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z (Python's datetime range). NaN fails too.
const MIN_NOW: f64 = -62_135_596_800.0;
const MAX_NOW: f64 = 253_402_300_799.0;

const DEFAULT_FUEL: u64 = 1_000_000;
/// One render's worth: the analysis of the hungriest shared template (Gemma 4) spends 35,000 in all.
const DEFAULT_ANALYSIS_FUEL: u64 = 1_000_000;
const DEFAULT_RECURSION: usize = 200;
const DEFAULT_MAX_OUTPUT: usize = 8 << 20;
/// Templates larger than this are refused outright.
const MAX_SOURCE_BYTES: usize = 4 << 20;

/// A compiled chat template.
pub struct Template {
    env: Environment<'static>,
    /// Built on first use by [`Template::render_lenient`].
    lenient_env: std::sync::OnceLock<Environment<'static>>,
    /// Built on first use by [`Template::render_lenient`] for a template that makes a `Markup`
    /// (otherwise `env` renders the same).
    probe_env: std::sync::OnceLock<Environment<'static>>,
    /// How the compiled source differs from `source` (see pyoperators.rs), to place errors.
    rewritten: super::pyoperators::Rewritten,
    limits: Limits,
    now: i64,
    source: String,
    options: RenderOptions,
    caps: std::sync::OnceLock<Caps>,
    /// What the probe renders of caps and analysis have spent, against `options.analysis_fuel`.
    probes: std::sync::Mutex<ProbeBudget>,
}

/// Fuel spent by probe renders, and how they ended.
#[derive(Debug, Default)]
struct ProbeBudget {
    spent: u64,
    rendered: usize,
    /// The first limit a probe hit: the analysis fails with it.
    limit: Option<Error>,
    /// The first error of any probe, reported when no probe rendered at all.
    first_error: Option<Error>,
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Template").field("source_bytes", &self.source.len()).finish()
    }
}

const NAME: &str = "chat_template";

impl Template {
    /// Compile `source`. Fails with [`ErrorKind::TemplateSyntax`] naming line and column.
    pub fn new(source: &str, options: RenderOptions) -> Result<Self> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(Error::new(ErrorKind::Limit, format!("template is {} bytes; the limit is {MAX_SOURCE_BYTES}", source.len())));
        }
        let limits = Limits {
            fuel: options.fuel.unwrap_or(DEFAULT_FUEL),
            recursion: options.recursion_limit.unwrap_or(DEFAULT_RECURSION),
        };
        let now = match options.now {
            Some(t) if !(MIN_NOW..=MAX_NOW).contains(&t) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!("options.now: {t} is not a Unix time in years 1 to 9999 ({MIN_NOW} to {MAX_NOW})"),
                ))
            }
            Some(t) => t.floor() as i64,
            None => current_unix_time(),
        };
        let (env, rewritten) = compile(limits, now, Flavor::PYTHON, source)?;
        Ok(Template {
            env,
            lenient_env: std::sync::OnceLock::new(),
            probe_env: std::sync::OnceLock::new(),
            rewritten,
            limits,
            now,
            source: source.to_string(),
            options,
            caps: std::sync::OnceLock::new(),
            probes: Default::default(),
        })
    }

    /// The template source as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The options the template was compiled with.
    pub fn options(&self) -> &RenderOptions {
        &self.options
    }

    /// Render with a JSON object context (`messages`, `tools`, `add_generation_prompt`, `bos_token`,
    /// `eos_token`, and any extra keys such as `enable_thinking`).
    pub fn render(&self, context: &Json) -> Result<String> {
        let ctx = match context {
            // Checked before cloning: cloning (and dropping) a value recurses once per level.
            Json::Object(map) => check_depth(map).map(|_| map.clone())?,
            Json::Null => Map::new(),
            _ => return Err(Error::new(ErrorKind::InvalidInput, "context must be an object")),
        };
        self.render_map(ctx)
    }

    /// Render with a context map (avoids a clone when the caller builds the map).
    pub fn render_map(&self, mut ctx: Map<String, Json>) -> Result<String> {
        if let Err(e) = check_depth(&ctx) {
            drop_iteratively(Json::Object(ctx));
            return Err(e);
        }
        self.add_special_tokens(&mut ctx);
        self.render_metered(&self.env, &ctx, &mut 0)
    }

    /// Render for analysis and generation prompts, where a result beats Python's strictness: a variable
    /// the template reads but the caller did not pass (`functions`, `datetime`, …) is retried as `""`,
    /// and `tojson` of a generator is retried in the lenient environment. `|safe` gives a plain string
    /// (see [`Flavor::plain_safe`]). Returns the text and notes on what was relaxed. Limits still apply;
    /// errors of other kinds are returned as they are.
    pub fn render_lenient(&self, context: &Json) -> Result<(String, Vec<String>)> {
        self.render_lenient_metered(context, &mut 0)
    }

    /// A probe render of caps or analysis: [`Self::render_lenient`], charged to the analysis budget.
    pub(crate) fn render_probe(&self, context: &Json) -> Result<(String, Vec<String>)> {
        let budget = self.options.analysis_fuel.unwrap_or(DEFAULT_ANALYSIS_FUEL);
        let exhausted = || {
            Error::new(
                ErrorKind::Limit,
                format!("analysis ran out of fuel: its probe renders together may use {budget} (options.analysisFuel)"),
            )
        };
        // After a limit, later probes would only hit it again: the analysis is failing already.
        match self.probes.lock() {
            Ok(p) if p.limit.is_some() => return Err(p.limit.clone().unwrap_or_else(exhausted)),
            Ok(p) if p.spent < budget => {}
            _ => return Err(exhausted()),
        }
        let mut fuel = 0;
        let result = self.render_lenient_metered(context, &mut fuel);
        if let Ok(mut p) = self.probes.lock() {
            p.spent = p.spent.saturating_add(fuel);
            match &result {
                Ok(_) => p.rendered += 1,
                Err(e) => {
                    if e.kind() == ErrorKind::Limit && p.limit.is_none() {
                        p.limit = Some(e.clone());
                    }
                    p.first_error.get_or_insert_with(|| e.clone());
                }
            }
            if p.spent >= budget && p.limit.is_none() {
                p.limit = Some(exhausted());
            }
        }
        result
    }

    /// Why the probes so far make an analysis meaningless: a limit was hit (endless loop, runaway
    /// recursion, the analysis budget), or no probe rendered at all.
    pub fn probe_failure(&self) -> Option<Error> {
        let p = self.probes.lock().ok()?;
        if let Some(e) = &p.limit {
            return Some(e.clone());
        }
        match (&p.first_error, p.rendered) {
            (Some(e), 0) => Some(Error::new(ErrorKind::Analysis, format!("no probe conversation renders: {}", e.detail()))),
            _ => None,
        }
    }

    fn render_lenient_metered(&self, context: &Json, fuel: &mut u64) -> Result<(String, Vec<String>)> {
        let mut ctx = match context {
            Json::Object(map) => check_depth(map).map(|_| map.clone())?,
            _ => return Err(Error::new(ErrorKind::InvalidInput, "context must be an object")),
        };
        self.render_lenient_in(&mut ctx, fuel, &mut Vec::new())
    }

    /// [`Self::render_lenient`] of a context map the caller built and renders again with a change (the
    /// generation prompt's two renders): not cloned, and left as it was given (the names a retry set to
    /// `""` and the special tokens are taken out again, so each render starts from the caller's context).
    pub(crate) fn render_lenient_map(&self, ctx: &mut Map<String, Json>) -> Result<(String, Vec<String>)> {
        check_depth(ctx)?;
        let mut added: Vec<String> = ["bos_token", "eos_token"].into_iter().filter(|k| !ctx.contains_key(*k)).map(String::from).collect();
        let result = self.render_lenient_in(ctx, &mut 0, &mut added);
        // Appended in this order, so each is the last key when it goes: the others keep their places.
        for key in added.iter().rev() {
            ctx.swap_remove(key.as_str());
        }
        result
    }

    /// The lenient render loop over `ctx` (depth checked); the names it sets to `""` are appended to `added`.
    fn render_lenient_in(&self, ctx: &mut Map<String, Json>, fuel: &mut u64, added: &mut Vec<String>) -> Result<(String, Vec<String>)> {
        self.add_special_tokens(ctx);
        let mut notes = Vec::new();
        let mut env = self.probe_env()?;
        let mut lenient = false;
        for _ in 0..MAX_LENIENT_RETRIES {
            let err = match self.render_metered(env, ctx, fuel) {
                Ok(text) => return Ok((text, notes)),
                Err(e) => e,
            };
            let msg = err.to_string();
            if let Some(name) = undefined_variable(&msg).filter(|n| !ctx.contains_key(*n)) {
                notes.push(format!("template reads undefined `{name}`; rendered with \"\""));
                ctx.insert(name.to_string(), "".into());
                added.push(name.to_string());
            } else if msg.contains("generator is not JSON serializable") && !lenient {
                notes.push("tojson of a generator (Python raises); rendered as a list".into());
                lenient = true;
                env = match self.lenient_env.get() {
                    Some(e) => e,
                    None => {
                        let (built, _) = compile(self.limits, self.now, Flavor::LENIENT, &self.source)?;
                        self.lenient_env.get_or_init(|| built)
                    }
                };
            } else {
                return Err(err);
            }
        }
        self.render_metered(env, ctx, fuel).map(|t| (t, notes))
    }

    /// `bos_token` and `eos_token` from the options, unless the context sets them.
    fn add_special_tokens(&self, ctx: &mut Map<String, Json>) {
        if !ctx.contains_key("bos_token") {
            ctx.insert("bos_token".into(), self.options.bos_token.clone().unwrap_or_default().into());
        }
        if !ctx.contains_key("eos_token") {
            ctx.insert("eos_token".into(), self.options.eos_token.clone().unwrap_or_default().into());
        }
    }

    /// The environment of probe renders: `env` unless the template makes a `Markup`.
    fn probe_env(&self) -> Result<&Environment<'static>> {
        if !self.rewritten.makes_markup {
            return Ok(&self.env);
        }
        if let Some(e) = self.probe_env.get() {
            return Ok(e);
        }
        let (built, _) = compile(self.limits, self.now, Flavor::PROBE, &self.source)?;
        Ok(self.probe_env.get_or_init(|| built))
    }

    /// Render and add the fuel the render used to `fuel` (for a failed render, what was seen last).
    /// The caller checked the context's depth and added the special tokens.
    fn render_metered(&self, env: &Environment<'static>, ctx: &Map<String, Json>, fuel: &mut u64) -> Result<String> {
        for (key, want_array) in [("messages", true), ("tools", true)] {
            if let Some(v) = ctx.get(key) {
                if want_array && !(v.is_array() || v.is_null()) {
                    return Err(Error::new(ErrorKind::InvalidInput, format!("context.{key}: expected an array")));
                }
            }
        }
        let tmpl = env.get_template(NAME).map_err(|e| convert_error(e, &self.source, &self.rewritten))?;
        let limit = self.options.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT);
        let mut out = LimitedWriter { buf: Vec::new(), limit, exceeded: false };
        let value = minijinja::Value::from(minijinja::value::Serde(ctx));
        super::env::reset_fuel_seen();
        let result = tmpl.render_captured_to(value, &mut out);
        *fuel += match &result {
            Ok(captured) => captured.state().fuel_levels().map_or(0, |(used, _)| used),
            Err(e) if e.kind() == minijinja::ErrorKind::OutOfFuel => self.limits.fuel,
            Err(_) => super::env::fuel_seen(),
        };
        if out.exceeded {
            return Err(Error::new(ErrorKind::Limit, format!("rendered output exceeds {limit} bytes")));
        }
        drop(result.map_err(|e| convert_error(e, &self.source, &self.rewritten))?);
        String::from_utf8(out.buf).map_err(|_| Error::new(ErrorKind::Render, "rendered output is not UTF-8"))
    }

    /// Capabilities of the template, probed once on first use (a probe that fails counts as "not
    /// supported"; the probes of caps and of the analysis share one budget, `options.analysis_fuel`).
    pub fn caps(&self) -> &Caps {
        if self.caps.get().is_none() {
            let caps = super::caps::probe(self);
            let _ = self.caps.set(caps);
        }
        self.caps.get_or_init(Caps::default)
    }

    /// [`Self::caps`], or the limit its probes hit.
    pub fn caps_checked(&self) -> Result<&Caps> {
        let caps = self.caps();
        match self.probes.lock().ok().and_then(|p| p.limit.clone()) {
            Some(e) => Err(e),
            None => Ok(caps),
        }
    }
}

/// Deepest context nesting accepted; real chat contexts (schemas in tools) stay far below.
const MAX_CONTEXT_DEPTH: usize = 100;

/// Refuse absurdly nested contexts before they reach recursive code (checked iteratively).
fn check_depth(ctx: &Map<String, Json>) -> Result<()> {
    let mut stack: Vec<(&Json, usize)> = ctx.values().map(|v| (v, 1)).collect();
    while let Some((v, depth)) = stack.pop() {
        if depth > MAX_CONTEXT_DEPTH {
            return Err(Error::new(ErrorKind::InvalidInput, format!("context is nested deeper than {MAX_CONTEXT_DEPTH} levels")));
        }
        match v {
            Json::Array(a) => stack.extend(a.iter().map(|x| (x, depth + 1))),
            Json::Object(o) => stack.extend(o.values().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// Drop a value without recursion (serde_json's drop recurses once per nesting level).
fn drop_iteratively(v: Json) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Json::Array(a) => stack.extend(a),
            Json::Object(o) => stack.extend(o.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Most relaxations [`Template::render_lenient`] tries before giving up.
const MAX_LENIENT_RETRIES: usize = 8;

/// `name` from a render error "`name` is undefined", if `name` is a plain identifier.
fn undefined_variable(err: &str) -> Option<&str> {
    let end = err.find("` is undefined")?;
    let start = err.get(..end)?.rfind('`')? + 1;
    let name = err.get(start..end)?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(name)
}

fn compile(limits: Limits, now: i64, flavor: Flavor, source: &str) -> Result<(Environment<'static>, super::pyoperators::Rewritten)> {
    super::nesting::check_expression_nesting(source)?;
    let mut env = build_environment(limits, now, flavor);
    let source = super::pysource::normalize_newlines(source);
    let source = super::pysource::python_string_literals(&source)?;
    let plain = rewrite_generation_blocks(&source);
    let mut rewritten = super::pyoperators::rewrite(&plain, &super::env::syntax_config());
    if let Some(why) = rewritten.unknown_name.take() {
        return Err(Error::new(ErrorKind::TemplateSyntax, why));
    }
    let compiled = std::mem::take(&mut rewritten.source);
    if !rewritten.is_identity() && env.add_template_owned(NAME, compiled).is_ok() {
        return Ok((env, rewritten));
    }
    // Unchanged, or the rewrite nests calls deeper than minijinja's parser allows: minijinja's own
    // operators then (the template's errors are reported against its own text).
    let rewritten = rewritten.without_edits();
    env.add_template_owned(NAME, plain).map_err(|e| convert_error(e, &source, &rewritten))?;
    Ok((env, rewritten))
}

/// Render `source` once with `context`.
pub fn render_template(source: &str, context: &Json, options: RenderOptions) -> Result<String> {
    Template::new(source, options)?.render(context)
}

struct LimitedWriter {
    buf: Vec<u8>,
    limit: usize,
    exceeded: bool,
}

impl Write for LimitedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.limit {
            self.exceeded = true;
            return Err(std::io::Error::other("output limit"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn current_unix_time() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// On wasm there is no system clock in std; the JS layer passes `now` (Date.now()) explicitly.
#[cfg(target_arch = "wasm32")]
fn current_unix_time() -> i64 {
    0
}

/// `{% generation %}…{% endgeneration %}` (HF's assistant-mask blocks) render as their body. minijinja has
/// no such tag, so it becomes `{% if true %}…{% endif %}`, which keeps the same whitespace control.
/// The replacement is padded with spaces to the same byte length, so every offset, line and column
/// minijinja reports in the rewritten source is the same in the original.
fn rewrite_generation_blocks(source: &str) -> String {
    if !source.contains("generation") {
        return source.to_string();
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(pos) = rest.find("{%") {
        out.push_str(&rest[..pos]);
        let tag = &rest[pos..];
        let bytes = tag.as_bytes();
        let mut i = 2;
        if i < bytes.len() && (bytes[i] == b'-' || bytes[i] == b'+') {
            i += 1;
        }
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let word_start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let replacement = match &tag[word_start..i] {
            "generation" => Some("if true"),
            "endgeneration" => Some("endif"),
            _ => None,
        };
        match replacement {
            Some(r) => {
                out.push_str(&tag[..word_start]);
                out.push_str(r);
                out.extend(std::iter::repeat_n(' ', i - word_start - r.len()));
                rest = &tag[i..];
            }
            None => {
                out.push_str("{%");
                rest = &tag[2..];
            }
        }
    }
    out.push_str(rest);
    debug_assert_eq!(out.len(), source.len());
    out
}

/// The detail of minijinja's recursion-limit error (an `InvalidOperation`).
const MINIJINJA_RECURSION_LIMIT: &str = "recursion limit exceeded";

/// Map a minijinja error to ours, with line and column into the original source.
pub(crate) fn convert_error(e: minijinja::Error, source: &str, rewritten: &super::pyoperators::Rewritten) -> Error {
    use minijinja::ErrorKind as K;
    let detail = match (e.kind(), e.detail()) {
        (K::SyntaxError, Some(d)) => d.to_string(),
        (_, Some(d)) => format!("{}: {d}", e.kind()),
        (_, None) => e.kind().to_string(),
    };
    let kind = match e.kind() {
        K::SyntaxError | K::BadEscape | K::InvalidDelimiter => ErrorKind::TemplateSyntax,
        K::OutOfFuel | K::WriteFailure => ErrorKind::Limit,
        // minijinja has no kind of its own for its recursion limit; this is its exact detail.
        K::InvalidOperation if e.detail() == Some(MINIJINJA_RECURSION_LIMIT) => ErrorKind::Limit,
        _ => ErrorKind::Render,
    };
    let detail = match (e.kind(), e.detail()) {
        (K::OutOfFuel, Some(d)) => d.to_string(),
        (K::OutOfFuel, None) => "template ran out of fuel (endless loop or too much work for the fuel limit)".to_string(),
        _ => detail,
    };
    let mut err = Error::new(kind, detail);
    if let Some(line) = e.line() {
        let column = e
            .range()
            .map(|r| {
                // The generation-block rewrite keeps offsets; the operator rewrite maps them back.
                // The floor to a char boundary only guards against a bad range.
                let mut start = rewritten.original_offset(r.start).min(source.len());
                while !source.is_char_boundary(start) {
                    start -= 1;
                }
                let line_start = source[..start].rfind('\n').map(|p| p + 1).unwrap_or(0);
                source[line_start..start].chars().count() + 1
            })
            .unwrap_or(1);
        err = err.with_location(line, column);
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_lenient_render_of_a_callers_map_leaves_it_as_given() {
        // `flag` is undefined (a retry sets it to ""), the special tokens come from the options.
        let t = Template::new("{{ bos_token }}{{ flag.x }}{% if add_generation_prompt %}GO{% endif %}{{ messages | length }}", RenderOptions::default()).unwrap();
        let mut ctx = json!({"messages": [1, 2], "add_generation_prompt": false}).as_object().unwrap().clone();
        let given = ctx.clone();
        let (text, notes) = t.render_lenient_map(&mut ctx).unwrap();
        assert_eq!(text, "2");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(ctx, given);
        assert_eq!(ctx.keys().collect::<Vec<_>>(), given.keys().collect::<Vec<_>>());
        // Rendered again with a change, from the caller's context: `flag` is undefined again.
        ctx.insert("add_generation_prompt".into(), true.into());
        let (text, notes) = t.render_lenient_map(&mut ctx).unwrap();
        assert_eq!((text.as_str(), notes.len()), ("GO2", 1));
        assert_eq!(ctx.keys().collect::<Vec<_>>(), given.keys().collect::<Vec<_>>());
    }
}
