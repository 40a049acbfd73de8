//! Human-readable field tables from the OpenAPI component schemas, so the developer portal
//! documents exactly the schemas `openapi.json` publishes.

use super::page::{Block, Inline, code, link, text};
use serde_json::{Map, Value};

/// The fragment of a schema's section in the portal: `#schema-timelinepost`.
pub fn schema_anchor(name: &str) -> String {
    format!("schema-{}", name.to_ascii_lowercase())
}

/// Whether `name` is documented in its own section: objects with fields, and enumerations.
pub fn has_section(schemas: &Map<String, Value>, name: &str) -> bool {
    schemas
        .get(name)
        .is_some_and(|s| s.get("properties").is_some() || enum_values(s).is_some())
}

/// The values of an enumeration schema (`enum`, or `oneOf` of `const`s), with their
/// descriptions.
pub fn enum_values(schema: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(
            values
                .iter()
                .map(|v| (v.as_str().unwrap_or_default().to_string(), None))
                .collect(),
        );
    }
    let variants = schema.get("oneOf")?.as_array()?;
    variants
        .iter()
        .map(|v| {
            let value = v.get("const")?.as_str()?.to_string();
            let description = v.get("description").and_then(Value::as_str);
            Some((value, description.map(str::to_string)))
        })
        .collect()
}

/// The type of a property, with links to the sections of named schemas.
pub fn type_of(schema: &Value, schemas: &Map<String, Value>) -> Vec<Inline> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return if has_section(schemas, name) {
            vec![link(name, format!("#{}", schema_anchor(name)))]
        } else {
            schemas
                .get(name)
                .map(|target| type_of(target, schemas))
                .unwrap_or_else(|| vec![text(name)])
        };
    }
    if let Some(constant) = schema.get("const") {
        return vec![code(constant.to_string())];
    }
    let format = schema.get("format").and_then(Value::as_str);
    let named = |name: &str| match format {
        Some(format) => format!("{name} ({format})"),
        None => name.to_string(),
    };
    match schema.get("type") {
        Some(Value::Array(types)) => {
            let names: Vec<String> = types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| if t == "null" { t.to_string() } else { named(t) })
                .collect();
            vec![text(names.join(" or "))]
        }
        Some(Value::String(t)) if t == "array" => {
            let mut out = vec![text("array of ")];
            out.extend(type_of(
                schema.get("items").unwrap_or(&Value::Null),
                schemas,
            ));
            out
        }
        Some(Value::String(t)) if t == "object" => match schema.get("additionalProperties") {
            Some(values @ Value::Object(_)) => {
                let mut out = vec![text("map of string to ")];
                out.extend(type_of(values, schemas));
                out
            }
            _ => vec![text("object")],
        },
        Some(Value::String(t)) => vec![text(named(t))],
        _ => vec![text("any")],
    }
}

/// The notes on a property: its description, then its pattern or range.
fn notes(property: &Value) -> Vec<Inline> {
    let mut out = Vec::new();
    if let Some(description) = property.get("description").and_then(Value::as_str) {
        out.push(text(description));
    }
    if let Some(pattern) = property.get("pattern").and_then(Value::as_str) {
        out.push(text(if out.is_empty() {
            "Pattern "
        } else {
            " Pattern "
        }));
        out.push(code(pattern));
        out.push(text("."));
    }
    if let Some(minimum) = property.get("minimum").and_then(Value::as_i64)
        && minimum > 0
    {
        let sep = if out.is_empty() { "" } else { " " };
        out.push(text(format!("{sep}At least {minimum}.")));
    }
    out
}

/// The table of an object schema's fields: name, type, whether it is always present, notes.
pub fn fields_table(name: &str, schemas: &Map<String, Value>) -> Option<Block> {
    let schema = schemas.get(name)?;
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows = properties
        .iter()
        .map(|(field, property)| {
            let presence = if required.contains(&field.as_str()) {
                "always"
            } else {
                "optional (absent when it does not apply)"
            };
            vec![
                vec![code(field)],
                type_of(property, schemas),
                vec![text(presence)],
                notes(property),
            ]
        })
        .collect();
    Some(Block::Table {
        head: vec![
            "Field".into(),
            "Type".into(),
            "Present".into(),
            "Notes".into(),
        ],
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::openapi::component_schemas;

    #[test]
    fn types_link_to_named_schemas_and_inline_plain_ones() {
        let schemas = component_schemas(&crate::model::Languages::seed());
        let render = |inlines: Vec<Inline>| -> String {
            inlines
                .iter()
                .map(|i| match i {
                    Inline::Text(t) | Inline::Code(t) | Inline::Strong(t) => t.clone(),
                    Inline::Link { text, href } => format!("[{text}]({href})"),
                })
                .collect()
        };
        let detail = &schemas["SeriesDetail"]["properties"];
        assert_eq!(
            render(type_of(&detail["posts"], &schemas)),
            "array of [TimelinePost](#schema-timelinepost)"
        );
        assert_eq!(
            render(type_of(&detail["lang"], &schemas)),
            "[Language](#schema-language)"
        );
        let entry = &schemas["TimelinePost"]["properties"];
        assert_eq!(
            render(type_of(&entry["pubDate"], &schemas)),
            "string (date-time)"
        );
        assert_eq!(
            render(type_of(&entry["heroImage"], &schemas)),
            "string or null"
        );
        let index = &schemas["ApiIndex"]["properties"];
        assert_eq!(
            render(type_of(&index["links"], &schemas)),
            "map of string to string (uri)"
        );
    }

    #[test]
    fn every_field_of_an_object_schema_is_a_row() {
        let schemas = component_schemas(&crate::model::Languages::seed());
        let Some(Block::Table { rows, .. }) = fields_table("TimelinePost", &schemas) else {
            panic!("TimelinePost has fields");
        };
        let count = schemas["TimelinePost"]["properties"]
            .as_object()
            .unwrap()
            .len();
        assert_eq!(rows.len(), count);
        assert!(fields_table("Language", &schemas).is_none());
        assert_eq!(enum_values(&schemas["Language"]).unwrap().len(), 2);
        assert_eq!(enum_values(&schemas["SlideDeckType"]).unwrap().len(), 3);
    }
}
