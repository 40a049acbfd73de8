//! The site's tools for agents: one table (`TOOLS`) that the MCP server card, the browser
//! module (WebMCP, the engine's `render::docs::webmcp`) and the stdio server (`content-api mcp`)
//! all read, so their names, descriptions and input schemas cannot disagree.
//!
//! Each tool reads one file of the static API (`Reads::Operation`) or, for `search_posts`, a
//! post list it then filters (`Reads::PostList`). What a call does is decided here, as a pure
//! function of the tool and its arguments (`Tool::request`): the input checked against the
//! tool's own JSON Schema (the one the card publishes), the file to read, the message when it
//! does not exist, and the search filter (`Search::filter`). The browser module does the same
//! in JavaScript (the engine's `render/docs/webmcp.js`) over the same data; `tests/webmcp.rs`
//! and `tests/mcp.rs` compare both with the files.

use crate::model::{Languages, SLUG_PATTERN, is_valid_slug};
use crate::operations::{Operation, PathParam};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

/// An input of a tool: a path parameter of its operation, or the search words.
#[derive(Clone, Copy, Debug)]
pub enum Input {
    /// A path parameter of the operation the tool reads (same name, same rule).
    Param(PathParam),
    /// `query`: the words `search_posts` looks for.
    Query,
}

/// What a tool reads.
#[derive(Debug)]
pub enum Reads {
    /// One operation's file, its path parameters taken from the inputs of the same names.
    Operation(&'static str),
    /// A post list: `all` without `lang`, else the language's (`Operation::posts_in`),
    /// keeping the entries that match `query` and `tag` (see [`Search`]).
    PostList {
        /// The operation that lists every language's posts.
        all: &'static str,
    },
}

/// One tool: what it does, what it takes, what it reads.
#[derive(Debug)]
pub struct Tool {
    /// The MCP tool name (snake case).
    pub name: &'static str,
    /// A short human-readable name.
    pub title: &'static str,
    /// What it answers, for the agent choosing a tool; `{every language}` stands for the site's
    /// languages (see [`Tool::description`]).
    pub about: &'static str,
    /// Inputs, each with whether it is required, in the order they are checked.
    pub inputs: &'static [(Input, bool)],
    /// What it reads.
    pub reads: Reads,
    /// For an operation with a name parameter: where valid values come from, said when the file
    /// for the given value does not exist (404); for `search_posts`, when no post of the list
    /// carries the `tag` asked for.
    pub not_found_hint: &'static str,
}

/// Where the tags of a site are listed: said for a tag it does not have.
const TAG_HINT: &str = "get_api_index lists every tag timeline of each language.";

/// Every tool, in the order the card, the browser module and `tools/list` give them.
pub const TOOLS: [Tool; 6] = [
    Tool {
        name: "get_api_index",
        title: "Get the API index",
        about: "Every operation of the API with every URL it currently resolves to, the version, the versioning policy and links to every document.",
        inputs: &[],
        reads: Reads::Operation("getApiIndex"),
        not_found_hint: "",
    },
    Tool {
        name: "search_posts",
        title: "Search posts",
        about: "Published posts whose title or description contains every word of `query` (case-insensitively), optionally in one language and with one tag, newest first. Reads the post list of the language (or of {every language} without `lang`) and returns its matching entries.",
        inputs: &[
            (Input::Query, false),
            (Input::Param(PathParam::Lang), false),
            (Input::Param(PathParam::Tag), false),
        ],
        reads: Reads::PostList { all: "listPosts" },
        not_found_hint: TAG_HINT,
    },
    Tool {
        name: "list_series",
        title: "List series",
        about: "Every series with at least one published post in the language, newest activity first, with chapter counts.",
        inputs: &[(Input::Param(PathParam::Lang), true)],
        reads: Reads::Operation("listSeries"),
        not_found_hint: "",
    },
    Tool {
        name: "get_series",
        title: "Get a series",
        about: "The published chapters of one series in reading order.",
        inputs: &[
            (Input::Param(PathParam::Lang), true),
            (Input::Param(PathParam::Slug), true),
        ],
        reads: Reads::Operation("getSeries"),
        not_found_hint: "list_series gives the series of a language.",
    },
    Tool {
        name: "get_tag_timeline",
        title: "Get a tag timeline",
        about: "Every published post carrying a tag in the language, newest first.",
        inputs: &[
            (Input::Param(PathParam::Lang), true),
            (Input::Param(PathParam::Tag), true),
        ],
        reads: Reads::Operation("getTimelineByTag"),
        not_found_hint: TAG_HINT,
    },
    Tool {
        name: "list_talks",
        title: "List talks",
        about: "Every published slide deck (talk) in the language, newest first, with event names and external links.",
        inputs: &[(Input::Param(PathParam::Lang), true)],
        reads: Reads::Operation("getSlidesTimeline"),
        not_found_hint: "",
    },
];

impl Input {
    /// The input's property name.
    pub fn name(self) -> &'static str {
        match self {
            Input::Param(param) => param.name(),
            Input::Query => "query",
        }
    }

    fn schema(self, languages: &Languages) -> Value {
        match self {
            Input::Param(PathParam::Lang) => json!({
                "type": "string",
                "enum": languages.all().iter().map(|lang| lang.as_str()).collect::<Vec<_>>(),
                "description": PathParam::Lang.description(languages)
            }),
            Input::Param(param) => json!({
                "type": "string",
                "pattern": SLUG_PATTERN,
                "description": param.description(languages)
            }),
            Input::Query => json!({
                "type": "string",
                "minLength": 1,
                "description": "Words to look for in titles and descriptions, case-insensitively."
            }),
        }
    }
}

/// The MCP tool annotations: every tool only reads public, static files.
pub fn annotations() -> Value {
    json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false
    })
}

/// What one call reads, once its input is known to be valid.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// The file to read, relative to the output folder (and to the site's root URL).
    pub path: String,
    /// The error text when that file does not exist (a name that is not the site's).
    pub not_found: String,
    /// For `search_posts`: the entries to keep.
    pub search: Option<Search>,
}

/// The filter of `search_posts`: entries whose `title` or `description`, lowercased, contains
/// every word (the query lowercased, split at ASCII whitespace), and whose `tags` or `topics`
/// hold `tag` (the posts of the tag's timeline, which lists a post under each of its tags,
/// whatever the tag's tier). A tag no entry of the list carries is a tag the site does not
/// have in that language (its timeline would answer 404): an error naming the input, as
/// `get_tag_timeline` gives, never an empty result that reads as "no post matched".
#[derive(Debug, PartialEq, Eq)]
pub struct Search {
    /// The lowercased words, each of which an entry must contain.
    pub words: Vec<String>,
    /// The tag an entry must carry, if any.
    pub tag: Option<String>,
}

/// The whitespace that separates search words: the same five characters in JavaScript.
pub const SEARCH_SEPARATORS: [char; 5] = [' ', '\t', '\n', '\x0C', '\r'];

impl Tool {
    /// The tool named `name`.
    pub fn by_name(name: &str) -> Option<&'static Tool> {
        TOOLS.iter().find(|tool| tool.name == name)
    }

    /// The operations the tool may read on a site with `languages`, in the order the card
    /// lists them.
    pub fn operations(&self, languages: &Languages) -> Vec<&'static Operation> {
        match &self.reads {
            Reads::Operation(id) => vec![Operation::by_id(id)],
            Reads::PostList { all } => languages
                .all()
                .iter()
                .map(|&lang| Operation::posts_in(lang))
                .chain([Operation::by_id(all)])
                .collect(),
        }
    }

    /// The input JSON Schema (an object of string properties, no other property allowed): a
    /// `lang` is one of `languages`.
    pub fn input_schema(&self, languages: &Languages) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for &(input, is_required) in self.inputs {
            properties.insert(input.name().into(), input.schema(languages));
            if is_required {
                required.push(input.name());
            }
        }
        let mut schema = json!({ "type": "object", "properties": properties });
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema["additionalProperties"] = json!(false);
        schema
    }

    /// What the tool answers on a site with `languages`: "both languages" on a site with two.
    pub fn description(&self, languages: &Languages) -> String {
        let every = match languages.len() {
            1 => "its one language",
            2 => "both languages",
            _ => "every language",
        };
        self.about.replace("{every language}", every)
    }

    /// The tool in the MCP `Tool` shape: what `tools/list` answers and the browser registers.
    pub fn mcp_json(&self, languages: &Languages) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description(languages),
            "inputSchema": self.input_schema(languages),
            "annotations": annotations()
        })
    }

    /// What a call with `arguments` reads, or the error text naming the input that is wrong.
    /// No arguments (or `null`) is the empty object.
    pub fn request(
        &self,
        arguments: Option<&Value>,
        languages: &Languages,
    ) -> Result<Request, String> {
        let empty = Map::new();
        let arguments = match arguments {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(other) => {
                return Err(format!(
                    "The input must be an object, not {}.",
                    json_type(other)
                ));
            }
        };
        check(self, &self.input_schema(languages), arguments)?;
        let text = |name: &str| arguments.get(name).and_then(Value::as_str);
        match &self.reads {
            Reads::Operation(id) => {
                let op = Operation::by_id(id);
                let values: Vec<&str> = op
                    .params
                    .iter()
                    .map(|param| text(param.name()).unwrap_or_default())
                    .collect();
                let path = op.file(&values);
                let not_found = match (op.params.last(), values.last()) {
                    (Some(param), Some(value)) if !self.not_found_hint.is_empty() => format!(
                        "Input `{}`: {} not found (GET /{path} answered 404). {}",
                        param.name(),
                        quote(value),
                        self.not_found_hint
                    ),
                    _ => format!("GET /{path} answered 404."),
                };
                // `index` names a listing, not a series or a tag (`api/series/{lang}/index.json`
                // is the series listing; no series may be named so): nothing to read.
                let names_a_listing = op.params.len() > 1 && values.last() == Some(&"index");
                if let Some(param) = op.params.last().filter(|_| names_a_listing) {
                    return Err(format!(
                        "Input `{}`: \"index\" not found (/{path} is the listing, not one). {}",
                        param.name(),
                        self.not_found_hint
                    )
                    .trim_end()
                    .to_string());
                }
                Ok(Request {
                    path,
                    not_found,
                    search: None,
                })
            }
            Reads::PostList { all } => {
                let op = match text("lang").and_then(|code| languages.find(code)) {
                    Some(lang) => Operation::posts_in(lang),
                    None => Operation::by_id(all),
                };
                let path = op.file(&[]);
                let query = text("query").unwrap_or_default().to_lowercase();
                let words = query
                    .split(SEARCH_SEPARATORS)
                    .filter(|word| !word.is_empty())
                    .map(str::to_string)
                    .collect();
                Ok(Request {
                    not_found: format!("GET /{path} answered 404."),
                    path,
                    search: Some(Search {
                        words,
                        tag: text("tag").map(str::to_string),
                    }),
                })
            }
        }
    }
}

impl Search {
    /// The matching entries of a post list (a JSON array), each exactly as the list has it,
    /// joined as a compact JSON array; an error naming the input when no entry carries the
    /// tag (see [`Search`]).
    pub fn filter(&self, list: &str) -> Result<String, String> {
        let entries: Vec<&RawValue> = serde_json::from_str(list)
            .map_err(|err| format!("the post list is not a JSON array: {err}"))?;
        let mut out = String::from("[");
        let mut tag_found = self.tag.is_none();
        for entry in entries {
            let value: Value = serde_json::from_str(entry.get())
                .map_err(|err| format!("a post list entry is not JSON: {err}"))?;
            tag_found = tag_found || self.is_tagged(&value);
            if self.matches(&value) {
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(entry.get());
            }
        }
        out.push(']');
        match &self.tag {
            Some(tag) if !tag_found => Err(format!(
                "Input `tag`: {} not found (no post of the list carries it). {TAG_HINT}",
                quote(tag)
            )),
            _ => Ok(out),
        }
    }

    fn matches(&self, entry: &Value) -> bool {
        let field = |name: &str| entry.get(name).and_then(Value::as_str).unwrap_or_default();
        let text = format!("{}\n{}", field("title"), field("description")).to_lowercase();
        self.is_tagged(entry) && self.words.iter().all(|word| text.contains(word.as_str()))
    }

    /// Whether the entry carries the tag (any entry, without one).
    fn is_tagged(&self, entry: &Value) -> bool {
        self.tag.as_deref().is_none_or(|tag| {
            ["tags", "topics"].iter().any(|field| {
                entry
                    .get(*field)
                    .and_then(Value::as_array)
                    .is_some_and(|tags| tags.iter().any(|t| t.as_str() == Some(tag)))
            })
        })
    }
}

/// The JSON type of a value, as the error texts name it.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string as JSON writes it (as `JSON.stringify` does in the browser).
fn quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// Checks `arguments` against the tool's input schema (the subset `input_schema` writes:
/// `properties`, `required`, `additionalProperties: false`, and per property `type: string`,
/// `enum`, `minLength` and `pattern`). The first problem is reported: an unknown input (the
/// first in UTF-16 order, as JavaScript sorts), then each input in the schema's order.
fn check(tool: &Tool, schema: &Value, arguments: &Map<String, Value>) -> Result<(), String> {
    let properties = schema["properties"].as_object().expect("properties");
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut unknown: Vec<&String> = arguments
        .keys()
        .filter(|key| !properties.contains_key(key.as_str()))
        .collect();
    unknown.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    if let Some(key) = unknown.first() {
        let takes = if properties.is_empty() {
            "no input".to_string()
        } else {
            let names: Vec<String> = properties.keys().map(|k| format!("`{k}`")).collect();
            names.join(", ")
        };
        return Err(format!(
            "Unknown input {}: {} takes {takes}.",
            quote(key),
            tool.name
        ));
    }
    for (name, property) in properties {
        let Some(value) = arguments.get(name) else {
            if required.contains(&name.as_str()) {
                return Err(format!(
                    "Missing input `{name}`: {}",
                    property["description"].as_str().unwrap_or_default()
                ));
            }
            continue;
        };
        let Some(text) = value.as_str() else {
            return Err(format!(
                "Input `{name}` must be a string, not {}.",
                json_type(value)
            ));
        };
        if let Some(allowed) = property["enum"].as_array()
            && !allowed.iter().any(|a| a.as_str() == Some(text))
        {
            let allowed: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
            return Err(format!(
                "Input `{name}` must be one of {}, not {}.",
                allowed.join(", "),
                quote(text)
            ));
        }
        if property["minLength"].as_u64().is_some_and(|min| min > 0) && text.is_empty() {
            return Err(format!("Input `{name}` must not be empty."));
        }
        if let Some(pattern) = property["pattern"].as_str() {
            debug_assert_eq!(
                pattern, SLUG_PATTERN,
                "the only pattern the tools use (tested)"
            );
            if !is_valid_slug(text) {
                return Err(format!(
                    "Input `{name}` must match {pattern}, not {}.",
                    quote(text)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
