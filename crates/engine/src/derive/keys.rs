//! The front matter's keys against what content-api reads and what the site says is its own
//! (`[front_matter] site_keys`), and how sure a near-miss tag is to be a typo. The rule:
//!
//! - a near miss of a known key (`decription`, `pubdate`, `tittle`, `draf`) is an error in its
//!   file, CI or not: the field it meant is silently ignored (a draft published);
//! - a key other generators read (`generators`: Hugo's `lastmod`, Docusaurus's `authors`,
//!   Jekyll's `permalink`...) is none of that, near miss or not: all of them together are one
//!   warning for the whole site, never an error (a site keeps its old generator's front matter);
//! - any other unknown key is one report for the whole site, at its first file (a warning; an
//!   error when the rules are strict, as `build` and `check` make them under `CI`);
//! - a tag one edit from a known tag is a warning that says which was meant; it is an error
//!   under strict rules only when a human would agree it is a slip ([`beyond_doubt`]: two
//!   neighbouring letters swapped, `rsut` for `rust`). Real, distinct tags are one edit apart all
//!   the time (`vue3` and `vue`, `preact` and `react`, `k3s` and `k8s`, `gist` and `git`,
//!   `trust` and `rust`, `llms` and `llm`, `demo` and `deno`), so any other near miss stays a
//!   warning.

use crate::config::FrontMatterRules;
use crate::db::{Globals, SourceFile};
use crate::diag::Diagnostic;
use crate::parse::keys::UnknownKey;
use crate::parse::{parse_deck, parse_post, parse_series, parse_tag};
use std::collections::BTreeMap;
use std::sync::Arc;

mod generators;

/// The front-matter rules alone: other settings changing re-checks no file.
#[salsa::tracked(returns(ref))]
pub fn front_matter_rules(db: &dyn salsa::Database) -> FrontMatterRules {
    Globals::get(db).config(db).front_matter.clone()
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
        .filter(|key| !rules.is_site_key(&key.key) && generators::read_by(&key.key).is_none())
        .filter_map(|key| {
            let near = key.near.as_deref()?;
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
/// files), at the first file that has it, with how many files do; then one warning for all the
/// keys other generators read.
#[salsa::tracked(returns(ref))]
pub fn unknown_key_reports(db: &dyn salsa::Database) -> Arc<[Diagnostic]> {
    let site = Globals::get(db);
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
    let mut elsewhere: BTreeMap<&str, (&str, &UnknownKey, usize)> = BTreeMap::new();
    for (path, keys) in files {
        for key in keys {
            if rules.is_site_key(&key.key) {
                continue;
            }
            let seen = if generators::read_by(&key.key).is_some() {
                &mut elsewhere
            } else if key.near.is_none() {
                &mut first
            } else {
                continue;
            };
            seen.entry(key.key.as_str())
                .and_modify(|(_, _, count)| *count += 1)
                .or_insert((path, key, 1));
        }
    }
    let mut reports: Vec<Diagnostic> = first
        .into_iter()
        .map(|(name, (path, key, count))| report(path, key, name, count, rules.strict))
        .collect();
    reports.extend(other_generators_report(&elsewhere));
    reports.into()
}

/// The one warning for the keys other generators read (`keys`: each with its first file and
/// place, and its count), at the first file that has one: never an error, even under `CI`.
fn other_generators_report(
    keys: &BTreeMap<&str, (&str, &UnknownKey, usize)>,
) -> Option<Diagnostic> {
    let (path, key, _) = keys
        .values()
        .min_by_key(|(path, key, _)| (*path, key.location.line, key.location.column))?;
    let listed: Vec<String> = keys
        .iter()
        .map(|(name, (_, _, count))| {
            let who = generators::read_by(name).unwrap_or_default();
            format!(
                "`{name}` ({who}; {count} file{})",
                if *count == 1 { "" } else { "s" }
            )
        })
        .collect();
    let names: Vec<String> = keys.keys().map(|name| format!("\"{name}\"")).collect();
    Some(
        Diagnostic::warning(
            *path,
            format!(
                "front-matter keys other generators read, ignored by content-api: {}",
                listed.join(", ")
            ),
        )
        .at(key.location.clone())
        .label("read by other generators, ignored by content-api")
        .help(format!(
            "nothing to fix: they are kept for the site's own pages (never an error, CI included); to silence this, list them in watch.toml: [front_matter] site_keys = [{}]",
            names.join(", ")
        )),
    )
}

/// Whether `word`, a near miss of `meant`, is a slip a human would agree on: the same letters
/// with two neighbours swapped (`rsut` for `rust`). Any other single edit makes real words of
/// real words too often (see the module's header).
pub(super) fn beyond_doubt(word: &str, meant: &str) -> bool {
    let (word, meant): (Vec<char>, Vec<char>) = (word.chars().collect(), meant.chars().collect());
    if word.len() != meant.len() {
        return false;
    }
    let differ: Vec<usize> = (0..word.len()).filter(|&i| word[i] != meant[i]).collect();
    matches!(differ[..], [a, b] if b == a + 1 && word[a] == meant[b] && word[b] == meant[a])
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::keys::near_miss;

    /// Real, distinct tags one edit from another real tag, each beside the tag it is near.
    const REAL_PAIRS: [(&str, &str); 11] = [
        ("vue3", "vue"),
        ("k3s", "k8s"),
        ("web3", "web"),
        ("preact", "react"),
        ("css3", "css"),
        ("llms", "llm"),
        ("gist", "git"),
        ("trust", "rust"),
        ("angularjs", "angular"),
        ("webs", "web"),
        ("demo", "deno"),
    ];

    #[test]
    fn real_tags_one_edit_apart_are_never_slips_beyond_doubt() {
        for (tag, other) in REAL_PAIRS {
            let meant = near_miss(tag, [other]).unwrap_or_else(|| panic!("{tag} is near {other}"));
            assert!(!beyond_doubt(tag, meant), "{tag} would fail a CI build");
        }
    }

    #[test]
    fn swapped_neighbours_are_slips_and_other_edits_are_not() {
        for (typo, meant) in [("rsut", "rust"), ("pyhton", "python"), ("ut", "tu")] {
            assert!(beyond_doubt(typo, meant), "{typo}");
        }
        for (word, meant) in [
            ("rusr", "rust"),
            ("rust", "rust"),
            ("rsu", "rust"),
            ("tsur", "rust"),
        ] {
            assert!(!beyond_doubt(word, meant), "{word}");
        }
    }

    #[test]
    fn keys_of_other_generators_are_known_and_typos_are_not() {
        for key in [
            "authors",
            "lastmod",
            "aliases",
            "weight",
            "categories",
            "layout",
        ] {
            assert!(generators::read_by(key).is_some(), "{key}");
        }
        for typo in ["decription", "pubdate", "tittle", "draf"] {
            assert!(generators::read_by(typo).is_none(), "{typo}");
        }
    }
}
