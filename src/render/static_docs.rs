//! Documents that depend on the configuration only: `openapi.json`, the error bodies, and the
//! host files that do not depend on the content (`_headers`, `404.html`, `api/404.html`).

use super::hosting::{api_not_found_page, headers_file, not_found_page};
use super::output::Output;
use super::problem::{STATIC_PROBLEMS, static_problem};
use super::wire::to_json;
use crate::db::Site;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Path → bytes of every configuration-only document.
#[salsa::tracked(returns(ref))]
pub fn static_documents(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, Output>> {
    let config = Site::get(db).config(db);
    let mut docs: BTreeMap<Arc<str>, Output> = BTreeMap::new();
    let openapi = super::openapi::openapi_document(config);
    docs.insert("openapi.json".into(), Output::new(to_json(&openapi)));
    for (code, path) in STATIC_PROBLEMS {
        docs.insert(
            path.into(),
            Output::new(to_json(&static_problem(config, code))),
        );
    }
    docs.insert("_headers".into(), Output::new(headers_file()));
    docs.insert("404.html".into(), Output::new(not_found_page(config)));
    docs.insert(
        "api/404.html".into(),
        Output::new(api_not_found_page(config)),
    );
    Arc::new(docs)
}
