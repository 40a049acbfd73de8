//! Error bodies (contract section 7): RFC 9457 problem details with a nested `error` object.
//!
//! The same constructors serve the static error documents of the build and the local server.

use crate::config::SiteConfig;
use crate::wire::{Error, ErrorCode, ErrorDetail};

/// The static error documents a host can serve for each status, by path.
pub const STATIC_PROBLEMS: [(ErrorCode, &str); 4] = [
    (ErrorCode::ResourceNotFound, "api/404.json"),
    (ErrorCode::MethodNotAllowed, "api/405.json"),
    (ErrorCode::Gone, "api/410.json"),
    (ErrorCode::InternalError, "api/500.json"),
];

impl ErrorCode {
    /// The HTTP status an error of this code answers with.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::ResourceNotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::Gone => 410,
            ErrorCode::InternalError => 500,
        }
    }

    /// The HTTP reason phrase.
    pub fn title(self) -> &'static str {
        match self {
            ErrorCode::ResourceNotFound => "Not Found",
            ErrorCode::MethodNotAllowed => "Method Not Allowed",
            ErrorCode::Gone => "Gone",
            ErrorCode::InternalError => "Internal Server Error",
        }
    }

    /// The `error.code` the body names it by.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ResourceNotFound => "resource_not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::Gone => "gone",
            ErrorCode::InternalError => "internal_error",
        }
    }
}

/// The error body for `code`, about the request path `instance`.
pub fn problem(config: &SiteConfig, code: ErrorCode, instance: &str, detail: String) -> Error {
    let (message, hint) = match code {
        ErrorCode::ResourceNotFound => (
            "No resource exists at this path.".to_string(),
            format!(
                "Every valid URL is listed at {}, and the API is described at {}; endpoint paths end in .json.",
                config.url("/api/index.json"),
                config.url("/openapi.json")
            ),
        ),
        ErrorCode::MethodNotAllowed => (
            "The API is read-only.".to_string(),
            "Retry the request with GET (or HEAD).".to_string(),
        ),
        ErrorCode::Gone => (
            "This resource existed and was permanently removed.".to_string(),
            format!(
                "Fetch {} for the current URLs.",
                config.url("/api/index.json")
            ),
        ),
        ErrorCode::InternalError => (
            "The request could not be completed.".to_string(),
            "Retrying is safe: every endpoint is read-only.".to_string(),
        ),
    };
    Error {
        type_url: config.url("/developers#errors"),
        title: code.title().into(),
        status: code.status(),
        detail,
        instance: instance.into(),
        error: ErrorDetail {
            code,
            message,
            hint,
            documentation_url: config.url("/developers"),
        },
    }
}

/// The error body for one request: `instance` and `detail` name the path (section 7.2 rule 1),
/// and a 405's `detail` names the method. `serve` answers with it; the Cloudflare worker and
/// the nginx configuration carry it as a template with [`PATH_SLOT`] and [`METHOD_SLOT`].
pub fn request_problem(config: &SiteConfig, code: ErrorCode, path: &str, method: &str) -> Error {
    let detail = match code {
        ErrorCode::ResourceNotFound => format!("No resource exists at {path}."),
        ErrorCode::MethodNotAllowed => format!(
            "{method} is not supported at {path}: the API is read-only (GET and HEAD only)."
        ),
        ErrorCode::Gone => format!("The resource at {path} existed and was permanently removed."),
        ErrorCode::InternalError => format!("The request for {path} could not be completed."),
    };
    problem(config, code, path, detail)
}

/// Where a body template holds the request path (JSON-escaped by whoever fills it in).
pub const PATH_SLOT: &str = "{{path}}";
/// Where a body template holds the request method.
pub const METHOD_SLOT: &str = "{{method}}";

/// The body of a static error document: a host serves it for any path, so it cannot name the
/// requested one (the local server does).
pub fn static_problem(config: &SiteConfig, code: ErrorCode) -> Error {
    let detail = match code {
        ErrorCode::ResourceNotFound => "No resource exists at the requested path under /api/.",
        ErrorCode::MethodNotAllowed => "Only GET and HEAD are supported under /api/.",
        ErrorCode::Gone => "The requested resource under /api/ was permanently removed.",
        ErrorCode::InternalError => "The request could not be completed.",
    };
    problem(config, code, "/api/", detail.into())
}
