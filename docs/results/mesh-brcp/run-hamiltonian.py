#!/usr/bin/env python3
"""OCMS vs OTMS vs dual-path vs multi-path on the cycle model ([PATHOPT]
schemes, hamiltonian routing), base.toml system, 20 destinations, low and
high load. Traffic = flit-hops per delivered message (all flits, HEADs
included). Writes hamiltonian.json. Run from the repository root."""
import json, subprocess
D = "docs/results/mesh-brcp"
out = []
for load in ("0.00001", "0.00005"):
    for scheme in ("dual-path", "multi-path", "ocms", "otms"):
        r = subprocess.run(["target/release/wormcast", "run", "--scenario", f"{D}/base.toml",
                            "--set", "network.routing=hamiltonian", "--set", f"traffic.multicast_scheme={scheme}",
                            "--set", "traffic.destinations=20", "--set", f"traffic.rate={load}",
                            "--json", "-", "-q"], capture_output=True, text=True)
        rep = json.loads(r.stdout)
        pt = {"scheme": scheme, "load": float(load), "latency_mean_cycles": rep["latency"]["mean"],
              "latency_p99_cycles": rep["latency"]["p99"],
              "flit_hops_per_message": rep["flit_hops"] / max(1, rep["delivered_messages"]),
              "link_utilisation_mean": rep["link_utilisation_mean"], "saturated": rep["saturated"],
              "deadlock": rep["deadlock"], "stop_reason": rep["stop_reason"],
              "delivered": rep["delivered_messages"]}
        print(json.dumps(pt), flush=True)
        out.append(pt)
json.dump(out, open(f"{D}/hamiltonian.json", "w"), indent=1)
