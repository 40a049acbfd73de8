//! The contract's HTTP facts, each in one table: the headers every answer carries, the methods
//! it allows, the headers particular documents carry, which request paths are API paths, and
//! which file is the Markdown twin of a page. `serve`, `_headers`, the Cloudflare worker, the
//! nginx configuration, `openapi.json` and the developer portal all read them from here, so
//! production and the preview cannot disagree.
//!
//! Media types are the other table, in [`super::media`].

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
pub const HOST_FILES: [&str; 5] = [
    "_headers",
    "_redirects",
    "_routes.json",
    "_worker.js",
    NGINX_GONE_FILE,
];

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
    fn only_the_api_catalog_links_to_itself() {
        let link: Vec<_> = document_headers(".well-known/api-catalog").collect();
        assert_eq!(
            link,
            [("Link", "</.well-known/api-catalog>; rel=\"api-catalog\"")]
        );
        assert_eq!(document_headers("openapi.json").count(), 0);
    }
}
