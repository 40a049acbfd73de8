//! Outputs as chunks and parts: bytes, hashes and the writer's blocks.

use super::*;

#[test]
fn chunks_hash_and_compare_as_their_concatenation() {
    let output = Output::from_chunks(json_array(["{\"a\":1}".into(), "{\"a\":2}".into()]));
    let whole = b"[{\"a\":1},{\"a\":2}]";
    assert_eq!(output.to_vec().unwrap(), whole);
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
        Part::json(vec!["{\"a\":1}".into(), "{\"a\":2}".into()]),
        Part::json(vec![]),
        Part::json(vec!["{\"a\":3}".into()]),
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
    assert_eq!(output.to_vec().unwrap(), whole);
    assert_eq!(output.len(), whole.len());
    assert!(output.eq_bytes(whole));
    let mut written = Vec::new();
    output.write_to(&mut written).unwrap();
    assert_eq!(written, whole, "the runs are written in place, in order");
    assert_eq!(output, assemble(&runs.clone()), "same pieces, same hash");
    let edited = [runs[0].clone(), Part::json(vec!["{\"a\":4}".into()])];
    assert_ne!(output, assemble(&edited), "an edited part changes the hash");
    let cut_elsewhere = [
        Part::json(vec!["{\"a\":1}".into()]),
        Part::json(vec!["{\"a\":2}".into(), "{\"a\":3}".into()]),
    ];
    assert_eq!(
        output,
        assemble(&cut_elsewhere),
        "the same entries cut into other runs have the same hash"
    );
    assert_eq!(assemble(&[]).to_vec().unwrap(), b"{\"posts\":[]}");
}

#[test]
fn sections_are_written_whole_and_hash_alike_however_they_are_cut() {
    let section =
        |text: &str| Section::new(vec![Chunk::Static("\n"), Chunk::from(text.to_string())]);
    let (a, b, c) = (section("a"), section("bb"), section("ccc"));
    let assemble = |parts: &[Part]| {
        let mut out = Assembly::default();
        out.push(Chunk::Static("head"));
        for part in parts {
            out.push_part(part);
        }
        out.finish()
    };
    let whole = assemble(&[Part::sections(vec![a.clone(), b.clone(), c.clone()])]);
    assert_eq!(whole.to_vec().unwrap(), b"head\na\nbb\nccc");
    assert_eq!(whole.len(), 13);
    let cut = assemble(&[
        Part::sections(vec![a.clone()]),
        Part::sections(vec![b.clone(), c]),
    ]);
    assert_eq!(whole, cut, "the same sections cut into other runs");
    let edited = assemble(&[Part::sections(vec![a, b, section("cc")])]);
    assert_ne!(whole, edited, "an edited section changes the hash");
}

#[test]
fn writing_many_chunks_writes_them_all_in_order() {
    let entries: Vec<Arc<str>> = (0..2000).map(|i| Arc::from(i.to_string())).collect();
    let output = Output::from_chunks(json_array(entries));
    let mut written = Vec::new();
    output.write_to(&mut written).unwrap();
    assert_eq!(written, output.to_vec().unwrap());
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
    assert_eq!(writes.bytes, output.to_vec().unwrap());
    // 5 MB of 1 KB entries: as many full blocks as fit and the rest, then the large chunk
    // alone, then the three commas together.
    let full = WRITE_BLOCK / 1000 * 1000;
    let mut expected = vec![full; 5_000_000 / full];
    expected.extend([5_000_000 % full, WRITE_BLOCK + 1, 3]);
    assert_eq!(writes.lengths, expected);
}
