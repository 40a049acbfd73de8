//! A small Chrome DevTools Protocol client over `--remote-debugging-pipe` (file descriptors 3
//! and 4, NUL-terminated JSON messages): no WebSocket, no download, the Debian `chromium`.
//!
//! Only what the browser tests need: open a page, navigate, evaluate JavaScript, set the
//! viewport, take a screenshot, and collect console errors and uncaught exceptions.

use serde_json::{Value, json};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, IntoRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Any single protocol call or wait longer than this fails the test: a hang is a bug.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The browser binary: `CONTENT_API_CHROMIUM`, else `chromium` (Debian) or `chromium-browser`
/// on the `PATH`; `None` after `common::need`'s rule when there is none.
pub fn chromium() -> Option<PathBuf> {
    crate::common::need::CHROMIUM.program()
}

pub struct Browser {
    child: Child,
    to_browser: File,
    from_browser: Receiver<Value>,
    next_id: u64,
    /// Events received while waiting for replies, by session.
    events: Vec<Value>,
    profile: tempfile::TempDir,
}

impl Browser {
    pub fn launch(binary: &Path) -> Browser {
        Browser::launch_with(binary, &[])
    }

    /// [`Browser::launch`] with more command-line switches (`--enable-features=…`).
    pub fn launch_with(binary: &Path, extra: &[&str]) -> Browser {
        let profile = tempfile::Builder::new()
            .prefix("content-api-chromium")
            .tempdir()
            .unwrap();
        let (browser_reads, we_write) = pipe();
        let (we_read, browser_writes) = pipe();
        let mut command = Command::new(binary);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--force-device-scale-factor=1",
                "--remote-debugging-pipe",
            ])
            .args(extra)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: dropping the browser stops its helper processes too, which
            // would otherwise keep writing into the profile while it is removed.
            .process_group(0);
        // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2) on file
        // descriptors this process owns. The pipe ends are first moved above 100, so that the
        // dup2 onto 3 and 4 never lands on one of them and always clears close-on-exec.
        unsafe {
            command.pre_exec(move || {
                let reads = libc::fcntl(browser_reads, libc::F_DUPFD, 100);
                let writes = libc::fcntl(browser_writes, libc::F_DUPFD, 100);
                if reads < 0 || writes < 0 || libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("chromium starts");
        // SAFETY: the browser's ends were duplicated into the child; close ours.
        unsafe {
            libc::close(browser_reads);
            libc::close(browser_writes);
        }
        // SAFETY: fresh descriptors from `pipe`, owned by nothing else.
        let to_browser = unsafe { File::from_raw_fd(we_write) };
        let mut reader = unsafe { File::from_raw_fd(we_read) };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buffer = [0u8; 64 * 1024];
            loop {
                let n = match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                pending.extend_from_slice(&buffer[..n]);
                while let Some(end) = pending.iter().position(|b| *b == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    let Ok(value) = serde_json::from_slice(&message[..end]) else {
                        continue;
                    };
                    if tx.send(value).is_err() {
                        return;
                    }
                }
            }
        });
        Browser {
            child,
            to_browser,
            from_browser: rx,
            next_id: 0,
            events: Vec::new(),
            profile,
        }
    }

    /// Sends a command (to a page when `session` is given) and returns its result.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.try_call(session, method, params)
            .unwrap_or_else(|error| panic!("{method} failed: {error}"))
    }

    /// [`Browser::call`], with the browser's error reply returned rather than a failure (a
    /// page that is navigating has no context to evaluate in).
    pub fn try_call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .unwrap_or_else(|e| panic!("chromium went away before {method}: {e}"));
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = match self.from_browser.recv_timeout(left) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => panic!("no reply to {method} in {PATIENCE:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium exited during {method}"),
            };
            if reply["id"] == id {
                if let Some(error) = reply.get("error") {
                    return Err(error.clone());
                }
                return Ok(reply["result"].clone());
            }
            if reply.get("method").is_some() {
                self.events.push(reply);
            }
        }
    }

    /// Takes the events that arrived so far (without waiting).
    fn drain_events(&mut self) {
        while let Ok(message) = self.from_browser.try_recv() {
            if message.get("method").is_some() {
                self.events.push(message);
            }
        }
    }

    /// A new tab, with console, log and page events on.
    pub fn new_page(&mut self) -> Page<'_> {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let attached = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target["targetId"], "flatten": true }),
        );
        let session = attached["sessionId"].as_str().unwrap().to_string();
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            self.call(Some(&session), domain, json!({}));
        }
        Page {
            browser: self,
            session,
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: a plain signal to the browser's process group (see `launch`).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        let _ = self.child.wait();
        // Helpers may still be exiting: try again before the profile's TempDir gives up.
        for _ in 0..20 {
            if std::fs::remove_dir_all(self.profile.path()).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

pub struct Page<'a> {
    browser: &'a mut Browser,
    session: String,
}

impl Page<'_> {
    fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.browser.call(Some(&session), method, params)
    }

    /// Sets the viewport (CSS pixels); `mobile` emulates a phone (meta viewport honoured).
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        );
    }

    /// Navigates and waits until the document is complete.
    pub fn goto(&mut self, url: &str) {
        let result = self.call("Page.navigate", json!({ "url": url }));
        assert!(
            result.get("errorText").is_none(),
            "cannot open {url}: {result}"
        );
        self.wait_for(
            "document.readyState === 'complete' && location.href !== 'about:blank'",
            &format!("{url} to load"),
        );
    }

    /// The value of a JavaScript expression (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("{expression} threw: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// The value of `expression`, or `None` while the page has no document to evaluate it in
    /// (between two loads) or it threw.
    pub fn try_eval(&mut self, expression: &str) -> Option<Value> {
        let session = self.session.clone();
        let result = self
            .browser
            .try_call(
                Some(&session),
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .ok()?;
        if result.get("exceptionDetails").is_some() {
            return None;
        }
        Some(result["result"]["value"].clone())
    }

    /// Waits until `expression` is true (polling every 50 ms), or fails naming `what`.
    pub fn wait_for(&mut self, expression: &str, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if self.eval(&format!("!!({expression})")) == json!(true) {
                return;
            }
            assert!(Instant::now() < deadline, "waited {PATIENCE:?} for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A PNG of the viewport, written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": false }),
        );
        let png = base64_decode(shot["data"].as_str().unwrap());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// Console errors, uncaught exceptions and error log entries (failed loads included) of
    /// this page so far.
    pub fn console_errors(&mut self) -> Vec<String> {
        self.browser.drain_events();
        self.browser
            .events
            .iter()
            .filter(|event| event["sessionId"] == self.session.as_str())
            .filter_map(|event| {
                let params = &event["params"];
                match event["method"].as_str()? {
                    "Runtime.consoleAPICalled" if params["type"] == "error" => {
                        Some(format!("console.error: {}", params["args"]))
                    }
                    "Runtime.exceptionThrown" => {
                        Some(format!("exception: {}", params["exceptionDetails"]))
                    }
                    "Log.entryAdded" if params["entry"]["level"] == "error" => {
                        Some(format!("log: {}", params["entry"]))
                    }
                    _ => None,
                }
            })
            .collect()
    }
}

/// A pipe whose both ends are close-on-exec (the child gets copies on 3 and 4 only).
fn pipe() -> (RawFd, RawFd) {
    // std's pipe is close-on-exec on both ends (with pipe2 where there is one: not on macOS).
    let (read, write) = std::io::pipe().expect("a pipe");
    (read.into_raw_fd(), write.into_raw_fd())
}

/// Standard base64 (the screenshot's PNG bytes).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c) << (18 - 6 * i);
        }
        let produced = chunk.len() * 6 / 8;
        out.extend_from_slice(&n.to_be_bytes()[1..1 + produced]);
    }
    out
}

#[test]
fn base64_decodes_what_chromium_sends() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGk="), b"hi");
    assert_eq!(base64_decode("YWJj"), b"abc");
}
