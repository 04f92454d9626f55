//! Bad input to the mesh-tree algorithms returns an `InputError` naming the
//! field, the value and what is allowed.

use wormcast_sim::meshtree::{build, Algorithm, Grid, Point};

#[test]
fn bad_grids() {
    let e = Grid::new(&[8], false).unwrap_err();
    assert_eq!(e.field, "grid dimensions");
    assert_eq!(e.value, "1");
    let e = Grid::new(&[4, 4, 4, 4], true).unwrap_err();
    assert_eq!(e.value, "4");
    let e = Grid::mesh2(1, 8).unwrap_err();
    assert_eq!(e.field, "grid side K (x)");
    assert!(e.allowed.contains("from 2"), "{e}");
    let e = Grid::torus3(4, 4, 300).unwrap_err();
    assert_eq!(e.field, "grid side P (z)");
}

#[test]
fn bad_nodes() {
    let g = Grid::mesh2(8, 8).unwrap();
    let e = build(Algorithm::Diag, &g, Point::xy(8, 0), &[]).unwrap_err();
    assert_eq!(e.field, "source");
    assert_eq!(e.value, "(8,0)");
    assert!(e.allowed.contains("0..8"), "{e}");
    let e = build(Algorithm::Dds, &g, Point::xy(0, 0), &[Point::xyz(1, 1, 1)]).unwrap_err();
    assert_eq!(e.field, "destination");
    assert!(e.allowed.contains("unused axes 0"), "{e}");
    let e = build(Algorithm::Vh, &g, Point::xy(0, 0), &[Point::xy(0, 0)]).unwrap_err();
    assert_eq!(e.field, "destination");
    assert!(e.allowed.contains("other than the source"));
    let d = [Point::xy(1, 1), Point::xy(1, 1)];
    let e = build(Algorithm::Min, &g, Point::xy(0, 0), &d).unwrap_err();
    assert_eq!(e.value, "(1,1)");
}

#[test]
fn bad_algorithm_name() {
    let e = "lin".parse::<Algorithm>().unwrap_err();
    assert_eq!(e.field, "algorithm");
    assert!(e.allowed.contains("diag"));
    assert_eq!("DDS".parse::<Algorithm>().unwrap(), Algorithm::Dds);
}

#[test]
fn empty_destination_set_is_the_source_alone() {
    let g = Grid::torus2(4, 4).unwrap();
    let t = build(Algorithm::Diag, &g, Point::xy(2, 3), &[]).unwrap();
    assert_eq!((t.traffic(), t.time()), (0, 0));
    assert_eq!(t.nodes(), &[Point::xy(2, 3)]);
}
