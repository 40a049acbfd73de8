//! Where the discovery documents are written, relative to the output folder. Apart from
//! `docs`, which renders them, so that `index` (whose `DOCUMENTS` table `docs` reads) can name
//! them without importing `docs`.

pub const LLMS_TXT: &str = "llms.txt";
pub const LLMS_FULL_TXT: &str = "llms-full.txt";
pub const AUTH_MD: &str = "auth.md";
pub const API_CATALOG: &str = ".well-known/api-catalog";
pub const AI_CATALOG: &str = ".well-known/ai-catalog.json";
pub const MCP_SERVER_CARD: &str = ".well-known/mcp/server-card.json";
/// The agent skills discovery index.
pub const AGENT_SKILLS_INDEX: &str = ".well-known/agent-skills/index.json";
pub const DEVELOPERS_HTML: &str = "developers/index.html";
pub const DEVELOPERS_MD: &str = "developers.md";
/// The browser module that registers the MCP server card's tools with WebMCP.
pub const MCP_TOOLS_MODULE: &str = ".well-known/mcp/tools.js";
