/// A stand-in until the per-family players' loader replaces it: opens `query` by setting `location.search` (a reload).
pub fn elsewhere(query: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_search(query);
    }
}
