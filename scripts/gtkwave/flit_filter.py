#!/usr/bin/env python3
"""GTKWave process filter: decodes a wormcast flit shown in hex.

GTKWave writes one value per line (hex, as the trace is formatted) and reads
one line back. The layout is the one of docs/conventions.md and
sim/src/flit.rs: kind [1:0] (0 HEAD, 1 BODY, 2 TAIL, 3 reserved), C [2],
O1..O4 [6:3] (+x -x +y -y), S [7], class [9:8], Node [W-1:10]; BODY and TAIL
carry payload [W-1:2]. Values with x or z bits are passed through.

    HEAD n=9 C O=+x,+y S c1
    BODY 0x1e
    TAIL 0x0
"""
import sys

KINDS = {0: "HEAD", 1: "BODY", 2: "TAIL", 3: "RSVD"}
PORTS = ("+x", "-x", "+y", "-y")


def decode(text: str) -> str:
    t = text.strip()
    try:
        v = int(t, 16)
    except ValueError:
        return t
    kind = v & 3
    if kind == 0:
        ports = [PORTS[i] for i in range(4) if v >> (3 + i) & 1]
        parts = [f"HEAD n={v >> 10}"]
        if v >> 2 & 1:
            parts.append("C")
        if ports:
            parts.append("O=" + ",".join(ports))
        if v >> 7 & 1:
            parts.append("S")
        parts.append(f"c{v >> 8 & 3}")
        return " ".join(parts)
    return f"{KINDS[kind]} {hex(v >> 2)}"


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(decode(line) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
