//! A shutdown (Ctrl-C or SIGTERM in watch and serve) stops the publish under way once its
//! deadline passes, between two files, as a publish that gives way to an edit does: every file
//! is whole, nothing is committed, and the next start finishes the work. (The commands'
//! end-to-end stop is in `serve.rs`.) A test binary of its own: the request is process-wide.
//!
//! Unix only, as the other integration tests (`tests.rs`): what it shares with them spawns
//! process groups.

#![cfg(unix)]

// A little of what the integration tests share: the rest is unused here.
#[allow(dead_code, unused_imports)]
mod common;

use common::{read_tree, repo, sample_config_in, sample_today};
use content_api::output::Files;
use content_api::workspace::{Lifetime, Workspace};
use content_api::write::{Publisher, WriteError, shutdown};
use content_api::{build, source};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

#[test]
fn a_shutdown_stops_the_publish_under_way_and_the_next_start_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let config = Arc::new(sample_config_in(&repo().join("content"), &out));
    let workspace = Workspace::new(
        config.clone(),
        sample_today(),
        false,
        source::scan(config.content_dir.as_std_path(), &config),
        Lifetime::Watch,
        Arc::from([]),
    );
    let outputs = build::outputs(workspace.db());
    let mut publisher = Publisher::open(&config.out_dir).unwrap();

    // The shutdown comes while the publish is writing: after its tenth file has started.
    let asked = AtomicUsize::new(0);
    let stop = || {
        if asked.fetch_add(1, Ordering::SeqCst) == 10 {
            shutdown::request(Duration::ZERO);
        }
        false
    };
    let result = publisher.publish_groups_until(&[Files::from(&outputs[..])], &stop);
    assert!(matches!(result, Err(WriteError::Stopped)), "{result:?}");
    drop(publisher);
    let written: Vec<String> = read_tree(&out)
        .into_keys()
        .filter(|path| !path.starts_with(".content-api/"))
        .collect();
    assert!(
        !written.is_empty() && written.len() < outputs.len(),
        "stopped partway: {} of {} files",
        written.len(),
        outputs.len()
    );
    for path in &written {
        let output = &outputs.iter().find(|(p, _)| &**p == path).unwrap().1;
        assert_eq!(
            std::fs::read(out.join(path)).unwrap(),
            output.to_vec().unwrap(),
            "{path} is whole"
        );
    }
    assert!(
        !out.join(content_api::write::MANIFEST_PATH).exists(),
        "nothing committed"
    );

    // The next start (another process) finishes it: the folder equals a fresh build.
    let next = common::build_sample(&out);
    assert!(next.status.success(), "{next:?}");
    let fresh = common::built_sample();
    let outputs_of = |tree: std::collections::BTreeMap<String, Vec<u8>>| {
        tree.into_iter()
            .filter(|(path, _)| !path.starts_with(".content-api/"))
            .collect::<Vec<_>>()
    };
    assert!(
        outputs_of(read_tree(&out)) == outputs_of(read_tree(fresh.path())),
        "the next build converges on a fresh build"
    );
}
