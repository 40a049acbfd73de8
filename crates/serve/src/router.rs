//! One request, one response: the HTTP rules of the contract (sections 4.1, 5, 7, 8).
//!
//! Order of the rules: the method (405 for anything but GET and HEAD, `OPTIONS` included: see
//! `http::METHODS`), the live-update stream, then the path: refused paths and paths
//! with no file are 404, unless an earlier build published them (410). Query strings, credentials and cookies are never read.
//! A failure while reading, or a panic, is a 500 and the server goes on.

use super::State;
use super::events::{self, EVENTS_PATH};
use super::folder::Served;
use super::path::{Refused, SafePath};
use super::respond::{
    Body, empty, gone, internal_error, method_not_allowed, not_found, with_contract_headers,
};
use crate::http::{document_headers, is_api_path, markdown_twin, prefers_markdown};
use crate::media::media_type;
use headers::{ETag, HeaderMapExt, IfNoneMatch};
use hyper::header::{ACCEPT, CONTENT_LENGTH, CONTENT_TYPE, ETAG, HeaderMap};
use hyper::{Method, Request, Response, StatusCode};
use std::panic::AssertUnwindSafe;

/// Answers one request, or `None` when the request is the site's (only when the output folder
/// shares its origin with a site: `state.site`). Never fails: every problem becomes an error
/// response.
pub fn respond<B>(state: &State, request: &Request<B>) -> Option<Response<Body>> {
    let path = request.uri().path();
    let head = request.method() == Method::HEAD;
    match std::panic::catch_unwind(AssertUnwindSafe(|| route(state, request))) {
        Ok(Answer::Tool(response)) => Some(response),
        Ok(Answer::Site) if !state.site.is_shared() => Some(not_found(&state.config, path, head)),
        Ok(Answer::Site) => None,
        Err(_) => {
            tracing::error!("a request for {path} panicked; answered 500");
            Some(internal_error(&state.config, path, head))
        }
    }
}

/// Who answers a request.
enum Answer {
    Tool(Response<Body>),
    /// Not the tool's: a 404 when the output folder is the whole site.
    Site,
}

/// Whether the site's own answer for `path` varies with `Accept`: the page has a Markdown twin,
/// which a client asking for Markdown gets instead (the edge layer adds `Vary: Accept` to the
/// page's HTML in production too).
pub fn site_page_varies(state: &State, path: &str) -> bool {
    SafePath::parse(path)
        .ok()
        .and_then(|safe| markdown_twin(safe.as_str()))
        .is_some_and(|twin| matches!(state.files.read(&twin), Ok(Some(_))))
}

fn route<B>(state: &State, request: &Request<B>) -> Answer {
    let path = request.uri().path();
    let config = &state.config;
    let api = is_api_path(path.strip_prefix('/').unwrap_or(path));
    let head = match *request.method() {
        Method::GET => false,
        Method::HEAD => true,
        // A site's own forms and endpoints take other methods; the API takes none.
        _ if state.site.is_shared() && !api => return Answer::Site,
        ref other => return Answer::Tool(method_not_allowed(config, path, other.as_str())),
    };
    if path == EVENTS_PATH {
        return Answer::Tool(events::response(
            state.frames.subscribe(),
            state.stop.clone(),
            head,
        ));
    }
    if let Some(response) = state.preview.as_ref().and_then(|p| p.route(path, head)) {
        return Answer::Tool(response);
    }
    let safe = match SafePath::parse(path) {
        Ok(safe) => safe,
        // Dev servers have such paths of their own (Vite's `/node_modules/.vite/`).
        Err(Refused::NotServed) if !api => return Answer::Site,
        Err(_) => return Answer::Tool(not_found(config, path, head)),
    };
    let markdown = !safe.is_api()
        && request
            .headers()
            .get(ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(prefers_markdown);
    for candidate in safe.candidates(markdown) {
        match state.files.read(&candidate) {
            Ok(Some(served)) => {
                let served = match &state.preview {
                    Some(preview) => preview.adapt(served),
                    None => served,
                };
                return Answer::Tool(file(served, request.headers(), head));
            }
            Ok(None) => {}
            Err(err) => {
                tracing::error!("cannot read {candidate} for {path}: {err}");
                return Answer::Tool(internal_error(config, path, head));
            }
        }
    }
    if state.gone.contains(safe.as_str()) {
        return Answer::Tool(gone(config, path, head));
    }
    if safe.is_api() {
        return Answer::Tool(not_found(config, path, head));
    }
    Answer::Site
}

/// 200 with the file (or its headers, for `HEAD`), or 304 when the client's copy is current.
fn file(served: Served, headers: &HeaderMap, head: bool) -> Response<Body> {
    let fresh = client_copy_is_current(headers, &served.etag);
    let status = if fresh {
        StatusCode::NOT_MODIFIED
    } else {
        StatusCode::OK
    };
    let mut builder = with_contract_headers(status).header(ETAG, &served.etag);
    for (name, value) in document_headers(&served.path) {
        builder = builder.header(name, value);
    }
    if fresh {
        return builder.body(empty()).expect("valid 304 response");
    }
    builder = builder
        .header(CONTENT_TYPE, media_type(&served.path))
        .header(CONTENT_LENGTH, served.content_length());
    let body = if head { empty() } else { served.into_body() };
    builder.body(body).expect("valid file response")
}

/// Whether the request's `If-None-Match` (RFC 9110 §13.1.2: `*`, or entity tags compared
/// weakly, over every field line) names `etag`. A field that does not parse names nothing.
fn client_copy_is_current(headers: &HeaderMap, etag: &str) -> bool {
    let (Some(if_none_match), Ok(etag)) =
        (headers.typed_get::<IfNoneMatch>(), etag.parse::<ETag>())
    else {
        return false;
    };
    !if_none_match.precondition_passes(&etag)
}

#[cfg(test)]
mod tests {
    use super::client_copy_is_current;
    use hyper::header::{HeaderMap, HeaderValue, IF_NONE_MATCH};

    fn current(fields: &[&'static str], etag: &str) -> bool {
        let mut headers = HeaderMap::new();
        for field in fields {
            headers.append(IF_NONE_MATCH, HeaderValue::from_static(field));
        }
        client_copy_is_current(&headers, etag)
    }

    #[test]
    fn if_none_match_compares_weakly_and_accepts_lists_and_star() {
        let etag = "\"abc\"";
        assert!(current(&["\"abc\""], etag));
        assert!(current(&["W/\"abc\""], etag));
        assert!(current(&["\"x\", \"abc\""], etag));
        assert!(
            current(&["\"x\"", "\"abc\""], etag),
            "over every field line"
        );
        assert!(current(&["*"], etag));
        assert!(!current(&["\"abd\""], etag));
        assert!(!current(&["abc"], etag));
        assert!(!current(&[""], etag));
        assert!(!current(&[], etag));
    }
}
