//! A netrace v1 writer for tests: real netrace traces cannot be downloaded
//! here, so the tests write their own. Written from netrace's layout
//! (docs/scenario.md, "Trace replay"), separately from the reader in
//! `wormcast_sim::network::netrace`, so a misreading on one side shows up
//! as a failing test instead of cancelling out. Shared by the simulator's
//! and the command line's tests (`#[path]`).
#![allow(dead_code)]

use std::io::Write;

/// One packet: `deps` are the ids of the packets that wait for it.
#[derive(Clone, Debug)]
pub struct NtPacket {
    pub cycle: u64,
    pub id: u32,
    pub ty: u8,
    pub src: u8,
    pub dst: u8,
    pub deps: Vec<u32>,
}

/// The header fields a test may want wrong.
#[derive(Clone, Debug)]
pub struct NtHeader {
    pub magic: u32,
    pub version: f32,
    pub name: String,
    pub nodes: u8,
    pub cycles: u64,
    /// `None`: the number of packets written.
    pub packets: Option<u64>,
    pub notes: String,
    pub regions: Vec<[u64; 3]>,
}

impl Default for NtHeader {
    fn default() -> Self {
        NtHeader {
            magic: 0x484A_5455,
            version: 1.0,
            name: "unit-test".into(),
            nodes: 64,
            cycles: 0,
            packets: None,
            notes: "written by wormcast's tests".into(),
            regions: vec![[0, 0, 0]],
        }
    }
}

/// The uncompressed trace.
pub fn raw(h: &NtHeader, packets: &[NtPacket]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(h.magic.to_le_bytes());
    b.extend(h.version.to_le_bytes());
    let mut name = [0u8; 30];
    name[..h.name.len()].copy_from_slice(h.name.as_bytes());
    b.extend(name);
    b.push(h.nodes);
    b.push(0); // pad
    b.extend(h.cycles.to_le_bytes());
    b.extend(h.packets.unwrap_or(packets.len() as u64).to_le_bytes());
    let notes_len = if h.notes.is_empty() {
        0
    } else {
        h.notes.len() as u32 + 1
    };
    b.extend(notes_len.to_le_bytes());
    b.extend((h.regions.len() as u32).to_le_bytes());
    b.extend([0u8; 8]);
    assert_eq!(b.len(), 72, "netrace's packed header is 72 bytes");
    if notes_len > 0 {
        b.extend(h.notes.as_bytes());
        b.push(0);
    }
    for r in &h.regions {
        for v in r {
            b.extend(v.to_le_bytes());
        }
    }
    for p in packets {
        b.extend(p.cycle.to_le_bytes());
        b.extend(p.id.to_le_bytes());
        b.extend(0xdead_0000u32.wrapping_add(p.id).to_le_bytes()); // address
        b.push(p.ty);
        b.push(p.src);
        b.push(p.dst);
        b.push(0x02); // node types: L1D -> L2
        b.push(p.deps.len() as u8);
        for d in &p.deps {
            b.extend(d.to_le_bytes());
        }
    }
    b
}

/// bzip2-compressed, as netrace keeps its traces.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// A compressed trace file of `packets` under `h`.
pub fn file(h: &NtHeader, packets: &[NtPacket]) -> Vec<u8> {
    compress(&raw(h, packets))
}
