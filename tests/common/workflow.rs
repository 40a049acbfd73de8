//! The release workflow's steps as tests run them: a step's `run:` script read from
//! `.github/workflows/release.yml`, run as GitHub Actions runs it, in a copy of the parts of the
//! checkout the npm job reads. Shared by the workflow's own checks (`ci_workflow/release.rs`)
//! and the publish to a real registry (`npm_package/registry.rs`), so neither keeps a copy of
//! the commands.

use saphyr::{LoadableYamlNode, YamlOwned as Yaml};
use std::path::Path;
use std::time::Duration;

pub const RELEASE: &str = ".github/workflows/release.yml";

/// The release workflow, parsed.
pub fn release() -> Yaml {
    let text = std::fs::read_to_string(super::repo().join(RELEASE))
        .unwrap_or_else(|err| panic!("{RELEASE}: {err}"));
    Yaml::load_from_str(&text)
        .unwrap_or_else(|err| panic!("{RELEASE} is not YAML: {err}"))
        .remove(0)
}

/// The step of `job` whose name starts with `name`.
pub fn step<'a>(workflow: &'a Yaml, job: &str, name: &str) -> &'a Yaml {
    workflow["jobs"][job]["steps"]
        .as_vec()
        .unwrap_or_else(|| panic!("{RELEASE}: job {job} has no steps"))
        .iter()
        .find(|step| {
            step.as_mapping_get("name")
                .and_then(Yaml::as_str)
                .is_some_and(|n| n.starts_with(name))
        })
        .unwrap_or_else(|| panic!("{RELEASE}: job {job} has no step `{name}...`"))
}

/// The `run:` script of the step of `job` whose name starts with `name`.
pub fn script<'a>(workflow: &'a Yaml, job: &str, name: &str) -> &'a str {
    step(workflow, job, name)
        .as_mapping_get("run")
        .and_then(Yaml::as_str)
        .unwrap_or_else(|| panic!("{RELEASE}: job {job}'s step `{name}...` has no script"))
}

/// The most a step may take here: the npm job's steps pack and publish a few packages.
const STEP_LIMIT: Duration = Duration::from_secs(300);

/// Runs a step's script as Actions runs it on Linux (`bash --noprofile --norc -eo pipefail`);
/// fails the test with its output unless it succeeds within [`STEP_LIMIT`]. Its output.
pub fn run_step(script: &str, dir: &Path, env: &[(&str, &str)]) -> String {
    let output = super::run_bounded(
        std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(dir)
            .envs(env.iter().copied()),
        STEP_LIMIT,
    );
    let shown = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the step failed:\n{script}\n---\n{shown}"
    );
    shown
}

/// Copies into `into` what the npm job's steps read of the checkout: the workspace's manifest
/// (the version), the licence, `scripts/npm-pack` and the packages' sources in `npm/`.
pub fn npm_job_checkout(into: &Path) {
    let checkout = super::repo();
    for path in ["Cargo.toml", "LICENSE", "scripts/npm-pack"] {
        let target = into.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(checkout.join(path), target).unwrap();
    }
    for (path, bytes) in super::read_tree(&checkout.join("npm")) {
        let target = into.join("npm").join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}
