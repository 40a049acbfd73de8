//! The GitHub Actions workflow the README gives (`docs/ci/github-actions.yml`), proven (and the
//! project's own release workflow, `.github/workflows/release.yml`: `ci_workflow/release.rs`):
//!
//! - `actionlint` (with `shellcheck` for its `run:` scripts) passes both. Skipped with a printed
//!   reason when `actionlint` is not installed, unless `CONTENT_API_REQUIRE_ACTIONLINT` is set
//!   (`.ci/run` sets it, and installs both); `CONTENT_API_ACTIONLINT` names the binary;
//! - its shape: it runs on a push and on a daily schedule, one deploy at a time, compiles the
//!   tool only when its cache misses, and saves the purge list's baseline only after a
//!   successful deploy, before recording the history;
//! - its "Record what was deployed" step, run as Actions runs it (`bash -eo pipefail`), twice
//!   at once in two shallow clones of a local bare repository, with no git identity anywhere
//!   but what the step sets (an empty HOME, no system config, git told not to guess one): both
//!   runs push, the one that loses the race rebases on the other with the history's union
//!   merge, and the repository's history holds the lines of both, committed by the bot.

mod common;

use saphyr::{LoadableYamlNode, YamlOwned as Yaml};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WORKFLOW: &str = "docs/ci/github-actions.yml";
#[path = "ci_workflow/release.rs"]
mod release;
use release::RELEASE;

fn workflow_text() -> String {
    std::fs::read_to_string(common::repo().join(WORKFLOW)).unwrap()
}

fn workflow() -> Yaml {
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
fn steps(workflow: &Yaml) -> Vec<(String, &Yaml)> {
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

/// `actionlint`, from `CONTENT_API_ACTIONLINT` or PATH; `None` (with the reason printed) when
/// it is not installed, a failure when `CONTENT_API_REQUIRE_ACTIONLINT` is set.
fn actionlint() -> Option<PathBuf> {
    let found = std::env::var_os("CONTENT_API_ACTIONLINT")
        .map(PathBuf::from)
        .or_else(|| on_path("actionlint"));
    let required = std::env::var_os("CONTENT_API_REQUIRE_ACTIONLINT").is_some();
    match found {
        Some(path) => {
            if required {
                assert!(
                    on_path("shellcheck").is_some(),
                    "CONTENT_API_REQUIRE_ACTIONLINT is set, but shellcheck (which actionlint runs on every `run:` script) is not on PATH"
                );
            }
            Some(path)
        }
        None if required => panic!(
            "CONTENT_API_REQUIRE_ACTIONLINT is set, but actionlint is not installed (PATH, or CONTENT_API_ACTIONLINT); .ci/run installs it"
        ),
        None => {
            eprintln!(
                "skipped: actionlint is not installed (PATH, or CONTENT_API_ACTIONLINT); set CONTENT_API_REQUIRE_ACTIONLINT=1 to make that a failure"
            );
            None
        }
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
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
fn the_workflow_runs_daily_and_on_push_and_saves_state_only_after_the_deploy() {
    let workflow = workflow();
    // On every push to main, and daily: a post dated today goes live without a push.
    let push = get(&workflow, &["on", "push", "branches"])
        .as_vec()
        .unwrap();
    assert!(push.iter().any(|b| b.as_str() == Some("main")));
    let schedule = get(&workflow, &["on", "schedule"]).as_vec().unwrap();
    let cron = text(&schedule[0], &["cron"]);
    let fields: Vec<&str> = cron.split_whitespace().collect();
    assert_eq!(fields.len(), 5, "{cron}");
    assert!(
        fields[0].parse::<u8>().is_ok() && fields[1].parse::<u8>().is_ok(),
        "one fixed time a day: {cron}"
    );
    assert_eq!(&fields[2..], ["*", "*", "*"], "every day: {cron}");
    // One deploy at a time, none cancelled: the history is recorded in order.
    assert_eq!(
        get(&workflow, &["concurrency", "cancel-in-progress"]).as_bool(),
        Some(false)
    );
    let steps = steps(&workflow);
    // The tool: restored from a cache keyed on its source, compiled only on a miss.
    let restore = position(&steps, "Restore content-api");
    let key = text(steps[restore].1, &["with", "key"]);
    assert!(
        key.contains("hashFiles(") && key.contains("tools/content-api"),
        "{key}"
    );
    let compile = position(&steps, "Compile content-api");
    assert_eq!(
        text(steps[compile].1, &["if"]),
        "steps.tool.outputs.cache-hit != 'true'"
    );
    assert!(text(steps[compile].1, &["run"]).starts_with("cargo install"));
    // Check, build, deploy, then save the baseline and record the history, in that order; a
    // step without `if:` runs only when every step before it succeeded.
    let order = [
        "Check",
        "Build",
        "Deploy",
        "Save what this deploy published",
        "Record what was deployed",
    ]
    .map(|name| position(&steps, name));
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    for name in [
        "Save what this deploy published",
        "Record what was deployed",
    ] {
        let step = steps[position(&steps, name)].1;
        assert!(
            step.as_mapping_get("if").is_none(),
            "`{name}` must run only after a successful deploy"
        );
    }
    assert!(text(steps[order[1]].1, &["run"]).contains("content-api build"));
    assert!(text(steps[order[0]].1, &["run"]).contains("content-api check"));
}

/// Runs `git ARGS` in `dir` with `env`; fails the test with git's output when it fails.
fn git(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?} in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The environment of every git command here: no identity from anywhere (an empty HOME, no
/// system config, and git told to use configured identities only, never to guess one).
fn no_identity(home: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.display().to_string()),
        (
            "XDG_CONFIG_HOME",
            home.join(".config").display().to_string(),
        ),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_COUNT", "1".into()),
        ("GIT_CONFIG_KEY_0", "user.useConfigOnly".into()),
        ("GIT_CONFIG_VALUE_0", "true".into()),
    ]
}

fn as_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

const SEEDED: &[&str] = &[
    "api/index.json",
    "api/posts.json",
    "api/timeline/en/rust.json",
];

#[test]
fn two_runs_of_the_record_step_racing_both_land_in_the_history() {
    if on_path("git").is_none() {
        if std::env::var_os("CONTENT_API_REQUIRE_ACTIONLINT").is_some() {
            panic!("git is not installed");
        }
        eprintln!("skipped: git is not installed");
        return;
    }
    let workflow = workflow();
    let steps = steps(&workflow);
    let record = steps[position(&steps, "Record what was deployed")].1;
    let script = text(record, &["run"]).to_string();
    let bot_name = text(&workflow, &["jobs", "deploy", "env", "BOT_NAME"]).to_string();
    let bot_email = text(&workflow, &["jobs", "deploy", "env", "BOT_EMAIL"]).to_string();

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = no_identity(&home);
    let env = as_refs(&env);
    // The site's repository: a bare origin, seeded with a history and its union merge.
    let origin = root.join("origin.git");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &env, &["init", "--bare", "--initial-branch=main"]);
    let seed = root.join("seed");
    std::fs::create_dir_all(&seed).unwrap();
    git(&seed, &env, &["init", "--initial-branch=main"]);
    std::fs::write(
        seed.join(".gitattributes"),
        "content-api.history merge=union\n",
    )
    .unwrap();
    std::fs::write(seed.join("content-api.history"), SEEDED.join("\n") + "\n").unwrap();
    git(&seed, &env, &["add", "."]);
    git(
        &seed,
        &env,
        &[
            "-c",
            "user.name=Author",
            "-c",
            "user.email=author@example.com",
            "commit",
            "-m",
            "seed",
        ],
    );
    let origin_url = format!("file://{}", origin.display());
    git(&seed, &env, &["push", &origin_url, "main"]);

    // Two runs, each in a shallow clone (as actions/checkout makes), each adding its own path
    // at the same place of the sorted file: their changes conflict line for line.
    let barrier = root.join("barrier");
    std::fs::create_dir_all(&barrier).unwrap();
    let runs = ["a", "b"].map(|run| {
        let clone = root.join(format!("run-{run}"));
        git(
            root,
            &env,
            &["clone", "--depth", "1", "--branch", "main", &origin_url, clone.to_str().unwrap()],
        );
        let mut lines: Vec<String> = SEEDED.iter().map(|s| s.to_string()).collect();
        lines.push(format!("api/series/en/{run}-series.json"));
        lines.sort();
        std::fs::write(clone.join("content-api.history"), lines.join("\n") + "\n").unwrap();
        // Both runs reach their push before either pushes: one of them is refused and must
        // rebase on the other's commit (the step's retry). The hook is the test's, not the
        // step's: it waits at most 20 s for the other run.
        let hook = clone.join(".git/hooks/pre-push");
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\ntouch '{barrier}/{run}'\nfor i in $(seq 200); do [ \"$(ls '{barrier}' | wc -l)\" -ge 2 ] && exit 0; sleep 0.1; done\nexit 0\n",
                barrier = barrier.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        clone
    });
    let started: Vec<_> = runs
        .iter()
        .map(|clone| {
            Command::new("bash")
                .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
                .current_dir(clone)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap())
                .envs(env.iter().copied())
                .env("GITHUB_REF_NAME", "main")
                .env("BOT_NAME", &bot_name)
                .env("BOT_EMAIL", &bot_email)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for (mut child, clone) in started.into_iter().zip(&runs) {
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "the record step in {} did not finish in 120 s",
                    clone.display()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let output = child.wait_with_output().unwrap();
        assert!(
            status.success(),
            "the record step failed in {}:\n{}{}",
            clone.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    // The history on main holds every line of both runs, and the seed's.
    let history = git(&origin, &env, &["show", "main:content-api.history"]);
    let mut expected: Vec<String> = SEEDED.iter().map(|s| s.to_string()).collect();
    expected.extend([
        "api/series/en/a-series.json".into(),
        "api/series/en/b-series.json".into(),
    ]);
    let mut found: Vec<String> = history.lines().map(str::to_string).collect();
    found.sort();
    expected.sort();
    assert_eq!(found, expected, "{history}");
    // Two commits on top of the seed, linear (a rebase, not a merge), both the bot's.
    let log = git(&origin, &env, &["log", "--format=%an <%ae>|%s|%P", "main"]);
    let commits: Vec<&str> = log.lines().collect();
    assert_eq!(commits.len(), 3, "{log}");
    for commit in &commits[..2] {
        let fields: Vec<&str> = commit.split('|').collect();
        assert_eq!(fields[0], format!("{bot_name} <{bot_email}>"), "{log}");
        assert_eq!(
            fields[1], "content-api: record published API paths",
            "{log}"
        );
        assert_eq!(
            fields[2].split_whitespace().count(),
            1,
            "a merge commit: {log}"
        );
    }
    // The merged file is a history the tool reads without a word.
    let merged = root.join("merged.history");
    std::fs::write(&merged, &history).unwrap();
    let site = common::Site::new();
    let checked = common::run_binary_with(
        site.root(),
        &[
            "check",
            "--today",
            common::TODAY,
            "--history",
            merged.to_str().unwrap(),
        ],
        &[],
        common::TIMEOUT,
    );
    checked.assert_success();
    assert!(
        !checked.stderr.contains(merged.to_str().unwrap()),
        "{}",
        checked.stderr
    );
}
