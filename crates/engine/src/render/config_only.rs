//! Documents that depend on the configuration only: `openapi.json`, the error bodies, the
//! access policy, the API catalog, the MCP server card and its browser module, and the host files that do not depend
//! on the content (`_routes.json`, `404.html`, `api/404.html`).

use super::docs;
use super::host_files::{api_not_found_page, not_found_page, routes_file};
use crate::db::Globals;
use crate::output::Output;
use crate::paths;
use crate::problem::{STATIC_PROBLEMS, static_problem};
use crate::wire::to_json;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Path → bytes of every configuration-only document.
#[salsa::tracked(returns(ref))]
pub fn config_only_files(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, Output>> {
    let config = Globals::get(db).config(db);
    let mut files: BTreeMap<Arc<str>, Output> = BTreeMap::new();
    let openapi = super::openapi::openapi_document(config);
    files.insert(paths::OPENAPI.into(), Output::new(to_json(&openapi)));
    files.insert(paths::AUTH_MD.into(), Output::new(docs::auth_md(config)));
    files.insert(
        paths::API_CATALOG.into(),
        Output::new(docs::api_catalog(config)),
    );
    files.insert(
        paths::MCP_SERVER_CARD.into(),
        Output::new(docs::server_card(config)),
    );
    files.insert(
        paths::MCP_TOOLS_MODULE.into(),
        Output::new(docs::webmcp_module(&config.languages)),
    );
    for (code, path) in STATIC_PROBLEMS {
        files.insert(
            path.into(),
            Output::new(to_json(&static_problem(config, code))),
        );
    }
    if config.hosting.pages_functions.is_none() {
        files.insert(
            "_routes.json".into(),
            Output::new(routes_file(&config.languages)),
        );
    }
    files.insert(
        paths::NOT_FOUND_PAGE.into(),
        Output::new(not_found_page(config)),
    );
    files.insert(
        "api/404.html".into(),
        Output::new(api_not_found_page(config)),
    );
    Arc::new(files)
}
