//! `content-api new post|series|deck|tag`: a content file that builds, as `hugo new` makes.
//!
//! The slug comes from the title (or `--slug`); the file name is the one the build reads that
//! slug from; the date is today in the site's time zone. The text is checked with the build's
//! own parser before it is written, and an existing file is never overwritten. A post's tags
//! that have no file yet get one, so a post never starts with an unknown tag.

mod flags;
mod text;

pub use flags::NewCommand;
pub use text::slugify;

use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, Settings};
use crate::diag::Diagnostic;
use crate::model::{Lang, is_valid_slug};
use crate::parse::{
    dated_stem, parse_deck_text, parse_post_text, parse_series_text, parse_tag_text,
};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::NaiveDate;
use flags::{NewTag, TierArg};
use std::io::Write;
use std::process::ExitCode;
use text::{deck_text, post_text, series_text, tag_text};

/// What `new post|series|deck` creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Post,
    Series,
    Deck,
}

/// A post, series or deck to create, from its subcommand's flags.
#[derive(Debug, Clone)]
pub struct Request {
    kind: Kind,
    pub title: String,
    lang: Option<String>,
    slug: Option<String>,
    description: Option<String>,
    date: Option<NaiveDate>,
    pub tags: Vec<String>,
    pub series: Option<String>,
    pub draft: bool,
}

impl Request {
    fn of(command: &NewCommand) -> Option<Request> {
        let (kind, title, lang, naming, dating) = match command {
            NewCommand::Post(post) => (
                Kind::Post,
                &post.title,
                Some(&post.lang),
                &post.naming,
                Some(&post.dating),
            ),
            NewCommand::Deck(deck) => (
                Kind::Deck,
                &deck.title,
                Some(&deck.lang),
                &deck.naming,
                Some(&deck.dating),
            ),
            NewCommand::Series(series) => (Kind::Series, &series.title, None, &series.naming, None),
            NewCommand::Tag(_) => return None,
        };
        let (tags, series) = match command {
            NewCommand::Post(post) => (post.tags.clone(), post.series.clone()),
            _ => (Vec::new(), None),
        };
        Some(Request {
            kind,
            title: title.clone(),
            lang: lang.and_then(|l| l.lang.clone()),
            slug: naming.slug.clone(),
            description: naming.description.clone(),
            date: dating.and_then(|d| d.date),
            tags,
            series,
            draft: dating.is_some_and(|d| d.draft),
        })
    }
}

pub fn run(settings: &Settings, command: &NewCommand) -> ExitCode {
    if let Some(refusal) = own_layout(settings, command) {
        eprintln!("{}", refusal.1);
        return ExitCode::from(refusal.0);
    }
    let created = match (command, Request::of(command)) {
        (NewCommand::Tag(tag), _) => create_tag(settings, tag),
        (_, Some(request)) => create(settings, &request),
        (_, None) => unreachable!("every kind but tag is a request"),
    };
    match created {
        Ok(path) => {
            // The path on stdout, alone, so that `$EDITOR "$(content-api new post T)"` works.
            println!("{path}");
            ExitCode::SUCCESS
        }
        Err((code, message)) => {
            eprintln!("{message}");
            ExitCode::from(code)
        }
    }
}

type Refusal = (u8, String);

/// `new` writes the seed's layout: on a site laid out its own way (`[layout]`), a post or deck
/// written there would not be read, and a tag or series file only where the site has the folder.
fn own_layout(settings: &Settings, command: &NewCommand) -> Option<Refusal> {
    let layout = &settings.config.layout;
    let seed = crate::content::Layout::seed();
    let (kind, folder) = match command {
        NewCommand::Post(_) if layout.posts() != seed.posts() => ("post", None),
        NewCommand::Deck(_) if layout.decks() != seed.decks() => ("deck", None),
        NewCommand::Tag(_) if layout.tags() != seed.tags() => ("tag", Some("tags")),
        NewCommand::Series(_) if layout.series() != seed.series() => ("series", Some("series")),
        _ => return None,
    };
    let help = match folder {
        Some(key) => format!(
            "this site has no `{key}` folder of content-api's; set `{key} = \"{key}\"` under [layout] in watch.toml to keep {kind} files there"
        ),
        None => "create it with the site's own generator (`hugo new`, a new file in `_posts/`...): content-api reads it where the layout says".into(),
    };
    Some(usage(
        format!(
            "`content-api new {kind}` writes the default layout's files, and this site's [layout] in watch.toml is its own"
        ),
        &help,
    ))
}

fn usage(message: impl Into<String>, help: &str) -> Refusal {
    (
        EXIT_USAGE,
        format!("error: {}\n  = help: {help}", message.into()),
    )
}

/// The slug `--slug` gives, or the title's.
fn slug_of(args: &Request) -> Result<String, Refusal> {
    match &args.slug {
        Some(slug) if is_valid_slug(slug) => Ok(slug.clone()),
        Some(slug) => Err(usage(
            format!("the slug `{slug}` is not valid: use lowercase letters, digits and hyphens"),
            &format!(
                "for example --slug {}",
                slugify(slug).unwrap_or_else(|| "my-post".into())
            ),
        )),
        None => slugify(&args.title).ok_or_else(|| {
            usage(
                format!(
                    "the title `{}` has no letters or digits to make a slug from",
                    args.title
                ),
                "give one with --slug, for example --slug my-post",
            )
        }),
    }
}

/// The language `--lang` names among the site's (its default language without one).
fn site_language(settings: &Settings, tag: Option<&str>) -> Result<Lang, Refusal> {
    let languages = &settings.config.languages;
    let Some(tag) = tag else {
        return Ok(languages.default_lang());
    };
    Lang::parse(tag)
        .filter(|&lang| languages.contains(lang))
        .ok_or_else(|| {
            usage(
                format!(
                    "`{tag}` is not one of the site's languages ({}); nothing was written",
                    languages.quoted()
                ),
                "give one of them with --lang, or add the language to `languages` in watch.toml",
            )
        })
}

/// Writes the file (and a post's missing tags) and returns its path.
fn create(settings: &Settings, args: &Request) -> Result<Utf8PathBuf, Refusal> {
    let content = &settings.config.content_dir;
    let slug = slug_of(args)?;
    check_series(content, args)?;
    let missing_tags = missing_tags(content, &args.tags)?;
    let lang = site_language(settings, args.lang.as_deref())?;
    let date = args.date.unwrap_or_else(|| settings.today());
    let description = args.description.as_deref().unwrap_or(&args.title);
    let (relative, text) = match args.kind {
        Kind::Post => (
            format!(
                "blog/{}/{date}_{slug}.md",
                language_folder(content, "blog", lang)
            ),
            post_text(args, description, date),
        ),
        Kind::Deck => (
            format!(
                "slides/{}/{date}_{slug}.md",
                language_folder(content, "slides", lang)
            ),
            deck_text(args, description, date),
        ),
        Kind::Series => (
            format!("series/{slug}.md"),
            series_text(&slug, args, description),
        ),
    };
    verify(&relative, lang, &slug, &text)?;
    let path = content.join(&relative);
    if path.symlink_metadata().is_ok() {
        return Err(already_exists(&path));
    }
    // One slug per language: a post of another day with this slug would be published at the
    // same URL, which the build refuses.
    if let Some(folder) = relative.rsplit_once('/').map(|(folder, _)| folder)
        && args.kind != Kind::Series
        && let Some(taken) = slug_taken(&content.join(folder), &slug)
    {
        return Err(usage(
            format!("{taken} already has the slug `{slug}`; nothing was written"),
            "one slug per language: choose another title, or give another slug with --slug",
        ));
    }
    // The post's tags first: a post never exists with a tag the taxonomy lacks.
    for tag in &missing_tags {
        let (tag_path, text) = tag_file(content, tag, TierArg::Primary, None, None)?;
        write_new(&tag_path, &text)?;
        eprintln!(
            "created {tag_path}: the new primary tag `{tag}` (describe it there; `content-api new tag {tag} --tier ...` makes one with another tier)"
        );
    }
    write_new(&path, &text)?;
    Ok(path)
}

/// `new tag NAME`: the tag's file.
fn create_tag(settings: &Settings, args: &NewTag) -> Result<Utf8PathBuf, Refusal> {
    let content = &settings.config.content_dir;
    if !is_valid_slug(&args.name) {
        return Err(usage(
            format!(
                "the tag name `{}` is not valid: use lowercase letters, digits and hyphens",
                args.name
            ),
            &format!(
                "for example content-api new tag {}",
                slugify(&args.name).unwrap_or_else(|| "my-tag".into())
            ),
        ));
    }
    if let Some(parent) = &args.parent
        && !tag_path(content, parent).is_file()
    {
        return Err(usage(
            format!("there is no tag `{parent}` to put `{}` under", args.name),
            &format!("create it first: content-api new tag {parent}"),
        ));
    }
    let (path, text) = tag_file(
        content,
        &args.name,
        args.tier,
        args.description.as_deref(),
        args.parent.as_deref(),
    )?;
    write_new(&path, &text)?;
    Ok(path)
}

fn tag_path(content: &Utf8Path, tag: &str) -> Utf8PathBuf {
    content.join("tags").join(format!("{tag}.md"))
}

/// A tag's path and text, checked with the build's parser.
fn tag_file(
    content: &Utf8Path,
    name: &str,
    tier: TierArg,
    description: Option<&str>,
    parent: Option<&str>,
) -> Result<(Utf8PathBuf, String), Refusal> {
    let text = tag_text(name, tier, description, parent);
    let relative = format!("tags/{name}.md");
    let parsed = parse_tag_text(&relative, name, &text);
    if !parsed.diagnostics.is_empty() || parsed.value.is_none() {
        return Err(not_clean(&relative, &parsed.diagnostics));
    }
    Ok((tag_path(content, name), text))
}

/// The post's tags that have no file under `tags/` (refused when a name cannot be a tag).
fn missing_tags(content: &Utf8Path, tags: &[String]) -> Result<Vec<String>, Refusal> {
    let mut missing = Vec::new();
    for tag in tags {
        if !is_valid_slug(tag) {
            return Err(usage(
                format!("`{tag}` cannot be a tag: use lowercase letters, digits and hyphens"),
                &format!(
                    "for example --tags {}",
                    slugify(tag).unwrap_or_else(|| "my-tag".into())
                ),
            ));
        }
        if !tag_path(content, tag).is_file() && !missing.contains(tag) {
            missing.push(tag.clone());
        }
    }
    Ok(missing)
}

/// The series must exist, or the build reports it as an error.
fn check_series(content: &Utf8Path, args: &Request) -> Result<(), Refusal> {
    if let Some(series) = &args.series
        && !content
            .join("series")
            .join(format!("{series}.md"))
            .is_file()
    {
        return Err(usage(
            format!("there is no series `{series}`"),
            &format!("create it first: content-api new series \"Title\" --slug {series}"),
        ));
    }
    Ok(())
}

fn already_exists(path: &Utf8Path) -> Refusal {
    usage(
        format!("{path} already exists; it was left as it is"),
        "choose another title, or give another slug with --slug",
    )
}

/// The dated file of `folder` (`blog/en`, `slides/es`) whose slug is `slug`, if any.
/// The folder of `lang` in `content/{kind}` (`blog`, `slides`): the code itself, unless the
/// site already has the language's folder under another case (`zh-CN` for `zh-cn`, which the
/// build reads as the same language), so a new file joins its language's posts, and the slug
/// check below looks where they are.
fn language_folder(content: &Utf8Path, kind: &str, lang: Lang) -> String {
    let code = lang.as_str();
    let folder = content.join(kind);
    if folder.join(code).is_dir() {
        return code.to_string();
    }
    let mut named: Vec<String> = folder
        .read_dir_utf8()
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().is_dir() && entry.file_name().eq_ignore_ascii_case(code))
        .map(|entry| entry.file_name().to_string())
        .collect();
    named.sort();
    named.into_iter().next().unwrap_or_else(|| code.to_string())
}

fn slug_taken(folder: &Utf8Path, slug: &str) -> Option<Utf8PathBuf> {
    let entries = folder.read_dir_utf8().ok()?;
    let mut taken: Vec<Utf8PathBuf> = entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name();
            let stem = name
                .strip_suffix(".md")
                .or_else(|| name.strip_suffix(".mdx"));
            stem.and_then(|stem| stem.split_once('_'))
                .is_some_and(|(_, its)| its == slug)
        })
        .map(|entry| entry.path().to_owned())
        .collect();
    taken.sort();
    taken.into_iter().next()
}

fn not_clean(relative: &str, diagnostics: &[Diagnostic]) -> Refusal {
    let shown: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    (
        EXIT_CONTENT_ERRORS,
        format!(
            "error: the generated {relative} would not build cleanly (a bug in `content-api new`):\n{}",
            shown.join("\n")
        ),
    )
}

/// Parses the text as the build will: a file `new` writes never starts with an error, and
/// its slug is the one the build derives from its name.
fn verify(relative: &str, lang: Lang, slug: &str, text: &str) -> Result<(), Refusal> {
    let stem = relative
        .rsplit('/')
        .next()
        .and_then(|name| name.strip_suffix(".md"))
        .unwrap_or(relative);
    let diagnostics: Vec<Diagnostic> = if relative.starts_with("blog/") {
        parse_post_text(relative, lang, stem, text)
            .parsed
            .diagnostics
    } else if relative.starts_with("slides/") {
        parse_deck_text(relative, lang, stem, text).diagnostics
    } else {
        parse_series_text(relative, stem, text).diagnostics
    };
    let derived = if relative.starts_with("series/") {
        Some(stem.to_string())
    } else {
        dated_stem(relative, stem)
            .ok()
            .map(|(_, slug)| slug.to_string())
    };
    if !diagnostics.is_empty() || derived.as_deref() != Some(slug) {
        return Err(not_clean(relative, &diagnostics));
    }
    Ok(())
}

/// Creates `path` with `text`, failing if it exists (checked and created in one step).
fn write_new(path: &Utf8Path, text: &str) -> Result<(), Refusal> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|err| {
            (
                EXIT_CONTENT_ERRORS,
                format!("error: cannot create the folder {parent}: {err}"),
            )
        })?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|err| match err.kind() {
            std::io::ErrorKind::AlreadyExists => already_exists(path),
            _ => (
                EXIT_CONTENT_ERRORS,
                format!("error: cannot create {path}: {err}"),
            ),
        })?;
    file.write_all(text.as_bytes()).map_err(|err| {
        (
            EXIT_CONTENT_ERRORS,
            format!("error: cannot write {path}: {err}"),
        )
    })
}
