//! `content-api serve` on a copy of the sample site (content and `watch.toml`, so its
//! production `base_url`), on a free port: shared by the preview's HTTP tests and its browser
//! tests.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

/// The running preview; killed on drop.
pub struct Preview {
    dir: tempfile::TempDir,
    child: Child,
    /// `http://127.0.0.1:PORT`, as the server printed it.
    pub origin: String,
}

impl Preview {
    /// Copies the sample site into a new temporary folder and starts `serve` there, returning
    /// once the server printed the address it listens on.
    pub fn start() -> Preview {
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
        let mut child = std::process::Command::new(super::BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--config", "watch.toml"])
            .args(["--content", "content", "--out", "out"])
            .args(["--today", super::SAMPLE_TODAY])
            .current_dir(dir.path())
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
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
        Preview { dir, child, origin }
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
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
