//! Text passes over the Verilog that rust-hdl emits, and the map from each
//! generated module to the Rust that defines it.
//!
//! rust-hdl 0.46 writes some idioms that `verilator --lint-only -Wall`
//! reports although they are harmless: every integer literal is 32 bits
//! wide (`count = 32'h1` into a 4-bit register), `bit_cast` is a mask of
//! the wider operand (`((x) & 9'h1ff)` for a 6-bit `x`), `replace_bit`
//! shifts a 1-bit value whose width the context extends, and bit-select
//! indices are 8-bit constants into 32-bit vectors. The passes here write
//! each of them with the widths spelt out. Every rewrite keeps every bit
//! of every expression: it only fires where the rewritten form is the same
//! value by Verilog's sizing rules (each function says why), and leaves
//! the text alone otherwise, so a real width mistake still reaches the
//! lint. The equivalence suites (lockstep, Verilog vectors under iverilog
//! and Verilator, golden outputs) run on the rewritten text.

use std::collections::HashMap;

/// Where one kind of generated module comes from: `module` is the module
/// name after `wormcast_router` with every `$<index>` written `$<i>`
/// (`$fifo$<i>$slot$<i>`), `file` and `item` the Rust that defines it,
/// `doc` where it is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub module: &'static str,
    pub file: &'static str,
    pub item: &'static str,
    pub doc: &'static str,
}

const fn src(
    module: &'static str,
    file: &'static str,
    item: &'static str,
    doc: &'static str,
) -> Source {
    Source {
        module,
        file,
        item,
        doc,
    }
}

const ROUTER_DOC: &str = "docs/router.md, rtl/README.md \"Blocks\"";

/// Every module of the router core: the one table a reviewer reads to
/// find the source of a block (written into each file's header by
/// [`source_map`]; `rtl/tests/verilog.rs` checks that every module of the
/// generated routers has an entry).
pub const SOURCES: &[Source] = &[
    src("", "rtl/src/router.rs", "Router", ROUTER_DOC),
    src(
        "$fifo$<i>",
        "rtl/src/fifo.rs",
        "InputFifo",
        "docs/hardware.md 3d, 3s",
    ),
    src(
        "$fifo$<i>$slot$<i>",
        "rtl/src/fifo.rs",
        "InputFifo::slot",
        "docs/hardware.md 3d",
    ),
    src(
        "$fifo$<i>$zslot$<i>",
        "rtl/src/fifo.rs",
        "InputFifo::zslot",
        "docs/hardware.md 3o",
    ),
    src(
        "$fifo$<i>$sslot",
        "rtl/src/fifo.rs",
        "InputFifo::sslot",
        "docs/hardware.md 3o",
    ),
    src(
        "$fifo$<i>$mid$<i>",
        "rtl/src/fifo.rs",
        "InputFifo::mid",
        "docs/hardware.md 3s",
    ),
    src(
        "$fifo$<i>$ne",
        "rtl/src/fifo.rs",
        "InputFifo::ne",
        "docs/hardware.md 3s",
    ),
    src(
        "$fifo$<i>$rdy",
        "rtl/src/fifo.rs",
        "InputFifo::rdy",
        "docs/hardware.md 3s",
    ),
    src(
        "$dec",
        "rtl/src/decoders.rs",
        "Decoders",
        "rtl/README.md \"Blocks\"",
    ),
    src(
        "$dec$d$<i>",
        "rtl/src/decode/mod.rs",
        "Decode",
        "docs/router.md \"Input state machine\", docs/hardware.md 3j, 3o",
    ),
    src(
        "$dec$tree$<i>",
        "rtl/src/decode/tree.rs",
        "TreeRoute",
        "docs/hardware.md 3b",
    ),
    src(
        "$dec$spam$<i>",
        "rtl/src/decode/spam.rs",
        "SpamRoute",
        "docs/router.md \"SPAM routing\"",
    ),
    src(
        "$dec$ham$<i>",
        "rtl/src/decode/mesh.rs",
        "HamRoute",
        "docs/router.md \"Mesh routing functions\"",
    ),
    src(
        "$dec$grid$<i>",
        "rtl/src/decode/mesh.rs",
        "GridRoute",
        "docs/router.md \"Mesh routing functions\"",
    ),
    src(
        "$dec$tree$<i>$cmp",
        "rtl/src/compare.rs",
        "LeBank",
        "docs/hardware.md 3s",
    ),
    src(
        "$dec$ham$<i>$cmp",
        "rtl/src/compare.rs",
        "LeBank",
        "docs/hardware.md 3s",
    ),
    src(
        "$dec$grid$<i>$cmp",
        "rtl/src/compare.rs",
        "LeBank",
        "docs/hardware.md 3s",
    ),
    src(
        "$arb",
        "rtl/src/arbiter.rs",
        "Arbiter",
        "docs/hardware.md 3a, 3q, 3r",
    ),
    src(
        "$xbar",
        "rtl/src/crossbar.rs",
        "Crossbar",
        "docs/hardware.md 3c",
    ),
    src(
        "$nerr",
        "rtl/src/popcount.rs",
        "Popcount",
        "docs/router.md \"Malformed input\"",
    ),
    src(
        "$in_state$<i>",
        "rtl/src/router.rs",
        "Router::in_state",
        "docs/router.md \"Registers\"",
    ),
    src(
        "$in_reserved$<i>",
        "rtl/src/router.rs",
        "Router::in_reserved",
        "docs/router.md \"Registers\"",
    ),
    src(
        "$in_class$<i>",
        "rtl/src/router.rs",
        "Router::in_class",
        "docs/router.md \"Registers\"",
    ),
    src(
        "$in_setup$<i>",
        "rtl/src/router.rs",
        "Router::in_setup",
        "docs/hardware.md 3f",
    ),
    src(
        "$in_sok$<i>",
        "rtl/src/router.rs",
        "Router::in_sok",
        "docs/hardware.md 3f",
    ),
    src(
        "$in_strip$<i>",
        "rtl/src/router.rs",
        "Router::in_strip",
        "docs/hardware.md 3h",
    ),
    src(
        "$in_worm$<i>",
        "rtl/src/router.rs",
        "Router::in_worm",
        "docs/hardware.md 3j",
    ),
    src(
        "$out_flit$<i>",
        "rtl/src/router.rs",
        "Router::out_flit",
        "docs/router.md \"Registers\"",
    ),
    src(
        "$out_valid$<i>",
        "rtl/src/router.rs",
        "Router::out_valid",
        "docs/router.md \"Registers\"",
    ),
    src(
        "$out_owner$<i>",
        "rtl/src/router.rs",
        "Router::out_owner",
        "docs/hardware.md 3c",
    ),
    src(
        "$out_sel$<i>",
        "rtl/src/router.rs",
        "Router::out_sel",
        "docs/hardware.md 3c",
    ),
    src(
        "$owned_r",
        "rtl/src/router.rs",
        "Router::owned_r",
        "docs/hardware.md 3i",
    ),
    src(
        "$prio",
        "rtl/src/router.rs",
        "Router::prio",
        "docs/hardware.md 3r",
    ),
    src(
        "$err_count",
        "rtl/src/router.rs",
        "Router::err_count",
        "docs/router.md \"Malformed input\"",
    ),
    src(
        "$err_code",
        "rtl/src/router.rs",
        "Router::err_code",
        "docs/router.md \"Malformed input\"",
    ),
];

/// `$fifo$3$slot$0` → `$fifo$<i>$slot$<i>`.
pub fn module_pattern(suffix: &str) -> String {
    suffix
        .split('$')
        .map(|p| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                "<i>"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join("$")
}

/// The entry of [`SOURCES`] for the module `core` + `suffix` (`suffix` =
/// everything after the core's name, `""` for the core itself).
pub fn source_of(suffix: &str) -> Option<&'static Source> {
    let p = module_pattern(suffix);
    SOURCES.iter().find(|s| s.module == p)
}

/// Names of the modules declared in `v`, in order.
pub fn module_names(v: &str) -> Vec<&str> {
    v.lines()
        .filter_map(|l| l.trim_start().strip_prefix("module "))
        .map(|r| {
            r.split(|c: char| c == '(' || c == ';' || c.is_whitespace())
                .next()
                .unwrap_or("")
        })
        .collect()
}

/// The header comment mapping every module of the core `core` that `v`
/// declares to its Rust source ([`SOURCES`]), one line per kind of module.
pub fn source_map(v: &str, core: &str) -> String {
    let mut seen: Vec<&'static Source> = Vec::new();
    for m in module_names(v) {
        let Some(suffix) = m.strip_prefix(core) else {
            continue;
        };
        if let Some(s) = source_of(suffix) {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
    }
    let mut out = String::from(
        "//\n// This file is build output; the Rust is the source. Where each module of the\n\
         // router core comes from (<i> = one instance per input, output or slot; a\n\
         // block's registers are rust-hdl DFF modules, one per register):\n",
    );
    let name_w = seen
        .iter()
        .map(|s| core.len() + s.module.len())
        .max()
        .unwrap_or(0);
    let file_w = seen
        .iter()
        .map(|s| s.file.len() + s.item.len() + 2)
        .max()
        .unwrap_or(0);
    for s in seen {
        let name = format!("{core}{}", s.module);
        let file = format!("{}: {}", s.file, s.item);
        out.push_str(&format!("//   {name:name_w$}  {file:file_w$}  {}\n", s.doc));
    }
    out.push_str("//\n");
    out
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Width and value of a sized literal `N'hV` / `N'bV` / `N'dV`.
fn literal(s: &str) -> Option<(u32, u128)> {
    let (w, rest) = s.split_once('\'')?;
    let w: u32 = w.parse().ok()?;
    let radix = match rest.as_bytes().first()? {
        b'h' => 16,
        b'b' => 2,
        b'd' => 10,
        _ => return None,
    };
    let v = u128::from_str_radix(&rest[1..], radix).ok()?;
    Some((w, v))
}

fn fits(v: u128, w: u32) -> bool {
    w >= 128 || v < (1u128 << w)
}

/// What a module declares: the width of every port, reg and wire, and
/// every localparam's width and value.
#[derive(Default)]
struct Decls {
    width: HashMap<String, u32>,
    param: HashMap<String, (u32, u128)>,
}

impl Decls {
    fn of(lines: &[String]) -> Decls {
        let mut d = Decls::default();
        for l in lines {
            let t = l.trim();
            if let Some(r) = t.strip_prefix("localparam ") {
                if let Some((name, val)) = r.trim().trim_end_matches(';').split_once('=') {
                    if let Some(lv) = literal(val.trim()) {
                        d.param.insert(name.trim().to_string(), lv);
                    }
                }
                continue;
            }
            let r = t
                .strip_prefix("input ")
                .or_else(|| t.strip_prefix("output "))
                .unwrap_or(t);
            let r = r.trim_start();
            let Some(r) = r.strip_prefix("wire ").or_else(|| r.strip_prefix("reg ")) else {
                continue;
            };
            let r = r.trim();
            let (w, name) = if let Some(r) = r.strip_prefix('[') {
                let Some((range, name)) = r.split_once(']') else {
                    continue;
                };
                let Some((hi, lo)) = range.split_once(':') else {
                    continue;
                };
                match (hi.trim().parse::<u32>(), lo.trim()) {
                    (Ok(hi), "0") => (hi + 1, name.trim()),
                    _ => continue,
                }
            } else {
                (1, r)
            };
            let Some(name) = name.strip_suffix(';') else {
                continue;
            };
            if name.bytes().all(is_ident_char) {
                d.width.insert(name.to_string(), w);
            }
        }
        d
    }
}

/// Narrows rust-hdl's literal and mask idioms in every module of `v`
/// (see the module documentation); the text outside modules and every
/// line no rule matches are unchanged.
pub fn narrow_widths(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut module: Vec<String> = Vec::new();
    let mut inside = false;
    for line in v.lines() {
        let t = line.trim_start();
        if !inside && t.starts_with("module ") {
            inside = true;
        }
        if inside {
            module.push(line.to_string());
            if t.starts_with("endmodule") {
                for l in narrow_module(&module) {
                    out.push_str(&l);
                    out.push('\n');
                }
                module.clear();
                inside = false;
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    for l in module {
        out.push_str(&l);
        out.push('\n');
    }
    out
}

fn narrow_module(lines: &[String]) -> Vec<String> {
    let d = Decls::of(lines);
    let narrow_params = index_params(lines, &d);
    lines
        .iter()
        .map(|l| {
            let t = l.trim();
            if let Some(r) = t.strip_prefix("localparam ") {
                if let Some((name, _)) = r.split_once('=') {
                    if let Some(w) = narrow_params.get(name.trim()) {
                        let (_, v) = d.param[name.trim()];
                        let indent = &l[..l.len() - l.trim_start().len()];
                        return format!("{indent}localparam  {} = {w}'h{v:x};", name.trim());
                    }
                }
                return l.clone();
            }
            if t.starts_with("input ")
                || t.starts_with("output ")
                || t.starts_with("reg ")
                || t.starts_with("wire ")
            {
                return l.clone();
            }
            let l = assign_literal(l, &d);
            let l = compare_literal(&l, &d);
            let l = masks(&l, &d);
            shifted_bits(&l, &d)
        })
        .collect()
}

/// The identifier that ends just before byte `end` of `s`, if any.
fn ident_before(s: &str, end: usize) -> Option<(usize, &str)> {
    let b = s.as_bytes();
    let mut i = end;
    while i > 0 && is_ident_char(b[i - 1]) {
        i -= 1;
    }
    (i < end && !b[i].is_ascii_digit()).then(|| (i, &s[i..end]))
}

/// The literal (digits, `'`, radix, hex digits) that starts at byte `i`.
fn literal_at(s: &str, i: usize) -> Option<(usize, u32, u128)> {
    let b = s.as_bytes();
    let mut j = i;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'\'') {
        j += 1;
    }
    literal(&s[i..j]).map(|(w, v)| (j, w, v))
}

/// `x = 32'hV;` (or `<=`) into a `w`-bit `x` with `V < 2^w`: `x = w'hV;`.
/// An assignment truncates or zero-extends its right side to the target's
/// width, and `V` has no bits at or above `w`, so both forms store the
/// same bits.
fn assign_literal(l: &str, d: &Decls) -> String {
    let t = l.trim_start();
    let indent = &l[..l.len() - t.len()];
    for op in [" = ", " <= "] {
        let Some((lhs, rhs)) = t.split_once(op) else {
            continue;
        };
        let Some(rhs) = rhs.strip_suffix(';') else {
            continue;
        };
        let (Some(&w), Some((lw, v))) = (d.width.get(lhs), literal(rhs)) else {
            continue;
        };
        if lw != w && fits(v, w) {
            return format!("{indent}{lhs}{op}{w}'h{v:x};");
        }
    }
    l.to_string()
}

/// The width of the operand that ends just before byte `end` of `s`: a
/// declared signal, or a parenthesised `(a & b)` / `(a | b)` of two of the
/// same width; and where the operand starts.
fn operand_before(s: &str, end: usize, d: &Decls) -> Option<(usize, u32)> {
    if let Some((start, x)) = ident_before(s, end) {
        return d.width.get(x).map(|&w| (start, w));
    }
    let inner = s[..end].strip_suffix(')')?;
    let open = inner.rfind('(')?;
    let group = &inner[open + 1..];
    let (a, b) = group
        .split_once(" & ")
        .or_else(|| group.split_once(" | "))?;
    let wa = d.width.get(a).or(d.param.get(a).map(|p| &p.0))?;
    let wb = d.width.get(b).or(d.param.get(b).map(|p| &p.0))?;
    (wa == wb).then_some((open, *wa))
}

/// `x == 32'hV` (or `!=`) with a `w`-bit `x` (a signal, or `(a & b)` of
/// two `w`-bit operands) and `V < 2^w`: `x == w'hV`. The comparison
/// extends the narrower side with zeros; `V` has no bits at or above `w`
/// and the extended bits of `x` are 0, so the two compares agree. Only
/// where the compare is a whole parenthesised expression or a whole
/// right-hand side (`(x == V)`, `y = x == V;`), so that no operator
/// binding tighter than `==` can take `x` as its operand.
fn compare_literal(l: &str, d: &Decls) -> String {
    let mut s = l.to_string();
    let rhs_start = {
        let t = s.trim_start();
        t.split_once(" = ")
            .map(|(lhs, _)| s.len() - t.len() + lhs.len() + 3)
    };
    for op in [" == ", " != "] {
        let mut from = 0;
        while let Some(k) = s[from..].find(op).map(|k| k + from) {
            from = k + op.len();
            let Some((start, w)) = operand_before(&s, k, d) else {
                continue;
            };
            if !(Some(start) == rhs_start || (start > 0 && s.as_bytes()[start - 1] == b'(')) {
                continue;
            }
            let Some((end, lw, v)) = literal_at(&s, k + op.len()) else {
                continue;
            };
            let closes = match s.as_bytes().get(end) {
                Some(b')') => start > 0 && s.as_bytes()[start - 1] == b'(',
                Some(b';') => Some(start) == rhs_start,
                _ => false,
            };
            if !closes || lw == w || !fits(v, w) {
                continue;
            }
            let lit = format!("{w}'h{v:x}");
            s.replace_range(k + op.len()..end, &lit);
            from = k + op.len() + lit.len();
        }
    }
    s
}

/// `bit_cast`, emitted as `((x) & M'hMASK)` with `MASK` = M ones: for an
/// `n`-bit `x` with `n < M`, `{(M-n)'h0, x}` (the mask keeps all of `x`,
/// zero-extended, which is what the concatenation is); with `n > M`,
/// `x[M-1:0]` (the mask keeps the low `M` bits, which is what the select
/// is). Both forms are then extended or truncated by the context alike.
/// `x` is a signal or a localparam (a part-select of a parameter is
/// legal Verilog-2001).
fn masks(l: &str, d: &Decls) -> String {
    // A truncating mask is `n` bits wide where it stands alone (in a
    // concatenation), the select `M`: not rewritten on such lines.
    let concat = l.contains('{');
    let mut s = l.to_string();
    let mut from = 0;
    while let Some(k) = s[from..].find("((").map(|k| k + from) {
        from = k + 1;
        let rest = &s[k + 2..];
        let Some(close) = rest.find(") & ") else {
            continue;
        };
        let x = &rest[..close];
        if x.is_empty() || !x.bytes().all(is_ident_char) {
            continue;
        }
        let Some(n) = d.width.get(x).copied().or(d.param.get(x).map(|p| p.0)) else {
            continue;
        };
        let lit_at = k + 2 + close + 4;
        let Some((end, m, mask)) = literal_at(&s, lit_at) else {
            continue;
        };
        if s.as_bytes().get(end) != Some(&b')') || m >= 128 || mask != (1u128 << m) - 1 {
            continue;
        }
        let new = if n < m {
            format!("{{{}'h0, {x}}}", m - n)
        } else if n > m && !concat {
            format!("{x}[{}:0]", m - 1)
        } else {
            continue;
        };
        s.replace_range(k..end + 1, &new);
        from = k + new.len();
    }
    s
}

/// `replace_bit`, emitted as `(w & ~(1 << (K)) | ((b) << (K)))`: the 1-bit
/// `b` is extended to the width of the statement's target `t` (or wider,
/// as `1` is 32 bits) before the shift. `{(t-1)'h0, b}` is that zero
/// extension written out, so the shifted value is the same.
fn shifted_bits(l: &str, d: &Decls) -> String {
    let t = l.trim_start();
    let Some((lhs, _)) = t.split_once(" = ") else {
        return l.to_string();
    };
    let Some(&tw) = d.width.get(lhs) else {
        return l.to_string();
    };
    // Only a chain of `replace_bit`s (`&`, `|`, `~`, `<<`), whose every
    // operator takes its width from the assignment: no compare, sum or
    // concatenation that would size the shift by its own operands.
    let rhs = t[lhs.len() + 3..].replace("<<", "");
    if tw < 2 || rhs.contains(['=', '!', '<', '>', '+', '-', '*', '?', '{']) {
        return l.to_string();
    }
    let mut s = l.to_string();
    let mut from = 0;
    while let Some(k) = s[from..].find("((").map(|k| k + from) {
        from = k + 1;
        let rest = &s[k + 2..];
        let Some(close) = rest.find(") << ") else {
            continue;
        };
        let b = &rest[..close];
        if b.is_empty() || !b.bytes().all(is_ident_char) || d.width.get(b) != Some(&1) {
            continue;
        }
        let new = format!("({{{}'h0, {b}}}", tw - 1);
        s.replace_range(k + 1..k + 2 + close, &new);
        from = k + new.len();
    }
    s
}

/// Localparams used only as bit-select indices (`v[p]`, `v[(p)+:(n)]`)
/// into vectors that all have the same width `w`, with a value that is
/// a valid index: their new width, `clog2(w)`. The index's value is the
/// same at either width, so every select reads the same bits.
fn index_params(lines: &[String], d: &Decls) -> HashMap<String, u32> {
    let mut need: HashMap<&str, Option<u32>> = HashMap::new();
    for l in lines
        .iter()
        .filter(|l| !l.trim_start().starts_with("localparam "))
    {
        let b = l.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !is_ident_char(b[i]) || (i > 0 && is_ident_char(b[i - 1])) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            let name = &l[i..j];
            if let Some(&(pw, v)) = d.param.get(name) {
                // The vector this is an index of: `vec[name]` or `vec[(name)+:`.
                let before = &l[..i];
                let after = &l[j..];
                let vec = if after.starts_with(']') && before.ends_with('[') {
                    ident_before(l, i - 1)
                } else if after.starts_with(")+:") && before.ends_with("[(") {
                    ident_before(l, i - 2)
                } else {
                    None
                };
                let want = vec
                    .and_then(|(_, v)| d.width.get(v))
                    .map(|&w| 32 - (w - 1).leading_zeros())
                    .filter(|&iw| iw < pw && fits(v, iw) && iw > 0);
                let e = need.entry(&l[i..j]).or_insert(want);
                if *e != want {
                    *e = None;
                }
            }
            i = j;
        }
    }
    need.into_iter()
        .filter_map(|(n, w)| w.map(|w| (n.to_string(), w)))
        .collect()
}

/// The pragma after a file's top module: its sub-modules share the file.
const DECLFILENAME_OFF: &str = "\
// The modules below are the top's sub-modules, in the same file (one file per
// generated design); Verilator's DECLFILENAME rule (a file named after its
// module) holds for the top above and is off from here to the end of the file.
// verilator lint_off DECLFILENAME";

/// Moves module `top` (with the comment lines just above it) to the front
/// of `v`, after the file's header comment, and turns Verilator's
/// DECLFILENAME rule off after it. The file is named after the top; the
/// rule wants every module in a file of its own name, which one file per
/// design cannot give (Verilator reports the first module of a file that
/// differs), so the rule is checked for the top and off for the
/// sub-modules, in the file itself rather than in a waiver file a user must
/// add. The order of modules in a file means nothing to any tool.
pub fn top_first(v: &str, top: &str) -> String {
    let lines: Vec<&str> = v.lines().collect();
    let head = lines
        .iter()
        .position(|l| !l.starts_with("//"))
        .unwrap_or(lines.len());
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with(&format!("module {top}(")))
    else {
        return v.to_string();
    };
    let Some(end) = lines[start..]
        .iter()
        .position(|l| l.starts_with("endmodule"))
        .map(|e| start + e + 1)
    else {
        return v.to_string();
    };
    let mut first = start;
    while first > head && lines[first - 1].starts_with("//") {
        first -= 1;
    }
    if first <= head {
        return v.to_string();
    }
    let mut out: Vec<&str> = lines[..head].to_vec();
    out.push("");
    out.extend(&lines[first..end]);
    out.push("");
    out.extend(DECLFILENAME_OFF.lines());
    out.extend(&lines[head..first]);
    out.extend(&lines[end..]);
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// Marks the declarations of the registers `names` `(* keep *)`, and
/// returns how many it marked. yosys keeps a kept net as it is, so the
/// logic that drives it is mapped once, not folded into each cone that
/// reads it. The router uses it for the fast hop's bypass multiplexers
/// (`crate::generate`), which ABC otherwise copies into every crossbar
/// output a link input reaches. Simulators ignore the attribute.
pub fn keep_regs(v: &str, names: &[String]) -> (String, usize) {
    let mut marked = 0;
    let mut out = String::with_capacity(v.len() + 16 * names.len());
    for line in v.lines() {
        let t = line.trim_start();
        let declared = t
            .strip_prefix("reg ")
            .and_then(|r| r.trim_end().strip_suffix(';'))
            .and_then(|r| r.split_whitespace().last());
        if declared.is_some_and(|n| names.iter().any(|k| k == n)) {
            out.push_str(&line[..line.len() - t.len()]);
            out.push_str("(* keep *) ");
            out.push_str(t);
            marked += 1;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    (out, marked)
}

/// The pragma before a fabric's instances: some outputs are left open.
const PINCONNECTEMPTY_OFF: &str = "    \
// Outputs nothing in this module reads are left open, `.err_count_o()`:
    // the error registers (read through the hierarchy, r$<node>.err_count$q)
    // and the link ports without a class (unused by every tree, or faulty).
    // verilator lint_off PINCONNECTEMPTY
";

/// In module `top`, a wire that only an instance's output drives and
/// nothing reads (a router's error ports in a fabric, which exports only
/// the NI ports; a link port without a class) is dropped and the output
/// left open, `.err_count_o()`: the same netlist without a dangling wire.
pub fn open_unread_outputs(v: &str, top: &str) -> String {
    let lines: Vec<&str> = v.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with(&format!("module {top}(")))
    else {
        return v.to_string();
    };
    let end = lines[start..]
        .iter()
        .position(|l| l.starts_with("endmodule"))
        .map_or(lines.len(), |e| start + e);
    let body = &lines[start..end];
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for l in body {
        let b = l.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !is_ident_char(b[i]) {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < b.len() && is_ident_char(b[j]) {
                j += 1;
            }
            *uses.entry(&l[i..j]).or_default() += 1;
            i = j;
        }
    }
    let wire_name = |l: &str| -> Option<String> {
        let r = l.trim().strip_prefix("wire ")?.strip_suffix(';')?;
        let name = r.rsplit(' ').next()?;
        (name.bytes().all(is_ident_char) && name.starts_with("r$")).then(|| name.to_string())
    };
    let unread: std::collections::HashSet<String> = body
        .iter()
        .filter_map(|l| wire_name(l))
        .filter(|n| uses.get(n.as_str()) == Some(&2))
        .collect();
    let mut out = String::with_capacity(v.len());
    let first_inst = body
        .iter()
        .position(|l| {
            l.trim_end().ends_with('(') && l.starts_with("    ") && !l.starts_with("     ")
        })
        .map(|p| start + p);
    for (i, l) in lines.iter().enumerate() {
        if !unread.is_empty() && Some(i) == first_inst {
            out.push_str(PINCONNECTEMPTY_OFF);
        }
        if !unread.is_empty() && i == end {
            out.push_str("    // verilator lint_on PINCONNECTEMPTY\n");
        }
        if (start..end).contains(&i) {
            if wire_name(l).is_some_and(|n| unread.contains(&n)) {
                continue;
            }
            if let Some((pin, net)) = l.trim().split_once('(') {
                let net = net.trim_end_matches(',').trim_end_matches(')');
                if pin.starts_with('.') && unread.contains(net) {
                    let indent = &l[..l.len() - l.trim_start().len()];
                    let comma = if l.trim_end().ends_with(',') { "," } else { "" };
                    out.push_str(&format!("{indent}{pin}(){comma}\n"));
                    continue;
                }
            }
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decls(v: &str) -> Decls {
        Decls::of(&v.lines().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn each_idiom_is_narrowed_and_nothing_else() {
        type Rewrite = fn(&str, &Decls) -> String;
        let d = decls(
            "    input wire  [3:0] c;\n    reg  [8:0] worm_n;\n    reg  w_tail;\n    reg  [5:0] p_rl;\n    reg  [16:0] sum;\n    reg  [15:0] q;",
        );
        let cases: &[(Rewrite, &str, &str)] = &[
            (assign_literal, "        c = 32'h1;", "        c = 4'h1;"),
            (assign_literal, "        q <= 32'h0;", "        q <= 16'h0;"),
            // A value that does not fit is a real finding: left for the lint.
            (assign_literal, "        c = 32'h10;", "        c = 32'h10;"),
            (assign_literal, "        x = 32'h1;", "        x = 32'h1;"),
            (
                compare_literal,
                "if ((c == 32'h0) & (c != 32'h3)) begin",
                "if ((c == 4'h0) & (c != 4'h3)) begin",
            ),
            // `a + c == 0` compares the sum: not rewritten.
            (
                compare_literal,
                "x = a + c == 32'h0;",
                "x = a + c == 32'h0;",
            ),
            (
                masks,
                "worm_n = (((p_rl) & 9'h1ff) << 32'h1);",
                "worm_n = ({3'h0, p_rl} << 32'h1);",
            ),
            (masks, "q = ((sum) & 16'hffff);", "q = sum[15:0];"),
            // A truncation inside a concatenation would change its width: left alone.
            (
                masks,
                "q = {((sum) & 16'hffff), c};",
                "q = {((sum) & 16'hffff), c};",
            ),
            // A shift sized by a compare, not by the assignment: left alone.
            (
                shifted_bits,
                "worm_n = ((w_tail) << (32'h3)) == c;",
                "worm_n = ((w_tail) << (32'h3)) == c;",
            ),
            // Not a full mask: left alone.
            (masks, "q = ((sum) & 16'hfff0);", "q = ((sum) & 16'hfff0);"),
            (
                shifted_bits,
                "worm_n = (worm_n & ~(1 << (32'h0)) | ((w_tail) << (32'h0)));",
                "worm_n = (worm_n & ~(1 << (32'h0)) | (({8'h0, w_tail}) << (32'h0)));",
            ),
        ];
        for (rewrite, line, want) in cases {
            assert_eq!(rewrite(line, &d), *want, "rewriting `{line}`");
        }
    }

    #[test]
    fn index_params_are_narrowed_only_when_every_use_is_an_index() {
        let v = "module m(f, o, p);\n    input wire  [31:0] f;\n    output reg  [1:0] o;\n    output reg  p;\n    localparam  s = 8'h8;\n    localparam  t = 8'h3;\n    always @(*) begin\n        o = f[(s)+:(2)];\n        p = f[t] & (t == 8'h3);\n    end\nendmodule\n";
        let n = narrow_widths(v);
        assert!(n.contains("localparam  s = 5'h8;"), "{n}");
        assert!(n.contains("localparam  t = 8'h3;"), "{n}");
    }

    #[test]
    fn top_first_and_open_outputs() {
        let v = "// head\nmodule a(x);\nendmodule\n\n// the top\nmodule t(y);\n    wire r$0$e;\n    wire r$0$f;\n    a r$0(\n        .e(r$0$e),\n        .f(r$0$f)\n    );\n    assign y = r$0$f;\nendmodule\n";
        let o = open_unread_outputs(v, "t");
        assert!(
            !o.contains("wire r$0$e;") && o.contains(".e(),") && o.contains(".f(r$0$f)"),
            "{o}"
        );
        let f = top_first(&o, "t");
        assert!(f.starts_with("// head\n\n// the top\nmodule t(y);"), "{f}");
        assert_eq!(module_names(&f), ["t", "a"]);
    }

    #[test]
    fn patterns() {
        assert_eq!(module_pattern("$fifo$3$slot$0"), "$fifo$<i>$slot$<i>");
        assert_eq!(
            source_of("$dec$tree$2$cmp").unwrap().file,
            "rtl/src/compare.rs"
        );
        assert!(source_of("$nope").is_none());
    }
}
