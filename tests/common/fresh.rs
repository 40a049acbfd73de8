//! A fresh one-shot build in memory: what `--once` would leave in an output folder, for the
//! tests that compare a watch session's output with it.

use content_api::config::SiteConfig;
use content_api::workspace::{Lifetime, Workspace};
use content_api::{build, write};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The files a `--once` build of `config`'s content folder on `today` writes into `out` (whose
/// publishing history it reads), as written (host files merged), without the state folder.
/// Fails the test when the content has errors: `--once` would write nothing then.
///
/// Every post body that can be is left on disk, as `--once` does past its memory budget (a
/// large site): the writer's second read of each body is then part of what every comparison
/// with a watch session checks. The bodies are read back here, before the caller edits more.
pub fn fresh_build(
    config: Arc<SiteConfig>,
    today: chrono::NaiveDate,
    out: &Path,
) -> BTreeMap<String, Vec<u8>> {
    let history = content_api::deploy::HistoryFile::load(&SiteConfig {
        out_dir: camino::Utf8Path::from_path(out)
            .expect("a UTF-8 path")
            .to_owned(),
        ..(*config).clone()
    })
    .expect("the publishing history loads");
    let scan =
        content_api::session::load::scan_for_build(config.content_dir.as_std_path(), &config, 0);
    let workspace = Workspace::new(
        config,
        today,
        false,
        scan,
        Lifetime::Once,
        history.history_paths(),
    );
    let errors: Vec<String> = build::diagnostics(workspace.db())
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "the content should be valid here: {errors:#?}"
    );
    build::outputs(workspace.db())
        .into_iter()
        .map(|(path, output)| {
            let bytes = write::as_written(&path, output.to_vec().unwrap());
            (path.to_string(), bytes)
        })
        .collect()
}
