//! The text passes over rust-hdl's Verilog (`rtl/src/verilog_text.rs`):
//! every module of the generated router core has an entry in the source
//! map, every entry names Rust and docs that exist, and the width
//! rewrites are the same logic as rust-hdl's own text (yosys equivalence,
//! ignored by default: about two CPU-minutes).

mod common;

use common::have;
use rust_hdl::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use wormcast_rtl::fabric_cfg::configs;
use wormcast_rtl::generate::{fabric_module, ROUTER_MODULE};
use wormcast_rtl::verilog_text::{module_names, module_pattern, narrow_widths, SOURCES};
use wormcast_rtl::{Fault, Router};
use wormcast_sim::config::{RouterParams, RoutingKind};
use wormcast_sim::flit::FlitFormat;
use wormcast_sim::topology::Topology;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Networks whose routers, together, hold every kind of core module:
/// each routing function, a setup delay with and without a deferred
/// strip, buffer depths 1, 2 and 4, flit widths 16, 32 and 64.
fn networks() -> Vec<(Topology, RouterParams)> {
    let torus = Topology::torus(4, 4).unwrap();
    let mesh = Topology::mesh(4, 4).unwrap();
    let p = RouterParams::default();
    let with = |routing: RoutingKind| RouterParams {
        routing,
        classes: match routing {
            RoutingKind::Spam => 1,
            RoutingKind::Tree => 2,
            r => r.mesh_classes(),
        },
        ..p
    };
    vec![
        (torus, p),
        (
            torus,
            RouterParams {
                setup_cycles: 2,
                ..with(RoutingKind::Spam)
            },
        ),
        (
            torus,
            RouterParams {
                setup_cycles: 1,
                strip_deferred: true,
                ..p
            },
        ),
        (
            torus,
            RouterParams {
                depth: 4,
                flit: FlitFormat::new(16).unwrap(),
                ..p
            },
        ),
        (
            torus,
            RouterParams {
                depth: 1,
                injection: 2,
                consumption: 1,
                flit: FlitFormat::new(64).unwrap(),
                ..p
            },
        ),
        (mesh, with(RoutingKind::Hamiltonian)),
        (mesh, with(RoutingKind::Dor)),
        (mesh, with(RoutingKind::NegativeFirst)),
    ]
}

#[test]
fn every_core_module_has_a_source_and_the_header_names_it() {
    let mut used = vec![false; SOURCES.len()];
    for (topo, p) in networks() {
        let cfg = configs(&topo, None, &p).unwrap();
        let g = fabric_module(&topo, &p, &cfg).unwrap();
        let header: String = g
            .verilog
            .lines()
            .take_while(|l| l.starts_with("//"))
            .map(|l| format!("{l}\n"))
            .collect();
        let mut n = 0;
        for m in module_names(&g.verilog) {
            let Some(suffix) = m.strip_prefix(ROUTER_MODULE) else {
                continue;
            };
            n += 1;
            let pattern = module_pattern(suffix);
            let Some(k) = SOURCES.iter().position(|s| s.module == pattern) else {
                panic!(
                    "{topo} {:?}: module {m} has no entry in verilog_text::SOURCES",
                    p.routing
                );
            };
            used[k] = true;
            let line = format!("//   {ROUTER_MODULE}{pattern} ");
            assert!(header.contains(&line), "header lacks {m}:\n{header}");
        }
        assert!(n > 50, "{topo}: only {n} core modules found");
    }
    for (s, u) in SOURCES.iter().zip(&used) {
        assert!(
            u,
            "SOURCES entry {:?} matches no generated module",
            s.module
        );
    }
}

#[test]
fn every_source_entry_names_rust_and_docs_that_exist() {
    let read =
        |f: &str| std::fs::read_to_string(root().join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    for s in SOURCES {
        let rust = read(s.file);
        let (ty, field) = match s.item.split_once("::") {
            Some((t, f)) => (t, Some(f)),
            None => (s.item, None),
        };
        assert!(
            rust.contains(&format!("pub struct {ty}")),
            "{}: no struct {ty}",
            s.file
        );
        if let Some(f) = field {
            assert!(
                rust.contains(&format!(" {f}: ")),
                "{}: no field {f}",
                s.file
            );
        }
        // `docs/x.md "Heading"`, `docs/x.md 3d`, `3s` (same file), `rtl/README.md "Blocks"`.
        let mut file = String::new();
        for part in s.doc.split(", ") {
            let part = part.trim();
            let section = if part.starts_with("docs/") || part.starts_with("rtl/") {
                let (f, rest) = part.split_once(' ').unwrap_or((part, ""));
                file = f.to_string();
                rest.trim()
            } else {
                part
            };
            let text = read(&file);
            if section.is_empty() {
                continue;
            }
            let found = if let Some(h) = section.strip_prefix('"') {
                let h = h.trim_end_matches('"');
                text.lines().any(|l| l.starts_with('#') && l.contains(h))
            } else {
                text.lines().any(|l| {
                    l.starts_with(&format!("### {section}. "))
                        || l.starts_with(&format!("## {section}. "))
                })
            };
            assert!(found, "{:?}: no section {section} in {file}", s.module);
        }
    }
}

/// The width rewrites keep every bit: yosys proves rust-hdl's own text of
/// the default router and the rewritten text equivalent (`equiv_make`,
/// `equiv_simple`, `equiv_induct`; registers are matched by name). About
/// two CPU-minutes, so run by hand:
/// `cargo test -p wormcast-rtl --test verilog_text -- --ignored`.
#[test]
#[ignore]
fn narrowed_router_is_equivalent_to_rust_hdls_text() {
    if !have("yosys") {
        return;
    }
    let topo = Topology::torus(4, 4).unwrap();
    let p = RouterParams::default();
    let cfg = configs(&topo, None, &p).unwrap();
    let mut r = Router::<32>::generic(&cfg[5], &p, Fault::None);
    r.connect_all();
    let raw = generate_verilog(&r);
    let narrow = narrow_widths(&raw);
    assert_ne!(raw, narrow, "nothing was rewritten");
    let dir = common::scratch("verilog_text_equiv");
    for (name, text) in [("gold", &raw), ("gate", &narrow)] {
        std::fs::write(dir.join(format!("{name}.v")), text).unwrap();
        let o = Command::new("yosys")
            .current_dir(&dir)
            .args(["-q", "-p"])
            .arg(format!(
                "read_verilog {name}.v; hierarchy -top top; proc; memory; flatten; opt_clean; \
                 rename top {name}; write_rtlil {name}.il"
            ))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = Command::new("yosys")
        .current_dir(&dir)
        .args(["-q", "-l", "equiv.log", "-p"])
        .arg(
            "read_rtlil gold.il; read_rtlil gate.il; equiv_make gold gate equiv; \
             hierarchy -top equiv; equiv_simple -seq 5; equiv_induct -seq 5; equiv_status -assert",
        )
        .output()
        .unwrap();
    let log = std::fs::read_to_string(dir.join("equiv.log")).unwrap_or_default();
    let status: Vec<&str> = log.lines().filter(|l| l.contains("are proven")).collect();
    eprintln!("{}", status.join("\n"));
    assert!(
        o.status.success(),
        "not proven equivalent: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        status.iter().any(|l| l.contains(" 0 are unproven")),
        "{log}"
    );
}
