//! `content-api serve` started by a test: on a free port, with the address it prints read
//! back ([`Served`]); and the preview of a copy of the sample site ([`Preview`]), shared by
//! the preview's HTTP tests and its browser tests.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running `content-api serve`; killed on drop.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub origin: String,
}

impl Served {
    /// Spawns `command` (a `serve` with `--addr 127.0.0.1:0`) with its stdout piped, and returns
    /// once it printed the address it listens on (its first line).
    pub fn spawn(command: &mut Command) -> Served {
        let mut child = command
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let origin = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("serve did not start: {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Served { child, origin }
    }

    /// `127.0.0.1:PORT`, for a plain socket.
    pub fn addr(&self) -> &str {
        self.origin.strip_prefix("http://").unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where a [`Preview`] keeps its server's stderr, next to `content/` (printed when a test fails).
const LOG: &str = "serve.log";

/// `content-api serve` on a copy of the sample site (content and `watch.toml`, so its
/// production `base_url`).
pub struct Preview {
    // Dropped first: the server stops before its folder is removed.
    server: Served,
    dir: tempfile::TempDir,
}

impl Preview {
    /// Copies the sample site into a new temporary folder and starts `serve` there.
    pub fn start() -> Preview {
        Preview::start_with(&[])
    }

    /// [`Preview::start`], with more arguments for `serve` (`--site URL`).
    pub fn start_with(extra: &[&str]) -> Preview {
        let dir = tempfile::Builder::new()
            .prefix("content-api-preview")
            .tempdir()
            .unwrap();
        super::copy_sample_content(&dir.path().join("content"));
        std::fs::copy(
            super::repo().join("watch.toml"),
            dir.path().join("watch.toml"),
        )
        .unwrap();
        let server = Served::spawn(
            Command::new(super::BIN)
                .env_remove("CI")
                .args(["serve", "--addr", "127.0.0.1:0", "--config", "watch.toml"])
                .args(["--content", "content", "--out", "out"])
                .args(["--today", super::SAMPLE_TODAY])
                .args(extra)
                .current_dir(dir.path())
                .stderr(std::fs::File::create(dir.path().join(LOG)).unwrap()),
        );
        Preview { server, dir }
    }

    /// `http://127.0.0.1:PORT`
    pub fn origin(&self) -> &str {
        &self.server.origin
    }

    /// `127.0.0.1:PORT`, for a plain socket.
    pub fn addr(&self) -> &str {
        self.server.addr()
    }

    /// The site's folder (holding `content/`, `out/` and `watch.toml`).
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A file of the content folder.
    pub fn content(&self, relative: &str) -> PathBuf {
        self.root().join("content").join(relative)
    }

    /// The output folder.
    pub fn out(&self) -> PathBuf {
        self.root().join("out")
    }

    /// Rewrites a content file with `edit` applied to its text.
    pub fn edit(&self, relative: &str, edit: impl FnOnce(String) -> String) {
        let path = self.content(relative);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, edit(text)).unwrap();
    }
}

impl Drop for Preview {
    // A failing test shows what the server said: what it rebuilt, and when.
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.dir.path().join(LOG)).unwrap_or_default();
            eprintln!("--- content-api serve's stderr ---\n{log}--- end ---");
        }
    }
}
