//! The output folder's side of a build's fingerprint (`deploy::fingerprint`): every owned
//! file's and its folder's stamp, digested through the open folder.

use crate::at::AtFlags;
use crate::at::OwnedFd;
use crate::dir::OutDir;
use crate::manifest::Manifest;
use crate::parent_of;
use crate::source::FileStamp;
use rayon::prelude::*;
use std::collections::HashMap;
use xxhash_rust::xxh3::Xxh3;

/// What `Publisher::output_stamps` does with a stamp too recent to trust.
#[derive(Clone, Copy)]
pub enum Racy {
    /// Digest it like any other: the digest is only compared with a saved one, which cannot
    /// hold a racy stamp.
    Allowed,
    /// Stop at the first stamp racy at this moment (nanoseconds since the epoch): a fingerprint
    /// cannot be saved. Folders are stamped first, so after a build that added files (a cold
    /// one adds them all) no file is stamped.
    GiveUp(i128),
}

/// The output folder, stamped by `Publisher::output_stamps`.
pub enum OutputDigest {
    /// The digest of every folder's and file's stamp.
    Stamped(String),
    /// A stamp was racy, and [`Racy::GiveUp`] said to stop.
    Racy,
}

/// Whether the output folder is on a network file system (or that cannot be told).
#[cfg(unix)]
fn on_network(dir: &OutDir) -> bool {
    crate::source::on_network_file_system(
        dir.open_again()
            .ok()
            .and_then(|fd| rustix::fs::fstatfs(fd).ok()),
    )
}

/// Whether the output folder is on a network drive (or that cannot be told).
#[cfg(windows)]
fn on_network(dir: &OutDir) -> bool {
    dir.open_again()
        .map_or(true, |fd| crate::at::on_network_drive(fd.path()))
}

/// The digest of the output folder as the manifest and `yielded` name it (each folder's
/// identity, each file's stamp, through the open folder without following a link). `None` when
/// a folder cannot be opened.
pub(crate) fn output_digest(
    dir: &OutDir,
    manifest: &Manifest,
    yielded: &[String],
    racy: Racy,
) -> Option<OutputDigest> {
    let is_racy = |stamp: &FileStamp| match racy {
        Racy::Allowed => false,
        Racy::GiveUp(now) => stamp.is_racy(now),
    };
    // The manifest's paths come sorted: sorting again only places the few yielded ones.
    let mut paths: Vec<&str> = manifest
        .paths()
        .chain(yielded.iter().map(String::as_str))
        .collect();
    paths.sort_unstable();
    paths.dedup();
    if on_network(dir) {
        return None;
    }
    let mut folders: HashMap<&str, Option<OwnedFd>> = HashMap::new();
    for path in &paths {
        let folder = parent_of(path);
        if !folders.contains_key(folder) {
            let fd = dir
                .parent(&format!("{folder}/x"), false)
                .ok()
                .flatten()
                .map(|(fd, _)| fd);
            let fd = if folder.is_empty() {
                dir.open_again().ok()
            } else {
                fd
            };
            folders.insert(folder, fd);
        }
    }
    let mut hasher = Xxh3::new();
    let mut by_name: Vec<(&&str, &Option<OwnedFd>)> = folders.iter().collect();
    by_name.sort_unstable_by_key(|(folder, _)| **folder);
    // A folder's change time moves when an entry is added or removed: a temporary file an
    // interrupted writer left (which a full build removes) makes the build a full one.
    for (folder, fd) in by_name {
        hasher.update(folder.as_bytes());
        match fd.as_ref().and_then(|fd| crate::at::fstat(fd).ok()) {
            Some(stat) => {
                let stamp = FileStamp::of_stat(&stat);
                if is_racy(&stamp) {
                    return Some(OutputDigest::Racy);
                }
                hasher.update(&stamp.to_bytes());
            }
            None => hasher.update(b"\0missing"),
        }
    }
    let stamps: Vec<Option<FileStamp>> = paths
        .par_iter()
        .with_min_len(256)
        .map(|path| {
            let fd = folders.get(parent_of(path))?.as_ref()?;
            let name = path.rsplit('/').next()?;
            crate::at::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW)
                .ok()
                .map(|stat| FileStamp::of_stat(&stat))
        })
        .collect();
    for (path, stamp) in paths.iter().zip(&stamps) {
        hasher.update(path.as_bytes());
        match stamp {
            Some(stamp) if is_racy(stamp) => return Some(OutputDigest::Racy),
            Some(stamp) => hasher.update(&stamp.to_bytes()),
            None => hasher.update(b"\0missing"),
        }
    }
    Some(OutputDigest::Stamped(format!(
        "{:032x}",
        hasher.digest128()
    )))
}
