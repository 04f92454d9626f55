//! Bad input to the \[FTTREE\] algorithms returns an `InputError` naming the
//! field, the value and what is allowed; nothing panics.

use wormcast_sim::ftmesh::experiment::{Keep, SourceChoice, TrialSpec};
use wormcast_sim::ftmesh::{greedy_tree, multicast, FaultyMesh, Strategy};
use wormcast_sim::topology::Topology;

#[test]
fn bad_meshes_and_faults() {
    let e = FaultyMesh::new(Topology::torus(8, 8).unwrap(), &[]).unwrap_err();
    assert_eq!(e.field, "topology");
    assert!(e.allowed.contains("mesh"), "{e}");
    let e = FaultyMesh::new(Topology::mesh(8, 8).unwrap(), &[(8, 0)]).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("fault", "8,0"));
}

#[test]
fn bad_sources_and_destinations() {
    let mesh = FaultyMesh::new(Topology::mesh(8, 8).unwrap(), &[(3, 3), (4, 4)]).unwrap();
    let e = multicast(&mesh, (3, 3), &[(5, 5)], Strategy::Greedy, 1).unwrap_err();
    assert_eq!(e.field, "source");
    assert!(e.allowed.contains("faulty"), "{e}");
    let e = multicast(&mesh, (0, 0), &[(3, 4)], Strategy::Greedy, 1).unwrap_err();
    assert_eq!((e.field.as_str(), e.value.as_str()), ("destination", "3,4"));
    assert!(e.allowed.contains("disabled"), "{e}");
    let e = multicast(&mesh, (0, 0), &[(1, 1), (1, 1)], Strategy::Offset, 1).unwrap_err();
    assert!(e.allowed.contains("once"), "{e}");
    let e = multicast(&mesh, (0, 0), &[(0, 0)], Strategy::Random, 1).unwrap_err();
    assert!(e.allowed.contains("other than the source"), "{e}");
    let e = multicast(&mesh, (0, 0), &[(0, 9)], Strategy::Random, 1).unwrap_err();
    assert_eq!(e.value, "0,9");
    let e = greedy_tree(&mesh, (2, 2), &[(1, 5)]).unwrap_err();
    assert!(e.allowed.contains("+X+Y quadrant"), "{e}");
    let e = Strategy::from_number("0").unwrap_err();
    assert_eq!(e.field, "strategy");
}

#[test]
fn bad_trials() {
    let topo = Topology::mesh(6, 6).unwrap();
    let spec = TrialSpec {
        topo,
        faults: 35,
        dests: 3,
        source: SourceChoice::Random,
        keep: Keep::Minimal,
        seed: 1,
    };
    assert_eq!(spec.run(0).unwrap_err().field, "faults");
    let spec = TrialSpec {
        faults: 2,
        source: SourceChoice::Fixed((6, 0)),
        ..spec
    };
    assert_eq!(spec.run(0).unwrap_err().field, "source");
    // Unreachable destinations are reported, not an error.
    let mesh = FaultyMesh::new(topo, &[(2, 0), (2, 1), (2, 2)]).unwrap();
    let m = multicast(&mesh, (0, 0), &[(4, 4), (4, 0)], Strategy::Greedy, 1).unwrap();
    assert_eq!(
        m.unreachable,
        vec![(4, 0)],
        "the only minimal path runs through the block"
    );
    assert_eq!(
        (m.routed.clone(), m.traffic, m.unicast_traffic),
        (vec![(4, 4)], 8, 8)
    );
    // Corner cut off: both its neighbours faulty disables it.
    let mesh = FaultyMesh::new(topo, &[(1, 0), (0, 1)]).unwrap();
    assert!(mesh.is_disabled((0, 0)) && mesh.is_disabled((1, 1)));
}
