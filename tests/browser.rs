//! The preview in a real headless browser (Debian `chromium`, driven over the DevTools
//! protocol, see `browser/cdp.rs`): `content-api serve` on a copy of the sample site.
//!
//! - the landing page loads with no console error, shows a content error as soon as a file
//!   breaks and its fix as soon as it is fixed, without a reload;
//! - the developer portal loads with no console error, has an example response per operation,
//!   has no horizontal scroll on a 390 px phone, reloads by itself when its file changes, and
//!   shows a content error over the page until it is fixed.
//!
//! Skipped when no chromium is installed, unless `CONTENT_API_REQUIRE_BROWSER` is set (CI).
//! With `CONTENT_API_SCREENSHOTS=DIR`, screenshots of both pages (1280 px desktop, 390 px
//! phone) are written to DIR (the ones in `docs/` come from there).

mod browser {
    pub mod cdp;
}
mod common;

use browser::cdp::{Browser, Page, chromium};
use common::Preview;
use std::path::Path;

const NEWEST_POST: &str = "blog/en/2026-11-08_a-remote-week-in-salento.md";

/// Writes the page's screenshot to `$CONTENT_API_SCREENSHOTS/name` when that is set.
fn screenshot(page: &mut Page<'_>, name: &str) {
    if let Some(dir) = std::env::var_os("CONTENT_API_SCREENSHOTS") {
        // Let the last layout and paint settle.
        page.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))");
        page.screenshot(&Path::new(&dir).join(name));
    }
}

fn assert_no_console_errors(page: &mut Page<'_>, what: &str) {
    let errors = page.console_errors();
    assert!(errors.is_empty(), "{what}: console errors: {errors:#?}");
}

#[test]
fn the_landing_page_shows_a_content_error_then_its_fix_without_a_reload() {
    let Some(binary) = chromium() else { return };
    let preview = Preview::start();
    let mut browser = Browser::launch(&binary);
    let mut page = browser.new_page();
    page.viewport(1280, 900, false);
    page.goto(&format!("{}/", preview.origin()));
    page.wait_for(
        "document.getElementById('content-api-live').textContent === 'live'",
        "the live badge (the event stream is connected)",
    );
    for href in [
        "/developers/",
        "/api/index.json",
        "/openapi.json",
        "/llms.txt",
    ] {
        assert_eq!(
            page.eval(&format!(
                "!!document.querySelector('nav a[href=\"{href}\"]')"
            )),
            true,
            "a link to {href}"
        );
    }
    let documents = page.eval("document.querySelectorAll('#documents li a').length");
    assert!(documents.as_u64().unwrap() > 50, "{documents}");
    assert_eq!(
        page.eval("document.getElementById('diagnostics').dataset.errors"),
        "0"
    );
    assert_no_console_errors(&mut page, "the landing page");
    screenshot(&mut page, "preview-desktop.png");
    // A marker that a reload would lose.
    page.eval("window.__notReloaded = true");

    preview.edit(NEWEST_POST, |text| {
        text.replacen("pubDate: 2026-11-08", "pubDate: 2026-13-45", 1)
    });
    page.wait_for(
        "document.getElementById('diagnostics').dataset.errors === '1'",
        "the error to appear",
    );
    let shown = page.eval("document.getElementById('diagnostics').innerText");
    let shown = shown.as_str().unwrap();
    assert!(shown.contains(NEWEST_POST), "{shown}");
    assert!(
        shown.contains("2026-13-45"),
        "the source line is shown: {shown}"
    );
    assert_eq!(
        page.eval("window.__notReloaded === true"),
        true,
        "no reload"
    );
    screenshot(&mut page, "preview-error-desktop.png");
    page.viewport(390, 844, true);
    screenshot(&mut page, "preview-error-phone.png");
    assert_eq!(
        page.eval("document.documentElement.scrollWidth <= window.innerWidth"),
        true,
        "the landing page fits a 390 px phone"
    );

    preview.edit(NEWEST_POST, |text| {
        text.replacen("pubDate: 2026-13-45", "pubDate: 2026-11-08", 1)
    });
    page.wait_for(
        "document.getElementById('diagnostics').dataset.errors === '0'",
        "the fix to clear the error",
    );
    assert_eq!(
        page.eval("window.__notReloaded === true"),
        true,
        "no reload"
    );
    assert!(
        page.eval("document.getElementById('rebuilds').innerText")
            .as_str()
            .unwrap()
            .contains("wrote"),
        "the rebuilds are listed"
    );
    screenshot(&mut page, "preview-phone.png");
    assert_no_console_errors(&mut page, "the landing page after the edits");
}

#[test]
fn the_portal_fits_a_phone_shows_examples_and_reloads_itself() {
    let Some(binary) = chromium() else { return };
    let preview = Preview::start();
    let mut browser = Browser::launch(&binary);
    let mut page = browser.new_page();
    page.viewport(390, 844, true);
    page.goto(&format!("{}/developers/", preview.origin()));
    assert_no_console_errors(&mut page, "the portal");
    assert_eq!(
        page.eval("document.documentElement.scrollWidth <= window.innerWidth"),
        true,
        "no horizontal page scroll at 390 px (scrollWidth {})",
        page.eval("document.documentElement.scrollWidth")
    );
    assert_eq!(page.eval("window.innerWidth"), 390);
    // Every example response is the built file's, with the local address in its URLs.
    let examples = page.eval(
        "[...document.querySelectorAll('pre code')].map(c => c.textContent).filter(t => t.trimStart().startsWith('{') || t.trimStart().startsWith('['))",
    );
    let examples = examples.as_array().unwrap();
    assert!(examples.len() >= 8, "{examples:#?}");
    assert!(
        examples
            .iter()
            .any(|e| e.as_str().unwrap().contains(preview.origin())),
        "URLs point at the preview"
    );
    assert!(
        examples
            .iter()
            .all(|e| !e.as_str().unwrap().contains("lucia-montoya.example")),
        "no production URL left in what the preview shows"
    );
    page.eval("document.getElementById('endpoints').scrollIntoView()");
    screenshot(&mut page, "portal-phone.png");
    page.eval("document.getElementById('listPosts').scrollIntoView()");
    screenshot(&mut page, "portal-example-phone.png");
    page.viewport(1280, 900, false);
    page.eval("document.getElementById('endpoints').scrollIntoView()");
    screenshot(&mut page, "portal-desktop.png");

    // A new title for the newest post changes the listPosts example, so the portal's file:
    // the page reloads by itself.
    page.eval("window.__notReloaded = true");
    preview.edit(NEWEST_POST, |text| {
        text.replacen(
            "title: \"A Remote Week in Salento\"",
            "title: \"A Remote Week in Salento, Revisited\"",
            1,
        )
    });
    page.wait_for(
        "window.__notReloaded !== true && document.readyState === 'complete' && document.body.innerText.includes('Salento, Revisited')",
        "the portal to reload with the new example",
    );
    assert_no_console_errors(&mut page, "the portal after its reload");

    // A content error shows over the portal (as Vite's overlay does), and goes with its fix.
    preview.edit(NEWEST_POST, |text| {
        text.replacen("pubDate: 2026-11-08", "pubDate: 2026-13-45", 1)
    });
    page.wait_for(
        "document.getElementById('content-api-overlay')?.innerText.includes('2026-13-45')",
        "the error overlay on the portal",
    );
    preview.edit(NEWEST_POST, |text| {
        text.replacen("pubDate: 2026-13-45", "pubDate: 2026-11-08", 1)
    });
    page.wait_for(
        "!document.getElementById('content-api-overlay')",
        "the overlay to go with the fix",
    );
    assert_no_console_errors(&mut page, "the portal after the error and its fix");
}
