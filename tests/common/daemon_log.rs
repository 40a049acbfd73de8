//! Starting a child process with its output collected line by line while it runs: the real
//! daemon (its log, stderr) for the end-to-end tests, the fault tests and the storm harness; any
//! server (stdout and stderr) for the guides' tests, the Astro dev servers and the Hugo bench.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// Part of the line the daemon logs once its first build is done ("watching DIR (...); writing
/// to OUT; Ctrl-C to stop"). The very first line, "watching for changes", comes before the
/// build, so waiting for "watching" alone races with it.
pub const DAEMON_READY: &str = "; writing to ";

/// The lines a child wrote so far, in the order they arrived.
pub type Log = Arc<Mutex<Vec<String>>>;

/// Spawns `command` with stdout discarded and stderr collected line by line into the returned
/// log, which a test reads while the process runs.
pub fn spawn_logged(command: &mut Command) -> (Child, Log) {
    let mut child = command
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let log = Log::default();
    collect_lines(child.stderr.take().unwrap(), &log);
    (child, log)
}

/// Spawns `command` with stdout and stderr both collected into the returned log (each line as
/// it arrives); `what` names the command if it does not start.
pub fn spawn_with_output_logged(command: &mut Command, what: &str) -> (Child, Log) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("{what}: {err}"));
    let log = Log::default();
    collect_lines(child.stdout.take().unwrap(), &log);
    collect_lines(child.stderr.take().unwrap(), &log);
    (child, log)
}

/// Appends each line of `stream` to `log` from a thread of its own, until the stream ends.
fn collect_lines(stream: impl Read + Send + 'static, log: &Log) {
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
}
