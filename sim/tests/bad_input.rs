//! Bad input to the library returns an `InputError` naming the field, the
//! value and what is allowed; nothing panics.

use wormcast_sim::dstm::encode;
use wormcast_sim::flit::Head;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::{construct, Construction, Method, Named, RootChoice};
use wormcast_sim::walker::{walk, Malformed};

#[test]
fn topology_errors_name_field_value_and_rule() {
    let e = Topology::parse("torus:1x8").unwrap_err();
    assert_eq!(e.field, "topology");
    assert_eq!(e.value, "torus:1x8");
    assert!(e.allowed.contains("columns (K) is `1`"), "{e}");
    assert!(e.allowed.contains("from 2"), "{e}");
    let e = Topology::parse("torus:8x0").unwrap_err();
    assert!(e.allowed.starts_with("rows (M) is `0`"), "{e}");
    // `Topology::new` names the side as its field.
    let e = Topology::torus(8, 0).unwrap_err();
    assert!(e.field.contains("rows"), "{e}");
    let e = Topology::parse("hypercube:8x8").unwrap_err();
    assert_eq!(e.field, "topology");
    assert!(e.allowed.contains("torus:KxM"));
}

#[test]
fn mesh_has_no_two_disjoint_trees() {
    let t = Topology::mesh(8, 8).unwrap();
    let e = construct(&t, &Named::Dstm1.construction(&t, 0, None)).unwrap_err();
    assert_eq!(e.field, "topology");
    assert!(e.allowed.contains("torus"));
}

#[test]
fn bad_roots_and_constructions() {
    let t = Topology::torus(4, 4).unwrap();
    let c = Construction {
        method: Method::all()[0],
        r1: 16,
        r2: 0,
        roots: RootChoice::Start,
    };
    assert_eq!(construct(&t, &c).unwrap_err().field, "R1");
    let e = Named::parse("dstm3").unwrap_err();
    assert_eq!(e.field, "construction");
    assert!(e.allowed.contains("dstm1"));
    let e = t.parse_node("4,0", "source").unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("source", "4,0"));
    assert!(t.parse_node("a,b", "dest").is_err());
    assert!(t.parse_node("-1,0", "dest").is_err());
}

#[test]
fn encoder_and_walker_reject_bad_worms() {
    let t = Topology::torus(5, 5).unwrap();
    let p = construct(&t, &Named::Dstm2.construction(&t, 3, None)).unwrap();
    let tr = &p.trees[0];
    assert_eq!(encode(tr, 0, &[0, 3], 0).unwrap_err().field, "destination");
    assert_eq!(encode(tr, 0, &[], 0).unwrap_err().field, "destinations");
    assert_eq!(encode(tr, 25, &[1], 0).unwrap_err().field, "source");
    let bad = Head {
        node: 99,
        c: true,
        ..Head::default()
    };
    let e = walk(tr, 0, &[bad]).unwrap_err();
    assert_eq!(e.kind, Malformed::NodeOutOfRange);
    assert!(e.to_string().contains("out of range"), "{e}");
}
