//! What benches and tests see of the daemon's documents lane from outside: its temporary file
//! for `llms-full.txt` (in the output folder's `.content-api/tmp`) while it writes.

use std::path::Path;
use std::time::{Duration, Instant};

/// Waits (up to `patience`) until the daemon's temporary file for `llms-full.txt` is in `out`'s
/// `.content-api/tmp`: its documents lane is writing it. False if that never happened meanwhile.
pub fn documents_writing(out: &Path, patience: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < patience {
        // The writer's temporary files are in the output folder's `.content-api/tmp`.
        let writing = std::fs::read_dir(out.join(".content-api/tmp")).is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with(".llms-full.txt.") && name.ends_with(".tmp")
            })
        });
        if writing {
            return true;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    false
}
