//! Multicast destination models (`traffic.multicast`): which nodes a
//! generated multicast goes to.
//!
//! * **`uniform`** (the default): `destinations` nodes other than the
//!   source, uniformly, as \[DSTM\] §6 and \[BRCP\] §4 draw them.
//! * **`local`**: `destinations` nodes within `radius` hops of the source
//!   (the network's own distance, wrap links included), uniformly: the
//!   spatial locality of neighbourhood sharing and stencil halos.
//! * **`row`**, **`column`**: every other node of the source's row or
//!   column, as mesh accelerators multicast weights and activations along
//!   a row or column of tiles.
//! * **`rectangle`**: every node of a rectangle but the source: a fixed one
//!   given by two corners (`region_corners`), or a `region = [w, h]`
//!   rectangle placed uniformly at random for each message (inside a
//!   mesh; anywhere, wrapping, on a torus). Tile-group multicast of
//!   Tenstorrent-style NoCs.
//! * **`broadcast`**: every other node.
//! * **`invalidation`**: a directory-coherence write miss: the miss to a
//!   home node, the home's invalidation multicast to k sharers (k from the
//!   `traffic.sharers` histogram) and the sharers' acks
//!   (`network::coherence`).
//!
//! Only `uniform` and `local` use the destination count; the others are
//! sets by shape. Every model draws from the source node's own random
//! stream, and `uniform` exactly as before, so default traffic keeps its
//! bits.

use crate::topology::{NodeId, Topology};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

named_enum! {
    /// `traffic.multicast`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum MulticastModel("multicast") {
        #[default]
        Uniform = "uniform",
        Local = "local",
        Row = "row",
        Column = "column",
        Rectangle = "rectangle",
        Broadcast = "broadcast",
        Invalidation = "invalidation",
    }
}

impl MulticastModel {
    /// Whether the model draws `traffic.destinations` nodes.
    pub fn counted(self) -> bool {
        matches!(self, MulticastModel::Uniform | MulticastModel::Local)
    }
}

/// The rectangle of `rectangle`: fixed corners, or a size placed per
/// message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// Inclusive corners `(x0, y0)`–`(x1, y1)`, x0 ≤ x1, y0 ≤ y1.
    Fixed((u32, u32), (u32, u32)),
    /// `w × h`, placed at random.
    Sized(u32, u32),
}

/// A model made concrete: what [`MulticastDests::draw`] needs besides the
/// node's random stream.
#[derive(Debug, Clone)]
pub struct MulticastDests {
    pub model: MulticastModel,
    pub radius: u32,
    pub region: Option<Region>,
}

impl MulticastDests {
    /// The destinations of a multicast from `u` for a non-uniform model
    /// (`Uniform` is drawn by the generator, as always), `count` the drawn
    /// destination count for `local`. Empty when the model leaves none
    /// (a region holding only the source).
    pub fn draw(
        &self,
        topo: &Topology,
        u: NodeId,
        count: u32,
        rng: &mut ChaCha8Rng,
    ) -> Vec<NodeId> {
        let (ux, uy) = topo.coord(u);
        let all = 0..topo.nodes();
        let mut d: Vec<NodeId> = match self.model {
            MulticastModel::Uniform => unreachable!("uniform is drawn by the generator"),
            MulticastModel::Invalidation => unreachable!("a transaction (network::coherence)"),
            MulticastModel::Local => {
                let near: Vec<NodeId> = all
                    .filter(|&v| v != u && topo.distance(u, v) <= self.radius)
                    .collect();
                let k = (count as usize).min(near.len());
                rand::seq::index::sample(rng, near.len(), k)
                    .into_iter()
                    .map(|i| near[i])
                    .collect()
            }
            MulticastModel::Row => (0..topo.k).map(|x| topo.id(x, uy)).collect(),
            MulticastModel::Column => (0..topo.m).map(|y| topo.id(ux, y)).collect(),
            MulticastModel::Broadcast => all.collect(),
            MulticastModel::Rectangle => {
                let ((x0, y0), (w, h)) = match self.region.expect("validated") {
                    Region::Fixed((x0, y0), (x1, y1)) => ((x0, y0), (x1 - x0 + 1, y1 - y0 + 1)),
                    Region::Sized(w, h) => {
                        let (sx, sy) = if topo.is_torus() {
                            (topo.k, topo.m)
                        } else {
                            (topo.k - w + 1, topo.m - h + 1)
                        };
                        ((rng.gen_range(0..sx), rng.gen_range(0..sy)), (w, h))
                    }
                };
                (0..h)
                    .flat_map(|j| (0..w).map(move |i| (i, j)))
                    .map(|(i, j)| topo.id((x0 + i) % topo.k, (y0 + j) % topo.m))
                    .collect()
            }
        };
        d.retain(|&v| v != u);
        d.sort_unstable();
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologyKind;
    use rand::SeedableRng;

    fn dests(model: MulticastModel, region: Option<Region>) -> MulticastDests {
        MulticastDests {
            model,
            radius: 2,
            region,
        }
    }

    #[test]
    fn shapes_match_hand_computed_cases() {
        let t = Topology {
            kind: TopologyKind::Mesh,
            k: 5,
            m: 4,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let u = t.id(2, 1);
        let row = dests(MulticastModel::Row, None).draw(&t, u, 0, &mut rng);
        assert_eq!(row, vec![t.id(0, 1), t.id(1, 1), t.id(3, 1), t.id(4, 1)]);
        let col = dests(MulticastModel::Column, None).draw(&t, u, 0, &mut rng);
        assert_eq!(col, vec![t.id(2, 0), t.id(2, 2), t.id(2, 3)]);
        let all = dests(MulticastModel::Broadcast, None).draw(&t, u, 0, &mut rng);
        assert_eq!(all.len(), 19);
        let fixed = Region::Fixed((1, 1), (3, 2));
        let r = dests(MulticastModel::Rectangle, Some(fixed)).draw(&t, u, 0, &mut rng);
        assert_eq!(
            r,
            vec![t.id(1, 1), t.id(3, 1), t.id(1, 2), t.id(2, 2), t.id(3, 2)]
        );
    }

    #[test]
    fn local_stays_within_the_radius_and_wraps_on_a_torus() {
        let t = Topology {
            kind: TopologyKind::Torus,
            k: 8,
            m: 8,
        };
        let m = dests(MulticastModel::Local, None);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let u = t.id(0, 0);
        // 12 nodes within 2 hops on a torus; asking for 20 gives all 12.
        let near = m.draw(&t, u, 20, &mut rng);
        assert_eq!(near.len(), 12);
        assert!(near.contains(&t.id(7, 7)) && near.contains(&t.id(6, 0)));
        for _ in 0..200 {
            let d = m.draw(&t, u, 5, &mut rng);
            assert_eq!(d.len(), 5);
            assert!(d.iter().all(|&v| t.distance(u, v) <= 2 && v != u));
        }
    }

    #[test]
    fn sized_rectangles_fit_a_mesh_and_wrap_a_torus() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mesh = Topology {
            kind: TopologyKind::Mesh,
            k: 6,
            m: 6,
        };
        let m = dests(MulticastModel::Rectangle, Some(Region::Sized(3, 2)));
        let mut origins = std::collections::HashSet::new();
        for _ in 0..500 {
            let src = mesh.id(0, 5);
            let mut d = m.draw(&mesh, src, 0, &mut rng);
            assert!(!d.contains(&src));
            // The source, when the rectangle holds it, is left out.
            if d.len() == 5 {
                d.push(src);
            }
            assert_eq!(d.len(), 6);
            let xs: Vec<u32> = d.iter().map(|&v| mesh.coord(v).0).collect();
            let ys: Vec<u32> = d.iter().map(|&v| mesh.coord(v).1).collect();
            let (x0, y0) = (*xs.iter().min().unwrap(), *ys.iter().min().unwrap());
            assert_eq!(*xs.iter().max().unwrap() - x0, 2);
            assert_eq!(*ys.iter().max().unwrap() - y0, 1);
            origins.insert((x0, y0));
        }
        // Every origin that fits (4 x 5) is drawn.
        assert_eq!(origins.len(), 20);
        let torus = Topology {
            kind: TopologyKind::Torus,
            k: 4,
            m: 4,
        };
        let t = dests(MulticastModel::Rectangle, Some(Region::Sized(2, 2)));
        let wrapped = (0..400).any(|_| {
            let d = t.draw(&torus, torus.id(1, 1), 0, &mut rng);
            d.contains(&torus.id(3, 0)) && d.contains(&torus.id(0, 0))
        });
        assert!(
            wrapped,
            "a 2x2 rectangle at x = 3 wraps to x = 0 on a torus"
        );
    }
}
