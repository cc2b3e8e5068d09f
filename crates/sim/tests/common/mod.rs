//! Test-only trace helpers (the real readers live in `arclab-trace`).

#![allow(dead_code, unreachable_pub)]

use arclab_arc::Request;
use std::io::Read;
use std::path::PathBuf;

/// The shared data folder: `$ARCLAB_SHARED`, else `<workspace>/../shared`.
pub fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("ARCLAB_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    assert!(
        dir.join("traces").is_dir(),
        "shared data folder not found at {} (set ARCLAB_SHARED to the folder holding traces/)",
        dir.display()
    );
    dir
}

fn read(name: &str) -> Vec<u8> {
    let p = shared_dir().join("traces").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// oracleGeneral: 24-byte LE records `u32 time | u64 id | u32 size | i64 next`;
/// zero-size requests are skipped (as libCacheSim does by default).
pub fn oracle_general(name: &str) -> Vec<Request> {
    let b = read(name);
    assert_eq!(b.len() % 24, 0);
    b.chunks_exact(24)
        .map(|r| {
            let t = u32::from_le_bytes(r[0..4].try_into().unwrap());
            let id = u64::from_le_bytes(r[4..12].try_into().unwrap());
            let size = u32::from_le_bytes(r[12..16].try_into().unwrap());
            Request::read(u64::from(t) * 1_000_000_000, id, size)
        })
        .filter(|r| r.size != 0)
        .collect()
}

/// vscsi v1: 32-byte records `u32 sn | u32 len | u32 nSG | u16 cmd | u16 ver |
/// u64 lbn | u64 ts(µs)`; id = lbn, size = len.
pub fn vscsi_v1(name: &str) -> Vec<Request> {
    let b = read(name);
    assert_eq!(b.len() % 32, 0);
    b.chunks_exact(32)
        .map(|r| {
            let len = u32::from_le_bytes(r[4..8].try_into().unwrap());
            let ver = u16::from_le_bytes(r[14..16].try_into().unwrap());
            assert_eq!(ver >> 8, 1, "vscsi v1 expected");
            let lbn = u64::from_le_bytes(r[16..24].try_into().unwrap());
            let ts = u64::from_le_bytes(r[24..32].try_into().unwrap());
            Request::read(ts * 1000, lbn, len)
        })
        .filter(|r| r.size != 0)
        .collect()
}

/// ARC-paper `.lis.zst`: lines `start n ignore req_no`, each expanding to `n`
/// 512-byte requests for blocks `start..start+n`.
pub fn lis_zst(name: &str) -> Vec<Request> {
    let b = read(name);
    let mut txt = String::new();
    zstd::stream::read::Decoder::new(&b[..])
        .unwrap()
        .read_to_string(&mut txt)
        .unwrap();
    let mut out = Vec::new();
    for line in txt.lines() {
        let mut f = line.split_ascii_whitespace();
        let (Some(s), Some(n)) = (f.next(), f.next()) else {
            continue;
        };
        let s: u64 = s.parse().unwrap();
        let n: u64 = n.parse().unwrap();
        for k in s..s + n {
            out.push(Request::read(0, k, 512));
        }
    }
    out
}

pub const MIB: u64 = 1 << 20;
