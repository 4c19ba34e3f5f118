//! Nothing but a home for `benches/side_by_side.rs` (`make bench-stateright`): the exhaustive
//! checker and Stateright 0.31's Raft example explored side by side in one process.
