//! The two catalogs: `.well-known/api-catalog` (RFC 9727) and `.well-known/ai-catalog.json`
//! (AI Catalog).

use super::licence::reuse_clause;
use super::skill_output_file;
use super::skills::published_skills;
use crate::config::SiteConfig;
use crate::db::Globals;
use crate::media::{API_CATALOG_PROFILE, media_type};
use crate::operations::Operation;
use crate::output::Output;
use crate::parse::skill_meta;
use crate::render::index::{LISTED_DOCUMENTS, ListedDocument, listed_document};
use crate::wire::to_json;
use serde_json::{Value, json};

/// One target link of a linkset: `href`, plus `type` from the media type of the file it is
/// served from.
fn target(config: &SiteConfig, doc: &ListedDocument) -> Value {
    json!({ "href": config.url(doc.path), "type": media_type(doc.file) })
}

/// The RFC 9727 API catalog: an RFC 9264 linkset (`application/linkset+json`, with the RFC 9727
/// profile as its media type parameter, see [`media_type`]).
///
/// Two link contexts. The catalog itself links the API with `item` (RFC 9727 section 4.1: the
/// catalog MUST link each API) and names its `profile` (RFC 6906). The API, identified by its
/// entry point `api/index.json` (the document that describes its purpose and usage policy, as
/// RFC 9727 asks of an `item` target), links its machine-readable description (`service-desc`,
/// RFC 8631), its documentation for people and for language models (`service-doc`), its
/// metadata (`service-meta`: the index, with version, versioning and authentication, and the
/// access policy) and its licence.
pub fn api_catalog(config: &SiteConfig) -> String {
    let index =
        json!({ "href": config.url("/api/index.json"), "type": media_type("api/index.json") });
    let mut catalog = json!({
        "linkset": [
            {
                "anchor": config.url(listed_document("api_catalog").path),
                "item": [index],
                "profile": [{ "href": API_CATALOG_PROFILE }]
            },
            {
                "anchor": config.url("/api/index.json"),
                "service-desc": [target(config, listed_document("openapi"))],
                "service-doc": [
                    target(config, listed_document("developers")),
                    target(config, listed_document("developers_markdown")),
                    target(config, listed_document("llms_txt"))
                ],
                "service-meta": [index, target(config, listed_document("auth"))]
            }
        ]
    });
    // RFC 8288 links need a target: a licence without a URL is left out.
    if let Some(url) = &config.licence.url {
        catalog["linkset"][1]["license"] = json!([{ "href": url, "title": config.licence.name }]);
    }
    to_json(&catalog)
}

/// `{ "name", "url" }`, without `url` for a licence that has none.
fn licence_object(licence: &crate::config::Licence) -> Value {
    match &licence.url {
        Some(url) => json!({ "name": licence.name, "url": url }),
        None => json!({ "name": licence.name }),
    }
}

/// The host part of the base URL (`lucia-montoya.example`).
pub fn site_host(config: &SiteConfig) -> String {
    url::Url::parse(&config.base_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_string))
        .unwrap_or_else(|| "localhost".into())
}

/// One AI Catalog entry. `type` is the member's name since AI Catalog ADR 0014 (as the MCP
/// discovery documents use it); `mediaType` is its name in the AI Catalog 1.0 text. Both hold
/// the media type the file is served with, so readers of either revision understand the entry.
fn entry(
    identifier: String,
    display_name: &str,
    file: &str,
    url: String,
    description: &str,
) -> Value {
    json!({
        "identifier": identifier,
        "displayName": display_name,
        "type": media_type(file),
        "mediaType": media_type(file),
        "url": url,
        "description": description
    })
}

/// `.well-known/ai-catalog.json`: every agent-facing artifact of the site (the API index, the
/// discovery documents of `LISTED_DOCUMENTS`, the MCP browser module among them, and each published
/// skill), each with its URL, media type and
/// purpose, and the content licence. Follows the AI Catalog specification 1.0
/// (Agent-Card/ai-catalog: `specVersion`, `host`, `entries`, `metadata`), with identifiers in
/// the domain-anchored `urn:air:{publisher}:{namespace}:{name}` form the MCP discovery
/// documents recommend.
#[salsa::tracked(returns(ref))]
pub fn ai_catalog_json(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let host = site_host(config);
    // The API itself first, through its entry point, which lists every endpoint.
    let index = Operation::by_id("getApiIndex");
    let index_file = index.file(&[]);
    let mut entries = vec![entry(
        format!("urn:air:{host}:api:index"),
        "API index",
        &index_file,
        config.url(index.path_template),
        index.description,
    )];
    entries.extend(
        LISTED_DOCUMENTS
            .iter()
            .filter(|doc| doc.name != "ai_catalog")
            .map(|doc| {
                let namespace = if doc.name.starts_with("mcp_") {
                    "mcp"
                } else {
                    "doc"
                };
                entry(
                    format!("urn:air:{host}:{namespace}:{}", doc.name.replace('_', "-")),
                    doc.title,
                    doc.file,
                    config.url(doc.path),
                    doc.purpose,
                )
            }),
    );
    for (name, file) in published_skills(db).iter() {
        let Some(meta) = skill_meta(db, *file).as_ref() else {
            continue;
        };
        let path = skill_output_file(name);
        entries.push(entry(
            format!("urn:air:{host}:skill:{name}"),
            &format!("Agent skill: {name}"),
            &path,
            config.url(&format!("/{path}")),
            &meta.description,
        ));
    }
    let mut catalog = json!({
        "specVersion": "1.0",
        "host": {
            "displayName": config.name,
            "identifier": host,
            "documentationUrl": config.url(listed_document("developers").path)
        },
        "entries": entries,
        "metadata": { "license": licence_object(&config.licence) }
    });
    // Only a licence that requires attribution says how to attribute.
    if config.licence.requires_attribution()
        && let Some(clause) = reuse_clause(&config.licence, "with attribution")
    {
        catalog["metadata"]["attribution"] = json!(format!(
            "Content by {} ({}), licensed {}: {clause}.",
            config.author, config.name, config.licence.name
        ));
    }
    Output::new(to_json(&catalog))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_catalog_is_an_rfc_9727_linkset() {
        let config = SiteConfig::defaults(camino::Utf8Path::new("."));
        let catalog: Value = serde_json::from_str(&api_catalog(&config)).unwrap();
        let contexts = catalog["linkset"].as_array().unwrap();
        assert_eq!(
            contexts[0]["anchor"],
            "http://localhost:4321/.well-known/api-catalog"
        );
        assert_eq!(
            contexts[0]["item"][0]["href"],
            "http://localhost:4321/api/index.json"
        );
        let api = &contexts[1];
        assert_eq!(api["anchor"], contexts[0]["item"][0]["href"]);
        assert_eq!(
            api["service-desc"][0]["href"],
            "http://localhost:4321/openapi.json"
        );
        assert_eq!(api["service-desc"][0]["type"], "application/json");
        assert_eq!(
            api["service-doc"][0]["href"],
            "http://localhost:4321/developers"
        );
        assert_eq!(api["service-doc"][0]["type"], "text/html; charset=utf-8");
    }

    #[test]
    fn the_host_comes_from_the_base_url() {
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("."));
        assert_eq!(site_host(&config), "localhost");
        config.base_url = "https://lucia-montoya.example".into();
        assert_eq!(site_host(&config), "lucia-montoya.example");
    }
}
