//! SPEC §9: `attach` of an 8 MiB file reaches at least 70% of raw base64 encode throughput
//! (time ratio ≤ 1/0.7 ≈ 1.43×), and `part_bytes` is O(1): the same on 10 MiB as on 1 KiB.
//!
//! Run: `cargo bench -p toolnexus --bench parts`.

mod common;

use std::hint::black_box;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use criterion::Throughput;
use toolnexus::parts::{attach, from_bytes, part_bytes};

const MIB: usize = 1024 * 1024;

/// Deterministic, incompressible-looking bytes (xorshift), so nothing is special-cased.
fn bytes(len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();

    // (e) attach of an 8 MiB file vs base64 of the same bytes already in memory.
    let data = bytes(8 * MIB);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blob.pdf");
    std::fs::write(&path, &data).unwrap();
    let path = path.to_str().unwrap().to_owned();
    assert_eq!(part_bytes(&attach(&path).unwrap()), data.len());

    let floor_encode = |()| STANDARD.encode(black_box(&data));
    let attach_file = |()| attach(black_box(&path)).unwrap();
    let mut group = c.benchmark_group("attach_8mib");
    group.throughput(Throughput::Bytes(data.len() as u64));
    group.sample_size(30);
    group.bench_function("floor_base64_encode", |b| b.iter(|| floor_encode(())));
    group.bench_function("attach_file", |b| b.iter(|| attach_file(())));
    group.finish();
    summary.compare_interleaved(
        "attach_8mib",
        "floor_base64_encode",
        "attach_file",
        Some(1.0 / 0.7),
        || (),
        floor_encode,
        attach_file,
    );

    // (f) part_bytes on a 1 KiB part vs a 10 MiB part.
    let small = from_bytes(&bytes(1024), "application/octet-stream");
    let large = from_bytes(&bytes(10 * MIB), "application/octet-stream");
    assert_eq!(part_bytes(&small), 1024);
    assert_eq!(part_bytes(&large), 10 * MIB);
    let bytes_small = |()| part_bytes(black_box(&small));
    let bytes_large = |()| part_bytes(black_box(&large));
    let mut group = c.benchmark_group("part_bytes");
    group.bench_function("part_1kib", |b| b.iter(|| bytes_small(())));
    group.bench_function("part_10mib", |b| b.iter(|| bytes_large(())));
    group.finish();
    summary.compare_interleaved(
        "part_bytes",
        "part_1kib",
        "part_10mib",
        Some(1.5),
        || (),
        bytes_small,
        bytes_large,
    );

    c.final_summary();
    summary.print();
}
