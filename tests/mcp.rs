//! `content-api mcp`, the site's tools over stdio, with two real clients.
//!
//! - a raw JSON-RPC client (`common/mcp_client.rs`, always runs): every tool against a built
//!   sample site (`--out`) and against a live site (`--site`, `content-api serve` on loopback);
//!   each result equals the file the API serves (filtered for `search_posts`), each bad input is
//!   an error result naming the input; and every read bounded: a loopback site sending an
//!   endless body or redirecting to another port, and a folder with a FIFO, links leading out
//!   of it and an oversized file at tools' paths;
//! - the official MCP Python SDK (PyPI `mcp`, `tests/mcp/client.py`): the same calls. Skipped
//!   when no Python with `mcp` is found (`CONTENT_API_PYTHON`, else `python3`), by
//!   `common::need`'s rule.

use crate::common::{self, need};

use common::{McpClient, Preview, assert_results, built_sample, card_tools, cases};
use content_api::mcp::MAX_API_FILE_BYTES;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn unchanged(text: String) -> String {
    text
}

#[test]
fn every_tool_answers_from_a_built_output_folder() {
    let out = built_sample();
    let folder = out.path().to_str().unwrap();
    let mut client = McpClient::start(&["--out", folder]);
    assert_eq!(
        client.tools(),
        card_tools(out.path()),
        "the card's tools, in its order"
    );
    let cases = cases(out.path(), &unchanged);
    let results: Vec<Value> = cases
        .iter()
        .map(|case| client.call(case.tool, &case.arguments))
        .collect();
    assert_results("content-api mcp --out", &cases, &results);
    // A tool that does not exist is a protocol error, not a result.
    let mut unknown = McpClient::start(&["--out", folder]);
    let error = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        unknown.call("delete_everything", &json!({}))
    }));
    assert!(error.is_err(), "an unknown tool is refused");
    assert!(
        client.close().success(),
        "the server exits once its client closes stdin"
    );
}

/// rmcp logs each client's whole `InitializeRequestParams` at info: the server keeps rmcp's
/// own logs at warn (without RUST_LOG), so a session's stderr carries none of it.
#[test]
fn a_session_logs_no_initialize_request_params() {
    let out = built_sample();
    let mut client = McpClient::start(&["--out", out.path().to_str().unwrap()]);
    client.tools();
    let (status, stderr) = client.close_with_stderr();
    assert!(status.success(), "{stderr}");
    assert!(
        !stderr.contains("InitializeRequestParams") && !stderr.contains("content-api-tests"),
        "rmcp's info lines reached stderr:\n{stderr}"
    );
}

#[test]
fn every_tool_answers_from_a_live_site_through_its_index() {
    let preview = Preview::start();
    let origin = preview.origin().to_string();
    let base = "https://lucia-montoya.example";
    // The preview serves the production build with its own origin for the base URL.
    let rebase = |text: String| text.replace(base, &origin);
    let mut client = McpClient::start(&["--site", &origin]);
    assert_eq!(client.tools(), card_tools(&preview.out()));
    let cases = cases(&preview.out(), &rebase);
    let results: Vec<Value> = cases
        .iter()
        .map(|case| client.call(case.tool, &case.arguments))
        .collect();
    assert_results("content-api mcp --site", &cases, &results);
    // The index's own address works too.
    let mut by_index = McpClient::start(&["--site", &format!("{origin}/api/index.json")]);
    let result = by_index.call(cases[0].tool, &cases[0].arguments);
    assert_results("--site …/api/index.json", &cases[..1], &[result]);
    // A site (here a folder of it) without /api/index.json is refused before serving.
    let output = Command::new(common::BIN)
        .env_remove("CI")
        .args(["mcp", "--site", &format!("{origin}/blog")])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("has no /api/index.json"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing on the protocol channel");
}

#[test]
fn a_folder_without_a_build_and_a_site_without_an_api_are_refused() {
    let empty = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(common::BIN)
            .env_remove("CI")
            .arg("mcp")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let output = run(&["--out", empty.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("holds no built API"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing on the protocol channel");
    let output = run(&["--site", "ftp://example.com"]);
    assert_eq!(output.status.code(), Some(2));
}

/// A loopback server answering up to `count` connections, one at a time, each with
/// `answer(request line, stream)` (the answer closes it).
fn loopback(count: usize, answer: impl Fn(&str, &mut TcpStream) + Send + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(count) {
            let Ok(mut stream) = stream else { return };
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            let mut request = [0u8; 4096];
            let read = stream.read(&mut request).unwrap_or(0);
            let text = String::from_utf8_lossy(&request[..read]).into_owned();
            answer(text.lines().next().unwrap_or(""), &mut stream);
        }
    });
    origin
}

/// `bytes` as a whole response.
fn respond(stream: &mut TcpStream, bytes: &[u8]) {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        bytes.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(bytes);
}

/// The text of a tool result that must be an error.
fn error_text(result: &Value) -> &str {
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(
        result["isError"],
        true,
        "an error result, not {} bytes: {}",
        text.len(),
        text.chars().take(200).collect::<String>()
    );
    text
}

#[test]
fn a_site_answering_without_end_is_an_error_result_and_the_server_keeps_serving() {
    let out = built_sample();
    let index = std::fs::read(out.path().join("api/index.json")).unwrap();
    let origin = loopback(8, move |line, stream| {
        if line.starts_with("GET /api/index.json ") {
            return respond(stream, &index);
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n");
        // Four times the bound at most (the loop ends); the client stops at the bound.
        for _ in 0..((4 * MAX_API_FILE_BYTES) >> 16) {
            if stream.write_all(&[b' '; 1 << 16]).is_err() {
                return;
            }
        }
    });
    let mut client = McpClient::start(&["--site", &origin]);
    let result = client.call("list_series", &json!({ "lang": "en" }));
    let text = error_text(&result);
    assert!(
        text.contains(&format!(
            "the response from {origin}/api/series/en/index.json is larger than 64 MiB"
        )),
        "{text}"
    );
    assert_eq!(client.tools().len(), card_tools(out.path()).len());
    assert!(client.close().success());
}

#[test]
fn a_redirect_to_another_origin_is_refused_naming_where_it_leads() {
    let out = built_sample();
    let index = std::fs::read(out.path().join("api/index.json")).unwrap();
    // The other origin is a working site: the refusal is for being elsewhere.
    let elsewhere = loopback(4, move |_, stream| respond(stream, &index));
    let to = format!("{elsewhere}/api/index.json");
    let origin = loopback(4, move |_, stream| {
        let reply = format!(
            "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        );
        let _ = stream.write_all(reply.as_bytes());
    });
    let child = Command::new(common::BIN)
        .env_remove("CI")
        .args(["mcp", "--site", &origin])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = common::wait_with_timeout(child, Duration::from_secs(60), "the Python client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{origin}/api/index.json redirects to {elsewhere}/api/index.json, on another origin"
        )) && stderr.contains("give --site the address"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing on the protocol channel");
}

#[test]
fn a_fifo_a_link_out_of_the_folder_and_a_huge_file_are_refused_without_waiting() {
    let out = built_sample();
    let api = out.path().join("api");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.json"), r#"["secret"]"#).unwrap();
    // A FIFO where list_series reads: opening it for reading would wait for a writer.
    std::fs::remove_file(api.join("series/en/index.json")).unwrap();
    let fifo = std::ffi::CString::new(api.join("series/en/index.json").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a path of this test's folder.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let replace_with_link = |path: &str, target: &Path| {
        std::fs::remove_file(api.join(path)).unwrap();
        std::os::unix::fs::symlink(target, api.join(path)).unwrap();
    };
    replace_with_link("series/es/index.json", &outside.path().join("secret.json"));
    replace_with_link("slides-timeline/en.json", Path::new("/dev/zero"));
    // Sparse: 65 MiB of size, no disk.
    std::fs::File::options()
        .write(true)
        .open(api.join("posts.json"))
        .unwrap()
        .set_len(MAX_API_FILE_BYTES + (1 << 20))
        .unwrap();
    let mut client = McpClient::start(&["--out", out.path().to_str().unwrap()]);
    let fifo = client.call("list_series", &json!({ "lang": "en" }));
    assert!(
        error_text(&fifo).contains("/api/series/en/index.json is a FIFO (named pipe), not a file"),
        "{fifo}"
    );
    // Links leading out of the folder are no files: to a file there, and to /dev/zero.
    for (tool, lang, path) in [
        ("list_series", "es", "api/series/es/index.json"),
        ("list_talks", "en", "api/slides-timeline/en.json"),
    ] {
        let result = client.call(tool, &json!({ "lang": lang }));
        assert_eq!(
            error_text(&result),
            format!("GET /{path} answered 404."),
            "{tool} {lang}"
        );
    }
    let huge = client.call("search_posts", &json!({}));
    assert!(
        error_text(&huge).contains("/api/posts.json is larger than 64 MiB"),
        "{huge}"
    );
    // The server answers the rest as before.
    assert_eq!(client.tools(), card_tools(out.path()));
    let index = client.call("get_api_index", &json!({}));
    assert_eq!(index["isError"], false, "{index}");
    assert!(client.close().success());
}

/// A Python with the MCP SDK: `CONTENT_API_PYTHON`, else `python3`; `None` after
/// `common::need`'s rule when there is none.
fn python_with_mcp() -> Option<PathBuf> {
    let python = need::PYTHON_MCP.program()?;
    let found = Command::new(&python)
        .args(["-c", "import mcp.client.stdio"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        need::PYTHON_MCP.missing(&format!("{} has no MCP SDK", python.display()));
        return None;
    }
    Some(python)
}

#[test]
fn the_mcp_python_sdk_lists_and_calls_every_tool() {
    let Some(python) = python_with_mcp() else {
        return;
    };
    let out = built_sample();
    let cases = cases(out.path(), &unchanged);
    let spec = json!({
        "command": common::BIN,
        "args": ["mcp", "--out", out.path()],
        "calls": cases.iter().map(|c| json!({ "name": c.tool, "arguments": c.arguments })).collect::<Vec<_>>(),
    });
    let script = common::repo().join("tests/mcp/client.py");
    let mut child = Command::new(&python)
        .arg(&script)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(spec.to_string().as_bytes())
        .unwrap();
    let output = common::wait_with_timeout(child, Duration::from_secs(120), "the Python client");
    assert!(
        output.status.success(),
        "the Python client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["server"]["name"], "content-api");
    assert_eq!(answer["tools"].as_array().unwrap(), &card_tools(out.path()));
    assert_results(
        "the MCP Python SDK",
        &cases,
        answer["results"].as_array().unwrap(),
    );
}
