//! The live site as the memory of a `build` that keeps nothing between deploys: before a
//! recorded build with no local record of the last deploy (a fresh clone), or in CI, the deploy
//! record the last deploy published under `base_url` is read, so removed API paths keep
//! answering 410 and the purge list names only what changed. Every recorded build publishes its
//! own record (`deploy::DeployRecord`) for the next one. A record listing more files than a
//! deploy of this site holds (`deploy::record_file_bound`: `cloudflare_max_files`, or 200,000
//! when that is 0) is refused like any unusable record: a warning, an error under CI with
//! `live_record = "read"`, so a hostile record cannot make the purge list enormous.

use super::{BuildError, Reporter, Request};
use crate::config::{LiveRecord, SiteConfig};
use crate::deploy::{
    DEPLOY_RECORD_PATH, DeployRecord, LastBuild, MAX_DEPLOY_RECORD_BYTES, ReadRecord,
    is_history_entry, record_file_bound, state_dir,
};
use std::time::Duration;

/// The live site, as a build reads it. The caller supplies the HTTP client: this crate links
/// none (the build side has no network stack).
pub trait LiveSite {
    /// GETs `url` within `limit`, reading at most `max_bytes`; `Err` says, in words an owner
    /// can act on, why no answer could be had.
    fn fetch(&self, url: &str, limit: Duration, max_bytes: u64) -> Result<Fetched, String>;
}

/// What the live site answered for a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// `200`, with the body.
    Found(Vec<u8>),
    /// `404` or `410`: the site has no such document.
    Absent(u16),
}

/// How long the whole read may take: a build never waits on the site for longer.
const LIMIT: Duration = Duration::from_secs(10);

/// What the build learnt from the live site.
pub enum Live {
    /// Nothing was read (not a recorded build, or the site unreachable and that allowed): the
    /// committed history and the local record, if any, are all there is.
    NotRead,
    /// Not read: this machine's record of the last deploy (`.content-api/outputs.json`), loaded
    /// here once, stands for it.
    Local(LastBuild),
    /// The site answered that it has no record: its first deploy with content-api.
    FirstDeploy,
    /// The last deploy's record.
    Read(DeployRecord),
}

impl Live {
    /// The last deploy's record, when the live site's was read.
    pub fn record(&self) -> Option<&DeployRecord> {
        match self {
            Live::Read(record) => Some(record),
            Live::NotRead | Live::Local(_) | Live::FirstDeploy => None,
        }
    }

    /// What the last deploy published, the purge list's baseline: the live site's record, when
    /// read, is what the CDN serves now.
    pub fn last_deploy(self) -> Option<LastBuild> {
        match self {
            Live::Read(record) => Some(record.files),
            Live::Local(last) => Some(last),
            Live::NotRead | Live::FirstDeploy => None,
        }
    }
}

/// Reads the live site's record when this build should (see the module's header); says what it
/// read, or why it could not.
pub fn read(
    request: &Request<'_>,
    live_site: &dyn LiveSite,
    reporter: &dyn Reporter,
) -> Result<Live, BuildError> {
    let config = &**request.config;
    if !request.may_record() || config.hosting.live_record == LiveRecord::Off {
        return Ok(Live::NotRead);
    }
    if !has_live_site(&config.base_url) {
        tracing::debug!(
            "{} is a reserved name: no live site to read",
            config.base_url
        );
        return Ok(Live::NotRead);
    }
    let ci = request.ci;
    let state = state_dir(&config.history_file);
    if !ci && let Some(last) = LastBuild::load(&state, &config.out_dir, &config.base_url) {
        tracing::debug!("{state} holds this machine's last deploy: the live site is not read");
        return Ok(Live::Local(last));
    }
    let url = format!("{}/{DEPLOY_RECORD_PATH}", config.base_url);
    let why = match interpret(
        live_site.fetch(&url, LIMIT, MAX_DEPLOY_RECORD_BYTES),
        &config.base_url,
        record_file_bound(config),
    ) {
        Answer::Record(read) => {
            tracing::info!(
                "read the live site's deploy record {url}: {} API paths published by its deploys, {} files of the last one",
                read.record.history.len(),
                read.record.files.files.len()
            );
            if read.dropped > 0 {
                tracing::warn!(
                    "{url}: ignored {} entr{} that are not paths this tool publishes",
                    read.dropped,
                    if read.dropped == 1 { "y" } else { "ies" }
                );
            }
            return Ok(Live::Read(read.record));
        }
        Answer::NoRecord(answer) if ci && answer == HTML_PAGE => {
            reporter.warning(
                DEPLOY_RECORD_PATH,
                &format!(
                    "{url} {answer}, not a deploy record: this build counts as the site's first deploy with content-api, so API paths removed before it answer 404, not 410 (the live site's record of them is not read) and the purge list names every URL\n  = help: if the site has deployed with content-api before, its host serves a page for unknown paths (Cloudflare Pages without a 404.html does): add a 404.html to the site's output so an absent record answers 404, or check that {url} is published; building {}",
                    history_words(config)
                ),
            );
            return Ok(Live::FirstDeploy);
        }
        Answer::NoRecord(answer) => {
            tracing::info!(
                "{url} {answer}: the live site has no deploy record yet (its first deploy with content-api); building {}",
                history_words(config)
            );
            return Ok(Live::FirstDeploy);
        }
        Answer::Unusable(why) => why,
    };
    if ci && config.hosting.live_record == LiveRecord::Read {
        return Err(BuildError::LiveRecord(format!(
            "cannot read the live site's deploy record {url}: {why}\n  = help: without it this deploy forgets what earlier deploys published (a removed API path answers 404, not 410) and purges every URL. Let the build reach {}, or set `live_record = \"optional\"` under [hosting] in watch.toml to build {} when it cannot",
            config.base_url,
            history_words(config)
        )));
    }
    tracing::warn!(
        "cannot read the live site's deploy record {url}: {why}; building {} (a path removed since the last deploy answers 404, not 410, unless the history names it, and the purge list names every URL)",
        history_words(config)
    );
    Ok(Live::NotRead)
}

/// What the build has instead of the live record, in words that are true of the history file
/// as it is: a history of N paths, one naming no path yet, or none at all yet.
fn history_words(config: &SiteConfig) -> String {
    let path = &config.history_file;
    match std::fs::read_to_string(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            format!("with no publishing history yet ({path} does not exist; this build starts it)")
        }
        // The build says why when it loads the history.
        Err(_) => format!("from the publishing history {path}"),
        Ok(text) => history_words_of(path.as_str(), &text),
    }
}

/// [`history_words`] of a history file's text.
fn history_words_of(path: &str, text: &str) -> String {
    match text
        .lines()
        .filter(|line| is_history_entry(line.trim()))
        .count()
    {
        0 => format!("with no publishing history yet ({path} names no API path)"),
        1 => format!("from the publishing history {path} (1 API path)"),
        count => format!("from the publishing history {path} ({count} API paths)"),
    }
}

/// What the live site's answer says.
enum Answer {
    Record(ReadRecord),
    /// No record there, and what the site answered instead.
    NoRecord(String),
    /// No answer that can be used, and why.
    Unusable(String),
}

/// What a page in place of the record is said to be.
const HTML_PAGE: &str = "answers with an HTML page";

fn interpret(fetched: Result<Fetched, String>, base_url: &str, max_files: usize) -> Answer {
    match fetched {
        Ok(Fetched::Found(bytes)) => match DeployRecord::parse(&bytes, base_url, max_files) {
            Ok(read) => Answer::Record(read),
            // A host that answers every unknown path with the site's page (Cloudflare Pages
            // without a 404.html serves index.html, with 200) has no record there.
            Err(_) if bytes.trim_ascii_start().starts_with(b"<") => {
                Answer::NoRecord(HTML_PAGE.into())
            }
            Err(why) => Answer::Unusable(format!(
                "it is not a deploy record this version reads: {why}"
            )),
        },
        Ok(Fetched::Absent(status)) => Answer::NoRecord(format!("answers {status}")),
        Err(why) => Answer::Unusable(why),
    }
}

/// Whether `base_url` can name a live site: not a name reserved for examples, tests, or this
/// machine (RFC 2606: the top-level names and `example.com`, `.net`, `.org`; RFC 6761), where
/// there is nothing to read.
fn has_live_site(base_url: &str) -> bool {
    let Some(host) = url::Url::parse(base_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_ascii_lowercase))
    else {
        return false;
    };
    let host = host.trim_end_matches('.');
    let reserved = [
        "example",
        "test",
        "invalid",
        "localhost",
        "example.com",
        "example.net",
        "example.org",
    ];
    !reserved
        .iter()
        .any(|name| host == *name || host.ends_with(&format!(".{name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_in_place_of_the_record_is_a_first_deploy_and_other_answers_are_not() {
        let base = "https://site.dev";
        let page = Ok(Fetched::Found(
            b"\n  <!doctype html><title>Home</title>".to_vec(),
        ));
        assert!(
            matches!(interpret(page, base, 20_000), Answer::NoRecord(said) if said.contains("HTML"))
        );
        assert!(matches!(
            interpret(Ok(Fetched::Absent(404)), base, 20_000),
            Answer::NoRecord(_)
        ));
        let garbage = Ok(Fetched::Found(b"{\"format\": 9}".to_vec()));
        assert!(matches!(
            interpret(garbage, base, 20_000),
            Answer::Unusable(_)
        ));
        assert!(matches!(
            interpret(Err("cannot connect".into()), base, 20_000),
            Answer::Unusable(_)
        ));
    }

    #[test]
    fn reserved_names_have_no_live_site() {
        for url in [
            "https://lucia-montoya.example",
            "http://localhost:4321",
            "https://site.test",
            "https://x.invalid",
            "https://example",
        ] {
            assert!(!has_live_site(url), "{url}");
        }
        assert!(!has_live_site("https://blog.example.org"));
        for url in [
            "https://xergioalex.com",
            "http://127.0.0.1:8080",
            "https://myexample.com",
        ] {
            assert!(has_live_site(url), "{url}");
        }
    }
}
