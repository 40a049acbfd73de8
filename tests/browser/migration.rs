//! The migration guide's edits, checked in Chromium: a site that read its own
//! hand-written API shows the same deck badges and search-card chips once content-api answers
//! its `/api/` paths and the guide's edits are applied.
//!
//! `tests/fixtures/migration-site/` is that site: a page rendering the slide timeline's type
//! badges and the search cards' tag chips the way the seed site's components do, and the
//! old API's JSON for the bundled sample content in `api/`. It is served three ways:
//!
//! - before: the site alone, by a static server ([`StaticSite`]), on its own `api/`;
//! - unedited: `content-api serve --site` in front of it (the contract's API), the page as it
//!   was: badges go empty and chips show twice, the failures the guide is for;
//! - after: the same, with `?edits=applied` (the guide's edits, `contract-edits.js`).
//!
//! Before and after must show the same text, card for card, in both languages; and the
//! fixture's edits must be the guide's, expression for expression.

use super::cdp::{Browser, Page, chromium};
use crate::common::{Preview, repo};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The guide, whose snippets `contract-edits.js` applies.
const GUIDE: &str = "docs/migrating-from-a-hand-written-api.md";

/// The two edits, as both the guide and `contract-edits.js` write them.
const EDITS: [&str; 2] = [
    "type: deck.type === 'internal' || deck.type === 'native' ? 'native' : 'external',",
    "topics: post.topics.filter((topic) => !post.subtopics.includes(topic)),",
];

/// What a card shows, as a reader reads it: the deck badges and titles, and each search card's
/// title, series position and chips, in page order.
const RENDERED: &str = r#"({
  decks: [...document.querySelectorAll('#decks article')].map((card) => ({
    title: card.querySelector('h3').textContent,
    badge: card.querySelector('.badge').textContent,
    provider: card.querySelector('.provider')?.textContent ?? null,
  })),
  posts: [...document.querySelectorAll('#posts article')].map((card) => ({
    title: card.querySelector('h3').textContent,
    series: card.querySelector('.series')?.textContent ?? null,
    chips: [...card.querySelectorAll('.chips a')].map((chip) => chip.textContent),
  })),
})"#;

/// The site before content-api: its files, its own `api/` included, over plain HTTP/1.1 on
/// 127.0.0.1 (a host serving the static build). Stops when dropped.
struct StaticSite {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl StaticSite {
    fn start(root: PathBuf) -> StaticSite {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        std::thread::spawn(move || {
            while !stopping.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        let root = root.clone();
                        std::thread::spawn(move || answer(stream, &root));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        StaticSite { port, stop }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One request on a connection, then close: `200` with the file (`/` is `index.html`), or `404`.
fn answer(stream: TcpStream, root: &Path) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // The rest of the head: nothing in it changes the answer.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let target = request_line.split(' ').nth(1).unwrap_or("/");
    let path = target.split('?').next().unwrap_or("/");
    let relative = match path.trim_start_matches('/') {
        "" => "index.html",
        other => other,
    };
    let file = root.join(relative);
    let found = !relative.contains("..") && file.is_file();
    let (status, body, media_type) = if found {
        let media_type = match file.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("json") => "application/json",
            _ => "application/octet-stream",
        };
        ("200 OK", std::fs::read(&file).unwrap(), media_type)
    } else {
        ("404 Not Found", b"not found".to_vec(), "text/plain")
    };
    let mut stream = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {media_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// The page at `url`, rendered: its cards as [`RENDERED`] reads them.
fn rendered(page: &mut Page<'_>, url: &str) -> Value {
    page.goto(url);
    page.wait_for(
        "document.body.dataset.rendered !== undefined",
        &format!("{url} to render"),
    );
    assert_eq!(
        page.eval("document.body.dataset.rendered"),
        "true",
        "{url}: {}",
        page.eval("document.getElementById('heading').textContent")
    );
    page.eval(RENDERED)
}

fn cards<'v>(shown: &'v Value, list: &str) -> &'v Vec<Value> {
    shown[list].as_array().unwrap()
}

fn empty_badges(shown: &Value) -> Vec<String> {
    cards(shown, "decks")
        .iter()
        .filter(|deck| deck["badge"] == "")
        .map(|deck| deck["title"].to_string())
        .collect()
}

/// The search cards that show a chip twice.
fn repeated_chips(shown: &Value) -> Vec<String> {
    cards(shown, "posts")
        .iter()
        .filter(|post| {
            // A subtopic's chip reads `›name`; the same tag as a topic chip reads `name`.
            let chips: Vec<&str> = post["chips"]
                .as_array()
                .unwrap()
                .iter()
                .map(|chip| chip.as_str().unwrap().trim_start_matches(['#', '›']))
                .collect();
            (1..chips.len()).any(|i| chips[..i].contains(&chips[i]))
        })
        .map(|post| post["title"].to_string())
        .collect()
}

#[test]
fn the_fixture_applies_the_guides_edits_as_written() {
    let guide = std::fs::read_to_string(repo().join(GUIDE)).unwrap();
    let fixture =
        std::fs::read_to_string(repo().join("tests/fixtures/migration-site/contract-edits.js"))
            .unwrap();
    for edit in EDITS {
        assert!(guide.contains(edit), "{GUIDE} lacks `{edit}`");
        assert!(fixture.contains(edit), "contract-edits.js lacks `{edit}`");
    }
}

#[test]
fn the_guides_edits_keep_the_seed_sites_deck_badges_and_search_chips() {
    let Some(binary) = chromium() else { return };
    let site = StaticSite::start(repo().join("tests/fixtures/migration-site"));
    let preview = Preview::start_with(&["--site", &site.origin()]);
    let mut browser = Browser::launch(&binary);
    let mut page = browser.new_page();
    page.viewport(1280, 900, false);
    for lang in ["en", "es"] {
        let before = rendered(
            &mut page,
            &format!("{}/?lang={lang}&edits=none", site.origin()),
        );
        let unedited = rendered(
            &mut page,
            &format!("{}/?lang={lang}&edits=none", preview.origin()),
        );
        let after = rendered(
            &mut page,
            &format!("{}/?lang={lang}&edits=applied", preview.origin()),
        );

        // What the site showed: every deck has its badge, no card repeats a chip, and there is
        // something of each kind to compare.
        assert!(cards(&before, "decks").len() >= 2, "{lang}: {before:#}");
        assert!(empty_badges(&before).is_empty(), "{lang}: {before:#}");
        assert!(repeated_chips(&before).is_empty(), "{lang}: {before:#}");
        let subtopic_chips = cards(&before, "posts")
            .iter()
            .flat_map(|post| post["chips"].as_array().unwrap())
            .filter(|chip| chip.as_str().unwrap().starts_with('›'))
            .count();
        assert!(subtopic_chips > 0, "{lang}: no subtopic to compare");

        // The contract's API read by the unchanged page: what breaks without the guide's edits.
        assert_eq!(
            empty_badges(&unedited).len(),
            cards(&unedited, "decks").len(),
            "{lang}: every contract deck type is unknown to the unedited page: {unedited:#}"
        );
        assert!(
            !repeated_chips(&unedited).is_empty(),
            "{lang}: the unedited page shows subtopics twice: {unedited:#}"
        );

        // With the guide's edits: what the site showed, card for card.
        assert_eq!(after, before, "{lang}: the page after the guide's edits");
    }
    let errors = page.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:#?}");
}
