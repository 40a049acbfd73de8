//! The endpoints and resources of the portal, from the site's operations (`operations`) and the OpenAPI component
//! schemas.

use super::examples::EXCERPT_NOTE;
use super::section;
use crate::config::SiteConfig;
use crate::http::{ALLOW_ORIGIN, CACHE_CONTROL};
use crate::operations::{Operation, operations};
use crate::render::docs::page::{Block, Inline, code, heading, link, strong, text};
use crate::render::docs::schema_doc::{
    enum_values, fields_table, has_section, schema_anchor, type_of,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// The type an operation returns, linked to the section of its schema (or of its entries').
fn response_type(op: &Operation, schemas: &Map<String, Value>) -> Vec<Inline> {
    type_of(
        &json!({ "$ref": format!("#/components/schemas/{}", op.response) }),
        schemas,
    )
}

pub(super) fn endpoints(
    config: &SiteConfig,
    examples: &[Option<String>],
    responses: &[Option<String>],
    schemas: &Map<String, Value>,
    documented: &mut BTreeSet<String>,
) -> Vec<Block> {
    let mut blocks = vec![section("endpoints")];
    let ops = operations(&config.languages);
    let rows = ops
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
    for ((op, example), response) in ops.iter().zip(examples).zip(responses) {
        blocks.extend(endpoint(
            config,
            op,
            example.as_deref(),
            response.as_deref(),
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
    response: Option<&str>,
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
                .map(|p| {
                    vec![
                        code(p.name()),
                        text(": "),
                        text(p.description(&config.languages)),
                    ]
                })
                .collect(),
        ));
    }
    let mut example_line = vec![text("Live example: ")];
    example_line.extend(example_link(config, example));
    blocks.push(Block::Paragraph(example_line));
    if let Some(response) = response {
        blocks.push(Block::Paragraph(vec![text(format!(
            "Example response, {EXCERPT_NOTE}:"
        ))]));
        blocks.push(Block::Code(response.to_string()));
    }
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
        let first = operations(&config.languages)
            .into_iter()
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
pub(super) fn schema_section(level: u8, name: &str, schemas: &Map<String, Value>) -> Vec<Block> {
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
pub(super) fn rich(description: &str) -> Vec<Inline> {
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

pub(super) fn resources(schemas: &Map<String, Value>, documented: &BTreeSet<String>) -> Vec<Block> {
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
