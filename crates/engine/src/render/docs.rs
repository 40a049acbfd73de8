//! The documents for agents and people (contract section 4.3 and the developer portal), each
//! generated from the content and the configuration by the same incremental build as the API,
//! so none of them can drift from what is served.
//!
//! One file per document family:
//!
//! - `post_md`: each published post's Markdown variant (`blog/{slug}.md`, `es/blog/{slug}.md`),
//!   one tracked query per post;
//! - `llms_full`: `llms-full.txt`, joined from one cached section per post;
//! - `llms_map`: `llms.txt`, the curated site map;
//! - `skills`: the agent skills copied from the content, and their discovery index;
//! - `catalogs`: the RFC 9727 API catalog and the AI catalog;
//! - `mcp`: the MCP server card, and `webmcp`: the browser module that registers its tools
//!   (both from the contract's `tools`);
//! - `auth`: `auth.md`;
//! - `developers`: the developer portal, HTML and Markdown from one page model (`page`);
//! - `licence`: what every document says about reuse, from the licence's known terms;
//! - `text`: escaping and small text helpers shared by all of them.
//!
//! Invariants: every URL a document names is absolute and is an output of the same build (a
//! test checks every link of the output folder); hero images are written as plain text, never
//! as links, because they are site assets this build does not own. Post bodies are only read
//! by the per-post queries, so a body-only edit re-renders that post's Markdown variant, its
//! `llms-full.txt` section and `llms-full.txt`, and nothing under `api/`.

mod auth;
mod catalogs;
mod developers;
mod licence;
mod llms_full;
mod llms_map;
mod mcp;
mod page;
mod post_md;
mod schema_doc;
mod skills;
pub mod text;
mod webmcp;

pub use auth::auth_md;
pub use catalogs::{ai_catalog_json, api_catalog};
pub use developers::developer_docs;
pub use llms_full::{
    llms_full_part, llms_full_part_file, llms_full_parts, llms_full_section, llms_full_txt,
};
pub use llms_map::llms_txt;
pub use mcp::server_card;
pub use post_md::post_markdown;
pub use skills::{published_skills, skill_file, skills_index_json};
pub use webmcp::webmcp_module;

use crate::db::SourceFile;

/// The output file of a published agent skill, where the Agent Skills discovery draft puts it.
pub fn skill_output_file(name: &str) -> String {
    format!(".well-known/agent-skills/{name}/SKILL.md")
}

/// Renders one post's documents ahead of the files that join them, so a build can spread this
/// work over threads.
pub fn prepare_post(db: &dyn salsa::Database, file: SourceFile) {
    post_markdown(db, file);
    llms_full_section(db, file);
}
