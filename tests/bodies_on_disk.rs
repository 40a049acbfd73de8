//! A one-shot build past its memory budget leaves post bodies on disk and reads each again as it
//! writes the files that publish it (`session::load`): the bytes must be those of a build
//! that held every body, and a body that changed in between must stop the build, not be
//! published unchecked.

use crate::common;

use common::*;
use content_api::content::{FileContents, Scan};
use content_api::output::Files;
use content_api::source;
use content_api::workspace::{Lifetime, Workspace};
use content_api::{build, write};
use std::path::Path;
use std::sync::Arc;

fn workspace_for(scan: Scan, content: &Path, out: &Path) -> Workspace {
    let workspace = Workspace::new(
        Arc::new(sample_config_in(content, out)),
        sample_today(),
        false,
        scan,
        Lifetime::Once,
        Default::default(),
    );
    let errors: Vec<_> = build::diagnostics(workspace.db())
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    workspace
}

fn outputs_for(scan: Scan, content: &Path) -> Vec<(Arc<str>, Vec<u8>)> {
    let workspace = workspace_for(scan, content, Path::new("/nonexistent-out"));
    build::outputs(workspace.db())
        .into_iter()
        .map(|(path, output)| (path, output.to_vec().unwrap()))
        .collect()
}

/// The seed's layout and languages: what these scans read by.
fn seed_config() -> content_api::config::SiteConfig {
    content_api::config::SiteConfig::defaults(camino::Utf8Path::new("."))
}

fn detached(scan: &Scan) -> usize {
    scan.files
        .iter()
        .filter(|file| matches!(file.contents, FileContents::Detached { .. }))
        .count()
}

fn same_bytes_either_way(content: &Path) {
    let on_disk = content_api::session::load::scan_for_build(content, &seed_config(), 0);
    assert!(
        detached(&on_disk) > 10,
        "most posts' bodies should be left on disk, {} were",
        detached(&on_disk)
    );
    let held = source::scan(content, &seed_config());
    assert_eq!(detached(&held), 0);
    let (held, on_disk) = (outputs_for(held, content), outputs_for(on_disk, content));
    assert_eq!(held.len(), on_disk.len());
    for ((path, bytes), (other_path, other_bytes)) in held.iter().zip(&on_disk) {
        assert_eq!(path, other_path);
        assert!(bytes == other_bytes, "{path} differs");
    }
}

#[test]
fn bodies_left_on_disk_publish_the_same_bytes_as_bodies_held() {
    same_bytes_either_way(&repo().join("content"));
}

#[test]
#[ignore = "needs the real corpus beside the checkout (../shared/corpus/xergioalex); .ci/run runs it with --ignored when it is there"]
fn bodies_left_on_disk_publish_the_same_bytes_on_the_real_corpus() {
    same_bytes_either_way(&repo().join("../shared/corpus/xergioalex"));
}

#[test]
fn a_body_that_changed_before_it_was_written_stops_the_build_and_names_the_file() {
    let site = Site::new();
    let content = site.content();
    let body = "A body long enough to be worth leaving on disk.\n";
    site.write(
        EN_POST,
        format!("{}{body}", &EN_POST_TEXT[..EN_POST_TEXT.len() - 7]),
    );
    let scan = content_api::session::load::scan_for_build(&content, &seed_config(), 0);
    assert_eq!(detached(&scan), 2, "both posts' bodies are left on disk");
    let workspace = workspace_for(scan, &content, &site.out());
    let outputs: Files = build::outputs(workspace.db()).into();
    // Saved again between the read and the write, with a body of the same length.
    site.write(
        EN_POST,
        format!(
            "{}{}",
            &EN_POST_TEXT[..EN_POST_TEXT.len() - 7],
            body.replace("long", "LONG")
        ),
    );
    let out = camino::Utf8PathBuf::from_path_buf(site.out()).unwrap();
    let mut publisher = write::Publisher::open(&out).unwrap().one_shot();
    let err = publisher
        .publish_groups(std::slice::from_ref(&outputs))
        .expect_err("the build must stop");
    let message = err.to_string();
    assert!(
        message.contains(&site.path(EN_POST).display().to_string())
            && message.contains("changed while the build was running")
            && message.contains("run the build again"),
        "{message}"
    );
    // The files that would have published the changed body are not left half-written.
    for file in ["blog/hello.md", "llms-full.txt"] {
        assert!(!site.out().join(file).exists(), "{file} was written");
    }
}
