//! Every way of naming a pair of edge-disjoint spanning trees in one place:
//! the DSTM family of \[DSTM\] §4–5 and the Roskind–Tarjan pairs of §5.3/§6.
//! Scenario files, sweeps and the command line all go through [`PairSpec`],
//! so a scheme that can be measured can also be simulated.

use crate::error::InputResult;
use crate::topology::{NodeId, Topology};
use crate::trees::{construct, Named, SpanningTree, TarjanSpec};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PairSpec {
    /// DSTM-1, DSTM-2 or one of the 16 methods.
    Dstm(Named),
    /// A Roskind–Tarjan pair (`tarjan-best`, `tarjan-average`, `tarjan-path`).
    Tarjan(TarjanSpec),
}

impl PairSpec {
    pub fn parse(s: &str) -> InputResult<PairSpec> {
        if s.trim().to_ascii_lowercase().starts_with("tarjan") {
            TarjanSpec::parse(s).map(PairSpec::Tarjan)
        } else {
            Named::parse(s).map(PairSpec::Dstm)
        }
    }

    /// The two trees on `topo`; `r1` is the starting node of DSTM
    /// constructions (Roskind–Tarjan pairs have none).
    pub fn build(&self, topo: &Topology, r1: NodeId) -> InputResult<[SpanningTree; 2]> {
        match self {
            PairSpec::Dstm(n) => Ok(construct(topo, &n.construction(topo, r1, None))?.trees),
            PairSpec::Tarjan(t) => Ok(t.build(topo)?.trees),
        }
    }
}

impl fmt::Display for PairSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairSpec::Dstm(n) => write!(f, "{n}"),
            PairSpec::Tarjan(t) => {
                let w = match t.which {
                    crate::trees::TarjanWhich::Best => "best",
                    crate::trees::TarjanWhich::Average => "average",
                    crate::trees::TarjanWhich::Path => "path",
                };
                write!(f, "tarjan-{w}:{}:{}", t.seed, t.trials)
            }
        }
    }
}
