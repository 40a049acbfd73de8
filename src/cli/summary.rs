//! What a site's content amounts to, in one line per language: posts (drafts and scheduled
//! among them), decks, tags and series. `check` prints it after its checks, and `init` after
//! writing a site's `watch.toml`, so an author sees at once whether the layout read the site.

use crate::derive::{ScheduleState, schedule, series_names, tag_names};
use crate::model::Lang;
use crate::workspace::Workspace;
use std::collections::BTreeSet;

/// The summary's lines: one per language of the site, then the broken files' count.
pub fn lines(workspace: &Workspace) -> Vec<String> {
    let (db, site) = (workspace.db(), workspace.site());
    let all = schedule(db, |_| true);
    let mut lines = Vec::new();
    for &tree in site.trees(db).iter() {
        let lang = tree.lang(db);
        let count = |kind: &str, state: Option<ScheduleState>| {
            all.entries
                .iter()
                .filter(|e| e.lang == lang && e.kind == kind && state.is_none_or(|s| e.state == s))
                .count()
        };
        let posts = count("post", None);
        let mut parts = vec![counted(posts, "post")];
        let held: Vec<String> = [
            (ScheduleState::Draft, "draft"),
            (ScheduleState::Scheduled, "scheduled"),
        ]
        .into_iter()
        .map(|(state, word)| (count("post", Some(state)), word))
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| match word {
            "draft" => counted(n, word),
            _ => format!("{n} {word}"),
        })
        .collect();
        if !held.is_empty() {
            parts[0] = format!("{} ({})", parts[0], held.join(", "));
        }
        let decks = count("deck", None);
        if decks > 0 {
            parts.push(counted(decks, "deck"));
        }
        parts.push(counted(tag_names(db, tree).len(), "tag"));
        parts.push(format!("{} series", series_names(db, tree).len()));
        lines.push(format!("{}: {}", shown(lang), parts.join(", ")));
    }
    let broken: BTreeSet<&String> = all.broken.iter().collect();
    if !broken.is_empty() {
        lines.push(format!(
            "{} not read as a post or deck (see above), not counted",
            counted(broken.len(), "file")
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
