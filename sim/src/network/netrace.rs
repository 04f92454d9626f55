//! netrace traces (`traffic.trace_format = "netrace"`): the bzip2-compressed
//! binary packet traces of netrace v1 (\[NETRACE\]), read as the file has
//! them; `network::trace` maps them onto the network for replay.
//!
//! The layout, little-endian and packed, as netrace 1.0 writes it:
//!
//! - header, 72 bytes: magic `u32` = 0x484A5455, version `f32` = 1.0,
//!   benchmark name 30 bytes (NUL-terminated), node count `u8`, one pad
//!   byte, cycles `u64`, packets `u64`, notes length `u32` (with its NUL),
//!   region count `u32` (at most 100), 8 pad bytes;
//! - the notes (notes length bytes), then per region three `u64`s: seek
//!   offset, cycles, packets;
//! - packets to the end of the stream, each 21 bytes: cycle `u64`, id
//!   `u32`, address `u32`, type `u8`, source `u8`, destination `u8`, node
//!   types `u8`, dependency count `u8`; then that many packet ids (`u32`).
//!
//! A packet's dependency list names the packets that wait for it (its
//! *downward* dependencies, in netrace's words): each of those is injected
//! only once this one, and every other packet it waits for, has been
//! delivered. As in netrace's reader, only packets earlier in the file
//! count as a packet's dependencies, and ids naming no packet of the file
//! (a region cut out of a longer trace) are ignored. The type gives the
//! size in bytes by netrace's type table ([`packet_bytes`]): 8 for a
//! request or acknowledgement, 72 for a 64-byte cache line with its
//! header; the message is that many bytes of `network.flit_width`-bit
//! flits, at least 2 (wormcast's identity BODY and TAIL). Node `n` of the
//! 8×8 CMP is `n mod 8, n div 8` on the scenario's network.

use crate::error::{InputError, InputResult};
use std::io::Read;

/// `nt_magic` of a netrace file.
pub const MAGIC: u32 = 0x484A_5455;
/// The one version read.
pub const VERSION: f32 = 1.0;
/// Bytes of the fixed header, of a packet record and of a region record.
pub const HEADER_BYTES: usize = 72;
pub const PACKET_BYTES: usize = 21;
pub const REGION_BYTES: usize = 24;
/// Width of netrace's CMP: node `n` is at `n mod 8, n div 8`.
pub const CMP_WIDTH: u32 = 8;
/// The most packets read (`network::trace::MAX_TRACE_MESSAGES` too).
pub const MAX_PACKETS: usize = 50_000_000;
/// netrace's reader refuses more regions than this.
pub const MAX_REGIONS: u32 = 100;
/// Notes longer than this are not a real trace's (netrace's own reader
/// skips notes from 8192 bytes on).
pub const MAX_NOTES: u32 = 8191;

/// Bytes of a packet of netrace type `t` (netrace's `nt_packet_sizes`);
/// `None` for the types the table marks invalid. Types 1..=6 are
/// ReadReq, ReadResp, ReadRespWithInvalidate, WriteReq, WriteResp and
/// Writeback; 13..=16 UpgradeReq/Resp and ReadExReq/Resp; 25
/// BadAddressError; 27..=30 InvalidateReq/Resp and DowngradeReq/Resp.
pub fn packet_bytes(t: u8) -> Option<u32> {
    match t {
        1 | 5 | 13 | 14 | 15 | 25 | 27 | 28 | 29 => Some(8),
        2 | 3 | 4 | 6 | 16 | 30 => Some(72),
        _ => None,
    }
}

/// The header fields a replay reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub benchmark: String,
    pub nodes: u8,
    pub cycles: u64,
    pub packets: u64,
    pub notes: String,
    pub regions: u32,
}

/// One packet as the file has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub cycle: u64,
    pub id: u32,
    pub addr: u32,
    /// Index into netrace's type table ([`packet_bytes`]).
    pub ty: u8,
    pub src: u8,
    pub dst: u8,
    /// Source node type (high nibble) and destination node type.
    pub node_types: u8,
    /// Ids of the packets that wait for this one.
    pub deps: Vec<u32>,
}

/// Reads a bzip2-compressed netrace v1 trace from `input`; `path` names it
/// in errors. Every packet is checked for a known type and nodes below the
/// header's node count; a file that ends inside a record, or holds fewer
/// packets than its header announces, is truncated.
pub fn read(input: impl Read, path: &str) -> InputResult<(Header, Vec<Packet>)> {
    // pbzip2 writes several bzip2 streams one after another.
    let mut r = Reader {
        inner: bzip2::read::MultiBzDecoder::new(input),
        path,
        offset: 0,
    };
    match parse(&mut r, path) {
        Ok(trace) => Ok(trace),
        // bzip2 checks a block's CRC only at its end, after handing out
        // its bytes: garbage from a corrupt block may fail the parse first.
        // The rest of the stream says whether the file is corrupt, which
        // then explains the parse error better than the parse error does.
        Err(e) => {
            let rest = std::io::copy(&mut r.inner, &mut std::io::sink());
            match rest {
                Err(io) if !e.allowed.contains("bzip2:") => Err(r.corrupt("corrupt data", bz(&io))),
                _ => Err(e),
            }
        }
    }
}

fn parse<R: Read>(r: &mut Reader<R>, path: &str) -> InputResult<(Header, Vec<Packet>)> {
    let header = r.header()?;
    let mut packets = Vec::new();
    let mut rec = [0u8; PACKET_BYTES];
    while r.record(&mut rec)? {
        let cycle = u64::from_le_bytes(rec[0..8].try_into().expect("8 bytes"));
        let id = u32::from_le_bytes(rec[8..12].try_into().expect("4 bytes"));
        let addr = u32::from_le_bytes(rec[12..16].try_into().expect("4 bytes"));
        let (ty, src, dst, node_types, ndeps) = (rec[16], rec[17], rec[18], rec[19], rec[20]);
        let bad = |what: &str, value: String, allowed: String| {
            InputError::new(
                format!("traffic.trace ({path}) packet {id}: {what}"),
                value,
                allowed,
            )
        };
        if packet_bytes(ty).is_none() {
            return Err(bad(
                "type",
                ty.to_string(),
                "a packet type of netrace's table (1-6, 13-16, 25, 27-30)".into(),
            ));
        }
        for (what, n) in [("source", src), ("destination", dst)] {
            if n >= header.nodes {
                return Err(bad(
                    what,
                    n.to_string(),
                    format!("a node below the header's node count {}", header.nodes),
                ));
            }
        }
        let mut buf = vec![0u8; 4 * ndeps as usize];
        r.exact(&mut buf, "the packet's dependencies")?;
        let deps = buf
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if packets.len() >= MAX_PACKETS {
            return Err(InputError::new(
                format!("traffic.trace ({path}) packets"),
                format!("more than {MAX_PACKETS}"),
                format!("at most {MAX_PACKETS} packets"),
            ));
        }
        packets.push(Packet {
            cycle,
            id,
            addr,
            ty,
            src,
            dst,
            node_types,
            deps,
        });
    }
    if (packets.len() as u64) < header.packets {
        return Err(InputError::new(
            format!("traffic.trace ({path})"),
            format!("{} packets", packets.len()),
            format!(
                "the {} packets its header announces: the file is truncated",
                header.packets
            ),
        ));
    }
    Ok((header, packets))
}

/// A decoder error in words: bzip2's own, and a stream that stops inside
/// a block is a truncated file.
fn bz(e: &std::io::Error) -> String {
    let m = e.to_string();
    let m = m.strip_prefix("bzip2: ").unwrap_or(&m);
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        format!("bzip2: {m}: the file is truncated")
    } else {
        format!("bzip2: {m}")
    }
}

/// The decompressed stream and how far into it we are, for errors.
struct Reader<'a, R: Read> {
    inner: bzip2::read::MultiBzDecoder<R>,
    path: &'a str,
    offset: u64,
}

impl<R: Read> Reader<'_, R> {
    fn corrupt(&self, what: &str, e: impl std::fmt::Display) -> InputError {
        InputError::new(
            format!("traffic.trace ({})", self.path),
            format!("{what} at byte {} of the decompressed trace", self.offset),
            format!("a bzip2-compressed netrace v1 trace ({e})"),
        )
    }

    /// Fills `buf` or fails naming `what`.
    fn exact(&mut self, buf: &mut [u8], what: &str) -> InputResult<()> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => return Err(self.corrupt(what, "the file ends there: truncated")),
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.corrupt(what, bz(&e))),
            }
        }
        self.offset += buf.len() as u64;
        Ok(())
    }

    /// The next packet record; false at a clean end of the stream.
    fn record(&mut self, rec: &mut [u8; PACKET_BYTES]) -> InputResult<bool> {
        let mut got = 0;
        while got < rec.len() {
            match self.inner.read(&mut rec[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => {
                    return Err(self.corrupt(
                        "a packet",
                        format!("the file ends {got} bytes into it: truncated"),
                    ))
                }
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.corrupt("a packet", bz(&e))),
            }
        }
        self.offset += rec.len() as u64;
        Ok(true)
    }

    fn header(&mut self) -> InputResult<Header> {
        let mut h = [0u8; HEADER_BYTES];
        self.exact(&mut h, "the header")?;
        let u32_at = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(h[o..o + 8].try_into().expect("8 bytes"));
        let field = format!("traffic.trace ({}) header", self.path);
        let magic = u32_at(0);
        if magic != MAGIC {
            return Err(InputError::new(
                format!("{field}: magic"),
                format!("{magic:#010x}"),
                format!("{MAGIC:#010x}, netrace's (this is no netrace trace; a text trace needs traffic.trace_format = \"text\")"),
            ));
        }
        let version = f32::from_le_bytes(h[4..8].try_into().expect("4 bytes"));
        if version != VERSION {
            return Err(InputError::new(
                format!("{field}: version"),
                version,
                "1 (netrace v1, the only version wormcast reads)",
            ));
        }
        let name = &h[8..38];
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        let benchmark = String::from_utf8_lossy(&name[..end]).into_owned();
        let nodes = h[38];
        let (cycles, packets) = (u64_at(40), u64_at(48));
        let (notes_len, regions) = (u32_at(56), u32_at(60));
        if notes_len > MAX_NOTES {
            return Err(InputError::new(
                format!("{field}: notes length"),
                notes_len,
                format!("0 to {MAX_NOTES} bytes (a corrupt header?)"),
            ));
        }
        if regions > MAX_REGIONS {
            return Err(InputError::new(
                format!("{field}: regions"),
                regions,
                format!("0 to {MAX_REGIONS} (a corrupt header?)"),
            ));
        }
        let mut notes = vec![0u8; notes_len as usize];
        self.exact(&mut notes, "the header's notes")?;
        let end = notes.iter().position(|&b| b == 0).unwrap_or(notes.len());
        let notes = String::from_utf8_lossy(&notes[..end]).into_owned();
        let mut region = vec![0u8; REGION_BYTES * regions as usize];
        self.exact(&mut region, "the header's regions")?;
        Ok(Header {
            benchmark,
            nodes,
            cycles,
            packets,
            notes,
            regions,
        })
    }
}
