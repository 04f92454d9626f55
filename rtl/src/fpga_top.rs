//! The self-checking FPGA top (`wormcast verilog --fpga-top`):
//! the fabric, a traffic generator per node and a checker per consumption
//! channel, the counters, a watchdog, `pass` and a heartbeat; and a board
//! wrapper for the iCE40-HX8K breakout (12 MHz clock, eight LEDs).
//!
//! The blocks' behaviour is defined once, by the native model
//! (`wormcast_sim::onchip`: LFSR, tag, payload sequence, register updates);
//! the Verilog here is written from the same constants and the same
//! [`Plan`], and `testbench/tests/fpga_top.rs` proves the two equal cycle by
//! cycle under Verilator. Generators and checkers are one module each,
//! parameterised per node (node address, LFSR seed, the checkers'
//! destination bits as a wide Verilog-2001 parameter); each node's worm
//! ROM is its own small case-table module `wc_rom_n<node>`.

use crate::generate::{fabric_module_as, lit, module_head, Generated, Instances, Port};
use crate::names::{ni_port, CLK, RST};
use crate::router::Fault;
use wormcast_sim::onchip::{
    bits_for, Plan, COUNT_BITS, EPOCH, EPOCH_SEND, ERR_BITS, EVENT_GROUP, HEARTBEAT_BIT, RATE_BITS,
    STRIDE, WATCHDOG,
};
use wormcast_sim::InputResult;

/// The board wrapper's module name (the `.pcf`'s top).
pub const BOARD_MODULE: &str = "wormcast_fpga_board";

/// A wide constant as a Verilog literal, fields packed LSB first.
struct Packed {
    bits: Vec<bool>,
}

impl Packed {
    fn new() -> Packed {
        Packed { bits: Vec::new() }
    }

    fn push(&mut self, v: u64, width: u32) {
        for b in 0..width {
            self.bits.push(v >> b & 1 == 1);
        }
    }

    fn lit(&self) -> String {
        let n = self.bits.len().max(1);
        let mut hex = String::new();
        for d in (0..n.div_ceil(4)).rev() {
            let mut x = 0;
            for b in 0..4 {
                if self.bits.get(d * 4 + b).copied().unwrap_or(false) {
                    x |= 1 << b;
                }
            }
            hex.push(char::from_digit(x, 16).expect("hex digit"));
        }
        format!("{n}'h{hex}")
    }
}

/// The widths the generated blocks share (from the plan).
struct Shape {
    w: u32,
    pb: u32,
    ab: u32,
    ib: u32,
    nb: u32,
    eb: u32,
    pcb: u32,
}

fn shape(plan: &Plan) -> Shape {
    let n = plan.topo.nodes() as u64;
    Shape {
        w: plan.params.flit.width,
        pb: plan.params.flit.payload_bits(),
        ab: plan.addr_bits(),
        ib: plan.index_bits(),
        nb: plan.node_bits,
        eb: plan.entry_bits,
        pcb: bits_for(n),
    }
}

/// `wc_gen`: one node's generator (`wormcast_sim::onchip::step_gen`).
fn gen_module(plan: &Plan, s: &Shape) -> String {
    let Shape {
        w,
        pb,
        ab,
        ib,
        nb,
        eb,
        pcb,
        ..
    } = *s;
    let l = plan.opts.length;
    let stride = STRIDE & plan.payload_mask();
    let rate = plan.opts.rate;
    let msgs = plan.opts.messages;
    format!(
        "
// One node's traffic generator (wormcast_sim::onchip::step_gen): an LFSR
// decides each idle cycle whether a message starts (rate {rate}/256) and
// which ROM entry it is; the entry's HEAD words are sent as stored, a
// kind-3 word stands for the worm's data flits ({l}: the identity BODY
// carrying the tag {{seq, entry, node}}, then payloads tag + i*{stride:#x}, the
// last a TAIL). Registered valid/ready output like the NI's sender. A
// message starts only while `open` (the epoch's send window).
module wc_gen #(
    parameter [{nb1}:0] NODE = {nb}'d0,
    parameter [15:0] SEED = 16'h1
)(
    input wire clk,
    input wire rst,
    input wire ready,
    input wire open,
    // The node's ROM (wc_rom_n<node>): entry `e` starts at `a` and has
    // `pop` destinations; `word` is the word at `addr`.
    output wire [{eb1}:0] e,
    input wire [{ab1}:0] a,
    input wire [{pcb1}:0] pop,
    output wire [{ab1}:0] addr,
    input wire [{w}:0] word,
    output reg [{w1}:0] flit,
    output reg valid,
    output reg busy,
    output reg [15:0] sent,
    output wire start
);
    reg [15:0] lfsr;
    reg data, last;
    reg [{ab1}:0] ptr;
    reg [{ib1}:0] idx;
    reg [{pb1}:0] tag, pay;
    reg [{sb1}:0] seq;
    assign e = lfsr[{rate_bits} +: {eb}];
    // One ROM read port: the entry's first word when idle, else the next.
    assign addr = busy ? ptr : a;
    wire [{pb1}:0] pay_n = pay + {pb}'h{stride:x};
    wire go = {{1'b0, lfsr[{rb1}:0]}} < 9'd{rate} && ({msgs_zero} || sent < 16'd{msgs}) && open;
    assign start = (!valid || ready) && !busy && go;
    always @(posedge clk) begin
        if (rst) begin
            lfsr <= SEED;
            busy <= 1'b0; data <= 1'b0; last <= 1'b0;
            ptr <= {ab}'d0; idx <= {ib}'d0; tag <= {pb}'d0; pay <= {pb}'d0; seq <= {sbw}'d0;
            flit <= {w}'d0; valid <= 1'b0; sent <= 16'd0;
        end else begin
            lfsr <= {{lfsr[0] ^ lfsr[2] ^ lfsr[3] ^ lfsr[5], lfsr[15:1]}};
            if (!valid || ready) begin
                if (busy && data) begin
                    flit <= {{pay_n, (idx == {ib}'d{lm1}) ? 2'd2 : 2'd1}};
                    valid <= 1'b1;
                    pay <= pay_n;
                    idx <= idx + {ib}'d1;
                    if (idx == {ib}'d{lm1}) begin
                        data <= 1'b0;
                        if (last) busy <= 1'b0;
                    end
                end else if (busy) begin
                    ptr <= ptr + {ab}'d1;
                    if (word[1:0] == 2'd3) begin
                        flit <= {{tag, 2'd1}};
                        pay <= tag;
                        data <= 1'b1;
                        idx <= {ib}'d1;
                        last <= word[{w}];
                    end else begin
                        flit <= word[{w1}:0];
                    end
                    valid <= 1'b1;
                end else if (go) begin
                    flit <= word[{w1}:0];
                    valid <= 1'b1;
                    ptr <= a + {ab}'d1;
                    busy <= 1'b1;
                    data <= 1'b0;
                    tag <= {tag_expr};
                    seq <= seq + {sbw}'d1;
                    sent <= sent + 16'd1;
                end else begin
                    valid <= 1'b0;
                end
            end
        end
    end
endmodule
",
        nb1 = nb - 1,
        w1 = w - 1,
        pcb1 = pcb - 1,
        ab1 = ab - 1,
        ib1 = ib - 1,
        pb1 = pb - 1,
        sb1 = plan.seq_bits - 1,
        sbw = plan.seq_bits,
        eb1 = eb - 1,
        rate_bits = RATE_BITS,
        rb1 = RATE_BITS - 1,
        msgs_zero = if msgs == 0 { "1'b1" } else { "1'b0" },
        lm1 = l - 1,
        tag_expr = {
            let used = plan.seq_bits + eb + nb;
            if used < pb {
                format!("{{{}'d0, seq, e, NODE}}", pb - used)
            } else {
                "{seq, e, NODE}".to_string()
            }
        },
    )
}

/// `wc_rom_n<node>`: node `node`'s ROM as case tables (yosys turns them
/// into LUT functions of the address; a wide parameter indexed by a
/// computed offset became a shifter with carry chains, 1 000 LUTs more on
/// the 2×2 top).
fn rom_module(plan: &Plan, s: &Shape, node: usize) -> String {
    let (w, ab, eb, pcb) = (s.w, s.ab, s.eb, s.pcb);
    let mut words = String::new();
    for (k, &(last, f)) in plan.rom[node].iter().enumerate() {
        words.push_str(&format!(
            "            {ab}'d{k}: word = {}'h{:x};\n",
            w + 1,
            (last as u64) << w | f
        ));
    }
    let n = plan.topo.nodes() as usize;
    let mut entries = String::new();
    for k in 0..plan.opts.entries as usize {
        let mut dm = Packed::new();
        for d in 0..n as u32 {
            dm.push(plan.dests[node][k].contains(&d) as u64, 1);
        }
        entries.push_str(&format!(
            "            {eb}'d{k}: begin a = {ab}'d{}; pop = {pcb}'d{}; dm = {}; end\n",
            plan.start[node][k],
            plan.pop[node][k],
            dm.lit()
        ));
    }
    format!(
        "
// Node {node}'s generator ROM: {} words of {{last, flit}} (HEADs as sent; kind 3
// = this worm's data flits) and, per entry, its first word, destination
// count and destinations (bit d: node d; wormcast_sim::onchip::Plan).
module wc_rom_n{node}(
    input wire [{eb1}:0] e,
    output reg [{ab1}:0] a,
    output reg [{pcb1}:0] pop,
    output reg [{n1}:0] dm,
    input wire [{ab1}:0] addr,
    output reg [{w}:0] word
);
    always @* begin
        case (e)
{entries}            default: begin a = {ab}'d0; pop = {pcb}'d0; dm = {n}'d0; end
        endcase
        case (addr)
{words}            default: word = {w1p}'h0;
        endcase
    end
endmodule
",
        plan.rom[node].len(),
        eb1 = eb - 1,
        ab1 = ab - 1,
        pcb1 = pcb - 1,
        n1 = n - 1,
        w1p = w + 1,
    )
}

/// `wc_chk`: one consumption channel's checker (`onchip::step_chk`).
fn chk_module(plan: &Plan, s: &Shape) -> String {
    let Shape {
        w, pb, ib, nb, eb, ..
    } = *s;
    let l = plan.opts.length;
    let stride = STRIDE & plan.payload_mask();
    let dw = plan.opts.entries << nb;
    format!(
        "
// One consumption channel's checker (wormcast_sim::onchip::step_chk),
// always ready: the identity BODY's tag must name a message that has this
// node among its destinations (DEST bit {{entry, source}}); every later
// flit must carry the next payload of the sequence; the TAIL must be data
// flit {lm1}. `good`: a good TAIL (one delivery); `bad`: a flit that broke
// the rules (the top counts both).
module wc_chk #(
    parameter [{dw1}:0] DEST = {dw}'h0
)(
    input wire clk,
    input wire rst,
    input wire [{w1}:0] flit,
    input wire valid,
    output wire good,
    output wire bad
);
    reg [1:0] st;
    reg [{pb1}:0] exp;
    reg [{ib1}:0] idx;
    wire [1:0] kind = flit[1:0];
    wire [{pb1}:0] pl = flit[{w1}:2];
    wire ok = DEST[pl[{keyb1}:0]];
    // One adder for both the identity's successor and the next payload.
    wire [{pb1}:0] exp_n = (st == 2'd0 ? pl : exp) + {pb}'h{stride:x};
    wire good_tail = kind == 2'd2 && idx == {ib}'d{lm1} && pl == exp;
    wire good_body = kind == 2'd1 && idx < {ib}'d{lm1} && pl == exp;
    assign bad = valid && ((st == 2'd0 && !(kind == 2'd1 && ok))
                        || (st == 2'd1 && !good_tail && !good_body));
    assign good = valid && st == 2'd1 && good_tail;
    always @(posedge clk) begin
        if (rst) begin
            st <= 2'd0; exp <= {pb}'d0; idx <= {ib}'d0;
        end else begin
            if (valid) begin
                case (st)
                    2'd0: if (kind == 2'd1) begin
                        if (ok) begin
                            st <= 2'd1;
                            exp <= exp_n;
                            idx <= {ib}'d1;
                        end else st <= 2'd2;
                    end
                    2'd1: if (good_tail) begin
                        st <= 2'd0;
                    end else if (good_body) begin
                        idx <= idx + {ib}'d1;
                        exp <= exp_n;
                    end else st <= (kind == 2'd2) ? 2'd0 : 2'd2;
                    default: if (kind == 2'd2) st <= 2'd0;
                endcase
            end
        end
    end
endmodule
",
        dw1 = dw - 1,
        w1 = w - 1,
        pb1 = pb - 1,
        ib1 = ib - 1,
        keyb1 = nb + eb - 1,
        lm1 = l - 1,
    )
}

/// The top's output ports: their names, widths and meaning (docs/hardware.md
/// section 5 prints this table).
pub const TOP_OUTPUTS: [(&str, u32, &str); 9] = [
    (
        "pass",
        1,
        "an epoch check has found every node's deliveries complete (0 until then), \
         and since: no mismatch, no checker error, no stall, no duplicate; with a \
         message limit, also `done`",
    ),
    (
        "done",
        1,
        "every generator sent its messages and every delivery arrived (0 when sending for ever)",
    ),
    (
        "stall",
        1,
        "sticky: traffic outstanding and no flit moved for the watchdog's cycles",
    ),
    (
        "mismatch",
        1,
        "sticky: at the end of an epoch's drain window, a node had not received \
         exactly the deliveries sent to it (one lost, or one extra)",
    ),
    (
        "heartbeat",
        1,
        "bit 23 of a free-running cycle counter (LED blink)",
    ),
    ("err_count", ERR_BITS, "checker errors, summed, saturating"),
    ("sent", COUNT_BITS, "messages the generators started"),
    (
        "expected",
        COUNT_BITS,
        "deliveries those messages ask for (destinations per message, summed)",
    ),
    ("received", COUNT_BITS, "deliveries the checkers accepted"),
];

/// The self-checking top of `plan`'s network: fabric (its routers built
/// with `fault`, `Fault::None` for the real design), generators, checkers.
/// The returned text holds every module; `ports` are the top's.
pub fn fpga_top(plan: &Plan, fault: Fault) -> InputResult<Generated> {
    fpga_top_as(plan, fault, Instances::Shared)
}

/// [`fpga_top`] with the fabric's routers instantiated as `inst` says
/// ([`Instances::PerNode`] for synthesis out of context, docs/fpga.md).
pub fn fpga_top_as(plan: &Plan, fault: Fault, inst: Instances) -> InputResult<Generated> {
    let fab = fabric_module_as(&plan.topo, &plan.params, &plan.cfg, fault, inst)?;
    let s = shape(plan);
    let n = plan.topo.nodes() as usize;
    let cons = plan.params.consumption;
    let kind = if plan.topo.is_torus() {
        "torus"
    } else {
        "mesh"
    };
    let name = format!("wormcast_fpga_{kind}_{}x{}", plan.topo.k, plan.topo.m);
    let mut v = fab.verilog;
    v.push_str(&gen_module(plan, &s));
    v.push_str(&chk_module(plan, &s));
    for node in 0..n {
        v.push_str(&rom_module(plan, &s, node));
    }
    let mut ports = vec![Port::new(CLK, "input", 1), Port::new(RST, "input", 1)];
    for (p, width, _) in TOP_OUTPUTS {
        ports.push(Port::new(p, "output", width as usize));
    }
    v.push_str(&format!(
        "\n// The self-checking FPGA top of the {kind} {}x{} (docs/fpga.md,\n\
         // docs/hardware.md section 5): {n} generators g<N> on injection channel 0, {} checkers\n\
         // c<N>_<K> on the consumption channels (always ready), the fabric `fabric`.\n\
         // {CLK}: rising edge; {RST}: active high, synchronous.",
        plan.topo.k,
        plan.topo.m,
        n * cons
    ));
    v.push_str(&module_head(&name, &ports));
    let wire = |width: usize, name: &str| {
        if width > 1 {
            format!("    wire [{}:0] {name};\n", width - 1)
        } else {
            format!("    wire {name};\n")
        }
    };
    let cb = COUNT_BITS as usize;
    for node in 0..n {
        for p in &fab.ports {
            if p.name.starts_with(&format!("n{node}_")) {
                v.push_str(&wire(p.width, &p.name));
            }
        }
        v.push_str(&wire(1, &format!("g{node}_busy")));
        v.push_str(&wire(16, &format!("g{node}_sent")));
        v.push_str(&wire(1, &format!("g{node}_start")));
        v.push_str(&wire(s.pcb as usize, &format!("g{node}_pop")));
        v.push_str(&wire(n, &format!("g{node}_dm")));
        v.push_str(&wire(s.eb as usize, &format!("g{node}_e")));
        v.push_str(&wire(s.ab as usize, &format!("g{node}_a")));
        v.push_str(&wire(s.ab as usize, &format!("g{node}_addr")));
        v.push_str(&wire(s.w as usize + 1, &format!("g{node}_word")));
        for c in 0..cons {
            v.push_str(&wire(1, &format!("c{node}_{c}_good")));
            v.push_str(&wire(1, &format!("c{node}_{c}_bad")));
        }
    }
    // The epoch's send window (`onchip::EPOCH_SEND`), to every generator.
    v.push_str("    reg open_r;\n");
    // The fabric: NI ports to the generators and checkers; the checkers
    // always accept; injection channels past 0 stay idle.
    let conns: Vec<String> = fab
        .ports
        .iter()
        .map(|p| {
            let net = match crate::names::parse_ni_port(&p.name) {
                Some((_, false, _, "ready")) => "1'b1".to_string(),
                Some((_, true, ch, "flit" | "valid")) if ch > 0 => lit(p.width, 0),
                _ => p.name.clone(),
            };
            format!(".{}({net})", p.name)
        })
        .collect();
    v.push_str(&format!(
        "    {} fabric(\n        {}\n    );\n",
        fab.top,
        conns.join(",\n        ")
    ));
    for node in 0..n {
        v.push_str(&format!(
            "    wc_rom_n{node} rom{node}(.e(g{node}_e), .a(g{node}_a), .pop(g{node}_pop), .dm(g{node}_dm), .addr(g{node}_addr), .word(g{node}_word));\n\
             \x20   wc_gen #(.NODE({}), .SEED(16'h{:x})) g{node}(\n        \
             .clk({CLK}), .rst({RST}), .ready({r}), .open(open_r), .flit({f}), .valid({vl}),\n        \
             .e(g{node}_e), .a(g{node}_a), .pop(g{node}_pop), .addr(g{node}_addr), .word(g{node}_word),\n        \
             .busy(g{node}_busy), .sent(g{node}_sent), .start(g{node}_start)\n    );\n",
            lit(s.nb as usize, node as u64),
            plan.seeds[node],
            r = ni_port(node as u32, true, 0, "ready"),
            f = ni_port(node as u32, true, 0, "flit"),
            vl = ni_port(node as u32, true, 0, "valid"),
        ));
        let mut dest = Packed::new();
        for b in plan.dest_bits(node as u32) {
            dest.push(b as u64, 1);
        }
        let dest = dest.lit();
        for c in 0..cons {
            v.push_str(&format!(
                "    wc_chk #(.DEST({dest})) c{node}_{c}(\n        \
                 .clk({CLK}), .rst({RST}), .flit({}), .valid({}),\n        \
                 .good(c{node}_{c}_good), .bad(c{node}_{c}_bad)\n    );\n",
                ni_port(node as u32, false, c as u32, "flit"),
                ni_port(node as u32, false, c as u32, "valid"),
            ));
        }
    }
    let join = |f: &dyn Fn(usize) -> Vec<String>, op: &str| -> String {
        (0..n).flat_map(f).collect::<Vec<_>>().join(op)
    };
    let gens = |x: &'static str| move |node: usize| vec![format!("g{node}_{x}")];
    let fired = |node: usize| {
        vec![format!(
            "({} & {})",
            ni_port(node as u32, true, 0, "valid"),
            ni_port(node as u32, true, 0, "ready")
        )]
    };
    let cvalid = |node: usize| {
        (0..cons)
            .map(|c| ni_port(node as u32, false, c as u32, "valid"))
            .collect::<Vec<_>>()
    };
    let msgs = plan.opts.messages;
    let fin = if msgs == 0 {
        "1'b0".to_string()
    } else {
        join(
            &|node| {
                vec![format!(
                    "(g{node}_sent == 16'd{msgs} && !g{node}_busy && !{})",
                    ni_port(node as u32, true, 0, "valid")
                )]
            },
            "\n        && ",
        )
    };
    let eb = ERR_BITS as usize;
    // Each generator's and checker's events, and each node's progress, are
    // registered where they happen before the top adds them up: the sums
    // and the watchdog span the whole die, and taken straight from the
    // checkers' compare logic they were the critical path of a 4×4 top
    // (51 MHz on an ECP5 against the lone router's 78; docs/fpga.md).
    // The counters and the watchdog therefore see every event
    // EVENT_STAGES cycles later, as `onchip::OnChip::step` does.
    let pcb = s.pcb as usize;
    for node in 0..n {
        v.push_str(&format!(
            "    reg e{node}_start, e{node}_prog;\n    reg [{}:0] e{node}_pop;\n    reg [{}:0] e{node}_dm;\n",
            pcb - 1,
            n - 1
        ));
        for c in 0..cons {
            v.push_str(&format!("    reg e{node}_{c}_good, e{node}_{c}_bad;\n"));
        }
    }
    let mut loads = String::new();
    let mut clears = String::new();
    for node in 0..n {
        clears.push_str(&format!(
            " e{node}_start <= 1'b0; e{node}_prog <= 1'b0; e{node}_pop <= {pcb}'d0; e{node}_dm <= {n}'d0;"
        ));
        let prog = fired(node)
            .into_iter()
            .chain(cvalid(node))
            .collect::<Vec<_>>()
            .join(" | ");
        loads.push_str(&format!(
            "            e{node}_start <= g{node}_start; e{node}_prog <= {prog};\n\
             \x20           e{node}_pop <= g{node}_start ? g{node}_pop : {pcb}'d0;\n\
             \x20           e{node}_dm <= g{node}_start ? g{node}_dm : {n}'d0;\n"
        ));
        for c in 0..cons {
            clears.push_str(&format!(
                " e{node}_{c}_good <= 1'b0; e{node}_{c}_bad <= 1'b0;"
            ));
            loads.push_str(&format!(
                "            e{node}_{c}_good <= c{node}_{c}_good; e{node}_{c}_bad <= c{node}_{c}_bad;\n"
            ));
        }
    }
    v.push_str(&format!(
        "    always @(posedge {CLK}) begin\n        if ({RST}) begin\n           {clears}\n        end else begin\n{loads}        end\n    end\n"
    ));
    let evs = |x: &'static str| move |node: usize| vec![format!("e{node}_{x}")];
    let evc = |x: &'static str| {
        move |node: usize| {
            (0..cons)
                .map(|c| format!("e{node}_{c}_{x}"))
                .collect::<Vec<_>>()
        }
    };
    // Per-cycle event counts: the widths hold every generator or checker
    // firing at once.
    let kb = bits_for((n * cons + 1) as u64) as usize;
    let pw = bits_for((n * n + 1) as u64) as usize;
    // Second stage: the events of each group of EVENT_GROUP nodes summed
    // into a register, so that no adder tree spans more than a group or
    // the groups (the 4×4 top's critical path at one stage was the sum of
    // its 32 checkers' error pulses into err_count: 66.6 MHz on an ECP5).
    let groups: Vec<Vec<usize>> = (0..n)
        .collect::<Vec<_>>()
        .chunks(EVENT_GROUP)
        .map(<[usize]>::to_vec)
        .collect();
    let gsum = |f: &dyn Fn(usize) -> Vec<String>, nodes: &[usize], op: &str| {
        nodes
            .iter()
            .flat_map(|&k| f(k))
            .collect::<Vec<_>>()
            .join(op)
    };
    let mut gclear = String::new();
    let mut gload = String::new();
    for (j, nodes) in groups.iter().enumerate() {
        v.push_str(&format!(
            "    reg [{}:0] s{j}_start, s{j}_good, s{j}_bad;\n    reg [{}:0] s{j}_pop;\n    reg s{j}_prog;\n",
            kb - 1,
            pw - 1
        ));
        gclear.push_str(&format!(
            " s{j}_start <= {kb}'d0; s{j}_good <= {kb}'d0; s{j}_bad <= {kb}'d0; s{j}_pop <= {pw}'d0; s{j}_prog <= 1'b0;"
        ));
        gload.push_str(&format!(
            "            s{j}_start <= {}; s{j}_pop <= {};\n\
             \x20           s{j}_good <= {}; s{j}_bad <= {}; s{j}_prog <= {};\n",
            gsum(&evs("start"), nodes, " + "),
            gsum(&evs("pop"), nodes, " + "),
            gsum(&evc("good"), nodes, " + "),
            gsum(&evc("bad"), nodes, " + "),
            gsum(&evs("prog"), nodes, " | "),
        ));
    }
    v.push_str(&format!(
        "    always @(posedge {CLK}) begin\n        if ({RST}) begin\n           {gclear}\n        end else begin\n{gload}        end\n    end\n"
    ));
    let grp = |x: &str, op: &str| {
        (0..groups.len())
            .map(|j| format!("s{j}_{x}"))
            .collect::<Vec<_>>()
            .join(op)
    };
    let wd_bits = bits_for(WATCHDOG as u64) as usize + 1;
    let hb_bits = HEARTBEAT_BIT as usize + 1;
    // Epochs (`onchip::EPOCH_SEND`): per node, deliveries asked of it (one
    // per message started to it, from the generators' registered
    // destination bits) minus deliveries its checkers accepted; every one
    // zero at the last cycle of each drain window, or `mismatch` for good.
    let ob = plan.owed_bits() as usize;
    let xb = bits_for(n as u64) as usize;
    let yb = bits_for(cons as u64 + 1) as usize;
    let epb = bits_for(EPOCH as u64) as usize;
    let mut epoch = String::new();
    let mut owed_rst = String::new();
    let mut owed_upd = String::new();
    for d in 0..n {
        let asked: Vec<String> = (0..n)
            .filter(|&src| src != d)
            .map(|src| format!("e{src}_dm[{d}]"))
            .collect();
        let got: Vec<String> = (0..cons).map(|c| format!("e{d}_{c}_good")).collect();
        epoch.push_str(&format!(
            "    wire [{}:0] dx{d} = {};\n    wire [{}:0] dr{d} = {};\n    reg [{}:0] owed{d};\n",
            xb - 1,
            asked.join(" + "),
            yb - 1,
            got.join(" + "),
            ob - 1
        ));
        owed_rst.push_str(&format!(" owed{d} <= {ob}'d0;"));
        // Unsigned operands widen to the counter's width: modulo 2^ob.
        owed_upd.push_str(&format!(
            "            owed{d} <= owed{d} + dx{d} - dr{d};\n"
        ));
    }
    let owed_any = (0..n)
        .map(|d| format!("owed{d} != {ob}'d0"))
        .collect::<Vec<_>>()
        .join(" || ");
    epoch.push_str(&format!(
        "    wire owed_any = {owed_any};\n\
         \x20   reg [{epb1}:0] ep;\n\
         \x20   reg mismatch_r, armed_r;\n\
         \x20   always @(posedge {CLK}) begin\n\
         \x20       if ({RST}) begin\n\
         \x20           ep <= {epb}'d0; open_r <= 1'b1; mismatch_r <= 1'b0; armed_r <= 1'b0;\n\
         \x20          {owed_rst}\n\
         \x20       end else begin\n\
         {owed_upd}\
         \x20           ep <= (ep == {epb}'d{last}) ? {epb}'d0 : ep + {epb}'d1;\n\
         \x20           if (ep == {epb}'d{send_last}) open_r <= 1'b0;\n\
         \x20           else if (ep == {epb}'d{last}) open_r <= 1'b1;\n\
         \x20           // The epoch check, on the registers before this edge.\n\
         \x20           if (ep == {epb}'d{last}) begin\n\
         \x20               if (owed_any) mismatch_r <= 1'b1;\n\
         \x20               else if (received_r != {cb}'d0) armed_r <= 1'b1;\n\
         \x20           end\n\
         \x20       end\n\
         \x20   end\n",
        epb1 = epb - 1,
        last = EPOCH - 1,
        send_last = EPOCH_SEND - 1,
        cb = COUNT_BITS,
    ));
    v.push_str(&format!(
        "    wire [{kb1}:0] n_start = {starts};\n\
         \x20   wire [{pw1}:0] n_pop = {pops};\n\
         \x20   wire [{kb1}:0] n_good = {goods};\n\
         \x20   wire [{kb1}:0] n_bad = {bads};\n\
         \x20   reg [{cb1}:0] sent_r, expected_r, received_r;\n\
         \x20   reg [{eb1}:0] err_r;\n\
         \x20   wire [{eb}:0] err_n = err_r + n_bad;\n\
         \x20   wire busy_any = {busy};\n\
         \x20   wire progress = {progress};\n\
         \x20   wire fin = {fin};\n\
         \x20   wire [{cb1}:0] gap = expected_r - received_r;\n\
         \x20   wire over = gap[{cb1}];\n\
         \x20   wire outstanding = received_r != expected_r || busy_any;\n\
         \x20   reg [{wd1}:0] wd;\n\
         \x20   reg stall_r;\n\
         \x20   reg [{hb1}:0] hb;\n\
         \x20   always @(posedge {CLK}) begin\n\
         \x20       if ({RST}) begin\n\
         \x20           sent_r <= {cb}'d0; expected_r <= {cb}'d0; received_r <= {cb}'d0; err_r <= {eb}'d0;\n\
         \x20           wd <= {wd_bits}'d0; stall_r <= 1'b0; hb <= {hb_bits}'d0;\n\
         \x20       end else begin\n\
         \x20           sent_r <= sent_r + n_start;\n\
         \x20           expected_r <= expected_r + n_pop;\n\
         \x20           received_r <= received_r + n_good;\n\
         \x20           err_r <= err_n[{eb}] ? {{{eb}{{1'b1}}}} : err_n[{eb1}:0];\n\
         \x20           if (outstanding && !progress) begin\n\
         \x20               if (wd + {wd_bits}'d1 >= {wd_bits}'d{watchdog}) stall_r <= 1'b1;\n\
         \x20               else wd <= wd + {wd_bits}'d1;\n\
         \x20           end else wd <= {wd_bits}'d0;\n\
         \x20           hb <= hb + {hb_bits}'d1;\n\
         \x20       end\n\
         \x20   end\n\
         {epoch}\
         \x20   assign sent = sent_r;\n\
         \x20   assign expected = expected_r;\n\
         \x20   assign received = received_r;\n\
         \x20   assign err_count = err_r;\n\
         \x20   assign done = fin && received_r == expected_r;\n\
         \x20   assign stall = stall_r;\n\
         \x20   assign mismatch = mismatch_r;\n\
         \x20   assign heartbeat = hb[{hb1}];\n\
         \x20   assign pass = armed_r && !mismatch_r && err_r == {eb}'d0 && !stall_r && !over && {pass_done};\n\
         endmodule\n",
        kb1 = kb - 1,
        pw1 = pw - 1,
        starts = grp("start", " + "),
        pops = grp("pop", " + "),
        goods = grp("good", " + "),
        bads = grp("bad", " + "),
        eb1 = eb - 1,
        busy = join(&gens("busy"), " | "),
        progress = grp("prog", " | "),
        cb1 = cb - 1,
        wd1 = wd_bits - 1,
        hb1 = hb_bits - 1,
        watchdog = WATCHDOG,
        pass_done = if msgs == 0 { "1'b1" } else { "done" },
    ));
    Ok(Generated {
        top: name,
        verilog: v,
        ports,
    })
}

/// The board wrapper around `top`, the same for every board of
/// [`crate::boards::Board`] (only the pin file differs): a power-on reset
/// of 16 cycles (the boards have no reset the design may rely on; iCE40
/// and ECP5 flip-flops start at 0 after configuration) and the LEDs: 0
/// heartbeat, 1 pass, 2 done, 3 stall, 4 any error, 5 mismatch (a node's
/// deliveries incomplete at an epoch check), 6–7 the error count's low
/// bits.
pub fn board_wrapper(top: &Generated) -> String {
    format!(
        "
// Board top (wormcast verilog --fpga-top --board ...): clk is the board's
// oscillator, pinned by the constraint file written beside this file
// (ice40_hx8k_breakout.pcf: 12 MHz; ulx3s_85f.lpf: 25 MHz); led[0] heartbeat,
// led[1] pass, led[2] done, led[3] stall, led[4] any error, led[5] mismatch,
// led[7:6] err_count[1:0]. docs/hardware.md section 5.
module {BOARD_MODULE}(
    input wire clk,
    output wire [7:0] led
);
    reg [4:0] por = 5'd0;
    wire rst = !por[4];
    always @(posedge clk) if (!por[4]) por <= por + 5'd1;
    wire pass, done, stall, mismatch, heartbeat;
    wire [{eb1}:0] err_count;
    wire [{cb1}:0] sent, expected, received;
    {top} u(
        .{CLK}(clk), .{RST}(rst), .pass(pass), .done(done), .stall(stall),
        .mismatch(mismatch), .heartbeat(heartbeat), .err_count(err_count), .sent(sent),
        .expected(expected), .received(received)
    );
    assign led = {{err_count[1:0], mismatch, err_count != {ebw}'d0, stall, done, pass, heartbeat}};
endmodule
",
        top = top.top,
        eb1 = ERR_BITS - 1,
        ebw = ERR_BITS,
        cb1 = COUNT_BITS - 1,
    )
}

/// The pin constraints of [`board_wrapper`] for the iCE40-HX8K breakout
/// board (its 12 MHz clock on J3, LEDs D2–D9).
pub const BREAKOUT_PCF: &str = "\
# iCE40-HX8K breakout board (ICE40HX8K-B-EVN), wormcast_fpga_board.
set_io clk J3
set_io led[0] B5
set_io led[1] B4
set_io led[2] A2
set_io led[3] A1
set_io led[4] C5
set_io led[5] C4
set_io led[6] B3
set_io led[7] C3
";
