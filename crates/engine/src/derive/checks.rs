//! Every diagnostic of the build: per-file parse errors, cross-file checks, and walk problems.

use super::keys::{
    beyond_doubt, front_matter_rules, near_miss_errors, suspicious, unknown_key_reports,
};
use super::series::series_by_name;
use super::taxonomy::tag_tiers;
use crate::content::{ContentPath, FileRole};
use crate::db::{Globals, LangTree, SourceFile};
use crate::diag::Diagnostic;
use crate::parse::{
    Parsed, parse_deck, parse_post, parse_series, parse_skill, parse_tag, post_meta, post_reading,
    tag_meta,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// All diagnostics, sorted by file, line and column. Errors in here fail a build.
#[salsa::tracked(returns(ref))]
pub fn all_diagnostics(db: &dyn salsa::Database) -> Arc<[Diagnostic]> {
    let site = Globals::get(db);
    let mut out: Vec<Diagnostic> = site.scan_problems(db).to_vec();
    out.extend(site.unread_languages(db).iter().cloned());
    for &tree in site.trees(db).iter() {
        for &file in tree.posts(db).iter() {
            out.extend(post_diagnostics(db, file).iter().cloned());
        }
        for &file in tree.decks(db).iter() {
            out.extend(deck_diagnostics(db, file).iter().cloned());
        }
        out.extend(duplicate_ids(db, tree).iter().cloned());
        out.extend(duplicate_slugs(db, tree).iter().cloned());
    }
    for &file in site.tags(db).iter() {
        out.extend(tag_diagnostics(db, file).iter().cloned());
    }
    for &file in site.series(db).iter() {
        out.extend(series_diagnostics(db, file).iter().cloned());
    }
    for &file in site.skills(db).iter() {
        out.extend(parse_skill(db, file).diagnostics.iter().cloned());
    }
    out.extend(unknown_key_reports(db).iter().cloned());
    out.extend(description_from_body_note(db));
    out.extend(relative_image_warning(db));
    out.extend(series_list_warning(db));
    out.sort_by(|a, b| {
        let position = |d: &Diagnostic| d.location.as_ref().map(|l| (l.line, l.column));
        a.path
            .cmp(&b.path)
            .then(position(a).cmp(&position(b)))
            .then(a.message.cmp(&b.message))
    });
    out.dedup();
    out.into()
}

/// One file's diagnostics, including the cross-file checks that are about it. Together with
/// `all_diagnostics` when files appear or disappear, this is enough to know the errors of an
/// edit: editing a file's contents cannot create an error in another file. The site's one
/// warning per unknown key is not here: it reads every file's parse, which an edit must not
/// (`tests/minimal_work.rs`); watch mode shows it with the full checks (at start, when files
/// come or go, on a config reload), and it is never an error there.
pub fn file_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    match file.role(db).clone() {
        FileRole::Post { .. } => post_diagnostics(db, file).clone(),
        FileRole::Deck { .. } => deck_diagnostics(db, file).clone(),
        FileRole::Tag { .. } => tag_diagnostics(db, file).clone(),
        FileRole::Series { .. } => series_diagnostics(db, file).clone(),
        FileRole::Skill { .. } => parse_skill(db, file).diagnostics.clone(),
        FileRole::Misplaced { .. } | FileRole::Ignored => Vec::new(),
    }
}

/// A deck's own errors, with its mistyped keys.
#[salsa::tracked(returns(ref))]
fn deck_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    with_mistyped_keys(db, file, parse_deck(db, file))
}

/// A series' own errors, with its mistyped keys.
#[salsa::tracked(returns(ref))]
fn series_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    with_mistyped_keys(db, file, parse_series(db, file))
}

/// The parse's errors of `file` and those of its keys that are near misses of known ones.
fn with_mistyped_keys<T>(
    db: &dyn salsa::Database,
    file: SourceFile,
    parsed: &Parsed<T>,
) -> Vec<Diagnostic> {
    let mut out = parsed.diagnostics.clone();
    let path = file.path(db).as_str();
    out.extend(near_miss_errors(db, path, &parsed.unknown_keys));
    out
}

/// A post's own errors plus the checks that need other files: its series must exist (a file
/// in the series folder, when the layout has one), and its tags should be in the taxonomy.
#[salsa::tracked(returns(ref))]
pub fn post_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    let parsed = parse_post(db, file);
    let path = file.path(db).as_str();
    let mut out = parsed.parsed.diagnostics.clone();
    out.extend(near_miss_errors(db, path, &parsed.parsed.unknown_keys));
    let Some(meta) = post_meta(db, file) else {
        return out;
    };
    if let Some(series) = &meta.series
        && !post_reading(db).series_unfiled
        && !series_by_name(db).contains_key(series)
    {
        let mut diagnostic = Diagnostic::error(path, format!("unknown series `{series}`"))
            .label("no file series/".to_string() + series + ".md")
            .help(format!(
                "create series/{series}.md, or fix the name to one of the files in series/"
            ));
        if let Some(at) = &parsed.series_location {
            diagnostic = diagnostic.at(at.clone());
        }
        out.push(diagnostic);
    }
    let tiers = tag_tiers(db);
    let unfiled_ok = unfiled_tags_are_fine(db);
    for tag in meta
        .tags
        .iter()
        .filter(|tag| !unfiled_ok && !tiers.contains_key(*tag))
    {
        let near = crate::parse::keys::near_miss(tag, tiers.keys().map(|known| &**known));
        let mut diagnostic = unknown_tag(path, tag, near, front_matter_rules(db).strict);
        if let Some(at) = &parsed.tags_location {
            diagnostic = diagnostic.at(at.clone());
        }
        out.push(diagnostic);
    }
    out
}

/// Whether a tag without a tag file is as it should be: the site's layout has no tags folder
/// (`tags = ""`), so no tag has a file.
#[salsa::tracked]
fn unfiled_tags_are_fine(db: &dyn salsa::Database) -> bool {
    Globals::get(db).config(db).layout.tags().is_none()
}

/// A tag with no file in `tags/`. One keystroke from a known tag, it may be a typo that would
/// publish a timeline of its own (and a permanent 410 once corrected): it says which tag was
/// meant. Only a slip beyond doubt (`keys::beyond_doubt`) fails a strict build: a near-miss
/// tag is as often a real, distinct one (`vue3` beside `vue`).
fn unknown_tag(path: &str, tag: &str, near: Option<&str>, strict: bool) -> Diagnostic {
    let Some(meant) = near else {
        return Diagnostic::warning(
            path,
            format!("tag `{tag}` is not in the taxonomy (no tags/{tag}.md); it counts as a primary tag"),
        )
        .label(format!("`{tag}` has no file in tags/"))
        .help(format!(
            "create it with `content-api new tag {tag}` (add --tier secondary or subtopic as it fits), or remove `{tag}` from this post's `tags` if it is a typo"
        ));
    };
    let message = format!("tag `{tag}` is not in the taxonomy: did you mean `{meant}`?");
    suspicious(path, message, strict && beyond_doubt(tag, meant))
        .label(format!("no tags/{tag}.md; tags/{meant}.md exists"))
        .help(format!(
            "fix it to `{meant}`; if `{tag}` is a new tag, create it with `content-api new tag {tag}`"
        ))
}

/// A tag's own errors plus a warning when its parent is not a known tag.
#[salsa::tracked(returns(ref))]
fn tag_diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diagnostic> {
    let parsed = parse_tag(db, file);
    let mut out = parsed.diagnostics.clone();
    out.extend(near_miss_errors(
        db,
        file.path(db).as_str(),
        &parsed.unknown_keys,
    ));
    if let Some(parent) = tag_meta(db, file)
        .as_ref()
        .and_then(|tag| tag.parent.clone())
        && !tag_tiers(db).contains_key(&parent)
    {
        out.push(
            Diagnostic::warning(
                file.path(db).as_str(),
                format!("parent tag `{parent}` is not in the taxonomy"),
            )
            .help(format!("add tags/{parent}.md or fix the `parent` field")),
        );
    }
    out
}

/// The cross-file checks of one language's file lists: `all_diagnostics` only collects them.
/// A build runs them for each language, and both kinds, on threads of their own beside the
/// parses (each walks every file name of the language).
pub fn tree_checks(db: &dyn salsa::Database, tree: LangTree, kind: TreeCheck) {
    match kind {
        TreeCheck::Ids => {
            duplicate_ids(db, tree);
        }
        TreeCheck::Slugs => {
            duplicate_slugs(db, tree);
        }
    }
}

/// One of the checks of [`tree_checks`].
#[derive(Clone, Copy, Debug)]
pub enum TreeCheck {
    /// Two files of one language with the same id (`x.md` beside `x.mdx`).
    Ids,
    /// Two posts of one language with the same slug.
    Slugs,
}

/// Two files with the same id (`x.md` beside `x.mdx`) in one language.
#[salsa::tracked(returns(ref))]
fn duplicate_ids(db: &dyn salsa::Database, tree: LangTree) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for files in [tree.posts(db), tree.decks(db)] {
        // By the path without extension: `x.md` beside `x.mdx`, or `x.md` beside `x/index.md`.
        let mut by_id: BTreeMap<&str, (&str, Vec<&str>)> = BTreeMap::new();
        for file in files.iter() {
            let path = file.path(db);
            if let FileRole::Post { name, .. } | FileRole::Deck { name, .. } = file.role(db) {
                by_id
                    .entry(&name.key)
                    .or_insert((&name.stem, Vec::new()))
                    .1
                    .push(path.as_str());
            }
        }
        for (_, (stem, paths)) in by_id {
            if let [first, rest @ ..] = paths.as_slice() {
                for other in rest {
                    out.push(
                        Diagnostic::error(
                            *other,
                            format!(
                                "duplicate id `{}/{stem}`: {first} has the same name",
                                tree.lang(db)
                            ),
                        )
                        .help("keep one of the two files (.md or .mdx), or rename one"),
                    );
                }
            }
        }
    }
    out
}

/// Two posts of one language with the same slug (`2023-01-01_x.md` and `2024-01-01_x.md`):
/// their pages, and so their Markdown variants, would have the same URL.
#[salsa::tracked(returns(ref))]
fn duplicate_slugs(db: &dyn salsa::Database, tree: LangTree) -> Vec<Diagnostic> {
    let lang = tree.lang(db);
    let mut by_slug: BTreeMap<Arc<str>, Vec<(&str, &str)>> = BTreeMap::new();
    // A translation may take the default language's slug (`translation_key`): then its slug
    // is the post's, not its name's.
    let translations = !post_reading(db).keys.of("translation_key").is_empty();
    for file in tree.posts(db).iter() {
        let path = file.path(db);
        if let FileRole::Post { name, .. } = file.role(db)
            && let Some(slug) = translations
                .then(|| post_meta(db, *file).as_ref().map(|meta| meta.slug.clone()))
                .flatten()
                .or_else(|| name.published_slug())
        {
            let entry = by_slug.entry(slug).or_default();
            // `x.md` beside `x.mdx` is a duplicate id, which `duplicate_ids` reports.
            if !entry.iter().any(|(other, _)| *other == &*name.key) {
                entry.push((&name.key, path.as_str()));
            }
        }
    }
    let mut out = Vec::new();
    for (slug, posts) in by_slug {
        if let [(_, first), rest @ ..] = posts.as_slice() {
            for (_, other) in rest {
                out.push(
                    Diagnostic::error(
                        *other,
                        format!(
                            "duplicate slug `{slug}`: {first} has the same slug, so both would be published at {}/blog/{slug}",
                            Globals::get(db).config(db).languages.site_prefix(lang)
                        ),
                    )
                    .help("give one of the posts another slug (the part of the file name after the date)"),
                );
            }
        }
    }
    out
}

/// What a post says of itself that the site reports once, not per post.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct PostNotes {
    description_from_body: bool,
    relative_image: bool,
    series_more: bool,
}

/// One post's notes alone: equal across every edit that does not change them, so the site's
/// tally is not recounted after each save.
#[salsa::tracked]
fn post_notes(db: &dyn salsa::Database, file: SourceFile) -> PostNotes {
    let parsed = parse_post(db, file);
    PostNotes {
        description_from_body: parsed.description_from_body,
        relative_image: parsed.relative_image,
        series_more: parsed.series_more,
    }
}

/// How many posts say one thing, and the first of them by path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Tally {
    first: ContentPath,
    count: usize,
}

/// The site's tally of each note, counted in one pass over its posts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct SiteNotes {
    description_from_body: Option<Tally>,
    relative_image: Option<Tally>,
    series_more: Option<Tally>,
}

#[salsa::tracked(returns(ref))]
fn site_post_notes(db: &dyn salsa::Database) -> SiteNotes {
    let mut notes = SiteNotes::default();
    let count = |tally: &mut Option<Tally>, path: &ContentPath| match tally {
        Some(tally) => {
            tally.count += 1;
            if *path < tally.first {
                tally.first = path.clone();
            }
        }
        None => {
            *tally = Some(Tally {
                first: path.clone(),
                count: 1,
            })
        }
    };
    for &tree in Globals::get(db).trees(db).iter() {
        for &file in tree.posts(db).iter() {
            let said = post_notes(db, file);
            let path = file.path(db);
            if said.description_from_body {
                count(&mut notes.description_from_body, path);
            }
            if said.relative_image {
                count(&mut notes.relative_image, path);
            }
            if said.series_more {
                count(&mut notes.series_more, path);
            }
        }
    }
    notes
}

/// The one warning of a site whose posts name relative hero images (`./cover.png`) in a layout
/// of its own: each is dropped (the post has no `heroImage`), since the API cannot serve a file
/// beside a post. How many, at the first of them.
fn relative_image_warning(db: &dyn salsa::Database) -> Option<Diagnostic> {
    let Tally { first, count } = site_post_notes(db).relative_image.clone()?;
    let first = first.as_str();
    let (posts, its) = if count == 1 {
        ("post names", "its heroImage is")
    } else {
        ("posts name", "their heroImage is")
    };
    Some(
        Diagnostic::warning(
            first,
            format!(
                "{count} {posts} a relative hero image (such as `./cover.png`): dropped, {its} null"
            ),
        )
        .help("write the image's path from the site root (/images/cover.png) or a full URL to publish it"),
    )
}

/// The one warning of a site whose posts name a list of more than one series
/// (`series = ["A", "B"]`) in a layout without series files: a post belongs to one series, the
/// first. How many, at the first of them.
fn series_list_warning(db: &dyn salsa::Database) -> Option<Diagnostic> {
    let Tally { first, count } = site_post_notes(db).series_more.clone()?;
    let first = first.as_str();
    let posts = if count == 1 {
        "post names"
    } else {
        "posts name"
    };
    Some(
        Diagnostic::warning(
            first,
            format!("{count} {posts} more than one series: only the first of each list is used"),
        )
        .help("a post is a chapter of one series: keep one name in `series`"),
    )
}

/// The one note of a site whose posts without a description get their first paragraph
/// (`description_from_body`): how many, at the first of them. Not a warning per post: the site
/// chose it.
fn description_from_body_note(db: &dyn salsa::Database) -> Option<Diagnostic> {
    let Tally { first, count } = site_post_notes(db).description_from_body.clone()?;
    let first = first.as_str();
    let posts = if count == 1 { "post has" } else { "posts have" };
    Some(
        Diagnostic::note(
            first,
            format!(
                "{count} {posts} no description: each uses its first paragraph (description_from_body in watch.toml)"
            ),
        )
        .help("write a `description` in a post's front matter to choose its own"),
    )
}
