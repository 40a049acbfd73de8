//! Files and folders opened relative to a folder held open, without following a link: the
//! few calls the writer and the content stamps make (`openat`, `statat`, `renameat`, ...),
//! under the same names on every platform.
//!
//! On Unix they are rustix's own (`unix`); on Windows, which has no `openat`, `windows`
//! gives the same guarantees its own way (see there).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;
