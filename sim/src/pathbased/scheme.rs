//! The NI side of path-based multicast on the cycle model: a
//! scheme name selects a source algorithm of this module's siblings, each
//! scheme fits one mesh routing function, and [`encode`] turns a worm into
//! the header flits that make the routers carry it on exactly its route.
//!
//! Header format (docs/references.md §B): `{d_i, C=1, O = port of the route's
//! next hop at d_i}` for i < k, then `{d_k, C=1}`, `Node` = the routing
//! function's address (`router::mesh::address`). Where the route leaves the
//! routing function's own path (multi-path's forced first hop, \[PATHOPT\]'s
//! port-pinned stars), [`encode`] adds a *waypoint* `{w, C=0, O}` at the
//! last node the function still reaches on the route; the router strips it
//! there and forwards the rest through O. The encoders of this crate need
//! waypoints only for multi-path and xy-path (its guiding paths turn where
//! XY routing would not); the others follow their function.

use super::{brcp, hamiltonian, ocms, otms, xypath, PathMulticast, PathWorm};
use crate::config::RoutingKind;
use crate::error::{InputError, InputResult};
use crate::flit::Head;
use crate::pathbased::worm::{dir_between, CLASS_HIGH, CLASS_LOW};
use crate::router::mesh::{address, next_node};
use crate::topology::{NodeId, Topology};

/// A source algorithm for multicasts on a mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    DualPath,
    MultiPath,
    Lin,
    Ocms,
    Otms,
    BrcpPure,
    BrcpMinimal,
    ColumnPath,
    /// \[THESIS\] §3.3 XY-path (guiding paths with U-turns), carried on XY
    /// routing with waypoints at the turns the guiding paths take.
    XyPath,
}

impl Scheme {
    pub const ALL: [Scheme; 9] = [
        Scheme::DualPath,
        Scheme::MultiPath,
        Scheme::Lin,
        Scheme::Ocms,
        Scheme::Otms,
        Scheme::BrcpPure,
        Scheme::BrcpMinimal,
        Scheme::ColumnPath,
        Scheme::XyPath,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::DualPath => "dual-path",
            Scheme::MultiPath => "multi-path",
            Scheme::Lin => "lin",
            Scheme::Ocms => "ocms",
            Scheme::Otms => "otms",
            Scheme::BrcpPure => "brcp-pure",
            Scheme::BrcpMinimal => "brcp-minimal",
            Scheme::ColumnPath => "column-path",
            Scheme::XyPath => "xy-path",
        }
    }

    /// The routing function the scheme's worms follow between destinations:
    /// R for the Hamiltonian schemes (\[PATHOPT\]), negative-first for BRCP
    /// (\[BRCP\] §3), XY for column-path (its down-worms right of the source
    /// turn +X then −Y, a positive-then-negative turn negative-first forbids).
    pub fn routing(self) -> RoutingKind {
        match self {
            Scheme::DualPath | Scheme::MultiPath | Scheme::Lin | Scheme::Ocms | Scheme::Otms => {
                RoutingKind::Hamiltonian
            }
            Scheme::BrcpPure | Scheme::BrcpMinimal => RoutingKind::NegativeFirst,
            Scheme::ColumnPath | Scheme::XyPath => RoutingKind::Dor,
        }
    }

    /// Schemes whose multicasts start at the origin 0,0 only (LIN's snake
    /// path and XY-path's guiding paths begin there): scripted traffic only.
    pub fn origin_only(self) -> bool {
        matches!(self, Scheme::Lin | Scheme::XyPath)
    }

    /// The default scheme of a mesh routing function (`multicast_scheme =
    /// "auto"`).
    pub fn default_for(kind: RoutingKind) -> Option<Scheme> {
        match kind {
            RoutingKind::Hamiltonian => Some(Scheme::DualPath),
            RoutingKind::NegativeFirst => Some(Scheme::BrcpMinimal),
            RoutingKind::Dor => Some(Scheme::ColumnPath),
            _ => None,
        }
    }

    /// Parses a scheme name for `routing`, naming `field` on error.
    pub fn parse(s: &str, routing: RoutingKind, field: &str) -> InputResult<Scheme> {
        let names: Vec<String> = Scheme::ALL
            .iter()
            .filter(|k| k.routing() == routing)
            .map(|k| k.name().to_string())
            .collect();
        let allowed = format!(
            "with routing = \"{}\": auto, {}",
            routing.name(),
            names.join(", ")
        );
        if s == "auto" {
            return Scheme::default_for(routing)
                .ok_or_else(|| InputError::new(field, s, allowed.clone()));
        }
        match Scheme::ALL.into_iter().find(|k| k.name() == s) {
            Some(k) if k.routing() == routing => Ok(k),
            _ => Err(InputError::new(field, s, allowed)),
        }
    }

    /// The worms of a multicast from `s` to `dests` (source algorithm).
    pub fn multicast(
        self,
        topo: &Topology,
        s: NodeId,
        dests: &[NodeId],
    ) -> InputResult<PathMulticast> {
        match self {
            Scheme::DualPath => hamiltonian::dual_path(topo, s, dests),
            Scheme::MultiPath => hamiltonian::multi_path(topo, s, dests),
            Scheme::Lin => hamiltonian::lin(topo, s, dests),
            Scheme::Ocms => ocms::ocms(topo, s, dests),
            Scheme::Otms => otms::otms(topo, s, dests),
            Scheme::BrcpPure => brcp::pure_brcp(topo, s, dests),
            Scheme::BrcpMinimal => brcp::minimal_brcp(topo, s, dests),
            Scheme::ColumnPath => brcp::column_path(topo, s, dests),
            Scheme::XyPath => {
                // The thesis numbers its two guiding paths; on the router
                // both ride XY's one channel class.
                let mut m = xypath::xy_path(topo, s, dests)?;
                for w in &mut m.worms {
                    w.class = CLASS_HIGH;
                    for h in &mut w.heads {
                        h.class = CLASS_HIGH;
                    }
                }
                Ok(m)
            }
        }
    }

    /// The worms of a message: a unicast is one one-destination worm on the
    /// base routing function (class by label for R), a multicast uses the
    /// scheme.
    pub fn worms(self, topo: &Topology, s: NodeId, dests: &[NodeId]) -> InputResult<Vec<PathWorm>> {
        if let [d] = dests {
            super::check_request(topo, s, dests)?;
            let kind = self.routing();
            let class = self.unicast_class(topo, s, *d);
            let w = PathWorm::build(topo, class, s, vec![*d], |a, b| route(kind, topo, a, b));
            return Ok(vec![w]);
        }
        Ok(self.multicast(topo, s, dests)?.worms)
    }

    /// The channel class of a unicast from `s` to `d`: by label order under
    /// R (\[PATHOPT\] §3: label-increasing worms ride the high channels), the
    /// one class otherwise.
    pub fn unicast_class(self, topo: &Topology, s: NodeId, d: NodeId) -> u8 {
        if self.routing() == RoutingKind::Hamiltonian
            && hamiltonian::label(topo, d) < hamiltonian::label(topo, s)
        {
            CLASS_LOW
        } else {
            CLASS_HIGH
        }
    }

    /// The headers of a message as the NI sends them, with the class of its
    /// worms: [`encode`] of each worm of [`Scheme::worms`].
    ///
    /// A unicast skips building its worm. That worm's route is the routing
    /// function's own path from `s` to `d` ([`route`]), so `follows`
    /// holds from the source to `d` and `encode` always gives the one header
    /// `{d, C=1}`, no waypoint. Building and encoding the route cost about
    /// 8 000 instructions a message on a 16×16 mesh, 9 % of a run of the
    /// matched BookSim2 mesh; `unicast_skips_the_route` checks the
    /// shortcut against `encode` for every pair of nodes.
    pub fn heads(
        self,
        topo: &Topology,
        s: NodeId,
        dests: &[NodeId],
    ) -> InputResult<(Vec<Vec<Head>>, u8)> {
        let kind = self.routing();
        if let [d] = dests {
            super::check_request(topo, s, dests)?;
            let class = self.unicast_class(topo, s, *d);
            let head = Head {
                node: address(kind, topo, *d),
                c: true,
                o: 0,
                s: false,
                class,
            };
            return Ok((vec![vec![head]], class));
        }
        let worms = self.worms(topo, s, dests)?;
        let class = worms.first().map_or(0, |w| w.class);
        Ok((worms.iter().map(|w| encode(kind, topo, w)).collect(), class))
    }
}

/// The route of the routing function from `a` to `b`: nodes after `a` up to
/// `b`.
pub fn route(kind: RoutingKind, topo: &Topology, a: NodeId, b: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut at = a;
    while at != b {
        at = next_node(kind, topo, at, b).expect("mesh routing reaches every node");
        out.push(at);
    }
    out
}

/// Whether the routing function from `route[from]` toward `route[to]`
/// follows `route[from..=to]`.
fn follows(kind: RoutingKind, topo: &Topology, r: &[NodeId], from: usize, to: usize) -> bool {
    (from..to).all(|j| next_node(kind, topo, r[j], r[to]) == Some(r[j + 1]))
}

/// The headers (with `Node` = address under `kind`) that carry `worm` on its
/// exact route: the common header format plus waypoints where needed.
pub fn encode(kind: RoutingKind, topo: &Topology, worm: &PathWorm) -> Vec<Head> {
    let r = &worm.route;
    let head = |at: usize, c: bool, last: bool| Head {
        node: address(kind, topo, r[at]),
        c,
        o: if last {
            0
        } else {
            1 << dir_between(topo, r[at], r[at + 1])
                .expect("route hop")
                .index()
        },
        s: false,
        class: worm.class,
    };
    let mut out = Vec::with_capacity(worm.dests.len());
    let mut pos = 0;
    for (i, &dp) in worm.dest_pos.iter().enumerate() {
        let last = i + 1 == worm.dests.len();
        loop {
            // The farthest route node, up to this destination, the routing
            // function reaches along the route from `pos` (adjacent nodes
            // always qualify: all three functions are minimal).
            let t = (pos + 1..=dp)
                .rev()
                .find(|&t| follows(kind, topo, r, pos, t))
                .expect("a neighbour is reached directly");
            pos = t;
            if t == dp {
                out.push(head(t, true, last));
                break;
            }
            out.push(head(t, false, false));
        }
    }
    out
}

/// Whether `worm` needs no waypoint: its route is the routing function's
/// between consecutive destinations (what the scheme's paper assumes).
pub fn fits_routing(kind: RoutingKind, topo: &Topology, worm: &PathWorm) -> bool {
    encode(kind, topo, worm).len() == worm.dests.len()
}
