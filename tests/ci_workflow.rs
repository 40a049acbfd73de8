//! The GitHub Actions workflow the deploy guide gives (`docs/ci/github-actions.yml`), and the
//! project's own release workflow (`.github/workflows/release.yml`, in `ci_workflow/release.rs`).
//!
//! - `actionlint` (with `shellcheck` for its `run:` scripts) passes both; without either, the
//!   test follows `common::need`'s rule (`.ci/run` installs both; `CONTENT_API_ACTIONLINT`
//!   names the binary);
//! - the deploy workflow's shape: the site's own `npm ci` and `npm run build` (content-api from
//!   the npm package, nothing compiled), one deploy of the whole `dist/`, one run at a time,
//!   no permission beyond reading the repository, a time limit, secrets in the deploy step
//!   only, nothing cached or pushed back (the live site is the memory);
//! - its schedule is the site's midnight every day of two years, daylight saving included.

use crate::common::{self, need};

use saphyr::{LoadableYamlNode, YamlOwned as Yaml};
use std::path::PathBuf;
use std::process::Command;

const WORKFLOW: &str = "docs/ci/github-actions.yml";
mod release;
use release::RELEASE;

fn workflow_text() -> String {
    std::fs::read_to_string(common::repo().join(WORKFLOW)).unwrap()
}

pub(crate) fn workflow() -> Yaml {
    Yaml::load_from_str(&workflow_text())
        .unwrap_or_else(|err| panic!("{WORKFLOW} is not YAML: {err}"))
        .remove(0)
}

/// `node[key]`, failing with the path when it is missing.
fn get<'a>(node: &'a Yaml, path: &[&str]) -> &'a Yaml {
    let mut at = node;
    for key in path {
        at = at
            .as_mapping_get(key)
            .unwrap_or_else(|| panic!("{WORKFLOW} has no `{}`", path.join(".")));
    }
    at
}

fn text<'a>(node: &'a Yaml, path: &[&str]) -> &'a str {
    get(node, path)
        .as_str()
        .unwrap_or_else(|| panic!("`{}` of {WORKFLOW} is not a string", path.join(".")))
}

/// The deploy job's steps, by name (or `uses:` for unnamed ones), in order.
pub(crate) fn steps(workflow: &Yaml) -> Vec<(String, &Yaml)> {
    get(workflow, &["jobs", "deploy", "steps"])
        .as_vec()
        .expect("steps is a list")
        .iter()
        .map(|step| {
            let name = step
                .as_mapping_get("name")
                .or_else(|| step.as_mapping_get("uses"))
                .and_then(Yaml::as_str)
                .unwrap_or("")
                .to_string();
            (name, step)
        })
        .collect()
}

fn position(steps: &[(String, &Yaml)], starts: &str) -> usize {
    steps
        .iter()
        .position(|(name, _)| name.starts_with(starts))
        .unwrap_or_else(|| panic!("{WORKFLOW} has no step named `{starts}...`"))
}

/// `actionlint` (from `CONTENT_API_ACTIONLINT` or PATH), once `shellcheck` is there too: a
/// lint without it would pass the `run:` scripts unread.
fn actionlint() -> Option<PathBuf> {
    let actionlint = need::ACTIONLINT.program()?;
    need::SHELLCHECK.program()?;
    Some(actionlint)
}

/// The workflow the README gives, and the project's own release workflow.
const LINTED: [&str; 2] = [WORKFLOW, RELEASE];

#[test]
fn actionlint_passes_the_workflows() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    for workflow in LINTED {
        let output = Command::new(&actionlint)
            .args(["-no-color", workflow])
            .current_dir(common::repo())
            .output()
            .unwrap_or_else(|err| panic!("{}: {err}", actionlint.display()));
        let shown = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "actionlint finds problems in {workflow}:\n{shown}"
        );
    }
    let version = Command::new(&actionlint).arg("-version").output().unwrap();
    eprintln!(
        "actionlint passes {LINTED:?} ({})",
        String::from_utf8_lossy(&version.stdout)
            .lines()
            .next()
            .unwrap_or("")
    );
}

#[test]
fn the_workflow_builds_the_whole_site_with_the_npm_package_and_least_privilege() {
    let workflow = workflow();
    let push = get(&workflow, &["on", "push", "branches"])
        .as_vec()
        .unwrap();
    assert!(push.iter().any(|b| b.as_str() == Some("main")));
    // One deploy at a time, none cancelled: each build reads the record the one before
    // published on the live site.
    assert_eq!(
        get(&workflow, &["concurrency", "cancel-in-progress"]).as_bool(),
        Some(false)
    );
    // No token can write anything by default; the job may read the repository, no more.
    assert!(
        get(&workflow, &["permissions"])
            .as_mapping()
            .is_some_and(|m| m.is_empty()),
        "the workflow's default permissions are none"
    );
    let jobs = get(&workflow, &["jobs"]).as_mapping().unwrap();
    for (name, job) in jobs {
        let name = name.as_str().unwrap_or("?");
        let permissions = get(job, &["permissions"]).as_mapping().unwrap();
        let granted: Vec<String> = permissions
            .iter()
            .map(|(k, v)| format!("{}: {}", k.as_str().unwrap(), v.as_str().unwrap()))
            .collect();
        assert_eq!(granted, ["contents: read"], "job {name}");
        assert!(
            get(job, &["timeout-minutes"]).as_integer().is_some(),
            "job {name} has a time limit"
        );
        assert!(
            job.as_mapping_get("env").is_none(),
            "job {name}: secrets go to the one step that needs them, not the whole job"
        );
    }
    let steps = steps(&workflow);
    let node = position(&steps, "actions/setup-node");
    let install = position(&steps, "Install");
    let build = position(&steps, "Build the site");
    let deploy = position(&steps, "Deploy dist/");
    assert!(node < install && install < build && build < deploy);
    assert_eq!(text(steps[install].1, &["run"]), "npm ci");
    assert_eq!(text(steps[build].1, &["run"]), "npm run build");
    let deploy_run = text(steps[deploy].1, &["run"]);
    assert!(
        deploy_run.contains("wrangler pages deploy dist ") && deploy_run.contains("--no-install"),
        "one deploy of the whole output, with the lockfile's wrangler: {deploy_run}"
    );
    for (name, step) in &steps {
        let run = step
            .as_mapping_get("run")
            .and_then(Yaml::as_str)
            .unwrap_or("");
        for banned in ["cargo", "git push", "--purge-list", "content-api.history"] {
            assert!(!run.contains(banned), "step `{name}` runs `{banned}`");
        }
        let secrets = step
            .as_mapping_get("env")
            .map(|env| format!("{env:?}").contains("secrets."))
            .unwrap_or(false);
        assert!(
            !secrets || name.starts_with("Deploy"),
            "only the deploy step sees a secret, not `{name}`"
        );
    }
    let text = workflow_text();
    assert!(
        !text.contains("actions/cache"),
        "nothing is kept between runs"
    );
}

/// The UTC hours the workflow's schedule runs at (each cron is `M H * * *`).
fn cron_hours(workflow: &Yaml) -> Vec<u32> {
    get(workflow, &["on", "schedule"])
        .as_vec()
        .unwrap()
        .iter()
        .map(|entry| {
            let cron = text(entry, &["cron"]);
            let fields: Vec<&str> = cron.split_whitespace().collect();
            assert_eq!(&fields[2..], ["*", "*", "*"], "every day: {cron}");
            assert_eq!(fields[0], "0", "on the hour: {cron}");
            fields[1].parse().unwrap()
        })
        .collect()
}

#[test]
fn the_schedule_runs_at_the_sites_midnight_every_day_of_the_year_daylight_saving_included() {
    use chrono::{NaiveDate, TimeZone, Timelike};
    let workflow = workflow();
    let hours = cron_hours(&workflow);
    // The zone the file is written for, as its comment says.
    let zone: chrono_tz::Tz = "Europe/Madrid".parse().unwrap();
    assert!(workflow_text().contains("Europe/Madrid"));
    let mut day = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    while day < NaiveDate::from_ymd_opt(2028, 1, 1).unwrap() {
        let midnight = zone
            .from_local_datetime(&day.and_hms_opt(0, 0, 0).unwrap())
            .single()
            .unwrap();
        let utc_hour = midnight.with_timezone(&chrono::Utc).hour();
        assert!(
            hours.contains(&utc_hour),
            "{day}: midnight in {zone} is {utc_hour}:00 UTC, not in the schedule {hours:?}"
        );
        // The other run of the day is an hour from midnight: it builds the day before (23:00)
        // or this day (01:00) again, which changes nothing.
        for hour in &hours {
            let at = chrono::Utc
                .from_utc_datetime(&day.and_hms_opt(*hour, 0, 0).unwrap())
                .with_timezone(&zone)
                .hour();
            assert!(
                matches!(at, 23 | 0 | 1),
                "{day} {hour}:00 UTC is {at}:00 in {zone}"
            );
        }
        day = day.succ_opt().unwrap();
    }
}
