//! `.well-known/mcp/server-card.json`: the MCP server card of the read-only site tools.
//!
//! Shape: the MCP Server Card extension v1 (SEP-2127, modelcontextprotocol/
//! experimental-ext-server-card, `schema.ts` as of 2026-07): `$schema` (the v1 card schema),
//! `name` (reverse-DNS namespace, one `/`), `version`, `description` (at most 100
//! characters), optional `title` and `websiteUrl`, optional `remotes`, and `_meta` for
//! extension data. Unknown top-level members are rejected by that schema.
//!
//! What it says, under the site's own reverse-DNS keys in `_meta` (v1 cards do not enumerate
//! tools, and `remotes` is for HTTP endpoints, which a static site has none of):
//! - `{namespace}/tools`: every tool of `tools::TOOLS`, in the MCP `Tool` shape
//!   (`name`, `title`, `description`, `inputSchema`, `annotations`) plus the API operations it
//!   reads;
//! - how to reach them: `{namespace}/browser`, the WebMCP module a page includes
//!   (`docs::webmcp`), and `{namespace}/stdio`, the command that serves the same tools over
//!   stdio (`content-api mcp --site {base_url}`);
//! - `{namespace}/api`: the API they read.

use super::catalogs::site_host;
use super::text::clip;
use crate::config::SiteConfig;
use crate::html::module_script_tag;
use crate::paths::MCP_TOOLS_MODULE;
use crate::render::index::listed_document;
use crate::tools::TOOLS;
use crate::wire::to_json;
use serde_json::{Map, Value, json};

pub const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// The tool as the card lists it: the MCP `Tool` shape plus the operations it reads.
fn card_tool(tool: &crate::tools::Tool, config: &SiteConfig) -> Value {
    let mut json = tool.mcp_json(&config.languages);
    json["operations"] = tool
        .operations(&config.languages)
        .iter()
        .map(|op| {
            json!({
                "operationId": op.id,
                "method": "GET",
                "pathTemplate": op.path_template,
                "response": op.response
            })
        })
        .collect();
    json
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
    let tools: Vec<Value> = TOOLS.iter().map(|tool| card_tool(tool, config)).collect();
    let mut meta = Map::new();
    meta.insert(format!("{namespace}/tools"), Value::Array(tools));
    meta.insert(
        format!("{namespace}/api"),
        json!({
            "index": config.url("/api/index.json"),
            "openapi": config.url(listed_document("openapi").path),
            "authentication": "none",
            "access": "public, anonymous, read-only (GET and HEAD)"
        }),
    );
    let module = config.url(&format!("/{MCP_TOOLS_MODULE}"));
    meta.insert(
        format!("{namespace}/browser"),
        json!({
            "module": module,
            "api": "WebMCP: registers every tool with document.modelContext (navigator.modelContext in earlier browsers), where the browser has it",
            "include": module_script_tag(&module)
        }),
    );
    meta.insert(
        format!("{namespace}/stdio"),
        json!({
            "command": "content-api",
            "args": ["mcp", "--site", config.base_url],
            "description": "The same tools over stdio, reading this site's API through /api/index.json (content-api mcp)."
        }),
    );
    let card = json!({
        "$schema": SERVER_CARD_SCHEMA,
        "name": format!("{namespace}/site-tools"),
        "version": config.api_version,
        "title": clip(&config.name, 100),
        "description": "Read-only tools over the site's posts, series, tag timelines and talks.",
        "websiteUrl": config.url(listed_document("developers").path),
        "_meta": meta
    });
    to_json(&card)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(tools[3]["operations"][0]["operationId"], "getSeries");
        let browser = &card["_meta"]["example.lucia-montoya/browser"];
        assert_eq!(
            browser["module"],
            "https://lucia-montoya.example/.well-known/mcp/tools.js"
        );
        let stdio = &card["_meta"]["example.lucia-montoya/stdio"];
        assert_eq!(
            stdio["args"],
            json!(["mcp", "--site", "https://lucia-montoya.example"])
        );
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
