//! The discovery documents and the agent-facing corpus: each document parses as what it claims
//! to be (JSON documents with serde, `llms.txt` against the llmstxt.org structure, the API
//! catalog against RFC 9727's shape), every URL anywhere in the output folder resolves to a file
//! of the same build (the link checker), edits rewrite exactly the documents they should, and
//! the guides agree with the tool (`docs/guides.rs`: README.md's and docs/'s commands and
//! `watch.toml` blocks, and `watch.toml`'s JSON Schema; `docs/owner_guides.rs`: the owners'
//! guides of docs/guides/ followed from their own text), the deploy recipes run as written
//! (`docs/recipes.rs`: each host's builds, from fresh clones, record), and the repository's own
//! Markdown holds together (`docs/pages.rs`: every relative link and heading it names resolves,
//! README.md and ARCHITECTURE.md stay under their line bounds).

use crate::common;

mod guides;
mod owner_guides;
mod pages;
mod recipes;

use common::*;
use content_api::build;
use content_api::content::{ContentPath, FileContents};
use content_api::media::media_type;
use content_api::render::LISTED_DOCUMENTS;
use content_api::workspace::{Lifetime, Workspace};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

// ---- The link checker. ----

/// Where a link checker found a problem: the file, the URL, why.
type Problems = Vec<String>;

/// Characters that end a URL in text, JSON, Markdown and HTML.
fn ends_url(c: char) -> bool {
    c.is_whitespace() || "\"'<>()[]{}|\\`".contains(c)
}

/// Whether `path` (below the output folder, no leading `/`) is served by a file of `files`:
/// the file itself, a folder's page (`path/index.html`), or a page's Markdown variant
/// (`path.md`), in that order (a page with both is served as HTML unless Markdown is asked
/// for). Returns the file that serves it.
fn resolve<'a>(files: &'a BTreeMap<String, Vec<u8>>, path: &str) -> Option<&'a str> {
    let trimmed = path.trim_end_matches('/');
    let candidates = [
        path.to_string(),
        if trimmed.is_empty() {
            "index.html".to_string()
        } else {
            format!("{trimmed}/index.html")
        },
        format!("{trimmed}.md"),
    ];
    candidates
        .into_iter()
        .find_map(|c| files.get_key_value(&c).map(|(k, _)| k.as_str()))
}

/// The `id` attributes of an HTML file.
fn html_ids(html: &str) -> BTreeSet<String> {
    let re = regex_lite::Regex::new(r#"\sid="([^"]*)""#).unwrap();
    re.captures_iter(html).map(|c| c[1].to_string()).collect()
}

/// Checks one site-absolute reference (`/path#fragment`) found in `file`.
fn check_reference(
    files: &BTreeMap<String, Vec<u8>>,
    file: &str,
    reference: &str,
    shown: &str,
    problems: &mut Problems,
) {
    let (path, fragment) = match reference.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (reference, None),
    };
    let path = path.trim_start_matches('/');
    let target = if path.is_empty() && fragment.is_some() {
        Some(file)
    } else {
        resolve(files, path)
    };
    let Some(target) = target else {
        problems.push(format!("{file}: {shown} resolves to no file of the output"));
        return;
    };
    if let Some(fragment) = fragment {
        let ids = if target.ends_with(".html") {
            html_ids(&String::from_utf8_lossy(&files[target]))
        } else {
            BTreeSet::new()
        };
        if !ids.contains(fragment) {
            problems.push(format!(
                "{file}: {shown}: {target} has no element with id=\"{fragment}\""
            ));
        }
    }
}

/// Every URL of the build's site anywhere in the output folder (and every relative `href` of
/// its HTML pages) must resolve to a file of the output; a fragment must be an `id` in the HTML
/// page it points into. Returns the number of links checked.
///
/// Exempt, explicitly:
/// - hero images (`/images/...`): site assets this build does not own (documents show them as
///   plain text, never as links);
/// - the bare base URL, which `openapi.json` names as its server address (not a document);
/// - the configured `contact_url`, the author's page, which `openapi.json` names as contact.
fn check_links(out: &Path) -> Result<usize, Problems> {
    let files: BTreeMap<String, Vec<u8>> = read_tree(out)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".content-api/"))
        .collect();
    let openapi: Value = serde_json::from_slice(&files["openapi.json"]).unwrap();
    let base = openapi["servers"][0]["url"].as_str().unwrap().to_string();
    let contact = openapi["info"]["contact"]["url"]
        .as_str()
        .map(str::to_string);
    let href = regex_lite::Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    let mut problems = Problems::new();
    let mut checked = 0;
    for (file, bytes) in &files {
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        for (at, _) in text.match_indices(&base) {
            let rest = &text[at + base.len()..];
            let end = rest.find(ends_url).unwrap_or(rest.len());
            // In HTML text (the portal's example responses) a quote is written `&quot;`.
            let end = ["&quot;", "&#39;"]
                .iter()
                .filter_map(|quote| rest[..end].find(quote))
                .min()
                .unwrap_or(end);
            let reference = rest[..end].trim_end_matches(['.', ',', ';', ':']);
            if reference
                .chars()
                .next()
                .is_some_and(|c| c != '/' && c != '#')
            {
                continue; // Another host that starts like ours.
            }
            let url = format!("{base}{reference}");
            if reference.is_empty() || Some(&url) == contact.as_ref() {
                continue;
            }
            if reference.starts_with("/images/") {
                continue;
            }
            checked += 1;
            check_reference(&files, file, reference, &url, &mut problems);
        }
        if file.ends_with(".html") {
            for capture in href.captures_iter(text) {
                let target = &capture[1];
                if target.starts_with('#') || target.starts_with('/') {
                    checked += 1;
                    check_reference(&files, file, target, target, &mut problems);
                } else if !target.contains("://") {
                    problems.push(format!(
                        "{file}: relative link {target} (write it absolute)"
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(problems)
    }
}

fn assert_links_resolve(out: &Path) -> usize {
    match check_links(out) {
        Ok(checked) => checked,
        Err(problems) => panic!(
            "{} dangling links:\n{}",
            problems.len(),
            problems[..problems.len().min(30)].join("\n")
        ),
    }
}

// ---- The structure of each document. ----

/// One `- [name](url): notes` line of llms.txt.
fn llms_item(line: &str) -> Option<(String, String)> {
    let re = regex_lite::Regex::new(r"^- \[((?:\\.|[^\]\\])+)\]\((\S+)\)(?:: .+)?$").unwrap();
    let captures = re.captures(line)?;
    Some((captures[1].to_string(), captures[2].to_string()))
}

/// Checks llms.txt against the llmstxt.org structure: an H1, a blockquote summary, optional
/// prose without headings, then H2 sections holding only link lists, one of them `Optional`.
/// Every link is absolute. Returns section name → its links.
fn parse_llms_txt(text: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut lines = text.lines().peekable();
    let h1 = lines.next().expect("llms.txt is empty");
    assert!(
        h1.starts_with("# ") && h1.len() > 2,
        "llms.txt must open with an H1: {h1}"
    );
    assert_eq!(lines.next(), Some(""), "a blank line follows the H1");
    let summary = lines.next().unwrap_or_default();
    assert!(
        summary.starts_with("> ") && summary.len() > 2,
        "a blockquote summary follows the H1: {summary}"
    );
    while let Some(line) = lines.peek() {
        if line.starts_with("## ") {
            break;
        }
        assert!(
            !line.starts_with('#'),
            "no heading but H2 after the summary: {line}"
        );
        lines.next();
    }
    let mut sections: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut order = Vec::new();
    let mut current: Option<String> = None;
    for line in lines {
        if let Some(name) = line.strip_prefix("## ") {
            assert!(
                sections.insert(name.to_string(), Vec::new()).is_none(),
                "section {name} twice"
            );
            order.push(name.to_string());
            current = Some(name.to_string());
        } else if !line.is_empty() {
            let (name, url) =
                llms_item(line).unwrap_or_else(|| panic!("not a link-list item: {line}"));
            assert!(
                url.starts_with("https://") || url.starts_with("http://"),
                "link not absolute: {url}"
            );
            sections
                .get_mut(current.as_ref().unwrap())
                .unwrap()
                .push((name, url));
        }
    }
    assert_eq!(
        order,
        ["API", "Series", "Tags", "Slide decks", "Optional"],
        "llms.txt sections"
    );
    sections
}

/// RFC 9264 section 4.2 linkset: `{"linkset": [context objects]}`; each context object has an
/// `anchor` and link relations whose values are arrays of target objects with an `href`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Linkset {
    linkset: Vec<BTreeMap<String, Value>>,
}

#[derive(Deserialize)]
struct Target {
    href: String,
    #[serde(rename = "type")]
    media_type: Option<String>,
}

fn relation(context: &BTreeMap<String, Value>, name: &str) -> Vec<Target> {
    serde_json::from_value(context.get(name).cloned().unwrap_or(Value::Array(vec![])))
        .unwrap_or_else(|e| panic!("relation {name}: {e}"))
}

/// AI Catalog 1.0: `specVersion`, `entries` (required); `host`, `metadata`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AiCatalog {
    spec_version: String,
    host: AiHost,
    entries: Vec<AiEntry>,
    metadata: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AiHost {
    display_name: String,
    identifier: String,
    documentation_url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AiEntry {
    identifier: String,
    display_name: String,
    #[serde(rename = "type")]
    kind: String,
    media_type: String,
    url: String,
    description: String,
}

/// MCP server card v1: no member outside the schema's (its generator rejects extra properties).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ServerCard {
    #[serde(rename = "$schema")]
    schema: String,
    name: String,
    version: String,
    description: String,
    title: Option<String>,
    website_url: Option<String>,
    #[serde(rename = "_meta")]
    meta: BTreeMap<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    name: String,
    description: String,
    input_schema: Value,
    annotations: Value,
    operations: Vec<ToolOperation>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolOperation {
    operation_id: String,
    path_template: String,
}

/// Agent Skills discovery index v0.2.0.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillsIndex {
    #[serde(rename = "$schema")]
    schema: String,
    skills: Vec<SkillEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillEntry {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    description: String,
    url: String,
    digest: String,
}

/// The output-folder path of a URL of the build's site.
fn local<'a>(base: &str, url: &'a str) -> &'a str {
    url.strip_prefix(base)
        .unwrap_or_else(|| panic!("{url} is not below {base}"))
        .trim_start_matches('/')
}

fn json(files: &BTreeMap<String, Vec<u8>>, path: &str) -> Value {
    serde_json::from_slice(&files[path]).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(files: &BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(files[path].clone()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The ids of the posts in `llms-full.txt`, in order.
fn llms_full_ids(full: &str) -> Vec<String> {
    full.lines()
        .filter_map(|line| line.strip_prefix("<post id=\""))
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// Every document checks out against its format and against the rest of the build.
fn check_documents(out: &Path) {
    let files = read_tree(out);
    let index = json(&files, "api/index.json");
    let openapi = json(&files, "openapi.json");
    let base = openapi["servers"][0]["url"].as_str().unwrap();

    // The index links every document, and nothing else.
    let links = index["links"].as_object().unwrap();
    let names: Vec<&str> = links.keys().map(String::as_str).collect();
    let expected: Vec<&str> = LISTED_DOCUMENTS.iter().map(|d| d.name).collect();
    assert_eq!(names, expected);
    for doc in &LISTED_DOCUMENTS {
        assert_eq!(links[doc.name], format!("{base}{}", doc.path));
        assert_eq!(
            resolve(&files, local(base, &format!("{base}{}", doc.path))),
            Some(doc.file)
        );
    }

    // llms.txt.
    let sections = parse_llms_txt(&text(&files, "llms.txt"));
    let api: Vec<&str> = sections["API"].iter().map(|(n, _)| n.as_str()).collect();
    for op in content_api::operations::operations(&content_api::model::Languages::seed()) {
        assert!(
            op.id == "getApiIndex" || api.contains(&op.id),
            "llms.txt lists {}",
            op.id
        );
    }
    for lang in ["en", "es"] {
        let listing = json(&files, &format!("api/series/{lang}/index.json"));
        for series in listing["series"].as_array().unwrap() {
            let url = format!(
                "{base}/api/series/{lang}/{}.json",
                series["slug"].as_str().unwrap()
            );
            assert!(
                sections["Series"].iter().any(|(_, u)| *u == url),
                "llms.txt lists {url}"
            );
        }
    }
    assert!(
        sections["Optional"]
            .iter()
            .any(|(_, url)| url == &format!("{base}/llms-full.txt"))
    );

    // llms-full.txt: every published post, in the order of posts.json, each with its variant.
    let full = text(&files, "llms-full.txt");
    let posts = json(&files, "api/posts.json");
    let ids: Vec<String> = posts
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        llms_full_ids(&full),
        ids,
        "llms-full.txt holds posts.json's posts in order"
    );
    assert_eq!(
        full.lines().filter(|l| *l == "</post>").count(),
        ids.len(),
        "each section closes"
    );
    let head = &full[..full.find("<post id=").unwrap_or(full.len())];
    assert!(
        head.contains("Licence: ") && head.contains("attribution"),
        "{head}"
    );

    // The Markdown variant of every post.
    for post in posts.as_array().unwrap() {
        let (lang, slug) = (
            post["lang"].as_str().unwrap(),
            post["slug"].as_str().unwrap(),
        );
        let page = if lang == "en" {
            format!("/blog/{slug}")
        } else {
            format!("/es/blog/{slug}")
        };
        let md = text(&files, &format!("{}.md", &page[1..]));
        assert!(md.starts_with("# "), "{page}.md starts with its title");
        assert!(
            md.contains(&format!("- Canonical URL: {base}{page}\n")),
            "{page}"
        );
        assert!(md.contains("- Language: "), "{page}");
        assert!(md.contains(&format!(
            "- Published: {}\n",
            post["pubDate"].as_str().unwrap()
        )));
        if let Some(hero) = post["heroImage"].as_str() {
            assert!(
                !md.contains(&format!("]({base}{hero})")),
                "heroes are not links"
            );
        }
    }

    // auth.md agrees with the index.
    let auth = text(&files, "auth.md");
    assert_eq!(index["authentication"]["required"], false);
    assert_eq!(index["authentication"]["scheme"], "none");
    assert!(auth.contains("`authentication.required: false`"));
    assert!(auth.contains("`authentication.scheme: \"none\"`"));
    assert!(auth.contains("public, anonymous and read-only"));

    // The API catalog: an RFC 9264 linkset with RFC 9727's content.
    let catalog: Linkset = serde_json::from_slice(&files[".well-known/api-catalog"]).unwrap();
    let me = format!("{base}/.well-known/api-catalog");
    let own = catalog
        .linkset
        .iter()
        .find(|c| c["anchor"] == me.as_str())
        .expect("a context anchored at the catalog");
    let items = relation(own, "item");
    assert!(
        !items.is_empty(),
        "RFC 9727 4.1: the catalog links each API with item"
    );
    assert_eq!(
        relation(own, "profile")[0].href,
        "https://www.rfc-editor.org/info/rfc9727"
    );
    for item in &items {
        let api = catalog
            .linkset
            .iter()
            .find(|c| c["anchor"] == item.href.as_str())
            .expect("each API has its own context");
        let desc = relation(api, "service-desc");
        assert_eq!(desc[0].href, format!("{base}/openapi.json"));
        let docs: Vec<String> = relation(api, "service-doc")
            .into_iter()
            .map(|t| t.href)
            .collect();
        assert!(docs.contains(&format!("{base}/developers")));
        assert!(docs.contains(&format!("{base}/llms.txt")));
        let meta: Vec<String> = relation(api, "service-meta")
            .into_iter()
            .map(|t| t.href)
            .collect();
        assert!(meta.contains(&format!("{base}/api/index.json")));
        for context in &catalog.linkset {
            for (name, value) in context {
                if name != "anchor" {
                    for target in relation(context, name) {
                        if let Some(local_path) = target.href.strip_prefix(base) {
                            let file = resolve(&files, local_path.trim_start_matches('/')).unwrap();
                            assert_eq!(
                                target.media_type.as_deref(),
                                Some(media_type(file)),
                                "{value}"
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(media_type(".well-known/api-catalog").starts_with("application/linkset+json"));

    // The AI catalog: the API index, every document but itself, and every skill.
    let ai: AiCatalog = serde_json::from_slice(&files[".well-known/ai-catalog.json"]).unwrap();
    assert_eq!(ai.spec_version, "1.0");
    assert!(!ai.host.display_name.is_empty() && !ai.host.identifier.is_empty());
    assert_eq!(ai.host.documentation_url, format!("{base}/developers"));
    assert!(
        ai.metadata["license"]["url"]
            .as_str()
            .unwrap()
            .starts_with("http")
    );
    let mut identifiers = BTreeSet::new();
    for entry in &ai.entries {
        assert!(
            identifiers.insert(entry.identifier.clone()),
            "unique identifiers"
        );
        assert!(entry.identifier.starts_with("urn:air:"));
        let file = resolve(&files, local(base, &entry.url)).expect("entries exist");
        assert_eq!(entry.media_type, media_type(file), "{}", entry.url);
        assert_eq!(entry.kind, entry.media_type);
        assert!(!entry.display_name.is_empty() && !entry.description.is_empty());
    }
    assert!(
        ai.entries
            .iter()
            .any(|e| e.url == format!("{base}/api/index.json")),
        "the API index"
    );
    for doc in LISTED_DOCUMENTS.iter().filter(|d| d.name != "ai_catalog") {
        assert!(
            ai.entries
                .iter()
                .any(|e| e.url == format!("{base}{}", doc.path)),
            "{}",
            doc.name
        );
    }

    // The MCP server card.
    let card: ServerCard =
        serde_json::from_slice(&files[".well-known/mcp/server-card.json"]).unwrap();
    assert_eq!(
        card.schema,
        "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
    );
    let name_pattern = regex_lite::Regex::new(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$").unwrap();
    assert!(name_pattern.is_match(&card.name), "{}", card.name);
    assert_eq!(card.version, index["version"].as_str().unwrap());
    assert!((1..=100).contains(&card.description.chars().count()));
    assert!(
        card.title
            .is_some_and(|t| (1..=100).contains(&t.chars().count()))
    );
    assert_eq!(
        card.website_url.as_deref(),
        Some(&*format!("{base}/developers"))
    );
    let namespace = card.name.split('/').next().unwrap();
    let tools: Vec<Tool> =
        serde_json::from_value(card.meta[&format!("{namespace}/tools")].clone()).unwrap();
    let tool_names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for wanted in [
        "search_posts",
        "list_series",
        "get_series",
        "get_tag_timeline",
        "list_talks",
        "get_api_index",
    ] {
        assert!(tool_names.contains(&wanted), "{wanted}");
    }
    // How the tools are reached: the browser module (a file of this build) and the stdio
    // command, reading this site.
    let browser = &card.meta[&format!("{namespace}/browser")];
    let module = browser["module"].as_str().unwrap();
    let module_file = resolve(&files, local(base, module)).expect("the module is an output");
    assert_eq!(media_type(module_file), "text/javascript; charset=utf-8");
    assert_eq!(
        browser["include"],
        format!("<script type=\"module\" src=\"{module}\"></script>")
    );
    let module_text = text(&files, module_file);
    for name in &tool_names {
        assert!(
            module_text.contains(&format!("\"name\": \"{name}\"")),
            "{name}"
        );
    }
    let stdio = &card.meta[&format!("{namespace}/stdio")];
    assert_eq!(stdio["command"], "content-api");
    assert_eq!(stdio["args"], serde_json::json!(["mcp", "--site", base]));
    for tool in &tools {
        assert!(!tool.description.is_empty());
        assert_eq!(tool.input_schema["type"], "object");
        assert_eq!(tool.annotations["readOnlyHint"], true);
        for op in &tool.operations {
            let path = &openapi["paths"][&op.path_template]["get"];
            assert_eq!(
                path["operationId"],
                op.operation_id.as_str(),
                "{}",
                tool.name
            );
            for param in path["parameters"].as_array().into_iter().flatten() {
                let name = param["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                assert!(
                    tool.input_schema["properties"].get(name).is_some(),
                    "{}: {name}",
                    tool.name
                );
            }
        }
    }

    // The agent skills index: each skill is published, and its digest is its bytes'.
    let skills: SkillsIndex =
        serde_json::from_slice(&files[".well-known/agent-skills/index.json"]).unwrap();
    assert_eq!(
        skills.schema,
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    for skill in &skills.skills {
        assert_eq!(skill.kind, "skill-md");
        assert!(!skill.description.is_empty() && skill.description.chars().count() <= 1024);
        let path = local(base, &skill.url);
        assert_eq!(
            path,
            format!(".well-known/agent-skills/{}/SKILL.md", skill.name)
        );
        let digest = Sha256::digest(&files[path]);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(skill.digest, format!("sha256:{hex}"));
    }

    // The developer portal: plain HTML with the anchors the API points at.
    let html = text(&files, "developers/index.html");
    assert!(html.starts_with("<!doctype html>"));
    // No JavaScript needed to read it; the one script is the site's browser tools (WebMCP).
    let scripts: Vec<&str> = html
        .match_indices("<script")
        .map(|(at, _)| &html[at..])
        .collect();
    assert_eq!(scripts.len(), 1, "one script");
    assert!(
        scripts[0].starts_with(&format!(
            "<script type=\"module\" src=\"{base}/.well-known/mcp/tools.js\"></script>"
        )),
        "{}",
        &scripts[0][..80]
    );
    let ids = html_ids(&html);
    for id in [
        "quickstart",
        "errors",
        "versioning",
        "authentication",
        "limits",
    ] {
        assert!(ids.contains(id), "#{id}");
    }
    let portal_md = text(&files, "developers.md");
    for op in content_api::operations::operations(&content_api::model::Languages::seed()) {
        assert!(ids.contains(op.id), "#{}", op.id);
        assert!(portal_md.contains(&format!("### {}", op.id)));
    }
}

// ---- The sample site and the real corpus. ----

#[test]
fn every_link_of_the_sample_build_resolves() {
    let out = built_sample();
    let checked = assert_links_resolve(out.path());
    assert!(checked > 300, "only {checked} links checked");
}

#[test]
fn every_document_of_the_sample_build_parses_and_agrees_with_the_api() {
    let out = built_sample();
    check_documents(out.path());
    let files = read_tree(out.path());
    // The sample site ships one skill, published byte for byte.
    assert_eq!(
        files[".well-known/agent-skills/content-api/SKILL.md"],
        std::fs::read(repo().join("content/agent-skills/content-api/SKILL.md")).unwrap()
    );
}

#[test]
fn the_link_checker_catches_a_dangling_link_and_a_missing_anchor() {
    let out = built_sample();
    std::fs::write(
        out.path().join("llms.txt"),
        "# x\n\n> y\n\n## API\n\n- [a](https://lucia-montoya.example/api/nope.json)\n- [b](https://lucia-montoya.example/developers#nope)\n- [c](https://lucia-montoya.example/blog/hello-from-medellin)\n- [d](https://lucia-montoya.example/developers#errors)\n",
    )
    .unwrap();
    let problems = check_links(out.path()).unwrap_err();
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("api/nope.json"));
    assert!(problems[1].contains("id=\"nope\""));
}

#[test]
fn a_large_synthetic_corpus_gets_every_document_and_no_dangling_link() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = synthetic_corpus(dir.path());
    let out = dir.path().join("out");
    build(&corpus, &out, &[]);
    check_documents(&out);
    assert_links_resolve(&out);
    let full = std::fs::read_to_string(out.join("llms-full.txt")).unwrap();
    let published = published_post_count(&corpus);
    assert!(published > 280, "{published} published posts");
    assert_eq!(
        llms_full_ids(&full).len(),
        published,
        "llms-full.txt holds every published post"
    );
}

#[test]
#[ignore = "needs the real corpus at ../shared/corpus/xergioalex: cargo test --test integration -- --ignored docs::"]
fn the_real_corpus_gets_every_document_and_no_dangling_link() {
    let corpus = corpus();
    let out = tempfile::tempdir().unwrap();
    build(&corpus, out.path(), &[]);
    check_documents(out.path());
    assert_links_resolve(out.path());
    let full = std::fs::read_to_string(out.path().join("llms-full.txt")).unwrap();
    assert_eq!(
        llms_full_ids(&full).len(),
        190,
        "llms-full.txt holds the 190 published posts"
    );
}

#[test]
fn an_empty_site_still_publishes_every_document() {
    let site = Site::empty();
    std::fs::create_dir_all(site.content()).unwrap();
    site.build().assert_success();
    check_documents(&site.out());
    assert_links_resolve(&site.out());
}

// ---- Incremental rebuilds, with the library. ----

fn hashes(workspace: &Workspace) -> BTreeMap<String, u128> {
    let diagnostics = build::diagnostics(workspace.db());
    assert!(diagnostics.iter().all(|d| !d.is_error()), "{diagnostics:?}");
    build::outputs(workspace.db())
        .into_iter()
        .map(|(path, output)| (path.to_string(), output.hash))
        .collect()
}

/// Paths added, removed or rewritten between two builds.
fn changed(before: &BTreeMap<String, u128>, after: &BTreeMap<String, u128>) -> Vec<String> {
    let paths: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    paths
        .into_iter()
        .filter(|p| before.get(*p) != after.get(*p))
        .cloned()
        .collect()
}

fn put(workspace: &mut Workspace, path: &str, text: String) {
    workspace.apply([(
        ContentPath::new(path).unwrap(),
        FileContents::Text(Arc::new(text)),
    )]);
}

#[test]
fn a_body_edit_rewrites_the_post_markdown_and_llms_full_only() {
    let mut workspace = recording_sample_workspace(Default::default());
    let post = "blog/en/2024-06-02_running-up-las-palmas.md";
    // The first edit of a file in a session lowers its durability (HIGH as loaded, LOW once
    // edited); salsa cannot backdate across that drop, so the file's own queries re-run once,
    // producing the same bytes. Edit once, then measure the next edit.
    let text = workspace.text_of(post).unwrap().to_string();
    put(&mut workspace, post, format!("{text}\nA first edit.\n"));
    let before = hashes(&workspace);
    workspace.db().take_executions();

    let text = workspace.text_of(post).unwrap().to_string();
    put(
        &mut workspace,
        post,
        format!("{text}\nOne more paragraph, written later.\n"),
    );
    let after = hashes(&workspace);
    assert_eq!(
        changed(&before, &after),
        ["blog/running-up-las-palmas.md", "llms-full.txt"]
    );
    // Not only the bytes: no query that renders a file under api/ even ran.
    let executed = query_names(&workspace.db().take_executions());
    for query in [
        "post_entry_json",
        "timeline_post_json",
        "posts_json",
        "all_posts_json",
        "tag_timeline_json",
        "series_detail_json",
        "series_listing_json",
        "slides_json",
        "api_index_json",
        "llms_txt",
        "developer_docs",
    ] {
        assert_eq!(runs_of(&executed, query), 0, "{query} re-ran: {executed:?}");
    }
    assert_eq!(runs_of(&executed, "post_markdown"), 1, "{executed:?}");

    // A new series with a first chapter: llms.txt lists it.
    let before = after;
    put(
        &mut workspace,
        "series/trail-running.md",
        "---\nname: trail-running\ntitle: \"Trail Running\"\ndescription: \"Running off the road.\"\n---\n".into(),
    );
    put(
        &mut workspace,
        "blog/en/2026-10-01_first-trail.md",
        "---\ntitle: \"First Trail\"\ndescription: \"Mud.\"\npubDate: 2026-10-01\ntags: [\"running\"]\nseries: trail-running\nseriesOrder: 1\n---\n\nMud everywhere.\n".into(),
    );
    let after = hashes(&workspace);
    let changes = changed(&before, &after);
    for path in [
        "llms.txt",
        "llms-full.txt",
        "blog/first-trail.md",
        "api/series/en/trail-running.json",
        "api/index.json",
    ] {
        assert!(changes.iter().any(|c| c == path), "{path} in {changes:?}");
    }
    let workspace_llms = build::outputs(workspace.db())
        .into_iter()
        .find(|(path, _)| &**path == "llms.txt")
        .unwrap()
        .1;
    let llms = String::from_utf8(workspace_llms.to_vec().unwrap()).unwrap();
    assert!(llms.contains("- [Trail Running](https://lucia-montoya.example/api/series/en/trail-running.json): 1 chapter in English."));
}

#[test]
fn every_document_is_a_planned_output_even_without_content() {
    let today = sample_today();
    let workspace = Workspace::new(
        Arc::new(sample_config()),
        today,
        false,
        content_api::content::Scan::default(),
        Lifetime::Once,
        Default::default(),
    );
    let paths: BTreeSet<String> = build::outputs(workspace.db())
        .into_iter()
        .map(|(path, _)| path.to_string())
        .collect();
    for doc in &LISTED_DOCUMENTS {
        assert!(paths.contains(doc.file), "{} is not planned", doc.file);
        let served = doc.path.trim_start_matches('/');
        assert!(
            doc.file == served
                || doc.file == format!("{served}.md")
                || doc.file == format!("{served}/index.html"),
            "{} is not served from {}",
            doc.path,
            doc.file
        );
    }
}

// ---- A corpus too large for one llms-full.txt. ----

#[test]
fn a_large_corpus_splits_llms_full_into_parts_that_together_hold_every_post_once() {
    use content_api::session::Session;
    let site = Site::new();
    for day in 1..=200 {
        let date = format!("2024-{:02}-{:02}", 1 + (day - 1) / 28, 1 + (day - 1) % 28);
        let text = format!(
            "---\ntitle: \"Post {day}\"\ndescription: \"Post number {day}\"\npubDate: {date}\ntags: [\"rust\"]\n---\n\n{}\n",
            "A paragraph of the body. ".repeat(20)
        );
        site.write(format!("blog/en/{date}_post-{day}.md"), text);
    }
    let mut config = content_api::config::SiteConfig::defaults(
        camino::Utf8Path::from_path(site.root()).unwrap(),
    );
    config.content_dir = camino::Utf8PathBuf::from_path_buf(site.content()).unwrap();
    config.out_dir = camino::Utf8PathBuf::from_path_buf(site.out()).unwrap();
    config.hosting.llms_full_part_bytes = 16 << 10;
    let today = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap();
    let (_session, outcome) = Session::start(std::sync::Arc::new(config), today, false).unwrap();
    outcome.report.expect("published");

    let read = |name: &str| std::fs::read_to_string(site.out().join(name)).unwrap();
    let first = read("llms-full.txt");
    let mut parts = vec![first.clone()];
    for index in 2.. {
        let Ok(part) = std::fs::read_to_string(site.out().join(format!("llms-full-{index}.txt")))
        else {
            break;
        };
        assert!(
            first.contains(&format!("/llms-full-{index}.txt")),
            "the first part lists it"
        );
        assert!(
            read("llms.txt").contains(&format!("/llms-full-{index}.txt)")),
            "llms.txt too"
        );
        parts.push(part);
    }
    assert!(parts.len() >= 3, "{} parts", parts.len());
    let ids: Vec<String> = parts.iter().flat_map(|part| llms_full_ids(part)).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "each post once");
    assert_eq!(
        ids.len(),
        202,
        "every published post (the site's two and the 200)"
    );
    let mut newest_first = ids.clone();
    newest_first.sort_by(|a, b| b.split('/').nth(1).cmp(&a.split('/').nth(1)));
    let dates = |ids: &[String]| {
        ids.iter()
            .map(|id| id.split(['/', '_']).nth(1).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        dates(&ids),
        dates(&newest_first),
        "newest first across the parts"
    );
}
