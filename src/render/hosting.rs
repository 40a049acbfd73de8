//! The static host's configuration files, so that production answers like the contract (and
//! like `content-api serve`): `_headers` (Netlify and Cloudflare Pages), `_redirects` (Netlify),
//! and the not-found pages `404.html` and `api/404.html`.
//!
//! `_headers` and the not-found pages depend on the configuration only. `_redirects` lists the
//! API paths an earlier build published that are no longer outputs, so it reads the one
//! history-dependent input, `Site.published`, through [`gone_paths`].

use super::docs::text::html;
use super::output::Output;
use super::plan::api_output_paths;
use super::problem::{STATIC_PROBLEMS, static_problem};
use super::wire::{ErrorCode, to_json};
use crate::config::SiteConfig;
use crate::db::Site;
use std::fmt::Write as _;
use std::sync::Arc;

/// The contract's headers for every response (sections 4.1 and 8).
pub const CACHE_CONTROL: &str = "public, max-age=3600";
pub const ALLOW_ORIGIN: &str = "*";

/// `_headers`: one block per path pattern; a host applies every block that matches. No two
/// blocks that can match the same existing file set the same header (hosts would join the
/// values with a comma).
pub fn headers_file() -> String {
    format!(
        "# Response headers for Netlify and Cloudflare Pages, written by content-api.\n\
         # Every block whose path matches a request applies.\n\
         /*\n  Cache-Control: {CACHE_CONTROL}\n  Access-Control-Allow-Origin: {ALLOW_ORIGIN}\n  X-Content-Type-Options: nosniff\n\
         /api/*\n  Content-Type: application/json\n\
         /.well-known/api-catalog\n  Content-Type: application/linkset+json\n\
         /*.md\n  Content-Type: text/markdown; charset=utf-8\n\
         /*.txt\n  Content-Type: text/plain; charset=utf-8\n"
    )
}

/// The root `404.html`: what a host serves for an unknown path outside `/api/`. Without it,
/// Cloudflare Pages assumes a single-page application and answers every unknown path with the
/// home page and status 200.
pub fn not_found_page(config: &SiteConfig) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"robots\" content=\"noindex\">\n<title>Not Found</title>\n</head>\n<body>\n\
         <h1>Not Found</h1>\n<p>Nothing exists at this address on {}.</p>\n\
         <p>Every URL of the API is listed at <a href=\"/api/index.json\">/api/index.json</a>, \
         and the API is described at <a href=\"/openapi.json\">/openapi.json</a>.</p>\n\
         </body>\n</html>\n",
        html(&config.name)
    )
}

/// `api/404.html`: the static 404 body, as JSON. Hosts that look for the nearest `404.html`
/// (Cloudflare Pages) then answer unknown `/api/` paths with JSON rather than the HTML page,
/// and `_headers` gives it `Content-Type: application/json`.
pub fn api_not_found_page(config: &SiteConfig) -> String {
    to_json(&static_problem(config, ErrorCode::ResourceNotFound))
}

/// API paths published by an earlier build that are not outputs now, sorted. Re-runs when the
/// set of API paths or the history changes, and backdates when the set is the same, so `_redirects` is
/// re-rendered only when a path is removed (or comes back).
#[salsa::tracked(returns(ref))]
pub fn gone_paths(db: &dyn salsa::Database) -> Arc<[Arc<str>]> {
    let current = api_output_paths(db);
    Site::get(db)
        .published(db)
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

    #[test]
    fn headers_give_the_contract_headers_everywhere_and_each_content_type_once() {
        let text = headers_file();
        let blocks: Vec<(&str, Vec<&str>)> =
            text.lines()
                .filter(|l| !l.starts_with('#'))
                .fold(Vec::new(), |mut blocks, line| {
                    if let Some(header) = line.strip_prefix("  ") {
                        blocks.last_mut().unwrap().1.push(header);
                    } else {
                        blocks.push((line, Vec::new()));
                    }
                    blocks
                });
        let block = |path: &str| &blocks.iter().find(|(p, _)| *p == path).unwrap().1;
        assert!(block("/*").contains(&"Cache-Control: public, max-age=3600"));
        assert!(block("/*").contains(&"Access-Control-Allow-Origin: *"));
        assert_eq!(block("/api/*"), &["Content-Type: application/json"]);
        assert!(
            block("/.well-known/api-catalog").contains(&"Content-Type: application/linkset+json")
        );
        assert!(block("/*.md").contains(&"Content-Type: text/markdown; charset=utf-8"));
        assert!(block("/*.txt").contains(&"Content-Type: text/plain; charset=utf-8"));
    }

    #[test]
    fn the_not_found_page_is_titled_and_escapes_the_site_name() {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        config.name = "Tom & <Jerry>".into();
        let page = not_found_page(&config);
        assert!(page.contains("<title>Not Found</title>"));
        assert!(page.contains("Tom &amp; &lt;Jerry&gt;"));
        assert!(page.contains("href=\"/api/index.json\""));
    }
}
