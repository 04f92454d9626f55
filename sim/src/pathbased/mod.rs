//! Source-side algorithms of the path-based multicast schemes on a 2-D mesh
//! (docs/references.md §B): pure functions from a source and a
//! destination set to multidestination worms with their headers, and the
//! papers' analytic traffic and time. Carrying the worms on the router is
//! not part of this module, except for [`scheme`], which selects an
//! algorithm by name and encodes its worms for the mesh routers.

pub mod brcp;
pub mod hamiltonian;
pub mod ocms;
pub mod otms;
pub mod scheme;
pub mod worm;
pub mod xypath;

pub use worm::{check_request, PathMulticast, PathWorm, CLASS_HIGH, CLASS_LOW};
