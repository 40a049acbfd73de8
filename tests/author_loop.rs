//! The author's daily loop, from the command line: nothing wrong is published without a word
//! (the licence's URL and terms; `check` and `build` fail alike in CI), tags created where they
//! are named (`new tag`, `new post --tags`), what will go live (`list`, `--future`), and the
//! command line's own manners (each command's `--help` lists its own flags; `serve` fails
//! before it says it serves and leaves nothing behind; the refusal to share an output folder
//! says how to build elsewhere).

mod common;

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
