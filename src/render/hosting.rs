//! The static host files that depend on the configuration only, so that production answers
//! like the contract (and like `content-api serve`): `_headers` (Netlify and Cloudflare Pages)
//! and the not-found pages `404.html` and `api/404.html`. The files that list removed paths
//! are in `gone`.

use super::docs;
use super::docs::text::html;
use super::http::{API_PREFIX, CONTRACT_HEADERS, DOCUMENT_HEADERS, HOST_FILES};
use super::media::{DOCUMENT_TYPES, EXTENSION_TYPES};
use super::problem::static_problem;
use super::wire::{ErrorCode, to_json};
use crate::config::SiteConfig;
use crate::model::Lang;
use serde_json::json;
use std::fmt::Write as _;

/// `_headers`: one block per path pattern; a host applies every block that matches. Generated
/// from `render::http` and `render::media`. No two blocks that can match the same existing file
/// set the same header (hosts would join the values with a comma): an extension that one of
/// the documents with a type of their own shares (`.json`) gets no block, since every host
/// types it by its extension already, and `/api/*` says it once more for the API.
pub fn headers_file() -> String {
    let mut out = String::from(
        "# Response headers for Netlify and Cloudflare Pages, written by content-api.\n\
         # Every block whose path matches a request applies.\n/*\n",
    );
    for (name, value) in CONTRACT_HEADERS {
        let _ = writeln!(out, "  {name}: {value}");
    }
    let _ = writeln!(
        out,
        "/api/*\n  Content-Type: {}",
        super::media_type("api/x.json")
    );
    for (path, media) in DOCUMENT_TYPES {
        let _ = writeln!(out, "/{path}\n  Content-Type: {media}");
        for (_, name, value) in DOCUMENT_HEADERS.iter().filter(|(p, _, _)| *p == path) {
            let _ = writeln!(out, "  {name}: {value}");
        }
    }
    for (extension, media) in EXTENSION_TYPES {
        let shared = DOCUMENT_TYPES
            .iter()
            .any(|(path, _)| path.ends_with(&format!(".{extension}")));
        if !shared {
            let _ = writeln!(out, "/*.{extension}\n  Content-Type: {media}");
        }
    }
    out
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

/// `_routes.json`: the requests the worker runs for. Every API path (a static host cannot
/// answer another method with 405, nor name the path in a 404, nor answer 410); the pages that
/// have a Markdown twin (negotiation); hidden folders (never served). Everything else, the
/// discovery documents included, is a static asset.
pub fn routes_file() -> String {
    let mut include = vec![format!("/{API_PREFIX}*")];
    let page = |twin: &str| twin.strip_suffix(".md").map(str::to_string);
    for twin in [docs::DEVELOPERS_MD, docs::AUTH_MD] {
        if let Some(page) = page(twin) {
            include.push(format!("/{page}"));
            include.push(format!("/{page}/*"));
        }
    }
    for lang in Lang::ALL {
        let twin = docs::post_markdown_file(lang, "x");
        if let Some((folder, _)) = twin.rsplit_once('/') {
            include.push(format!("/{folder}/*"));
        }
    }
    include.push("/.content-api/*".into());
    // Host files: Pages never serves them, but `wrangler pages dev` answers them with a 502.
    include.extend(HOST_FILES.iter().map(|file| format!("/{file}")));
    let routes = json!({
        "version": 1,
        "description": "Written by content-api: requests that need the edge layer (_worker.js).",
        "include": include,
        "exclude": [],
    });
    serde_json::to_string_pretty(&routes).expect("routes serialize") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(block("/*").contains(&"Vary: Accept"));
        let catalog = block("/.well-known/api-catalog");
        assert!(catalog.contains(
            &"Content-Type: application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
        ));
        assert!(catalog.contains(&"Link: </.well-known/api-catalog>; rel=\"api-catalog\""));
        assert!(
            block("/.well-known/ai-catalog.json")
                .contains(&"Content-Type: application/ai-catalog+json")
        );
        assert!(!blocks.iter().any(|(p, _)| *p == "/*.json"));
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

    #[test]
    fn routes_cover_the_api_the_twinned_pages_and_nothing_static() {
        let routes: serde_json::Value = serde_json::from_str(&routes_file()).unwrap();
        let include: Vec<&str> = routes["include"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for path in [
            "/api/*",
            "/developers",
            "/developers/*",
            "/blog/*",
            "/es/blog/*",
        ] {
            assert!(include.contains(&path), "{path} in {include:?}");
        }
        assert!(include.contains(&"/_headers"));
        assert!(!include.contains(&"/*"));
        assert!(include.len() <= 100, "Cloudflare allows 100 rules");
    }
}
