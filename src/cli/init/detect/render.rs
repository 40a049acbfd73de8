//! A [`Detection`] as text: the `watch.toml` that `init` writes into an existing site (every
//! choice with a comment saying why, what was not decided left commented with its default),
//! and the summary it prints.

use super::front_matter::CANDIDATES;
use super::{Detection, PatternUse};
use std::fmt::Write;

/// Where the API goes in an existing site: a folder no generator reads or publishes.
pub const OUT_DIR: &str = "content-api-out";

/// The first line of a `watch.toml` that `init` writes: a `#:schema` comment naming the JSON
/// Schema of `watch.toml` in the project's repository (`docs/watch-toml.schema.json` on its
/// main branch), so that an editor with Taplo (Even Better TOML) completes and checks the
/// keys. A URL, since a path would resolve only inside a clone of the repository; empty when
/// the repository is not on GitHub (no stable URL of the raw file).
pub fn schema_line() -> String {
    env!("CARGO_PKG_REPOSITORY")
        .strip_prefix("https://github.com/")
        .map(|repo| {
            format!(
                "#:schema https://raw.githubusercontent.com/{}/main/docs/watch-toml.schema.json\n",
                repo.trim_end_matches('/')
            )
        })
        .unwrap_or_default()
}

/// A TOML string literal.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| quote(i)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A line `key = value`, its comment aligned after it.
fn line(out: &mut String, setting: &str, why: &str) {
    let width = 40usize.saturating_sub(setting.chars().count()).max(1);
    let _ = writeln!(out, "{setting}{:width$}# {why}", "");
}

fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

fn coverage(p: &PatternUse) -> String {
    if p.suffixed > 0 {
        format!("{}, {} with a language suffix", files(p.files), p.suffixed)
    } else {
        files(p.files)
    }
}

fn patterns(out: &mut String, key: &str, found: &[PatternUse], none: &str) {
    if found.is_empty() {
        line(out, &format!("{key} = []"), none);
        return;
    }
    let _ = writeln!(out, "{key} = [");
    for p in found {
        line(out, &format!("    {},", quote(&p.pattern)), &coverage(p));
    }
    let _ = writeln!(out, "]");
}

/// The defaults of `[front_matter.keys]` a site gets when it sets nothing (`KEY_FIELDS`).
fn default_keys(field: &str) -> String {
    let keys = crate::config::KEY_FIELDS
        .iter()
        .find(|(name, _)| *name == field)
        .map_or(&[][..], |(_, keys)| *keys);
    let quoted: Vec<String> = keys.iter().map(|key| format!("\"{key}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The `watch.toml` for the detected site.
pub fn watch_toml(d: &Detection) -> String {
    let mut out = schema_line();
    let generator = d.generator.as_ref().map(|g| g.value);
    let from = match &d.generator {
        Some(g) => format!("{} ({})", g.value.name(), g.why),
        None => "no generator's files; Markdown content".to_string(),
    };
    let _ = writeln!(
        out,
        "# content-api configuration, written by `content-api init` from this site's own files:\n\
         # {from}.\n\
         # Each key set below says why it was chosen; each key left commented shows its default.\n\
         # The README explains every key. Check the choices, then run `content-api check`."
    );
    if !d.undecided.is_empty() {
        let _ = writeln!(out, "#\n# What init could not decide:");
        for sentence in &d.undecided {
            let _ = writeln!(out, "# - {sentence}");
        }
    }
    out.push('\n');
    match &d.base_url {
        Some(url) => line(
            &mut out,
            &format!("base_url = {}", quote(&url.value)),
            &url.why,
        ),
        None => line(
            &mut out,
            "# base_url = \"https://example.com\"",
            "not in the site's configuration; default \"http://localhost:4321\"",
        ),
    }
    line(
        &mut out,
        &format!("content_dir = {}", quote(&d.content_dir.value)),
        &d.content_dir.why,
    );
    let name = generator.map_or("the site's generator", |g| g.name());
    let _ = writeln!(
        out,
        "# The API is written outside every folder {name} reads or publishes. To publish it with the site:"
    );
    match generator {
        Some(g) => {
            let _ = writeln!(out, "# {}.", g.publish_hint());
        }
        None => {
            let _ = writeln!(out, "# copy it into the folder your host serves.");
        }
    }
    let _ = writeln!(out, "out_dir = {}", quote(OUT_DIR));
    let _ = writeln!(out, "# history_file = \"content-api.history\"");
    let _ = writeln!(out, "# timezone = \"UTC\"");
    line(
        &mut out,
        &format!("languages = {}", list(&d.languages.value)),
        &d.languages.why,
    );

    let _ = writeln!(out, "\n[site]");
    match &d.site_name {
        Some(title) => line(
            &mut out,
            &format!("name = {}", quote(&title.value)),
            &title.why,
        ),
        None => line(
            &mut out,
            "# name = \"My Site\"",
            "no title in the site's configuration",
        ),
    }
    let _ = writeln!(
        out,
        "# Before publishing, set author and licence: a build without them uses placeholders.\n\
         # author = \"Your Name\"\n\
         # licence = \"CC BY 4.0\""
    );

    let _ = writeln!(out, "\n[layout]");
    let _ = writeln!(out, "# {}", d.posts_why);
    if d.posts.is_empty() {
        let _ = writeln!(
            out,
            "# posts = [\"blog/{{lang}}/{{date}}_{{slug}}\"]   # no posts found: the default"
        );
    } else {
        patterns(&mut out, "posts", &d.posts, "");
    }
    patterns(
        &mut out,
        "decks",
        &d.decks,
        "no slides/ or decks/ folder: content-api's slide decks are its own kind of file",
    );
    let drafts_none = if d.draft_posts > 0 {
        format!(
            "no drafts folder; {} post{} marked draft in front matter",
            d.draft_posts,
            if d.draft_posts == 1 { " is" } else { "s are" }
        )
    } else {
        "no drafts folder, and no post is marked draft".to_string()
    };
    patterns(&mut out, "drafts", &d.drafts, &drafts_none);
    line(
        &mut out,
        &format!("tags = {}", quote(&d.tags_dir.value)),
        &d.tags_dir.why,
    );
    line(
        &mut out,
        &format!("series = {}", quote(&d.series_dir.value)),
        &d.series_dir.why,
    );

    let _ = writeln!(out, "\n[front_matter]");
    line(
        &mut out,
        &format!("description_from_body = {}", d.description_from_body.value),
        &d.description_from_body.why,
    );
    line(
        &mut out,
        &format!("tags_as_written = {}", d.tags_as_written.value),
        &d.tags_as_written.why,
    );

    let _ = writeln!(out, "\n[front_matter.keys]");
    let _ = writeln!(
        out,
        "# The keys each field is read from; in each file the first present wins."
    );
    for (field, candidates) in CANDIDATES {
        match d.keys.iter().find(|k| k.field == *field) {
            Some(choice) => line(
                &mut out,
                &format!("{field} = {}", list(&choice.keys)),
                &choice.why,
            ),
            None => line(
                &mut out,
                &format!("# {field} = {}", default_keys(field)),
                &format!("no post uses {}", candidates.join(", ")),
            ),
        }
    }
    out
}

/// What `init` prints about the site it found, one line each.
pub fn summary(d: &Detection) -> Vec<String> {
    let mut lines = Vec::new();
    match &d.generator {
        Some(g) => lines.push(format!("generator: {} ({})", g.value.name(), g.why)),
        None => lines.push("generator: none found (Markdown content only)".to_string()),
    }
    lines.push(format!(
        "content folder: {} ({})",
        d.content_dir.value, d.content_dir.why
    ));
    lines.push(format!("posts: {}", d.posts_why));
    for p in &d.posts {
        lines.push(format!("  {}  {}", p.pattern, coverage(p)));
    }
    for p in &d.decks {
        lines.push(format!("decks: {}  {}", p.pattern, coverage(p)));
    }
    for p in &d.drafts {
        lines.push(format!("drafts folder: {}  {}", p.pattern, coverage(p)));
    }
    lines.push(format!(
        "drafts: {} (drafts folder files, and posts marked draft in front matter)",
        d.draft_posts
    ));
    lines.push(format!(
        "languages: {} ({})",
        d.languages.value.join(", "),
        d.languages.why
    ));
    let keys: Vec<String> = d
        .keys
        .iter()
        .map(|k| format!("{} = {}", k.field, k.keys.join("|")))
        .collect();
    lines.push(format!("front matter keys: {}", keys.join("; ")));
    lines.push(format!(
        "description from body: {} ({})",
        d.description_from_body.value, d.description_from_body.why
    ));
    lines.push(format!(
        "tags as written: {} ({})",
        d.tags_as_written.value, d.tags_as_written.why
    ));
    if let Some(url) = &d.base_url {
        lines.push(format!("base_url: {} ({})", url.value, url.why));
    }
    for sentence in &d.undecided {
        lines.push(format!("could not decide: {sentence}"));
    }
    lines
}
