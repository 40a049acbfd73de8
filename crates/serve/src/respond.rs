//! Responses: the contract's headers, and the error responses with their section-7 bodies
//! (built by `problem`, the same constructors as the static error documents).

use crate::config::SiteConfig;
use crate::http::{ALLOW, CONTRACT_HEADERS, LAYER_HEADER};
use crate::problem::request_problem;
use crate::wire::{ErrorCode, to_json};
use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::header::{ALLOW as ALLOW_HEADER, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Response, StatusCode};
use std::convert::Infallible;

/// Every response body.
pub type Body = UnsyncBoxBody<Bytes, Infallible>;

pub fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed_unsync()
}

pub fn empty() -> Body {
    Empty::new().boxed_unsync()
}

/// A response builder with the headers every response carries (`http`'s table:
/// one-hour caching, open CORS, no content sniffing, `Vary: Accept`), and `http`'s
/// layer header naming `serve`.
pub fn with_contract_headers(status: StatusCode) -> hyper::http::response::Builder {
    CONTRACT_HEADERS.iter().fold(
        Response::builder()
            .status(status)
            .header(LAYER_HEADER, crate::http::layer("serve")),
        |builder, (name, value)| builder.header(*name, *value),
    )
}

/// An error response: status, headers, and the JSON body (its length only, for `HEAD`).
fn error(code: ErrorCode, body: &crate::wire::Error, head: bool) -> Response<Body> {
    let json = to_json(body);
    let status = StatusCode::from_u16(code.status()).expect("error statuses are valid");
    let mut builder = with_contract_headers(status)
        .header(CONTENT_TYPE, crate::media::media_type("error.json"))
        .header(CONTENT_LENGTH, json.len());
    if code == ErrorCode::MethodNotAllowed {
        builder = builder.header(ALLOW_HEADER, ALLOW);
    }
    let body = if head { empty() } else { full(json) };
    builder.body(body).expect("valid error response")
}

/// 404 `resource_not_found`: `instance` and `detail` name the requested path.
pub fn not_found(config: &SiteConfig, path: &str, head: bool) -> Response<Body> {
    let code = ErrorCode::ResourceNotFound;
    error(code, &request_problem(config, code, path, ""), head)
}

/// 405 `method_not_allowed`, with `Allow: GET, HEAD`. `OPTIONS` too: see `http::METHODS`.
pub fn method_not_allowed(config: &SiteConfig, path: &str, method: &str) -> Response<Body> {
    let code = ErrorCode::MethodNotAllowed;
    error(code, &request_problem(config, code, path, method), false)
}

/// 410 `gone`: the path was published by an earlier build and removed since.
pub fn gone(config: &SiteConfig, path: &str, head: bool) -> Response<Body> {
    let code = ErrorCode::Gone;
    error(code, &request_problem(config, code, path, ""), head)
}

/// 500 `internal_error`: the request failed on our side; retrying is safe.
pub fn internal_error(config: &SiteConfig, path: &str, head: bool) -> Response<Body> {
    let code = ErrorCode::InternalError;
    error(code, &request_problem(config, code, path, ""), head)
}

/// A request refused before it is routed (its `Host`, its framing): `status` with the
/// section-7 shape, the code of a request that names no resource, and what was wrong and what to
/// do in `detail` and `hint`.
pub fn refused(
    config: &SiteConfig,
    status: StatusCode,
    path: &str,
    (detail, hint): (String, String),
    head: bool,
) -> Response<Body> {
    let mut body = crate::problem::problem(config, ErrorCode::ResourceNotFound, path, detail);
    body.status = status.as_u16();
    body.title = status.canonical_reason().unwrap_or("Refused").to_string();
    body.error.message = "The request was refused before any resource was looked up.".into();
    body.error.hint = hint;
    let json = to_json(&body);
    let builder = with_contract_headers(status)
        .header(CONTENT_TYPE, crate::media::media_type("error.json"))
        .header(CONTENT_LENGTH, json.len());
    let body = if head { empty() } else { full(json) };
    builder.body(body).expect("valid refusal")
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn body_json(response: Response<Body>) -> serde_json::Value {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    fn config() -> SiteConfig {
        SiteConfig::defaults(camino::Utf8Path::new("."))
    }

    #[tokio::test]
    async fn each_error_has_its_status_code_headers_and_body() {
        let config = config();
        let cases = [
            (
                not_found(&config, "/api/x.json", false),
                404,
                "resource_not_found",
            ),
            (
                method_not_allowed(&config, "/api/x.json", "POST"),
                405,
                "method_not_allowed",
            ),
            (gone(&config, "/api/x.json", false), 410, "gone"),
            (
                internal_error(&config, "/api/x.json", false),
                500,
                "internal_error",
            ),
        ];
        for (response, status, code) in cases {
            assert_eq!(response.status().as_u16(), status);
            let headers = response.headers();
            assert_eq!(headers[CONTENT_TYPE], "application/json");
            assert_eq!(headers["cache-control"], "public, max-age=3600");
            assert_eq!(headers["access-control-allow-origin"], "*");
            assert_eq!(headers["vary"], "Accept");
            assert_eq!(headers.get(ALLOW_HEADER).is_some(), status == 405);
            let length: usize = headers[CONTENT_LENGTH].to_str().unwrap().parse().unwrap();
            let body = body_json(response).await;
            assert_eq!(body.to_string().len(), length);
            assert_eq!(body["status"], status);
            assert_eq!(body["error"]["code"], code);
            assert_eq!(body["instance"], "/api/x.json");
            assert!(body["detail"].as_str().unwrap().contains("/api/x.json"));
        }
    }

    #[tokio::test]
    async fn a_head_error_has_the_length_but_no_body() {
        let response = not_found(&config(), "/nope", true);
        assert!(response.headers()[CONTENT_LENGTH] != "0");
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert!(bytes.is_empty());
    }

    #[tokio::test]
    async fn internal_errors_say_retrying_is_safe() {
        let body = body_json(internal_error(&config(), "/api/posts.json", false)).await;
        assert!(
            body["error"]["hint"]
                .as_str()
                .unwrap()
                .contains("Retrying is safe")
        );
    }
}
