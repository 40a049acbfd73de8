//! `content-api list drafts|scheduled|published`: what is live, what goes live when, and what
//! waits for its `draft: true` to go (Hugo's `hugo list drafts|future`). One line per post or
//! deck on stdout (date, kind and language, path, title); what the list means on stderr. With
//! `--format json`, one JSON array of the same entries on stdout; on stderr only the warning
//! naming files with errors, which no list shows.

use super::flags::{ConfigFlag, ContentFlag, Flags, Given, TodayFlag};
use super::machine::{Format, ListEntryJson};
use super::{EXIT_USAGE, Settings, plural};
use crate::derive::{ScheduleEntry, ScheduleState, schedule};
use crate::session::load::{BODY_BUDGET, scan_for_build};
use crate::session::one_shot::content_folder_problem;
use crate::workspace::{Lifetime, Workspace};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

/// Flags of `list`.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// What to list.
    #[arg(value_enum)]
    pub which: Which,
    #[command(flatten)]
    pub config: ConfigFlag,
    #[command(flatten)]
    pub content: ContentFlag,
    #[command(flatten)]
    pub today: TodayFlag,

    /// `json`: one JSON array on stdout, an object per post or deck (state, kind, lang, path,
    /// date, title), in the text's order; the count and its meaning are not printed (the
    /// warning naming files with errors still goes to stderr). The schema:
    /// docs/machine-output.md.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,
}

impl Flags for ListArgs {
    fn give(&self, to: &mut Given) {
        self.config.give(to);
        self.content.give(to);
        self.today.give(to);
    }
}

/// Which posts and decks `list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Which {
    /// `draft: true`: published by `--drafts` previews only, whatever the date (newest first).
    Drafts,
    /// Dated after today: each goes live at the start of its date in the site's time zone
    /// (soonest first). `--future` previews them.
    Scheduled,
    /// Live now (newest first).
    Published,
}

pub fn run(settings: &Settings, args: &ListArgs) -> ExitCode {
    let config = &settings.config;
    if let Some(problem) = content_folder_problem(&config.content_dir) {
        eprintln!("{}", problem.render(None, settings.color));
        return ExitCode::from(EXIT_USAGE);
    }
    let today = settings.today();
    let workspace = Workspace::new(
        config.clone(),
        today,
        false,
        scan_for_build(config.content_dir.as_std_path(), config, BODY_BUDGET),
        Lifetime::Once,
        Default::default(),
    );
    let wanted = match args.which {
        Which::Drafts => ScheduleState::Draft,
        Which::Scheduled => ScheduleState::Scheduled,
        Which::Published => ScheduleState::Published,
    };
    let found = schedule(workspace.db(), |state| state == wanted);
    let mut entries: Vec<&ScheduleEntry> = found.entries.iter().collect();
    if args.which != Which::Scheduled {
        entries.reverse();
    }
    if args.format == Format::Json {
        let listed: Vec<ListEntryJson> = entries
            .iter()
            .map(|entry| ListEntryJson {
                state: match entry.state {
                    ScheduleState::Draft => "draft",
                    ScheduleState::Scheduled => "scheduled",
                    ScheduleState::Published => "published",
                },
                kind: entry.kind,
                lang: entry.lang.to_string(),
                path: config.content_dir.join(&entry.path).to_string(),
                date: entry.date.to_string(),
                title: entry.title.clone(),
            })
            .collect();
        super::machine::print(&listed);
        warn_broken(&found.broken);
        std::mem::forget(workspace);
        return ExitCode::SUCCESS;
    }
    let path_width = entries
        .iter()
        .map(|e| config.content_dir.join(&e.path).as_str().chars().count())
        .max()
        .unwrap_or(0);
    for entry in &entries {
        println!(
            "{}  {} {}  {:<path_width$}  {}",
            entry.date,
            entry.kind,
            entry.lang,
            config.content_dir.join(&entry.path),
            entry.title
        );
    }
    let count = entries.len();
    let what = match args.which {
        Which::Drafts => format!(
            "{count} draft{}: published only by a preview (`--drafts`); remove `draft: true` to publish one on its date",
            plural(count)
        ),
        Which::Scheduled => format!(
            "{count} scheduled post{} or deck{} (after {today}): each goes live on its date at midnight in {} (a running `watch` or `serve` publishes it then; CI at its next build, such as the workflow's daily one); `--future` previews them",
            plural(count),
            plural(count),
            config.timezone
        ),
        Which::Published => format!("{count} published as of {today}"),
    };
    tracing::info!("{what}");
    warn_broken(&found.broken);
    // The process ends here: skip freeing the database piece by piece.
    std::mem::forget(workspace);
    ExitCode::SUCCESS
}

/// The files with errors, which no list shows (on stderr, whatever the format).
fn warn_broken(broken: &[String]) {
    if !broken.is_empty() {
        eprintln!(
            "warning: {} file{} with errors not listed ({}): `content-api check` shows why",
            broken.len(),
            plural(broken.len()),
            broken.join(", ")
        );
    }
}
