//! The npm packages, as a site installs them: the tarballs `scripts/npm-pack` made (the launcher
//! `@content-api/cli`, this machine's platform package `@content-api/cli-<platform>` and the
//! Astro integration `@content-api/astro`), installed with real npm into an Astro site
//! (`tests/fixtures/astro-npm-site`, real Astro from the npm registry) in an environment with no
//! `cargo` or `rustc` on `PATH`, then the site's own `npm run build`; and the launcher's own
//! manners with the signals a parent sends (`npm_package/launcher.rs`) and the integration's
//! middleware in a stand-in for `astro dev` (`npm_package/dev_middleware.rs`), both from the
//! repository. `npm_package/tarballs.rs` follows the README's "From tarballs" lines with npm and
//! pnpm, as written. The names come from `npm/content-api/platforms.json`, the one place they
//! are set.
//!
//! `npm_package/registry.rs` publishes them as the release workflow does, to a real registry
//! (verdaccio on loopback), and installs them from it by name with npm, pnpm, yarn 1, yarn 4
//! and bun.
//!
//! `.ci/run` makes the tarballs and names their folder in `CONTENT_API_NPM_PACKAGES`, a Node of
//! version 22 or later in `CONTENT_API_NODE`, and verdaccio and the package managers in
//! `CONTENT_API_VERDACCIO`, `CONTENT_API_PNPM`, `CONTENT_API_YARN_CLASSIC`,
//! `CONTENT_API_YARN_BERRY` and `CONTENT_API_BUN`. Without them the tests follow
//! `common::need`'s rule.

mod astro;
mod dev_middleware;
mod launcher;
mod registry;
mod tarballs;
use crate::browser::cdp;
use crate::common::{self, need};

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The most a platform package, and the binary in it, may weigh (`scripts/npm-pack`'s bound).
const MAX_BYTES: u64 = 20 * 1024 * 1024;
/// The oldest glibc the Linux binaries run on (CentOS 7's; the build images of Cloudflare
/// Pages, Netlify and Vercel have 2.35).
const GLIBC_FLOOR: (u32, u32) = (2, 17);

/// npm/content-api/platforms.json: the scope, the packages' names and the platforms.
fn platforms_json() -> Value {
    let path = common::repo().join("npm/content-api/platforms.json");
    serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("platforms.json is JSON")
}

fn name_part(key: &str) -> String {
    let table = platforms_json();
    table[key]
        .as_str()
        .unwrap_or_else(|| panic!("platforms.json has no `{key}`"))
        .to_string()
}

/// The launcher's package name: `@content-api/cli`.
pub(crate) fn launcher_name() -> String {
    format!("{}/{}", name_part("scope"), name_part("launcher"))
}

/// The name of `platform`'s package (`linux-x64-gnu`): `@content-api/cli-linux-x64-gnu`.
pub(crate) fn platform_name(platform: &str) -> String {
    format!("{}-{platform}", launcher_name())
}

/// The Astro integration's package name: `@content-api/astro`.
fn integration_name() -> String {
    format!("{}/{}", name_part("scope"), name_part("integration"))
}

/// The tarball `npm pack` makes of the package `name` (`@scope/name` → `scope-name-<version>.tgz`).
fn tarball(dir: &Path, name: &str) -> PathBuf {
    let file = name.trim_start_matches('@').replace('/', "-");
    existing(dir.join(format!("{file}-{VERSION}.tgz")))
}

/// The platform package this machine installs, as npm/content-api/platforms.json names it.
fn host_platform_package() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") if cfg!(target_env = "gnu") => Some("linux-x64-gnu"),
        ("linux", "aarch64") if cfg!(target_env = "gnu") => Some("linux-arm64-gnu"),
        _ => None,
    }
}

/// The tarballs' folder and this machine's platform package; `None` after `common::need`'s
/// rule without them.
pub(crate) fn packages() -> Option<(PathBuf, &'static str)> {
    let Some(dir) = std::env::var_os("CONTENT_API_NPM_PACKAGES").map(PathBuf::from) else {
        need::NPM_PACKAGES.missing("CONTENT_API_NPM_PACKAGES is not set");
        return None;
    };
    let Some(platform) = host_platform_package() else {
        need::NPM_PACKAGES.missing("no platform package for this machine: not Linux glibc");
        return None;
    };
    Some((dir, platform))
}

/// [`packages`] and a [`node`] to run them with; `None` once `common::need` has said what is
/// missing.
pub(crate) fn packages_and_node() -> Option<(PathBuf, &'static str, PathBuf)> {
    let (dir, platform) = packages()?;
    Some((dir, platform, node()?))
}

pub(crate) fn launcher_tarball(dir: &Path) -> PathBuf {
    tarball(dir, &launcher_name())
}

pub(crate) fn platform_tarball(dir: &Path, platform: &str) -> PathBuf {
    tarball(dir, &platform_name(platform))
}

pub(crate) fn integration_tarball(dir: &Path) -> PathBuf {
    tarball(dir, &integration_name())
}

fn existing(path: PathBuf) -> PathBuf {
    assert!(
        path.is_file(),
        "{} is missing (scripts/npm-pack makes it)",
        path.display()
    );
    path
}

/// pnpm 11 (the seed site's manager), run by `node`: `CONTENT_API_PNPM`, or `pnpm` on PATH if
/// it is pnpm 11.
fn pnpm(node: &Path) -> Option<PathBuf> {
    let pnpm = need::PNPM.program()?;
    let version = Command::new(node)
        .arg(&pnpm)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .unwrap_or_default();
    if version.trim().starts_with("11.") {
        Some(pnpm)
    } else {
        need::PNPM.missing(&format!("{} is pnpm {:?}", pnpm.display(), version.trim()));
        None
    }
}

/// A Node of version 22 or later: `CONTENT_API_NODE`, or `node` on PATH if new enough.
pub(crate) fn node() -> Option<PathBuf> {
    let node = need::NODE.program()?;
    let major = Command::new(&node)
        .args(["-p", "process.versions.node.split('.')[0]"])
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse::<u32>().ok());
    match major {
        Some(major) if major >= 22 => Some(node),
        _ => {
            need::NODE.missing(&format!("{} is Node {major:?}", node.display()));
            None
        }
    }
}

fn run(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    command
        .output()
        .unwrap_or_else(|err| panic!("{shown}: {err}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ran(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
}

/// Unpacks a tarball into a new temporary folder.
fn unpack(tarball: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let output = run(Command::new("tar")
        .arg("-xzf")
        .arg(tarball)
        .arg("-C")
        .arg(dir.path()));
    assert_ran(&output, "tar -xzf");
    dir
}

/// The highest `GLIBC_x.y` symbol version a binary needs, from `objdump -T`.
fn highest_glibc(binary: &Path) -> Option<(u32, u32)> {
    let output = run(Command::new("objdump").arg("-T").arg(binary));
    assert_ran(&output, "objdump -T");
    text(&output.stdout)
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter_map(|word| word.strip_prefix("GLIBC_"))
        .filter_map(|version| {
            let (major, minor) = version.split_once('.')?;
            let minor = minor.split('.').next()?;
            Some((major.parse().ok()?, minor.parse().ok()?))
        })
        .max()
}

#[test]
fn the_platform_package_is_small_stripped_and_runs_on_glibc_2_17() {
    let Some((dir, platform)) = packages() else {
        return;
    };
    let tarball = platform_tarball(&dir, platform);
    let packed = std::fs::metadata(&tarball).unwrap().len();
    assert!(
        packed <= MAX_BYTES,
        "{} is {packed} bytes",
        tarball.display()
    );

    let unpacked = unpack(&tarball);
    let package = unpacked.path().join("package");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], platform_name(platform));
    assert_eq!(
        manifest["version"], VERSION,
        "one version for the crates and the packages"
    );
    assert_eq!(manifest["os"], serde_json::json!(["linux"]));
    assert_eq!(manifest["libc"], serde_json::json!(["glibc"]));
    assert!(
        manifest.get("scripts").is_none(),
        "no install scripts: {manifest}"
    );

    let binary = package.join("content-api");
    let size = std::fs::metadata(&binary).unwrap().len();
    assert!(size <= MAX_BYTES, "the binary is {size} bytes");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&binary).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o111,
        0o111,
        "the binary is executable after unpacking: {mode:o}"
    );

    let sections = run(Command::new("objdump").arg("-h").arg(&binary));
    assert_ran(&sections, "objdump -h");
    let sections = text(&sections.stdout);
    for name in [".symtab", ".debug_info", ".debug_line"] {
        assert!(
            !sections.contains(name),
            "the binary is not stripped: it has {name}"
        );
    }

    let glibc = highest_glibc(&binary).expect("a glibc binary names glibc symbol versions");
    assert!(
        glibc <= GLIBC_FLOOR,
        "the binary needs glibc {}.{}, newer than {}.{}",
        glibc.0,
        glibc.1,
        GLIBC_FLOOR.0,
        GLIBC_FLOOR.1
    );
    eprintln!(
        "{}: {packed} bytes packed, {size} bytes unpacked, needs glibc {}.{}",
        tarball.display(),
        glibc.0,
        glibc.1
    );
}

/// An environment like a host's build image: Node and npm, and no Rust anywhere on PATH.
pub(crate) struct NodeOnly {
    path: std::ffi::OsString,
    /// The system's programs but Rust's (links), kept while the environment is used.
    _system: tempfile::TempDir,
    /// pnpm, where the test found it (`need::PNPM`), for a test that runs it.
    pnpm: Option<PathBuf>,
}

/// The system's programs a build image lacks: Rust's (Debian's `rustc-web` and `cargo-web`,
/// which `scripts/cross-env` installs for the cross builds, put them in /usr/bin).
const RUST_PROGRAMS: [&str; 5] = ["cargo", "rustc", "rustdoc", "rust-gdb", "rust-lldb"];

impl NodeOnly {
    pub(crate) fn new(node: &Path) -> NodeOnly {
        let node_dir = node.parent().unwrap().to_path_buf();
        // /usr/bin's programs (/bin is the same folder on Debian) but Rust's, as links.
        let system = tempfile::tempdir().unwrap();
        for folder in ["/usr/bin", "/bin"] {
            for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
                let name = entry.file_name();
                let link = system.path().join(&name);
                let linked = link.symlink_metadata().is_ok();
                if linked || RUST_PROGRAMS.iter().any(|rust| name == *rust) {
                    continue;
                }
                std::os::unix::fs::symlink(entry.path(), link).unwrap();
            }
        }
        let path = std::env::join_paths([node_dir, system.path().to_path_buf()]).unwrap();
        for rust in ["cargo", "rustc"] {
            assert!(which(rust, &path).is_none(), "{rust} is on the test's PATH");
        }
        assert!(which("npm", &path).is_some(), "npm is on the test's PATH");
        NodeOnly {
            path,
            _system: system,
            pnpm: None,
        }
    }

    /// The same environment, running `pnpm` (a script of Node's) from where the test found it.
    fn with_pnpm(self, pnpm: PathBuf) -> NodeOnly {
        NodeOnly {
            pnpm: Some(pnpm),
            ..self
        }
    }

    pub(crate) fn command(&self, program: &str, dir: &Path) -> Command {
        let found = match (program, &self.pnpm) {
            ("pnpm", Some(pnpm)) => pnpm.clone(),
            _ => which(program, &self.path).expect(program),
        };
        self.command_at(&found, dir)
    }

    /// [`NodeOnly::command`] for a program named by its path.
    fn command_at(&self, program: &Path, dir: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(dir)
            .env("PATH", &self.path)
            .env_remove("CARGO")
            .env_remove("RUSTUP_TOOLCHAIN")
            .env_remove("CONTENT_API_BINARY")
            // As on a host's build image.
            .env("CI", "true")
            .env("ASTRO_TELEMETRY_DISABLED", "1")
            .env("npm_config_update_notifier", "false")
            .env("npm_config_fund", "false")
            .env("npm_config_audit", "false");
        command
    }
}

fn which(program: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A package manager as a site runs it.
#[derive(Clone, Copy)]
pub(crate) enum Manager {
    Npm,
    /// The seed site's: pnpm 10 and later run no dependency's install script unless allowed.
    Pnpm,
}

impl Manager {
    fn name(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm => "pnpm",
        }
    }

    /// The command that runs this manager, with `args`, in `root`.
    fn command(self, env: &NodeOnly, root: &Path, args: &[&str]) -> Command {
        match self {
            Manager::Npm => {
                let mut command = env.command("npm", root);
                command.args(args);
                command
            }
            Manager::Pnpm => {
                let mut command = env.command("pnpm", root);
                command.args(args);
                command
            }
        }
    }

    /// Where this manager takes the packages a site does not install by name (`(name,
    /// tarball)`: the platform package, and the launcher under the integration) from their
    /// tarballs instead of the registry.
    pub(crate) fn override_packages(self, root: &Path, packages: &[(String, PathBuf)]) {
        let specs = packages
            .iter()
            .map(|(name, tarball)| (name.clone(), format!("file:{}", tarball.display())));
        match self {
            Manager::Npm => {
                let manifest_path = root.join("package.json");
                let mut manifest: Value =
                    serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
                manifest["overrides"] = specs
                    .map(|(name, spec)| (name, Value::from(spec)))
                    .collect::<serde_json::Map<_, _>>()
                    .into();
                let bytes = serde_json::to_vec_pretty(&manifest).unwrap();
                std::fs::write(&manifest_path, bytes).unwrap();
            }
            // Astro's esbuild has an install script, which the seed site allows as here;
            // content-api's packages have none, so they need no entry.
            Manager::Pnpm => {
                let overrides: String = specs
                    .map(|(name, spec)| format!("  \"{name}\": \"{spec}\"\n"))
                    .collect();
                std::fs::write(
                    root.join("pnpm-workspace.yaml"),
                    format!("allowBuilds:\n  esbuild: true\noverrides:\n{overrides}"),
                )
                .unwrap();
            }
        }
    }
}

/// The fixture site with the sample content in `src/content`, set to take the platform package
/// from its tarball (where a manager would take it from the registry).
fn astro_site(manager: Manager, platform: &str, tarball: &Path) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let fixture = common::repo().join("tests/fixtures/astro-npm-site");
    common::copy_tree(&fixture, site.path());
    common::copy_sample_content(&site.path().join("src/content"));
    manager.override_packages(
        site.path(),
        &[(platform_name(platform), tarball.to_path_buf())],
    );
    site
}

/// `dist` after an Astro site's build (`what` names the run): Astro's page lists the sample
/// post, the API lists it too, and each of `documents` is there.
fn assert_astro_built_beside_the_api(dist: &Path, what: &str, documents: &[&str]) {
    let page = std::fs::read_to_string(dist.join("index.html"))
        .unwrap_or_else(|err| panic!("{what}: Astro built no page: {err}"));
    assert!(
        page.contains("Hello from Medellín"),
        "{what}: Astro's page lists the posts: {page}"
    );
    let posts: Value = serde_json::from_slice(
        &std::fs::read(dist.join("api/posts-en.json"))
            .unwrap_or_else(|err| panic!("{what}: no dist/api/posts-en.json: {err}")),
    )
    .unwrap();
    assert!(
        posts.as_array().is_some_and(|posts| posts
            .iter()
            .any(|post| post["slug"] == "hello-from-medellin")),
        "{what}: posts-en.json lists the post: {posts}"
    );
    for document in documents {
        assert!(
            dist.join(document).is_file(),
            "{what}: dist/{document} is missing"
        );
    }
}

/// Installs Astro and the launcher (`@content-api/cli`, as the README says) with `manager` into
/// the fixture site, runs the site's own `build` script (`astro build && content-api build`),
/// and checks Astro's page and the API in `dist/`.
fn install_and_build(
    manager: Manager,
    env: &NodeOnly,
    dir: &Path,
    platform: &str,
) -> tempfile::TempDir {
    let site = astro_site(manager, platform, &platform_tarball(dir, platform));
    let root = site.path();
    let name = manager.name();

    let astro = std::env::var("CONTENT_API_ASTRO").unwrap_or_else(|_| "astro@7".into());
    let launcher = launcher_tarball(dir);
    let add = match manager {
        Manager::Npm => ["install", "--save-dev", &astro, launcher.to_str().unwrap()],
        Manager::Pnpm => ["add", "--save-dev", &astro, launcher.to_str().unwrap()],
    };
    let install = run(&mut manager.command(env, root, &add));
    assert_ran(&install, &format!("{name} install"));
    let installed: Value = serde_json::from_slice(
        &std::fs::read(root.join("node_modules/astro/package.json")).unwrap(),
    )
    .unwrap();
    eprintln!(
        "installed astro {} and {} {VERSION} with {name}",
        installed["version"],
        launcher_name()
    );

    let build = run(&mut manager.command(env, root, &["run", "build"]));
    assert_ran(
        &build,
        &format!("{name} run build (astro build && content-api build)"),
    );

    assert_astro_built_beside_the_api(
        &root.join("dist"),
        name,
        &["api/index.json", "openapi.json", "llms.txt", "404.html"],
    );
    site
}

#[test]
fn an_astro_site_installs_it_with_pnpm_and_its_own_build_writes_the_api() {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let Some(pnpm) = pnpm(&node) else {
        return;
    };
    install_and_build(
        Manager::Pnpm,
        &NodeOnly::new(&node).with_pnpm(pnpm),
        &dir,
        platform,
    );
}

#[test]
fn an_astro_site_installs_it_with_npm_and_its_own_build_writes_the_api() {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let env = NodeOnly::new(&node);
    let site = install_and_build(Manager::Npm, &env, &dir, platform);
    let root = site.path();
    assert!(
        root.join("node_modules")
            .join(platform_name(platform))
            .join("content-api")
            .is_file(),
        "npm installed the platform package for this machine"
    );

    // The launcher is the binary, as far as the caller can tell: its output and exit status.
    let version = run(env
        .command("npx", root)
        .args(["--no-install", "content-api", "--version"]));
    assert_ran(&version, "npx content-api --version");
    assert!(
        text(&version.stdout).contains(VERSION),
        "{}",
        text(&version.stdout)
    );
    let usage = run(env.command("npx", root).args([
        "--no-install",
        "content-api",
        "build",
        "--no-such-flag",
    ]));
    assert_eq!(
        usage.status.code(),
        Some(2),
        "clap's usage status comes through"
    );
    assert!(text(&usage.stderr).contains("--no-such-flag"));

    the_launcher_says_what_to_do_when_no_binary_fits(&env, root, platform);
}

/// What the launcher says where it finds no binary: each message names the cause and a way on.
fn the_launcher_says_what_to_do_when_no_binary_fits(env: &NodeOnly, root: &Path, platform: &str) {
    let launcher = root
        .join("node_modules")
        .join(launcher_name())
        .join("bin/content-api.js");
    let refused = |command: &mut Command| -> String {
        let output = run(command);
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        text(&output.stderr)
    };

    // A platform no package is made for (a preload makes this machine say it is FreeBSD).
    let preload = root.join("freebsd.cjs");
    std::fs::write(
        &preload,
        "Object.defineProperty(process, 'platform', { value: 'freebsd' });\n",
    )
    .unwrap();
    let said = refused(
        env.command("node", root)
            .arg("--require")
            .arg(&preload)
            .arg(&launcher)
            .arg("--version"),
    );
    assert!(
        said.contains("no prebuilt binary for this machine, freebsd-"),
        "{said}"
    );
    assert!(
        said.contains("linux-x64 (glibc)") && said.contains("cargo install"),
        "{said}"
    );

    // CONTENT_API_BINARY naming nothing.
    let said = refused(
        env.command("node", root)
            .arg(&launcher)
            .env("CONTENT_API_BINARY", root.join("nothing")),
    );
    assert!(
        said.contains("CONTENT_API_BINARY") && said.contains("does not exist"),
        "{said}"
    );

    // The platform package left out (`npm install --omit=optional`, or a lockfile made elsewhere).
    let installed = root.join("node_modules").join(platform_name(platform));
    std::fs::rename(&installed, root.join("set-aside")).unwrap();
    let said = refused(env.command("node", root).arg(&launcher).arg("--version"));
    assert!(said.contains(&platform_name(platform)), "{said}");
    assert!(
        said.contains(&format!("optional dependency of {}", launcher_name())),
        "{said}"
    );
    assert!(
        said.contains("is not installed") && said.contains("--omit=optional"),
        "{said}"
    );
}

/// The names a site installs, as the README and the guides give them: set once, in
/// platforms.json, and no document names a package the project does not publish (the
/// unscoped `content-api` on npm is not the project's).
#[test]
fn the_packages_are_named_as_the_docs_name_them_and_nothing_names_another() {
    assert_eq!(launcher_name(), "@content-api/cli");
    assert_eq!(
        platform_name("linux-x64-gnu"),
        "@content-api/cli-linux-x64-gnu"
    );
    assert_eq!(integration_name(), "@content-api/astro");
    let launcher: Value = serde_json::from_slice(
        &std::fs::read(common::repo().join("npm/content-api/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        launcher["bin"]["content-api"], "bin/content-api.js",
        "the command stays `content-api`"
    );
    for manifest in [
        "npm/content-api/package.json",
        "npm/content-api/astro/package.json",
    ] {
        let value: Value =
            serde_json::from_slice(&std::fs::read(common::repo().join(manifest)).unwrap()).unwrap();
        assert!(
            value.get("name").is_none(),
            "{manifest}: scripts/npm-pack writes the name from platforms.json, the one place the scope is set"
        );
    }

    let mut documents = vec![
        "README.md".to_string(),
        "ARCHITECTURE.md".to_string(),
        "CONTRIBUTING.md".to_string(),
        "npm/content-api/README.md".to_string(),
        "npm/content-api/astro/README.md".to_string(),
    ];
    for (path, _) in common::read_tree(&common::repo().join("docs")) {
        if path.ends_with(".md") || path.ends_with(".yml") {
            documents.push(format!("docs/{path}"));
        }
    }
    let unpublished = [
        "install --save-dev content-api",
        "install -D content-api",
        "add -D content-api",
        "add -d content-api",
        "add --save-dev content-api",
        "\"content-api/astro\"",
        "`content-api/astro`",
        "@content-api/<platform>",
    ];
    for document in documents {
        let text = std::fs::read_to_string(common::repo().join(&document)).unwrap();
        for phrase in unpublished {
            assert!(
                !text.contains(phrase),
                "{document} says `{phrase}`: the packages are {}, {} and {}-<platform>",
                launcher_name(),
                integration_name(),
                launcher_name()
            );
        }
    }
}

/// A binary over the cap is refused with what to do (the `dist` profile) and why the cap is.
#[test]
fn npm_pack_refuses_a_binary_over_the_cap_and_says_to_build_with_the_dist_profile() {
    let Some(node) = node() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A `release` build's size: over the cap (sparse, so nothing is written).
    let binary = dir.path().join("content-api");
    std::fs::File::create(&binary)
        .unwrap()
        .set_len(MAX_BYTES + 1)
        .unwrap();
    let out = dir.path().join("packages");
    let output = run(Command::new(&node)
        .arg(common::repo().join("scripts/npm-pack"))
        .arg(&out)
        .arg("--binary")
        .arg(format!("linux-x64-gnu={}", binary.display())));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let said = text(&output.stderr);
    for needed in [
        "over the 20971520-byte limit (20 MiB)",
        "scripts/cross-build build x86_64-unknown-linux-gnu",
        "--profile dist --target x86_64-unknown-linux-gnu.2.17",
        "--binary linux-x64-gnu=target/cross-build/x86_64-unknown-linux-gnu/dist/content-api",
        "downloads this package on each deploy",
    ] {
        assert!(said.contains(needed), "{needed:?} is not in: {said}");
    }
    let packed: Vec<_> = std::fs::read_dir(&out)
        .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
        .unwrap_or_default();
    assert!(packed.is_empty(), "nothing is packed: {packed:?}");
}

/// The Windows package as `scripts/npm-pack` packs the binary `scripts/windows-check` built:
/// `content-api.exe` (the very file, a PE executable) under the launcher's scheme of names, for
/// npm's `os` win32 and `cpu` x64, and an optional dependency of the launcher. That Windows Node
/// installs and runs it through the launcher is `scripts/windows-npm`'s check, under wine.
#[test]
fn the_windows_package_holds_content_api_exe_for_win32_x64() {
    let Some(node) = node() else {
        return;
    };
    let Some(exe) = need::WINDOWS_EXE.program() else {
        return;
    };
    let packed = tempfile::tempdir().unwrap();
    let output = run(Command::new(&node)
        .arg(common::repo().join("scripts/npm-pack"))
        .arg(packed.path())
        .arg("--binary")
        .arg(format!("win32-x64={}", exe.display())));
    assert_ran(
        &output,
        "scripts/npm-pack --binary win32-x64=... (it needs npm on PATH)",
    );
    let name = platform_name("win32-x64");
    let tarball = tarball(packed.path(), &name);
    let size = std::fs::metadata(&tarball).unwrap().len();
    assert!(size <= MAX_BYTES, "{name} is {size} bytes, over the cap");
    let listed = run(Command::new("tar").arg("-tzf").arg(&tarball));
    assert_ran(&listed, "tar -tzf");
    let mut files: Vec<String> = text(&listed.stdout).lines().map(str::to_string).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "package/LICENSE",
            "package/README.md",
            "package/content-api.exe",
            "package/package.json"
        ]
    );

    let unpacked = unpack(&tarball);
    let package = unpacked.path().join("package");
    let binary = std::fs::read(package.join("content-api.exe")).unwrap();
    assert!(
        binary == std::fs::read(&exe).unwrap() && binary.starts_with(b"MZ"),
        "the package holds the Windows binary itself"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(manifest["name"], name.as_str());
    assert_eq!(manifest["version"], VERSION);
    assert_eq!(manifest["os"], serde_json::json!(["win32"]), "{manifest}");
    assert_eq!(manifest["cpu"], serde_json::json!(["x64"]), "{manifest}");
    assert!(
        manifest.get("libc").is_none(),
        "no libc on Windows: {manifest}"
    );
    assert_eq!(
        manifest["files"],
        serde_json::json!(["content-api.exe", "README.md", "LICENSE"])
    );
    let readme = std::fs::read_to_string(package.join("README.md")).unwrap();
    assert!(
        readme.contains("The `content-api.exe` binary for win32-x64."),
        "{readme}"
    );

    let launcher = unpack(&launcher_tarball(packed.path()));
    let launcher: Value = serde_json::from_slice(
        &std::fs::read(launcher.path().join("package/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        launcher["optionalDependencies"][&name], VERSION,
        "{launcher}"
    );
}

/// The launcher and the integration as `scripts/npm-pack --launcher-only` makes them from this
/// checkout, unpacked into `root/node_modules` as a package manager lays them out.
fn js_packages_from_checkout(node: &Path, root: &Path) {
    let packed = tempfile::tempdir().unwrap();
    let output = run(Command::new(node)
        .arg(common::repo().join("scripts/npm-pack"))
        .arg(packed.path())
        .arg("--launcher-only"));
    assert_ran(
        &output,
        "scripts/npm-pack --launcher-only (it needs npm on PATH)",
    );
    for name in [launcher_name(), integration_name()] {
        let into = root.join("node_modules").join(&name);
        std::fs::create_dir_all(&into).unwrap();
        let output = run(Command::new("tar")
            .arg("-xzf")
            .arg(tarball(packed.path(), &name))
            .arg("--strip-components=1")
            .arg("-C")
            .arg(&into));
        assert_ran(&output, "tar -xzf");
    }
}

/// `npx astro add @content-api/astro` takes a package for an integration by its keyword
/// `astro-integration`, installs it, and calls its default export in `integrations`: the
/// package says so, depends on the launcher at its own version, and its default export makes
/// an integration with the hooks the integration's work is in.
#[test]
fn the_astro_integration_is_a_package_astro_add_takes() {
    let Some(node) = node() else {
        return;
    };
    let site = tempfile::tempdir().unwrap();
    js_packages_from_checkout(&node, site.path());
    let installed = site.path().join("node_modules");
    let read = |name: &str| -> Value {
        let manifest = installed.join(name).join("package.json");
        serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap()
    };
    let integration = read(&integration_name());
    assert_eq!(integration["version"], VERSION);
    assert!(
        integration["keywords"]
            .as_array()
            .unwrap()
            .contains(&"astro-integration".into()),
        "astro add looks for the keyword astro-integration: {integration}"
    );
    assert_eq!(
        integration["dependencies"],
        serde_json::json!({ launcher_name(): VERSION }),
        "the launcher brings the binary"
    );
    assert!(integration["peerDependencies"]["astro"].is_string());
    let launcher = read(&launcher_name());
    let platforms = platforms_json();
    for platform in platforms["platforms"].as_array().unwrap() {
        let name = platform_name(platform["package"].as_str().unwrap());
        assert_eq!(
            launcher["optionalDependencies"][&name], VERSION,
            "{launcher}"
        );
    }

    // As astro.config.mjs uses it: the default export, called, is an integration.
    let script = format!(
        "const {{ default: make }} = await import({:?});\n\
         const made = make();\n\
         console.log(JSON.stringify({{ type: typeof make, name: made.name, hooks: Object.keys(made.hooks).sort() }}));\n",
        integration_name()
    );
    let output = run(Command::new(&node)
        .args(["--input-type=module", "-e", &script])
        .current_dir(site.path()));
    assert_ran(&output, "node: import the integration");
    let found: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(found["type"], "function", "{found}");
    assert_eq!(found["name"], "content-api", "{found}");
    for hook in [
        "astro:build:done",
        "astro:config:done",
        "astro:config:setup",
        "astro:server:setup",
        "astro:server:start",
    ] {
        assert!(
            found["hooks"].as_array().unwrap().contains(&hook.into()),
            "{hook}: {found}"
        );
    }
}
