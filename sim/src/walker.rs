//! Reference walker: follows the header flits of one tree worm hop by hop,
//! exactly as the routers of docs/architecture.md §3 would, without timing.
//!
//! Why no timing is needed: an input port sees the flits of one worm in the
//! order they left the upstream output (a link is FIFO and a split point sends
//! each trailing HEAD to one output only), and its state depends only on that
//! sequence. So pushing flit 1 all the way through, then flit 2, and so on,
//! yields the same reservations as any interleaving. This makes the walker the
//! oracle for the header encoder (\[DSTM\] Appendix A) and for the router.
//!
//! The input-port contract (\[DSTM\] §3.1.1–3.1.2, docs/architecture.md §3):
//! * first HEAD at an idle input: `Node == own` → strip it and reserve
//!   {consumption if C} ∪ {Oi}; the input is a split point if that is more
//!   than one output. Otherwise reserve `table.route(Node)` (down into a child
//!   range, else up).
//! * trailing HEAD at an active input: at a split point set S and send it to
//!   the reserved link whose child range holds `Node`; otherwise forward it
//!   unchanged on the single reserved link.
//! * the malformed cases of docs/architecture.md §3 are returned as [`WalkError`]s;
//!   two more follow from the same contract: a worm that reserves one output
//!   twice (it would wait on itself forever) and a reserved link that no HEAD
//!   ever reaches (the BODY would arrive at an idle input).

use crate::flit::Head;
use crate::topology::{Dir, NodeId};
use crate::trees::{SpanningTree, TreeTable};
use std::fmt;

/// Why a worm is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// No header flits at all.
    NoHeaders,
    /// `Node` is not a post-order number of the tree.
    NodeOutOfRange,
    /// A header with S = 1 would be sent up toward the parent.
    DownPhaseUp,
    /// A first HEAD not for this node would leave by its arrival port.
    BackOutArrival,
    /// A HEAD for this node with C = 0 and no O bit.
    NoReservation,
    /// An O bit for a port that has no child link in this tree.
    NoChildLink(Dir),
    /// A trailing HEAD at an input whose only reservation is consumption.
    TrailingAtConsumption,
    /// A trailing HEAD at a split point, below none of the reserved links.
    SplitBelowNone,
    /// A HEAD for this node at an active input with S = 1.
    OwnWithS,
    /// The worm reserves the same directed link twice (it would block on itself).
    LinkTwice(Dir),
    /// The worm reserves the consumption channel of one node twice.
    ConsumeTwice,
    /// A reserved link whose downstream input no HEAD reached: the BODY would
    /// arrive at an idle input.
    BodyAtIdle(Dir),
}

/// A malformed worm: what, at which node, caused by which header (index into
/// the injected list; `None` for whole-worm checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkError {
    pub kind: Malformed,
    pub node: NodeId,
    pub head: Option<usize>,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Malformed::*;
        let what = match self.kind {
            NoHeaders => "worm has no header flits".to_string(),
            NodeOutOfRange => "header Node is out of range".to_string(),
            DownPhaseUp => "down-phase header (S=1) would go up".to_string(),
            BackOutArrival => "first header would leave by its arrival port".to_string(),
            NoReservation => "header for this node has C=0 and no O bit".to_string(),
            NoChildLink(d) => format!("O bit for port {d} which has no child link"),
            TrailingAtConsumption => {
                "trailing header at an input reserved only for consumption".to_string()
            }
            SplitBelowNone => {
                "trailing header at a split point lies below no reserved link".to_string()
            }
            OwnWithS => "header for this node at an active input with S=1".to_string(),
            LinkTwice(d) => format!("worm reserves link {d} twice"),
            ConsumeTwice => "worm reserves the consumption channel twice".to_string(),
            BodyAtIdle(d) => format!("link {d} is reserved but no header reaches its far end"),
        };
        write!(f, "malformed worm at node {}: {what}", self.node)?;
        if let Some(h) = self.head {
            write!(f, " (header #{h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for WalkError {}

/// One hop of one header flit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    /// Index of the header in the injected list.
    pub head: usize,
    /// The node it leaves.
    pub from: NodeId,
    /// The port it leaves by.
    pub port: Dir,
    /// Its S bit on this hop.
    pub s: bool,
    /// Whether this hop goes toward the root.
    pub up: bool,
}

/// What a well-formed worm does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    /// Directed links `(node, output port)` reserved, in reservation order.
    pub links: Vec<(NodeId, Dir)>,
    /// Nodes that consume the message, sorted.
    pub consumers: Vec<NodeId>,
    /// Hops from the source to each consumer along the reserved links, sorted
    /// by node.
    pub path_len: Vec<(NodeId, u32)>,
    /// Total link traversals of the message (= `links.len()`).
    pub hops: u32,
    /// Nodes where an input became a split point, in order.
    pub splits: Vec<NodeId>,
    /// Per header: the node that stripped it.
    pub stripped_at: Vec<NodeId>,
    /// Every header hop, in walk order.
    pub moves: Vec<Move>,
}

/// Input index at a router: the four link ports, then the injection channel.
const INJECTION: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Active {
        links: [bool; 4],
        consume: bool,
        split: bool,
    },
}

/// Walks the headers `heads`, injected at `source`, over `tree`.
pub fn walk(tree: &SpanningTree, source: NodeId, heads: &[Head]) -> Result<Walk, WalkError> {
    let topo = tree.topo;
    let n = topo.nodes();
    let err = |kind, node, head| WalkError { kind, node, head };
    if heads.is_empty() {
        return Err(err(Malformed::NoHeaders, source, None));
    }
    let tables: Vec<TreeTable> = (0..n).map(|u| tree.table(u)).collect();
    let mut state = vec![State::Idle; n as usize * 5];
    let mut link_used = vec![false; n as usize * 4];
    let mut consumed = vec![false; n as usize];
    let mut out = Walk {
        links: Vec::new(),
        consumers: Vec::new(),
        path_len: Vec::new(),
        hops: 0,
        splits: Vec::new(),
        stripped_at: Vec::with_capacity(heads.len()),
        moves: Vec::new(),
    };
    // A head can cross each directed link at most once (they are reserved at
    // most once and reservations form an out-tree), so this bound only guards
    // against a walker bug.
    let max_hops = 4 * n as usize + 4;
    for (hi, &h0) in heads.iter().enumerate() {
        let mut h = h0;
        let mut u = source;
        let mut input = INJECTION;
        let mut steps = 0;
        loop {
            let e = |kind| err(kind, u, Some(hi));
            if h.node >= n {
                return Err(e(Malformed::NodeOutOfRange));
            }
            let tab = &tables[u as usize];
            let slot = u as usize * 5 + input;
            let port = match state[slot] {
                State::Idle => {
                    if h.node == tab.own {
                        let mut links = [false; 4];
                        for d in Dir::ALL {
                            if h.o >> d.index() & 1 == 1 {
                                if tab.child[d.index()].is_none() {
                                    return Err(e(Malformed::NoChildLink(d)));
                                }
                                links[d.index()] = true;
                            }
                        }
                        let count = links.iter().filter(|&&l| l).count() + h.c as usize;
                        if count == 0 {
                            return Err(e(Malformed::NoReservation));
                        }
                        if h.c {
                            if consumed[u as usize] {
                                return Err(e(Malformed::ConsumeTwice));
                            }
                            consumed[u as usize] = true;
                        }
                        for d in Dir::ALL.into_iter().filter(|d| links[d.index()]) {
                            reserve(&mut link_used, &mut out.links, u, d).map_err(&e)?;
                        }
                        let split = count > 1;
                        if split {
                            out.splits.push(u);
                        }
                        state[slot] = State::Active {
                            links,
                            consume: h.c,
                            split,
                        };
                        out.stripped_at.push(u);
                        break;
                    }
                    let d = tab
                        .route(h.node)
                        .ok_or_else(|| e(Malformed::NodeOutOfRange))?;
                    if input != INJECTION && d.index() == input {
                        return Err(e(Malformed::BackOutArrival));
                    }
                    let mut links = [false; 4];
                    links[d.index()] = true;
                    reserve(&mut link_used, &mut out.links, u, d).map_err(&e)?;
                    state[slot] = State::Active {
                        links,
                        consume: false,
                        split: false,
                    };
                    d
                }
                State::Active {
                    links,
                    consume,
                    split,
                } => {
                    if h.node == tab.own && h.s {
                        return Err(e(Malformed::OwnWithS));
                    }
                    if split {
                        h.s = true;
                        Dir::ALL
                            .into_iter()
                            .find(|&d| links[d.index()] && tab.below(d, h.node))
                            .ok_or_else(|| e(Malformed::SplitBelowNone))?
                    } else {
                        match Dir::ALL.into_iter().find(|&d| links[d.index()]) {
                            Some(d) => d,
                            None => {
                                debug_assert!(consume);
                                return Err(e(Malformed::TrailingAtConsumption));
                            }
                        }
                    }
                }
            };
            let up = tab.parent == Some(port);
            if up && h.s {
                return Err(e(Malformed::DownPhaseUp));
            }
            out.moves.push(Move {
                head: hi,
                from: u,
                port,
                s: h.s,
                up,
            });
            u = topo.neighbor(u, port).expect("tree links exist");
            input = port.opposite().index();
            steps += 1;
            if steps > max_hops {
                unreachable!("a header crossed more links than the network has");
            }
        }
    }
    // Whole-worm pass: the BODY follows every reservation from the injection
    // input; each reserved link must lead to an input a HEAD has set up.
    let mut queue = vec![(source, INJECTION, 0u32)];
    while let Some((u, input, depth)) = queue.pop() {
        let State::Active { links, consume, .. } = state[u as usize * 5 + input] else {
            unreachable!("only active inputs are queued");
        };
        if consume {
            out.path_len.push((u, depth));
        }
        for d in Dir::ALL.into_iter().filter(|d| links[d.index()]) {
            let v = topo.neighbor(u, d).expect("tree links exist");
            let vin = d.opposite().index();
            if state[v as usize * 5 + vin] == State::Idle {
                return Err(err(Malformed::BodyAtIdle(d), u, None));
            }
            queue.push((v, vin, depth + 1));
        }
    }
    out.path_len.sort_unstable();
    out.consumers = out.path_len.iter().map(|&(v, _)| v).collect();
    out.hops = out.links.len() as u32;
    Ok(out)
}

fn reserve(
    used: &mut [bool],
    links: &mut Vec<(NodeId, Dir)>,
    u: NodeId,
    d: Dir,
) -> Result<(), Malformed> {
    let i = u as usize * 4 + d.index();
    if used[i] {
        return Err(Malformed::LinkTwice(d));
    }
    used[i] = true;
    links.push((u, d));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dstm::encode;
    use crate::topology::Topology;
    use crate::trees::{construct, Named};

    fn pair(k: u32, m: u32) -> (Topology, [SpanningTree; 2]) {
        let t = Topology::torus(k, m).unwrap();
        let p = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap();
        (t, p.trees)
    }

    fn head(node: u32, c: bool, o: u8, s: bool) -> Head {
        Head {
            node,
            c,
            o,
            s,
            class: 0,
        }
    }

    #[test]
    fn unicast_follows_tree_distance() {
        let (t, trees) = pair(5, 4);
        for tr in &trees {
            for a in 0..t.nodes() {
                for b in (0..t.nodes()).filter(|&b| b != a) {
                    let h = encode(tr, a, &[b], 0).unwrap();
                    let w = walk(tr, a, &h).unwrap();
                    assert_eq!(w.consumers, vec![b]);
                    assert_eq!(w.hops, tr.distance(a, b));
                    assert_eq!(w.path_len, vec![(b, tr.distance(a, b))]);
                    assert!(w.splits.is_empty());
                }
            }
        }
    }

    #[test]
    fn broadcast_uses_every_tree_link_once() {
        let (t, trees) = pair(6, 6);
        let tr = &trees[1];
        let src = 7;
        let dests: Vec<u32> = (0..t.nodes()).filter(|&d| d != src).collect();
        let w = walk(tr, src, &encode(tr, src, &dests, 1).unwrap()).unwrap();
        assert_eq!(w.consumers, dests);
        // Up to the LCA (the root here, unless src is an ancestor of all) and
        // then every tree edge once downward.
        assert!(w.hops as usize >= t.nodes() as usize - 1);
    }

    /// One test per malformed case of the contract.
    #[test]
    fn malformed_cases() {
        let (t, trees) = pair(4, 4);
        let tr = &trees[0];
        let num = |v: NodeId| tr.number[v as usize];
        let root = tr.root;
        let leaf = (0..t.nodes()).find(|&v| tr.child_count(v) == 0).unwrap();
        let parent = tr.parent[leaf as usize].unwrap();
        let kind = |src, hs: &[Head]| walk(tr, src, hs).unwrap_err().kind;

        assert_eq!(kind(root, &[]), Malformed::NoHeaders);
        assert_eq!(
            kind(root, &[head(t.nodes(), true, 0, false)]),
            Malformed::NodeOutOfRange
        );
        // S=1 injected at a leaf toward another node must go up: malformed.
        let other = num(root);
        assert_eq!(
            kind(leaf, &[head(other, true, 0, true)]),
            Malformed::DownPhaseUp
        );
        // Own node, nothing requested.
        assert_eq!(
            kind(leaf, &[head(num(leaf), false, 0, false)]),
            Malformed::NoReservation
        );
        // O bit on a leaf (no children at all).
        assert!(matches!(
            kind(leaf, &[head(num(leaf), false, 0b0001, false)]),
            Malformed::NoChildLink(_)
        ));
        // Consume at parent, then a trailing header: its only reservation is
        // consumption.
        assert_eq!(
            kind(
                leaf,
                &[
                    head(num(parent), true, 0, false),
                    head(num(root), true, 0, false)
                ]
            ),
            Malformed::TrailingAtConsumption
        );
        // Split at the root (both children), then a header for the root itself.
        let mut o = 0;
        for (d, _) in tr.children(root) {
            o |= 1 << d.index();
        }
        let kids: Vec<NodeId> = tr.children(root).map(|(_, v)| v).collect();
        assert_eq!(kids.len(), 2);
        assert_eq!(
            kind(
                root,
                &[
                    head(num(root), false, o, false),
                    head(num(root), true, 0, false)
                ]
            ),
            Malformed::SplitBelowNone
        );
        // Split at the root reserving only child 0 plus consumption; a header
        // below child 1 is below none of the reserved links.
        let d0 = tr.children(root).next().unwrap().0;
        assert_eq!(
            kind(
                root,
                &[
                    head(num(root), true, 1 << d0.index(), false),
                    head(num(kids[1]), true, 0, false)
                ]
            ),
            Malformed::SplitBelowNone
        );
        // Own node at an active input with S=1: the root splits (consume +
        // child 0), a header for a grandchild sets up child 0's input, then a
        // header for child 0 itself arrives there with S=1.
        let grand = tr.children(kids[0]).next().unwrap().1;
        assert_eq!(
            kind(
                root,
                &[
                    head(num(root), true, 1 << d0.index(), false),
                    head(num(grand), true, 0, false),
                    head(num(kids[0]), true, 0, false)
                ]
            ),
            Malformed::OwnWithS
        );
        // A first header routed back out of its arrival port: the root is
        // addressed with a single O bit (one output: not a split point), so a
        // trailing header for the other child is forwarded down unchanged and
        // is the first HEAD at that child, whose table sends it back up.
        assert_eq!(
            kind(
                root,
                &[
                    head(num(root), false, 1 << d0.index(), false),
                    head(num(kids[1]), true, 0, false)
                ]
            ),
            Malformed::BackOutArrival
        );
        // Two headers for the same destination: the second trails behind a
        // consumption-only reservation.
        assert_eq!(
            kind(
                root,
                &[
                    head(num(leaf), true, 0, false),
                    head(num(leaf), true, 0, false)
                ]
            ),
            Malformed::TrailingAtConsumption
        );
        // O bit reserved but no header follows: BODY at an idle input.
        assert!(matches!(
            kind(root, &[head(num(root), true, 1 << d0.index(), false)]),
            Malformed::BodyAtIdle(_)
        ));
    }
}
