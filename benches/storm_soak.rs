//! The long soak of the storm test: many random edit storms through the real daemon, each
//! compared byte for byte with a fresh `--once` build. Prints equal / total per pace, and the
//! seed of every storm that ended different (rerun one with
//! `STORM_SEED=<seed> cargo test --test integration storm::`).
//!
//! `cargo bench --bench storm_soak`; `STORM_RUNS=<n>` burst storms (default 100, seeds from
//! `STORM_FIRST`, default 1), a tenth as many human-paced ones; stops early after
//! `STORM_MINUTES` (default 20).
//!
//! Unix only: the storms make symbolic links in the content and switch git branches as the
//! integration tests' storms do. On Windows it says so and stops.

#[cfg(unix)]
#[path = "../tests/storm_harness.rs"]
mod storm_harness;

#[cfg(unix)]
use std::time::{Duration, Instant};
#[cfg(unix)]
use storm_harness::{Pace, env_number, run};

#[cfg(not(unix))]
fn main() {
    println!("storm_soak: not run on this system: its storms make symbolic links as on Unix");
}

#[cfg(unix)]
fn main() {
    let runs = env_number("STORM_RUNS").unwrap_or(100);
    let first = env_number("STORM_FIRST").unwrap_or(1);
    let limit = Duration::from_secs(60 * env_number("STORM_MINUTES").unwrap_or(20));
    let started = Instant::now();
    for (pace, edits, count) in [
        (Pace::Burst, 150, runs),
        (Pace::Human, 20, runs.div_ceil(10)),
    ] {
        let (mut equal, mut total) = (0, 0);
        for seed in first..first + count {
            if started.elapsed() > limit {
                println!("time limit reached");
                break;
            }
            let storm = run(seed, pace, edits);
            total += 1;
            match storm.difference {
                None => equal += 1,
                Some(difference) => {
                    let first_line = difference.lines().next().unwrap_or_default();
                    println!("seed {seed} ({pace:?}) differs: {first_line}");
                }
            }
        }
        println!("{pace:?} storms of {edits} edits: {equal}/{total} equal to a fresh build");
    }
}
