//! Documents that depend on the configuration only: `openapi.json` and the error bodies.

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
    Arc::new(docs)
}
