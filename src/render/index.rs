//! `api/index.json` (getApiIndex): the entry point, with every URL the templates resolve to.

use super::operations::{OPERATIONS, PathParam};
use super::output::Output;
use super::wire::{ApiIndex, Authentication, Endpoint, ErrorFormat, Versioning, to_json};
use crate::db::Site;
use crate::derive::{series_names, tag_names};
use crate::model::Lang;

/// The machine-readable documents the index links to: (link name, site-absolute path). Each
/// one is a file of the build; `output_plan` checks this in debug builds.
pub const DOCUMENTS: [(&str, &str); 1] = [("openapi", "/openapi.json")];

pub const VERSIONING_POLICY: &str = "Semantic versioning. Additive changes (new endpoints, new optional fields) ship without notice and without a version change in the path; clients ignore fields they do not know. Breaking changes (a removed or retyped field, a removed endpoint) ship under the path prefix /api/v2/. Unprefixed paths are never reused for another purpose and keep working for at least six months after a new prefix ships.";

pub const AUTHENTICATION: &str = "None. Every endpoint is public, anonymous and read-only: there is no API key, registration, account, OAuth flow or tier, and credentials sent with a request are ignored.";

/// Built from the operation table and the current tag and series names, so it changes only when
/// the set of URLs (or the configuration) changes.
#[salsa::tracked(returns(ref))]
pub fn api_index_json(db: &dyn salsa::Database) -> Output {
    let site = Site::get(db);
    let config = site.config(db);
    let names = |lang: Lang, param: PathParam| -> Vec<String> {
        let tree = site.tree(db, lang);
        let names = match param {
            PathParam::Slug => series_names(db, tree),
            PathParam::Tag => tag_names(db, tree),
            PathParam::Lang => unreachable!("lang is expanded separately"),
        };
        names.iter().map(|name| name.to_string()).collect()
    };
    let endpoints: Vec<Endpoint> = OPERATIONS
        .iter()
        .map(|op| {
            let mut urls = Vec::new();
            match op.params {
                [] => urls.push(config.url(op.path_template)),
                [PathParam::Lang] => {
                    for lang in Lang::ALL {
                        urls.push(config.url(&op.path_template.replace("{lang}", lang.as_str())));
                    }
                }
                [PathParam::Lang, param] => {
                    for lang in Lang::ALL {
                        let with_lang = op.path_template.replace("{lang}", lang.as_str());
                        let placeholder = format!("{{{}}}", param.name());
                        for name in names(lang, *param) {
                            urls.push(config.url(&with_lang.replace(&placeholder, &name)));
                        }
                    }
                }
                other => unreachable!("no operation has parameters {other:?}"),
            }
            Endpoint {
                operation_id: op.id.into(),
                description: op.description.into(),
                path_template: op.path_template.into(),
                urls,
            }
        })
        .collect();
    let links = DOCUMENTS
        .iter()
        .map(|(name, path)| {
            (
                name.to_string(),
                serde_json::Value::String(config.url(path)),
            )
        })
        .collect();
    let index = ApiIndex {
        name: config.name.clone(),
        description: config.description.clone(),
        version: config.api_version.clone(),
        versioning: Versioning {
            policy: VERSIONING_POLICY.into(),
            current: config.api_version.clone(),
            documentation_url: config.url("/developers#versioning"),
        },
        authentication: Authentication {
            required: false,
            scheme: "none".into(),
            description: AUTHENTICATION.into(),
            documentation_url: config.url("/developers#authentication"),
        },
        methods: vec!["GET".into(), "HEAD".into()],
        error_format: ErrorFormat {
            media_type: "application/json".into(),
            description: "Errors are RFC 9457 problem-details bodies (type, title, status, detail, instance) extended with a nested `error` object (code, message, hint, documentation_url). Codes: resource_not_found (404), method_not_allowed (405), gone (410), internal_error (500). HTML is never returned under /api/.".into(),
            documentation_url: config.url("/developers#errors"),
        },
        links,
        total: endpoints.len(),
        endpoints,
    };
    Output::new(to_json(&index))
}
