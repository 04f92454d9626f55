//! Scripted raw flits (`[[traffic.raw]]`): any HEAD/BODY/TAIL, with any
//! field values, driven into one router port at a given cycle. This is the
//! way in for the malformed-input rule of docs/router.md on a running
//! network: NIs only ever send well-formed worms, so without it the rule
//! could be exercised only on a lone router in a unit test.
//!
//! **Ports.** An injection channel (`inj0`..`inj3`) is driven in place of
//! the NI's sender, between two of its worms. A link input (`+x`, `-x`,
//! `+y`, `-y`: the link from the neighbour in that direction) is driven in
//! place of that neighbour's output register: the driver waits until no
//! worm holds the link (upstream output without owner and empty), then
//! holds it, showing `ready = 0` to the neighbour, until its last flit has
//! crossed. A link port is needed because some cases cannot come from an
//! NI on a consistent routing function (`back_to_arrival`: only a neighbour
//! with a corrupt table sends a worm back where it came from); it models a
//! faulty neighbour. Raw flits pay no start-up latency.
//!
//! **Bookkeeping** (not hardware). Raw flits carry the shadow number
//! [`RAW_MSG`]` | index`, so the NI recognises them and keeps them out of
//! the message scoreboard; a TAIL that left an input in `Discard` carries
//! [`TRUNC_MSG`] as well, so the NI that consumes it counts a truncated
//! worm.

use crate::error::{InputError, InputResult};
// The shadow numbers and the link driver are the fabric's (the kernel
// drives them); re-exported here beside the scenario side of raw worms.
pub use crate::fabric::{is_raw, LinkDrive, RAW_MSG, TRUNC_MSG};
use crate::flit::{Flit, FlitFormat, Head, KIND_RESERVED, PAYLOAD_SHIFT};
use crate::topology::{Dir, NodeId, Topology};
use serde::{Deserialize, Serialize};

/// `[[traffic.raw]]`: one raw worm as written in the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWormCfg {
    /// Cycle the flits are first offered.
    pub cycle: u64,
    /// Router `X,Y` whose port is driven.
    pub node: String,
    /// `inj0`..`inj3` (injection channel) or `+x`, `-x`, `+y`, `-y` (link
    /// input from that neighbour). Default `inj0`.
    #[serde(default = "default_port", with = "crate::error::text")]
    pub port: RawPort,
    pub flits: Vec<RawFlitCfg>,
}

fn default_port() -> RawPort {
    RawPort::Injection(0)
}

/// A header `Node` value: a node `X,Y` (encoded as the routing addresses
/// it: post-order number on the class's tree, mesh address) or a raw field
/// value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RawNode {
    Value(u64),
    Coord(String),
}

/// One raw flit as written in the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFlitCfg {
    /// `head`, `body`, `tail` or `reserved` (kind 3).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<RawNode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<u64>,
}

/// Which port a raw worm drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawPort {
    Injection(usize),
    Link(Dir),
}

/// `injK` or a direction, as a scenario writes it; whether the router has
/// injection channel K is checked by [`validate`].
impl std::str::FromStr for RawPort {
    type Err = InputError;
    fn from_str(s: &str) -> InputResult<RawPort> {
        let t = s.trim();
        let port = match t.strip_prefix("inj") {
            Some(k) => k.parse().ok().map(RawPort::Injection),
            None => Dir::ALL
                .into_iter()
                .find(|d| d.name() == t)
                .map(RawPort::Link),
        };
        port.ok_or_else(|| {
            InputError::new(
                "port",
                s,
                "injK (injection channel K, below network.injection_channels) or +x, -x, +y, -y (link input from that neighbour)",
            )
        })
    }
}

impl std::fmt::Display for RawPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RawPort::Injection(k) => write!(f, "inj{k}"),
            RawPort::Link(d) => f.write_str(d.name()),
        }
    }
}

/// A header `Node` after validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawAddr {
    Value(u32),
    Node(NodeId),
}

/// A raw flit after validation; HEAD addresses are resolved by the network
/// (they depend on the trees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawFlit {
    Head {
        node: RawAddr,
        c: bool,
        o: u8,
        s: bool,
        class: u8,
    },
    Body(u64),
    Tail(u64),
    Reserved(u64),
}

/// A raw worm after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawWorm {
    pub cycle: u64,
    pub node: NodeId,
    pub port: RawPort,
    pub flits: Vec<RawFlit>,
}

/// Most flits one raw worm may hold.
pub const MAX_RAW_FLITS: usize = 100_000;

/// Checks `[[traffic.raw]]` entry `i`; every error names
/// `traffic.raw[i].FIELD`. `excluded(node)` says whether a node is cut out
/// of the fabric. Whether a link port is wired is checked by the network
/// ([`check_wired`]), which knows the trees.
pub fn validate(
    i: usize,
    w: &RawWormCfg,
    topo: &Topology,
    fmt: FlitFormat,
    injection: usize,
    excluded: &dyn Fn(NodeId) -> bool,
) -> InputResult<RawWorm> {
    let f = |k: &str| format!("traffic.raw[{i}].{k}");
    let node = topo.parse_node(&w.node, &f("node"))?;
    if excluded(node) {
        return Err(InputError::new(
            f("node"),
            &w.node,
            "a node of the fabric (not faulty or disabled)",
        ));
    }
    let port = match w.port {
        RawPort::Injection(k) if k >= injection => {
            return Err(InputError::new(f("port"), w.port, port_allowed(injection)))
        }
        p => p,
    };
    if w.flits.is_empty() || w.flits.len() > MAX_RAW_FLITS {
        return Err(InputError::new(
            f("flits"),
            w.flits.len(),
            format!("1 to {MAX_RAW_FLITS} flits"),
        ));
    }
    let flits = w
        .flits
        .iter()
        .enumerate()
        .map(|(j, fl)| flit(fl, &format!("traffic.raw[{i}].flits[{j}]"), topo, fmt))
        .collect::<InputResult<Vec<_>>>()?;
    Ok(RawWorm {
        cycle: w.cycle,
        node,
        port,
        flits,
    })
}

/// The error for raw worm `i` (as written: `w`) on a link input the fabric
/// does not wire, or `Ok` if it is wired.
pub fn check_wired(i: usize, w: &RawWorm, cfg: &RawWormCfg, wired: bool) -> InputResult<()> {
    match w.port {
        RawPort::Link(d) if !wired => Err(InputError::new(
            format!("traffic.raw[{i}].port"),
            cfg.port,
            format!(
                "a link input that exists at {}: its {} link is missing, faulty, cut out or on no tree",
                cfg.node,
                d.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// What a port may be on a router with `injection` injection channels.
fn port_allowed(injection: usize) -> String {
    format!(
        "inj0..inj{} (injection channel) or +x, -x, +y, -y (link input from that neighbour)",
        injection - 1
    )
}

fn flit(fl: &RawFlitCfg, at: &str, topo: &Topology, fmt: FlitFormat) -> InputResult<RawFlit> {
    let f = |k: &str| format!("{at}.{k}");
    let head_only = [
        ("node", fl.node.is_some()),
        ("c", fl.c.is_some()),
        ("o", fl.o.is_some()),
        ("s", fl.s.is_some()),
        ("class", fl.class.is_some()),
    ];
    let payload = || -> InputResult<u64> {
        let p = fl.payload.unwrap_or(0);
        if p > fmt.payload_mask() {
            return Err(InputError::new(
                f("payload"),
                p,
                format!(
                    "0 to {} (the {}-bit payload of a {}-bit flit)",
                    fmt.payload_mask(),
                    fmt.payload_bits(),
                    fmt.width
                ),
            ));
        }
        Ok(p)
    };
    let kind = fl.kind.trim();
    if kind != "head" {
        if let Some((k, _)) = head_only.iter().find(|(_, set)| *set) {
            return Err(InputError::new(
                f(k),
                kind,
                "only on a head flit (body, tail and reserved carry a payload)",
            ));
        }
    }
    match kind {
        "head" => {
            if fl.payload.is_some() {
                return Err(InputError::new(
                    f("payload"),
                    "head",
                    "only on body, tail and reserved flits (a head has node, c, o, s, class)",
                ));
            }
            let node = match &fl.node {
                None => {
                    return Err(InputError::new(
                        f("node"),
                        "(missing)",
                        "a node \"X,Y\" or a Node field value",
                    ))
                }
                Some(RawNode::Coord(s)) => RawAddr::Node(topo.parse_node(s, &f("node"))?),
                Some(RawNode::Value(v)) => {
                    if *v >= fmt.node_capacity() {
                        return Err(InputError::new(
                            f("node"),
                            v,
                            format!(
                                "a Node field value below {} (the {}-bit Node field), or a node \"X,Y\"",
                                fmt.node_capacity(),
                                fmt.node_bits()
                            ),
                        ));
                    }
                    RawAddr::Value(*v as u32)
                }
            };
            let mut o = 0u8;
            for p in fl.o.iter().flatten() {
                let d = Dir::ALL
                    .into_iter()
                    .find(|d| d.name() == p.trim())
                    .ok_or_else(|| {
                        InputError::new(f("o"), p, "a list of ports +x, -x, +y, -y (O1..O4)")
                    })?;
                if o >> d.index() & 1 == 1 {
                    return Err(InputError::new(f("o"), p, "each port at most once"));
                }
                o |= 1 << d.index();
            }
            let class = fl.class.unwrap_or(0);
            if class >= crate::flit::MAX_CLASSES as u64 {
                return Err(InputError::new(
                    f("class"),
                    class,
                    "0 to 3 (the 2-bit class field; a class the network does not use is malformed on purpose)",
                ));
            }
            Ok(RawFlit::Head {
                node,
                c: fl.c.unwrap_or(false),
                o,
                s: fl.s.unwrap_or(false),
                class: class as u8,
            })
        }
        "body" => Ok(RawFlit::Body(payload()?)),
        "tail" => Ok(RawFlit::Tail(payload()?)),
        "reserved" => Ok(RawFlit::Reserved(payload()?)),
        other => Err(InputError::new(
            f("kind"),
            other,
            "head, body, tail or reserved (kind 3)",
        )),
    }
}

/// The flit bits of a validated raw flit; `addr(class, node)` gives the
/// header address of a node for a class (`None`: the class has no
/// numbering, so only a raw value is possible).
pub fn encode(
    fl: &RawFlit,
    fmt: FlitFormat,
    addr: &dyn Fn(u8, NodeId) -> Option<u32>,
) -> Result<Flit, u8> {
    Ok(match *fl {
        RawFlit::Head {
            node,
            c,
            o,
            s,
            class,
        } => {
            let node = match node {
                RawAddr::Value(v) => v,
                RawAddr::Node(n) => addr(class, n).ok_or(class)?,
            };
            fmt.head(Head {
                node,
                c,
                o,
                s,
                class,
            })
        }
        RawFlit::Body(p) => fmt.body(p),
        RawFlit::Tail(p) => fmt.tail(p),
        RawFlit::Reserved(p) => KIND_RESERVED | (p & fmt.payload_mask()) << PAYLOAD_SHIFT,
    })
}
