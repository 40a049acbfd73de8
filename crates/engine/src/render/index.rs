//! `api/index.json` (getApiIndex): the entry point, with every URL the templates resolve to.

use crate::db::Globals;
use crate::derive::{series_names, tag_names};
use crate::documents::{self, Pick};
use crate::model::Lang;
use crate::operations::{Operation, PathParam, operations};
use crate::output::Output;
use crate::wire::{ApiIndex, Authentication, Endpoint, ErrorFormat, Versioning, to_json};

/// A document the site publishes for agents and tools (contract section 4.3, plus the developer
/// portal): a listed row of the contract's output documents. `api/index.json` links every one
/// of them under `name`.
#[derive(Debug)]
pub struct ListedDocument {
    /// The key in the index's `links`.
    pub name: &'static str,
    /// The site-absolute URL path the document is linked at.
    pub path: &'static str,
    /// The output file that URL is served from (the path itself, or `{path}/index.html`).
    pub file: &'static str,
    /// A short human-readable name.
    pub title: &'static str,
    /// What it is for, in one line.
    pub purpose: &'static str,
}

const LISTED: usize = documents::count(Pick::Listed);

/// Every listed document, in the order the index and the catalogs list them: the rows of
/// `contract::documents::OUTPUT_DOCUMENTS` with a listing. `links` of `api/index.json`, the AI
/// catalog, the developer portal and `_headers` read it, and a test checks that each `file` is
/// a planned output that `path` resolves to.
pub const LISTED_DOCUMENTS: [ListedDocument; LISTED] = listed_in_the_table();

const fn listed_in_the_table() -> [ListedDocument; LISTED] {
    let rows = documents::rows::<LISTED>(Pick::Listed);
    let mut out = [const {
        ListedDocument {
            name: "",
            path: "",
            file: "",
            title: "",
            purpose: "",
        }
    }; LISTED];
    let mut i = 0;
    while i < LISTED {
        let Some(listing) = rows[i].listing else {
            panic!("a listed row has a listing");
        };
        out[i] = ListedDocument {
            name: listing.name,
            path: rows[i].path,
            file: rows[i].file,
            title: listing.title,
            purpose: listing.purpose,
        };
        i += 1;
    }
    out
}

/// The document named `name` (a name of [`LISTED_DOCUMENTS`]).
pub fn listed_document(name: &str) -> &'static ListedDocument {
    LISTED_DOCUMENTS
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no document named {name}"))
}

/// `versioning.policy` of the index: what may change without a new path prefix, and what may not.
pub const VERSIONING_POLICY: &str = "Semantic versioning. Additive changes (new endpoints, new optional fields) ship without notice and without a version change in the path; clients ignore fields they do not know. Breaking changes (a removed or retyped field, a removed endpoint) ship under the path prefix /api/v2/. Unprefixed paths are never reused for another purpose and keep working for at least six months after a new prefix ships.";

/// `authentication.required` of the index: nothing is behind authentication.
pub const AUTH_REQUIRED: bool = false;

/// `authentication.scheme` of the index.
pub const AUTH_SCHEME: &str = "none";

/// `authentication.description` of the index.
pub const AUTHENTICATION: &str = "None. Every endpoint is public, anonymous and read-only: there is no API key, registration, account, OAuth flow or tier, and credentials sent with a request are ignored.";

/// `error_format.description` of the index: the error bodies and their codes.
pub const ERROR_FORMAT: &str = "Errors are RFC 9457 problem-details bodies (type, title, status, detail, instance) extended with a nested `error` object (code, message, hint, documentation_url). Codes: resource_not_found (404), method_not_allowed (405), gone (410), internal_error (500). HTML is never returned under /api/.";

/// The site-absolute paths `op`'s template currently resolves to: the site's languages in its
/// order (`en` before `es`), then by slug or tag. Empty when no series or tag exists yet.
pub fn resolved_paths(db: &dyn salsa::Database, op: &Operation) -> Vec<String> {
    let site = Globals::get(db);
    let names = |lang: Lang, param: PathParam| -> Vec<String> {
        let tree = site.tree(db, lang);
        let names = match param {
            PathParam::Slug => series_names(db, tree),
            PathParam::Tag => tag_names(db, tree),
            PathParam::Lang => unreachable!("lang is expanded separately"),
        };
        names.iter().map(|name| name.to_string()).collect()
    };
    let mut paths = Vec::new();
    match op.params {
        [] => paths.push(op.path_template.to_string()),
        [PathParam::Lang] => {
            for lang in site.langs(db) {
                paths.push(op.path_template.replace("{lang}", lang.as_str()));
            }
        }
        [PathParam::Lang, param] => {
            for lang in site.langs(db) {
                let with_lang = op.path_template.replace("{lang}", lang.as_str());
                let placeholder = format!("{{{}}}", param.name());
                for name in names(lang, *param) {
                    paths.push(with_lang.replace(&placeholder, &name));
                }
            }
        }
        other => unreachable!("no operation has parameters {other:?}"),
    }
    paths
}

/// Built from the operation table and the current tag and series names, so it changes only when
/// the set of URLs (or the configuration) changes.
#[salsa::tracked(returns(ref))]
pub fn api_index_json(db: &dyn salsa::Database) -> Output {
    let config = Globals::get(db).config(db);
    let endpoints: Vec<Endpoint> = operations(&config.languages)
        .into_iter()
        .map(|op| {
            let urls = resolved_paths(db, op)
                .iter()
                .map(|path| config.url(path))
                .collect();
            Endpoint {
                operation_id: op.id.into(),
                description: op.description.into(),
                path_template: op.path_template.into(),
                urls,
            }
        })
        .collect();
    let links = LISTED_DOCUMENTS
        .iter()
        .map(|doc| {
            (
                doc.name.to_string(),
                serde_json::Value::String(config.url(doc.path)),
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
            required: AUTH_REQUIRED,
            scheme: AUTH_SCHEME.into(),
            description: AUTHENTICATION.into(),
            documentation_url: config.url("/developers#authentication"),
        },
        methods: vec!["GET".into(), "HEAD".into()],
        error_format: ErrorFormat {
            media_type: "application/json".into(),
            description: ERROR_FORMAT.into(),
            documentation_url: config.url("/developers#errors"),
        },
        links,
        total: endpoints.len(),
        endpoints,
    };
    Output::new(to_json(&index))
}
