//! The npm packages, as a site installs them: the tarballs `scripts/npm-pack` made (the launcher
//! `content-api` and this machine's platform package), installed with real npm into an Astro
//! site (`tests/fixtures/astro-npm-site`, real Astro from the npm registry) in an environment
//! with no `cargo` or `rustc` on `PATH`, then the site's own `npm run build`; and the launcher's
//! own manners with the signals a parent sends (`npm_package/launcher.rs`) and the integration's
//! middleware in a stand-in for `astro dev` (`npm_package/dev_middleware.rs`), both from the
//! repository.
//!
//! `.ci/run` makes the tarballs and names their folder in `CONTENT_API_NPM_PACKAGES`, and a
//! Node of version 22 or later in `CONTENT_API_NODE`. Without them the tests follow
//! `common::need`'s rule.

mod astro;
mod dev_middleware;
mod launcher;
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
fn packages() -> Option<(PathBuf, &'static str)> {
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

fn launcher_tarball(dir: &Path) -> PathBuf {
    existing(dir.join(format!("content-api-{VERSION}.tgz")))
}

fn platform_tarball(dir: &Path, platform: &str) -> PathBuf {
    existing(dir.join(format!("content-api-{platform}-{VERSION}.tgz")))
}

fn existing(path: PathBuf) -> PathBuf {
    assert!(
        path.is_file(),
        "{} is missing (scripts/npm-pack makes it)",
        path.display()
    );
    path
}

/// A Node of version 22 or later: `CONTENT_API_NODE`, or `node` on PATH if new enough.
fn node() -> Option<PathBuf> {
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
    assert_eq!(manifest["name"], format!("@content-api/{platform}"));
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
struct NodeOnly {
    path: std::ffi::OsString,
}

impl NodeOnly {
    fn new(node: &Path) -> NodeOnly {
        let node_dir = node.parent().unwrap().to_path_buf();
        let path = std::env::join_paths([node_dir, "/usr/bin".into(), "/bin".into()]).unwrap();
        for rust in ["cargo", "rustc"] {
            assert!(which(rust, &path).is_none(), "{rust} is on the test's PATH");
        }
        assert!(which("npm", &path).is_some(), "npm is on the test's PATH");
        NodeOnly { path }
    }

    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut command = Command::new(which(program, &self.path).expect(program));
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
enum Manager {
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
                let mut command = env.command("npx", root);
                command.args(["--yes", "pnpm@11"]).args(args);
                command
            }
        }
    }

    /// Where this manager takes the platform package from `tarball` instead of the registry.
    fn override_platform(self, root: &Path, platform: &str, tarball: &Path) {
        let name = format!("@content-api/{platform}");
        let spec = format!("file:{}", tarball.display());
        match self {
            Manager::Npm => {
                let manifest_path = root.join("package.json");
                let mut manifest: Value =
                    serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
                manifest["overrides"] = serde_json::json!({ name: spec });
                let bytes = serde_json::to_vec_pretty(&manifest).unwrap();
                std::fs::write(&manifest_path, bytes).unwrap();
            }
            // Astro's esbuild has an install script, which the seed site allows as here;
            // content-api has none, so it needs no entry.
            Manager::Pnpm => std::fs::write(
                root.join("pnpm-workspace.yaml"),
                format!("allowBuilds:\n  esbuild: true\noverrides:\n  \"{name}\": \"{spec}\"\n"),
            )
            .unwrap(),
        }
    }
}

/// The fixture site with the sample content in `src/content`, set to take the platform package
/// from its tarball (where a manager would take it from the registry).
fn astro_site(manager: Manager, platform: &str, tarball: &Path) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let fixture = common::repo().join("tests/fixtures/astro-npm-site");
    for (path, bytes) in common::read_tree(&fixture) {
        let target = site.path().join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
    common::copy_sample_content(&site.path().join("src/content"));
    manager.override_platform(site.path(), platform, tarball);
    site
}

/// Installs Astro and content-api with `manager` into the fixture site, runs the site's own
/// `build` script, and checks Astro's page and the API in `dist/`.
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
        "installed astro {} and content-api {VERSION} with {name}",
        installed["version"]
    );

    let build = run(&mut manager.command(env, root, &["run", "build"]));
    assert_ran(
        &build,
        &format!("{name} run build (astro build && content-api build)"),
    );

    let dist = root.join("dist");
    let page = std::fs::read_to_string(dist.join("index.html")).expect("Astro built its page");
    assert!(
        page.contains("Hello from Medellín"),
        "Astro's page lists the posts: {page}"
    );
    let posts: Value =
        serde_json::from_slice(&std::fs::read(dist.join("api/posts-en.json")).unwrap()).unwrap();
    let slugs: Vec<&str> = posts
        .as_array()
        .unwrap_or_else(|| panic!("posts-en.json lists posts: {posts}"))
        .iter()
        .filter_map(|post| post["slug"].as_str())
        .collect();
    assert!(slugs.contains(&"hello-from-medellin"), "{slugs:?}");
    for document in ["api/index.json", "openapi.json", "llms.txt", "404.html"] {
        assert!(dist.join(document).is_file(), "dist/{document} is missing");
    }
    site
}

#[test]
fn an_astro_site_installs_it_with_pnpm_and_its_own_build_writes_the_api() {
    let Some((dir, platform)) = packages() else {
        return;
    };
    let Some(node) = node() else {
        return;
    };
    install_and_build(Manager::Pnpm, &NodeOnly::new(&node), &dir, platform);
}

#[test]
fn an_astro_site_installs_it_with_npm_and_its_own_build_writes_the_api() {
    let Some((dir, platform)) = packages() else {
        return;
    };
    let Some(node) = node() else {
        return;
    };
    let env = NodeOnly::new(&node);
    let site = install_and_build(Manager::Npm, &env, &dir, platform);
    let root = site.path();
    assert!(
        root.join(format!("node_modules/@content-api/{platform}/content-api"))
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
    let launcher = root.join("node_modules/content-api/bin/content-api.js");
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
    let installed = root.join("node_modules/@content-api");
    std::fs::rename(&installed, root.join("set-aside")).unwrap();
    let said = refused(env.command("node", root).arg(&launcher).arg("--version"));
    assert!(said.contains(&format!("@content-api/{platform}")), "{said}");
    assert!(
        said.contains("is not installed") && said.contains("--omit=optional"),
        "{said}"
    );
}
