//! The bytes of one output file, as a list of shared chunks.
//!
//! A list output (a post index, a timeline, `llms-full.txt`) is mostly entries that are cached
//! per source file. Keeping the file as chunks that point at those cached entries means a
//! rebuild re-assembles pointers instead of copying megabytes into a new buffer, and the entries
//! are held in memory once however many files list them. The writer copies the chunks into
//! blocks of up to 1 MB as it writes them.

use std::cell::RefCell;
use std::io::{self, Write};
use std::sync::Arc;
use xxhash_rust::xxh3::{Xxh3, xxh3_64, xxh3_128};

/// A piece of an output file.
#[derive(Clone, Debug)]
pub enum Chunk {
    /// Shared text, usually a fragment cached by a per-file query.
    Text(Arc<str>),
    /// A separator or other fixed text.
    Static(&'static str),
    /// A range of a source file's text, shared with the database input that holds it: a post's
    /// body is published as it was read, so it is held in memory once, in its file's contents.
    Source {
        text: Arc<String>,
        start: u32,
        end: u32,
    },
}

impl Chunk {
    /// A chunk of `text[range]`; `None` when the range is not a `str` range of `text` (or does
    /// not fit the `u32` offsets, which no content file under the size limit reaches).
    pub fn source(text: &Arc<String>, range: std::ops::Range<usize>) -> Option<Chunk> {
        text.get(range.clone())?;
        Some(Chunk::Source {
            text: text.clone(),
            start: u32::try_from(range.start).ok()?,
            end: u32::try_from(range.end).ok()?,
        })
    }

    pub fn as_str(&self) -> &str {
        match self {
            Chunk::Text(text) => text,
            Chunk::Static(text) => text,
            Chunk::Source { text, start, end } => &text[*start as usize..*end as usize],
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.as_str().as_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }
}

/// Chunks are equal when their text is, however it is held.
impl PartialEq for Chunk {
    fn eq(&self, other: &Chunk) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Chunk {}

impl From<String> for Chunk {
    fn from(text: String) -> Chunk {
        Chunk::Text(text.into())
    }
}

impl From<Arc<str>> for Chunk {
    fn from(text: Arc<str>) -> Chunk {
        Chunk::Text(text)
    }
}

/// One entry of an [`Output`]: a chunk, or a run of chunks shared with the [`Part`] that cached
/// them. Holding a part's run rather than copies of its chunks keeps a multi-megabyte list
/// output as small as its list of runs, and assembling it clones one pointer per run.
#[derive(Clone, Debug)]
enum Piece {
    Chunk(Chunk),
    Run(Arc<[Chunk]>),
}

impl Piece {
    fn chunks(&self) -> &[Chunk] {
        match self {
            Piece::Chunk(chunk) => std::slice::from_ref(chunk),
            Piece::Run(chunks) => chunks,
        }
    }
}

/// An output file's content and its 128-bit hash. The hash makes "did it change?" O(1) for the
/// writer and for salsa's backdating. (The server computes ETags from the bytes it reads.)
#[derive(Clone, Debug)]
pub struct Output {
    pieces: Arc<[Piece]>,
    len: usize,
    /// The xxh3-128 hash of the bytes: equal hashes mean equal files for the writer.
    pub hash: u128,
}

impl Output {
    /// An output of one piece of text.
    pub(crate) fn new(text: impl Into<String>) -> Output {
        Output::from_chunks(vec![Chunk::from(text.into())])
    }

    /// An output made of `chunks`, in order.
    pub(crate) fn from_chunks(chunks: Vec<Chunk>) -> Output {
        let (len, hash) = length_and_hash(&chunks);
        Output {
            pieces: chunks.into_iter().map(Piece::Chunk).collect(),
            len,
            hash,
        }
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunks, in order (the portal's examples read a prefix of them).
    pub(crate) fn chunks(&self) -> impl Iterator<Item = &Chunk> {
        self.pieces.iter().flat_map(Piece::chunks)
    }

    /// The content as one buffer (for tests and small documents).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.len);
        for chunk in self.chunks() {
            bytes.extend_from_slice(chunk.as_bytes());
        }
        bytes
    }

    /// Whether `bytes` is exactly this content (compared chunk by chunk, without a copy).
    pub(crate) fn eq_bytes(&self, mut bytes: &[u8]) -> bool {
        if bytes.len() != self.len {
            return false;
        }
        for chunk in self.chunks() {
            let part = chunk.as_bytes();
            if !bytes.starts_with(part) {
                return false;
            }
            bytes = &bytes[part.len()..];
        }
        true
    }

    /// Writes the bytes to `out` in blocks of up to [`WRITE_BLOCK`] bytes, each copied together
    /// from consecutive chunks (a chunk as long as the block is written as it is).
    ///
    /// A list output is tens of thousands of small chunks. Handed to `writev` 512 at a time, the
    /// kernel copied them one by one into pages it allocated page by page: the 8.5 MB
    /// `api/posts.json` took 6.4 ms to write on ext4; copied into 1 MB blocks first, 4.1–4.6 ms
    /// (2.9 ms as one buffer; a loop of the same writes).
    pub(crate) fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        BLOCK.with_borrow_mut(|block| {
            // What a failed write left in it is not this file's.
            block.clear();
            self.write_in_blocks(block, out)
        })
    }

    fn write_in_blocks(&self, block: &mut Vec<u8>, out: &mut impl Write) -> io::Result<()> {
        for chunk in self.chunks() {
            let bytes = chunk.as_bytes();
            if bytes.is_empty() {
                continue;
            }
            if block.len() + bytes.len() > WRITE_BLOCK && !block.is_empty() {
                out.write_all(block)?;
                block.clear();
            }
            if bytes.len() >= WRITE_BLOCK {
                out.write_all(bytes)?;
            } else {
                block.extend_from_slice(bytes);
            }
        }
        if !block.is_empty() {
            out.write_all(block)?;
        }
        Ok(())
    }
}

thread_local! {
    /// Each writing thread's block, allocated once: a block allocated and freed per file made
    /// glibc raise its mmap threshold and keep about 5 MB more of a watch session's heap.
    static BLOCK: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(WRITE_BLOCK));
}

/// The longest block [`Output::write_to`] hands to one `write`.
const WRITE_BLOCK: usize = 1 << 20;

/// The bytes of a [`chunk_digest`].
const DIGEST_LEN: usize = 12;

/// What an [`Assembly`] hashes for one chunk: its length and the xxh3-64 hash of its bytes.
/// Two different versions of one entry digest alike once in 2^64: not a practical concern.
fn chunk_digest(bytes: &[u8]) -> [u8; DIGEST_LEN] {
    let mut digest = [0; DIGEST_LEN];
    digest[..4].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
    digest[4..].copy_from_slice(&xxh3_64(bytes).to_le_bytes());
    digest
}

/// The length and xxh3-128 hash of the concatenation of `chunks`.
fn length_and_hash(chunks: &[Chunk]) -> (usize, u128) {
    let mut hasher = Xxh3::new();
    let mut len = 0;
    for chunk in chunks {
        hasher.update(chunk.as_bytes());
        len += chunk.as_bytes().len();
    }
    (len, hasher.digest128())
}

/// Equal contents have equal hashes; a 128-bit collision between two versions of one file is
/// not a practical concern, and comparing hashes keeps backdating O(1) for multi-megabyte files.
impl PartialEq for Output {
    fn eq(&self, other: &Output) -> bool {
        self.hash == other.hash && self.len == other.len
    }
}

impl Eq for Output {}

/// Chunks hashed once and kept with their digests: a run of list entries, cached by a tracked
/// query. An output assembled from parts hashes the parts' digests instead of their bytes, so
/// re-assembling a multi-megabyte list after one entry changed hashes one run's worth of
/// digests, not the file.
#[derive(Clone, Debug)]
pub struct Part {
    chunks: Arc<[Chunk]>,
    /// Each chunk's [`chunk_digest`], in order: what an [`Assembly`] hashes for this part.
    digests: Arc<[u8]>,
    len: usize,
    hash: u128,
    /// How many list entries the part holds.
    items: usize,
}

impl Part {
    pub fn new(chunks: Vec<Chunk>, items: usize) -> Part {
        let mut digests = Vec::with_capacity(chunks.len() * DIGEST_LEN);
        let mut len = 0;
        for chunk in &chunks {
            digests.extend_from_slice(&chunk_digest(chunk.as_bytes()));
            len += chunk.as_bytes().len();
        }
        Part {
            chunks: chunks.into(),
            hash: xxh3_128(&digests),
            digests: digests.into(),
            len,
            items,
        }
    }

    pub fn items(&self) -> usize {
        self.items
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Equal digests mean equal contents, as for [`Output`].
impl PartialEq for Part {
    fn eq(&self, other: &Part) -> bool {
        self.hash == other.hash && self.len == other.len && self.items == other.items
    }
}

impl Eq for Part {}

/// An output built from chunks and [`Part`]s, in order. Its hash is the xxh3-128 of every
/// chunk's [`chunk_digest`], in order, whether the chunk was pushed alone or inside a part: the
/// same entries give the same hash however a list is cut into runs (a watch session cuts its
/// lists around the posts it edited, a fresh build does not). That is not the hash of the bytes
/// that [`Output::from_chunks`] gives, but it is a function of them for any one output file,
/// whose entries are always the same chunks, so equal bytes give equal hashes, which is all the
/// writer and salsa's backdating need. (The server hashes the file it reads for its ETag.)
pub struct Assembly {
    pieces: Vec<Piece>,
    hasher: Xxh3,
    len: usize,
}

impl Default for Assembly {
    fn default() -> Assembly {
        Assembly {
            pieces: Vec::new(),
            hasher: Xxh3::new(),
            len: 0,
        }
    }
}

impl Assembly {
    pub fn push(&mut self, chunk: Chunk) {
        let bytes = chunk.as_bytes();
        self.hasher.update(&chunk_digest(bytes));
        self.len += bytes.len();
        self.pieces.push(Piece::Chunk(chunk));
    }

    pub fn push_part(&mut self, part: &Part) {
        self.hasher.update(&part.digests);
        self.len += part.len;
        self.pieces.push(Piece::Run(part.chunks.clone()));
    }

    /// A JSON array of the entries the parts hold (each part's entries separated by `,`).
    pub fn push_json_array<'a>(&mut self, parts: impl IntoIterator<Item = &'a Part>) {
        self.push(Chunk::Static("["));
        let mut first = true;
        for part in parts.into_iter().filter(|part| !part.is_empty()) {
            if !first {
                self.push(Chunk::Static(","));
            }
            first = false;
            self.push_part(part);
        }
        self.push(Chunk::Static("]"));
    }

    pub fn finish(self) -> Output {
        Output {
            pieces: self.pieces.into(),
            len: self.len,
            hash: self.hasher.digest128(),
        }
    }
}

/// A run of list entries as a [`Part`]: the entries separated by `,`.
pub fn json_entries(entries: impl IntoIterator<Item = Arc<str>>) -> Part {
    let mut chunks = Vec::new();
    let mut items = 0;
    for entry in entries {
        if items > 0 {
            chunks.push(Chunk::Static(","));
        }
        chunks.push(Chunk::Text(entry));
        items += 1;
    }
    Part::new(chunks, items)
}

/// Builds a list output: `[`, entries separated by `,`, `]`.
pub fn json_array(entries: impl IntoIterator<Item = Arc<str>>) -> Vec<Chunk> {
    let mut chunks = vec![Chunk::Static("[")];
    for (i, entry) in entries.into_iter().enumerate() {
        if i > 0 {
            chunks.push(Chunk::Static(","));
        }
        chunks.push(Chunk::Text(entry));
    }
    chunks.push(Chunk::Static("]"));
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_hash_and_compare_as_their_concatenation() {
        let output = Output::from_chunks(json_array(["{\"a\":1}".into(), "{\"a\":2}".into()]));
        let whole = b"[{\"a\":1},{\"a\":2}]";
        assert_eq!(output.to_vec(), whole);
        assert_eq!(
            output.hash,
            xxh3_128(whole),
            "the server's ETag hashes the file in one piece"
        );
        assert_eq!(output.len(), whole.len());
        assert!(output.eq_bytes(whole));
        assert!(!output.eq_bytes(b"[{\"a\":1},{\"a\":3}]"));
        assert_eq!(
            output,
            Output::new(String::from_utf8(whole.to_vec()).unwrap())
        );
    }

    #[test]
    fn an_assembly_of_parts_has_the_bytes_of_its_pieces() {
        let runs = [
            json_entries(["{\"a\":1}".into(), "{\"a\":2}".into()]),
            json_entries([]),
            json_entries(["{\"a\":3}".into()]),
        ];
        assert_eq!(runs.iter().map(Part::items).collect::<Vec<_>>(), [2, 0, 1]);
        let assemble = |runs: &[Part]| {
            let mut out = Assembly::default();
            out.push(Chunk::Static("{\"posts\":"));
            out.push_json_array(runs);
            out.push(Chunk::Static("}"));
            out.finish()
        };
        let output = assemble(&runs);
        let whole = b"{\"posts\":[{\"a\":1},{\"a\":2},{\"a\":3}]}";
        assert_eq!(output.to_vec(), whole);
        assert_eq!(output.len(), whole.len());
        assert!(output.eq_bytes(whole));
        let mut written = Vec::new();
        output.write_to(&mut written).unwrap();
        assert_eq!(written, whole, "the runs are written in place, in order");
        assert_eq!(output, assemble(&runs.clone()), "same pieces, same hash");
        let edited = [runs[0].clone(), json_entries(["{\"a\":4}".into()])];
        assert_ne!(output, assemble(&edited), "an edited part changes the hash");
        let cut_elsewhere = [
            json_entries(["{\"a\":1}".into()]),
            json_entries(["{\"a\":2}".into(), "{\"a\":3}".into()]),
        ];
        assert_eq!(
            output,
            assemble(&cut_elsewhere),
            "the same entries cut into other runs have the same hash"
        );
        assert_eq!(assemble(&[]).to_vec(), b"{\"posts\":[]}");
    }

    #[test]
    fn writing_many_chunks_writes_them_all_in_order() {
        let entries: Vec<Arc<str>> = (0..2000).map(|i| Arc::from(i.to_string())).collect();
        let output = Output::from_chunks(json_array(entries));
        let mut written = Vec::new();
        output.write_to(&mut written).unwrap();
        assert_eq!(written, output.to_vec());
    }

    /// Records the length of each `write` it is handed.
    #[derive(Default)]
    struct Writes {
        bytes: Vec<u8>,
        lengths: Vec<usize>,
    }

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(buf);
            self.lengths.push(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn small_chunks_are_written_in_blocks_and_a_large_one_as_it_is() {
        let entry: Arc<str> = Arc::from("x".repeat(1000));
        let large: Arc<str> = Arc::from("y".repeat(WRITE_BLOCK + 1));
        let mut chunks: Vec<Chunk> = Vec::new();
        chunks.extend((0..5000).map(|_| Chunk::Text(entry.clone())));
        chunks.push(Chunk::Text(large.clone()));
        chunks.extend((0..3).map(|_| Chunk::Static(",")));
        let output = Output::from_chunks(chunks);
        let mut writes = Writes::default();
        output.write_to(&mut writes).unwrap();
        assert_eq!(writes.bytes, output.to_vec());
        // 5 MB of 1 KB entries: as many full blocks as fit and the rest, then the large chunk
        // alone, then the three commas together.
        let full = WRITE_BLOCK / 1000 * 1000;
        let mut expected = vec![full; 5_000_000 / full];
        expected.extend([5_000_000 % full, WRITE_BLOCK + 1, 3]);
        assert_eq!(writes.lengths, expected);
    }
}
