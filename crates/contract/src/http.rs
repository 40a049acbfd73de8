//! The contract's HTTP facts, each in one table: the headers every answer carries, the methods
//! it allows, the headers particular documents carry, which request paths are API paths, and
//! which file is the Markdown twin of a page. `serve`, `_headers`, the Cloudflare worker, the
//! nginx configuration, `openapi.json` and the developer portal all read them from here, so
//! production and the preview cannot disagree.
//!
//! Media types are the other table, in [`crate::media`].

use crate::model::Lang;

/// `Cache-Control` of every answer (contract sections 4.1 rule 6 and 8 rule 3).
pub const CACHE_CONTROL: &str = "public, max-age=3600";

/// `Access-Control-Allow-Origin` of every answer (sections 4.1 rule 6 and 8 rule 4).
pub const ALLOW_ORIGIN: &str = "*";

/// The methods the API answers (section 4.1 rule 1). Every other one, `OPTIONS` included, is a
/// 405 (section 7.2 rule 2): a cross-origin `GET` without custom headers needs no preflight,
/// and no static host can answer a preflight anyway, so one rule holds on every host.
pub const METHODS: [&str; 2] = ["GET", "HEAD"];

/// The `Allow` header of a 405.
pub const ALLOW: &str = "GET, HEAD";

/// Headers on every answer, successes and errors alike. `Vary: Accept` is on every answer
/// because any URL outside `/api/` may be answered with Markdown (section 4.3), and a cache
/// must not hand a Markdown answer (or a 404 given to a Markdown client) to a browser; under
/// `/api/` it costs nothing, since the answer never varies.
pub const CONTRACT_HEADERS: [(&str, &str); 4] = [
    ("Cache-Control", CACHE_CONTROL),
    ("Access-Control-Allow-Origin", ALLOW_ORIGIN),
    ("X-Content-Type-Options", "nosniff"),
    ("Vary", "Accept"),
];

/// The header by which every answer of content-api's own code names that code: the edge layer
/// on Cloudflare Pages (`_worker.js` or `_content-api.js`), the nginx block, `content-api
/// serve`. A host's static files (`_headers` rules) and a site's own Functions never carry it,
/// so `content-api verify` tells who answered a request by it. Not in [`CONTRACT_HEADERS`]:
/// `_headers` must not set it.
pub const LAYER_HEADER: &str = "Content-Api-Layer";

/// [`LAYER_HEADER`]'s value on each host's answers: (host, value).
pub const LAYERS: [(&str, &str); 3] = [
    ("cloudflare", "cloudflare-pages"),
    ("nginx", "nginx"),
    ("serve", "serve"),
];

/// [`LAYER_HEADER`]'s value for `host` (a key of [`LAYERS`]).
pub fn layer(host: &str) -> &'static str {
    LAYERS
        .iter()
        .find(|(name, _)| *name == host)
        .map_or("", |(_, value)| value)
}

/// Headers that particular documents carry besides the contract's: (path relative to the
/// output folder, name, value). RFC 9727 section 2: the API catalog links to itself with
/// `rel="api-catalog"`, so a `HEAD` finds it.
pub const DOCUMENT_HEADERS: [(&str, &str, &str); 1] = [(
    ".well-known/api-catalog",
    "Link",
    "</.well-known/api-catalog>; rel=\"api-catalog\"",
)];

/// The prefix of every API path (relative to the output folder). Under it every answer is
/// JSON, errors included (section 7), and nothing is negotiated.
pub const API_PREFIX: &str = "api/";

/// Files of the output folder that configure a host and are never served.
pub const HOST_FILES: [&str; 6] = [
    "_headers",
    "_redirects",
    "_routes.json",
    "_worker.js",
    EDGE_MODULE,
    NGINX_GONE_FILE,
];

/// The Cloudflare edge layer's module when the site has Pages Functions, which import it (a
/// `_worker.js` would disable them; see the engine's `render::cloudflare`).
pub const EDGE_MODULE: &str = "_content-api.js";

/// The edge module's path in the output folder: `_worker.js`, or [`EDGE_MODULE`] when the site's
/// Pages Functions import it.
pub fn edge_module_path(config: &crate::config::SiteConfig) -> &'static str {
    if config.hosting.pages_functions.is_some() {
        EDGE_MODULE
    } else {
        "_worker.js"
    }
}

/// The per-build part of the nginx configuration (the removed API paths), included by the
/// server block `content-api hosting nginx` prints.
pub const NGINX_GONE_FILE: &str = "_nginx_gone.conf";

/// Whether a path (relative to the output folder) is under `/api/`.
pub fn is_api_path(path: &str) -> bool {
    path.starts_with(API_PREFIX) || path == "api"
}

/// The headers an answer for `path` (relative to the output folder) carries besides the
/// contract's.
pub fn document_headers(path: &str) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
    DOCUMENT_HEADERS
        .iter()
        .filter(move |(p, _, _)| *p == path)
        .map(|(_, name, value)| (*name, *value))
}

/// The Markdown twin of a page (section 4.3, "appending `.md`"), for a request path relative
/// to the output folder: `x`, `x/` and `x/index.html` all have the twin `x.md`; the root has
/// `index.md`, and `x.html` has `x.md`. Only pages have one: `None` under `/api/` (always JSON)
/// and for a document with an extension other than `.html` (`llms.txt`, `auth.md`).
pub fn markdown_twin(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if is_api_path(path) || (name.contains('.') && !name.ends_with(".html")) {
        return None;
    }
    let page = path
        .strip_suffix("index.html")
        .or_else(|| path.strip_suffix(".html"))
        .unwrap_or(path)
        .trim_end_matches('/');
    Some(if page.is_empty() {
        "index.md".into()
    } else {
        format!("{page}.md")
    })
}

/// Whether an output path is a post's Markdown twin: `blog/{slug}.md` (the default
/// language's) or `{lang}/blog/{slug}.md` for any language tag (`es/blog/{slug}.md`), so the
/// shape is known without the site's configuration.
pub fn is_post_twin(path: &str) -> bool {
    let in_blog = path.strip_prefix("blog/").or_else(|| {
        let (lang, rest) = path.split_once('/')?;
        Lang::parse(lang)?;
        rest.strip_prefix("blog/")
    });
    in_blog
        .and_then(|name| name.strip_suffix(".md"))
        .is_some_and(|slug| !slug.is_empty() && !slug.contains('/'))
}

/// Whether an `Accept` header asks for a page's Markdown twin rather than its HTML (section 4.3).
/// Each type gets the quality of the most specific range that matches it (RFC 9110, 12.5.1:
/// `text/markdown`, then `text/*`, then `*/*`); Markdown wins only with a higher quality than
/// HTML, so a tie (`*/*` alone, or no header) stays HTML. `serve`, the Cloudflare edge layer and
/// the nginx block all decide by this rule ([`NEGOTIATION_CASES`] holds them to it).
pub fn prefers_markdown(accept: &str) -> bool {
    let ranges: Vec<(String, f32)> = accept
        .split(',')
        .filter_map(|range| {
            let mut params = range.split(';');
            let media = params.next()?.trim().to_ascii_lowercase();
            let quality = params
                .filter_map(|p| {
                    let (name, value) = p.split_once('=')?;
                    name.trim()
                        .eq_ignore_ascii_case("q")
                        .then(|| value.trim().parse::<f32>().unwrap_or(0.0).clamp(0.0, 1.0))
                })
                .next()
                .unwrap_or(1.0);
            (!media.is_empty()).then_some((media, quality))
        })
        .collect();
    let quality_of = |media_type: &str| {
        let family = media_type.split('/').next().unwrap_or("");
        let rank = |range: &str| match range {
            r if r == media_type => 3,
            r if r.strip_suffix("/*") == Some(family) => 2,
            "*/*" => 1,
            _ => 0,
        };
        let best = ranges.iter().map(|(r, _)| rank(r)).max().unwrap_or(0);
        if best == 0 {
            return 0.0;
        }
        ranges
            .iter()
            .filter(|(r, _)| rank(r) == best)
            .map(|(_, q)| *q)
            .fold(0.0_f32, f32::max)
    };
    let markdown = quality_of("text/markdown");
    markdown > 0.0 && markdown > quality_of("text/html")
}

/// `Accept` headers and whether each asks for Markdown: the one table every host's negotiation
/// is tested against (unit tests here and in the edge layer's, the hosts in
/// `tests/conformance.rs`).
pub const NEGOTIATION_CASES: [(&str, bool); 16] = [
    ("text/markdown", true),
    ("text/markdown, */*;q=0.8", true),
    ("text/html;q=0.5, text/markdown", true),
    ("TEXT/MARKDOWN; charset=utf-8", true),
    ("text/markdown;q=0.9, text/html;q=0.8", true),
    ("text/html, text/markdown;q=0.9", false),
    ("text/html, text/markdown", false),
    ("text/markdown;q=0", false),
    ("*/*", false),
    ("text/*", false),
    ("text/markdown;q=0.5, */*", false),
    ("application/json", false),
    ("", false),
    (
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        false,
    ),
    ("text/markdown, text/html;q=0", true),
    ("text/markdown;q=0.3, text/*;q=0.2", true),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_its_folder_url_and_its_index_share_one_twin() {
        for path in ["developers", "developers/", "developers/index.html"] {
            assert_eq!(
                markdown_twin(path).as_deref(),
                Some("developers.md"),
                "{path}"
            );
        }
        assert_eq!(markdown_twin("blog/x").as_deref(), Some("blog/x.md"));
        assert_eq!(markdown_twin("").as_deref(), Some("index.md"));
        assert_eq!(markdown_twin("index.html").as_deref(), Some("index.md"));
        assert_eq!(markdown_twin("api/posts.json"), None);
        assert_eq!(markdown_twin("x/about.html").as_deref(), Some("x/about.md"));
        assert_eq!(markdown_twin("auth.md"), None);
        assert_eq!(markdown_twin("llms.txt"), None);
    }

    #[test]
    fn negotiation_follows_the_quality_values() {
        for (accept, markdown) in NEGOTIATION_CASES {
            assert_eq!(prefers_markdown(accept), markdown, "{accept:?}");
        }
    }

    #[test]
    fn only_the_api_catalog_links_to_itself() {
        let link: Vec<_> = document_headers(".well-known/api-catalog").collect();
        assert_eq!(
            link,
            [("Link", "</.well-known/api-catalog>; rel=\"api-catalog\"")]
        );
        assert_eq!(document_headers("openapi.json").count(), 0);
    }
}
