//! Cloudflare Pages: the edge layer `_worker.js` (advanced mode) and `_routes.json`.
//!
//! Why `_worker.js` rather than Pages Functions: Functions live in a `functions/` folder beside
//! the output and are compiled by `wrangler` at deploy time, so the output folder alone would
//! not be the deployment. `_worker.js` is a plain ES module inside the output folder: the
//! folder, deployed as it is, is the whole API. `_routes.json` sends only the requests that
//! need logic to it (`hosting::routes_file`: API paths, pages with a Markdown twin, hidden
//! files); every other request is a static asset, answered with `_headers` and without a
//! worker invocation.
//!
//! Everything the worker knows comes from the contract tables (`render::http`,
//! `render::media`), the error bodies of `render::problem` and the removed paths
//! (`gone::gone_paths`), written into it as JSON: the logic is fixed, the data is generated.

use super::gone::gone_paths;
use super::http::{ALLOW, CONTRACT_HEADERS, DOCUMENT_HEADERS, HOST_FILES, METHODS};
use super::media::{DEFAULT_TYPE, DOCUMENT_TYPES, EXTENSION_TYPES};
use super::output::Output;
use super::problem::{METHOD_SLOT, PATH_SLOT, request_problem};
use super::wire::{ErrorCode, to_json};
use crate::config::SiteConfig;
use crate::db::Site;
use serde_json::{Value, json};

/// The worker's logic. Reads the constants the build writes above it.
const WORKER_LOGIC: &str = include_str!("cloudflare_worker.js");

/// `_worker.js`: the generated tables, then the fixed logic.
#[salsa::tracked(returns(ref))]
pub fn worker_file(db: &dyn salsa::Database) -> Output {
    let config = Site::get(db).config(db);
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
        "documentHeaders": document_headers,
        "documentTypes": DOCUMENT_TYPES.iter().map(|(p, t)| (p.to_string(), Value::from(*t))).collect::<serde_json::Map<_, _>>(),
        "extensionTypes": EXTENSION_TYPES.iter().map(|(e, t)| (e.to_string(), Value::from(*t))).collect::<serde_json::Map<_, _>>(),
        "defaultType": DEFAULT_TYPE,
        "jsonType": super::media_type("error.json"),
        "hostFiles": HOST_FILES,
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
        "// The content API's edge layer for Cloudflare Pages (advanced mode), written by\n\
         // content-api on every build. Do not edit: the next build rewrites it.\n\
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
    }
}
