//! The malformed-input cases of docs/architecture.md §3, one code each. This table is
//! the single definition used by the router, the statistics, the VCD writer
//! and the docs; the RTL's `err_code` register uses the same numbers.

/// Why an input dropped a worm. The discriminant is the `err_code` register value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RouterError {
    /// BODY or TAIL flit at an idle input.
    BodyAtIdle = 1,
    /// A HEAD for this node at an active input with S = 1.
    HeadForMeAfterSplit = 2,
    /// A down-phase (S = 1) header that would have to go up.
    DownPhaseUp = 3,
    /// A first HEAD (not for this node) that would leave by its arrival port.
    BackToArrival = 4,
    /// A HEAD for this node with C = 0 and no O bit.
    NoOutput = 5,
    /// An O bit, or the routing function, pointing at a missing, faulty or wrong-class link.
    BadLink = 6,
    /// A trailing HEAD at an input whose only reserved output is a consumption channel.
    TrailingAtConsumer = 7,
    /// A trailing HEAD at a split point whose Node lies below none of the reserved links.
    BelowNoBranch = 8,
    /// `Node` out of range.
    NodeOutOfRange = 9,
    /// Class field naming no class, or not the class of the link it arrived on
    /// or of the worm it belongs to.
    BadClass = 10,
    /// Flit kind 3 (reserved).
    ReservedKind = 11,
}

impl RouterError {
    pub const ALL: [RouterError; 11] = [
        RouterError::BodyAtIdle,
        RouterError::HeadForMeAfterSplit,
        RouterError::DownPhaseUp,
        RouterError::BackToArrival,
        RouterError::NoOutput,
        RouterError::BadLink,
        RouterError::TrailingAtConsumer,
        RouterError::BelowNoBranch,
        RouterError::NodeOutOfRange,
        RouterError::BadClass,
        RouterError::ReservedKind,
    ];

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(c: u8) -> Option<RouterError> {
        RouterError::ALL.into_iter().find(|e| e.code() == c)
    }

    /// Stable snake-case name for JSON and VCD.
    pub fn name(self) -> &'static str {
        match self {
            RouterError::BodyAtIdle => "body_at_idle",
            RouterError::HeadForMeAfterSplit => "head_for_me_after_split",
            RouterError::DownPhaseUp => "down_phase_up",
            RouterError::BackToArrival => "back_to_arrival",
            RouterError::NoOutput => "no_output",
            RouterError::BadLink => "bad_link",
            RouterError::TrailingAtConsumer => "trailing_at_consumer",
            RouterError::BelowNoBranch => "below_no_branch",
            RouterError::NodeOutOfRange => "node_out_of_range",
            RouterError::BadClass => "bad_class",
            RouterError::ReservedKind => "reserved_kind",
        }
    }
}
