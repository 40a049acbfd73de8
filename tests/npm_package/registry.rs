//! The release's npm job against a real registry, then a site that installs the packages by
//! name: verdaccio on loopback (`npm_package/verdaccio.yaml`; every package but content-api's
//! comes from the public registry through it) takes the release workflow's own pack and publish
//! steps, read from `.github/workflows/release.yml`; then a fresh Astro site per package
//! manager (npm, pnpm, yarn 1, yarn 4 and bun, side by side) installs `@content-api/cli` by name,
//! adds `@content-api/astro` (with `astro add` where Astro can ask that manager for its
//! registry), and its `astro build` writes the API.

use super::common::{self, http, need, run_bounded, workflow};
use super::{
    NodeOnly, VERSION, assert_astro_built_beside_the_api, assert_ran, integration_name,
    launcher_name, packages_and_node, platform_name, platform_tarball, platforms_json, text,
    unpack, which,
};
use serde_json::Value;
use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The registry's configuration, copied beside its storage in the test's folder.
const CONFIG: &str = "tests/npm_package/verdaccio.yaml";
/// How long verdaccio may take to answer after it starts.
const START_LIMIT: Duration = Duration::from_secs(60);
/// The first install fetches Astro and its few hundred packages from the public registry
/// through verdaccio; the others read verdaccio's copies.
const INSTALL_LIMIT: Duration = Duration::from_secs(420);
/// `astro add`, `astro build` and `content-api --version`.
const STEP_LIMIT: Duration = Duration::from_secs(240);

/// verdaccio, on a free port of 127.0.0.1, with its storage in a folder of its own; killed on
/// drop (its log shown when the test failed).
struct Registry {
    child: Child,
    addr: String,
    folder: tempfile::TempDir,
}

impl Registry {
    fn start(verdaccio: &Path, env: &NodeOnly) -> Registry {
        let folder = tempfile::tempdir().unwrap();
        let config = folder.path().join("config.yaml");
        std::fs::copy(common::repo().join(CONFIG), &config).unwrap();
        let log = std::fs::File::create(folder.path().join("verdaccio.log")).unwrap();
        let addr = format!("127.0.0.1:{}", http::free_port());
        let child = Command::new(verdaccio)
            .arg("--config")
            .arg(&config)
            .args(["--listen", &addr])
            .env("PATH", &env.path)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|err| panic!("{}: {err}", verdaccio.display()));
        let mut registry = Registry {
            child,
            addr,
            folder,
        };
        let start = Instant::now();
        while !registry.answers() {
            let exited = registry.child.try_wait().unwrap();
            assert!(
                exited.is_none() && start.elapsed() < START_LIMIT,
                "verdaccio did not answer on {} ({exited:?}):\n{}",
                registry.addr,
                registry.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        registry
    }

    fn answers(&self) -> bool {
        std::net::TcpStream::connect(&self.addr).is_ok()
            && http::get(&self.addr, "/-/ping", &[]).status == 200
    }

    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.folder.path().join("verdaccio.log")).unwrap_or_default()
    }

    /// Makes an account, as a maintainer makes theirs on npm, and returns its token: what the
    /// release job's secret holds.
    fn add_user(&self, name: &str) -> String {
        // The account lives as long as this registry: its password, the random name of the
        // registry's folder, is this run's only.
        let password = self.folder.path().file_name().unwrap().to_str().unwrap();
        let body = serde_json::json!({ "name": name, "password": password }).to_string();
        let reply = http::request(
            &self.addr,
            "PUT",
            &format!("/-/user/org.couchdb.user:{name}"),
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        );
        assert_eq!(reply.status, 201, "adduser: {}", reply.text());
        http::json(&reply)["token"]
            .as_str()
            .expect("a token")
            .to_string()
    }

    /// The registry's document of `package` (`None` when it has none): what a client reads.
    fn packument(&self, package: &str) -> Option<Value> {
        let reply = http::get(
            &self.addr,
            &format!("/{}", package.replace('/', "%2f")),
            &[],
        );
        (reply.status == 200).then(|| http::json(&reply))
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- verdaccio's log ---\n{}", self.log());
        }
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.wait();
    }
}

/// The release workflow's npm job, its two steps run as written, against `registry`: `Pack`
/// with this machine's binary (from its platform package) and a small stand-in for each other
/// platform's (built by the release on runners of theirs; published here so that every
/// optional dependency of the launcher resolves, as on the public registry), then `Publish`,
/// with the `.npmrc` `actions/setup-node` writes and a token of the registry's.
fn publish_as_the_release_does(registry: &Registry, env: &NodeOnly, dir: &Path, platform: &str) {
    let work = tempfile::tempdir().unwrap();
    let root = work.path();
    workflow::npm_job_checkout(root);
    let artifacts = root.join("artifacts");
    std::fs::create_dir(&artifacts).unwrap();
    let ours = unpack(&platform_tarball(dir, platform));
    for entry in platforms_json()["platforms"].as_array().unwrap() {
        let artifact = artifacts.join(format!("content-api-{}", entry["target"].as_str().unwrap()));
        if entry["package"] == platform {
            std::fs::copy(ours.path().join("package/content-api"), &artifact).unwrap();
        } else {
            std::fs::write(&artifact, b"stand-in: never installed on this machine\n").unwrap();
        }
    }
    let home = root.join("home");
    std::fs::create_dir(&home).unwrap();
    let npmrc = root.join("npmrc");
    std::fs::write(
        &npmrc,
        format!(
            "//{}/:_authToken=${{NODE_AUTH_TOKEN}}\nregistry={}\n",
            registry.addr,
            registry.url()
        ),
    )
    .unwrap();
    let token = registry.add_user("release");
    let path = env.path.to_str().unwrap();
    let steps = workflow::release();
    let environment = [
        ("PATH", path),
        ("HOME", home.to_str().unwrap()),
        ("NPM_CONFIG_USERCONFIG", npmrc.to_str().unwrap()),
        ("NODE_AUTH_TOKEN", &token),
    ];
    workflow::run_step(workflow::script(&steps, "npm", "Pack"), root, &environment);
    workflow::run_step(
        workflow::script(&steps, "npm", "Publish"),
        root,
        &environment,
    );
    for name in [launcher_name(), integration_name(), platform_name(platform)] {
        let published = registry
            .packument(&name)
            .unwrap_or_else(|| panic!("{name} is not on the registry after the publish step"));
        assert_eq!(published["dist-tags"]["latest"], VERSION, "{name}");
    }
}

/// A package manager as a site runs it.
#[derive(Clone, Copy, Debug)]
enum Client {
    Npm,
    Pnpm,
    YarnClassic,
    YarnBerry,
    Bun,
}

const CLIENTS: [Client; 5] = [
    Client::Npm,
    Client::Pnpm,
    Client::YarnClassic,
    Client::YarnBerry,
    Client::Bun,
];

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::Npm => "npm",
            Client::Pnpm => "pnpm",
            Client::YarnClassic => "yarn 1",
            Client::YarnBerry => "yarn 4",
            Client::Bun => "bun",
        }
    }

    /// The command a site types: `npm`, `pnpm`, `yarn` or `bun`.
    fn command_name(self) -> &'static str {
        match self {
            Client::Npm => "npm",
            Client::Pnpm => "pnpm",
            Client::YarnClassic | Client::YarnBerry => "yarn",
            Client::Bun => "bun",
        }
    }

    /// The major version this test is about (both yarns answer to `yarn`).
    fn major(self) -> Option<u32> {
        match self {
            Client::YarnClassic => Some(1),
            Client::YarnBerry => Some(4),
            _ => None,
        }
    }

    /// The program: npm beside Node, the others where their needs say.
    fn program(self, env: &NodeOnly) -> Option<PathBuf> {
        let found = match self {
            Client::Npm => which("npm", &env.path),
            Client::Pnpm => need::PNPM.program(),
            Client::YarnClassic => need::YARN_CLASSIC.program(),
            Client::YarnBerry => need::YARN_BERRY.program(),
            Client::Bun => need::BUN.program(),
        }?;
        let Some(wanted) = self.major() else {
            return Some(found);
        };
        let version = run_bounded(
            Command::new(&found)
                .arg("--version")
                .env("PATH", &env.path)
                .current_dir(std::env::temp_dir()),
            STEP_LIMIT,
        );
        let major = text(&version.stdout)
            .trim()
            .split('.')
            .next()
            .and_then(|major| major.parse::<u32>().ok());
        if major == Some(wanted) {
            return Some(found);
        }
        let need = if wanted == 1 {
            &need::YARN_CLASSIC
        } else {
            &need::YARN_BERRY
        };
        need.missing(&format!(
            "{} is yarn {}",
            found.display(),
            text(&version.stdout).trim()
        ));
        None
    }

    /// The site's own files that point this manager at `registry`, as a site that uses another
    /// registry has them.
    fn point_at(self, site: &Path, registry: &Registry) {
        let url = registry.url();
        let write = |name: &str, text: String| std::fs::write(site.join(name), text).unwrap();
        match self {
            Client::Npm => write(".npmrc", format!("registry={url}\n")),
            Client::Pnpm => {
                write(".npmrc", format!("registry={url}\n"));
                // pnpm 10 and later run no dependency's install script unless allowed: Astro's
                // esbuild has one, content-api's packages none.
                write(
                    "pnpm-workspace.yaml",
                    "allowBuilds:\n  esbuild: true\n".into(),
                );
            }
            // yarn 1 reads .npmrc too, but `yarn config get registry` (which `astro add` asks)
            // answers with .yarnrc's.
            Client::YarnClassic => write(".yarnrc", format!("registry \"{url}\"\n")),
            Client::YarnBerry => write(
                ".yarnrc.yml",
                format!(
                    "npmRegistryServer: \"{}\"\n\
                     unsafeHttpWhitelist:\n  - \"127.0.0.1\"\n\
                     # A node_modules folder, as the other managers make.\n\
                     nodeLinker: node-modules\n\
                     enableTelemetry: false\n\
                     # yarn 4 holds back a version published less than a day ago\n\
                     # (npmMinimalAgeGate); this one was published seconds ago.\n\
                     npmPreapprovedPackages:\n  - \"{}/*\"\n",
                    url.trim_end_matches('/'),
                    launcher_name().split('/').next().unwrap()
                ),
            ),
            Client::Bun => write("bunfig.toml", format!("[install]\nregistry = \"{url}\"\n")),
        }
    }

    /// `args` of this manager's command that installs packages by name as the site's own, as
    /// the README spells it.
    fn add(self) -> &'static [&'static str] {
        match self {
            Client::Npm => &["install", "--save-dev"],
            Client::Pnpm | Client::YarnClassic | Client::YarnBerry => &["add", "-D"],
            Client::Bun => &["add", "-d"],
        }
    }

    /// How this manager runs a command of the site's packages (`astro`, `content-api`).
    fn exec(self) -> &'static [&'static str] {
        match self {
            Client::Npm => &["exec", "--no", "--"],
            Client::Pnpm => &["exec"],
            Client::YarnClassic | Client::YarnBerry => &["run"],
            Client::Bun => &["x"],
        }
    }

    /// Whether `astro add` can find a package of this registry with this manager. Astro asks
    /// `<manager> config get registry` for it and falls back to registry.npmjs.org: yarn 4
    /// (whose setting is `npmRegistryServer`) and bun (no `bun config`) do not answer, and a
    /// package that is only here is then "not found". With the public registry, where the
    /// release publishes, the fallback is the right one.
    fn astro_add_reads_the_registry(self) -> bool {
        matches!(self, Client::Npm | Client::Pnpm | Client::YarnClassic)
    }
}

/// A fresh site for `client`: the fixture (`tests/fixtures/astro-npm-site`: a package.json,
/// astro.config.mjs, a page, a content collection and watch.toml) and the sample content.
fn fresh_site(client: Client, registry: &Registry, vite_pin: Option<&str>) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let fixture = common::repo().join("tests/fixtures/astro-npm-site");
    common::copy_tree(&fixture, site.path());
    common::copy_sample_content(&site.path().join("src/content"));
    client.point_at(site.path(), registry);
    if let (Some(version), Client::YarnClassic | Client::YarnBerry) = (vite_pin, client) {
        let manifest_path = site.path().join("package.json");
        let mut manifest: Value =
            serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
        manifest["resolutions"] = serde_json::json!({ "vite": version });
        std::fs::write(
            &manifest_path,
            serde_json::to_vec_pretty(&manifest).unwrap(),
        )
        .unwrap();
    }
    site
}

/// Both yarns stop at an optional dependency the registry does not have, where npm, pnpm and
/// bun go on without it; the npm registry this project's machines reach lacks some (vite 8.4's
/// Windows-only `napi-windows-process-start-time`). The newest vite of the latest's major whose
/// optional dependencies the registry has, when the latest's are not all there.
fn vite_pin(registry: &Registry) -> Option<String> {
    let vite = registry
        .packument("vite")
        .expect("vite, through the uplink");
    let latest = vite["dist-tags"]["latest"].as_str().unwrap().to_string();
    let all_there = |version: &str| {
        vite["versions"][version]["optionalDependencies"]
            .as_object()
            .is_none_or(|optional| {
                optional
                    .keys()
                    .all(|name| registry.packument(name).is_some())
            })
    };
    if all_there(&latest) {
        return None;
    }
    let number = |version: &str| -> Option<(u64, u64, u64)> {
        let mut parts = version.split('.').map(|part| part.parse::<u64>().ok());
        Some((parts.next()??, parts.next()??, parts.next()??))
    };
    let major = number(&latest)?.0;
    let mut versions: Vec<(u64, u64, u64)> = vite["versions"]
        .as_object()
        .unwrap()
        .keys()
        .filter_map(|version| number(version))
        .filter(|version| version.0 == major)
        .collect();
    versions.sort_unstable();
    versions
        .into_iter()
        .rev()
        .map(|(a, b, c)| format!("{a}.{b}.{c}"))
        .find(|version| all_there(version))
}

/// What one manager's run took, step by step.
struct Timings(Vec<(&'static str, Duration)>);

/// `client` in a fresh site: `@content-api/cli` and Astro installed by name from `registry`,
/// the command answers, the integration added (`astro add` where it can be), `astro build`.
fn install_add_and_build(
    client: Client,
    program: &Path,
    env: &NodeOnly,
    registry: &Registry,
    vite_pin: Option<&str>,
) -> Timings {
    let site = fresh_site(client, registry, vite_pin);
    let root = site.path();
    let home = tempfile::tempdir().unwrap();
    // The manager as the site's command (`astro add` runs it by name), before Node and the
    // system's programs; a home of its own, so no cache or setting of this machine's is read.
    let bin = tempfile::tempdir().unwrap();
    if client.command_name() != "npm" {
        std::os::unix::fs::symlink(program, bin.path().join(client.command_name())).unwrap();
    }
    let mut path = OsString::from(bin.path());
    path.push(":");
    path.push(&env.path);
    let name = client.name();
    let mut timings = Timings(Vec::new());
    let mut step = |what: &'static str, args: &[&str], limit: Duration| {
        let mut command = env.command_at(program, root);
        command
            .env("PATH", &path)
            .env("HOME", home.path())
            .env_remove("NPM_CONFIG_USERCONFIG")
            .args(args);
        let start = Instant::now();
        let output = run_bounded(&mut command, limit);
        timings.0.push((what, start.elapsed()));
        assert_ran(&output, &format!("{name}: {}", args.join(" ")));
        output
    };

    let astro = std::env::var("CONTENT_API_ASTRO").unwrap_or_else(|_| "astro@7".into());
    let launcher = launcher_name();
    let add = [client.add(), &[astro.as_str(), launcher.as_str()]].concat();
    step("install", &add, INSTALL_LIMIT);

    // The launcher finds the binary its platform package brought.
    let version = step(
        "content-api --version",
        &[client.exec(), &["content-api", "--version"]].concat(),
        STEP_LIMIT,
    );
    assert!(
        text(&version.stdout).contains(VERSION),
        "{name}: content-api --version: {}",
        text(&version.stdout)
    );

    let integration = integration_name();
    if client.astro_add_reads_the_registry() {
        step(
            "astro add",
            &[client.exec(), &["astro", "add", &integration, "--yes"]].concat(),
            STEP_LIMIT,
        );
    } else {
        // The integration's README's way by hand: the package by name, two lines of config.
        step(
            "add the integration",
            &[client.add(), &[integration.as_str()]].concat(),
            STEP_LIMIT,
        );
        let config_path = root.join("astro.config.mjs");
        let config = std::fs::read_to_string(&config_path).unwrap();
        let by_hand = format!("import contentApi from \"{integration}\";\n{config}").replacen(
            "defineConfig({",
            "defineConfig({\n  integrations: [contentApi()],",
            1,
        );
        std::fs::write(&config_path, by_hand).unwrap();
    }
    let config = std::fs::read_to_string(root.join("astro.config.mjs")).unwrap();
    assert!(
        config.contains(&format!("from \"{integration}\"")) && config.contains("contentApi()"),
        "{name}: astro.config.mjs has the integration:\n{config}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root.join("package.json")).unwrap()).unwrap();
    let listed = |name: &str| {
        manifest["dependencies"].get(name).is_some()
            || manifest["devDependencies"].get(name).is_some()
    };
    assert!(
        listed(&integration) && listed(&launcher),
        "{name}: package.json lists both packages: {manifest}"
    );

    step(
        "astro build",
        &[client.exec(), &["astro", "build"]].concat(),
        STEP_LIMIT,
    );
    assert_astro_built_beside_the_api(
        &root.join("dist"),
        name,
        &["api/index.json", "openapi.json", "llms.txt"],
    );
    timings
}

#[test]
fn the_release_publishes_to_a_registry_and_five_package_managers_install_it_by_name_and_build() {
    let Some((dir, platform, node)) = packages_and_node() else {
        return;
    };
    let Some(verdaccio) = need::VERDACCIO.program() else {
        return;
    };
    let env = NodeOnly::new(&node);
    let clients: Vec<(Client, PathBuf)> = CLIENTS
        .into_iter()
        .filter_map(|client| Some((client, client.program(&env)?)))
        .collect();

    let start = Instant::now();
    let registry = Registry::start(&verdaccio, &env);
    publish_as_the_release_does(&registry, &env, &dir, platform);
    let published = start.elapsed();
    let pin = vite_pin(&registry);

    // Side by side: most of each run is waiting on the network, and the managers share
    // verdaccio's copies of what any of them fetched first.
    let runs = std::thread::scope(|scope| {
        let threads: Vec<_> = clients
            .iter()
            .map(|(client, program)| {
                let (env, registry, pin) = (&env, &registry, pin.as_deref());
                let thread = scope
                    .spawn(move || install_add_and_build(*client, program, env, registry, pin));
                (*client, thread)
            })
            .collect();
        threads
            .into_iter()
            .map(|(client, thread)| (client, thread.join()))
            .collect::<Vec<_>>()
    });
    eprintln!(
        "published in {:.1} s; vite pinned for yarn: {pin:?}; all in {:.1} s",
        published.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    let mut failures = Vec::new();
    for (client, run) in runs {
        match run {
            Ok(Timings(steps)) => {
                let steps: Vec<String> = steps
                    .iter()
                    .map(|(what, took)| format!("{what} {:.1} s", took.as_secs_f64()))
                    .collect();
                eprintln!("{}: {}", client.name(), steps.join(", "));
            }
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{}: {message}", client.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
