//! The hand-written Verilog of the reservation arbiter and the error
//! popcount (`rtl/src/arbiter.rs`, `rtl/src/popcount.rs`) against the native
//! `router::arbiter::arbitrate_masking` and `count_ones`, under iverilog, on
//! seeded random vectors. The router-level vector tests reach these blocks
//! only with the requests real traffic makes; this drives every input
//! pattern class directly, including the deliberately broken arbiter (which
//! must differ). An input without a request shows the arbiter random bits
//! on its `req` (`rq` says who requests), which it must ignore. Skipped, with a note, where iverilog is missing (CI
//! installs it).

mod common;

use std::fmt::Write;
use wormcast_rtl::arbiter::ArbiterNet;
use wormcast_rtl::hw::PRIO_W;
use wormcast_sim::router::arbiter::arbitrate_masking;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Runs `net`'s Verilog on `vecs` (requests, 0 = none; owned; prio), an
/// input without a request driven with seeded junk on `req` and 0 on `rq`;
/// returns (grant bits, next prio) per vector.
fn simulate(name: &str, net: &ArbiterNet, vecs: &[(Vec<u64>, u64, u64)]) -> Vec<(u64, u64)> {
    let n = net.n;
    let dir = common::scratch(&format!("arb_{name}"));
    let mut v = String::new();
    let ports: Vec<String> = (0..n)
        .map(|i| format!("req${i}"))
        .chain((0..n).map(|i| format!("rq${i}")))
        .chain(["owned".into(), "prio".into()])
        .chain((0..n).map(|i| format!("grant${i}")))
        .chain(["prio_next".into()])
        .collect();
    writeln!(v, "module arb({});", ports.join(", ")).unwrap();
    for i in 0..n {
        writeln!(v, "  input wire [7:0] req${i};").unwrap();
        writeln!(v, "  input wire rq${i};").unwrap();
        writeln!(v, "  output reg grant${i};").unwrap();
    }
    writeln!(v, "  input wire [7:0] owned;").unwrap();
    writeln!(v, "  input wire [{}:0] prio;", PRIO_W - 1).unwrap();
    writeln!(v, "  output reg [{}:0] prio_next;", PRIO_W - 1).unwrap();
    v.push_str(&net.verilog());
    writeln!(v, "endmodule").unwrap();
    writeln!(v, "module tb;").unwrap();
    writeln!(
        v,
        "  reg [7:0] r[0:{}]; reg [7:0] ow; reg [{}:0] p; reg [{}:0] q;",
        n - 1,
        PRIO_W - 1,
        n - 1
    )
    .unwrap();
    writeln!(v, "  wire [{}:0] g; wire [{}:0] pn;", n - 1, PRIO_W - 1).unwrap();
    let conn: Vec<String> = (0..n)
        .map(|i| format!(".req${i}(r[{i}]), .rq${i}(q[{i}]), .grant${i}(g[{i}])"))
        .collect();
    writeln!(
        v,
        "  arb u({}, .owned(ow), .prio(p), .prio_next(pn));",
        conn.join(", ")
    )
    .unwrap();
    writeln!(v, "  integer fi, fo, k, c;").unwrap();
    writeln!(v, "  initial begin").unwrap();
    writeln!(
        v,
        "    fi = $fopen(\"{}\", \"r\");",
        dir.join("in.txt").display()
    )
    .unwrap();
    writeln!(
        v,
        "    fo = $fopen(\"{}\", \"w\");",
        dir.join("out.txt").display()
    )
    .unwrap();
    writeln!(v, "    while (!$feof(fi)) begin").unwrap();
    let fmt: String = (0..n + 3).map(|_| "%h ").collect();
    let args: Vec<String> = (0..n)
        .map(|i| format!("r[{i}]"))
        .chain(["ow".into(), "p".into(), "q".into()])
        .collect();
    writeln!(
        v,
        "      c = $fscanf(fi, \"{}\\n\", {});",
        fmt.trim_end(),
        args.join(", ")
    )
    .unwrap();
    writeln!(
        v,
        "      if (c == {}) begin #1 $fdisplay(fo, \"%h %h\", g, pn); end",
        n + 3
    )
    .unwrap();
    writeln!(v, "    end").unwrap();
    writeln!(v, "    $fclose(fo); $finish;").unwrap();
    writeln!(v, "  end").unwrap();
    writeln!(v, "endmodule").unwrap();
    let mut input = String::new();
    let mut junk = Rng(0x5EED ^ n as u64);
    for (req, owned, prio) in vecs {
        let mut rq = 0u64;
        for (i, &r) in req.iter().enumerate() {
            let shown = if r == 0 { junk.next() & 0xFF } else { r };
            rq |= ((r != 0) as u64) << i;
            write!(input, "{shown:x} ").unwrap();
        }
        writeln!(input, "{owned:x} {prio:x} {rq:x}").unwrap();
    }
    std::fs::write(dir.join("in.txt"), input).unwrap();
    let text = common::run_tb(&dir, &v);
    text.lines()
        .map(|l| {
            let mut it = l
                .split_whitespace()
                .map(|x| u64::from_str_radix(x, 16).unwrap());
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect()
}

fn vectors(n: usize, count: usize, seed: u64) -> Vec<(Vec<u64>, u64, u64)> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let req = (0..n)
                .map(|_| {
                    let r = rng.next();
                    if r & 3 == 0 {
                        0
                    } else {
                        (r >> 8) & 0x3F
                    }
                })
                .collect();
            let owned = rng.next() & rng.next() & 0x3F;
            let prio = rng.next() % n as u64;
            (req, owned, prio)
        })
        .collect()
}

#[test]
fn arbiter_verilog_equals_native_arbiter() {
    if !common::have("iverilog") {
        return;
    }
    for n in [3usize, 5] {
        for masking in [false, true] {
            let net = ArbiterNet {
                n,
                masking,
                broken: false,
            };
            let vecs = vectors(n, 4000, 0x1234_5678 + n as u64);
            let got = simulate(&format!("n{n}_m{masking}"), &net, &vecs);
            assert_eq!(got.len(), vecs.len(), "every vector simulated");
            for ((req, owned, prio), (g, p)) in vecs.iter().zip(&got) {
                let r8: Vec<u8> = req.iter().map(|&r| r as u8).collect();
                let nat = arbitrate_masking(
                    &r8,
                    *owned as u8,
                    *prio as u8,
                    if masking { 0xFF } else { 0 },
                );
                assert_eq!(
                    (*g, *p),
                    (nat.granted as u64, nat.prio as u64),
                    "n {n} masking {masking} req {req:?} owned {owned:#x} prio {prio}"
                );
            }
        }
    }
}

#[test]
fn broken_arbiter_verilog_differs() {
    if !common::have("iverilog") {
        return;
    }
    let net = ArbiterNet {
        n: 5,
        masking: true,
        broken: true,
    };
    let vecs = vectors(5, 2000, 99);
    let got = simulate("broken", &net, &vecs);
    let differ = vecs
        .iter()
        .zip(&got)
        .filter(|((req, owned, prio), (g, p))| {
            let r8: Vec<u8> = req.iter().map(|&r| r as u8).collect();
            let nat = arbitrate_masking(&r8, *owned as u8, *prio as u8, 0xFF);
            (*g, *p) != (nat.granted as u64, nat.prio as u64)
        })
        .count();
    assert!(
        differ > 100,
        "the broken arbiter differs on {differ} of 2000 vectors"
    );
}
