//! Starting the real daemon with its log captured: shared by the end-to-end tests, the fault
//! tests and the storm harness.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// Part of the line the daemon logs once its first build is done ("watching DIR (...); writing
/// to OUT; Ctrl-C to stop"). The very first line, "watching for changes", comes before the
/// build, so waiting for "watching" alone races with it.
pub const DAEMON_READY: &str = "; writing to ";

/// Spawns `command` with stdout discarded and stderr collected line by line into the returned
/// log, which a test reads while the process runs.
pub fn spawn_logged(command: &mut Command) -> (Child, Arc<Mutex<Vec<String>>>) {
    let mut child = command
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    (child, log)
}
