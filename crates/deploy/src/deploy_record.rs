//! The deploy record: what a recorded build published, as a file of its own output
//! ([`DEPLOY_RECORD_PATH`]), so the live site remembers it. A host that builds from a fresh
//! clone and keeps nothing (Cloudflare Pages' Git integration, Netlify) cannot commit the
//! publishing history back, so the next build reads the record from the live site instead: every
//! API path any deploy published (the removed ones keep answering 410) and each file's hash (the
//! purge list names only what changed).
//!
//! Read back from the network, so untrusted: bounded in size by the reader and in files
//! ([`record_file_bound`]: a record may list no more files than a deploy of this site could
//! hold, `cloudflare_max_files` under `[hosting]`, 20,000 by default, or when that is 0 the
//! [`MAX_RECORDED_FILES`] a build records at most; every file a record lists that this build
//! does not publish is a removed path, up to three URLs of the purge list, so a record past the
//! bound is refused whole, never trimmed) and in history entries (`MAX_HISTORY_ENTRIES`, the committed
//! history's bound: a record past it is refused whole), every history entry must be an API path of the output grammar and
//! every file an output path ([`check_output_path`]: plain characters, inside the folder), or it
//! is dropped and counted.

use crate::config::SiteConfig;
use crate::history::{History, MAX_HISTORY_ENTRIES, is_history_entry};
use crate::last_build::LastBuild;
use crate::output::Output;
use crate::write::{MAX_RECORDED_FILES, check_output_path};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where every recorded build puts its record, relative to the output folder (and so to
/// `base_url` on the live site).
pub const DEPLOY_RECORD_PATH: &str = ".well-known/content-api/deploy.json";

/// The largest record read back: about 200,000 files (`MAX_RECORDED_FILES`) and a full history.
pub const MAX_DEPLOY_RECORD_BYTES: u64 = 32 << 20;

const FORMAT: u32 = 1;

/// The most files a record read from the live site may list: as many as a deploy of this site
/// could hold. A build warns when its folder holds more than `cloudflare_max_files` (and Pages
/// refuses such a deploy), so a record of this site's deploys lists at most that many; when the
/// check is off (0), the bound is what a build records at all ([`MAX_RECORDED_FILES`]).
pub fn record_file_bound(config: &SiteConfig) -> usize {
    match usize::try_from(config.hosting.cloudflare_max_files) {
        Ok(0) | Err(_) => MAX_RECORDED_FILES,
        Ok(max) => max.min(MAX_RECORDED_FILES),
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    format: u32,
    base_url: String,
    /// Every API path a recorded deploy of this site published, sorted.
    history: Vec<String>,
    /// Output path → xxh3-128 of its bytes (32 hex digits), this deploy's files.
    files: BTreeMap<String, String>,
}

/// A deploy's record: the site's whole publishing history, and the files of that deploy.
#[derive(Debug, PartialEq, Eq)]
pub struct DeployRecord {
    /// Every API path a recorded deploy of this site published, sorted: what answers 410 once
    /// removed.
    pub history: Vec<String>,
    /// The files of that deploy, with the hashes of their bytes.
    pub files: LastBuild,
}

/// A record read back, and how many of its entries were dropped as invalid.
pub struct ReadRecord {
    /// What could be read of the record.
    pub record: DeployRecord,
    /// How many entries were invalid and left out.
    pub dropped: usize,
}

impl DeployRecord {
    /// The record of a build that published `files` with `history` (already including them).
    pub fn new(history: &History, files: LastBuild) -> DeployRecord {
        DeployRecord {
            history: history.paths().map(str::to_string).collect(),
            files,
        }
    }

    /// The file the output holds: deterministic JSON (sorted keys and entries), one line.
    pub fn to_output(&self, base_url: &str) -> Output {
        let wire = Wire {
            format: FORMAT,
            base_url: base_url.to_string(),
            history: self.history.clone(),
            files: self
                .files
                .files
                .iter()
                .map(|(path, hash)| (path.clone(), format!("{hash:032x}")))
                .collect(),
        };
        let mut text = serde_json::to_string(&wire).expect("a record serializes");
        text.push('\n');
        Output::new(text)
    }

    /// Reads a record fetched from `base_url`'s live site, listing at most `max_files` files
    /// ([`record_file_bound`]); `Err` says why it cannot be used.
    pub fn parse(bytes: &[u8], base_url: &str, max_files: usize) -> Result<ReadRecord, String> {
        let text = std::str::from_utf8(bytes).map_err(|err| err.to_string())?;
        let wire: Wire = serde_json::from_str(text).map_err(|err| err.to_string())?;
        if wire.format != FORMAT {
            return Err(format!(
                "format {} (this version reads format {FORMAT})",
                wire.format
            ));
        }
        if wire.base_url != base_url {
            return Err(format!(
                "it is the record of {}, not of {base_url}",
                wire.base_url
            ));
        }
        if wire.files.len() > MAX_RECORDED_FILES {
            return Err(format!(
                "it lists {} files, more than a build records ({MAX_RECORDED_FILES})",
                wire.files.len()
            ));
        }
        if wire.files.len() > max_files {
            return Err(format!(
                "it lists {} files, more than a deploy of this site holds ({max_files}, `cloudflare_max_files` under [hosting]): not a record of this site's deploys, and its files would all be purged as removed",
                wire.files.len()
            ));
        }
        if wire.history.len() > MAX_HISTORY_ENTRIES {
            return Err(format!(
                "it lists {} API paths in its history, more than a history holds ({MAX_HISTORY_ENTRIES}): not a record this tool wrote",
                wire.history.len()
            ));
        }
        let mut dropped = 0;
        let history = wire
            .history
            .into_iter()
            .filter(|path| {
                let keep = is_history_entry(path);
                dropped += usize::from(!keep);
                keep
            })
            .collect();
        let mut files: BTreeMap<String, u128> = wire
            .files
            .into_iter()
            .filter_map(|(path, hex)| {
                let hash = check_output_path(&path)
                    .is_ok()
                    .then(|| u128::from_str_radix(&hex, 16).ok())
                    .flatten();
                dropped += usize::from(hash.is_none());
                Some((path, hash?))
            })
            .collect();
        // The record itself was a file of that deploy: with its hash, an unchanged record is
        // not purged again.
        files.insert(
            DEPLOY_RECORD_PATH.to_string(),
            Output::new(text.to_string()).hash,
        );
        Ok(ReadRecord {
            record: DeployRecord {
                history,
                files: LastBuild { files },
            },
            dropped,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> DeployRecord {
        let history =
            History::default().with_outputs(["api/index.json", "api/timeline/en/gone.json"]);
        let files = LastBuild {
            files: [
                ("api/index.json".to_string(), 7u128),
                ("index.md".to_string(), 9u128),
            ]
            .into_iter()
            .collect(),
        };
        DeployRecord::new(&history, files)
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let base = "https://example.com";
        let output = record().to_output(base);
        let read =
            DeployRecord::parse(&output.to_vec().unwrap(), base, MAX_RECORDED_FILES).unwrap();
        let mut expected = record();
        expected
            .files
            .files
            .insert(DEPLOY_RECORD_PATH.to_string(), output.hash);
        assert_eq!(read.record, expected);
        assert_eq!(read.dropped, 0);
    }

    #[test]
    fn another_sites_record_or_format_is_refused() {
        let bytes = record().to_output("https://a.example").to_vec().unwrap();
        let why = DeployRecord::parse(&bytes, "https://b.example", MAX_RECORDED_FILES)
            .err()
            .unwrap();
        assert!(why.contains("https://a.example"), "{why}");
        let newer = String::from_utf8(bytes)
            .unwrap()
            .replace("\"format\":1", "\"format\":2");
        assert!(
            DeployRecord::parse(newer.as_bytes(), "https://a.example", MAX_RECORDED_FILES).is_err()
        );
        assert!(DeployRecord::parse(b"<html>", "https://a.example", MAX_RECORDED_FILES).is_err());
    }

    #[test]
    fn a_history_past_the_bound_is_refused_whole() {
        let paths: Vec<String> = (0..=MAX_HISTORY_ENTRIES)
            .map(|n| format!("\"api/timeline/en/t{n}.json\""))
            .collect();
        let text = format!(
            r#"{{"format":1,"base_url":"https://a.example","history":[{}],"files":{{}}}}"#,
            paths.join(",")
        );
        let why = DeployRecord::parse(text.as_bytes(), "https://a.example", MAX_RECORDED_FILES)
            .err()
            .unwrap();
        assert!(why.contains("more than a history holds (20000)"), "{why}");
    }

    #[test]
    fn entries_a_host_file_or_purge_list_could_misread_are_dropped() {
        let text = r#"{"format":1,"base_url":"https://a.example","history":["api/ok.json","api/x\nhttps://victim.example/.json","../etc/passwd"],"files":{"api/ok.json":"00000000000000000000000000000001","api/x\nhttps://victim.example/everything":"00000000000000000000000000000002","a b":"00000000000000000000000000000003","../up":"00000000000000000000000000000004","fine.md":"not hex"}}"#;
        let read =
            DeployRecord::parse(text.as_bytes(), "https://a.example", MAX_RECORDED_FILES).unwrap();
        assert_eq!(read.record.history, ["api/ok.json"]);
        assert_eq!(
            read.record.files.files.keys().collect::<Vec<_>>(),
            [DEPLOY_RECORD_PATH, "api/ok.json"]
        );
        assert_eq!(read.dropped, 6);
    }

    #[test]
    fn a_record_listing_more_files_than_a_deploy_holds_is_refused_whole() {
        let files: Vec<String> = (0..=3)
            .map(|n| format!("\"api/t{n}.json\":\"{n:032x}\""))
            .collect();
        let text = format!(
            r#"{{"format":1,"base_url":"https://a.example","history":[],"files":{{{}}}}}"#,
            files.join(",")
        );
        let why = DeployRecord::parse(text.as_bytes(), "https://a.example", 3)
            .err()
            .unwrap();
        assert!(why.contains("it lists 4 files"), "{why}");
        assert!(why.contains("cloudflare_max_files"), "{why}");
        let read = DeployRecord::parse(text.as_bytes(), "https://a.example", 4).unwrap();
        assert_eq!(read.record.files.files.len(), 5);
        let mut config = SiteConfig::defaults(camino::Utf8Path::new("/site"));
        assert_eq!(record_file_bound(&config), 20_000);
        config.hosting.cloudflare_max_files = 0;
        assert_eq!(record_file_bound(&config), MAX_RECORDED_FILES);
        config.hosting.cloudflare_max_files = 10_000_000;
        assert_eq!(record_file_bound(&config), MAX_RECORDED_FILES);
    }
}
