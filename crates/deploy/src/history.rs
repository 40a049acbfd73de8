//! The publishing history: every API path a recorded build published.
//!
//! A removed API path (a tag whose last post was deleted, a series removed) must answer
//! `410 Gone`, not `404`, so the site remembers what it published. The history is a salsa
//! input (`_redirects` and the server's 410s are the paths in it that are no longer outputs).
//!
//! It lives with the site, not with the output: a sorted, line-based text file beside
//! `watch.toml` (`content-api.history` unless `history_file` says otherwise), meant to be
//! committed like a lock file, so a CI build in a fresh clone (no output folder) still knows.
//! Only recorded builds (`--once` without `--drafts` or `--future`) add to it; watch sessions and previews
//! read it and never write it, so nothing that was never deployed answers 410.
//!
//! The file is untrusted input: every line must be an API path of the output grammar
//! ([`is_history_entry`]) before it can reach `_redirects` or any host file. A bad line is
//! reported with its file and line, ignored, and dropped when the file is next written.
//!
//! Bounded: at most [`MAX_HISTORY_ENTRIES`] paths, the committed file's and a live deploy
//! record's alike (see there why), or the build stops before it publishes. A path the site's
//! own output holds (a file of the site in the output folder, not the tool's) is never made
//! gone: [`HistoryFile::set_aside_site_files`] drops such an entry, naming it.
//!
//! Older versions kept the history in the output folder (`.content-api/published.json`). It is
//! read (and validated) too, and a recorded build moves it into the file once and removes it.

mod parse;

use crate::config::SiteConfig;
use crate::model::is_valid_slug;
use crate::output::HistoryPaths;
use crate::site_paths::relative;
use crate::write::check_output_path;
use crate::write::state_file::{Links, StateReadError, read_state, write_beside};
use camino::{Utf8Path, Utf8PathBuf};
use parse::{parse_legacy, parse_lines};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Where older versions kept the history, relative to the output folder.
pub const LEGACY_HISTORY_PATH: &str = ".content-api/published.json";

/// The first lines of every history file this tool writes.
const HEADER: &str = "\
# content-api publishing history: every API path a recorded build (--once) published.
# Paths listed here that the content no longer has answer 410 Gone. Commit this file;
# builds keep it sorted, one path a line (see README, \"Deploying from CI\").
";

/// The comment that names the site a history belongs to.
const SITE_LINE: &str = "# site: ";

/// What identifies a site to its history: its content folder (another content folder is another
/// site), the output folder it deploys from (a build elsewhere is a preview), and its base URL
/// (recorded; a new one is the same site moved). Folders are relative to the history file's
/// folder, so a clone elsewhere is the same site.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SiteIdentity {
    pub base_url: String,
    pub content: String,
    pub out: String,
}

impl SiteIdentity {
    /// The site `config` builds, as its history file sees it.
    pub fn of(config: &SiteConfig) -> SiteIdentity {
        let folder = match config.history_file.parent() {
            Some(folder) if !folder.as_str().is_empty() => folder,
            _ => Utf8Path::new("."),
        };
        SiteIdentity {
            base_url: config.base_url.clone(),
            content: relative(folder, &config.content_dir),
            out: relative(folder, &config.out_dir),
        }
    }

    fn line(&self) -> String {
        format!(
            "{SITE_LINE}{}\n",
            serde_json::to_string(self).expect("an identity serializes")
        )
    }

    fn parse(text: &str) -> Option<SiteIdentity> {
        text.lines()
            .take_while(|line| line.starts_with('#'))
            .find_map(|line| serde_json::from_str(line.strip_prefix(SITE_LINE)?).ok())
    }

    fn describe(&self) -> String {
        format!(
            "the site at {} built from {} into {}",
            self.base_url, self.content, self.out
        )
    }
}

/// Whose history a file is, for the build reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Belongs {
    /// This site's (or a file no build has claimed yet, beside this site's `watch.toml`: the
    /// next recording build claims it).
    ThisSite,
    /// This site's, built into another output folder: read (its 410s hold there too), never
    /// recorded into (that build is not the deploy).
    ThisSiteElsewhere,
    /// Another site's: neither read nor recorded into.
    AnotherSite,
    /// No build has claimed it (no `# site:` line: an older version wrote it), and this build
    /// is not the site whose `watch.toml` sits beside it, the only one that may: neither read
    /// nor recorded into.
    Unclaimed,
}

/// The API paths (relative to the output folder, e.g. `api/posts.json`) published so far.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct History {
    paths: BTreeSet<Arc<str>>,
}

use crate::http::is_api_path;

/// Whether `path` can be a history entry: an output path ([`check_output_path`], the rule of
/// every path a state file names) of the API's grammar, `api/`, then
/// slug folders, then a slug file name ending in `.json` or `.html`. This rules out spaces,
/// newlines, `..`, `*`, `:`, `!` and everything else a host file could interpret.
pub fn is_history_entry(path: &str) -> bool {
    if check_output_path(path).is_err() {
        return false;
    }
    let Some(rest) = path.strip_prefix("api/") else {
        return false;
    };
    let mut parts = rest.split('/').peekable();
    while let Some(part) = parts.next() {
        if parts.peek().is_some() {
            if !is_valid_slug(part) {
                return false;
            }
        } else {
            let stem = part
                .strip_suffix(".json")
                .or_else(|| part.strip_suffix(".html"));
            return stem.is_some_and(is_valid_slug);
        }
    }
    false
}

/// Why the history could not be read at all (a bad line is only a warning).
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The file exists but cannot be read.
    #[error(
        "cannot read the publishing history {path}: {source}\n  = help: fix its permissions, or set `history_file` in watch.toml to a readable path"
    )]
    Read {
        /// The history file.
        path: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The file is not text: not a history this tool wrote.
    #[error(
        "the publishing history {path} is not UTF-8 text\n  = help: it holds one API path a line (for example api/posts.json); restore it from git"
    )]
    NotText {
        /// The history file.
        path: Utf8PathBuf,
    },
    /// The file lists more paths than a history holds.
    #[error(
        "the publishing history {path} lists more than {MAX_HISTORY_ENTRIES} API paths, or is larger than {} MiB (the most a history holds: beyond it the host files that answer 410 pass what hosts accept); nothing was built\n  = help: a site's history holds one path per tag and series in each language; restore the file from git, or delete the lines of removed paths that no longer need a 410",
        MAX_HISTORY_BYTES >> 20
    )]
    TooMany {
        /// The history file.
        path: Utf8PathBuf,
    },
    /// This build would make the history hold more paths than it may.
    #[error(
        "this build would make the publishing history {path} hold {count} API paths, more than the {MAX_HISTORY_ENTRIES} a history holds ({from_record} of them only from the live site's deploy record); nothing was published\n  = help: if the live site's record lists paths this site never published, build without it (`live_record = \"off\"` under [hosting] in watch.toml) and deploy over it; otherwise delete from {path} the lines of removed paths that no longer need a 410"
    )]
    WouldHold {
        /// The history file.
        path: Utf8PathBuf,
        /// How many paths it would hold.
        count: usize,
        /// How many of them came from the live site's record alone.
        from_record: usize,
    },
    /// Recording a build's paths failed.
    #[error("cannot write the publishing history {path}: {source}")]
    Write {
        /// The history file.
        path: Utf8PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
}

/// The most API paths a history holds, the committed file's and a live deploy record's alike.
/// A site's history is one path per tag and per series in each language, plus a few documents
/// (the sample: 53; a large blog: a few thousand), so 20,000 leaves room to grow tenfold. The
/// bound is what a host can take: every entry may become a removed path, and
/// `_nginx_gone.conf` spends about 900 bytes on each (the gone body written in), so 20,000 of
/// them stay under Cloudflare Pages' 25 MiB per file (`pages_limits::PAGES_MAX_FILE`), which
/// also uploads that file; Netlify's `_redirects` and the edge layer's table are smaller still.
/// It also bounds a build's work on the history, which a hostile record could otherwise grow.
pub const MAX_HISTORY_ENTRIES: usize = 20_000;

/// The largest history read: [`MAX_HISTORY_ENTRIES`] lines of long paths, with room to spare.
const MAX_HISTORY_BYTES: u64 = 16 << 20;
/// The history as loaded: the file's entries plus a legacy history's, and what was wrong.
#[derive(Debug)]
pub struct HistoryFile {
    path: Utf8PathBuf,
    /// The bytes on disk (`None`: no file yet), to write only when they change.
    on_disk: Option<Vec<u8>>,
    /// The legacy history found in the output folder, if any (migrated by `record`).
    legacy: Option<Utf8PathBuf>,
    history: History,
    /// The entries only the live site's record gave (not the file's).
    from_record: BTreeSet<Arc<str>>,
    /// The site this build is, and whose history the file is.
    identity: SiteIdentity,
    belongs: Belongs,
    /// One message per ignored line, naming the file and the line.
    pub warnings: Vec<String>,
    /// Why a build would not record into the file, when it belongs to this site built into
    /// another folder: a one-shot build says so; a watch session, which never records, not.
    pub not_recorded: Option<String>,
}

impl HistoryFile {
    /// Reads the site's history file (absent: empty) and a legacy
    /// `.content-api/published.json` in its output folder. A history another site's builds
    /// recorded is not read (with a warning): its 410s are that site's.
    pub fn load(config: &SiteConfig) -> Result<HistoryFile, HistoryError> {
        let (path, out_dir) = (&config.history_file, &config.out_dir);
        let identity = SiteIdentity::of(config);
        let mut warnings = Vec::new();
        let mut paths = BTreeSet::new();
        let on_disk =
            read_state(path, MAX_HISTORY_BYTES, Links::Follow).map_err(|err| match err {
                StateReadError::TooLarge { .. } => HistoryError::TooMany {
                    path: path.to_owned(),
                },
                err => HistoryError::Read {
                    path: path.to_owned(),
                    source: std::io::Error::other(err.to_string()),
                },
            })?;
        let mut belongs = Belongs::ThisSite;
        let mut not_recorded = None;
        if let Some(bytes) = &on_disk {
            let text = std::str::from_utf8(bytes).map_err(|_| HistoryError::NotText {
                path: path.to_owned(),
            })?;
            // The content folder is the site; a new base URL is the same site moved.
            belongs = match SiteIdentity::parse(text) {
                None if adopts(path, text, &identity) => Belongs::ThisSite,
                None => {
                    warnings.push(format!(
                        "{path} names no site (an older version wrote it), and this build ({}) is not the site whose watch.toml sits beside it: it is neither read nor recorded into\n  = help: that site's next recorded build adopts it; if the file is this build's history, add this line at its top: {}",
                        identity.describe(),
                        identity.line().trim_end()
                    ));
                    Belongs::Unclaimed
                }
                Some(theirs)
                    if theirs.content == identity.content && theirs.out == identity.out =>
                {
                    Belongs::ThisSite
                }
                // `out_dir` changed in watch.toml (the site now deploys from another folder):
                // the history follows it. Only `--out` makes a build that reads and records
                // nothing.
                Some(theirs)
                    if theirs.content == identity.content && !config.out_dir_for_this_run =>
                {
                    tracing::info!(
                        "{path}: the site's output folder is now {} (out_dir in watch.toml), was {}: this build records its history",
                        identity.out,
                        theirs.out
                    );
                    Belongs::ThisSite
                }
                Some(theirs) if theirs.content == identity.content => {
                    not_recorded = Some(format!(
                        "{path} is the history of {}: this build, into {}, reads it and records nothing (only a build into {} records)\n  = help: to record this one, give it its own history with --history FILE",
                        theirs.describe(),
                        identity.out,
                        theirs.out
                    ));
                    Belongs::ThisSiteElsewhere
                }
                Some(theirs) => {
                    warnings.push(format!(
                        "{path} is the history of {}, not of this build ({}): it is neither read nor recorded into\n  = help: give this site its own history with --history FILE (or a watch.toml of its own)",
                        theirs.describe(),
                        identity.describe()
                    ));
                    Belongs::AnotherSite
                }
            };
            if matches!(belongs, Belongs::ThisSite | Belongs::ThisSiteElsewhere)
                && !parse_lines(path, text, &mut paths, &mut warnings)
            {
                return Err(HistoryError::TooMany {
                    path: path.to_owned(),
                });
            }
        }
        let legacy_path = out_dir.join(LEGACY_HISTORY_PATH);
        // Migrated (then removed) only once read whole: a legacy history that cannot be read
        // stays where it is, and the warning says so.
        let legacy = match read_state(&legacy_path, MAX_HISTORY_BYTES, Links::Refuse) {
            Ok(Some(bytes)) => {
                parse_legacy(&legacy_path, &bytes, &mut paths, &mut warnings).then_some(legacy_path)
            }
            Ok(None) => None,
            Err(err) => {
                warnings.push(format!(
                    "ignoring the legacy history: {err}; removed paths it listed answer 404, not 410\n  = help: it stays at {legacy_path}: make it a readable file (or copy its paths into {path}), then delete it"
                ));
                None
            }
        };
        if paths.len() > MAX_HISTORY_ENTRIES {
            return Err(HistoryError::TooMany {
                path: legacy.clone().unwrap_or_else(|| path.to_owned()),
            });
        }
        Ok(HistoryFile {
            path: path.to_owned(),
            on_disk,
            legacy,
            history: History { paths },
            from_record: BTreeSet::new(),
            identity,
            belongs,
            warnings,
            not_recorded,
        })
    }

    /// The history file, as given to [`HistoryFile::load`].
    pub fn path(&self) -> &Utf8Path {
        &self.path
    }

    /// Whether this build may record into the file (it is this site's, for this output folder).
    pub fn records(&self) -> bool {
        self.belongs == Belongs::ThisSite
    }

    /// The paths read (the file's and a legacy history's).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The history as the salsa input `Globals.history_paths` takes it.
    pub fn history_paths(&self) -> HistoryPaths {
        self.history.history_paths()
    }

    /// Whether a legacy history from the output folder is still waiting to be migrated.
    #[cfg(test)]
    fn has_legacy(&self) -> bool {
        self.legacy.is_some()
    }

    /// Adds the API paths of the live site's deploy record (each checked again here) to the
    /// history this build reads and records: a path an earlier deploy published answers 410
    /// once removed, even when the committed history never had it. Returns how many were new.
    pub fn absorb<'a>(&mut self, paths: impl IntoIterator<Item = &'a str>) -> usize {
        let before = self.history.paths.len();
        for path in paths.into_iter().filter(|path| is_history_entry(path)) {
            let path = Arc::from(path);
            if self.history.paths.insert(Arc::clone(&path)) {
                self.from_record.insert(path);
            }
        }
        self.history.paths.len() - before
    }

    /// The entries only the live site's record gave, sorted.
    pub fn from_record(&self) -> impl Iterator<Item = &str> {
        self.from_record.iter().map(|path| &**path)
    }

    /// Drops the entries that name a file the site itself holds in `out_dir` (a regular file
    /// there that `owned` says is not the tool's: the site serves it, so it is not gone), with
    /// a warning naming each. A live record that names a site's file (`api/contact.json`) would
    /// otherwise make every host answer 410 over it, for good: the history is recorded back
    /// without them, so the next deploy record does not carry them either. Returns how many.
    pub fn set_aside_site_files(
        &mut self,
        out_dir: &Utf8Path,
        owned: impl Fn(&str) -> bool,
    ) -> usize {
        let served: Vec<Arc<str>> = self
            .history
            .paths
            .iter()
            .filter(|path| !owned(path))
            .filter(|path| {
                std::fs::symlink_metadata(out_dir.join(&***path))
                    .is_ok_and(|meta| meta.file_type().is_file())
            })
            .cloned()
            .collect();
        for path in &served {
            self.history.paths.remove(path);
            let source = if self.from_record.remove(path) {
                "the live site's deploy record".to_string()
            } else {
                self.path.to_string()
            };
            self.warnings.push(format!(
                "{out_dir}/{path} is the site's own file, yet {source} lists /{path} as an API path this tool published: it is not made to answer 410 (that would hide the site's file on every host) and is dropped from the history\n  = help: nothing to do while the site serves it; to answer 410 there, remove the site's file"
            ));
        }
        served.len()
    }

    /// Whether the history, with the API paths among `outputs` added, stays within
    /// [`MAX_HISTORY_ENTRIES`]; checked before a recorded build publishes.
    pub fn check_bound<'a>(
        &self,
        outputs: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), HistoryError> {
        let count = self.history.with_outputs(outputs).paths.len();
        if count > MAX_HISTORY_ENTRIES {
            return Err(HistoryError::WouldHold {
                path: self.path.clone(),
                count,
                from_record: self.from_record.len(),
            });
        }
        Ok(())
    }

    /// Adds the API paths among `outputs` (what a recorded build just published), writes the
    /// file when its bytes change (atomically), and removes a migrated legacy history. Returns
    /// how many paths were added.
    pub fn record<'a>(
        &mut self,
        outputs: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize, HistoryError> {
        if self.belongs != Belongs::ThisSite {
            return Ok(0);
        }
        let before = self.history.paths.len();
        self.history = self.history.with_outputs(outputs);
        let bytes = self.history.to_bytes(&self.identity);
        if self.on_disk.as_deref() != Some(&bytes[..]) {
            write_beside(&self.path, &bytes).map_err(|source| HistoryError::Write {
                path: self.path.clone(),
                source,
            })?;
            self.on_disk = Some(bytes);
        }
        if let Some(legacy) = self.legacy.take() {
            // Its paths are in the file now; it was written by this tool, so it may go.
            match std::fs::remove_file(&legacy) {
                Ok(()) => {
                    tracing::info!("moved the publishing history {legacy} into {}", self.path)
                }
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(HistoryError::Write {
                        path: legacy,
                        source,
                    });
                }
            }
        }
        Ok(self.history.paths.len() - before)
    }
}

/// Whether this build may adopt `history`, a file no build has claimed (`text` its text): when
/// it is the site the `watch.toml` beside the file describes (the same content and output
/// folders), since the two are committed together; a build of other content, or into another
/// folder, run from there (`--content`, `--out`) is not. With no `watch.toml` beside it, only
/// while it lists no path: an empty file is how a site without one asks to be recorded.
fn adopts(history: &Utf8Path, text: &str, identity: &SiteIdentity) -> bool {
    let folder = match history.parent() {
        Some(folder) if !folder.as_str().is_empty() => folder,
        _ => Utf8Path::new("."),
    };
    match crate::watch_toml::load(&folder.join(CONFIG_FILE), false) {
        Ok(Some(read)) => {
            let mut declared = read.config;
            declared.history_file = history.to_owned();
            let theirs = SiteIdentity::of(&declared);
            theirs.content == identity.content && theirs.out == identity.out
        }
        Ok(None) => !text.lines().any(|line| {
            let line = line.trim_end_matches('\r');
            !line.is_empty() && !line.starts_with('#')
        }),
        Err(_) => false,
    }
}

/// The site's config file, in the folder a build runs from.
const CONFIG_FILE: &str = "watch.toml";

impl History {
    /// This history plus the API paths among `outputs`.
    pub fn with_outputs<'a>(&self, outputs: impl IntoIterator<Item = &'a str>) -> History {
        let mut paths = self.paths.clone();
        paths.extend(
            outputs
                .into_iter()
                .filter(|path| is_api_path(path) && is_history_entry(path))
                .map(Arc::from),
        );
        History { paths }
    }

    /// The API paths, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(|p| &**p)
    }

    /// The history as the salsa input `Globals.history_paths` takes it.
    pub fn history_paths(&self) -> HistoryPaths {
        self.paths.iter().cloned().collect()
    }

    /// Deterministic bytes: the header, then the sorted paths, one a line.
    pub fn to_bytes(&self, site: &SiteIdentity) -> Vec<u8> {
        let mut text = String::from(HEADER);
        text.push_str(&site.line());
        for path in &self.paths {
            text.push_str(path);
            text.push('\n');
        }
        text.into_bytes()
    }
}

#[cfg(test)]
mod tests;
