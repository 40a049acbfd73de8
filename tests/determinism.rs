//! Output bytes depend on the content only: not on the order files are found in, the order
//! salsa ids are handed out, or which thread ran which query.

mod common;

use common::*;
use content_api::workspace::{Lifetime, Workspace};
use content_api::{build, source};
use proptest::prelude::*;
use std::sync::Arc;

fn outputs_for(scan: source::Scan) -> Vec<(Arc<str>, Vec<u8>)> {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn shuffling_the_input_order_never_changes_a_byte(order in Just((0..55usize).collect::<Vec<_>>()).prop_shuffle()) {
        let baseline = outputs_for(source::scan(&repo().join("content")));
        let mut scan = source::scan(&repo().join("content"));
        let mut files: Vec<_> = scan.files.drain(..).map(Some).collect();
        let mut shuffled = Vec::with_capacity(files.len());
        let count = files.len();
        for &index in order.iter().filter(|&&i| i < count) {
            shuffled.push(files[index].take().unwrap());
        }
        shuffled.extend(files.into_iter().flatten());
        scan.files = shuffled;
        prop_assert_eq!(baseline, outputs_for(scan));
    }
}
