//! What `content-api serve` adds for the author, on top of the production behaviour:
//!
//! - `GET /` (or [`LANDING_PATH_SHARED`] when the origin is shared with a site's dev server): a
//!   landing page ([`landing`]) with links to the portal, the API index and every
//!   document, the content's current errors and the latest rebuilds;
//! - `GET /__preview.js`: the live-reload script, added to every HTML page served (never to the
//!   file in the output folder): it follows `/__events`, refreshes the landing page, reloads a
//!   page whose file changed, and shows the content's errors over the page;
//! - `GET /__diagnostics`: the content's current diagnostics as JSON (for that script);
//! - `GET /favicon.ico`: 204 when the output has none (no console error on every page);
//! - every response body with the production `base_url` rewritten to the local address
//!   (`serve::rebase`), with its own `ETag` and `Content-Length`.
//!
//! None of this exists in production: the output folder is never changed by it. What shows
//! unpublished content (the landing page, the diagnostics, `/__events`) is for this origin's
//! pages only: no open CORS.

mod landing;

use super::Rebuild;
use super::folder::{Served, etag_of};
use super::respond::{Body, empty, full};
use crate::{DiagnosticView, PendingList};
use bytes::Bytes;
use camino::Utf8PathBuf;
use hyper::header::{CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Where the landing page is when `/` is the site's own home page (`serve --site`, the Astro
/// integration).
pub const LANDING_PATH_SHARED: &str = "/__content-api/";
/// The URL path of the live-reload script.
pub const PREVIEW_SCRIPT_PATH: &str = "/__preview.js";
/// The URL path of the current diagnostics (JSON).
const DIAGNOSTICS_PATH: &str = "/__diagnostics";
/// The live-reload script.
const SCRIPT: &str = include_str!("preview/live.js");
/// Added before `</body>` of every HTML page served.
const SCRIPT_TAG: &str = "<script src=\"/__preview.js\" defer></script>\n";
/// How many rebuilds the landing page lists.
const REBUILDS_SHOWN: usize = 10;

/// One publish, as the landing page lists it.
#[derive(Clone, Debug)]
struct LoggedRebuild {
    at: chrono::DateTime<chrono::Utc>,
    rebuild: Rebuild,
}

/// What the preview knows between requests: the base URL, the content's problems, what will go
/// live and the latest rebuilds (named apart from the engine's `db::Preview`, the preview modes).
pub struct PreviewState {
    /// The production base URL the output holds (follows `watch.toml` reloads).
    base_url: Mutex<Arc<str>>,
    /// Where the author opens this server (`http://127.0.0.1:8421`, or the dev server in front).
    origin: String,
    out_dir: Utf8PathBuf,
    diagnostics: Mutex<Arc<[DiagnosticView]>>,
    schedule: Mutex<Arc<PendingList>>,
    rebuilds: Mutex<VecDeque<LoggedRebuild>>,
    /// `/`, or [`LANDING_PATH_SHARED`].
    landing_path: &'static str,
    /// The live-reload script, pointing at `landing_path`.
    script: String,
}

impl PreviewState {
    /// `shared`: the origin is shared with a site's dev server, which owns `/` and the favicon.
    pub fn new(base_url: &str, origin: String, out_dir: Utf8PathBuf, shared: bool) -> PreviewState {
        let landing_path = if shared { LANDING_PATH_SHARED } else { "/" };
        PreviewState {
            landing_path,
            script: SCRIPT.replace(
                "const LANDING = \"/\";",
                &format!("const LANDING = \"{landing_path}\";"),
            ),
            base_url: Mutex::new(Arc::from(base_url)),
            origin,
            out_dir,
            diagnostics: Mutex::new(Arc::from([])),
            schedule: Mutex::default(),
            rebuilds: Mutex::default(),
        }
    }

    /// Remembers a publish for the landing page.
    pub fn record_rebuild(&self, rebuild: &Rebuild) {
        let mut rebuilds = self.rebuilds.lock().unwrap_or_else(|p| p.into_inner());
        rebuilds.push_front(LoggedRebuild {
            at: chrono::Utc::now(),
            rebuild: rebuild.clone(),
        });
        rebuilds.truncate(REBUILDS_SHOWN);
    }

    /// Follows a change of the production base URL (a reloaded `watch.toml`).
    pub fn set_base_url(&self, base_url: &str) {
        let mut current = self.base_url.lock().unwrap_or_else(|p| p.into_inner());
        if &**current != base_url {
            *current = Arc::from(base_url);
        }
    }

    fn base_url(&self) -> Arc<str> {
        self.base_url
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Stores the current diagnostics; false when they are the ones already stored.
    pub fn set_diagnostics(&self, diagnostics: Arc<[DiagnosticView]>) -> bool {
        let mut current = self.diagnostics.lock().unwrap_or_else(|p| p.into_inner());
        if *current == diagnostics {
            return false;
        }
        *current = diagnostics;
        true
    }

    /// Stores what will go live; false when it is what is already stored.
    pub fn set_schedule(&self, schedule: Arc<PendingList>) -> bool {
        let mut current = self.schedule.lock().unwrap_or_else(|p| p.into_inner());
        if *current == schedule {
            return false;
        }
        *current = schedule;
        true
    }

    fn schedule(&self) -> Arc<PendingList> {
        self.schedule
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn diagnostics(&self) -> Arc<[DiagnosticView]> {
        self.diagnostics
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The preview's own pages, or `None` for a path the output folder answers.
    pub fn route(&self, path: &str, head: bool) -> Option<Response<Body>> {
        let (media_type, body) = match path {
            _ if path == self.landing_path => {
                let rebuilds: Vec<LoggedRebuild> = self
                    .rebuilds
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .cloned()
                    .collect();
                let base_url = self.base_url();
                let page = landing::Landing {
                    base_url: &base_url,
                    origin: &self.origin,
                    out_dir: &self.out_dir,
                    diagnostics: &self.diagnostics(),
                    schedule: &self.schedule(),
                    rebuilds: &rebuilds,
                };
                ("text/html; charset=utf-8", Bytes::from(page.render()))
            }
            PREVIEW_SCRIPT_PATH => (
                "text/javascript; charset=utf-8",
                Bytes::from(self.script.clone()),
            ),
            DIAGNOSTICS_PATH => {
                let body = serde_json::json!({ "diagnostics": &*self.diagnostics() });
                ("application/json", Bytes::from(body.to_string()))
            }
            // Browsers ask for it on every page; the output has none (the site's own favicon is
            // not the API's), and a 404 would be a console error on every preview page.
            "/favicon.ico"
                if self.landing_path == "/" && !self.out_dir.join("favicon.ico").exists() =>
            {
                let response = Response::builder()
                    .status(StatusCode::NO_CONTENT)
                    .header(CACHE_CONTROL, "no-cache")
                    .body(empty())
                    .expect("valid favicon response");
                return Some(response);
            }
            _ => return None,
        };
        let response = Response::builder()
            .status(StatusCode::OK)
            .header(CONTENT_TYPE, media_type)
            // Always current: these pages change with every rebuild.
            .header(CACHE_CONTROL, "no-cache")
            // No `Access-Control-Allow-Origin`: they show drafts and scheduled titles, which a
            // page of another origin may not read (the published files keep the contract's).
            .header(CONTENT_LENGTH, body.len())
            .body(if head { empty() } else { full(body) })
            .expect("valid preview response");
        Some(response)
    }

    /// The version of a file the preview sends: production URLs rewritten to the local
    /// address, and the live-reload script added to HTML pages. The ETag is derived from the
    /// file's and from this preview's, so it is strong for exactly these bytes.
    pub fn adapt(&self, served: Served) -> Served {
        let base_url = self.base_url();
        // The same file served by another preview (another port, another base URL, another
        // script) is another representation.
        let etag = etag_of(
            format!(
                "{} {base_url} {} {}",
                served.etag,
                self.origin,
                etag_of(self.script.as_bytes())
            )
            .as_bytes(),
        );
        // A large file is rewritten as it is sent, a chunk at a time (HTML pages are small).
        let Some(original) = served.small_bytes() else {
            return served
                .rewritten(&base_url, &self.origin, etag)
                .unwrap_or_else(|served| served);
        };
        let mut bytes = match super::rebase::rewrite(&original, &base_url, &self.origin) {
            Some(rewritten) => rewritten,
            None => original.to_vec(),
        };
        if served.path.ends_with(".html") {
            add_script(&mut bytes);
        }
        Served::with_bytes(served.path, etag, Bytes::from(bytes))
    }
}

/// Inserts [`SCRIPT_TAG`] before the last `</body>` (or at the end).
fn add_script(html: &mut Vec<u8>) {
    let at = memchr::memmem::rfind(html, b"</body>").unwrap_or(html.len());
    html.splice(at..at, SCRIPT_TAG.bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview() -> PreviewState {
        PreviewState::new(
            "https://a.example",
            "http://127.0.0.1:4321".into(),
            Utf8PathBuf::from("out"),
            false,
        )
    }

    fn served(path: &str, text: &str) -> Served {
        Served::with_bytes(
            path.into(),
            etag_of(text.as_bytes()),
            Bytes::copy_from_slice(text.as_bytes()),
        )
    }

    #[test]
    fn html_pages_get_local_urls_and_the_script_with_a_new_etag() {
        let file = served(
            "developers/index.html",
            "<html><body><a href=\"https://a.example/api/index.json\">i</a></body></html>",
        );
        let etag = file.etag.clone();
        let again = served(
            &file.path,
            std::str::from_utf8(&file.small_bytes().unwrap()).unwrap(),
        );
        let adapted = preview().adapt(file);
        assert_eq!(
            &adapted.small_bytes().unwrap()[..],
            b"<html><body><a href=\"http://127.0.0.1:4321/api/index.json\">i</a><script src=\"/__preview.js\" defer></script>\n</body></html>"
        );
        assert_ne!(adapted.etag, etag);
        assert_eq!(adapted.etag, preview().adapt(again).etag, "deterministic");
    }

    #[test]
    fn another_origin_is_another_etag_and_json_gets_no_script() {
        let file = served("api/index.json", "{\"u\":\"https://a.example/api\"}");
        let same = served(
            &file.path,
            std::str::from_utf8(&file.small_bytes().unwrap()).unwrap(),
        );
        let here = preview().adapt(same);
        let there = PreviewState::new(
            "https://a.example",
            "http://127.0.0.1:4322".into(),
            Utf8PathBuf::from("out"),
            false,
        )
        .adapt(file);
        assert_eq!(
            &here.small_bytes().unwrap()[..],
            b"{\"u\":\"http://127.0.0.1:4321/api\"}"
        );
        assert_ne!(here.etag, there.etag);
    }

    #[test]
    fn beside_a_site_the_landing_page_moves_and_the_script_knows_where() {
        let shared = PreviewState::new(
            "https://a.example",
            "http://localhost:4321".into(),
            Utf8PathBuf::from("/nonexistent-out"),
            true,
        );
        assert!(shared.route("/", false).is_none(), "/ is the site's");
        assert!(
            shared.route("/favicon.ico", false).is_none(),
            "so is its favicon"
        );
        assert!(shared.route(LANDING_PATH_SHARED, false).is_some());
        assert!(
            shared
                .script
                .contains("const LANDING = \"/__content-api/\";")
        );
        assert!(preview().script.contains("const LANDING = \"/\";"));
    }

    #[test]
    fn diagnostics_are_stored_only_when_they_change() {
        let preview = preview();
        let one: Arc<[DiagnosticView]> = Arc::from([DiagnosticView {
            severity: "error",
            path: "blog/en/x.md".into(),
            line: Some(2),
            column: Some(1),
            message: "bad".into(),
            rendered: "error: bad".into(),
        }]);
        assert!(preview.set_diagnostics(one.clone()));
        assert!(!preview.set_diagnostics(one));
        assert!(preview.set_diagnostics(Arc::from([])));
    }
}
