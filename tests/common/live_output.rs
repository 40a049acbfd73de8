//! The output folder of a running daemon, as it is now: shared by the end-to-end tests and the
//! storm harness, which compare it with a fresh build while the daemon may still be writing.

use std::collections::BTreeMap;
use std::path::Path;

/// Every file of `out` except the tool's state folder, the deploy record (only a recorded
/// `build` writes it, never a daemon) and in-flight temporary files. Files that vanish during
/// the walk are skipped: the caller polls until the folder settles.
pub fn live_snapshot(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(Result::ok)
    {
        let relative = entry
            .path()
            .strip_prefix(out)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !entry.file_type().is_file()
            || relative.starts_with(".content-api/")
            || relative == content_api::deploy::DEPLOY_RECORD_PATH
            || relative.ends_with(".tmp")
        {
            continue;
        }
        if let Ok(bytes) = std::fs::read(entry.path()) {
            files.insert(relative, bytes);
        }
    }
    files
}
