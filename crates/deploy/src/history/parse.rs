//! Reading a history file's text: one API path a line (comments and blank lines skipped), or
//! the JSON of older versions. A line that is not an API path of the output grammar is named
//! with its file and line, and skipped.

use super::{MAX_HISTORY_ENTRIES, is_history_entry};
use camino::Utf8Path;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Adds the entries of `text` to `paths`; false when they are more than [`MAX_HISTORY_ENTRIES`]
/// (read no further).
pub(super) fn parse_lines(
    file: &Utf8Path,
    text: &str,
    paths: &mut BTreeSet<Arc<str>>,
    warnings: &mut Vec<String>,
) -> bool {
    let mut bad = 0;
    for (index, line) in text.split('\n').enumerate() {
        // A checkout with CRLF line endings (git's autocrlf) is not an error.
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if is_history_entry(line) {
            paths.insert(Arc::from(line));
            if paths.len() > MAX_HISTORY_ENTRIES {
                return false;
            }
        } else {
            bad += 1;
            if bad <= SHOWN_BAD_LINES {
                warnings.push(bad_entry(file, index + 1, line));
            }
        }
    }
    if bad > SHOWN_BAD_LINES {
        warnings.push(format!(
            "{file}: ignoring {} more lines that are not API paths this tool publishes",
            bad - SHOWN_BAD_LINES
        ));
    }
    true
}

/// Bad lines named one by one; the rest are counted.
const SHOWN_BAD_LINES: usize = 20;

/// The JSON history of older versions: `{"generator": ..., "published": [paths]}`.
/// Adds a legacy history's entries to `paths`; false when it could not be parsed (it is then
/// kept where it is).
pub(super) fn parse_legacy(
    file: &Utf8Path,
    bytes: &[u8],
    paths: &mut BTreeSet<Arc<str>>,
    warnings: &mut Vec<String>,
) -> bool {
    #[derive(serde::Deserialize)]
    struct LegacyHistoryFile {
        published: Vec<String>,
    }
    let text = String::from_utf8_lossy(bytes);
    match serde_json::from_str::<LegacyHistoryFile>(&text) {
        Ok(on_disk) => {
            for path in on_disk.published {
                if is_history_entry(&path) {
                    paths.insert(Arc::from(path));
                } else {
                    let quoted = serde_json::to_string(&path).unwrap_or_default();
                    let line = text
                        .lines()
                        .position(|l| l.contains(&quoted))
                        .map_or(1, |i| i + 1);
                    warnings.push(bad_entry(file, line, &path));
                }
            }
        }
        Err(err) => {
            warnings.push(format!(
                "{file}:{}: ignoring the unreadable legacy history ({err}); removed paths it listed answer 404, not 410\n  = help: it stays where it is: fix it (it is JSON: {{\"published\": [paths]}}) or copy its paths into the history file, then delete it",
                err.line()
            ));
            return false;
        }
    }
    true
}

fn bad_entry(file: &Utf8Path, line: usize, text: &str) -> String {
    format!(
        "{file}:{line}: ignoring {text:?}: not an API path this tool publishes (api/ followed by lowercase slugs, ending in .json or .html)\n  = help: fix or delete the line (a merge conflict marker? keep the lines of both sides); the next recorded build drops it"
    )
}
