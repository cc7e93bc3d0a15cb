//! The `response_template` object as transformers 5.23 accepts it (`utils/chat_parsing/
//! response_templates.py`): top-level `version` (1), `defaults`, `fields`, `start_anchor` /
//! `start_anchor_pattern`; per field `open`/`open_pattern`, `close`/`close_pattern` (a literal, a list
//! of literals, or a regex), `content` (`text` `int` `float` `bool` `json` `xml-inline` `kv-lines`),
//! `content_args`, `repeats`, `join`, `optional`, `transform`, `transform_each`. Unknown keys are
//! rejected, as transformers rejects them.

use crate::{Error, ErrorKind, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A literal delimiter or a list of alternative literals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Literals {
    One(String),
    Many(Vec<String>),
}

impl Literals {
    /// The literals, in declaration order.
    pub fn list(&self) -> Vec<String> {
        match self {
            Literals::One(s) => vec![s.clone()],
            Literals::Many(v) => v.clone(),
        }
    }
}

/// One field (one key of the parsed message) and how its region is delimited and parsed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<Literals>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close: Option<Literals>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_pattern: Option<String>,
    /// Content parser name; `text` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_args: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeats: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform_each: Option<bool>,
}

/// A whole `response_template`. `fields` keeps its declaration order (it decides ties and which
/// field is the implicit one), so it is a list of `(name, field)` pairs serialised as an object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResponseTemplate {
    pub version: Option<u64>,
    pub defaults: Map<String, Value>,
    pub fields: Vec<(String, Field)>,
    pub start_anchor: Option<Literals>,
    pub start_anchor_pattern: Option<String>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("response_template: {}", msg.into()))
}

impl ResponseTemplate {
    /// Read a template from its JSON form, with transformers' shape checks.
    pub fn from_value(v: &Value) -> Result<ResponseTemplate> {
        let obj = v.as_object().ok_or_else(|| invalid("must be an object"))?;
        for k in obj.keys() {
            if !["version", "defaults", "fields", "start_anchor", "start_anchor_pattern"].contains(&k.as_str()) {
                return Err(invalid(format!("unknown key {k:?}")));
            }
        }
        let version = match obj.get("version") {
            None => None,
            Some(Value::Number(n)) if n.as_u64() == Some(1) => Some(1),
            Some(other) => return Err(invalid(format!("unsupported version {other}"))),
        };
        let defaults = match obj.get("defaults") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(invalid("defaults must be an object")),
        };
        let raw_fields = match obj.get("fields") {
            Some(Value::Object(m)) if !m.is_empty() => m,
            _ => return Err(invalid("fields must be a non-empty object")),
        };
        let mut fields = Vec::new();
        for (name, f) in raw_fields {
            let field: Field = serde_json::from_value(f.clone()).map_err(|e| invalid(format!("field {name:?}: {e}")))?;
            fields.push((name.clone(), field));
        }
        let start_anchor = match obj.get("start_anchor") {
            None => None,
            Some(a) => Some(serde_json::from_value(a.clone()).map_err(|_| invalid("start_anchor must be a string or a list of strings"))?),
        };
        let start_anchor_pattern = match obj.get("start_anchor_pattern") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid("start_anchor_pattern must be a string")),
        };
        Ok(ResponseTemplate { version, defaults, fields, start_anchor, start_anchor_pattern })
    }

    /// The JSON form (fields in declaration order).
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        if let Some(v) = self.version {
            obj.insert("version".into(), v.into());
        }
        if !self.defaults.is_empty() {
            obj.insert("defaults".into(), Value::Object(self.defaults.clone()));
        }
        if let Some(a) = &self.start_anchor {
            obj.insert("start_anchor".into(), serde_json::to_value(a).unwrap_or(Value::Null));
        }
        if let Some(p) = &self.start_anchor_pattern {
            obj.insert("start_anchor_pattern".into(), p.clone().into());
        }
        let fields: Map<String, Value> =
            self.fields.iter().map(|(n, f)| (n.clone(), serde_json::to_value(f).unwrap_or(Value::Null))).collect();
        obj.insert("fields".into(), Value::Object(fields));
        Value::Object(obj)
    }
}

impl Serialize for ResponseTemplate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ResponseTemplate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ResponseTemplate::from_value(&v).map_err(serde::de::Error::custom)
    }
}
