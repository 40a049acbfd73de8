//! `content-api verify URL`: the contract's conformance checks run against a deployed site, the
//! same table (`checks::CHECKS`) the tests run against `serve`, Cloudflare Pages and nginx, so
//! the command and the tests cannot drift. Read-only but for one request per method the `405`
//! checks send to `/api/posts.json`.

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::{Languages, documents, http, languages, operations, problem};

pub mod checks;
pub mod client;
pub mod live;

pub use checks::{CHECKS, Class, NOT_CHECKED, Target};
pub use client::{Http, Reply};

use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Instant;

/// Where content-api publishes its deploy record (`deploy::DEPLOY_RECORD_PATH`, which this
/// layer cannot name): the files it published and their hashes.
pub const DEPLOY_RECORD: &str = "/.well-known/content-api/deploy.json";

/// How `verify` reaches the site.
#[derive(Default)]
pub struct Options {
    /// PEM bundles of certificate authorities to trust besides the system's.
    pub ca_pem: Vec<Vec<u8>>,
    /// When the whole run must end.
    pub deadline: Option<Instant>,
}

/// The target of a deployed site at `url`, from its own API: its base URL (as its documents
/// write it), a post, a series and a tag when it has them; the files content-api published
/// there (its deploy record), when it serves one; and a removed API path from `history` (API
/// paths a build published), when one is no longer listed by the site's index. An error only
/// when the site does not answer as a content-api API.
pub fn target(url: &str, history: &[String], options: &Options) -> Result<Target, String> {
    let parsed = url::Url::parse(url).map_err(|err| format!("`{url}` is not a URL: {err}"))?;
    let http = Http::for_url_trusting(&parsed, &options.ca_pem)?;
    let prefix = parsed.path().trim_end_matches('/').to_string();
    let mut target = Target {
        http,
        base_url: String::new(),
        gone: None,
        languages: Languages::seed(),
        post: None,
        series: None,
        tag: None,
        deployed: None,
        deadline: options.deadline,
    };
    let json = |target: &Target, path: &str| -> Result<Value, String> {
        let full = format!("{prefix}{path}");
        let reply = target.request("GET", &full, &[])?;
        if reply.status != 200 {
            return Err(format!(
                "{} answered {} (is this a content-api site?); body {}",
                reply.url,
                reply.status,
                reply.first_line()
            ));
        }
        reply.json().map_err(|why| format!("{}: {why}", reply.url))
    };
    let index = json(&target, "/api/index.json")?;
    let urls: Vec<String> = index["endpoints"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|endpoint| endpoint["urls"].as_array().into_iter().flatten())
        .filter_map(|url| url.as_str().map(str::to_string))
        .collect();
    target.languages =
        operations::languages_listed(index["endpoints"].as_array().map_or(&[][..], Vec::as_slice))?;
    target.base_url = urls
        .iter()
        .find_map(|url| url.strip_suffix("/api/index.json"))
        .ok_or("the API index does not list /api/index.json")?
        .to_string();
    let posts = json(&target, &target.posts_path())?;
    let first = &posts[0];
    target.post = first["slug"].as_str().map(str::to_string);
    target.tag = first["tags"][0].as_str().map(str::to_string);
    // A site with no series may still answer the listing (empty); any failure here is the
    // checks' to report.
    let series_listing = format!("/api/series/{}/index.json", target.lang());
    target.series = json(&target, &series_listing)
        .ok()
        .and_then(|listing| listing["series"][0]["slug"].as_str().map(str::to_string));
    target.deployed = deploy_record(&target, &prefix);
    // Published once, and neither an endpoint's URL now nor one of the static error bodies
    // (outputs of every build that no endpoint lists).
    let error_bodies = crate::problem::STATIC_PROBLEMS.map(|(_, path)| path);
    target.gone = history
        .iter()
        .filter(|path| path.ends_with(".json") && !error_bodies.contains(&path.as_str()))
        .map(|path| format!("/{path}"))
        .find(|path| !urls.iter().any(|url| url.ends_with(path.as_str())))
        .map(|path| format!("{prefix}{path}"));
    Ok(target)
}

/// The files of the site's deploy record and their hashes, when it serves one.
fn deploy_record(target: &Target, prefix: &str) -> Option<BTreeMap<String, String>> {
    let reply = target
        .request("GET", &format!("{prefix}{DEPLOY_RECORD}"), &[])
        .ok()?;
    if reply.status != 200 {
        return None;
    }
    let record = reply.json().ok()?;
    let files = record["files"].as_object()?;
    Some(
        files
            .iter()
            .filter_map(|(path, hash)| Some((path.clone(), hash.as_str()?.to_string())))
            .collect(),
    )
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
        let err = target(&format!("http://{addr}"), &[], &Options::default())
            .err()
            .unwrap();
        assert!(
            err.contains(&format!(
                "http://{addr}/api/index.json is larger than 64 MiB"
            )),
            "{err}"
        );
    }

    /// `openssl` with `args` in `dir`; `false` when it is not installed.
    fn openssl(dir: &std::path::Path, args: &[&str]) -> bool {
        match std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stderr(std::process::Stdio::null())
            .status()
        {
            Ok(status) => {
                assert!(status.success(), "openssl {args:?}");
                true
            }
            Err(_) => false,
        }
    }

    #[test]
    fn a_private_certificate_authority_is_refused_by_name_and_trusted_with_its_pem() {
        // A CA made here, a certificate for localhost it signs, and `openssl s_server -WWW`
        // serving one file over TLS with it.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        if !openssl(d, &["version"]) {
            // The integration tests' rule (`tests/common/need.rs`, out of this crate's reach):
            // with `CI` set (not empty, `0` or `false`) a missing program fails; else a skip.
            let ci = std::env::var("CI")
                .is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"));
            let test = std::thread::current().name().unwrap_or("a test").to_owned();
            let line = format!("{test}: no openssl (Debian's openssl)");
            assert!(!ci, "required, since CI is set: {line}");
            // Past the test harness's capture, so a passing run shows it.
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("skipped: {line}\n").as_bytes(),
            );
            return;
        }
        for args in [
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=Test CA",
            ][..],
            &[
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "site.key",
                "-out",
                "site.csr",
                "-subj",
                "/CN=localhost",
            ],
        ] {
            openssl(d, args);
        }
        std::fs::write(
            d.join("ext"),
            "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n",
        )
        .unwrap();
        openssl(
            d,
            &[
                "x509",
                "-req",
                "-in",
                "site.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "site.pem",
                "-days",
                "2",
                "-extfile",
                "ext",
            ],
        );
        std::fs::write(d.join("hello.json"), "[1]").unwrap();
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let mut server = std::process::Command::new("openssl")
            .args([
                "s_server",
                "-accept",
                &format!("127.0.0.1:{port}"),
                "-cert",
                "site.pem",
            ])
            .args(["-key", "site.key", "-WWW", "-quiet"])
            .current_dir(d)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let url = url::Url::parse(&format!("https://localhost:{port}/")).unwrap();
        let ca = std::fs::read(d.join("ca.pem")).unwrap();
        // Until it listens (a bound that detects a server that never starts).
        let mut trusted = Err(String::new());
        for _ in 0..100 {
            let http = Http::for_url_trusting(&url, std::slice::from_ref(&ca)).unwrap();
            trusted = http.send("GET", "/hello.json", &[]);
            if trusted.is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let refused = Http::for_url(&url).unwrap().send("GET", "/hello.json", &[]);
        let _ = server.kill();
        let _ = server.wait();
        let reply = trusted.unwrap();
        assert_eq!((reply.status, reply.body.as_slice()), (200, &b"[1]"[..]));
        let err = refused.unwrap_err();
        assert!(
            err.contains(
                "TLS: the site's certificate was refused: invalid peer certificate: UnknownIssuer"
            ) && err.contains("--ca-file"),
            "{err}"
        );
    }
}
