//! Helpers shared by the integration tests: a minimal valid site in a temporary folder, running
//! the real binary with a time limit, reading its diagnostics, and snapshotting the output folder.
//! The bundled sample site and the corpora are in `sample.rs`, `serve` and the preview in
//! `preview.rs`, a child's collected output (a daemon's log) in `daemon_log.rs`, a daemon's
//! output folder in `live_output.rs`, the fresh in-memory build in `fresh.rs`, the site's
//! tools' test calls in `tools.rs` and a raw MCP client in `mcp_client.rs`, and what a test
//! needs from outside the repository in `need.rs`.
//!
//! `tests/tests.rs` declares it once for every module; `shutdown.rs`, a binary of its own, has
//! its own copy.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_content-api");

/// Every run is killed (and the test fails) after this long: a hang is a bug.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// The `--today` of every build, so that no fixture post is ever scheduled.
pub const TODAY: &str = "2024-06-01";

/// The files of [`Site::new`], relative to the content folder.
pub const TAG: &str = "tags/rust.md";
pub const SERIES: &str = "series/intro.md";
pub const EN_POST: &str = "blog/en/2024-05-01_hello.md";
pub const ES_POST: &str = "blog/es/2024-05-01_hello.md";

pub const TAG_TEXT: &str =
    "---\nname: rust\ndescription: \"The Rust language\"\ntier: primary\n---\n";
pub const SERIES_TEXT: &str = "---\nname: intro\ntitle: \"Intro\"\ntitleEs: \"Introducción\"\ndescription: \"A short series\"\n---\n";
pub const EN_POST_TEXT: &str = "---\ntitle: \"Hello\"\ndescription: \"A first post\"\npubDate: 2024-05-01\ntags: [\"rust\"]\nseries: intro\nseriesOrder: 1\n---\n\nBody.\n";
pub const ES_POST_TEXT: &str = "---\ntitle: \"Hola\"\ndescription: \"Una primera entrada\"\npubDate: 2024-05-01\ntags: [\"rust\"]\nseries: intro\nseriesOrder: 1\n---\n\nCuerpo.\n";

/// A valid post's text with `extra` front-matter lines added after `pubDate` (the line numbers
/// of `extra` therefore start at 5).
pub fn post_with(extra: &str) -> String {
    format!(
        "---\ntitle: \"Post\"\ndescription: \"A post\"\npubDate: 2024-05-01\n{extra}---\n\nBody.\n"
    )
}

/// A temporary site: `content/` (the content folder) and `out/` (the output folder), both
/// relative to [`Site::root`], which is also the working directory of every run (so a
/// `watch.toml` elsewhere is never picked up, and paths in messages are short).
pub struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    /// A minimal valid site: one tag, one series, one post in English and one in Spanish.
    pub fn new() -> Site {
        let site = Site::empty();
        std::fs::create_dir_all(site.content()).unwrap();
        site.write(TAG, TAG_TEXT);
        site.write(SERIES, SERIES_TEXT);
        site.write(EN_POST, EN_POST_TEXT);
        site.write(ES_POST, ES_POST_TEXT);
        site
    }

    /// A temporary folder with no content folder at all.
    pub fn empty() -> Site {
        Site {
            dir: tempfile::Builder::new()
                .prefix("content-api-test")
                .tempdir()
                .unwrap(),
        }
    }

    /// A minimal valid site already built once into `out/`, with a file of our own beside the
    /// build's output: the state in which a broken build must leave `out/` untouched.
    pub fn built() -> Site {
        let site = Site::new();
        site.build().assert_success();
        assert!(site.out().join("api/posts.json").is_file());
        std::fs::write(site.out().join("notes.txt"), "not written by content-api\n").unwrap();
        site
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn content(&self) -> PathBuf {
        self.root().join("content")
    }

    pub fn out(&self) -> PathBuf {
        self.root().join("out")
    }

    /// An output file read as JSON (failing the test, naming it, when it is not there).
    pub fn out_json(&self, path: &str) -> serde_json::Value {
        let text = std::fs::read_to_string(self.out().join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap()
    }

    /// Full path of `relative` (a path in the content folder).
    pub fn path(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.content().join(relative)
    }

    /// Writes `bytes` to `relative` in the content folder, creating its folders.
    pub fn write(&self, relative: impl AsRef<Path>, bytes: impl AsRef<[u8]>) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    pub fn remove(&self, relative: impl AsRef<Path>) {
        std::fs::remove_file(self.path(relative)).unwrap();
    }

    /// `content-api --once --content content --out out --today TODAY`.
    pub fn build(&self) -> Run {
        self.build_with::<&str>(&[])
    }

    /// [`Site::build`] with more arguments.
    pub fn build_with<S: AsRef<OsStr>>(&self, extra: &[S]) -> Run {
        let mut args: Vec<OsString> = ["--once", "--content", "content", "--out", "out"]
            .iter()
            .map(OsString::from)
            .collect();
        args.extend(["--today", TODAY].map(OsString::from));
        args.extend(extra.iter().map(|a| a.as_ref().to_owned()));
        self.run(&args)
    }

    /// Runs the binary with exactly `args`, in [`Site::root`].
    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Run {
        run_binary(self.root(), args, TIMEOUT)
    }

    /// The output folder as it is now.
    pub fn out_snapshot(&self) -> Snapshot {
        snapshot(&self.out())
    }
}

/// The result of one run of the binary.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The exit code (a run killed by a signal fails the test).
    pub fn code(&self) -> i32 {
        self.status
            .code()
            .unwrap_or_else(|| panic!("killed by a signal: {:?}\n{}", self.status, self.stderr))
    }

    pub fn assert_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code(),
            code,
            "unexpected exit status\n--- stderr ---\n{}",
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "the binary panicked:\n{}",
            self.stderr
        );
        self
    }

    pub fn assert_success(&self) -> &Run {
        self.assert_code(0)
    }

    /// Every diagnostic printed, in order (the final "N errors" summary is not one).
    pub fn diagnostics(&self) -> Vec<Shown> {
        parse_diagnostics(&self.stderr)
    }

    pub fn errors(&self) -> Vec<Shown> {
        self.diagnostics()
            .into_iter()
            .filter(|d| d.level == "error")
            .collect()
    }

    pub fn warnings(&self) -> Vec<Shown> {
        self.diagnostics()
            .into_iter()
            .filter(|d| d.level == "warning")
            .collect()
    }

    /// The one diagnostic whose message contains `needle`; fails unless there is exactly one.
    pub fn find(&self, needle: &str) -> Shown {
        let found: Vec<Shown> = self
            .diagnostics()
            .into_iter()
            .filter(|d| d.message.contains(needle))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "expected one diagnostic containing {needle:?}\n--- stderr ---\n{}",
            self.stderr
        );
        found.into_iter().next().unwrap()
    }

    /// The closing line of a failed build: `error: N error(s) in the content; nothing was
    /// written to DIR`.
    pub fn summary(&self) -> Option<&str> {
        self.stderr.lines().find(|line| is_summary(line))
    }
}

/// One diagnostic as printed: `level: message`, then ` --> path[:line:column]`, the source lines,
/// and `help: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub level: String,
    pub message: String,
    /// The path after `-->`, without the position.
    pub path: Option<String>,
    /// Line and column, when the diagnostic has them.
    pub position: Option<(usize, usize)>,
    pub help: Option<String>,
    /// Every line of the rendered diagnostic (source line and underline included).
    pub text: String,
}

impl Shown {
    /// Asserts the path and position shown after `-->`.
    pub fn assert_at(&self, path: &str, position: Option<(usize, usize)>) -> &Shown {
        assert_eq!(self.path.as_deref(), Some(path), "path of\n{}", self.text);
        assert_eq!(self.position, position, "position of\n{}", self.text);
        self
    }

    pub fn assert_help(&self, needle: &str) -> &Shown {
        let help = self
            .help
            .as_deref()
            .unwrap_or_else(|| panic!("no help in\n{}", self.text));
        assert!(help.contains(needle), "help {help:?} lacks {needle:?}");
        self
    }

    /// Asserts the rendered text (source line, label) contains `needle`.
    pub fn assert_shows(&self, needle: &str) -> &Shown {
        assert!(
            self.text.contains(needle),
            "{needle:?} not shown in\n{}",
            self.text
        );
        self
    }
}

fn is_summary(line: &str) -> bool {
    line.starts_with("error: ") && line.contains(" in the content; nothing was written to ")
}

/// Splits stderr into diagnostics. Log lines (`INFO ...`) and the summary are skipped.
pub fn parse_diagnostics(stderr: &str) -> Vec<Shown> {
    let mut out: Vec<Shown> = Vec::new();
    for line in stderr.lines() {
        let header = ["error", "warning"]
            .into_iter()
            .find_map(|level| Some((level, line.strip_prefix(level)?.strip_prefix(": ")?)));
        if let Some((level, message)) = header {
            if !is_summary(line) {
                out.push(Shown {
                    level: level.into(),
                    message: message.into(),
                    path: None,
                    position: None,
                    help: None,
                    text: line.to_string(),
                });
            }
            continue;
        }
        let Some(current) = out.last_mut() else {
            continue;
        };
        if line.contains(" INFO ") || line.contains("INFO\u{1b}") {
            continue;
        }
        current.text.push('\n');
        current.text.push_str(line);
        let trimmed = line.trim_start();
        let arrow = trimmed
            .strip_prefix("--> ")
            .or_else(|| trimmed.strip_prefix("= --> "));
        if let Some(location) = arrow {
            let (path, position) = split_position(location);
            current.path = Some(path);
            current.position = position;
        } else if let Some(help) = trimmed.strip_prefix("help: ") {
            current.help = Some(help.into());
        }
    }
    out
}

/// `path:12:3` → (`path`, (12, 3)); a path without a position is returned whole.
fn split_position(location: &str) -> (String, Option<(usize, usize)>) {
    let mut parts = location.rsplitn(3, ':');
    let (column, line, path) = (parts.next(), parts.next(), parts.next());
    if let (Some(column), Some(line), Some(path)) = (column, line, path)
        && let (Ok(line), Ok(column)) = (line.parse(), column.parse())
    {
        return (path.to_string(), Some((line, column)));
    }
    (location.to_string(), None)
}

/// Runs the binary in `dir` with `args`; kills it and fails the test after `timeout`.
pub fn run_binary<S: AsRef<OsStr>>(dir: &Path, args: &[S], timeout: Duration) -> Run {
    run_binary_with(dir, args, &[], timeout)
}

/// [`run_binary`] with `env` set on top of the cleaned environment.
pub fn run_binary_with<S: AsRef<OsStr>>(
    dir: &Path,
    args: &[S],
    env: &[(&str, &str)],
    timeout: Duration,
) -> Run {
    run_binary_cmd(dir, BIN, args, env, timeout)
}

/// [`run_binary_with`] of `program` (the binary under test, or a wrapper such as `setpriv`
/// that runs it).
pub fn run_binary_cmd<S: AsRef<OsStr>>(
    dir: &Path,
    program: &str,
    args: &[S],
    env: &[(&str, &str)],
    timeout: Duration,
) -> Run {
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        // These builds have no watch.toml on purpose; under CI=true that is an error now.
        .env_remove("CI")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the content-api binary runs");
    let what = format!(
        "content-api {:?}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>()
    );
    let output = wait_with_timeout(child, timeout, &what);
    Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The output of `child` (spawned with piped stdout and stderr) once it exits; killed, and the
/// test failed naming `what` with its stderr, after `limit`. Both pipes are drained on their own
/// threads, so a chatty child never blocks on a full pipe.
pub fn wait_with_timeout(mut child: Child, limit: Duration, what: &str) -> Output {
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap_or_default();
            panic!(
                "{what} did not finish within {limit:?} (killed)\n--- stderr ---\n{}",
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// One entry of a folder snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File {
        bytes: Vec<u8>,
        modified: SystemTime,
    },
    Symlink(PathBuf),
}

/// Every file, folder and link below a folder, with file bytes and modification times.
pub type Snapshot = BTreeMap<PathBuf, Entry>;

/// Snapshots `root` (empty when it does not exist). Links are recorded, not followed.
pub fn snapshot(root: &Path) -> Snapshot {
    let mut out = Snapshot::new();
    if root.exists() {
        snapshot_into(root, root, &mut out);
    }
    out
}

fn snapshot_into(root: &Path, dir: &Path, out: &mut Snapshot) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(root).unwrap().to_path_buf();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            out.insert(relative, Entry::Symlink(std::fs::read_link(&path).unwrap()));
        } else if meta.is_dir() {
            out.insert(relative, Entry::Dir);
            snapshot_into(root, &path, out);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            let modified = meta.modified().unwrap();
            out.insert(relative, Entry::File { bytes, modified });
        }
    }
}

/// Asserts two snapshots are equal, naming the first difference rather than dumping both.
pub fn assert_same(before: &Snapshot, after: &Snapshot) {
    for (path, entry) in before {
        match after.get(path) {
            None => panic!("{} was removed from the output folder", path.display()),
            Some(now) if now != entry => {
                panic!("{} changed in the output folder", path.display())
            }
            Some(_) => {}
        }
    }
    for path in after.keys() {
        assert!(
            before.contains_key(path),
            "{} appeared in the output folder",
            path.display()
        );
    }
}

mod bounded;
mod daemon_log;
mod fresh;
pub mod http;
mod live_output;
mod mcp_client;
pub mod need;
mod preview;
mod sample;
#[path = "../benches/support/corpus.rs"]
pub mod synthetic;
mod tools;
pub mod workflow;
pub use bounded::run_bounded;
pub use daemon_log::{DAEMON_READY, Log, spawn_logged, spawn_with_output_logged};
pub use fresh::fresh_build;
pub use live_output::live_snapshot;
pub use preview::{Preview, Served};
pub use sample::*;
pub use {
    mcp_client::McpClient,
    tools::{Case, assert_results, card_tools, cases},
};
