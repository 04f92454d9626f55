//! Spanning trees of tori and meshes: the generic rooted tree with its router
//! tables, and the edge-disjoint constructions of paper 000 §4–5.

pub mod construct;
pub mod metrics;
pub mod spanning;

pub use construct::{
    construct, construct_with, Construction, Fig5Split, Method, Named, RootChoice, TreePair,
};
pub use metrics::{metrics, Metrics};
pub use spanning::{SpanningTree, TreeTable};
