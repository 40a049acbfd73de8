//! The developer portal the contract points at (`{base_url}/developers`): an HTML page
//! (`developers/index.html`, readable without any script) and its Markdown twin
//! (`developers.md`), both rendered from one [`Page`] built from the same operation table,
//! schemas and constants as `openapi.json` and `api/index.json`.
//!
//! `endpoints` documents the operations and the resources (from the OpenAPI component
//! schemas); `policies` the errors, versioning, authentication, limits and documents.

mod endpoints;
mod examples;
mod policies;

use super::page::{Block, Page, code, heading, link, text};
use crate::config::SiteConfig;
use crate::db::Globals;
use crate::operations::{Operation, operations};
use crate::output::Output;
use crate::render::index::{listed_document, resolved_paths};
use crate::render::openapi::component_schemas;
use std::collections::BTreeSet;

/// Both forms of the portal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeveloperDocs {
    pub html: Output,
    pub markdown: Output,
}

/// The portal. Re-runs when the configuration or the set of URLs changes (each endpoint shows
/// a live example: the first URL its template resolves to), or when the excerpt of an example
/// response changed (see [`examples`]).
#[salsa::tracked(returns(ref))]
pub fn developer_docs(db: &dyn salsa::Database) -> DeveloperDocs {
    let config = Globals::get(db).config(db);
    let ops = operations(&config.languages);
    let examples: Vec<Option<String>> = ops
        .iter()
        .map(|op| resolved_paths(db, op).into_iter().next())
        .collect();
    let responses: Vec<Option<String>> = (0..ops.len())
        .map(|operation| examples::example_response(db, Globals::get(db), operation).clone())
        .collect();
    let page = portal(config, &examples, &responses);
    DeveloperDocs {
        html: Output::new(page.to_html()),
        markdown: Output::new(page.to_markdown()),
    }
}

/// The section anchors the contract and the index link to.
const SECTIONS: [(&str, &str); 9] = [
    ("quickstart", "Quickstart"),
    ("endpoints", "Endpoints"),
    ("resources", "Resources"),
    ("errors", "Errors"),
    ("versioning", "Versioning"),
    ("authentication", "Authentication"),
    ("limits", "Limits"),
    ("documents", "Discovery documents"),
    ("licence", "Licence"),
];

fn section(id: &str) -> Block {
    let title = SECTIONS
        .iter()
        .find(|(anchor, _)| *anchor == id)
        .map(|(_, title)| *title)
        .expect("a known section");
    heading(2, Some(id), title)
}

/// The whole page; `examples` holds each operation's first resolved path (in `operations`
/// order), if any, and `responses` the excerpt of the file it serves.
pub fn portal(
    config: &SiteConfig,
    examples: &[Option<String>],
    responses: &[Option<String>],
) -> Page {
    let schemas = component_schemas(&config.languages);
    // Each schema's table appears once: under the first endpoint that returns it, in the
    // error section, or else in the resources section.
    let mut documented = BTreeSet::new();
    let errors = policies::errors(config, &schemas, &mut documented);
    let endpoints = endpoints::endpoints(config, examples, responses, &schemas, &mut documented);
    let mut blocks = intro(config);
    blocks.extend(quickstart(config, examples));
    blocks.extend(endpoints);
    blocks.extend(endpoints::resources(&schemas, &documented));
    blocks.extend(errors);
    blocks.extend(policies::policies(config));
    blocks.extend(policies::documents(config));
    Page {
        title: format!("{} API: developer documentation", config.name),
        html_url: config.url(listed_document("developers").path),
        markdown_url: config.url(listed_document("developers_markdown").path),
        modules: vec![config.url(listed_document("mcp_tools_module").path)],
        blocks,
    }
}

fn intro(config: &SiteConfig) -> Vec<Block> {
    vec![
        Block::Paragraph(vec![text(&config.description)]),
        Block::Paragraph(vec![
            text(format!("Version {}. Base URL: ", config.api_version)),
            code(&config.base_url),
            text(
                ". Every endpoint is a pre-generated static JSON file: public, anonymous and read-only (GET and HEAD only). The machine-readable description is ",
            ),
            link("openapi.json", config.url(listed_document("openapi").path)),
            text("; this page is also available "),
            link(
                "as Markdown",
                config.url(listed_document("developers_markdown").path),
            ),
            text("."),
        ]),
        Block::List(
            SECTIONS
                .iter()
                .map(|(id, title)| vec![link(*title, format!("#{id}"))])
                .collect(),
        ),
    ]
}

fn quickstart(config: &SiteConfig, examples: &[Option<String>]) -> Vec<Block> {
    let index = config.url("/api/index.json");
    let first_posts = Operation::posts_in(config.languages.all()[0]).id;
    let example = example_of(config, examples, "getTimelineByTag")
        .or_else(|| example_of(config, examples, first_posts))
        .map(|path| config.url(path))
        .unwrap_or_else(|| index.clone());
    vec![
        section("quickstart"),
        Block::Paragraph(vec![text(
            "1. Fetch the API index. It lists every operation with every URL that exists right now:",
        )]),
        Block::Code(format!("curl -s {index}")),
        Block::Paragraph(vec![
            text("2. Take URLs from "),
            code("endpoints[].urls"),
            text(
                " instead of building them: a series or tag that is not listed does not exist. For example, the posts that carry a tag:",
            ),
        ]),
        Block::Code(format!("curl -s {example}")),
        Block::Paragraph(vec![
            text("3. When a request fails, branch on "),
            code("error.code"),
            text(": errors under /api/ are JSON, never HTML (see "),
            link("Errors", "#errors"),
            text("). No key or account is needed."),
        ]),
    ]
}

fn example_of<'a>(
    config: &SiteConfig,
    examples: &'a [Option<String>],
    id: &str,
) -> Option<&'a str> {
    let at = operations(&config.languages)
        .iter()
        .position(|op| op.id == id)?;
    examples.get(at)?.as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SiteConfig;
    use serde_json::Value;

    fn config() -> SiteConfig {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        config.name = "R&D <notes>".into();
        config
    }

    #[test]
    fn the_page_has_every_anchor_the_api_links_to() {
        let html = portal(&config(), &vec![None; 8], &vec![None; 8]).to_html();
        for id in [
            "quickstart",
            "errors",
            "versioning",
            "authentication",
            "limits",
        ] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        for op in operations(&config().languages) {
            assert!(html.contains(&format!("id=\"{}\"", op.id)), "{}", op.id);
        }
        assert!(html.contains("R&amp;D &lt;notes&gt;"));
        assert!(!html.contains("<notes>"));
        // One script: the browser tools' module, which the page works without.
        assert_eq!(html.matches("<script").count(), 1);
        assert!(html.contains("<script type=\"module\" src=\""));
        assert!(html.contains("/.well-known/mcp/tools.js\"></script>"));
    }

    #[test]
    fn every_endpoint_shows_its_live_example() {
        let mut examples = vec![None; 8];
        examples[6] = Some("/api/timeline/en/rust.json".to_string());
        let mut responses = vec![None; 8];
        responses[6] = Some("{\n  \"tag\": \"rust\"\n}".to_string());
        let md = portal(&config(), &examples, &responses).to_markdown();
        assert!(md.contains(
            "Live example: [/api/timeline/en/rust.json](http://localhost:4321/api/timeline/en/rust.json)"
        ));
        assert!(md.contains("curl -s http://localhost:4321/api/timeline/en/rust.json"));
        assert!(md.contains("none yet"));
        assert!(md.contains(
            "Example response, an excerpt of the file this URL serves, from this build;"
        ));
        assert!(md.contains("```\n{\n  \"tag\": \"rust\"\n}\n```"));
    }

    #[test]
    fn every_field_of_every_response_is_documented() {
        let html = portal(&config(), &vec![None; 8], &vec![None; 8]).to_html();
        let schemas = component_schemas(&crate::model::Languages::seed());
        for (name, schema) in &schemas {
            for field in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|p| p.keys())
            {
                assert!(
                    html.contains(&format!("<code>{field}</code>")),
                    "{name}.{field}"
                );
            }
        }
    }
}
