//! Spanning trees of tori and meshes: the generic rooted tree with its router
//! tables, and the edge-disjoint constructions of paper 000 §4–5.

pub mod construct;
pub mod spanning;

pub use construct::{construct, Construction, Method, Named, RootChoice, TreePair};
pub use spanning::{SpanningTree, TreeTable};
