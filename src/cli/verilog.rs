//! `wormcast verilog`: writes the Verilog of one router or of a whole
//! fabric (docs/architecture.md §7): DSTM tree routing or the SPAM baseline
//! (`--routing spam`) on a torus, or a mesh routing function
//! (`--routing hamiltonian|dor|negative_first`) on a mesh, optionally with a header setup delay
//! (`--setup-cycles`), one `.v` file per top module plus a `manifest.json`
//! with the files, the top module, the parameters (routing and setup cycles
//! included) and the port map (names, directions, widths). Output is
//! deterministic.

use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use wormcast_rtl::boards::Board;
use wormcast_rtl::fabric_cfg::{configs, dstm_configs_faulty};
use wormcast_rtl::fpga_top::{board_wrapper, fpga_top_as, BOARD_MODULE, TOP_OUTPUTS};
use wormcast_rtl::generate::{fabric_module_as, router_module, Generated, Instances, WIDTHS};
use wormcast_rtl::router::Fault;
use wormcast_sim::config::{Hop, RouterParams, RoutingKind};
use wormcast_sim::flit::FlitFormat;
use wormcast_sim::onchip::{GenOptions, Plan};
use wormcast_sim::scenario::Scenario;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
use wormcast_sim::InputError;

#[derive(clap::Args)]
pub struct VerilogArgs {
    /// Generate a single router (node `--node` of the network) instead of
    /// the whole fabric.
    #[arg(long)]
    pub router: bool,
    /// Network: `torus:KxM` for tree and spam routing, `mesh:KxM` for the
    /// mesh routing functions.
    #[arg(long, default_value = "torus:4x4")]
    pub topology: String,
    /// Routing function: `tree` (DSTM up/down, two classes) or `spam` (the
    /// SPAM baseline: one tree plus cross links, one class) on a torus;
    /// `hamiltonian` (two classes), `dor` or `negative_first` on a mesh.
    #[arg(long, default_value = "tree")]
    pub routing: String,
    /// Trees: `dstm1` (default for tree routing), `dstm2`, or a method such
    /// as `+x-y/-y+x`. With `--routing spam`: `bfs` (default, a BFS tree
    /// from node 0) or a construction whose tree 0 SPAM uses.
    #[arg(long)]
    pub construction: Option<String>,
    /// Header setup delay: cycles a first HEAD waits at its FIFO head
    /// before requesting (0..255).
    #[arg(long, default_value_t = 0)]
    pub setup_cycles: u32,
    /// Deferred strip: a first HEAD stripped at its grant leaves its FIFO
    /// one cycle later (one more cycle at each router that strips; with
    /// `--setup-cycles 1` the fastest router on an iCE40 HX8K,
    /// docs/hardware.md 3h and 3i).
    #[arg(long)]
    pub strip_deferred: bool,
    /// Per-hop timing contract: `standard` (3 cycles a first HEAD, 2 any
    /// other flit) or `fast` (2 and 1: the grant loads the output register,
    /// and a BODY or TAIL bypasses an empty FIFO; docs/router.md "Link
    /// protocol and timing").
    #[arg(long, default_value = "standard")]
    pub hop: String,
    /// With `--router`: the node whose constants the router gets, `X,Y` or an id.
    #[arg(long, default_value = "0")]
    pub node: String,
    /// Flit width in bits.
    #[arg(long, default_value_t = 32)]
    pub flit_width: u32,
    /// Input buffer depth in flits.
    #[arg(long, default_value_t = 2)]
    pub buffer_depth: usize,
    /// Injection channels per router.
    #[arg(long, default_value_t = 1)]
    pub injection_channels: usize,
    /// Consumption channels per router.
    #[arg(long, default_value_t = 2)]
    pub consumption_channels: usize,
    /// Tree routing: one faulty link `X,Y,DIR` (DIR +x, -x, +y or -y;
    /// paper 000 §7). The link gets no class in either router.
    #[arg(long)]
    pub faulty_link: Option<String>,
    /// With `--faulty-link`: `global` (sources avoid the link; the routers
    /// need nothing more) or `local` (the routers at its ends divert worms
    /// that would cross it to their NI: `divert_out` constants).
    #[arg(long, default_value = "global")]
    pub fault_info: String,
    /// Write the self-checking FPGA top instead: the fabric
    /// with an LFSR traffic generator per node and a checker per
    /// consumption channel, `pass`, `err_count` and a heartbeat; plus the
    /// iCE40-HX8K breakout board wrapper and its `.pcf`
    /// (docs/hardware.md section 5).
    #[arg(long)]
    pub fpga_top: bool,
    /// FPGA top: new-message probability per idle generator cycle, in
    /// 1/256 (0..=256).
    #[arg(long, default_value_t = 16, value_parser = gen_rate)]
    pub gen_rate: u32,
    /// FPGA top: fraction of each node's ROM entries that are multicasts.
    #[arg(long, default_value_t = 0.25)]
    pub gen_multicast: f64,
    /// FPGA top: ROM entries (messages) per node, a power of two.
    #[arg(long, default_value_t = 16)]
    pub gen_entries: u32,
    /// FPGA top: data flits per message (identity BODY .. TAIL).
    #[arg(long, default_value_t = 4)]
    pub gen_length: u32,
    /// FPGA top: messages per node, then stop (`done`); 0 = for ever.
    #[arg(long, default_value_t = 0)]
    pub gen_messages: u32,
    /// FPGA top: seed of the ROM contents, tree choice and LFSRs.
    #[arg(long, default_value_t = 1)]
    pub gen_seed: u64,
    /// FPGA top on a mesh: the multicast scheme whose worms the generators
    /// send (`traffic.multicast_scheme`; `auto` = the routing's own).
    #[arg(long, default_value = "auto")]
    pub scheme: String,
    /// A fabric with one thin module per distinct router
    /// (`wormcast_node_n<k>`: the shared router with node k's tables tied
    /// off inside) instead of tables tied off at each instance: the same
    /// logic, for synthesis out of context at network scale
    /// (`scripts/synth_fabric.py`, docs/fpga.md).
    #[arg(long)]
    pub per_node: bool,
    /// FPGA top: the board whose wrapper pins are written
    /// (`hx8k-breakout`: iCE40-HX8K breakout `.pcf`; `ulx3s-85f`: ULX3S
    /// with the LFE5U-85F, `.lpf`).
    #[arg(long, default_value = "hx8k-breakout")]
    pub board: String,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// `--gen-rate`: a whole number of 256ths, so a fraction typed as such
/// (`0.1`) is told what the flag takes instead of "invalid digit". The
/// range is the generator plan's check (`gen_rate`, 0 to 256).
fn gen_rate(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
            "a whole number from 0 to 256: the new-message probability per idle generator cycle in 256ths (16 = 1/16; for a probability p give round(256 p), e.g. 0.1 -> 26)".to_string()
    })
}

pub fn run(a: VerilogArgs) -> Result<ExitCode, String> {
    go(a).map_err(|e| e.to_string())
}

fn parse_node(topo: &Topology, s: &str) -> Result<u32, InputError> {
    if let Ok(id) = s.trim().parse::<u32>() {
        if id < topo.nodes() {
            return Ok(id);
        }
        return Err(InputError::new(
            "node",
            s,
            format!("a node id below {} or `X,Y`", topo.nodes()),
        ));
    }
    topo.parse_node(s, "node")
}

fn go(a: VerilogArgs) -> Result<ExitCode, InputError> {
    let topo = Topology::parse(&a.topology)?;
    let routing = RoutingKind::parse(&a.routing, "routing")?;
    let mesh = routing.is_mesh();
    if mesh && topo.is_torus() {
        return Err(InputError::new(
            "routing",
            routing.name(),
            "tree or spam on a torus (hamiltonian, dor and negative_first need `mesh:KxM`)",
        ));
    }
    if mesh && a.construction.is_some() {
        return Err(InputError::new(
            "construction",
            a.construction.clone().unwrap_or_default(),
            "none with mesh routing (it uses no trees)",
        ));
    }
    let construction = a.construction.clone().unwrap_or_else(|| {
        if routing == RoutingKind::Spam {
            "bfs"
        } else {
            "dstm1"
        }
        .to_string()
    });
    // SPAM on a BFS tree has no named construction.
    let named = if mesh || (routing == RoutingKind::Spam && construction.trim() == "bfs") {
        None
    } else {
        Some(Named::parse(&construction)?)
    };
    if a.setup_cycles > 255 {
        return Err(InputError::new("setup_cycles", a.setup_cycles, "0 to 255"));
    }
    let flit = FlitFormat::new(a.flit_width)?;
    if !WIDTHS.contains(&a.flit_width) {
        return Err(InputError::new(
            "flit_width",
            a.flit_width,
            format!("one of {WIDTHS:?} for Verilog generation"),
        ));
    }
    let params = RouterParams {
        flit,
        depth: a.buffer_depth,
        injection: a.injection_channels,
        consumption: a.consumption_channels,
        classes: match routing {
            RoutingKind::Spam => 1,
            RoutingKind::Tree => 2,
            _ => routing.mesh_classes(),
        },
        routing,
        setup_cycles: a.setup_cycles,
        strip_deferred: a.strip_deferred,
        hop: a.hop.trim().parse::<Hop>()?,
    };
    params.validate()?;
    let local = match a.fault_info.trim() {
        "global" => false,
        "local" => true,
        f => return Err(InputError::new("fault_info", f, "`global` or `local`")),
    };
    let cfg = match &a.faulty_link {
        None if local => {
            return Err(InputError::new(
                "fault_info",
                "local",
                "only with --faulty-link",
            ))
        }
        None => configs(&topo, named, &params)?,
        Some(_) if routing != RoutingKind::Tree => {
            return Err(InputError::new(
                "faulty_link",
                a.faulty_link.clone().unwrap_or_default(),
                "only with tree routing (paper 000 §7's single-link fault tolerance)",
            ))
        }
        Some(l) => {
            let e = wormcast_sim::scenario::parse_link(&topo, l).map_err(|e| InputError {
                field: "faulty_link".into(),
                ..e
            })?;
            dstm_configs_faulty(
                &topo,
                named.unwrap_or(Named::Dstm1),
                &params,
                Some(e),
                local,
            )?
        }
    };
    if a.fpga_top {
        return fpga(&a, &params);
    }
    if a.per_node && a.router {
        return Err(InputError::new(
            "per_node",
            "with --router",
            "a whole fabric only (a single router is already one node's module)",
        ));
    }
    let (g, node): (Generated, Option<u32>) = if a.router {
        let n = parse_node(&topo, &a.node)?;
        (router_module(&params, &cfg[n as usize])?, Some(n))
    } else {
        let inst = if a.per_node {
            Instances::PerNode
        } else {
            Instances::Shared
        };
        (
            fabric_module_as(&topo, &params, &cfg, Fault::None, inst)?,
            None,
        )
    };
    let io = |e: std::io::Error| InputError::new("out", a.out.display().to_string(), e.to_string());
    std::fs::create_dir_all(&a.out).map_err(io)?;
    let file = format!("{}.v", g.top);
    std::fs::write(a.out.join(&file), &g.verilog).map_err(io)?;
    let (filelist, filelist_rel) = write_file_lists(&a.out, &g.top, &[&file]).map_err(io)?;
    let manifest = json!({
        "generator": "wormcast verilog (rtl/, rust-hdl 0.46)",
        "kind": if a.router { "router" } else { "fabric" },
        "per_node": a.per_node,
        "files": [file],
        "filelist": filelist,
        "filelist_relative": filelist_rel,
        "top": g.top,
        "parameters": {
            "topology": topo.to_string(),
            "construction": if mesh {
                serde_json::Value::Null
            } else {
                named.map_or("bfs".to_string(), |n| n.to_string()).into()
            },
            "node": node,
            "flit_width": params.flit.width,
            "buffer_depth": params.depth,
            "injection_channels": params.injection,
            "consumption_channels": params.consumption,
            "classes": params.classes,
            "routing": a.routing.trim(),
            "setup_cycles": params.setup_cycles,
            "strip_deferred": params.strip_deferred,
            "hop": params.hop.name(),
            "faulty_link": a.faulty_link.as_deref().map(str::trim),
            "fault_info": a.faulty_link.as_ref().map(|_| a.fault_info.trim()),
            "divert_out": cfg.iter().map(|c| c.divert_out).collect::<Vec<_>>(),
        },
        "ports": g.ports,
        "port_naming": if a.router {
            "in_P_flit/in_P_valid in, in_P_ready out: router input P (px, mx, py, my = +x, -x, +y, -y links; inj0.. = injection channels); out_P_flit/out_P_valid out, out_P_ready in: router output P (px..my links; cons0.. = consumption channels); err_count, err_code: error register; clk: rising edge; rst: active high, synchronous"
        } else {
            "nN_injK_flit/nN_injK_valid in, nN_injK_ready out: injection channel K of node N; nN_consK_flit/nN_consK_valid out, nN_consK_ready in: consumption channel K of node N (node ids: docs/conventions.md); clk: rising edge; rst: active high, synchronous; instance r$N is node N's router, registers at r$N.<reg>"
        },
    });
    let text = serde_json::to_string_pretty(&manifest).expect("JSON") + "\n";
    std::fs::write(a.out.join("manifest.json"), text).map_err(io)?;
    outln!(
        "wrote {} ({} lines), {}, {} and manifest.json to {}",
        file,
        g.verilog.lines().count(),
        filelist,
        filelist_rel,
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The file lists for simulators and synthesis flows, written beside the
/// Verilog; returns their names.
///
/// `<top>.f` holds absolute paths, so it works from any working directory
/// with every tool that reads a list: `verilator -f` / `-F`, `iverilog -c`
/// (also `-f`), and yosys through the shell (`read_verilog $(cat <top>.f)`;
/// Debian's yosys 0.23 has no list option of its own: `read -f` needs the
/// commercial Verific front end). Relative paths in a list are taken from
/// the working directory by `verilator -f` and by iverilog, so a list of
/// bare names worked only inside the output folder.
///
/// `<top>.rel.f` holds the same files by bare name, for `verilator -F`,
/// which takes a list's relative paths from the list's own folder: it keeps
/// working when the folder is moved or copied (to another machine, into a
/// CI artefact), where the absolute list no longer does. iverilog has no
/// such option.
fn write_file_lists(
    out: &std::path::Path,
    top: &str,
    files: &[&str],
) -> std::io::Result<(String, String)> {
    let dir = std::fs::canonicalize(out)?;
    let abs: String = files
        .iter()
        .map(|f| format!("{}\n", dir.join(f).display()))
        .collect();
    let rel: String = files.iter().map(|f| format!("{f}\n")).collect();
    let (fa, fr) = (format!("{top}.f"), format!("{top}.rel.f"));
    std::fs::write(out.join(&fa), abs)?;
    std::fs::write(out.join(&fr), rel)?;
    Ok((fa, fr))
}

/// `--fpga-top`: the plan from a scenario of the same flags (so the
/// native model and `wormcast run` see the same network), then the top,
/// the board wrapper, the `.pcf`, the file list and the manifest.
fn fpga(a: &VerilogArgs, params: &RouterParams) -> Result<ExitCode, InputError> {
    if a.router {
        return Err(InputError::new(
            "fpga_top",
            "with --router",
            "a whole fabric only",
        ));
    }
    if let Some(l) = &a.faulty_link {
        return Err(InputError::new(
            "faulty_link",
            l,
            "none with --fpga-top (a diverted worm needs the NI's re-injection, which the on-chip generator does not have)",
        ));
    }
    let mut sets = vec![
        format!("network.topology={}", a.topology.trim()),
        format!("network.routing={}", a.routing.trim()),
        format!("network.header_setup_cycles={}", params.setup_cycles),
        format!("network.strip_deferred={}", params.strip_deferred),
        format!("network.hop={}", params.hop),
        format!("network.buffer_depth={}", params.depth),
        format!("network.flit_width={}", params.flit.width),
        format!("network.injection_channels={}", params.injection),
        format!("network.consumption_channels={}", params.consumption),
        format!("traffic.multicast_scheme={}", a.scheme.trim()),
    ];
    if let Some(c) = &a.construction {
        sets.push(format!("network.construction={}", c.trim()));
    } else if params.routing == RoutingKind::Spam {
        sets.push("network.construction=bfs".into());
    }
    let sc = Scenario::from_toml("", &sets, "wormcast verilog --fpga-top")?;
    let opts = GenOptions {
        rate: a.gen_rate,
        multicast: a.gen_multicast,
        entries: a.gen_entries,
        length: a.gen_length,
        messages: a.gen_messages,
        seed: a.gen_seed,
    };
    let board = Board::parse(&a.board)?;
    let plan = Plan::new(&sc, opts)?;
    let inst = if a.per_node {
        Instances::PerNode
    } else {
        Instances::Shared
    };
    let g = fpga_top_as(&plan, Fault::None, inst)?;
    let io = |e: std::io::Error| InputError::new("out", a.out.display().to_string(), e.to_string());
    std::fs::create_dir_all(&a.out).map_err(io)?;
    let file = format!("{}.v", g.top);
    let wrapper = format!("{BOARD_MODULE}.v");
    let pcf = board.constraint_file();
    std::fs::write(a.out.join(&file), &g.verilog).map_err(io)?;
    std::fs::write(a.out.join(&wrapper), board_wrapper(&g)).map_err(io)?;
    std::fs::write(a.out.join(pcf), board.constraints()).map_err(io)?;
    let (filelist, filelist_rel) =
        write_file_lists(&a.out, &g.top, &[&file, &wrapper]).map_err(io)?;
    let multicast = plan.pop.iter().flatten().filter(|&&p| p > 1).count();
    let manifest = json!({
        "generator": "wormcast verilog --fpga-top (rtl/src/fpga_top.rs)",
        "kind": "fpga_top",
        "files": [file, wrapper],
        "filelist": filelist,
        "filelist_relative": filelist_rel,
        "pcf": pcf,
        "board": board.name(),
        "family": board.family(),
        "clock_mhz": board.clock_mhz(),
        "per_node": a.per_node,
        "top": g.top,
        "board_top": BOARD_MODULE,
        "parameters": {
            "topology": plan.topo.to_string(),
            "routing": params.routing.name(),
            "construction": sc.network.construction,
            "multicast_scheme": sc.traffic.multicast_scheme.to_string(),
            "flit_width": params.flit.width,
            "buffer_depth": params.depth,
            "consumption_channels": params.consumption,
            "setup_cycles": params.setup_cycles,
            "strip_deferred": params.strip_deferred,
            "hop": params.hop.name(),
            "gen_rate_per_256": opts.rate,
            "gen_entries": opts.entries,
            "gen_multicast_entries_per_node": multicast / plan.rom.len(),
            "gen_length": opts.length,
            "gen_messages": opts.messages,
            "gen_seed": opts.seed,
            "lfsr_seeds": plan.seeds,
        },
        "ports": g.ports,
        "outputs": TOP_OUTPUTS.iter().map(|(n, w, m)| json!({"name": n, "width": w, "meaning": m})).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&manifest).expect("JSON") + "\n";
    std::fs::write(a.out.join("manifest.json"), text).map_err(io)?;
    outln!(
        "wrote {file} ({} lines), {wrapper}, {pcf}, {filelist}, {filelist_rel} and manifest.json to {}",
        g.verilog.lines().count(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
