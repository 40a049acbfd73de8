//! The HTTP conformance checks: one definition, run against every host by the tests and
//! against a deployed site by `content-api verify`. Each check names the contract rule it holds
//! the host to (section numbers of the API contract).

mod documents;

use super::client::{Http, Reply};
use documents::{
    api_catalog_link, api_ignores_markdown, catalog_media_types, discovery_documents,
    etag_revalidation, hidden_files, html_without_markdown, markdown_on_portal, markdown_on_post,
    traversal, unknown_page, vary_on_negotiable,
};
use serde_json::Value;

/// What the checks know about the build being served.
pub struct Target {
    /// How requests reach the host.
    pub http: Http,
    /// The site's base URL, as the documents write it.
    pub base_url: String,
    /// An API path an earlier build published and the current one removed (`/api/...`), when
    /// there is one: the checks of `410` need it.
    pub gone: Option<String>,
    /// A published English post's slug.
    pub post: String,
    /// A published English series' slug.
    pub series: String,
    /// An English tag with a timeline.
    pub tag: String,
}

impl Target {
    /// `method path` with `headers`.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Reply, String> {
        self.http.send(method, path, headers)
    }
}

/// The negotiation table (`render::http::NEGOTIATION_CASES`) on the portal's page: Markdown
/// exactly where the rule says so, HTML everywhere else. Returns the cases that disagree.
pub fn negotiation(t: &Target) -> Vec<String> {
    let twin = match get(t, "/developers.md") {
        Ok(reply) if reply.status == 200 => reply.body,
        other => return vec![format!("/developers.md: {other:?}")],
    };
    let mut failures = Vec::new();
    for (accept, markdown) in crate::render::NEGOTIATION_CASES {
        let headers: &[(&str, &str)] = if accept.is_empty() {
            &[]
        } else {
            &[("Accept", accept)]
        };
        match t.request("GET", "/developers/", headers) {
            Ok(reply) => {
                let got_markdown = reply.status == 200 && reply.body == twin;
                let got_html = reply.status == 200
                    && reply
                        .header("content-type")
                        .is_some_and(|c| c.starts_with("text/html"));
                if (markdown && !got_markdown) || (!markdown && !got_html) {
                    failures.push(format!(
                        "Accept {accept:?}: want {}, got {} {:?}",
                        if markdown { "Markdown" } else { "HTML" },
                        reply.status,
                        reply.header("content-type")
                    ));
                }
            }
            Err(err) => failures.push(format!("Accept {accept:?}: {err}")),
        }
    }
    failures
}

type Check = fn(&Target) -> Result<(), String>;

/// Every check, by name.
pub const CHECKS: &[(&str, Check)] = &[
    ("4.1.1 GET of every operation is 200", get_every_operation),
    ("4.1.1 HEAD: the GET's headers, no body", head_matches_get),
    (
        "4.1.1/7.2.2 POST is 405 with Allow and the JSON body",
        |t| method_405(t, "POST"),
    ),
    ("4.1.1/7.2.2 PUT is 405 with Allow and the JSON body", |t| {
        method_405(t, "PUT")
    }),
    (
        "4.1.1/7.2.2 DELETE is 405 with Allow and the JSON body",
        |t| method_405(t, "DELETE"),
    ),
    (
        "4.1.1/7.2.2 PATCH is 405 with Allow and the JSON body",
        |t| method_405(t, "PATCH"),
    ),
    (
        "4.1.1/7.2.2 OPTIONS is 405 with Allow and the JSON body",
        |t| method_405(t, "OPTIONS"),
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
    ("4.3 Vary: Accept on negotiable answers", vary_on_negotiable),
    ("traversal never leaves the output folder", traversal),
    ("hidden and host files are not served", hidden_files),
    ("ETag and If-None-Match give 304", etag_revalidation),
    ("unknown path outside /api/ is 404", unknown_page),
];

fn get(t: &Target, path: &str) -> Result<Reply, String> {
    t.request("GET", path, &[])
}

fn expect(cond: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(what()) }
}

fn status(reply: &Reply, want: u16, path: &str) -> Result<(), String> {
    expect(reply.status == want, || {
        format!(
            "{path}: status {} (want {want}); body {}",
            reply.status,
            short(&reply.text())
        )
    })
}

fn short(text: &str) -> &str {
    &text[..text.char_indices().nth(160).map_or(text.len(), |(i, _)| i)]
}

fn header_is(reply: &Reply, name: &str, want: &str, path: &str) -> Result<(), String> {
    expect(reply.header(name) == Some(want), || {
        format!("{path}: {name} is {:?}, want {want:?}", reply.header(name))
    })
}

fn contract_headers(reply: &Reply, path: &str) -> Result<(), String> {
    header_is(reply, "cache-control", "public, max-age=3600", path)?;
    header_is(reply, "access-control-allow-origin", "*", path)
}

/// A section-7 error: status, JSON, code, and `instance`/`detail` naming the path.
fn problem(reply: &Reply, want: u16, code: &str, path: &str) -> Result<Value, String> {
    status(reply, want, path)?;
    header_is(reply, "content-type", "application/json", path)?;
    contract_headers(reply, path)?;
    let body = reply.json()?;
    expect(
        body["status"] == want && body["error"]["code"] == code,
        || format!("{path}: body {body}"),
    )?;
    expect(body["instance"] == path, || {
        format!("{path}: instance is {}", body["instance"])
    })?;
    expect(
        body["detail"].as_str().is_some_and(|d| d.contains(path)),
        || format!("{path}: detail {} does not name the path", body["detail"]),
    )?;
    Ok(body)
}

fn operation_paths(t: &Target) -> Vec<String> {
    vec![
        "/api/index.json".into(),
        "/api/posts.json".into(),
        "/api/posts-en.json".into(),
        "/api/posts-es.json".into(),
        "/api/series/en/index.json".into(),
        format!("/api/series/en/{}.json", t.series),
        format!("/api/timeline/en/{}.json", t.tag),
        "/api/slides-timeline/en.json".into(),
    ]
}

fn get_every_operation(t: &Target) -> Result<(), String> {
    for path in operation_paths(t) {
        let reply = get(t, &path)?;
        status(&reply, 200, &path)?;
        reply.json()?;
    }
    Ok(())
}

fn head_matches_get(t: &Target) -> Result<(), String> {
    let path = "/api/posts-en.json";
    let got = get(t, path)?;
    let head = t.request("HEAD", path, &[])?;
    status(&head, 200, path)?;
    expect(head.body.is_empty(), || "HEAD has a body".into())?;
    header_is(
        &head,
        "content-type",
        got.header("content-type").unwrap_or(""),
        path,
    )?;
    contract_headers(&head, path)
}

fn method_405(t: &Target, method: &str) -> Result<(), String> {
    let path = "/api/posts.json";
    let reply = t.request(method, path, &[("Origin", "https://elsewhere.example")])?;
    problem(&reply, 405, "method_not_allowed", path)?;
    header_is(&reply, "allow", "GET, HEAD", path)
}

fn method_405_missing_path(t: &Target) -> Result<(), String> {
    let path = "/api/timeline/en/no-such-tag.json";
    let reply = t.request("DELETE", path, &[])?;
    problem(&reply, 405, "method_not_allowed", path)?;
    header_is(&reply, "allow", "GET, HEAD", path)
}

fn query_ignored(t: &Target) -> Result<(), String> {
    let plain = get(t, "/api/posts-es.json")?;
    let query = get(t, "/api/posts-es.json?lang=en&page=2")?;
    status(&query, 200, "/api/posts-es.json?lang=en&page=2")?;
    expect(plain.body == query.body, || {
        "the query changed the body".into()
    })
}

fn success_is_json(t: &Target) -> Result<(), String> {
    for path in operation_paths(t) {
        header_is(&get(t, &path)?, "content-type", "application/json", &path)?;
    }
    Ok(())
}

fn path_without_json(t: &Target) -> Result<(), String> {
    for path in ["/api/posts", "/api/series/en/", "/api/", "/api/404.html"] {
        problem(&get(t, path)?, 404, "resource_not_found", path)?;
    }
    Ok(())
}

fn unknown_api_path(t: &Target) -> Result<(), String> {
    let path = "/api/no-such-endpoint.json";
    problem(&get(t, path)?, 404, "resource_not_found", path).map(drop)
}

fn unsupported_language(t: &Target) -> Result<(), String> {
    for path in ["/api/series/fr/index.json", "/api/slides-timeline/de.json"] {
        problem(&get(t, path)?, 404, "resource_not_found", path)?;
    }
    Ok(())
}

fn head_of_missing(t: &Target) -> Result<(), String> {
    let path = "/api/nothing-here.json";
    let reply = t.request("HEAD", path, &[])?;
    status(&reply, 404, path)?;
    contract_headers(&reply, path)?;
    expect(reply.body.is_empty(), || "HEAD 404 has a body".into())
}

fn headers_everywhere(t: &Target) -> Result<(), String> {
    let ok = get(t, "/api/index.json")?;
    contract_headers(&ok, "/api/index.json (200)")?;
    if let Some(etag) = ok.header("etag") {
        let not_modified = t.request("GET", "/api/index.json", &[("If-None-Match", etag)])?;
        status(&not_modified, 304, "/api/index.json (If-None-Match)")?;
        contract_headers(&not_modified, "/api/index.json (304)")?;
    }
    contract_headers(&get(t, "/api/x.json")?, "/api/x.json (404)")?;
    contract_headers(
        &t.request("POST", "/api/index.json", &[])?,
        "/api/index.json (405)",
    )?;
    if let Some(gone) = &t.gone {
        contract_headers(&get(t, gone)?, &format!("{gone} (410)"))?;
    }
    contract_headers(&get(t, "/llms.txt")?, "/llms.txt (200)")
}

fn credentials_ignored(t: &Target) -> Result<(), String> {
    let path = "/api/posts-en.json";
    let plain = get(t, path)?;
    let with = t.request(
        "GET",
        path,
        &[
            ("Authorization", "Bearer not-a-real-token"),
            ("Cookie", "session=abc"),
        ],
    )?;
    status(&with, 200, path)?;
    expect(plain.body == with.body, || {
        "credentials changed the body".into()
    })
}

fn index_reports_no_auth(t: &Target) -> Result<(), String> {
    let index = get(t, "/api/index.json")?.json()?;
    let auth = &index["authentication"];
    expect(
        auth["required"] == false && auth["scheme"] == "none",
        || format!("authentication is {auth}"),
    )
}

fn removed_path_is_gone(t: &Target) -> Result<(), String> {
    let gone = t.gone.as_ref().ok_or(NOT_CHECKED)?;
    problem(&get(t, gone)?, 410, "gone", gone).map(drop)
}

fn error_body_fields(t: &Target) -> Result<(), String> {
    let mut replies = vec![
        get(t, "/api/x.json")?,
        t.request("PUT", "/api/x.json", &[])?,
    ];
    if let Some(gone) = &t.gone {
        replies.push(get(t, gone)?);
    }
    for reply in replies {
        let body = reply.json()?;
        for field in ["type", "title", "status", "detail", "instance", "error"] {
            expect(!body[field].is_null(), || format!("no {field} in {body}"))?;
        }
        for field in ["code", "message", "hint", "documentation_url"] {
            expect(body["error"][field].is_string(), || {
                format!("no error.{field} in {body}")
            })?;
        }
        expect(
            body["type"] == format!("{}/developers#errors", t.base_url),
            || format!("type is {}", body["type"]),
        )?;
        expect(
            body["error"]["documentation_url"] == format!("{}/developers", t.base_url),
            || {
                format!(
                    "documentation_url is {}",
                    body["error"]["documentation_url"]
                )
            },
        )?;
    }
    Ok(())
}

fn not_found_hint(t: &Target) -> Result<(), String> {
    let body = get(t, "/api/x.json")?.json()?;
    let hint = body["error"]["hint"].as_str().unwrap_or("");
    expect(
        hint.contains(&format!("{}/api/index.json", t.base_url)),
        || format!("hint {hint:?}"),
    )
}

fn api_never_html(t: &Target) -> Result<(), String> {
    for path in ["/api/missing.json", "/api/", "/api/index.html"] {
        let reply = t.request("GET", path, &[("Accept", "text/html")])?;
        problem(&reply, 404, "resource_not_found", path)?;
    }
    Ok(())
}

/// Why a check did not run: what it needs is missing (no removed path in the history).
pub const NOT_CHECKED: &str = "not checked: the publishing history names no removed API path";

/// Runs every check; returns the failures (name and why).
pub fn run(t: &Target) -> Vec<(&'static str, String)> {
    CHECKS
        .iter()
        .filter_map(|(name, check)| check(t).err().map(|why| (*name, why)))
        .collect()
}
