//! Render counts per component, in debug builds only (the browser tests check that stepping does
//! not redraw what did not change). In release builds `rendered` compiles to nothing.

#[cfg(debug_assertions)]
thread_local! {
    static COUNTS: std::cell::RefCell<std::collections::BTreeMap<&'static str, u32>> = Default::default();
}

/// Notes one render of component `name`.
#[inline]
pub fn rendered(name: &'static str) {
    #[cfg(debug_assertions)]
    COUNTS.with(|c| *c.borrow_mut().entry(name).or_default() += 1);
    #[cfg(not(debug_assertions))]
    let _ = name;
}

/// How often component `name` rendered so far (always 0 in release builds).
pub fn renders(name: &str) -> u32 {
    #[cfg(debug_assertions)]
    return COUNTS.with(|c| c.borrow().get(name).copied().unwrap_or(0));
    #[cfg(not(debug_assertions))]
    {
        let _ = name;
        0
    }
}

/// A `performance.mark(name)`: the first-load benchmark (`www/tests/bench/first-load.mjs`) splits
/// the time to the first node by these (start entered, state built, first render committed).
pub fn mark(name: &str) {
    if cfg!(not(target_arch = "wasm32")) {
        return;
    }
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}
