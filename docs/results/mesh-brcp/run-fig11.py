#!/usr/bin/env python3
"""[BRCP] Fig. 11 setting on the cycle model: multiple multicast, S
sources (128 or 256) each send one multicast at cycle 0 to D random
destinations; 1 injection channel, 50-flit messages, start-up 1000 cycles,
crossbar/injection latency 5 ns = 1 setup cycle. SCHL is not modelled.
Writes fig11.json (mean latency per point). Run from the repository root."""
import json, random, subprocess, sys
D = "docs/results/mesh-brcp"
K = 16
out = []
for sources in (128, 256):
    for dests in (16, 64, 128, 192, 255):
        for scheme, routing in (("brcp-pure", "negative_first"), ("brcp-minimal", "negative_first")):
            rnd = random.Random(sources * 1000 + dests)
            srcs = rnd.sample(range(K * K), sources)
            lines = ["[network]", 'topology = "mesh:16x16"', f'routing = "{routing}"',
                     "header_setup_cycles = 1", "injection_channels = 1", "consumption_channels = 4",
                     "[timing]", "startup_cycles = 1000", "startup_serial = true",
                     "[run]", "warmup = 0", "cycles = 1", "drain_cycles = 2000000", "deadlock_threshold = 5000",
                     "[traffic]", 'pattern = "scripted"', f'multicast_scheme = "{scheme}"']
            for s in srcs:
                ds = rnd.sample([v for v in range(K * K) if v != s], dests)
                dl = ", ".join(f'"{v % K},{v // K}"' for v in ds)
                lines += ["[[traffic.messages]]", "cycle = 0", f'source = "{s % K},{s // K}"',
                          f"destinations = [{dl}]", "length = 50"]
            path = f"/tmp/fig11-{sources}-{dests}-{scheme}.toml"
            open(path, "w").write("\n".join(lines) + "\n")
            r = subprocess.run(["target/release/wormcast", "run", "--scenario", path, "--json", "-", "-q"],
                               capture_output=True, text=True)
            rep = json.loads(r.stdout)
            pt = {"sources": sources, "destinations": dests, "scheme": scheme,
                  "latency_mean_cycles": rep["latency"]["mean"], "latency_max_cycles": rep["latency"]["max"],
                  "delivered": rep["delivered_messages"], "deadlock": rep["deadlock"],
                  "scoreboard_clean": rep["lost_messages"] + rep["duplicate_deliveries"] + rep["misdelivered"] + rep["corrupted_flits"] == 0,
                  "stop_reason": rep["stop_reason"]}
            print(json.dumps(pt)); sys.stdout.flush()
            out.append(pt)
json.dump(out, open(f"{D}/fig11.json", "w"), indent=1)
