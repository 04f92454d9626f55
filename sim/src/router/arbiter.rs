//! The reservation arbiter (docs/architecture.md §3): one rotating priority order
//! over the inputs; a request is granted only if *all* its outputs are free
//! (atomic, no hold-and-wait). The highest-priority input that cannot be
//! granted keeps the top priority and masks every output it requests, free
//! ones included, from lower-priority inputs until it is granted. Without the
//! mask a multi-port request starves behind streams of single-port requests.

/// Result of one arbitration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// Granted inputs (bit per input).
    pub granted: u8,
    /// Next value of the priority register.
    pub prio: u8,
}

/// `requests[i]` is input `i`'s output mask (0 = no request); `owned` the
/// outputs held at the start of the cycle; `prio` the current top input.
///
/// The next priority: the first blocked input if any (it keeps the top);
/// otherwise one past the first granted input; otherwise unchanged, so an
/// idle router's state does not change.
pub fn arbitrate(requests: &[u8], owned: u8, prio: u8) -> Grant {
    arbitrate_masking(requests, owned, prio, 0xFF)
}

/// [`arbitrate`] where the first blocked input masks only the outputs in
/// `maskable`. The mesh routing functions pass 0 (no mask): a blocked
/// `{consumption, link}` request that masked a free output would make a
/// lower-priority worm wait on the blocked one's resources, a dependency
/// outside the channel order that keeps path-based worms deadlock-free
/// (docs/decisions.md). The blocked input still keeps the top
/// priority, so it wins as soon as all its outputs are free together.
pub fn arbitrate_masking(requests: &[u8], owned: u8, prio: u8, maskable: u8) -> Grant {
    let n = requests.len();
    let mut taken = owned;
    let mut granted = 0u8;
    let mut first_blocked: Option<usize> = None;
    let mut first_granted: Option<usize> = None;
    let start = prio as usize % n.max(1);
    for k in 0..n {
        let i = (start + k) % n;
        let req = requests[i];
        if req == 0 {
            continue;
        }
        if req & taken == 0 {
            taken |= req;
            granted |= 1 << i;
            first_granted.get_or_insert(i);
        } else if first_blocked.is_none() {
            first_blocked = Some(i);
            taken |= req & maskable;
        }
    }
    let prio = match (first_blocked, first_granted) {
        (Some(b), _) => b as u8,
        (None, Some(g)) => ((g + 1) % n) as u8,
        (None, None) => prio,
    };
    Grant { granted, prio }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_all_or_nothing() {
        // Input 0 wants outputs {0,1}; output 1 is owned: nothing granted to it.
        let g = arbitrate(&[0b011, 0, 0b100], 0b010, 0);
        assert_eq!(g.granted, 0b100);
        assert_eq!(g.prio, 0);
    }

    #[test]
    fn blocked_top_masks_free_outputs() {
        // Input 0 blocked on output 1 but also wants output 0, which is free;
        // input 1 wants output 0 only and must not get it.
        let g = arbitrate(&[0b011, 0b001], 0b010, 0);
        assert_eq!(g.granted, 0);
        // Only the first blocked input masks: input 1 blocked, input 2 is free to go.
        let g = arbitrate(&[0b011, 0b100, 0b100], 0b010, 0);
        assert_eq!(g.granted, 0b010);
    }

    #[test]
    fn rotates_when_nothing_blocks() {
        let g = arbitrate(&[0b01, 0b10], 0, 0);
        assert_eq!(g.granted, 0b11);
        assert_eq!(g.prio, 1);
        assert_eq!(arbitrate(&[0, 0], 0, 1).prio, 1);
    }
}
