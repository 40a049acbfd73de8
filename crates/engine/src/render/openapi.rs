//! `openapi.json`: an OpenAPI 3.1 description generated from the wire types and the operation
//! table, so it describes exactly what the build writes.

use crate::config::SiteConfig;
use crate::http::{ALLOW_ORIGIN, CACHE_CONTROL};
use crate::languages::slug_languages;
use crate::model::{Languages, SLUG_PATTERN, ascii_name};
use crate::operations::{OPERATION_TAGS, PathParam, operations};
use crate::wire;
use schemars::SchemaGenerator;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

/// The component schemas: every resource of the contract, by name, for a site with
/// `languages` (the `Language` enum, the id pattern).
pub fn component_schemas(languages: &Languages) -> Map<String, Value> {
    let mut generator: SchemaGenerator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
            s.contract = Contract::Serialize;
        })
        .into_generator();
    generator.subschema_for::<wire::Language>();
    generator.subschema_for::<wire::PostIndex>();
    generator.subschema_for::<wire::SeriesListing<'static>>();
    generator.subschema_for::<wire::SeriesDetail<'static>>();
    generator.subschema_for::<wire::TagTimeline<'static>>();
    generator.subschema_for::<wire::SlidesTimeline>();
    generator.subschema_for::<wire::ApiIndex>();
    generator.subschema_for::<wire::Error>();
    let mut schemas = generator.take_definitions(true);
    for schema in schemas.values_mut() {
        tidy(schema);
        with_languages(schema, languages);
    }
    schemas.insert(
        "Language".into(),
        json!({ "type": "string", "enum": codes(languages), "description": "A content language." }),
    );
    schemas.sort_keys();
    schemas
}

/// The site's language codes, in its order.
fn codes(languages: &Languages) -> Vec<&'static str> {
    languages.all().iter().map(|lang| lang.as_str()).collect()
}

/// The wire types' patterns and words are the seed's (`^(en|es)/...`, "always English"): a
/// site's name its own languages.
fn with_languages(schema: &mut Value, languages: &Languages) {
    const SEED: &str = "^(en|es)/";
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(pattern)) = object.get_mut("pattern")
                && let Some(rest) = pattern.strip_prefix(SEED)
            {
                *pattern = format!("^({})/{rest}", codes(languages).join("|"));
            }
            if let Some(Value::String(description)) = object.get_mut("description") {
                *description = slug_languages(languages).reword(description);
            }
            object
                .values_mut()
                .for_each(|value| with_languages(value, languages));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|value| with_languages(value, languages)),
        _ => {}
    }
}

/// Optional fields are left out when they do not apply, never `null`: schemars types an
/// optional `Option<T>` as "T or null", so drop the null where the field is not required.
/// Also drop schemars' Rust-specific integer formats (`uint`), which are not OpenAPI formats.
fn tidy(schema: &mut Value) {
    let Value::Object(object) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(tidy);
        }
        return;
    };
    if matches!(object.get("format").and_then(Value::as_str), Some(f) if f.starts_with("uint")) {
        object.remove("format");
    }
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                drop_null(property);
            }
        }
    }
    for value in object.values_mut() {
        tidy(value);
    }
}

fn drop_null(property: &mut Value) {
    if let Some(Value::Array(types)) = property.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types[0].clone();
            property["type"] = only;
        }
    }
}

fn parameter(param: PathParam, languages: &Languages) -> Value {
    match param {
        PathParam::Lang => json!({
            "name": "lang",
            "in": "path",
            "required": true,
            "description": PathParam::Lang.description(languages),
            "schema": { "type": "string", "enum": codes(languages) }
        }),
        PathParam::Slug => json!({
            "name": "slug",
            "in": "path",
            "required": true,
            "description": PathParam::Slug.description(languages),
            "schema": { "type": "string", "pattern": SLUG_PATTERN }
        }),
        PathParam::Tag => json!({
            "name": "tag",
            "in": "path",
            "required": true,
            "description": PathParam::Tag.description(languages),
            "schema": { "type": "string", "pattern": SLUG_PATTERN }
        }),
    }
}

/// The whole OpenAPI 3.1 document.
pub fn openapi_document(config: &SiteConfig) -> Value {
    let mut paths = Map::new();
    let languages = &config.languages;
    for op in operations(languages) {
        let parameters: Vec<Value> = op
            .params
            .iter()
            .map(|p| json!({ "$ref": format!("#/components/parameters/{}", p.name()) }))
            .collect();
        let mut get = json!({
            "operationId": op.id,
            "tags": [op.tag],
            "summary": op.summary,
            "description": op.description,
            "responses": {
                "200": {
                    "description": format!("The {} resource.", op.response),
                    "headers": {
                        "Cache-Control": { "$ref": "#/components/headers/Cache-Control" },
                        "Access-Control-Allow-Origin": { "$ref": "#/components/headers/Access-Control-Allow-Origin" }
                    },
                    "content": {
                        "application/json": {
                            "schema": { "$ref": format!("#/components/schemas/{}", op.response) }
                        }
                    }
                },
                "404": { "$ref": "#/components/responses/NotFound" },
                "500": { "$ref": "#/components/responses/InternalError" }
            }
        });
        if !parameters.is_empty() {
            get["parameters"] = Value::Array(parameters);
        }
        // A series or tag can disappear; its URLs then answer 410 rather than 404.
        if op.params.iter().any(|p| *p != PathParam::Lang) {
            get["responses"]["410"] = json!({ "$ref": "#/components/responses/Gone" });
        }
        paths.insert(op.path_template.to_string(), json!({ "get": get }));
    }
    let mut contact = Map::new();
    contact.insert("name".into(), config.contact.name.clone().into());
    if let Some(email) = &config.contact.email {
        contact.insert("email".into(), email.clone().into());
    }
    if let Some(url) = &config.contact.url {
        contact.insert("url".into(), url.clone().into());
    }
    let error_response = |description: &str| {
        json!({
            "description": description,
            "headers": {
                "Cache-Control": { "$ref": "#/components/headers/Cache-Control" },
                "Access-Control-Allow-Origin": { "$ref": "#/components/headers/Access-Control-Allow-Origin" }
            },
            "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } }
        })
    };
    // Client generators name the package after the title (openapi-python-client: its project
    // and module names), and a non-ASCII name makes a package that does not install: the title
    // is ASCII (`ascii_name`, else the host), the name as written is the summary.
    let title = format!("{} API", config.name);
    let ascii_title = match ascii_name(&config.name) {
        Some(name) => format!("{name} API"),
        None => {
            let host = url::Url::parse(&config.base_url)
                .ok()
                .and_then(|url| url.host_str().map(str::to_string))
                .unwrap_or_else(|| "localhost".into());
            format!("{host} API")
        }
    };
    let summary = (ascii_title != title).then_some(title);
    let mut document = json!({
        "openapi": "3.1.0",
        "info": {
            "title": ascii_title,
            "summary": summary,
            "version": config.api_version,
            "description": format!("{} Every endpoint is a pre-generated static JSON file: public, anonymous and read-only (GET and HEAD only). Content is licensed {}.", config.description, config.licence.name),
            "contact": contact,
            "license": match &config.licence.url {
                Some(url) => json!({ "name": config.licence.name, "url": url }),
                None => json!({ "name": config.licence.name }),
            }
        },
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "servers": [{ "url": config.base_url }],
        "tags": OPERATION_TAGS
            .iter()
            .map(|(name, description)| json!({ "name": name, "description": description }))
            .collect::<Vec<_>>(),
        "security": [],
        "externalDocs": { "description": "Developer portal", "url": config.url(super::index::listed_document("developers").path) },
        "paths": paths,
        "components": {
            "schemas": component_schemas(languages),
            "parameters": {
                "lang": parameter(PathParam::Lang, languages),
                "slug": parameter(PathParam::Slug, languages),
                "tag": parameter(PathParam::Tag, languages)
            },
            "headers": {
                "Cache-Control": {
                    "description": "Responses are cacheable for one hour.",
                    "schema": { "type": "string", "const": CACHE_CONTROL }
                },
                "Access-Control-Allow-Origin": {
                    "description": "CORS is open.",
                    "schema": { "type": "string", "const": ALLOW_ORIGIN }
                }
            },
            "responses": {
                "NotFound": error_response("No resource exists at that path (resource_not_found)."),
                "Gone": error_response("The resource existed and was permanently removed (gone)."),
                "InternalError": error_response("The request could not be completed; retrying is safe (internal_error).")
            }
        }
    });
    if summary.is_none()
        && let Some(info) = document["info"].as_object_mut()
    {
        info.remove("summary");
    }
    document
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document() -> Value {
        openapi_document(&SiteConfig::defaults(camino::Utf8Path::new(".")))
    }

    #[test]
    fn every_operation_has_a_declared_tag() {
        let doc = document();
        let declared: Vec<&str> = doc["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        for (path, item) in doc["paths"].as_object().unwrap() {
            let tags = item["get"]["tags"].as_array().unwrap();
            assert_eq!(tags.len(), 1, "{path}");
            assert!(declared.contains(&tags[0].as_str().unwrap()), "{path}");
        }
    }

    #[test]
    fn the_deck_type_is_a_plain_string_enum() {
        let doc = document();
        assert_eq!(
            doc["components"]["schemas"]["SlideDeckType"],
            json!({
                "description": doc["components"]["schemas"]["SlideDeckType"]["description"],
                "type": "string",
                "enum": ["internal", "external-embed", "external-link"]
            })
        );
    }
}
