//! The site's settings as values ([`SiteConfig`]): every key's default here, the reading of
//! `watch.toml` in `source::watch_toml`. `licence`: the licences content-api knows.

mod licence;

pub use licence::KnownLicence;

use crate::content::{ContentPath, FileRole, Layout};
use crate::model::Languages;
use camino::{Utf8Path, Utf8PathBuf};

/// The base URL used when none is configured: clearly local, never mistaken for production.
pub const DEFAULT_BASE_URL: &str = "http://localhost:4321";

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
    /// The site's languages and its default one (`languages`, `default_language`; the seed's
    /// `en` and `es` when unset).
    pub languages: Languages,
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
    /// Where the content lives below `content_dir` (`[layout]`; the seed's by default).
    pub layout: Layout,
    /// The output folder was given for this run only (`--out`, another folder than
    /// `out_dir`): such a build reads the publishing history and never records into it. Not a
    /// `watch.toml` key.
    pub out_dir_for_this_run: bool,
}

/// How the front matter is checked (`[front_matter]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrontMatterRules {
    /// Keys the site's own pages read (`site_keys`): accepted without a word, in every file.
    pub site_keys: Vec<String>,
    /// Which keys a post's fields are read from (`[front_matter.keys]`).
    pub keys: KeyAliases,
    /// Whether a post without a description gets its body's first paragraph as plain text
    /// (`description_from_body`, default false: a missing description is an error).
    pub description_from_body: bool,
    /// Whether tags (and categories) are read as written (`tags_as_written`, default false):
    /// any non-empty text, published under its slug ([`crate::model::slugify`]), the text as
    /// first written its display name. Off, a tag must already be a slug.
    pub tags_as_written: bool,
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

/// The post fields whose keys a site may name (`[front_matter.keys]`), and each one's default
/// keys (none: the field is not read unless the site names its keys).
pub const KEY_FIELDS: &[(&str, &[&str])] = &[
    ("title", &["title"]),
    ("description", &["description"]),
    ("date", &["pubDate"]),
    ("tags", &["tags"]),
    ("draft", &["draft"]),
    ("image", &["heroImage"]),
    ("slug", &[]),
    ("published", &[]),
    ("categories", &[]),
    ("series", &["series"]),
    ("series_order", &["seriesOrder"]),
    ("translation_key", &[]),
];

/// Which front-matter keys a post's fields are read from (`[front_matter.keys]`): for each
/// field of [`KEY_FIELDS`], its keys in order, the first one present in a file winning. The
/// default is each field's keys of the content format (`date` is `pubDate`). A dotted key
/// (`taxonomies.tags`) names a key of a nested table, unless the file has the dotted key itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyAliases {
    /// One list per field of [`KEY_FIELDS`], in its order.
    keys: Vec<Vec<String>>,
}

impl Default for KeyAliases {
    fn default() -> Self {
        KeyAliases {
            keys: KEY_FIELDS
                .iter()
                .map(|(_, keys)| keys.iter().map(|key| (*key).to_string()).collect())
                .collect(),
        }
    }
}

impl KeyAliases {
    /// Sets the keys of `field` (a name of [`KEY_FIELDS`]); `false` when there is no such
    /// field, or `keys` is empty for a required field (`title`, `description`, `date`: a
    /// missing one is reported under its first key), and nothing changes. An optional field
    /// with no keys is not read.
    pub fn set(&mut self, field: &str, keys: Vec<String>) -> bool {
        let required = matches!(field, "title" | "description" | "date");
        match KEY_FIELDS.iter().position(|(name, _)| *name == field) {
            Some(i) if !keys.is_empty() || !required => {
                self.keys[i] = keys;
                true
            }
            _ => false,
        }
    }

    /// The keys of `field`, in order (empty for a name not in [`KEY_FIELDS`]).
    pub fn of(&self, field: &str) -> &[String] {
        KEY_FIELDS
            .iter()
            .position(|(name, _)| *name == field)
            .map_or(&[], |i| &self.keys[i])
    }

    /// The key `field` is read from in a file: the first of its keys the file has (`has`),
    /// else the first of its keys (what a "missing field" error names).
    pub fn pick<'a>(&'a self, field: &'a str, has: impl Fn(&str) -> bool) -> &'a str {
        let keys = self.of(field);
        keys.iter()
            .find(|key| has(key))
            .or(keys.first())
            .map_or(field, String::as_str)
    }

    /// The first of `field`'s keys the file has (`has`), if any: an optional field.
    pub fn present<'a>(&'a self, field: &str, has: impl Fn(&str) -> bool) -> Option<&'a str> {
        self.of(field)
            .iter()
            .find(|key| has(key))
            .map(String::as_str)
    }

    /// Whether `key` is one of any field's keys, or the table a dotted one is in (`taxonomies`
    /// for `taxonomies.tags`).
    pub fn is_key(&self, key: &str) -> bool {
        self.keys
            .iter()
            .flatten()
            .any(|own| own == key || own.split_once('.').is_some_and(|(table, _)| table == key))
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
    /// Every setting's default for a site at `root`, without looking at the disk (so without
    /// its Pages Functions folder: `source::watch_toml::without_file` looks).
    pub fn defaults(root: &Utf8Path) -> SiteConfig {
        SiteConfig {
            base_url: DEFAULT_BASE_URL.into(),
            content_dir: root.join("content"),
            out_dir: root.join("out"),
            // `content-api.history` beside `watch.toml`: committed with the site.
            history_file: root.join("content-api.history"),
            timezone: chrono_tz::Tz::UTC,
            languages: Languages::seed(),
            name: "Content API".into(),
            description: SiteConfig::default_description(&Languages::seed()),
            author: "The site's author".into(),
            contact: Contact {
                name: "Site author".into(),
                email: None,
                url: None,
            },
            licence: Licence::new("CC BY 4.0".into(), None),
            api_version: "1.0.0".into(),
            watch: WatchSettings { debounce_ms: 30 },
            hosting: Hosting {
                pages_functions: None,
                netlify: false,
                cloudflare_max_files: 20_000,
                live_record: LiveRecord::Read,
                llms_full_part_bytes: 20 << 20,
                take_over: Vec::new(),
            },
            front_matter: FrontMatterRules::default(),
            layout: Layout::seed(),
            out_dir_for_this_run: false,
        }
    }

    /// What the file at `path` is on this site: its layout read with its languages.
    pub fn classify(&self, path: &ContentPath) -> FileRole {
        self.layout.classify(path, &self.languages)
    }

    /// The description of a site that gives none: says "bilingual" only of a site with two
    /// languages.
    pub fn default_description(languages: &Languages) -> String {
        let site = match languages.len() {
            1 => "a site",
            2 => "a bilingual site",
            _ => "a multilingual site",
        };
        format!(
            "A public, read-only JSON API over the blog posts, series, tag timelines and slide decks of {site}."
        )
    }

    /// `{base_url}{path}` for a site-absolute `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }
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
