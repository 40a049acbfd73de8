//! The author's daily loop, from the command line: nothing wrong is published without a word
//! (the licence's URL and terms; `check` and `build` fail alike in CI), tags created where they
//! are named (`new tag`, `new post --tags`), what will go live (`list`, `--future`), and the
//! command line's own manners (each command's `--help` lists its own flags; `serve` fails
//! before it says it serves and leaves nothing behind; the refusal to share an output folder
//! says how to build elsewhere).

use crate::common;

use common::{Run, Site, TIMEOUT, TODAY, run_binary_with};
use std::path::Path;

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_binary_with(dir, args, env, TIMEOUT)
}

/// A watch.toml with every placeholder set, and `licence` lines of the test's choice.
fn config_with_licence(licence_lines: &str) -> String {
    format!(
        "base_url = \"https://site.example\"\n[site]\nname = \"Site\"\nauthor = \"Ana\"\n{licence_lines}"
    )
}

/// Builds `site` into `out/` with `config`, and returns the documents that state the licence.
fn licence_documents(site: &Site, config: &str) -> (Run, Vec<(String, String)>) {
    std::fs::write(site.root().join("watch.toml"), config).unwrap();
    let _ = std::fs::remove_dir_all(site.out());
    let built = run(site.root(), &["build", "--today", TODAY], &[]);
    let read = |path: &str| std::fs::read_to_string(site.out().join(path)).unwrap_or_default();
    let documents = [
        "llms.txt",
        "llms-full.txt",
        "openapi.json",
        "auth.md",
        "developers.md",
        ".well-known/ai-catalog.json",
        ".well-known/api-catalog",
    ]
    .into_iter()
    .map(|path| (path.to_string(), read(path)))
    .collect();
    (built, documents)
}

#[test]
fn a_known_licence_gets_its_own_url_and_attribution_only_when_it_requires_it() {
    let site = Site::new();
    const CC0: &str = "https://creativecommons.org/publicdomain/zero/1.0/";
    const CC_BY: &str = "https://creativecommons.org/licenses/by/4.0/";
    // The issue's case: CC0 without licence_url once published the CC BY URL and "with
    // attribution" everywhere.
    for spelling in ["CC0 1.0", "CC0-1.0", "cc0"] {
        let (built, documents) = licence_documents(
            &site,
            &config_with_licence(&format!("licence = \"{spelling}\"\n")),
        );
        built.assert_success();
        assert!(!built.stderr.contains("warning"), "{}", built.stderr);
        for (path, text) in &documents {
            assert!(text.contains(CC0), "{path} lacks CC0's URL:\n{text}");
            assert!(!text.contains(CC_BY), "{path} names CC BY's URL");
            assert!(
                !text.to_lowercase().contains("attribution"),
                "{path} asks for attribution under CC0:\n{text}"
            );
        }
    }
    // CC BY-SA: attribution, and its share-alike condition, in every document that states terms.
    let (built, documents) =
        licence_documents(&site, &config_with_licence("licence = \"CC-BY-SA-4.0\"\n"));
    built.assert_success();
    for (path, text) in &documents {
        assert!(
            text.contains("https://creativecommons.org/licenses/by-sa/4.0/"),
            "{path}"
        );
        if ["llms.txt", "llms-full.txt", "auth.md", "developers.md"].contains(&path.as_str()) {
            assert!(text.contains("with attribution"), "{path}:\n{text}");
            assert!(
                text.contains("with adaptations shared under the same licence"),
                "{path}"
            );
        }
    }
}

#[test]
fn an_unknown_licence_without_its_url_warns_and_fails_check_and_build_alike_in_ci() {
    let site = Site::new();
    let config = config_with_licence("licence = \"All rights reserved\"\n");
    let (built, documents) = licence_documents(&site, &config);
    built.assert_success();
    assert!(
        built.stderr.contains(
            "warning: the licence \"All rights reserved\" is not one content-api knows, and `licence_url` is not set"
        ),
        "{}",
        built.stderr
    );
    assert!(built.stderr.contains("licence_url") && built.stderr.contains("CC-BY-4.0"));
    for (path, text) in &documents {
        assert!(!text.contains("creativecommons.org"), "{path}");
        assert!(
            !text.contains("reuse is allowed"),
            "{path} claims terms:\n{text}"
        );
        assert!(!text.to_lowercase().contains("attribution"), "{path}");
    }
    assert!(
        documents[0]
            .1
            .contains("see the licence for the reuse it allows")
    );
    // In CI, build and check stop alike: exit 2, nothing written.
    let _ = std::fs::remove_dir_all(site.out());
    for command in ["build", "check"] {
        let failed = run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]);
        failed.assert_code(2);
        assert!(
            failed.stderr.contains(
                "error: the licence \"All rights reserved\" is not one content-api knows"
            ),
            "{command}: {}",
            failed.stderr
        );
        assert!(!site.out().exists(), "{command} wrote the output folder");
    }
    // With its URL it is fine, and its terms are left to its text.
    let (built, documents) = licence_documents(
        &site,
        &config_with_licence(
            "licence = \"All rights reserved\"\nlicence_url = \"https://site.example/terms\"\n",
        ),
    );
    built.assert_success();
    assert!(!built.stderr.contains("warning"), "{}", built.stderr);
    assert!(documents[0].1.contains("https://site.example/terms"));
    for command in ["build", "check"] {
        run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]).assert_success();
    }
}

#[test]
fn a_licence_url_of_another_licence_is_reported() {
    let site = Site::new();
    let config = config_with_licence(
        "licence = \"CC0 1.0\"\nlicence_url = \"https://creativecommons.org/licenses/by/4.0/\"\n",
    );
    std::fs::write(site.root().join("watch.toml"), config).unwrap();
    for command in ["build", "check"] {
        let warned = run(site.root(), &[command, "--today", TODAY], &[]);
        warned.assert_success();
        assert!(
            warned
                .stderr
                .contains("`licence` is \"CC0 1.0\" (CC0-1.0), but `licence_url`"),
            "{command}: {}",
            warned.stderr
        );
        run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]).assert_code(2);
    }
}

#[test]
fn check_and_build_exit_alike_on_placeholder_settings() {
    let site = Site::new();
    for (env, expected) in [(&[][..], 0), (&[("CI", "true")][..], 2)] {
        let _ = std::fs::remove_dir_all(site.out());
        let checked = run(site.root(), &["check", "--today", TODAY], env);
        let built = run(site.root(), &["build", "--today", TODAY], env);
        assert_eq!(
            checked.code(),
            expected,
            "check {env:?}: {}",
            checked.stderr
        );
        assert_eq!(built.code(), expected, "build {env:?}: {}", built.stderr);
        for run in [&checked, &built] {
            assert!(
                run.stderr.contains("placeholder settings"),
                "{}",
                run.stderr
            );
        }
    }
}

/// A fresh `init` site with its settings filled in (so CI builds it), in `dir`.
fn init_site(dir: &Path) {
    run(dir, &["init", ".", "--today", TODAY], &[]).assert_success();
    std::fs::write(
        dir.join("watch.toml"),
        config_with_licence("licence = \"CC-BY-4.0\"\n"),
    )
    .unwrap();
}

#[test]
fn new_post_creates_the_tags_it_names_and_new_tag_makes_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init_site(root);
    // docs/commands.md's example, on a fresh site: both tags are created, and said so.
    let made = run(
        root,
        &[
            "new",
            "post",
            "Café con Leche",
            "--tags",
            "coffee,colombia,welcome",
            "--today",
            TODAY,
        ],
        &[],
    );
    made.assert_success();
    assert_eq!(
        made.stdout.trim(),
        format!("./content/blog/en/{TODAY}_cafe-con-leche.md"),
        "only the post's path on stdout"
    );
    for tag in ["coffee", "colombia"] {
        assert!(
            made.stderr.contains(&format!(
                "created ./content/tags/{tag}.md: the new primary tag `{tag}`"
            )),
            "{}",
            made.stderr
        );
        let text = std::fs::read_to_string(root.join(format!("content/tags/{tag}.md"))).unwrap();
        assert!(text.contains(&format!("name: \"{tag}\"")) && text.contains("tier: primary"));
    }
    assert!(
        !made.stderr.contains("welcome.md"),
        "an existing tag is left alone"
    );
    // `new tag` with a tier, a description and a parent.
    let made = run(
        root,
        &[
            "new",
            "tag",
            "medellin",
            "--tier",
            "subtopic",
            "--description",
            "The city.",
            "--parent",
            "colombia",
        ],
        &[],
    );
    made.assert_success();
    assert_eq!(made.stdout.trim(), "./content/tags/medellin.md");
    let text = std::fs::read_to_string(root.join("content/tags/medellin.md")).unwrap();
    assert_eq!(
        text,
        "---\nname: \"medellin\"\ndescription: \"The city.\"\ntier: subtopic\nparent: \"colombia\"\n---\n"
    );
    // Everything builds in CI without an error or a warning: no post names an unknown tag.
    let built = run(root, &["build", "--today", TODAY], &[("CI", "true")]);
    built.assert_success();
    assert!(
        !built.stderr.contains("warning") && !built.stderr.contains("error"),
        "{}",
        built.stderr
    );
    let timeline = std::fs::read_to_string(root.join("out/api/timeline/en/coffee.json")).unwrap();
    assert!(timeline.contains("cafe-con-leche"), "{timeline}");
    // Refusals: an existing tag, a bad name, an unknown parent; a bad tag in --tags writes
    // nothing at all.
    let again = run(root, &["new", "tag", "coffee"], &[]);
    again.assert_code(2);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    let bad = run(root, &["new", "tag", "Coffee Shops"], &[]);
    bad.assert_code(2);
    assert!(
        bad.stderr.contains("content-api new tag coffee-shops"),
        "{}",
        bad.stderr
    );
    let orphan = run(root, &["new", "tag", "x", "--parent", "nowhere"], &[]);
    orphan.assert_code(2);
    assert!(
        orphan.stderr.contains("content-api new tag nowhere"),
        "{}",
        orphan.stderr
    );
    let refused = run(
        root,
        &["new", "post", "Other", "--tags", "fine,Not Fine"],
        &[],
    );
    refused.assert_code(2);
    assert!(!root.join("content/tags/fine.md").exists());
}

/// A post of `site` dated `date`, optionally a draft.
fn post(site: &Site, slug: &str, date: &str, draft: bool) -> String {
    let path = format!("blog/en/{date}_{slug}.md");
    site.write(
        &path,
        format!(
            "---\ntitle: \"{slug}\"\ndescription: \"d\"\npubDate: {date}\n{}---\n\nBody.\n",
            if draft { "draft: true\n" } else { "" }
        ),
    );
    path
}

#[test]
fn list_shows_drafts_scheduled_and_published_posts_with_dates_and_paths() {
    let site = Site::new();
    post(&site, "soon", "2024-06-10", false);
    post(&site, "later", "2024-07-01", false);
    post(&site, "wip", "2024-05-20", true);
    post(&site, "wip-later", "2024-08-01", true);
    site.write(
        "slides/en/2024-06-15_talk.md",
        "---\ntype: native\ntitle: \"Talk\"\ndescription: \"d\"\npubDate: 2024-06-15\n---\n\nSlides.\n",
    );
    let list = |which: &str| {
        let listed = run(site.root(), &["list", which, "--today", TODAY], &[]);
        listed.assert_success();
        listed
    };
    let scheduled = list("scheduled");
    let lines: Vec<&str> = scheduled.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", scheduled.stdout);
    // Soonest first, with the date it goes live, its kind and language, its path and title.
    assert!(
        lines[0].starts_with("2024-06-10  post en  ./content/blog/en/2024-06-10_soon.md"),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with("  soon"), "{}", lines[0]);
    assert!(lines[1].starts_with("2024-06-15  deck en  ./content/slides/en/2024-06-15_talk.md"));
    assert!(lines[2].starts_with("2024-07-01  post en"));
    assert!(
        scheduled.stderr.contains("3 scheduled") && scheduled.stderr.contains("midnight in UTC"),
        "{}",
        scheduled.stderr
    );
    let drafts = list("drafts");
    let lines: Vec<&str> = drafts.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", drafts.stdout);
    assert!(lines[0].starts_with("2024-08-01  post en  ./content/blog/en/2024-08-01_wip-later.md"));
    assert!(lines[1].starts_with("2024-05-20  post en  ./content/blog/en/2024-05-20_wip.md"));
    let published = list("published");
    assert_eq!(published.stdout.lines().count(), 2, "{}", published.stdout);
    assert!(
        published
            .stdout
            .contains("./content/blog/es/2024-05-01_hello.md")
    );
    // A broken post is named, not listed.
    post(&site, "broken", "2024-13-01", false);
    let listed = list("scheduled");
    assert!(
        listed.stderr.contains("2024-13-01_broken.md"),
        "{}",
        listed.stderr
    );
    assert!(
        listed.stderr.contains("content-api check"),
        "{}",
        listed.stderr
    );
    let bad = run(site.root(), &["list", "everything"], &[]);
    bad.assert_code(2);
}

#[test]
fn future_previews_scheduled_posts_and_is_never_recorded() {
    let site = Site::new();
    // A site's folder: its builds record the publishing history.
    std::fs::write(site.root().join("watch.toml"), "").unwrap();
    post(&site, "soon", "2024-06-10", false);
    post(&site, "wip-later", "2024-08-01", true);
    let history = site.root().join("content-api.history");
    let built = run(site.root(), &["build", "--today", TODAY, "--future"], &[]);
    built.assert_success();
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("\"soon\""), "--future publishes it: {posts}");
    assert!(
        !posts.contains("wip-later"),
        "a draft stays out without --drafts"
    );
    assert!(!history.exists(), "a preview records nothing");
    let both = run(
        site.root(),
        &["build", "--today", TODAY, "--future", "--drafts"],
        &[],
    );
    both.assert_success();
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("wip-later"), "{posts}");
    assert!(!history.exists());
    // The production build after the preview: the scheduled post is gone again, and only
    // what production publishes is recorded.
    let built = run(site.root(), &["build", "--today", TODAY], &[]);
    built.assert_success();
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(!posts.contains("\"soon\""), "{posts}");
    let recorded = std::fs::read_to_string(&history).unwrap();
    assert!(recorded.contains("api/posts-en.json"));
    // A second --future build is not taken for the production one (its fingerprint differs).
    run(site.root(), &["build", "--today", TODAY, "--future"], &[]).assert_success();
    let posts = std::fs::read_to_string(site.out().join("api/posts-en.json")).unwrap();
    assert!(posts.contains("\"soon\""), "{posts}");
}

/// The long flags in the "Options" of `content-api ARGS --help`.
fn flags_in_help(args: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let mut with_help = args.to_vec();
    with_help.push("--help");
    let help = run(dir.path(), &with_help, &[]);
    help.assert_success();
    let mut flags: Vec<String> = help
        .stdout
        .split_whitespace()
        .filter(|word| word.starts_with("--"))
        .map(|word| {
            word.trim_end_matches([',', '.', ')', '`'])
                .split(['=', '['])
                .next()
                .unwrap()
                .to_string()
        })
        .filter(|flag| {
            flag.len() > 2
                && flag
                    .chars()
                    .skip(2)
                    .all(|c| c.is_ascii_lowercase() || c == '-')
        })
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn each_commands_help_lists_only_the_flags_it_uses() {
    let expected: &[(&[&str], &[&str])] = &[
        (
            &["build"],
            &[
                "--base-url",
                "--config",
                "--content",
                "--drafts",
                "--future",
                "--help",
                "--history",
                "--out",
                "--purge-list",
                "--quiet",
                "--take-over",
                "--today",
                "--verbose",
            ],
        ),
        (
            &["check"],
            &[
                "--base-url",
                "--config",
                "--content",
                "--format",
                "--help",
                "--history",
                "--out",
                "--quiet",
                "--today",
                "--verbose",
            ],
        ),
        (
            &["list"],
            &["--config", "--content", "--format", "--help", "--today"],
        ),
        (&["init"], &["--help", "--today"]),
        (
            &["new", "post"],
            &[
                "--config",
                "--content",
                "--date",
                "--description",
                "--draft",
                "--help",
                "--lang",
                "--series",
                "--slug",
                "--tags",
                "--today",
            ],
        ),
        (
            &["new", "series"],
            &["--config", "--content", "--description", "--help", "--slug"],
        ),
        (
            &["new", "tag"],
            &[
                "--config",
                "--content",
                "--description",
                "--help",
                "--parent",
                "--tier",
            ],
        ),
        (&["completions"], &["--help"]),
        (
            &["hosting", "nginx"],
            &[
                "--base-url",
                "--config",
                "--help",
                "--listen",
                "--out",
                "--server-name",
            ],
        ),
    ];
    for (command, flags) in expected {
        let shown = flags_in_help(command);
        assert_eq!(
            shown,
            flags.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
            "content-api {} --help",
            command.join(" ")
        );
    }
    // watch and serve take build's flags and their own.
    let watch = flags_in_help(&["watch"]);
    assert!(watch.contains(&"--poll".to_string()) && !watch.contains(&"--addr".to_string()));
    let serve = flags_in_help(&["serve"]);
    assert!(serve.contains(&"--poll".to_string()) && serve.contains(&"--addr".to_string()));
    // `new post --help` is the post's help, not the generic `new` one.
    let dir = tempfile::tempdir().unwrap();
    let help = run(dir.path(), &["new", "post", "--help"], &[]);
    assert!(
        help.stdout.contains("Usage: content-api new post"),
        "{}",
        help.stdout
    );
    // A flag before a command that does not take it is refused, naming both.
    let refused = run(dir.path(), &["--drafts", "check"], &[]);
    refused.assert_code(2);
    assert!(
        refused
            .stderr
            .contains("`--drafts` does not apply to `content-api check`"),
        "{}",
        refused.stderr
    );
}

#[test]
fn serve_in_a_folder_that_is_no_site_fails_first_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let failed = run(dir.path(), &["serve", "--addr", "127.0.0.1:0"], &[]);
    failed.assert_code(2);
    assert!(
        failed
            .stderr
            .contains("error: the content folder does not exist")
            && failed.stderr.contains("content-api init"),
        "{}",
        failed.stderr
    );
    for said in [&failed.stdout, &failed.stderr] {
        assert!(
            !said.contains("serving") && !said.contains("listening"),
            "{said}"
        );
    }
    assert!(
        !failed.stderr.contains("placeholder"),
        "the folder's problem is said alone: {}",
        failed.stderr
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "serve left {left:?} behind");
}

#[test]
fn a_second_writer_is_refused_with_how_to_build_elsewhere() {
    let site = Site::new();
    let _serving = common::Served::spawn(
        std::process::Command::new(common::BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--today", TODAY])
            .current_dir(site.root())
            .env_remove("CI")
            .stderr(std::process::Stdio::null()),
    );
    let refused = run(site.root(), &["build", "--today", TODAY], &[]);
    refused.assert_code(3);
    assert!(
        refused
            .stderr
            .contains("is being written by another process")
            && refused.stderr.contains("content-api serve")
            && refused
                .stderr
                .contains("add --out DIR to this command, for example --out ./out-2"),
        "{}",
        refused.stderr
    );
    // What it suggests works while the server runs.
    run(
        site.root(),
        &["build", "--today", TODAY, "--out", "./out-2"],
        &[],
    )
    .assert_success();
    assert!(site.root().join("out-2/api/posts.json").is_file());
    // A second serve on the same folder fails before it says it serves.
    let second = run(
        site.root(),
        &["serve", "--addr", "127.0.0.1:0", "--today", TODAY],
        &[],
    );
    second.assert_code(3);
    assert!(!second.stdout.contains("listening"), "{}", second.stdout);
    assert!(!second.stderr.contains("serving"), "{}", second.stderr);
}

/// `content-api watch` on `site`, with its log; waits until its first build is done.
fn watching(site: &Site) -> (std::process::Child, impl Fn(&str) -> String) {
    let (child, log) = common::spawn_logged(
        std::process::Command::new(common::BIN)
            .args(["watch", "--today", TODAY])
            .current_dir(site.root())
            .env_remove("CI")
            .env_remove("RUST_LOG"),
    );
    let wait_for = move |what: &str| {
        let deadline = std::time::Instant::now() + TIMEOUT;
        loop {
            if let Some(line) = log.lock().unwrap().iter().find(|l| l.contains(what)) {
                return line.clone();
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no {what:?} in {:#?}",
                log.lock().unwrap()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    wait_for(common::DAEMON_READY);
    (child, wait_for)
}

#[test]
fn a_saved_draft_or_scheduled_post_says_what_it_is_instead_of_only_nothing_to_write() {
    let site = Site::new();
    let (mut child, wait_for) = watching(&site);
    let draft = post(&site, "wip", "2024-05-20", true);
    let line = wait_for(" is a draft");
    assert_eq!(
        line.trim_start_matches(" INFO "),
        format!(
            "{draft} is a draft (dated 2024-05-20): published once its `draft: true` is removed; `content-api serve --drafts` previews it"
        )
    );
    let scheduled = post(&site, "later", "2024-07-01", false);
    let line = wait_for(" is scheduled");
    assert_eq!(
        line.trim_start_matches(" INFO "),
        format!(
            "{scheduled} is scheduled: it goes live on 2024-07-01 at midnight in UTC; `content-api serve --future` previews it"
        )
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_sed_in_place_edit_names_the_post_only() {
    let Some(sed) = common::need::GNU_SED.program() else {
        return;
    };
    let gnu = std::process::Command::new(&sed)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU sed"));
    if !gnu {
        common::need::GNU_SED.missing(&format!("{} is not GNU sed", sed.display()));
        return;
    }
    let site = Site::new();
    let (mut child, wait_for) = watching(&site);
    let edited = std::process::Command::new(&sed)
        .args(["-i", "s/title: \"Hello\"/title: \"Hello again\"/"])
        .arg(site.path(common::EN_POST))
        .status()
        .unwrap();
    assert!(edited.success());
    let line = wait_for(" changed: ");
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.contains(&format!("{} changed: wrote", common::EN_POST)),
        "{line}"
    );
    assert!(!line.contains("/sed"), "{line}");
}

/// What the author meant is what is published. A key one keystroke from a known one
/// (`draf: true`) is an error where it is written, so the draft is not published; a key
/// content-api does not read is said once for the whole site, and fails `build` and `check`
/// alike in CI unless the site names it as its own; a tag one keystroke from a known tag says
/// which was meant, and fails in CI until its file exists when it is a slip beyond doubt (two
/// letters swapped).
#[test]
fn typos_in_front_matter_keys_and_tags_are_caught() {
    let site = Site::new();
    let config = config_with_licence("licence = \"CC-BY-4.0\"\n");
    std::fs::write(site.root().join("watch.toml"), &config).unwrap();
    let post = |extra: &str| {
        format!(
            "---\ntitle: \"Hi\"\ndescription: \"d\"\npubDate: 2024-05-02\n{extra}---\n\nBody.\n"
        )
    };
    let typo = "blog/en/2024-05-02_typo.md";
    site.write(typo, post("draf: true\n"));
    for command in ["build", "check"] {
        let failed = run(site.root(), &[command, "--today", TODAY], &[]);
        failed.assert_code(1);
        let error = failed.find("unknown front-matter key `draf`: did you mean `draft`?");
        assert_eq!(error.level, "error", "{}", failed.stderr);
        error
            .assert_at(typo, Some((5, 1)))
            .assert_help("rename it to `draft`");
    }
    assert!(
        !site.out().join("blog/typo.md").exists(),
        "the draft was published"
    );

    // A key of the site's own, in two files: one warning; in CI an error, for both commands.
    site.write(typo, post("mood: calm\n"));
    site.write(
        "blog/en/2024-05-03_other.md",
        post("mood: wry\n").replace("Hi", "Other"),
    );
    let warned = run(site.root(), &["build", "--today", TODAY], &[]);
    warned.assert_success();
    let mood: Vec<_> = warned
        .warnings()
        .into_iter()
        .filter(|w| w.message.contains("`mood`"))
        .collect();
    assert_eq!(mood.len(), 1, "{}", warned.stderr);
    assert!(
        mood[0]
            .message
            .contains("is not one content-api reads (here and in 1 other file)"),
        "{}",
        warned.stderr
    );
    mood[0]
        .assert_at(typo, Some((5, 1)))
        .assert_help("[front_matter] site_keys = [\"mood\"]");
    for command in ["build", "check"] {
        let failed = run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]);
        failed.assert_code(1);
        let error = failed.find("front-matter key `mood` is not one content-api reads");
        assert_eq!(error.level, "error", "{command}: {}", failed.stderr);
    }
    let own = format!("{config}[front_matter]\nsite_keys = [\"mood\"]\n");
    std::fs::write(site.root().join("watch.toml"), &own).unwrap();
    for command in ["build", "check"] {
        let quiet = run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]);
        quiet.assert_success();
        assert!(
            !quiet.stderr.contains("mood"),
            "{command}: {}",
            quiet.stderr
        );
    }

    // A tag one keystroke from `rust`.
    site.write(typo, post("tags: [\"rsut\"]\n"));
    let warned = run(site.root(), &["build", "--today", TODAY], &[]);
    warned.assert_success();
    warned
        .find("tag `rsut` is not in the taxonomy: did you mean `rust`?")
        .assert_help("fix it to `rust`");
    for command in ["build", "check"] {
        run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]).assert_code(1);
    }
    site.write("tags/rsut.md", "---\nname: rsut\n---\n");
    for command in ["build", "check"] {
        let quiet = run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]);
        quiet.assert_success();
        assert!(
            !quiet.stderr.contains("rsut"),
            "{command}: {}",
            quiet.stderr
        );
    }
}

/// The typo checks fail no real site. Keys other generators read (Docusaurus's
/// `authors`, Hugo's `lastmod`...) are one warning for the whole site, never an error, CI
/// included; real tags one edit from a taxonomy tag are warnings in CI; true typos stay caught
/// (`decription` is an error, `rusr` a warning that names `rust`).
#[test]
fn other_generators_keys_and_real_near_miss_tags_fail_no_build() {
    let site = Site::new();
    let config = config_with_licence("licence = \"CC-BY-4.0\"\n");
    std::fs::write(site.root().join("watch.toml"), &config).unwrap();
    let real = [
        ("vue3", "vue"),
        ("k3s", "k8s"),
        ("web3", "web"),
        ("preact", "react"),
        ("css3", "css"),
        ("llms", "llm"),
        ("gist", "git"),
        ("trust", "rust"),
        ("angularjs", "angular"),
        ("webs", "web"),
        ("demo", "deno"),
    ];
    for (_, known) in real {
        site.write(
            format!("tags/{known}.md"),
            format!("---\nname: {known}\n---\n"),
        );
    }
    let keys = "authors: [ana]\nlastmod: 2024-05-03\naliases: [/old/]\nweight: 3\ncategories: [x]\nlayout: post\npermalink: /p/\ntoc: true\nmath: true\ncomments: false\nsummary: s\nimages: [a.png]\nfeatured: true\nredirect_from: [/q/]\ncanonicalURL: https://x.example/\n";
    for (n, (tag, _)) in real.iter().enumerate() {
        site.write(
            format!("blog/en/2024-05-{:02}_real-{tag}.md", n + 1),
            format!("---\ntitle: \"{tag}\"\ndescription: \"d\"\npubDate: 2024-05-{:02}\ntags: [\"{tag}\"]\n{keys}---\n\nBody.\n", n + 1),
        );
    }
    for command in ["build", "check"] {
        let built = run(site.root(), &[command, "--today", TODAY], &[("CI", "true")]);
        built.assert_success();
        assert!(
            !built.stderr.contains("error:"),
            "{command}: {}",
            built.stderr
        );
        let elsewhere: Vec<_> = built
            .warnings()
            .into_iter()
            .filter(|w| w.message.contains("keys other generators read"))
            .collect();
        assert_eq!(elsewhere.len(), 1, "one warning per site: {}", built.stderr);
        for key in ["`authors` (", "`lastmod` (", "`canonicalURL` (", "11 files"] {
            assert!(
                elsewhere[0].message.contains(key),
                "{key}: {}",
                built.stderr
            );
        }
        for (tag, known) in real {
            assert!(
                built.stderr.contains(&format!(
                    "tag `{tag}` is not in the taxonomy: did you mean `{known}`?"
                )),
                "{tag}: {}",
                built.stderr
            );
        }
    }

    // True typos stay caught: a near-miss key is an error, CI or not; a near-miss tag a warning.
    let typo = "blog/en/2024-06-01_typo.md";
    site.write(
        typo,
        "---\ntitle: \"T\"\ndecription: \"d\"\npubDate: 2024-06-01\n---\n\nBody.\n",
    );
    let failed = run(site.root(), &["build", "--today", TODAY], &[]);
    failed.assert_code(1);
    failed
        .find("unknown front-matter key `decription`: did you mean `description`?")
        .assert_at(typo, Some((3, 1)));
    site.write(
        typo,
        "---\ntitle: \"T\"\ndescription: \"d\"\npubDate: 2024-06-01\ntags: [\"rusr\"]\n---\n\nBody.\n",
    );
    site.write("tags/rust.md", "---\nname: rust\n---\n");
    let warned = run(site.root(), &["build", "--today", TODAY], &[("CI", "true")]);
    warned.assert_success();
    let rusr = warned.find("tag `rusr` is not in the taxonomy: did you mean `rust`?");
    assert_eq!(rusr.level, "warning", "{}", warned.stderr);
}
