//! The front matter's keys against what content-api reads and what the site says is its own
//! (`[front_matter] site_keys`): a near miss of a known key is an error in its file; any other
//! unknown key is one report for the whole site, at its first file (a warning; an error when
//! the rules are strict, as `build` and `check` make them under `CI`).

use crate::config::FrontMatterRules;
use crate::db::{Site, SourceFile};
use crate::diag::Diagnostic;
use crate::parse::keys::UnknownKey;
use crate::parse::{parse_deck, parse_post, parse_series, parse_tag};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The front-matter rules alone: other settings changing re-checks no file.
#[salsa::tracked(returns(ref))]
pub fn front_matter_rules(db: &dyn salsa::Database) -> FrontMatterRules {
    Site::get(db).config(db).front_matter.clone()
}

/// The errors of the keys in `unknown` (one file's) that are near misses of known keys.
pub fn near_miss_errors(
    db: &dyn salsa::Database,
    path: &str,
    unknown: &[UnknownKey],
) -> Vec<Diagnostic> {
    let rules = front_matter_rules(db);
    unknown
        .iter()
        .filter(|key| !rules.is_site_key(&key.key))
        .filter_map(|key| {
            let near = key.near?;
            Some(
                Diagnostic::error(
                    path,
                    format!("unknown front-matter key `{}`: did you mean `{near}`?", key.key),
                )
                .at(key.location.clone())
                .label(format!("content-api reads `{near}`; this key is ignored"))
                .help(format!(
                    "rename it to `{near}`; if the site's own pages read `{}`, list it in watch.toml under [front_matter] site_keys",
                    key.key
                )),
            )
        })
        .collect()
}

/// One report per unknown key of the whole site (near misses aside: they are errors in their
/// files), at the first file that has it, with how many files do.
#[salsa::tracked(returns(ref))]
pub fn unknown_key_reports(db: &dyn salsa::Database) -> Arc<[Diagnostic]> {
    let site = Site::get(db);
    let rules = front_matter_rules(db);
    let mut files: Vec<(&str, &[UnknownKey])> = Vec::new();
    for &tree in site.trees(db).iter() {
        for &file in tree.posts(db).iter() {
            files.push((path_of(db, file), &parse_post(db, file).parsed.unknown_keys));
        }
        for &file in tree.decks(db).iter() {
            files.push((path_of(db, file), &parse_deck(db, file).unknown_keys));
        }
    }
    for &file in site.tags(db).iter() {
        files.push((path_of(db, file), &parse_tag(db, file).unknown_keys));
    }
    for &file in site.series(db).iter() {
        files.push((path_of(db, file), &parse_series(db, file).unknown_keys));
    }
    files.retain(|(_, keys)| !keys.is_empty());
    files.sort_by_key(|(path, _)| *path);
    // Each key: its first file and place, and how many files have it.
    let mut first: BTreeMap<&str, (&str, &UnknownKey, usize)> = BTreeMap::new();
    for (path, keys) in files {
        for key in keys {
            if key.near.is_some() || rules.is_site_key(&key.key) {
                continue;
            }
            first
                .entry(key.key.as_str())
                .and_modify(|(_, _, count)| *count += 1)
                .or_insert((path, key, 1));
        }
    }
    first
        .into_iter()
        .map(|(name, (path, key, count))| report(path, key, name, count, rules.strict))
        .collect()
}

/// What is only suspicious (an unknown key, a tag one keystroke from a known one): a warning,
/// or an error that says why when the rules are strict (`CI`).
pub(super) fn suspicious(path: &str, message: String, strict: bool) -> Diagnostic {
    if strict {
        Diagnostic::error(path, message + " (with CI set this fails the build)")
    } else {
        Diagnostic::warning(path, message)
    }
}

fn path_of(db: &dyn salsa::Database, file: SourceFile) -> &str {
    file.path(db).as_str()
}

fn report(path: &str, key: &UnknownKey, name: &str, count: usize, strict: bool) -> Diagnostic {
    let files = if count == 1 {
        "in this file only".to_string()
    } else {
        let others = count - 1;
        format!(
            "here and in {others} other file{}",
            if others == 1 { "" } else { "s" }
        )
    };
    let message = format!("front-matter key `{name}` is not one content-api reads ({files})");
    suspicious(path, message, strict)
        .at(key.location.clone())
        .label("ignored by content-api")
        .help(format!(
            "if the site's own pages read `{name}`, list it in watch.toml: [front_matter] site_keys = [\"{name}\"]; otherwise remove it (or fix its spelling)"
        ))
}
