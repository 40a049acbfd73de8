//! The checks' HTTP client. Plain HTTP is a minimal HTTP/1.1 client on a raw TCP socket: the
//! request line goes on the wire exactly as written (traversal checks need `..` and odd
//! encodings that URL libraries normalise away), one request per connection, bounded in time.
//! HTTPS goes through reqwest (rustls), which normalises `.` and `..` in a path; an encoded one
//! (`%2e%2e`) is sent as written.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Any single request longer than this is a failure: a hang is a bug.
const PATIENCE: Duration = Duration::from_secs(20);

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
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
        serde_json::from_slice(&self.body).map_err(|e| {
            let text = self.text();
            format!("body is not JSON ({e}): {}", &text[..text.len().min(200)])
        })
    }
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

    /// A client for `url`'s origin: plain HTTP for `http://`, reqwest for `https://`.
    pub fn for_url(url: &url::Url) -> Result<Http, String> {
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
                let client = reqwest::Client::builder()
                    .timeout(PATIENCE)
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
        match self {
            Http::Plain { addr, host } => {
                let mut all: Vec<(&str, &str)> = headers.to_vec();
                if let Some(host) = host {
                    all.push(("Host", host));
                }
                request(*addr, method, raw_path, &all)
            }
            Http::Tls {
                origin,
                client,
                runtime,
            } => runtime.block_on(tls_request(client, origin, method, raw_path, headers)),
        }
    }
}

async fn tls_request(
    client: &reqwest::Client,
    origin: &str,
    method: &str,
    raw_path: &str,
    headers: &[(&str, &str)],
) -> Result<Reply, String> {
    let method_value = reqwest::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let mut request = client.request(method_value, format!("{origin}{raw_path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .send()
        .await
        .map_err(|e| format!("{method} {raw_path}: {e}"))?;
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
    let body = response
        .bytes()
        .await
        .map_err(|e| format!("{method} {raw_path}: {e}"))?
        .to_vec();
    Ok(Reply {
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
    let mut stream = TcpStream::connect_timeout(&addr, PATIENCE)
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream.set_read_timeout(Some(PATIENCE)).ok();
    stream.set_write_timeout(Some(PATIENCE)).ok();
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
        .map_err(|e| format!("cannot send {method} {raw_path}: {e}"))?;
    let bytes = read_response(&mut stream, method == "HEAD")
        .map_err(|e| format!("cannot read the answer to {method} {raw_path}: {e}"))?;
    parse(&bytes, method == "HEAD").map_err(|e| format!("{method} {raw_path}: {e}"))
}

/// Reads one response: up to the end of its body as its headers frame it, not to the end of
/// the connection (a server may keep it open despite `Connection: close`).
fn read_response(stream: &mut TcpStream, head: bool) -> std::io::Result<Vec<u8>> {
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
        let read = stream.read(&mut buffer)?;
        if read == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&buffer[..read]);
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
