//! The static host files that depend on the configuration only, so that production answers
//! like the contract (and like `content-api serve`): `_headers` (Netlify and Cloudflare Pages)
//! and the not-found pages `404.html` and `api/404.html`. The files that list removed paths
//! are in `gone`.

use super::docs;
use crate::config::SiteConfig;
use crate::documents::OUTPUT_DOCUMENTS;
use crate::html;
use crate::http::{API_PREFIX, CONTRACT_HEADERS, DOCUMENT_HEADERS, HOST_FILES};
use crate::model::Languages;
use crate::paths;
use crate::problem::static_problem;
use crate::wire::{ErrorCode, to_json};
use serde_json::json;
use std::fmt::Write as _;

/// `_headers`: the contract's headers on the API and on each document this tool writes, one
/// block per path, and no rule for any other path: a site sharing the folder keeps its own
/// headers on its own pages. Every header a block sets is one the host would otherwise set by
/// default or leave out, so in a folder of the tool's own no two blocks set the same header on
/// a path (hosts join such values with a comma). Where the site's own rules set one of them on a
/// path of the tool's, the merge puts the tool's block last with a `! Name` line first (Cloudflare
/// Pages' "detach"), so the tool's value is the only one (`write::headers`).
///
/// `skills`: the published agent skills' output files (the index, then each `SKILL.md`), which
/// have rules only when there are skills (an empty index gives way to a site's own).
pub fn headers_file(skills: &[String]) -> String {
    let mut out = String::from(
        "# Response headers for Cloudflare Pages and Netlify, written by content-api: the API's\n\
         # and its documents' own, one block per path.\n",
    );
    let mut block = |pattern: &str, content_type: Option<&str>, path: &str| {
        let _ = writeln!(out, "{pattern}");
        for (name, value) in CONTRACT_HEADERS {
            let _ = writeln!(out, "  {name}: {value}");
        }
        if let Some(media) = content_type {
            let _ = writeln!(out, "  Content-Type: {media}");
        }
        for (_, name, value) in DOCUMENT_HEADERS.iter().filter(|(p, _, _)| *p == path) {
            let _ = writeln!(out, "  {name}: {value}");
        }
    };
    block(
        &format!("/{API_PREFIX}*"),
        Some(crate::media::media_type("api/x.json")),
        "",
    );
    for path in header_paths(skills) {
        if path == paths::DEVELOPERS_HTML {
            // Its URL is the folder's (`/developers/`): the rule names the folder.
            let folder = path.trim_end_matches("index.html");
            block(&format!("/{folder}*"), None, path);
        } else {
            block(
                &format!("/{path}"),
                Some(crate::media::media_type(path)),
                path,
            );
        }
    }
    out
}

/// `_headers` of this build: re-runs when a skill appears or disappears.
#[salsa::tracked(returns(ref))]
pub fn headers_output(db: &dyn salsa::Database) -> crate::output::Output {
    let skills = docs::published_skills(db);
    let mut files = Vec::new();
    if !skills.is_empty() {
        files.push(paths::AGENT_SKILLS_INDEX.to_string());
        files.extend(skills.iter().map(|(name, _)| docs::skill_output_file(name)));
    }
    crate::output::Output::new(headers_file(&files))
}

/// The output files, outside the API, that `_headers` has a block for: every discovery document
/// (the agent skills only when there are some).
fn header_paths(skills: &[String]) -> Vec<&str> {
    let mut paths: Vec<&str> = super::LISTED_DOCUMENTS
        .iter()
        .map(|document| document.file)
        .filter(|file| *file != paths::AGENT_SKILLS_INDEX)
        .collect();
    paths.extend(skills.iter().map(String::as_str));
    paths
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
        html::escape(&config.name)
    )
}

/// `api/404.html`: the static 404 body, as JSON. Hosts that look for the nearest `404.html`
/// (Cloudflare Pages) then answer unknown `/api/` paths with JSON rather than the HTML page,
/// and `_headers` gives it `Content-Type: application/json`.
pub fn api_not_found_page(config: &SiteConfig) -> String {
    to_json(&static_problem(config, ErrorCode::ResourceNotFound))
}

/// The pages whose Markdown twin this tool may write, as the edge layer matches them: a path
/// ending in `/` covers every page under that folder (`blog/`), any other names one page and the
/// pages under it (`developers`). The output documents that are a page's twin come first
/// (`twin_of` in `contract::documents::OUTPUT_DOCUMENTS`), then each language's posts.
pub fn twin_pages(languages: &Languages) -> Vec<String> {
    let mut pages: Vec<String> = OUTPUT_DOCUMENTS
        .iter()
        .filter_map(|document| document.twin_of)
        .map(|page| page.trim_start_matches('/').to_string())
        .collect();
    for &lang in languages.all() {
        let twin = paths::post_markdown_file(languages, lang, "x");
        if let Some((folder, _)) = twin.rsplit_once('/') {
            pages.push(format!("{folder}/"));
        }
    }
    pages
}

/// The tool's files that no host serves: the state folder (`STATE_FOLDER`) and the host files.
pub const STATE_FOLDER: &str = ".content-api";

/// `_routes.json`: the requests `_worker.js` runs for (when the site has no Pages Functions).
/// Every API path (a static host cannot answer another method with 405, nor name the path in a
/// 404, nor answer 410); the pages that may have a Markdown twin (negotiation); the tool's state
/// folder and host files (never served). Everything else, the site's pages and the discovery
/// documents, is a static asset that runs no code.
pub fn routes_file(languages: &Languages) -> String {
    let mut include = vec![format!("/{API_PREFIX}*")];
    for page in twin_pages(languages) {
        match page.strip_suffix('/') {
            Some(folder) => include.push(format!("/{folder}/*")),
            None => {
                include.push(format!("/{page}"));
                include.push(format!("/{page}/*"));
            }
        }
    }
    include.push(format!("/{STATE_FOLDER}/*"));
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

    fn blocks(text: &str) -> Vec<(&str, Vec<&str>)> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .fold(Vec::new(), |mut blocks, line| {
                if let Some(header) = line.strip_prefix("  ") {
                    blocks.last_mut().unwrap().1.push(header);
                } else {
                    blocks.push((line, Vec::new()));
                }
                blocks
            })
    }

    #[test]
    fn headers_name_only_the_tools_paths_each_once() {
        let text = headers_file(&[]);
        let blocks = blocks(&text);
        let block = |path: &str| &blocks.iter().find(|(p, _)| *p == path).unwrap().1;
        assert!(
            !blocks.iter().any(|(p, _)| *p == "/*"),
            "no rule for the site's pages"
        );
        assert!(
            !blocks.iter().any(|(p, _)| p.starts_with("/*.")),
            "no rule by extension"
        );
        assert!(block("/api/*").contains(&"Cache-Control: public, max-age=3600"));
        assert!(block("/api/*").contains(&"Access-Control-Allow-Origin: *"));
        assert!(block("/api/*").contains(&"Content-Type: application/json"));
        let catalog = block("/.well-known/api-catalog");
        assert!(catalog.contains(
            &"Content-Type: application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\""
        ));
        assert!(catalog.contains(&"Link: </.well-known/api-catalog>; rel=\"api-catalog\""));
        assert!(block("/llms.txt").contains(&"Content-Type: text/plain; charset=utf-8"));
        assert!(block("/auth.md").contains(&"Content-Type: text/markdown; charset=utf-8"));
        assert!(block("/developers/*").contains(&"Vary: Accept"));
        assert!(
            !blocks.iter().any(|(p, _)| p.contains("agent-skills")),
            "an empty skills index has no rule: {text}"
        );
        let mut patterns: Vec<&str> = blocks.iter().map(|(p, _)| *p).collect();
        let all = patterns.len();
        patterns.sort();
        patterns.dedup();
        assert_eq!(patterns.len(), all, "one block per path");
        for (pattern, headers) in &blocks {
            let mut names: Vec<&str> = headers
                .iter()
                .map(|h| h.split(':').next().unwrap())
                .collect();
            let count = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), count, "{pattern}: one line per header");
        }
        let with_skills = headers_file(&[
            ".well-known/agent-skills/index.json".into(),
            ".well-known/agent-skills/x/SKILL.md".into(),
        ]);
        assert!(with_skills.contains("\n/.well-known/agent-skills/index.json\n"));
        assert!(with_skills.contains("\n/.well-known/agent-skills/x/SKILL.md\n"));
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
        let routes: serde_json::Value =
            serde_json::from_str(&routes_file(&Languages::seed())).unwrap();
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
        assert!(include.contains(&"/.content-api/*"));
        assert!(!include.contains(&"/*"));
        assert!(include.len() <= 100, "Cloudflare allows 100 rules");
    }
}
