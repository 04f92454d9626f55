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
