//! After any storm of edits on the real file system, through the real watcher, the daemon's
//! output equals a fresh `--once` build, byte for byte.
//!
//! The storms run on the default layout, on a site with links inside its content, and on a
//! site of its own layout (Hugo page bundles with language suffixes, `[layout] posts =
//! ["posts/{slug}/index.{lang}"]`).
//!
//! A fixed set of seeds runs here; `STORM_SEED=<seed>` reruns one seed (both paces), and
//! `STORM_RUNS=<n>` runs n seeds from `STORM_FIRST` (default 1). Every storm needs `git`
//! (`common::need::GIT`).
//! `cargo bench --bench storm_soak` is the longer soak.
//!
//! The daemon publishes in two lanes (the API first, the large documents once edits pause):
//! every comparison waits until it is idle, storms of `Pace::DuringDocuments` land their edits
//! while it writes `llms-full.txt`, and two tests count the documents lane's publishes under
//! a burst (coalesced) and a steady stream (never starved).

#[path = "storm_harness.rs"]
mod storm_harness;

use crate::common::need;
use std::time::Duration;
use storm_harness::{Pace, Site, Storm, run, run_on, save_repeatedly, seeds};

/// Edits per burst storm: enough that renames, chains and saves collide in one debounce window.
const BURST_EDITS: usize = 150;
/// Edits per human-paced storm (each followed by a pause longer than the debounce window).
const HUMAN_EDITS: usize = 20;
/// Edits per storm landing while the documents lane writes (each waits for such a write).
const DURING_DOCUMENTS_EDITS: usize = 25;

fn check(storms: Vec<Storm>) {
    let failures: Vec<String> = storms
        .iter()
        .filter_map(|storm| {
            storm.difference.as_ref().map(|difference| {
                format!(
                    "seed {} ({:?}; rerun with STORM_SEED={}): {difference}\noperations:\n  {}",
                    storm.seed,
                    storm.pace,
                    storm.seed,
                    storm.log.join("\n  ")
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} storms did not end equal to a fresh build:\n{}",
        failures.len(),
        storms.len(),
        failures.join("\n\n")
    );
}

#[test]
fn burst_storms_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let storms = seeds(&[1, 2, 3, 4, 5, 6])
        .into_iter()
        .map(|seed| run(seed, Pace::Burst, BURST_EDITS))
        .collect();
    check(storms);
}

/// Storms on a site with links inside its content (a linked language folder, linked posts,
/// hard links), with edits through the links and at their targets.
#[test]
fn storms_on_a_site_with_links_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let burst = seeds(&[201, 202, 203])
        .into_iter()
        .map(|seed| run_on(&Site::generate_linked(seed), seed, Pace::Burst, BURST_EDITS));
    // 2012: a moved post joins a Spanish series that had emptied (kept as a case of its own:
    // `incremental::a_series_that_empties_then_gets_a_new_chapter_lists_it`).
    let human = seeds(&[204, 2012])
        .into_iter()
        .map(|seed| run_on(&Site::generate_linked(seed), seed, Pace::Human, HUMAN_EDITS));
    check(burst.chain(human).collect());
}

/// The same storms on a site of its own layout: Hugo page bundles with language suffixes
/// (`posts/<slug>/index.md`, `posts/<slug>/index.es.md`), with edits of whole bundles (renamed,
/// deleted), resources added to them (`notes.md`, not a post) and translations created in them.
#[test]
fn burst_storms_on_page_bundles_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let storms = seeds(&[1, 2, 3, 4, 5, 6])
        .into_iter()
        .map(|seed| {
            run_on(
                &Site::generate_bundles(seed),
                seed,
                Pace::Burst,
                BURST_EDITS,
            )
        })
        .collect();
    check(storms);
}

#[test]
fn human_paced_storms_on_page_bundles_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let storms = seeds(&[101, 102])
        .into_iter()
        .map(|seed| {
            run_on(
                &Site::generate_bundles(seed),
                seed,
                Pace::Human,
                HUMAN_EDITS,
            )
        })
        .collect();
    check(storms);
}

#[test]
fn human_paced_storms_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let storms = seeds(&[101])
        .into_iter()
        .map(|seed| run(seed, Pace::Human, HUMAN_EDITS))
        .collect();
    check(storms);
}

#[test]
fn storms_landing_while_the_documents_lane_writes_end_equal_to_a_fresh_build() {
    if need::GIT.program().is_none() {
        return;
    }
    let storms: Vec<Storm> = seeds(&[201, 202])
        .into_iter()
        .map(|seed| run(seed, Pace::DuringDocuments, DURING_DOCUMENTS_EDITS))
        .collect();
    // Not a timing assertion: the storm only tests something if its edits did land during
    // a write of llms-full.txt (each edit waits for the daemon's temporary file to appear).
    for storm in &storms {
        assert!(
            storm.during_documents > 0,
            "seed {}: no edit landed while llms-full.txt was being written",
            storm.seed
        );
    }
    check(storms);
}

#[test]
fn a_burst_of_saves_publishes_the_documents_lane_once_after_it() {
    if need::GIT.program().is_none() {
        return;
    }
    // 20 saves 60 ms apart: longer than the debounce window (each save its own API-lane
    // rebuild), shorter than the documents lane's quiet time (200 ms), and 1.2 s in all,
    // under its longest wait (2 s). Without coalescing the documents lane would follow each.
    let saves = save_repeatedly(301, 20, Duration::from_millis(60));
    assert_eq!(saves.difference, None);
    assert!(
        saves.api >= 5,
        "the saves were not separate rebuilds: {} api lanes",
        saves.api
    );
    assert!(
        saves.documents <= 3,
        "{} saves, {} api lanes, {} documents lanes: the burst was not coalesced",
        20,
        saves.api,
        saves.documents
    );
}

#[test]
fn a_steady_stream_of_saves_does_not_starve_the_documents_lane() {
    if need::GIT.program().is_none() {
        return;
    }
    // A save every 100 ms for 5 s: the quiet time (200 ms) never comes, the longest wait (2 s)
    // does, more than once.
    let saves = save_repeatedly(302, 50, Duration::from_millis(100));
    assert_eq!(saves.difference, None);
    assert!(
        saves.documents_while_saving >= 1,
        "no documents lane ran during 5 s of saves ({} api lanes)",
        saves.api
    );
}
