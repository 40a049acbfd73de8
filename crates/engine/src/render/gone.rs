//! The API paths an earlier build published that are no longer outputs, and `_redirects`
//! (Netlify), which answers them 410. These read the one history-dependent input,
//! `Globals.history_paths`; the nginx include and the Cloudflare worker read [`gone_paths`] too.

use super::groups::api_output_paths;
use crate::db::Globals;
use crate::output::Output;
use crate::problem::STATIC_PROBLEMS;
use crate::wire::ErrorCode;
use std::fmt::Write as _;
use std::sync::Arc;

/// API paths published by an earlier build that are not outputs now, sorted. Re-runs when the
/// set of API paths or the history changes, and backdates when the set is the same, so `_redirects` is
/// re-rendered only when a path is removed (or comes back).
#[salsa::tracked(returns(ref))]
pub fn gone_paths(db: &dyn salsa::Database) -> Arc<[Arc<str>]> {
    let current = api_output_paths(db);
    Globals::get(db)
        .history_paths(db)
        .iter()
        .filter(|path| current.binary_search(path).is_err())
        .cloned()
        .collect()
}

/// `_redirects` (Netlify): each removed API path answers 410 with the static gone body, then
/// any other unknown `/api/` path answers 404 with the static not-found body. Without a `!`,
/// a rule never shadows a file that exists, so current outputs are served as they are.
#[salsa::tracked(returns(ref))]
pub fn redirects_file(db: &dyn salsa::Database) -> Output {
    Output::new(render_redirects(gone_paths(db)))
}

fn render_redirects(gone: &[Arc<str>]) -> String {
    let document = |code: ErrorCode| {
        STATIC_PROBLEMS
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, path)| *path)
            .expect("every code has a static document")
    };
    let mut out = String::from(
        "# Status rules for Netlify, written by content-api. Removed API paths answer 410;\n\
         # any other unknown /api/ path answers 404 with a JSON body. Existing files win.\n",
    );
    for path in gone {
        let _ = writeln!(out, "/{path} /{} 410", document(ErrorCode::Gone));
    }
    let _ = writeln!(out, "/api/* /{} 404", document(ErrorCode::ResourceNotFound));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_list_gone_paths_in_order_then_the_api_fallback_last() {
        let gone: Vec<Arc<str>> = vec![
            "api/series/en/old.json".into(),
            "api/timeline/es/x.json".into(),
        ];
        let text = render_redirects(&gone);
        let rules: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            rules,
            [
                "/api/series/en/old.json /api/410.json 410",
                "/api/timeline/es/x.json /api/410.json 410",
                "/api/* /api/404.json 404",
            ]
        );
        let empty = render_redirects(&[]);
        assert!(empty.ends_with("/api/* /api/404.json 404\n"));
    }
}
