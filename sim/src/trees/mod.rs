//! Spanning trees of tori and meshes: the generic rooted tree with its router
//! tables, the edge-disjoint constructions of \[DSTM\] §4–5, the
//! Roskind–Tarjan matroid-union baseline of §5.3 and the single-link fault
//! metrics of §7.

pub mod construct;
pub mod dist;
pub mod faults;
pub mod metrics;
pub mod pair;
pub mod spanning;
pub mod tarjan;

pub use construct::{
    construct, construct_with, Construction, Fig5Split, Method, Named, RootChoice, TreePair,
};
pub use metrics::{metrics, metrics_with_progress, Metrics};
pub use pair::PairSpec;
pub use spanning::{SpanningTree, TreeTable};
pub use tarjan::{TarjanPair, TarjanSpec, TarjanWhich};
