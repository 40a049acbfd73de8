//! A one-line status of a long build, on a terminal only.
//!
//! A 50,000-post build takes seconds; the line says which phase runs and how long it has been
//! going. It is never shown in CI logs or pipes (stderr not a terminal, or `CI` set), nor with
//! `--quiet`, and the line is erased before anything else is printed.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    shown: bool,
    started: Instant,
}

impl Progress {
    /// A status line on stderr when it is an interactive terminal and messages are wanted.
    pub fn on_stderr() -> Progress {
        let interactive = std::io::stderr().is_terminal() && !super::ci_is_set();
        Progress {
            // `--quiet` (and RUST_LOG=warn) turn info messages off: progress goes with them.
            shown: interactive && tracing::enabled!(tracing::Level::INFO),
            started: Instant::now(),
        }
    }

    /// Shows `phase` in place of the previous status.
    pub fn phase(&self, phase: &str) {
        if self.shown {
            let seconds = self.started.elapsed().as_secs_f64();
            let mut stderr = std::io::stderr().lock();
            // `\r` and "erase line" keep it to one line that rewrites itself.
            let _ = write!(stderr, "\r\x1b[2K{phase}… ({seconds:.1} s)");
            let _ = stderr.flush();
        }
    }

    /// Erases the status line, so the next message starts on a clean line.
    pub fn clear(&self) {
        if self.shown {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}
