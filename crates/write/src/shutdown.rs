//! A shutdown of the process (Ctrl-C, SIGTERM in watch and serve): every publish from then on
//! stops at its deadline, between two files or two blocks of a file, like a publish that gives
//! way to an edit (each file is whole, old or new; the next start finishes the work).
//!
//! Process-wide, as the signal is: a publish deep in a session needs no handle passed down.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static DEADLINE: OnceLock<Instant> = OnceLock::new();

/// Asks every publish to stop `grace` from now (the first request sets the deadline); returns
/// the deadline.
pub fn request(grace: Duration) -> Instant {
    *DEADLINE.get_or_init(|| Instant::now() + grace)
}

/// Whether a shutdown was requested.
pub fn is_requested() -> bool {
    DEADLINE.get().is_some()
}

/// Whether publishes must stop now: a shutdown was requested and its deadline passed.
pub(super) fn is_due() -> bool {
    DEADLINE
        .get()
        .is_some_and(|deadline| Instant::now() >= *deadline)
}
