//! What a site's content amounts to, in one line per language: posts (drafts and scheduled
//! among them), decks, tags and series. `check` prints it after its checks, and `init` after
//! writing a site's `watch.toml`, so an author sees at once whether the layout read the site;
//! `check --format json` gives the same counts as [`LangSummary`] entries.

use crate::derive::{ScheduleState, schedule, series_names, tag_names};
use crate::model::Lang;
use crate::workspace::Workspace;
use std::collections::BTreeSet;

/// One language's counts: the summary's line, and an entry of `check --format json`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LangSummary {
    pub lang: String,
    /// Every post, drafts and scheduled ones included.
    pub posts: usize,
    pub drafts: usize,
    pub scheduled: usize,
    pub decks: usize,
    pub tags: usize,
    pub series: usize,
}

/// The counts of each language of the site, and the files not read as a post or deck.
pub fn counts(workspace: &Workspace) -> (Vec<LangSummary>, usize) {
    let (db, site) = (workspace.db(), workspace.globals());
    let all = schedule(db, |_| true);
    let mut langs = Vec::new();
    for &tree in site.trees(db).iter() {
        let lang = tree.lang(db);
        let count = |kind: &str, state: Option<ScheduleState>| {
            all.entries
                .iter()
                .filter(|e| e.lang == lang && e.kind == kind && state.is_none_or(|s| e.state == s))
                .count()
        };
        langs.push(LangSummary {
            lang: shown(lang),
            posts: count("post", None),
            drafts: count("post", Some(ScheduleState::Draft)),
            scheduled: count("post", Some(ScheduleState::Scheduled)),
            decks: count("deck", None),
            tags: tag_names(db, tree).len(),
            series: series_names(db, tree).len(),
        });
    }
    let broken: BTreeSet<&String> = all.broken.iter().collect();
    (langs, broken.len())
}

/// The summary's lines: one per language of the site, then the broken files' count.
pub fn lines(workspace: &Workspace) -> Vec<String> {
    let (langs, broken) = counts(workspace);
    let mut lines = Vec::new();
    for summary in &langs {
        let mut parts = vec![counted(summary.posts, "post")];
        let mut held = Vec::new();
        if summary.drafts > 0 {
            held.push(counted(summary.drafts, "draft"));
        }
        if summary.scheduled > 0 {
            held.push(format!("{} scheduled", summary.scheduled));
        }
        if !held.is_empty() {
            parts[0] = format!("{} ({})", parts[0], held.join(", "));
        }
        if summary.decks > 0 {
            parts.push(counted(summary.decks, "deck"));
        }
        parts.push(counted(summary.tags, "tag"));
        parts.push(format!("{} series", summary.series));
        lines.push(format!("{}: {}", summary.lang, parts.join(", ")));
    }
    if broken > 0 {
        lines.push(format!(
            "{} not read as a post or deck (see above), not counted",
            counted(broken, "file")
        ));
    }
    lines
}

/// "1 post", "3 posts".
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn shown(lang: Lang) -> String {
    lang.as_str().to_string()
}
