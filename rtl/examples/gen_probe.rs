use rust_hdl::prelude::*;
use wormcast_rtl::fabric_cfg::dstm_configs;
use wormcast_rtl::Router;
use wormcast_sim::config::RouterParams;
use wormcast_sim::topology::Topology;
use wormcast_sim::trees::Named;
fn main() {
    let p = RouterParams::default();
    let cfg = dstm_configs(&Topology::torus(4, 4).unwrap(), Named::Dstm1, &p).unwrap();
    let mut r = Router::<32>::new(&cfg[0], &p);
    r.connect_all();
    let v = generate_verilog(&r);
    std::fs::write("/tmp/router0.v", &v).unwrap();
    println!("{}", yosys_validate("wormcast_probe", &v).is_ok());
}
