//! `content-api mcp`: the site's tools (the contract's `tools::TOOLS`, the ones the server card
//! lists and the browser module registers) served over stdio with the official MCP Rust SDK
//! (rmcp), reading a built output folder or a live site (`api_source`).
//!
//! A call does what the browser module does: the input checked by the table
//! (`Tool::request`), one file of the API read, and the file's text as the result (for
//! `search_posts`, the matching entries: `Search::filter`); a bad input, or a name the site
//! does not have, is an error result naming the input. So a result here equals the browser
//! tool's for the same site.

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{operations, tools};
use content_api_model::model;
use content_api_write as write;

mod api_source;

pub use api_source::{ApiSource, BOUNDS, Fetched, MAX_API_FILE_BYTES};

use crate::model::Languages;
use crate::tools::{TOOLS, Tool};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// One tool call on a site with `languages`: the result's text, and whether it is an error
/// result.
pub async fn call(
    source: &ApiSource,
    languages: &Languages,
    tool: &Tool,
    arguments: Option<&Value>,
) -> (String, bool) {
    let request = match tool.request(arguments, languages) {
        Ok(request) => request,
        Err(problem) => return (problem, true),
    };
    let text = match source.read(&request.path).await {
        Fetched::Found(text) => text,
        Fetched::NotFound => return (request.not_found, true),
        Fetched::Failed(problem) => return (problem, true),
    };
    match &request.search {
        None => (text, false),
        Some(search) => match search.filter(&text) {
            Ok(entries) => (entries, false),
            Err(problem) => (problem, true),
        },
    }
}

/// What a client sees of the server before it calls anything.
const INSTRUCTIONS: &str = "Read-only tools over one site's public JSON API (posts, series, tag timelines, talks). Start with get_api_index or search_posts; every result is the API's JSON.";

/// The MCP server: the tool table over one source, for the site's languages.
struct Server {
    source: ApiSource,
    languages: Languages,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("content-api", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(INSTRUCTIONS.into());
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools: Vec<Value> = TOOLS
            .iter()
            .map(|tool| tool.mcp_json(&self.languages))
            .collect();
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|err| ErrorData::internal_error(format!("the tool table: {err}"), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = Tool::by_name(&request.name) else {
            let names: Vec<&str> = TOOLS.iter().map(|tool| tool.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`: the tools are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let arguments = request.arguments.map(Value::Object);
        let (text, is_error) = call(&self.source, &self.languages, tool, arguments.as_ref()).await;
        let content = vec![ContentBlock::text(text)];
        Ok(if is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// Where to read the API from, as the command line gave it.
#[derive(Debug)]
pub enum Origin {
    /// A built output folder.
    Folder(camino::Utf8PathBuf),
    /// A live site's URL.
    Site(String),
}

/// Serves the tools on stdin/stdout until the client closes the connection. `Err` when the
/// source cannot be opened (before anything is served) or the transport fails.
pub fn run(origin: Origin) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the async runtime: {err}"))?;
    runtime.block_on(async {
        let source = match origin {
            Origin::Folder(dir) => ApiSource::folder(&dir)?,
            Origin::Site(url) => ApiSource::site(&url).await?,
        };
        let languages = source.languages().await?;
        tracing::info!(
            "serving {} tools over stdio from {}",
            TOOLS.len(),
            describe(&source)
        );
        let service = Server { source, languages }
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| format!("the MCP client did not initialize: {err}"))?;
        service
            .waiting()
            .await
            .map_err(|err| format!("the MCP connection failed: {err}"))?;
        Ok(())
    })
}

fn describe(source: &ApiSource) -> String {
    match source {
        ApiSource::Folder(dir) => format!("the output folder `{}`", dir.display()),
        ApiSource::Site { root, .. } => root.clone(),
    }
}
