//! What the daemon says about each rebuild: one line per rebuild (what changed, what was
//! written, how long it took), every new or re-saved diagnostic in full, a line per fixed file,
//! the purge list, and [`DaemonEvent`] for `serve`.

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileRole};
use crate::deploy::{purge_urls, write_purge_list};
use crate::derive::ScheduleState;
use crate::render::Lane;
use crate::session::{Outcome, Session};
use crate::watch::Changes;
use crate::write::Report;
use std::collections::BTreeSet;
use std::time::Instant;

/// What the watch loop tells its caller (`serve` starts answering, and announces rebuilds).
pub enum DaemonEvent<'a> {
    /// The first build of a session is done (published, or reported as broken).
    Ready,
    /// A publish wrote or removed files, or the documents lane ran (the output then equals a
    /// fresh build, also when it wrote nothing). `None`: both lanes at once.
    Published(&'a Report, Option<Lane>),
    /// A rebuild ran: the session's current diagnostics may have changed. With the lane it
    /// published (`None`: both, or nothing was published).
    Checked(&'a Session, Option<Lane>),
}

/// Prints what rebuilds did, and tells `on_event` about every publish that changed files.
pub(super) struct Reporter<'a> {
    pub(super) color: bool,
    /// `--purge-list`: rewritten after every publish with the URLs it changed or removed.
    pub(super) purge_list: Option<camino::Utf8PathBuf>,
    /// The URLs the API lane changed since the documents lane last ran: the list written after
    /// each lane holds them too, so the one written once the documents lane followed names
    /// everything the rebuild changed (the API lane's URLs are not lost when it is rewritten).
    pub(super) purge_pending: BTreeSet<String>,
    pub(super) on_event: &'a mut dyn FnMut(DaemonEvent<'_>),
}

impl Reporter<'_> {
    pub(super) fn finish(
        &mut self,
        session: &Session,
        outcome: Result<Outcome, impl std::fmt::Display>,
        first_event: Option<Instant>,
        what: &str,
    ) {
        match outcome {
            Ok(outcome) => self.report(session, &outcome, first_event, what),
            // The daemon keeps running: the next change retries the writes.
            Err(err) => tracing::error!("{err}"),
        }
    }

    /// Prints new diagnostics and one line for the rebuild.
    pub(super) fn report(
        &mut self,
        session: &Session,
        outcome: &Outcome,
        first_event: Option<Instant>,
        what: &str,
    ) {
        // The documents lane always says it ran: the output now equals a fresh build.
        let documents_lane = outcome.lane == Some(Lane::Documents);
        if outcome.is_noop() && !documents_lane {
            return;
        }
        for path in &outcome.fixed {
            tracing::info!("{path} is fixed: no more errors");
        }
        for path in &outcome.gone {
            tracing::info!("{path} is deleted, and its errors with it");
        }
        (self.on_event)(DaemonEvent::Checked(session, outcome.lane));
        for diagnostic in &outcome.new_diagnostics {
            eprintln!("{}", session.render(diagnostic, self.color));
        }
        for path in &outcome.held_back {
            tracing::warn!(
                "{path} has errors: its last good version stays published until it is fixed"
            );
        }
        let since_event = first_event
            .map(|t| {
                format!(
                    ", {:.1} ms after the first event",
                    t.elapsed().as_secs_f64() * 1000.0
                )
            })
            .unwrap_or_default();
        let took = format!("{:.1} ms", outcome.took.as_secs_f64() * 1000.0);
        let lane = match outcome.lane {
            Some(Lane::Api) => " (api lane; the documents lane follows)",
            Some(Lane::Documents) | None => "",
        };
        if let (Some(file), Some(report)) = (&self.purge_list, &outcome.report) {
            let urls = purge_urls(report, &session.config().base_url, session.output_paths());
            self.purge_pending.extend(urls);
            let urls: Vec<String> = if outcome.lane == Some(Lane::Api) {
                self.purge_pending.iter().cloned().collect()
            } else {
                std::mem::take(&mut self.purge_pending)
                    .into_iter()
                    .collect()
            };
            if let Err(err) = write_purge_list(file, &urls) {
                tracing::error!("cannot write the purge list {file}: {err}");
            }
        }
        match &outcome.report {
            None if outcome.write_failed => tracing::warn!(
                "{what}: the output folder could not be written; nothing is published yet"
            ),
            None => tracing::error!(
                "{what}: {} error{} in the content; nothing is published until it builds (fix and save)",
                outcome.errors,
                if outcome.errors == 1 { "" } else { "s" }
            ),
            Some(report) if report.is_empty() => {
                tracing::info!("{what}: nothing to write ({took}{since_event}){lane}");
                if documents_lane {
                    (self.on_event)(DaemonEvent::Published(report, outcome.lane));
                }
            }
            Some(report) => {
                tracing::info!(
                    "{what}: wrote {}{} in {took}{since_event}{lane}",
                    list(report.written.iter().map(|p| &**p)),
                    if report.removed.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", removed {}",
                            list(report.removed.iter().map(String::as_str))
                        )
                    },
                );
                (self.on_event)(DaemonEvent::Published(report, outcome.lane));
            }
        }
        // A draft or a scheduled post publishes nothing: say what it is, and how to see it.
        if outcome.report.is_some() {
            for entry in session.unpublished(&outcome.accepted) {
                let (state, preview) = match entry.state {
                    ScheduleState::Draft => (
                        format!(
                            "a draft (dated {}): published once its `draft: true` is removed",
                            entry.date
                        ),
                        "--drafts",
                    ),
                    _ => (
                        format!(
                            "scheduled: it goes live on {} at midnight in {}",
                            entry.date,
                            session.config().timezone
                        ),
                        "--future",
                    ),
                };
                tracing::info!(
                    "{} is {state}; `content-api serve {preview}` previews it",
                    entry.path
                );
            }
        }
    }
}

/// What a rebuild's line says changed: the content files among the changed paths (a tool's or
/// an editor's temporary file beside them, such as sed's `sedXXXXXX`, is not content and is
/// not named), or the folders listed again.
pub(super) fn describe_changes(changes: &Changes, site: &SiteConfig) -> String {
    if changes.content.rescan {
        return "rescan".into();
    }
    let content: Vec<&str> = changes
        .content
        .paths
        .iter()
        .map(String::as_str)
        .filter(|path| is_content(path, site))
        .collect();
    if content.is_empty() {
        return format!(
            "{} listed again",
            list(changes.content.folders.iter().map(String::as_str))
        );
    }
    format!("{} changed", list(content.into_iter()))
}

/// Whether `path` (relative to the content folder) can be a content file.
fn is_content(path: &str, site: &SiteConfig) -> bool {
    ContentPath::new(path).is_some_and(|path| site.classify(&path) != FileRole::Ignored)
}

/// "a, b, c and 4 more".
fn list<'a>(items: impl ExactSizeIterator<Item = &'a str>) -> String {
    let count = items.len();
    let shown: Vec<&str> = items.take(3).collect();
    match count {
        0 => "nothing".into(),
        1..=3 => shown.join(", "),
        _ => format!("{} and {} more", shown.join(", "), count - 3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> SiteConfig {
        SiteConfig::defaults(camino::Utf8Path::new("."))
    }
    use crate::source::ChangeSet;

    #[test]
    fn rebuild_lines_name_content_files_only() {
        let changes = Changes {
            content: ChangeSet {
                paths: [
                    "blog/en/2024-01-01_a.md",
                    "blog/en/sedfjQqoK",
                    "blog/en/.2024-01-01_a.md.swp",
                    "tags/rust.md",
                ]
                .map(String::from)
                .into(),
                folders: ["blog/en".to_string()].into(),
                ..ChangeSet::default()
            },
            ..Changes::default()
        };
        assert_eq!(
            describe_changes(&changes, &seed()),
            "blog/en/2024-01-01_a.md, tags/rust.md changed"
        );
        let only_scratch = Changes {
            content: ChangeSet {
                paths: ["blog/en/sedAbC123".to_string()].into(),
                folders: ["blog/en".to_string()].into(),
                ..ChangeSet::default()
            },
            ..Changes::default()
        };
        assert_eq!(
            describe_changes(&only_scratch, &seed()),
            "blog/en listed again"
        );
    }
}
