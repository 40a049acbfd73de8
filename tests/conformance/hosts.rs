//! Starting and stopping the hosts the conformance suites run against (Debian's nginx with the
//! block `content-api hosting nginx` prints, `wrangler pages dev`), shared by
//! `tests/conformance.rs`, `tests/drop_in.rs` and the nginx recipe's test.

use content_api::verify::client;
use std::ffi::OsStr;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// A host process, stopped (by its own id) when dropped. Each runs in a process group of its
/// own, led by it, so the runtimes wrangler starts stop with it.
pub struct Host {
    pub child: Child,
    pub name: &'static str,
    pub log: PathBuf,
}

impl Drop for Host {
    fn drop(&mut self) {
        let group = -(self.child.id() as i32);
        // SAFETY: kill(2) with the negated id of the group this test created.
        unsafe {
            libc::kill(group, libc::SIGTERM);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: as above; the group may already be gone.
        unsafe {
            libc::kill(group, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

impl Host {
    /// Waits until `addr` answers `GET /api/index.json` with 200, at most `patience`.
    pub fn wait_ready(&mut self, addr: SocketAddr, patience: Duration) {
        self.wait_for(addr, "/api/index.json", Some(200), patience);
    }

    /// Waits until `addr` answers `GET path` (with `status`, if given), at most `patience`.
    pub fn wait_for(
        &mut self,
        addr: SocketAddr,
        path: &str,
        status: Option<u16>,
        patience: Duration,
    ) {
        let start = Instant::now();
        while start.elapsed() < patience {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before answering:\n{}{}",
                    self.name,
                    std::fs::read_to_string(&self.log).unwrap_or_default(),
                    wrangler_logs(&self.log)
                );
            }
            if client::request(addr, "GET", path, &[]).is_ok_and(|reply| {
                status.is_none_or(|want| reply.status == want) && reply.status < 500
            }) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "{} did not answer on {addr} within {patience:?}:\n{}",
            self.name,
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }
}

/// A free loopback port below the kernel's ephemeral range (32768 and up on Linux). A port
/// the kernel hands out for `:0` may be handed to another process (wrangler and workerd open
/// several on their own) between this check and the host binding it; one below the range is
/// only ever taken by name.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let seed = std::process::id().wrapping_mul(7919);
    for _ in 0..12_000 {
        let step = NEXT.fetch_add(1, Ordering::Relaxed).wrapping_mul(13);
        let port = (20_000 + seed.wrapping_add(step) % 12_000) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port between 20000 and 32000");
}

/// The compatibility date given to wrangler: its bundled runtime accepts dates up to early
/// May 2026.
pub const COMPATIBILITY_DATE: &str = "2026-05-01";

/// `wrangler pages dev DIR` run from `root` (as Pages does: a `functions/` folder there is the
/// site's Functions), on a free loopback port, offline, with its home and logs in `scratch`.
/// Returns once `ready_path` answers.
pub fn wrangler(
    wrangler: &std::path::Path,
    dir: &std::path::Path,
    root: &std::path::Path,
    scratch: &std::path::Path,
    ready_path: &str,
) -> (Host, SocketAddr) {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    // wrangler writes its config and logs under HOME; keep them in the test's folder, and
    // keep it offline: no metrics, no prompts.
    let home = scratch.join("wrangler-home");
    std::fs::create_dir_all(&home).unwrap();
    let log = scratch.join(format!("wrangler-{port}.log"));
    let stdout = std::fs::File::create(&log).unwrap();
    let stderr = stdout.try_clone().unwrap();
    let child = Command::new(wrangler)
        .args(["pages", "dev"])
        .arg(dir)
        .args(["--ip", "127.0.0.1", "--port", &port.to_string()])
        // Its debugger port too: two wranglers at once would both take 9229.
        .args(["--inspector-port", &free_port().to_string()])
        .args(["--compatibility-date", COMPATIBILITY_DATE])
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("WRANGLER_SEND_METRICS", "false")
        .env("CI", "true")
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .unwrap();
    let mut host = Host {
        child,
        name: "wrangler pages dev",
        log,
    };
    host.wait_for(addr, ready_path, None, Duration::from_secs(120));
    (host, addr)
}

/// wrangler's own log files (it writes the details of a failed Functions build there).
fn wrangler_logs(log: &std::path::Path) -> String {
    let folder = log.with_file_name("wrangler-home/.config/.wrangler/logs");
    let Ok(entries) = std::fs::read_dir(folder) else {
        return String::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Debian's nginx configuration, as the package installs it.
pub const DEBIAN_NGINX: &str = "/etc/nginx";

/// nginx as Debian ships it (its main configuration, its default site enabled), moved to a
/// loopback port and a private prefix: `nginx.conf` with its pid, logs, temporary folders and
/// `sites-enabled` in `dir`, and the default site listening on `addr`.
pub fn debian_nginx(dir: &Path, addr: SocketAddr) -> PathBuf {
    let conf = std::fs::read_to_string(Path::new(DEBIAN_NGINX).join("nginx.conf")).unwrap();
    let d = dir.display();
    let conf = conf
        .replace("pid /run/nginx.pid;", &format!("pid {d}/nginx.pid;"))
        .replace(
            "error_log /var/log/nginx/error.log;",
            &format!("error_log {d}/error.log;"),
        )
        .replace("access_log /var/log/nginx/access.log;", "access_log off;")
        .replace(
            "include /etc/nginx/sites-enabled/*;",
            &format!(
                "include {d}/sites-enabled/*;\n\tclient_body_temp_path {d}/body;\n\tproxy_temp_path {d}/proxy;\n\t\
                 fastcgi_temp_path {d}/fastcgi;\n\tuwsgi_temp_path {d}/uwsgi;\n\tscgi_temp_path {d}/scgi;"
            ),
        );
    assert!(
        conf.contains(&format!("include {d}/sites-enabled/*;")),
        "{conf}"
    );
    std::fs::create_dir_all(dir.join("sites-enabled")).unwrap();
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let default_site =
        std::fs::read_to_string(Path::new(DEBIAN_NGINX).join("sites-available/default")).unwrap();
    let default_site = default_site
        .replace(
            "listen 80 default_server;",
            &format!("listen {addr} default_server;"),
        )
        .replace("listen [::]:80 default_server;", "");
    std::fs::write(dir.join("sites-enabled/default"), default_site).unwrap();
    dir.join("nginx.conf")
}

/// Debian's nginx set up in a test's folder: its configuration in `nginx/` there (as
/// [`debian_nginx`] writes it), its default site on a free loopback port. The folder is opened
/// to nginx's workers, which run as www-data (the recipe's /srv/... is open to them; a private
/// temporary folder is not, and `hosting nginx` says so).
pub struct DebianNginx {
    pub addr: SocketAddr,
    /// nginx's prefix: `nginx.conf`, `sites-enabled/`, its pid and error log.
    pub conf: PathBuf,
    /// Its main configuration file.
    pub main: PathBuf,
}

impl DebianNginx {
    pub fn in_folder(folder: &Path) -> DebianNginx {
        std::fs::set_permissions(folder, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let conf = folder.join("nginx");
        let main = debian_nginx(&conf, addr);
        DebianNginx { addr, conf, main }
    }

    /// docs/deploying.md's nginx recipe: the server block `content-api hosting nginx --listen
    /// ADDR` prints (run by `binary` in `site`, with `more` arguments), enabled beside the
    /// default site.
    pub fn enable_printed_block(&self, binary: &Path, site: &Path, more: &[&OsStr]) {
        let printed = std::process::Command::new(binary)
            .env_remove("CI")
            .args(["hosting", "nginx", "--listen", &self.addr.to_string()])
            .args(more)
            .current_dir(site)
            .output()
            .unwrap();
        assert!(
            printed.status.success(),
            "{}",
            String::from_utf8_lossy(&printed.stderr)
        );
        std::fs::write(self.conf.join("sites-enabled/content-api"), &printed.stdout).unwrap();
    }

    /// `nginx` started on this configuration (see [`nginx`]).
    pub fn start(&self, nginx: &Path, name: &'static str) -> Host {
        self::nginx(nginx, &self.conf, &self.main, self.addr, name)
    }

    /// `nginx -t` on this configuration: whether nginx accepts it, and what it said.
    pub fn test(&self, nginx: &Path) -> std::process::Output {
        std::process::Command::new(nginx)
            .arg("-t")
            .arg("-p")
            .arg(&self.conf)
            .arg("-c")
            .arg(&self.main)
            .output()
            .unwrap()
    }
}

/// nginx in the foreground with the configuration `main` (its prefix `conf`, where
/// `debian_nginx` put it), stopped when dropped. Returns once `addr` answers `GET /`.
pub fn nginx(nginx: &Path, conf: &Path, main: &Path, addr: SocketAddr, name: &'static str) -> Host {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let child = Command::new(nginx)
        .arg("-p")
        .arg(conf)
        .arg("-c")
        .arg(main)
        .args(["-g", "daemon off;"])
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(conf.join(format!("{name}.stderr"))).unwrap())
        .spawn()
        .unwrap();
    let mut host = Host {
        child,
        name,
        log: conf.join("error.log"),
    };
    host.wait_for(addr, "/", Some(200), Duration::from_secs(30));
    host
}
