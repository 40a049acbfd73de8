//! The document checks' tests: the discovery list as it was before the table, and whose
//! header rules (the site's or the tool's) a document's fix points to.

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
