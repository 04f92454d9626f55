//! The GTKWave flit decoder (`scripts/gtkwave/flit_filter.py`, a process
//! filter the shipped save files use) must read flits exactly as the flit
//! format of `sim/src/flit.rs` writes them, so the names GTKWave shows are
//! true. Needs python3 (a Debian base package).

use std::io::Write;
use std::process::{Command, Stdio};
use wormcast_sim::flit::{FlitFormat, Head};

fn filter(lines: &[String]) -> Vec<String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/gtkwave/flit_filter.py"
    );
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the filter");
    let mut input = child.stdin.take().unwrap();
    for l in lines {
        writeln!(input, "{l}").unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_filter_decodes_what_the_flit_format_encodes() {
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for width in [16u32, 32, 64] {
        let fmt = FlitFormat::new(width).unwrap();
        let digits = width as usize / 4;
        for (node, c, o, s, class) in [
            (9u32, true, 0b0101u8, true, 1u8),
            (0, false, 0b1010, false, 0),
            (37, true, 0, false, 3),
        ] {
            let f = fmt.head(Head {
                node,
                c,
                o,
                s,
                class,
            });
            inputs.push(format!("{f:0digits$x}"));
            let ports: Vec<&str> = ["+x", "-x", "+y", "-y"]
                .iter()
                .enumerate()
                .filter(|(i, _)| o >> i & 1 == 1)
                .map(|(_, p)| *p)
                .collect();
            let mut e = format!("HEAD n={node}");
            if c {
                e.push_str(" C");
            }
            if !ports.is_empty() {
                e.push_str(&format!(" O={}", ports.join(",")));
            }
            if s {
                e.push_str(" S");
            }
            e.push_str(&format!(" c{class}"));
            expected.push(e);
        }
        inputs.push(format!("{:0digits$x}", fmt.body(0x1e)));
        expected.push("BODY 0x1e".into());
        inputs.push(format!("{:0digits$x}", fmt.tail(5)));
        expected.push("TAIL 0x5".into());
    }
    inputs.push("xxxxxxxx".into());
    expected.push("xxxxxxxx".into());
    assert_eq!(filter(&inputs), expected);
}

/// GTKWave's horizontal scale: `200 · 2^zoom` pixels per nanosecond (the
/// save file's `*zoom marker` line), measured on GTKWave 3.3 screenshots.
fn px_per_ns(zoom: f64) -> f64 {
    200.0 * 2f64.powf(zoom)
}
/// Width of one character of GTKWave's trace and signal fonts (about 6.1
/// pixels measured; rounded up so the check errs on the safe side).
const CHAR_PX: f64 = 6.5;

/// Every shipped save file, at its shipped zoom, shows each HEAD that
/// the scenario it documents sends (decoded by the filter, e.g.
/// `HEAD n=2 C S c0`) and every input state name in full within one
/// cycle, and its signal column holds each alias with a state-name value.
/// One cycle is 10 ns in both the native VCD (its timescale) and the
/// Verilog testbench's clock.
#[test]
fn shipped_views_show_heads_and_states_in_full() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let views = [
        ("gtkwave_multicast.gtkw", "multicast-split.toml", 60),
        ("gtkwave_divert.gtkw", "fault-divert-split.toml", 120),
        ("gtkwave_mesh_path.gtkw", "mesh-path-worm.toml", 80),
        (
            "gtkwave_verilog_multicast.gtkw",
            "multicast-split-blocked.toml",
            80,
        ),
    ];
    // The native VCD's time unit: one cycle.
    let mut vcd = Vec::new();
    {
        let text =
            std::fs::read_to_string(format!("{root}/examples/multicast-split.toml")).unwrap();
        let sc = wormcast_sim::scenario::Scenario::from_toml(&text, &[], "t").unwrap();
        let net = wormcast_sim::network::Network::new(&sc).unwrap();
        let w = wormcast_sim::waves::VcdWriter::new(
            &net.fabric,
            &[0],
            wormcast_sim::waves::Window::ALL,
            &mut vcd,
        )
        .unwrap();
        w.finish().unwrap();
    }
    let header = String::from_utf8(vcd).unwrap();
    assert!(
        header.contains("$timescale 10 ns $end"),
        "one cycle = 10 ns: {header}"
    );
    let ns_per_cycle = 10.0;
    for (view, scenario, cycles) in views {
        let gtkw = std::fs::read_to_string(format!("{root}/scripts/{view}")).unwrap();
        let zoom: f64 = gtkw
            .lines()
            .find_map(|l| l.strip_prefix('*'))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|z| z.parse().ok())
            .unwrap_or_else(|| panic!("{view}: no zoom line"));
        let cycle_px = px_per_ns(zoom) * ns_per_cycle;
        // Every HEAD the flit traces of the view show while the scenario
        // runs; a trace is named `r_X_Y out_P_flit` in every save file.
        let text = std::fs::read_to_string(format!("{root}/examples/{scenario}")).unwrap();
        let sc = wormcast_sim::scenario::Scenario::from_toml(&text, &[], scenario).unwrap();
        let mut net = wormcast_sim::network::Network::new(&sc).unwrap();
        let topo = net.fabric.topo;
        let outputs = net.fabric.params.outputs();
        let shown: Vec<(usize, usize)> = gtkw
            .lines()
            .filter_map(|l| l.strip_prefix("+{r_"))
            .filter_map(|l| l.split_once('}'))
            .filter_map(|(a, _)| {
                let (xy, port) = a.split_once(' ')?;
                let port = port.strip_suffix("_flit")?;
                let (x, y) = xy.split_once('_')?;
                let at: (u32, u32) = (x.parse().ok()?, y.parse().ok()?);
                let node = (0..topo.nodes()).find(|&n| topo.coord(n) == at)?;
                let o = (0..outputs).find(|&o| wormcast_sim::ports::output_name(o) == port)?;
                Some((node as usize, o))
            })
            .collect();
        assert!(!shown.is_empty(), "{view}: shows a flit trace");
        let digits = net.fabric.params.flit.width as usize / 4;
        let mut heads = std::collections::BTreeSet::new();
        while net.cycle() < cycles {
            net.step();
            for &(r, o) in &shown {
                let o = &net.fabric.state[r].out[o];
                if o.valid && wormcast_sim::flit::kind(o.flit) == wormcast_sim::flit::Kind::Head {
                    heads.insert(format!("{:0digits$x}", o.flit));
                }
            }
        }
        assert!(!heads.is_empty(), "{scenario} sends HEADs");
        let decoded = filter(&heads.into_iter().collect::<Vec<_>>());
        let longest = decoded.iter().map(String::len).max().unwrap();
        let need = CHAR_PX * longest as f64 + 8.0;
        assert!(
            cycle_px >= need,
            "{view}: zoom {zoom} gives {cycle_px:.0} px per cycle, a HEAD needs {need:.0} ({:?})",
            decoded.iter().max_by_key(|s| s.len())
        );
        let states =
            std::fs::read_to_string(format!("{root}/scripts/gtkwave/in_state.txt")).unwrap();
        let state_len = states
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(' '))
            .map(|(_, n)| n.len())
            .max()
            .unwrap();
        assert!(
            cycle_px >= CHAR_PX * state_len as f64 + 8.0,
            "{view}: state names"
        );
        // The signal column: the longest alias, `=`, a state name, and the
        // column's left margin.
        let width: f64 = gtkw
            .lines()
            .find_map(|l| l.strip_prefix("[signals_width] "))
            .and_then(|w| w.trim().parse().ok())
            .unwrap_or_else(|| panic!("{view}: no [signals_width]"));
        let alias = gtkw
            .lines()
            .filter_map(|l| l.strip_prefix("+{"))
            .filter_map(|l| l.split_once('}'))
            .map(|(a, _)| a.len())
            .max()
            .unwrap();
        let need = CHAR_PX * (alias + 1 + state_len) as f64 + 40.0;
        assert!(width >= need, "{view}: [signals_width] {width} < {need:.0}");
    }
}
