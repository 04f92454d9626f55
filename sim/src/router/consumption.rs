//! What a first HEAD asks of the consumption side, under every routing
//! function: which consumption channel it takes ([`consumption_choice`],
//! [`input_pool`]) and what a HEAD for this node requests (`own_header`).
//! Shared by the dispatcher ([`super::routing`]) and the mesh routing
//! functions ([`super::mesh`]), so both sit above it.

use super::RouterError;
use crate::config::{RouterConfig, RouterParams};
use crate::flit;

/// Output index of a consumption channel.
pub fn consumption_output(c: u8) -> usize {
    4 + c as usize
}

/// The consumption output a C=1 header of `class` requests this cycle: the
/// lowest free channel of the class's pool, else the lowest of the pool.
/// Recomputed every cycle while the request waits. `owned` has bit `o` set
/// when output `o` has an owner.
pub fn consumption_choice(p: &RouterParams, class: u8, owned: u8) -> usize {
    pool_choice(p.consumption_pool(class), owned)
}

/// The lowest free channel of `pool` (bit j = channel j), else its lowest.
pub fn pool_choice(pool: u8, owned: u8) -> usize {
    let free = pool & !(owned >> 4);
    let pick = if free != 0 { free } else { pool };
    consumption_output(pick.trailing_zeros() as u8)
}

/// The consumption pool a first HEAD of `class` at `input` takes its
/// channel from: its class's pool, or with a mesh routing function its
/// arrival group's whatever the class (`mesh::first_head`; an injection
/// input is group 0). The one rule for the native decode and the RTL's
/// `t_pool` table.
pub fn input_pool(cfg: &RouterConfig, p: &RouterParams, input: usize, class: u8) -> u8 {
    match (&cfg.mesh, p.routing.is_mesh()) {
        (Some(m), true) => {
            let g = if input < 4 { m.cons_group[input] } else { 0 };
            p.pool_of(g, m.groups as usize)
        }
        _ => p.consumption_pool(class),
    }
}

/// A first HEAD for this node, under every routing function: it is
/// stripped and requests the consumption output `cons` gives (if C) and
/// every link its O bits name, each of which `link_ok` must accept. One rule
/// so the malformed cases (`NoOutput` before `BadLink`) cannot drift apart
/// between routing functions.
pub(super) fn own_header(
    h: &flit::Head,
    cons: impl FnOnce() -> usize,
    link_ok: impl Fn(usize) -> bool,
) -> Result<u8, RouterError> {
    if !h.c && h.o == 0 {
        return Err(RouterError::NoOutput);
    }
    let mut mask = 0u8;
    if h.c {
        mask |= 1 << cons();
    }
    for d in 0..4 {
        if h.o >> d & 1 == 1 {
            if !link_ok(d) {
                return Err(RouterError::BadLink);
            }
            mask |= 1 << d;
        }
    }
    Ok(mask)
}
