//! Under the npm launcher (`@content-api/cli`, `npm/content-api/bin/content-api.js`): this
//! process stops once the launcher is gone, however it ended (SIGKILL included, which the
//! launcher cannot pass on), so no binary is left running that nobody can stop.
//!
//! The launcher names its pid in [`LAUNCHER_PID`]. While that pid is this process's parent, a
//! thread looks every [`LOOK_EVERY`]; once the parent changed (the launcher died and this
//! process was adopted), it sends this process SIGTERM, the stop a process manager would send.
//! A process that is not the launcher's child (the variable inherited further) does nothing.

use std::time::Duration;

/// The variable in which the launcher names its pid.
pub const LAUNCHER_PID: &str = "CONTENT_API_LAUNCHER_PID";

/// How often the parent is looked at: the longest the binary outlives the launcher.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Starts the watch when the npm launcher started this process.
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
