//! `.well-known/mcp/tools.js`: the browser module (WebMCP) that registers the server card's
//! tools with `document.modelContext` (`navigator.modelContext` in earlier browsers), each
//! answering from this site's static API.
//!
//! Generated: the tool table (`tools::TOOLS`, the same JSON Schema and texts as the card
//! and `content-api mcp`, plus the file each reads) and the site root relative to the module's
//! own URL, then the fixed runtime `webmcp.js` (input checks, the search filter, registration).
//! No URL in it is absolute, so one build works on every host, under any base path and in the
//! preview. Depends on nothing but the table and the site's languages.

use crate::html::module_script_tag;
use crate::model::Languages;
use crate::operations::Operation;
use crate::paths::MCP_TOOLS_MODULE;
use crate::tools::{Reads, TOOLS, Tool};
use serde_json::{Map, Value, json};

/// The fixed part of the module.
const RUNTIME: &str = include_str!("webmcp.js");

/// A tool as the module holds it: the MCP `Tool` shape plus what it reads.
fn module_tool(tool: &Tool, languages: &Languages) -> Value {
    let mut json = tool.mcp_json(languages);
    json["read"] = match &tool.reads {
        Reads::Operation(id) => {
            let op = Operation::by_id(id);
            json!({
                "path": op.path_template.trim_start_matches('/'),
                "params": op.params.iter().map(|p| p.name()).collect::<Vec<_>>(),
                "notFoundHint": tool.not_found_hint
            })
        }
        Reads::PostList { all } => {
            let by_lang: Map<String, Value> = languages
                .all()
                .iter()
                .map(|&lang| (lang.to_string(), json!(Operation::posts_in(lang).file(&[]))))
                .collect();
            json!({
                "all": Operation::by_id(all).file(&[]),
                "byLang": by_lang,
                "notFoundHint": tool.not_found_hint
            })
        }
    };
    json
}

/// The module's text.
pub fn webmcp_module(languages: &Languages) -> String {
    let table: Vec<Value> = TOOLS
        .iter()
        .map(|tool| module_tool(tool, languages))
        .collect();
    let table = serde_json::to_string_pretty(&table).expect("the table serializes");
    let root = "../".repeat(MCP_TOOLS_MODULE.matches('/').count());
    format!(
        "// Written by content-api: this site's read-only tools for agents in the browser (WebMCP),\n\
         // the tools its MCP server card lists. A page adds them with one line:\n\
         //   {}\n\
         // Where the browser has no WebMCP (document.modelContext, navigator.modelContext), it\n\
         // registers nothing; callTool(name, input) calls a tool without it.\n\n\
         const TOOLS = {table};\n\n\
         // The site's root, relative to this module: every file is read from the same site.\n\
         const ROOT = new URL({}, import.meta.url);\n\n{RUNTIME}",
        module_script_tag(&format!("/{MCP_TOOLS_MODULE}")),
        serde_json::to_string(&root).expect("a string serializes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_holds_every_tool_and_reads_relative_urls() {
        let module = webmcp_module(&Languages::seed());
        assert!(module.contains("const ROOT = new URL(\"../../\", import.meta.url);"));
        assert!(!module.contains("https://") && !module.contains("http://"));
        let start = module.find("const TOOLS = ").unwrap() + "const TOOLS = ".len();
        let end = start + module[start..].find(";\n").unwrap();
        let table: Vec<Value> = serde_json::from_str(&module[start..end]).unwrap();
        assert_eq!(table.len(), TOOLS.len());
        for (json, tool) in table.iter().zip(&TOOLS) {
            assert_eq!(json["name"], tool.name);
            assert_eq!(json["inputSchema"], tool.input_schema(&Languages::seed()));
        }
        assert_eq!(table[3]["read"]["path"], "api/series/{lang}/{slug}.json");
        assert_eq!(table[1]["read"]["byLang"]["es"], "api/posts-es.json");
        assert_eq!(table[1]["read"]["all"], "api/posts.json");
    }
}
