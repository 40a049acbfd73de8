//! The command line as an author meets it: `build` and `--once`, `check`, `init`, `new`, the
//! placeholder-settings warning (an error in CI), `--quiet`/`--verbose`, NO_COLOR, the
//! progress line (terminals only), completions and the man page, `hosting nginx` refusing a
//! folder nginx's workers cannot enter, and the first line of a bare `content-api`.

use crate::common;

use common::{EN_POST, EN_POST_TEXT, Site, TODAY, snapshot};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A watch.toml that sets everything a placeholder would stand for.
const FULL_CONFIG: &str = "base_url = \"https://site.example\"\ncontent_dir = \"content\"\nout_dir = \"out\"\n\
[site]\nauthor = \"Ana\"\nlicence = \"CC BY 4.0\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n";

/// Runs the binary in `dir` with a clean environment for what it reads (CI, NO_COLOR,
/// RUST_LOG), then `env` on top.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(common::BIN);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited")
}

/// Content diagnostics: every `error:`/`warning:` line but the placeholder-settings one.
fn content_diagnostics(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("error:") || line.starts_with("warning:"))
        .filter(|line| !line.contains("placeholder settings"))
        .collect()
}

const BUILD: [&str; 7] = [
    "build",
    "--content",
    "content",
    "--out",
    "out",
    "--today",
    TODAY,
];

#[test]
fn build_and_once_are_the_same_command() {
    let site = Site::new();
    let built = run(site.root(), &BUILD, &[]);
    assert_eq!(code(&built), 0, "{}", stderr(&built));
    let first = snapshot(&site.out());
    assert!(!first.is_empty());
    std::fs::remove_dir_all(site.out()).unwrap();
    let mut once = BUILD;
    once[0] = "--once";
    let again = run(site.root(), &once, &[]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let second = snapshot(&site.out());
    let bytes = |s: &common::Snapshot| -> Vec<(std::path::PathBuf, Option<Vec<u8>>)> {
        s.iter()
            .map(|(p, e)| {
                let b = match e {
                    common::Entry::File { bytes, .. } => Some(bytes.clone()),
                    _ => None,
                };
                (p.clone(), b)
            })
            .collect()
    };
    assert_eq!(bytes(&first), bytes(&second));
}

#[test]
fn check_writes_nothing_and_reports_every_error() {
    let site = Site::new();
    site.write(
        EN_POST,
        EN_POST_TEXT
            .replace("seriesOrder: 1", "seriesOrder: \"1\"")
            .replace("pubDate: 2024-05-01", "pubDate: 2024-02-30"),
    );
    let checked = run(
        site.root(),
        &["check", "--content", "content", "--out", "out"],
        &[],
    );
    assert_eq!(code(&checked), 1, "{}", stderr(&checked));
    let shown = stderr(&checked);
    assert!(
        shown.contains("`seriesOrder` must be an integer"),
        "{shown}"
    );
    assert!(shown.contains("`pubDate` is not a valid date"), "{shown}");
    assert!(
        shown.contains("error: 2 errors in content (nothing was written)"),
        "{shown}"
    );
    assert!(!site.out().exists(), "check created the output folder");
    // Clean content: exit 0, and an existing output folder is left exactly as it was.
    site.write(EN_POST, EN_POST_TEXT);
    site.build().assert_success();
    let before = snapshot(&site.out());
    std::fs::remove_file(site.out().join(".content-api/manifest.json")).unwrap();
    let before_without_manifest = snapshot(&site.out());
    assert_ne!(before.len(), before_without_manifest.len());
    let checked = run(
        site.root(),
        &["check", "--content", "content", "--out", "out"],
        &[],
    );
    assert_eq!(code(&checked), 0, "{}", stderr(&checked));
    assert!(
        stderr(&checked).contains("no errors"),
        "{}",
        stderr(&checked)
    );
    common::assert_same(&before_without_manifest, &snapshot(&site.out()));
}

#[test]
fn one_yaml_mistake_is_one_error_at_the_opening_quote() {
    let site = Site::new();
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("title: \"Hello\"", "title: \"Hello"),
    );
    let checked = run(site.root(), &["check", "--content", "content"], &[]);
    assert_eq!(code(&checked), 1);
    let shown = stderr(&checked);
    let errors: Vec<&str> = shown.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 2, "one error and the summary: {shown}");
    assert!(
        errors[0].contains("the value of `title` opens a quote that is never closed"),
        "{shown}"
    );
    assert!(shown.contains(&format!("--> {EN_POST}:2:8")), "{shown}");
    assert!(
        shown.contains("help: add the closing \" at the end of the value on line 2"),
        "{shown}"
    );
    assert!(!shown.contains("missing required field"), "{shown}");
}

#[test]
fn placeholder_settings_warn_and_fail_in_ci() {
    let site = Site::new();
    let built = run(site.root(), &BUILD, &[]);
    assert_eq!(code(&built), 0);
    let shown = stderr(&built);
    assert!(
        shown.contains("warning: this build uses placeholder settings"),
        "{shown}"
    );
    for what in [
        "`base_url`",
        "--base-url",
        "`author`",
        "`licence`",
        "http://localhost:4321",
        "content-api init",
    ] {
        assert!(shown.contains(what), "{what} in {shown}");
    }
    std::fs::remove_dir_all(site.out()).unwrap();
    for ci in ["true", "1", "yes"] {
        let failed = run(site.root(), &BUILD, &[("CI", ci)]);
        assert_eq!(code(&failed), 2, "CI={ci}: {}", stderr(&failed));
        let shown = stderr(&failed);
        assert!(
            shown.contains("error: this build uses placeholder settings"),
            "{shown}"
        );
        assert!(
            shown.contains("the environment variable CI is set"),
            "{shown}"
        );
        assert!(
            !site.out().exists(),
            "a failed build wrote the output folder"
        );
    }
    for not_ci in ["", "false", "0"] {
        let built = run(site.root(), &BUILD, &[("CI", not_ci)]);
        assert_eq!(code(&built), 0, "CI={not_ci:?}: {}", stderr(&built));
    }
    // --base-url alone still leaves the author and licence: named, base_url not.
    let mut args = BUILD.to_vec();
    args.extend(["--base-url", "https://site.example"]);
    let failed = run(site.root(), &args, &[("CI", "true")]);
    assert_eq!(code(&failed), 2);
    assert!(stderr(&failed).contains("`author`") && !stderr(&failed).contains("`base_url`"));
    // Every placeholder set in watch.toml: no warning, and CI builds.
    std::fs::write(site.root().join("watch.toml"), FULL_CONFIG).unwrap();
    let built = run(site.root(), &["build", "--today", TODAY], &[("CI", "true")]);
    assert_eq!(code(&built), 0, "{}", stderr(&built));
    assert!(
        !stderr(&built).contains("placeholder"),
        "{}",
        stderr(&built)
    );
    // `check` applies the same rules (a pull request's check fails when its deploy would):
    // a warning outside CI, an error (exit 2) in CI.
    std::fs::remove_file(site.root().join("watch.toml")).unwrap();
    let checked = run(site.root(), &["check"], &[]);
    assert_eq!(code(&checked), 0, "{}", stderr(&checked));
    assert!(stderr(&checked).contains("warning: this build uses placeholder settings"));
    let checked = run(site.root(), &["check"], &[("CI", "true")]);
    assert_eq!(code(&checked), 2, "{}", stderr(&checked));
    assert!(stderr(&checked).contains("error: this build uses placeholder settings"));
}

#[test]
fn quiet_hides_information_and_verbose_shows_the_phases() {
    let site = Site::new();
    std::fs::write(site.root().join("watch.toml"), FULL_CONFIG).unwrap();
    let normal = run(site.root(), &["build", "--today", TODAY], &[]);
    assert!(
        stderr(&normal).contains("INFO built"),
        "{}",
        stderr(&normal)
    );
    let quiet = run(site.root(), &["build", "--quiet", "--today", TODAY], &[]);
    assert_eq!(code(&quiet), 0);
    assert_eq!(stderr(&quiet), "", "--quiet printed something");
    // Warnings and errors still show with --quiet.
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("seriesOrder: 1", "seriesOrder: x"),
    );
    let quiet = run(site.root(), &["-q", "build", "--today", TODAY], &[]);
    assert_eq!(code(&quiet), 1);
    assert!(stderr(&quiet).contains("`seriesOrder` must be an integer"));
    site.write(EN_POST, EN_POST_TEXT);
    let verbose = run(site.root(), &["build", "-v", "--today", TODAY], &[]);
    assert!(
        stderr(&verbose).contains("DEBUG scanned"),
        "{}",
        stderr(&verbose)
    );
    assert!(!stderr(&normal).contains("DEBUG"));
}

/// Runs `args` under a pseudo-terminal (util-linux `script`), so stderr is a terminal.
fn run_on_terminal(dir: &Path, args: &str, env: &[(&str, &str)]) -> Option<String> {
    let script = common::need::SCRIPT.program()?;
    let line = format!("{} {args}", common::BIN);
    Some(run_cmd_in_pty(&script, dir, &line, env))
}

fn run_cmd_in_pty(script: &Path, dir: &Path, line: &str, env: &[(&str, &str)]) -> String {
    let mut command = Command::new(script);
    command
        .args(["-qec", line, "/dev/null"])
        .current_dir(dir)
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("script runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn colour_and_progress_on_a_terminal_only_and_never_with_no_color_or_ci() {
    let site = Site::new();
    std::fs::write(site.root().join("watch.toml"), FULL_CONFIG).unwrap();
    site.write(
        EN_POST,
        EN_POST_TEXT.replace("seriesOrder: 1", "seriesOrder: x"),
    );
    let Some(coloured) = run_on_terminal(site.root(), &format!("check --today {TODAY}"), &[])
    else {
        return;
    };
    assert!(
        coloured.contains("\x1b["),
        "no colour on a terminal: {coloured:?}"
    );
    let plain = run_on_terminal(
        site.root(),
        &format!("check --today {TODAY}"),
        &[("NO_COLOR", "1")],
    )
    .unwrap();
    assert!(
        plain.contains("`seriesOrder` must be an integer"),
        "{plain}"
    );
    assert!(
        !plain.contains("\x1b[1m") && !plain.contains("\x1b[3"),
        "colour despite NO_COLOR: {plain:?}"
    );
    // The status line: a self-erasing line on a terminal; none in CI, with --quiet, or in a pipe.
    site.write(EN_POST, EN_POST_TEXT);
    let build = format!("build --today {TODAY}");
    let terminal = run_on_terminal(site.root(), &build, &[("NO_COLOR", "1")]).unwrap();
    // Each phase is drawn, and the last is erased before the build's own lines.
    let status = &terminal[..terminal.find(" INFO").unwrap_or(terminal.len())];
    assert!(
        status.starts_with("reading the content") && status.ends_with("\r\x1b[2K"),
        "{terminal:?}"
    );
    assert!(status.contains("writing "), "{terminal:?}");
    let in_ci = run_on_terminal(site.root(), &build, &[("NO_COLOR", "1"), ("CI", "true")]).unwrap();
    assert!(
        !in_ci.contains('\r') || !in_ci.contains("reading the content"),
        "{in_ci:?}"
    );
    let quiet = run_on_terminal(site.root(), &format!("{build} -q"), &[]).unwrap();
    assert!(!quiet.contains("reading the content"), "{quiet:?}");
    let piped = run(site.root(), &["build", "--today", TODAY], &[]);
    assert!(!stderr(&piped).contains("reading the content"));
    assert!(!stderr(&piped).contains('\x1b'), "escape codes in a pipe");
}

#[test]
fn a_bare_command_says_first_that_it_watches_and_how_to_stop() {
    let site = Site::new();
    let mut child = Command::new(common::BIN)
        .args(["--content", "content", "--out", "out", "--today", TODAY])
        .current_dir(site.root())
        .env_remove("RUST_LOG")
        .env_remove("CI")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.contains("watching for changes"), "{first}");
    assert!(first.contains("Ctrl-C to stop"), "{first}");
    assert!(first.contains("content-api build"), "{first}");
}

#[test]
fn init_creates_a_site_that_builds_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let made = run(dir.path(), &["init", "site", "--today", TODAY], &[]);
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    let site = dir.path().join("site");
    for file in [
        "watch.toml".to_string(),
        format!("content/blog/en/{TODAY}_hello-world.md"),
        format!("content/blog/es/{TODAY}_hello-world.md"),
        "content/tags/welcome.md".to_string(),
    ] {
        assert!(site.join(&file).is_file(), "{file}");
        assert!(stdout(&made).contains(&file), "{file} not announced");
    }
    let config = std::fs::read_to_string(site.join("watch.toml")).unwrap();
    assert!(
        config
            .lines()
            .filter(|l| l.contains(" = "))
            .all(|l| l.starts_with('#')),
        "{config}"
    );
    let built = run(
        &site,
        &[
            "build",
            "--today",
            TODAY,
            "--base-url",
            "https://site.example",
        ],
        &[],
    );
    assert_eq!(code(&built), 0, "{}", stderr(&built));
    assert_eq!(content_diagnostics(&stderr(&built)), Vec::<&str>::new());
    for path in [
        "out/api/posts-en.json",
        "out/api/posts-es.json",
        "out/api/timeline/es/welcome.json",
    ] {
        assert!(site.join(path).is_file(), "{path}");
    }
    // Again: refused, with every existing file named, and nothing changed.
    std::fs::write(
        site.join("watch.toml"),
        "base_url = \"https://mine.example\"\n",
    )
    .unwrap();
    let again = run(dir.path(), &["init", "site", "--today", TODAY], &[]);
    assert_eq!(code(&again), 2);
    assert!(
        stderr(&again).contains("never overwrites"),
        "{}",
        stderr(&again)
    );
    assert!(
        stderr(&again).contains("site/watch.toml"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(site.join("watch.toml")).unwrap(),
        "base_url = \"https://mine.example\"\n"
    );
}

#[test]
fn init_in_a_hugo_site_writes_its_watch_toml_and_no_sample_content() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    let files = [
        (
            "hugo.toml",
            "baseURL = 'https://hugo.example/'\ntitle = 'Mine'\n[languages.en]\nweight = 1\n[languages.fr]\nweight = 2\n",
        ),
        (
            "content/posts/first/index.md",
            "+++\ntitle = 'First'\ndate = 2024-05-01\n+++\nHello.\n",
        ),
        (
            "content/posts/first/index.fr.md",
            "+++\ntitle = 'Premier'\ndate = 2024-05-01\n+++\nBonjour.\n",
        ),
        (
            "content/posts/second/index.md",
            "+++\ntitle = 'Second'\ndate = 2024-06-01\nsummary = 'S'\n+++\n",
        ),
    ];
    for (path, text) in files {
        std::fs::create_dir_all(site.join(path).parent().unwrap()).unwrap();
        std::fs::write(site.join(path), text).unwrap();
    }
    let made = run(site, &["init", "--today", TODAY], &[]);
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    assert!(
        stdout(&made).contains("generator: Hugo"),
        "{}",
        stdout(&made)
    );
    assert!(
        stdout(&made).contains("posts/{slug}/index.{lang}  3 files"),
        "{}",
        stdout(&made)
    );
    // watch.toml only: no sample posts, no tag, nothing else beside the site's own files.
    assert!(!site.join("content/blog").exists());
    assert!(!site.join("content/tags").exists());
    let mut all: Vec<String> = walkdir::WalkDir::new(site)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(site)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    all.sort();
    let mut expected: Vec<String> = files.iter().map(|(p, _)| p.to_string()).collect();
    expected.push("watch.toml".to_string());
    expected.sort();
    assert_eq!(all, expected);
    let config = std::fs::read_to_string(site.join("watch.toml")).unwrap();
    let table: toml::Table = config.parse().unwrap_or_else(|e| panic!("{e}\n{config}"));
    assert_eq!(table["base_url"].as_str(), Some("https://hugo.example/"));
    assert_eq!(table["content_dir"].as_str(), Some("content"));
    assert!(config.contains("# Hugo (hugo.toml found)"), "{config}");
    // Again: watch.toml is never overwritten.
    let again = run(site, &["init"], &[]);
    assert_eq!(code(&again), 2);
    assert!(
        stderr(&again).contains("never overwrites"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(site.join("watch.toml")).unwrap(),
        config
    );
}

#[test]
fn new_files_build_without_any_error_or_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A time zone where the date is rarely UTC's: the file must be dated there.
    let zone = "Pacific/Kiritimati";
    std::fs::write(
        root.join("watch.toml"),
        format!("timezone = \"{zone}\"\n{FULL_CONFIG}"),
    )
    .unwrap();
    assert_eq!(
        code(&run(root, &["init", "seed", "--today", TODAY], &[])),
        0
    );
    std::fs::rename(root.join("seed/content"), root.join("content")).unwrap();
    let today = chrono::Utc::now()
        .with_timezone(&zone.parse::<chrono_tz::Tz>().unwrap())
        .date_naive();
    let title = "Café con Leche: ¿Por qué \"no\"?";
    let slug = content_api::cli::slugify(title).unwrap();
    assert_eq!(slug, "cafe-con-leche-por-que-no");
    let made = run(
        root,
        &["new", "post", title, "--lang", "es", "--tags", "welcome"],
        &[],
    );
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    let path = format!("content/blog/es/{today}_{slug}.md");
    assert_eq!(stdout(&made).trim(), format!("./{path}"), "prints the path");
    // The translation uses the same slug, so both languages share the file name.
    let made = run(
        root,
        &["new", "post", "Coffee with milk", "--slug", &slug],
        &[],
    );
    assert_eq!(
        stdout(&made).trim(),
        format!("./content/blog/en/{today}_{slug}.md")
    );
    let made = run(root, &["new", "series", "Learning Rust"], &[]);
    assert_eq!(
        stdout(&made).trim(),
        "./content/series/learning-rust.md",
        "{}",
        stderr(&made)
    );
    let made = run(
        root,
        &[
            "new",
            "post",
            "Chapter One",
            "--series",
            "learning-rust",
            "--draft",
        ],
        &[],
    );
    assert_eq!(code(&made), 0, "{}", stderr(&made));
    let made = run(root, &["new", "deck", "My First Talk", "--lang", "es"], &[]);
    assert_eq!(
        stdout(&made).trim(),
        format!("./content/slides/es/{today}_my-first-talk.md")
    );
    // Everything builds, with no error and no warning, drafts included.
    for extra in [&[][..], &["--drafts"][..]] {
        let mut args = vec!["build"];
        args.extend_from_slice(extra);
        let built = run(root, &args, &[("CI", "true")]);
        assert_eq!(code(&built), 0, "{}", stderr(&built));
        let shown = stderr(&built);
        assert!(
            !shown.contains("error") && !shown.contains("warning"),
            "{shown}"
        );
    }
    let posts = std::fs::read_to_string(root.join("out/api/posts-es.json")).unwrap();
    assert!(
        posts.contains(&format!("\"{slug}\""))
            && posts.contains("Café con Leche: ¿Por qué \\\"no\\\"?"),
        "{posts}"
    );
    // Never overwrites; unknown references are refused before anything is written.
    let before = std::fs::read(root.join(&path)).unwrap();
    let again = run(root, &["new", "post", title, "--lang", "es"], &[]);
    assert_eq!(code(&again), 2);
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read(root.join(&path)).unwrap(), before);
    assert!(!stderr(&again).contains("--date"), "{}", stderr(&again));
    // Nor on another day: one slug per language (the build would refuse the pair).
    let other_day = run(
        root,
        &["new", "post", title, "--lang", "es", "--date", "2020-01-01"],
        &[],
    );
    assert_eq!(code(&other_day), 2, "{}", stderr(&other_day));
    assert!(
        stderr(&other_day).contains(&format!("already has the slug `{slug}`")),
        "{}",
        stderr(&other_day)
    );
    assert!(
        !root
            .join(format!("content/blog/es/2020-01-01_{slug}.md"))
            .exists()
    );
    let unknown = run(root, &["new", "post", "Other", "--series", "nope"], &[]);
    assert!(stderr(&unknown).contains("there is no series `nope`"));
    let nothing = run(root, &["new", "post", "!!!"], &[]);
    assert_eq!(code(&nothing), 2);
    assert!(stderr(&nothing).contains("--slug"));
}

#[test]
fn completions_and_man_page_come_from_the_command_definition() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = run(dir.path(), &["completions", shell], &[]);
        assert_eq!(code(&script), 0, "{shell}");
        let text = stdout(&script);
        for word in ["check", "init", "completions", "base-url", "quiet"] {
            assert!(text.contains(word), "{shell} completion lacks {word}");
        }
    }
    if let Some(bash) = common::need::BASH.program() {
        let script = stdout(&run(dir.path(), &["completions", "bash"], &[]));
        std::fs::write(dir.path().join("c.bash"), script).unwrap();
        let syntax = Command::new(bash)
            .arg("-n")
            .arg(dir.path().join("c.bash"))
            .output()
            .unwrap();
        assert!(
            syntax.status.success(),
            "{}",
            String::from_utf8_lossy(&syntax.stderr)
        );
    }
    let man = run(dir.path(), &["man"], &[]);
    assert_eq!(code(&man), 0);
    let page = stdout(&man);
    assert!(page.contains(".TH content-api 1"), "{page}");
    for word in ["check", "init", "NO_COLOR", "base\\-url"] {
        assert!(page.contains(word), "man page lacks {word}");
    }
    // Every command has its section with its own options, commands of commands too.
    for section in [
        ".SH \"CONTENT-API BUILD\"",
        ".SH \"CONTENT-API NEW POST\"",
        ".SH \"CONTENT-API HOSTING NGINX\"",
    ] {
        assert!(page.contains(section), "man page lacks {section}");
    }
    let new_post = page.split(".SH \"CONTENT-API NEW POST\"").nth(1).unwrap();
    let new_post = new_post.split(".SH ").next().unwrap();
    assert!(new_post.contains("\\-\\-series"), "{new_post}");
    let bad = run(dir.path(), &["completions", "tcsh"], &[]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn watch_says_when_a_file_is_fixed_and_repeats_an_error_in_full() {
    let site = Site::new();
    std::fs::write(
        site.root().join("watch.toml"),
        format!("{FULL_CONFIG}[watch]\ndebounce_ms = 20\n"),
    )
    .unwrap();
    let mut child = Command::new(common::BIN)
        .args(["watch", "--today", TODAY])
        .current_dir(site.root())
        .env_remove("RUST_LOG")
        .env_remove("CI")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut log: Vec<String> = Vec::new();
    let wait_for = |needle: &str, log: &mut Vec<String>| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
                let found = line.contains(needle);
                log.push(line);
                if found {
                    return;
                }
            }
        }
        panic!("no line with {needle:?} in:\n{}", log.join("\n"));
    };
    wait_for("Ctrl-C to stop", &mut log);
    let broken = EN_POST_TEXT.replace("seriesOrder: 1", "seriesOrder: \"1\"");
    site.write(EN_POST, &broken);
    wait_for("has errors", &mut log);
    // Saved again, still broken (the same error): the error is shown again in full.
    site.write(EN_POST, broken.replace("Body.", "Body, edited."));
    wait_for("has errors", &mut log);
    // Fixed by restoring the last good text (nothing to rebuild)...
    site.write(EN_POST, EN_POST_TEXT);
    wait_for("is fixed: no more errors", &mut log);
    // ... and by a new version (a rebuild).
    site.write(EN_POST, &broken);
    wait_for("has errors", &mut log);
    site.write(EN_POST, EN_POST_TEXT.replace("Body.", "Body, fixed."));
    wait_for("is fixed: no more errors", &mut log);
    child.kill().unwrap();
    child.wait().unwrap();
    let full_errors = log
        .iter()
        .filter(|l| l.contains("`seriesOrder` must be an integer"))
        .count();
    assert_eq!(full_errors, 3, "{}", log.join("\n"));
    let fixed: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("is fixed: no more errors"))
        .collect();
    assert_eq!(fixed.len(), 2, "{}", log.join("\n"));
    assert!(fixed.iter().all(|l| l.contains(EN_POST)), "{fixed:?}");
}

#[test]
fn the_read_bounds_in_help_are_the_codes() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = content_api::mcp::BOUNDS;
    let verify = content_api::verify::client::Bounds::DEFAULT;
    for (command, bounds) in [
        ("mcp", [mcp.max_bytes, mcp.deadline.as_secs()]),
        ("verify", [verify.max_bytes, verify.deadline.as_secs()]),
    ] {
        let help = stdout(&run(dir.path(), &[command, "--help"], &[]));
        let [bytes, seconds] = bounds;
        for said in [
            format!("{} MiB", bytes >> 20),
            format!("{seconds} s in all"),
        ] {
            assert!(
                help.contains(&said),
                "`{command} --help` says {said}: {help}"
            );
        }
    }
}

/// `verify` shows which check it is at on a terminal (one line, rewritten), and
/// nothing of the kind when stderr is a pipe.
#[test]
fn verify_shows_its_progress_on_a_terminal_only() {
    let site = Site::new();
    let served = common::Served::spawn(
        Command::new(common::BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
            .current_dir(site.root())
            .env_remove("CI")
            .stderr(Stdio::null()),
    );
    let origin = served.origin.clone();
    let on_terminal = run_on_terminal(site.root(), &format!("verify {origin}"), &[]);
    let piped = run(site.root(), &["verify", &origin], &[]);
    drop(served);
    let Some(on_terminal) = on_terminal else {
        return;
    };
    assert!(on_terminal.contains("checking 1/"), "{on_terminal}");
    assert!(
        !stderr(&piped).contains("checking 1/"),
        "{}",
        stderr(&piped)
    );
}

/// `hosting nginx` for a folder nginx's workers (the `user` of /etc/nginx/nginx.conf) cannot
/// enter: no block (it would answer 404 to every request), an error naming the folder and the
/// fix, exit 2; once they can, the block and exit 0.
#[test]
fn hosting_nginx_refuses_a_folder_the_workers_cannot_enter() {
    use std::os::unix::fs::PermissionsExt;
    if common::need::NGINX.program().is_none() {
        return;
    }
    let conf = std::fs::read_to_string("/etc/nginx/nginx.conf").unwrap_or_default();
    if !conf
        .lines()
        .any(|line| line.trim_start().starts_with("user "))
    {
        common::need::NGINX.missing("no `user` in /etc/nginx/nginx.conf");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private");
    let out = private.join("site-api");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let args = [
        "hosting",
        "nginx",
        "--listen",
        "8080",
        "--out",
        out.to_str().unwrap(),
    ];
    let refused = run(dir.path(), &args, &[]);
    let text = stderr(&refused);
    assert_eq!(code(&refused), 2, "{text}");
    assert_eq!(
        stdout(&refused),
        "",
        "no block for a folder nginx cannot serve"
    );
    assert!(text.contains("error: nginx's workers run as"), "{text}");
    assert!(
        text.contains(&format!("chmod o+x {}", private.display())),
        "{text}"
    );
    assert!(
        !text.contains(&format!("such as {}", out.display())),
        "{text}"
    );
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o711)).unwrap();
    let served = run(dir.path(), &args, &[]);
    assert_eq!(code(&served), 0, "{}", stderr(&served));
    assert!(stdout(&served).contains("server {"), "{}", stdout(&served));
}
