//! `.well-known/mcp/server-card.json`: the MCP server card of the read-only site tools.
//!
//! Shape: the MCP Server Card extension v1 (SEP-2127, modelcontextprotocol/
//! experimental-ext-server-card, `schema.ts` as of 2026-07): `$schema` (the v1 card schema),
//! `name` (reverse-DNS namespace, one `/`), `version`, `description` (at most 100
//! characters), optional `title` and `websiteUrl`, optional `remotes`, and `_meta` for
//! extension data. Unknown top-level members are rejected by that schema.
//!
//! Two consequences for a static, read-only site:
//! - there is no MCP endpoint to connect to, so the card has no `remotes` (the tools run in the
//!   browser, or in any client, as plain GETs of the API);
//! - v1 cards do not enumerate tools (they are listed at run time), so the tools are carried in
//!   `_meta` under the site's own reverse-DNS key (`{namespace}/tools`), each in the MCP `Tool`
//!   shape (`name`, `title`, `description`, `inputSchema`, `annotations`) plus the API
//!   operations it maps onto.

use super::catalogs::site_host;
use super::text::clip;
use crate::config::SiteConfig;
use crate::model::{Lang, SLUG_PATTERN};
use crate::render::index::document;
use crate::render::operations::{Operation, PathParam};
use crate::render::wire::to_json;
use serde_json::{Map, Value, json};

pub const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// An input of a tool: a path parameter of its operations, or the search words.
#[derive(Clone, Copy, Debug)]
pub enum Input {
    Param(PathParam),
    Query,
}

/// One tool: what it does and which operations it reads.
#[derive(Debug)]
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The operations the tool reads (by `operationId`).
    pub operations: &'static [&'static str],
    /// Inputs, each with whether it is required.
    pub inputs: &'static [(Input, bool)],
}

pub const TOOLS: [Tool; 6] = [
    Tool {
        name: "get_api_index",
        title: "Get the API index",
        description: "Every operation of the API with every URL it currently resolves to, the version, the versioning policy and links to every document.",
        operations: &["getApiIndex"],
        inputs: &[],
    },
    Tool {
        name: "search_posts",
        title: "Search posts",
        description: "Published posts whose title or description contains every word of `query`, optionally in one language and with one tag, newest first. Reads the post list of the language (or of both languages without `lang`) and filters it.",
        operations: &["listPostsInEnglish", "listPostsInSpanish", "listPosts"],
        inputs: &[
            (Input::Query, false),
            (Input::Param(PathParam::Lang), false),
            (Input::Param(PathParam::Tag), false),
        ],
    },
    Tool {
        name: "list_series",
        title: "List series",
        description: "Every series with at least one published post in the language, newest activity first, with chapter counts.",
        operations: &["listSeries"],
        inputs: &[(Input::Param(PathParam::Lang), true)],
    },
    Tool {
        name: "get_series",
        title: "Get a series",
        description: "The published chapters of one series in reading order.",
        operations: &["getSeries"],
        inputs: &[
            (Input::Param(PathParam::Lang), true),
            (Input::Param(PathParam::Slug), true),
        ],
    },
    Tool {
        name: "get_tag_timeline",
        title: "Get a tag timeline",
        description: "Every published post carrying a tag in the language, newest first.",
        operations: &["getTimelineByTag"],
        inputs: &[
            (Input::Param(PathParam::Lang), true),
            (Input::Param(PathParam::Tag), true),
        ],
    },
    Tool {
        name: "list_talks",
        title: "List talks",
        description: "Every published slide deck (talk) in the language, newest first, with event names and external links.",
        operations: &["getSlidesTimeline"],
        inputs: &[(Input::Param(PathParam::Lang), true)],
    },
];

impl Input {
    pub fn name(self) -> &'static str {
        match self {
            Input::Param(param) => param.name(),
            Input::Query => "query",
        }
    }

    fn schema(self) -> Value {
        match self {
            Input::Param(PathParam::Lang) => json!({
                "type": "string",
                "enum": Lang::ALL.map(Lang::as_str),
                "description": PathParam::Lang.description()
            }),
            Input::Param(param) => json!({
                "type": "string",
                "pattern": SLUG_PATTERN,
                "description": param.description()
            }),
            Input::Query => json!({
                "type": "string",
                "minLength": 1,
                "description": "Words to look for in titles and descriptions, case-insensitively."
            }),
        }
    }
}

/// The tool in the MCP `Tool` shape, plus the operations it maps onto.
fn tool_json(tool: &Tool) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for &(input, is_required) in tool.inputs {
        properties.insert(input.name().into(), input.schema());
        if is_required {
            required.push(input.name());
        }
    }
    let mut input_schema = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        input_schema["required"] = json!(required);
    }
    input_schema["additionalProperties"] = json!(false);
    let operations: Vec<Value> = tool
        .operations
        .iter()
        .map(|id| {
            let op = Operation::by_id(id);
            json!({
                "operationId": op.id,
                "method": "GET",
                "pathTemplate": op.path_template,
                "response": op.response
            })
        })
        .collect();
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": input_schema,
        "annotations": {
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        },
        "operations": operations
    })
}

/// The reverse-DNS namespace of the site (`example.lucia-montoya` for `lucia-montoya.example`);
/// an IP address is kept as it is.
pub fn namespace(config: &SiteConfig) -> String {
    let host = site_host(config);
    if host.parse::<std::net::IpAddr>().is_ok() || host.starts_with('[') {
        return host.trim_matches(['[', ']']).replace(':', "-");
    }
    host.rsplit('.').collect::<Vec<_>>().join(".")
}

/// The server card (depends on the configuration only).
pub fn server_card(config: &SiteConfig) -> String {
    let namespace = namespace(config);
    let tools: Vec<Value> = TOOLS.iter().map(tool_json).collect();
    let mut meta = Map::new();
    meta.insert(format!("{namespace}/tools"), Value::Array(tools));
    meta.insert(
        format!("{namespace}/api"),
        json!({
            "index": config.url("/api/index.json"),
            "openapi": config.url(document("openapi").path),
            "authentication": "none",
            "access": "public, anonymous, read-only (GET and HEAD)"
        }),
    );
    let card = json!({
        "$schema": SERVER_CARD_SCHEMA,
        "name": format!("{namespace}/site-tools"),
        "version": config.api_version,
        "title": clip(&config.name, 100),
        "description": "Read-only tools over the site's posts, series, tag timelines and talks.",
        "websiteUrl": config.url(document("developers").path),
        "_meta": meta
    });
    to_json(&card)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::OPERATIONS;

    #[test]
    fn every_tool_maps_onto_operations_and_takes_their_parameters() {
        for tool in &TOOLS {
            assert!(!tool.operations.is_empty());
            for id in tool.operations {
                assert!(OPERATIONS.iter().any(|op| op.id == *id), "{id}");
                for param in Operation::by_id(id).params {
                    assert!(
                        tool.inputs
                            .iter()
                            .any(|(input, _)| input.name() == param.name()),
                        "{} lacks {}",
                        tool.name,
                        param.name()
                    );
                }
            }
        }
    }

    #[test]
    fn the_card_has_the_v1_shape() {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        config.base_url = "https://lucia-montoya.example".into();
        let card: Value = serde_json::from_str(&server_card(&config)).unwrap();
        let object = card.as_object().unwrap();
        let allowed = [
            "$schema",
            "name",
            "version",
            "description",
            "title",
            "websiteUrl",
            "repository",
            "icons",
            "remotes",
            "_meta",
        ];
        assert!(object.keys().all(|k| allowed.contains(&k.as_str())));
        assert_eq!(card["$schema"], SERVER_CARD_SCHEMA);
        assert_eq!(card["name"], "example.lucia-montoya/site-tools");
        assert!(card["description"].as_str().unwrap().chars().count() <= 100);
        let tools = card["_meta"]["example.lucia-montoya/tools"]
            .as_array()
            .unwrap();
        assert_eq!(tools.len(), TOOLS.len());
        assert_eq!(tools[3]["inputSchema"]["required"], json!(["lang", "slug"]));
    }

    #[test]
    fn namespaces_are_reverse_dns() {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        assert_eq!(namespace(&config), "localhost");
        config.base_url = "https://blog.example.com".into();
        assert_eq!(namespace(&config), "com.example.blog");
        config.base_url = "http://127.0.0.1:8080".into();
        assert_eq!(namespace(&config), "127.0.0.1");
    }
}
