//! Header decode and the routing function (docs/architecture.md §3 "Input port").
//! The mesh routing functions (`hamiltonian`, `dor`, `negative_first`) live
//! in [`super::mesh`]; this module only dispatches to them.
//!
//! `tree` routing (\[DSTM\] §3.1.2, §3.2.2): a header for another node goes
//! down into the child whose post-order range holds `Node`, else up. `S`
//! changes no routing decision; it only makes a down-phase header that would
//! go up detectably malformed.

// The consumption side every routing function shares lives below both this
// dispatcher and the mesh functions; re-exported under its old paths.
use super::consumption::own_header;
pub use super::consumption::{consumption_choice, consumption_output, input_pool, pool_choice};
use super::{InputRegs, RouterError};
use crate::config::{RouterConfig, RouterParams, RoutingKind};
use crate::flit::{self, Flit};
use crate::topology::Dir;

fn check_class(
    cfg: &RouterConfig,
    p: &RouterParams,
    input: usize,
    class: u8,
) -> Result<(), RouterError> {
    if class as usize >= p.classes {
        return Err(RouterError::BadClass);
    }
    // A link input carries only worms of that link's class.
    if input < 4 && cfg.in_class[input] != Some(class) {
        return Err(RouterError::BadClass);
    }
    Ok(())
}

fn link_ok(cfg: &RouterConfig, d: usize, class: u8) -> bool {
    cfg.out_class[d] == Some(class)
}

/// The outputs `input` can ever reserve (bit o = output o), under every
/// routing function. Only a first HEAD reserves (its request, at the
/// grant), and every routing function checks it the same way first: a link
/// input carries only its link's class (`check_class`, else `BadClass`),
/// an injection input any class below `classes`; a requested link must
/// carry the worm's class (`link_ok`, else `BadLink`; diversion requests
/// only healthy links checked so); a consumption channel comes from
/// [`input_pool`] of that class. So a link output is reachable from the
/// inputs of its own class and the injection inputs, a consumption channel
/// from the inputs whose classes' pools hold it. A U-turn stays reachable:
/// a HEAD for this node may name its arrival link among its O bits.
///
/// Why (area): the RTL masks each output's next owner
/// with the inputs that can reach it (`t_owners`), a constant per node, so
/// synthesis drops the owner bits and crossbar terms of pairs that never
/// meet: in a two-class DSTM torus a link output is fed by two link inputs
/// and the injection input instead of five inputs. `step_edge` asserts
/// every grant against it.
pub fn reachable_outputs(cfg: &RouterConfig, p: &RouterParams, input: usize) -> u8 {
    let classes = (0..p.classes as u8).filter(|&c| check_class(cfg, p, input, c).is_ok());
    let mut m = 0u8;
    for c in classes {
        for d in 0..4 {
            if link_ok(cfg, d, c) {
                m |= 1 << d;
            }
        }
        m |= input_pool(cfg, p, input, c) << 4;
    }
    m & super::low_bits(p.outputs())
}

/// Per output, the inputs that can ever own it (bit i = input i): the
/// transpose of [`reachable_outputs`].
pub fn possible_owners(cfg: &RouterConfig, p: &RouterParams) -> [u8; crate::config::MAX_OUTPUTS] {
    let mut own = [0u8; crate::config::MAX_OUTPUTS];
    for i in 0..p.inputs() {
        let r = reachable_outputs(cfg, p, i);
        for (o, w) in own.iter_mut().enumerate() {
            *w |= (r >> o & 1) << i;
        }
    }
    own
}

/// First HEAD at idle input `input`: the output mask to request, whether the
/// HEAD is stripped here, and the worm's class. `owned` has bit `o` set when
/// output `o` has an owner (used only by SPAM's consumption pool).
pub fn first_head(
    cfg: &RouterConfig,
    p: &RouterParams,
    input: usize,
    f: Flit,
    owned: u8,
) -> Result<(u8, bool, u8), RouterError> {
    let h = flit::decode_head(f);
    check_class(cfg, p, input, h.class)?;
    if p.routing.is_mesh() {
        return super::mesh::first_head(cfg, p, input, h, owned);
    }
    if h.node >= cfg.node_count {
        return Err(RouterError::NodeOutOfRange);
    }
    if p.routing == RoutingKind::Spam {
        return spam_first_head(cfg, p, input, h, owned);
    }
    if let Some(mask) = diversion(cfg, p, h, owned) {
        return mask.map(|m| (m, false, h.class));
    }
    let table = &cfg.tree[h.class as usize];
    if h.node == table.own {
        let mask = own_header(
            &h,
            || consumption_choice(p, h.class, owned),
            |d| link_ok(cfg, d, h.class),
        )?;
        return Ok((mask, true, h.class));
    }
    let d = table.route(h.node).ok_or(RouterError::NodeOutOfRange)?;
    if h.s && Some(d) == table.parent {
        return Err(RouterError::DownPhaseUp);
    }
    if input < 4 && d.index() == input {
        return Err(RouterError::BackToArrival);
    }
    if !link_ok(cfg, d.index(), h.class) {
        return Err(RouterError::BadLink);
    }
    Ok((1 << d.index(), false, h.class))
}

/// Local fault information (\[DSTM\] §7): "the router R at which the
/// message last arrives … instead of routing the branch of the message to
/// the faulty link, routes the branch to the local processor". A first HEAD
/// whose branch would cross a faulty output of `cfg.divert_out`:
///
/// * **for another node** (tree routing gives a faulty port): the whole worm
///   is that branch; it requests only the consumption channel of its class;
/// * **for this node, with O bits naming faulty ports**: the healthy O ports
///   (each checked like any O bit, `BadLink`) plus the consumption channel,
///   which stands for the faulty branches and, if C = 1, for this node.
///
/// Either way the HEAD is not stripped: it goes to the consumption channel
/// first, and the input enters `InState::Diverted`, where a trailing HEAD
/// below a reserved healthy link follows it ([`diverted_head`]) and every
/// other HEAD goes to the channel. The NI decodes the destinations from the
/// HEADs it receives (C = 1), delivers itself if among them and re-encodes
/// the rest on the good tree (`network::Network::relay`). A malformed
/// down-phase header that would go up is left to the normal checks. `None`
/// when nothing is diverted (always when `divert_out` = 0).
pub fn diversion(
    cfg: &RouterConfig,
    p: &RouterParams,
    h: flit::Head,
    owned: u8,
) -> Option<Result<u8, RouterError>> {
    if cfg.divert_out == 0 {
        return None;
    }
    let t = &cfg.tree[h.class as usize];
    let cons = || 1u8 << consumption_choice(p, h.class, owned);
    if h.node == t.own {
        if h.o & cfg.divert_out == 0 {
            return None;
        }
        let healthy = h.o & !cfg.divert_out;
        if (0..4).any(|d| healthy >> d & 1 == 1 && !link_ok(cfg, d, h.class)) {
            return Some(Err(RouterError::BadLink));
        }
        return Some(Ok(healthy | cons()));
    }
    match t.route(h.node) {
        Some(d) if cfg.divert_out >> d.index() & 1 == 1 && !(h.s && Some(d) == t.parent) => {
            Some(Ok(cons()))
        }
        _ => None,
    }
}

/// A HEAD at a diverted input (local fault information, [`diversion`]):
/// below a reserved link it follows that link (S set if the input holds
/// more than one output, as at any split point); any other HEAD — the
/// first one, those of a faulty branch, a malformed one — goes to the
/// reserved consumption channel unchanged, for the NI to decode. No error
/// is raised here: the NI judges what it receives.
pub fn diverted_head(cfg: &RouterConfig, r: &InputRegs, f: Flit) -> (u8, Flit) {
    let h = flit::decode_head(f);
    if let Some(t) = cfg.tree.get(h.class as usize) {
        for d in Dir::ALL {
            if r.reserved >> d.index() & 1 == 1 && t.below(d, h.node) {
                let multi = r.reserved.count_ones() > 1;
                return (1 << d.index(), if multi { flit::set_s(f) } else { f });
            }
        }
    }
    (r.reserved & 0xF0, f)
}

/// SPAM: a first HEAD for another node follows the SPAM table by the phase
/// of its input port, unless S=1 (after a split), when it must go down a tree
/// link. At its target it is stripped; O bits may name tree child ports only
/// (multicast branches go down the tree); C=1 takes a channel of the pool as
/// every routing function does ([`consumption_choice`]).
fn spam_first_head(
    cfg: &RouterConfig,
    p: &RouterParams,
    input: usize,
    h: flit::Head,
    owned: u8,
) -> Result<(u8, bool, u8), RouterError> {
    let table = &cfg.tree[0];
    let sp = cfg.spam.as_ref().ok_or(RouterError::BadLink)?;
    if h.node == table.own {
        let mask = own_header(
            &h,
            || consumption_choice(p, h.class, owned),
            |d| link_ok(cfg, d, h.class) && table.child[d].is_some(),
        )?;
        return Ok((mask, true, h.class));
    }
    let d = if h.s {
        let d = table.route(h.node).ok_or(RouterError::NodeOutOfRange)?;
        if Some(d) == table.parent {
            return Err(RouterError::DownPhaseUp);
        }
        d
    } else {
        // No legal path from this phase (a down-tree worm whose target is not
        // below): the worm would have to go up again.
        sp.route(input, h.node).ok_or(RouterError::DownPhaseUp)?
    };
    if input < 4 && d.index() == input {
        return Err(RouterError::BackToArrival);
    }
    if !link_ok(cfg, d.index(), h.class) {
        return Err(RouterError::BadLink);
    }
    Ok((1 << d.index(), false, h.class))
}

/// A trailing HEAD at an active input: the one output it goes to and the
/// flit to send (S set at a split point).
pub fn trailing_head(
    cfg: &RouterConfig,
    p: &RouterParams,
    r: &InputRegs,
    f: Flit,
) -> Result<(usize, Flit), RouterError> {
    let h = flit::decode_head(f);
    if h.class != r.class || h.class as usize >= p.classes {
        return Err(RouterError::BadClass);
    }
    if p.routing.is_mesh() {
        return super::mesh::trailing_head(cfg, p, r.reserved, f);
    }
    if h.node >= cfg.node_count {
        return Err(RouterError::NodeOutOfRange);
    }
    let table = &cfg.tree[h.class as usize];
    if h.node == table.own && h.s {
        return Err(RouterError::HeadForMeAfterSplit);
    }
    if r.reserved.count_ones() > 1 {
        // Split point: the reserved link below which Node lies.
        for d in Dir::ALL {
            if r.reserved >> d.index() & 1 == 1 && table.below(d, h.node) {
                return Ok((d.index(), flit::set_s(f)));
            }
        }
        return Err(RouterError::BelowNoBranch);
    }
    let o = r.reserved.trailing_zeros() as usize;
    if o >= 4 {
        return Err(RouterError::TrailingAtConsumer);
    }
    Ok((o, f))
}
