//! The launcher (`npm/content-api/bin/content-api.js`) as a parent process meets it: run by
//! Node from the repository with `CONTENT_API_BINARY` naming the program it runs (a small shell
//! script that says which signal it got, or the real binary), it passes on every signal sent to
//! it, ends as the program ended (the same signal, or the same exit status), leaves no program
//! running when it is killed, and says what is wrong with the binary it was given.

use super::common::{self, http};
use super::node;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The most a launcher may take to end once its program did, or to pass a signal on.
const LIMIT: Duration = Duration::from_secs(10);

/// The signals a parent sends to stop or poke a process, by name and number.
const SIGNALS: [(&str, i32); 7] = [
    ("INT", libc::SIGINT),
    ("TERM", libc::SIGTERM),
    ("HUP", libc::SIGHUP),
    ("QUIT", libc::SIGQUIT),
    ("USR1", libc::SIGUSR1),
    ("USR2", libc::SIGUSR2),
    ("ALRM", libc::SIGALRM),
];

fn launcher() -> PathBuf {
    common::repo().join("npm/content-api/bin/content-api.js")
}

/// A launcher running `program` with `args`, in a process group of its own (so a test that
/// fails leaves nothing behind), once the program printed its first line (returned).
struct Launched {
    child: Child,
    first_line: String,
    stderr: std::process::ChildStderr,
}

impl Launched {
    fn start(node: &Path, program: &Path, args: &[&str], dir: &Path) -> Launched {
        let mut child = Command::new(node)
            .arg(launcher())
            .args(args)
            .env("CONTENT_API_BINARY", program)
            .env_remove("CI")
            .env_remove("RUST_LOG")
            .current_dir(dir)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first_line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first_line)
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        Launched {
            child,
            first_line,
            stderr,
        }
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on the launcher this test started and has not reaped.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, signal) }, 0);
    }

    /// How the launcher ended, within [`LIMIT`]; `None` if it did not.
    fn ended(&mut self) -> Option<ExitStatus> {
        let start = Instant::now();
        while start.elapsed() < LIMIT {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn stderr(mut self) -> String {
        let mut text = String::new();
        let _ = self.stderr.read_to_string(&mut text);
        text
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        // SAFETY: killpg(2) on the process group this test made for the launcher.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// An executable shell script `name` in `dir`.
fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{text}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A signal sent to the launcher alone (a tool stopping its child with SIGINT, a
/// process manager with SIGQUIT) reaches the program, and the launcher dies of the signal the
/// program died of.
#[test]
fn every_signal_sent_to_the_launcher_reaches_the_program() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let traps: String = SIGNALS
        .iter()
        .map(|(name, _)| {
            format!("trap 'trap - {name}; echo {name} > got; kill -{name} $$' {name}\n")
        })
        .collect();
    let program = script(
        dir.path(),
        "program",
        &format!("{traps}echo ready\nwhile :; do sleep 0.05; done\n"),
    );
    for (name, number) in SIGNALS {
        let _ = std::fs::remove_file(dir.path().join("got"));
        let mut launched = Launched::start(&node, &program, &[], dir.path());
        assert_eq!(launched.first_line, "ready\n");
        launched.signal(number);
        let ended = launched.ended();
        let got = std::fs::read_to_string(dir.path().join("got")).unwrap_or_default();
        assert_eq!(
            got.trim(),
            name,
            "SIG{name} reached the program ({ended:?})"
        );
        assert_eq!(
            ended.and_then(|status| status.signal()),
            Some(number),
            "the launcher dies of SIG{name}: {ended:?}"
        );
    }
}

/// The launcher ends as its program did: killed by SIGPIPE (a reader that went away)
/// or SIGKILL, it dies of the same signal (never an exit status of 0); an exit status is its own.
#[test]
fn the_launcher_ends_as_its_program_ended() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (end, signal, code) in [
        ("kill -PIPE $$", Some(libc::SIGPIPE), None),
        ("kill -KILL $$", Some(libc::SIGKILL), None),
        ("kill -TERM $$", Some(libc::SIGTERM), None),
        ("exit 3", None, Some(3)),
    ] {
        let program = script(dir.path(), "program", &format!("echo ready\n{end}\n"));
        let mut launched = Launched::start(&node, &program, &[], dir.path());
        let status = launched.ended().expect("the launcher ended");
        assert_eq!(
            (status.signal(), status.code()),
            (signal, code),
            "{end}: {status:?}"
        );
    }
}

/// The launcher killed by SIGKILL (which it cannot pass on) leaves no binary running:
/// the real binary, serving, stops within a moment and its port closes.
#[test]
fn the_binary_does_not_outlive_a_launcher_killed_by_sigkill() {
    let Some(node) = node() else {
        return;
    };
    let site = common::Site::new();
    let args = ["serve", "--addr", "127.0.0.1:0", "--content", "content"];
    let mut launched = Launched::start(
        &node,
        Path::new(common::BIN),
        &[&args[..], &["--out", "out", "--today", common::TODAY]].concat(),
        site.root(),
    );
    let addr = launched
        .first_line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("serve did not start: {:?}", launched.first_line))
        .trim_end_matches('/')
        .to_string();
    assert!(std::net::TcpStream::connect(&addr).is_ok());
    launched.signal(libc::SIGKILL);
    assert_eq!(
        launched.ended().and_then(|status| status.signal()),
        Some(libc::SIGKILL)
    );
    http::wait_for("the binary to stop with its launcher", LIMIT, || {
        std::net::TcpStream::connect(&addr).is_err()
    });
}

/// A `CONTENT_API_BINARY` that cannot be run is named with its actual fault: a link
/// that loops is not "does not exist".
#[test]
fn a_binary_link_that_loops_is_named_so() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let mut launched = Launched::start(&node, &a, &["--version"], dir.path());
    let status = launched.ended().expect("the launcher ended");
    assert_eq!(status.code(), Some(1));
    let said = launched.stderr();
    assert!(
        said.contains("CONTENT_API_BINARY") && said.contains("loops"),
        "{said}"
    );
    assert!(!said.contains("does not exist"), "{said}");
}
