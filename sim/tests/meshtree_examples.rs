//! The worked examples of \[THESIS\] §3.2 reproduced exactly (Examples
//! 3.2.1.1/3.2.1.2 and their DDS/VH/torus variants; docs/references.md §C).

use wormcast_sim::meshtree::{build, Algorithm, Grid, MulticastTree, Point};

fn d2() -> Vec<Point> {
    [(0, 2), (3, 0), (4, 0), (4, 6), (6, 6), (7, 4)]
        .iter()
        .map(|&(x, y)| Point::xy(x, y))
        .collect()
}

fn run(alg: Algorithm, grid: Grid, d: &[Point]) -> MulticastTree {
    let s = Point::default();
    build(alg, &grid, s, d).unwrap()
}

fn check(alg: Algorithm, grid: Grid, d: &[Point], traffic: usize, time: u32) {
    let t = run(alg, grid, d);
    assert_eq!(
        (t.traffic(), t.time()),
        (traffic, time),
        "{alg} on {grid:?}: edges {:?}",
        t.edges()
    );
}

#[test]
fn mesh_8x8() {
    let g = Grid::mesh2(8, 8).unwrap();
    check(Algorithm::Diag, g, &d2(), 21, 12);
    check(Algorithm::Vh, g, &d2(), 25, 13);
    check(Algorithm::Dds, g, &d2(), 17, 13);
}

#[test]
fn torus_8x8() {
    let g = Grid::torus2(8, 8).unwrap();
    check(Algorithm::Diag, g, &d2(), 17, 6);
    check(Algorithm::Vh, g, &d2(), 18, 6);
    check(Algorithm::Dds, g, &d2(), 16, 6);
}

#[test]
fn mesh_8x8_tree_shapes_match_the_text() {
    let g = Grid::mesh2(8, 8).unwrap();
    let p = Point::xy;
    // DIAG: d4 (4,6) hangs off (4,4), d5 (7,4) off (5,4), (7,6) is cut.
    let t = run(Algorithm::Diag, g, &d2());
    assert_eq!(t.parent(p(4, 5)), Some(p(4, 4)));
    assert_eq!(t.parent(p(6, 4)), Some(p(5, 4)));
    assert_eq!(t.parent(p(2, 0)), Some(p(1, 0)));
    assert!(!t.contains(p(7, 6)));
    // DDS: (4,6) from (4,0), (7,4) from (4,4), (6,6) from (6,4).
    let t = run(Algorithm::Dds, g, &d2());
    assert_eq!(t.parent(p(4, 1)), Some(p(4, 0)));
    assert_eq!(t.parent(p(5, 4)), Some(p(4, 4)));
    assert_eq!(t.parent(p(6, 5)), Some(p(6, 4)));
}

#[test]
fn torus_8x8_wraps() {
    let g = Grid::torus2(8, 8).unwrap();
    let p = Point::xy;
    for alg in [Algorithm::Diag, Algorithm::Vh, Algorithm::Dds] {
        let t = run(alg, g, &d2());
        assert_eq!(t.parent(p(7, 0)), Some(p(0, 0)), "{alg}");
        assert_eq!(t.parent(p(7, 7)), Some(p(7, 0)), "{alg}");
        assert!(!t.contains(p(0, 7)), "{alg}: zone 3 has no destination");
        assert_eq!(t.children(p(0, 0))[0], p(7, 0), "{alg}: wraps first");
    }
}

fn d3() -> Vec<Point> {
    [
        (0, 3, 0),
        (1, 3, 0),
        (1, 4, 2),
        (2, 3, 0),
        (3, 1, 0),
        (4, 3, 3),
    ]
    .iter()
    .map(|&(x, y, z)| Point::xyz(x, y, z))
    .collect()
}

/// Example 3.2.1.2 and its DDS/torus variants (5×5×5): DIAG mesh 20/10,
/// DDS mesh 16/11, DIAG torus 14/6, DDS torus 14/6.
#[test]
fn mesh_and_torus_5x5x5() {
    let m = Grid::mesh3(5, 5, 5).unwrap();
    check(Algorithm::Diag, m, &d3(), 20, 10);
    check(Algorithm::Dds, m, &d3(), 16, 11);
    let t = Grid::torus3(5, 5, 5).unwrap();
    check(Algorithm::Diag, t, &d3(), 14, 6);
    check(Algorithm::Dds, t, &d3(), 14, 6);
    // The wraps of the text: (0,0,0)⇒(4,0,0)⇒(4,0,4)⇒(4,4,4), (0,0,0)⇒(0,4,0).
    let tr = run(Algorithm::Diag, t, &d3());
    let p = Point::xyz;
    assert_eq!(tr.parent(p(4, 0, 0)), Some(p(0, 0, 0)));
    assert_eq!(tr.parent(p(4, 0, 4)), Some(p(4, 0, 0)));
    assert_eq!(tr.parent(p(4, 4, 4)), Some(p(4, 0, 4)));
    assert_eq!(tr.parent(p(0, 4, 0)), Some(p(0, 0, 0)));
    assert!(!tr.contains(p(0, 0, 4)));
}
