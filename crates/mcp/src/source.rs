//! Where `content-api mcp` reads the API from: a built output folder, or a live site over
//! HTTP(S) (reqwest, rustls), found through its `/api/index.json`.

use crate::render::{OPERATIONS, Operation};
use camino::{Utf8Path, Utf8PathBuf};
use serde_json::Value;
use std::time::Duration;

/// How long one request to a live site may take.
const TIMEOUT: Duration = Duration::from_secs(30);

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
pub enum Source {
    /// A built output folder.
    Folder(Utf8PathBuf),
    /// A live site: its root URL (no trailing `/`), and the client that reads it.
    Site {
        /// `https://example.com`, or `https://example.com/blog`.
        root: String,
        /// The HTTP(S) client (no proxy for a loopback site).
        client: reqwest::Client,
    },
}

impl Source {
    /// An output folder that holds a build (its `api/index.json`).
    pub fn folder(dir: &Utf8Path) -> Result<Source, String> {
        let index = dir.join(Operation::by_id("getApiIndex").file(&[]));
        if !index.is_file() {
            return Err(format!(
                "`{dir}` holds no built API (no {index}): run `content-api build` first, or give \
                 another folder with --out, or a live site with --site"
            ));
        }
        Ok(Source::Folder(dir.to_path_buf()))
    }

    /// A live site, given by its root URL (or its index's URL): its `/api/index.json` must
    /// answer, and list every operation the tools read at the path this build's table has.
    pub async fn site(url: &str) -> Result<Source, String> {
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
        // reqwest's rustls takes the process's crypto provider (ring); already set is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .user_agent(concat!("content-api/", env!("CARGO_PKG_VERSION"), " (mcp)"));
        if is_loopback(&parsed) {
            // A local site is never behind the environment's proxy.
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|err| format!("cannot start an HTTP client: {err}"))?;
        let source = Source::Site { root, client };
        let index = match source.read(&index_path[1..]).await {
            Fetched::Found(text) => text,
            Fetched::NotFound => {
                return Err(format!(
                    "{url} has no {index_path}: is it a content-api site?"
                ));
            }
            Fetched::Failed(err) => return Err(format!("{url}: {err}")),
        };
        check_index(&index).map_err(|err| format!("{url}{index_path}: {err}"))?;
        Ok(source)
    }

    /// Reads one file of the API, `path` relative to the site's root (`api/posts.json`).
    pub async fn read(&self, path: &str) -> Fetched {
        match self {
            Source::Folder(dir) => match std::fs::read(dir.join(path)) {
                Ok(bytes) => match String::from_utf8(bytes) {
                    Ok(text) => Fetched::Found(text),
                    Err(_) => Fetched::Failed(format!("/{path} is not UTF-8.")),
                },
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Fetched::NotFound,
                Err(err) => Fetched::Failed(format!("GET /{path} failed: {err}")),
            },
            Source::Site { root, client } => {
                let response = client
                    .get(format!("{root}/{path}"))
                    .header(reqwest::header::ACCEPT, "application/json")
                    .send()
                    .await;
                let response = match response {
                    Ok(response) => response,
                    Err(err) => return Fetched::Failed(format!("GET /{path} failed: {err}")),
                };
                let status = response.status();
                if status == reqwest::StatusCode::NOT_FOUND {
                    return Fetched::NotFound;
                }
                if !status.is_success() {
                    return Fetched::Failed(format!("GET /{path} answered {}.", status.as_u16()));
                }
                match response.bytes().await {
                    Ok(bytes) => match String::from_utf8(bytes.to_vec()) {
                        Ok(text) => Fetched::Found(text),
                        Err(_) => Fetched::Failed(format!("/{path} is not UTF-8.")),
                    },
                    Err(err) => Fetched::Failed(format!("GET /{path} failed: {err}")),
                }
            }
        }
    }
}

fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name == "localhost",
        None => false,
    }
}

/// The index lists every operation of this build's table at the same path template (a site of
/// another version may list more; one that lacks an operation, or moved it, is refused).
fn check_index(text: &str) -> Result<(), String> {
    let index: Value = serde_json::from_str(text).map_err(|err| format!("not JSON ({err})"))?;
    let endpoints = index["endpoints"]
        .as_array()
        .ok_or("no `endpoints` list: is it a content-api site?")?;
    for op in &OPERATIONS {
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_must_list_every_operation_at_its_path() {
        let endpoints: Vec<Value> = OPERATIONS
            .iter()
            .map(|op| serde_json::json!({ "operationId": op.id, "pathTemplate": op.path_template }))
            .collect();
        let good = serde_json::json!({ "endpoints": endpoints }).to_string();
        assert_eq!(check_index(&good), Ok(()));
        let mut moved = endpoints.clone();
        moved[1]["pathTemplate"] = "/api/v2/posts.json".into();
        let moved = serde_json::json!({ "endpoints": moved }).to_string();
        assert!(check_index(&moved).unwrap_err().contains("listPosts"));
        assert!(check_index("[]").unwrap_err().contains("endpoints"));
        assert!(check_index("<html>").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn only_local_addresses_skip_the_proxy() {
        for (url, local) in [
            ("http://127.0.0.1:4321", true),
            ("http://[::1]:80", true),
            ("http://localhost:4321", true),
            ("https://example.com", false),
            ("http://10.0.0.1", false),
        ] {
            assert_eq!(is_loopback(&url::Url::parse(url).unwrap()), local, "{url}");
        }
    }
}
