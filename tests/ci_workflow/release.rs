//! The release workflow (`.github/workflows/release.yml`) against what it must agree with: the
//! npm packages' platforms, `cargo binstall`'s metadata and the one version of everything.

use super::common;
use common::workflow::{RELEASE, release, run_step, script, step};
use serde_json::Value;
use std::collections::BTreeSet;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::repo().join(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn cargo_toml() -> toml::Table {
    read("Cargo.toml").parse().expect("Cargo.toml is TOML")
}

fn field<'a>(table: &'a toml::Table, path: &[&str]) -> &'a str {
    let mut at = table.get(path[0]);
    for key in &path[1..] {
        at = at.and_then(|value| value.get(key));
    }
    at.and_then(toml::Value::as_str)
        .unwrap_or_else(|| panic!("Cargo.toml has no `{}`", path.join(".")))
}

/// (package, target, zig target, runner) of every platform.
type Platform = (String, String, String, String);

/// A platform's four fields, read by `get` (a missing field is empty).
fn platform<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Platform {
    let field = |key: &str| get(key).unwrap_or("").to_string();
    (
        field("package"),
        field("target"),
        field("zig_target"),
        field("runner"),
    )
}

#[test]
fn the_release_builds_every_platform_the_npm_packages_name() {
    let table: Value = serde_json::from_str(&read("npm/content-api/platforms.json")).unwrap();
    let wanted: BTreeSet<Platform> = table["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| platform(|key| entry[key].as_str()))
        .collect();
    let workflow = release();
    let include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_vec()
        .expect("the build job has a matrix of platforms");
    let built: BTreeSet<Platform> = include
        .iter()
        .map(|entry| platform(|key| entry[key].as_str()))
        .collect();
    assert_eq!(
        built, wanted,
        "{RELEASE}'s matrix and platforms.json differ"
    );
    for (package, target, zig_target, _) in &wanted {
        if target.contains("-linux-gnu") {
            assert!(
                zig_target.ends_with(".2.17"),
                "{package} is linked against glibc 2.17 ({zig_target})"
            );
        }
    }
}

#[test]
fn cargo_binstall_finds_the_archives_the_release_uploads() {
    let manifest = cargo_toml();
    let version = field(&manifest, &["workspace", "package", "version"]);
    let repository = field(&manifest, &["workspace", "package", "repository"]);
    let binstall = ["package", "metadata", "binstall"];
    let url = field(&manifest, &[binstall.as_slice(), &["pkg-url"]].concat());
    let target = "x86_64-unknown-linux-gnu";
    let expanded = url
        .replace("{ repo }", repository)
        .replace("{ version }", version)
        .replace("{ target }", target);
    assert_eq!(
        expanded,
        format!("{repository}/releases/download/v{version}/content-api-{target}.tar.gz")
    );
    assert_eq!(
        field(&manifest, &[binstall.as_slice(), &["pkg-fmt"]].concat()),
        "tgz"
    );
    assert_eq!(
        field(&manifest, &[binstall.as_slice(), &["bin-dir"]].concat()),
        "{ bin }{ binary-ext }",
        "the binary is at the archive's root"
    );

    // The workflow makes exactly those names, with the binary at the archive's root, and
    // releases them under the tag `v<version>`.
    let text = read(RELEASE);
    for made in [
        r#"tar -czf "dist/content-api-$TARGET.tar.gz" -C "$RUNNER_TEMP/archive" "$name" "#,
        r#"gh release create "v$VERSION""#,
        "artifacts/*.tar.gz artifacts/*.tar.gz.sha256 artifacts/SHA256SUMS",
    ] {
        assert!(text.contains(made), "{RELEASE} no longer does `{made}`");
    }
}

#[test]
fn every_crate_has_the_workspace_version_and_pins_its_siblings_to_it() {
    let manifest = cargo_toml();
    let version = field(&manifest, &["workspace", "package", "version"]);
    let dependencies = manifest["workspace"]["dependencies"].as_table().unwrap();
    let mut crates = vec!["Cargo.toml".to_string()];
    for (name, spec) in dependencies {
        let Some(path) = spec.get("path").and_then(toml::Value::as_str) else {
            continue;
        };
        assert_eq!(
            spec.get("version").and_then(toml::Value::as_str),
            Some(format!("={version}").as_str()),
            "{name} is published with the others: its requirement is the exact version"
        );
        crates.push(format!("{path}/Cargo.toml"));
    }
    assert!(
        crates.len() >= 9,
        "the layers are path dependencies: {crates:?}"
    );
    for path in crates {
        let crate_manifest: toml::Table = read(&path).parse().unwrap();
        let package = &crate_manifest["package"];
        assert_eq!(
            package["version"]
                .get("workspace")
                .and_then(toml::Value::as_bool),
            Some(true),
            "{path} takes the workspace's version"
        );
        assert!(
            package.get("publish").is_none(),
            "{path} is published with the others"
        );
        for key in ["license", "repository", "description"] {
            assert!(
                package.get(key).is_some(),
                "{path} has no {key} (crates.io needs it)"
            );
        }
    }
    let npm: Value = serde_json::from_str(&read("npm/content-api/package.json")).unwrap();
    assert!(
        npm.get("version").is_none(),
        "the npm launcher's version is the workspace's, written by scripts/npm-pack: {npm}"
    );
}

#[test]
fn the_release_smoke_test_archive_and_checksums_run_here_as_actions_runs_them() {
    // The binary the build step makes for linux-x64-gnu: the one in this machine's npm package.
    let Some(dir) = std::env::var_os("CONTENT_API_NPM_PACKAGES") else {
        common::need::NPM_PACKAGES.missing("CONTENT_API_NPM_PACKAGES is not set");
        return;
    };
    let version = env!("CARGO_PKG_VERSION");
    let tarball = crate::npm_package::platform_tarball(std::path::Path::new(&dir), "linux-x64-gnu");
    let runner_temp = tempfile::tempdir().unwrap();
    let temp = runner_temp.path();
    let unpacked = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(temp)
        .status()
        .unwrap();
    assert!(unpacked.success(), "tar -xzf {}", tarball.display());
    std::fs::rename(temp.join("package/content-api"), temp.join("content-api")).unwrap();

    // The checkout, as far as these steps read it: the smoke test and the check are
    // scripts/cross-build's, which .ci/run runs on the other Linux targets' binaries.
    let checkout = tempfile::tempdir().unwrap();
    std::fs::create_dir(checkout.path().join("scripts")).unwrap();
    for file in [
        "watch.toml",
        "content-api.history",
        "LICENSE",
        "README.md",
        "Cargo.toml",
        "scripts/cross-build",
        "scripts/cross-env",
        "scripts/npm-pack",
    ] {
        std::fs::copy(common::repo().join(file), checkout.path().join(file)).unwrap();
    }
    for folder in ["content", "out"] {
        for (path, bytes) in common::read_tree(&common::repo().join(folder)) {
            let target = checkout.path().join(folder).join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(target, bytes).unwrap();
        }
    }

    let workflow = release();
    let target = "x86_64-unknown-linux-gnu";
    let env = [
        ("TARGET", target),
        ("ZIG_TARGET", "x86_64-unknown-linux-gnu.2.17"),
        ("VERSION", version),
        ("RUNNER_TEMP", temp.to_str().unwrap()),
    ];
    let smoked = run_step(
        script(&workflow, "build", "Smoke test"),
        checkout.path(),
        &env,
    );
    assert!(
        smoked.contains(&format!("content-api {version}"))
            && smoked.contains("the committed out/ rebuilt byte for byte"),
        "{smoked}"
    );
    let checked = run_step(
        script(&workflow, "build", "Check the size"),
        checkout.path(),
        &env,
    );
    assert!(checked.contains("needs GLIBC_2.17"), "{checked}");
    run_step(script(&workflow, "build", "Archive"), checkout.path(), &env);

    // What the release job uploads, checked as it checks it.
    let artifacts = checkout.path().join("dist");
    let archive = artifacts.join(format!("content-api-{target}.tar.gz"));
    let listed = std::process::Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert_eq!(
        listed.lines().collect::<Vec<_>>(),
        ["content-api", "LICENSE", "README.md"],
        "cargo binstall finds the binary at the archive's root"
    );
    std::fs::rename(&artifacts, checkout.path().join("artifacts")).unwrap();
    let checked = run_step(
        script(&workflow, "github-release", "Checksums"),
        checkout.path(),
        &[],
    );
    assert!(
        checked.contains(&format!("content-api-{target}.tar.gz: OK")),
        "{checked}"
    );
}

#[test]
fn the_npm_job_packs_every_package_and_publishes_each_after_those_it_depends_on() {
    let Some(node) = common::need::NODE.program() else {
        return;
    };
    // The build jobs' artifacts: a small stand-in binary per platform (npm-pack only packs it).
    let work = tempfile::tempdir().unwrap();
    let artifacts = work.path().join("artifacts");
    std::fs::create_dir(&artifacts).unwrap();
    let table: Value = serde_json::from_str(&read("npm/content-api/platforms.json")).unwrap();
    let platforms = table["platforms"].as_array().unwrap();
    for entry in platforms {
        let target = entry["target"].as_str().unwrap();
        std::fs::write(artifacts.join(format!("content-api-{target}")), b"stand-in").unwrap();
    }
    // `npm` for the publish step: says what it was asked and publishes nothing.
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = work.path().join("published");
    let stub = bin.join("npm");
    std::fs::write(
        &stub,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();

    // The steps run in a copy of the checkout's parts they read, as the job's checkout.
    common::workflow::npm_job_checkout(work.path());
    let node_dir = node.parent().unwrap().to_str().unwrap().to_string();
    let path = format!("{node_dir}:{}", std::env::var("PATH").unwrap_or_default());
    let workflow = release();
    run_step(
        script(&workflow, "npm", "Pack"),
        work.path(),
        &[("PATH", &path)],
    );
    // With provenance, signed by the runner's identity (npm reads `npm_config_*` from the
    // environment): the step sets it for npm rather than in the script, which
    // npm_package/registry.rs runs as written where no runner can sign.
    let publish = step(&workflow, "npm", "Publish");
    assert_eq!(
        publish["env"]["NPM_CONFIG_PROVENANCE"].as_str(),
        Some("true"),
        "{RELEASE}: the npm packages are published with provenance"
    );
    let stub_path = format!("{}:{path}", bin.display());
    run_step(
        script(&workflow, "npm", "Publish"),
        work.path(),
        &[("PATH", &stub_path)],
    );

    let version = env!("CARGO_PKG_VERSION");
    let scope = table["scope"].as_str().unwrap().trim_start_matches('@');
    let launcher = table["launcher"].as_str().unwrap();
    let mut expected: Vec<String> = platforms
        .iter()
        .map(|entry| {
            let package = entry["package"].as_str().unwrap();
            format!("{scope}-{launcher}-{package}-{version}.tgz")
        })
        .collect();
    expected.push(format!("{scope}-{launcher}-{version}.tgz"));
    let integration = table["integration"].as_str().unwrap();
    expected.push(format!("{scope}-{integration}-{version}.tgz"));
    let published: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| {
            let tarball = line
                .strip_prefix("publish --access public ")
                .unwrap_or_else(|| panic!("npm {line}"));
            std::path::Path::new(tarball)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        published, expected,
        "every package, each after the packages it depends on"
    );
}

/// `scripts/cross-build`'s default targets: the `default_targets=(...)` line.
fn cross_build_defaults() -> BTreeSet<String> {
    let script = read("scripts/cross-build");
    let line = script
        .lines()
        .find_map(|line| line.strip_prefix("default_targets=("))
        .expect("scripts/cross-build has a `default_targets=(...)` line");
    line.trim_end_matches(')')
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

#[test]
fn every_linux_binary_ships_from_the_script_ci_builds_and_runs_it_with() {
    let workflow = release();
    let build = script(&workflow, "build", "Build");
    assert!(
        build.contains(r#"scripts/cross-build build "$TARGET""#),
        "{RELEASE}'s Linux builds are scripts/cross-build's, as CI's: {build}"
    );
    for (step, call) in [
        ("Smoke test", r#"scripts/cross-build smoke "$TARGET""#),
        ("Check the size", r#"scripts/cross-build check "$TARGET""#),
    ] {
        let text = script(&workflow, "build", step);
        assert!(
            text.contains(call),
            "{RELEASE}: {step} runs `{call}`: {text}"
        );
    }

    // scripts/cross-build's defaults are every Linux platform but this machine's own, which
    // scripts/npm-pack builds through the same script (and the release's steps above then
    // smoke-test and check); .ci/run ships the arm64 musl one, the one that needs an emulator,
    // and runs its unit tests.
    let ci = read(".ci/run");
    let shipped: BTreeSet<String> = ci
        .lines()
        .filter_map(|line| line.strip_prefix("scripts/cross-build ship "))
        .flat_map(|targets| targets.split_whitespace().map(str::to_string))
        .collect();
    let table: Value = serde_json::from_str(&read("npm/content-api/platforms.json")).unwrap();
    let linux: BTreeSet<String> = table["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["target"].as_str().unwrap().to_string())
        .filter(|target| target.contains("-linux-"))
        .collect();
    let host = "x86_64-unknown-linux-gnu";
    let expected: BTreeSet<String> = linux.iter().filter(|t| *t != host).cloned().collect();
    assert_eq!(
        cross_build_defaults(),
        expected,
        "scripts/cross-build's defaults"
    );
    let arm64_musl = "aarch64-unknown-linux-musl";
    assert!(
        shipped.contains(arm64_musl) && shipped.is_subset(&expected),
        ".ci/run's `scripts/cross-build ship` builds and runs {arm64_musl}: {shipped:?}"
    );
    assert!(
        read("scripts/npm-pack")
            .contains(r#""scripts", "cross-build"), ["build", platform.target]"#),
        "scripts/npm-pack builds {host} through scripts/cross-build"
    );
    assert!(
        ci.lines()
            .any(|line| line == format!("scripts/cross-build test {arm64_musl}")),
        ".ci/run runs the unit tests of {arm64_musl}"
    );
    // The smoke test rebuilds out/ for the day the tests build the sample for.
    assert!(
        read("scripts/cross-build").contains(&format!("\nsample_today={}\n", common::SAMPLE_TODAY)),
        "scripts/cross-build's sample_today is {}",
        common::SAMPLE_TODAY
    );
}

/// The archive step, run here as Actions runs it for `target` on a stand-in binary: the names
/// at the archive's root.
fn archived(target: &str) -> Vec<String> {
    let checkout = tempfile::tempdir().unwrap();
    for file in ["LICENSE", "README.md"] {
        std::fs::copy(common::repo().join(file), checkout.path().join(file)).unwrap();
    }
    let runner_temp = tempfile::tempdir().unwrap();
    std::fs::write(runner_temp.path().join("content-api"), b"stand-in").unwrap();
    let workflow = release();
    run_step(
        script(&workflow, "build", "Archive"),
        checkout.path(),
        &[
            ("TARGET", target),
            ("RUNNER_TEMP", runner_temp.path().to_str().unwrap()),
        ],
    );
    let archive = checkout
        .path()
        .join(format!("dist/content-api-{target}.tar.gz"));
    let listed = std::process::Command::new("tar")
        .arg("-tzf")
        .arg(&archive)
        .output()
        .unwrap();
    assert!(listed.status.success(), "tar -tzf {}", archive.display());
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The Windows binary is built, run under wine and checked by the scripts CI runs
/// (`scripts/windows-check` in .ci/run, without its unit tests in the release), and archived as
/// `content-api.exe`, the name `cargo binstall` looks for on Windows (`{ binary-ext }`).
#[test]
fn the_windows_binary_ships_from_the_script_ci_builds_and_runs_it_with() {
    let target = "x86_64-pc-windows-gnu";
    let workflow = release();
    let build = script(&workflow, "build", "Build");
    for call in [
        format!(r#"if [ "$TARGET" = {target} ]; then"#),
        "scripts/windows-check --no-tests".to_string(),
        r#"binary="target/windows/$TARGET/dist/content-api.exe""#.to_string(),
    ] {
        assert!(
            build.contains(&call),
            "{RELEASE}'s Build step: `{call}`: {build}"
        );
    }
    // The check packs and installs the npm package with npm 10.1 or later (`--os win32`).
    let steps = workflow["jobs"]["build"]["steps"].as_vec().unwrap();
    assert!(
        steps.iter().any(|step| {
            let field = |key: &str| step.as_mapping_get(key).and_then(|value| value.as_str());
            field("uses").is_some_and(|uses| uses.starts_with("actions/setup-node@"))
                && field("if") == Some("matrix.package == 'win32-x64'")
        }),
        "{RELEASE}: the Windows build sets up Node for scripts/windows-check's npm step"
    );
    // CI runs the same script, which builds the `dist` profile the release ships.
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|line| line == "scripts/windows-check"),
        ".ci/run runs scripts/windows-check"
    );
    let check = read("scripts/windows-check");
    assert!(
        check.contains("cargo_windows build --profile dist --package content-api")
            && check.contains("scripts/windows-npm \"$exe\""),
        "scripts/windows-check builds the `dist` profile and runs the npm package's check"
    );
    // The smoke test and the size check take the Windows target (wine, mingw-w64's objdump).
    let cross_build = read("scripts/cross-build");
    assert!(
        cross_build.contains("*-windows-*)") && cross_build.contains("run=(wine)"),
        "scripts/cross-build smoke runs a Windows binary under wine"
    );

    assert_eq!(
        archived(target),
        ["content-api.exe", "LICENSE", "README.md"],
        "cargo binstall finds content-api.exe at the Windows archive's root"
    );
    assert_eq!(
        archived("x86_64-unknown-linux-gnu"),
        ["content-api", "LICENSE", "README.md"],
        "and content-api elsewhere"
    );
}
