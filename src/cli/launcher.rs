//! Under the npm launcher (`@content-api/cli`, `npm/content-api/bin/content-api.js`): this
//! process stops once the launcher is gone, however it ended (SIGKILL included, which the
//! launcher cannot pass on), so no binary is left running that nobody can stop.
//!
//! The launcher names its pid in [`LAUNCHER_PID`]. While that pid is this process's parent, a
//! thread looks every [`LOOK_EVERY`]; once the parent changed (the launcher died and this
//! process was adopted), it sends this process SIGTERM, the stop a process manager would send.
//! A process that is not the launcher's child (the variable inherited further) does nothing.
//!
//! Windows has no parent to ask and no SIGTERM to send: a thread waits on the launcher's
//! process handle and ends this process when it ends. Nothing is lost: every file is replaced
//! whole, and the next start finishes a publish stopped midway.

#[cfg(unix)]
use std::time::Duration;

/// The variable in which the launcher names its pid.
pub const LAUNCHER_PID: &str = "CONTENT_API_LAUNCHER_PID";

/// How often the parent is looked at: the longest the binary outlives the launcher.
#[cfg(unix)]
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Starts the watch when the npm launcher started this process.
#[cfg(unix)]
pub fn stop_with_launcher() {
    let Some(launcher) = std::env::var(LAUNCHER_PID)
        .ok()
        .and_then(|pid| pid.parse::<libc::pid_t>().ok())
    else {
        return;
    };
    // SAFETY: getppid(2) has no preconditions and cannot fail.
    if unsafe { libc::getppid() } != launcher {
        return;
    }
    let watch = std::thread::Builder::new()
        .name("launcher-watch".into())
        .spawn(move || {
            // SAFETY: as above.
            while unsafe { libc::getppid() } == launcher {
                std::thread::sleep(LOOK_EVERY);
            }
            // SAFETY: kill(2) on this very process.
            unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
        });
    if let Err(err) = watch {
        tracing::warn!("cannot watch the npm launcher (this process may outlive it): {err}");
    }
}

/// Starts the watch when the npm launcher started this process.
#[cfg(windows)]
pub fn stop_with_launcher() {
    use windows_sys::Win32::Foundation::{CloseHandle, WAIT_OBJECT_0};
    use windows_sys::Win32::System::Threading::{
        INFINITE, OpenProcess, PROCESS_SYNCHRONIZE, WaitForSingleObject,
    };
    let Some(launcher) = std::env::var(LAUNCHER_PID)
        .ok()
        .and_then(|pid| pid.parse::<u32>().ok())
    else {
        return;
    };
    // SAFETY: OpenProcess takes a pid and returns a handle this function owns, or null.
    let process = unsafe { OpenProcess(PROCESS_SYNCHRONIZE, 0, launcher) };
    if process.is_null() {
        tracing::warn!(
            "cannot watch the npm launcher (pid {launcher}; this process may outlive it): {}",
            std::io::Error::last_os_error()
        );
        return;
    }
    // A raw handle is not `Send`; its value is.
    let process = process as usize;
    let watch = std::thread::Builder::new()
        .name("launcher-watch".into())
        .spawn(move || {
            let process = process as windows_sys::Win32::Foundation::HANDLE;
            // SAFETY: a handle opened above with SYNCHRONIZE, closed once after the wait.
            let ended = unsafe { WaitForSingleObject(process, INFINITE) } == WAIT_OBJECT_0;
            unsafe { CloseHandle(process) };
            if ended {
                std::process::exit(143);
            }
        });
    if let Err(err) = watch {
        tracing::warn!("cannot watch the npm launcher (this process may outlive it): {err}");
    }
}
