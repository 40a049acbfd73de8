//! A one-line status of a long command, rewritten in place on a terminal only.
//!
//! A 50,000-post build takes seconds, and `verify` sends dozens of requests: the line says
//! what runs now. It is never shown in pipes (stderr not a terminal), and the line is erased
//! before anything else is printed. `indicatif` draws it: in place, cut to the terminal's width.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

pub struct StatusLine {
    bar: ProgressBar,
    started: Instant,
}

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
        // indicatif's stderr target draws nothing unless stderr is a terminal.
        let target = if shown {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target)
            .with_style(ProgressStyle::with_template("{wide_msg}").expect("a valid template"));
        StatusLine {
            bar,
            started: Instant::now(),
        }
    }

    /// Shows `phase`, with the time since the line was made, in place of the previous status.
    pub fn phase(&self, phase: &str) {
        let seconds = self.started.elapsed().as_secs_f64();
        self.show(&format!("{phase}… ({seconds:.1} s)"));
    }

    /// Shows `text` in place of the previous status.
    pub fn show(&self, text: &str) {
        // A cleared line is a finished bar, which draws nothing until it is reset: the text is
        // set first, so the reset draws it rather than the text that was cleared.
        let cleared = self.bar.is_finished();
        self.bar.set_message(text.to_string());
        if cleared {
            self.bar.reset();
        }
    }

    /// Erases the status line, so the next message starts on a clean line.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}
