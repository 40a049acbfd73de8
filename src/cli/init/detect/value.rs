//! A front matter or a generator's configuration as plain values, whichever its language
//! (YAML through saphyr, TOML through `toml`): what detection reads of a site's own files.

use saphyr::{LoadableYamlNode, Scalar, Yaml};

/// A YAML or TOML value, as far as detection looks into it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Bool(bool),
    /// A number, a date or any other scalar, as text.
    Other(String),
    List(Vec<Value>),
    /// Keys in the file's order.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// The value under `key`, when this is a map that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value at a dotted path (`taxonomies.tags`, `extra.image`): a key, or keys of nested
    /// tables.
    pub fn path(&self, path: &str) -> Option<&Value> {
        if let Some(found) = self.get(path) {
            return Some(found);
        }
        let (first, rest) = path.split_once('.')?;
        self.get(first)?.path(rest)
    }

    /// The text of a string value.
    pub fn str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A string under `key`, trimmed, when it is not empty.
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.get(key)
            .and_then(Value::str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// The entries of a map (none for anything else).
    pub fn entries(&self) -> &[(String, Value)] {
        match self {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    /// The strings of a string or of a list of strings (tags written either way).
    pub fn strings(&self) -> Vec<String> {
        match self {
            Value::Str(s) => vec![s.clone()],
            Value::List(items) => items
                .iter()
                .filter_map(Value::str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The first YAML document of `text`, or `None` when it does not parse.
pub fn yaml(text: &str) -> Option<Value> {
    let docs = Yaml::load_from_str(text).ok()?;
    Some(docs.first().map_or(Value::Map(Vec::new()), from_yaml))
}

fn from_yaml(node: &Yaml) -> Value {
    match node {
        Yaml::Value(Scalar::String(s)) => Value::Str(s.to_string()),
        Yaml::Value(Scalar::Boolean(b)) => Value::Bool(*b),
        Yaml::Value(Scalar::Integer(n)) => Value::Other(n.to_string()),
        Yaml::Value(Scalar::FloatingPoint(f)) => Value::Other(f.to_string()),
        Yaml::Value(Scalar::Null) => Value::Other(String::new()),
        Yaml::Sequence(items) => Value::List(items.iter().map(from_yaml).collect()),
        Yaml::Mapping(map) => Value::Map(
            map.iter()
                .filter_map(|(k, v)| match k {
                    Yaml::Value(Scalar::String(k)) => Some((k.to_string(), from_yaml(v))),
                    _ => None,
                })
                .collect(),
        ),
        Yaml::Representation(text, _, _) => Value::Str(text.to_string()),
        _ => Value::Other(String::new()),
    }
}

/// A TOML document, or `None` when it does not parse.
pub fn toml(text: &str) -> Option<Value> {
    let table: toml::Table = text.parse().ok()?;
    Some(from_toml_table(&table))
}

fn from_toml_table(table: &toml::Table) -> Value {
    Value::Map(
        table
            .iter()
            .map(|(k, v)| (k.clone(), from_toml(v)))
            .collect(),
    )
}

fn from_toml(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::Str(s.clone()),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Array(items) => Value::List(items.iter().map(from_toml).collect()),
        toml::Value::Table(table) => from_toml_table(table),
        other => Value::Other(other.to_string()),
    }
}

/// A configuration file read by its extension (`.toml`, `.yaml`, `.yml`); `None` when it is
/// missing, of another kind, or does not parse.
pub fn load(path: &camino::Utf8Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    match path.extension()? {
        "toml" => toml(&text),
        "yaml" | "yml" => yaml(&text),
        _ => None,
    }
}

/// The first string literal given to `key` in JavaScript or TypeScript source (`key: "x"`,
/// `key = 'x'`, `` key: `x` ``): enough to read a generator's configuration without running it.
pub fn js_string(source: &str, key: &str) -> Option<String> {
    let mut from = 0;
    while let Some(found) = source[from..].find(key) {
        let at = from + found;
        from = at + key.len();
        let before = source[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let rest = source[from..].trim_start();
        // A quoted key (`"site": ...`).
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let Some(rest) = rest.trim_start().strip_prefix([':', '=']) else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        else {
            continue;
        };
        let body = &rest[1..];
        if let Some(end) = body.find(quote) {
            return Some(body[..end].to_string());
        }
    }
    None
}

/// The string literals of the array given to `key` (`locales: ["en", "fr"]`).
pub fn js_strings(source: &str, key: &str) -> Vec<String> {
    let mut from = 0;
    while let Some(found) = source[from..].find(key) {
        let at = from + found;
        from = at + key.len();
        let rest = source[from..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some(end) = rest.find(']') else {
            continue;
        };
        let mut out = Vec::new();
        let mut inner = &rest[..end];
        while let Some(start) = inner.find(['"', '\'']) {
            let quote = inner[start..].chars().next().unwrap_or('"');
            let body = &inner[start + 1..];
            let Some(close) = body.find(quote) else {
                break;
            };
            out.push(body[..close].to_string());
            inner = &body[close + 1..];
        }
        return out;
    }
    Vec::new()
}
