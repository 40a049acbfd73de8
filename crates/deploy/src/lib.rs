//! What a one-shot `build` records beside the site, and the steps that follow its publish.
//!
//! `write` makes the output folder hold a set of files; this crate keeps what must outlive that
//! folder between deploys, and checks what a host will make of it:
//! - `history`: the publishing history (`content-api.history`), every API path a recorded build
//!   published, read by every build and recorded into only after a deploy's publish;
//! - `last_build`: `.content-api/outputs.json` beside the history, what the last recorded build
//!   published (the purge list's baseline);
//! - `deploy_record`: the same with the whole history, published in the output for the next
//!   build to read from the live site;
//! - `purge`: the list of URLs a CDN must forget;
//! - `fingerprint`: the last build's inputs and output, so a build with nothing changed is
//!   recognised without parsing;
//! - `pages_functions` and `pages_limits`: Cloudflare Pages' rules that the output folder alone
//!   cannot follow (the route file the site's Functions import, and what a deployment refuses);
//! - `site_files`: the site's own `robots.txt` and `llms.txt`, read for what hides the API;
//! - `after_publish`: the sequence a recorded build runs once its files are published.
//!
//! Every state file goes through `write::state_file` (bounded, no-follow reads; one atomic,
//! synced writer), and every path one names passes `write::check_output_path`.

// The layers below, under the names they have in every crate of the workspace.
use content_api_contract::http;
use content_api_model::{config, content, model, output};
use content_api_source::{source, watch_toml};
use content_api_write as write;

pub mod after_publish;
mod deploy_record;
mod fingerprint;
mod history;
mod last_build;
pub mod pages_functions;
pub mod pages_limits;
mod purge;
pub mod site_files;
mod site_paths;

pub use after_publish::{AfterPublish, DeployError, add_deploy_record, install_pages_route};
pub use deploy_record::{
    DEPLOY_RECORD_PATH, DeployRecord, MAX_DEPLOY_RECORD_BYTES, ReadRecord, record_file_bound,
};
pub use fingerprint::{BuildSettings, Probe, Reused};
pub use history::{History, HistoryError, HistoryFile, MAX_HISTORY_ENTRIES, is_history_entry};
pub use last_build::{LAST_BUILD_FILE, LastBuild, state_dir};
pub use purge::{purge_urls, write_purge_list};
