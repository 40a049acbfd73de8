//! `content-api new post|series|deck "Title"`: a content file that builds, as `hugo new` makes.
//!
//! The slug comes from the title (or `--slug`); the file name is the one the build reads that
//! slug from; the date is today in the site's time zone. The text is checked with the build's
//! own parser before it is written, and an existing file is never overwritten.

use super::{EXIT_CONTENT_ERRORS, EXIT_USAGE, Settings};
use crate::diag::Diagnostic;
pub use crate::model::slugify;
use crate::model::{Lang, is_valid_slug};
use crate::parse::{dated_stem, parse_deck_text, parse_post_text, parse_series_text};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::NaiveDate;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::process::ExitCode;

/// What `new` creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A blog post: `blog/<lang>/<date>_<slug>.md`.
    Post,
    /// A series definition: `series/<slug>.md` (posts join it with `series: <slug>`).
    Series,
    /// A slide deck: `slides/<lang>/<date>_<slug>.md`.
    Deck,
}

/// Flags of `new`.
#[derive(Debug, Clone, Args)]
pub struct NewArgs {
    /// What to create.
    #[arg(value_enum)]
    pub kind: Kind,

    /// The title, in quotes: `content-api new post "My First Post"`.
    pub title: String,

    /// Language of a post or deck. A translation uses the same --slug as the original, so
    /// both language versions share one file name.
    #[arg(long, default_value = "en", value_parser = ["en", "es"])]
    pub lang: String,

    /// The slug (the file name and the URL). Default: derived from the title, lowercase ASCII
    /// letters, digits and hyphens (`Café con Leche!` → `cafe-con-leche`).
    #[arg(long)]
    pub slug: Option<String>,

    /// The description (default: the title; edit it before publishing).
    #[arg(long)]
    pub description: Option<String>,

    /// Publication date of a post or deck. Default: today in the site's time zone (or
    /// --today).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<NaiveDate>,

    /// Tags of a post, comma-separated; each must exist under `tags/`.
    #[arg(long, value_delimiter = ',', value_name = "TAG,...")]
    pub tags: Vec<String>,

    /// The series a post belongs to; it must exist under `series/`.
    #[arg(long, value_name = "NAME")]
    pub series: Option<String>,

    /// Mark the post or deck as a draft (published only with --drafts).
    #[arg(long)]
    pub draft: bool,
}

pub fn run(settings: &Settings, args: &NewArgs) -> ExitCode {
    match create(settings, args) {
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

fn usage(message: impl Into<String>, help: &str) -> Refusal {
    (
        EXIT_USAGE,
        format!("error: {}\n  = help: {help}", message.into()),
    )
}

/// Writes the file and returns its path.
fn create(settings: &Settings, args: &NewArgs) -> Result<Utf8PathBuf, Refusal> {
    let content = &settings.config.content_dir;
    let slug = match &args.slug {
        Some(slug) if is_valid_slug(slug) => slug.clone(),
        Some(slug) => {
            return Err(usage(
                format!(
                    "the slug `{slug}` is not valid: use lowercase letters, digits and hyphens"
                ),
                &format!(
                    "for example --slug {}",
                    slugify(slug).unwrap_or_else(|| "my-post".into())
                ),
            ));
        }
        None => slugify(&args.title).ok_or_else(|| {
            usage(
                format!(
                    "the title `{}` has no letters or digits to make a slug from",
                    args.title
                ),
                "give one with --slug, for example --slug my-post",
            )
        })?,
    };
    if args.kind != Kind::Post && (!args.tags.is_empty() || args.series.is_some()) {
        return Err(usage(
            "--tags and --series apply to posts only",
            "leave them out, or create a post: content-api new post \"Title\"",
        ));
    }
    check_references(content, args)?;
    let lang = Lang::parse(&args.lang).expect("clap allows en and es only");
    let date = args.date.unwrap_or_else(|| settings.today());
    let description = args.description.as_deref().unwrap_or(&args.title);
    let (relative, text) = match args.kind {
        Kind::Post => {
            let stem = format!("{date}_{slug}");
            (
                format!("blog/{lang}/{stem}.md"),
                post_text(args, description, date),
            )
        }
        Kind::Deck => {
            let stem = format!("{date}_{slug}");
            (
                format!("slides/{lang}/{stem}.md"),
                deck_text(args, description, date),
            )
        }
        Kind::Series => (
            format!("series/{slug}.md"),
            series_text(&slug, args, description),
        ),
    };
    verify(&relative, lang, &slug, &text)?;
    let path = content.join(&relative);
    write_new(&path, &text)?;
    Ok(path)
}

/// Tags and series must exist, or the build reports them (a warning, an error).
fn check_references(content: &Utf8Path, args: &NewArgs) -> Result<(), Refusal> {
    for tag in &args.tags {
        if !content.join("tags").join(format!("{tag}.md")).is_file() {
            return Err(usage(
                format!(
                    "there is no tag `{tag}` ({} does not exist)",
                    content.join("tags").join(format!("{tag}.md"))
                ),
                "create the tag's file first (copy an existing one under tags/), or leave the tag out",
            ));
        }
    }
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
        let shown: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
        return Err((
            EXIT_CONTENT_ERRORS,
            format!(
                "error: the generated {relative} would not build cleanly (a bug in `content-api new`):\n{}",
                shown.join("\n")
            ),
        ));
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
            std::io::ErrorKind::AlreadyExists => usage(
                format!("{path} already exists; it was left as it is"),
                "choose another title or --slug, or --date for another day",
            ),
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

fn post_text(args: &NewArgs, description: &str, date: NaiveDate) -> String {
    let mut text = format!(
        "---\ntitle: {}\ndescription: {}\npubDate: {date}\n",
        yaml_string(&args.title),
        yaml_string(description)
    );
    if !args.tags.is_empty() {
        let tags: Vec<String> = args.tags.iter().map(|t| yaml_string(t)).collect();
        text.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    if let Some(series) = &args.series {
        text.push_str(&format!("series: {}\n", yaml_string(series)));
    }
    if args.draft {
        text.push_str("draft: true\n");
    }
    text.push_str("---\n\nWrite the post here, in Markdown.\n");
    text
}

fn deck_text(args: &NewArgs, description: &str, date: NaiveDate) -> String {
    let mut text = format!(
        "---\ntype: native\ntitle: {}\ndescription: {}\npubDate: {date}\n",
        yaml_string(&args.title),
        yaml_string(description)
    );
    if args.draft {
        text.push_str("draft: true\n");
    }
    text.push_str("---\n\nThe slides, in Markdown.\n");
    text
}

fn series_text(slug: &str, args: &NewArgs, description: &str) -> String {
    format!(
        "---\nname: {}\ntitle: {}\ndescription: {}\n# titleEs: \"...\" and descriptionEs: \"...\" give the Spanish title and description.\n---\n",
        yaml_string(slug),
        yaml_string(&args.title),
        yaml_string(description)
    )
}

/// A YAML double-quoted scalar: every title reads back as the same string.
fn yaml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_strings_escape_quotes_and_backslashes() {
        assert_eq!(yaml_string(r#"Say "hi" \o/"#), r#""Say \"hi\" \\o/""#);
        assert_eq!(yaml_string("a: b # c"), "\"a: b # c\"");
    }
}
