//! The checks of the documents and pages: discovery documents and their media types, Markdown
//! negotiation, and what no request may reach (traversal, hidden and host files).
//!
//! The contract asks that each discovery document answers at its path, and that `Accept:
//! text/markdown` (or `.md` appended) returns a page's Markdown. Its header rules are its
//! endpoints'; the one-hour cache and open CORS on documents, exact media types, negotiation by
//! quality values and `Vary` are this tool's policy (warnings). A document the site keeps as its
//! own, and Markdown its own code answers, are the site's choice (notes).

use super::{
    Class, Finding, Owner, Stop, Target, expect, expect_on, get, header_is, shown, status,
};
use crate::client::Reply;
use crate::documents::{OUTPUT_DOCUMENTS, Verified};

/// The discovery documents the contract asks to answer at their paths, with the media types
/// the tool serves them with: the output documents verified [`Verified::AtItsPath`]
/// (`contract::documents::OUTPUT_DOCUMENTS`), in table order.
fn discovery() -> impl Iterator<Item = (&'static str, &'static str)> {
    OUTPUT_DOCUMENTS
        .iter()
        .filter(|document| document.verified == Verified::AtItsPath)
        .map(|document| (document.path, document.media))
}

/// Where the site's own file at `path` comes from, for a fix.
fn own_file(path: &str) -> String {
    format!(
        "the site's own `{}` (in its public/ or static/ folder)",
        path.trim_start_matches('/')
    )
}

/// The `_headers` rules that apply to `path`, for a fix.
fn header_rules(path: &str) -> String {
    format!(
        "the site's `_headers` rules matching {path} (a `/*` rule matches it too; on nginx, the \
         site's `add_header`s)"
    )
}

/// The tool's caching and CORS on a document (its policy): a warning naming what to change.
pub(super) fn document_headers(t: &Target, reply: &Reply, notes: &mut Vec<Finding>) {
    let answered = super::Answered::of(reply);
    let path = answered.path.clone();
    let cache = reply.header("cache-control");
    let cors = reply.header("access-control-allow-origin");
    let want = crate::http::CACHE_CONTROL;
    if reply.status != 200 || (cache == Some(want) && cors == Some("*")) {
        return;
    }
    let why = format!(
        "Cache-Control is {} and Access-Control-Allow-Origin {}; content-api gives its documents \
         {want:?} and \"*\"",
        shown(cache),
        shown(cors)
    );
    // Only a file content-api deploys is under its `_headers` block's rules for it: a document
    // the site keeps as its own (its `llms-full.txt`) is never blamed on the tool.
    let fix = match t.owner(&answered) {
        Owner::Site => format!(
            "{} (this document is the site's own; deleting {} lets content-api write its own, \
             with its headers)",
            header_rules(&path),
            own_file(&path)
        ),
        Owner::Tool => format!(
            "{}: content-api's `_headers` block for {path} sets these; a rule of the site's \
             setting them as well joins or replaces the values",
            header_rules(&path)
        ),
        Owner::Unknown => format!(
            "{}; if {path} is {} (the site serves no deploy record that tells, or its record \
             cannot compare this file's bytes), its headers are the site's to set; if it is \
             content-api's, a rule of the site's setting them as well joins or replaces the \
             values of content-api's `_headers` block",
            header_rules(&path),
            own_file(&path)
        ),
    };
    notes.push(Finding::about(Class::Policy, reply, why).fix(fix));
}

pub(super) fn discovery_documents(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    for (path, media) in discovery() {
        let reply = get(t, path)?;
        status(&reply, 200)?;
        let owned = t.site_owns(&super::Answered::of(&reply));
        if owned {
            notes.push(
                Finding::about(
                    Class::Site,
                    &reply,
                    "the site's own document (not the bytes content-api built for this \
                     path): the build keeps the site's",
                )
                .fix(format!(
                    "{}; delete it to let content-api write its own",
                    own_file(path)
                )),
            );
        }
        let got = reply.header("content-type");
        if got != Some(media) {
            let why = format!(
                "Content-Type is {}; content-api serves it as {media:?}",
                shown(got)
            );
            notes.push(if owned {
                Finding::about(Class::Site, &reply, why).fix(header_rules(path))
            } else {
                Finding::about(Class::Policy, &reply, why).fix(header_rules(path))
            });
        }
        document_headers(t, &reply, notes);
    }
    Ok(())
}

pub(super) fn catalog_media_types(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let reply = get(t, "/.well-known/ai-catalog.json")?;
    let catalog = reply
        .json()
        .map_err(|why| Finding::about(Class::Policy, &reply, why))?;
    let entries = catalog["entries"].as_array().ok_or("no entries")?;
    for entry in entries {
        let (Some(url), Some(media)) = (entry["url"].as_str(), entry["mediaType"].as_str()) else {
            continue;
        };
        let Some(path) = url.strip_prefix(&t.base_url) else {
            continue;
        };
        let reply = get(t, path)?;
        status(&reply, 200)?;
        let got = reply.header("content-type");
        if got != Some(media) {
            let why = format!(
                "Content-Type is {}; the AI catalog declares {media:?}",
                shown(got)
            );
            let class = if t.site_owns(&super::Answered::of(&reply)) {
                Class::Site
            } else {
                Class::Policy
            };
            notes.push(Finding::about(class, &reply, why).fix(header_rules(path)));
        }
    }
    Ok(())
}

pub(super) fn api_catalog_link(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = "/.well-known/api-catalog";
    for method in ["GET", "HEAD"] {
        let reply = t.request(method, path, &[])?;
        status(&reply, 200)?;
        let link = reply.header("link").unwrap_or("");
        expect_on(
            &reply,
            link.contains("rel=\"api-catalog\"") && link.contains(path),
            || format!("{method}: Link is {}", shown(reply.header("link"))),
        )?;
    }
    Ok(())
}

/// What to change when the site's own code answers a page of the tool's.
const SITE_CODE: &str = "the site's Functions middleware (`functions/_middleware.ts`), or the \
                         site's own server rules for this path";

/// Whether the answer came from the site's own code or files rather than the tool's.
fn by_site(t: &Target, reply: &Reply) -> bool {
    let answered = super::Answered::of(reply);
    !Target::tool_answered(&answered) && !t.layer(&answered).starts_with("the host's static")
}

fn markdown(t: &Target, path: &str, twin: &str, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let want = get(t, twin)?;
    status(&want, 200)?;
    let reply = t.request("GET", path, &[("Accept", "text/markdown")])?;
    status(&reply, 200)?;
    let media = reply.header("content-type").unwrap_or("");
    expect_on(&reply, media.starts_with("text/markdown"), || {
        format!(
            "Content-Type is {}, not Markdown",
            shown(reply.header("content-type"))
        )
    })?;
    let site = by_site(t, &reply);
    if site {
        notes.push(
            Finding::about(
                Class::Site,
                &reply,
                "the site's own code answers Markdown here, by its own rule",
            )
            .fix(SITE_CODE),
        );
    }
    if media != "text/markdown; charset=utf-8" {
        notes.push(
            Finding::about(
                Class::Policy,
                &reply,
                format!(
                    "Content-Type is {}; content-api serves \"text/markdown; charset=utf-8\"",
                    shown(reply.header("content-type"))
                ),
            )
            .fix(if site {
                SITE_CODE
            } else {
                "the host's media types"
            }),
        );
    }
    if reply.body != want.body {
        let why = format!("not the body of {twin}");
        if site {
            notes.push(Finding::about(Class::Site, &reply, why).fix(SITE_CODE));
        } else {
            return Err(Finding::about(Class::Contract, &reply, why).into());
        }
    }
    Ok(())
}

pub(super) fn markdown_on_portal(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    for path in ["/developers", "/developers/", "/developers/index.html"] {
        markdown(t, path, "/developers.md", notes)?;
    }
    Ok(())
}

/// The post page the checks use, or why they cannot.
fn post(t: &Target) -> Result<&str, Stop> {
    t.post.as_deref().ok_or_else(|| {
        Stop::NotChecked("not checked: the site has no post in its default language".into())
    })
}

pub(super) fn markdown_on_post(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let post = post(t)?;
    let twin = format!("/blog/{post}.md");
    let reply = get(t, &twin)?;
    status(&reply, 200)?;
    let media = reply.header("content-type").unwrap_or("");
    expect_on(&reply, media.starts_with("text/markdown"), || {
        format!(
            "Content-Type is {}, not Markdown",
            shown(reply.header("content-type"))
        )
    })?;
    markdown(t, &format!("/blog/{post}"), &twin, notes)
}

pub(super) fn html_without_markdown(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    for path in ["/developers", "/developers/", "/developers/index.html"] {
        let reply = t.request("GET", path, &[("Accept", browser)])?;
        status(&reply, 200)?;
        let media = reply.header("content-type").unwrap_or("");
        expect_on(&reply, media.starts_with("text/html"), || {
            format!(
                "Content-Type is {}, not HTML",
                shown(reply.header("content-type"))
            )
        })?;
        if media != "text/html; charset=utf-8" {
            notes.push(Finding::about(
                Class::Policy,
                &reply,
                format!(
                    "Content-Type is {}; content-api serves \"text/html; charset=utf-8\"",
                    shown(reply.header("content-type"))
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn api_ignores_markdown(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = &t.posts_path();
    let reply = t.request("GET", path, &[("Accept", "text/markdown")])?;
    status(&reply, 200)?;
    header_is(&reply, "content-type", "application/json")?;
    Ok(())
}

/// The negotiation table (`http::NEGOTIATION_CASES`) on the portal's page: Markdown
/// exactly where the rule says so, HTML everywhere else. Returns the cases that disagree.
pub fn negotiation(t: &Target) -> Vec<String> {
    negotiate(t)
        .into_iter()
        .map(|(case, reply)| match reply {
            Some(reply) => format!(
                "{case} ({}, answered by {})",
                reply.url,
                t.layer(&super::Answered::of(&reply))
            ),
            None => case,
        })
        .collect()
}

/// The cases that disagree, with the answer when there was one.
fn negotiate(t: &Target) -> Vec<(String, Option<Reply>)> {
    let twin = match get(t, "/developers.md") {
        Ok(reply) if reply.status == 200 => reply.body,
        Ok(reply) => {
            let case = format!("/developers.md: status {}", reply.status);
            return vec![(case, Some(reply))];
        }
        Err(err) => return vec![(format!("/developers.md: {err}"), None)],
    };
    let mut failures = Vec::new();
    for (accept, markdown) in crate::http::NEGOTIATION_CASES {
        let headers: &[(&str, &str)] = if accept.is_empty() {
            &[]
        } else {
            &[("Accept", accept)]
        };
        match t.request("GET", "/developers/", headers) {
            Ok(reply) => {
                let got_markdown = reply.status == 200 && reply.body == twin;
                let got_html = reply.status == 200
                    && reply
                        .header("content-type")
                        .is_some_and(|c| c.starts_with("text/html"));
                if (markdown && !got_markdown) || (!markdown && !got_html) {
                    let case = format!(
                        "Accept {accept:?}: want {}, got status {} with Content-Type {}",
                        if markdown { "Markdown" } else { "HTML" },
                        reply.status,
                        shown(reply.header("content-type"))
                    );
                    failures.push((case, Some(reply)));
                }
            }
            Err(err) => failures.push((format!("Accept {accept:?}: {err}"), None)),
        }
    }
    failures
}

/// The negotiation table as a check: the quality values are this tool's policy (the contract
/// asks only that `Accept: text/markdown` gets Markdown), so each disagreement is a warning,
/// and the site's own code answering is a note.
pub(super) fn negotiation_check(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let failures = negotiate(t);
    let Some((_, first)) = failures.iter().find(|(_, reply)| reply.is_some()) else {
        if let Some((case, None)) = failures.into_iter().next() {
            return Err(case.into());
        }
        return Ok(());
    };
    let first = first.as_ref().expect("found with a reply");
    let site = by_site(t, first);
    let cases: Vec<&str> = failures.iter().map(|(case, _)| case.as_str()).collect();
    let why = format!(
        "{} of {} Accept headers are not negotiated by quality values (RFC 9110, 12.5.1): {}",
        cases.len(),
        crate::http::NEGOTIATION_CASES.len(),
        cases.join("; ")
    );
    let mut warning = Finding::about(Class::Policy, first, why);
    if site {
        warning = warning.fix(format!(
            "{SITE_CODE}: answer Markdown only when text/markdown has a higher quality than \
             text/html, or leave content-api's pages to its edge layer"
        ));
        notes.push(
            Finding::about(
                Class::Site,
                first,
                "the site's own code negotiates this page by its own rule",
            )
            .fix(SITE_CODE),
        );
    }
    notes.insert(0, warning);
    Ok(())
}

pub(super) fn vary_on_negotiable(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let mut paths = vec!["/developers".to_string(), "/developers/".to_string()];
    if let Some(post) = &t.post {
        paths.push(format!("/blog/{post}"));
    }
    for path in &paths {
        for accept in ["text/markdown", "text/html"] {
            let reply = t.request("GET", path, &[("Accept", accept)])?;
            let vary = reply.header("vary").unwrap_or("");
            if !vary
                .split(',')
                .any(|v| v.trim().eq_ignore_ascii_case("accept"))
            {
                let why = format!(
                    "(Accept: {accept}) Vary is {}: a cache may hand one variant to the other's clients",
                    shown(reply.header("vary"))
                );
                let mut finding = Finding::about(Class::Policy, &reply, why);
                if by_site(t, &reply) {
                    finding = finding.fix(SITE_CODE);
                }
                return Err(finding.into());
            }
        }
    }
    let _ = notes;
    Ok(())
}

pub(super) fn traversal(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let attempts = [
        "/../../../../etc/passwd",
        "/api/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/api/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/..%2f..%2f..%2fetc%2fpasswd",
        "/%252e%252e/%252e%252e/etc/passwd",
        "/api/..%5c..%5c..%5cetc%5cpasswd",
        "//etc/passwd",
    ];
    for path in attempts {
        let reply = get(t, path)?;
        expect_on(&reply, matches!(reply.status, 400 | 404), || {
            format!("status {}", reply.status)
        })?;
        expect_on(&reply, !reply.text().contains("root:"), || {
            "served /etc/passwd".into()
        })?;
    }
    Ok(())
}

pub(super) fn hidden_files(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    for path in [
        "/.content-api/manifest.json",
        "/.content-api/published.json",
        "/_headers",
        "/_redirects",
        "/_routes.json",
        "/_worker.js",
        "/_nginx_gone.conf",
    ] {
        let reply = get(t, path)?;
        expect_on(&reply, reply.status == 404, || {
            format!("status {} ({})", reply.status, reply.first_line())
        })?;
    }
    Ok(())
}

pub(super) fn etag_revalidation(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = &t.posts_path();
    let reply = get(t, path)?;
    let etag = reply
        .header("etag")
        .ok_or_else(|| Finding::about(Class::Policy, &reply, "no ETag"))?
        .to_string();
    let again = t.request("GET", path, &[("If-None-Match", &etag)])?;
    status(&again, 304)?;
    expect(again.body.is_empty(), || "304 with a body".into())?;
    Ok(())
}

pub(super) fn unknown_page(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = "/no-such-page";
    let reply = get(t, path)?;
    status(&reply, 404)?;
    if reply.header("access-control-allow-origin") != Some("*") {
        notes.push(
            Finding::about(
                Class::Policy,
                &reply,
                format!(
                    "Access-Control-Allow-Origin is {}; content-api's hosts answer \"*\"",
                    shown(reply.header("access-control-allow-origin"))
                ),
            )
            .fix(header_rules("/404.html")),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_discovery_documents_are_those_of_before_the_table() {
        // The list as it was written out before it was derived from the output documents (its
        // order was its own; the checks now run in the table's).
        let mut before = vec![
            ("/openapi.json", "application/json"),
            (
                "/.well-known/ai-catalog.json",
                "application/ai-catalog+json",
            ),
            (
                "/.well-known/mcp/server-card.json",
                "application/mcp-server-card+json",
            ),
            ("/.well-known/agent-skills/index.json", "application/json"),
            (
                "/.well-known/api-catalog",
                "application/linkset+json; profile=\"https://www.rfc-editor.org/info/rfc9727\"",
            ),
            ("/llms.txt", "text/plain; charset=utf-8"),
            ("/llms-full.txt", "text/plain; charset=utf-8"),
            ("/auth.md", "text/markdown; charset=utf-8"),
            ("/developers.md", "text/markdown; charset=utf-8"),
        ];
        let mut now: Vec<_> = discovery().collect();
        before.sort();
        now.sort();
        assert_eq!(now, before);
    }
    use crate::Languages;
    use crate::client::Http;
    use std::collections::BTreeMap;

    fn target(published: Option<&[(&str, &str)]>) -> Target {
        Target {
            http: Http::plain(([127, 0, 0, 1], 9).into(), None),
            base_url: "https://example.com".into(),
            gone: None,
            languages: Languages::seed(),
            post: None,
            series: None,
            tag: None,
            deployed: published.map(|files| {
                files
                    .iter()
                    .map(|(path, hash)| (path.to_string(), hash.to_string()))
                    .collect()
            }),
            deadline: None,
        }
    }

    /// A static file's answer, with no Cache-Control and a CORS header of the site's.
    fn answer(path: &str, body: &str) -> Reply {
        Reply {
            url: format!("https://example.com{path}"),
            status: 200,
            headers: BTreeMap::from([
                (
                    "access-control-allow-origin".into(),
                    "https://example.com".into(),
                ),
                ("content-type".into(), "text/plain; charset=utf-8".into()),
            ]),
            body: body.as_bytes().to_vec(),
        }
    }

    fn fix_of(t: &Target, reply: &Reply) -> (String, String) {
        let mut notes = Vec::new();
        document_headers(t, reply, &mut notes);
        assert_eq!(notes.len(), 1, "{notes:?}");
        let note = notes.remove(0);
        (note.why, note.fix.unwrap_or_default())
    }

    const TOOLS_BLOCK: &str = "content-api's `_headers` block for";

    #[test]
    fn a_document_the_site_keeps_is_never_blamed_on_the_tools_header_block() {
        let reply = answer("/llms-full.txt", "the site's own llms-full.txt\n");
        // A record that leaves the site's own documents out, as every build's record does.
        let (why, fix) = fix_of(&target(Some(&[("llms.txt", "00")])), &reply);
        assert!(
            why.starts_with("Cache-Control is absent and Access-Control-Allow-Origin \"https://"),
            "no Rust syntax: {why}"
        );
        assert!(!why.contains("Some(") && !why.contains("None"), "{why}");
        assert!(!fix.contains(TOOLS_BLOCK), "{fix}");
        assert!(fix.contains("this document is the site's own"), "{fix}");

        // A record of an earlier version listed it with the hash of the tool's unwritten
        // parts: not comparable, so not taken for the tool's.
        let old = target(Some(&[(
            "llms-full.txt",
            "0123456789abcdef0123456789abcdef",
        )]));
        let (_, fix) = fix_of(&old, &reply);
        assert!(!fix.contains(TOOLS_BLOCK), "{fix}");
        assert!(fix.contains("the site's own `llms-full.txt`"), "{fix}");

        // No record at all: the same.
        let (_, fix) = fix_of(&target(None), &reply);
        assert!(!fix.contains(TOOLS_BLOCK), "{fix}");
    }

    #[test]
    fn the_tools_own_document_is_under_its_header_block() {
        let reply = answer("/llms.txt", "the tool's llms.txt\n");
        let hash = super::super::Answered::of(&reply).hash.unwrap();
        let (_, fix) = fix_of(&target(Some(&[("llms.txt", &hash)])), &reply);
        assert!(
            fix.contains("content-api's `_headers` block for /llms.txt"),
            "{fix}"
        );
    }
}
