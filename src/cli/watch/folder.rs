//! Telling a content folder replaced under the same name from the one being watched.

/// Which folder a path names now (device and inode): tells a folder replaced under the same
/// name (`rm -rf content && git restore`) from the one that is watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct FolderIdentity {
    device: u64,
    inode: u64,
}

impl FolderIdentity {
    /// `None` when `path` is not a folder (gone, or a file now). Follows a symlinked folder.
    pub(super) fn of(path: &std::path::Path) -> Option<FolderIdentity> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_dir())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FolderIdentity {
                device: meta.dev(),
                inode: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            Some(FolderIdentity {
                device: 0,
                inode: 0,
            })
        }
    }
}
