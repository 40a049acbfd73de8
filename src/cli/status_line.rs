//! A one-line status of a long command, rewritten in place on a terminal only.
//!
//! A 50,000-post build takes seconds, and `verify` sends dozens of requests: the line says
//! what runs now. It is never shown in pipes (stderr not a terminal), and the line is erased
//! before anything else is printed.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct StatusLine {
    shown: bool,
    started: Instant,
}

/// The longest status shown: a line of an 80-column terminal.
const WIDTH: usize = 78;

impl StatusLine {
    /// A build's status line: on an interactive terminal, not in CI logs (`CI` set), and not
    /// with `--quiet`.
    pub fn for_build() -> StatusLine {
        let interactive = std::io::stderr().is_terminal() && !super::ci_is_set();
        // `--quiet` (and RUST_LOG=warn) turn info messages off: the status goes with them.
        StatusLine::shown_if(interactive && tracing::enabled!(tracing::Level::INFO))
    }

    /// Never shown: a run whose output is JSON (`--format json`).
    pub fn hidden() -> StatusLine {
        StatusLine::shown_if(false)
    }

    /// A status line wherever stderr is a terminal.
    pub fn on_terminal() -> StatusLine {
        StatusLine::shown_if(std::io::stderr().is_terminal())
    }

    fn shown_if(shown: bool) -> StatusLine {
        StatusLine {
            shown,
            started: Instant::now(),
        }
    }

    /// Shows `phase`, with the time since the line was made, in place of the previous status.
    pub fn phase(&self, phase: &str) {
        let seconds = self.started.elapsed().as_secs_f64();
        self.show(&format!("{phase}… ({seconds:.1} s)"));
    }

    /// Shows `text` (its first [`WIDTH`] characters) in place of the previous status.
    pub fn show(&self, text: &str) {
        if self.shown {
            let cut: String = text.chars().take(WIDTH).collect();
            let mut stderr = std::io::stderr().lock();
            // `\r` and "erase line" keep it to one line that rewrites itself.
            let _ = write!(stderr, "\r\x1b[2K{cut}");
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

impl Drop for StatusLine {
    fn drop(&mut self) {
        self.clear();
    }
}
