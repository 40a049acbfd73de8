//! The checks of the API's endpoints (the contract's sections 4, 5 and 7): every operation
//! answers JSON, HEAD as GET without a body; other methods are 405; unknown paths and languages
//! are 404, never HTML; a removed path is 410; queries and credentials change nothing; and every
//! answer carries the contract's headers, every error body its fields.

use super::{Class, Finding, NOT_CHECKED, Stop, Target, expect_on, get, header_is, status};
use crate::client::{Reply, first_line};
use serde_json::Value;

fn contract_headers(reply: &Reply) -> Result<(), Stop> {
    header_is(reply, "cache-control", crate::http::CACHE_CONTROL)?;
    header_is(reply, "access-control-allow-origin", "*")
}

/// A section-7 error: status, JSON, code, and `instance`/`detail` naming the path.
fn problem(reply: &Reply, want: u16, code: &str, path: &str) -> Result<Value, Stop> {
    status(reply, want)?;
    header_is(reply, "content-type", "application/json")?;
    contract_headers(reply)?;
    let body = reply
        .json()
        .map_err(|why| Finding::about(Class::Contract, reply, why))?;
    expect_on(
        reply,
        body["status"] == want && body["error"]["code"] == code,
        || format!("body {}", first_line(&body.to_string())),
    )?;
    expect_on(reply, body["instance"] == path, || {
        format!("instance is {}", body["instance"])
    })?;
    expect_on(
        reply,
        body["detail"].as_str().is_some_and(|d| d.contains(path)),
        || format!("detail {} does not name the path", body["detail"]),
    )?;
    Ok(body)
}

fn operation_paths(t: &Target, notes: &mut Vec<Finding>) -> Vec<String> {
    let lang = t.lang();
    let mut paths: Vec<String> = vec!["/api/index.json".into(), "/api/posts.json".into()];
    paths.extend(
        t.languages
            .all()
            .iter()
            .map(|lang| format!("/api/posts-{lang}.json")),
    );
    paths.push(format!("/api/series/{lang}/index.json"));
    paths.push(format!("/api/slides-timeline/{lang}.json"));
    let name = crate::languages::english_name(t.languages.default_lang());
    match &t.series {
        Some(series) => paths.push(format!("/api/series/{lang}/{series}.json")),
        None => notes.push(not_checked_part(
            &format!("getSeries (/api/series/{lang}/{{slug}}.json)"),
            &format!("the site has no series in {name}"),
        )),
    }
    match &t.tag {
        Some(tag) => paths.push(format!("/api/timeline/{lang}/{tag}.json")),
        None => notes.push(not_checked_part(
            &format!("getTimelineByTag (/api/timeline/{lang}/{{tag}}.json)"),
            &format!("the newest post in {name} has no tag"),
        )),
    }
    paths
}

/// A part of a check that did not run because its subject does not exist: a note.
fn not_checked_part(what: &str, why: &str) -> Finding {
    Finding {
        class: Class::Site,
        url: String::new(),
        answered: None,
        why: format!("{what} not checked: {why}"),
        fix: None,
    }
}

pub(super) fn get_every_operation(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    for path in operation_paths(t, notes) {
        let reply = get(t, &path)?;
        status(&reply, 200)?;
        reply
            .json()
            .map_err(|why| Finding::about(Class::Contract, &reply, why))?;
    }
    Ok(())
}

pub(super) fn head_matches_get(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = &t.posts_path();
    let got = get(t, path)?;
    let head = t.request("HEAD", path, &[])?;
    status(&head, 200)?;
    expect_on(&head, head.body.is_empty(), || "HEAD has a body".into())?;
    header_is(
        &head,
        "content-type",
        got.header("content-type").unwrap_or(""),
    )?;
    contract_headers(&head)?;
    Ok(())
}

pub(super) fn method_405(t: &Target, method: &str) -> Result<(), Stop> {
    let path = "/api/posts.json";
    let reply = t.request(method, path, &[("Origin", "https://elsewhere.example")])?;
    problem(&reply, 405, "method_not_allowed", path)?;
    header_is(&reply, "allow", "GET, HEAD")?;
    Ok(())
}

pub(super) fn method_405_missing_path(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = &format!("/api/timeline/{}/no-such-tag.json", t.lang());
    let reply = t.request("DELETE", path, &[])?;
    problem(&reply, 405, "method_not_allowed", path)?;
    header_is(&reply, "allow", "GET, HEAD")?;
    Ok(())
}

pub(super) fn query_ignored(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let last = t.languages.all()[t.languages.len() - 1];
    let plain = get(t, &format!("/api/posts-{last}.json"))?;
    let query = get(
        t,
        &format!("/api/posts-{last}.json?lang={}&page=2", t.lang()),
    )?;
    status(&query, 200)?;
    expect_on(&query, plain.body == query.body, || {
        "the query changed the body".into()
    })?;
    Ok(())
}

pub(super) fn success_is_json(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    // The parts not checked are named by the check of every operation.
    for path in operation_paths(t, &mut Vec::new()) {
        header_is(&get(t, &path)?, "content-type", "application/json")?;
    }
    Ok(())
}

pub(super) fn path_without_json(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let folder = format!("/api/series/{}/", t.lang());
    for path in ["/api/posts", &folder, "/api/", "/api/404.html"] {
        problem(&get(t, path)?, 404, "resource_not_found", path)?;
    }
    Ok(())
}

pub(super) fn unknown_api_path(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = "/api/no-such-endpoint.json";
    problem(&get(t, path)?, 404, "resource_not_found", path).map(drop)
}

pub(super) fn unsupported_language(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let [one, other] = t.unsupported_languages();
    let series = format!("/api/series/{one}/index.json");
    let slides = format!("/api/slides-timeline/{other}.json");
    for path in [&series, &slides] {
        problem(&get(t, path)?, 404, "resource_not_found", path)?;
    }
    Ok(())
}

pub(super) fn head_of_missing(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = "/api/nothing-here.json";
    let reply = t.request("HEAD", path, &[])?;
    status(&reply, 404)?;
    contract_headers(&reply)?;
    expect_on(&reply, reply.body.is_empty(), || {
        "HEAD 404 has a body".into()
    })?;
    Ok(())
}

pub(super) fn headers_everywhere(t: &Target, notes: &mut Vec<Finding>) -> Result<(), Stop> {
    let ok = get(t, "/api/index.json")?;
    contract_headers(&ok)?;
    if let Some(etag) = ok.header("etag") {
        let not_modified = t.request("GET", "/api/index.json", &[("If-None-Match", etag)])?;
        status(&not_modified, 304)?;
        contract_headers(&not_modified)?;
    }
    contract_headers(&get(t, "/api/x.json")?)?;
    contract_headers(&t.request("POST", "/api/index.json", &[])?)?;
    if let Some(gone) = &t.gone {
        contract_headers(&get(t, gone)?)?;
    }
    // A discovery document's headers are the tool's policy, not the contract's (whose header
    // rules are its endpoints'): "every discovery document answers" warns about them.
    let _ = notes;
    Ok(())
}

pub(super) fn credentials_ignored(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let path = &t.posts_path();
    let plain = get(t, path)?;
    let with = t.request(
        "GET",
        path,
        &[
            ("Authorization", "Bearer not-a-real-token"),
            ("Cookie", "session=abc"),
        ],
    )?;
    status(&with, 200)?;
    expect_on(&with, plain.body == with.body, || {
        "credentials changed the body".into()
    })?;
    Ok(())
}

pub(super) fn index_reports_no_auth(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let reply = get(t, "/api/index.json")?;
    let index = reply
        .json()
        .map_err(|why| Finding::about(Class::Contract, &reply, why))?;
    let auth = &index["authentication"];
    expect_on(
        &reply,
        auth["required"] == false && auth["scheme"] == "none",
        || format!("authentication is {auth}"),
    )?;
    Ok(())
}

pub(super) fn removed_path_is_gone(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let gone = t
        .gone
        .as_ref()
        .ok_or(Stop::NotChecked(NOT_CHECKED.into()))?;
    problem(&get(t, gone)?, 410, "gone", gone).map(drop)
}

pub(super) fn error_body_fields(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let mut replies = vec![
        get(t, "/api/x.json")?,
        t.request("PUT", "/api/x.json", &[])?,
    ];
    if let Some(gone) = &t.gone {
        replies.push(get(t, gone)?);
    }
    for reply in replies {
        let body = reply
            .json()
            .map_err(|why| Finding::about(Class::Contract, &reply, why))?;
        for field in ["type", "title", "status", "detail", "instance", "error"] {
            expect_on(&reply, !body[field].is_null(), || format!("no {field}"))?;
        }
        for field in ["code", "message", "hint", "documentation_url"] {
            expect_on(&reply, body["error"][field].is_string(), || {
                format!("no error.{field}")
            })?;
        }
        expect_on(
            &reply,
            body["type"] == format!("{}/developers#errors", t.base_url),
            || format!("type is {}", body["type"]),
        )?;
        expect_on(
            &reply,
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

pub(super) fn not_found_hint(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    let reply = get(t, "/api/x.json")?;
    let body = reply
        .json()
        .map_err(|why| Finding::about(Class::Contract, &reply, why))?;
    let hint = body["error"]["hint"].as_str().unwrap_or("");
    expect_on(
        &reply,
        hint.contains(&format!("{}/api/index.json", t.base_url)),
        || format!("hint {hint:?}"),
    )?;
    Ok(())
}

pub(super) fn api_never_html(t: &Target, _: &mut Vec<Finding>) -> Result<(), Stop> {
    for path in ["/api/missing.json", "/api/", "/api/index.html"] {
        let reply = t.request("GET", path, &[("Accept", "text/html")])?;
        problem(&reply, 404, "resource_not_found", path)?;
    }
    Ok(())
}
