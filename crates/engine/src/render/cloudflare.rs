//! Cloudflare Pages: the edge layer and `_routes.json`.
//!
//! The edge layer (`cloudflare_worker.js`) answers what a static host cannot (the API's 405, its
//! 404 naming the path, 410 for a removed path, Markdown negotiation) and hands every other
//! request to the site unchanged. Where it goes depends on the site:
//!
//! - without Pages Functions, it is the output folder's `_worker.js` (advanced mode), and
//!   `_routes.json` sends it only the requests that need it: the folder, deployed as it is, is
//!   the whole API;
//! - with Pages Functions (a `functions/` folder beside the config file), a `_worker.js` would
//!   switch them off, silently. The module is then `_content-api.js` in the output folder, and
//!   one generated route file in the site's `functions/` (written by `deploy::pages_functions`)
//!   imports it: the site's own middleware runs first and its own routes keep their paths.
//!
//! Everything the module knows comes from the contract tables (`http`,
//! `media`), the error bodies of `problem` and the removed paths
//! (`gone::gone_paths`), written into it as JSON: the logic is fixed, the data is generated.

use super::gone::gone_paths;
use super::host_files::{STATE_FOLDER, twin_pages};
use crate::config::SiteConfig;
use crate::db::Globals;
use crate::http::{ALLOW, CONTRACT_HEADERS, DOCUMENT_HEADERS, HOST_FILES, LAYER_HEADER, METHODS};
use crate::media::{DEFAULT_TYPE, EXTENSION_TYPES, document_types};
use crate::output::Output;
use crate::problem::{METHOD_SLOT, PATH_SLOT, request_problem};
use crate::wire::{ErrorCode, to_json};
use serde_json::{Value, json};

/// The worker's logic. Reads the constants the build writes above it.
const WORKER_LOGIC: &str = include_str!("cloudflare_worker.js");

/// The tool's own pages, by page path (`developers`), with the file that serves them: the edge
/// layer answers every URL form of them (`x`, `x/`, `x/index.html`), as `serve` does.
fn own_pages() -> serde_json::Map<String, Value> {
    super::LISTED_DOCUMENTS
        .iter()
        .filter(|document| document.file.ends_with("/index.html"))
        .map(|document| {
            (
                document.path.trim_start_matches('/').to_string(),
                Value::from(document.file),
            )
        })
        .collect()
}

/// The edge module: the generated tables, then the fixed logic.
#[salsa::tracked(returns(ref))]
pub fn worker_file(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let gone: Vec<&str> = gone_paths(db).iter().map(|p| &**p).collect();
    Output::new(worker_source(config, &gone))
}

fn worker_source(config: &SiteConfig, gone: &[&str]) -> String {
    let problem = |code: ErrorCode| {
        Value::String(to_json(&request_problem(
            config,
            code,
            PATH_SLOT,
            METHOD_SLOT,
        )))
    };
    let document_headers: serde_json::Map<String, Value> = DOCUMENT_HEADERS
        .iter()
        .map(|(path, name, value)| (path.to_string(), json!([[name, value]])))
        .collect();
    let tables = json!({
        "methods": METHODS,
        "allow": ALLOW,
        "contractHeaders": CONTRACT_HEADERS,
        "layer": [LAYER_HEADER, crate::http::layer("cloudflare")],
        "documentHeaders": document_headers,
        "documentTypes": document_types().map(|(p, t)| (p.to_string(), Value::from(t))).collect::<serde_json::Map<_, _>>(),
        "extensionTypes": EXTENSION_TYPES.iter().map(|(e, t)| (e.to_string(), Value::from(*t))).collect::<serde_json::Map<_, _>>(),
        "defaultType": DEFAULT_TYPE,
        "jsonType": crate::media::media_type("error.json"),
        "hidden": HOST_FILES,
        "hiddenFolders": [STATE_FOLDER],
        "missing": format!("/{STATE_FOLDER}/not-found"),
        "twinPages": twin_pages(&config.languages),
        "ownPages": own_pages(),
        "gone": gone,
        "pathSlot": PATH_SLOT,
        "methodSlot": METHOD_SLOT,
        "problems": {
            "404": problem(ErrorCode::ResourceNotFound),
            "405": problem(ErrorCode::MethodNotAllowed),
            "410": problem(ErrorCode::Gone),
            "500": problem(ErrorCode::InternalError),
        },
    });
    format!(
        "// The content API's edge layer for Cloudflare Pages, written by content-api on every\n\
         // build. Do not edit: the next build rewrites it.\n\
         const TABLES = {};\n\n{WORKER_LOGIC}",
        serde_json::to_string_pretty(&tables).expect("tables serialize")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_carries_the_tables_and_the_gone_paths() {
        let config = SiteConfig::defaults(camino::Utf8Path::new("."));
        let source = worker_source(&config, &["api/timeline/en/old.json"]);
        let tables: Value = serde_json::from_str(
            source
                .split_once("const TABLES = ")
                .unwrap()
                .1
                .split_once(";\n\n")
                .unwrap()
                .0,
        )
        .unwrap();
        assert_eq!(tables["gone"], json!(["api/timeline/en/old.json"]));
        assert_eq!(tables["allow"], "GET, HEAD");
        assert_eq!(
            tables["contractHeaders"][0],
            json!(["Cache-Control", "public, max-age=3600"])
        );
        let not_found: Value =
            serde_json::from_str(tables["problems"]["404"].as_str().unwrap()).unwrap();
        assert_eq!(not_found["instance"], PATH_SLOT);
        assert!(source.contains("export default"));
        assert!(source.contains("export function onRequest"));
        assert_eq!(tables["missing"], "/.content-api/not-found");
    }
}
