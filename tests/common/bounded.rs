//! A child process with a time limit: for the tests that run package managers, registries and
//! builds, any of which can hang on a network or a lock. Past its limit the child and whatever
//! it started are killed and the test fails with what they had printed.

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `command` to its end, or kills it (its whole process group: a package manager's
/// children too) after `limit` and fails the test naming it and showing its output.
pub fn run_bounded(command: &mut Command, limit: Duration) -> Output {
    let shown = format!("{command:?}");
    // Files, not pipes: nothing has to read while the child writes.
    let stdout = tempfile::tempfile().unwrap();
    let stderr = tempfile::tempfile().unwrap();
    let mut child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(stdout.try_clone().unwrap())
        .stderr(stderr.try_clone().unwrap())
        .spawn()
        .unwrap_or_else(|err| panic!("{shown}: {err}"));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let Some(status) = status else {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = child.wait();
        panic!(
            "{shown} took longer than {limit:?}: killed\n--- stdout\n{}\n--- stderr\n{}",
            read_all(stdout),
            read_all(stderr)
        );
    };
    Output {
        status,
        stdout: read_all(stdout).into_bytes(),
        stderr: read_all(stderr).into_bytes(),
    }
}

fn read_all(mut file: std::fs::File) -> String {
    use std::io::{Read, Seek};
    let mut bytes = Vec::new();
    file.rewind().unwrap();
    file.read_to_end(&mut bytes).unwrap();
    String::from_utf8_lossy(&bytes).into_owned()
}
