//! The landing page at `/`: where the author starts. Links to the portal, the API index and
//! every published document; the content's current errors first (as Astro's and Vite's error
//! overlays do); the latest rebuilds. Rendered on each request from the server's state and the
//! manifest; the live-reload script swaps in a fresh copy after every event.

use super::{LoggedRebuild, SCRIPT_TAG};
use crate::html::{self, module_script_tag};
use crate::paths::MCP_TOOLS_MODULE;
use crate::write::Manifest;
use crate::{DiagnosticView, PendingList};
use camino::Utf8Path;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The id of the part of the page the script replaces.
pub const ROOT_ID: &str = "content-api-preview";

/// Groups with more documents than this start folded.
const OPEN_GROUP_LIMIT: usize = 40;

/// Changed URLs listed per rebuild.
const CHANGED_SHOWN: usize = 6;

const STYLE: &str = "\
*{box-sizing:border-box}\
body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;color:#1b1b1b;background:#fafafa}\
main{max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem}\
h1{margin:.5rem 0 0;font-size:1.6rem}h2{font-size:1.2rem;margin:2rem 0 .5rem}\
a{color:#0b57d0}code,pre{font-family:ui-monospace,monospace;font-size:.9em}\
code{overflow-wrap:anywhere}\
.status{display:inline-block;font-size:.8rem;padding:.1rem .5rem;border-radius:1rem;background:#ddd;vertical-align:middle}\
.status.live{background:#d6f5dd;color:#0a5c1f}\
nav ul{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}\
nav a{display:inline-block;padding:.4rem .8rem;border:1px solid #c8d3e6;border-radius:.4rem;background:#fff;text-decoration:none}\
.ok{padding:.6rem .9rem;border-left:4px solid #1e8e3e;background:#e9f6ec}\
.diagnostic{margin:.75rem 0;border-left:4px solid #d93025;background:#fff;box-shadow:0 1px 3px #0002}\
.diagnostic.warning{border-color:#e37400}\
.diagnostic h3{margin:0;padding:.5rem .9rem;font-size:1rem;background:#fce8e6;overflow-wrap:anywhere}\
.diagnostic.warning h3{background:#fef7e0}\
.diagnostic pre{margin:0;padding:.75rem .9rem;white-space:pre-wrap;overflow-wrap:anywhere;background:#1e1e1e;color:#f0f0f0}\
ol.rebuilds{padding-left:1.25rem}ol.rebuilds li{margin:.25rem 0}\
ul.upcoming{padding-left:1.25rem}ul.upcoming li{margin:.25rem 0;overflow-wrap:anywhere}\
details{margin:.25rem 0}summary{cursor:pointer}\
ul.documents{columns:18rem;padding-left:1.25rem}ul.documents li{break-inside:avoid}\
.muted{color:#5f6368}";

pub struct Landing<'a> {
    pub base_url: &'a str,
    pub origin: &'a str,
    pub out_dir: &'a Utf8Path,
    pub diagnostics: &'a [DiagnosticView],
    pub schedule: &'a PendingList,
    pub rebuilds: &'a [LoggedRebuild],
}

impl Landing<'_> {
    pub fn render(&self) -> String {
        let documents: Vec<String> = Manifest::load(self.out_dir)
            .paths()
            .filter(|path| is_served_file(path))
            .map(str::to_string)
            .collect();
        let mut out = String::with_capacity(16 * 1024 + documents.len() * 120);
        out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        out.push_str("<title>content-api preview</title>\n<link rel=\"icon\" href=\"data:,\">\n");
        // The site's browser tools (WebMCP), as a page of the site registers them.
        let _ = writeln!(
            out,
            "{}",
            module_script_tag(&format!("/{MCP_TOOLS_MODULE}"))
        );
        let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
        let _ = writeln!(out, "<main id=\"{ROOT_ID}\">");
        self.header(&mut out, &documents);
        self.diagnostics(&mut out);
        self.schedule(&mut out);
        self.rebuilds(&mut out);
        documents_section(&mut out, &documents);
        out.push_str("</main>\n");
        out.push_str(SCRIPT_TAG);
        out.push_str("</body>\n</html>\n");
        out
    }

    fn header(&self, out: &mut String, documents: &[String]) {
        let _ = writeln!(
            out,
            "<h1>content-api preview <span class=\"status\" id=\"content-api-live\">connecting…</span></h1>\n\
             <p class=\"muted\">Serving the output folder <code>{}</code> at <code>{}</code>. \
             URLs in what this server sends point here; the files themselves keep the production \
             base URL <code>{}</code>.</p>",
            html::escape(self.out_dir.as_str()),
            html::escape(self.origin),
            html::escape(self.base_url),
        );
        let links = [
            ("developers/index.html", "/developers/", "Developer portal"),
            ("api/index.json", "/api/index.json", "API index"),
            ("openapi.json", "/openapi.json", "OpenAPI"),
            ("llms.txt", "/llms.txt", "llms.txt"),
        ];
        out.push_str("<nav><ul>\n");
        for (file, href, text) in links {
            if documents.iter().any(|d| d == file) {
                let _ = writeln!(out, "<li><a href=\"{href}\">{text}</a></li>");
            }
        }
        out.push_str("</ul></nav>\n");
    }

    fn diagnostics(&self, out: &mut String) {
        let errors = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == "error")
            .count();
        let warnings = self.diagnostics.len() - errors;
        let _ = writeln!(
            out,
            "<section id=\"diagnostics\" data-errors=\"{errors}\">\n<h2>Content errors ({errors}){}</h2>",
            if warnings > 0 {
                format!(" and warnings ({warnings})")
            } else {
                String::new()
            }
        );
        if self.diagnostics.is_empty() {
            out.push_str(
                "<p class=\"ok\">No errors: every file in the content folder builds.</p>\n",
            );
        } else if errors > 0 {
            out.push_str("<p>Files with errors keep their last good version published until they are fixed. Save a fix: this page updates by itself.</p>\n");
        }
        for d in self.diagnostics {
            let position = match (d.line, d.column) {
                (Some(line), Some(column)) => format!("{}:{line}:{column}", d.path),
                (Some(line), None) => format!("{}:{line}", d.path),
                _ => d.path.clone(),
            };
            let _ = writeln!(
                out,
                "<article class=\"diagnostic {}\"><h3><code>{}</code> {}</h3><pre>{}</pre></article>",
                d.severity,
                html::escape(&position),
                html::escape(&d.message),
                html::escape(d.rendered.trim_end()),
            );
        }
        out.push_str("</section>\n");
    }

    /// What will go live: scheduled content with the date it does, then drafts.
    fn schedule(&self, out: &mut String) {
        let schedule = self.schedule;
        let drafts = schedule.entries.iter().filter(|p| p.draft).count();
        let scheduled = schedule.entries.len() - drafts;
        let _ = writeln!(
            out,
            "<section id=\"upcoming\" data-scheduled=\"{scheduled}\" data-drafts=\"{drafts}\">\n<h2>Scheduled ({scheduled}) and drafts ({drafts})</h2>"
        );
        if schedule.entries.is_empty() {
            out.push_str("<p class=\"muted\">Nothing scheduled and no drafts: every post and deck is live.</p>\n</section>\n");
            return;
        }
        let shown = |on: bool, flag: &str| {
            if on {
                format!("this preview shows them (<code>{flag}</code>)")
            } else {
                format!("not in this preview (<code>content-api serve {flag}</code> shows them)")
            }
        };
        let _ = writeln!(
            out,
            "<p class=\"muted\">A scheduled post or deck goes live at midnight in {} on its date (a running <code>serve</code> or <code>watch</code> publishes it then, CI at its next build); {}. A draft goes live once its <code>draft: true</code> is removed; {}.</p>",
            html::escape(&schedule.timezone),
            shown(schedule.future_shown, "--future"),
            shown(schedule.drafts_shown, "--drafts"),
        );
        out.push_str("<ul class=\"upcoming\">\n");
        // Scheduled first (soonest first), then drafts (newest first).
        let scheduled_entries = schedule.entries.iter().filter(|p| !p.draft);
        let draft_entries = schedule.entries.iter().rev().filter(|p| p.draft);
        for pending in scheduled_entries.chain(draft_entries) {
            let (class, when) = if pending.draft {
                ("draft", format!("draft (dated {})", pending.date))
            } else {
                ("scheduled", format!("goes live {}", pending.date))
            };
            let _ = writeln!(
                out,
                "<li class=\"{class}\"><time datetime=\"{}\">{}</time> · {}, {}: <strong>{}</strong> <code>{}</code></li>",
                html::escape(&pending.date),
                html::escape(&when),
                pending.kind,
                pending.lang,
                html::escape(&pending.title),
                html::escape(&pending.path),
            );
        }
        out.push_str("</ul>\n</section>\n");
    }

    fn rebuilds(&self, out: &mut String) {
        out.push_str("<section id=\"rebuilds\">\n<h2>Latest rebuilds</h2>\n");
        if self.rebuilds.is_empty() {
            out.push_str("<p class=\"muted\">None since the server started. Edit a file in the content folder.</p>\n");
        } else {
            out.push_str("<ol class=\"rebuilds\">\n");
            for logged in self.rebuilds {
                let r = &logged.rebuild;
                let _ = write!(
                    out,
                    "<li><time datetime=\"{}\">{}</time> UTC: wrote {}",
                    logged.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                    logged.at.format("%H:%M:%S"),
                    count(r.changed.len(), "file"),
                );
                if !r.removed.is_empty() {
                    let _ = write!(out, ", removed {}", count(r.removed.len(), "file"));
                }
                let shown: Vec<String> = r
                    .changed
                    .iter()
                    .take(CHANGED_SHOWN)
                    .map(|url| format!("<a href=\"{0}\">{0}</a>", html::escape(url)))
                    .collect();
                if !shown.is_empty() {
                    let more = r.changed.len().saturating_sub(CHANGED_SHOWN);
                    let _ = write!(out, ": {}", shown.join(", "));
                    if more > 0 {
                        let _ = write!(out, " and {more} more");
                    }
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ol>\n");
        }
        out.push_str("</section>\n");
    }
}

fn documents_section(out: &mut String, documents: &[String]) {
    let _ = writeln!(
        out,
        "<section id=\"documents\">\n<h2>Documents ({})</h2>",
        documents.len()
    );
    if documents.is_empty() {
        out.push_str("<p class=\"muted\">Nothing is published yet: the content has errors (see above).</p>\n");
    }
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for path in documents {
        let group = match path.split_once('/') {
            Some((folder, _)) => folder,
            None => "",
        };
        groups.entry(group).or_default().push(path);
    }
    for (group, paths) in groups {
        let open = if paths.len() <= OPEN_GROUP_LIMIT {
            " open"
        } else {
            ""
        };
        let title = if group.is_empty() {
            "/ (site root)".to_string()
        } else {
            format!("/{group}/")
        };
        let _ = writeln!(
            out,
            "<details{open}><summary>{} ({})</summary><ul class=\"documents\">",
            html::escape(&title),
            paths.len()
        );
        for path in paths {
            let _ = writeln!(
                out,
                "<li><a href=\"/{0}\">/{0}</a></li>",
                html::escape(path)
            );
        }
        out.push_str("</ul></details>\n");
    }
    out.push_str("</section>\n");
}

/// Files this server answers: not the host's configuration, not the tool's state, and under
/// `api/` only JSON (`api/404.html` is for static hosts).
pub fn is_served_file(path: &str) -> bool {
    !crate::http::HOST_FILES.contains(&path)
        && !path.starts_with(".content-api/")
        && (!path.starts_with("api/") || path.ends_with(".json"))
}

fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rebuild;

    #[test]
    fn errors_come_first_escaped_with_their_position_and_full_text() {
        let diagnostics = [DiagnosticView {
            severity: "error",
            path: "blog/en/2024-01-01_x.md".into(),
            line: Some(3),
            column: Some(8),
            message: "`title` must be a string <b>".into(),
            rendered: "error: `title` must be a string\n --> blog/en/2024-01-01_x.md:3:8".into(),
        }];
        let rebuilds = [LoggedRebuild {
            at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
            rebuild: Rebuild {
                changed: vec!["/api/posts.json".into()],
                removed: vec![],
                lane: "api",
            },
        }];
        let page = Landing {
            base_url: "https://a.example",
            origin: "http://127.0.0.1:4321",
            out_dir: Utf8Path::new("/nonexistent-out"),
            diagnostics: &diagnostics,
            schedule: &PendingList {
                entries: vec![
                    content_api_contract::preview::PendingEntry {
                        draft: false,
                        kind: "post",
                        lang: "en",
                        path: "blog/en/2026-12-01_soon.md".into(),
                        date: "2026-12-01".into(),
                        title: "Soon <3".into(),
                    },
                    content_api_contract::preview::PendingEntry {
                        draft: true,
                        kind: "deck",
                        lang: "es",
                        path: "slides/es/2026-11-01_wip.md".into(),
                        date: "2026-11-01".into(),
                        title: "WIP".into(),
                    },
                ],
                timezone: "America/Bogota".into(),
                drafts_shown: false,
                future_shown: true,
            },
            rebuilds: &rebuilds,
        }
        .render();
        assert!(page.contains("data-errors=\"1\""));
        // The page tells the author what happens to a broken file in plain words.
        assert!(page.contains("<p>Files with errors keep their last good version published"));
        assert!(page.contains(
            "<code>blog/en/2024-01-01_x.md:3:8</code> `title` must be a string &lt;b&gt;"
        ));
        assert!(page.contains("--&gt; blog/en/2024-01-01_x.md:3:8"));
        assert!(page.contains("00:00:00</time> UTC: wrote 1 file: <a href=\"/api/posts.json\">"));
        assert!(page.contains("Nothing is published yet"));
        assert!(page.contains(SCRIPT_TAG));
        assert!(page.contains("data-scheduled=\"1\" data-drafts=\"1\""));
        assert!(
            page.contains("goes live 2026-12-01</time> · post, en: <strong>Soon &lt;3</strong>")
        );
        assert!(page.contains("draft (dated 2026-11-01)</time> · deck, es"));
        assert!(page.contains("midnight in America/Bogota"));
        assert!(page.contains("this preview shows them (<code>--future</code>)"));
        assert!(page.contains("<code>content-api serve --drafts</code> shows them"));
    }
}
