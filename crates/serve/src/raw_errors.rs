//! hyper's own error answers, in the contract's format.
//!
//! When a request cannot be parsed (a malformed request line: 400; a URI over hyper's limit:
//! 414; a head over its buffer: 431), hyper answers by itself, with an empty body, before the
//! router sees a request. The contract wants every error as JSON, so each connection is
//! wrapped: a response head that hyper starts with one of those statuses (the router's own
//! `400`s carry the layer header, hyper's never do) is replaced by the same status with the contract's headers and JSON body. The
//! `instance` is the request target as far as it could be read.
//!
//! The error codes of the contract's enum are for resources; none names a malformed request,
//! so these bodies carry `resource_not_found` (no resource can be at a target that cannot be
//! read) with the HTTP status of the actual problem, and a detail that says what it was.

use super::respond::with_contract_headers;
use crate::config::SiteConfig;
use crate::problem::problem;
use crate::wire::{ErrorCode, to_json};
use hyper::StatusCode;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How much of a request's first bytes is kept to name its target.
const TARGET_PREFIX: usize = 512;

/// A connection whose hyper-made error answers are rewritten (see the module documentation).
pub struct ContractErrors<T> {
    inner: T,
    config: Arc<SiteConfig>,
    /// The first bytes of the request being read (for `instance`).
    request_start: Vec<u8>,
    /// A response was written since the last read: the next bytes start a new request.
    new_request: bool,
    /// The replacement still to send, and how many of hyper's bytes it stands for.
    replacing: Option<(Vec<u8>, usize)>,
    /// The replacement was sent: hyper's last bytes on this connection are dropped.
    replaced: bool,
}

impl<T> ContractErrors<T> {
    pub fn new(inner: T, config: Arc<SiteConfig>) -> ContractErrors<T> {
        ContractErrors {
            inner,
            config,
            request_start: Vec::new(),
            new_request: true,
            replacing: None,
            replaced: false,
        }
    }

    /// The replacement when `head` starts one of hyper's own error answers (the router's own
    /// `400`s name their layer, and are left alone).
    fn replacement(&self, head: &[u8]) -> Option<Vec<u8>> {
        let status = [
            StatusCode::BAD_REQUEST,
            StatusCode::URI_TOO_LONG,
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        ]
        .into_iter()
        .find(|status| head.starts_with(format!("HTTP/1.1 {} ", status.as_u16()).as_bytes()))?;
        let layer = crate::http::LAYER_HEADER.to_ascii_lowercase();
        if memchr::memmem::find(&head.to_ascii_lowercase(), layer.as_bytes()).is_some() {
            return None;
        }
        Some(answer(&self.config, status, &target(&self.request_start)))
    }
}

/// The whole HTTP/1.1 answer: status, the contract's headers, the JSON body; then the
/// connection closes (hyper closes it after an error of its own).
fn answer(config: &SiteConfig, status: StatusCode, instance: &str) -> Vec<u8> {
    let reason = status.canonical_reason().unwrap_or("Error");
    let detail = match status {
        StatusCode::URI_TOO_LONG => {
            "The request target is too long to name a resource; no resource has such a path."
        }
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
            "The request's headers are too large to be read; send fewer or smaller headers."
        }
        _ => "The request could not be read as HTTP/1.1; check the request line and headers.",
    };
    let mut body = problem(
        config,
        ErrorCode::ResourceNotFound,
        instance,
        detail.to_string(),
    );
    body.status = status.as_u16();
    body.title = reason.to_string();
    let json = to_json(&body);
    let response = with_contract_headers(status)
        .body(())
        .expect("valid error response");
    let mut bytes = format!("HTTP/1.1 {} {reason}\r\n", status.as_u16()).into_bytes();
    for (name, value) in response.headers() {
        bytes.extend_from_slice(name.as_str().as_bytes());
        bytes.extend_from_slice(b": ");
        bytes.extend_from_slice(value.as_bytes());
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(
        format!(
            "content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            json.len()
        )
        .as_bytes(),
    );
    bytes.extend_from_slice(json.as_bytes());
    bytes
}

/// The request target among a request's first bytes (`GET /api/x.json HTTP/1.1`), or `/`.
fn target(start: &[u8]) -> String {
    let line = start
        .split(|&b| b == b'\r' || b == b'\n')
        .next()
        .unwrap_or(&[]);
    let mut parts = line.split(|&b| b == b' ');
    let _method = parts.next();
    match parts.next() {
        Some(target) if target.starts_with(b"/") => {
            let shown: String = String::from_utf8_lossy(target).chars().take(200).collect();
            shown
        }
        _ => "/".to_string(),
    }
}

impl<T: AsyncWrite + Unpin> ContractErrors<T> {
    /// Sends the replacement (if one is under way); `Ready(Some(n))` once sent, standing for
    /// `n` bytes of hyper's.
    fn poll_replacement(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Option<usize>>> {
        let Some((bytes, stands_for)) = &mut self.replacing else {
            return Poll::Ready(Ok(None));
        };
        while !bytes.is_empty() {
            let written = ready!(Pin::new(&mut self.inner).poll_write(cx, bytes))?;
            if written == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            bytes.drain(..written);
        }
        let stands_for = *stands_for;
        self.replacing = None;
        self.replaced = true;
        Poll::Ready(Ok(Some(stands_for)))
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for ContractErrors<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        let read = &buf.filled()[before..];
        if this.new_request && !read.is_empty() {
            this.request_start.clear();
            this.new_request = false;
        }
        let room = TARGET_PREFIX.saturating_sub(this.request_start.len());
        this.request_start
            .extend_from_slice(&read[..room.min(read.len())]);
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ContractErrors<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.replaced {
            return Poll::Ready(Ok(buf.len()));
        }
        if this.replacing.is_none()
            && let Some(bytes) = this.replacement(buf)
        {
            this.replacing = Some((bytes, buf.len()));
        }
        if let Some(stands_for) = ready!(this.poll_replacement(cx))? {
            return Poll::Ready(Ok(stands_for));
        }
        let written = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        this.new_request = true;
        Poll::Ready(Ok(written))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if this.replaced {
            return Poll::Ready(Ok(total));
        }
        if this.replacing.is_none()
            && let Some(first) = bufs.iter().find(|b| !b.is_empty())
            && let Some(bytes) = this.replacement(first)
        {
            this.replacing = Some((bytes, total));
        }
        if let Some(stands_for) = ready!(this.poll_replacement(cx))? {
            return Poll::Ready(Ok(stands_for));
        }
        let written = ready!(Pin::new(&mut this.inner).poll_write_vectored(cx, bufs))?;
        this.new_request = true;
        Poll::Ready(Ok(written))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_read_from_the_request_line() {
        assert_eq!(
            target(b"GET /api/x.json HTTP/1.1\r\nHost: a"),
            "/api/x.json"
        );
        assert_eq!(target(b"GET /api/partial"), "/api/partial");
        assert_eq!(target(b"\x16\x03\x01 garbage"), "/");
        assert_eq!(target(b""), "/");
    }

    #[test]
    fn only_hypers_own_error_answers_are_replaced() {
        let config = Arc::new(SiteConfig::defaults(camino::Utf8Path::new(".")));
        let errors = ContractErrors::new((), config);
        assert!(
            errors
                .replacement(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                .is_some()
        );
        let routed = b"HTTP/1.1 400 Bad Request\r\ncontent-api-layer: serve\r\n\r\n";
        assert!(errors.replacement(routed).is_none(), "the router's own");
        assert!(errors.replacement(b"HTTP/1.1 200 OK\r\n\r\n").is_none());
    }

    #[test]
    fn an_answer_is_a_complete_json_error_that_closes_the_connection() {
        let config = SiteConfig::defaults(camino::Utf8Path::new("."));
        let bytes = answer(&config, StatusCode::URI_TOO_LONG, "/api/x");
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains("content-type: application/json"));
        assert!(head.contains("access-control-allow-origin: *"));
        assert!(head.contains("connection: close"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["status"], 414);
        assert_eq!(json["instance"], "/api/x");
        assert_eq!(json["error"]["code"], "resource_not_found");
    }
}
