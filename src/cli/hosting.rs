//! `content-api hosting nginx`: prints the nginx server block for the configured output folder,
//! or, when nginx's workers cannot enter that folder (every request would answer 404), says why
//! and exits 2.

use super::args::NginxArgs;
use super::{BuildArgs, EXIT_USAGE, resolve};
use crate::render::nginx::{default_server_name, server_block};
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::ExitCode;

pub fn nginx(build: &BuildArgs, args: &NginxArgs) -> ExitCode {
    let settings = match resolve(build) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let out_dir = &settings.config.out_dir;
    // nginx resolves a relative root against its own prefix, not the current folder.
    let absolute = match std::path::absolute(out_dir.as_std_path()) {
        Ok(path) => path,
        Err(err) => {
            eprintln!("error: cannot make the output folder `{out_dir}` absolute: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(absolute) = absolute.to_str() else {
        eprintln!("error: the output folder `{out_dir}` is not valid UTF-8");
        return ExitCode::from(EXIT_USAGE);
    };
    let server_name = args
        .server_name
        .clone()
        .unwrap_or_else(|| default_server_name(&settings.config));
    match server_block(
        &settings.config,
        absolute.trim_end_matches('/'),
        &args.listen,
        &server_name,
    ) {
        Ok(block) => {
            let unreadable =
                unreadable_by_nginx(Path::new(absolute), Path::new(NGINX_CONF), Path::new(SRV));
            if let Some(problem) = unreadable {
                eprintln!("error: {problem}");
                return ExitCode::from(EXIT_USAGE);
            }
            print!("{block}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// nginx for Windows runs as the account that starts it, which can read what it builds: no
/// other account's permissions to look at.
#[cfg(windows)]
fn unreadable_by_nginx(_out_dir: &Path, _nginx_conf: &Path, _srv: &Path) -> Option<String> {
    None
}

/// Debian's main nginx configuration, which names the user its workers run as.
const NGINX_CONF: &str = "/etc/nginx/nginx.conf";

/// Where the fix suggests building instead (the folder of the same name there), when that is
/// another folder, not behind the one the workers cannot enter.
const SRV: &str = "/srv";

/// Why nginx's workers could not read the output folder, when they could not: they run as the
/// `user` of the main configuration (when nginx starts as root, as its service does), and a
/// folder they cannot enter answers every request with the JSON 404, the cause only in nginx's
/// error log.
#[cfg(unix)]
fn unreadable_by_nginx(out_dir: &Path, nginx_conf: &Path, srv: &Path) -> Option<String> {
    let conf = std::fs::read_to_string(nginx_conf).ok()?;
    let user = conf.lines().find_map(|line| {
        let line = line.trim();
        let rest = line.strip_prefix("user")?.trim_start();
        (line.len() > 4 && line.as_bytes()[4].is_ascii_whitespace())
            .then(|| rest.trim_end_matches(';').split_whitespace().next())
            .flatten()
            .map(str::to_string)
    })?;
    let (uid, gid) = account(&user)?;
    let mut folder = std::path::PathBuf::new();
    for part in out_dir.components() {
        folder.push(part);
        let meta = std::fs::metadata(&folder).ok()?;
        if !allows(&meta, uid, gid, 0o1) {
            // Never the folder given (or one inside it), nor one behind the same door.
            let elsewhere = srv.join(out_dir.file_name().unwrap_or("api".as_ref()));
            let elsewhere = if elsewhere.starts_with(&folder) || out_dir.starts_with(&elsewhere) {
                "it can read".to_string()
            } else {
                format!("it can read, such as {}", elsewhere.display())
            };
            return Some(format!(
                "nginx's workers run as `{user}` ({}), which cannot enter {} (mode {:o}): every request would answer 404\n  = help: let it in (`chmod o+x {}`), or build into a folder {elsewhere}",
                nginx_conf.display(),
                folder.display(),
                meta.mode() & 0o7777,
                folder.display(),
            ));
        }
    }
    None
}

#[cfg(unix)]
/// Whether `meta` grants `bits` (as `0o1`: execute, `0o4`: read) to that user and group.
fn allows(meta: &std::fs::Metadata, uid: u32, gid: u32, bits: u32) -> bool {
    let mode = meta.mode();
    if uid == 0 {
        return true;
    }
    let shift = if meta.uid() == uid {
        6
    } else if meta.gid() == gid {
        3
    } else {
        0
    };
    (mode >> shift) & bits == bits
}

#[cfg(unix)]
/// The user id and group id of `name`.
fn account(name: &str) -> Option<(u32, u32)> {
    let name = std::ffi::CString::new(name).ok()?;
    // SAFETY: getpwnam(3) with a NUL-terminated name; the returned record is read at once,
    // before any other call that could reuse its storage.
    unsafe {
        let entry = libc::getpwnam(name.as_ptr());
        if entry.is_null() {
            return None;
        }
        Some(((*entry).pw_uid, (*entry).pw_gid))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_folder_the_workers_cannot_enter_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, "user nobody;\nworker_processes auto;\n").unwrap();
        let private = dir.path().join("private");
        let out = private.join("out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
        let srv = dir.path().join("srv");
        let warning = unreadable_by_nginx(&out, &conf, &srv).expect("nobody cannot enter");
        assert!(warning.contains("`nobody`"), "{warning}");
        assert!(
            warning.contains(&format!("chmod o+x {}", private.display())),
            "{warning}"
        );
        assert!(
            warning.contains(&format!("such as {}", srv.join("out").display())),
            "{warning}"
        );
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o711)).unwrap();
        assert_eq!(unreadable_by_nginx(&out, &conf, &srv), None);
    }

    /// The suggestion is never the folder given, nor one the same closed folder hides.
    #[test]
    fn the_fix_never_suggests_the_folder_given() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("nginx.conf");
        std::fs::write(&conf, "user nobody;\n").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let srv = dir.path().join("srv");
        // The folder given is the one the suggestion would name.
        let out = srv.join("site-api");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::set_permissions(&srv, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o700)).unwrap();
        let warning = unreadable_by_nginx(&out, &conf, &srv).expect("nobody cannot enter");
        assert!(!warning.contains("such as"), "{warning}");
        // Behind a closed `srv`: the suggestion would be no better.
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&srv, std::fs::Permissions::from_mode(0o700)).unwrap();
        let other = srv.join("x").join("site-api");
        std::fs::create_dir_all(&other).unwrap();
        let warning = unreadable_by_nginx(&other, &conf, &srv).expect("nobody cannot enter");
        assert!(!warning.contains("such as"), "{warning}");
        assert!(
            warning.contains(&format!("chmod o+x {}", srv.display())),
            "{warning}"
        );
    }
}
