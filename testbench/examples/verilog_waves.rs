//! Runs a scenario on the native model and replays it on the generated
//! Verilog of its whole fabric under iverilog, checking every cycle, and
//! dumps both waveforms: `OUT/verilog.vcd` (iverilog, Verilog names) and
//! `OUT/native.vcd` (`sim/src/waves.rs`). Used for the GTKWave picture of
//! the Verilog (scripts/gtkwave_verilog_shot.sh).
//!
//!   cargo run --release -p wormcast-testbench --example verilog_waves -- \
//!       SCENARIO.toml CYCLES OUT_DIR

use std::path::PathBuf;
use wormcast_testbench::vectors::{
    build, fabric_vectors, run, write_fabric_dut, FabricDut, Simulator,
};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 4 {
        eprintln!("usage: verilog_waves SCENARIO.toml CYCLES OUT_DIR");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&a[1]).expect("scenario file");
    let sc = wormcast_sim::scenario::Scenario::from_toml(&text, &[], &a[1])
        .unwrap_or_else(|e| panic!("{e}"));
    let cycles: usize = a[2].parse().expect("CYCLES");
    let dir = PathBuf::from(&a[3]);
    std::fs::create_dir_all(&dir).unwrap();
    let FabricDut {
        module: g,
        file: dut,
        topo,
        ..
    } = write_fabric_dut(&sc, &dir);
    let all: Vec<u32> = (0..topo.nodes()).collect();
    type Writer = wormcast_sim::waves::VcdWriter<std::io::BufWriter<std::fs::File>>;
    let mut w: Option<Writer> = None;
    let native = dir.join("native.vcd");
    let (vs, st) = fabric_vectors(&g.top, &sc, cycles, true, &mut |net| {
        w.get_or_insert_with(|| {
            let f = std::io::BufWriter::new(std::fs::File::create(&native).unwrap());
            wormcast_sim::waves::VcdWriter::new(
                &net.fabric,
                &all,
                wormcast_sim::waves::Window::ALL,
                f,
            )
            .unwrap()
        })
        .sample(&net.fabric)
        .unwrap();
    });
    w.take().unwrap().finish().unwrap();
    let (vin, vexp) = vs.write_hex(&dir, "vectors").unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, vs.testbench(cycles)).unwrap();
    let b = build(Simulator::Icarus, &dir, &tb, &dut);
    let vcd = dir.join("verilog.vcd");
    let r = run(&b, &vin, &vexp, cycles, Some(&vcd));
    print!("{}", r.stdout);
    if !r.ok {
        eprintln!("the Verilog differs from the native model");
        std::process::exit(1);
    }
    eprintln!(
        "{} messages, {} deliveries; wrote {} and {}",
        st.messages,
        st.delivered,
        vcd.display(),
        native.display()
    );
}
