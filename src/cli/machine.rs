//! Machine-readable output (`--format json` of `check`, `list` and `verify`): the flag, the
//! JSON shapes each command prints on stdout (documented in docs/machine-output.md, whose
//! examples the tests compare key for key), and [`Report`], where `check` sends what it finds:
//! printed on stderr as today, or gathered for the one JSON object.

use crate::diag::{Diagnostic, Severity};
use clap::ValueEnum;
use serde::Serialize;
use std::cell::RefCell;
use std::sync::Mutex;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// What a command prints: for people, or one JSON document on stdout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines for people: results on stdout, diagnostics and logs on stderr (the default).
    #[default]
    Text,
    /// One JSON document on stdout, for CI and editors (docs/machine-output.md).
    Json,
}

/// Where `check` (and the checks `build` shares with it) sends its diagnostics and warnings.
pub enum Report {
    /// Printed on stderr as they come, rendered rustc style.
    Text { color: bool },
    /// Kept for one JSON object on stdout.
    Json(RefCell<Gathered>),
}

/// What a JSON report has gathered.
#[derive(Default)]
pub struct Gathered {
    pub diagnostics: Vec<Diagnostic>,
    /// The content files read, once they are.
    pub files: usize,
}

impl Report {
    pub fn new(format: Format, color: bool) -> Report {
        match format {
            Format::Text => Report::Text { color },
            Format::Json => Report::Json(RefCell::default()),
        }
    }

    /// A diagnostic; `source` is its file's text, when at hand (the text shows the line).
    pub fn diagnostic(&self, diagnostic: &Diagnostic, source: Option<&str>) {
        match self {
            Report::Text { color } => eprintln!("{}", diagnostic.render(source, *color)),
            Report::Json(gathered) => gathered.borrow_mut().diagnostics.push(diagnostic.clone()),
        }
    }

    /// A warning said in one sentence (`warning: ...` on stderr), about the file `path`.
    pub fn warning(&self, path: &str, message: &str) {
        match self {
            Report::Text { .. } => eprintln!("warning: {message}"),
            Report::Json(_) => self.diagnostic(&Diagnostic::warning(path, message), None),
        }
    }

    /// An error said in one sentence (`error: ...` on stderr), about the file `path`.
    pub fn error(&self, path: &str, message: &str) {
        match self {
            Report::Text { .. } => eprintln!("error: {message}"),
            Report::Json(_) => self.diagnostic(&Diagnostic::error(path, message), None),
        }
    }

    /// The number of content files read.
    pub fn files(&self, count: usize) {
        if let Report::Json(gathered) = self {
            gathered.borrow_mut().files = count;
        }
    }

    pub fn is_json(&self) -> bool {
        matches!(self, Report::Json(_))
    }
}

/// `check --format json`: the whole run in one object.
#[derive(Debug, Serialize)]
pub struct CheckJson {
    /// The exit status is 0.
    pub ok: bool,
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub diagnostics: Vec<DiagnosticJson>,
    /// One entry per language; empty when the content has errors (nothing was counted).
    pub summary: Vec<super::summary::LangSummary>,
}

impl CheckJson {
    pub fn new(
        ok: bool,
        mut gathered: Gathered,
        summary: Vec<super::summary::LangSummary>,
    ) -> CheckJson {
        // The warnings logged on the way (a file skipped), as the diagnostics they are.
        for message in logged_warnings() {
            let (path, message) = match message.split_once(": ") {
                Some((path, rest)) if !path.contains(char::is_whitespace) => (path, rest),
                _ => ("", message.as_str()),
            };
            gathered
                .diagnostics
                .push(Diagnostic::warning(path, message));
        }
        let count = |severity| {
            gathered
                .diagnostics
                .iter()
                .filter(|d| d.severity == severity)
                .count()
        };
        CheckJson {
            ok,
            files: gathered.files,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            diagnostics: gathered
                .diagnostics
                .iter()
                .map(DiagnosticJson::of)
                .collect(),
            summary,
        }
    }
}

/// One [`Diagnostic`], as `check` renders it in text.
#[derive(Debug, Serialize)]
pub struct DiagnosticJson {
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    /// As the text shows it (relative to the content folder, or the file named).
    pub path: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    pub label: Option<String>,
    pub help: Option<String>,
}

impl DiagnosticJson {
    pub fn of(d: &Diagnostic) -> DiagnosticJson {
        DiagnosticJson {
            severity: d.severity.name(),
            path: d.path.clone(),
            line: d.location.as_ref().map(|l| l.line),
            column: d.location.as_ref().map(|l| l.column),
            message: d.message.clone(),
            label: d.label.clone(),
            help: d.help.clone(),
        }
    }
}

/// One line of `list --format json`.
#[derive(Debug, Serialize)]
pub struct ListEntryJson {
    /// `draft`, `scheduled` or `published`.
    pub state: &'static str,
    /// `post` or `deck`.
    pub kind: &'static str,
    pub lang: String,
    /// The file, as the text shows it (the content folder joined to its path in it).
    pub path: String,
    /// `YYYY-MM-DD`: the date it is (or goes) live on.
    pub date: String,
    pub title: String,
}

/// `verify --format json`: the run in one object.
#[derive(Debug, Serialize)]
pub struct VerifyJson {
    /// The exit status is 0.
    pub ok: bool,
    /// The URL verified.
    pub target: String,
    /// `--strict`: the warnings fail too.
    pub strict: bool,
    /// Why the site could not be verified at all (exit 2, or 1 when time ran out), else null.
    pub error: Option<String>,
    /// Time ran out (`--timeout`) before every check ran.
    pub out_of_time: bool,
    /// Every check, in the order they run.
    pub checks: Vec<VerifyCheckJson>,
    pub counts: VerifyCountsJson,
}

/// One check of `verify`.
#[derive(Debug, Serialize)]
pub struct VerifyCheckJson {
    pub name: &'static str,
    /// Held (no failing finding), failed, or null when not checked.
    pub ok: Option<bool>,
    /// Why it was not checked, else null.
    pub skipped: Option<String>,
    pub findings: Vec<FindingJson>,
}

/// One finding of a check, as the text's three lines say it.
#[derive(Debug, Serialize)]
pub struct FindingJson {
    /// `fail` (a rule of the contract, or a policy under `--strict`), `warn` or `note`.
    pub class: &'static str,
    /// The URL requested (empty when the finding is about no single request).
    pub url: String,
    /// Its HTTP status, when a reply came.
    pub status: Option<u16>,
    /// Who answered it (content-api's layer, the host's static files, the site's own...).
    pub answered_by: Option<String>,
    pub why: String,
    /// What to change.
    pub fix: Option<String>,
}

/// The counts of the text's last line.
#[derive(Debug, Default, Serialize)]
pub struct VerifyCountsJson {
    pub checked: usize,
    pub held: usize,
    pub failed: usize,
    pub warnings: usize,
    pub notes: usize,
    pub not_checked: usize,
}

/// The warnings (and errors) logged while `check --format json` runs: the layers below it log
/// them (a file skipped while reading the content) where the text prints them on stderr.
static LOGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Logging for `check --format json`: nothing printed, the warnings kept for the object
/// (RUST_LOG, when set, still logs on stderr, for debugging).
pub fn capture_warnings() {
    let stderr = std::env::var_os("RUST_LOG").map(|_| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_target(false)
            .without_time()
            .with_ansi(false)
    });
    let stderr_filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("off"));
    tracing_subscriber::registry()
        .with(tracing_subscriber::Layer::with_filter(
            Capture,
            tracing_subscriber::filter::LevelFilter::WARN,
        ))
        .with(tracing_subscriber::Layer::with_filter(
            stderr,
            stderr_filter,
        ))
        .init();
}

fn logged_warnings() -> Vec<String> {
    std::mem::take(&mut *LOGGED.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The layer that keeps each event's message in [`LOGGED`].
struct Capture;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "message" {
                    self.0 = value.to_string();
                }
            }
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        LOGGED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(message.0);
    }
}

/// Prints `value` on stdout, pretty, with a final newline.
pub fn print(value: &impl Serialize) {
    let text = serde_json::to_string_pretty(value).expect("the JSON shapes serialize");
    println!("{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_logged_during_check_is_a_diagnostic_of_its_object() {
        let subscriber = tracing_subscriber::registry().with(Capture);
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!("blog/en/a.md: a symbolic link leads outside the content folder");
            tracing::warn!("cannot save the build's fingerprint: disk full");
        });
        let json = CheckJson::new(true, Gathered::default(), Vec::new());
        let shown: Vec<(&str, &str, &str)> = json
            .diagnostics
            .iter()
            .map(|d| (d.severity, d.path.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "warning",
                    "blog/en/a.md",
                    "a symbolic link leads outside the content folder"
                ),
                (
                    "warning",
                    "",
                    "cannot save the build's fingerprint: disk full"
                ),
            ]
        );
        assert_eq!(json.warnings, 2);
    }
}
