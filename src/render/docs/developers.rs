//! The developer portal the contract points at (`{base_url}/developers`): an HTML page
//! (`developers/index.html`, readable without any script) and its Markdown twin
//! (`developers.md`), both rendered from one [`Page`] built from the same operation table,
//! schemas and constants as `openapi.json` and `api/index.json`.

use super::page::{Block, Inline, Page, code, heading, link, strong, text};
use super::schema_doc::{enum_values, fields_table, has_section, schema_anchor, type_of};
use crate::config::SiteConfig;
use crate::db::Site;
use crate::render::Output;
use crate::render::index::{
    AUTHENTICATION, DOCUMENTS, ERROR_FORMAT, VERSIONING_POLICY, document, resolved_paths,
};
use crate::render::openapi::component_schemas;
use crate::render::operations::{ALLOW_ORIGIN, CACHE_CONTROL, OPERATIONS, Operation};
use crate::render::problem::{STATIC_PROBLEMS, static_problem};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// Both forms of the portal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeveloperDocs {
    pub html: Output,
    pub markdown: Output,
}

/// The portal. Re-runs when the configuration or the set of URLs changes (each endpoint shows
/// a live example: the first URL its template resolves to).
#[salsa::tracked(returns(ref))]
pub fn developer_docs(db: &dyn salsa::Database) -> DeveloperDocs {
    let config = Site::get(db).config(db);
    let examples: Vec<Option<String>> = OPERATIONS
        .iter()
        .map(|op| resolved_paths(db, op).into_iter().next())
        .collect();
    let page = portal(config, &examples);
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

/// The whole page; `examples` holds each operation's first resolved path (in `OPERATIONS`
/// order), if any.
pub fn portal(config: &SiteConfig, examples: &[Option<String>]) -> Page {
    let schemas = component_schemas();
    // Each schema's table appears once: under the first endpoint that returns it, in the
    // error section, or else in the resources section.
    let mut documented = BTreeSet::new();
    let errors = errors(config, &schemas, &mut documented);
    let endpoints = endpoints(config, examples, &schemas, &mut documented);
    let mut blocks = intro(config);
    blocks.extend(quickstart(config, examples));
    blocks.extend(endpoints);
    blocks.extend(resources(&schemas, &documented));
    blocks.extend(errors);
    blocks.extend(policies(config));
    blocks.extend(documents(config));
    Page {
        title: format!("{} API: developer documentation", config.name),
        html_url: config.url(document("developers").path),
        markdown_url: config.url(document("developers_markdown").path),
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
            link("openapi.json", config.url(document("openapi").path)),
            text("; this page is also available "),
            link(
                "as Markdown",
                config.url(document("developers_markdown").path),
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
    let example = example_of(examples, "getTimelineByTag")
        .or_else(|| example_of(examples, "listPostsInEnglish"))
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

fn example_of<'a>(examples: &'a [Option<String>], id: &str) -> Option<&'a str> {
    let at = OPERATIONS.iter().position(|op| op.id == id)?;
    examples.get(at)?.as_deref()
}

/// The type an operation returns, linked to the section of its schema (or of its entries').
fn response_type(op: &Operation, schemas: &Map<String, Value>) -> Vec<Inline> {
    type_of(
        &json!({ "$ref": format!("#/components/schemas/{}", op.response) }),
        schemas,
    )
}

fn endpoints(
    config: &SiteConfig,
    examples: &[Option<String>],
    schemas: &Map<String, Value>,
    documented: &mut BTreeSet<String>,
) -> Vec<Block> {
    let mut blocks = vec![section("endpoints")];
    let rows = OPERATIONS
        .iter()
        .zip(examples)
        .map(|(op, example)| {
            vec![
                vec![link(op.id, format!("#{}", op.id))],
                vec![code(format!("GET {}", op.path_template))],
                response_type(op, schemas),
                example_link(config, example.as_deref()),
            ]
        })
        .collect();
    blocks.push(Block::Table {
        head: vec![
            "Operation".into(),
            "Path".into(),
            "Returns".into(),
            "Live example".into(),
        ],
        rows,
    });
    for (op, example) in OPERATIONS.iter().zip(examples) {
        blocks.extend(endpoint(
            config,
            op,
            example.as_deref(),
            schemas,
            documented,
        ));
    }
    blocks
}

fn example_link(config: &SiteConfig, example: Option<&str>) -> Vec<Inline> {
    match example {
        Some(path) => vec![link(path, config.url(path))],
        None => vec![text("none yet (no value of the parameter exists)")],
    }
}

fn endpoint(
    config: &SiteConfig,
    op: &Operation,
    example: Option<&str>,
    schemas: &Map<String, Value>,
    documented: &mut BTreeSet<String>,
) -> Vec<Block> {
    let mut blocks = vec![
        heading(3, Some(op.id), op.id),
        Block::Paragraph(vec![strong("GET"), text(" "), code(op.path_template)]),
        Block::Paragraph(rich(op.description)),
    ];
    if !op.params.is_empty() {
        blocks.push(Block::List(
            op.params
                .iter()
                .map(|p| vec![code(p.name()), text(": "), text(p.description())])
                .collect(),
        ));
    }
    let mut example_line = vec![text("Live example: ")];
    example_line.extend(example_link(config, example));
    blocks.push(Block::Paragraph(example_line));
    let response = &schemas[op.response];
    let mut returns = vec![text("Returns ")];
    if !has_section(schemas, op.response) {
        // An array: name it, then say what its entries are.
        returns.extend([code(op.response), text(", ")]);
    }
    returns.extend(response_type(op, schemas));
    if let Some(description) = response.get("description").and_then(Value::as_str) {
        returns.push(text(": "));
        returns.extend(rich(description));
    }
    blocks.push(Block::Paragraph(returns));
    // The fields of the response (the object itself, or the entries of an array), shown here
    // the first time an endpoint returns them.
    let shown = match response.get("items").and_then(|i| i.get("$ref")) {
        Some(Value::String(reference)) => reference.rsplit('/').next().unwrap_or(op.response),
        _ => op.response,
    };
    if documented.insert(shown.to_string()) {
        blocks.extend(schema_section(4, shown, schemas));
    } else {
        let first = OPERATIONS
            .iter()
            .find(|other| {
                other.response == op.response
                    || schemas[other.response]["items"]["$ref"]
                        .as_str()
                        .is_some_and(|r| r.ends_with(&format!("/{shown}")))
            })
            .map_or(op.id, |other| other.id);
        blocks.push(Block::Paragraph(vec![
            text("Fields: see "),
            link(shown, format!("#{}", schema_anchor(shown))),
            text(" under "),
            link(first, format!("#{first}")),
            text("."),
        ]));
    }
    blocks.push(Block::Paragraph(vec![
        text("Responses: 200 with "),
        code("application/json"),
        text("; 404 and 500 with an "),
        link("error body", "#errors"),
        text(". Headers: "),
        code(format!("Cache-Control: {CACHE_CONTROL}")),
        text(", "),
        code(format!("Access-Control-Allow-Origin: {ALLOW_ORIGIN}")),
        text("."),
    ]));
    blocks
}

/// A schema's heading (with its `#schema-` anchor), description, values and fields.
fn schema_section(level: u8, name: &str, schemas: &Map<String, Value>) -> Vec<Block> {
    let schema = &schemas[name];
    let mut blocks = vec![heading(level, Some(&schema_anchor(name)), name)];
    if let Some(description) = schema.get("description").and_then(Value::as_str) {
        blocks.push(Block::Paragraph(rich(description)));
    }
    if let Some(values) = enum_values(schema) {
        blocks.push(Block::List(
            values
                .into_iter()
                .map(|(value, description)| {
                    let mut item = vec![code(value)];
                    if let Some(description) = description {
                        item.push(text(": "));
                        item.extend(rich(&description));
                    }
                    item
                })
                .collect(),
        ));
    }
    blocks.extend(fields_table(name, schemas));
    blocks
}

/// Text whose `backticked` parts are code, as the doc comments the schemas come from write it.
fn rich(description: &str) -> Vec<Inline> {
    if description.matches('`').count() % 2 == 1 {
        return vec![text(description)];
    }
    description
        .split('`')
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(i, part)| if i % 2 == 1 { code(part) } else { text(part) })
        .collect()
}

fn resources(schemas: &Map<String, Value>, documented: &BTreeSet<String>) -> Vec<Block> {
    let mut blocks = vec![
        section("resources"),
        Block::Paragraph(vec![
            text("The other resources, as "),
            code("components.schemas"),
            text(" of openapi.json declares them. Clients ignore fields they do not know."),
        ]),
    ];
    for name in schemas.keys() {
        if has_section(schemas, name) && !documented.contains(name) {
            blocks.extend(schema_section(3, name, schemas));
        }
    }
    blocks
}

fn errors(
    config: &SiteConfig,
    schemas: &Map<String, Value>,
    documented: &mut BTreeSet<String>,
) -> Vec<Block> {
    let mut blocks = vec![
        section("errors"),
        Block::Paragraph(rich(ERROR_FORMAT)),
        Block::Paragraph(vec![
            text("The "),
            code("type"),
            text(" of every error is this section ("),
            code(config.url("/developers#errors")),
            text(") and "),
            code("error.documentation_url"),
            text(" is this page."),
        ]),
    ];
    for name in ["Error", "ErrorDetail", "ErrorCode"] {
        documented.insert(name.to_string());
    }
    blocks.extend(schema_section(3, "Error", schemas));
    blocks.extend(schema_section(3, "ErrorDetail", schemas));
    blocks.push(heading(3, Some(&schema_anchor("ErrorCode")), "ErrorCode"));
    let rows = STATIC_PROBLEMS
        .iter()
        .map(|&(code_value, path)| {
            let body = static_problem(config, code_value);
            vec![
                vec![code(code_value.as_str())],
                vec![text(format!("{} {}", body.status, body.title))],
                vec![text(format!("{} {}", body.error.message, body.error.hint))],
                vec![link(format!("/{path}"), config.url(&format!("/{path}")))],
            ]
        })
        .collect();
    blocks.push(Block::Paragraph(vec![text(
        "The machine-readable code of an error, and the static body a host serves for each status:",
    )]));
    blocks.push(Block::Table {
        head: vec![
            "error.code".into(),
            "Status".into(),
            "Message and hint".into(),
            "Static body".into(),
        ],
        rows,
    });
    blocks.push(Block::Paragraph(vec![
        text("A path with no resource (an unsupported language, an unknown slug or tag) is a 404 with "),
        code("resource_not_found"),
        text("; a method other than GET or HEAD is a 405 with "),
        code("method_not_allowed"),
        text("."),
    ]));
    blocks
}

fn policies(config: &SiteConfig) -> Vec<Block> {
    vec![
        section("versioning"),
        Block::Paragraph(vec![text(VERSIONING_POLICY)]),
        Block::Paragraph(vec![
            text("Current version: "),
            code(&config.api_version),
            text(". Read it at run time from the "),
            code("version"),
            text(" and "),
            code("versioning"),
            text(" fields of "),
            link("/api/index.json", config.url("/api/index.json")),
            text("."),
        ]),
        section("authentication"),
        Block::Paragraph(vec![text(AUTHENTICATION)]),
        Block::Paragraph(vec![
            text("The index reports "),
            code("authentication.required: false"),
            text(" and "),
            code("authentication.scheme: \"none\""),
            text(". The access policy is also published as "),
            link("auth.md", config.url(document("auth").path)),
            text("."),
        ]),
        section("limits"),
        Block::List(vec![
            vec![text(
                "Rate limit: none at the application level. The files are static assets behind a content delivery network, which applies its own network-level abuse protection.",
            )],
            vec![
                text("Caching: every response carries "),
                code(format!("Cache-Control: {CACHE_CONTROL}")),
                text(", so data can be up to one hour old; do not poll more often."),
            ],
            vec![
                text("CORS is open: "),
                code(format!("Access-Control-Allow-Origin: {ALLOW_ORIGIN}")),
                text("."),
            ],
            vec![text(
                "Only GET and HEAD; no query parameters and no request bodies; every endpoint path ends in .json.",
            )],
            vec![
                text("Sizes are not limited. "),
                code("/api/posts.json"),
                text(" holds both languages; prefer the per-language lists when you need one."),
            ],
        ]),
    ]
}

fn documents(config: &SiteConfig) -> Vec<Block> {
    let rows = DOCUMENTS
        .iter()
        .map(|doc| {
            vec![
                vec![text(doc.title)],
                vec![link(doc.path, config.url(doc.path))],
                vec![text(doc.purpose)],
            ]
        })
        .collect();
    vec![
        section("documents"),
        Block::Paragraph(vec![
            text(
                "Every document below is generated from the content by the same build as the API, so none of them can drift from it. ",
            ),
            code("links"),
            text(" of /api/index.json names each one."),
        ]),
        Block::Table {
            head: vec!["Document".into(), "URL".into(), "Purpose".into()],
            rows,
        },
        section("licence"),
        Block::Paragraph(vec![
            text(format!("Content by {} is licensed ", config.author)),
            link(&config.licence.name, &config.licence.url),
            text(
                ": reuse is allowed, including for training and grounding, with attribution to the author and a link to the source.",
            ),
        ]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SiteConfig;

    fn config() -> SiteConfig {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        config.name = "R&D <notes>".into();
        config
    }

    #[test]
    fn the_page_has_every_anchor_the_api_links_to() {
        let html = portal(&config(), &vec![None; 8]).to_html();
        for id in [
            "quickstart",
            "errors",
            "versioning",
            "authentication",
            "limits",
        ] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        for op in &OPERATIONS {
            assert!(html.contains(&format!("id=\"{}\"", op.id)), "{}", op.id);
        }
        assert!(html.contains("R&amp;D &lt;notes&gt;"));
        assert!(!html.contains("<notes>"));
        assert!(!html.contains("<script"));
    }

    #[test]
    fn every_endpoint_shows_its_live_example() {
        let mut examples = vec![None; 8];
        examples[6] = Some("/api/timeline/en/rust.json".to_string());
        let md = portal(&config(), &examples).to_markdown();
        assert!(md.contains(
            "Live example: [/api/timeline/en/rust.json](http://localhost:4321/api/timeline/en/rust.json)"
        ));
        assert!(md.contains("curl -s http://localhost:4321/api/timeline/en/rust.json"));
        assert!(md.contains("none yet"));
    }

    #[test]
    fn every_field_of_every_response_is_documented() {
        let html = portal(&config(), &vec![None; 8]).to_html();
        let schemas = component_schemas();
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
