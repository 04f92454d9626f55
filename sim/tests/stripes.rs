//! One run on several threads (`run.threads`, `fabric::stripes`) gives the
//! serial kernel's bits: the report, the delivery records and the VCD of
//! every router, for 1, 2 and 4 threads, on tori and meshes, every scheme
//! family, faults, malformed raw worms and a saturated network. Every
//! cycle takes the threaded path here (`set_min_parallel(0)`), so small
//! networks exercise it as a 128×128 would.

use wormcast_sim::network::{records::records, Network};
use wormcast_sim::scenario::Scenario;
use wormcast_sim::waves::{parse_window, VcdWriter};

fn scenario(file: Option<&str>, sets: &[&str]) -> Scenario {
    let (text, origin) = match file {
        Some(f) => {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(f);
            (std::fs::read_to_string(&path).unwrap(), f.to_string())
        }
        None => (String::new(), "built-in default scenario".to_string()),
    };
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml(&text, &sets, &origin).unwrap()
}

/// Everything a run produces that a user can see, minus wall-clock figures.
fn outputs(sc: &Scenario, threads: usize) -> (String, String, Vec<u8>, u64) {
    outputs_timed(sc, threads, false).0
}

type Outputs = (String, String, Vec<u8>, u64);

/// The outputs, and (with `self_timed`) how many cycles ran on the
/// threads and serially.
fn outputs_timed(sc: &Scenario, threads: usize, self_timed: bool) -> (Outputs, (u64, u64)) {
    let mut sc = sc.clone();
    sc.run.threads = threads;
    let mut net = Network::new(&sc).unwrap();
    assert_eq!(net.fabric.threads(), threads);
    net.fabric.set_min_parallel(0);
    net.fabric.set_self_timed(self_timed);
    let all: Vec<u32> = (0..net.v.topo.nodes()).collect();
    let mut vcd = Vec::new();
    let mut w = VcdWriter::new(&net.fabric, &all, parse_window(None).unwrap(), &mut vcd).unwrap();
    w.sample(&net.fabric).unwrap();
    let report = net.run(&mut |n| {
        w.sample(&n.fabric).unwrap();
        true
    });
    w.finish().unwrap();
    let mut json = serde_json::to_value(&report).unwrap();
    let obj = json.as_object_mut().unwrap();
    obj.remove("wall_seconds");
    obj.remove("router_cycles_per_second");
    let recs = serde_json::to_string(&records(&net)).unwrap();
    let split = net
        .fabric
        .threaded_cycles()
        .map_or((0, 0), |(e, t)| (t, e - t));
    (
        (json.to_string(), recs, vcd, net.fabric.router_steps),
        split,
    )
}

fn assert_same_for_every_thread_count(name: &str, sc: &Scenario) {
    let serial = outputs(sc, 1);
    assert!(
        serial.1.len() > 2,
        "{name}: the run delivered nothing, so equality proves little"
    );
    for t in [2, 4] {
        let par = outputs(sc, t);
        assert_eq!(par.0, serial.0, "{name}: report differs on {t} threads");
        assert_eq!(
            par.1, serial.1,
            "{name}: delivery records differ on {t} threads"
        );
        assert!(par.2 == serial.2, "{name}: VCD differs on {t} threads");
        assert_eq!(
            par.3, serial.3,
            "{name}: router steps differ on {t} threads"
        );
    }
}

const SHORT: [&str; 3] = ["run.warmup=100", "run.cycles=1500", "run.drain_cycles=3000"];

fn case(name: &str, file: Option<&str>, extra: &[&str]) {
    let mut sets: Vec<&str> = SHORT.to_vec();
    sets.extend_from_slice(extra);
    assert_same_for_every_thread_count(name, &scenario(file, &sets));
}

#[test]
fn dstm1_torus_default_mix() {
    case("dstm1", None, &["traffic.rate=0.01"]);
}

#[test]
fn dstm2_torus_multicast() {
    case(
        "dstm2",
        Some("examples/dstm2-16x16-multicast.toml"),
        &["network.topology=torus:8x8"],
    );
}

#[test]
fn spam_up_down() {
    case("spam", Some("examples/spam-8x8-mixed.toml"), &[]);
}

#[test]
fn mesh_dual_path_and_brcp() {
    case("dual-path", Some("examples/mesh-8x8-dual-path.toml"), &[]);
    case(
        "brcp",
        Some("examples/mesh-16x16-brcp.toml"),
        &["network.topology=mesh:8x8"],
    );
}

#[test]
fn faulty_link_divert_and_local_information() {
    case("fault-local", Some("examples/fault-local-8x8.toml"), &[]);
    case(
        "fault-divert",
        Some("examples/fault-divert-split.toml"),
        &[],
    );
}

#[test]
fn faulty_mesh_trees() {
    case("ft-mesh", Some("examples/mesh-faulty-ft3.toml"), &[]);
}

#[test]
fn malformed_raw_worms_run_serially_and_equal() {
    // Raw link drivers keep phase 1 serial; phase 2 still runs threaded.
    case("raw", Some("examples/malformed-bad-class.toml"), &[]);
}

#[test]
fn saturated_torus_with_deep_buffers() {
    case(
        "saturated",
        None,
        &[
            "traffic.rate=0.05",
            "network.buffer_depth=4",
            "run.drain_cycles=0",
        ],
    );
}

#[test]
fn closed_loop_replies_keep_their_message_numbers() {
    // Replies are created as deliveries are seen, so a delivery order that
    // followed thread timing would renumber messages.
    case(
        "closed-loop",
        None,
        &[
            "traffic.rate=0.02",
            "traffic.window=2",
            "traffic.reply_length=2",
        ],
    );
}

#[test]
fn self_timed_runs_switch_modes_mid_run_and_keep_the_bits() {
    // With the self-timing on, each epoch runs a probe serially and one on
    // the threads before it chooses, so a run of a few thousand cycles
    // crosses between the kernels many times; every crossing must keep the
    // serial bits.
    let sc = scenario(
        None,
        &[
            "traffic.rate=0.02",
            "run.warmup=100",
            "run.cycles=2500",
            "run.drain_cycles=500",
        ],
    );
    let serial = outputs(&sc, 1);
    let (par, (threaded, serially)) = outputs_timed(&sc, 2, true);
    assert!(
        threaded >= 2 * 32 && serially >= 2 * 32,
        "the run did not cross between the kernels: {threaded} threaded, {serially} serial cycles"
    );
    assert_eq!(par.0, serial.0, "report differs");
    assert_eq!(par.1, serial.1, "delivery records differ");
    assert!(par.2 == serial.2, "VCD differs");
    assert_eq!(par.3, serial.3, "router steps differ");
}

#[test]
fn thread_count_out_of_range_is_refused_by_name() {
    let sc = Scenario::from_toml("[run]\nthreads = 100000\n", &[], "t.toml").unwrap();
    let Err(e) = sc.validate() else {
        panic!("run.threads = 100000 accepted")
    };
    let msg = e.to_string();
    assert!(
        msg.contains("run.threads") && msg.contains("100000"),
        "{msg}"
    );
}
