//! The error model, the policies (versioning, authentication, limits), the discovery
//! documents and the licence, from the constants `api/index.json` and `openapi.json` use.

use super::endpoints::{rich, schema_section};
use super::section;
use crate::config::SiteConfig;
use crate::http::{ALLOW_ORIGIN, CACHE_CONTROL};
use crate::problem::{STATIC_PROBLEMS, static_problem};
use crate::render::docs::licence::{licence_name, reuse_or_see_licence};
use crate::render::docs::page::{Block, code, heading, link, text};
use crate::render::docs::schema_doc::schema_anchor;
use crate::render::index::{
    AUTHENTICATION, ERROR_FORMAT, LISTED_DOCUMENTS, VERSIONING_POLICY, listed_document,
};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

pub(super) fn errors(
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
        text("; a method other than GET or HEAD (OPTIONS included) is a 405 with "),
        code("method_not_allowed"),
        text(" and "),
        code(format!("Allow: {}", crate::http::ALLOW)),
        text(". A cross-origin GET needs no CORS preflight: send no custom headers (credentials are ignored anyway)."),
    ]));
    blocks
}

pub(super) fn policies(config: &SiteConfig) -> Vec<Block> {
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
            link("auth.md", config.url(listed_document("auth").path)),
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

pub(super) fn documents(config: &SiteConfig) -> Vec<Block> {
    let rows = LISTED_DOCUMENTS
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
            licence_name(&config.licence),
            text(format!(
                ": {}.",
                reuse_or_see_licence(
                    &config.licence,
                    "with attribution to the author and a link to the source"
                )
            )),
        ]),
    ]
}
