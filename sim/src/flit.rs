//! The flit format: the one definition of every bit on a link.
//!
//! Both the native model and the RTL read these constants, so the two cannot
//! drift (docs/architecture.md §1, §3). The layout, for flit width `W` (default 32):
//!
//! | bits        | HEAD                      | BODY / TAIL |
//! |-------------|---------------------------|-------------|
//! | `[1:0]`     | kind = 0                  | kind = 1 (BODY) or 2 (TAIL) |
//! | `[2]`       | `C`: deliver locally      | payload     |
//! | `[6:3]`     | `O1..O4` (+X, −X, +Y, −Y) | payload     |
//! | `[7]`       | `S`: past the first split | payload     |
//! | `[9:8]`     | class (tree / channel class) | payload  |
//! | `[W−1:10]`  | `Node`                    | payload     |
//!
//! Kind 3 is reserved and always malformed. Header fields follow \[DSTM\]
//! §3.1.1 ({Node, C, O1–O4, S}) plus the class that docs/architecture.md §3 adds so a
//! worm injected by the NI names its tree or channel class.
//!
//! A message on the wire is `HEAD+ BODY+ TAIL`. Every HEAD is stripped before
//! it reaches a node, so the first BODY carries the message identity: its
//! payload is the message tag (see [`MessageTag`]).

use crate::error::{InputError, InputResult};

/// Storage type of one flit; widths up to 64 bits are supported.
pub type Flit = u64;

pub const KIND_HEAD: u64 = 0;
pub const KIND_BODY: u64 = 1;
pub const KIND_TAIL: u64 = 2;
pub const KIND_RESERVED: u64 = 3;

pub const KIND_BITS: u32 = 2;
pub const C_BIT: u32 = 2;
pub const O_SHIFT: u32 = 3;
pub const S_BIT: u32 = 7;
pub const CLASS_SHIFT: u32 = 8;
pub const CLASS_BITS: u32 = 2;
pub const NODE_SHIFT: u32 = 10;
pub const PAYLOAD_SHIFT: u32 = 2;

/// Smallest and largest flit widths the format supports.
pub const MIN_WIDTH: u32 = 16;
pub const MAX_WIDTH: u32 = 64;
/// Largest number of channel classes the class field can name.
pub const MAX_CLASSES: u32 = 1 << CLASS_BITS;

/// The kind field of a flit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Head,
    Body,
    Tail,
    Reserved,
}

/// A flit format of a given width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlitFormat {
    pub width: u32,
}

impl Default for FlitFormat {
    fn default() -> Self {
        FlitFormat { width: 32 }
    }
}

/// A decoded HEAD flit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    pub node: u32,
    pub c: bool,
    /// O1..O4 as bits 0..3 (+X, −X, +Y, −Y).
    pub o: u8,
    pub s: bool,
    pub class: u8,
}

impl FlitFormat {
    pub fn new(width: u32) -> InputResult<FlitFormat> {
        if !(MIN_WIDTH..=MAX_WIDTH).contains(&width) {
            return Err(InputError::new(
                "flit_width",
                width,
                format!("an integer from {MIN_WIDTH} to {MAX_WIDTH}"),
            ));
        }
        Ok(FlitFormat { width })
    }

    pub fn mask(&self) -> u64 {
        if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    pub fn node_bits(&self) -> u32 {
        self.width - NODE_SHIFT
    }

    /// Largest node address plus one that the `Node` field can carry.
    pub fn node_capacity(&self) -> u64 {
        1u64 << self.node_bits().min(40)
    }

    pub fn payload_bits(&self) -> u32 {
        self.width - PAYLOAD_SHIFT
    }

    pub fn payload_mask(&self) -> u64 {
        self.mask() >> PAYLOAD_SHIFT
    }

    /// Checks that `nodes` addresses fit the `Node` field (the number of
    /// nodes, or a mesh routing's address space).
    pub fn check_nodes(&self, nodes: u32) -> InputResult<()> {
        if nodes as u64 > self.node_capacity() {
            return Err(InputError::new(
                "flit_width",
                self.width,
                format!(
                    "a {}-bit flit leaves {} bits for Node ({} addresses) but the network needs {nodes} node addresses; use a wider flit",
                    self.width,
                    self.node_bits(),
                    self.node_capacity()
                ),
            ));
        }
        Ok(())
    }

    pub fn head(&self, h: Head) -> Flit {
        debug_assert!((h.node as u64) < self.node_capacity());
        KIND_HEAD
            | (h.c as u64) << C_BIT
            | ((h.o & 0xF) as u64) << O_SHIFT
            | (h.s as u64) << S_BIT
            | ((h.class as u64) & (MAX_CLASSES as u64 - 1)) << CLASS_SHIFT
            | ((h.node as u64) << NODE_SHIFT) & self.mask()
    }

    pub fn body(&self, payload: u64) -> Flit {
        KIND_BODY | (payload & self.payload_mask()) << PAYLOAD_SHIFT
    }

    pub fn tail(&self, payload: u64) -> Flit {
        KIND_TAIL | (payload & self.payload_mask()) << PAYLOAD_SHIFT
    }
}

pub fn kind(f: Flit) -> Kind {
    match f & 3 {
        KIND_HEAD => Kind::Head,
        KIND_BODY => Kind::Body,
        KIND_TAIL => Kind::Tail,
        _ => Kind::Reserved,
    }
}

pub fn decode_head(f: Flit) -> Head {
    Head {
        node: (f >> NODE_SHIFT) as u32,
        c: (f >> C_BIT) & 1 == 1,
        o: ((f >> O_SHIFT) & 0xF) as u8,
        s: (f >> S_BIT) & 1 == 1,
        class: ((f >> CLASS_SHIFT) & (MAX_CLASSES as u64 - 1)) as u8,
    }
}

pub fn set_s(f: Flit) -> Flit {
    f | 1 << S_BIT
}

pub fn payload(f: Flit) -> u64 {
    f >> PAYLOAD_SHIFT
}

/// The identity a message carries in its first BODY flit: a tag the fabric
/// assigns in injection order, modulo the payload width. The scoreboard and
/// the NI map it to (source, message id, length, destinations); the tag space
/// (2^30 at 32-bit flits) is far larger than the number of messages in flight.
pub type MessageTag = u64;

/// Payload of BODY/TAIL flit `index` (1-based after the identity flit) of the
/// message with `tag`: a cheap hash, so a swapped, lost or corrupted flit shows
/// up at the scoreboard as a payload mismatch.
pub fn payload_word(tag: MessageTag, index: u32) -> u64 {
    let mut z = tag.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (index as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^= z >> 31;
    z = z.wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_round_trip() {
        let f = FlitFormat::default();
        let h = Head {
            node: 4095,
            c: true,
            o: 0b1010,
            s: true,
            class: 1,
        };
        let w = f.head(h);
        assert_eq!(kind(w), Kind::Head);
        assert_eq!(decode_head(w), h);
        assert_eq!(w & !f.mask(), 0);
        let w = f.head(Head { s: false, ..h });
        assert!(decode_head(set_s(w)).s);
    }

    #[test]
    fn body_and_tail() {
        let f = FlitFormat::new(16).unwrap();
        let b = f.body(u64::MAX);
        assert_eq!(kind(b), Kind::Body);
        assert_eq!(payload(b), f.payload_mask());
        assert_eq!(kind(f.tail(7)), Kind::Tail);
        assert_eq!(kind(3), Kind::Reserved);
    }

    #[test]
    fn width_limits() {
        assert!(FlitFormat::new(15).is_err());
        assert!(FlitFormat::new(65).is_err());
        let f = FlitFormat::new(16).unwrap();
        assert!(f.check_nodes(64).is_ok());
        let e = f.check_nodes(65).unwrap_err();
        assert!(e.to_string().contains("flit_width"));
    }
}
