//! The preview in a real headless browser (Debian `chromium`, driven over the DevTools
//! protocol, see `browser/cdp.rs`): `content-api serve` on a copy of the sample site.
//!
//! - the landing page loads with no console error, shows a content error as soon as a file
//!   breaks and its fix as soon as it is fixed, without a reload;
//! - the developer portal loads with no console error, has an example response per operation,
//!   has no horizontal scroll on a 390 px phone, reloads by itself when its file changes, and
//!   shows a content error over the page until it is fixed;
//! - a site that read its own hand-written API shows the same deck badges and search chips on
//!   content-api's API once the migration guide's edits are applied (`browser/migration.rs`).
//!
//! Without chromium, they follow `common::need`'s rule.
//! With `CONTENT_API_SCREENSHOTS=DIR`, screenshots of both pages (1280 px desktop, 390 px
//! phone) are written to DIR (the ones in `docs/` come from there).

pub mod cdp;
mod migration;

use crate::common::Preview;
use cdp::{Browser, Page, chromium};
use std::path::Path;

const NEWEST_POST: &str = "blog/en/2026-11-08_a-remote-week-in-salento.md";

/// The text of the error overlay (in its shadow root), or `undefined` while there is none.
const OVERLAY_TEXT: &str =
    "document.getElementById('content-api-overlay')?.shadowRoot?.querySelector('.box')?.innerText";

/// A function of an element or shadow root that holds error text: the lowest WCAG contrast
/// ratio of any of its text against the background it is painted on (the page's and the
/// element's backgrounds composited, as the browser computed them), and where the first
/// `help:` line is once the element holding it is scrolled into view: its boxes, whether they
/// are inside the viewport and every box that clips them, and whether the help is what is
/// painted at its centre.
const READABILITY: &str = r#"(root) => {
  const rgba = (css) => {
    const [r, g, b, a] = css.match(/rgba?\(([^)]*)\)/)[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const up = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const background = (e) => {
    const layers = [];
    for (let n = e; n; n = up(n)) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    return layers.reverse().reduce((under, layer) => over(layer, under), [255, 255, 255, 1]);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  let lowest = null;
  let help = null;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    if (!text.textContent.trim()) continue;
    const e = text.parentElement;
    const style = getComputedStyle(e);
    if (style.display === "none" || style.visibility === "hidden") continue;
    const bg = background(e);
    const ratio = contrast(over(rgba(style.color), bg), bg);
    if (!lowest || ratio < lowest.ratio) {
      lowest = { ratio, text: text.textContent.trim().slice(0, 80), color: style.color, background: `rgb(${bg.slice(0, 3).map(Math.round).join(", ")})` };
    }
    if (!help && text.textContent.includes("help:")) help = text;
  }
  if (!help) return { lowest, help: null };
  help.parentElement.scrollIntoView({ block: "end", inline: "nearest" });
  const start = help.textContent.indexOf("help:");
  const newline = help.textContent.indexOf("\n", start);
  const range = document.createRange();
  range.setStart(help, start);
  range.setEnd(help, newline < 0 ? help.textContent.length : newline);
  const boxes = [...range.getClientRects()].filter((r) => r.width > 0);
  const clips = [{ left: 0, top: 0, right: innerWidth, bottom: innerHeight }];
  for (let n = help.parentElement; n; n = up(n)) {
    const style = getComputedStyle(n);
    if (style.overflowX !== "visible" || style.overflowY !== "visible") clips.push(n.getBoundingClientRect());
  }
  const inside = boxes.length > 0 && boxes.every((b) => clips.every((c) => b.left >= c.left - 0.5 && b.right <= c.right + 0.5 && b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5));
  const centre = boxes[0] && (root.elementFromPoint ? root : document).elementFromPoint((boxes[0].left + boxes[0].right) / 2, (boxes[0].top + boxes[0].bottom) / 2);
  return {
    lowest,
    help: {
      text: range.toString(),
      boxes: boxes.map((b) => [Math.round(b.left), Math.round(b.top), Math.round(b.right), Math.round(b.bottom)]),
      inside,
      painted: !!centre && (centre === help.parentElement || help.parentElement.contains(centre)),
      width: innerWidth,
    },
  };
}"#;

/// Checks the error text under `root` (a JavaScript expression) is readable: contrast at
/// least 4.5:1 (WCAG AA) everywhere, and the whole `help:` line visible.
fn assert_readable(page: &mut Page<'_>, root: &str, what: &str) {
    let report = page.eval(&format!("({READABILITY})({root})"));
    let ratio = report["lowest"]["ratio"].as_f64().unwrap_or(0.0);
    assert!(ratio >= 4.5, "{what}: text below 4.5:1: {report:#}");
    let help = &report["help"];
    assert!(
        help["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("help: write `pubDate`")),
        "{what}: no help line: {report:#}"
    );
    assert_eq!(
        help["inside"], true,
        "{what}: the help line is cut off: {report:#}"
    );
    assert_eq!(
        help["painted"], true,
        "{what}: the help line is covered: {report:#}"
    );
}

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
        &format!("{OVERLAY_TEXT}.includes('2026-13-45')"),
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

#[test]
fn the_error_overlay_and_the_landing_page_errors_are_readable_on_a_phone_and_a_desktop() {
    let Some(binary) = chromium() else { return };
    let preview = Preview::start();
    preview.edit(NEWEST_POST, |text| {
        text.replacen("pubDate: 2026-11-08", "pubDate: 2026-13-45", 1)
    });
    let mut browser = Browser::launch(&binary);
    let mut page = browser.new_page();
    // The overlay on every kind of page it appears on: the portal (whose `pre` style once
    // painted it light on light), and the site's 404 page.
    for (path, name) in [("/developers/", "portal"), ("/404.html", "404")] {
        for (width, height, mobile, device) in
            [(390, 844, true, "phone"), (1280, 900, false, "desktop")]
        {
            page.viewport(width, height, mobile);
            page.goto(&format!("{}{path}", preview.origin()));
            page.wait_for(
                &format!("{OVERLAY_TEXT}?.includes('2026-13-45')"),
                "the error overlay",
            );
            assert_readable(
                &mut page,
                "document.getElementById('content-api-overlay').shadowRoot",
                &format!("the overlay on {path} at {width} px"),
            );
            assert_no_console_errors(&mut page, path);
            if name == "portal" {
                screenshot(&mut page, &format!("overlay-portal-{device}.png"));
            }
        }
    }
    // The landing page's own list of errors, at both widths.
    for (width, height, mobile) in [(390, 844, true), (1280, 900, false)] {
        page.viewport(width, height, mobile);
        page.goto(&format!("{}/", preview.origin()));
        page.wait_for(
            "document.getElementById('diagnostics').dataset.errors === '1'",
            "the error on the landing page",
        );
        assert_readable(
            &mut page,
            "document.getElementById('diagnostics')",
            &format!("the landing page at {width} px"),
        );
    }
}
