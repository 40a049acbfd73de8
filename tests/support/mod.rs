//! Helpers shared by the integration tests: running the binary, reading output trees, and
//! finding the optional real corpus.
#![allow(dead_code)] // Each test file uses a different subset.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The date every reproducible build in the tests uses.
pub const TODAY: &str = "2026-11-22";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `content-api` with `args` in the repository folder.
pub fn content_api(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_content-api"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("the binary runs")
}

/// Builds `content` into `out` with the reproducible date and returns the process output,
/// failing the test when the build fails.
pub fn build(content: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "--once",
        "--today",
        TODAY,
        "--content",
        content.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = content_api(&args);
    assert!(
        output.status.success(),
        "build of {} failed: {}",
        content.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Every file below `dir`, by `/`-separated relative path.
pub fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("readable tree");
        if entry.file_type().is_file() {
            let relative = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/");
            files.insert(relative, std::fs::read(entry.path()).unwrap());
        }
    }
    files
}

/// Asserts two trees hold the same files with the same bytes, naming the first difference.
pub fn assert_same_tree(
    expected: &BTreeMap<String, Vec<u8>>,
    actual: &BTreeMap<String, Vec<u8>>,
    hint: &str,
) {
    let missing: Vec<_> = expected
        .keys()
        .filter(|k| !actual.contains_key(*k))
        .collect();
    let extra: Vec<_> = actual
        .keys()
        .filter(|k| !expected.contains_key(*k))
        .collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, unexpected {extra:?}. {hint}"
    );
    for (path, bytes) in expected {
        if actual[path] != *bytes {
            panic!(
                "{path} differs.\nexpected: {}\nactual:   {}\n{hint}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(400)]),
                String::from_utf8_lossy(&actual[path][..actual[path].len().min(400)])
            );
        }
    }
}

/// The real corpus, when this checkout sits next to the project's shared folder.
pub fn corpus() -> Option<PathBuf> {
    let dir = repo().join("../shared/corpus/xergioalex");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: {} is absent", dir.display());
        None
    }
}
