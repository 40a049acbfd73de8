//! Reading `watch.toml` into the site's settings (`model::config::SiteConfig`), with located
//! errors.
//!
//! The file is optional. Relative paths in it are resolved against the folder that holds it,
//! so a build behaves the same from any working directory. Command-line flags override it
//! (see `cli`).

use crate::config::{Licence, LiveRecord, SiteConfig};
use crate::content::{Layout, Pattern};
use crate::diag::{Diagnostic, Location};
use crate::model::{Lang, Languages};
use camino::Utf8Path;
use schemars::JsonSchema;
use serde::Deserialize;

/// The settings of a site with no `watch.toml`, at `root`: every default, and its Pages
/// Functions folder when `root` has one.
pub fn without_file(root: &Utf8Path) -> SiteConfig {
    from_file(FileConfig::default(), root).expect("defaults are valid")
}

/// `file`'s values over the defaults; `Err((key, why))` for a value that is not valid.
fn from_file(file: FileConfig, root: &Utf8Path) -> Result<SiteConfig, (String, String)> {
    let mut config = SiteConfig::defaults(root);
    let site = file.site;
    if let Some(base_url) = file.base_url.as_deref() {
        config.base_url =
            normalise_base_url(base_url).map_err(|why| ("base_url".to_string(), why))?;
    }
    if let Some(timezone) = file.timezone.as_deref() {
        config.timezone = timezone.parse().map_err(|_| {
            (
                "timezone".to_string(),
                "unknown time zone; use an IANA name such as \"UTC\", \"Europe/Madrid\" or \"America/Bogota\"".to_string(),
            )
        })?;
    }
    if let Some(tags) = file.languages {
        config.languages = languages(tags)?;
        config.description = SiteConfig::default_description(&config.languages);
    }
    if let Some(version) = file.api.version {
        if !is_semver(&version) {
            return Err((
                "version".into(),
                "the API version must be a semantic version such as \"1.0.0\"".into(),
            ));
        }
        config.api_version = version;
    }
    if let Some(dir) = file.content_dir.as_deref() {
        config.content_dir = root.join(dir);
    }
    if let Some(dir) = file.out_dir.as_deref() {
        config.out_dir = root.join(dir);
    }
    if let Some(file) = file.history_file.as_deref() {
        config.history_file = root.join(file);
    }
    if let Some(name) = site.name {
        config.name = name;
    }
    if let Some(description) = site.description {
        config.description = description;
    }
    if let Some(author) = site.author {
        config.author = author;
    }
    if let Some(name) = site.contact_name {
        config.contact.name = name;
    }
    config.contact.email = site.contact_email;
    config.contact.url = site.contact_url;
    if site.licence.is_some() || site.licence_url.is_some() {
        config.licence = Licence::new(
            site.licence.unwrap_or(config.licence.name),
            site.licence_url,
        );
    }
    if let Some(debounce_ms) = file.watch.debounce_ms {
        config.watch.debounce_ms = debounce_ms;
    }
    let hosting = &mut config.hosting;
    hosting.pages_functions = Some(
        root.join(
            file.hosting
                .pages_functions
                .as_deref()
                .unwrap_or(DEFAULT_PAGES_FUNCTIONS),
        ),
    )
    .filter(|dir| dir.is_dir());
    if let Some(netlify) = file.hosting.netlify {
        hosting.netlify = netlify;
    }
    if let Some(max) = file.hosting.cloudflare_max_files {
        hosting.cloudflare_max_files = max;
    }
    hosting.live_record = match file.hosting.live_record.as_deref() {
        None | Some("read") => LiveRecord::Read,
        Some("optional") => LiveRecord::Optional,
        Some("off") => LiveRecord::Off,
        Some(other) => {
            return Err((
                "live_record".into(),
                format!(
                    "`{other}` is not a choice: \"read\" (the default), \"optional\" or \"off\""
                ),
            ));
        }
    };
    hosting.take_over = file
        .hosting
        .take_over
        .into_iter()
        .map(|claim| check_take_over(&claim).map(|()| claim))
        .collect::<Result<_, _>>()
        .map_err(|why| ("take_over".to_string(), why))?;
    config.front_matter.site_keys = file.front_matter.site_keys;
    config.front_matter.description_from_body =
        file.front_matter.description_from_body.unwrap_or(false);
    config.front_matter.tags_as_written = file.front_matter.tags_as_written.unwrap_or(false);
    let keys = file.front_matter.keys;
    for (field, list) in [
        ("title", keys.title),
        ("description", keys.description),
        ("date", keys.date),
        ("tags", keys.tags),
        ("draft", keys.draft),
        ("image", keys.image),
        ("slug", keys.slug),
        ("published", keys.published),
        ("categories", keys.categories),
        ("series", keys.series),
        ("series_order", keys.series_order),
        ("translation_key", keys.translation_key),
    ] {
        let Some(list) = list else { continue };
        if list.iter().any(|key| key.trim().is_empty())
            || !config.front_matter.keys.set(field, list)
        {
            return Err((
                field.to_string(),
                "list keys, none of them empty (at least one for title, description and date): the first present in a file wins"
                    .into(),
            ));
        }
    }
    config.layout = site_layout(file.layout)?;
    Ok(config)
}

/// `[layout]` as the site's [`Layout`]; the error names the key and the pattern.
fn site_layout(section: LayoutSection) -> Result<Layout, (String, String)> {
    let patterns = |key: &str, texts: Vec<String>| {
        texts
            .iter()
            .map(|text| {
                Pattern::parse(text).map_err(|why| (key.to_string(), format!("`{text}`: {why}")))
            })
            .collect::<Result<Vec<_>, _>>()
    };
    let seed = Layout::seed();
    let texts = |list: &[Pattern]| list.iter().map(|p| p.as_str().to_string()).collect();
    let posts = section.posts.unwrap_or_else(|| texts(seed.posts()));
    if posts.is_empty() {
        return Err((
            "posts".into(),
            "list where the posts are, such as [\"posts/{slug}\"]".into(),
        ));
    }
    let folder = |key: &str, text: &str| -> Result<Option<String>, (String, String)> {
        let text = text.trim_matches('/');
        if text.is_empty() {
            return Ok(None);
        }
        if text
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
            || text.contains('\\')
        {
            return Err((
                key.into(),
                format!("`{text}` is not a folder below the content folder"),
            ));
        }
        Ok(Some(text.to_string()))
    };
    let tags = section
        .tags
        .unwrap_or_else(|| seed.tags().unwrap_or_default().into());
    let series = section
        .series
        .unwrap_or_else(|| seed.series().unwrap_or_default().into());
    Ok(Layout::new(
        patterns("posts", posts)?,
        patterns(
            "decks",
            section.decks.unwrap_or_else(|| texts(seed.decks())),
        )?,
        patterns("drafts", section.drafts.unwrap_or_default())?,
        folder("tags", &tags)?.as_deref(),
        folder("series", &series)?.as_deref(),
    ))
}

/// `languages` as the site's [`Languages`]: every tag well-formed and named once, the first the
/// default.
fn languages(tags: Vec<String>) -> Result<Languages, (String, String)> {
    let mut all = Vec::with_capacity(tags.len());
    for tag in &tags {
        let lang = Lang::parse(tag).ok_or_else(|| {
            (
                "languages".to_string(),
                format!("`{tag}` is not a language tag; use BCP 47 tags such as \"en\", \"fr\", \"pt-BR\" or \"zh-CN\""),
            )
        })?;
        if all.contains(&lang) {
            return Err(("languages".into(), format!("`{tag}` is listed twice")));
        }
        all.push(lang);
    }
    Languages::new(all).ok_or_else(|| {
        (
            "languages".into(),
            "a site has at least one language, such as `languages = [\"en\"]`".into(),
        )
    })
}

/// What `watch.toml` may contain. Unknown keys are errors: a misspelt key would otherwise be
/// silently ignored. The doc comments are the descriptions of its JSON Schema ([`schema`]).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "watch.toml",
    description = "The configuration of a content-api site. Every key is optional and has a default; relative paths are resolved against the folder that holds the file; unknown keys are errors. Command-line flags override it."
)]
struct FileConfig {
    /// The absolute http(s) URL the site is published at, without a query or fragment; every
    /// URL of the API is built from it. Default "http://localhost:4321" (clearly local).
    base_url: Option<String>,
    /// The folder the Markdown content is read from. Default "content".
    content_dir: Option<String>,
    /// The folder the API is written to. Default "out".
    out_dir: Option<String>,
    /// The publishing history: every API path a recorded build published, so that a removed
    /// one answers 410 Gone; commit it with the site. Default "content-api.history".
    history_file: Option<String>,
    /// The site's time zone, an IANA name ("Europe/Madrid"): "today", for scheduled posts, is
    /// the date there. Default "UTC".
    timezone: Option<String>,
    /// The site's languages as BCP 47 tags, each once; the first is the default language (its
    /// pages at the site's root). Default ["en", "es"].
    #[schemars(length(min = 1))]
    languages: Option<Vec<String>>,
    /// What the generated documents say of the site.
    #[serde(default)]
    site: SiteSection,
    /// The API's own settings.
    #[serde(default)]
    api: ApiSection,
    /// Watch mode (`content-api watch` and `serve`).
    #[serde(default)]
    watch: WatchSection,
    /// How the output meets the host and the site's own build output.
    #[serde(default)]
    hosting: HostingSection,
    /// How posts' front matter is read.
    #[serde(default)]
    front_matter: FrontMatterSection,
    /// Where content lives below `content_dir`, as path patterns without the extension;
    /// `content-api init` writes a site's own.
    #[serde(default)]
    layout: LayoutSection,
}

/// `[layout]`: where the site keeps its content; each key absent is the seed's.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct LayoutSection {
    /// The patterns of post files, tried in order ({lang}, {date}, {yyyy}/{mm}/{dd}, {slug}, *
    /// and **, as docs/content-format.md explains), at least one. Default
    /// ["blog/{lang}/{date}_{slug}"].
    #[schemars(length(min = 1))]
    posts: Option<Vec<String>>,
    /// The patterns of slide-deck files; [] for none. Default ["slides/{lang}/{date}_{slug}"].
    decks: Option<Vec<String>>,
    /// Patterns whose posts are drafts by their place, such as ["_drafts/{slug}"]. Default [].
    drafts: Option<Vec<String>>,
    /// The folder of tag files; "" for none. Default "tags".
    tags: Option<String>,
    /// The folder of series files; "" for none. Default "series".
    series: Option<String>,
}

/// `[front_matter]`: which keys of the front matter are read, and how.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FrontMatterSection {
    /// Front-matter keys the site's own pages read: never reported as unknown. Default [].
    #[serde(default)]
    site_keys: Vec<String>,
    /// The keys each field of a post is read from.
    #[serde(default)]
    keys: KeysSection,
    /// Whether a post without a description gets its first paragraph (a note says so).
    /// Default false.
    description_from_body: Option<bool>,
    /// Whether tags are any text, published under their slugs (`Web App` as web-app).
    /// Default false.
    tags_as_written: Option<bool>,
}

/// `[front_matter.keys]`: one optional list per field of `KEY_FIELDS` (an unknown field name is
/// an error at its line, from `deny_unknown_fields`). In each file the first key present wins;
/// a dotted key (`taxonomies.tags`) reads a nested table.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct KeysSection {
    /// The keys of a post's title, at least one. Default ["title"].
    #[schemars(length(min = 1))]
    title: Option<Vec<String>>,
    /// The keys of a post's description, at least one. Default ["description"].
    #[schemars(length(min = 1))]
    description: Option<Vec<String>>,
    /// The keys of a post's date, at least one. Default ["pubDate"].
    #[schemars(length(min = 1))]
    date: Option<Vec<String>>,
    /// The keys of a post's tags. Default ["tags"].
    tags: Option<Vec<String>>,
    /// The keys of a post's draft flag. Default ["draft"].
    draft: Option<Vec<String>>,
    /// The keys of a post's hero image. Default ["heroImage"].
    image: Option<Vec<String>>,
    /// The keys of a slug that replaces the file's, such as ["slug"]. Default [] (none).
    slug: Option<Vec<String>>,
    /// The keys of a published flag (`published: false` is a draft). Default [] (none).
    published: Option<Vec<String>>,
    /// The keys of categories, read as more tags after the tags. Default [] (none).
    categories: Option<Vec<String>>,
    /// The keys of a post's series. Default ["series"].
    series: Option<Vec<String>>,
    /// The keys of a post's place in its series. Default ["seriesOrder"].
    series_order: Option<Vec<String>>,
    /// The keys that link a post's translations (Hugo's translationKey): a translation takes the default language's slug. Default [] (none).
    translation_key: Option<Vec<String>>,
}

/// `[hosting]`: how the output meets the host and the site's own build output.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HostingSection {
    /// The site's Cloudflare Pages Functions folder, used when it exists. Default "functions".
    pages_functions: Option<String>,
    /// Whether to also write Netlify's `_redirects` (410 and 404 rules). Default false.
    netlify: Option<bool>,
    /// The Cloudflare Pages plan's file limit, for the warning; 0 for no check. Default 20000.
    cloudflare_max_files: Option<u64>,
    /// Whether a recorded build reads the last deploy's record from base_url: "read" (a site
    /// that cannot be reached is a warning, an error in CI), "optional" (only ever a warning)
    /// or "off" (never read). Default "read".
    #[schemars(extend("enum" = ["read", "optional", "off"]))]
    live_record: Option<String>,
    /// Output paths the build may replace on purpose (folders end in "/"), relative to the
    /// output folder. Default [].
    #[serde(default)]
    take_over: Vec<String>,
}

/// Where a site's Cloudflare Pages Functions are, relative to the config file's folder (the
/// folder `wrangler` runs in).
pub const DEFAULT_PAGES_FUNCTIONS: &str = "functions";

/// A `take_over` entry is an output path or folder (`api/`), relative, without `..`.
pub fn check_take_over(claim: &str) -> Result<(), String> {
    let ok = !claim.is_empty()
        && !claim.starts_with('/')
        && claim
            .trim_end_matches('/')
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{claim}` is not a path in the output folder: write it relative to the folder, like \"api/\" (a folder) or \"openapi.json\" (a file)"
        ))
    }
}

/// `[site]`: what the generated documents (llms.txt, the developer portal, the catalogs) say of
/// the site.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SiteSection {
    /// The site's name. Default "Content API" (a placeholder).
    name: Option<String>,
    /// What the site is about, in one sentence. Default a sentence about the API of a site in
    /// the site's languages.
    description: Option<String>,
    /// The content's author. Default "The site's author" (a placeholder).
    author: Option<String>,
    /// Who to contact about the API. Default "Site author".
    contact_name: Option<String>,
    /// The contact's email address. Optional, no default.
    contact_email: Option<String>,
    /// The contact's page. Optional, no default.
    contact_url: Option<String>,
    /// The content's licence: an SPDX identifier or its usual name (CC-BY-4.0, "CC BY-SA 4.0",
    /// CC0-1.0, MIT, Apache-2.0...). Default "CC BY 4.0".
    licence: Option<String>,
    /// The licence's URL: needed only for a licence content-api does not know. Default the
    /// known licence's own.
    licence_url: Option<String>,
}

/// `[api]`: the API's own settings.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ApiSection {
    /// The API's semantic version, reported by /api/index.json and openapi.json. Default
    /// "1.0.0".
    #[schemars(regex(pattern = r"^[0-9]+\.[0-9]+\.[0-9]+([-+].*)?$"))]
    version: Option<String>,
}

/// `[watch]`: watch mode's settings.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WatchSection {
    /// Quiet time after the last file event before a rebuild, in milliseconds. Default 30.
    debounce_ms: Option<u64>,
}

/// The JSON Schema of `watch.toml` (draft 2020-12), generated from the types the parser reads
/// it with, so it cannot drift from them: pretty-printed, with a final newline. What
/// `content-api schema watch-toml` prints and `docs/watch-toml.schema.json` holds.
pub fn schema() -> String {
    // TOML has no null: an absent key is the default, so no key may be null. A description is
    // one paragraph: its doc comment's line breaks are spaces.
    let for_toml = schemars::transform::RecursiveTransform(|schema: &mut schemars::Schema| {
        if let Some(types) = schema.get_mut("type").and_then(|t| t.as_array_mut()) {
            types.retain(|t| t != "null");
            if let [only] = types.as_slice() {
                let only = only.clone();
                schema.insert("type".into(), only);
            }
        }
        if let Some(text) = schema.get("description").and_then(|d| d.as_str()) {
            let text = text.replace('\n', " ");
            schema.insert("description".into(), text.into());
        }
    });
    // Every section inline, without `$ref`: the simplest schema for an editor to follow.
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .with_transform(for_toml)
        .into_generator();
    let schema = generator.into_root_schema_for::<FileConfig>();
    format!("{:#}\n", schema.as_value())
}

/// `watch.toml`, read once: the site's settings, and which keys whose defaults are
/// placeholders the file sets.
#[derive(Debug, Clone)]
pub struct WatchToml {
    /// The file's values over the defaults.
    pub config: SiteConfig,
    /// The placeholder-prone keys the file sets.
    pub sets: PlaceholderKeys,
}

/// Which keys whose defaults are placeholders (not to be published) a `watch.toml` sets. Read
/// from the file itself: the resolved settings cannot tell a default from a value that happens
/// to equal it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PlaceholderKeys {
    /// `base_url`.
    pub base_url: bool,
    /// `author` under `[site]`.
    pub author: bool,
    /// `licence` under `[site]`.
    pub licence: bool,
}

/// Loads the config file at `path`. `Ok(None)` when the file does not exist and `required` is
/// false (the default `watch.toml` is optional; one named with `--config` is not).
pub fn load(path: &Utf8Path, required: bool) -> Result<Option<WatchToml>, Diagnostic> {
    let text = match read_config(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(err) => {
            return Err(Diagnostic::error(
                path.as_str(),
                format!("cannot read the config file: {err}"),
            )
            .help("check the path given with --config"));
        }
    };
    let root = path.parent().unwrap_or(Utf8Path::new("."));
    let root = if root.as_str().is_empty() {
        Utf8Path::new(".")
    } else {
        root
    };
    read(path.as_str(), &text, root).map(Some)
}

/// The config file's text: opened without blocking (a FIFO is an error, not a hang), a regular
/// file of at most 1 MiB.
fn read_config(path: &Utf8Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = crate::at::read_options().open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let mut text = String::new();
    file.take(1 << 20).read_to_string(&mut text)?;
    Ok(text)
}

/// Parses config text; `root` is the folder relative paths are resolved against.
pub fn parse(path: &str, text: &str, root: &Utf8Path) -> Result<SiteConfig, Diagnostic> {
    read(path, text, root).map(|read| read.config)
}

/// [`parse`], with the placeholder-prone keys the text sets.
fn read(path: &str, text: &str, root: &Utf8Path) -> Result<WatchToml, Diagnostic> {
    let file: FileConfig = toml::from_str(text).map_err(|err| {
        let mut diagnostic = Diagnostic::error(path, format!("invalid config: {}", err.message()))
            .help("see the commented example watch.toml in the README for every key");
        if let Some(span) = err.span() {
            diagnostic = diagnostic.at(Location::in_text(text, span));
        }
        diagnostic
    })?;
    let sets = PlaceholderKeys {
        base_url: file.base_url.is_some(),
        author: file.site.author.is_some(),
        licence: file.site.licence.is_some(),
    };
    let config = from_file(file, root).map_err(|(key, why)| {
        let at = find_key(text, &key);
        let mut diagnostic = Diagnostic::error(path, format!("invalid `{key}`: {why}"));
        if let Some(range) = at {
            diagnostic = diagnostic.at(Location::in_text(text, range));
        }
        diagnostic.help(format!("fix `{key}` in {path}"))
    })?;
    Ok(WatchToml { config, sets })
}

fn find_key(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with(key) {
            let start = offset + (line.len() - line.trim_start().len());
            return Some(start..offset + line.trim_end().len());
        }
        offset += line.len();
    }
    None
}

/// Checks that `raw` is an absolute http(s) URL with no query or fragment, and drops a trailing
/// slash so that `url("/api/x")` never doubles it.
pub fn normalise_base_url(raw: &str) -> Result<String, String> {
    let parsed = url::Url::parse(raw).map_err(|err| {
        format!("`{raw}` is not a URL ({err}); write it like \"https://example.com\"")
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{raw}` must start with https:// or http://"));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(format!("`{raw}` must not have a query (?) or fragment (#)"));
    }
    Ok(raw.trim_end_matches('/').to_string())
}

fn is_semver(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests;
