//! The checks' HTTP client. Plain HTTP is a minimal HTTP/1.1 client on a raw TCP socket: the
//! request line goes on the wire exactly as written (traversal checks need `..` and odd
//! encodings that URL libraries normalise away), one request per connection, bounded in time.
//! HTTPS goes through reqwest (rustls), which normalises `.` and `..` in a path; an encoded one
//! (`%2e%2e`) is sent as written.
//!
//! Every request is bounded ([`Bounds`]): a deadline for the whole exchange (connecting, the
//! headers and the body), a size for the response. No redirect is followed: a check sees the
//! `3xx` itself, and the checks' requests never leave the origin they were given.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Any single request longer than this, from connecting to the body's last byte, is a
/// failure: a hang is a bug.
const PATIENCE: Duration = Duration::from_secs(20);

/// The most bytes of one response that are read. The largest files the checks read are
/// `api/posts.json` (every post's summary; its size for several site sizes is in
/// docs/performance.md) and `llms-full.txt` (split into parts of 20 MiB of posts, the engine's
/// `render::docs::llms_full_parts`). This holds either for sites many times the largest
/// measured; a larger or endless answer is an error, not a read until memory runs out.
pub const MAX_RESPONSE_BYTES: u64 = 64 << 20;

/// What one request may take.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// From connecting to the body's last byte.
    pub deadline: Duration,
    /// The most bytes of the response (on a raw socket, its head and framing included).
    pub max_bytes: u64,
}

impl Bounds {
    /// Every request's: 20 s and [`MAX_RESPONSE_BYTES`].
    pub const DEFAULT: Bounds = Bounds {
        deadline: PATIENCE,
        max_bytes: MAX_RESPONSE_BYTES,
    };

    fn timed_out(&self, url: &str) -> String {
        format!(
            "timed out after {} s waiting for {url}",
            self.deadline.as_secs_f32()
        )
    }

    fn too_large(&self, url: &str) -> String {
        format!(
            "the response from {url} is larger than {} MiB; no file of the API or its documents \
             is that large, so it was not read",
            self.max_bytes >> 20
        )
    }
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    /// The URL requested (origin and path as sent).
    pub url: String,
    /// The status code.
    pub status: u16,
    /// Header names lower-cased; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// The body, de-chunked (empty for `HEAD` and `304`).
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value (repeated headers joined with ", ").
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON, or why it is not.
    pub fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::from_slice(&self.body)
            .map_err(|e| format!("body is not JSON ({e}): {}", self.first_line()))
    }

    /// The body's first line, at most 160 characters: what a report shows of a body.
    pub fn first_line(&self) -> String {
        first_line(&self.text())
    }
}

/// `text`'s first non-empty line, at most 160 characters, marked `…` when cut.
pub fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let cut = line.char_indices().nth(160).map_or(line.len(), |(i, _)| i);
    let more = cut < line.len() || text.trim().lines().nth(1).is_some();
    format!("{:?}{}", &line[..cut], if more { " …" } else { "" })
}

/// How requests reach a host.
pub enum Http {
    /// Plain HTTP to `addr`, with `Host: host` (the address when `None`): a host serving several
    /// sites on one port picks by it.
    Plain {
        /// Where to connect.
        addr: SocketAddr,
        /// The `Host` header.
        host: Option<String>,
    },
    /// HTTPS to `origin` (`https://example.com`).
    Tls {
        /// `https://host[:port]`.
        origin: String,
        /// The client.
        client: reqwest::Client,
        /// Where its requests run (the checks are synchronous).
        runtime: tokio::runtime::Runtime,
    },
}

impl Http {
    /// Plain HTTP to `addr`.
    pub fn plain(addr: SocketAddr, host: Option<String>) -> Http {
        Http::Plain { addr, host }
    }

    /// A client for `url`'s origin: plain HTTP for `http://`, reqwest for `https://`, which
    /// trusts the system's certificate authorities.
    pub fn for_url(url: &url::Url) -> Result<Http, String> {
        Http::for_url_trusting(url, &[])
    }

    /// [`Http::for_url`], trusting for HTTPS also the certificate authorities in `ca_pem` (PEM
    /// bundles): a site whose certificate a private authority signed.
    pub fn for_url_trusting(url: &url::Url, ca_pem: &[Vec<u8>]) -> Result<Http, String> {
        let host = url
            .host_str()
            .ok_or_else(|| format!("{url} names no host"))?;
        match url.scheme() {
            "http" => {
                let port = url.port_or_known_default().unwrap_or(80);
                let addr = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
                    .map_err(|err| format!("cannot resolve {host}: {err}"))?
                    .next()
                    .ok_or_else(|| format!("{host} has no address"))?;
                let host = match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host.to_string(),
                };
                Ok(Http::plain(addr, Some(host)))
            }
            "https" => {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|err| format!("cannot start an HTTP client: {err}"))?;
                // reqwest's rustls takes the process's crypto provider (ring); already set is
                // fine.
                let _ = rustls::crypto::ring::default_provider().install_default();
                let mut extra = Vec::new();
                for pem in ca_pem {
                    extra.extend(
                        reqwest::Certificate::from_pem_bundle(pem)
                            .map_err(|err| format!("not a PEM certificate: {err}"))?,
                    );
                }
                let mut builder = reqwest::Client::builder();
                if !extra.is_empty() {
                    builder = builder.tls_certs_merge(extra);
                }
                if crate::live::is_loopback(url) {
                    builder = builder.no_proxy();
                }
                let client = builder
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(concat!(
                        "content-api/",
                        env!("CARGO_PKG_VERSION"),
                        " (verify)"
                    ))
                    .build()
                    .map_err(|err| format!("cannot start an HTTP client: {err}"))?;
                let origin = url.origin().ascii_serialization();
                Ok(Http::Tls {
                    origin,
                    client,
                    runtime,
                })
            }
            scheme => Err(format!("{url}: `{scheme}` is not http or https")),
        }
    }

    /// `method raw_path` with `headers`, read whole.
    pub fn send(
        &self,
        method: &str,
        raw_path: &str,
        headers: &[(&str, &str)],
    ) -> Result<Reply, String> {
        self.send_within(method, raw_path, headers, Bounds::DEFAULT)
    }

    /// The URL of `raw_path` on this host.
    pub fn url(&self, raw_path: &str) -> String {
        match self {
            Http::Plain { addr, host } => match host {
                Some(host) => format!("http://{host}{raw_path}"),
                None => format!("http://{addr}{raw_path}"),
            },
            Http::Tls { origin, .. } => format!("{origin}{raw_path}"),
        }
    }

    /// [`Http::send`] within `bounds`.
    pub fn send_within(
        &self,
        method: &str,
        raw_path: &str,
        headers: &[(&str, &str)],
        bounds: Bounds,
    ) -> Result<Reply, String> {
        match self {
            Http::Plain { addr, host } => {
                let mut all: Vec<(&str, &str)> = headers.to_vec();
                if let Some(host) = host {
                    all.push(("Host", host));
                }
                exchange(*addr, method, raw_path, &all, b"", bounds)
            }
            Http::Tls {
                origin,
                client,
                runtime,
            } => {
                let url = format!("{origin}{raw_path}");
                let exchange = tls_request(client, &url, method, headers, bounds);
                runtime
                    .block_on(async { tokio::time::timeout(bounds.deadline, exchange).await })
                    .unwrap_or_else(|_| {
                        Err(format!("{method} {raw_path}: {}", bounds.timed_out(&url)))
                    })
            }
        }
    }
}

/// `method url` through reqwest, its body read up to `bounds.max_bytes` (the caller bounds the
/// time).
async fn tls_request(
    client: &reqwest::Client,
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    bounds: Bounds,
) -> Result<Reply, String> {
    let method_value = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let mut request = client.request(method_value, url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let describe = |e: reqwest::Error| {
        format!(
            "{method} {url}: {}",
            crate::live::describe(&e, bounds.deadline)
        )
    };
    let mut response = request.send().await.map_err(describe)?;
    let status = response.status().as_u16();
    let mut collected: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in response.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        collected
            .entry(name.as_str().to_string())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let too_large = || format!("{method} {url}: {}", bounds.too_large(url));
    if response
        .content_length()
        .is_some_and(|len| len > bounds.max_bytes)
    {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(describe)? {
        if (body.len() + chunk.len()) as u64 > bounds.max_bytes {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Reply {
        url: url.to_string(),
        status,
        headers: collected,
        body,
    })
}

/// Sends `method raw_path` with `headers` to `addr` over plain HTTP and reads the whole
/// response.
pub fn request(
    addr: SocketAddr,
    method: &str,
    raw_path: &str,
    headers: &[(&str, &str)],
) -> Result<Reply, String> {
    request_with_body(addr, method, raw_path, headers, b"")
}

/// [`request`] with a request body (the tests send forms to a site's dev server).
pub fn request_with_body(
    addr: SocketAddr,
    method: &str,
    raw_path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Reply, String> {
    exchange(addr, method, raw_path, headers, body, Bounds::DEFAULT)
}

/// [`request_with_body`] within `bounds`.
pub fn exchange(
    addr: SocketAddr,
    method: &str,
    raw_path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    bounds: Bounds,
) -> Result<Reply, String> {
    let deadline = Instant::now() + bounds.deadline;
    let host = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("host"))
        .map_or_else(|| addr.to_string(), |(_, value)| value.to_string());
    let url = format!("http://{host}{raw_path}");
    let mut stream = TcpStream::connect_timeout(&addr, bounds.deadline).map_err(|e| {
        if matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            format!("{method} {raw_path}: {}", bounds.timed_out(&url))
        } else {
            format!("cannot connect to {addr} for {url}: {e}")
        }
    })?;
    let left = deadline.saturating_duration_since(Instant::now());
    stream
        .set_write_timeout(Some(left.max(Duration::from_millis(1))))
        .ok();
    let mut head = format!("{method} {raw_path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || !matches!(method, "GET" | "HEAD" | "OPTIONS") {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .map_err(|e| {
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) {
                format!("{method} {raw_path}: {}", bounds.timed_out(&url))
            } else {
                format!("cannot send {method} {url}: {e}")
            }
        })?;
    let bytes = match read_response(&mut stream, method == "HEAD", deadline, bounds.max_bytes) {
        Ok(bytes) => bytes,
        Err(Unread::TimedOut) => {
            return Err(format!("{method} {raw_path}: {}", bounds.timed_out(&url)));
        }
        Err(Unread::TooLarge) => {
            return Err(format!("{method} {raw_path}: {}", bounds.too_large(&url)));
        }
        Err(Unread::Io(e)) => {
            return Err(format!("cannot read the answer to {method} {url}: {e}"));
        }
    };
    let mut reply =
        parse(&bytes, method == "HEAD").map_err(|e| format!("{method} {raw_path}: {e}"))?;
    reply.url = url;
    Ok(reply)
}

/// Why a response was not read whole.
enum Unread {
    /// The deadline passed.
    TimedOut,
    /// More bytes than the bound.
    TooLarge,
    /// The connection failed.
    Io(std::io::Error),
}

/// Reads one response: up to the end of its body as its headers frame it, not to the end of
/// the connection (a server may keep it open despite `Connection: close`); by `deadline`, and
/// at most `max_bytes`.
fn read_response(
    stream: &mut TcpStream,
    head: bool,
    deadline: Instant,
    max_bytes: u64,
) -> Result<Vec<u8>, Unread> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let headers = String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase();
            let status = headers.split(' ').nth(1).unwrap_or("");
            let body = bytes.len() - end - 4;
            let length = headers
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            let chunked = headers
                .lines()
                .any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
            let done = if head || matches!(status, "204" | "304") {
                true
            } else if chunked {
                bytes.ends_with(b"0\r\n\r\n") && body >= 5
            } else if let Some(length) = length {
                body >= length
            } else {
                false
            };
            if done {
                return Ok(bytes);
            }
        }
        let read = read_by(stream, &mut buffer, deadline)?;
        if read == 0 {
            return Ok(bytes);
        }
        if (bytes.len() + read) as u64 > max_bytes {
            return Err(Unread::TooLarge);
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
}

/// One read that waits no later than `deadline` (a server sending a byte now and then cannot
/// stretch the exchange past it).
fn read_by(stream: &mut TcpStream, buffer: &mut [u8], deadline: Instant) -> Result<usize, Unread> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Unread::TimedOut);
    }
    stream.set_read_timeout(Some(left)).map_err(Unread::Io)?;
    match stream.read(buffer) {
        Ok(read) => Ok(read),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Err(Unread::TimedOut)
        }
        Err(e) => Err(Unread::Io(e)),
    }
}

fn parse(bytes: &[u8], head: bool) -> Result<Reply, String> {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no end of headers")?;
    let text = std::str::from_utf8(&bytes[..end]).map_err(|_| "headers are not UTF-8")?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().ok_or("no status line")?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for line in lines {
        let (name, value) = line.split_once(':').ok_or("bad header line")?;
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim().to_string();
        headers
            .entry(name)
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    let rest = &bytes[end + 4..];
    let body = if head || status == 304 {
        Vec::new()
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Ok(Reply {
        url: String::new(),
        status,
        headers,
        body,
    })
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("truncated chunk size")?;
        let size_text = std::str::from_utf8(&rest[..line_end]).map_err(|_| "bad chunk size")?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Ok(body);
        }
        if rest.len() < size + 2 {
            return Err("truncated chunk".into());
        }
        body.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests;
