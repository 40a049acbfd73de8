//! The bytes of one output file.

use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_128;

/// An output file's bytes and their 128-bit hash. The hash makes "did it change?" O(1) for the
/// writer and gives the server its ETag.
#[derive(Clone, Debug, Eq)]
pub struct Output {
    pub bytes: Arc<[u8]>,
    pub hash: u128,
}

impl Output {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Output {
        let bytes: Vec<u8> = bytes.into();
        Output {
            hash: xxh3_128(&bytes),
            bytes: bytes.into(),
        }
    }
}

/// Equal bytes have equal hashes; a 128-bit collision between two versions of one file is not
/// a practical concern, and comparing hashes keeps backdating O(1) for multi-megabyte files.
impl PartialEq for Output {
    fn eq(&self, other: &Output) -> bool {
        self.hash == other.hash && self.bytes.len() == other.bytes.len()
    }
}
