//! `content-api init [DIR]`: in a new or empty folder, a `watch.toml` that explains every key,
//! and a minimal bilingual site that builds (one post in English and Spanish, one tag), as
//! `hugo new site` and `zola init` give; in an existing site (a generator's files, or Markdown
//! content), only a `watch.toml` mapping what [`detect`] found there.

mod detect;

use super::flags::{Flags, Given};
use super::{BuildArgs, EXIT_CONTENT_ERRORS, EXIT_USAGE};
use camino::{Utf8Path, Utf8PathBuf};
use chrono::NaiveDate;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Flags of `init`.
#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    /// Folder to create the site in (created if needed), or an existing site's root (Hugo, Zola,
    /// Jekyll, Astro, Eleventy, or any Markdown content) to write only its `watch.toml`.
    /// Default: the current folder.
    #[arg(default_value = ".")]
    pub dir: Utf8PathBuf,

    /// The date of a new site's first posts. Default: today in UTC (the time zone is not set
    /// yet). An existing site gets no posts.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub today: Option<NaiveDate>,
}

impl Flags for InitArgs {
    fn give(&self, to: &mut Given) {
        to.build.today = self.today;
    }
}

/// The configuration a new site starts with: every key, commented out, with its default.
pub const WATCH_TOML: &str = r#"# content-api configuration. Every key is optional: each line below shows the default,
# commented out. Relative paths are resolved against the folder that holds this file.
# Before publishing, set at least base_url, and author and licence under [site]: a build
# without them uses placeholders, and fails when the CI environment variable is set.

# Absolute URL the site is published at. Every URL in the API is built from it.
# base_url = "https://example.com"        # default "http://localhost:4321" (clearly local)

# Where the Markdown content is read from, and where the API is written.
# content_dir = "content"
# out_dir = "out"

# The publishing history: every API path a recorded build published, so a removed one answers
# 410 Gone. Commit it with the site.
# history_file = "content-api.history"

# The site's time zone (IANA name): "today", for scheduled posts, is the date there.
# timezone = "UTC"                        # for example "Europe/Madrid", "America/Bogota"

# The site's languages (BCP 47 tags), the default first: its pages are at the site's root, the
# others' under /<code>/. Posts of a language live in blog/<code>/.
# languages = ["en", "es"]                # for example ["en"], ["ko", "en", "ja"], ["fr", "de"]

[site]
# Used by the generated documents (llms.txt, the developer portal, the catalogs).
# name = "My Site"
# description = "What the site is about, in one sentence."
# author = "Your Name"
# contact_name = "Your Name"
# contact_email = "me@example.com"        # optional
# contact_url = "https://example.com/about"   # optional
# The content's licence: an SPDX identifier or its usual name (CC-BY-4.0, "CC BY-SA 4.0", CC0-1.0,
# MIT, Apache-2.0...) gets its URL and its terms (attribution only where the licence asks for it).
# licence_url is needed only for a licence content-api does not know.
# licence = "CC BY 4.0"
# licence_url = "https://creativecommons.org/licenses/by/4.0/"

[api]
# Semantic version of the API, reported by /api/index.json and openapi.json.
# version = "1.0.0"

[hosting]
# How the output meets the host and the site's own build output.
# pages_functions = "functions"           # the site's Cloudflare Pages Functions folder, used when it exists
# take_over = []                          # output paths (folders end in "/") the build may replace on purpose
# netlify = false                         # also write Netlify's _redirects (410 and 404 rules)
# cloudflare_max_files = 20000            # your Pages plan's file limit, for the warning (0: no check)
# live_record = "read"                    # read the last deploy's record from base_url: "read", "optional" or "off"

[watch]
# Watch mode: quiet time after the last file event before a rebuild (milliseconds).
# debounce_ms = 30

[layout]
# Where content lives below content_dir, as path patterns without the extension (.md, .mdx and
# .markdown are read): {lang} a language folder or a `.{lang}` suffix (post.fr.md; unmarked is
# the default language), {date} YYYY-MM-DD, {yyyy}/{mm}/{dd} date folders, {slug} the file's
# name or a page bundle's folder ({slug}/index), * one folder that means nothing, ** any number.
# posts = ["blog/{lang}/{date}_{slug}"]   # for example ["posts/{slug}", "posts/{slug}/index"]
# decks = ["slides/{lang}/{date}_{slug}"] # [] for none
# drafts = []                             # posts that are drafts by their place: ["_drafts/{slug}"]
# tags = "tags"                           # the folder of tag files; "" for none
# series = "series"                       # the folder of series files; "" for none

[front_matter]
# Front-matter keys the site's own pages read. Any other key content-api does not know is
# reported (an error under CI), and one a keystroke from a known key is always an error.
# site_keys = ["layout"]
# A post without a description gets its first paragraph (one note says so).
# description_from_body = false
# Tags are any text (`Web App`), published under their slugs (`web-app`).
# tags_as_written = false

[front_matter.keys]
# The keys a post's fields are read from; in each file the first present wins.
# title = ["title"]
# description = ["description"]          # for example ["description", "summary", "excerpt"]
# date = ["pubDate"]                      # for example ["pubDate", "date", "publishDate", "pubDatetime"]
# tags = ["tags"]
# draft = ["draft"]
# image = ["heroImage"]                   # for example ["heroImage", "image", "images", "cover.image"]
# slug = []                               # for example ["slug"]: the slug instead of the file's
# published = []                          # for example ["published"]: `published: false` is a draft
# categories = []                         # for example ["categories"]: more tags
# series = ["series"]
# series_order = ["seriesOrder"]          # for example ["seriesOrder", "weight"]
# translation_key = []                    # for example ["translationKey"]: one slug for every translation
"#;

const TAG: &str = r#"---
name: "welcome"
description: "First steps of this site."
---
"#;

fn post(lang: &str, date: NaiveDate) -> String {
    let (title, description, body) = match lang {
        "es" => (
            "Hola, mundo",
            "La primera entrada de este sitio.",
            "Esta es la versión en español de la primera entrada. Edítala, o crea otra con\n`content-api new post \"Título\" --lang es`.\n",
        ),
        _ => (
            "Hello, world",
            "The first post of this site.",
            "This is the first post. Edit it, or create another one with\n`content-api new post \"Title\"`.\n",
        ),
    };
    format!(
        "---\ntitle: \"{title}\"\ndescription: \"{description}\"\npubDate: {date}\ntags: [\"welcome\"]\n---\n\n{body}"
    )
}

pub fn run(build: &BuildArgs, args: &InitArgs) -> ExitCode {
    // The posts are dated today in UTC (the time zone is not configured yet) or --today.
    let date = build
        .today
        .unwrap_or_else(|| chrono::Utc::now().date_naive());
    let dir = &args.dir;
    if dir.is_dir()
        && detect::is_site(dir)
        && let Some(found) = detect::detect(dir)
    {
        return init_existing(dir, &found);
    }
    let files: Vec<(Utf8PathBuf, String)> = vec![
        (
            dir.join("watch.toml"),
            format!("{}{WATCH_TOML}", detect::schema_line()),
        ),
        (
            dir.join(format!("content/blog/en/{date}_hello-world.md")),
            post("en", date),
        ),
        (
            dir.join(format!("content/blog/es/{date}_hello-world.md")),
            post("es", date),
        ),
        (dir.join("content/tags/welcome.md"), TAG.to_string()),
    ];
    let existing: Vec<&Utf8PathBuf> = files
        .iter()
        .map(|(path, _)| path)
        .filter(|path| path.symlink_metadata().is_ok())
        .collect();
    if !existing.is_empty() {
        let list: Vec<String> = existing.iter().map(|p| format!("  - {p}")).collect();
        eprintln!(
            "error: `content-api init` creates a new site and never overwrites a file; these exist already:\n{}\n  = help: run it in an empty folder (`content-api init my-site`), or create content with `content-api new post \"Title\"`",
            list.join("\n")
        );
        return ExitCode::from(EXIT_USAGE);
    }
    for (path, text) in &files {
        if let Err(err) = create_new(path, text) {
            eprintln!("error: cannot create {path}: {err}");
            return ExitCode::from(EXIT_CONTENT_ERRORS);
        }
        println!("created {path}");
    }
    let cd = if dir == "." {
        String::new()
    } else {
        format!("cd {dir} && ")
    };
    eprintln!(
        "next: set base_url, and author and licence under [site], in {}; then `{cd}content-api serve` to preview, `{cd}content-api build` to build",
        dir.join("watch.toml")
    );
    ExitCode::SUCCESS
}

/// An existing site: its `watch.toml` only, from what detection found; no sample content.
fn init_existing(dir: &Utf8Path, found: &detect::Detection) -> ExitCode {
    let path = dir.join("watch.toml");
    if path.symlink_metadata().is_ok() {
        eprintln!(
            "error: `content-api init` writes watch.toml into an existing site and never overwrites a file; this exists already:\n  - {path}\n  = help: edit it, or move it away and run `content-api init` again to see what it detects"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    for line in detect::summary(found) {
        println!("{line}");
    }
    if let Err(err) = create_new(&path, &detect::watch_toml(found)) {
        eprintln!("error: cannot create {path}: {err}");
        return ExitCode::from(EXIT_CONTENT_ERRORS);
    }
    println!("created {path} (no sample content: this folder is a site already)");
    read_with(&path);
    let cd = if dir == "." {
        String::new()
    } else {
        format!("cd {dir} && ")
    };
    eprintln!(
        "next: check each choice in {path} (its comments say why), set author and licence under [site]; then `{cd}content-api check`"
    );
    ExitCode::SUCCESS
}

/// Reads the site with the `watch.toml` just written, as `check` would, and prints what it
/// found per language: the mapping proven on the site's own files, not only described.
fn read_with(path: &Utf8Path) {
    let config = match crate::watch_toml::load(path, true) {
        Ok(Some(read)) => read.config,
        Ok(None) => return,
        Err(diagnostic) => {
            eprintln!("{}", diagnostic.render(None, false));
            return;
        }
    };
    let today = chrono::Utc::now().date_naive();
    let scan = crate::session::load::scan_for_build(
        config.content_dir.as_std_path(),
        &config,
        crate::session::load::BODY_BUDGET,
    );
    let workspace = crate::workspace::Workspace::new(
        std::sync::Arc::new(config),
        today,
        false,
        scan,
        crate::workspace::Lifetime::Once,
        std::sync::Arc::from([]),
    );
    println!("read with it:");
    for line in super::summary::lines(&workspace) {
        println!("  {line}");
    }
    // The process ends soon: skip freeing the database piece by piece.
    std::mem::forget(workspace);
}

fn create_new(path: &camino::Utf8Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commented_config_parses_to_the_defaults() {
        let parsed = crate::watch_toml::parse("watch.toml", WATCH_TOML, camino::Utf8Path::new("."))
            .expect("watch.toml of init parses");
        let defaults = crate::config::SiteConfig::defaults(camino::Utf8Path::new("."));
        assert_eq!(parsed.base_url, defaults.base_url);
        assert_eq!(parsed.author, defaults.author);
    }

    #[test]
    fn every_key_of_the_config_is_in_the_commented_file() {
        // Uncommenting every line gives a config the parser accepts (no unknown key).
        let uncommented: String = WATCH_TOML
            .lines()
            .map(|line| {
                line.strip_prefix("# ")
                    .filter(|l| l.contains(" = "))
                    .unwrap_or(line)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let parsed =
            crate::watch_toml::parse("watch.toml", &uncommented, camino::Utf8Path::new("."))
                .unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(parsed.base_url, "https://example.com");
        assert_eq!(parsed.author, "Your Name");
        assert_eq!(parsed.timezone, chrono_tz::UTC);
        assert_eq!(parsed.watch.debounce_ms, 30);
        assert_eq!(parsed.contact.email.as_deref(), Some("me@example.com"));
        assert_eq!(
            parsed.languages,
            crate::model::Languages::new(vec![crate::model::Lang::EN, crate::model::Lang::ES])
                .unwrap()
        );
    }

    #[test]
    fn every_key_the_configuration_reference_documents_is_in_the_commented_file() {
        let reference = include_str!("../../docs/configuration.md");
        let section = reference
            .split("## Every key")
            .nth(1)
            .and_then(|rest| rest.split("```toml\n").nth(1))
            .and_then(|block| block.split("```").next())
            .expect(
                "docs/configuration.md documents watch.toml in a toml block under `## Every key`",
            );
        for line in section.lines() {
            let Some((key, _)) = line.split_once(" = ") else {
                continue;
            };
            let key = key.trim();
            assert!(
                WATCH_TOML.lines().any(|line| line
                    .trim_start_matches("# ")
                    .starts_with(&format!("{key} = "))),
                "init's watch.toml lacks `{key}`, which docs/configuration.md documents"
            );
        }
    }
}
