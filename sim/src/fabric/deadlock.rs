//! The deadlock detector (docs/architecture.md §3). When an input has not moved a
//! flit for `threshold` cycles, the wait-for graph of all occupied inputs is
//! built: a waiting first HEAD points at the inputs that own the outputs it
//! requests; a waiting flit of an active worm points at the downstream inputs
//! whose full buffers hold back its outputs. A cycle is a deadlock, reported
//! worm by worm; no cycle is a long block, which saturation legitimately
//! produces. A global "nothing moved" timeout would catch a partial deadlock
//! only once the rest of the network had drained, far too late.

use super::Fabric;
use crate::flit::{self, Kind};
use crate::router::{mesh, routing, InState, NO_OWNER};
use serde::Serialize;

/// An input of the wait-for graph: `(router, input index)`.
type InputRef = (u32, usize);
/// DFS frame: graph node, its out-edges, next edge to follow.
type Frame = (usize, Vec<InputRef>, usize);

/// One worm in a deadlock cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WaitingWorm {
    pub router: (u32, u32),
    pub input: String,
    /// Message number (fabric order), if known.
    pub message: Option<u32>,
    pub state: String,
    pub head_flit: String,
    pub waits_for_router: (u32, u32),
    pub waits_for_input: String,
    pub waits_for_message: Option<u32>,
}

/// Port naming lives in [`crate::ports`]; re-exported here because the
/// deadlock report was its first user.
pub use crate::ports::{input_name, output_name};

impl Fabric {
    /// Inputs whose FIFO head has not moved for at least `threshold` cycles.
    pub fn long_blocked(&self, threshold: u64) -> Vec<(u32, usize)> {
        let mut v = Vec::new();
        for (r, s) in self.state.iter().enumerate() {
            for i in 0..self.params.inputs() {
                if !s.inp[i].fifo.is_empty()
                    && self.cycle.saturating_sub(self.last_move[r][i]) >= threshold
                {
                    v.push((r as u32, i));
                }
            }
        }
        v
    }

    /// Wait-for edges out of input `(r, i)`.
    fn waits(&self, r: usize, i: usize) -> Vec<(u32, usize)> {
        let s = &self.state[r];
        let inp = &s.inp[i];
        let Some(f) = inp.fifo.peek() else {
            // An empty input that holds outputs waits for the rest of its
            // worm, i.e. for the upstream input that owns the link into it.
            // Without this edge a worm stretched across a blocked upstream
            // router breaks every cycle it is part of.
            let mut out = Vec::new();
            if inp.state != InState::Idle && i < 4 {
                if let Some((u, o)) = self.upstream[r][i] {
                    let owner = self.state[u as usize].out[o as usize].owner;
                    if owner != NO_OWNER {
                        out.push((u, owner as usize));
                    }
                }
            }
            return out;
        };
        let mut out = Vec::new();
        let need: u8 = match (inp.state, flit::kind(f)) {
            (InState::Idle, Kind::Head) => {
                // Blocked request: waits for the owners of the outputs it wants.
                if let Ok((mask, _, _)) = routing::first_head(
                    &self.cfg[r],
                    &self.params,
                    i,
                    f,
                    crate::router::owned_mask(s, self.params.outputs()),
                ) {
                    for o in 0..self.params.outputs() {
                        let owner = s.out[o].owner;
                        if mask >> o & 1 == 1 && owner != NO_OWNER && owner as usize != i {
                            out.push((r as u32, owner as usize));
                        }
                    }
                    // A request held back only by the arbiter's mask waits
                    // for the masking input (the first blocked one in
                    // priority order), which itself waits for owners.
                    if let Some(m) = self.masker(r) {
                        if m != i && self.request(r, m) & mask != 0 {
                            out.push((r as u32, m));
                        }
                    }
                }
                return out;
            }
            (InState::Active, Kind::Head) => {
                match routing::trailing_head(&self.cfg[r], &self.params, inp, f) {
                    Ok((o, _)) => 1 << o,
                    Err(_) => 0,
                }
            }
            // A diverted worm's healthy branches wait for their links too.
            (InState::Diverted, Kind::Head) => routing::diverted_head(&self.cfg[r], inp, f).0,
            (InState::Active | InState::Diverted, _) | (InState::Discard, Kind::Tail) => {
                inp.reserved
            }
            _ => 0,
        };
        for o in 0..4 {
            if need >> o & 1 == 1 && s.out[o].valid {
                if let Some((v, j)) = self.downstream[r][o] {
                    if !self.state[v as usize].inp[j as usize].ready {
                        out.push((v, j as usize));
                    }
                }
            }
        }
        out
    }

    /// The request of an idle input with a HEAD at its FIFO head (0 if none).
    fn request(&self, r: usize, i: usize) -> u8 {
        let inp = &self.state[r].inp[i];
        match inp.fifo.peek() {
            Some(f) if inp.state == InState::Idle && flit::kind(f) == Kind::Head => {
                routing::first_head(
                    &self.cfg[r],
                    &self.params,
                    i,
                    f,
                    crate::router::owned_mask(&self.state[r], self.params.outputs()),
                )
                .map_or(0, |(m, _, _)| m)
            }
            _ => 0,
        }
    }

    /// The input whose blocked request masks outputs at router `r` this
    /// cycle, as the arbiter decides it.
    fn masker(&self, r: usize) -> Option<usize> {
        let n = self.params.inputs();
        let reqs: Vec<u8> = (0..n).map(|i| self.request(r, i)).collect();
        let s = &self.state[r];
        let owned = (0..self.params.outputs())
            .fold(0u8, |m, o| m | ((s.out[o].owner != NO_OWNER) as u8) << o);
        let g = crate::router::arbiter::arbitrate(&reqs, owned, s.prio);
        // `arbitrate` moves the priority to the first blocked input if any.
        let b = g.prio as usize;
        (reqs[b] != 0 && g.granted >> b & 1 == 0).then_some(b)
    }

    /// Finds a cycle in the wait-for graph; `None` if there is none.
    pub fn find_deadlock(&self) -> Option<Vec<WaitingWorm>> {
        let ni = self.params.inputs();
        let n = self.state.len() * ni;
        // 0 = unvisited, 1 = on stack, 2 = done.
        let mut color = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        for start in 0..n {
            let inp = &self.state[start / ni].inp[start % ni];
            if color[start] != 0 || (inp.fifo.is_empty() && inp.state == InState::Idle) {
                continue;
            }
            let mut stack: Vec<Frame> = Vec::new();
            color[start] = 1;
            stack.push((start, self.waits(start / ni, start % ni), 0));
            while let Some(top) = stack.last_mut() {
                let (node, edges, k) = (top.0, &top.1, &mut top.2);
                if *k < edges.len() {
                    let (v, j) = edges[*k];
                    *k += 1;
                    let w = v as usize * ni + j;
                    if color[w] == 1 {
                        // Cycle: w → … → node → w.
                        let mut cyc = vec![node];
                        let mut x = node;
                        while x != w {
                            x = parent[x];
                            cyc.push(x);
                        }
                        cyc.reverse();
                        return Some(self.describe(&cyc));
                    }
                    if color[w] == 0 {
                        color[w] = 1;
                        parent[w] = node;
                        let e = self.waits(v as usize, j);
                        stack.push((w, e, 0));
                    }
                } else {
                    color[node] = 2;
                    stack.pop();
                }
            }
        }
        None
    }

    fn describe(&self, cyc: &[usize]) -> Vec<WaitingWorm> {
        let ni = self.params.inputs();
        let msg = |x: usize| {
            let (r, i) = (x / ni, x % ni);
            let inp = &self.state[r].inp[i];
            let m = if inp.fifo.is_empty() {
                // The worm's last flit went out through its reserved outputs.
                (0..self.params.outputs())
                    .find(|&o| inp.reserved >> o & 1 == 1)
                    .map_or(super::NO_MSG, |o| self.shadow[r].out[o])
            } else {
                self.shadow[r].fifo[i][inp.fifo.rd as usize]
            };
            (m != super::NO_MSG).then_some(m)
        };
        (0..cyc.len())
            .map(|k| {
                let x = cyc[k];
                let y = cyc[(k + 1) % cyc.len()];
                let (r, i) = (x / ni, x % ni);
                let inp = &self.state[r].inp[i];
                let head_flit = match inp.fifo.peek().map(|f| (f, flit::kind(f))) {
                    None => "empty: waiting for the rest of its worm".to_string(),
                    Some((f, Kind::Head)) => {
                        let h = flit::decode_head(f);
                        // The Node field is an address under mesh routing
                        // (snake label or packed x,y); name the node too.
                        let at = mesh::node_of_address(self.params.routing, &self.topo, h.node)
                            .map_or("no such node".to_string(), |n| {
                                let (x, y) = self.topo.coord(n);
                                format!("({x},{y})")
                            });
                        format!(
                            "HEAD node={} {at} c={} o={:04b} s={} class={}",
                            h.node, h.c as u8, h.o, h.s as u8, h.class
                        )
                    }
                    Some((_, k)) => format!("{k:?}").to_uppercase(),
                };
                WaitingWorm {
                    router: self.topo.coord(r as u32),
                    input: input_name(i).to_string(),
                    message: msg(x),
                    state: format!("{:?}", inp.state),
                    head_flit,
                    waits_for_router: self.topo.coord((y / ni) as u32),
                    waits_for_input: input_name(y % ni).to_string(),
                    waits_for_message: msg(y),
                }
            })
            .collect()
    }
}
