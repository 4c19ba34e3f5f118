//! What the header's tools (scenario bar, picture export) ask of the browser; the app's effects
//! carry it out.

/// What the bar asks of the browser (handled by the app's effects).
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Copy a link (`false`) or embed code (`true`) and show it.
    Share(bool),
    Export,
    /// Files chosen or dropped at once (a scenario or trace, or a real cluster's logs).
    ImportFiles(Vec<web_sys::File>),
    /// A picture of the canvas (SVG or PNG) to download.
    Picture(crate::export::Options),
    /// An animated PNG of steps `from..=to` (None: from the cursor, 40 steps), ms per frame.
    Animation(crate::export::Options, (Option<u64>, Option<u64>), u32),
}
