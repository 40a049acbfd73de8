//! What `content-api init` finds in an existing site: the generator (Hugo, Zola, Jekyll, Astro,
//! Eleventy) from its own files, the content folder and the patterns its posts follow, its
//! languages and the front-matter keys its posts use, as a [`Detection`] that renders to a
//! `watch.toml` giving the reason for each choice.

mod config;
mod front_matter;
mod layout;
mod render;
#[cfg(test)]
mod tests;
mod value;

pub use render::{schema_line, summary, watch_toml};

use camino::Utf8Path;
use std::collections::BTreeSet;

/// The static site generators detection knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    Hugo,
    Zola,
    Jekyll,
    Astro,
    Eleventy,
}

impl Generator {
    /// Its name, as its users write it.
    pub fn name(self) -> &'static str {
        match self {
            Generator::Hugo => "Hugo",
            Generator::Zola => "Zola",
            Generator::Jekyll => "Jekyll",
            Generator::Astro => "Astro",
            Generator::Eleventy => "Eleventy",
        }
    }

    /// How the API gets published with this generator's pages: built into its output folder
    /// after it, as the guides (docs/guides/) and the deploy recipes do.
    fn publish_hint(self) -> &'static str {
        match self {
            Generator::Hugo => {
                "build it into Hugo's output after hugo: out_dir = \"public\", then `hugo && content-api build`"
            }
            Generator::Zola => {
                "build it into Zola's output after zola: out_dir = \"public\", then `zola build && content-api build`"
            }
            Generator::Astro => {
                "add the integration (`npx astro add @content-api/astro`), which writes it into dist/ at `astro build`, and set out_dir = \"dist\""
            }
            Generator::Jekyll => {
                "build it into Jekyll's output after jekyll: out_dir = \"_site\", then `jekyll build && content-api build`"
            }
            Generator::Eleventy => {
                "build it into Eleventy's output after it: out_dir = \"_site\", then `npx @11ty/eleventy && content-api build`"
            }
        }
    }
}

/// A choice and the reason for it, as the comment beside it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Why<T> {
    pub value: T,
    pub why: String,
}

/// A `[layout]` pattern and how many of the files found it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternUse {
    pub pattern: String,
    pub files: usize,
    /// Of those, files with a language suffix (`x.fr.md`).
    pub suffixed: usize,
}

/// The keys chosen for one field of `[front_matter.keys]`, most used first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyChoice {
    pub field: &'static str,
    pub keys: Vec<String>,
    pub why: String,
}

/// Everything detection decided about a site, each with its reason.
#[derive(Debug)]
pub struct Detection {
    /// `None`: Markdown content, but no generator's files.
    pub generator: Option<Why<Generator>>,
    /// Relative to the site's root, `/`-separated (`.` for the root itself).
    pub content_dir: Why<String>,
    /// The posts patterns, relative to the content folder, largest first.
    pub posts: Vec<PatternUse>,
    /// Why these folders hold the posts.
    pub posts_why: String,
    pub drafts: Vec<PatternUse>,
    /// Slide decks (content-api's own, in `slides/` or `decks/`), largest first.
    pub decks: Vec<PatternUse>,
    /// The tag and series folders under the content folder ("" for none).
    pub tags_dir: Why<String>,
    pub series_dir: Why<String>,
    /// Default first.
    pub languages: Why<Vec<String>>,
    pub base_url: Option<Why<String>>,
    pub site_name: Option<Why<String>>,
    pub keys: Vec<KeyChoice>,
    pub description_from_body: Why<bool>,
    pub tags_as_written: Why<bool>,
    /// Posts marked as drafts in their front matter.
    pub draft_posts: usize,
    /// What it could not decide, one sentence each.
    pub undecided: Vec<String>,
}

/// Folders never searched for content: generators' output and caches, dependencies, themes.
const SKIP: &[&str] = &[
    "node_modules",
    "public",
    "dist",
    "_site",
    "resources",
    "themes",
    "target",
    "out",
    "content-api-out",
    "vendor",
    "static",
    "assets",
];

/// The Markdown files under `dir`, relative to it and `/`-separated, sorted.
fn markdown_files(dir: &Utf8Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            !(entry.file_type().is_dir() && (name.starts_with('.') || SKIP.contains(&&*name)))
        })
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .ok()?
                .to_str()?
                .replace('\\', "/");
            let name = rel.rsplit('/').next()?;
            layout::markdown_stem(name).is_some().then_some(rel)
        })
        .collect();
    files.sort();
    files
}

/// Whether `dir` is an existing site: a generator's files, or Markdown files in a folder (a
/// README at the root does not count). Such a folder gets a `watch.toml` only.
pub fn is_site(dir: &Utf8Path) -> bool {
    config::read(dir).generator.is_some() || markdown_files(dir).iter().any(|f| f.contains('/'))
}

/// Detects the site at `root`. `None` when it is not a site (see [`is_site`]).
pub fn detect(root: &Utf8Path) -> Option<Detection> {
    let site = config::read(root);
    let mut undecided = site.undecided.clone();
    let content_dir = match site.content_dir.clone() {
        Some(dir) => dir,
        None if root.join("content").is_dir() => Why {
            value: "content".to_string(),
            why: "the folder named content".to_string(),
        },
        None => Why {
            value: ".".to_string(),
            why: "no content folder: the site's root".to_string(),
        },
    };
    let content = root.join(&content_dir.value);
    let mut files = markdown_files(&content);
    if content_dir.value == "." {
        // Root-level Markdown (README, LICENSE) is not content.
        files.retain(|f| f.contains('/'));
    }
    if site.generator.is_none() && files.is_empty() {
        return None;
    }
    let configured = site.languages.as_ref().map(|l| l.value.as_slice());
    let found = layout::infer(
        &files,
        &site.sections,
        site.drafts_dir.as_deref(),
        configured,
    );
    undecided.extend(found.undecided.iter().cloned());
    if found.posts.is_empty() {
        undecided.push(format!(
            "found no posts under {}: [layout] posts keeps its default",
            content_dir.value
        ));
    }
    let languages = languages(&site, &found, &mut undecided);
    let texts = found
        .post_files
        .iter()
        .chain(&found.draft_files)
        .filter_map(|f| Some((f.as_str(), std::fs::read_to_string(content.join(f)).ok()?)));
    let report = front_matter::scan(texts);
    undecided.extend(report.undecided.iter().cloned());
    let asian = ["zh", "ja", "ko"];
    if report.cjk_titles * 2 > report.read
        && !languages
            .value
            .iter()
            .any(|l| asian.iter().any(|a| l.starts_with(a)))
    {
        undecided.push(format!(
            "{} of {} posts have titles in Chinese, Japanese or Korean script, but languages says {}: check languages",
            report.cjk_titles,
            report.read,
            languages.value.join(", ")
        ));
    }
    let folder = |name: &str, what: &str| -> Why<String> {
        // Files directly in the folder, as content-api reads them: Hugo's term pages
        // (`tags/rust/_index.md`) are not tag files.
        let has = files.iter().any(|f| {
            f.strip_prefix(&format!("{name}/"))
                .is_some_and(|rest| !rest.contains('/') && !rest.starts_with(['_', '.']))
        });
        if has {
            Why {
                value: name.to_string(),
                why: format!("{what} files found in {}/{name}/", content_dir.value),
            }
        } else {
            Why {
                value: String::new(),
                why: format!("no {name}/ folder: only what the posts' front matter names"),
            }
        }
    };
    let base_url = site.base_url.filter(|url| {
        let absolute = url.value.starts_with("https://") || url.value.starts_with("http://");
        if !absolute {
            undecided.push(format!(
                "the configuration's base URL {:?} ({}) is not an absolute http(s) URL: base_url is left commented",
                url.value, url.why
            ));
        }
        absolute
    });
    let tags_dir = folder("tags", "tag definition");
    let series_dir = folder("series", "series");
    let posts_why = describe(&found, &content_dir.value);
    Some(Detection {
        generator: site.generator,
        content_dir,
        posts: found.posts,
        posts_why,
        drafts: found.drafts,
        decks: found.decks,
        tags_dir,
        series_dir,
        languages,
        base_url,
        site_name: site.title,
        keys: report.keys,
        description_from_body: report.description_from_body,
        tags_as_written: report.tags_as_written,
        draft_posts: report.drafts + found.draft_files.len(),
        undecided,
    })
}

/// "12 posts under content/posts as page bundles, with language suffixes".
fn describe(found: &layout::Layout, content_dir: &str) -> String {
    let count: usize = found.posts.iter().map(|p| p.files).sum();
    let under: Vec<String> = found
        .sections
        .iter()
        .map(|s| match (content_dir, s.as_str()) {
            (".", "") => "the site's root".to_string(),
            (".", s) => format!("{s}/"),
            (c, "") => format!("{c}/"),
            (c, s) => format!("{c}/{s}/"),
        })
        .collect();
    let mut shapes: Vec<&str> = Vec::new();
    let has = |needle: &str| found.posts.iter().any(|p| p.pattern.contains(needle));
    if has("/index") {
        shapes.push("page bundles");
    }
    if has("{date}") {
        shapes.push("dated file names");
    }
    if has("{lang}/") || found.posts.iter().any(|p| p.pattern.starts_with("{lang}")) {
        shapes.push("language folders");
    }
    if found.suffixes {
        shapes.push("language suffixes");
    }
    if has("{yyyy}") {
        shapes.push("date folders");
    }
    if has("*") {
        shapes.push("category folders");
    }
    let shape = if shapes.is_empty() {
        "one file each".to_string()
    } else {
        shapes.join(", ")
    };
    format!(
        "{count} post{} under {} ({}): {shape}",
        if count == 1 { "" } else { "s" },
        under.join(" and "),
        found.why
    )
}

/// The languages, default first: the configuration's, else those the files show, else the one
/// the configuration names, else English (said to be a guess).
fn languages(
    site: &config::GeneratorConfig,
    found: &layout::Layout,
    undecided: &mut Vec<String>,
) -> Why<Vec<String>> {
    if let Some(listed) = &site.languages {
        let unlisted: Vec<&String> = found
            .languages
            .iter()
            .filter(|l| !listed.value.iter().any(|c| c.eq_ignore_ascii_case(l)))
            .collect();
        if !unlisted.is_empty() {
            undecided.push(format!(
                "files use languages the configuration does not list: {}",
                unlisted
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return listed.clone();
    }
    let hint = site.language_hint.as_ref().map(|h| {
        // `en-US` and `en_US` name the language `en`; the region is not the site's choice here.
        let code = h.value.replace('_', "-");
        (
            code.split('-').next().unwrap_or(&code).to_lowercase(),
            h.why.clone(),
        )
    });
    if !found.languages.is_empty() {
        let mut codes: BTreeSet<String> = found.languages.clone();
        let (default, why) = match &hint {
            Some((code, why)) => (code.clone(), format!("{why} first")),
            None if found.suffixes && !codes.contains("en") => {
                undecided.push(
                    "files without a language suffix are in the default language, and nothing says which: took \"en\"; check languages".to_string(),
                );
                ("en".to_string(), "\"en\" first, a guess".to_string())
            }
            None if codes.contains("en") => ("en".to_string(), "\"en\" first".to_string()),
            None => {
                let first = codes.iter().next().cloned().unwrap_or_default();
                undecided.push(format!(
                    "nothing says which language is the default: took \"{first}\"; check languages"
                ));
                (first, "the first by name, a guess".to_string())
            }
        };
        codes.remove(&default);
        let mut list = vec![default];
        list.extend(codes);
        let how = if found.suffixes {
            "file-name suffixes"
        } else {
            "folder names"
        };
        return Why {
            value: list,
            why: format!("languages from {how}, {why}"),
        };
    }
    match hint {
        Some((code, why)) => Why {
            value: vec![code],
            why,
        },
        None => {
            undecided
                .push("nothing says the site's language: took \"en\"; check languages".to_string());
            Why {
                value: vec!["en".to_string()],
                why: "no language in the configuration or the file names: \"en\", a guess"
                    .to_string(),
            }
        }
    }
}
