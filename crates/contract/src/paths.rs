//! Where the tool publishes its documents, relative to the output folder: the discovery
//! documents' fixed paths and a post's page and Markdown twin. The engine writes them there;
//! `serve`, `write` and the hosts' rules find them by the same names.

use crate::model::{Lang, Languages};

/// The OpenAPI description of the API.
pub const OPENAPI: &str = "openapi.json";
/// The page a host serves for an unknown path outside the API.
pub const NOT_FOUND_PAGE: &str = "404.html";
/// The site map for language models.
pub const LLMS_TXT: &str = "llms.txt";
/// Every post with its Markdown body, for language models (`llms-full-2.txt`, ... past 20 MiB).
pub const LLMS_FULL_TXT: &str = "llms-full.txt";
/// The access policy: public, anonymous, read-only.
pub const AUTH_MD: &str = "auth.md";
/// The RFC 9727 API catalog.
pub const API_CATALOG: &str = ".well-known/api-catalog";
/// The AI catalog: every agent-facing document, with its media type.
pub const AI_CATALOG: &str = ".well-known/ai-catalog.json";
/// The MCP server card: the tools and how to reach them.
pub const MCP_SERVER_CARD: &str = ".well-known/mcp/server-card.json";
/// The agent skills discovery index.
pub const AGENT_SKILLS_INDEX: &str = ".well-known/agent-skills/index.json";
/// The developer portal's page: every endpoint with a live example, the errors, the limits.
pub const DEVELOPERS_HTML: &str = "developers/index.html";
/// The developer portal as Markdown, for agents.
pub const DEVELOPERS_MD: &str = "developers.md";
/// The browser module that registers the MCP server card's tools with WebMCP.
pub const MCP_TOOLS_MODULE: &str = ".well-known/mcp/tools.js";

/// The site-absolute path of a post's page: the default language's at the root, another's
/// under `/{code}/` (the seed: English at the root, Spanish under `/es/`).
pub fn post_page_path(languages: &Languages, lang: Lang, slug: &str) -> String {
    format!("{}/blog/{slug}", languages.site_prefix(lang))
}

/// The output file of a post's Markdown variant: its page path plus `.md`.
pub fn post_markdown_file(languages: &Languages, lang: Lang, slug: &str) -> String {
    let page = post_page_path(languages, lang, slug);
    format!("{}.md", &page[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_is_at_the_root_and_spanish_under_es() {
        let seed = Languages::seed();
        assert_eq!(post_page_path(&seed, Lang::EN, "hello"), "/blog/hello");
        assert_eq!(post_page_path(&seed, Lang::ES, "hello"), "/es/blog/hello");
        assert_eq!(
            post_markdown_file(&seed, Lang::EN, "hello"),
            "blog/hello.md"
        );
        assert_eq!(
            post_markdown_file(&seed, Lang::ES, "hello"),
            "es/blog/hello.md"
        );
    }
}
