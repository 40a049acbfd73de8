//! Where `content-api mcp` reads the API from: a built output folder, or a live site over
//! HTTP(S) (reqwest, rustls), found through its `/api/index.json`. Every read is bounded: a
//! file of the folder through `write::out_file` (inside the folder, never waiting on a FIFO,
//! at most [`MAX_API_FILE_BYTES`]), a request to the site by [`Bounds`] (a deadline for the
//! whole exchange, a size for the body) and followed only to redirects within the site's
//! origin.

use crate::model::Languages;
use crate::operations::{Operation, languages_listed, operations};
use crate::write::out_file::read_out_file;
use camino::Utf8Path;
use content_api_verify::client::Bounds;
use content_api_verify::live::{describe, is_loopback};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// The most bytes a tool reads of one file of the API. The largest a tool reads is
/// `api/posts.json`, every post's summary (its size for several site sizes is in
/// docs/performance.md): this holds it for sites many times the largest measured. More is not
/// a file of the API but a mistake or a hostile server, and is refused before memory runs out.
pub const MAX_API_FILE_BYTES: u64 = 64 << 20;

/// How long one request to a live site may take, from connecting to the body's last byte: a
/// file of the API at [`MAX_API_FILE_BYTES`] arrives well within it on a slow link.
const DEADLINE: Duration = Duration::from_secs(30);

/// Redirects followed within the site's origin, per request (a loop is an error, not a hang).
const MAX_REDIRECTS: usize = 10;

/// How much one request to a live site may take: 30 s and [`MAX_API_FILE_BYTES`].
pub const BOUNDS: Bounds = Bounds {
    deadline: DEADLINE,
    max_bytes: MAX_API_FILE_BYTES,
};

/// The answer for one file of the API.
#[derive(Debug)]
pub enum Fetched {
    /// The file's text.
    Found(String),
    /// No such file (the site answers 404).
    NotFound,
    /// Anything else, as the error text of the tool result.
    Failed(String),
}

/// The API the tools read.
#[derive(Debug)]
pub enum ApiSource {
    /// A built output folder (canonical: every read is checked to stay inside it).
    Folder(PathBuf),
    /// A live site: its root URL (no trailing `/`), and the client that reads it.
    Site {
        /// `https://example.com`, or `https://example.com/blog`.
        root: String,
        /// The HTTP(S) client (no proxy for a loopback site; redirects within the origin only).
        client: reqwest::Client,
        /// What one request may take.
        bounds: Bounds,
    },
}

impl ApiSource {
    /// An output folder that holds a build (its `api/index.json`).
    pub fn folder(dir: &Utf8Path) -> Result<ApiSource, String> {
        let index = dir.join(Operation::by_id("getApiIndex").file(&[]));
        if !index.is_file() {
            return Err(format!(
                "`{dir}` holds no built API (no {index}): run `content-api build` first, or give \
                 another folder with --out, or a live site with --site"
            ));
        }
        let root =
            std::fs::canonicalize(dir).map_err(|err| format!("cannot open `{dir}`: {err}"))?;
        Ok(ApiSource::Folder(root))
    }

    /// A live site, given by its root URL (or its index's URL): its `/api/index.json` must
    /// answer, and list every operation the tools read at the path this build's table has.
    pub async fn site(url: &str) -> Result<ApiSource, String> {
        ApiSource::site_within(url, BOUNDS).await
    }

    /// [`ApiSource::site`], each request within `bounds`.
    pub async fn site_within(url: &str, bounds: Bounds) -> Result<ApiSource, String> {
        let index_path = Operation::by_id("getApiIndex").path_template;
        let parsed = url::Url::parse(url).map_err(|err| {
            format!(
                "`{url}` is not a URL ({err}): give the site's address, like https://example.com"
            )
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(format!("`{url}` must be an http:// or https:// address"));
        }
        let text = parsed.as_str().trim_end_matches('/');
        let root = text.strip_suffix(index_path).unwrap_or(text).to_string();
        let client = client_for(&parsed)?;
        let source = ApiSource::Site {
            root,
            client,
            bounds,
        };
        let index = match source.read(&index_path[1..]).await {
            Fetched::Found(text) => text,
            Fetched::NotFound => {
                return Err(format!(
                    "{url} has no {index_path}: is it a content-api site?"
                ));
            }
            Fetched::Failed(err) => return Err(err),
        };
        check_index(&index).map_err(|err| format!("{url}{index_path}: {err}"))?;
        Ok(source)
    }

    /// The site's languages, as its API index lists them (the per-language post lists among its endpoints).
    pub async fn languages(&self) -> Result<Languages, String> {
        let index_path = Operation::by_id("getApiIndex").file(&[]);
        match self.read(&index_path).await {
            Fetched::Found(text) => {
                check_index(&text).map_err(|err| format!("/{index_path}: {err}"))
            }
            Fetched::NotFound => Err(format!("the site has no /{index_path}")),
            Fetched::Failed(err) => Err(err),
        }
    }

    /// Reads one file of the API, `path` relative to the site's root (`api/posts.json`).
    pub async fn read(&self, path: &str) -> Fetched {
        match self {
            ApiSource::Folder(root) => match read_out_file(root, path, MAX_API_FILE_BYTES) {
                Ok(Some(bytes)) => text(bytes, &format!("/{path}")),
                Ok(None) => Fetched::NotFound,
                Err(err) => Fetched::Failed(format!("{err}; it was not read.")),
            },
            ApiSource::Site {
                root,
                client,
                bounds,
            } => {
                let url = format!("{root}/{path}");
                match tokio::time::timeout(bounds.deadline, get(client, &url, *bounds)).await {
                    Ok(fetched) => fetched,
                    Err(_) => Fetched::Failed(format!(
                        "timed out after {} s waiting for {url}.",
                        bounds.deadline.as_secs_f32()
                    )),
                }
            }
        }
    }
}

/// The HTTP(S) client for the site at `url`: redirects followed within its origin only (a
/// site's API elsewhere is not this site's), no proxy for a loopback address.
fn client_for(url: &url::Url) -> Result<reqwest::Client, String> {
    // reqwest's rustls takes the process's crypto provider (ring); already set is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let origin = url.origin();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.url().origin() != origin {
            // Handed back as the 3xx it is: `get` says where it leads and what to do.
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    let mut builder = reqwest::Client::builder()
        .redirect(policy)
        .user_agent(concat!("content-api/", env!("CARGO_PKG_VERSION"), " (mcp)"));
    if is_loopback(url) {
        // A local site is never behind the environment's proxy.
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|err| format!("cannot start an HTTP client: {err}"))
}

/// GETs `url`, its body read up to `bounds.max_bytes` (the caller bounds the time).
async fn get(client: &reqwest::Client, url: &str, bounds: Bounds) -> Fetched {
    let max_bytes = bounds.max_bytes;
    let response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await;
    let mut response = match response {
        Ok(response) => response,
        Err(err) => {
            return Fetched::Failed(format!(
                "GET {url} failed: {}.",
                describe(&err, bounds.deadline)
            ));
        }
    };
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        return Fetched::NotFound;
    }
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok());
    if let Some(location) = location.filter(|_| status.is_redirection()) {
        return Fetched::Failed(elsewhere(url, location));
    }
    if !status.is_success() {
        return Fetched::Failed(format!("GET {url} answered {}.", status.as_u16()));
    }
    let too_large = || {
        Fetched::Failed(format!(
            "the response from {url} is larger than {} MiB; a file of the API is never that \
             large, so it was not read.",
            max_bytes >> 20
        ))
    };
    if response.content_length().is_some_and(|len| len > max_bytes) {
        return too_large();
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) if (body.len() + chunk.len()) as u64 > max_bytes => {
                return too_large();
            }
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) => return text(body, url),
            Err(err) => {
                return Fetched::Failed(format!(
                    "GET {url} failed: {}.",
                    describe(&err, bounds.deadline)
                ));
            }
        }
    }
}

/// A redirect to another origin, which is not followed: where it leads, and what to do.
fn elsewhere(url: &str, location: &str) -> String {
    format!(
        "{url} redirects to {location}, on another origin: content-api mcp follows redirects \
         only within the site's origin; give --site the address the site is served from."
    )
}

/// The body as text, or why it is not.
fn text(bytes: Vec<u8>, name: &str) -> Fetched {
    match String::from_utf8(bytes) {
        Ok(text) => Fetched::Found(text),
        Err(_) => Fetched::Failed(format!("{name} is not UTF-8.")),
    }
}

/// The index lists every operation of this build's table at the same path template (a site of
/// another version may list more; one that lacks an operation, or moved it, is refused), and
/// the post list of each of the site's languages: those languages, in the index's order.
pub fn check_index(text: &str) -> Result<Languages, String> {
    let index: Value = serde_json::from_str(text).map_err(|err| format!("not JSON ({err})"))?;
    let endpoints = index["endpoints"]
        .as_array()
        .ok_or("no `endpoints` list: is it a content-api site?")?;
    let languages = languages_listed(endpoints)?;
    for op in operations(&languages) {
        let listed = endpoints
            .iter()
            .find(|endpoint| endpoint["operationId"] == op.id)
            .ok_or_else(|| format!("the API has no operation {}", op.id))?;
        if listed["pathTemplate"] != op.path_template {
            return Err(format!(
                "operation {} is at {}, not {}: this content-api reads another version of the API",
                op.id, listed["pathTemplate"], op.path_template
            ));
        }
    }
    Ok(languages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn an_index_must_list_every_operation_at_its_path() {
        let endpoints: Vec<Value> = operations(&Languages::seed())
            .iter()
            .map(|op| serde_json::json!({ "operationId": op.id, "pathTemplate": op.path_template }))
            .collect();
        let good = serde_json::json!({ "endpoints": endpoints }).to_string();
        assert_eq!(check_index(&good), Ok(Languages::seed()));
        let mut moved = endpoints.clone();
        moved[1]["pathTemplate"] = "/api/v2/posts.json".into();
        let moved = serde_json::json!({ "endpoints": moved }).to_string();
        assert!(check_index(&moved).unwrap_err().contains("listPosts"));
        assert!(check_index("[]").unwrap_err().contains("endpoints"));
        assert!(check_index("<html>").unwrap_err().contains("not JSON"));
    }

    /// A loopback server that answers up to `count` connections, one at a time, with
    /// `answer(request line, stream)`.
    fn server(
        count: usize,
        answer: impl Fn(&str, &mut TcpStream) + Send + 'static,
    ) -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(count) {
                let Ok(mut stream) = stream else { return };
                stream.set_read_timeout(Some(PATIENCE)).unwrap();
                let mut request = Vec::new();
                let mut byte = [0u8; 1];
                while !request.ends_with(b"\r\n\r\n") && request.len() < 64 << 10 {
                    match stream.read(&mut byte) {
                        Ok(1) => request.push(byte[0]),
                        _ => break,
                    }
                }
                let line = String::from_utf8_lossy(&request);
                answer(line.lines().next().unwrap_or(""), &mut stream);
            }
        });
        addr
    }

    /// Holds the connection until the client closes it (or [`PATIENCE`] passes).
    fn hold(stream: &mut TcpStream) {
        let _ = stream.read(&mut [0u8; 1]);
    }

    /// Any wait of the test servers is bounded by this.
    const PATIENCE: Duration = Duration::from_secs(20);

    /// Small bounds, so each case ends quickly.
    const SMALL: Bounds = Bounds {
        deadline: Duration::from_millis(500),
        max_bytes: 1 << 20,
    };

    fn index() -> String {
        let endpoints: Vec<Value> = operations(&Languages::seed())
            .iter()
            .map(|op| serde_json::json!({ "operationId": op.id, "pathTemplate": op.path_template }))
            .collect();
        serde_json::json!({ "endpoints": endpoints }).to_string()
    }

    #[tokio::test]
    async fn an_endless_body_is_refused_at_the_size_bound() {
        let addr = server(1, |_, stream| {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n");
            // Four times the bound, at most: enough to cross it, and the loop ends.
            for _ in 0..64 {
                if stream.write_all(&[b' '; 64 << 10]).is_err() {
                    return;
                }
            }
        });
        let err = ApiSource::site_within(&format!("http://{addr}"), SMALL)
            .await
            .unwrap_err();
        assert!(
            err.contains(&format!("the response from http://{addr}/api/index.json"))
                && err.contains("larger than 1 MiB"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_server_that_stalls_is_a_time_out_before_or_within_the_body() {
        let before = server(1, |_, stream| hold(stream));
        let within = server(1, |_, stream| {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{");
            hold(stream);
        });
        for addr in [before, within] {
            let err = ApiSource::site_within(&format!("http://{addr}"), SMALL)
                .await
                .unwrap_err();
            assert_eq!(
                err,
                format!("timed out after 0.5 s waiting for http://{addr}/api/index.json.")
            );
        }
    }

    #[tokio::test]
    async fn a_redirect_is_followed_within_the_origin_only() {
        let other = server(1, |_, stream| {
            let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
        });
        let away = server(1, move |_, stream| {
            let reply = format!(
                "HTTP/1.1 302 Found\r\nlocation: http://{other}/api/index.json\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
            let _ = stream.write_all(reply.as_bytes());
        });
        let err = ApiSource::site_within(&format!("http://{away}"), SMALL)
            .await
            .unwrap_err();
        assert!(
            err.contains(&format!("redirects to http://{other}/api/index.json"))
                && err.contains("another origin")
                && err.contains("--site"),
            "{err}"
        );
        let index = index();
        let moved = server(2, move |line, stream| {
            let reply = if line.starts_with("GET /api/index.json ") {
                "HTTP/1.1 301 Moved\r\nlocation: /v2/api/index.json\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string()
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{index}",
                    index.len()
                )
            };
            let _ = stream.write_all(reply.as_bytes());
        });
        assert!(
            ApiSource::site_within(&format!("http://{moved}"), SMALL)
                .await
                .is_ok(),
            "a redirect within the origin is followed"
        );
    }
}
