//! What the library's builds find ([`one_shot::Reporter`](crate::session::one_shot::Reporter)),
//! said as `build` and `check` say it: diagnostics to the [`Report`] (stderr, or `check`'s JSON
//! object), phases on the status line.

use super::machine::Report;
use super::status_line::StatusLine;
use crate::diag::Diagnostic;
use crate::session::one_shot::Reporter;

/// A run's report and status line, as one [`Reporter`].
pub struct BuildReporter<'a> {
    pub report: &'a Report,
    pub progress: &'a StatusLine,
}

impl Reporter for BuildReporter<'_> {
    fn diagnostic(&self, diagnostic: &Diagnostic, source: Option<&str>) {
        self.report.diagnostic(diagnostic, source);
    }

    fn warning(&self, path: &str, message: &str) {
        self.report.warning(path, message);
    }

    fn error(&self, path: &str, message: &str) {
        self.report.error(path, message);
    }

    fn files_read(&self, count: usize) {
        self.report.files(count);
    }

    fn phase(&self, phase: &str) {
        self.progress.phase(phase);
    }

    fn phase_done(&self) {
        self.progress.clear();
    }
}
