//! The HTTP conformance checks: one definition, run against every host by the tests and
//! against a deployed site by `content-api verify`. Each check names the contract rule it holds
//! the host to (section numbers of the API contract), and each thing it finds has a [`Class`]:
//! a rule of the contract (a failure), a stricter policy of this tool's (a warning), or what the
//! site chose (a note). Every finding names the URL requested and who answered it
//! ([`Target::layer`]).

mod api;
mod documents;

use super::client::{Bounds, Reply};
use crate::Languages;
use api::{
    api_never_html, credentials_ignored, error_body_fields, get_every_operation, head_matches_get,
    head_of_missing, headers_everywhere, index_reports_no_auth, method_405,
    method_405_missing_path, not_found_hint, path_without_json, query_ignored,
    removed_path_is_gone, success_is_json, unknown_api_path, unsupported_language,
};
pub use documents::negotiation;
use documents::{
    api_catalog_link, api_ignores_markdown, catalog_media_types, discovery_documents,
    etag_revalidation, hidden_files, html_without_markdown, markdown_on_portal, markdown_on_post,
    negotiation_check, traversal, unknown_page, vary_on_negotiable,
};
use std::collections::BTreeMap;
use std::time::Instant;

pub use super::client::Http;

/// What the checks know about the build being served.
pub struct Target {
    /// How requests reach the host.
    pub http: Http,
    /// The site's base URL, as the documents write it.
    pub base_url: String,
    /// An API path an earlier build published and the current one removed (`/api/...`), when
    /// there is one: the checks of `410` need it.
    pub gone: Option<String>,
    /// The site's languages, as its API index lists them: the default first.
    pub languages: Languages,
    /// A published post's slug in the default language, when there is one.
    pub post: Option<String>,
    /// A published series' slug in the default language, when there is one.
    pub series: Option<String>,
    /// A tag with a timeline in the default language, when there is one.
    pub tag: Option<String>,
    /// The files content-api published on the site and their hashes (xxh3-128, hex), from the
    /// deploy record it serves (`/.well-known/content-api/deploy.json`); `None` without one.
    /// Tells the tool's documents from the site's own, and static files from rewritten answers.
    pub deployed: Option<BTreeMap<String, String>>,
    /// When the whole run must end; `None`: no limit but each request's own.
    pub deadline: Option<Instant>,
}

/// How much a finding weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A rule of the API contract (its endpoints, their errors and headers, the discovery
    /// documents answering at their paths): a failure.
    Contract,
    /// A stricter rule of this tool's own (negotiation by quality values, the headers and media
    /// types of documents, ETags): a warning, a failure with `verify --strict`.
    Policy,
    /// What the site chose (a document it owns, its own negotiation): a note.
    Site,
}

impl Class {
    /// The word a report prints.
    pub fn word(self) -> &'static str {
        match self {
            Class::Contract => "FAIL",
            Class::Policy => "warn",
            Class::Site => "note",
        }
    }
}

/// Who answered a request, as far as the answer shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    /// The path requested (no query).
    pub path: String,
    /// The status.
    pub status: u16,
    /// `http::LAYER_HEADER`'s value: content-api's own code answered.
    pub layer: Option<String>,
    /// The body's hash (xxh3-128, hex); `None` for an empty body.
    pub hash: Option<String>,
}

impl Answered {
    /// What `reply` shows of who answered it.
    pub fn of(reply: &Reply) -> Answered {
        let path = url::Url::parse(&reply.url)
            .map(|url| url.path().to_string())
            .unwrap_or_default();
        Answered {
            path,
            status: reply.status,
            layer: reply.header(crate::http::LAYER_HEADER).map(str::to_string),
            hash: (!reply.body.is_empty())
                .then(|| format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&reply.body))),
        }
    }
}

/// One thing a check found.
#[derive(Clone, Debug)]
pub struct Finding {
    /// How much it weighs.
    pub class: Class,
    /// The URL requested (empty when the finding is about no one request).
    pub url: String,
    /// Who answered, when a request was answered.
    pub answered: Option<Answered>,
    /// What is wrong, or what the site does.
    pub why: String,
    /// Where to change it, if the owner wants to.
    pub fix: Option<String>,
}

impl Finding {
    /// A finding of `class` about `reply`.
    pub fn about(class: Class, reply: &Reply, why: impl Into<String>) -> Finding {
        Finding {
            class,
            url: reply.url.clone(),
            answered: Some(Answered::of(reply)),
            why: why.into(),
            fix: None,
        }
    }

    /// The same, with what to change.
    pub fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = Some(fix.into());
        self
    }
}

/// Why a check stopped before its end.
#[derive(Debug)]
pub enum Stop {
    /// A rule of the contract does not hold (or a request had no answer).
    Failed(Box<Finding>),
    /// What the check needs does not exist on this site (the reason), or time ran out.
    NotChecked(String),
}

impl From<Finding> for Stop {
    fn from(finding: Finding) -> Stop {
        Stop::Failed(Box::new(finding))
    }
}

impl From<String> for Stop {
    fn from(why: String) -> Stop {
        Stop::Failed(Box::new(Finding {
            class: Class::Contract,
            url: String::new(),
            answered: None,
            why,
            fix: None,
        }))
    }
}

impl From<&str> for Stop {
    fn from(why: &str) -> Stop {
        Stop::from(why.to_string())
    }
}

/// What a check does: `Ok` with what it noticed on the way (warnings, notes), or why it stopped.
pub type Check = fn(&Target, &mut Vec<Finding>) -> Result<(), Stop>;

/// The reason a check did not run when the total time limit had passed.
pub const OUT_OF_TIME: &str = "not checked: the time limit ran out";

impl Target {
    /// The code of the default language, whose samples the checks use.
    pub fn lang(&self) -> &'static str {
        self.languages.default_lang().as_str()
    }

    /// The default language's post list (`/api/posts-en.json`).
    pub fn posts_path(&self) -> String {
        format!("/api/posts-{}.json", self.lang())
    }

    /// Two language codes the site does not have (`fr` and `de` where it has neither).
    pub fn unsupported_languages(&self) -> [&'static str; 2] {
        let mut free = ["fr", "de", "zz", "qq"]
            .into_iter()
            .filter(|code| self.languages.find(code).is_none());
        let one = free.next().unwrap_or("zz");
        [one, free.next().unwrap_or("qq")]
    }

    /// `method path` with `headers`, each request within its own bounds and what is left of the
    /// whole run's time.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Reply, String> {
        let mut bounds = Bounds::DEFAULT;
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(OUT_OF_TIME.to_string());
            }
            bounds.deadline = bounds.deadline.min(left);
        }
        self.http.send_within(method, path, headers, bounds)
    }

    /// Whether the whole run's time is up.
    pub fn out_of_time(&self) -> bool {
        self.deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
    }

    /// The file of content-api's output a request path names (`x/` is `x/index.html`, `x` is
    /// `x`, `x.html` or `x/index.html`), when the deploy record lists it.
    pub fn deployed_file(&self, path: &str) -> Option<&str> {
        let files = self.deployed.as_ref()?;
        let path = path.trim_start_matches('/');
        let candidates = if path.is_empty() || path.ends_with('/') {
            vec![format!("{path}index.html")]
        } else {
            vec![
                path.to_string(),
                format!("{path}.html"),
                format!("{path}/index.html"),
            ]
        };
        candidates
            .into_iter()
            .find_map(|file| files.get_key_value(&file).map(|(file, _)| file.as_str()))
    }

    /// Whether the document answered is the site's own: not content-api's code, and either the
    /// deploy record lists no file at its path (a build leaves the documents the site keeps as
    /// its own out of its record) or the bytes are not the ones content-api built there (a
    /// record of an earlier version listed them with the tool's hash). Without a record, every
    /// document is taken as the tool's.
    pub fn site_owns(&self, answered: &Answered) -> bool {
        self.owner(answered) == Owner::Site
    }

    /// Whose file answered: content-api's, the site's, or not known (no deploy record, or one
    /// hashing this assembled file by its parts, so its bytes cannot be compared).
    pub fn owner(&self, answered: &Answered) -> Owner {
        if Target::tool_answered(answered) {
            return Owner::Tool;
        }
        let Some(files) = &self.deployed else {
            return Owner::Unknown;
        };
        match self.deployed_file(&answered.path) {
            None => Owner::Site,
            Some(file) if !recorded_by_bytes(file) => Owner::Unknown,
            Some(file) => {
                if answered.hash.is_some() && answered.hash.as_ref() != files.get(file) {
                    Owner::Site
                } else {
                    Owner::Tool
                }
            }
        }
    }

    /// Who answered, in words: content-api's own code when the answer carries its layer header;
    /// else the host's static files when the body is the bytes content-api published at that
    /// path (the deploy record's hash); else the site (its Functions or middleware rewrote the
    /// answer, or the file is its own).
    pub fn layer(&self, answered: &Answered) -> String {
        match answered.layer.as_deref() {
            Some("cloudflare-pages") => {
                return "content-api's edge layer (`_worker.js`, or `_content-api.js` through \
                        `functions/[[content_api]].js`)"
                    .into();
            }
            Some("nginx") => return "content-api's nginx block".into(),
            Some("serve") => return "`content-api serve`".into(),
            Some(other) => return format!("content-api's code ({other})"),
            None => {}
        }
        let Some(files) = &self.deployed else {
            return "not content-api's edge layer (the site serves no deploy record to compare \
                    its bytes with: the host's files or the site's code)"
                .into();
        };
        match self.deployed_file(&answered.path) {
            Some(file) if answered.hash.is_none() || answered.hash.as_ref() == files.get(file) => {
                format!("the host's static files (content-api's `{file}`)")
            }
            Some(file) if !recorded_by_bytes(file) => format!(
                "the host's static files, presumably (content-api's `{file}`; the record hashes \
                 this assembled file by its parts, so its bytes are not compared)"
            ),
            Some(file) if file.ends_with(".html") => format!(
                "the site's Functions or middleware (the answer is not content-api's `{file}`)"
            ),
            Some(file) => format!(
                "the site: its own file, or its Functions or middleware (not the bytes \
                 content-api built for `{file}`)"
            ),
            None => "the site (its own file or its own code: content-api published nothing at \
                     this path)"
                .into(),
        }
    }

    /// Whether content-api's own code answered.
    pub fn tool_answered(answered: &Answered) -> bool {
        answered.layer.is_some()
    }
}

/// Whose file answered a request ([`Target::owner`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// content-api's: its code answered, or the bytes are those its deploy record hashes.
    Tool,
    /// The site's own: the record lists no file there, or other bytes.
    Site,
    /// Not known: no deploy record, or one that cannot compare these bytes.
    Unknown,
}

/// Whether the deploy record's hash of `file` is the hash of its bytes. A file assembled from
/// parts (the post lists and timelines under `api/`, `llms-full.txt` and its parts: the
/// `Assembly` outputs of `model::output`) is recorded by the hash of its parts'
/// digests.
fn recorded_by_bytes(file: &str) -> bool {
    !(file.starts_with("api/") || file.starts_with("llms-full"))
}

/// One check's result.
#[derive(Debug)]
pub struct Outcome {
    /// The check's name.
    pub name: &'static str,
    /// What it found: the failure that stopped it last, warnings and notes before.
    pub findings: Vec<Finding>,
    /// Why it did not run, when it did not.
    pub not_checked: Option<String>,
}

impl Outcome {
    /// Whether a rule of `class` (or a stricter one) failed.
    pub fn has(&self, class: Class) -> bool {
        self.findings.iter().any(|f| f.class == class)
    }
}

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] = &[
    ("4.1.1 GET of every operation is 200", get_every_operation),
    ("4.1.1 HEAD: the GET's headers, no body", head_matches_get),
    (
        "4.1.1/7.2.2 POST is 405 with Allow and the JSON body",
        |t, _| method_405(t, "POST"),
    ),
    (
        "4.1.1/7.2.2 PUT is 405 with Allow and the JSON body",
        |t, _| method_405(t, "PUT"),
    ),
    (
        "4.1.1/7.2.2 DELETE is 405 with Allow and the JSON body",
        |t, _| method_405(t, "DELETE"),
    ),
    (
        "4.1.1/7.2.2 PATCH is 405 with Allow and the JSON body",
        |t, _| method_405(t, "PATCH"),
    ),
    (
        "4.1.1/7.2.2 OPTIONS is 405 with Allow and the JSON body",
        |t, _| method_405(t, "OPTIONS"),
    ),
    (
        "4.1.1/7.2.2 405 on a path that does not exist",
        method_405_missing_path,
    ),
    ("4.1.2 a query string is ignored", query_ignored),
    ("4.1.3 200 is application/json", success_is_json),
    (
        "4.1.4/4.1.5 an API path without .json is 404",
        path_without_json,
    ),
    (
        "4.1.5/7.2.1 unknown API path: 404 naming the path",
        unknown_api_path,
    ),
    (
        "4.1 unsupported language: 404 naming the path",
        unsupported_language,
    ),
    (
        "4.1.5 HEAD of a missing path: 404, no body",
        head_of_missing,
    ),
    (
        "4.1.6/8.3/8.4 contract headers on 200, 304, 404, 405, 410",
        headers_everywhere,
    ),
    ("4.1.7/5.3 credentials are ignored", credentials_ignored),
    (
        "5.4 the index reports no authentication",
        index_reports_no_auth,
    ),
    ("7 removed API path: 410 gone", removed_path_is_gone),
    ("7.1 error bodies have every field", error_body_fields),
    ("7.2 the 404 hint points to the API index", not_found_hint),
    (
        "7 under /api/ never HTML, even for text/html clients",
        api_never_html,
    ),
    ("4.3 every discovery document answers", discovery_documents),
    (
        "4.3 served media types are the ones the AI catalog declares",
        catalog_media_types,
    ),
    (
        "4.3 /.well-known/api-catalog links itself (RFC 9727)",
        api_catalog_link,
    ),
    (
        "4.3 Accept: text/markdown on /developers, /developers/, /developers/index.html",
        markdown_on_portal,
    ),
    (
        "4.3 Accept: text/markdown on a post page, and .md appended",
        markdown_on_post,
    ),
    (
        "4.3 without text/markdown pages stay HTML",
        html_without_markdown,
    ),
    (
        "4.3 under /api/ Accept: text/markdown still gets JSON",
        api_ignores_markdown,
    ),
    ("4.3 negotiation by quality values", negotiation_check),
    ("4.3 Vary: Accept on negotiable answers", vary_on_negotiable),
    ("traversal never leaves the output folder", traversal),
    ("hidden and host files are not served", hidden_files),
    ("ETag and If-None-Match give 304", etag_revalidation),
    ("unknown path outside /api/ is 404", unknown_page),
];

/// The checks' reference for the contract's classes: which `Class` each check's own rules
/// have (a check may also report warnings and notes of other classes on the way).
pub fn class_of(name: &str) -> Class {
    match name {
        "4.3 served media types are the ones the AI catalog declares"
        | "4.3 negotiation by quality values"
        | "4.3 Vary: Accept on negotiable answers"
        | "ETag and If-None-Match give 304" => Class::Policy,
        _ => Class::Contract,
    }
}

fn get(t: &Target, path: &str) -> Result<Reply, String> {
    t.request("GET", path, &[])
}

fn expect(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(what()) }
}

/// `cond`, or a contract failure about `reply`.
fn expect_on(reply: &Reply, cond: bool, what: impl FnOnce() -> String) -> Result<(), Stop> {
    if cond {
        Ok(())
    } else {
        Err(Finding::about(Class::Contract, reply, what()).into())
    }
}

fn status(reply: &Reply, want: u16) -> Result<(), Stop> {
    expect_on(reply, reply.status == want, || {
        format!(
            "status {} (want {want}); body {}",
            reply.status,
            reply.first_line()
        )
    })
}

fn header_is(reply: &Reply, name: &str, want: &str) -> Result<(), Stop> {
    expect_on(reply, reply.header(name) == Some(want), || {
        format!("{name} is {}, want {want:?}", shown(reply.header(name)))
    })
}

/// A header's value as a message shows it: quoted, or `absent` when the answer has none
/// (never Rust's `Some("…")` or `None`).
pub(crate) fn shown(value: Option<&str>) -> String {
    match value {
        Some(value) => format!("{value:?}"),
        None => "absent".to_string(),
    }
}

/// Why the `410` check did not run: the history names no removed path.
pub const NOT_CHECKED: &str =
    "not checked: nothing removed yet (the publishing history names no removed API path)";

/// Runs every check in order; `progress` is told each one's number and name before it runs.
/// A check that runs when the total time is up, or that time runs out in, is not checked.
pub fn run_with(t: &Target, progress: &mut dyn FnMut(usize, &str)) -> Vec<Outcome> {
    CHECKS
        .iter()
        .enumerate()
        .map(|(i, (name, check))| {
            progress(i, name);
            if t.out_of_time() {
                return Outcome {
                    name,
                    findings: Vec::new(),
                    not_checked: Some(OUT_OF_TIME.into()),
                };
            }
            let mut findings = Vec::new();
            let stopped = check(t, &mut findings);
            let mut not_checked = None;
            match stopped {
                Ok(()) => {}
                Err(_) if t.out_of_time() => not_checked = Some(OUT_OF_TIME.into()),
                Err(Stop::NotChecked(why)) => not_checked = Some(why),
                Err(Stop::Failed(mut finding)) => {
                    // A check of the tool's policy fails as a warning.
                    finding.class = finding.class.max(class_of(name));
                    findings.push(*finding);
                }
            }
            Outcome {
                name,
                findings,
                not_checked,
            }
        })
        .collect()
}

/// Runs every check; returns their outcomes.
pub fn run(t: &Target) -> Vec<Outcome> {
    run_with(t, &mut |_, _| {})
}

/// Every finding of `outcomes` and every check not run, one line each: what a host of the
/// tool's own must not have (the tests' strict reading).
pub fn strict_report(t: &Target, outcomes: &[Outcome]) -> Vec<String> {
    let mut lines = Vec::new();
    for outcome in outcomes {
        for finding in &outcome.findings {
            lines.push(format!(
                "- {} {}: {} [{}{}]",
                finding.class.word(),
                outcome.name,
                finding.why,
                finding.url,
                finding
                    .answered
                    .as_ref()
                    .map(|a| format!(", answered by {}", t.layer(a)))
                    .unwrap_or_default()
            ));
        }
        if let Some(why) = &outcome.not_checked {
            lines.push(format!("- skip {}: {why}", outcome.name));
        }
    }
    lines
}
