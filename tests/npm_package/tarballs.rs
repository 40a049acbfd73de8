//! The README's "From tarballs" lines, followed as written: in a fresh project with no Rust on
//! `PATH`, each package manager's lines (npm: every tarball in one command; pnpm 11: the
//! `pnpm-workspace.yaml` overrides, then the launcher alone) install the tarballs
//! `scripts/npm-pack` made, `content-api --version` runs the platform package's binary and a
//! build writes the API; and the launcher's words when the platform package is missing name the
//! tarball and pnpm causes besides `--omit=optional`.

use super::{
    Manager, NodeOnly, VERSION, assert_ran, integration_tarball, launcher_tarball, node,
    packages_and_node, platform_name, platform_tarball, pnpm, run, text,
};
use crate::common::{self, SAMPLE_TODAY};
use std::path::Path;
use std::process::Command;

/// The platform the README's lines name; another machine's tests put its own in their place.
const README_PLATFORM: &str = "linux-x64-gnu";

/// The README's "From tarballs" section: its text up to the next heading.
fn section() -> String {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let start = readme
        .find("\n### From tarballs\n")
        .expect("README.md has a \"From tarballs\" section under Install");
    let rest = &readme[start + 1..];
    let end = ["\n## ", "\n### "]
        .iter()
        .filter_map(|heading| rest[1..].find(heading).map(|i| i + 1))
        .min()
        .unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The section's fenced blocks, as (language, text).
fn blocks(section: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in section.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(language)) => open = Some((language.trim().to_string(), String::new())),
            (Some(_), Some(_)) => found.extend(open.take()),
            (Some((_, text)), None) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code block:\n{section}");
    found
}

/// The shell block whose first command runs `program`, as command lines (comments dropped).
fn commands(blocks: &[(String, String)], program: &str) -> Vec<Vec<String>> {
    let (_, text) = blocks
        .iter()
        .find(|(language, text)| {
            language == "sh" && text.split_whitespace().next() == Some(program)
        })
        .unwrap_or_else(|| panic!("the section has no `sh` block of {program} lines"));
    text.lines()
        .map(|line| line.split(" #").next().unwrap_or(""))
        .map(|line| line.split_whitespace().map(str::to_string).collect())
        .filter(|words: &Vec<String>| !words.is_empty())
        .collect()
}

/// A fresh project holding the tarballs in `vendor/`, under the names `scripts/npm-pack` gives
/// them; every `./vendor/...` file the section names must be one of them.
fn project(dir: &Path, platform: &str, section: &str) -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(
        root.join("package.json"),
        "{ \"name\": \"site\", \"private\": true }\n",
    )
    .unwrap();
    let vendor = root.join("vendor");
    std::fs::create_dir_all(&vendor).unwrap();
    for tarball in [
        launcher_tarball(dir),
        platform_tarball(dir, platform),
        integration_tarball(dir),
    ] {
        std::fs::copy(&tarball, vendor.join(tarball.file_name().unwrap())).unwrap();
    }
    for word in section.split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | ':')) {
        if let Some(file) = word.strip_prefix("./vendor/") {
            assert!(
                vendor.join(file).is_file(),
                "README.md's \"From tarballs\" names {file}, which scripts/npm-pack did not make \
                 (version {VERSION}): update the section"
            );
        }
    }
    project
}

/// Runs one of the section's command lines in `root` as the site's shell would, with `manager`
/// for `pnpm`; returns its standard output.
fn follow(env: &NodeOnly, root: &Path, words: &[String]) -> String {
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    let mut command = match words[0].as_str() {
        "pnpm" => Manager::Pnpm.command(env, root, &args),
        program @ ("npm" | "npx") => {
            let mut command = env.command(program, root);
            command.args(&args);
            command
        }
        other => panic!("the section runs `{other}`, which this test does not know"),
    };
    let output = run(&mut command);
    assert_ran(&output, &words.join(" "));
    text(&output.stdout)
}

/// The site's own build through the installed command: the sample content into `dist/`.
fn build(env: &NodeOnly, root: &Path, manager: Manager) {
    common::copy_sample_content(&root.join("content"));
    // A real site names its author and licence: CI (set here) refuses placeholders.
    std::fs::write(
        root.join("watch.toml"),
        "base_url = \"https://lucia-montoya.example\"\ncontent_dir = \"content\"\n\
         out_dir = \"dist\"\n[site]\nauthor = \"Lucía Montoya\"\nlicence = \"CC-BY-4.0\"\n",
    )
    .unwrap();
    let args = ["content-api", "build", "--today", SAMPLE_TODAY];
    let mut command = match manager {
        Manager::Npm => {
            let mut command = env.command("npx", root);
            command.arg("--no-install").args(args);
            command
        }
        Manager::Pnpm => Manager::Pnpm.command(env, root, &[&["exec"][..], &args[..]].concat()),
    };
    let output = run(&mut command);
    assert_ran(&output, &format!("{} content-api build", manager.name()));
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root.join("dist/api/index.json")).unwrap()).unwrap();
    assert!(index.is_object(), "{index}");
    assert!(root.join("dist/api/posts-en.json").is_file());
}

/// The section's lines for `manager`, in a fresh project: the version the launcher prints is
/// the binary's, and the build writes the API.
fn follow_the_readme(manager: Manager) {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let env = match manager {
        Manager::Npm => NodeOnly::new(&node),
        Manager::Pnpm => {
            let Some(pnpm) = pnpm(&node) else {
                return;
            };
            NodeOnly::new(&node).with_pnpm(pnpm)
        }
    };
    let section = section().replace(README_PLATFORM, platform);
    let blocks = blocks(&section);
    let project = project(&dir, platform, &section);
    let root = project.path();
    if let Manager::Pnpm = manager {
        let (_, yaml) = blocks
            .iter()
            .find(|(language, _)| language == "yaml")
            .expect("the section gives pnpm-workspace.yaml");
        assert!(yaml.starts_with("# pnpm-workspace.yaml\n"), "{yaml}");
        std::fs::write(root.join("pnpm-workspace.yaml"), yaml).unwrap();
    }
    let lines = commands(&blocks, manager.name());
    for words in &lines {
        let said = follow(&env, root, words);
        if words.last().is_some_and(|word| word == "--version") {
            assert_eq!(said.trim(), format!("content-api {VERSION}"), "{words:?}");
        }
    }
    assert!(
        lines
            .iter()
            .any(|words| words.last().is_some_and(|w| w == "--version")),
        "the {} lines run content-api --version",
        manager.name()
    );
    build(&env, root, manager);
}

#[test]
fn the_readme_installs_the_tarballs_with_npm() {
    follow_the_readme(Manager::Npm);
}

#[test]
fn the_readme_installs_the_tarballs_with_pnpm() {
    follow_the_readme(Manager::Pnpm);
}

/// The launcher of the repository, with no platform package anywhere above it: its message
/// names each way the package goes missing, and where the lines to install it are.
#[test]
fn a_missing_platform_package_is_explained_with_every_cause() {
    let Some(node) = node() else {
        return;
    };
    // Only a machine with a platform package is told that one is missing.
    let Some(platform) = super::host_platform_package() else {
        eprintln!("skipped: no platform package for this machine (not Linux glibc)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let launcher = common::repo().join("npm/content-api/bin/content-api.js");
    let output = run(Command::new(&node)
        .arg(&launcher)
        .arg("--version")
        .current_dir(dir.path())
        .env_remove("CONTENT_API_BINARY"));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let said = text(&output.stderr);
    for words in [
        platform_name(platform).as_str(),
        "is not installed",
        "Installed from tarballs",
        "in the same command as the launcher's",
        "`overrides` of pnpm-workspace.yaml",
        "--omit=optional",
        "\"From tarballs\"",
        "cargo install --locked content-api",
    ] {
        assert!(said.contains(words), "{words}: {said}");
    }
    assert!(
        section().contains("pnpm-workspace.yaml"),
        "the README's section the message names gives the overrides"
    );
}
