//! Python lists that templates can mutate (`ns.ids.append(x)`).
//!
//! minijinja values are immutable, but Hugging Face templates (Jinja2, Python objects underneath) call
//! `list.append` on lists they keep in a `namespace`. `namespace(...)` is wrapped so that list values
//! become [`PyList`] objects whose methods mutate in place, as in Python.

use minijinja::value::{from_args, Enumerator, Object, ObjectRepr, Value, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State};
use std::sync::{Arc, Mutex};

/// Upper bound on a mutable list, so a template cannot grow memory without limit.
const MAX_LEN: usize = 100_000;

/// Most list items one render may walk outside minijinja's fuel: items our lists hand to minijinja
/// (which flattens lazy `a + b` chains without charging fuel) and items `length` counts in a lazy
/// sequence. Doubling a list with `l + l` makes a 2^n-item lazy chain in n steps; this stops the walk.
pub const MAX_ITEMS_WALKED: u64 = 4_000_000;
/// What handing out a list costs on top of its items (a leaf deep in a lazy chain costs about as
/// much as 30 items walked).
const WALK_PER_LIST: usize = 32;

thread_local! {
    /// Items this render may still walk (see [`MAX_ITEMS_WALKED`]).
    static WALK_BUDGET: std::cell::Cell<u64> = const { std::cell::Cell::new(MAX_ITEMS_WALKED) };
}

/// Start a render's walk budget.
pub fn reset_walk_budget() {
    WALK_BUDGET.with(|b| b.set(MAX_ITEMS_WALKED));
}

/// Charge `n` walked items; the `Limit` error (minijinja's out-of-fuel kind) when the budget is spent.
pub fn charge_walk(n: usize) -> Result<(), Error> {
    WALK_BUDGET.with(|b| match b.get().checked_sub(n as u64) {
        Some(left) => {
            b.set(left);
            Ok(())
        }
        None => {
            b.set(0);
            Err(Error::new(
                ErrorKind::OutOfFuel,
                format!("list growth: over {MAX_ITEMS_WALKED} list items walked in one render (a list doubled too often?)"),
            ))
        }
    })
}

/// A list with Python's mutating methods.
#[derive(Debug, Default)]
pub struct PyList(Mutex<Vec<Value>>);

impl PyList {
    fn items(&self) -> Vec<Value> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// Deepest nesting of mutable lists that printing and `tojson` follow.
pub const MAX_VALUE_DEPTH: usize = 100;

thread_local! {
    /// The mutable lists being printed or serialized on this thread, outermost first.
    static VISITING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Why a mutable list cannot be entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The list contains itself (Python prints `[...]`; `json.dumps` raises).
    Cycle,
    /// Nested deeper than [`MAX_VALUE_DEPTH`].
    TooDeep,
}

/// Run `f` inside `value` when it is a mutable list: refuse re-entering a list already being visited
/// (a cycle made with `l.append(l)`) and nesting beyond [`MAX_VALUE_DEPTH`]. Other values run `f`.
pub fn visit<R>(value: &Value, f: impl FnOnce() -> R) -> Result<R, Refused> {
    let Some(list) = value.downcast_object_ref::<PyList>() else { return Ok(f()) };
    let ptr = list as *const PyList as usize;
    VISITING.with(|v| {
        let mut v = v.borrow_mut();
        if v.contains(&ptr) {
            return Err(Refused::Cycle);
        }
        if v.len() >= MAX_VALUE_DEPTH {
            return Err(Refused::TooDeep);
        }
        v.push(ptr);
        Ok(())
    })?;
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            VISITING.with(|v| v.borrow_mut().pop());
        }
    }
    let _pop = Pop;
    Ok(f())
}

impl Object for PyList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let items = self.0.lock().ok()?;
        let idx = key.as_i64()?;
        let idx = if idx < 0 { items.len() as i64 + idx } else { idx };
        items.get(usize::try_from(idx).ok()?).cloned()
    }

    /// Charged to the walk budget: minijinja flattens `l + l + …` chains through this without fuel.
    /// Over budget, the iteration yields one error value, which ends the walk with that error.
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        let items = self.items();
        match charge_walk(items.len() + WALK_PER_LIST) {
            Ok(()) => Enumerator::Values(items),
            Err(e) => Enumerator::Values(vec![Value::from(e)]),
        }
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        self.0.lock().ok().map(|v| v.len())
    }

    /// `str()` of the list, as Python prints it (used by `|string`, `join`, `~`): a list inside itself
    /// is `[...]`. Bounded like printing: shared sublists nested n times would otherwise write 2^n
    /// items (`ns.l = [ns.l, ns.l]` ×40, then `join`), so output stops past the serialized-size limit.
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        // An error here is the size limit: what was written so far is printed, then `...`.
        if super::env::python_repr(&mut out, &Value::from_dyn_object(self.clone()), true, 0).is_err() {
            out.push_str("...");
        }
        f.write_str(&out)
    }

    fn call_method(self: &Arc<Self>, _state: &mut State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        // Collected before the lock is taken: `l.extend(l)` iterates the list being extended.
        let extension: Option<Vec<Value>> = match (method, args) {
            ("extend", [v]) => Some(v.try_iter()?.collect()),
            _ => None,
        };
        let mut items = self.0.lock().map_err(|_| Error::new(ErrorKind::InvalidOperation, "list poisoned"))?;
        let grow = |items: &Vec<Value>, n: usize| {
            if items.len() + n > MAX_LEN {
                Err(Error::new(ErrorKind::InvalidOperation, "list too long"))
            } else {
                Ok(())
            }
        };
        match method {
            "append" => {
                let (v,): (Value,) = from_args(args)?;
                grow(&items, 1)?;
                items.push(v);
                Ok(Value::from(()))
            }
            "extend" => {
                let (_,): (Value,) = from_args(args)?;
                let new = extension.unwrap_or_default();
                grow(&items, new.len())?;
                items.extend(new);
                Ok(Value::from(()))
            }
            "insert" => {
                let (i, v): (i64, Value) = from_args(args)?;
                grow(&items, 1)?;
                let len = items.len() as i64;
                let i = if i < 0 { (len + i).max(0) } else { i.min(len) } as usize;
                items.insert(i, v);
                Ok(Value::from(()))
            }
            "pop" => {
                let (i,): (Option<i64>,) = from_args(args)?;
                let len = items.len() as i64;
                let i = i.unwrap_or(-1);
                let i = if i < 0 { len + i } else { i };
                if i < 0 || i >= len {
                    return Err(Error::new(ErrorKind::InvalidOperation, "pop index out of range"));
                }
                Ok(items.remove(i as usize))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// `namespace(...)` whose list-valued attributes are mutable [`PyList`]s.
pub fn namespace(defaults: Option<ValueOrKwargs>) -> Result<Value, Error> {
    let Some(defaults) = defaults else {
        return minijinja::functions::namespace(None);
    };
    let defaults = defaults.into_value();
    let mut pairs = Vec::new();
    for key in defaults.try_iter()? {
        let mut value = defaults.get_item(&key)?;
        if value.kind() == ValueKind::Seq && value.as_object().is_none_or(|o| o.downcast_ref::<PyList>().is_none()) {
            let list = PyList(Mutex::new(value.try_iter()?.collect()));
            value = Value::from_object(list);
        }
        if let Some(k) = key.as_str() {
            pairs.push((k.to_string(), value));
        }
    }
    let map = Value::from(minijinja::value::Kwargs::from_iter(pairs.iter().map(|(k, v)| (k.as_str(), v.clone()))));
    let (arg,): (Option<ValueOrKwargs>,) = from_args(&[map])?;
    minijinja::functions::namespace(arg)
}

/// What Jinja2's `map` / `select` / `reject` / `selectattr` / `rejectattr` / `items` / `unique` / `batch` /
/// `slice` return, and `reverse` of a list: a Python iterator. Like Python's, it is consumed by iterating
/// (`g|first` takes one item, a second `g|list` is empty), always truthy, has no length, no items by index
/// (`g[0]` is undefined) and no JSON form, and prints as `<generator object sync_do_map at 0x…>` (the
/// address is a constant here).
#[derive(Debug)]
pub struct PyGenerator {
    /// What Python prints before ` at 0x…`: `generator object sync_do_map`, `list_reverseiterator object`.
    name: &'static str,
    items: Mutex<std::collections::VecDeque<Value>>,
    /// A generator function's body runs when it is first iterated: a filter that failed (`0|select`,
    /// `map('nope')`) gives a generator that raises then, as in Python.
    error: Mutex<Option<Error>>,
}

/// The address a generator prints with (Python prints the object's, which differs per run).
pub const GENERATOR_ADDRESS: &str = "0x7f0000000000";

/// Iterates a generator by consuming it.
struct Drain(Arc<PyGenerator>);

impl Iterator for Drain {
    type Item = Value;
    fn next(&mut self) -> Option<Value> {
        if let Some(e) = self.0.error.lock().ok()?.take() {
            return Some(Value::from(e));
        }
        self.0.items.lock().ok()?.pop_front()
    }

    /// Exact, so a for loop over an iterator knows `loop.last` / `loop.length` (Python's loop looks ahead).
    fn size_hint(&self) -> (usize, Option<usize>) {
        let failing = self.0.error.lock().is_ok_and(|e| e.is_some());
        let n = self.0.items.lock().map_or(0, |q| q.len()) + failing as usize;
        (n, Some(n))
    }
}

impl Object for PyGenerator {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Iter(Box::new(Drain(self.clone())))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        None
    }

    /// `g[0]` is undefined and consumes nothing (minijinja would iterate to the index).
    fn get_value(self: &Arc<Self>, _key: &Value) -> Option<Value> {
        Some(Value::UNDEFINED)
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{} at {GENERATOR_ADDRESS}>", self.name)
    }
}

/// A generator that prints as `<NAME at 0x…>`.
pub fn named_generator(name: &'static str, items: Vec<Value>) -> Value {
    Value::from_object(PyGenerator { name, items: Mutex::new(items.into()), error: Mutex::new(None) })
}

/// A generator from a filter's result: its error is raised when the generator is first iterated.
fn lazy(name: &'static str, items: Result<Vec<Value>, Error>) -> Value {
    match items {
        Ok(items) => named_generator(name, items),
        Err(e) => Value::from_object(PyGenerator { name, items: Mutex::new(Default::default()), error: Mutex::new(Some(e)) }),
    }
}

fn collect(v: Value) -> Result<Vec<Value>, Error> {
    v.try_iter().map(|i| i.collect())
}

/// A Python tuple (prints `(a, b)`).
pub fn tuple(items: Vec<Value>) -> Value {
    Value::from_object(minijinja::value::Tuple::new(items))
}

fn is_generator(v: &Value) -> bool {
    v.downcast_object_ref::<PyGenerator>().is_some()
}

/// Register the filters that return iterators in Jinja2, and `dictsort`'s tuples.
pub fn add_generator_filters(env: &mut minijinja::Environment<'static>) {
    use minijinja::filters as f;
    use minijinja::value::Rest;
    use std::borrow::Cow;
    const SELECT: &str = "generator object select_or_reject";
    const MAP: &str = "generator object sync_do_map";
    // Jinja2's `map` and `select_or_reject` start with `if value:`: a falsy input is an empty iterator.
    let falsy = |name: &'static str, v: &Value| (!v.is_true()).then(|| named_generator(name, Vec::new()));
    env.add_filter("map", move |s: &mut State, v: Value, a: Rest<ValueOrKwargs>| {
        Ok::<_, Error>(falsy(MAP, &v).unwrap_or_else(|| lazy(MAP, f::map(s, v, a))))
    });
    env.add_filter("select", move |s: &mut State, v: Value, t: Option<Cow<'_, str>>, a: Rest<ValueOrKwargs>| {
        Ok::<_, Error>(falsy(SELECT, &v).unwrap_or_else(|| lazy(SELECT, f::select(s, v, t, a))))
    });
    env.add_filter("reject", move |s: &mut State, v: Value, t: Option<Cow<'_, str>>, a: Rest<ValueOrKwargs>| {
        Ok::<_, Error>(falsy(SELECT, &v).unwrap_or_else(|| lazy(SELECT, f::reject(s, v, t, a))))
    });
    // Without an attribute name Jinja2 fails only when the generator runs (`[] != l|selectattr()` is true).
    fn attribute(at: Option<Cow<'_, str>>) -> Result<Cow<'_, str>, Error> {
        at.ok_or_else(|| Error::new(ErrorKind::MissingArgument, "Missing parameter for attribute name"))
    }
    env.add_filter(
        "selectattr",
        move |s: &mut State, v: Value, at: Option<Cow<'_, str>>, t: Option<Cow<'_, str>>, a: Rest<ValueOrKwargs>| {
            Ok::<_, Error>(falsy(SELECT, &v).unwrap_or_else(|| lazy(SELECT, attribute(at).and_then(|at| f::selectattr(s, v, at, t, a)))))
        },
    );
    env.add_filter(
        "rejectattr",
        move |s: &mut State, v: Value, at: Option<Cow<'_, str>>, t: Option<Cow<'_, str>>, a: Rest<ValueOrKwargs>| {
            Ok::<_, Error>(falsy(SELECT, &v).unwrap_or_else(|| lazy(SELECT, attribute(at).and_then(|at| f::rejectattr(s, v, at, t, a)))))
        },
    );
    env.add_filter("items", |v: Value| -> Result<Value, Error> {
        const ITEMS: &str = "generator object do_items";
        if v.is_undefined() {
            return Ok(named_generator(ITEMS, Vec::new()));
        }
        if v.kind() != ValueKind::Map {
            return Ok(lazy(ITEMS, Err(Error::new(ErrorKind::InvalidOperation, "Can only get item pairs from a mapping."))));
        }
        let mut pairs = Vec::new();
        for key in v.try_iter()? {
            let item = v.get_item(&key)?;
            pairs.push(tuple(vec![key, item]));
        }
        Ok(named_generator(ITEMS, pairs))
    });
    env.add_filter("unique", |s: &State, v: Value, kwargs: minijinja::value::Kwargs| -> Result<Value, Error> {
        Ok(lazy("generator object sync_do_unique", f::unique(s, v, kwargs).and_then(collect)))
    });
    env.add_filter("batch", |s: &State, v: Value, count: usize, fill: Option<Value>| -> Result<Value, Error> {
        Ok(lazy("generator object do_batch", f::batch(s, v, count, fill).and_then(collect)))
    });
    env.add_filter("slice", |s: &State, v: Value, count: usize, fill: Option<Value>| -> Result<Value, Error> {
        Ok(lazy("generator object sync_do_slice", f::slice(s, v, count, fill).and_then(collect)))
    });
    env.add_filter("reverse", |v: Value| -> Result<Value, Error> {
        match v.kind() {
            ValueKind::String => f::reverse(&v),
            _ if is_generator(&v) => {
                let mut items = collect(v)?;
                items.reverse();
                Ok(Value::from(items))
            }
            ValueKind::Map => {
                let mut keys = collect(v)?;
                keys.reverse();
                Ok(named_generator("dict_reversekeyiterator object", keys))
            }
            ValueKind::Seq | ValueKind::Iterable => {
                let name = if v.is_tuple() { "reversed object" } else { "list_reverseiterator object" };
                let mut items = collect(v)?;
                items.reverse();
                Ok(named_generator(name, items))
            }
            // `reversed(Undefined)` works (it has a length, 0): an empty iterator.
            ValueKind::Undefined => Ok(named_generator("reversed object", Vec::new())),
            _ => Err(Error::new(ErrorKind::InvalidOperation, "argument must be iterable")),
        }
    });
    env.add_filter("last", |v: Value| -> Result<Value, Error> {
        if is_generator(&v) {
            return Err(Error::new(ErrorKind::InvalidOperation, "'generator' object is not reversible"));
        }
        f::last(v)
    });
    env.add_filter("dictsort", |v: Value, kwargs: minijinja::value::Kwargs| -> Result<Value, Error> {
        if let Some(by) = kwargs.peek::<Option<Value>>("by")? {
            if !matches!(by.as_str(), Some("key" | "value")) {
                return Err(Error::new(ErrorKind::InvalidOperation, "You can only sort by either \"key\" or \"value\""));
            }
        }
        let sorted = f::dictsort(&v, kwargs)?;
        Ok(Value::from(collect(sorted)?.into_iter().map(|p| collect(p).map(tuple)).collect::<Result<Vec<_>, _>>()?))
    });
}
