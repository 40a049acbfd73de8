//! `content-api verify URL`: the contract's conformance checks run against a deployed site, the
//! same table (`checks::CHECKS`) the tests run against `serve`, Cloudflare Pages and nginx, so
//! the command and the tests cannot drift. Read-only but for one request per method the `405`
//! checks send to `/api/posts.json`.

// The layers below, under the names they have in every crate of the workspace.
use content_api_engine::render;

pub mod checks;
pub mod client;
pub mod live;

pub use checks::{CHECKS, NOT_CHECKED, Target};
pub use client::{Http, Reply};

use serde_json::Value;

/// The target of a deployed site at `url`, from its own API: its base URL (as its documents
/// write it), a post, a series and a tag; and a removed API path from `history` (API paths a
/// build published), when one is no longer listed by the site's index.
pub fn target(url: &str, history: &[String]) -> Result<Target, String> {
    let parsed = url::Url::parse(url).map_err(|err| format!("`{url}` is not a URL: {err}"))?;
    let http = Http::for_url(&parsed)?;
    let prefix = parsed.path().trim_end_matches('/').to_string();
    let json = |path: &str| -> Result<Value, String> {
        let full = format!("{prefix}{path}");
        let reply = http.send("GET", &full, &[])?;
        if reply.status != 200 {
            return Err(format!(
                "{url}{path} answered {} (is this a content-api site?)",
                reply.status
            ));
        }
        reply.json()
    };
    let index = json("/api/index.json")?;
    let urls: Vec<String> = index["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|endpoint| endpoint["urls"].as_array().into_iter().flatten())
        .filter_map(|url| url.as_str().map(str::to_string))
        .collect();
    let base_url = urls
        .iter()
        .find_map(|url| url.strip_suffix("/api/index.json"))
        .ok_or("the API index does not list /api/index.json")?
        .to_string();
    let posts = json("/api/posts-en.json")?;
    let first = &posts[0];
    let post = first["slug"].as_str().ok_or("no English post")?.to_string();
    let tag = first["tags"][0]
        .as_str()
        .ok_or("the newest English post has no tag")?
        .to_string();
    let listing = json("/api/series/en/index.json")?;
    let series = listing["series"][0]["slug"]
        .as_str()
        .ok_or("no English series")?
        .to_string();
    // Published once, and neither an endpoint's URL now nor one of the static error bodies
    // (outputs of every build that no endpoint lists).
    let error_bodies = crate::render::problem::STATIC_PROBLEMS.map(|(_, path)| path);
    let gone = history
        .iter()
        .filter(|path| path.ends_with(".json") && !error_bodies.contains(&path.as_str()))
        .map(|path| format!("/{path}"))
        .find(|path| !urls.iter().any(|url| url.ends_with(path.as_str())));
    Ok(Target {
        http,
        base_url,
        gone: gone.map(|path| format!("{prefix}{path}")),
        post,
        series,
        tag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_site_answering_without_end_is_an_error_at_the_size_bound() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            let _ = stream.read(&mut [0u8; 4096]);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n");
            // Twice the bound at most: the loop ends.
            for _ in 0..((2 * client::MAX_RESPONSE_BYTES) >> 16) {
                if stream.write_all(&[b' '; 1 << 16]).is_err() {
                    return;
                }
            }
        });
        let err = target(&format!("http://{addr}"), &[]).err().unwrap();
        assert!(
            err.contains(&format!(
                "http://{addr}/api/index.json is larger than 64 MiB"
            )),
            "{err}"
        );
    }
}
