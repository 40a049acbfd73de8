//! A minimal MCP client of `content-api mcp` over stdio (newline-delimited JSON-RPC), with no
//! dependency: it runs in every `cargo test`, where the MCP Python SDK may be missing.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// Any single answer slower than this fails the test.
const PATIENCE: Duration = Duration::from_secs(30);

pub struct McpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
    /// What the server printed on stderr, for a failing test.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    /// The thread reading stderr: done once the server exited.
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl McpClient {
    /// Starts `content-api mcp ARGS` and initializes the session.
    pub fn start(args: &[&str]) -> McpClient {
        let mut child = Command::new(super::BIN)
            .env_remove("CI")
            .arg("mcp")
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("content-api mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        let stderr_reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            sink.lock().unwrap().push_str(&text);
        });
        let stdin = child.stdin.take();
        let mut client = McpClient {
            child,
            stdin,
            lines,
            next_id: 0,
            stderr,
            stderr_reader: Some(stderr_reader),
        };
        let initialized = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "content-api-tests", "version": "0" }
            }),
        );
        assert_eq!(initialized["serverInfo"]["name"], "content-api");
        assert!(initialized["capabilities"]["tools"].is_object());
        client.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        client
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("the session is open");
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .unwrap_or_else(|e| panic!("content-api mcp went away: {e}\n{}", self.log()));
    }

    /// Sends a request and returns its `result` (failing on a JSON-RPC error).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}\n{}", self.log()));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line}"));
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    panic!("{method} failed: {error}");
                }
                return message["result"].clone();
            }
        }
    }

    /// `tools/list`: the tools.
    pub fn tools(&mut self) -> Vec<Value> {
        self.request("tools/list", json!({}))["tools"]
            .as_array()
            .unwrap()
            .clone()
    }

    /// `tools/call`: the `CallToolResult`.
    pub fn call(&mut self, name: &str, arguments: &Value) -> Value {
        self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
    }

    fn log(&self) -> String {
        format!(
            "--- content-api mcp's stderr ---\n{}",
            self.stderr.lock().unwrap()
        )
    }

    /// Closes the session (stdin) and waits for the server to exit by itself.
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "content-api mcp did not exit after its client closed stdin"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl McpClient {
    /// [`McpClient::close`], then everything the server printed on stderr.
    pub fn close_with_stderr(mut self) -> (std::process::ExitStatus, String) {
        let reader = self.stderr_reader.take();
        let stderr = self.stderr.clone();
        let status = self.close();
        if let Some(reader) = reader {
            reader.join().unwrap();
        }
        let text = stderr.lock().unwrap().clone();
        (status, text)
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
