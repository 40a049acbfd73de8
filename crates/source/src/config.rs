//! `watch.toml`: the site's settings, with defaults for every key and located errors.
//!
//! The file is optional. Relative paths in it are resolved against the folder that holds it,
//! so a build behaves the same from any working directory. Command-line flags override it
//! (see `cli`).

mod licence;

pub use licence::KnownLicence;

use crate::diag::{Diagnostic, Location};
use camino::{Utf8Path, Utf8PathBuf};
use serde::Deserialize;
use std::sync::Arc;

/// The base URL used when none is configured: clearly local, never mistaken for production.
pub const DEFAULT_BASE_URL: &str = "http://localhost:4321";

/// Where the publishing history lives when `history_file` is not set, relative to the config
/// file's folder.
pub const DEFAULT_HISTORY_FILE: &str = "content-api.history";

/// Everything the build needs to know about the site, resolved and validated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SiteConfig {
    /// Absolute http(s) URL without a trailing slash.
    pub base_url: String,
    /// The content folder (resolved against the config file's folder).
    pub content_dir: Utf8PathBuf,
    /// The output folder (resolved against the config file's folder).
    pub out_dir: Utf8PathBuf,
    /// The publishing history (`history_file`, default `content-api.history` beside the config
    /// file): every API path a recorded build published, so removed ones answer 410. It lives
    /// with the site, not with the output, so a fresh clone has it.
    pub history_file: Utf8PathBuf,
    /// The site's IANA time zone: "today" is the date there.
    pub timezone: chrono_tz::Tz,
    /// The site's name, as the documents and the OpenAPI `info` show it.
    pub name: String,
    /// One sentence about the site.
    pub description: String,
    /// Who writes the content.
    pub author: String,
    /// The API's contact (OpenAPI `info.contact`).
    pub contact: Contact,
    /// The content's licence (OpenAPI `info.license`).
    pub licence: Licence,
    /// The API's semantic version (OpenAPI `info.version`).
    pub api_version: String,
    /// Watch-mode tuning.
    pub watch: WatchSettings,
    /// How the output meets the host and the site's own files.
    pub hosting: Hosting,
    /// How the front matter is checked.
    pub front_matter: FrontMatterRules,
}

/// How the front matter is checked (`[front_matter]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrontMatterRules {
    /// Keys the site's own pages read (`site_keys`): accepted without a word, in every file.
    pub site_keys: Vec<String>,
    /// Whether what is only suspicious (a key content-api does not know, a tag one keystroke
    /// from a known one) fails the build: set by `build` and `check` where `CI` is set, so a
    /// deploy never publishes a typo. Not a `watch.toml` key.
    pub strict: bool,
}

impl FrontMatterRules {
    /// Whether the site says `key` is its own.
    pub fn is_site_key(&self, key: &str) -> bool {
        self.site_keys.iter().any(|own| own == key)
    }
}

/// How the output meets the host and the site's own build output (`[hosting]`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hosting {
    /// The site's Cloudflare Pages Functions folder, when it has one (`pages_functions`,
    /// default `functions/` beside the config file). Pages ignores `functions/` when the output
    /// holds a `_worker.js`, so with Functions the edge layer is a module the site's Functions
    /// import through one generated route file instead.
    pub pages_functions: Option<Utf8PathBuf>,
    /// Write Netlify's `_redirects` rules (410 and 404 statuses, which Cloudflare Pages rejects).
    pub netlify: bool,
    /// Output paths, or folders ending in `/`, the build may replace although the site wrote
    /// them (`take_over`, or `--take-over`): a migration from the site's own API, on purpose.
    pub take_over: Vec<String>,
    /// The most bytes of posts one `llms-full.txt` file holds before the corpus is split into
    /// parts (20 MiB: under Cloudflare Pages' 25 MiB per file). Not a `watch.toml` key.
    pub llms_full_part_bytes: usize,
    /// Whether a `build` reads the live site's deploy record (`live_record`).
    pub live_record: LiveRecord,
    /// How many files the site's Cloudflare Pages plan deploys (`cloudflare_max_files`; 20,000
    /// on the Free plan; 0: do not check).
    pub cloudflare_max_files: u64,
}

/// Who to contact about the API.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Contact {
    /// A person or team.
    pub name: String,
    /// An address, if published.
    pub email: Option<String>,
    /// A page, if published.
    pub url: Option<String>,
}

/// The licence of the content the API serves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Licence {
    /// Its name, as `licence` spells it (`CC BY 4.0` by default).
    pub name: String,
    /// Its text: `licence_url`, or the canonical URL of the known licence `licence` names;
    /// `None` for a licence content-api does not know, given without `licence_url`.
    pub url: Option<String>,
    /// The known licence `licence` names (or, for a name it does not know, the one
    /// `licence_url` is the canonical URL of): what it asks of a reuser. `None`: unknown, and
    /// the documents claim nothing about its terms.
    pub known: Option<&'static KnownLicence>,
    /// `licence` and `licence_url` name two different known licences.
    pub url_names: Option<&'static KnownLicence>,
}

impl Licence {
    /// The licence `name` (with `url`, when `licence_url` is set).
    pub fn new(name: String, url: Option<String>) -> Licence {
        let by_name = licence::by_name(&name);
        let by_url = url.as_deref().and_then(licence::by_url);
        Licence {
            url: url.or_else(|| by_name.map(|known| known.url.to_string())),
            known: by_name.or(by_url),
            url_names: by_url.filter(|&url_licence| by_name.is_some_and(|n| n != url_licence)),
            name,
        }
    }

    /// Whether reuse must credit the author: only a known licence that asks for it.
    pub fn requires_attribution(&self) -> bool {
        self.known.is_some_and(|known| known.attribution)
    }
}

/// Watch-mode tuning (used by `watch` and `serve`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WatchSettings {
    /// How long the watcher waits for quiet before it hands over a batch of changes.
    pub debounce_ms: u64,
}

impl SiteConfig {
    /// The configuration used when there is no `watch.toml`, relative to `root`.
    pub fn defaults(root: &Utf8Path) -> SiteConfig {
        SiteConfig::from_file(FileConfig::default(), root).expect("defaults are valid")
    }

    /// `{base_url}{path}` for a site-absolute `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    fn from_file(file: FileConfig, root: &Utf8Path) -> Result<SiteConfig, (String, String)> {
        let site = file.site;
        let base_url = normalise_base_url(file.base_url.as_deref().unwrap_or(DEFAULT_BASE_URL))
            .map_err(|why| ("base_url".to_string(), why))?;
        let timezone: chrono_tz::Tz = file
            .timezone
            .as_deref()
            .unwrap_or("UTC")
            .parse()
            .map_err(|_| {
                (
                    "timezone".to_string(),
                    "unknown time zone; use an IANA name such as \"UTC\", \"Europe/Madrid\" or \"America/Bogota\"".to_string(),
                )
            })?;
        let api_version = file.api.version.unwrap_or_else(|| "1.0.0".into());
        if !is_semver(&api_version) {
            return Err((
                "version".into(),
                "the API version must be a semantic version such as \"1.0.0\"".into(),
            ));
        }
        Ok(SiteConfig {
            base_url,
            content_dir: root.join(file.content_dir.as_deref().unwrap_or("content")),
            out_dir: root.join(file.out_dir.as_deref().unwrap_or("out")),
            history_file: root.join(
                file.history_file
                    .as_deref()
                    .unwrap_or(DEFAULT_HISTORY_FILE),
            ),
            timezone,
            name: site.name.unwrap_or_else(|| "Content API".into()),
            description: site.description.unwrap_or_else(|| {
                "A public, read-only JSON API over the blog posts, series, tag timelines and slide decks of a bilingual site.".into()
            }),
            author: site.author.unwrap_or_else(|| "The site's author".into()),
            contact: Contact {
                name: site.contact_name.unwrap_or_else(|| "Site author".into()),
                email: site.contact_email,
                url: site.contact_url,
            },
            licence: Licence::new(
                site.licence.unwrap_or_else(|| "CC BY 4.0".into()),
                site.licence_url,
            ),
            api_version,
            watch: WatchSettings {
                debounce_ms: file.watch.debounce_ms.unwrap_or(30),
            },
            hosting: Hosting {
                pages_functions: Some(root.join(
                    file.hosting
                        .pages_functions
                        .as_deref()
                        .unwrap_or(DEFAULT_PAGES_FUNCTIONS),
                ))
                .filter(|dir| dir.is_dir()),
                netlify: file.hosting.netlify.unwrap_or(false),
                cloudflare_max_files: file.hosting.cloudflare_max_files.unwrap_or(20_000),
                live_record: match file.hosting.live_record.as_deref() {
                    None | Some("read") => LiveRecord::Read,
                    Some("optional") => LiveRecord::Optional,
                    Some("off") => LiveRecord::Off,
                    Some(other) => {
                        return Err((
                            "live_record".into(),
                            format!("`{other}` is not a choice: \"read\" (the default), \"optional\" or \"off\""),
                        ));
                    }
                },
                llms_full_part_bytes: 20 << 20,
                take_over: file
                    .hosting
                    .take_over
                    .into_iter()
                    .map(|claim| check_take_over(&claim).map(|()| claim))
                    .collect::<Result<_, _>>()
                    .map_err(|why| ("take_over".to_string(), why))?,
            },
            front_matter: FrontMatterRules {
                site_keys: file.front_matter.site_keys,
                strict: false,
            },
        })
    }
}

/// What `watch.toml` may contain. Unknown keys are errors: a misspelt key would otherwise be
/// silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    base_url: Option<String>,
    content_dir: Option<String>,
    out_dir: Option<String>,
    history_file: Option<String>,
    timezone: Option<String>,
    #[serde(default)]
    site: SiteSection,
    #[serde(default)]
    api: ApiSection,
    #[serde(default)]
    watch: WatchSection,
    #[serde(default)]
    hosting: HostingSection,
    #[serde(default)]
    front_matter: FrontMatterSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatterSection {
    #[serde(default)]
    site_keys: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostingSection {
    pages_functions: Option<String>,
    netlify: Option<bool>,
    cloudflare_max_files: Option<u64>,
    live_record: Option<String>,
    #[serde(default)]
    take_over: Vec<String>,
}

/// Whether a recorded `build` reads what the live site's last deploy published (its deploy
/// record under `base_url`), so that a build from a fresh clone, which keeps nothing from the
/// deploy before, still answers 410 for removed paths and purges only what changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LiveRecord {
    /// Read it when this build has no local record, or in CI; a site that cannot be reached is
    /// a warning, and an error where `CI` is set.
    Read,
    /// The same, but an unreachable site is only ever a warning.
    Optional,
    /// Never read it: the committed history and the local record only.
    Off,
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

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteSection {
    name: Option<String>,
    description: Option<String>,
    author: Option<String>,
    contact_name: Option<String>,
    contact_email: Option<String>,
    contact_url: Option<String>,
    licence: Option<String>,
    licence_url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApiSection {
    version: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchSection {
    debounce_ms: Option<u64>,
}

/// Loads the config file at `path`. `Ok(None)` when the file does not exist and `required` is
/// false (the default `watch.toml` is optional; one named with `--config` is not).
pub fn load(path: &Utf8Path, required: bool) -> Result<Option<SiteConfig>, Diagnostic> {
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
    parse(path.as_str(), &text, root).map(Some)
}

/// The config file's text: opened without blocking (a FIFO is an error, not a hang), a regular
/// file of at most 1 MiB.
fn read_config(path: &Utf8Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let mut text = String::new();
    file.take(1 << 20).read_to_string(&mut text)?;
    Ok(text)
}

/// Parses config text; `root` is the folder relative paths are resolved against.
pub fn parse(path: &str, text: &str, root: &Utf8Path) -> Result<SiteConfig, Diagnostic> {
    let file: FileConfig = toml::from_str(text).map_err(|err| {
        let mut diagnostic = Diagnostic::error(path, format!("invalid config: {}", err.message()))
            .help("see the commented example watch.toml in the README for every key");
        if let Some(span) = err.span() {
            diagnostic = diagnostic.at(Location::in_text(text, span));
        }
        diagnostic
    })?;
    SiteConfig::from_file(file, root).map_err(|(key, why)| {
        let at = find_key(text, &key);
        let mut diagnostic = Diagnostic::error(path, format!("invalid `{key}`: {why}"));
        if let Some(range) = at {
            diagnostic = diagnostic.at(Location::in_text(text, range));
        }
        diagnostic.help(format!("fix `{key}` in {path}"))
    })
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

/// A shared, immutable config, as the database stores it.
pub type SharedConfig = Arc<SiteConfig>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_gives_the_documented_defaults() {
        let config = parse("watch.toml", "", Utf8Path::new("site")).unwrap();
        assert_eq!(config.base_url, DEFAULT_BASE_URL);
        assert_eq!(config.content_dir, "site/content");
        assert_eq!(config.out_dir, "site/out");
        assert_eq!(config.history_file, "site/content-api.history");
        assert_eq!(config.timezone, chrono_tz::UTC);
        assert_eq!(config.api_version, "1.0.0");
    }

    #[test]
    fn base_url_loses_its_trailing_slash() {
        let config = parse(
            "w.toml",
            "base_url = \"https://example.com/\"\n",
            Utf8Path::new("."),
        )
        .unwrap();
        assert_eq!(
            config.url("/api/index.json"),
            "https://example.com/api/index.json"
        );
    }

    #[test]
    fn a_misspelt_key_is_an_error_at_its_line() {
        let err = parse(
            "w.toml",
            "base_url = \"https://a.b\"\ncontnt_dir = \"x\"\n",
            Utf8Path::new("."),
        )
        .unwrap_err();
        assert!(err.message.contains("contnt_dir"), "{}", err.message);
        assert_eq!(err.location.unwrap().line, 2);
    }

    #[test]
    fn a_known_licence_gets_its_own_url_and_terms() {
        let licence = |text: &str| parse("w.toml", text, Utf8Path::new(".")).unwrap().licence;
        let cc0 = licence("[site]\nlicence = \"CC0 1.0\"\n");
        assert_eq!(
            cc0.url.as_deref(),
            Some("https://creativecommons.org/publicdomain/zero/1.0/")
        );
        assert!(!cc0.requires_attribution() && cc0.url_names.is_none());
        let default = licence("");
        assert_eq!(default.name, "CC BY 4.0");
        assert!(default.requires_attribution());
        let unknown = licence("[site]\nlicence = \"All rights reserved\"\n");
        assert_eq!((unknown.url, unknown.known), (None, None));
        // An unknown name with a known URL takes that licence's terms; a known name with the
        // URL of another licence is flagged.
        let by_url = licence(
            "[site]\nlicence = \"Creative Commons BY\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n",
        );
        assert_eq!(by_url.known.map(|k| k.spdx), Some("CC-BY-4.0"));
        assert!(by_url.url_names.is_none());
        let mismatch = licence(
            "[site]\nlicence = \"CC0 1.0\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n",
        );
        assert_eq!(mismatch.known.map(|k| k.spdx), Some("CC0-1.0"));
        assert_eq!(mismatch.url_names.map(|k| k.spdx), Some("CC-BY-4.0"));
    }

    #[test]
    fn bad_values_name_the_key_and_the_fix() {
        let err = parse(
            "w.toml",
            "timezone = \"Mars/Olympus\"\n",
            Utf8Path::new("."),
        )
        .unwrap_err();
        assert!(err.message.contains("timezone"));
        assert!(err.message.contains("IANA"));
        let err = parse("w.toml", "base_url = \"ftp://x\"\n", Utf8Path::new(".")).unwrap_err();
        assert!(err.message.contains("https://"));
        let err = parse("w.toml", "[api]\nversion = \"v1\"\n", Utf8Path::new(".")).unwrap_err();
        assert_eq!(err.location.unwrap().line, 2);
    }
}
