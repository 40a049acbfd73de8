//! Output bytes depend on the content only: not on the order files are found in, the order
//! salsa ids are handed out, or which thread ran which query.

use crate::common;

use common::*;
use content_api::workspace::{Lifetime, Workspace};
use content_api::{build, source};
use proptest::prelude::*;
use std::sync::Arc;

fn outputs_for(scan: content_api::content::Scan) -> Vec<(Arc<str>, Vec<u8>)> {
    let today = sample_today();
    let workspace = Workspace::new(
        Arc::new(sample_config()),
        today,
        false,
        scan,
        Lifetime::Watch,
        Default::default(),
    );
    assert!(
        build::diagnostics(workspace.db())
            .iter()
            .all(|d| !d.is_error())
    );
    build::outputs(workspace.db())
        .into_iter()
        .map(|(path, output)| (path, output.to_vec().unwrap()))
        .collect()
}

/// The content files the sample site's scan reads.
const SAMPLE_FILES: usize = 55;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn shuffling_the_input_order_never_changes_a_byte(order in Just((0..SAMPLE_FILES).collect::<Vec<_>>()).prop_shuffle()) {
        let baseline = outputs_for(source::scan(&repo().join("content"), &sample_config()));
        let mut scan = source::scan(&repo().join("content"), &sample_config());
        // Every file takes part in the shuffle (a new file in content/ must grow the count).
        assert_eq!(scan.files.len(), SAMPLE_FILES, "the sample's file count changed: update SAMPLE_FILES");
        let mut files: Vec<_> = scan.files.drain(..).map(Some).collect();
        let mut shuffled = Vec::with_capacity(files.len());
        for &index in &order {
            shuffled.push(files[index].take().unwrap());
        }
        scan.files = shuffled;
        prop_assert_eq!(baseline, outputs_for(scan));
    }
}
