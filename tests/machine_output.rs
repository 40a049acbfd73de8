//! Machine-readable output (`--format json` of `check`, `list` and `verify`): one JSON document
//! on stdout and nothing on stderr, with the text's exit status and facts, on the sample, on a
//! broken site and on a host that breaks the contract; and the keys of
//! `docs/machine-output.md`'s examples are exactly the keys the commands print.
//!
//! The doc's examples are parsed from its fenced `json` blocks, section by section, and their
//! key paths (`diagnostics[].line`) compared with those of real runs, so the page cannot drift.

use crate::common::{self, EN_POST, Preview, SAMPLE_TODAY, Site, TIMEOUT, run_binary};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;

/// Runs the binary in `dir` with `args` and returns its stdout as JSON, checking the exit code
/// and that nothing went to stderr.
fn json_run(dir: &Path, args: &[&str], code: i32) -> Value {
    let run = run_binary(dir, args, TIMEOUT);
    run.assert_code(code);
    assert_eq!(run.stderr, "", "stderr of {args:?} in JSON");
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("{args:?}: stdout is not JSON ({err}):\n{}", run.stdout))
}

/// Every key path of `value`: `ok`, `diagnostics[].line`... (arrays as `[]`).
fn key_paths(value: &Value, prefix: &str, into: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                into.insert(path.clone());
                key_paths(inner, &path, into);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), into);
            }
        }
        _ => {}
    }
}

fn keys_of(values: &[&Value]) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for value in values {
        key_paths(value, "", &mut keys);
    }
    keys
}

/// The examples of the doc's section whose heading starts with `heading`: its `json` blocks.
fn documented(heading: &str) -> Vec<Value> {
    let doc = std::fs::read_to_string(common::repo().join("docs/machine-output.md")).unwrap();
    let start = doc
        .find(&format!("## {heading}"))
        .unwrap_or_else(|| panic!("docs/machine-output.md has no section {heading}"));
    let section = &doc[start + 3..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let blocks: Vec<Value> = section
        .split("```json\n")
        .skip(1)
        .map(|block| {
            let json = &block[..block.find("```").expect("a closed block")];
            serde_json::from_str(json)
                .unwrap_or_else(|err| panic!("{heading}: an example is not JSON ({err})"))
        })
        .collect();
    assert!(!blocks.is_empty(), "{heading}: no example");
    blocks
}

/// The keys of the section's examples are exactly those of `produced`.
fn assert_documented(heading: &str, produced: &[&Value]) {
    let examples = documented(heading);
    let doc = keys_of(&examples.iter().collect::<Vec<_>>());
    let real = keys_of(produced);
    assert_eq!(
        doc, real,
        "the keys of docs/machine-output.md's {heading} examples (left) are not those printed (right)"
    );
}

fn sample_check_json() -> Value {
    json_run(
        &common::repo(),
        &["check", "--today", SAMPLE_TODAY, "--format", "json"],
        0,
    )
}

#[test]
fn check_json_gives_the_sample_summary_and_a_broken_post_with_its_position() {
    let sample = sample_check_json();
    assert_eq!(sample["ok"], true);
    assert_eq!(sample["errors"], 0);
    assert!(sample["files"].as_u64().unwrap() > 0, "{sample}");
    // The summary is the one the text prints, line for line.
    let text = run_binary(
        &common::repo(),
        &["check", "--today", SAMPLE_TODAY],
        TIMEOUT,
    );
    text.assert_success();
    let summary = sample["summary"].as_array().unwrap();
    let langs: Vec<&str> = summary
        .iter()
        .map(|s| s["lang"].as_str().unwrap())
        .collect();
    assert_eq!(langs, ["en", "es"]);
    for entry in summary {
        let n = |key: &str| entry[key].as_u64().unwrap();
        let line = format!(
            "{}: {} posts ({} drafts, {} scheduled), {} decks, {} tags, {} series",
            entry["lang"].as_str().unwrap(),
            n("posts"),
            n("drafts"),
            n("scheduled"),
            n("decks"),
            n("tags"),
            n("series")
        );
        assert!(
            text.stderr.contains(&line),
            "{line:?} not in\n{}",
            text.stderr
        );
    }

    // A post with a bad date: exit 1, the error where the text puts it.
    let site = Site::new();
    site.write(
        EN_POST,
        "---\ntitle: \"Hello\"\ndescription: \"A first post\"\npubDate: 2024-13-01\n---\n\nBody.\n",
    );
    let broken = json_run(
        site.root(),
        &["check", "--content", "content", "--format", "json"],
        1,
    );
    assert_eq!(broken["ok"], false);
    assert_eq!(broken["errors"], 1);
    assert_eq!(broken["summary"], Value::Array(Vec::new()));
    let diagnostics = broken["diagnostics"].as_array().unwrap();
    let error = diagnostics
        .iter()
        .find(|d| d["severity"] == "error")
        .expect("the error");
    assert_eq!(error["path"], EN_POST);
    assert_eq!(
        (error["line"].as_u64(), error["column"].as_u64()),
        (Some(4), Some(10))
    );
    assert!(
        error["message"].as_str().unwrap().contains("pubDate"),
        "{error}"
    );
    assert!(error["help"].is_string(), "{error}");
    // No watch.toml: the placeholder warning is a diagnostic too, counted.
    let warnings = diagnostics
        .iter()
        .filter(|d| d["severity"] == "warning")
        .count();
    assert_eq!(broken["warnings"], warnings);
    assert!(
        diagnostics
            .iter()
            .any(|d| d["path"] == "watch.toml" && d["severity"] == "warning"),
        "{broken}"
    );

    assert_documented("`check --format json`", &[&sample, &broken]);
}

#[test]
fn check_json_reports_the_settings_errors_as_diagnostics_with_exit_2() {
    let site = Site::new();
    let missing = json_run(
        site.root(),
        &["check", "--config", "missing.toml", "--format", "json"],
        2,
    );
    assert_eq!(missing["ok"], false);
    assert_eq!(missing["errors"], 1);
    assert_eq!(missing["diagnostics"][0]["path"], "missing.toml");
    std::fs::write(site.root().join("bad.toml"), "base_url = 3\n").unwrap();
    let bad = json_run(
        site.root(),
        &["check", "--config", "bad.toml", "--format", "json"],
        2,
    );
    assert_eq!(bad["diagnostics"][0]["path"], "bad.toml");
    assert_eq!(bad["diagnostics"][0]["line"], 1);
    // In CI, the placeholder settings are an error, as in text.
    let run = common::run_binary_with(
        site.root(),
        &[
            "check",
            "--content",
            "content",
            "--today",
            common::TODAY,
            "--format",
            "json",
        ],
        &[("CI", "true")],
        TIMEOUT,
    );
    run.assert_code(2);
    assert_eq!(run.stderr, "");
    let ci: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(ci["ok"], false);
    assert!(
        ci["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["severity"] == "error" && d["path"] == "watch.toml"),
        "{ci}"
    );
}

#[test]
fn list_json_is_the_text_list_as_objects() {
    let repo = common::repo();
    let mut produced = Vec::new();
    for (which, state) in [
        ("drafts", "draft"),
        ("scheduled", "scheduled"),
        ("published", "published"),
    ] {
        let listed = json_run(
            &repo,
            &["list", which, "--today", SAMPLE_TODAY, "--format", "json"],
            0,
        );
        let text = run_binary(&repo, &["list", which, "--today", SAMPLE_TODAY], TIMEOUT);
        text.assert_success();
        let lines: Vec<&str> = text.stdout.lines().collect();
        let entries = listed.as_array().unwrap();
        assert!(!entries.is_empty(), "{which}: the sample has some");
        assert_eq!(entries.len(), lines.len(), "{which}");
        for (entry, line) in entries.iter().zip(&lines) {
            assert_eq!(entry["state"], state);
            let field = |key: &str| entry[key].as_str().unwrap().to_string();
            assert!(line.starts_with(&field("date")), "{line} / {entry}");
            for key in ["kind", "lang", "path", "title"] {
                assert!(line.contains(&field(key)), "{key}: {line} / {entry}");
            }
        }
        produced.push(listed);
    }
    let scheduled = &produced[1];
    assert_eq!(scheduled[0]["date"], "2031-03-14");
    assert_eq!(
        scheduled[0]["path"],
        "./content/blog/en/2031-03-14_a-post-from-the-future.md"
    );
    assert_documented(
        "`list drafts|scheduled|published --format json`",
        &produced.iter().collect::<Vec<_>>(),
    );
}

/// A host that serves the built sample's files with 200 (and 404 for the rest), whatever the
/// method, with no header of the contract's: verify fails it.
struct PlainHost {
    origin: String,
}

impl PlainHost {
    fn start(out: std::path::PathBuf) -> PlainHost {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let out = out.clone();
                std::thread::spawn(move || {
                    let mut request = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buf[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&request).to_string();
                    let mut words = head.split_whitespace();
                    let method = words.next().unwrap_or("").to_string();
                    let target = words.next().unwrap_or("/");
                    let path = target.split('?').next().unwrap().trim_start_matches('/');
                    let mut file = out.join(path);
                    if file.is_dir() {
                        file = file.join("index.html");
                    }
                    let (status, body) = match std::fs::read(&file) {
                        Ok(body) if !path.contains("..") => ("200 OK", body),
                        _ => ("404 Not Found", b"not found".to_vec()),
                    };
                    let kind = if path.ends_with(".json") {
                        "application/json"
                    } else {
                        "text/plain"
                    };
                    let mut reply = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    if method != "HEAD" {
                        reply.extend_from_slice(&body);
                    }
                    let _ = stream.write_all(&reply);
                });
            }
        });
        PlainHost { origin }
    }
}

#[test]
fn verify_json_gives_each_check_against_serve_and_the_findings_of_a_plain_host() {
    let preview = Preview::start();
    let root = preview.root();
    let held = json_run(root, &["verify", preview.origin(), "--format", "json"], 0);
    assert_eq!(held["ok"], true);
    assert_eq!(held["target"], preview.origin());
    assert_eq!(held["error"], Value::Null);
    let checks = held["checks"].as_array().unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    let all: Vec<&str> = content_api::verify::CHECKS
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(names, all, "every check, in the order they run");
    let counts = &held["counts"];
    let ok_count = checks.iter().filter(|c| c["ok"] == true).count();
    let skipped = checks.iter().filter(|c| c["ok"].is_null()).count();
    assert_eq!(counts["held"], ok_count);
    assert_eq!(counts["not_checked"], skipped);
    for check in checks.iter().filter(|c| c["ok"].is_null()) {
        assert!(check["skipped"].is_string(), "{check}");
    }
    // The text's last line says the same counts.
    let text = run_binary(root, &["verify", preview.origin()], TIMEOUT);
    text.assert_success();
    let last = text.stdout.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "{} of {} checks hold on {}",
            counts["held"],
            counts["checked"],
            preview.origin()
        )),
        "{last}"
    );

    // The built sample on a host with none of the contract's rules: exit 1, with findings.
    let host = PlainHost::start(preview.out());
    let failed = json_run(root, &["verify", &host.origin, "--format", "json"], 1);
    assert_eq!(failed["ok"], false);
    let checks = failed["checks"].as_array().unwrap();
    let failing: Vec<&Value> = checks.iter().filter(|c| c["ok"] == false).collect();
    assert!(!failing.is_empty(), "{failed}");
    assert_eq!(failed["counts"]["failed"], failing.len());
    let finding = failing
        .iter()
        .flat_map(|c| c["findings"].as_array().unwrap())
        .find(|f| f["class"] == "fail" && f["status"].is_u64())
        .expect("a failure with the reply's status");
    assert!(
        finding["url"].as_str().unwrap().starts_with(&host.origin),
        "{finding}"
    );
    assert!(finding["answered_by"].is_string(), "{finding}");

    // A site that does not answer: exit 2, the error in the object.
    let refused = json_run(
        root,
        &["verify", "http://127.0.0.1:9", "--format", "json"],
        2,
    );
    assert_eq!(refused["ok"], false);
    assert!(refused["error"].is_string(), "{refused}");

    assert_documented("`verify [URL] --format json`", &[&held, &failed, &refused]);
}
